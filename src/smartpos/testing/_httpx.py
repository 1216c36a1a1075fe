"""Between httpx and the sandbox's own types: what the transport and the server both need."""

from __future__ import annotations

import httpx

from ._protocol import NoResponse, Request, Response

__all__ = ["from_httpx", "to_httpx"]


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
