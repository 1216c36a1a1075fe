"""The ASGI and WSGI adapters, driven directly: methods, limits, group commit, lifespan."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import io
import json
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server
from wsgiref.util import setup_testing_defaults

import pytest

from smartpos.webhooks import (
    MemoryStore,
    PutResult,
    SharedSecretVerifier,
    SQLiteStore,
    StoreError,
    WebhookReceiver,
)
from smartpos.webhooks._store import EventLike

DOC = "52998224725"


def event_body(event_id: str = "evt-1", **dados: Any) -> bytes:
    """A valid pagamento.aprovado body."""
    return json.dumps(
        {
            "id": event_id,
            "tipo": "pagamento.aprovado",
            "criadoEm": "2026-05-04T13:45:12Z",
            "dados": {"referencia": "r", "documentoCliente": DOC, "status": "aprovado", **dados},
        }
    ).encode()


class SlowStore(MemoryStore):
    """A MemoryStore whose put_many takes ``delay`` seconds and records each batch."""

    def __init__(self, delay: float = 0.0, fail: bool = False) -> None:
        super().__init__()
        self.delay = delay
        self.fail = fail
        self.batches: list[list[str]] = []
        self.commits_done: dict[str, float] = {}
        self.threads: set[int] = set()

    def put_many(self, events: Sequence[EventLike]) -> list[PutResult]:
        self.threads.add(threading.get_ident())
        self.batches.append([event.id for event in events])
        time.sleep(self.delay)
        if self.fail:
            raise StoreError("database is locked")
        results = super().put_many(events)
        done = time.monotonic()
        for event in events:
            self.commits_done[event.id] = done
        return results


class Asgi:
    """Drives an ASGI app with one request and records what it sent."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def request(
        self,
        body: bytes,
        *,
        method: str = "POST",
        headers: Sequence[tuple[bytes, bytes]] = (),
        chunk: int | None = None,
        content_length: bool = True,
    ) -> dict[str, Any]:
        """Send one request; return status, headers, body, and when the answer started."""
        parts = (
            [body] if chunk is None else [body[i : i + chunk] for i in range(0, len(body), chunk)]
        )
        parts = parts or [b""]
        messages = [
            {"type": "http.request", "body": part, "more_body": i < len(parts) - 1}
            for i, part in enumerate(parts)
        ]
        received: list[int] = []
        sent: list[dict[str, Any]] = []
        all_headers = list(headers)
        if content_length:
            all_headers.append((b"content-length", str(len(body)).encode()))
        scope = {"type": "http", "method": method, "path": "/", "headers": all_headers}

        async def receive() -> dict[str, Any]:
            received.append(1)
            if messages:
                return messages.pop(0)
            await asyncio.sleep(3600)  # pragma: no cover - the app must not read past the end
            raise AssertionError

        async def send(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "at": time.monotonic()}
            sent.append(message)

        await self.app(scope, receive, send)
        start, content = sent
        return {
            "status": start["status"],
            "headers": dict(start["headers"]),
            "body": content["body"],
            "at": start["at"],
            "reads": len(received),
        }


@pytest.mark.asyncio
async def test_asgi_post_new_and_duplicate() -> None:
    """POST a new event: 200 JSON; again: 200 duplicate; stored once."""
    store = SlowStore()
    client = Asgi(WebhookReceiver(store).asgi_app())
    first = await client.request(event_body())
    again = await client.request(event_body())
    assert first["status"] == again["status"] == 200
    assert first["headers"][b"content-type"] == b"application/json"
    assert json.loads(first["body"]) == {"recebido": True, "duplicado": False}
    assert json.loads(again["body"]) == {"recebido": True, "duplicado": True}
    assert store.batches == [["evt-1"], ["evt-1"]]


@pytest.mark.asyncio
@pytest.mark.parametrize("method", ["GET", "PUT", "HEAD", "DELETE"])
async def test_asgi_other_methods_are_405(method: str) -> None:
    """Anything but POST is 405 with Allow: POST, and the body is not read."""
    store = SlowStore()
    result = await Asgi(WebhookReceiver(store).asgi_app()).request(event_body(), method=method)
    assert result["status"] == 405
    assert result["headers"][b"allow"] == b"POST"
    assert result["reads"] == 0
    assert store.batches == []


@pytest.mark.asyncio
async def test_asgi_declared_length_over_limit_is_413_without_reading() -> None:
    """A Content-Length over the limit is answered 413 before reading any body."""
    store = SlowStore()
    app = WebhookReceiver(store, max_body_bytes=50).asgi_app()
    result = await Asgi(app).request(event_body())
    assert result["status"] == 413
    assert result["reads"] == 0
    assert json.loads(result["body"])["erro"]["codigo"] == "CORPO_MUITO_GRANDE"


@pytest.mark.asyncio
async def test_asgi_streamed_body_over_limit_is_413_while_reading() -> None:
    """Without Content-Length, the limit stops the read as soon as it is passed."""
    store = SlowStore()
    app = WebhookReceiver(store, max_body_bytes=50).asgi_app()
    data = event_body(pad="x" * 500)
    result = await Asgi(app).request(data, chunk=20, content_length=False)
    assert result["status"] == 413
    assert result["reads"] == 3  # 60 bytes read, then stopped; far less than the whole body
    assert store.batches == []


@pytest.mark.asyncio
async def test_asgi_chunked_body_is_joined() -> None:
    """A body streamed in small chunks is reassembled and stored."""
    store = SlowStore()
    result = await Asgi(WebhookReceiver(store).asgi_app()).request(
        event_body(), chunk=7, content_length=False
    )
    assert result["status"] == 200
    assert store.get("evt-1") is not None


@pytest.mark.asyncio
async def test_asgi_verifier_and_bad_body() -> None:
    """401 without the secret header, 400 for a body that is not an event."""
    store = SlowStore()
    receiver = WebhookReceiver(store, verifier=SharedSecretVerifier(secret="k"))
    client = Asgi(receiver.asgi_app())
    assert (await client.request(event_body()))["status"] == 401
    good = [(b"x-webhook-secret", b"k")]
    assert (await client.request(b"[]", headers=good))["status"] == 400
    assert (await client.request(event_body(), headers=good))["status"] == 200
    assert store.batches == [["evt-1"]]


@pytest.mark.asyncio
async def test_asgi_store_failure_is_503_with_retry_after() -> None:
    """When put_many raises, every request of the batch is answered 503 with Retry-After."""
    app = WebhookReceiver(SlowStore(fail=True)).asgi_app()
    result = await Asgi(app).request(event_body())
    assert result["status"] == 503
    assert result["headers"][b"retry-after"] == b"1"


@pytest.mark.asyncio
async def test_asgi_disconnect_before_body_sends_nothing() -> None:
    """A client that hangs up before its body arrives gets no answer and stores nothing."""
    store = SlowStore()
    app = WebhookReceiver(store).asgi_app()
    sent: list[Any] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    async def send(message: Any) -> None:
        sent.append(message)

    await app({"type": "http", "method": "POST", "headers": []}, receive, send)
    assert (sent, store.batches) == ([], [])


@pytest.mark.asyncio
async def test_asgi_group_commit_batches_concurrent_deliveries() -> None:
    """Concurrent deliveries share commits, and each answer waits for its own commit."""
    store = SlowStore(delay=0.05)
    client = Asgi(WebhookReceiver(store).asgi_app())
    results = await asyncio.gather(*(client.request(event_body(f"e{n}")) for n in range(60)))
    assert [r["status"] for r in results] == [200] * 60
    assert sorted(i for batch in store.batches for i in batch) == sorted(f"e{n}" for n in range(60))
    assert len(store.batches) <= 3  # one for the first arrival, one for everything queued behind
    for n, result in enumerate(results):
        assert result["at"] >= store.commits_done[f"e{n}"]


@pytest.mark.asyncio
async def test_asgi_duplicates_in_one_batch() -> None:
    """The same id twice in one batch: one NEW, one DUPLICATE, both 200."""
    store = SlowStore(delay=0.02)
    client = Asgi(WebhookReceiver(store).asgi_app())
    results = await asyncio.gather(
        client.request(event_body("x0")), *(client.request(event_body("same")) for _ in range(2))
    )
    bodies = sorted(json.loads(r["body"])["duplicado"] for r in results[1:])
    assert bodies == [False, True]
    assert any(batch.count("same") == 2 for batch in store.batches)


@pytest.mark.asyncio
async def test_asgi_store_runs_off_the_event_loop() -> None:
    """A slow commit runs in a worker thread: the event loop keeps running meanwhile."""
    store = SlowStore(delay=0.3)
    client = Asgi(WebhookReceiver(store).asgi_app())
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        for _ in range(20):
            await asyncio.sleep(0.01)
            ticks += 1

    await asyncio.gather(client.request(event_body()), ticker())
    assert ticks == 20
    assert threading.get_ident() not in store.threads


@pytest.mark.asyncio
async def test_asgi_lifespan_startup_and_shutdown() -> None:
    """The app answers lifespan startup and shutdown."""
    app = WebhookReceiver(SlowStore()).asgi_app()
    inbox = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    sent: list[str] = []

    async def receive() -> dict[str, Any]:
        return inbox.pop(0)

    async def send(message: Any) -> None:
        sent.append(message["type"])

    await app({"type": "lifespan"}, receive, send)
    assert sent == ["lifespan.startup.complete", "lifespan.shutdown.complete"]


@pytest.mark.asyncio
async def test_asgi_refuses_websockets() -> None:
    """A websocket scope is not served (the ASGI way: raise)."""
    app = WebhookReceiver(SlowStore()).asgi_app()

    async def receive() -> dict[str, Any]:
        raise AssertionError

    async def send(message: Any) -> None:
        raise AssertionError

    with pytest.raises(ValueError, match="websocket"):
        await app({"type": "websocket"}, receive, send)


# --- WSGI -----------------------------------------------------------------------------------


def wsgi_call(app: Any, body: bytes, **environ: Any) -> tuple[str, dict[str, str], bytes]:
    """Call a WSGI app once; return status line, headers and body."""
    env: dict[str, Any] = {
        "REQUEST_METHOD": "POST",
        "CONTENT_LENGTH": str(len(body)),
        "CONTENT_TYPE": "application/json",
        "wsgi.input": io.BytesIO(body),
    }
    setup_testing_defaults(env)
    env.update(environ)
    captured: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]]) -> None:
        captured.update(status=status, headers=dict(headers))

    out = b"".join(app(env, start_response))
    return captured["status"], captured["headers"], out


def test_wsgi_new_duplicate_and_bad() -> None:
    """WSGI: 200 new, 200 duplicate, 400 bad body, with JSON answers."""
    store = MemoryStore()
    app = WebhookReceiver(store).wsgi_app()
    status, headers, out = wsgi_call(app, event_body())
    assert (status, json.loads(out)) == ("200 OK", {"recebido": True, "duplicado": False})
    assert headers["Content-Type"] == "application/json"
    assert headers["Content-Length"] == str(len(out))
    assert json.loads(wsgi_call(app, event_body())[2])["duplicado"] is True
    assert wsgi_call(app, b"nope")[0] == "400 Bad Request"


def test_wsgi_method_and_size() -> None:
    """WSGI: GET is 405 with Allow; an oversized Content-Length is 413 without reading."""
    app = WebhookReceiver(MemoryStore(), max_body_bytes=10).wsgi_app()
    status, headers, _ = wsgi_call(app, b"", REQUEST_METHOD="GET")
    assert (status, headers["Allow"]) == ("405 Method Not Allowed", "POST")
    stream = io.BytesIO(event_body())
    status, _, out = wsgi_call(app, event_body(), **{"wsgi.input": stream})
    assert status.startswith("413 ")
    assert stream.tell() == 0
    assert json.loads(out)["erro"]["codigo"] == "CORPO_MUITO_GRANDE"


def test_wsgi_chunked_body_with_input_terminated() -> None:
    """WSGI without Content-Length: read to the end when the server terminates the input."""
    store = MemoryStore()
    app = WebhookReceiver(store, max_body_bytes=1000).wsgi_app()
    status, _, _ = wsgi_call(
        app, event_body(), CONTENT_LENGTH="", **{"wsgi.input_terminated": True}
    )
    assert status == "200 OK"
    big = event_body(pad="x" * 2000)
    stream = io.BytesIO(big)
    status, _, _ = wsgi_call(
        app, big, CONTENT_LENGTH="", **{"wsgi.input_terminated": True, "wsgi.input": stream}
    )
    assert status.startswith("413 ")
    assert stream.tell() <= 1001


def test_wsgi_no_length_no_termination_reads_nothing() -> None:
    """WSGI without Content-Length or input_terminated: the body is not read (PEP 3333)."""
    app = WebhookReceiver(MemoryStore()).wsgi_app()
    status, _, out = wsgi_call(app, event_body(), CONTENT_LENGTH="")
    assert status == "400 Bad Request"
    assert "invalid JSON" in json.loads(out)["erro"]["mensagem"]


def test_wsgi_headers_reach_the_verifier() -> None:
    """WSGI: HTTP_* environ keys are the headers the verifier sees."""
    app = WebhookReceiver(MemoryStore(), verifier=SharedSecretVerifier(secret="k")).wsgi_app()
    assert wsgi_call(app, event_body())[0] == "401 Unauthorized"
    assert wsgi_call(app, event_body(), HTTP_X_WEBHOOK_SECRET="k")[0] == "200 OK"


def test_wsgi_store_failure_is_503() -> None:
    """WSGI: a failing store gives 503 with Retry-After."""

    class Broken(MemoryStore):
        def put(self, event: EventLike) -> PutResult:
            raise StoreError("locked")

    status, headers, _ = wsgi_call(WebhookReceiver(Broken()).wsgi_app(), event_body())
    assert (status, headers["Retry-After"]) == ("503 Service Unavailable", "1")


@pytest.mark.asyncio
async def test_asgi_store_without_put_many() -> None:
    """A hand-written store with only put still works: the batch is put one by one."""

    class PutOnly:
        def __init__(self) -> None:
            self.inner = MemoryStore()

        def put(self, event: EventLike) -> PutResult:
            return self.inner.put(event)

    store = PutOnly()
    client = Asgi(WebhookReceiver(store).asgi_app())  # type: ignore[arg-type]
    results = await asyncio.gather(*(client.request(event_body(f"p{n}")) for n in range(3)))
    assert [r["status"] for r in results] == [200, 200, 200]
    assert store.inner.get("p2") is not None


@pytest.mark.asyncio
async def test_asgi_broken_put_many_is_503() -> None:
    """A put_many that returns the wrong number of results fails the batch with 503."""

    class Broken(MemoryStore):
        def put_many(self, events: Sequence[EventLike]) -> list[PutResult]:
            return []

    result = await Asgi(WebhookReceiver(Broken()).asgi_app()).request(event_body())
    assert result["status"] == 503


# --- one bad event never fails another; the answer window -----------------------------------


@pytest.mark.asyncio
async def test_asgi_odd_events_in_a_batch_fail_nobody(tmp_path: Any) -> None:
    """A lone surrogate and a criadoEm at the edge of the calendar, committed in the same
    batches as valid events on a real SQLite file: every delivery is stored (200)."""
    store = SQLiteStore(tmp_path / "inbox.db")
    client = Asgi(WebhookReceiver(store).asgi_app())
    odd = [
        json.dumps({**json.loads(event_body("surrogate")), "x": "\ud800"}).encode(),
        json.dumps(
            {**json.loads(event_body("edge")), "criadoEm": "0001-01-01T00:00:00+05:00"}
        ).encode(),
    ]
    bodies = [event_body(f"e{n}") for n in range(20)] + odd + [event_body("last")]
    try:
        results = await asyncio.gather(*(client.request(b) for b in bodies))

        assert [r["status"] for r in results] == [200] * len(bodies)
        assert len(store.list(limit=100)) == len(bodies)
    finally:
        store.close()


class PoisonStore(SlowStore):
    """A store whose transaction fails whenever the event "poison" is in it."""

    def put_many(self, events: Sequence[EventLike]) -> list[PutResult]:
        if any(event.id == "poison" for event in events):
            self.batches.append([event.id for event in events])
            raise StoreError("value too long for the column")
        return super().put_many(events)

    def put(self, event: EventLike, *, timeout: float | None = None) -> PutResult:
        if event.id == "poison":
            raise StoreError("value too long for the column")
        return super().put(event, timeout=timeout)


@pytest.mark.asyncio
async def test_asgi_a_poison_event_fails_alone() -> None:
    """When one member fails the batch's transaction, the others are put one by one and
    stored (200); only the poison event gets its 503."""
    store = PoisonStore(delay=0.05)
    client = Asgi(WebhookReceiver(store).asgi_app())
    ids = ["first", "a", "poison", "b", "c"]

    results = await asyncio.gather(*(client.request(event_body(i)) for i in ids))

    assert {i: r["status"] for i, r in zip(ids, results, strict=True)} == {
        "first": 200,
        "a": 200,
        "poison": 503,
        "b": 200,
        "c": 200,
    }
    assert any("poison" in batch and len(batch) > 1 for batch in store.batches)
    assert sorted(e.id for e in store.list()) == ["a", "b", "c", "first"]


class StalledStore(MemoryStore):
    """A store whose put_many waits until released, like a locked file or a slow server."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.started = threading.Event()
        self.batches: list[list[str]] = []
        self.timeouts: list[float | None] = []

    def put_many(
        self, events: Sequence[EventLike], *, timeout: float | None = None
    ) -> list[PutResult]:
        self.batches.append([event.id for event in events])
        self.timeouts.append(timeout)
        self.started.set()
        self.release.wait(60)
        return super().put_many(events, timeout=timeout)


@pytest.mark.asyncio
async def test_asgi_a_stalled_store_is_answered_503_within_the_budget() -> None:
    """The commit in flight stalls: its request and the one queued behind it are both
    answered 503 at their budget (not after two commits), and the queued event is taken out
    of the queue, so it is not stored behind its 503."""
    store = StalledStore()
    app = WebhookReceiver(store, store_timeout=0.2).asgi_app()
    client = Asgi(app)
    try:

        async def queued_second() -> dict[str, Any]:
            # Sent once the first delivery's commit is in flight.
            assert await asyncio.to_thread(store.started.wait, 30)
            return await client.request(event_body("queued"))

        first, second = await asyncio.wait_for(
            asyncio.gather(client.request(event_body("in-flight")), queued_second()), 30
        )
    finally:
        store.release.set()
    await app({"type": "lifespan"}, _lifespan_shutdown(), _ignore)

    assert (first["status"], second["status"]) == (503, 503)
    assert first["headers"][b"retry-after"] == b"1"
    assert store.batches == [["in-flight"]]
    assert store.timeouts == [0.2]
    assert store.get("queued") is None


@pytest.mark.asyncio
async def test_asgi_a_request_cancelled_mid_commit_still_stores_its_event(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A client that hangs up (its request task cancelled) while its event is being committed
    cancels only its own wait: the event is stored, the delivery beside it in the same batch is
    answered 200, and nothing is logged as a never-retrieved exception."""
    store = StalledStore()
    app = WebhookReceiver(store, store_timeout=30).asgi_app()
    client = Asgi(app)
    first = asyncio.ensure_future(client.request(event_body("gone")))
    assert await asyncio.to_thread(store.started.wait, 30)
    queued = asyncio.ensure_future(client.request(event_body("stays")))
    await asyncio.sleep(0.05)  # "stays" is queued behind the stalled commit
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    store.release.set()
    answer = await asyncio.wait_for(queued, 30)
    await app({"type": "lifespan"}, _lifespan_shutdown(), _ignore)

    assert answer["status"] == 200
    assert store.batches == [["gone"], ["stays"]]
    assert store.get("gone") is not None
    assert "never retrieved" not in caplog.text


@pytest.mark.asyncio
async def test_asgi_a_locked_sqlite_file_is_answered_503(tmp_path: Any) -> None:
    """A real SQLite file locked by another connection (BEGIN EXCLUSIVE): concurrent
    deliveries are answered 503 within the budget and nothing is half-written."""
    path = tmp_path / "inbox.db"
    store = SQLiteStore(path, busy_timeout=3600)
    client = Asgi(WebhookReceiver(store, store_timeout=0.2).asgi_app())
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN EXCLUSIVE")
        results = await asyncio.wait_for(
            asyncio.gather(*(client.request(event_body(f"e{n}")) for n in range(5))), 30
        )
        other.execute("ROLLBACK")

        assert [r["status"] for r in results] == [503] * 5
        assert store.list() == []
    finally:
        other.close()
        store.close()


async def _ignore(message: Any) -> None:
    return None


def _lifespan_shutdown() -> Any:
    messages = [{"type": "lifespan.shutdown"}]

    async def receive() -> dict[str, Any]:
        return messages.pop(0)

    return receive


@pytest.mark.asyncio
async def test_asgi_a_body_shorter_than_its_content_length_is_refused() -> None:
    """The server ends the body before Content-Length: 400 CORPO_INCOMPLETO, nothing stored."""
    store = SlowStore()
    data = event_body()
    result = await Asgi(WebhookReceiver(store).asgi_app()).request(
        data, headers=[(b"content-length", str(len(data) + 10).encode())], content_length=False
    )

    assert result["status"] == 400
    assert json.loads(result["body"])["erro"]["codigo"] == "CORPO_INCOMPLETO"
    assert store.batches == []


# --- WSGI: chunked bodies and bodies cut short ----------------------------------------------


def chunked(data: bytes, size: int = 50, trailer: bytes = b"") -> bytes:
    """``data`` in Transfer-Encoding: chunked framing, in chunks of ``size`` bytes."""
    parts = [data[i : i + size] for i in range(0, len(data), size)]
    framed = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts)
    return framed + b"0\r\n" + trailer + b"\r\n"


def test_wsgi_decodes_a_raw_chunked_body() -> None:
    """Transfer-Encoding: chunked passed raw (no Content-Length, input not terminated, as
    wsgiref does): decoded and stored; chunk extensions and trailers are read over."""
    store = MemoryStore()
    app = WebhookReceiver(store).wsgi_app()
    data = event_body()
    framed = chunked(data, 33, trailer=b"X-Checksum: 1\r\n").replace(b"\r\n", b";ext=1\r\n", 1)

    status, _, _ = wsgi_call(
        app,
        framed,
        CONTENT_LENGTH="",
        HTTP_TRANSFER_ENCODING="chunked",
        **{"wsgi.input": io.BytesIO(framed)},
    )

    assert status == "200 OK"
    stored = store.get("evt-1")
    assert stored is not None
    assert stored.raw == json.loads(data)


@pytest.mark.parametrize(
    ("framed", "status"),
    [
        (chunked(event_body())[:-7], "400 Bad Request"),  # cut inside the last chunk
        (chunked(event_body())[:-5], "400 Bad Request"),  # no last chunk
        (b"zz\r\n" + event_body() + b"\r\n0\r\n\r\n", "400 Bad Request"),
        (b"5" * 2000, "400 Bad Request"),
        (chunked(event_body(pad="x" * 2000)), "413 "),
    ],
    ids=["cut-in-a-chunk", "no-last-chunk", "bad-size", "endless-size-line", "too-large"],
)
def test_wsgi_refuses_a_broken_chunked_body(framed: bytes, status: str) -> None:
    """A chunked body that is cut short or malformed is 400, a too large one 413: nothing
    stored."""
    store = MemoryStore()
    app = WebhookReceiver(store, max_body_bytes=1000).wsgi_app()

    got, _, _ = wsgi_call(
        app,
        framed,
        CONTENT_LENGTH="",
        HTTP_TRANSFER_ENCODING="chunked",
        **{"wsgi.input": io.BytesIO(framed)},
    )

    assert got.startswith(status)
    assert store.list() == []


def test_wsgi_a_body_shorter_than_its_content_length_is_never_stored() -> None:
    """The client went away before Content-Length bytes (what arrived is a valid event):
    400 CORPO_INCOMPLETO, nothing stored."""
    store = MemoryStore()
    data = event_body()

    status, _, out = wsgi_call(
        WebhookReceiver(store).wsgi_app(), data, CONTENT_LENGTH=str(len(data) + 40)
    )

    assert status == "400 Bad Request"
    assert json.loads(out)["erro"]["codigo"] == "CORPO_INCOMPLETO"
    assert store.list() == []


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        return None


@contextlib.contextmanager
def wsgiref_server(app: Any) -> Iterator[tuple[str, int]]:
    """Serve ``app`` with the standard library's wsgiref on 127.0.0.1, in a thread."""
    server = make_server("127.0.0.1", 0, app, handler_class=_QuietHandler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield server.server_address[0], server.server_address[1]
    finally:
        server.shutdown()
        thread.join(10)
        server.server_close()


def test_wsgiref_accepts_a_chunked_delivery() -> None:
    """Under wsgiref, a valid chunked POST (no Content-Length) is stored: 200, not 400."""
    store = MemoryStore()
    with wsgiref_server(WebhookReceiver(store).wsgi_app()) as (host, port):
        conn = http.client.HTTPConnection(host, port, timeout=30)
        try:
            conn.request(
                "POST",
                "/",
                body=iter([event_body()[:40], event_body()[40:]]),
                headers={"Content-Type": "application/json"},
                encode_chunked=True,
            )
            response = conn.getresponse()
            status, answer = response.status, json.loads(response.read())
        finally:
            conn.close()

    assert (status, answer) == (200, {"recebido": True, "duplicado": False})
    assert store.get("evt-1") is not None


def test_wsgiref_a_client_gone_mid_body_stores_nothing() -> None:
    """Under wsgiref, a client that sends part of its Content-Length and shuts its side
    gets 400, and the valid-looking part is not stored."""
    store = MemoryStore()
    data = event_body()
    with (
        wsgiref_server(WebhookReceiver(store).wsgi_app()) as (host, port),
        socket.create_connection((host, port), timeout=30) as sock,
    ):
        head = (
            f"POST / HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data) + 100}\r\n\r\n"
        ).encode()
        sock.sendall(head + data)
        sock.shutdown(socket.SHUT_WR)
        reply = b""
        while chunk := sock.recv(4096):
            reply += chunk

    assert reply.startswith(b"HTTP/1.0 400 ")
    assert b"CORPO_INCOMPLETO" in reply
    assert store.list() == []


@pytest.mark.asyncio
async def test_asgi_without_a_store_timeout_waits_for_the_commit() -> None:
    """store_timeout=None: each request waits for its commit however long it takes."""
    store = SlowStore(delay=0.3)
    client = Asgi(WebhookReceiver(store, store_timeout=None).asgi_app())

    results = await asyncio.gather(*(client.request(event_body(f"e{n}")) for n in range(3)))

    assert [r["status"] for r in results] == [200, 200, 200]
    assert len(store.list()) == 3
