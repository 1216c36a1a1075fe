"""PostgresStore against a real PostgreSQL: the journal and sales contracts, their migrations,
and races."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from journal_contract import JournalContract, begin_payment
from journal_races import race_begins, race_outcomes
from outcome_events import REFERENCIA, Envelope, event
from races import StoreSpec
from sales_contract import SalesContract, refs, refuse
from sales_contract import attempt as sales_attempt
from sales_races import race_one_sale, race_one_terminal
from servers import PostgresServer, require_module
from store_contract import StoreFactory, closing_factory

psycopg = require_module("psycopg", "psycopg (pip install 'smartpos[postgres]')")
psycopg_pool = require_module("psycopg_pool", "psycopg-pool (pip install 'smartpos[postgres]')")
from smartpos.webhooks._journal import CONFLICT, JournalBase  # noqa: E402
from smartpos.webhooks._outcomes import JournalEntry  # noqa: E402
from smartpos.webhooks._postgres import (  # noqa: E402
    _MIGRATIONS,
    SCHEMA_VERSION,
    MigrationRequiredError,
    PostgresStore,
    _journal_params,
)

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


def new_table() -> str:
    """A table name no other test uses, so that stores on the shared server start empty."""
    return f"j_{uuid.uuid4().hex[:12]}"


class TestPostgresJournal(JournalContract):
    """The journal contract on PostgresStore, one migrated table per store."""

    @pytest.fixture
    def make_store(self, postgres_server: PostgresServer) -> Iterator[StoreFactory]:
        """Fresh PostgresStores on new tables of the session's server, closed after."""

        def create(**options: Any) -> PostgresStore:
            store = PostgresStore(postgres_server.dsn, table=new_table(), **options)
            store.migrate()
            return store

        with closing_factory(create) as factory:
            yield factory


class TestPostgresSales(SalesContract):
    """The sales contract on PostgresStore, one migrated table per store."""

    @pytest.fixture
    def make_store(self, postgres_server: PostgresServer) -> Iterator[StoreFactory]:
        """Fresh PostgresStores on new tables of the session's server, closed after."""

        def create(**options: Any) -> PostgresStore:
            store = PostgresStore(postgres_server.dsn, table=new_table(), **options)
            store.migrate()
            return store

        with closing_factory(create) as factory:
            yield factory


def _version_1_table(dsn: str, table: str) -> None:
    """Create ``table`` exactly as migration 1 did, with one event stored by that version."""
    with PostgresStore(dsn, table=table) as store, psycopg.connect(dsn, autocommit=True) as conn:
        rendered = store._render(conn)
        conn.execute(rendered["create_versions"])
        for i in range(len(_MIGRATIONS[0])):
            conn.execute(rendered[f"migration1.{i}"])
        conn.execute(rendered["add_version"], (1,))
        raw = event("ev-old", "pagamento.recusado").raw
        conn.execute(
            f'INSERT INTO "{table}" (id, tipo, body, body_hash, received_at, available_at) '
            "VALUES (%s, %s, %s::json, 'h', now(), now())",
            ("ev-old", "pagamento.recusado", json.dumps(raw)),
        )


def test_version_1_table_is_migrated_and_its_events_are_found(
    postgres_server: PostgresServer,
) -> None:
    """A version-1 table needs migrate(); after it (to 5), an event stored by version 1 is found."""
    table = new_table()
    _version_1_table(postgres_server.dsn, table)

    with PostgresStore(postgres_server.dsn, table=table) as store:
        with pytest.raises(MigrationRequiredError, match="version 1"):
            store.operation(REFERENCIA)
        version = store.migrate()
        begin_payment(store)
        operation = store.operation(REFERENCIA)
        claimed = store.claim(owner="w", lease=30)

    assert 7 == SCHEMA_VERSION == version
    assert operation is not None
    assert operation.event is not None
    assert ("final", "ev-old") == (operation.state, operation.event.id)
    assert ["ev-old"] == [c.event_id for c in claimed]


def _version_3_table(dsn: str, table: str) -> None:
    """Create ``table`` as migrations 1 to 3 did, with one journal entry written by version 3."""
    with PostgresStore(dsn, table=table) as store, psycopg.connect(dsn, autocommit=True) as conn:
        rendered = store._render(conn)
        conn.execute(rendered["create_versions"])
        for version in (1, 2, 3):
            for i in range(len(_MIGRATIONS[version - 1])):
                conn.execute(rendered[f"migration{version}.{i}"])
            conn.execute(rendered["add_version"], (version,))
        conn.execute(
            f'INSERT INTO "{table}_operations" (referencia, kind, state, method, path, body, '
            "created_at, updated_at) VALUES (%s, 'payment', 'accepted', 'POST', "
            "'/v1/payments', %s, now(), now())",
            (REFERENCIA, b"{}"),
        )


def test_version_3_table_gets_sales_and_keeps_its_journal(postgres_server: PostgresServer) -> None:
    """A version-3 table (journal, no sales) needs migrate(); after it its entries read as
    before, with no sale, and a sale's attempt can be journaled in it."""
    table = new_table()
    _version_3_table(postgres_server.dsn, table)

    with PostgresStore(postgres_server.dsn, table=table) as store:
        with pytest.raises(MigrationRequiredError, match="version 3"):
            store.operation(REFERENCIA)
        version = store.migrate()
        old = store.operation(REFERENCIA)
        _, created = sales_attempt(store, "5a1e0001-aaaa-4bbb-8ccc-000000000000")
        sale = store.sale("mesa-1")

    assert 7 == SCHEMA_VERSION == version
    assert old is not None
    assert ("accepted", None, None) == (old.state, old.sale, old.abandoned)
    assert created
    assert sale is not None
    assert ("in_progress", ["5a1e0001-aaaa-4bbb-8ccc-000000000000"]) == (
        sale.state,
        [a.referencia for a in sale.attempts],
    )


def test_version_6_table_gets_journal_notifications(postgres_server: PostgresServer) -> None:
    """A version-6 table needs migrate(); after it (migration 7) every journal write of an
    entry journaled before it, and a new entry's, NOTIFY their referencia at commit."""
    dsn = postgres_server.dsn
    table = new_table()
    other = "0e1e0001-aaaa-4bbb-8ccc-000000000000"
    with PostgresStore(dsn, table=table) as store:
        with psycopg.connect(dsn, autocommit=True) as conn:
            rendered = store._render(conn)
            conn.execute(rendered["create_versions"])
            for version in range(1, 7):
                for i in range(len(_MIGRATIONS[version - 1])):
                    conn.execute(rendered[f"migration{version}.{i}"])
                conn.execute(rendered["add_version"], (version,))
            conn.execute(
                f'INSERT INTO "{table}_operations" (referencia, kind, state, method, path, body, '
                "created_at, updated_at) VALUES (%s, 'payment', 'sending', 'POST', "
                "'/v1/payments', %s, now(), now())",
                (REFERENCIA, b"{}"),
            )
        with pytest.raises(MigrationRequiredError, match="version 6"):
            store.operation(REFERENCIA)
        version = store.migrate()
        with psycopg.connect(dsn, autocommit=True) as listening:
            listening.execute(f'LISTEN "{store._channel}"')
            store._record_operation(REFERENCIA, "unknown")
            begin_payment(store, other)
            sales_attempt(store, "0e1e0002-aaaa-4bbb-8ccc-000000000000", smartpos_id=None)
            store._abandon("mesa-1", motivo="the customer left", operador=None)
            notices = list(listening.notifies(timeout=15.0, stop_after=4))

    assert 7 == SCHEMA_VERSION == version
    assert [
        REFERENCIA,
        other,
        "0e1e0002-aaaa-4bbb-8ccc-000000000000",
        "0e1e0002-aaaa-4bbb-8ccc-000000000000",
    ] == [n.payload for n in notices]


def test_a_journal_write_of_a_referencia_too_long_to_notify_wakes_everyone(
    postgres_server: PostgresServer,
) -> None:
    """NOTIFY's payload has a limit: a longer referencia is sent empty (every listener's
    waiters re-check), as a put's is; the write itself succeeds."""
    long_referencia = "r" * 9000
    with PostgresStore(postgres_server.dsn, table=new_table()) as store:
        store.migrate()
        with psycopg.connect(postgres_server.dsn, autocommit=True) as listening:
            listening.execute(f'LISTEN "{store._channel}"')
            _, created = begin_payment(store, long_referencia)
            accepted = store._record_operation(long_referencia, "accepted")
            notices = list(listening.notifies(timeout=15.0, stop_after=2))

    assert (True, True) == (created, accepted)
    assert ["", ""] == [n.payload for n in notices]


def test_lookup_by_referencia_uses_the_index(postgres_server: PostgresServer) -> None:
    """Events by referencia are an index scan of the expression index, not a table scan."""
    with PostgresStore(postgres_server.dsn, table=new_table()) as store:
        store.migrate()
        store.put(event("ev-1"))
        with psycopg.connect(postgres_server.dsn) as conn:
            conn.execute("SET enable_seqscan = off")
            plan = conn.execute("EXPLAIN " + store._sql["j_events"], (REFERENCIA,)).fetchall()

    text = " ".join(row[0] for row in plan)
    assert f"{store._table}_ref_idx" in text


def test_the_review_of_sales_reads_its_index(postgres_server: PostgresServer) -> None:
    """store.sales(attention=True) reads the partial index of candidate attempts, then each
    candidate's sale by its key: never every sale in seq order."""
    with PostgresStore(postgres_server.dsn, table=new_table()) as store:
        store.migrate()
        for n, referencia in enumerate(refs(3)):
            sales_attempt(store, referencia, f"s{n}", smartpos_id=f"T{n}")
        for n, referencia in enumerate(refs(2)):  # paid, quiet: not candidates
            store.put(event(f"ev-{n}", referencia=referencia, smartpos_id=f"T{n}"))
        store._record_operation(refs(3)[2], "unknown")
        with psycopg.connect(postgres_server.dsn) as conn:
            conn.execute("SET enable_seqscan = off")
            plan = conn.execute("EXPLAIN " + store._sql["s_candidates"], (0, 10)).fetchall()
        found = [s.sale_id for s in store.sales(attention=True)]

    text = " ".join(row[0] for row in plan)
    assert f"{store._table}_ops_review_idx" in text
    assert f"{store._table}_sales_pkey" in text
    assert f"{store._table}_sales_seq_idx" not in text
    assert ["s2"] == found


def _event_counts(dsn: str, table: str) -> dict[str, int]:
    """Each journal entry's count of stored events, by referencia."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(f'SELECT referencia, events FROM "{table}_operations"').fetchall()
    return dict(rows)


def test_puts_count_the_events_of_sale_attempts_only(postgres_server: PostgresServer) -> None:
    """A new event with a sale entry's referencia adds one to that entry's count, by put and by
    put_many, and one stored before the entry is counted when it is journaled; a duplicate id,
    an event of an operation without a sale, or without a referencia, count nothing."""
    sold, plain, unknown = refs(3, prefix="c0c0")
    table = new_table()
    no_referencia = Envelope(
        id="ev-none", tipo="smartpos.status", criado_em=None, raw={"id": "ev-none", "dados": {}}
    )
    with PostgresStore(postgres_server.dsn, table=table) as store:
        store.migrate()
        store.put(event("ev-early", "pagamento.recusado", sold))  # before its entry
        sales_attempt(store, sold)
        begin_payment(store, plain)
        store.put(event("ev-1", referencia=sold))
        store.put(event("ev-1", referencia=sold))  # the same event again
        store.put(event("ev-plain", referencia=plain))
        results = store.put_many(
            [
                event("ev-2", referencia=sold),
                event("ev-1", referencia=sold),
                event("ev-2", referencia=sold),
                event("ev-plain-2", referencia=plain),
                event("ev-unknown", referencia=unknown),
                no_referencia,
            ]
        )

    assert ["new", "duplicate", "duplicate", "new", "new", "new"] == [r.value for r in results]
    assert {sold: 3, plain: 0} == _event_counts(postgres_server.dsn, table)


@pytest.mark.parametrize("first", ["put", "journal"])
def test_a_put_and_a_journal_insert_racing_count_the_event_once(
    postgres_server: PostgresServer, first: str
) -> None:
    """Under READ COMMITTED neither transaction sees the other's row: whichever holds its
    transaction open, the other waits for its commit, and the event is counted exactly once
    (not missed by the count at insert nor by the put's increment)."""
    table = new_table()
    with PostgresStore(postgres_server.dsn, table=table) as store:
        store.migrate()
        with psycopg.connect(postgres_server.dsn) as rival:  # its transaction stays open
            if first == "put":
                rival.execute(
                    f'INSERT INTO "{table}" (id, tipo, body, body_hash, received_at, '
                    "available_at, referencia) VALUES ('ev-1', 'pagamento.aprovado', '{}', "
                    "'h', now(), now(), %s)",
                    (_R1,),
                )
                racer = threading.Thread(target=lambda: sales_attempt(store, _R1))
            else:
                rival.execute(store._sql["j_insert"], _journal_params(_attempt_entry(_R1, "m")))
                racer = threading.Thread(target=lambda: store.put(event("ev-1", referencia=_R1)))
            racer.start()
            _wait_for_a_lock_wait(postgres_server.dsn, table, racer)
            waited = racer.is_alive()
            rival.commit()
            racer.join(timeout=30)

    assert ({_R1: 1}, True) == (_event_counts(postgres_server.dsn, table), waited)


def test_a_nul_escape_anywhere_in_a_body_never_fails_a_put(postgres_server: PostgresServer) -> None:
    """PostgreSQL's json operators refuse \\u0000: such an event is stored and linked all the
    same (its referencia is a column written from Python), like on every other store."""
    poisoned = event("nul", mensagem="a\u0000b")
    with PostgresStore(postgres_server.dsn, table=new_table()) as store:
        store.migrate()
        results = [store.put(poisoned), store.put(event("ok", "pagamento.recusado"))]

        outcome = store._outcome(REFERENCIA)

    assert ["new", "new"] == [r.value for r in results]
    assert outcome is not None
    assert "nul" == outcome.id


@pytest.fixture
def spec(postgres_server: PostgresServer) -> StoreSpec:
    """A new migrated table that each process opens on its own."""
    table = new_table()
    with PostgresStore(postgres_server.dsn, table=table) as store:
        store.migrate()
    return StoreSpec(PostgresStore, (postgres_server.dsn,), {"table": table})


def test_processes_beginning_the_same_referencias(spec: StoreSpec) -> None:
    """Four processes journaling the same 60 referencias: each is journaled exactly once."""
    race_begins(spec, processes=4, referencias=60)


def test_processes_settling_outcomes(spec: StoreSpec) -> None:
    """Approvals and refusals from two processes, two readers: one outcome each, forever."""
    race_outcomes(spec, referencias=40)


def test_processes_charging_one_sale(spec: StoreSpec) -> None:
    """Four processes charge one sale at once, 25 rounds: exactly one attempt each round."""
    race_one_sale(spec, processes=4, rounds=25)


def test_processes_charging_sales_on_one_terminal(spec: StoreSpec) -> None:
    """Four processes charge four sales on one terminal, 25 rounds: exactly one sends each."""
    race_one_terminal(spec, processes=4, rounds=25)


def _attempt_entry(referencia: str, sale: str) -> JournalEntry:
    now = time.time()
    return JournalEntry(
        referencia=referencia,
        kind="payment",
        state="sending",
        method="POST",
        path="/v1/payments",
        body=b"{}",
        created_at=now,
        updated_at=now,
        sale=sale,
        pending_after=600.0,
    )


# What another transaction does to a row, and the compare-and-set of _sale_insert it meets:
# a first attempt (a new sale, a terminal never held) or a later one (version 1, holder R0).
_R0 = "5a1e0000-aaaa-4bbb-8ccc-000000000000"
_R1 = "5a1e0001-aaaa-4bbb-8ccc-000000000000"
_RIVALS = {
    "creates the sale": (
        'INSERT INTO "{table}_sales" (sale_id, total_centavos, version, created_at, updated_at) '
        "VALUES ('mesa-1', 1000, 1, now(), now())",
        {"expected_version": None, "expected_holder": None},
    ),
    "bumps the sale": (
        "UPDATE \"{table}_sales\" SET version = 2 WHERE sale_id = 'mesa-1'",
        {"expected_version": 1, "expected_holder": _R0},
    ),
    "first holds the terminal": (
        'INSERT INTO "{table}_terminal_holds" (smartpos_id, referencia, hold_until) '
        "VALUES ('SP-1', 'other', now())",
        {"expected_version": None, "expected_holder": None},
    ),
    "takes the terminal": (
        "UPDATE \"{table}_terminal_holds\" SET referencia = 'other' WHERE smartpos_id = 'SP-1'",
        {"expected_version": 1, "expected_holder": _R0},
    ),
}


@pytest.mark.parametrize("rival", sorted(_RIVALS))
@pytest.mark.parametrize("ends", ["commit", "rollback"])
def test_an_attempt_waits_for_a_rival_transaction_on_its_rows(
    postgres_server: PostgresServer, rival: str, ends: str
) -> None:
    """An attempt meeting another transaction's uncommitted write to its sale or terminal row
    waits for it: a commit makes it CONFLICT with nothing written (its entry rolled back), a
    rollback lets it through."""
    table = new_table()
    statement, expected = _RIVALS[rival]
    with PostgresStore(postgres_server.dsn, table=table) as store:
        store.migrate()
        if expected["expected_version"] is not None:
            sales_attempt(store, _R0)  # sale mesa-1 at version 1, SP-1 held by _R0
        answers: list[object] = []
        with psycopg.connect(postgres_server.dsn) as rival_conn:
            rival_conn.execute(statement.format(table=table))  # inside its open transaction
            racer = threading.Thread(
                target=lambda: answers.append(
                    store._sale_insert(
                        _attempt_entry(_R1, "mesa-1"),
                        total_centavos=1000,
                        terminal="SP-1",
                        hold_until=time.time() + 300,
                        **expected,
                    )
                )
            )
            racer.start()
            _wait_for_a_lock_wait(postgres_server.dsn, table)
            if ends == "commit":
                rival_conn.commit()
            else:
                rival_conn.rollback()
            racer.join(timeout=30)
        entry = store._journal_get(_R1)

    if ends == "commit":
        assert ([CONFLICT], None) == (answers, entry)
    else:
        assert [None] == answers
        assert entry is not None
        assert "mesa-1" == entry.sale


def _wait_for_a_lock_wait(dsn: str, table: str, racer: threading.Thread | None = None) -> None:
    """Return once a statement on ``table`` waits for a lock (the racer met the rival's write),
    or once ``racer`` (when given) ended without waiting."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        for _ in range(500):
            if racer is not None and not racer.is_alive():
                return
            waiting = conn.execute(
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE wait_event_type = 'Lock' AND query LIKE %s",
                (f"%{table}%",),
            ).fetchone()
            if waiting is not None and waiting[0] > 0:
                return
            time.sleep(0.01)
    raise AssertionError("the attempt never waited for the rival transaction")


def test_the_snapshot_reads_in_one_statement_what_the_primitives_read(
    postgres_server: PostgresServer,
) -> None:
    """PostgresStore._sale_snapshot (one statement) answers exactly what the default one,
    composed of the primitives, answers: an entry already journaled with its events, a new
    sale, a sale with its entries (final, unknown then abandoned, several events, one with a
    \\u0000 escape) and the terminal's holder with its events, a holder whose entry is gone,
    and keys PostgreSQL text cannot hold."""
    r0, r1, r2, r3, fresh = refs(5, prefix="5a50")
    table = new_table()
    with PostgresStore(postgres_server.dsn, table=table) as store:
        store.migrate()
        sales_attempt(store, r0)
        refuse(store, r0)
        store.put(event("ev-nul", "pagamento.recusado", r0, mensagem="a\u0000b"))
        store.operation(r0)  # final
        sales_attempt(store, r1)
        store._record_operation(r1, "unknown")
        store._abandon("mesa-1", motivo="dinheiro", operador="caixa 1")
        store.put(event("ev-late", referencia=r1))
        sales_attempt(store, r2, "mesa-2", smartpos_id="SP-2")
        store._record_operation(r2, "accepted")
        store.put(event("ev-2", referencia=r2, smartpos_id="SP-2"))
        sales_attempt(store, r3, "mesa-3", smartpos_id="SP-3")
        with psycopg.connect(postgres_server.dsn, autocommit=True) as conn:
            conn.execute(f'DELETE FROM "{table}_operations" WHERE referencia = %s', (r3,))
        store.put(event("ev-gone", referencia=r3))

        cases = [
            (r0, "mesa-1", "SP-1"),  # already journaled
            (fresh, "mesa-1", "SP-2"),  # the sale's entries, another sale's holder
            (fresh, "mesa-1", None),
            (fresh, "mesa-9", "SP-9"),  # nothing at all
            (fresh, "mesa-9", "SP-3"),  # a holder whose entry is gone
            ("a\x00b", "mesa-1", "SP-1"),
            (fresh, "mesa-\x001", "SP-\x001"),
        ]
        pairs = [
            (store._sale_snapshot(*case), JournalBase._sale_snapshot(store, *case))
            for case in cases
        ]

    for case, (one, composed) in zip(cases, pairs, strict=True):
        assert composed == one, case
    existing, with_entries, _, nothing, gone, _, _ = (one for one, _ in pairs)
    assert existing.existing is not None
    assert [f"ev-no-{r0}-0", "ev-nul"] == [e["id"] for e in existing.existing[1]]
    assert [r0, r1] == [e.referencia for e, _ in with_entries.entries]
    assert [[f"ev-no-{r0}-0", "ev-nul"], ["ev-late"]] == [
        [e["id"] for e in events] for _, events in with_entries.entries
    ]
    assert with_entries.holder is not None
    assert with_entries.holder[2] is not None
    assert (r2, ["ev-2"]) == (with_entries.holder[0], [e["id"] for e in with_entries.holder[2][1]])
    assert (None, [], None) == (nothing.row, list(nothing.entries), nothing.holder)
    assert gone.holder is not None
    assert (r3, None) == (gone.holder[0], gone.holder[2])


def _round_trips(pool: Any, call: Callable[[], object]) -> int:
    """The round trips of ``call`` on the pool's only connection: libpq traces the protocol's
    messages, and each exchange the client waits for ends with one ReadyForQuery."""
    with tempfile.TemporaryFile("w+") as trace:
        with pool.connection() as conn:
            conn.pgconn.trace(os.dup(trace.fileno()))
        try:
            call()
        finally:
            with pool.connection() as conn:
                conn.pgconn.untrace()  # flushes what it traced
        trace.seek(0)
        return sum("\tReadyForQuery\t" in line for line in trace)


@pytest.mark.skipif(sys.platform != "linux", reason="psycopg traces libpq on Linux only")
def test_an_attempt_of_a_sale_costs_one_round_trip_more_than_a_plain_create(
    postgres_server: PostgresServer,
) -> None:
    """A plain create journals in one round trip; an attempt of a sale reads its checks in one
    and journals in one, for a new sale and for the next attempt of a sale whose terminal its
    last attempt held (its entry, events and holder read together)."""
    plain, first, second, warm = refs(4, prefix="7717")
    pool = psycopg_pool.ConnectionPool(
        postgres_server.dsn, min_size=1, max_size=1, kwargs={"autocommit": True}, open=True
    )
    with pool, PostgresStore(pool, table=new_table()) as store:
        store.migrate()
        # Warm: the store renders, checks its schema and sets its statement timeout once.
        sales_attempt(store, warm, "warm", smartpos_id="SP-W")
        begin_payment(store, f"{warm[:-1]}1")
        refuse(store, first)  # the first attempt's outcome, stored before it

        trips = {
            "plain": _round_trips(pool, lambda: begin_payment(store, plain)),
            "new sale": _round_trips(pool, lambda: sales_attempt(store, first, "mesa-rt")),
        }
        store.operation(first)  # final: nothing to record when it is read again
        trips["next attempt"] = _round_trips(pool, lambda: sales_attempt(store, second, "mesa-rt"))

    assert {"plain": 1, "new sale": 2, "next attempt": 2} == trips


def test_an_attempt_on_a_pool_without_autocommit_commits_or_writes_nothing(
    postgres_server: PostgresServer,
) -> None:
    """On a caller's pool (not autocommit) an attempt's one statement commits as the pool
    takes the connection back: journaled, an existing entry answered, a conflict on the sale or
    on the terminal leaving nothing (neither the entry nor the sale's bump); no transaction
    stays open on the pooled connection."""
    r0, r1, r2 = refs(3, prefix="a0c0")
    pool = psycopg_pool.ConnectionPool(postgres_server.dsn, min_size=1, max_size=1, open=True)
    with pool, PostgresStore(pool, table=new_table()) as store:
        store.migrate()
        _, created = sales_attempt(store, r0)
        again = store._sale_insert(
            _attempt_entry(r0, "mesa-1"),
            total_centavos=1000,
            expected_version=None,
            terminal="SP-1",
            expected_holder=None,
            hold_until=time.time(),
        )
        journaled = store._journal_get(r0)
        conflict = store._sale_insert(
            _attempt_entry(r1, "mesa-1"),
            total_centavos=1000,
            expected_version=7,
            terminal="SP-1",
            expected_holder=r0,
            hold_until=time.time(),
        )
        late_conflict = store._sale_insert(  # the sale's version matches, the holder not
            _attempt_entry(r1, "mesa-1"),
            total_centavos=1000,
            expected_version=1,
            terminal="SP-1",
            expected_holder="someone else",
            hold_until=time.time(),
        )
        sale = store._sale_get("mesa-1")
        store._record_operation(r0, "rejected")
        _, next_created = sales_attempt(store, r2)
        with pool.connection() as conn:
            status = conn.info.transaction_status
        entries = [e.referencia for e in store._sale_entries("mesa-1")]
        hold = store._terminal_get("SP-1")

    assert (True, True) == (created, next_created)
    assert isinstance(again, JournalEntry)
    assert journaled == again
    assert (CONFLICT, CONFLICT) == (conflict, late_conflict)
    assert sale is not None
    assert 1 == sale.version  # the bump before the terminal's lost compare-and-set undone
    assert [r0, r2] == entries
    assert hold is not None
    assert r2 == hold[0]
    assert psycopg.pq.TransactionStatus.IDLE == status
