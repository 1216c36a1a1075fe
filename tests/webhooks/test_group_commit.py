"""Group commit: concurrent writes share one transaction; each caller gets its own outcome.

``GroupCommit`` is driven here over a real SQLite file (one table) with a transaction function
that records every batch, and through ``SQLiteStore``'s journal, whose writes use it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import pytest

from smartpos.webhooks import MemoryStore, SQLiteStore, StoreError
from smartpos.webhooks._group_commit import GroupCommit
from smartpos.webhooks._threads import run_store_call

WAIT = 10.0


class Database:
    """A file with one table, and the transactions a ``GroupCommit`` runs on it."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("CREATE TABLE t (k TEXT PRIMARY KEY)")
        self.batches: list[tuple[bool, int]] = []  # (durable, writes run) per transaction
        self.fail_commit = False
        self.writes = 0

    @contextlib.contextmanager
    def transaction(self, durable: bool) -> Iterator[sqlite3.Connection]:
        self.conn.execute("BEGIN IMMEDIATE")
        self.writes = 0
        try:
            yield self.conn
            if self.fail_commit:
                raise StoreError("the commit failed")
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.rollback()
            raise
        finally:
            self.batches.append((durable, self.writes))

    def insert(self, key: str) -> Callable[[sqlite3.Connection], str]:
        def work(conn: sqlite3.Connection) -> str:
            self.writes += 1
            conn.execute("INSERT INTO t (k) VALUES (?)", (key,))
            return key

        return work

    def keys(self) -> list[str]:
        return [k for (k,) in self.conn.execute("SELECT k FROM t ORDER BY k")]


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = Database(tmp_path / "t.sqlite3")
    yield database
    database.conn.close()


def describe(exc: sqlite3.Error) -> Exception:
    return StoreError(f"described: {exc}")


def wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.001)


class HeldLeader:
    """A first write that holds its batch open (a daemon thread) until ``let_go``."""

    def __init__(
        self,
        group: GroupCommit,
        work: Callable[[sqlite3.Connection], Any] | None = None,
        *,
        durable: bool = True,
    ) -> None:
        self._entered, self._release = threading.Event(), threading.Event()

        def held(conn: sqlite3.Connection) -> Any:
            self._entered.set()
            assert self._release.wait(WAIT)
            return None if work is None else work(conn)

        # A daemon: were the group wedged, it must not keep the test process alive.
        self.thread = threading.Thread(
            target=group.run, args=(held,), kwargs={"durable": durable}, daemon=True
        )
        self.thread.start()
        assert self._entered.wait(WAIT)

    def let_go(self) -> None:
        self._release.set()
        self.thread.join(WAIT)
        assert not self.thread.is_alive()


def run_behind_a_leader(
    db: Database, group: GroupCommit, works: list[Callable[[sqlite3.Connection], Any]]
) -> list[Any]:
    """Hold a first write open until ``works`` have all queued behind it, then let go.

    Returns each write's result or the exception it raised, in the order of ``works``; the
    held write's own result is not included.
    """
    leader = HeldLeader(group, db.insert("held"))
    outcomes: list[Any] = [None] * len(works)

    def call(index: int) -> None:
        try:
            outcomes[index] = group.run(works[index], durable=False)
        except Exception as exc:
            outcomes[index] = exc

    followers = [threading.Thread(target=call, args=(i,)) for i in range(len(works))]
    for thread in followers:
        thread.start()
    wait_until(lambda: len(group._queue) == len(works))
    leader.let_go()
    for thread in followers:
        thread.join(WAIT)
        assert not thread.is_alive()
    return outcomes


def test_a_lone_write_is_one_transaction(db: Database) -> None:
    group = GroupCommit(db.transaction, describe)
    assert "a" == group.run(db.insert("a"))
    assert "b" == group.run(db.insert("b"), durable=False)
    assert [(True, 1), (False, 1)] == db.batches
    assert ["a", "b"] == db.keys()


def test_writes_queued_behind_a_commit_share_the_next_one(db: Database) -> None:
    group = GroupCommit(db.transaction, describe)
    outcomes = run_behind_a_leader(db, group, [db.insert(k) for k in "cde"])
    assert ["c", "d", "e"] == outcomes
    # The held write alone (durable), then the three queued ones in one non-durable commit.
    assert [(True, 1), (False, 3)] == db.batches
    assert ["c", "d", "e", "held"] == db.keys()


def test_a_batch_is_durable_when_any_of_its_writes_asks(db: Database) -> None:
    group = GroupCommit(db.transaction, describe)
    leader = HeldLeader(group, durable=False)
    followers = [
        threading.Thread(target=group.run, args=(db.insert(k),), kwargs={"durable": k == "g"})
        for k in "fgh"
    ]
    for thread in followers:
        thread.start()
    wait_until(lambda: len(group._queue) == 3)
    leader.let_go()
    for thread in followers:
        thread.join(WAIT)
    assert [False, True] == [durable for durable, _ in db.batches]


def test_a_failing_write_is_rolled_back_alone(db: Database) -> None:
    group = GroupCommit(db.transaction, describe)
    group.run(db.insert("taken"))

    def broken(conn: sqlite3.Connection) -> None:
        raise ValueError("not a database error")

    outcomes = run_behind_a_leader(db, group, [db.insert("i"), db.insert("taken"), broken])
    assert "i" == outcomes[0]
    assert isinstance(outcomes[1], StoreError)
    assert "described: UNIQUE constraint failed" in str(outcomes[1])
    assert isinstance(outcomes[2], ValueError)
    assert ["held", "i", "taken"] == db.keys()


def test_a_failed_commit_fails_every_write_it_carried(db: Database) -> None:
    group = GroupCommit(db.transaction, describe)

    def dooming(conn: sqlite3.Connection) -> str:
        db.fail_commit = True  # this batch's commit will fail
        return db.insert("k")(conn)

    outcomes = run_behind_a_leader(db, group, [db.insert("j"), dooming])
    assert all(isinstance(o, StoreError) for o in outcomes)
    messages = sorted(str(o) for o in outcomes)
    # The batch's leader gets the commit's error; the other write says whose commit failed.
    assert "the commit failed" == messages[0]
    assert "committed together with another thread's" in messages[1]
    assert "nothing of it was written" in messages[1]
    assert ["held"] == db.keys()
    db.fail_commit = False
    assert "l" == group.run(db.insert("l")), "the group goes on after a failed batch"


class Interrupted(Exception):
    """Raised by a signal handler in the main thread while it waits as a follower."""


def test_an_interrupted_follower_leaves_the_queue_and_the_lead_goes_on(db: Database) -> None:
    """A wait cut by a signal handler's exception (a timeout) does not wedge later writes."""
    group = GroupCommit(db.transaction, describe)

    def interrupt(signum: int, frame: object) -> None:
        raise Interrupted

    leader = HeldLeader(group)
    behind: list[Any] = []
    follower = threading.Thread(
        target=lambda: behind.append(group.run(db.insert("p"))), daemon=True
    )
    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        # The main thread queues first, the follower behind it; then the alarm cuts its wait.
        def queue_the_follower() -> None:
            wait_until(lambda: len(group._queue) == 1)
            follower.start()
            wait_until(lambda: len(group._queue) == 2)
            signal.setitimer(signal.ITIMER_REAL, 0.01)

        arranger = threading.Thread(target=queue_the_follower)
        arranger.start()
        with pytest.raises(Interrupted):
            group.run(db.insert("o"))
        arranger.join(WAIT)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert 1 == len(group._queue), "the interrupted write left the queue"
    leader.let_go()
    follower.join(WAIT)
    assert ["p"] == behind, "the write queued behind it was committed"
    assert "q" == group.run(db.insert("q"))
    assert (False, []) == (group._leading, group._queue)
    assert ["p", "q"] == db.keys()


def test_a_forked_child_starts_afresh(db: Database, tmp_path: Path) -> None:
    """A lead and a queue the parent held at the fork do not hang the child's writes."""
    group = GroupCommit(db.transaction, describe)
    group._leading = True  # as if a thread of the parent was committing at the fork
    group._queue.append(object())  # type: ignore[arg-type]
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports by its exit status
        signal.alarm(int(WAIT))
        ok = False
        try:
            child = Database(tmp_path / "child.sqlite3")
            child_group = group
            child_group._transaction = child.transaction
            ok = "n" == child_group.run(child.insert("n")) and ["n"] == child.keys()
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert 0 == os.waitstatus_to_exitcode(status)
    assert group._leading, "the parent's own state is untouched"


# --- SQLiteStore ----------------------------------------------------------------------------


def traced(store: SQLiteStore) -> list[str]:
    """Trace every statement of the store's connections from now on (new ones included)."""
    statements: list[str] = []
    connect = store._connect

    def connect_traced() -> Any:
        conn = connect()
        conn.set_trace_callback(statements.append)
        return conn

    store._connect = connect_traced  # type: ignore[method-assign]
    with store._lock:
        for conn in store._idle:
            conn.set_trace_callback(statements.append)
    return statements


def test_sqlite_commits_an_answer_without_an_fsync_and_an_entry_with_one(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "s.sqlite3") as store:
        statements = traced(store)
        store._begin_operation("R1", kind="payment", method="POST", path="/p", body=b"{}")
        store._record_operation("R1", "accepted", durable=False)
        store._begin_operation("R2", kind="payment", method="POST", path="/p", body=b"{}")
    modes = [s for s in statements if s.startswith(("PRAGMA synchronous", "INSERT", "UPDATE"))]
    assert [
        "INSERT",
        "PRAGMA synchronous = NORMAL",
        "UPDATE",
        "PRAGMA synchronous = FULL",
        "INSERT",
    ] == [m.split(" INTO")[0].split(" smartpos")[0] for m in modes]


@pytest.mark.parametrize(("status", "mode"), [(202, "NORMAL"), (400, "FULL")])
def test_a_refusal_is_recorded_durably_an_acceptance_without_an_fsync(
    tmp_path: Path, status: int, mode: str
) -> None:
    """``rejected`` must survive a power cut: its resend would be a first send."""
    import httpx

    import smartpos

    def answer(request: httpx.Request) -> httpx.Response:
        referencia = json.loads(request.content)["referencia"]
        if status == 400:
            return httpx.Response(400, json={"codigo": "CAMPO_INVALIDO", "mensagem": "no"})
        return httpx.Response(
            202,
            json={
                "referencia": referencia,
                "status": "processando",
                "mensagem": "ok",
                "smartposId": "SP-1",
            },
        )

    with SQLiteStore(tmp_path / "s.sqlite3") as store:
        statements = traced(store)
        client = smartpos.Client(
            api_key="k",
            base_url="http://127.0.0.1:9",
            store=store,
            transport=httpx.MockTransport(answer),
            max_retries=0,
        )
        with client, contextlib.suppress(smartpos.APIError):
            client.payments.create(
                documento_cliente="52998224725", valor_centavos=100, smartpos_id="SP-1"
            )
        (operation,) = store.operations(final=True)
    assert ("accepted" if status == 202 else "rejected") == operation.state
    modes = [s for s in statements if s.startswith(("PRAGMA synchronous", "UPDATE"))]
    expected = ["PRAGMA synchronous = NORMAL", "UPDATE"] if mode == "NORMAL" else ["UPDATE"]
    assert expected == [m.split(" smartpos")[0] for m in modes]


def test_a_normal_sqlite_store_never_fsyncs(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "s.sqlite3", synchronous="NORMAL") as store:
        statements = traced(store)
        store._begin_operation("R1", kind="payment", method="POST", path="/p", body=b"{}")
        store._record_operation("R1", "accepted", durable=False)
        store._begin_operation("R2", kind="payment", method="POST", path="/p", body=b"{}")
    assert [] == [s for s in statements if s.startswith("PRAGMA synchronous")]


def test_sqlite_journal_writes_of_many_threads_all_land_once(tmp_path: Path) -> None:
    referencias = [f"R{i:04d}" for i in range(400)]
    errors: list[BaseException] = []
    with SQLiteStore(tmp_path / "s.sqlite3") as store:

        def work(chunk: list[str]) -> None:
            try:
                for referencia in chunk:
                    _, created = store._begin_operation(
                        referencia, kind="payment", method="POST", path="/p", body=b"{}"
                    )
                    assert created
                    assert store._record_operation(referencia, "accepted", durable=False)
                    assert not store._begin_operation(
                        referencia, kind="payment", method="POST", path="/p", body=b"{}"
                    )[1]
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(referencias[i::20],)) for i in range(20)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert [] == errors
        operations = store.operations(final=False, limit=1000)
    assert referencias == sorted(o.referencia for o in operations)
    assert {"accepted"} == {o.state for o in operations}


# --- worker threads of a coroutine's store calls --------------------------------------------


def busiest(store: object, calls: int) -> int:
    """Run ``calls`` blocking calls of ``store`` at once from coroutines: most at a time."""
    lock = threading.Lock()
    active = [0, 0]  # now, most
    release = threading.Event()

    async def main() -> None:
        two_in = anyio.Event()

        def call() -> None:
            with lock:
                active[0] += 1
                active[1] = max(active)
                now = active[0]
            if now == 2:
                anyio.from_thread.run_sync(two_in.set)
            release.wait(WAIT)
            with lock:
                active[0] -= 1

        async with anyio.create_task_group() as group:
            for _ in range(calls):
                group.start_soon(run_store_call, store, call)
            with anyio.fail_after(WAIT):
                await two_in.wait()
            await anyio.sleep(0.05)  # time for more threads to enter, were they allowed
            release.set()

    anyio.run(main)
    return active[1]


def test_a_sqlite_store_uses_at_most_two_threads_per_event_loop(tmp_path: Path) -> None:
    with SQLiteStore(tmp_path / "s.sqlite3") as store:
        assert 2 == busiest(store, 8)
        assert 2 == busiest(store, 8), "a new event loop gets its own threads"


def test_other_stores_use_anyios_pool() -> None:
    assert 8 == busiest(MemoryStore(), 8)
