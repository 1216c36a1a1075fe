"""``smartpos operations``: list, reconcile and wait for journaled operations, in process."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import invoke

import smartpos
from smartpos import SmartposNaoEncontradoError
from smartpos.testing import DropConnection, InternalError, Sandbox
from smartpos.webhooks import SQLiteStore, StoreBase, WebhookReceiver

PAYMENT = {
    "documento_cliente": Sandbox.DOCUMENTO,
    "valor_centavos": 1990,
    "smartpos_id": Sandbox.SMARTPOS_ID,
}


class World:
    """A served sandbox delivering into an SQLite inbox, and a client journaling into it."""

    def __init__(self, sandbox: Sandbox, base_url: str, path: Path, store: StoreBase) -> None:
        self.sandbox = sandbox
        self.base_url = base_url
        self.path = path
        self.store = store
        self.client = smartpos.Client(
            api_key=Sandbox.API_KEY, base_url=base_url, store=store, retry_backoff=0
        )

    def unknown_payment(self) -> str:
        """A payment whose every answer was lost after the sandbox took it."""
        self.sandbox.fail_next("payments", DropConnection(), times=3)
        with pytest.raises(smartpos.OutcomeUnknownError) as caught:
            self.client.payments.create(**PAYMENT)
        return caught.value.referencia

    def charges(self, referencia: str) -> int:
        return sum(1 for p in self.sandbox.payments if p.referencia == referencia)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    """The world, with the environment of the command pointing at it."""
    path = tmp_path / "inbox.sqlite3"
    with Sandbox() as sandbox, sandbox.serve() as base_url, SQLiteStore(path) as store:
        sandbox.set_webhook(WebhookReceiver(store))
        sandbox.hold_events()
        monkeypatch.setenv("SMARTPOS_API_KEY", Sandbox.API_KEY)
        monkeypatch.setenv("SMARTPOS_BASE_URL", base_url)
        monkeypatch.delenv("SMARTPOS_INBOX", raising=False)
        world = World(sandbox, base_url, path, store)
        yield world
        world.client.close()


def test_the_whole_recipe_after_a_lost_answer(world: World) -> None:
    """List it, reconcile it (charged once), wait for it: exit 0 each time."""
    referencia = world.unknown_payment()
    store = str(world.path)

    listed = invoke("operations", "--store", store)
    reconciled = invoke("operations", "reconcile", referencia, "--store", store)
    world.sandbox.release_events()
    waited = invoke("operations", "wait", referencia, "--store", store, "--timeout", "5")
    after = invoke("operations", "--store", store)

    assert (0, 0, 0, 0) == (
        listed.returncode,
        reconciled.returncode,
        waited.returncode,
        after.returncode,
    ), (listed, reconciled, waited, after)
    assert referencia in listed.stdout
    assert "unknown" in listed.stdout
    assert "operations reconcile" in listed.stdout
    assert "accepted" in reconciled.stdout
    assert 1 == world.charges(referencia)
    assert "pagamento.aprovado" in waited.stdout
    assert f"no operation waiting in {store}" in after.stdout


def test_json_lists_operations_without_the_request_or_the_document(world: World) -> None:
    """--json: one record per operation; the request body and the CPF never appear."""
    referencia = world.unknown_payment()

    listed = invoke("operations", "--json", "--store", str(world.path))

    assert 0 == listed.returncode, listed
    [record] = json.loads(listed.stdout)
    assert (referencia, "payment", "unknown", True, None, []) == (
        record["referencia"],
        record["kind"],
        record["state"],
        record["waiting"],
        record["event"],
        record["anomalies"],
    )
    assert Sandbox.DOCUMENTO not in listed.stdout


def test_all_lists_ended_operations_with_their_event(world: World) -> None:
    """--all shows final operations too, with the event that ended them."""
    world.sandbox.release_events()
    event = world.client.payments.create_and_wait(**PAYMENT, timeout=5)

    waiting = invoke("operations", "list", "--json", "--store", str(world.path))
    every = invoke("operations", "--all", "--json", "--store", str(world.path))

    assert [] == json.loads(waiting.stdout)
    [record] = json.loads(every.stdout)
    assert ("final", {"id": event.id, "tipo": "pagamento.aprovado"}) == (
        record["state"],
        record["event"],
    )


def test_wait_without_an_event_in_time_exits_3(world: World) -> None:
    """The event is still held: pending, exit 3, and the advice never to use a new referencia."""
    referencia = world.unknown_payment()

    store = str(world.path)
    waited = invoke("operations", "wait", referencia, "--timeout", "0.3", "--store", store)

    assert 3 == waited.returncode, waited
    assert "pending" in waited.stderr
    assert "do NOT retry with a new referencia" in waited.stderr


def test_wait_on_a_rejected_operation_says_so_at_once(world: World) -> None:
    """A refused payment: no wait for its timeout; it says rejected, nothing charged, exit 1."""
    referencia = smartpos.new_referencia()
    with pytest.raises(SmartposNaoEncontradoError):
        world.client.payments.create(**PAYMENT | {"smartpos_id": "SP-NO"}, referencia=referencia)

    store = str(world.path)
    waited = invoke("operations", "wait", referencia, "--timeout", "30", "--store", store)

    assert 1 == waited.returncode, waited
    assert "rejected" in waited.stderr
    assert "nothing was charged" in waited.stderr


def test_wait_json_masks_the_document(world: World) -> None:
    """--json prints the event with documentoCliente masked, and the operation."""
    world.sandbox.release_events()
    acceptance = world.client.payments.create(**PAYMENT)

    waited = invoke(
        "operations", "--store", str(world.path), "wait", acceptance.referencia, "--json"
    )

    assert 0 == waited.returncode, waited
    data = json.loads(waited.stdout)
    assert ("pagamento.aprovado", "final") == (data["event"]["tipo"], data["operation"]["state"])
    assert Sandbox.DOCUMENTO not in waited.stdout


def test_reconcile_that_gets_no_answer_either_exits_3(world: World) -> None:
    """Every resend fails too: still unknown, exit 3, nothing charged."""
    world.sandbox.fail_next("payments", InternalError(), times=3)
    with pytest.raises(smartpos.OutcomeUnknownError) as caught:
        world.client.payments.create(**PAYMENT)
    referencia = caught.value.referencia
    world.sandbox.fail_next("payments", InternalError(), times=3)

    reconciled = invoke("operations", "reconcile", referencia, "--store", str(world.path))

    assert 3 == reconciled.returncode, reconciled
    assert referencia in reconciled.stderr
    assert 0 == world.charges(referencia)


def test_reconcile_of_a_rejected_operation_exits_1_without_sending(world: World) -> None:
    """Surely not accepted: shown as rejected, nothing sent, exit 1."""
    with pytest.raises(SmartposNaoEncontradoError):
        world.client.payments.create(**{**PAYMENT, "smartpos_id": "SP-NOPE"})
    [operation] = world.store.operations(final=True)
    before = len(world.sandbox.requests)

    reconciled = invoke(
        "operations", "reconcile", operation.referencia, "--json", "--store", str(world.path)
    )

    assert 1 == reconciled.returncode, reconciled
    assert "rejected" == json.loads(reconciled.stdout)["state"]
    assert before == len(world.sandbox.requests)


def test_reconcile_of_an_unknown_referencia_exits_1(world: World) -> None:
    """Not journaled: a message naming the referencia and how to list them; nothing sent."""
    referencia = smartpos.new_referencia()

    reconciled = invoke("operations", "reconcile", referencia, "--store", str(world.path))

    assert 1 == reconciled.returncode, reconciled
    assert f"no operation {referencia}" in reconciled.stderr
    assert [] == world.sandbox.requests


def test_a_file_that_is_not_an_inbox_is_refused_and_left_alone(tmp_path: Path) -> None:
    """A wrong --store path is never turned into an inbox."""
    other = tmp_path / "notes.txt"
    other.write_text("not a database", encoding="utf-8")

    listed = invoke("operations", "--store", str(other))
    missing = invoke("operations", "--store", str(tmp_path / "nope.db"))

    assert (1, 1) == (listed.returncode, missing.returncode)
    assert "not a database" == other.read_text(encoding="utf-8")
    assert not (tmp_path / "nope.db").exists()


def test_the_default_store_is_smartpos_inbox(
    world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --store: SMARTPOS_INBOX, as `smartpos events` reads it."""
    referencia = world.unknown_payment()
    monkeypatch.setenv("SMARTPOS_INBOX", str(world.path))

    listed = invoke("operations", "--json")

    assert [referencia] == [r["referencia"] for r in json.loads(listed.stdout)]


# --- stores named by URL -------------------------------------------------------------------


@pytest.fixture(
    params=[
        pytest.param("redis", marks=[pytest.mark.redis, pytest.mark.slow]),
        pytest.param("postgres", marks=[pytest.mark.postgres, pytest.mark.slow]),
    ]
)
def url_store(request: pytest.FixtureRequest) -> Iterator[tuple[str, str, StoreBase]]:
    """A Redis or PostgreSQL store: its URL, its namespace, and this process's handle."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "webhooks"))
    import servers

    name = f"c{uuid.uuid4().hex[:12]}"
    store: Any
    if request.param == "redis":
        from smartpos.webhooks import RedisStore

        server = servers.RedisServer(appendonly=True)
        url_of = "url"
    else:
        from smartpos.webhooks import PostgresStore

        server = servers.PostgresServer()
        url_of = "dsn"
    try:
        server.start()
    except servers.ServerUnavailable as exc:
        servers.require_server(request.param, exc)
    try:
        if request.param == "redis":
            url = server.url
            store = RedisStore(url, prefix=name, check_settings=False)
        else:
            url = f"postgresql://postgres@127.0.0.1:{server.port}/postgres"
            store = PostgresStore(getattr(server, url_of), table=name)
            store.migrate()
        yield url, name, store
        store.close()
    finally:
        server.stop()


def test_a_store_named_by_url(url_store: tuple[str, str, StoreBase]) -> None:
    """redis:// and postgresql:// URLs, with --namespace naming the prefix or the table."""
    url, name, store = url_store
    referencia = smartpos.new_referencia()
    store._begin_operation(
        referencia, kind="payment", method="POST", path="/v1/payments", body=b"{}"
    )

    listed = invoke("operations", "--json", "--store", url, "--namespace", name)

    assert 0 == listed.returncode, listed
    assert [(referencia, "sending")] == [
        (r["referencia"], r["state"]) for r in json.loads(listed.stdout)
    ]


def test_all_in_text_shows_the_event_and_the_anomalies(world: World) -> None:
    """--all as text: each operation with its final event, and each anomaly with its reason."""
    world.sandbox.release_events()
    event = world.client.payments.create_and_wait(**PAYMENT, timeout=5)
    forged = {
        "id": str(uuid.uuid4()),
        "tipo": "pagamento.recusado",
        "criadoEm": "2026-05-01T12:00:00-03:00",
        "dados": {
            "referencia": event.dados.referencia,
            "documentoCliente": Sandbox.DOCUMENTO,
            "status": "recusado",
            "valorCentavos": 1,
        },
    }
    WebhookReceiver(world.store).receive(json.dumps(forged).encode())

    listed = invoke("operations", "--all", "--store", str(world.path))

    assert 0 == listed.returncode, listed
    assert f"final     payment    {event.dados.referencia}" in listed.stdout
    assert "pagamento.aprovado" in listed.stdout
    assert f"anomaly disagreement: pagamento.recusado {forged['id']}" in listed.stdout
    assert f"1 operation(s) in {world.path}" in listed.stdout


def test_wait_refuses_an_empty_referencia(world: World) -> None:
    """An empty REFERENCIA is an error, exit 1, before anything is read."""
    waited = invoke("operations", "wait", "", "--store", str(world.path))

    assert 1 == waited.returncode, waited
    assert "REFERENCIA cannot be empty" in waited.stderr
