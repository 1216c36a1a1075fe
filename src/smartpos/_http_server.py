"""A small HTTP/1.1 server on h11 and the standard library: the one the sandbox and the CLI share.

The served sandbox (``smartpos.testing``) and the CLI's local webhook receiver (``smartpos listen``,
``smartpos demo``) need the same few things from a server, and nothing more: read a body whatever
its framing (``Content-Length`` or chunked, bounded in size and in chunks), answer every request
whatever its bytes (a non-ASCII byte in a header is read as Latin-1, never a dropped
connection), keep connections alive, close a connection without answering when told to, and stop
at once. The handler, a plain function from `HTTPRequest` to `HTTPAnswer` or
`Hangup`, decides everything else.

Framing is h11's (sans-I/O), never parsed by hand: where hand-written servers and proxies disagree
about ``Content-Length``, ``Transfer-Encoding`` or chunk syntax, requests get smuggled. On top of
h11 the server refuses what h11 tolerates but a proxy in front may read differently (both
``Content-Length`` and ``Transfer-Encoding``). A request whose framing is broken, whose head is too
large or too slow, or whose body is too large, too slow or cut short never reaches the handler:
the server's ``failure`` answers it (400, 408, 413 or 431) and the connection is closed.

Threads are bounded: one thread waits on every idle connection and the listening socket
(``selectors``); a connection with bytes to read is handed to a pool of at most ``max_workers``
threads, and handed back once its answer is written. Idle keep-alive connections therefore cost
no thread. Beyond ``max_connections`` open connections, new ones wait in the listen backlog.
"""

from __future__ import annotations

import contextlib
import email.utils
import functools
import http
import queue
import selectors
import socket
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping
from typing import Final

import attrs
import h11

__all__ = [
    "BACKLOG",
    "MAX_CHUNKS",
    "MAX_HEADERS",
    "MAX_HEAD_BYTES",
    "Failure",
    "HTTPAnswer",
    "HTTPRequest",
    "Handler",
    "Hangup",
    "Server",
    "answer_head",
    "failure_bytes",
    "head_failure",
    "protocol_failure",
    "request_of",
    "serve",
]

MAX_CHUNKS = 10_000
"""Most chunks read from one chunked request body (413 above it)."""

MAX_HEAD_BYTES = 16 * 1024
"""Largest request head (request line and headers), in bytes (431 above it), as uvicorn's."""

MAX_HEADERS = 100
"""Most header lines in one request (431 above it), as the standard library's."""

BACKLOG = 1024
"""The listen backlog: bursts of connects wait here instead of a 1 s SYN retry."""

_RECV = 65536
_KEEP_WARM = 0.005  # seconds a worker waits for a kept-alive connection's next request
_LINGER = 1.0  # seconds to drain a refused request's unread bytes, so the answer is not reset


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
        status: 400 for broken framing (request line, headers, ``Content-Length``,
            ``Transfer-Encoding``, chunks, a body cut short), 408 for a head or body that did
            not arrive in time, 413 for a body over the limit, 431 for a head over the limit,
            500 for a handler that raised.
        reason: A short description.
    """

    status: int
    reason: str


Handler = Callable[[HTTPRequest], "HTTPAnswer | Hangup"]
"""What a server calls for each request whose body could be read."""


# --- sans-I/O decisions ------------------------------------------------------------------------


def head_failure(request: h11.Request, max_body: int) -> Failure | None:
    """Judge a request head h11 accepted: what it tolerates that this server refuses.

    Args:
        request: The head.
        max_body: The largest body accepted, in bytes.

    Returns:
        The failure to answer, or ``None`` to read the body.
    """
    names = [name for name, _ in request.headers]
    size = len(request.method) + len(request.target) + 12
    size += sum(len(name) + len(value) + 4 for name, value in request.headers.raw_items())
    if size > MAX_HEAD_BYTES or len(names) > MAX_HEADERS:
        return Failure(431, f"request head over {MAX_HEAD_BYTES} bytes or {MAX_HEADERS} headers")
    if b"transfer-encoding" in names and b"content-length" in names:
        # RFC 9112 6.3: a proxy that reads the other one sees a different request (smuggling).
        return Failure(400, "both Content-Length and Transfer-Encoding")
    for name, value in request.headers:
        # h11 has checked it: digits only, repeated values equal.
        if name == b"content-length" and int(value.split(b",")[0]) > max_body:
            return Failure(413, f"body over {max_body} bytes")
    return None


def protocol_failure(exc: h11.RemoteProtocolError) -> Failure:
    """Map h11's refusal of the bytes received to the failure to answer.

    Args:
        exc: What h11 raised.

    Returns:
        431 for a head over the limit, else 400: h11's 501 for a transfer coding other than
        chunked is broken framing like the rest (the callers answer 400, 408, 413 and 431).
        The reason leaves out the bytes h11 quotes: they are the client's, headers included.
    """
    status = 431 if exc.error_status_hint == 431 else 400
    reason = str(exc).split(": bytearray(", 1)[0][:200]
    return Failure(status, reason or "malformed request")


def request_of(event: h11.Request, body: bytes) -> HTTPRequest:
    """Build the handler's request from h11's head and the body read.

    Args:
        event: The head.
        body: The whole body.

    Returns:
        The request, header names lower-case and values Latin-1, repeated ones joined.
    """
    headers: dict[str, str] = {}
    for raw_name, raw_value in event.headers:
        name, value = raw_name.decode("latin-1"), raw_value.decode("latin-1")
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    return HTTPRequest(
        event.method.decode("latin-1"), event.target.decode("latin-1"), headers, body
    )


def answer_head(answer: HTTPAnswer) -> list[tuple[str, str]]:
    """The headers to send with an answer: the handler's, then the server's.

    Args:
        answer: The answer.

    Returns:
        Header pairs, ``content-length`` and ``connection`` set by the server.
    """
    headers = [
        (name, value)
        for name, value in answer.headers.items()
        if name.lower() not in ("content-length", "transfer-encoding", "connection")
    ]
    if not any(name.lower() == "date" for name, _ in headers):
        headers.append(("date", email.utils.formatdate(usegmt=True)))
    headers.append(("content-length", str(len(answer.body))))
    if answer.close:
        headers.append(("connection", "close"))
    return headers


_KNOWN: Final = frozenset(status.value for status in http.HTTPStatus)


def _phrase(status: int) -> str:
    return http.HTTPStatus(status).phrase if status in _KNOWN else ""


def failure_bytes(answer: HTTPAnswer, head_only: bool) -> bytes:
    """Serialize a failure's answer by hand, ``connection: close`` included.

    h11 has stopped at the refused request, so this answer is written beside it; the
    connection is closed right after.

    Args:
        answer: The failure's answer.
        head_only: The request was ``HEAD``: no body.

    Returns:
        The bytes to send.
    """
    lines = [f"HTTP/1.1 {answer.status} {_phrase(answer.status)}"]
    lines += [f"{name}: {value}" for name, value in answer_head(attrs.evolve(answer, close=True))]
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    return head if head_only else head + answer.body


# --- I/O ---------------------------------------------------------------------------------------


class _Late(Exception):
    """The head or the body did not arrive before its deadline."""


class _Refused(Exception):
    def __init__(self, failure: Failure, head_only: bool = False) -> None:
        super().__init__(failure.reason)
        self.failure = failure
        self.head_only = head_only


class _Connection:
    __slots__ = ("h11", "sock")

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.h11 = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD_BYTES)


def _recv(sock: socket.socket, deadline: float) -> bytes:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise _Late
    sock.settimeout(remaining)
    try:
        return sock.recv(_RECV)
    except TimeoutError:
        raise _Late from None


def _linger_close(sock: socket.socket) -> None:
    """Close after an answer the client may not have finished sending to.

    Unread bytes at ``close()`` make the kernel send a reset, which can destroy the answer
    before the client reads it: stop writing, drain briefly, then close.
    """
    try:
        sock.shutdown(socket.SHUT_WR)
        deadline = time.monotonic() + _LINGER
        drained = 0
        while drained < 1024 * 1024 and (data := _recv(sock, deadline)):
            drained += len(data)
    except (OSError, _Late):
        pass
    finally:
        sock.close()


class _Pool:
    """At most ``size`` daemon threads, started as work arrives."""

    def __init__(self, size: int, name: str) -> None:
        self._size = size
        self._name = name
        self._tasks: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0
        self.threads: list[threading.Thread] = []

    def submit(self, task: Callable[[], None]) -> None:
        with self._lock:
            if self._idle <= 0 and len(self.threads) < self._size:
                thread = threading.Thread(
                    target=self._work, name=f"{self._name}-{len(self.threads) + 1}", daemon=True
                )
                self.threads.append(thread)
                thread.start()
            else:
                self._idle -= 1
        self._tasks.put(task)

    def _work(self) -> None:
        while True:
            task = self._tasks.get()
            if task is None:
                return
            try:
                task()
            finally:
                with self._lock:
                    self._idle += 1

    def quiet(self) -> bool:
        """Whether no task waits for a thread."""
        return self._tasks.empty()

    def stop(self, deadline: float) -> None:
        for _ in self.threads:
            self._tasks.put(None)
        for thread in self.threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))


class _Loop:
    """The listening socket, the idle connections, and the pool their requests go to."""

    def __init__(self, server: Server, listener: socket.socket, name: str) -> None:
        self.server = server
        self.listener = listener
        self.pool = _Pool(server.max_workers, f"{name}-worker")
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._returned: queue.SimpleQueue[_Connection] = queue.SimpleQueue()
        self._idle: dict[_Connection, float] = {}
        self._open: set[_Connection] = set()
        self._open_lock = threading.Lock()
        self._listening = False
        self._stop = False
        self._sweep = 0.0

    # The loop's thread alone touches the selector and ``_idle``; workers only hand back.

    def run(self) -> None:
        self.listener.setblocking(False)
        self._selector.register(self._wake_r, selectors.EVENT_READ)
        self._listen(True)
        try:
            while not self._stop:
                timeout = max(0.0, self._sweep - time.monotonic()) if self._idle else None
                for key, _ in self._selector.select(timeout):
                    if key.fileobj is self.listener:
                        self._accept()
                    elif key.fileobj is self._wake_r:
                        with contextlib.suppress(OSError):
                            self._wake_r.recv(4096)
                    else:
                        conn: _Connection = key.data
                        self._selector.unregister(conn.sock)
                        del self._idle[conn]
                        self.pool.submit(functools.partial(self._work, conn))
                self._take_back()
                if time.monotonic() >= self._sweep:
                    self._expire()
                with self._open_lock:
                    room = len(self._open) < self.server.max_connections
                self._listen(room)
        finally:
            for conn in list(self._idle):
                self._close(conn)
            self._selector.close()
            self._wake_r.close()
            self._wake_w.close()

    def _listen(self, on: bool) -> None:
        if on and not self._listening:
            self._selector.register(self.listener, selectors.EVENT_READ)
        elif self._listening and not on:
            self._selector.unregister(self.listener)
        self._listening = on

    def _accept(self) -> None:
        while True:
            with self._open_lock:
                if len(self._open) >= self.server.max_connections:
                    return
            try:
                sock, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:  # out of descriptors: keep serving those open
                self.server.report(exc)
                return
            sock.setblocking(True)
            # Small JSON answers must not wait for Nagle's algorithm.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn = _Connection(sock)
            with self._open_lock:
                self._open.add(conn)
            self._wait(conn)

    def _wait(self, conn: _Connection) -> None:
        self._idle[conn] = time.monotonic() + self.server.idle_timeout
        self._selector.register(conn.sock, selectors.EVENT_READ, conn)

    def _take_back(self) -> None:
        while True:
            try:
                conn = self._returned.get_nowait()
            except queue.Empty:
                return
            if self._stop or self.server.stopping.is_set():
                self._close(conn)
            else:
                self._wait(conn)

    def _expire(self) -> None:
        # A sweep at most every quarter second: an idle connection ends a little late, and a
        # busy loop does not scan every idle connection on every request.
        now = time.monotonic()
        self._sweep = now + min(0.25, self.server.idle_timeout)
        for conn in [conn for conn, deadline in self._idle.items() if deadline <= now]:
            self._selector.unregister(conn.sock)
            del self._idle[conn]
            self._close(conn)

    def _close(self, conn: _Connection, *, linger: bool = False) -> None:
        with self._open_lock:
            self._open.discard(conn)
        if linger:
            _linger_close(conn.sock)
        else:
            with contextlib.suppress(OSError):
                conn.sock.close()
        self._poke()

    def _poke(self) -> None:
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")

    def close_all(self) -> None:
        """Close every connection still open (once the loop and the workers have ended)."""
        with self._open_lock:
            connections = list(self._open)
        for conn in connections:
            self._close(conn)

    def stop(self) -> None:
        """Stop accepting, close idle connections, shut down busy ones so their threads end."""
        self._stop = True
        self._poke()
        with self._open_lock:
            connections = list(self._open)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.sock.shutdown(socket.SHUT_RDWR)

    # --- in a worker thread ---------------------------------------------------------------

    def _work(self, conn: _Connection) -> None:
        try:
            self._serve(conn)
        except Exception as exc:  # noqa: BLE001 - a thread must not die with its connection open
            self.server.report(exc)
            self._close(conn)

    def _serve(self, conn: _Connection) -> None:
        try:
            while self._exchange(conn):
                if not conn.h11.trailing_data[0] and not self._keep_warm(conn):
                    self._returned.put(conn)
                    self._poke()
                    return
            self._close(conn)
        except _Refused as refused:
            answer = self.server.failure(refused.failure)
            with contextlib.suppress(OSError):
                conn.sock.settimeout(self.server.idle_timeout)
                conn.sock.sendall(failure_bytes(answer, refused.head_only))
            self._close(conn, linger=True)
        except OSError:  # the client went away, or did not read its answer in time
            self._close(conn)

    def _keep_warm(self, conn: _Connection) -> bool:
        """Wait a moment for the next request in this thread, when no connection waits for one.

        A client on a kept-alive connection usually sends its next request at once; handing the
        connection back to the loop and out again costs more than this short wait.
        """
        if not self.pool.quiet():
            return False
        conn.sock.settimeout(_KEEP_WARM)
        try:
            data = conn.sock.recv(_RECV)
        except TimeoutError:
            return False
        conn.h11.receive_data(data)
        return True

    def _exchange(self, conn: _Connection) -> bool:
        """Read one request, answer it; whether the connection stays open for the next."""
        server = self.server
        machine = conn.h11
        started = bool(machine.trailing_data[0])
        deadline = time.monotonic() + server.header_timeout
        try:
            event = machine.next_event()
            while event is h11.NEED_DATA:
                try:
                    data = _recv(conn.sock, deadline)
                except _Late:
                    if not started:
                        return False  # a silent idle connection just ends
                    raise _Refused(Failure(408, "request head not received in time")) from None
                started = True
                machine.receive_data(data)
                event = machine.next_event()
            if not isinstance(event, h11.Request):
                return False  # closed before a request began
            head_only = event.method == b"HEAD"
            bad = head_failure(event, server.max_body)
            if bad is not None:
                raise _Refused(bad, head_only)
            body = self._read_body(conn, event)
        except h11.RemoteProtocolError as exc:
            raise _Refused(protocol_failure(exc)) from None
        return self._answer(conn, request_of(event, body))

    def _read_body(self, conn: _Connection, head: h11.Request) -> bytes:
        server = self.server
        machine = conn.h11
        head_only = head.method == b"HEAD"
        if machine.they_are_waiting_for_100_continue:
            conn.sock.sendall(
                machine.send(h11.InformationalResponse(status_code=100, headers=[])) or b""
            )
        deadline = time.monotonic() + server.body_timeout
        body = bytearray()
        chunks = 0
        while True:
            event = machine.next_event()
            if event is h11.NEED_DATA:
                try:
                    machine.receive_data(_recv(conn.sock, deadline))
                except _Late:
                    raise _Refused(Failure(408, "body not received in time"), head_only) from None
            elif isinstance(event, h11.Data):
                chunks += event.chunk_start
                if chunks > MAX_CHUNKS:
                    raise _Refused(Failure(413, f"more than {MAX_CHUNKS} chunks"), head_only)
                body += event.data
                if len(body) > server.max_body:
                    raise _Refused(Failure(413, f"body over {server.max_body} bytes"), head_only)
            elif isinstance(event, h11.EndOfMessage):
                return bytes(body)
            else:  # h11 raises on a body cut short; anything else is not a body
                raise _Refused(Failure(400, "incomplete body"), head_only)

    def _answer(self, conn: _Connection, request: HTTPRequest) -> bool:
        server = self.server
        try:
            answer = server.handler(request)
        except Exception as exc:  # noqa: BLE001 - a handler's bug must not drop the connection
            server.report(exc)
            answer = server.failure(Failure(500, f"{type(exc).__name__}: {exc}"))
        if isinstance(answer, Hangup):
            if answer.hold > 0:
                server.stopping.wait(answer.hold)
            return False
        machine = conn.h11
        response = h11.Response(
            status_code=answer.status,
            headers=answer_head(answer),
            reason=_phrase(answer.status),
        )
        out = machine.send(response) or b""
        if request.method != "HEAD":
            out += machine.send(h11.Data(data=answer.body)) or b""
        out += machine.send(h11.EndOfMessage()) or b""
        conn.sock.settimeout(server.idle_timeout)
        conn.sock.sendall(out)
        if answer.after is not None:
            answer.after()
        if machine.our_state is h11.DONE and machine.their_state is h11.DONE:
            machine.start_next_cycle()
            return not server.stopping.is_set()
        return False


def _report(exc: BaseException | None) -> None:
    print(f"smartpos: a request failed: {exc!r}", file=sys.stderr)


class Server:
    """A server's settings.

    Args:
        handler: Answers each request.
        failure: The answer when a request cannot be handed to the handler (400 broken
            framing, 408 too slow, 413 body too large, 431 head too large) or the handler
            raised (500). The connection is closed after it.
        max_body: Largest body read, in bytes.
        idle_timeout: Seconds a connection may stay open without sending a request.
        header_timeout: Seconds from a request's first byte to the end of its head (408 after).
        body_timeout: Seconds from the end of the head to the end of the body (408 after).
        max_workers: Most threads reading requests and running the handler at once; more
            connections with a request to read wait for one of them.
        max_connections: Most open connections; beyond it, new ones wait in the listen
            backlog until one closes.
        report: Called with an exception the handler raised (default: one line on stderr).
    """

    def __init__(
        self,
        handler: Handler,
        *,
        failure: Callable[[Failure], HTTPAnswer],
        max_body: int,
        idle_timeout: float = 60.0,
        header_timeout: float = 10.0,
        body_timeout: float = 30.0,
        max_workers: int = 64,
        max_connections: int = 1000,
        report: Callable[[BaseException | None], None] = _report,
    ) -> None:
        self.handler = handler
        self.failure = failure
        self.max_body = max_body
        self.idle_timeout = idle_timeout
        self.header_timeout = header_timeout
        self.body_timeout = body_timeout
        self.max_workers = max_workers
        self.max_connections = max_connections
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
        name: The serving thread's name (its workers' names start with it).

    Returns:
        A context manager giving the base URL without a trailing slash, such as
        ``"http://127.0.0.1:54321"`` or ``"http://[::1]:54321"``.

    Raises:
        OSError: The address cannot be bound (when the block is entered).
    """
    return _serving(server, host, port, name)


@contextlib.contextmanager
def _serving(server: Server, host: str, port: int, name: str) -> Iterator[str]:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.create_server((host, port), family=family, backlog=BACKLOG)
    bound_host, bound_port = listener.getsockname()[:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    loop = _Loop(server, listener, name)
    thread = threading.Thread(target=loop.run, name=name, daemon=True)
    server.stopping.clear()
    thread.start()
    try:
        yield f"http://{shown}:{bound_port}"
    finally:
        server.stopping.set()
        loop.stop()
        deadline = time.monotonic() + 5.0
        thread.join(timeout=5.0)
        listener.close()
        loop.pool.stop(deadline)
        loop.close_all()
