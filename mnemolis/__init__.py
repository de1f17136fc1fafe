"""Mnemolis: a local-first conversational router for the home."""

__version__ = "0.1.0"
