"""Faults the sandbox injects on demand, one request at a time.

Before the request is processed (nothing is recorded): :class:`InternalError` (unless
``after_accept``), :class:`BadGateway`, :class:`RateLimited`, :class:`ConnectionRefused`.
Around it: :class:`Latency` waits, then processes normally. After it was processed and the state
changed: :class:`DropConnection`, :class:`ReadTimeout`, ``InternalError(after_accept=True)`` —
the caller cannot know whether the operation happened, which is how ``OutcomeUnknownError`` is
tested.
"""

from __future__ import annotations

from typing import Literal

import attrs

__all__ = [
    "BadGateway",
    "ConnectionRefused",
    "DropConnection",
    "Endpoint",
    "Fault",
    "InternalError",
    "Latency",
    "RateLimited",
    "ReadTimeout",
]

Endpoint = Literal["*", "qrcodes", "payments", "refunds", "print_jobs", "terminals"]
"""Which requests a fault applies to, named like the client's resources; ``"*"`` is any."""


@attrs.frozen
class InternalError:
    """Answer ``500`` with the ``ERRO_INTERNO`` error body.

    Attributes:
        after_accept: When ``True`` the request is processed first (a payment is recorded and
            its terminal acts) and only the answer is a 500.
    """

    after_accept: bool = False


@attrs.frozen
class BadGateway:
    """Answer ``502`` with an HTML body, as a proxy in front of the service would."""


@attrs.frozen
class RateLimited:
    """Answer ``429`` with a ``Retry-After`` header.

    Attributes:
        retry_after: Seconds sent in ``Retry-After``.
    """

    retry_after: int = 1


@attrs.frozen
class Latency:
    """Wait before processing the request normally.

    Attributes:
        seconds: How long to wait (``time.sleep`` for sync callers, ``asyncio.sleep`` for async).
    """

    seconds: float


@attrs.frozen
class DropConnection:
    """Process the request, then drop the connection without an answer.

    In process this raises ``httpx.RemoteProtocolError``; behind :meth:`Sandbox.serve` the
    socket is closed without writing a response.
    """


@attrs.frozen
class ReadTimeout:
    """Process the request, then never answer.

    In process this raises ``httpx.ReadTimeout``; behind :meth:`Sandbox.serve` the socket stays
    silent for ``hold`` seconds (or until the server stops), then is closed.

    Attributes:
        hold: Seconds the real server keeps the connection silent.
    """

    hold: float = 30.0


@attrs.frozen
class ConnectionRefused:
    """Refuse the connection before anything is read or recorded.

    In process this raises ``httpx.ConnectError``. A listening server cannot refuse one
    connection, so behind :meth:`Sandbox.serve` the socket is closed before the request is read.
    """


Fault = (
    InternalError
    | BadGateway
    | RateLimited
    | Latency
    | DropConnection
    | ReadTimeout
    | ConnectionRefused
)
"""Any fault :meth:`Sandbox.fail_next` accepts."""
