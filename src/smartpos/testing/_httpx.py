"""Between httpx and the sandbox's own types, and the httpx transport that serves a sandbox."""

from __future__ import annotations

from typing import Any

import httpx

from ._front import Front
from ._protocol import NoResponse, Request, Response

__all__ = ["SandboxTransport", "from_httpx", "to_httpx"]


def from_httpx(request: httpx.Request) -> Request:
    """Return the sandbox's view of a read ``httpx.Request``.

    Args:
        request: The request; its body must have been read.

    Returns:
        The method, the percent-decoded path, lower-case headers and the body.
    """
    return Request(
        method=request.method,
        path=request.url.path,
        headers=dict(request.headers.items()),
        body=request.content,
        query=request.url.query.decode("ascii", "replace"),
    )


def to_httpx(answer: Response | NoResponse, request: httpx.Request) -> httpx.Response:
    """Return an answer as an ``httpx.Response``, or raise what a client would see instead.

    Args:
        answer: The sandbox's answer.
        request: The request, carried by the exception.

    Returns:
        The response.

    Raises:
        httpx.ConnectError: The connection was refused.
        httpx.RemoteProtocolError: The connection was dropped without an answer.
        httpx.ReadTimeout: No answer came.
    """
    if isinstance(answer, Response):
        return httpx.Response(answer.status, headers=dict(answer.headers), content=answer.body)
    if answer.reason == "refused":
        raise httpx.ConnectError("[sandbox] connection refused", request=request)
    if answer.reason == "dropped":
        raise httpx.RemoteProtocolError(
            "[sandbox] server disconnected without sending a response", request=request
        )
    raise httpx.ReadTimeout("[sandbox] read timed out", request=request)


class SandboxTransport(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """An httpx transport serving a `Sandbox` to both ``Client`` and ``AsyncClient``.

    Args:
        sandbox: The sandbox to serve.
    """

    def __init__(self, sandbox: Any) -> None:
        self.sandbox = sandbox
        self._front: Front = sandbox._front

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Answer a request from ``httpx.Client`` (latency faults use ``time.sleep``).

        Args:
            request: The request.

        Returns:
            The response.
        """
        request.read()
        return to_httpx(self._front.handle(from_httpx(request)), request)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Answer a request from ``httpx.AsyncClient`` (latency faults use ``asyncio.sleep``).

        Args:
            request: The request.

        Returns:
            The response.
        """
        import asyncio

        await request.aread()
        front = self._front
        exchange = front.begin(from_httpx(request))
        if exchange.delay is not None:
            await asyncio.sleep(exchange.delay)
        return to_httpx(front.answer(exchange), request)
