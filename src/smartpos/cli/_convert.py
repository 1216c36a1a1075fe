"""The command's argparse converters and shared defaults: one set for every command and action.

Each turns an option's text into its value or raises ``argparse.ArgumentTypeError`` with what
was expected (argparse then exits 2 naming the option).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
from collections.abc import Callable
from typing import Final, TypeVar

from ._i18n import words

__all__ = [
    "DEFAULT_STORE",
    "day",
    "delay",
    "port",
    "positive_int",
    "seconds",
    "store_default",
]

DEFAULT_STORE: Final = "smartpos-inbox.db"
"""Inbox file of ``listen``, ``events`` and ``operations`` when ``SMARTPOS_INBOX`` is unset."""


def store_default() -> str:
    """The inbox file a command uses without ``--store``: ``SMARTPOS_INBOX``, else the default."""
    return os.environ.get("SMARTPOS_INBOX") or DEFAULT_STORE


_N = TypeVar("_N", int, float)
_DAY: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _number(
    text: str, kind: Callable[[str], _N], unreadable: str, fits: Callable[[_N], bool], outside: str
) -> _N:
    """``kind(text)`` when ``fits`` it; else the error naming what was expected.

    ``outside`` is formatted with ``text`` (as typed) and ``value`` (as read).
    """
    try:
        value = kind(text)
    except ValueError:
        expected = words("expected {what}, not {text!r}", what=words(unreadable), text=text)
        raise argparse.ArgumentTypeError(expected) from None
    if not fits(value):
        raise argparse.ArgumentTypeError(words(outside, text=text, value=value))
    return value


def positive_int(text: str) -> int:
    """A whole number >= 1 (``--limit``, ``--count``)."""
    return _number(
        text, int, "a whole number", lambda v: v >= 1, "expected a number >= 1, not {text!r}"
    )


def port(text: str) -> int:
    """A TCP port, 0 to 65535 (0: any free port)."""
    return _number(
        text, int, "a port number", lambda v: 0 <= v <= 65535, "a port is 0 to 65535, not {value}"
    )


def seconds(text: str) -> float:
    """A duration in seconds, more than 0 and less than a day (``--timeout``)."""
    return _number(
        text, float, "seconds", lambda v: 0 < v < 86400, "expected seconds > 0, not {text!r}"
    )


def delay(text: str) -> float:
    """A delay in seconds, 0 to 60 (a scripted latency)."""
    return _number(
        text, float, "seconds", lambda v: 0 <= v <= 60, "expected 0 to 60 seconds, not {text!r}"
    )


def day(text: str) -> dt.date:
    """A calendar day written ``YYYY-MM-DD`` (``sales report --date``), nothing looser."""
    try:
        if not _DAY.fullmatch(text):
            raise ValueError(text)
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            words("expected a day as YYYY-MM-DD, not {text!r}", text=text)
        ) from None
