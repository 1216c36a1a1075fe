"""Round trips per store call: bounded, whatever the limit (issue 27).

``operations``, ``list``, ``sales`` and ``sale`` read what they return in a fixed number of
round trips: a page of rows, then everything those rows need in one more read each (their
events, the outcomes found recorded in one write, the storing times a pendência needs). Each
backend counts what reaches its server, on the real server:

- PostgreSQL: the statements sent (a connection class counting ``execute``, on a pool of one
  connection);
- Redis: the packets sent (a connection class counting ``send_packed_command``: one per
  command, or per pipeline);
- SQLite: the statements run (a trace callback on every connection; ``PRAGMA``, ``BEGIN``
  and ``COMMIT`` aside). SQLite has no network: a sale's entries and their events are two
  statements there, and recording outcomes a read and a write in one transaction; one round
  trip each on the servers.

Each call is counted at two sizes (10 and 100 rows listed, a sale of 3 and of 30 attempts):
the counts must be equal, and within the bound.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from journal_contract import begin_payment
from outcome_events import event
from sales_contract import approve, attempt, refs, refuse
from servers import PostgresServer, RedisServer, require_module
from store_contract import FakeClock

from smartpos.webhooks import EventState
from smartpos.webhooks._sqlite import SQLiteStore
from smartpos.webhooks._store import StoreBase

_T = TypeVar("_T")

#: Rows beyond the limit in each store: a call must stop at its limit.
_EXTRA = 5


class Counter:
    """What reached the server since ``reset``."""

    def __init__(self) -> None:
        self.n = 0

    def measure(self, call: Callable[[], _T]) -> tuple[int, _T]:
        self.n = 0
        result = call()
        return self.n, result


class RoundTrips:
    """The round-trip bounds of one backend; a subclass gives ``make_counted`` and bounds."""

    #: Most round trips of ``sales``/``sale`` with pendências, once their outcomes are
    #: recorded (SQLite: one more statement, see the module's docstring).
    SALE_READS = 3
    #: Round trips that record the outcomes found (SQLite: a read and a write, in the write's
    #: transaction).
    RECORD = 1
    #: Most round trips of a purge with nothing due: the check, the journal's purge (SQLite:
    #: the check and the write's statements).
    PURGE = 2

    @pytest.fixture
    def make_counted(self) -> Callable[[], tuple[StoreBase, Counter]]:
        raise NotImplementedError("a backend's test class overrides make_counted")

    def test_operations_waiting(
        self, make_counted: Callable[[], tuple[StoreBase, Counter]]
    ) -> None:
        counts = []
        for limit in (10, 100):
            store, counter = make_counted()
            for referencia in refs(limit + _EXTRA, prefix="0a1e"):
                begin_payment(store, referencia)
            n, listed = counter.measure(lambda: store.operations(limit=limit))  # noqa: B023
            assert limit == len(listed)
            counts.append(n)
        assert counts[0] == counts[1] <= 2, counts

    def test_operations_with_outcomes_to_record(
        self, make_counted: Callable[[], tuple[StoreBase, Counter]]
    ) -> None:
        first, again = [], []
        for limit in (10, 100):
            store, counter = make_counted()
            wanted = refs(limit + _EXTRA, prefix="0b1e")
            for i, referencia in enumerate(wanted):
                begin_payment(store, referencia)
                store.put(event(f"ev-{i}", referencia=referencia))
                if i % 3 == 0:
                    store.put(event(f"ev-{i}-again", referencia=referencia))
            # The first read finds the outcomes and records them, in one write.
            n, listed = counter.measure(lambda: store.operations(final=True, limit=limit))  # noqa: B023
            first.append(n)
            assert wanted[:limit] == [op.referencia for op in listed]
            assert all(op.state == "final" and op.event is not None for op in listed)
            assert [r for i, r in enumerate(wanted[:limit]) if i % 3 == 0] == [
                op.referencia for op in listed if op.anomalies
            ]
            n, again_listed = counter.measure(lambda: store.operations(final=True, limit=limit))  # noqa: B023
            again.append(n)
            assert listed == again_listed
            assert [] == store.operations(limit=limit)  # none waits any more
        assert first[0] == first[1] <= 2 + self.RECORD, first
        assert again[0] == again[1] <= 2, again

    def test_purge_with_nothing_due(
        self, make_counted: Callable[[], tuple[StoreBase, Counter]]
    ) -> None:
        """A purge that has no event to delete does not read the waiting entries (it settles
        them only before deleting events): its round trips do not grow with them."""
        counts = []
        for waiting in (10, 1200):  # more than two pages of the settling walk
            store, counter = make_counted()
            for referencia in refs(waiting, prefix="0d1e"):
                begin_payment(store, referencia)
            store.put(event("ev-recent", referencia="elsewhere"))
            store.ack_many(store.claim(owner="w", lease=30))
            n, deleted = counter.measure(store.purge)
            assert deleted == 0
            assert store.get("ev-recent") is not None
            counts.append(n)
        assert counts[0] == counts[1] <= self.PURGE, counts

    def test_list(self, make_counted: Callable[[], tuple[StoreBase, Counter]]) -> None:
        counts = []
        for limit in (10, 100):
            store, counter = make_counted()
            store.put_many([event(f"ev-{i}", referencia=f"r-{i}") for i in range(limit + _EXTRA)])
            for state in (None, EventState.PENDING):
                n, listed = counter.measure(lambda: store.list(state=state, limit=limit))  # noqa: B023
                assert limit == len(listed)
                counts.append(n)
        assert counts[:2] == counts[2:] == [1, 1], counts

    def test_sales(self, make_counted: Callable[[], tuple[StoreBase, Counter]]) -> None:
        first, again, review = [], [], []
        for limit in (10, 100):
            store, counter = make_counted()
            wanted = refs(limit + _EXTRA, prefix="0c1e")
            for i, referencia in enumerate(wanted):
                attempt(store, referencia, sale=f"sale-{i:04d}", smartpos_id=None)
                approve(store, referencia)
                if i % 3 == 0:  # a duplicate approval: a pendência with its storing time
                    approve(store, referencia, n=1)
            n, sales = counter.measure(lambda: store.sales(limit=limit))  # noqa: B023
            first.append(n)
            assert [f"sale-{i:04d}" for i in range(limit)] == [s.sale_id for s in sales]
            assert all(s.state == "paid" for s in sales)
            duplicated = [s.sale_id for s in sales if s.pendencias]
            assert [f"sale-{i:04d}" for i in range(0, limit, 3)] == duplicated
            assert all(p.since.year > 2000 for s in sales for p in s.pendencias)
            n, sales_again = counter.measure(lambda: store.sales(limit=limit))  # noqa: B023
            again.append(n)
            assert sales == sales_again
            # The review reads sales beyond the limit above: their outcomes are recorded now.
            store.sales(attention=True, limit=limit)
            n, flagged = counter.measure(lambda: store.sales(attention=True, limit=limit))  # noqa: B023
            review.append(n)
            assert len(flagged) == min(limit, len(range(0, len(wanted), 3)))
        bound = self.SALE_READS
        assert first[0] == first[1] <= bound + self.RECORD, first
        assert again[0] == again[1] <= bound, again
        assert review[0] == review[1] <= bound, review

    def test_sale_of_many_attempts(
        self, make_counted: Callable[[], tuple[StoreBase, Counter]]
    ) -> None:
        counts = []
        for attempts in (3, 30):
            store, counter = make_counted()
            *refused, paid = refs(attempts, prefix="0d1e")
            for referencia in refused:
                attempt(store, referencia, sale="mesa", total=1000, smartpos_id=None)
                refuse(store, referencia)
            attempt(store, paid, sale="mesa", total=1000, smartpos_id=None)
            approve(store, paid)
            approve(store, paid, n=1)
            store.sale("mesa")  # records the outcome found
            n, sale = counter.measure(lambda: store.sale("mesa"))  # noqa: B023
            assert sale is not None
            assert (attempts, "paid", 1) == (len(sale.attempts), sale.state, len(sale.pendencias))
            counts.append(n)
        assert counts[0] == counts[1] <= self.SALE_READS, counts


# --- PostgreSQL -----------------------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.slow
class TestPostgresRoundTrips(RoundTrips):
    @pytest.fixture
    def make_counted(
        self, postgres_server: PostgresServer
    ) -> Iterator[Callable[[], tuple[StoreBase, Counter]]]:
        psycopg = require_module("psycopg", "psycopg (pip install 'smartpos[postgres]')")
        psycopg_pool = require_module("psycopg_pool", "psycopg-pool")
        from test_journal_postgres import new_table

        from smartpos.webhooks._postgres import PostgresStore

        with contextlib.ExitStack() as stack:

            def make() -> tuple[StoreBase, Counter]:
                counter = Counter()

                class Counting(psycopg.Connection):  # type: ignore[misc,name-defined]
                    def execute(self, *args: Any, **kwargs: Any) -> Any:
                        counter.n += 1
                        return super().execute(*args, **kwargs)

                pool = psycopg_pool.ConnectionPool(
                    postgres_server.dsn,
                    connection_class=Counting,
                    kwargs={"autocommit": True},
                    min_size=1,
                    max_size=1,
                    open=True,
                )
                stack.callback(pool.close)
                store = PostgresStore(pool, table=new_table(), clock=FakeClock())
                stack.callback(store.close)
                store.migrate()
                store.get("warm-up")  # the connection's first statements
                return store, counter

            yield make


# --- Redis ----------------------------------------------------------------------------------


@pytest.mark.redis
@pytest.mark.slow
class TestRedisRoundTrips(RoundTrips):
    @pytest.fixture
    def make_counted(
        self, redis_server: RedisServer
    ) -> Iterator[Callable[[], tuple[StoreBase, Counter]]]:
        redis = require_module("redis", "the redis client (pip install 'smartpos[redis]')")
        from test_journal_redis import new_prefix

        from smartpos.webhooks._redis import RedisStore, _Script

        with contextlib.ExitStack() as stack:

            def make() -> tuple[StoreBase, Counter]:
                counter = Counter()

                class Counting(redis.Connection):  # type: ignore[misc,name-defined]
                    def send_packed_command(self, *args: Any, **kwargs: Any) -> None:
                        counter.n += 1
                        super().send_packed_command(*args, **kwargs)

                pool = redis.ConnectionPool.from_url(redis_server.url, connection_class=Counting)
                client = redis.Redis(connection_pool=pool)
                stack.callback(client.close)
                store = RedisStore(
                    client, prefix=new_prefix(), check_settings=False, clock=FakeClock()
                )
                stack.callback(store.close)
                # Every script loaded first: a NOSCRIPT answer is a one-off, not the call's.
                for script in vars(store).values():
                    if isinstance(script, _Script):
                        client.script_load(script._text)
                return store, counter

            yield make

    def test_reads_of_thousands_run_in_bounded_scripts(
        self, make_counted: Callable[[], tuple[StoreBase, Counter]]
    ) -> None:
        """2,500 outcomes found and recorded at once: the batched scripts take 1,000 keys each
        (one script runs alone on the server: a huge one would stall it and time the client
        out), and every outcome is recorded."""
        store, counter = make_counted()
        wanted = refs(2500, prefix="0e1e")
        for i, referencia in enumerate(wanted):
            begin_payment(store, referencia)
            store.put(event(f"ev-{i}", referencia=referencia))
        n, listed = counter.measure(lambda: store.operations(final=True, limit=2500))
        assert [op.referencia for op in listed] == wanted
        assert all(op.state == "final" and op.event is not None for op in listed)
        assert n == 1 + 3 + 3, n  # the page, its events in 3 scripts, the records in 3
        assert store.operations(limit=2500) == []


# --- SQLite ---------------------------------------------------------------------------------

_NOT_COUNTED = ("PRAGMA", "BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")


class TestSQLiteRoundTrips(RoundTrips):
    SALE_READS = 4
    RECORD = 2
    PURGE = 3  # and the journal clock's floor, in the write's transaction

    @pytest.fixture
    def make_counted(self, tmp_path: Path) -> Iterator[Callable[[], tuple[StoreBase, Counter]]]:
        with contextlib.ExitStack() as stack:
            made = iter(range(100))

            def make() -> tuple[StoreBase, Counter]:
                counter = Counter()

                def trace(statement: str) -> None:
                    if not statement.lstrip().upper().startswith(_NOT_COUNTED):
                        counter.n += 1

                class Counting(SQLiteStore):
                    def _connect(self) -> Any:
                        conn = super()._connect()
                        conn.set_trace_callback(trace)
                        return conn

                path = tmp_path / f"store-{next(made)}.db"
                store = Counting(path, synchronous="NORMAL", clock=FakeClock())
                stack.callback(store.close)
                return store, counter

            yield make
