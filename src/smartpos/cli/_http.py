"""A small threaded HTTP server around ``WebhookReceiver.receive`` (stdlib only).

``smartpos listen`` and ``smartpos demo`` need more than the receiver's WSGI/ASGI adapters
give: the :class:`~smartpos.webhooks.Receipt` of every delivery (to print it and mark
duplicates), after the answer is sent so printing never delays it. The receiver itself does
all the checking and storing; this module only moves bytes.
"""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from smartpos.webhooks import Receipt, WebhookReceiver

__all__ = ["Delivery", "OnDelivery", "serve_receiver"]

_MAX_CHUNKS: Final = 10_000
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


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True

    def __init__(
        self, address: tuple[str, int], receiver: WebhookReceiver, on_delivery: OnDelivery
    ) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.receiver = receiver
        self.on_delivery = on_delivery
        super().__init__(address, _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Report a failed request in one line instead of socketserver's traceback."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return  # the client went away: nothing to answer
        print(f"smartpos: request from {client_address[0]} failed: {exc!r}", file=sys.stderr)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 30
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: the command prints each delivery its own way."""

    def do_GET(self) -> None:
        """Answer a health check, so tools can tell the receiver is up."""
        self._answer(200, _STATUS_BODY)

    def do_POST(self) -> None:
        """Hand the body to the receiver, answer what it says, then report the delivery."""
        body = self._read_body(self.server.receiver.max_body_bytes)
        if body is None:
            self.close_connection = True
            self._answer(
                413,
                b'{"erro":{"codigo":"CORPO_MUITO_GRANDE","mensagem":"the body is too large"}}',
            )
            return
        headers = {name.lower(): value for name, value in self.headers.items()}
        receipt = self.server.receiver.receive(body, headers)
        self._answer(receipt.status_code, receipt.body)
        self.server.on_delivery(Delivery(receipt, body, headers, self.path))

    def _read_body(self, limit: int) -> bytes | None:
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            body = bytearray()
            for _ in range(_MAX_CHUNKS):
                size = int(self.rfile.readline(1024).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(1024).strip():
                        pass
                    return bytes(body)
                if len(body) + size > limit:
                    return None
                body += self.rfile.read(size)
                self.rfile.readline(16)
            return None
        try:
            length = int(self.headers.get("content-length") or 0)
        except ValueError:
            return None
        if length > limit:
            return None
        return self.rfile.read(length) if length > 0 else b""

    def _answer(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        if self.close_connection:
            self.send_header("connection", "close")
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()


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
    server = _Server((host, port), receiver, on_delivery)
    bound_host, bound_port = server.server_address[:2]
    host_text = bound_host.decode() if isinstance(bound_host, bytes) else str(bound_host)
    shown = f"[{host_text}]" if ":" in host_text else host_text
    thread = threading.Thread(
        target=server.serve_forever,
        kwargs={"poll_interval": 0.05},
        name="smartpos-receiver",
        daemon=True,
    )
    thread.start()
    try:
        yield f"http://{shown}:{bound_port}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5.0)
