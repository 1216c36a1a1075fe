"""The local webhook receiver's HTTP side: ``WebhookReceiver.receive`` behind the package's server.

``smartpos listen`` and ``smartpos demo`` need more than the receiver's WSGI/ASGI adapters
give: the [`Receipt`][smartpos.webhooks.Receipt] of every delivery (to print it and mark
duplicates), after the answer is sent so printing never delays it. The receiver itself does
all the checking and storing; the server (``smartpos._http_server``, the same one that serves
the sandbox) reads the bytes; this module only joins them.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Final

from smartpos._http_server import (
    Failure,
    Handler,
    Hangup,
    HTTPAnswer,
    HTTPRequest,
    Server,
    serve,
)

if TYPE_CHECKING:
    from smartpos.webhooks import Receipt, WebhookReceiver

__all__ = ["Delivery", "OnDelivery", "serve_receiver"]

_NOT_ALLOWED: Final = b'{"erro":{"codigo":"METODO_NAO_PERMITIDO","mensagem":"use POST"}}'
_STATUS_BODY: Final = b'{"smartpos":"webhook receiver","post":"deliver an event here"}'


class Delivery:
    """One request the receiver answered: its receipt and what came with it.

    Attributes:
        receipt: What the receiver did (status, duplicate, event...).
        body: The request body as received.
        headers: The request headers (lower-case names).
        path: The request path.
    """

    __slots__ = ("body", "headers", "path", "receipt")

    def __init__(
        self, receipt: Receipt, body: bytes, headers: Mapping[str, str], path: str
    ) -> None:
        self.receipt = receipt
        self.body = body
        self.headers = headers
        self.path = path


OnDelivery = Callable[[Delivery], None]
"""Called in the request's thread after the answer was sent."""


_FAILURES: Final = {
    400: ("CORPO_INVALIDO", "send one well-formed HTTP/1.1 request (Content-Length or chunked)"),
    408: ("TEMPO_REQUISICAO_ESGOTADO", "send the request head and body without pauses"),
    413: ("CORPO_MUITO_GRANDE", "send a smaller body"),
    431: ("CABECALHOS_MUITO_GRANDES", "send at most 100 headers and 16 KiB of request head"),
    500: ("ERRO_INTERNO", "see the receiver's output, then send the event again"),
}


def _failure(failure: Failure) -> HTTPAnswer:
    codigo, acao = _FAILURES.get(failure.status, _FAILURES[500])
    mensagem = "the receiver failed" if codigo == "ERRO_INTERNO" else failure.reason
    erro = {"codigo": codigo, "mensagem": mensagem, "acao": acao}
    body = json.dumps({"erro": erro}).encode()
    return HTTPAnswer(failure.status, {"content-type": "application/json"}, body, close=True)


def _handler(receiver: WebhookReceiver, on_delivery: OnDelivery) -> Handler:
    def handle(request: HTTPRequest) -> HTTPAnswer | Hangup:
        json_type = {"content-type": "application/json"}
        if request.method in ("GET", "HEAD"):
            return HTTPAnswer(200, json_type, _STATUS_BODY)
        if request.method != "POST":
            return HTTPAnswer(405, {**json_type, "allow": "GET, HEAD, POST"}, _NOT_ALLOWED)
        receipt = receiver.receive(request.body, request.headers)
        delivery = Delivery(receipt, request.body, request.headers, request.target)
        return HTTPAnswer(
            receipt.status_code, json_type, receipt.body, after=lambda: on_delivery(delivery)
        )

    return handle


@contextlib.contextmanager
def serve_receiver(
    receiver: WebhookReceiver, host: str, port: int, on_delivery: OnDelivery
) -> Iterator[str]:
    """Serve ``receiver`` over HTTP for the duration of a ``with`` block.

    Every path answers: ``POST`` delivers an event, ``GET`` is a health check.

    Args:
        receiver: The webhook receiver.
        host: The address to listen on.
        port: The port, 0 for a free one.
        on_delivery: Called after each POST was answered.

    Yields:
        The URL to deliver to, such as ``"http://127.0.0.1:8766/"``.

    Raises:
        OSError: The address cannot be bound (in use, not local).
    """
    server = Server(
        _handler(receiver, on_delivery),
        failure=_failure,
        max_body=receiver.max_body_bytes,
        idle_timeout=30.0,
    )
    with serve(server, host, port, name="smartpos-receiver") as base_url:
        yield base_url + "/"
