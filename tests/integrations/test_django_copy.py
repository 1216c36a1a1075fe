"""``manage.py smartpos_copy``: a real SQLiteStore and a real PostgresStore copied into a
DjangoStore on SQLite and on PostgreSQL, every row checked through the destination store's
API; run twice it copies nothing twice; ``--dry-run`` writes nothing."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import io
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("django")

from django_stores import (
    add_database,
    drop_database,
)
from journal_contract import begin_payment
from sales_contract import approve, attempt, refs
from store_contract import make_event

from smartpos.webhooks import EventState, SQLiteStore
from smartpos.webhooks._store import StoreBase

R1, R2, R3, R4 = refs(4, prefix="c0py")
LEASE_END = 4_000_000_000.0  # the claimed event's lease: far ahead of any clock here


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def destination(request: pytest.FixtureRequest) -> Iterator[str]:
    """A migrated, empty DjangoStore database: its alias."""
    alias, config = request.getfixturevalue(f"{request.param}_databases")()
    add_database(alias, config)
    yield alias
    drop_database(alias)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def source_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of a real, migrated source store (an SQLite file, a PostgreSQL database)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
        return
    pytest.importorskip("psycopg_pool")
    import psycopg

    from smartpos.webhooks import PostgresStore

    server = request.getfixturevalue("postgres_server")
    name = f"src_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server.dsn, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        url = f"postgresql://postgres@127.0.0.1:{server.port}/{name}"
        with PostgresStore(url) as store:
            store.migrate()
        yield url
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _open(url: str) -> StoreBase:
    from smartpos.webhooks._open import open_store

    store = open_store(url)
    assert isinstance(store, StoreBase)
    return store


def fill(store: StoreBase) -> None:
    """Events in every state, plain operations, and sales: paid, and one with an abandoned
    attempt whose approval came late (a pendência: the attention index must follow)."""
    store.put(make_event("ev-claimed"))
    assert ["ev-claimed"] == [c.event_id for c in store.claim(owner="busy-worker", lease=3600)]
    for event_id in ("ev-pending", "ev-retried", "ev-done", "ev-dead"):
        store.put(make_event(event_id))
    claims = {c.event_id: c for c in store.claim(owner="old-worker", lease=60, limit=4)}
    store.nack(claims["ev-retried"], error="RuntimeError: fiscal service down", retry_in=0)
    store.ack(claims["ev-done"])
    store.dead_letter(claims["ev-dead"], error="ValueError: bad dados")
    store.release(claims["ev-pending"])

    begin_payment(store, R1)
    store._record_operation(R1, "accepted")
    attempt(store, R2, "mesa-1", valor=1000, total=1000)
    approve(store, R2)
    attempt(store, R3, "mesa-2", valor=500, total=2000, smartpos_id="SP-9")
    store._abandon("mesa-2", motivo="trocou de cartão", operador="ana")
    approve(store, R3, valor=500)
    attempt(store, R4, "mesa-2", valor=2000, smartpos_id="SP-9")
    approve(store, R4, valor=2000)  # paid: only the late approval keeps it in the review


def _events(store: StoreBase) -> dict[str, Any]:
    return {
        e.id: (
            e.tipo,
            e.criado_em,
            dict(e.raw),
            e.body_hash,
            e.state,
            e.attempts,
            e.received_at,
            e.owner if e.state == EventState.CLAIMED else None,
            e.lease_expires_at if e.state == EventState.CLAIMED else None,
            e.last_error,
            e.done_at,
        )
        for e in store.list(limit=1000)
    }


def _operations(store: StoreBase) -> dict[str, Any]:
    return {
        op.referencia: (
            op.kind,
            op.state,
            op.method,
            op.path,
            op.body,
            op.created_at,
            op.updated_at,
            None if op.event is None else op.event.id,
            op.answer,
            op.sale,
            op.abandoned,
        )
        for op in store.operations(final=True, limit=1000)
    }


def _sales(store: StoreBase) -> dict[str, Any]:
    return {
        sale.sale_id: (
            sale.state,
            sale.total_centavos,
            sale.approved_centavos,
            [a.referencia for a in sale.attempts],
            [(p.reason, p.referencia) for p in sale.pendencias],
            sale.created_at,
        )
        for sale in store.sales(limit=1000)
    }


def _copy(url: str, alias: str, *extra: str) -> str:
    from django.core.management import call_command

    out = io.StringIO()
    call_command("smartpos_copy", "--from", url, "--to", f"django://{alias}", *extra, stdout=out)
    return out.getvalue()


def test_copy_keeps_every_row_and_state_and_runs_again_copying_nothing(
    source_url: str, destination: str
) -> None:
    """Every event (state, attempts, errors, times, the claim's owner and lease), operation
    and sale reads the same through the destination's API; the second run copies nothing."""
    from smartpos.integrations.django import DjangoStore

    with _open(source_url) as source:
        fill(source)
        want = (_events(source), _operations(source), _sales(source))
        attention = [s.sale_id for s in source.sales(attention=True)]
    dry = _copy(source_url, destination, "--dry-run")
    with DjangoStore(destination) as store:
        untouched = (store.list(limit=10), store.operations(final=True), store.sales())

    first = _copy(source_url, destination)
    second = _copy(source_url, destination)

    with DjangoStore(destination) as store:
        got = (_events(store), _operations(store), _sales(store))
        got_attention = [s.sale_id for s in store.sales(attention=True)]
    assert ([], [], []) == untouched
    assert "events: would copy 8 (1 claimed, 1 dead, 1 done, 5 pending)" in dry
    assert "events: copied 8 (1 claimed, 1 dead, 1 done, 5 pending), 0 already there" in first
    assert "operations: copied 4, 0 already there" in first
    assert "sales: copied 2, 0 already there" in first
    assert "events: copied 0, 8 already there" in second
    assert "operations: copied 0, 4 already there" in second
    assert "sales: copied 0, 2 already there" in second
    assert want[0] == got[0]
    assert want[1] == got[1]
    assert want[2] == got[2]
    assert ["mesa-2"] == attention == got_attention


def test_a_copied_claim_is_nobody_s_until_its_lease_ends(
    sqlite_databases: Any, tmp_path: Path
) -> None:
    """The old worker's token means nothing in the destination; once the lease it held runs
    out, another worker claims the event, as after a crash. A pending event is claimable
    at once, a dead one is requeued."""
    from smartpos.integrations.django import DjangoStore

    alias, config = sqlite_databases()
    add_database(alias, config)
    url = f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    with SQLiteStore(tmp_path / "inbox.sqlite3") as source:
        source.put(make_event("ev-claimed"))
        (old,) = source.claim(owner="old", lease=30)
        source.put(make_event("ev-dead"))
        (dying,) = source.claim(owner="old", lease=30)
        source.dead_letter(dying, error="boom")
        lease_end = old.lease_expires_at.timestamp()
    try:
        _copy(url, alias)
        now = [lease_end - 1]
        store = DjangoStore(alias, clock=lambda: now[0])
        refused = store.ack(old)
        early = store.claim(owner="new", lease=30)
        now[0] = lease_end + 1
        later = store.claim(owner="new", lease=30)
        requeued = store.requeue("ev-dead")
    finally:
        drop_database(alias)

    assert refused is False
    assert [] == early
    assert ["ev-claimed"] == [c.event_id for c in later]
    assert 2 == later[0].attempts
    assert requeued is True


def test_copy_refuses_bad_destinations_and_reports_differing_events(
    sqlite_databases: Any, tmp_path: Path
) -> None:
    """--to must be django://ALIAS of DATABASES and migrated (E008's words, the command to
    run); --from the same database is refused; an event already there with another body is
    named on stderr and kept as it is."""
    from django.core.management import CommandError, call_command

    from smartpos.integrations.django import DjangoStore

    alias, config = sqlite_databases()
    add_database(alias, config)
    bare = f"bare_{uuid.uuid4().hex[:8]}"
    add_database(bare, {"ENGINE": "django.db.backends.sqlite3", "NAME": str(tmp_path / "b.db")})
    url = f"sqlite:///{tmp_path / 'inbox.sqlite3'}"
    with SQLiteStore(tmp_path / "inbox.sqlite3") as source:
        source.put(make_event("ev-1", valor=1000))
    try:
        DjangoStore(alias).put(make_event("ev-1", valor=2000))
        errors = []
        for to in ("sqlite:///x.db", "django://nowhere", f"django://{bare}"):
            with pytest.raises(CommandError) as refused:
                call_command("smartpos_copy", "--from", url, "--to", to, stdout=io.StringIO())
            errors.append(str(refused.value))
        with pytest.raises(CommandError) as itself:
            call_command(
                "smartpos_copy", "--from", f"django://{alias}", "--to", f"django://{alias}"
            )
        err = io.StringIO()
        call_command(
            "smartpos_copy",
            "--from",
            url,
            "--to",
            f"django://{alias}",
            stdout=io.StringIO(),
            stderr=err,
        )
        kept = DjangoStore(alias).get("ev-1")
    finally:
        drop_database(alias)
        drop_database(bare)

    assert "django://ALIAS" in errors[0]
    assert "'nowhere'" in errors[1]
    assert "0001_initial" in errors[2]
    assert f"python manage.py migrate smartpos --database {bare}" in errors[2]
    assert "same database" in str(itself.value)
    assert "ev-1" in err.getvalue()
    assert kept is not None
    assert 2000 == kept.raw["dados"]["valorCentavos"]
