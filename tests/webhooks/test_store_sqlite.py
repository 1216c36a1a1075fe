"""SQLiteStore: the store contract on real files, plus what only SQLite has."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from store_contract import FakeClock, StoreContract, StoreFactory, closing_factory, make_event

from smartpos import ConfigurationError
from smartpos.webhooks._sqlite import (
    _CLAIMABLE,
    _DEAD,
    _LIST,
    _PURGE,
    SCHEMA_VERSION,
    SQLiteStore,
)
from smartpos.webhooks._store import EventState, PutResult, StoreError, canonical_json


class TestSQLiteStore(StoreContract):
    """The contract suite on SQLiteStore, one database file per store."""

    @pytest.fixture
    def make_store(self, tmp_path: Path) -> Iterator[StoreFactory]:
        """Fresh SQLiteStores on new files in tmp_path, closed after the test."""
        paths = (tmp_path / f"inbox-{n}.db" for n in range(1_000))

        def create(**options: Any) -> SQLiteStore:
            return SQLiteStore(next(paths), **options)

        with closing_factory(create) as factory:
            yield factory


@pytest.fixture
def path(tmp_path: Path) -> Path:
    """Where the test's database file goes."""
    return tmp_path / "inbox.db"


@contextlib.contextmanager
def raw_connection(path: Path) -> Iterator[sqlite3.Connection]:
    """A plain sqlite3 connection to the store's file, closed on exit."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        yield conn
    finally:
        conn.close()


def _pragma(store: SQLiteStore, name: str) -> Any:
    with store._read() as conn:
        return conn.execute(f"PRAGMA {name}").fetchone()[0]


def test_wal_and_full_synchronous_by_default(path: Path) -> None:
    """A new store uses WAL, fsyncs every commit (FULL = 2) and waits 5 s for locks."""
    with SQLiteStore(path) as store:
        settings = [_pragma(store, n) for n in ("journal_mode", "synchronous", "busy_timeout")]

    assert settings == ["wal", 2, 5000]


def test_opening_a_new_file_waits_out_a_writer_of_another_connection(path: Path) -> None:
    """Switching a new file to WAL while another connection writes it: SQLite answers "locked"
    at once (no busy handler: waiting could deadlock), so the store polls within its budget.
    Several processes opening one new file at once meet exactly this."""
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        other.execute("CREATE TABLE t (x)")
        other.execute("BEGIN IMMEDIATE")
        other.execute("INSERT INTO t VALUES (1)")
        commit = threading.Timer(0.3, other.execute, args=("COMMIT",))
        commit.start()
        with SQLiteStore(path, busy_timeout=10) as store:
            assert 0 == len(store.list())
            assert "wal" == _pragma(store, "journal_mode")
        commit.join()
    finally:
        other.close()


def test_normal_synchronous_and_busy_timeout_options(path: Path) -> None:
    """synchronous="normal" (any case) sets NORMAL (1) and busy_timeout is in seconds."""
    with SQLiteStore(path, synchronous="normal", busy_timeout=0.25) as store:
        settings = [_pragma(store, n) for n in ("synchronous", "busy_timeout")]
        assert store.synchronous == "NORMAL"

    assert settings == [1, 250]


@pytest.mark.parametrize(
    ("args", "options"),
    [
        ((":memory:",), {}),
        (("",), {}),
        (("x.db",), {"synchronous": "OFF"}),
        (("x.db",), {"busy_timeout": -1}),
        (("x.db",), {"max_attempts": 0}),
    ],
)
def test_bad_options_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str], options: dict[str, Any]
) -> None:
    """A path that is not a file, an unknown synchronous mode or a bad limit is refused."""
    monkeypatch.chdir(tmp_path)

    with pytest.raises(ConfigurationError):
        SQLiteStore(*args, **options)
    assert not (tmp_path / "x.db").exists()


def test_schema_has_a_version(path: Path) -> None:
    """The schema records its version in PRAGMA user_version for future migrations."""
    SQLiteStore(path).close()

    with raw_connection(path) as conn:
        version = conn.execute("PRAGMA user_version").fetchone()[0]

    assert SCHEMA_VERSION == version == 6


def test_newer_schema_is_refused(path: Path) -> None:
    """A file written by a newer smartpos (higher user_version) raises StoreError."""
    with raw_connection(path) as conn:
        conn.execute("PRAGMA user_version = 99")

    with pytest.raises(StoreError, match="schema version 99"):
        SQLiteStore(path)


def test_events_survive_reopening(path: Path) -> None:
    """Everything stored is read back, with its state, by a new store on the same file."""
    with SQLiteStore(path) as store:
        store.put_many([make_event("done"), make_event("claimed"), make_event("pending")])
        done, claimed = store.claim(owner="w", lease=600, limit=2)
        store.ack(done)

    with SQLiteStore(path) as reopened:
        states = [reopened.get(i) for i in ("done", "claimed", "pending")]
        late_ack = reopened.ack(claimed)
        duplicate = reopened.put(make_event("pending"))

    assert [s.state for s in states if s is not None] == [
        EventState.DONE,
        EventState.CLAIMED,
        EventState.PENDING,
    ]
    assert late_ack is True
    assert duplicate == PutResult.DUPLICATE


def test_raw_is_stored_as_canonical_json(path: Path) -> None:
    """The envelope column holds canonical JSON text (sorted keys, UTF-8, no spaces)."""
    event = make_event("ev-1")
    with SQLiteStore(path) as store:
        store.put(event)

    with raw_connection(path) as conn:
        raw, criado_em = conn.execute(
            "SELECT raw, criado_em FROM smartpos_inbox WHERE id = 'ev-1'"
        ).fetchone()

    assert canonical_json(event.raw) == raw
    assert event.criado_em is not None
    assert event.criado_em.timestamp() == criado_em


def _plan(conn: sqlite3.Connection, sql: str, params: tuple[object, ...]) -> str:
    return " ".join(row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql, params))


def test_queries_use_their_indexes(path: Path) -> None:
    """Claim, purge and dead() read their partial indexes in order, with no sort step."""
    with SQLiteStore(path) as store:
        store.put_many([make_event(f"ev-{i}") for i in range(100)])

    with raw_connection(path) as conn:
        plans = [
            _plan(conn, _CLAIMABLE, (0, 10)),
            _plan(conn, _PURGE, (0,)),
            _plan(conn, _DEAD, (10,)),
        ]

    assert "USING INDEX smartpos_inbox_claim" in plans[0]
    assert "USING INDEX smartpos_inbox_done" in plans[1]
    assert "USING INDEX smartpos_inbox_dead" in plans[2]
    assert not any("TEMP B-TREE" in p for p in plans)


def test_listing_pending_or_claimed_walks_the_claim_index(path: Path) -> None:
    """list(state=pending|claimed) reads the claim index in claim order, with no sort step."""
    with SQLiteStore(path) as store:
        store.put_many([make_event(f"ev-{i}") for i in range(100)])

    with raw_connection(path) as conn:
        plans = [_plan(conn, _LIST[s], (10,)) for s in (EventState.PENDING, EventState.CLAIMED)]

    assert all("USING INDEX smartpos_inbox_claim" in p for p in plans)
    assert not any("TEMP B-TREE" in p for p in plans)


def test_claim_query_keeps_its_index_after_analyze(path: Path) -> None:
    """With table statistics (ANALYZE), the claim query still walks its index in order."""
    with SQLiteStore(path) as store:
        store.put_many([make_event(f"ev-{i}") for i in range(100)])

    with raw_connection(path) as conn:
        conn.execute("ANALYZE")
        plan = _plan(conn, _CLAIMABLE, (0, 10))

    assert "USING INDEX smartpos_inbox_claim" in plan
    assert "TEMP B-TREE" not in plan


def test_threads_claiming_at_once_never_share_an_event(path: Path) -> None:
    """Four threads claiming from one store get disjoint events that cover all of them."""
    ids = {f"ev-{i}" for i in range(200)}
    claimed: list[str] = []
    lock = threading.Lock()
    barrier = threading.Barrier(4)
    with SQLiteStore(path) as store:
        store.put_many([make_event(i) for i in sorted(ids)])

        def work() -> None:
            barrier.wait()
            while claims := store.claim(owner=threading.current_thread().name, lease=60, limit=3):
                assert all(store.ack_many(claims))
                with lock:
                    claimed.extend(c.event_id for c in claims)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)

    assert len(ids) == len(claimed)
    assert ids == set(claimed)


def test_two_stores_on_one_file_share_the_inbox(path: Path) -> None:
    """Two stores (as two processes would) see one inbox: one's put is the other's duplicate."""
    with SQLiteStore(path) as first, SQLiteStore(path) as second:
        results = [first.put(make_event("ev-1")), second.put(make_event("ev-1"))]
        claims = second.claim(owner="w", lease=30)

    assert results == [PutResult.NEW, PutResult.DUPLICATE]
    assert [c.event_id for c in claims] == ["ev-1"]


def test_locked_database_raises_store_error_then_recovers(path: Path) -> None:
    """A write lock held past busy_timeout gives StoreError; the store works once it is freed."""
    with SQLiteStore(path, busy_timeout=0.05) as store, raw_connection(path) as other:
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreError, match="locked"):
            store.put(make_event("ev-1"))
        other.execute("ROLLBACK")

        assert store.put(make_event("ev-1")) == PutResult.NEW


def test_file_that_is_not_a_database(path: Path) -> None:
    """A file that is not SQLite raises StoreError naming the path."""
    path.write_bytes(b"this is not a database, just some text " * 100)

    with pytest.raises(StoreError, match=r"inbox\.db"):
        SQLiteStore(path)


def test_unwritable_path(tmp_path: Path) -> None:
    """A path that cannot be created (its parent is a file) raises StoreError."""
    blocker = tmp_path / "file"
    blocker.write_text("x")

    with pytest.raises(StoreError, match="unable to open"):
        SQLiteStore(blocker / "inbox.db")


def test_closed_store_refuses_use(path: Path) -> None:
    """After close every call raises StoreError, and closing twice is harmless."""
    store = SQLiteStore(path)
    store.close()
    store.close()

    with pytest.raises(StoreError, match="closed"):
        store.put(make_event("ev-1"))


def test_repr_shows_path_not_contents(path: Path) -> None:
    """The repr names the file and the synchronous mode."""
    with SQLiteStore(path, synchronous="NORMAL") as store:
        store.put(make_event("secret-id"))
        text = repr(store)

    assert f"SQLiteStore({str(path)!r}, synchronous='NORMAL')" == text


def test_fake_clock_drives_sqlite_leases(path: Path) -> None:
    """Leases follow the injected clock, not the wall clock."""
    clock = FakeClock(start=0.0)
    with SQLiteStore(path, clock=clock) as store:
        store.put(make_event("ev-1"))
        (claim,) = store.claim(owner="w", lease=1)
        clock.advance(1)

        assert store.ack(claim) is False


def test_child_after_fork_opens_its_own_connections(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a forked child (another pid) the store never reuses a connection of its parent."""
    with SQLiteStore(path) as store:
        store.put(make_event("ev-1"))
        with store._read() as parent_conn:
            pass
        monkeypatch.setattr("os.getpid", lambda: -1)

        with store._read() as child_conn:
            result = store.put(make_event("ev-2"))

        inherited = list(store._inherited)
        assert child_conn is not parent_conn
        assert [parent_conn] == inherited
        assert result == PutResult.NEW
    for conn in inherited:  # a real child leaves them alone; the test process closes them
        conn.close()


def test_close_closes_connections_in_use(path: Path) -> None:
    """A connection lent out while the store closes is closed when it comes back."""
    store = SQLiteStore(path)
    with store._read() as conn:
        store.close()
        conn.execute("SELECT 1")

    with pytest.raises(sqlite3.ProgrammingError):
        conn.execute("SELECT 1")
    assert store.path == str(path)


def test_a_put_waits_for_a_lock_no_longer_than_its_timeout(path: Path) -> None:
    """put(timeout=) bounds the wait for another connection's lock, below busy_timeout, and
    leaves the store's own busy_timeout for the calls without one."""
    result: list[BaseException | PutResult] = []
    with SQLiteStore(path, busy_timeout=3600) as store, raw_connection(path) as other:
        other.execute("BEGIN EXCLUSIVE")

        def put() -> None:
            try:
                result.append(store.put(make_event("ev-1"), timeout=0.05))
            except BaseException as exc:
                result.append(exc)

        thread = threading.Thread(target=put, daemon=True)
        thread.start()
        thread.join(60)  # without the timeout it would wait for the hour of busy_timeout
        other.execute("ROLLBACK")

        assert not thread.is_alive()
        assert len(result) == 1
        assert isinstance(result[0], StoreError)
        assert "locked" in str(result[0])
        assert store.get("ev-1") is None
        assert store.put(make_event("ev-1")) == PutResult.NEW
        assert _pragma(store, "busy_timeout") == 3600 * 1000


def test_a_row_from_outside_the_calendar_does_not_break_the_inbox(path: Path) -> None:
    """A criado_em stored by an older smartpos (year 0 in UTC) reads as None; get, list and
    claim keep working for every event."""
    with SQLiteStore(path) as store:
        store.put_many([make_event("edge"), make_event("ok")])
    with raw_connection(path) as conn:
        conn.execute("UPDATE smartpos_inbox SET criado_em = ? WHERE id = 'edge'", (-62135614800.0,))

    with SQLiteStore(path) as store:
        edge = store.get("edge")
        listed = store.list()
        claims = store.claim(owner="w", lease=30, limit=5)

    assert edge is not None
    assert edge.criado_em is None
    assert sorted(e.id for e in listed) == ["edge", "ok"]
    assert sorted(c.event_id for c in claims) == ["edge", "ok"]
