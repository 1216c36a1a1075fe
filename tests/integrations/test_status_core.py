"""The cashier's screen core: views, change ids, SSE framing, the hub (no HTTP)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator

import pytest

import smartpos
from smartpos import webhooks
from smartpos.integrations._status import (
    StatusAnswer,
    StatusHub,
    check_authorize,
    checkout_js,
    decide,
    follow,
    operation_view,
    sale_view,
    sse_message,
)
from smartpos.testing import Approve, Hold, Refuse, Sandbox

CHARGE = {
    "documento_cliente": Sandbox.DOCUMENTO,
    "smartpos_id": Sandbox.SMARTPOS_ID,
    "valor_centavos": 4590,
}


@pytest.fixture
def world() -> Iterator[tuple[Sandbox, smartpos.Client, webhooks.MemoryStore]]:
    store = webhooks.MemoryStore()
    with (
        Sandbox() as sandbox,
        smartpos.Client(
            api_key=Sandbox.API_KEY,
            base_url="http://sandbox.invalid",
            transport=sandbox.transport(),
            store=store,
        ) as client,
    ):
        sandbox.set_webhook(webhooks.WebhookReceiver(store))
        yield sandbox, client, store


def test_sale_view_masks_and_keeps_only_receipt_data(world) -> None:
    _sandbox, client, store = world
    client.payments.create_and_wait(**CHARGE, sale="pedido-1", timeout=10)
    sale = store.sale("pedido-1")
    assert sale is not None
    view = sale_view(sale)
    assert (view["state"], view["status"], view["approved_centavos"]) == ("paid", "approved", 4590)
    [attempt] = view["attempts"]
    outcome = attempt["outcome"]
    assert outcome["tipo"] == "pagamento.aprovado"
    assert set(outcome["autorizacao"]) == {"codigo", "numero_transacao", "tipo_pagamento"}
    text = json.dumps(view)
    digits = "".join(c for c in Sandbox.DOCUMENTO if c.isdigit())
    assert digits not in text
    assert Sandbox.DOCUMENTO not in text
    assert "dadosFinalizacao" not in text
    assert "dados_finalizacao" not in text
    assert Sandbox.API_KEY not in text


def test_refusal_shows_the_terminal_message_and_the_sale_stays_open(world) -> None:
    sandbox, client, store = world
    sandbox.script_payments(Refuse(mensagem_operador="SALDO INSUFICIENTE"))
    client.payments.create_and_wait(**CHARGE, sale="pedido-2", timeout=10)
    view = sale_view(store.sale("pedido-2"))
    assert (view["state"], view["status"]) == ("open", "refused")
    assert view["attempts"][0]["outcome"]["mensagem"] == "SALDO INSUFICIENTE"


def test_change_id_is_stable_and_moves_with_each_change(world) -> None:
    sandbox, client, store = world
    sandbox.script_payments(Hold(Approve()))
    accepted = client.payments.create(**CHARGE, sale="pedido-3")
    first = sale_view(store.sale("pedido-3"))
    again = sale_view(store.sale("pedido-3"))
    assert first["id"] == again["id"]  # the same state: the same id, in any process
    assert first["status"] == "waiting"
    assert first["open_attempt"] == accepted.referencia
    client.abandon("pedido-3", motivo="cliente desistiu")
    abandoned = sale_view(store.sale("pedido-3"))
    assert abandoned["status"] == "abandoned"
    assert abandoned["id"] != first["id"]
    sandbox.release(accepted.referencia)
    client.wait(accepted.referencia, timeout=10)
    late = sale_view(store.sale("pedido-3"))
    assert [p["reason"] for p in late["pendencias"]] == ["late_approval"]
    assert late["attempts"][0]["status"] == "late_approval"
    ids = [first["id"], abandoned["id"], late["id"]]
    assert len(set(ids)) == 3
    stamps = [int(i.split(".")[0], 16) for i in ids]
    assert stamps == sorted(stamps)


def test_qrcode_view_until_paired(world) -> None:
    sandbox, client, store = world
    qr = client.qrcodes.create(documento_cliente=Sandbox.DOCUMENTO)
    view = operation_view(store.operation(qr.referencia))
    assert (view["kind"], view["status"], view["done"]) == ("qrcode", "waiting", False)
    assert view["qr_code"] == qr.qr_code
    assert view["qr_image"].startswith("data:image/svg+xml")
    sandbox.scan(qr.qr_code, Sandbox.SMARTPOS_ID)
    client.wait(qr.referencia, timeout=10)
    paired = operation_view(store.operation(qr.referencia))
    assert (paired["status"], paired["done"]) == ("paired", True)
    assert paired["outcome"]["smartpos_id"] == Sandbox.SMARTPOS_ID
    assert Sandbox.DOCUMENTO not in json.dumps(paired)


def test_decide() -> None:
    assert decide(accept="text/event-stream", wait=None, last_event_id="a.b", since=None) == (
        StatusAnswer(stream=True, since="a.b")
    )
    assert decide(accept="application/json", wait="5", last_event_id=None, since="x") == (
        StatusAnswer(wait=5.0, since="x")
    )
    for bad in ("26", "-1", "nan", "soon"):
        refused = decide(accept=None, wait=bad, last_event_id=None, since=None)
        assert refused.status_code == 400
        assert b"PARAMETRO_INVALIDO" in refused.body


def test_authorize_is_required() -> None:
    for missing in (None, "yes", 1):
        with pytest.raises(smartpos.ConfigurationError, match="authorize"):
            check_authorize(missing)
    assert check_authorize(lambda request, key: True)


def test_sse_message_framing() -> None:
    text = sse_message({"id": "1.ab", "status": "waiting"}, retry=2000).decode()
    assert text == 'retry: 2000\nid: 1.ab\nevent: state\ndata: {"id":"1.ab","status":"waiting"}\n\n'


def test_checkout_js_is_packaged() -> None:
    assert b"EventSource" in checkout_js()


def test_stream_resumes_without_repeating_and_ends_when_closed(world) -> None:
    sandbox, client, store = world
    sandbox.script_payments(Hold(Approve()))
    accepted = client.payments.create(**CHARGE, sale="pedido-4")
    hub = StatusHub(store)
    try:
        status, chunks = follow(hub, ("sale", "pedido-4"), StatusAnswer(stream=True))
        assert status == 200
        first = next(chunks)
        assert first.startswith(b"retry: ")
        assert b"event: state" in first
        first_id = first.decode().split("id: ")[1].split("\n")[0]
        got: list[bytes] = []
        reader = threading.Thread(target=lambda: got.extend(chunks))
        reader.start()
        sandbox.release(accepted.referencia)  # stored by the webhook: the listener wakes the hub
        deadline = time.monotonic() + 10
        while not any(b"approved" in c for c in got) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert any(b'"status":"approved"' in c for c in got)
        hub.close()  # the server's shutdown: the stream ends
        reader.join(5)
        assert not reader.is_alive()
        second_id = (
            next(c for c in got if b"approved" in c).decode().split("id: ")[1].split("\n")[0]
        )
        assert second_id != first_id
    finally:
        hub.close()
    # A resume from the newest id sends nothing new; from the older id, the newest state once.
    hub = StatusHub(store)
    try:
        _, resumed = follow(hub, ("sale", "pedido-4"), StatusAnswer(wait=0.2, since=second_id))
        body = json.loads(b"".join(resumed))
        assert body["id"] == second_id  # the long poll's deadline: the same state
        _, old = follow(hub, ("sale", "pedido-4"), StatusAnswer(wait=5, since=first_id))
        assert json.loads(b"".join(old))["id"] == second_id
    finally:
        hub.close()


def test_listener_watch_sees_every_change_and_keeps_the_source_running(world) -> None:
    from smartpos.webhooks._listener import listener_for

    _sandbox, client, store = world
    listener = listener_for(store)
    before = listener.waiting()
    seen: list[frozenset[str] | None] = []
    unwatch = listener.watch(seen.append)
    assert listener.waiting() == before + 1  # a source that polls only while anyone waits runs
    accepted = client.payments.create(**CHARGE)
    client.wait(accepted.referencia, timeout=10)
    deadline = time.monotonic() + 5
    while not any(s and accepted.referencia in s for s in seen) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert any(s is not None and accepted.referencia in s for s in seen)
    unwatch()
    unwatch()  # twice: nothing more
    assert listener.waiting() == before
