"""ASGI 3 and WSGI (PEP 3333) applications around a ``WebhookReceiver``; no framework needed.

Mount either one at the webhook URL configured in the partner portal. Both answer only
``POST`` (405 otherwise) and enforce the body limit while reading (413 as soon as it is
passed, from ``Content-Length`` or from the bytes streamed so far).

The ASGI app never blocks the event loop on the store: puts run in a worker thread, and the
deliveries that arrive while one commit is in flight are stored together by the next
``store.put_many`` (group commit). With ``synchronous=FULL`` SQLite pays one fsync per commit,
so one commit per request would cap a receiver at a few thousand events per second and stretch
the answer times under a burst; a commit per *batch* keeps them short. Each request is
answered only after the commit holding its own event returned.
"""

from __future__ import annotations

import asyncio
import http
from collections.abc import Awaitable, Callable, Iterable, MutableMapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from ._receiver import Admitted, Receipt, error_body
from ._store import EventLike, PutResult, StoreError

if TYPE_CHECKING:
    from ._receiver import WebhookReceiver

__all__ = ["ASGIApp", "AsgiReceiver", "GroupCommit", "WSGIApp", "WsgiReceiver"]

Scope: TypeAlias = MutableMapping[str, Any]
Message: TypeAlias = MutableMapping[str, Any]
ASGIReceive: TypeAlias = Callable[[], Awaitable[Message]]
ASGISend: TypeAlias = Callable[[Message], Awaitable[None]]
ASGIApp: TypeAlias = Callable[[Scope, ASGIReceive, ASGISend], Awaitable[None]]
StartResponse: TypeAlias = Callable[..., Any]
WSGIApp: TypeAlias = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]

_JSON = (b"content-type", b"application/json")
_NOT_ALLOWED = error_body("METODO_NAO_PERMITIDO", "only POST is accepted here")


def _too_large(limit: int) -> Receipt:
    return Receipt(
        status_code=413,
        body=error_body("CORPO_MUITO_GRANDE", f"the body has more than {limit} bytes"),
        error=f"the body has more than {limit} bytes",
    )


class GroupCommit:
    """Batches concurrent puts into one ``store.put_many`` call, run in a worker thread.

    While a commit is in flight, new events queue up; when it returns, everything queued is
    committed together. One commit at a time per event loop, so a burst of N deliveries costs
    a handful of transactions instead of N.
    """

    def __init__(self, store: Any) -> None:
        put_many = getattr(store, "put_many", None)
        if put_many is None:  # a hand-written store with put only

            def put_many(events: Sequence[EventLike]) -> list[PutResult]:
                return [store.put(event) for event in events]

        self._put_many: Callable[[Sequence[EventLike]], list[PutResult]] = put_many
        self._queue: list[tuple[EventLike, asyncio.Future[PutResult]]] = []
        self._task: asyncio.Task[None] | None = None

    async def put(self, event: EventLike) -> PutResult:
        """Store ``event`` in the next commit and return its result once that commit returned."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[PutResult] = loop.create_future()
        self._queue.append((event, future))
        if self._task is None:
            self._task = loop.create_task(self._run())
        # A client that hangs up cancels only its own wait: its event stays in the batch, and
        # the commit skips its cancelled future.
        return await future

    async def drain(self) -> None:
        """Wait until every queued event has been committed (at shutdown)."""
        while self._task is not None:
            await asyncio.shield(self._task)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        batch: list[tuple[EventLike, asyncio.Future[PutResult]]] = []
        try:
            while self._queue:
                batch, self._queue = self._queue, []
                events = [event for event, _ in batch]
                try:
                    results = await loop.run_in_executor(None, self._put_many, events)
                    if len(results) != len(batch):
                        raise StoreError(
                            f"put_many returned {len(results)} results for {len(batch)} events"
                        )
                except Exception as exc:  # noqa: BLE001 - every waiter gets the failure (503)
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(exc)
                else:
                    for (_, future), result in zip(batch, results, strict=True):
                        if not future.done():
                            future.set_result(result)
                batch = []
        finally:
            self._task = None
            # Only reached with waiters left when this task itself was cancelled (loop closing).
            for _, future in [*batch, *self._queue]:
                if not future.done():
                    future.set_exception(StoreError("the receiver shut down before storing"))
            self._queue = []


class AsgiReceiver:
    """The ASGI 3 application of a ``WebhookReceiver`` (``receiver.asgi_app()``)."""

    def __init__(self, receiver: WebhookReceiver) -> None:
        self._receiver = receiver
        self._limit = receiver.max_body_bytes
        self._loop: asyncio.AbstractEventLoop | None = None
        self._commit: GroupCommit | None = None

    def __repr__(self) -> str:
        return f"AsgiReceiver({self._receiver!r})"

    def _group_commit(self) -> GroupCommit:
        loop = asyncio.get_running_loop()
        if self._commit is None or self._loop is not loop:
            self._loop, self._commit = loop, GroupCommit(self._receiver.store)
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
        receiver = self._receiver
        admitted = receiver.admit(b"".join(chunks), headers, lower_case=True)
        if isinstance(admitted, Admitted):
            try:
                result = await self._group_commit().put(admitted.stored)
            except Exception as exc:  # noqa: BLE001 - any store failure must become a 503
                admitted = receiver.store_failed(admitted, exc)
            else:
                admitted = receiver.stored(admitted, result)
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

    def __init__(self, receiver: WebhookReceiver) -> None:
        self._receiver = receiver
        self._limit = receiver.max_body_bytes

    def __repr__(self) -> str:
        return f"WsgiReceiver({self._receiver!r})"

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        """Serve one WSGI request."""
        if environ.get("REQUEST_METHOD") != "POST":
            return _respond(start_response, 405, _NOT_ALLOWED, extra=(("Allow", "POST"),))
        declared = str(environ.get("CONTENT_LENGTH") or "").strip()
        if declared.isdigit():
            length: int | None = int(declared)
        elif environ.get("wsgi.input_terminated"):
            length = None  # chunked: the server marks the end of the stream
        else:
            length = 0  # PEP 3333: never read past Content-Length (none means no body)
        if length is not None and length > self._limit:
            receipt = _too_large(self._limit)
            return _respond(start_response, receipt.status_code, receipt.body)
        body = _read(environ["wsgi.input"], length, self._limit)
        if body is None:
            receipt = _too_large(self._limit)
        else:
            receipt = self._receiver.receive(body, _wsgi_headers(environ))
        extra = (("Retry-After", "1"),) if receipt.status_code == 503 else ()
        return _respond(start_response, receipt.status_code, receipt.body, extra=extra)


def _read(stream: Any, length: int | None, limit: int) -> bytes | None:
    """Read the body; ``None`` once it exceeds ``limit``."""
    wanted = limit + 1 if length is None else length
    chunks: list[bytes] = []
    size = 0
    while size < wanted:
        chunk = stream.read(min(wanted - size, 64 * 1024))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > limit:
        return None
    return b"".join(chunks)


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
