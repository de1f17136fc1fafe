"""Measuring the router on labelled data: formats, metrics, comparison, reports.

The command itself lives in `mnemolis.evaluation.command`.
"""
