"""Webhook targets and one delivery attempt to each kind of target.

A target is where a partner's events go: a loopback URL (HTTP POST, JSON), an in-process
callable taking the envelope dict, or any object with ``receive(body, headers)`` such as the
SDK's ``smartpos.webhooks.WebhookReceiver`` (duck-typed: the sandbox does not import it).
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

import attrs
import httpx

from smartpos._version import __version__

from ._protocol import encode_json

__all__ = [
    "USER_AGENT",
    "DeliveryAttempt",
    "SupportsReceive",
    "WebhookTarget",
    "attempt_delivery",
    "check_target",
    "describe_target",
    "is_loopback_host",
]

USER_AGENT = f"smartpos-sandbox/{__version__}"
"""The ``user-agent`` of deliveries to a URL."""


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
    envelope: Mapping[str, Any],
    client: httpx.Client | None,
    extra_headers: Mapping[str, str] | None = None,
) -> tuple[bool, int | None, str | None, str | None]:
    """Deliver one envelope once.

    Args:
        target: Where to deliver.
        envelope: The event envelope.
        client: The HTTP client for URL targets (``None`` for in-process targets).
        extra_headers: More headers for a URL target (e.g. a shared secret it checks).

    Returns:
        ``(ok, status_code, error, answer)``; ``ok`` is ``False`` for a non-2xx answer, a
        network error or an exception raised by an in-process target; ``answer`` is the body
        a URL target answered.
    """
    body = encode_json(envelope)
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
