"""The sandbox behind a real HTTP server: the package's small h11 server, loopback by default.

A driver of `Front`, like the httpx transport: each request goes through the
same front door; a `NoResponse` closes the socket without writing anything,
as a crashed or cut-off service would. Bytes become a `Request` directly
(no httpx on the way), so no header byte or body can make the server drop a connection.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from smartpos._http_server import Failure, Hangup, HTTPAnswer, HTTPRequest, Server
from smartpos._http_server import serve as serve_http

from ._delivery import is_loopback_host
from ._front import Front
from ._protocol import NoResponse, Request, encode_json
from ._rules import Reject

__all__ = ["MAX_BODY", "serve"]

MAX_BODY = 8 * 1024 * 1024
"""Largest request body read, in bytes (a 413 above it)."""


_CODIGOS = {
    408: "TEMPO_REQUISICAO_ESGOTADO",
    413: "PAYLOAD_MUITO_GRANDE",
    431: "CABECALHOS_MUITO_GRANDES",
}


def _failure(failure: Failure) -> HTTPAnswer:
    if failure.status in _CODIGOS:
        reject = Reject(_CODIGOS[failure.status])
    elif failure.status == 400:
        reject = Reject(
            "CAMPO_INVALIDO", "$", mensagem=f"Requisição mal formada: {failure.reason}."
        )
    else:
        reject = Reject("ERRO_INTERNO")
    headers = {"content-type": "application/json; charset=utf-8"}
    return HTTPAnswer(reject.status, headers, encode_json(reject.body()), close=True)


def _handler(front: Front) -> Callable[[HTTPRequest], HTTPAnswer | Hangup]:
    def handle(http: HTTPRequest) -> HTTPAnswer | Hangup:
        request = Request(http.method, http.path, http.headers, http.body, http.query)
        answer = front.handle(request)
        if isinstance(answer, NoResponse):
            return Hangup(answer.hold if answer.reason == "timeout" else 0.0)
        return HTTPAnswer(answer.status, answer.headers, answer.body)

    return handle


def serve(
    front: Front, host: str, port: int, *, allow_remote: bool = False
) -> contextlib.AbstractContextManager[str]:
    """Serve a sandbox's front door on ``host:port`` for the duration of a ``with`` block.

    Args:
        front: The front door of the sandbox to serve.
        host: A loopback address (``127.0.0.1``, ``::1`` or ``localhost``), or any address
            with ``allow_remote``.
        port: The port, 0 for a free one.
        allow_remote: Accept an address beyond loopback (a container's ``0.0.0.0``).

    Returns:
        A context manager giving the base URL, such as ``"http://127.0.0.1:54321"``.

    Raises:
        ValueError: ``host`` is not a loopback address and ``allow_remote`` is false.
    """
    if not allow_remote and not is_loopback_host(host):
        raise ValueError(
            f"the sandbox only listens on loopback addresses, not {host!r} "
            "(allow_remote=True, or --host with the command, binds beyond it)"
        )
    server = Server(_handler(front), failure=_failure, max_body=MAX_BODY)
    return serve_http(server, host, port, name="smartpos-sandbox-server")
