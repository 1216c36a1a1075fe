"""A small threaded HTTP/1.1 server on the standard library: the one the sandbox and the CLI share.

The served sandbox (``smartpos.testing``) and the CLI's local webhook receiver (``smartpos listen``,
``smartpos demo``) need the same few things from a server, and nothing more: read a body whatever
its framing (``Content-Length`` or chunked, bounded in size and in chunks), answer every request
whatever its bytes (a non-ASCII byte in a header is read as Latin-1, never a dropped
connection), keep connections alive, close a connection without answering when told to, and stop
at once. The handler, a plain function from `HTTPRequest` to `HTTPAnswer` or
`Hangup`, decides everything else.
"""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
import urllib.parse
from collections.abc import Callable, Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast

import attrs

__all__ = [
    "MAX_CHUNKS",
    "Failure",
    "HTTPAnswer",
    "HTTPRequest",
    "Handler",
    "Hangup",
    "Server",
    "serve",
]

MAX_CHUNKS = 10_000
"""Most chunks read from one chunked request body."""


@attrs.frozen
class HTTPRequest:
    """One request as it arrived.

    Attributes:
        method: The method, as sent (upper-case for every client in practice).
        target: The request target as sent, e.g. ``"/v1/payments?x=1"``.
        headers: Header names in lower case; values decoded as Latin-1, so that any byte is
            kept; repeated headers joined by ``", "``.
        body: The body, de-chunked.
    """

    method: str
    target: str
    headers: Mapping[str, str]
    body: bytes

    @property
    def path(self) -> str:
        """The percent-decoded path, without the query."""
        return urllib.parse.unquote(urllib.parse.urlsplit(self.target).path)

    @property
    def query(self) -> str:
        """The raw query string (without ``?``)."""
        return urllib.parse.urlsplit(self.target).query


@attrs.frozen
class HTTPAnswer:
    """An answer to write.

    Attributes:
        status: The status code.
        headers: Headers to send (``content-length`` and ``connection`` are the server's).
        body: The body (not written for ``HEAD``).
        close: Close the connection after this answer.
        after: Called once the answer was written (in the request's thread), e.g. to print
            what happened without delaying the answer.
    """

    status: int
    headers: Mapping[str, str]
    body: bytes
    close: bool = False
    after: Callable[[], None] | None = attrs.field(default=None, eq=False)


@attrs.frozen
class Hangup:
    """Close the connection without answering, as a crashed or cut-off server would.

    Attributes:
        hold: Seconds to keep the connection silent first (cut short when the server stops).
    """

    hold: float = 0.0


@attrs.frozen
class Failure:
    """Why a request could not be handed to the handler; passed to the server's ``failure``.

    Attributes:
        status: 413 for a body over the limit, 400 for broken framing (a bad chunk size or
            ``Content-Length``), 500 for a handler that raised.
        reason: A short description.
    """

    status: int
    reason: str


Handler = Callable[[HTTPRequest], "HTTPAnswer | Hangup"]
"""What a server calls for each request whose body could be read."""


class _Unreadable(Exception):
    def __init__(self, bad: Failure) -> None:
        super().__init__(bad.reason)
        self.bad = bad


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 1024

    def __init__(self, address: tuple[str, int], owner: Server) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.owner = owner
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        # The idle timeout is a class attribute of the handler: one subclass per server.
        handler = type("_Handler", (_Handler,), {"timeout": owner.idle_timeout})
        super().__init__(address, handler)

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

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Report a failure in one line instead of socketserver's traceback."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return  # the client went away: nothing to answer
        self.owner.report(exc)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: the handler reports what it wants, its own way."""

    def __getattr__(self, name: str) -> Any:
        # Every method is handed to the handler: ``do_<ANY>`` resolves to the same function, so
        # an unknown method gets the handler's answer (405 with Allow), never a stdlib 501.
        if name.startswith("do_"):
            return self._answer
        raise AttributeError(name)

    def _read_body(self) -> bytes:
        owner = self.server.owner
        limit = owner.max_body
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            body = bytearray()
            for _ in range(MAX_CHUNKS):
                line = self.rfile.readline(1024)
                try:
                    size = int(line.split(b";")[0].strip() or b"0", 16)
                except ValueError:
                    raise _Unreadable(Failure(400, "bad chunk size")) from None
                if size < 0:
                    raise _Unreadable(Failure(400, "bad chunk size"))
                if size == 0:
                    while self.rfile.readline(1024).strip():
                        pass
                    return bytes(body)
                if len(body) + size > limit:
                    raise _Unreadable(Failure(413, f"body over {limit} bytes"))
                body += self.rfile.read(size)
                self.rfile.readline(16)
            raise _Unreadable(Failure(413, f"more than {MAX_CHUNKS} chunks"))
        try:
            length = int(self.headers.get("content-length") or 0)
        except ValueError:
            raise _Unreadable(Failure(400, "bad Content-Length")) from None
        if length < 0:
            raise _Unreadable(Failure(400, "bad Content-Length"))
        if length > limit:
            raise _Unreadable(Failure(413, f"body over {limit} bytes"))
        return self.rfile.read(length) if length else b""

    def _answer(self) -> None:
        owner = self.server.owner
        try:
            body = self._read_body()
        except _Unreadable as exc:
            self.close_connection = True
            self._write(owner.failure(exc.bad))
            return
        headers: dict[str, str] = {}
        for name, value in self.headers.items():
            key = name.lower()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        request = HTTPRequest(self.command, self.path, headers, body)
        try:
            answer = owner.handler(request)
        except Exception as exc:  # noqa: BLE001 - a handler's bug must not drop the connection
            owner.report(exc)
            answer = owner.failure(Failure(500, f"{type(exc).__name__}: {exc}"))
        if isinstance(answer, Hangup):
            if answer.hold > 0:
                owner.stopping.wait(answer.hold)
            self.close_connection = True
            return
        if answer.close:
            self.close_connection = True
        self._write(answer)
        if answer.after is not None:
            answer.after()

    def _write(self, answer: HTTPAnswer) -> None:
        self.send_response(answer.status)
        for name, value in answer.headers.items():
            if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                self.send_header(name, value)
        self.send_header("content-length", str(len(answer.body)))
        if self.close_connection:
            self.send_header("connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(answer.body)
        self.wfile.flush()


def _report(exc: BaseException | None) -> None:
    print(f"smartpos: a request failed: {exc!r}", file=sys.stderr)


class Server:
    """A server's settings and, once started, its address.

    Args:
        handler: Answers each request.
        failure: The answer when a body cannot be read (413 too large, 400 bad framing) or
            the handler raised (500).
        max_body: Largest body read, in bytes.
        idle_timeout: Seconds an idle keep-alive connection stays open.
        report: Called with an exception the handler raised (default: one line on stderr).
    """

    def __init__(
        self,
        handler: Handler,
        *,
        failure: Callable[[Failure], HTTPAnswer],
        max_body: int,
        idle_timeout: float = 60.0,
        report: Callable[[BaseException | None], None] = _report,
    ) -> None:
        self.handler = handler
        self.failure = failure
        self.max_body = max_body
        self.idle_timeout = idle_timeout
        self.report = report
        self.stopping = threading.Event()


def serve(
    server: Server, host: str, port: int, *, name: str = "smartpos-http"
) -> contextlib.AbstractContextManager[str]:
    """Serve on ``host:port`` while a ``with`` block runs.

    Args:
        server: What to serve.
        host: The address to bind (an IPv6 address without brackets).
        port: The port, 0 for a free one.
        name: The serving thread's name.

    Returns:
        A context manager giving the base URL without a trailing slash, such as
        ``"http://127.0.0.1:54321"`` or ``"http://[::1]:54321"``.

    Raises:
        OSError: The address cannot be bound (when the block is entered).
    """
    return _serving(server, host, port, name)


@contextlib.contextmanager
def _serving(server: Server, host: str, port: int, name: str) -> Iterator[str]:
    httpd = _HTTPServer((host, port), server)
    bound_host = cast(str, httpd.server_address[0])
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name=name, daemon=True
    )
    server.stopping.clear()
    thread.start()
    try:
        yield f"http://{shown}:{httpd.server_address[1]}"
    finally:
        server.stopping.set()
        httpd.shutdown()
        httpd.close_connections()
        httpd.server_close()
        thread.join(timeout=5.0)
