"""One check for every duration in seconds of the webhooks package (leases, timeouts, backoff).

A duration is a finite ``int`` or ``float`` (never a ``bool``), above zero or at least zero
as the caller asks. A bad constructor option is a ``ConfigurationError`` (also a
``ValueError``), like every bad option of the SDK; a bad method argument is a ``TypeError``
(not a number) or a ``ValueError`` (out of range).
"""

from __future__ import annotations

import math

from smartpos._errors import ConfigurationError
from smartpos._messages import message

__all__ = ["check_seconds"]


def check_seconds(
    name: str, value: object, *, positive: bool, option: bool = False, or_none: bool = False
) -> float:
    """Return ``value`` as a float number of seconds, or raise naming ``name``.

    Args:
        name: The option or argument, as the caller wrote it (``lease``, ``store_timeout``).
        value: What was given.
        positive: ``True``: must be > 0; ``False``: 0 is allowed too.
        option: ``value`` is a constructor option: raise ``ConfigurationError``.
        or_none: The caller also accepts ``None`` (and has dealt with it): the message says so.

    Returns:
        ``float(value)``.

    Raises:
        ConfigurationError: ``option`` and ``value`` is not a finite number in range.
        TypeError: Not ``option``, and ``value`` is not an int or a float (a bool is not).
        ValueError: Not ``option``, and ``value`` is NaN, infinite or out of range.
    """
    bound = "> 0" if positive else ">= 0"
    or_none_key = "_or_none" if or_none else ""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        text = message(
            "webhooks.seconds_type" + or_none_key, name=name, bound=bound, type=type(value).__name__
        )
        raise ConfigurationError(text) if option else TypeError(text)
    try:
        seconds = float(value)
    except OverflowError:  # an int too large for a float
        seconds = math.inf
    if not math.isfinite(seconds) or seconds < 0 or (positive and seconds == 0):
        text = message("webhooks.seconds_range" + or_none_key, name=name, bound=bound, value=value)
        raise ConfigurationError(text) if option else ValueError(text)
    return seconds
