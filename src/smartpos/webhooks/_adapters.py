"""ASGI 3 and WSGI (PEP 3333) applications around a ``WebhookReceiver``; no framework needed.

Mount either one at the webhook URL configured in the partner portal. Both answer only
``POST`` (405 otherwise) and enforce the body limit while reading (413 as soon as it is
passed, from ``Content-Length`` or from the bytes streamed so far).

The ASGI app never blocks the event loop on the store: puts run in a worker thread, and the
deliveries that arrive while one commit is in flight are stored together by the next
``store.put_many`` (group commit). With ``synchronous=FULL`` SQLite pays one fsync per commit,
so one commit per request would cap a receiver at a few thousand events per second and stretch
the answer times under a burst; a commit per *batch* keeps them short. Each request is
answered only after the commit holding its own event returned, or with 503 once the
receiver's ``store_timeout`` has passed (a locked or slow store): a request queued behind a
stalled commit does not wait for two commits, and is taken out of the queue when it gives up,
so that a 503 never hides an event stored later. One event that fails its batch fails alone:
the members of a failed batch are put again one by one (while their time lasts).

The WSGI app reads exactly ``Content-Length`` bytes (a body that ends before them is refused:
the client went away, and half an event is no event), reads to the end when the server marks
the input as terminated (``wsgi.input_terminated``: gunicorn, werkzeug, waitress, mod_wsgi),
and decodes ``Transfer-Encoding: chunked`` itself when the server passes it raw (``wsgiref``).
"""

from __future__ import annotations

import asyncio
import http
import logging
import re
import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping, Sequence
from typing import Any, TypeAlias

from smartpos import _telemetry

from ._logsafe import loggable
from ._receipt import Admitted, Receipt, ReceiverSteps, error_body, takes_timeout
from ._store_errors import StoreError
from ._store_interface import EventLike, PutResult

__all__ = [
    "ASGIApp",
    "ASGIReceive",
    "ASGISend",
    "AsgiReceiver",
    "GroupCommit",
    "Message",
    "Scope",
    "StartResponse",
    "WSGIApp",
    "WsgiReceiver",
]

Scope: TypeAlias = MutableMapping[str, Any]
Message: TypeAlias = MutableMapping[str, Any]
ASGIReceive: TypeAlias = Callable[[], Awaitable[Message]]
ASGISend: TypeAlias = Callable[[Message], Awaitable[None]]
ASGIApp: TypeAlias = Callable[[Scope, ASGIReceive, ASGISend], Awaitable[None]]
StartResponse: TypeAlias = Callable[..., Any]
WSGIApp: TypeAlias = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]

_logger = logging.getLogger("smartpos.webhooks")

_JSON = (b"content-type", b"application/json")
_NOT_ALLOWED = error_body("METODO_NAO_PERMITIDO", "only POST is accepted here")


def _too_large(limit: int) -> Receipt:
    return Receipt(
        status_code=413,
        body=error_body("CORPO_MUITO_GRANDE", f"the body has more than {limit} bytes"),
        error=f"the body has more than {limit} bytes",
    )


def _incomplete(problem: str) -> Receipt:
    message = f"the body is incomplete: {problem}; nothing was stored"
    _logger.warning("webhook delivery refused with 400 CORPO_INCOMPLETO: %s", message)
    return Receipt(status_code=400, body=error_body("CORPO_INCOMPLETO", message), error=message)


class _Pending:
    """One event waiting for a commit, and the request that waits for it."""

    __slots__ = ("abandoned", "deadline", "event", "future")

    def __init__(
        self, event: EventLike, future: asyncio.Future[PutResult], deadline: float | None
    ) -> None:
        self.event = event
        self.future = future
        self.deadline = deadline  # time.monotonic() after which the request gives up
        self.abandoned = False


def _retrieve(future: asyncio.Future[PutResult]) -> None:
    # A request that gave up (or hung up) no longer awaits its future: mark its exception as
    # seen so that asyncio does not log it as never retrieved.
    if not future.cancelled():
        future.exception()


class GroupCommit:
    """Batches concurrent puts into one ``store.put_many`` call, run in a worker thread.

    While a commit is in flight, new events queue up; when it returns, everything queued is
    committed together. One commit at a time per event loop, so a burst of N deliveries costs
    a handful of transactions instead of N, and a stalled store holds one thread, not N.

    Args:
        store: The store; ``put_many`` is used when it has one.
        timeout: Seconds each request waits for its event to be committed before it gives up
            with ``StoreError`` (also passed to the store as ``timeout=``); ``None``: no limit.
    """

    def __init__(self, store: Any, *, timeout: float | None = None) -> None:
        put = store.put
        put_many = getattr(store, "put_many", None)
        self._timeout = timeout
        one: dict[str, float] = {}
        many: dict[str, float] = {}
        if timeout is not None:
            one = {"timeout": timeout} if takes_timeout(put) else {}
            many = {"timeout": timeout} if takes_timeout(put_many) else {}
        self._put: Callable[[EventLike], PutResult] = lambda event: put(event, **one)
        if put_many is None:  # a hand-written store with put only

            def put_each(events: Sequence[EventLike]) -> list[PutResult]:
                return [put(event, **one) for event in events]

            self._put_many: Callable[[Sequence[EventLike]], list[PutResult]] = put_each
        else:
            self._put_many = lambda events: put_many(events, **many)
        self._queue: list[_Pending] = []
        self._task: asyncio.Task[None] | None = None

    async def put(self, event: EventLike) -> PutResult:
        """Store ``event`` in the next commit and return its result once that commit returned.

        Raises:
            StoreError: The store failed, or did not commit the event within ``timeout``
                seconds (then, if the event was still queued, it is not stored later).
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[PutResult] = loop.create_future()
        future.add_done_callback(_retrieve)
        timeout = self._timeout
        pending = _Pending(event, future, None if timeout is None else time.monotonic() + timeout)
        self._queue.append(pending)
        if self._task is None:
            self._task = loop.create_task(self._run())
        # The future is awaited as it is (no shield, no wait_for: both cost more than the rest
        # of a delivery): a client that hangs up cancels it, and the commit skips a done
        # future; its event stays in the batch. The timeout is one timer, cancelled on return.
        if timeout is None:
            return await future
        timer = loop.call_later(timeout, self._expire, pending, timeout)
        try:
            return await future
        finally:
            timer.cancel()

    def _expire(self, pending: _Pending, timeout: float) -> None:
        """A request's timeout: it gives up with ``StoreError`` (the loop's thread)."""
        if pending.future.done():
            return
        pending.abandoned = True
        if pending in self._queue:
            self._queue.remove(pending)
            where = "while waiting behind another commit; not stored"
        else:
            where = "while being committed; a redelivery will tell"
        pending.future.set_exception(
            StoreError(f"the store did not answer within {timeout:g} s ({where})")
        )

    async def drain(self) -> None:
        """Wait until every queued event has been committed (at shutdown)."""
        while self._task is not None:
            await asyncio.shield(self._task)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        batch: list[_Pending] = []
        try:
            while self._queue:
                batch, self._queue = self._queue, []
                outcomes = await loop.run_in_executor(None, self._commit, batch)
                for pending, outcome in zip(batch, outcomes, strict=True):
                    if pending.future.done():
                        continue
                    if isinstance(outcome, PutResult):
                        pending.future.set_result(outcome)
                    else:
                        pending.future.set_exception(outcome)
                batch = []
        finally:
            self._task = None
            # Only reached with waiters left when this task itself was cancelled (loop closing).
            for pending in [*batch, *self._queue]:
                if not pending.future.done():
                    pending.future.set_exception(
                        StoreError("the receiver shut down before storing")
                    )
            self._queue = []

    def _commit(self, batch: Sequence[_Pending]) -> list[PutResult | Exception]:
        """Store a batch (in a worker thread): one ``put_many``, or one put per member."""
        try:
            results = self._put_many([pending.event for pending in batch])
            if len(results) != len(batch):
                raise StoreError(
                    f"put_many returned {len(results)} results for {len(batch)} events"
                )
            return list(results)
        except Exception as exc:  # noqa: BLE001 - becomes the 503 of the requests concerned
            if len(batch) == 1:
                return [exc]
            failure = exc
        # One member may have failed the whole transaction: put them one by one, so that it
        # fails alone. Members whose request gave up are not stored behind its 503.
        _logger.warning(
            "webhook batch of %d events failed (%s: %s); storing them one by one",
            len(batch),
            type(failure).__name__,
            loggable(failure, 200),
        )
        outcomes: list[PutResult | Exception] = []
        for pending in batch:
            if pending.abandoned or (
                pending.deadline is not None and time.monotonic() >= pending.deadline
            ):
                outcomes.append(failure)
                continue
            try:
                outcomes.append(self._put(pending.event))
            except Exception as exc:  # noqa: BLE001 - this member's own 503
                outcomes.append(exc)
        return outcomes


class AsgiReceiver:
    """The ASGI 3 application of a ``WebhookReceiver`` (``receiver.asgi_app()``)."""

    def __init__(self, receiver: ReceiverSteps) -> None:
        self._receiver = receiver
        self._limit = receiver.max_body_bytes
        self._loop: asyncio.AbstractEventLoop | None = None
        self._commit: GroupCommit | None = None

    def __repr__(self) -> str:
        return f"AsgiReceiver({self._receiver!r})"

    def _group_commit(self) -> GroupCommit:
        loop = asyncio.get_running_loop()
        if self._commit is None or self._loop is not loop:
            self._loop = loop
            self._commit = GroupCommit(self._receiver.store, timeout=self._receiver.store_timeout)
        return self._commit

    async def __call__(self, scope: Scope, receive: ASGIReceive, send: ASGISend) -> None:
        """Serve one ASGI connection scope (``http`` or ``lifespan``)."""
        kind = scope["type"]
        if kind == "http":
            await self._http(scope, receive, send)
        elif kind == "lifespan":
            await self._lifespan(receive, send)
        else:
            raise ValueError(f"the webhook receiver does not serve {kind!r} connections")

    async def _lifespan(self, receive: ASGIReceive, send: ASGISend) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self._commit is not None:
                    await self._commit.drain()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _http(self, scope: Scope, receive: ASGIReceive, send: ASGISend) -> None:
        if scope.get("method") != "POST":
            await _answer(send, 405, _NOT_ALLOWED, extra=((b"allow", b"POST"),))
            return
        headers: dict[str, str] = {}
        for name, value in scope.get("headers", ()):
            headers[name.decode("latin-1").lower()] = value.decode("latin-1")
        declared = headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self._limit:
            await _send_receipt(send, _too_large(self._limit))
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self._limit:
                await _send_receipt(send, _too_large(self._limit))
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        if declared is not None and declared.isdigit() and size < int(declared):
            await _send_receipt(send, _incomplete(f"{size} of {declared} bytes arrived"))
            return
        receiver = self._receiver
        observer = _telemetry.observer
        started = 0 if observer is None else time.time_ns()
        admitted = receiver.admit(b"".join(chunks), headers, lower_case=True)
        if isinstance(admitted, Admitted):
            try:
                result = await self._group_commit().put(admitted.stored)
            except Exception as exc:  # noqa: BLE001 - any store failure must become a 503
                admitted = receiver.store_failed(admitted, exc)
            else:
                admitted = receiver.stored(admitted, result)
        if observer is not None:
            # What receive() reports, for the deliveries this app admits itself.
            _telemetry.guarded(observer.received, admitted, started)
        await _send_receipt(send, admitted)


async def _send_receipt(send: ASGISend, receipt: Receipt) -> None:
    extra = ((b"retry-after", b"1"),) if receipt.status_code == 503 else ()
    await _answer(send, receipt.status_code, receipt.body, extra=extra)


async def _answer(
    send: ASGISend, status: int, body: bytes, *, extra: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    headers = [_JSON, (b"content-length", str(len(body)).encode("ascii")), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class WsgiReceiver:
    """The PEP 3333 WSGI application of a ``WebhookReceiver`` (``receiver.wsgi_app()``)."""

    def __init__(self, receiver: ReceiverSteps) -> None:
        self._receiver = receiver
        self._limit = receiver.max_body_bytes

    def __repr__(self) -> str:
        return f"WsgiReceiver({self._receiver!r})"

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        """Serve one WSGI request."""
        if environ.get("REQUEST_METHOD") != "POST":
            return _respond(start_response, 405, _NOT_ALLOWED, extra=(("Allow", "POST"),))
        read = self._read(environ)
        if isinstance(read, Receipt):
            receipt = read
        else:
            receipt = self._receiver.receive(read, _wsgi_headers(environ))
        extra = (("Retry-After", "1"),) if receipt.status_code == 503 else ()
        return _respond(start_response, receipt.status_code, receipt.body, extra=extra)

    def _read(self, environ: dict[str, Any]) -> bytes | Receipt:
        """The whole body, or the receipt refusing it (413 too large, 400 incomplete)."""
        limit = self._limit
        stream = environ["wsgi.input"]
        declared = str(environ.get("CONTENT_LENGTH") or "").strip()
        chunked = "chunked" in str(environ.get("HTTP_TRANSFER_ENCODING", "")).lower()
        if chunked and not environ.get("wsgi.input_terminated"):
            # The server passes the chunks raw (wsgiref does): decode them here.
            try:
                body = _read_chunked(stream, limit)
            except _Incomplete as exc:
                return _incomplete(str(exc))
            return _too_large(limit) if body is None else body
        if declared.isdigit():
            length = int(declared)
            if length > limit:
                return _too_large(limit)
            body = _read_up_to(stream, length)
            if len(body) < length:
                return _incomplete(f"{len(body)} of {length} bytes arrived")
            return body
        if environ.get("wsgi.input_terminated"):
            # No Content-Length (chunked, decoded by the server): read to the end of the input.
            body = _read_up_to(stream, limit + 1)
            return _too_large(limit) if len(body) > limit else body
        return b""  # PEP 3333: never read past Content-Length (none means no body)


class _Incomplete(Exception):
    """A chunked body that is cut short or malformed."""


_CHUNK_SIZE = re.compile(rb"[0-9A-Fa-f]{1,16}")
# Bytes of chunk framing (size lines, extensions, trailers) allowed besides the body itself.
_MAX_FRAMING = 64 * 1024


def _read_up_to(stream: Any, length: int) -> bytes:
    """Read ``length`` bytes, or fewer when the input ends first."""
    chunks: list[bytes] = []
    size = 0
    while size < length:
        chunk = stream.read(min(length - size, 64 * 1024))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _read_chunked(stream: Any, limit: int) -> bytes | None:
    """Decode a ``Transfer-Encoding: chunked`` body (RFC 9112 7.1); ``None`` past ``limit``.

    Raises:
        _Incomplete: The input ended before the last chunk, or the framing is malformed.
    """
    chunks: list[bytes] = []
    size = framing = 0
    while True:
        line = stream.readline(1024)
        framing += len(line)
        if not line.endswith(b"\n"):
            raise _Incomplete("a chunk size line is cut short or too long")
        text = line.split(b";", 1)[0].strip()
        if not _CHUNK_SIZE.fullmatch(text):
            raise _Incomplete("a chunk size is not a hexadecimal number")
        length = int(text, 16)
        if length == 0:
            break
        if size + length > limit or framing > _MAX_FRAMING:
            return None
        data = _read_up_to(stream, length)
        if len(data) < length or _read_up_to(stream, 2) != b"\r\n":
            raise _Incomplete("a chunk ended before its size")
        chunks.append(data)
        size += length
        framing += 2
    while True:  # trailer fields, up to the empty line that ends the message
        line = stream.readline(1024)
        framing += len(line)
        if line in (b"\r\n", b"\n"):
            return b"".join(chunks)
        if not line.endswith(b"\n") or framing > _MAX_FRAMING:
            raise _Incomplete("the chunked body does not end with an empty line")


def _wsgi_headers(environ: dict[str, Any]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for key, value in environ.items():
        if key.startswith("HTTP_"):
            headers[key[5:].replace("_", "-").lower()] = value
        elif key in ("CONTENT_TYPE", "CONTENT_LENGTH") and value:
            headers[key.replace("_", "-").lower()] = value
    return headers


def _respond(
    start_response: StartResponse,
    status: int,
    body: bytes,
    *,
    extra: Sequence[tuple[str, str]] = (),
) -> list[bytes]:
    phrase = http.HTTPStatus(status).phrase
    headers = [
        ("Content-Type", "application/json"),
        ("Content-Length", str(len(body))),
        *extra,
    ]
    start_response(f"{status} {phrase}", headers)
    return [body]
