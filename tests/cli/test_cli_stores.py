"""``--store`` takes every store URL: ``events``, ``operations`` and ``sales`` on every store.

Redis and PostgreSQL are real servers, started by the helpers of ``tests/webhooks/servers.py``;
each test has its own key prefix or table (``--namespace``).
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import datetime as dt
import json
import re
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_helpers import Starter, invoke, run_cli

# The real servers' helpers live with the store tests; they are shared, not copied.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "webhooks"))

from servers import postgres_server, redis_server

import smartpos
from smartpos.cli._samples import new_event_id, sample
from smartpos.cli._store import store_name
from smartpos.testing import DropConnection, Sandbox
from smartpos.webhooks import EventState, StoreBase, open_store, parse_event

__all__ = ["postgres_server", "redis_server"]

#: An ISO 8601 time to the second with its UTC offset, as the command prints times.
ZONED = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[+-]\d\d:\d\d|Z)")

KINDS = [
    "sqlite",
    pytest.param("redis", marks=[pytest.mark.redis, pytest.mark.slow]),
    pytest.param("postgres", marks=[pytest.mark.postgres, pytest.mark.slow]),
]


class Place:
    """A store URL and namespace of one kind, with the ``--store`` arguments naming it."""

    def __init__(self, url: str, namespace: str | None) -> None:
        self.url = url
        self.namespace = namespace

    @property
    def args(self) -> list[str]:
        extra = ["--namespace", self.namespace] if self.namespace else []
        return ["--store", self.url, *extra]

    def open(self) -> StoreBase:
        scheme = self.url.split(":", 1)[0]
        key = "table" if scheme.startswith("postgres") else "prefix"
        options = {key: self.namespace} if self.namespace else {}
        store = open_store(self.url, options)
        assert isinstance(store, StoreBase)
        return store


@pytest.fixture(params=KINDS)
def place(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Place]:
    """An empty store of this run's kind (an SQLite file, a Redis prefix, a PostgreSQL table)."""
    name = f"c{uuid.uuid4().hex[:12]}"
    if request.param == "sqlite":
        yield Place(f"sqlite:///{tmp_path}/inbox.sqlite3", None)
        return
    if request.param == "redis":
        yield Place(str(request.getfixturevalue("redis_server").url), name)
        return
    port = request.getfixturevalue("postgres_server").port
    found = Place(f"postgresql://postgres@127.0.0.1:{port}/postgres", name)
    with found.open() as store:
        store.migrate()  # type: ignore[attr-defined]
    yield found


@pytest.fixture
def filled(place: Place) -> tuple[Place, dict[str, str]]:
    """The store with one done, one dead and one pending event; their ids by state."""
    ids = {
        "done": new_event_id(1_800_000_000),
        "dead": new_event_id(1_800_000_001),
        "pending": new_event_id(1_800_000_002),
    }
    tipos = {
        "done": "pagamento.aprovado",
        "dead": "impressao.falhou",
        "pending": "smartpos.identificado",
    }
    with place.open() as store:
        for state, event_id in ids.items():
            store.put(parse_event(sample(tipos[state], event_id)))
        done, dead = store.claim(owner="test", lease=30, limit=2)
        assert store.ack(done)
        assert store.dead_letter(dead, error="RuntimeError: printer offline")
    return place, ids


def test_events_list_reads_every_store_and_prints_zoned_times(
    filled: tuple[Place, dict[str, str]],
) -> None:
    """``events list`` lists the events of any store, each time with its UTC offset."""
    place, ids = filled

    result = invoke("events", "list", *place.args)
    lines = [line for line in result.stdout.splitlines() if line[:1].isalpha()]

    assert 0 == result.returncode, result.stderr
    assert ["done", "dead", "pending"] == [line.split()[0] for line in lines[:3]]
    assert [ids["done"], ids["dead"], ids["pending"]] == [line.split()[3] for line in lines[:3]]
    assert all(ZONED.fullmatch(line.split()[1]) for line in lines[:3])


def test_events_show_and_requeue_on_every_store(filled: tuple[Place, dict[str, str]]) -> None:
    """``events show --json`` names its store; ``requeue`` makes the dead event pending."""
    place, ids = filled

    shown = invoke("events", "show", ids["dead"], "--json", *place.args)
    requeued = invoke("events", "requeue", ids["dead"], *place.args)
    record = json.loads(shown.stdout)
    with place.open() as store:
        after = store.get(ids["dead"])

    assert (0, 0) == (shown.returncode, requeued.returncode)
    assert ("dead", "impressao.falhou") == (record["state"], record["tipo"])
    assert store_name(place.url) == record["store"]
    assert dt.datetime.fromisoformat(record["received_at"]).tzinfo is not None
    assert after is not None
    assert EventState.PENDING == after.state


def test_operations_lists_and_reconciles_on_every_store(place: Place) -> None:
    """An operation whose answer was lost is listed and reconciled through the store's URL."""
    with (
        Sandbox() as sandbox,
        sandbox.serve() as base_url,
        place.open() as store,
        smartpos.Client(
            api_key=Sandbox.API_KEY, base_url=base_url, store=store, retry_backoff=0
        ) as client,
    ):
        sandbox.fail_next("payments", DropConnection(), times=3)
        with pytest.raises(smartpos.OutcomeUnknownError) as caught:
            client.payments.create(
                documento_cliente=Sandbox.DOCUMENTO,
                valor_centavos=1990,
                smartpos_id=Sandbox.SMARTPOS_ID,
            )
        referencia = caught.value.referencia
        service = ["--api-key", Sandbox.API_KEY, "--base-url", base_url]

        listed = invoke("operations", "--json", *place.args)
        text = invoke("operations", *place.args)
        reconciled = invoke("operations", "reconcile", referencia, *place.args, *service)
        charges = sum(1 for p in sandbox.payments if p.referencia == referencia)

    assert (0, 0, 0) == (listed.returncode, text.returncode, reconciled.returncode)
    assert [(referencia, "unknown")] == [
        (o["referencia"], o["state"]) for o in json.loads(listed.stdout)
    ]
    assert ZONED.search(text.stdout)
    assert "accepted" in reconciled.stdout
    assert 1 == charges


def test_sales_lists_shows_abandons_and_reports_on_every_store(place: Place) -> None:
    """A sale journaled in any store: listed, shown, its open attempt abandoned (nothing
    sent) and counted in the day's till close, through the store's URL."""
    from smartpos.testing import Hold

    with (
        Sandbox() as sandbox,
        sandbox.serve() as base_url,
        place.open() as store,
        smartpos.Client(api_key=Sandbox.API_KEY, base_url=base_url, store=store) as client,
    ):
        sandbox.script_payments(Hold())
        referencia = client.payments.create(
            documento_cliente=Sandbox.DOCUMENTO,
            valor_centavos=1990,
            smartpos_id=Sandbox.SMARTPOS_ID,
            sale="mesa-12",
        ).referencia

        listed = invoke("sales", "--json", *place.args)
        shown = invoke("sales", "show", "mesa-12", *place.args)
        given_up = invoke("sales", "abandon", "mesa-12", "--motivo", "dinheiro", *place.args)
        report = invoke("sales", "report", "--json", *place.args)
        after = store.sale("mesa-12")

    assert (0, 0, 0, 0) == (
        listed.returncode,
        shown.returncode,
        given_up.returncode,
        report.returncode,
    ), (listed, shown, given_up, report)
    assert [("mesa-12", "in_progress")] == [
        (s["sale_id"], s["state"]) for s in json.loads(listed.stdout)
    ]
    assert referencia in shown.stdout
    assert ZONED.search(shown.stdout)
    assert f"abandoned referencia {referencia}" in given_up.stdout
    assert after is not None
    assert "open" == after.state
    assert (1, store_name(place.url)) == (
        json.loads(report.stdout)["sales"]["count"],
        json.loads(report.stdout)["store"],
    )
    assert 1 == len(sandbox.payments)


def test_a_memory_store_is_refused_with_exit_2() -> None:
    """``memory:`` is one process's store: a command would see an empty inbox, so exit 2."""
    result = invoke("events", "list", "--store", "memory:")

    assert 2 == result.returncode
    assert "memory store" in result.stderr


def test_an_unknown_scheme_exits_2_without_the_password() -> None:
    """An unknown URL scheme is a usage error naming the schemes, never the password."""
    result = invoke("events", "list", "--store", "mongodb://u:s3cret@host/db")

    assert 2 == result.returncode
    assert "redis://" in result.stderr
    assert "s3cret" not in result.stderr + result.stdout


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("redis://u:pw@h:6379/0", "redis://u:***@h:6379/0"),
        ("redis://:pw@h:6379/0", "redis://:***@h:6379/0"),
        ("postgresql://app@db/shop", "postgresql://app@db/shop"),
        ("redis://h:6379/0", "redis://h:6379/0"),
    ],
)
def test_store_names_never_hold_a_password(spec: str, expected: str) -> None:
    """A URL is named without its password; its user stays, so the name opens it again."""
    assert expected == store_name(spec)


def test_an_sqlite_store_is_named_by_its_absolute_path(tmp_path: Path) -> None:
    """A path and an sqlite:/// URL of the same file have the same name."""
    file = tmp_path / "inbox.sqlite3"

    assert [str(file.resolve())] * 2 == [store_name(str(file)), store_name(f"sqlite:///{file}")]


def test_the_store_messages_speak_portuguese_under_smartpos_lang(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With SMARTPOS_LANG=pt_BR the --store refusal and its hint are in Portuguese."""
    from smartpos import _messages

    monkeypatch.setenv("SMARTPOS_LANG", "pt_BR")
    _messages.reset()
    try:
        result = invoke("events", "list", "--store", "memory:")
    finally:
        monkeypatch.delenv("SMARTPOS_LANG")
        _messages.reset()

    assert 2 == result.returncode
    assert "um store em memória vive num só processo" in result.stderr
    assert "em que o seu receptor grava" in result.stderr


def test_a_record_of_any_store_is_read_back_by_refund_event(
    filled: tuple[Place, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``events show --json | refund --event -`` reads the envelope back from the record's
    store and namespace (the printed document is masked): the refund sent carries the real
    document (the sample's payment is unknown to this sandbox, which answers 404)."""
    place, ids = filled
    shown = invoke("events", "show", ids["done"], "--json", *place.args)
    record = json.loads(shown.stdout)
    with Sandbox() as sandbox, sandbox.serve() as base_url:
        monkeypatch.setenv("SMARTPOS_API_KEY", Sandbox.API_KEY)
        monkeypatch.setenv("SMARTPOS_BASE_URL", base_url)
        refunded = invoke("refund", "--event", "-", "--json", stdin=shown.stdout.encode())
        sent = [r.json for r in sandbox.requests if r.path == "/v1/refunds"]

    assert place.namespace == record["namespace"]
    assert "529.***.***-25" == record["raw"]["dados"]["documentoCliente"]
    assert "PAGAMENTO_ORIGINAL_NAO_ENCONTRADO" == json.loads(refunded.stderr)["error"]["codigo"]
    assert ["52998224725"] == [body["documentoCliente"] for body in sent]  # type: ignore[index]


@pytest.mark.redis
@pytest.mark.slow
def test_listen_stores_deliveries_in_a_redis_store(
    request: pytest.FixtureRequest, background: Starter
) -> None:
    """``smartpos listen --store redis://... --namespace`` stores each delivery there, pending
    for the worker, and names the store without a password."""
    url = str(request.getfixturevalue("redis_server").url)
    place = Place(url, f"l{uuid.uuid4().hex[:12]}")
    proc = background("listen", "--port", "0", "--json", *place.args)
    ready = json.loads(proc.wait_for(r'^\{"listening"').string)
    sent = run_cli(
        "trigger", "pagamento.aprovado", "--to", ready["listening"], "--json", "--no-sandbox"
    )
    event_id = json.loads(sent.stdout)["id"]
    proc.wait_for(re.escape(event_id))
    assert 0 == proc.stop()
    with place.open() as store:
        stored = store.get(event_id)

    assert store_name(url) == ready["store"]
    assert stored is not None
    assert EventState.PENDING == stored.state
