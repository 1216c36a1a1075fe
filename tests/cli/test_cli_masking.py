"""Documents are masked in every ``--json`` output, and ``refund --event -`` still refunds.

``events list/show --json``, ``trigger --json`` and ``listen --json`` print envelopes with
``documentoCliente`` masked; ``refund --event -`` reads an inbox record's full envelope back
from the inbox it names. All in-process, through ``smartpos.cli.main``.
"""

from __future__ import annotations

import json
import queue
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import invoke

import smartpos
from smartpos.cli._http import Delivery, serve_receiver
from smartpos.cli._output import mask_documents
from smartpos.cli._samples import sample
from smartpos.testing import Sandbox
from smartpos.webhooks import EventState, SQLiteStore, WebhookReceiver, parse_envelope

MASKED = "529.***.***-25"


@pytest.fixture
def env(served: tuple[Sandbox, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The command pointed at the served sandbox, run from an empty directory."""
    _, base_url = served
    monkeypatch.setenv("SMARTPOS_BASE_URL", base_url)
    monkeypatch.setenv("SMARTPOS_API_KEY", Sandbox.API_KEY)
    monkeypatch.delenv("SMARTPOS_INBOX", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def approved_event(served: tuple[Sandbox, str]) -> dict[str, Any]:
    """Charge the sandbox's terminal and return the ``pagamento.aprovado`` it sent."""
    sandbox, base_url = served
    with smartpos.Client(api_key=Sandbox.API_KEY, base_url=base_url) as client:
        acceptance = client.payments.create(
            documento_cliente=Sandbox.DOCUMENTO,
            valor_centavos=2500,
            smartpos_id=Sandbox.SMARTPOS_ID,
        )
    [event] = [e for e in sandbox.events if e["dados"]["referencia"] == acceptance.referencia]
    return event


def store_event(path: Path, envelope: dict[str, Any]) -> None:
    """Put an envelope in an SQLite inbox file, as a receiver would."""
    with SQLiteStore(path) as store:
        store.put(parse_envelope(envelope))


@pytest.fixture
def receiver(tmp_path: Path) -> Iterator[tuple[str, SQLiteStore, queue.Queue[Delivery]]]:
    """A webhook receiver on 127.0.0.1 with its inbox and the deliveries it answered."""
    deliveries: queue.Queue[Delivery] = queue.Queue()
    with (
        SQLiteStore(tmp_path / "received.sqlite3") as store,
        serve_receiver(WebhookReceiver(store), "127.0.0.1", 0, deliveries.put) as url,
    ):
        yield url, store, deliveries


def test_events_list_json_masks_the_document(env: Path) -> None:
    """``events list --json`` prints every envelope with documentoCliente masked."""
    event_ids = ["11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"]
    for event_id in event_ids:
        store_event(env / "smartpos-inbox.db", sample("pagamento.aprovado", event_id))
    result = invoke("events", "list", "--json")
    assert result.returncode == 0, result
    records = json.loads(result.stdout)
    assert [r["id"] for r in records] == event_ids
    assert [r["raw"]["dados"]["documentoCliente"] for r in records] == [MASKED, MASKED]
    assert Sandbox.DOCUMENTO not in result.stdout
    assert {r["store"] for r in records} == {str((env / "smartpos-inbox.db").resolve())}


def test_trigger_json_masks_the_document_it_sent(
    env: Path, receiver: tuple[str, SQLiteStore, queue.Queue[Delivery]]
) -> None:
    """``trigger --json`` sends the real document but prints it masked."""
    url, store, deliveries = receiver
    result = invoke("trigger", "pagamento.aprovado", "--to", url, "--json")
    assert result.returncode == 0, result
    printed = json.loads(result.stdout)
    assert printed["event"]["dados"]["documentoCliente"] == MASKED
    assert Sandbox.DOCUMENTO not in result.stdout
    deliveries.get(timeout=10)
    stored = store.get(printed["id"])
    assert stored is not None
    assert stored.raw["dados"]["documentoCliente"] == Sandbox.DOCUMENTO
    assert mask_documents(dict(stored.raw)) == printed["event"]


def test_mask_documents_masks_at_any_depth() -> None:
    """Every documentoCliente is masked, in lists and nested dicts; other values are kept."""
    data = {
        "documentoCliente": "12345678000195",
        "items": [{"dados": {"documentoCliente": "529.982.247-25", "valor": 1}}],
        "other": "52998224725",
    }
    assert mask_documents(data) == {
        "documentoCliente": "12.***.***/****-95",
        "items": [{"dados": {"documentoCliente": MASKED, "valor": 1}}],
        "other": "52998224725",
    }


def test_the_documented_pipe_refunds_from_the_inbox(
    env: Path, served: tuple[Sandbox, str], tmp_path: Path
) -> None:
    """``events show ID --json | refund --event -`` refunds the payment, even from elsewhere."""
    sandbox, _ = served
    event = approved_event(served)
    inbox = tmp_path / "elsewhere" / "inbox.sqlite3"
    inbox.parent.mkdir()
    store_event(inbox, event)
    shown = invoke("events", "show", event["id"], "--store", str(inbox), "--json")
    assert shown.returncode == 0, shown
    assert Sandbox.DOCUMENTO not in shown.stdout
    refunded = invoke("refund", "--event", "-", "--json", stdin=shown.stdout_bytes)
    assert refunded.returncode == 0, refunded
    referencia = json.loads(refunded.stdout)["referencia"]
    [refund] = [r for r in sandbox.refunds if r.referencia == referencia]
    assert refund.valor_centavos == 2500
    assert refund.documento_cliente == Sandbox.DOCUMENTO
    with SQLiteStore(inbox) as store:  # read, not changed
        record = store.get(event["id"])
    assert record is not None
    assert record.state is EventState.PENDING


def test_a_record_from_events_list_refunds_too(env: Path, served: tuple[Sandbox, str]) -> None:
    """One record of ``events list --json`` (as ``jq '.[0]'`` gives it) is accepted as well."""
    event = approved_event(served)
    store_event(env / "smartpos-inbox.db", event)
    listed = invoke("events", "list", "--json")
    [record] = json.loads(listed.stdout)
    result = invoke("refund", "--event", "-", stdin=json.dumps(record).encode())
    assert result.returncode == 0, result
    assert result.stdout.startswith("refund requested: processando")


def test_a_masked_envelope_is_refused_with_the_way_out(
    env: Path, served: tuple[Sandbox, str]
) -> None:
    """A masked envelope (``trigger --json``'s event) cannot be refunded: exit 1, nothing sent."""
    sandbox, _ = served
    before = len(sandbox.requests)
    masked = mask_documents(approved_event(served))
    result = invoke("refund", "--event", "-", stdin=json.dumps(masked).encode())
    assert result.returncode == 1
    assert "masked" in result.stderr
    assert "smartpos events show ID --json" in result.stderr
    assert len(sandbox.requests) == before + 1  # the payment approved_event made, no refund


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda r: r.pop("store"), "without the inbox it came from"),
        (lambda r: r.update(id="33333333-3333-4333-8333-333333333333"), "no event"),
        (lambda r: r["raw"]["dados"].update(valorCentavos=1), "differs"),
        (lambda r: r.update(store="/nonexistent/inbox.db"), "no inbox at"),
    ],
    ids=["no store", "unknown id", "edited", "missing inbox"],
)
def test_a_record_that_does_not_match_its_inbox_is_refused(
    env: Path, served: tuple[Sandbox, str], change: Any, expected: str
) -> None:
    """A record whose inbox, id or content does not match is exit 1, and nothing is sent."""
    sandbox, _ = served
    event = approved_event(served)
    store_event(env / "smartpos-inbox.db", event)
    record = json.loads(invoke("events", "show", event["id"], "--json").stdout)
    change(record)
    before = len(sandbox.requests)
    result = invoke("refund", "--event", "-", stdin=json.dumps(record).encode())
    assert result.returncode == 1, result
    assert expected in result.stderr
    assert len(sandbox.requests) == before
