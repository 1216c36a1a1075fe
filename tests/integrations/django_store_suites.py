"""The store, journal, sales and listener contracts and the races, for DjangoStore on any
database: a backend's test module subclasses these with a ``new_database`` fixture giving
``(alias, settings)`` of a fresh, migrated database on each call."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

import attrs
import pytest
from django_stores import add_database, drop_database, open_django_store
from journal_contract import JournalContract, begin_payment
from journal_races import race_begins, race_outcomes
from listener_contract import SharedListenerContract
from outcome_events import event
from races import StoreSpec, race_claims, race_killed_worker, race_puts
from sales_contract import SalesContract
from sales_races import race_one_sale, race_one_terminal
from store_contract import StoreContract, StoreFactory, closing_factory, make_event

from smartpos.webhooks import PutResult

NewDatabase = Callable[[], tuple[str, dict[str, Any]]]

__all__ = ["DjangoStoreSuites", "NewDatabase"]


@pytest.fixture
def _make_store(self: Any, new_database: NewDatabase) -> Iterator[StoreFactory]:
    from smartpos.integrations.django import DjangoStore

    aliases: list[str] = []

    def create(**options: Any) -> DjangoStore:
        alias, config = new_database()
        add_database(alias, config)
        aliases.append(alias)
        return DjangoStore(alias, **options)

    with closing_factory(create) as factory:
        yield factory
    for alias in aliases:
        drop_database(alias)


@pytest.fixture
def _spec(self: Any, new_database: NewDatabase) -> Iterator[StoreSpec]:
    alias, config = new_database()
    add_database(alias, config)
    yield StoreSpec(open_django_store, (alias, config, {}))
    drop_database(alias)


class DjangoStoreSuites:
    """Every contract and race; a subclass provides ``new_database``."""

    class TestStore(StoreContract):
        """The inbox contract."""

        make_store = _make_store

    class TestJournal(JournalContract):
        """The outcome journal contract."""

        make_store = _make_store

    class TestSales(SalesContract):
        """The sales contract."""

        make_store = _make_store

    class TestExactIds:
        """Ids and referencias compare byte for byte (a binary collation on MySQL/MariaDB)."""

        make_store = _make_store

        #: Equal under a case- or accent-insensitive collation, or a PAD SPACE one.
        LOOKALIKES = ("ev-1", "EV-1", "ev-1 ", "evé-1", "eve-1", "eve\u0301-1")

        def test_lookalike_ids_are_distinct_events(self, make_store: StoreFactory) -> None:
            """Each lookalike id is a new event, got back exactly, and a duplicate only of
            itself."""
            store = make_store()

            first = [store.put(make_event(i)) for i in self.LOOKALIKES]
            again = [store.put(make_event(i)) for i in self.LOOKALIKES]

            assert [PutResult.NEW] * len(self.LOOKALIKES) == first
            assert [PutResult.DUPLICATE] * len(self.LOOKALIKES) == again
            assert sorted(self.LOOKALIKES) == sorted(e.id for e in store.list())
            for event_id in self.LOOKALIKES:
                stored = store.get(event_id)
                assert stored is not None
                assert event_id == stored.id

        def test_lookalike_referencias_link_only_to_themselves(
            self, make_store: StoreFactory
        ) -> None:
            """Each lookalike referencia is journaled apart and finds only its own event."""
            store = make_store()

            begun = [begin_payment(store, f"ref-{i}")[1] for i in self.LOOKALIKES]
            store.put_many([event(f"for {i}", referencia=f"ref-{i}") for i in self.LOOKALIKES])

            assert [True] * len(self.LOOKALIKES) == begun
            for i in self.LOOKALIKES:
                operation = store._outcome(f"ref-{i}")
                assert f"for {i}" == getattr(operation, "id", None)

    class TestAckMany:
        """ack_many acks a batch in one statement (two on MySQL/MariaDB, which have no
        UPDATE ... RETURNING: a locking read of the held claims, then one update), each
        claim answered in order."""

        make_store = _make_store

        def test_one_statement_per_batch(self, make_store: StoreFactory) -> None:
            from django.db import connections

            now = [1.7e9]
            store = make_store(clock=lambda: now[0])
            store.put_many([make_event(f"ev-{i}") for i in range(12)])
            (stale,) = store.claim(owner="w", lease=10, limit=1)
            now[0] += 5
            fresh = store.claim(owner="w", lease=30, limit=10)
            now[0] += 6  # the first claim's lease ran out
            again = store.claim(owner="w2", lease=30, limit=1)  # its event, claimed again
            sent: list[str] = []

            def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
                if not sql.startswith(("SAVEPOINT", "RELEASE", "ROLLBACK")):
                    sent.append(sql)
                return execute(sql, params, many, context)

            conn = connections[store.using]
            with conn.execute_wrapper(count):
                results = store.ack_many([fresh[0], stale, *fresh[1:]])

            assert results == [True, False, *[True] * 9]
            assert len(sent) == (2 if conn.vendor == "mysql" else 1), sent
            assert [c.event_id for c in again] == [stale.event_id]
            event = store.get(stale.event_id)
            assert event is not None
            assert event.owner == "w2"
            assert store.ack_many([again[0], again[0]]) == [True, False]  # one event twice

        def test_in_a_handler_transaction_past_the_lease(self, make_store: StoreFactory) -> None:
            """In a handler's transaction the tokens alone are checked, as for ack."""
            now = [1.7e9]
            store = make_store(clock=lambda: now[0])
            store.put_many([make_event("a"), make_event("b"), make_event("c")])
            claims = store.claim(owner="w", lease=10, limit=2)
            (other,) = store.claim(owner="w", lease=10, limit=1)
            forged = attrs.evolve(other, token="0" * 32)
            now[0] += 60  # every lease ran out
            with store._handler_transaction():
                assert store.ack_many([*claims, forged]) == [True, True, False]
            states = [store.get(e) for e in ("a", "b", "c")]
            assert [e.state.value for e in states if e is not None] == ["done", "done", "claimed"]

    class TestListener(SharedListenerContract):
        """The waking contract, across processes."""

        make_store = _make_store
        spec = _spec

    @pytest.mark.slow
    @pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals")
    class TestRaces:
        """Processes racing on one database."""

        spec = _spec

        def test_processes_putting_the_same_ids(self, spec: StoreSpec) -> None:
            """Four processes putting the same 200 ids at once get each id NEW exactly once."""
            race_puts(spec, processes=4, events=200)

        def test_processes_claiming_at_once(self, spec: StoreSpec) -> None:
            """Four processes claiming and acking at once claim every event once."""
            race_claims(spec, processes=4, events=400)

        def test_killed_worker_loses_its_claim(self, spec: StoreSpec) -> None:
            """After kill -9 of a worker holding a claim, the event returns, the late ack fails."""
            race_killed_worker(spec, lease=2.0)

        def test_processes_beginning_the_same_referencias(self, spec: StoreSpec) -> None:
            """Four processes journaling the same referencias: each journaled once."""
            race_begins(spec, processes=4, referencias=60)

        def test_processes_settling_outcomes(self, spec: StoreSpec) -> None:
            """Putters and watchers at once: every outcome settles on the same event."""
            race_outcomes(spec, referencias=40)

        def test_processes_charging_one_sale(self, spec: StoreSpec) -> None:
            """Four processes charging one sale: one open attempt at a time."""
            race_one_sale(spec, processes=4, rounds=25)

        def test_processes_charging_sales_on_one_terminal(self, spec: StoreSpec) -> None:
            """Four processes charging sales on one terminal: one holder at a time."""
            race_one_terminal(spec, processes=4, rounds=25)
