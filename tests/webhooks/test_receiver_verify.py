"""The receiver with signature verifiers: checked before parsing and dedup, nothing stored
for a forgery, an authentic but odd body stored as before; in process, under ASGI, and over
HTTP on 127.0.0.1 through the WSGI adapter."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

import httpx
import pytest

from smartpos.testing import sign
from smartpos.webhooks import (
    EventState,
    HmacManifestVerifier,
    MemoryStore,
    PutResult,
    StandardWebhooksVerifier,
    StripeStyleVerifier,
    WebhookReceiver,
)
from smartpos.webhooks._store import EventLike

SECRET = "whsec_cmVjZWl2ZXItc2VjcmV0LW9mLTI0LWJ5dGVz"
NOW = 1_790_000_000


def delivery(event_id: str = "evt-1", **dados: Any) -> bytes:
    """A pagamento.aprovado body."""
    return json.dumps(
        {
            "id": event_id,
            "tipo": "pagamento.aprovado",
            "criadoEm": "2026-05-04T13:45:12Z",
            "dados": {
                "referencia": "r-1",
                "documentoCliente": "52998224725",
                "status": "aprovado",
                **dados,
            },
        }
    ).encode()


class RecordingStore(MemoryStore):
    """A MemoryStore that records every id handed to it."""

    def __init__(self) -> None:
        super().__init__()
        self.puts: list[str] = []

    def put(self, event: EventLike, *, timeout: float | None = None) -> PutResult:
        return self.put_many([event])[0]

    def put_many(
        self, events: Sequence[EventLike], *, timeout: float | None = None
    ) -> list[PutResult]:
        self.puts.extend(event.id for event in events)
        return super().put_many(events)


@pytest.fixture
def store() -> RecordingStore:
    """A fresh store."""
    return RecordingStore()


@pytest.fixture
def receiver(store: RecordingStore) -> WebhookReceiver:
    """A receiver verifying Standard Webhooks at a stopped clock."""
    return WebhookReceiver(store, verifier=StandardWebhooksVerifier(SECRET, clock=lambda: NOW))


def signed(body: bytes, **options: Any) -> dict[str, str]:
    """Standard Webhooks headers for ``body`` at NOW."""
    return sign(body, secret=SECRET, timestamp=NOW, **options)


def test_an_authentic_delivery_is_stored(receiver: WebhookReceiver, store: RecordingStore) -> None:
    """Signed: 200, parsed, stored once; headers in any case."""
    body = delivery()
    headers = {k.title(): v for k, v in signed(body).items()}
    receipt = receiver.receive(body, headers)
    assert (200, PutResult.NEW, "evt-1") == (
        receipt.status_code,
        receipt.put_result,
        receipt.event.id if receipt.event else None,
    )
    assert ["evt-1"] == store.puts


def test_a_forged_duplicate_of_a_stored_id_is_401_not_duplicate(
    receiver: WebhookReceiver, store: RecordingStore
) -> None:
    """Once evt-1 is stored, a forged evt-1 (another body, or the real body with the real
    headers from another secret) is refused as a forgery, never answered "duplicado"."""
    real = delivery(valorCentavos=15990)
    assert 200 == receiver.receive(real, signed(real)).status_code
    forged_body = delivery(valorCentavos=1)
    attempts = [
        (forged_body, signed(real)),  # real headers, another body
        (real, sign(real, secret="whsec_b3RoZXItc2VjcmV0LW9mLTI0LWJ5dGVz", timestamp=NOW)),
        (real, {}),
    ]
    for body, headers in attempts:
        receipt = receiver.receive(body, headers)
        assert (401, False, None, None) == (
            receipt.status_code,
            receipt.duplicate,
            receipt.put_result,
            receipt.event,
        )
        assert "duplicado" not in json.loads(receipt.body)
        assert "NAO_AUTORIZADO" == json.loads(receipt.body)["erro"]["codigo"]
    assert ["evt-1"] == store.puts
    record = store.get("evt-1")
    assert record is not None
    assert 15990 == record.raw["dados"]["valorCentavos"]


def test_a_forged_delivery_stores_nothing(receiver: WebhookReceiver, store: RecordingStore) -> None:
    """A forged delivery never reaches the store, whatever its body (even one that is not
    JSON: nothing is parsed for a stranger)."""
    for body in (delivery("evt-forged"), b"not json at all", b"{}"):
        assert 401 == receiver.receive(body, {"webhook-signature": "v1,AAAA"}).status_code
    assert [] == store.puts
    assert None is store.get("evt-forged")


def test_an_authentic_but_stale_or_millisecond_delivery_is_401_with_the_reason(
    store: RecordingStore,
) -> None:
    """The answer says why: too old, or milliseconds; nothing is stored."""
    body = delivery()
    late = WebhookReceiver(
        store, verifier=StandardWebhooksVerifier(SECRET, clock=lambda: NOW + 900)
    )
    receipt = late.receive(body, signed(body))
    assert 401 == receipt.status_code
    assert "is 900 s old" in json.loads(receipt.body)["erro"]["mensagem"]
    millis = {**signed(body), "webhook-timestamp": str(NOW * 1000)}
    receipt = WebhookReceiver(
        store, verifier=StandardWebhooksVerifier(SECRET, clock=lambda: NOW)
    ).receive(body, millis)
    assert "looks like milliseconds" in json.loads(receipt.body)["erro"]["mensagem"]
    assert [] == store.puts


def test_an_authentic_delivery_with_an_unreadable_body_is_stored_as_today(
    receiver: WebhookReceiver, store: RecordingStore
) -> None:
    """Authentic, but cp1252, or dados that do not fit the schema: stored (the worker
    dead-letters what it cannot read); authentic but not an event at all: 400, not 401."""
    cp1252 = delivery("evt-cp").replace(b'"r-1"', '"caf\u00e9"'.encode("cp1252"))
    mismatch = delivery("evt-schema", valorCentavos="not a number")
    for body in (cp1252, mismatch):
        receipt = receiver.receive(body, signed(body))
        assert (200, PutResult.NEW) == (receipt.status_code, receipt.put_result)
    assert ["evt-cp", "evt-schema"] == store.puts
    record = store.get("evt-schema")
    assert record is not None
    assert EventState.PENDING == record.state
    not_an_event = b"[1, 2, 3]"
    receipt = receiver.receive(not_an_event, signed(not_an_event))
    assert (400, "EVENTO_INVALIDO") == (
        receipt.status_code,
        json.loads(receipt.body)["erro"]["codigo"],
    )


def test_a_manifest_over_a_cp1252_body_reads_its_fields_as_the_receiver_does(
    store: RecordingStore,
) -> None:
    """{json:...} reads a cp1252 body, as the receiver admits one: the delivery is stored."""
    template = "id:{json:id};ts:{timestamp};{body}"
    body = delivery("evt-man").replace(b'"r-1"', '"a\u00e7\u00e3o"'.encode("cp1252"))
    verifier = HmacManifestVerifier("k", template=template, clock=lambda: NOW)
    headers = sign(body, secret="k", scheme="hmac-manifest", template=template, timestamp=NOW)
    assert 200 == WebhookReceiver(store, verifier=verifier).receive(body, headers).status_code
    assert ["evt-man"] == store.puts


def test_the_refusal_is_logged_and_never_holds_the_secret(
    receiver: WebhookReceiver, caplog: pytest.LogCaptureFixture
) -> None:
    """WARNING from the receiver, DEBUG from the verifier; neither holds the secret."""
    body = delivery()
    with caplog.at_level(logging.DEBUG, logger="smartpos.webhooks"):
        receipt = receiver.receive(body + b" ", signed(body))
    assert 401 == receipt.status_code
    levels = {r.levelname for r in caplog.records}
    assert {"DEBUG", "WARNING"} <= levels
    text = "\n".join(r.getMessage() for r in caplog.records) + receipt.body.decode()
    assert SECRET.removeprefix("whsec_") not in text
    assert "valorCentavos" not in text


# --- under ASGI, and over HTTP -------------------------------------------------------------------


async def asgi_post(app: Any, body: bytes, headers: Mapping[str, str]) -> tuple[int, bytes]:
    """One POST to an ASGI app, headers as the server would pass them (raw bytes)."""
    raw = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
    raw.append((b"content-length", str(len(body)).encode()))
    scope = {"type": "http", "method": "POST", "path": "/", "headers": raw}
    messages = [{"type": "http.request", "body": body, "more_body": False}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return sent[0]["status"], sent[1]["body"]


def test_the_asgi_app_verifies_before_its_group_commit(store: RecordingStore) -> None:
    """Through asgi_app(): signed deliveries stored, forged ones 401 and absent."""
    verifier = StripeStyleVerifier("stripe-secret", clock=lambda: NOW)
    app = WebhookReceiver(store, verifier=verifier).asgi_app()
    good, bad = delivery("evt-a"), delivery("evt-b")
    good_headers = {"Stripe-Signature": sign(good, secret="stripe-secret", scheme="stripe",
                                             timestamp=NOW)["stripe-signature"]}  # fmt: skip
    bad_headers = {"Stripe-Signature": good_headers["Stripe-Signature"]}

    async def both() -> list[tuple[int, bytes]]:
        return list(
            await asyncio.gather(
                asgi_post(app, good, good_headers), asgi_post(app, bad, bad_headers)
            )
        )

    (good_status, _), (bad_status, bad_body) = asyncio.run(both())
    assert (200, 401) == (good_status, bad_status)
    assert b"NAO_AUTORIZADO" in bad_body
    assert ["evt-a"] == store.puts


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def wsgi_url(store: RecordingStore) -> Iterator[str]:
    """The receiver's WSGI app served by wsgiref on 127.0.0.1, Standard Webhooks verified."""
    receiver = WebhookReceiver(store, verifier=StandardWebhooksVerifier(SECRET))
    server = make_server("127.0.0.1", 0, receiver.wsgi_app(), handler_class=_QuietHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_over_http_a_signed_delivery_is_stored_and_a_forged_one_is_not(
    wsgi_url: str, store: RecordingStore
) -> None:
    """Real HTTP on the loopback: the headers as a server hands them to the verifier."""
    good, forged = delivery("evt-http"), delivery("evt-http-forged")
    with httpx.Client(timeout=5) as client:
        ok = client.post(wsgi_url, content=good, headers=sign(good, secret=SECRET))
        refused = client.post(wsgi_url, content=forged, headers=sign(good, secret=SECRET))
        again = client.post(wsgi_url, content=good, headers=sign(good, secret=SECRET))
    assert (200, 401, 200) == (ok.status_code, refused.status_code, again.status_code)
    assert {"recebido": True, "duplicado": True} == again.json()
    assert ["evt-http", "evt-http"] == store.puts
