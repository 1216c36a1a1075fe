"""Faults the sandbox injects on demand, one request at a time, and the plan that holds them.

Before the request is processed (nothing is recorded):
[`InternalError`][smartpos.testing.InternalError] (unless ``after_accept``),
[`BadGateway`][smartpos.testing.BadGateway], [`RateLimited`][smartpos.testing.RateLimited],
[`ConnectionRefused`][smartpos.testing.ConnectionRefused]. Around it:
[`Latency`][smartpos.testing.Latency] waits, then processes normally. After it was processed and
the state changed: [`DropConnection`][smartpos.testing.DropConnection],
[`ReadTimeout`][smartpos.testing.ReadTimeout], ``InternalError(after_accept=True)`` — the caller
cannot know whether the operation happened, which is how ``OutcomeUnknownError`` is tested.

`FaultPlan` is the one place faults wait to be used: the sandbox's front door takes one per
request (``take``), the outbox one per delivery attempt (``take_webhook``).
"""

from __future__ import annotations

import threading
from typing import Literal, get_args

import attrs

__all__ = [
    "BadGateway",
    "ConnectionRefused",
    "DropConnection",
    "Endpoint",
    "Fault",
    "FaultPlan",
    "InternalError",
    "Latency",
    "RateLimited",
    "ReadTimeout",
    "WebhookFailure",
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

    In process this raises ``httpx.RemoteProtocolError``; behind
    [`Sandbox.serve`][smartpos.testing.Sandbox.serve] the socket is closed without writing a
    response.
    """


@attrs.frozen
class ReadTimeout:
    """Process the request, then never answer.

    In process this raises ``httpx.ReadTimeout``; behind
    [`Sandbox.serve`][smartpos.testing.Sandbox.serve] the socket stays silent for ``hold`` seconds
    (or until the server stops), then is closed.

    Attributes:
        hold: Seconds the real server keeps the connection silent.
    """

    hold: float = 30.0


@attrs.frozen
class ConnectionRefused:
    """Refuse the connection before anything is read or recorded.

    In process this raises ``httpx.ConnectError``. A listening server cannot refuse one
    connection, so behind [`Sandbox.serve`][smartpos.testing.Sandbox.serve] the socket is closed
    before the request is read.
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
"""Any fault [`Sandbox.fail_next`][smartpos.testing.Sandbox.fail_next] accepts."""


WebhookFailure = int | None
"""An injected delivery failure: the status the target "answered", or ``None`` for a timeout."""


@attrs.define
class _Planned:
    endpoint: Endpoint
    fault: Fault
    remaining: int


class FaultPlan:
    """The faults waiting for the next requests and the next webhook deliveries, in order."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: list[_Planned] = []
        self._webhooks: list[WebhookFailure] = []

    def fail_next(self, endpoint: Endpoint, fault: Fault, times: int) -> None:
        """Plan ``fault`` for the next ``times`` requests to ``endpoint`` (see ``Sandbox``).

        Raises:
            ValueError: ``times`` below 1 or an unknown endpoint.
        """
        if times < 1:
            raise ValueError("times must be at least 1")
        if endpoint not in get_args(Endpoint):
            raise ValueError(f"unknown endpoint {endpoint!r}")
        with self._lock:
            self._requests.append(_Planned(endpoint, fault, times))

    def fail_webhook(self, failure: WebhookFailure, times: int) -> None:
        """Plan ``failure`` for the next ``times`` delivery attempts."""
        with self._lock:
            self._webhooks.extend([failure] * times)

    def clear(self) -> None:
        """Forget every fault not yet used, webhook faults included."""
        with self._lock:
            self._requests.clear()
            self._webhooks.clear()

    def take(self, endpoint: Endpoint | None) -> Fault | None:
        """Use up the first fault planned for a request to ``endpoint``, if any.

        Args:
            endpoint: The endpoint the request goes to; ``None`` (not a service endpoint) never
                gets a fault.

        Returns:
            The fault, or ``None``.
        """
        if endpoint is None:
            return None
        with self._lock:
            for planned in self._requests:
                if planned.endpoint in ("*", endpoint):
                    planned.remaining -= 1
                    if planned.remaining == 0:
                        self._requests.remove(planned)
                    return planned.fault
        return None

    def take_webhook(self) -> WebhookFailure | Literal[False]:
        """Use up the next planned delivery failure.

        Returns:
            The failure, or ``False`` when none is planned.
        """
        with self._lock:
            return self._webhooks.pop(0) if self._webhooks else False
