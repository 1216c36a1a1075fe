"""The command's argparse converters and shared defaults: one set for every command and action.

Each turns an option's text into its value or raises ``argparse.ArgumentTypeError`` with what
was expected (argparse then exits 2 naming the option).
"""

from __future__ import annotations

import argparse
import os
from typing import Final

__all__ = ["DEFAULT_STORE", "delay", "port", "positive_int", "seconds", "store_default"]

DEFAULT_STORE: Final = "smartpos-inbox.db"
"""Inbox file of ``listen``, ``events`` and ``operations`` when ``SMARTPOS_INBOX`` is unset."""


def store_default() -> str:
    """The inbox file a command uses without ``--store``: ``SMARTPOS_INBOX``, else the default."""
    return os.environ.get("SMARTPOS_INBOX") or DEFAULT_STORE


def positive_int(text: str) -> int:
    """A whole number >= 1 (``--limit``, ``--count``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, not {text!r}")
    return value


def port(text: str) -> int:
    """A TCP port, 0 to 65535 (0: any free port)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, not {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, not {value}")
    return value


def seconds(text: str) -> float:
    """A duration in seconds, more than 0 and less than a day (``--timeout``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, not {text!r}") from None
    if not 0 < value < 86400:
        raise argparse.ArgumentTypeError(f"expected seconds > 0, not {text!r}")
    return value


def delay(text: str) -> float:
    """A delay in seconds, 0 to 60 (a scripted latency)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, not {text!r}") from None
    if not 0 <= value <= 60:
        raise argparse.ArgumentTypeError(f"expected 0 to 60 seconds, not {text!r}")
    return value
