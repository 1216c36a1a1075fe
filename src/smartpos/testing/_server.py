"""The sandbox behind a real HTTP server: stdlib ``ThreadingHTTPServer`` on loopback only.

A driver of :class:`~._front.Front`, like the httpx transport: each request goes through the
same front door; a :class:`~._protocol.NoResponse` closes the socket without writing anything,
as a crashed or cut-off service would.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast

import httpx

from ._delivery import is_loopback_host
from ._front import Front
from ._httpx import from_httpx
from ._protocol import NoResponse, Response, encode_json
from ._rules import Reject

__all__ = ["MAX_BODY", "MAX_CHUNKS", "serve"]

MAX_BODY = 8 * 1024 * 1024
"""Largest request body read, in bytes (a 413 above it)."""
MAX_CHUNKS = 10_000
"""Most chunks read from a chunked request body."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 1024

    def __init__(self, address: tuple[str, int], front: Front) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.front = front
        self.stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        super().__init__(address, _Handler)
        bound_host = cast(str, self.server_address[0])
        bound_port = self.server_address[1]
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        self.base_url = f"http://{shown}:{bound_port}"

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, address = super().get_request()
        # Small JSON answers must not wait for Nagle's algorithm.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self._connections_lock:
            self._connections.add(sock)
        return sock, address

    def shutdown_request(self, request: Any) -> None:
        with self._connections_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        """Shut down every open connection so idle keep-alive threads end at once."""
        with self._connections_lock:
            connections = list(self._connections)
        for sock in connections:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 60  # an idle keep-alive connection is closed after this many seconds
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: tests and tools read the sandbox's records, not stderr."""

    def do_GET(self) -> None:
        """Answer a GET."""
        self._answer()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_GET  # noqa: N815

    def _read_body(self) -> bytes | None:
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            body = bytearray()
            for _ in range(MAX_CHUNKS):
                size = int(self.rfile.readline(1024).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(1024).strip():
                        pass
                    return bytes(body)
                body += self.rfile.read(size)
                self.rfile.readline(16)
                if len(body) > MAX_BODY:
                    return None
            return None
        length = int(self.headers.get("content-length") or 0)
        if length > MAX_BODY:
            return None
        return self.rfile.read(length) if length else b""

    def _answer(self) -> None:
        try:
            body = self._read_body()
        except ValueError:
            body = None
        if body is None:
            self.close_connection = True
            reject = Reject("PAYLOAD_MUITO_GRANDE")
            self._write(
                Response(
                    reject.status, {"content-type": "application/json"}, encode_json(reject.body())
                )
            )
            return
        request = httpx.Request(
            self.command,
            self.server.base_url + self.path,
            headers=list(self.headers.items()),
            content=body,
        )
        answer = self.server.front.handle(from_httpx(request))
        if isinstance(answer, NoResponse):
            if answer.reason == "timeout":
                self.server.stopping.wait(answer.hold)
            self.close_connection = True
            return
        self._write(answer)

    def _write(self, response: Response) -> None:
        content = response.body
        self.send_response(response.status)
        for name, value in response.headers.items():
            if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                self.send_header(name, value)
        self.send_header("content-length", str(len(content)))
        if self.close_connection:
            self.send_header("connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(content)


def serve(front: Front, host: str, port: int) -> contextlib.AbstractContextManager[str]:
    """Serve a sandbox's front door on ``host:port`` for the duration of a ``with`` block.

    Args:
        front: The front door of the sandbox to serve.
        host: A loopback address (``127.0.0.1``, ``::1`` or ``localhost``).
        port: The port, 0 for a free one.

    Returns:
        A context manager giving the base URL, such as ``"http://127.0.0.1:54321"``.

    Raises:
        ValueError: ``host`` is not a loopback address.
    """
    if not is_loopback_host(host):
        raise ValueError(f"the sandbox only listens on loopback addresses, not {host!r}")
    return _serving(front, host, port)


@contextlib.contextmanager
def _serving(front: Front, host: str, port: int) -> Iterator[str]:
    server = _Server((host, port), front)
    thread = threading.Thread(
        target=server.serve_forever,
        kwargs={"poll_interval": 0.05},
        name="smartpos-sandbox-server",
        daemon=True,
    )
    thread.start()
    try:
        yield server.base_url
    finally:
        server.stopping.set()
        server.shutdown()
        server.close_connections()
        server.server_close()
        thread.join(timeout=5.0)
