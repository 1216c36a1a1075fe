"""The status endpoints over real HTTP on 127.0.0.1: FastAPI under uvicorn, Flask under
werkzeug's threaded server; an SQLite inbox written by another process."""

from __future__ import annotations

import resource
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from status_http import SSEReader, put_from_another_process, serve_uvicorn, serve_wsgi

import smartpos
from smartpos import webhooks
from smartpos.integrations._status import hub_for
from smartpos.testing import Approve, Hold, Refuse, Sandbox

CHARGE = {
    "documento_cliente": Sandbox.DOCUMENTO,
    "smartpos_id": Sandbox.SMARTPOS_ID,
    "valor_centavos": 4590,
}
AUTH = {"X-Caixa": "loja-1"}


def may_see(request: Any, key: str) -> bool:
    """The partner's rule: only its cashiers (a header here), never the sale 'alheia'."""
    return request.headers.get("X-Caixa") == "loja-1" and key != "alheia"


class World:
    """A sandbox, a client journaling into an SQLite inbox, the held events' envelopes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.store = webhooks.SQLiteStore(path)
        self.sandbox = Sandbox()
        self.client = smartpos.Client(
            api_key=Sandbox.API_KEY,
            base_url="http://sandbox.invalid",
            transport=self.sandbox.transport(),
            store=self.store,
        )
        self.sandbox.set_webhook(webhooks.WebhookReceiver(self.store))

    def held_charge(self, sale: str, terminal: str = Sandbox.SMARTPOS_ID) -> str:
        """An accepted attempt whose approval the sandbox holds back; its referencia."""
        self.sandbox.script_payments(Hold(Approve()))
        charge = {**CHARGE, "smartpos_id": terminal}
        return self.client.payments.create(**charge, sale=sale).referencia

    def release_elsewhere(self, referencia: str) -> None:
        """The held events, stored by another process (not this one's webhook)."""
        self.sandbox.set_webhook(webhooks.WebhookReceiver(webhooks.MemoryStore()))
        envelopes = self.sandbox.release(referencia)
        self.sandbox.set_webhook(webhooks.WebhookReceiver(self.store))
        put_from_another_process(self.path, envelopes)

    def close(self) -> None:
        self.client.close()
        self.sandbox.close()
        self.store.close()


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path / "inbox.sqlite3")
    try:
        yield w
    finally:
        w.close()


def fastapi_app(store: webhooks.Store) -> Any:
    from fastapi import FastAPI

    from smartpos.integrations.fastapi import SmartPOS

    smartpos_app = SmartPOS(store=store)
    app = FastAPI(lifespan=smartpos_app.lifespan)
    app.include_router(smartpos_app.status_router(authorize=may_see), prefix="/caixa")
    return app


def flask_app(store: webhooks.Store) -> Any:
    from flask import Flask

    from smartpos.integrations.flask import SmartPOS

    app = Flask("status")
    app.config["SMARTPOS_STORE"] = store
    ext = SmartPOS(app)
    app.register_blueprint(ext.status_blueprint(authorize=may_see), url_prefix="/caixa")
    return app


@pytest.fixture(params=["fastapi", "flask"])
def served(request: pytest.FixtureRequest, world: World) -> Iterator[str]:
    if request.param == "fastapi":
        with serve_uvicorn(fastapi_app(world.store)) as base:
            yield base
    else:
        with serve_wsgi(flask_app(world.store)) as base:
            yield base
    hub_for(world.store).close()


def test_json_auth_and_not_found(world: World, served: str) -> None:
    world.client.payments.create_and_wait(**CHARGE, sale="pedido-1", timeout=10)
    with httpx.Client(base_url=served, timeout=10) as http:
        ok = http.get("/caixa/sales/pedido-1", headers=AUTH)
        assert ok.status_code == 200
        assert ok.headers["content-type"] == "application/json"
        assert ok.headers["cache-control"] == "no-store"
        body = ok.json()
        assert (body["state"], body["status"]) == ("paid", "approved")
        assert Sandbox.DOCUMENTO not in ok.text
        ref = body["attempts"][0]["referencia"]
        op = http.get(f"/caixa/operations/{ref}", headers=AUTH).json()
        assert (op["type"], op["status"], op["sale_id"]) == ("operation", "approved", "pedido-1")
        # refused before the store is read: a stranger learns nothing, not even existence
        for path in ("/caixa/sales/pedido-1", "/caixa/sales/nenhuma"):
            denied = http.get(path)
            assert denied.status_code == 403
            assert denied.json()["erro"]["codigo"] == "NAO_AUTORIZADO"
        assert http.get("/caixa/sales/alheia", headers=AUTH).status_code == 403
        # A sale without attempts yet is open (the partner's authorize vouched for it) ...
        unstarted = http.get("/caixa/sales/nenhuma", headers=AUTH)
        assert unstarted.status_code == 200
        assert (unstarted.json()["status"], unstarted.json()["attempts"]) == ("open", [])
        # ... an operation the journal does not know is a 404.
        assert http.get("/caixa/operations/nenhuma", headers=AUTH).status_code == 404
        bad = http.get("/caixa/sales/pedido-1", params={"wait": "60"}, headers=AUTH)
        assert bad.status_code == 400
        js = http.get("/caixa/smartpos-checkout.js")
        assert js.status_code == 200
        assert "javascript" in js.headers["content-type"]
        assert "EventSource" in js.text


def test_long_poll_wakes_on_an_event_stored_by_another_process(world: World, served: str) -> None:
    referencia = world.held_charge("pedido-2")
    with httpx.Client(base_url=served, timeout=30) as http:
        now = http.get("/caixa/sales/pedido-2", headers=AUTH).json()
        assert now["status"] == "waiting"
        import threading

        answers: list[httpx.Response] = []
        poll = threading.Thread(
            target=lambda: answers.append(
                http.get(
                    "/caixa/sales/pedido-2",
                    params={"wait": "25", "since": now["id"]},
                    headers=AUTH,
                )
            )
        )
        poll.start()
        time.sleep(0.3)
        assert not answers  # nothing changed: it waits
        world.release_elsewhere(referencia)
        poll.join(20)
        assert answers, "the long poll did not answer"
        changed = answers[0].json()
        assert changed["status"] == "approved"
        assert changed["id"] != now["id"]
        # ?wait without a change answers the same state at its deadline
        same = http.get(
            "/caixa/sales/pedido-2", params={"wait": "0.3", "since": changed["id"]}, headers=AUTH
        ).json()
        assert same["id"] == changed["id"]


def test_sse_resumes_with_last_event_id_without_loss_or_repeat(world: World, served: str) -> None:
    referencia = world.held_charge("pedido-3")
    stream = SSEReader(served, "/caixa/sales/pedido-3", headers=AUTH)
    assert stream.status == 200
    assert stream.headers["content-type"].startswith("text/event-stream")
    [first] = stream.messages(1)
    assert first["retry"] == "2000"
    assert first["data"]["status"] == "waiting"
    assert first["id"] == first["data"]["id"]
    stream.close()  # the browser goes away (a reload) ...
    world.client.abandon("pedido-3", motivo="cliente desistiu")
    world.release_elsewhere(referencia)  # ... a late approval arrives meanwhile
    resumed = SSEReader(
        served, "/caixa/sales/pedido-3", headers={**AUTH, "Last-Event-ID": first["id"]}
    )
    [latest] = resumed.messages(1)
    data = latest["data"]
    assert data["status"] == "abandoned"
    assert [p["reason"] for p in data["pendencias"]] == ["late_approval"]
    assert data["attempts"][0]["abandoned"]["motivo"] == "cliente desistiu"
    resumed.close()
    # Resuming from the newest id sends nothing until the next change (no repeat).
    again = SSEReader(
        served,
        "/caixa/sales/pedido-3",
        headers={**AUTH, "Last-Event-ID": latest["id"]},
        timeout=1.5,
    )
    with pytest.raises(TimeoutError):
        again.messages(1)
    again.close()


def test_pairing_stream_follows_a_qr_code_until_identified(world: World, served: str) -> None:
    qr = world.client.qrcodes.create(documento_cliente=Sandbox.DOCUMENTO)
    stream = SSEReader(served, f"/caixa/operations/{qr.referencia}", headers=AUTH)
    [waiting] = stream.messages(1)
    assert waiting["data"]["status"] == "waiting"
    assert waiting["data"]["qr_image"].startswith("data:image/svg+xml")
    world.sandbox.scan(qr.qr_code, Sandbox.SMARTPOS_ID)
    paired, end = stream.messages(2)
    assert paired["data"]["status"] == "paired"
    assert paired["data"]["outcome"]["smartpos_id"] == Sandbox.SMARTPOS_ID
    assert end["event"] == "end"
    stream.close()


def test_refusal_then_new_attempt_on_the_same_stream(world: World, served: str) -> None:
    world.sandbox.script_payments(Refuse(mensagem_operador="SALDO INSUFICIENTE"))
    world.client.payments.create_and_wait(**CHARGE, sale="pedido-5", timeout=10)
    stream = SSEReader(served, "/caixa/sales/pedido-5", headers=AUTH)
    [refused] = stream.messages(1)
    assert refused["data"]["status"] == "refused"
    assert refused["data"]["attempts"][0]["outcome"]["mensagem"] == "SALDO INSUFICIENTE"
    world.client.payments.create_and_wait(**CHARGE, sale="pedido-5", timeout=10)
    # The new attempt's event names a referencia the stream did not know yet: the hub
    # looks it up once and finds its sale.
    messages = stream.messages(1)
    while messages[-1]["data"]["status"] != "approved":
        messages += stream.messages(1)
    assert len(messages[-1]["data"]["attempts"]) == 2
    stream.close()


def test_missing_authorizer_refuses_to_mount(world: World) -> None:
    from flask import Flask

    from smartpos.integrations.fastapi import SmartPOS as FastSmartPOS
    from smartpos.integrations.flask import SmartPOS as FlaskSmartPOS

    with pytest.raises(smartpos.ConfigurationError, match="authorize"):
        FastSmartPOS(store=world.store).status_router(authorize=None)
    app = Flask("x")
    app.config["SMARTPOS_STORE"] = world.store
    with pytest.raises(smartpos.ConfigurationError, match="authorize"):
        FlaskSmartPOS(app).status_blueprint(authorize=None)


def test_a_thousand_streams_in_one_process_bounded(world: World) -> None:
    """1,000 streams held open by one uvicorn process: one store read per change, bounded
    memory, the change reaches its stream, a vanished client blocks nobody, and closing the
    streams (the shutdown) ends every one."""
    sales = [f"mesa-{n}" for n in range(10)]
    for n in range(len(sales)):
        world.sandbox.add_terminal(f"SP-MESA-{n}", documento_cliente=Sandbox.DOCUMENTO)
    held = {sale: world.held_charge(sale, f"SP-MESA-{n}") for n, sale in enumerate(sales)}
    app = fastapi_app(world.store)
    with serve_uvicorn(app) as base:
        first = [SSEReader(base, f"/caixa/sales/{sales[0]}", headers=AUTH)]
        first[0].messages(1)
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        streams = first + [
            SSEReader(base, f"/caixa/sales/{sales[n % len(sales)]}", headers=AUTH)
            for n in range(1, 1000)
        ]
        for stream in streams[1:]:
            assert stream.messages(1)[0]["data"]["status"] == "waiting"
        hub = hub_for(world.store)
        assert hub.streams() == 1000
        grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before
        assert grown_kib < 200 * 1024, f"1,000 streams took {grown_kib} KiB"
        # Some browsers vanish without a word: the others go on.
        for stream in streams[500:510]:
            stream.close()
        reads = hub.reads
        world.release_elsewhere(held[sales[0]])
        watchers = [s for i, s in enumerate(streams) if i % len(sales) == 0 and not 500 <= i < 510]
        for stream in watchers:
            assert stream.messages(1)[0]["data"]["status"] == "approved"
        # 100 streams follow that sale: the hub read it once (plus a journal look-up or two)
        assert hub.reads - reads <= 3
        app.state.smartpos.close_streams()  # what a shutdown does
        deadline = time.monotonic() + 20
        for stream in streams[:500]:
            stream.sock.settimeout(max(deadline - time.monotonic(), 0.1))
            stream.until_closed()
            assert stream.closed
        for stream in streams:
            stream.close()
        assert hub.streams() == 0 or hub.closed


def test_wsgi_shutdown_ends_streams(world: World) -> None:
    world.held_charge("pedido-7")
    with serve_wsgi(flask_app(world.store)) as base:
        stream = SSEReader(base, "/caixa/sales/pedido-7", headers=AUTH)
        stream.messages(1)
        hub_for(world.store).close()
        stream.until_closed()
        assert stream.closed
        stream.close()


class FailingStore(webhooks.MemoryStore):
    """A store whose reads fail, as a lost server would."""

    def sale(self, sale_id: str) -> Any:
        raise webhooks.StoreError("connection lost")


def test_a_failing_store_answers_503_with_retry_after() -> None:
    store = FailingStore()
    with serve_uvicorn(fastapi_app(store)) as base, httpx.Client(base_url=base) as http:
        failed = http.get("/caixa/sales/pedido-8", headers=AUTH)
        assert failed.status_code == 503
        assert failed.headers["retry-after"] == "1"
        assert failed.json()["erro"]["codigo"] == "ARMAZENAMENTO_INDISPONIVEL"
    hub_for(store).close()
