"""The front door: the one place where a request meets its fault, then the service.

Every driver (the sync and async httpx transport, the HTTP server) does the same three steps:

1. ``exchange = front.begin(request)``: the fault plan is consulted, once;
2. wait ``exchange.delay`` seconds if it is not ``None`` (``time.sleep`` or ``asyncio.sleep``:
   the only step that differs between drivers);
3. ``front.answer(exchange)``: the fault is applied around `Service.handle`, the request
   is logged and the events it caused are delivered.

`Front.handle` is steps 1-3 for drivers that may block.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import attrs

from ._faults import (
    BadGateway,
    ConnectionRefused,
    DropConnection,
    Fault,
    FaultPlan,
    InternalError,
    Latency,
    RateLimited,
    ReadTimeout,
)
from ._outbox import Outbox
from ._protocol import NoResponse, Request, Response, json_response
from ._rules import Reject
from ._service import Service, endpoint_of
from ._world import World

__all__ = ["Exchange", "Front"]

_BAD_GATEWAY_HTML = (
    b"<html><head><title>502 Bad Gateway</title></head>"
    b"<body><center><h1>502 Bad Gateway</h1></center></body></html>"
)


@attrs.frozen
class Exchange:
    """A request and the fault planned for it, between `Front.begin` and ``answer``.

    Attributes:
        request: The request.
        fault: The fault taken for it, or ``None``.
    """

    request: Request
    fault: Fault | None

    @property
    def delay(self) -> float | None:
        """Seconds the driver waits before `Front.answer` (``None``: no latency fault)."""
        return self.fault.seconds if isinstance(self.fault, Latency) else None


class Front:
    """Faults around the service, the request log and event delivery, for every driver.

    Args:
        service: The service.
        faults: The fault plan.
        world: The world, whose request log is kept here.
        outbox: Flushed after each request, once the world's lock is free.
        control: Answers the sandbox's own ``/_sandbox/`` paths (the control API); without
            it they are the service's 404.
    """

    def __init__(
        self,
        service: Service,
        faults: FaultPlan,
        world: World,
        outbox: Outbox,
        control: Callable[[Request], Response] | None = None,
    ) -> None:
        self._service = service
        self._faults = faults
        self._world = world
        self._outbox = outbox
        self._control = control

    def begin(self, request: Request) -> Exchange:
        """Take the fault planned for ``request``'s endpoint, if any.

        Args:
            request: The request.

        Returns:
            The exchange to wait for (its ``delay``) and then to `answer`.
        """
        return Exchange(request, self._faults.take(endpoint_of(request.path)))

    def answer(self, exchange: Exchange) -> Response | NoResponse:
        """Answer a begun request: apply its fault around the service, log it, deliver events.

        Args:
            exchange: What `begin` returned.

        Returns:
            The answer, or `NoResponse` when the fault means nothing is answered.
        """
        fault = exchange.fault
        status: int | None = None
        try:
            answer = self._apply(exchange.request, fault)
            if isinstance(answer, Response):
                status = answer.status
            return answer
        finally:
            self._world.record(
                exchange.request, status, None if fault is None else type(fault).__name__
            )
            self._outbox.flush()

    def handle(self, request: Request) -> Response | NoResponse:
        """Begin, wait with ``time.sleep``, and answer: the whole exchange for blocking drivers.

        Args:
            request: The request.

        Returns:
            The answer, or `NoResponse`.
        """
        exchange = self.begin(request)
        if exchange.delay is not None:
            time.sleep(exchange.delay)
        return self.answer(exchange)

    def _apply(self, request: Request, fault: Fault | None) -> Response | NoResponse:
        if isinstance(fault, ConnectionRefused):
            return NoResponse("refused")
        if isinstance(fault, InternalError) and not fault.after_accept:
            return json_response(500, Reject("ERRO_INTERNO").body())
        if isinstance(fault, BadGateway):
            return Response(502, {"content-type": "text/html"}, _BAD_GATEWAY_HTML)
        if isinstance(fault, RateLimited):
            headers = {"retry-after": str(fault.retry_after)}
            return json_response(429, Reject("LIMITE_REQUISICOES").body(), headers)
        if self._control is not None and request.path.startswith("/_sandbox/"):
            response = self._control(request)
        else:
            response = self._service.handle(request)
        if isinstance(fault, DropConnection):
            return NoResponse("dropped")
        if isinstance(fault, ReadTimeout):
            return NoResponse("timeout", fault.hold)
        if isinstance(fault, InternalError):
            return json_response(500, Reject("ERRO_INTERNO").body())
        return response
