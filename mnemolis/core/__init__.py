"""The bottom layer: the data types and small helpers every other layer shares.

The plan understanding hands on, the device model, where a request came from,
announcements, spoken-sentence rules, days, the state and config directories.
Nothing here imports another part of Mnemolis.
"""
