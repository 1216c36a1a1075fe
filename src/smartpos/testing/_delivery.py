"""Webhook targets, one delivery attempt to each kind of target, and the retry schedule.

A target is where a partner's events go: a loopback URL (HTTP POST, JSON), an in-process
callable taking the envelope dict, or any object with ``receive(body, headers)`` such as the
SDK's ``smartpos.webhooks.WebhookReceiver`` (duck-typed: the sandbox does not import it).

The schedule (`retry_delay`) is exponential: the first retry `backoff` seconds after the first
failure, each wait twice the one before. By default (`DEFAULT_ATTEMPTS`, `DEFAULT_BACKOFF`) it
has the shape of the schedule of Svix, the sender behind Standard Webhooks (eight attempts: at
once, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h), compressed from about a day into
about ten minutes: a receiver restarted, redeployed or paused in a debugger gets every event
while the developer still watches. Tests use `FAST_ATTEMPTS` and `FAST_BACKOFF` (the pytest plugin's
fixtures do).
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

import attrs
import httpx

from smartpos._version import __version__

__all__ = [
    "DEFAULT_ATTEMPTS",
    "DEFAULT_BACKOFF",
    "FAST_ATTEMPTS",
    "FAST_BACKOFF",
    "USER_AGENT",
    "DeliveryAttempt",
    "SupportsReceive",
    "WebhookTarget",
    "attempt_delivery",
    "check_headers",
    "check_schedule",
    "check_target",
    "describe_schedule",
    "describe_target",
    "is_loopback_host",
    "retry_delay",
]

USER_AGENT = f"smartpos-sandbox/{__version__}"
"""The ``user-agent`` of deliveries to a URL."""

DEFAULT_ATTEMPTS = 8
"""Attempts per delivery by default: the first and seven retries, as Svix makes."""
DEFAULT_BACKOFF = 5.0
"""Seconds before the first retry by default (Svix's first wait); the last retry comes about
10.6 minutes after the first attempt."""
FAST_ATTEMPTS = 4
"""Attempts per delivery of the tests' schedule."""
FAST_BACKOFF = 0.05
"""Seconds before the first retry of the tests' schedule (0.35 s in all)."""

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


def retry_delay(attempt: int, backoff: float) -> float:
    """Seconds from the failure of attempt ``attempt`` (1 for the first) to the next attempt.

    Args:
        attempt: The attempt that failed.
        backoff: The wait after the first failure; each later wait doubles.

    Returns:
        ``backoff * 2 ** (attempt - 1)``.
    """
    return float(backoff * 2 ** (attempt - 1))


def check_schedule(attempts: object, backoff: object) -> None:
    """Refuse a schedule that is not a whole number of attempts >= 1 and a backoff >= 0.

    Raises:
        ValueError: Either is out of range or of the wrong type (the message names it).
    """
    if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 1:
        raise ValueError(f"webhook_attempts must be a whole number >= 1, not {attempts!r}")
    if (
        isinstance(backoff, bool)
        or not isinstance(backoff, (int, float))
        or not 0 <= backoff < float("inf")
    ):
        raise ValueError(f"webhook_backoff must be seconds >= 0, not {backoff!r}")


def describe_schedule(attempts: int, backoff: float) -> str:
    """The schedule in words: ``8 attempts, retries after 5 s, 10 s, ... (the last 10.6 min
    after the first attempt)``."""
    if attempts == 1:
        return "1 attempt, no retry"
    waits = [retry_delay(a, backoff) for a in range(1, attempts)]
    shown = [_duration(w) for w in waits[:4]] + (["..."] if len(waits) > 4 else [])
    return (
        f"{attempts} attempts, retries after {', '.join(shown)} (the last "
        f"{_duration(sum(waits))} after the first attempt)"
    )


def _duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.3g} h"
    if seconds >= 60:
        return f"{seconds / 60:.3g} min"
    return f"{seconds:.3g} s"


def check_headers(headers: object, what: str = "webhook_headers") -> dict[str, str]:
    """The fixed headers of deliveries, names in lower case (``None``: none).

    Args:
        headers: A mapping of header names to values.
        what: The option's name, for messages.

    Returns:
        A new dict.

    Raises:
        TypeError: Not a mapping of str to str.
        ValueError: A name that is not an HTTP token, or a value holding a line break (the
            message never shows a value: it may be a secret).
    """
    if headers is None:
        return {}
    if not isinstance(headers, Mapping):
        raise TypeError(f"{what} is a mapping of header names to values, not {headers!r}")
    checked: dict[str, str] = {}
    for name, value in headers.items():
        if not isinstance(name, str) or not isinstance(value, str):
            raise TypeError(f"{what} maps str header names to str values")
        lower = name.strip().lower()
        if not _TOKEN.fullmatch(lower):
            raise ValueError(f"{what}: {name!r} is not a header name")
        if any(c in value for c in "\r\n\0"):
            raise ValueError(f"{what}: the value of {lower} holds a line break or a NUL")
        checked[lower] = value.strip()
    return checked


@runtime_checkable
class SupportsReceive(Protocol):
    """Anything with ``receive(body, headers)``, e.g. ``smartpos.webhooks.WebhookReceiver``."""

    def receive(self, body: bytes, headers: Mapping[str, str], /) -> object:
        """Take one delivery; a result with ``status_code`` >= 300 counts as a failure."""


WebhookTarget = str | SupportsReceive | Callable[[dict[str, Any]], object]
"""A loopback URL, an object with ``receive(body, headers)``, or a callable(envelope)."""


@attrs.frozen
class DeliveryAttempt:
    """One attempt to deliver one event to a partner's webhook target.

    Attributes:
        event_id: The envelope's ``id``.
        tipo: The envelope's ``tipo``.
        attempt: 1 for the first attempt of a delivery, then 2, 3... for its retries.
        target: A description of the target (the URL, or the callable's name).
        ok: Whether the target took it (HTTP 2xx, or no failure in process).
        status_code: The status the target answered, when it answered one.
        error: Why the attempt failed, when it did.
        answer: The body a URL target answered (its first 1,000 characters).
    """

    event_id: str
    tipo: str
    attempt: int
    target: str
    ok: bool
    status_code: int | None = None
    error: str | None = None
    answer: str | None = None


def is_loopback_host(host: str) -> bool:
    """Tell whether ``host`` is ``localhost`` or a loopback IP address.

    Args:
        host: A host name or an IP address (IPv6 with or without brackets).

    Returns:
        ``True`` only for loopback.
    """
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_target(target: object, *, allow_remote: bool = False) -> None:
    """Refuse a target the sandbox cannot deliver to.

    Args:
        target: The webhook target.
        allow_remote: Accept a URL beyond loopback (a sandbox run as a container service,
            delivering to another service such as ``http://app:8000/webhooks``).

    Raises:
        ValueError: A URL that is not ``http(s)`` on a loopback host (any host with
            ``allow_remote``).
        TypeError: Not a str, a ``receive`` object or a callable.
    """
    if isinstance(target, str):
        try:
            url = httpx.URL(target)
        except httpx.InvalidURL as exc:
            raise ValueError(f"not a URL: {target!r} ({exc})") from None
        local = allow_remote or is_loopback_host(url.host)
        if url.scheme not in ("http", "https") or not url.host or not local:
            where = "" if allow_remote else "loopback "
            raise ValueError(f"the sandbox only delivers to {where}http URLs, not {target!r}")
        return
    if not isinstance(target, SupportsReceive) and not callable(target):
        raise TypeError(f"a webhook target is a URL, a callable or a receiver, not {target!r}")


def describe_target(target: object) -> str:
    """Return a short description of a target for `DeliveryAttempt`.

    Args:
        target: The webhook target.

    Returns:
        The URL, or the name of the callable or receiver class.
    """
    if isinstance(target, str):
        return target
    if isinstance(target, SupportsReceive):
        return f"{type(target).__name__}.receive"
    return str(getattr(target, "__qualname__", type(target).__name__))


def _status_of(result: object) -> int | None:
    status = getattr(result, "status_code", result)
    if isinstance(status, int) and not isinstance(status, bool):
        return status
    return None


def attempt_delivery(
    target: WebhookTarget,
    body: bytes,
    client: httpx.Client | None,
    extra_headers: Mapping[str, str] | None = None,
) -> tuple[bool, int | None, str | None, str | None]:
    """Deliver one envelope once.

    Args:
        target: Where to deliver.
        body: The envelope's JSON, the exact bytes sent (and signed).
        client: The HTTP client for URL targets (``None`` for in-process targets).
        extra_headers: More headers for a URL or receiver target (a shared secret, the
            signature headers).

    Returns:
        ``(ok, status_code, error, answer)``; ``ok`` is ``False`` for a non-2xx answer, a
        network error or an exception raised by an in-process target; ``answer`` is the body
        a URL target answered.
    """
    headers = {
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        **(extra_headers or {}),
    }
    answer: str | None = None
    try:
        if isinstance(target, str):
            assert client is not None
            response = client.post(target, content=body, headers=headers)
            status: int | None = response.status_code
            answer = response.content[:1000].decode("utf-8", "replace")
        elif isinstance(target, SupportsReceive):
            status = _status_of(target.receive(body, headers))
        else:
            # A fresh copy: the target may mutate it, the sandbox keeps the one it sent.
            status = _status_of(target(json.loads(body)))
    except Exception as exc:  # noqa: BLE001 - any failure of the target is a failed delivery
        return False, None, f"{type(exc).__name__}: {exc}", None
    if status is not None and not 200 <= status < 300:
        return False, status, f"HTTP {status}", answer
    return True, status, None, answer
