"""SQLiteStore: the journal contract on real files, its schema upgrade, and its index."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from journal_contract import JournalContract, begin_payment
from journal_races import race_begins, race_outcomes
from outcome_events import REFERENCIA, event
from races import StoreSpec
from sales_contract import SalesContract
from sales_contract import attempt as sales_attempt
from sales_races import race_one_sale, race_one_terminal
from store_contract import StoreFactory, closing_factory

from smartpos.webhooks._listener import listener_for
from smartpos.webhooks._sqlite import (
    _J_CHANGES,
    _J_CLOCK,
    _J_EVENTS,
    _J_LIST,
    _S_CANDIDATES,
    SCHEMA_VERSION,
    SQLiteStore,
)

# The version-1 schema as released, written out: an upgrade must start from exactly this.
_V1_SCHEMA = (
    """
    CREATE TABLE smartpos_inbox (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        tipo TEXT NOT NULL,
        criado_em REAL,
        raw TEXT NOT NULL,
        body_hash TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'claimed', 'done', 'dead')),
        attempts INTEGER NOT NULL DEFAULT 0,
        received_at REAL NOT NULL,
        available_at REAL,
        owner TEXT,
        token TEXT,
        lease_expires_at REAL,
        last_error TEXT,
        done_at REAL,
        CHECK ((state IN ('pending', 'claimed')) = (available_at IS NOT NULL))
    )
    """,
    """
    CREATE INDEX smartpos_inbox_claim
    ON smartpos_inbox (criado_em IS NULL, criado_em, seq, available_at)
    WHERE available_at IS NOT NULL
    """,
    "CREATE INDEX smartpos_inbox_done ON smartpos_inbox (done_at) WHERE state = 'done'",
    """
    CREATE INDEX smartpos_inbox_dead
    ON smartpos_inbox (criado_em IS NULL, criado_em, seq) WHERE state = 'dead'
    """,
)


class TestSQLiteJournal(JournalContract):
    """The journal contract on SQLiteStore, one database file per store."""

    @pytest.fixture
    def make_store(self, tmp_path: Path) -> Iterator[StoreFactory]:
        """Fresh SQLiteStores on new files in tmp_path, closed after the test."""
        paths = (tmp_path / f"inbox-{n}.db" for n in range(1_000))

        def create(**options: Any) -> SQLiteStore:
            return SQLiteStore(next(paths), **options)

        with closing_factory(create) as factory:
            yield factory


class TestSQLiteSales(SalesContract):
    """The sales contract on SQLiteStore, one database file per store."""

    @pytest.fixture
    def make_store(self, tmp_path: Path) -> Iterator[StoreFactory]:
        """Fresh SQLiteStores on new files in tmp_path, closed after the test."""
        paths = (tmp_path / f"inbox-{n}.db" for n in range(1_000))

        def create(**options: Any) -> SQLiteStore:
            return SQLiteStore(next(paths), **options)

        with closing_factory(create) as factory:
            yield factory


def _v1_file(path: Path) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        for statement in _V1_SCHEMA:
            conn.execute(statement)
        raw = event("ev-old", "pagamento.recusado").raw
        conn.execute(
            "INSERT INTO smartpos_inbox (id, tipo, raw, body_hash, state, received_at, "
            "available_at) VALUES (?, ?, ?, 'h', 'pending', 1, 1)",
            ("ev-old", "pagamento.recusado", json.dumps(raw)),
        )
        conn.execute("PRAGMA user_version = 1")
    finally:
        conn.close()


def test_version_1_file_is_upgraded_and_its_events_are_found(tmp_path: Path) -> None:
    """A file written by version 1 opens at the current version; an event it held ends an
    operation."""
    path = tmp_path / "v1.db"
    _v1_file(path)

    with SQLiteStore(path) as store:
        begin_payment(store)
        operation = store.operation(REFERENCIA)
        claimed = store.claim(owner="w", lease=30)

    conn = sqlite3.connect(path)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    finally:
        conn.close()
    assert 6 == SCHEMA_VERSION == version
    assert operation is not None
    assert operation.event is not None
    assert ("final", "ev-old") == (operation.state, operation.event.id)
    assert ["ev-old"] == [c.event_id for c in claimed]


# The version-2 journal table as released (before sales), written out.
_V2_OPERATIONS = """
    CREATE TABLE smartpos_operations (
        seq INTEGER PRIMARY KEY,
        referencia TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        state TEXT NOT NULL
            CHECK (state IN ('sending', 'accepted', 'rejected', 'unknown', 'final')),
        method TEXT NOT NULL,
        path TEXT NOT NULL,
        body BLOB NOT NULL,
        answer TEXT,
        final_event TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    )
"""


def test_version_2_file_gets_sales_and_keeps_its_journal(tmp_path: Path) -> None:
    """A version-2 file (journal, no sales) opens at version 3: its entries read as before,
    with no sale, and a sale's attempt can be journaled in it."""
    path = tmp_path / "v2.db"
    _v1_file(path)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute(_V2_OPERATIONS)
        conn.execute(
            "INSERT INTO smartpos_operations (referencia, kind, state, method, path, body, "
            "created_at, updated_at) VALUES (?, 'payment', 'accepted', 'POST', '/v1/payments', "
            "?, 1, 1)",
            (REFERENCIA, b"{}"),
        )
        conn.execute("PRAGMA user_version = 2")
    finally:
        conn.close()

    with SQLiteStore(path) as store:
        old = store.operation(REFERENCIA)
        _, created = sales_attempt(store, "5a1e0001-aaaa-4bbb-8ccc-000000000000")
        sale = store.sale("mesa-1")

    assert old is not None
    assert ("accepted", None, None) == (old.state, old.sale, old.abandoned)
    assert created
    assert sale is not None
    assert "in_progress" == sale.state


def test_journal_survives_reopening(tmp_path: Path) -> None:
    """Entries, states and recorded outcomes are on disk: a new store on the file sees them."""
    path = tmp_path / "inbox.db"
    with SQLiteStore(path) as store:
        begin_payment(store)
        store._record_operation(REFERENCIA, "unknown")
        store.put(event("ev-1"))

    with SQLiteStore(path) as store:
        operation = store.operation(REFERENCIA)

    assert operation is not None
    assert operation.event is not None
    assert ("final", "ev-1") == (operation.state, operation.event.id)


def _version_5_file(path: Path) -> None:
    """A file as version 5 left it (no write numbers), with one entry journaled by it."""
    with SQLiteStore(path) as store:
        begin_payment(store)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("DROP INDEX smartpos_operations_changed")
        conn.execute("DROP TABLE smartpos_journal_clock")
        conn.execute("ALTER TABLE smartpos_operations DROP COLUMN changed")
        conn.execute("PRAGMA user_version = 5")
    finally:
        conn.close()


def test_version_5_file_numbers_its_journal_writes_for_the_listeners(tmp_path: Path) -> None:
    """A version-5 file opens at version 6: a write of an entry it journaled, and a new
    entry, reach a change listener (of another store object on the file) by referencia."""
    path = tmp_path / "v5.db"
    _version_5_file(path)
    other = "0e1e0001-aaaa-4bbb-8ccc-000000000000"
    named: list[frozenset[str] | None] = []
    heard = threading.Condition()

    def watcher(change: frozenset[str] | None) -> None:
        with heard:
            named.append(change)
            heard.notify_all()

    def hears(referencia: str) -> bool:
        with heard:
            return heard.wait_for(
                lambda: any(c is not None and referencia in c for c in named), timeout=15
            )

    with SQLiteStore(path) as writer, SQLiteStore(path) as watched:
        unwatch = listener_for(watched).watch(watcher)
        try:
            with heard:  # the source started (it wakes everyone once)
                assert heard.wait_for(lambda: None in named, timeout=15)
            writer._record_operation(REFERENCIA, "accepted")
            old_entry = hears(REFERENCIA)
            begin_payment(writer, other)
            new_entry = hears(other)
        finally:
            unwatch()

    conn = sqlite3.connect(path)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        numbers = dict(conn.execute("SELECT referencia, changed FROM smartpos_operations"))
    finally:
        conn.close()
    assert 6 == SCHEMA_VERSION == version
    assert (True, True) == (old_entry, new_entry)
    assert numbers[REFERENCIA] is not None
    assert numbers[other] is not None
    assert numbers[REFERENCIA] < numbers[other]


def test_journal_write_numbers_never_go_back_after_a_purge(tmp_path: Path) -> None:
    """Every journal write gets a number above all given before, even after the purge
    deleted the entries that held the highest ones."""
    path = tmp_path / "inbox.db"
    first, second = "0e1e0002-aaaa-4bbb-8ccc-000000000000", "0e1e0003-aaaa-4bbb-8ccc-000000000000"

    def last_and_after(number: int) -> tuple[int, list[tuple[int, str]]]:
        conn = sqlite3.connect(path)
        try:
            (last,) = conn.execute(_J_CLOCK).fetchone()
            return last, conn.execute(_J_CHANGES, (number,)).fetchall()
        finally:
            conn.close()

    with SQLiteStore(path) as store:
        begin_payment(store, first)
        store._record_operation(first, "rejected")
        before, written = last_and_after(0)
        purged = store.purge(done_before=dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=1))
        after_purge, _ = last_and_after(0)
        begin_payment(store, second)
        _, rows = last_and_after(before)

    assert [(2, first)] == written
    assert (1, 2, 2) == (purged, before, after_purge)
    assert [(3, second)] == rows


def _plan(path: Path, statement: str, params: tuple[Any, ...]) -> str:
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("EXPLAIN QUERY PLAN " + statement, params).fetchall()
    finally:
        conn.close()
    return " ".join(str(row[-1]) for row in rows)


def test_lookups_use_their_indexes(tmp_path: Path) -> None:
    """Events by referencia and waiting operations are index searches, not table scans."""
    path = tmp_path / "inbox.db"
    SQLiteStore(path).close()

    by_referencia = _plan(path, _J_EVENTS, (REFERENCIA,))
    waiting = _plan(path, _J_LIST[True], (0, 10))

    assert "USING INDEX smartpos_inbox_referencia" in by_referencia
    assert "smartpos_operations_waiting" in waiting
    assert "USING INDEX smartpos_operations_changed" in _plan(path, _J_CHANGES, (0,))


@pytest.fixture
def spec(tmp_path: Path) -> StoreSpec:
    """A new SQLite file that each process opens on its own."""
    return StoreSpec(SQLiteStore, (str(tmp_path / "inbox.db"),))


@pytest.mark.slow
def test_processes_beginning_the_same_referencias(spec: StoreSpec) -> None:
    """Four processes journaling the same 60 referencias: each is journaled exactly once."""
    race_begins(spec, processes=4, referencias=60)


@pytest.mark.slow
def test_processes_settling_outcomes(spec: StoreSpec) -> None:
    """Approvals and refusals from two processes, two readers: one outcome each, forever."""
    race_outcomes(spec, referencias=40)


@pytest.mark.slow
def test_processes_charging_one_sale(spec: StoreSpec) -> None:
    """Four processes charge one sale at once, 25 rounds: exactly one attempt each round."""
    race_one_sale(spec, processes=4, rounds=25)


@pytest.mark.slow
def test_processes_charging_sales_on_one_terminal(spec: StoreSpec) -> None:
    """Four processes charge four sales on one terminal, 25 rounds: exactly one sends each."""
    race_one_terminal(spec, processes=4, rounds=25)


def test_the_review_of_sales_reads_its_index(tmp_path: Path) -> None:
    """store.sales(attention=True) reads the partial index of candidate attempts, not every
    sale: its plan searches smartpos_operations_attention."""
    with SQLiteStore(tmp_path / "inbox.db") as store:
        sales_attempt(store, "5a1e0001-aaaa-4bbb-8ccc-000000000000")
    conn = sqlite3.connect(tmp_path / "inbox.db")
    try:
        plan = conn.execute("EXPLAIN QUERY PLAN " + _S_CANDIDATES, (0, 10)).fetchall()
    finally:
        conn.close()
    assert "smartpos_operations_attention" in " ".join(str(row) for row in plan)
