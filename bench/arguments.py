"""Argument types the bench scripts share (imported by name: each script runs with bench/ on its path)."""

import argparse


def at_least_one(text: str) -> int:
    """A count on the command line: a whole number, 1 or more, or argparse's usage error."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {number}")
    return number
