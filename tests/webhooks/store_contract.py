"""The behaviour every inbox store must have, written once and run by every backend.

A backend plugs in by subclassing ``StoreContract`` in a ``test_*.py`` module and overriding
the ``make_store`` fixture with a factory ``(*, clock, max_attempts, retention) -> Store``;
``closing_factory`` builds one that closes every store it made::

    class TestMemoryStore(StoreContract):
        @pytest.fixture
        def make_store(self) -> Iterator[StoreFactory]:
            with closing_factory(MemoryStore) as factory:
                yield factory

Time is a ``FakeClock`` moved by hand, so no test sleeps. Nothing here knows a backend: the
assertions go through the ``Store`` interface only.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Protocol

import attrs
import pytest

from smartpos.webhooks._store import (
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_RETENTION,
    EventState,
    PutResult,
    Store,
    body_hash,
)

__all__ = [
    "BASE_TIME",
    "DOCUMENTO",
    "Envelope",
    "FakeClock",
    "StoreContract",
    "StoreFactory",
    "closing_factory",
    "make_event",
]

#: A fixed instant the tests' events were created around.
BASE_TIME = dt.datetime(2024, 5, 1, 12, 0, tzinfo=dt.timezone.utc)
#: A customer document carried in the test events; it must never reach a log.
DOCUMENTO = "52998224725"


class FakeClock:
    """A clock that only moves when told: call it for epoch seconds, ``advance`` to move it."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Move the clock forward by ``seconds``."""
        self.now += seconds

    def datetime(self) -> dt.datetime:
        """The current time as an aware UTC datetime."""
        return dt.datetime.fromtimestamp(self.now, tz=dt.timezone.utc)


@attrs.frozen
class Envelope:
    """The least an event needs to be stored (``EventLike``), without the typed parser."""

    id: str
    tipo: str
    criado_em: dt.datetime | None
    raw: Mapping[str, Any]


def make_event(
    event_id: str,
    *,
    criado_em: dt.datetime | None = BASE_TIME,
    tipo: str = "pagamento.aprovado",
    valor: int = 1000,
) -> Envelope:
    """Build an event whose ``raw`` is a spec-shaped envelope (``valor`` varies the body)."""
    raw: dict[str, Any] = {
        "id": event_id,
        "tipo": tipo,
        "dados": {
            "referencia": "pedido-1",
            "documentoCliente": DOCUMENTO,
            "status": "aprovado",
            "valorCentavos": valor,
            "mensagem": "Transação aprovada ✓",
        },
    }
    if criado_em is not None:
        raw["criadoEm"] = criado_em.isoformat()
    return Envelope(id=event_id, tipo=tipo, criado_em=criado_em, raw=raw)


class StoreFactory(Protocol):
    """Builds a fresh, empty store of the backend under test."""

    def __call__(
        self,
        *,
        clock: Callable[[], float] = ...,
        max_attempts: int = ...,
        retention: dt.timedelta = ...,
    ) -> Store: ...


@contextlib.contextmanager
def closing_factory(create: Callable[..., Store]) -> Iterator[StoreFactory]:
    """Wrap ``create(**options)`` into a ``StoreFactory`` that closes its stores on exit."""
    stores: list[Store] = []

    def factory(
        *,
        clock: Callable[[], float] = time.time,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        retention: dt.timedelta = DEFAULT_RETENTION,
    ) -> Store:
        store = create(clock=clock, max_attempts=max_attempts, retention=retention)
        stores.append(store)
        return store

    try:
        yield factory
    finally:
        for store in stores:
            store.close()


def _utc(seconds: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(seconds, tz=dt.timezone.utc)


class StoreContract:
    """Behaviour tests for one backend; a subclass overrides ``make_store``."""

    @pytest.fixture
    def make_store(self) -> StoreFactory:
        """The backend's store factory: every subclass overrides this fixture."""
        raise NotImplementedError("a backend's test class overrides the make_store fixture")

    @pytest.fixture
    def clock(self) -> FakeClock:
        """A clock the test moves by hand."""
        return FakeClock()

    @pytest.fixture
    def store(self, make_store: StoreFactory, clock: FakeClock) -> Store:
        """A fresh store with default options on the fake clock."""
        return make_store(clock=clock)

    # put / put_many

    def test_put_new_then_duplicate(self, store: Store) -> None:
        """The first put of an id is NEW and an identical redelivery is DUPLICATE."""
        event = make_event("ev-1")

        assert store.put(event) == PutResult.NEW
        assert store.put(make_event("ev-1")) == PutResult.DUPLICATE

    def test_duplicate_is_judged_on_content_not_key_order(self, store: Store) -> None:
        """A redelivery whose JSON keys come in another order is still a DUPLICATE."""
        event = make_event("ev-1")
        reordered = attrs.evolve(event, raw=dict(reversed(list(event.raw.items()))))

        store.put(event)

        assert store.put(reordered) == PutResult.DUPLICATE

    def test_conflict_keeps_first_and_logs_without_personal_data(
        self, store: Store, caplog: pytest.LogCaptureFixture
    ) -> None:
        """The same id with another body is CONFLICT, keeps the first body, and logs a warning."""
        first, second = make_event("ev-1", valor=1000), make_event("ev-1", valor=9999)
        store.put(first)

        with caplog.at_level(logging.WARNING, logger="smartpos.webhooks"):
            result = store.put(second)

        stored = store.get("ev-1")
        assert result == PutResult.CONFLICT
        assert stored is not None
        assert first.raw == stored.raw
        assert body_hash(first.raw) == stored.body_hash
        assert [r.name for r in caplog.records] == ["smartpos.webhooks"]
        assert caplog.records[0].levelno == logging.WARNING
        assert "ev-1" in caplog.text
        assert DOCUMENTO not in caplog.text
        assert "9999" not in caplog.text

    def test_redelivery_of_a_done_event_changes_nothing(
        self, store: Store, clock: FakeClock
    ) -> None:
        """A DUPLICATE or CONFLICT of an acked event leaves it done with its attempts."""
        store.put(make_event("ev-1"))
        (claim,) = store.claim(owner="w", lease=30)
        store.ack(claim)

        results = [store.put(make_event("ev-1")), store.put(make_event("ev-1", valor=5))]

        stored = store.get("ev-1")
        assert results == [PutResult.DUPLICATE, PutResult.CONFLICT]
        assert stored is not None
        assert (stored.state, stored.attempts) == (EventState.DONE, 1)
        assert store.claim(owner="w", lease=30) == []

    def test_put_many_results_in_input_order(self, store: Store) -> None:
        """put_many answers NEW, DUPLICATE and CONFLICT per event, in the order given."""
        store.put(make_event("old"))
        store.put(make_event("changed"))

        results = store.put_many(
            [make_event("a"), make_event("old"), make_event("changed", valor=7), make_event("b")]
        )

        assert results == [
            PutResult.NEW,
            PutResult.DUPLICATE,
            PutResult.CONFLICT,
            PutResult.NEW,
        ]
        assert store.get("a") is not None
        assert store.get("b") is not None

    def test_put_many_handles_duplicates_inside_one_batch(self, store: Store) -> None:
        """Inside one batch, the first occurrence of an id wins and later ones compare to it."""
        results = store.put_many(
            [
                make_event("x", valor=1),
                make_event("x", valor=1),
                make_event("x", valor=2),
                make_event("y"),
            ]
        )

        stored = store.get("x")
        assert results == [
            PutResult.NEW,
            PutResult.DUPLICATE,
            PutResult.CONFLICT,
            PutResult.NEW,
        ]
        assert stored is not None
        assert stored.raw["dados"]["valorCentavos"] == 1
        assert len(store.claim(owner="w", lease=30, limit=10)) == 2

    def test_put_many_of_nothing(self, store: Store) -> None:
        """An empty batch stores nothing and answers an empty list."""
        assert store.put_many([]) == []
        assert store.claim(owner="w", lease=30, limit=10) == []

    def test_put_rejects_a_naive_criado_em(self, store: Store) -> None:
        """An event whose criado_em has no timezone cannot be ordered and is refused."""
        event = make_event("ev-1", criado_em=dt.datetime(2024, 5, 1, 12, 0))

        with pytest.raises(ValueError, match="criado_em"):
            store.put(event)
        assert store.get("ev-1") is None

    def test_concurrent_puts_from_threads_are_new_once(self, store: Store) -> None:
        """Eight threads putting the same ids at once get NEW exactly once per id."""
        ids = [f"ev-{i}" for i in range(50)]
        barrier = threading.Barrier(8)
        results: list[tuple[str, PutResult]] = []
        lock = threading.Lock()

        def put_all(offset: int) -> None:
            barrier.wait()
            for event_id in ids[offset:] + ids[:offset]:
                result = store.put(make_event(event_id))
                with lock:
                    results.append((event_id, result))

        threads = [threading.Thread(target=put_all, args=(n * 6,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)

        new = Counter(event_id for event_id, result in results if result is PutResult.NEW)
        assert 8 * len(ids) == len(results)
        assert dict.fromkeys(ids, 1) == dict(new)

    # get

    def test_get_unknown_is_none(self, store: Store) -> None:
        """get of an id never stored answers None."""
        assert store.get("nope") is None

    def test_get_pending_record(self, store: Store, clock: FakeClock) -> None:
        """A new event is pending, never attempted, with its body, hash and times."""
        event = make_event("ev-1")
        store.put(event)

        stored = store.get("ev-1")

        assert stored is not None
        assert (stored.id, stored.tipo) == ("ev-1", "pagamento.aprovado")
        assert event.raw == stored.raw
        assert body_hash(event.raw) == stored.body_hash
        assert stored.criado_em == BASE_TIME
        assert (stored.state, stored.attempts) == (EventState.PENDING, 0)
        assert clock.datetime() == stored.received_at
        assert (
            stored.owner,
            stored.lease_expires_at,
            stored.last_error,
            stored.done_at,
        ) == (None, None, None, None)

    def test_get_event_without_criado_em(self, store: Store) -> None:
        """An event without criado_em is stored and read back with criado_em None."""
        store.put(make_event("ev-1", criado_em=None))

        stored = store.get("ev-1")

        assert stored is not None
        assert stored.criado_em is None
        assert "criadoEm" not in stored.raw

    # claim

    def test_claim_from_empty_store(self, store: Store) -> None:
        """Claiming from an empty store gives nothing."""
        assert store.claim(owner="w", lease=30, limit=5) == []

    def test_claim_fields(self, store: Store, clock: FakeClock) -> None:
        """A claim carries the event, its owner, attempt 1, the lease expiry and a token."""
        event = make_event("ev-1")
        store.put(event)

        (claim,) = store.claim(owner="worker-a", lease=30)

        assert (
            claim.event_id,
            claim.tipo,
            claim.owner,
        ) == ("ev-1", "pagamento.aprovado", "worker-a")
        assert event.raw == claim.raw
        assert claim.attempts == 1
        assert _utc(clock.now + 30) == claim.lease_expires_at
        assert len(claim.token) >= 16

    def test_claimed_record(self, store: Store, clock: FakeClock) -> None:
        """get shows a claimed event with its owner, attempts and lease expiry."""
        store.put(make_event("ev-1"))
        store.claim(owner="worker-a", lease=30)

        stored = store.get("ev-1")

        assert stored is not None
        assert (
            stored.state,
            stored.owner,
            stored.attempts,
        ) == (EventState.CLAIMED, "worker-a", 1)
        assert _utc(clock.now + 30) == stored.lease_expires_at

    def test_claim_orders_by_criado_em_then_arrival(self, store: Store) -> None:
        """Events come out by creation instant (any offset), then those without one by arrival."""
        brt = dt.timezone(dt.timedelta(hours=-3))
        events = [
            make_event("no-date-1", criado_em=None),
            make_event("third", criado_em=BASE_TIME + dt.timedelta(minutes=2)),
            make_event("first-brt", criado_em=dt.datetime(2024, 5, 1, 8, 0, tzinfo=brt)),
            make_event("no-date-2", criado_em=None),
            make_event("second", criado_em=BASE_TIME),
            make_event("second-later-arrival", criado_em=BASE_TIME),
        ]
        store.put_many(events)

        claims = store.claim(owner="w", lease=30, limit=10)

        assert [c.event_id for c in claims] == [
            "first-brt",
            "second",
            "second-later-arrival",
            "third",
            "no-date-1",
            "no-date-2",
        ]

    def test_claim_respects_limit(self, store: Store) -> None:
        """claim hands out at most ``limit`` events and the rest to the next call."""
        store.put_many(
            [make_event(f"ev-{i}", criado_em=BASE_TIME.replace(second=i)) for i in range(5)]
        )

        first = store.claim(owner="w", lease=30, limit=2)
        second = store.claim(owner="w", lease=30, limit=2)
        third = store.claim(owner="w", lease=30, limit=2)

        assert [[c.event_id for c in batch] for batch in (first, second, third)] == [
            ["ev-0", "ev-1"],
            ["ev-2", "ev-3"],
            ["ev-4"],
        ]

    def test_no_event_goes_to_two_live_claims(self, store: Store, clock: FakeClock) -> None:
        """While a lease is live, nobody else can claim the event, even a moment before expiry."""
        store.put_many([make_event("a"), make_event("b")])
        store.claim(owner="w1", lease=30, limit=10)

        clock.advance(29.5)

        assert store.claim(owner="w2", lease=30, limit=10) == []

    def test_each_claim_has_its_own_token(self, store: Store, clock: FakeClock) -> None:
        """Tokens differ between events of one claim and between claims of one event."""
        store.put_many([make_event("a"), make_event("b")])
        first = store.claim(owner="w", lease=30, limit=10)
        clock.advance(30)
        second = store.claim(owner="w", lease=30, limit=10)

        tokens = {c.token for c in first + second}

        assert len(tokens) == 4

    def test_expired_lease_is_claimable_again_with_attempts_raised(
        self, store: Store, clock: FakeClock
    ) -> None:
        """When a lease runs out, anyone can claim the event, as attempt 2 with a new token."""
        store.put(make_event("ev-1"))
        (old,) = store.claim(owner="w1", lease=30)

        clock.advance(30)
        (new,) = store.claim(owner="w2", lease=30)

        assert (new.event_id, new.attempts, new.owner) == ("ev-1", 2, "w2")
        assert old.token != new.token

    def test_lost_lease_refuses_ack_nack_extend_and_dead_letter(
        self, store: Store, clock: FakeClock
    ) -> None:
        """After another worker reclaimed the event, the old claim can change nothing."""
        store.put(make_event("ev-1"))
        (old,) = store.claim(owner="w1", lease=30)
        clock.advance(31)
        (new,) = store.claim(owner="w2", lease=30)

        refused = [
            store.ack(old),
            store.nack(old, error="late", retry_in=0),
            store.extend(old, lease=300),
            store.dead_letter(old, error="late"),
        ]

        stored = store.get("ev-1")
        assert refused == [False, False, False, False]
        assert stored is not None
        assert (stored.state, stored.owner, stored.last_error) == (EventState.CLAIMED, "w2", None)
        assert store.ack(new) is True

    def test_expired_lease_refuses_ack_even_before_reclaim(
        self, store: Store, clock: FakeClock
    ) -> None:
        """A lease past its expiry is lost even when nobody claimed the event yet."""
        store.put(make_event("ev-1"))
        (claim,) = store.claim(owner="w1", lease=30)

        clock.advance(30)

        assert store.ack(claim) is False
        assert store.extend(claim, lease=30) is False
        assert [c.event_id for c in store.claim(owner="w2", lease=30)] == ["ev-1"]

    def test_ack_marks_done(self, store: Store, clock: FakeClock) -> None:
        """An acked event is done, never handed out again, and cannot be acked twice."""
        store.put(make_event("ev-1"))
        (claim,) = store.claim(owner="w", lease=30)
        clock.advance(5)

        acked = store.ack(claim)

        stored = store.get("ev-1")
        assert acked is True
        assert stored is not None
        assert (stored.state, stored.attempts, stored.owner) == (EventState.DONE, 1, None)
        assert clock.datetime() == stored.done_at
        assert store.ack(claim) is False
        clock.advance(3600)
        assert store.claim(owner="w", lease=30) == []

    def test_ack_many_answers_per_claim(self, store: Store, clock: FakeClock) -> None:
        """ack_many acks the claims that hold their lease and refuses the others, in order."""
        store.put_many([make_event("a"), make_event("b"), make_event("c")])
        (stale,) = store.claim(owner="w", lease=10, limit=1)
        clock.advance(5)
        fresh = store.claim(owner="w", lease=30, limit=2)
        clock.advance(5)

        results = store.ack_many([fresh[0], stale, fresh[1]])

        assert results == [True, False, True]
        assert [
            s.state for s in (store.get("b"), store.get("a"), store.get("c")) if s is not None
        ] == [EventState.DONE, EventState.CLAIMED, EventState.DONE]

    def test_extend_keeps_the_lease(self, store: Store, clock: FakeClock) -> None:
        """An extended lease outlives its first expiry: nobody else claims it and ack works."""
        store.put(make_event("ev-1"))
        (claim,) = store.claim(owner="w1", lease=30)
        clock.advance(20)

        extended = store.extend(claim, lease=60)
        clock.advance(50)

        stored = store.get("ev-1")
        assert extended is True
        assert stored is not None
        assert _utc(clock.now + 10) == stored.lease_expires_at
        assert store.claim(owner="w2", lease=30) == []
        assert store.ack(claim) is True

    def test_extended_lease_still_expires(self, store: Store, clock: FakeClock) -> None:
        """An extended lease expires at its new time, and the event is claimable then."""
        store.put(make_event("ev-1"))
        (claim,) = store.claim(owner="w1", lease=30)
        store.extend(claim, lease=60)

        clock.advance(60)

        assert store.ack(claim) is False
        assert [c.attempts for c in store.claim(owner="w2", lease=30)] == [2]

    def test_nack_delays_the_next_attempt(self, store: Store, clock: FakeClock) -> None:
        """A nacked event is pending with its error, and claimable only after retry_in."""
        store.put(make_event("ev-1"))
        (claim,) = store.claim(owner="w", lease=30)

        nacked = store.nack(claim, error="handler timed out", retry_in=60)

        stored = store.get("ev-1")
        assert nacked is True
        assert stored is not None
        assert (
            stored.state,
            stored.last_error,
            stored.owner,
        ) == (EventState.PENDING, "handler timed out", None)
        clock.advance(59)
        assert store.claim(owner="w", lease=30) == []
        clock.advance(1)
        assert [c.attempts for c in store.claim(owner="w", lease=30)] == [2]
        assert store.nack(claim, error="again", retry_in=0) is False

    def test_nack_with_zero_delay_is_claimable_at_once(self, store: Store) -> None:
        """retry_in=0 makes the event claimable again immediately."""
        store.put(make_event("ev-1"))
        (claim,) = store.claim(owner="w", lease=30)

        store.nack(claim, error="retry", retry_in=0)

        assert [c.attempts for c in store.claim(owner="w", lease=30)] == [2]

    def test_nack_delay_does_not_block_other_events(self, store: Store) -> None:
        """A delayed event at the head of the order does not hold back the ones after it."""
        store.put_many([make_event("a", criado_em=BASE_TIME), make_event("b", criado_em=None)])
        (claim,) = store.claim(owner="w", lease=30)

        store.nack(claim, error="later", retry_in=60)

        assert [c.event_id for c in store.claim(owner="w", lease=30, limit=5)] == ["b"]

    def test_max_attempts_moves_to_dead(self, make_store: StoreFactory, clock: FakeClock) -> None:
        """The nack of the max_attempts-th attempt moves the event to dead, keeping the error."""
        store = make_store(clock=clock, max_attempts=3)
        store.put(make_event("ev-1"))

        attempts = []
        for n in range(3):
            (claim,) = store.claim(owner="w", lease=30)
            attempts.append(claim.attempts)
            assert store.nack(claim, error=f"failure {n + 1}", retry_in=0) is True

        stored = store.get("ev-1")
        assert attempts == [1, 2, 3]
        assert stored is not None
        assert (
            stored.state,
            stored.attempts,
            stored.last_error,
        ) == (EventState.DEAD, 3, "failure 3")
        assert store.claim(owner="w", lease=30) == []

    def test_expired_leases_count_as_failed_attempts(
        self, make_store: StoreFactory, clock: FakeClock
    ) -> None:
        """An event whose lease keeps expiring (its worker crashes) ends up dead, not looping."""
        store = make_store(clock=clock, max_attempts=2)
        store.put_many(
            [make_event("poison", criado_em=BASE_TIME), make_event("ok", criado_em=None)]
        )
        store.claim(owner="w", lease=30)
        clock.advance(30)
        store.claim(owner="w", lease=30)
        clock.advance(30)

        claims = store.claim(owner="w", lease=30)

        stored = store.get("poison")
        assert [c.event_id for c in claims] == ["ok"]
        assert stored is not None
        assert (stored.state, stored.attempts) == (EventState.DEAD, 2)
        assert stored.last_error is not None
        assert "lease expired" in stored.last_error

    def test_expired_last_lease_is_logged_as_dead(
        self, make_store: StoreFactory, clock: FakeClock, caplog: pytest.LogCaptureFixture
    ) -> None:
        """The claim that moves an event to dead (its last lease ran out) logs it as an ERROR."""
        store = make_store(clock=clock, max_attempts=1)
        store.put(make_event("poison", tipo="pagamento.recusado"))
        store.claim(owner="w", lease=30)
        clock.advance(30)

        with caplog.at_level(logging.ERROR, logger="smartpos.webhooks"):
            assert [] == store.claim(owner="w", lease=30)

        (record,) = caplog.records
        assert logging.ERROR == record.levelno
        assert record.getMessage().startswith(
            "webhook event 'poison' ('pagamento.recusado') ran out of its lease on attempt 1, "
            "its last"
        )
        assert "dead letters" in record.getMessage()
        assert DOCUMENTO not in record.getMessage()

    def test_dead_letter(self, store: Store) -> None:
        """dead_letter moves a held event straight to dead with the error given."""
        store.put(make_event("ev-1"))
        (claim,) = store.claim(owner="w", lease=30)

        moved = store.dead_letter(claim, error="dados do not match the schema")

        stored = store.get("ev-1")
        assert moved is True
        assert stored is not None
        assert (
            stored.state,
            stored.last_error,
            stored.owner,
        ) == (EventState.DEAD, "dados do not match the schema", None)
        assert store.claim(owner="w", lease=30) == []
        assert store.ack(claim) is False

    def test_dead_lists_oldest_first_up_to_limit(self, store: Store) -> None:
        """dead() lists only dead events, oldest criado_em first, at most ``limit``."""
        store.put_many(
            [make_event(f"ev-{i}", criado_em=BASE_TIME.replace(second=10 - i)) for i in range(4)]
        )
        for claim in store.claim(owner="w", lease=30, limit=3):
            store.dead_letter(claim, error="bad")

        listed = store.dead(limit=2)

        assert [e.id for e in listed] == ["ev-3", "ev-2"]
        assert {EventState.DEAD} == {e.state for e in listed}
        assert [e.id for e in store.dead()] == ["ev-3", "ev-2", "ev-1"]

    # list

    def test_list_all_states_in_claim_order(self, store: Store, clock: FakeClock) -> None:
        """list() shows every event whatever its state, by criado_em, then arrival, undated last."""
        store.put_many(
            [
                make_event("no-date-1", criado_em=None),
                make_event("late", criado_em=BASE_TIME + dt.timedelta(minutes=3)),
                make_event("early", criado_em=BASE_TIME),
                make_event("mid", criado_em=BASE_TIME + dt.timedelta(minutes=1)),
                make_event("no-date-2", criado_em=None),
                make_event("mid-later", criado_em=BASE_TIME + dt.timedelta(minutes=1)),
            ]
        )
        early, mid, mid_later, _late = store.claim(owner="w", lease=30, limit=4)
        store.ack(early)
        store.dead_letter(mid, error="bad")
        store.nack(mid_later, error="later", retry_in=60)

        listed = store.list()

        assert [(e.id, e.state) for e in listed] == [
            ("early", EventState.DONE),
            ("mid", EventState.DEAD),
            ("mid-later", EventState.PENDING),
            ("late", EventState.CLAIMED),
            ("no-date-1", EventState.PENDING),
            ("no-date-2", EventState.PENDING),
        ]
        assert [store.get(e.id) for e in listed] == listed
        assert [e.id for e in store.list(limit=2)] == ["early", "mid"]
        assert store.list(limit=0) == []

    def test_list_by_state(self, store: Store, clock: FakeClock) -> None:
        """list(state=...) keeps the claim order and shows only that state, at most ``limit``."""
        store.put_many(
            [make_event(f"ev-{i}", criado_em=BASE_TIME.replace(second=i)) for i in range(6)]
        )
        claims = store.claim(owner="w", lease=30, limit=4)
        store.ack(claims[3])
        store.dead_letter(claims[1], error="bad")

        by_state = {state: [e.id for e in store.list(state=state)] for state in EventState}

        assert by_state == {
            EventState.PENDING: ["ev-4", "ev-5"],
            EventState.CLAIMED: ["ev-0", "ev-2"],
            EventState.DONE: ["ev-3"],
            EventState.DEAD: ["ev-1"],
        }
        assert [e.id for e in store.list(state=EventState.PENDING, limit=1)] == ["ev-4"]
        assert [e.id for e in store.list(state="dead")] == ["ev-1"]  # type: ignore[arg-type]

    def test_list_by_state_passes_over_other_states(self, store: Store, clock: FakeClock) -> None:
        """Expired claims still read as claimed, and a state's first match may come after them."""
        store.put_many([make_event("a", criado_em=BASE_TIME), make_event("b", criado_em=BASE_TIME)])
        store.claim(owner="w1", lease=30, limit=2)
        clock.advance(30)
        store.put(make_event("c", criado_em=BASE_TIME.replace(second=1)))
        (again,) = store.claim(owner="w2", lease=30)

        pending = store.list(state=EventState.PENDING, limit=1)
        claimed = store.list(state=EventState.CLAIMED)

        assert again.event_id == "a"
        assert [e.id for e in pending] == ["c"]
        assert [(e.id, e.attempts) for e in claimed] == [("a", 2), ("b", 1)]

    def test_list_of_an_empty_store(self, store: Store) -> None:
        """An empty store lists nothing, in any state."""
        assert store.list() == []
        assert [store.list(state=state) for state in EventState] == [[], [], [], []]

    def test_list_rejects_bad_arguments(self, store: Store) -> None:
        """An unknown state or a limit that is not an int is refused."""
        store.put(make_event("ev-1"))

        with pytest.raises(ValueError, match="gone"):
            store.list(state="gone")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="limit must be an int"):
            store.list(limit="10")  # type: ignore[arg-type]
        assert [e.id for e in store.list()] == ["ev-1"]

    def test_requeue_dead_event(self, store: Store) -> None:
        """A requeued dead event is pending with attempts reset, and its next claim is attempt 1."""
        store.put(make_event("ev-1"))
        (claim,) = store.claim(owner="w", lease=30)
        store.dead_letter(claim, error="bad")

        requeued = store.requeue("ev-1")

        stored = store.get("ev-1")
        assert requeued is True
        assert stored is not None
        assert (stored.state, stored.attempts) == (EventState.PENDING, 0)
        assert store.dead() == []
        assert [c.attempts for c in store.claim(owner="w", lease=30)] == [1]

    def test_requeue_done_event(self, store: Store) -> None:
        """A done event can be requeued to be processed again."""
        store.put(make_event("ev-1"))
        (claim,) = store.claim(owner="w", lease=30)
        store.ack(claim)

        requeued = store.requeue("ev-1")

        stored = store.get("ev-1")
        assert requeued is True
        assert stored is not None
        assert (stored.state, stored.attempts, stored.done_at) == (EventState.PENDING, 0, None)
        assert [c.event_id for c in store.claim(owner="w", lease=30)] == ["ev-1"]

    def test_requeue_refuses_pending_claimed_and_unknown(self, store: Store) -> None:
        """requeue only applies to dead or done events."""
        store.put_many([make_event("claimed"), make_event("pending", criado_em=None)])
        store.claim(owner="w", lease=30)

        results = [store.requeue("claimed"), store.requeue("pending"), store.requeue("unknown")]

        assert results == [False, False, False]
        assert [s.state for s in map(store.get, ("claimed", "pending")) if s is not None] == [
            EventState.CLAIMED,
            EventState.PENDING,
        ]

    # purge

    def test_purge_default_retention(self, store: Store, clock: FakeClock) -> None:
        """purge() keeps done events for DEFAULT_RETENTION, then forgets them (id NEW again)."""
        store.put(make_event("ev-1"))
        (claim,) = store.claim(owner="w", lease=30)
        store.ack(claim)

        clock.advance(DEFAULT_RETENTION.total_seconds())
        kept = store.purge()
        clock.advance(1)
        purged = store.purge()

        assert (kept, purged) == (0, 1)
        assert store.get("ev-1") is None
        assert store.put(make_event("ev-1")) == PutResult.NEW

    def test_purge_uses_the_configured_retention(
        self, make_store: StoreFactory, clock: FakeClock
    ) -> None:
        """A store built with retention=1h purges done events older than an hour."""
        store = make_store(clock=clock, retention=dt.timedelta(hours=1))
        store.put(make_event("ev-1"))
        store.ack(store.claim(owner="w", lease=30)[0])

        clock.advance(3601)

        assert store.purge() == 1

    def test_purge_explicit_cutoff(self, store: Store, clock: FakeClock) -> None:
        """purge(done_before=t) deletes exactly the events done before t."""
        store.put_many([make_event("early"), make_event("late", criado_em=None)])
        early, late = store.claim(owner="w", lease=30, limit=2)
        store.ack(early)
        clock.advance(10)
        cutoff = clock.datetime()
        store.ack(late)

        purged = store.purge(done_before=cutoff)

        assert purged == 1
        assert store.get("early") is None
        assert store.get("late") is not None

    def test_purge_never_touches_pending_claimed_or_dead(
        self, store: Store, clock: FakeClock
    ) -> None:
        """Only done events are purged, however old the others are."""
        store.put_many(
            [
                make_event("claimed", criado_em=BASE_TIME),
                make_event("dead", criado_em=BASE_TIME.replace(second=1)),
                make_event("pending", criado_em=BASE_TIME.replace(second=2)),
            ]
        )
        _, dead = store.claim(owner="w", lease=10**9, limit=2)
        store.dead_letter(dead, error="bad")

        clock.advance(10 * DEFAULT_RETENTION.total_seconds())
        purged = store.purge(done_before=clock.datetime() + dt.timedelta(days=1))

        assert purged == 0
        assert [
            s.state for s in map(store.get, ("claimed", "dead", "pending")) if s is not None
        ] == [EventState.CLAIMED, EventState.DEAD, EventState.PENDING]

    # arguments and representation

    @pytest.mark.parametrize(
        ("lease", "limit"), [(0, 1), (-1, 1), (float("nan"), 1), (30, 0), (30, -2)]
    )
    def test_claim_rejects_bad_arguments(self, store: Store, lease: float, limit: int) -> None:
        """A lease that is not a positive number of seconds, or a limit below 1, is refused."""
        store.put(make_event("ev-1"))

        with pytest.raises(ValueError, match=r"^(lease|limit) must be"):
            store.claim(owner="w", lease=lease, limit=limit)
        stored = store.get("ev-1")
        assert stored is not None
        assert stored.state == EventState.PENDING

    def test_ack_many_of_nothing(self, store: Store) -> None:
        """ack_many of no claims answers an empty list."""
        assert store.ack_many([]) == []

    def test_purge_rejects_a_naive_cutoff_and_keeps_working(
        self, store: Store, clock: FakeClock
    ) -> None:
        """A done_before without a timezone is refused, deletes nothing, and the store goes on."""
        store.put(make_event("ev-1"))
        store.ack(store.claim(owner="w", lease=30)[0])
        clock.advance(10)

        with pytest.raises(ValueError, match="done_before"):
            store.purge(done_before=dt.datetime(2100, 1, 1))

        assert store.get("ev-1") is not None
        assert store.purge(done_before=clock.datetime()) == 1

    def test_nack_rejects_negative_retry(self, store: Store) -> None:
        """A negative retry_in is refused and the claim keeps its lease."""
        store.put(make_event("ev-1"))
        (claim,) = store.claim(owner="w", lease=30)

        with pytest.raises(ValueError, match="retry_in"):
            store.nack(claim, error="x", retry_in=-1)
        assert store.ack(claim) is True

    def test_repr_hides_event_contents(self, store: Store) -> None:
        """The store's repr never shows an event, and a stored record's repr hides its body."""
        store.put(make_event("secret-id"))

        text = repr(store) + repr(store.get("secret-id"))

        assert "secret-id" not in repr(store)
        assert DOCUMENTO not in text
        assert "pedido-1" not in text

    # release: give a claim back without counting an attempt

    def test_release_makes_the_event_claimable_at_once_without_an_attempt(
        self, store: Store
    ) -> None:
        """A released claim is claimable again at once, with the same attempts as before."""
        store.put(make_event("ev-1"))
        (claim,) = store.claim(owner="w", lease=30)

        released = store.release(claim)

        stored = store.get("ev-1")
        assert released is True
        assert stored is not None
        assert (stored.state, stored.attempts, stored.owner) == (EventState.PENDING, 0, None)
        assert [c.attempts for c in store.claim(owner="w", lease=30)] == [1]
        assert store.ack(claim) is False

    def test_release_keeps_the_claim_order(self, store: Store) -> None:
        """A released event comes back first when it is the oldest, as it was claimed."""
        store.put_many([make_event("old", criado_em=BASE_TIME), make_event("new", criado_em=None)])
        claims = store.claim(owner="w", lease=30, limit=2)

        for claim in claims:
            store.release(claim)

        again = store.claim(owner="w", lease=30, limit=2)
        assert [(c.event_id, c.attempts) for c in again] == [("old", 1), ("new", 1)]

    def test_release_at_the_last_attempt_does_not_kill_the_event(
        self, make_store: StoreFactory, clock: FakeClock
    ) -> None:
        """Unlike nack, releasing the max_attempts-th claim keeps the event alive and its error."""
        store = make_store(clock=clock, max_attempts=2)
        store.put(make_event("ev-1"))
        (first,) = store.claim(owner="w", lease=30)
        store.nack(first, error="handler failed", retry_in=0)
        (second,) = store.claim(owner="w", lease=30)

        assert store.release(second) is True

        stored = store.get("ev-1")
        assert stored is not None
        assert (stored.state, stored.attempts, stored.last_error) == (
            EventState.PENDING,
            1,
            "handler failed",
        )
        assert [c.attempts for c in store.claim(owner="w", lease=30)] == [2]

    def test_release_of_a_lost_lease_is_refused(self, store: Store, clock: FakeClock) -> None:
        """A claim whose lease ran out (or was taken over) cannot be released."""
        store.put(make_event("ev-1"))
        (stale,) = store.claim(owner="w1", lease=30)
        clock.advance(31)
        (current,) = store.claim(owner="w2", lease=30)

        assert store.release(stale) is False
        stored = store.get("ev-1")
        assert stored is not None
        assert (stored.owner, stored.attempts) == ("w2", 2)
        assert store.release(current) is True
        assert store.release(current) is False

    # Poison bodies: every store gives the same answer for the same event.

    def test_a_lone_surrogate_in_the_body_is_stored_escaped(self, store: Store) -> None:
        """A lone surrogate ("\\ud800") inside dados is stored, read back as sent, and dedups."""
        event = make_event("ev-1")
        raw = {**event.raw, "dados": {**event.raw["dados"], "mensagem": "x\ud800y", "\udc00": 1}}
        odd = attrs.evolve(event, raw=raw)

        assert store.put(odd) == PutResult.NEW
        assert store.put(attrs.evolve(event, raw=dict(raw))) == PutResult.DUPLICATE

        stored = store.get("ev-1")
        assert stored is not None
        assert stored.raw == raw
        assert [c.raw for c in store.claim(owner="w", lease=30)] == [raw]

    @pytest.mark.parametrize(
        ("event_id", "problem"),
        [
            ("ev\x00-1", "control character"),
            ("ev\n1", "control character"),
            ("ev\ud800", "lone surrogate"),
            ("e" * 2700, "longer than 256"),
        ],
    )
    def test_an_id_no_store_can_hold_is_refused_alike(
        self, store: Store, event_id: str, problem: str
    ) -> None:
        """NUL, control characters, lone surrogates and 2.7 KB ids: ValueError, nothing stored."""
        with pytest.raises(ValueError, match=problem):
            store.put(make_event(event_id))

        assert store.list() == []

    def test_a_tipo_no_store_can_hold_is_refused(self, store: Store) -> None:
        """A tipo with a control character is refused like an id."""
        with pytest.raises(ValueError, match="tipo"):
            store.put(make_event("ev-1", tipo="pagamento.aprovado\x00"))

    @pytest.mark.parametrize(
        "criado_em",
        [
            dt.datetime(1, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=5))),
            dt.datetime(9999, 12, 31, 23, tzinfo=dt.timezone(dt.timedelta(hours=-5))),
        ],
    )
    def test_a_criado_em_outside_the_utc_calendar_is_refused(
        self, store: Store, criado_em: dt.datetime
    ) -> None:
        """A criado_em whose UTC instant is outside years 1-9999 is refused; the inbox goes on."""
        store.put(make_event("ok"))

        with pytest.raises(ValueError, match="criado_em"):
            store.put(make_event("edge", criado_em=criado_em))

        assert [e.id for e in store.list()] == ["ok"]
        assert store.get("edge") is None

    def test_a_criado_em_at_the_edge_but_inside_is_stored(self, store: Store) -> None:
        """The first instant of year 1 in UTC is still a valid criado_em, ordered first."""
        first = dt.datetime(1, 1, 1, tzinfo=dt.timezone.utc)
        store.put(make_event("late"))

        assert store.put(make_event("early", criado_em=first)) == PutResult.NEW

        assert (store.list()[0].id, store.list()[0].criado_em) == ("early", first)

    def test_raw_that_is_not_json_is_refused(self, store: Store) -> None:
        """NaN or a non-JSON value in raw is a ValueError on every store (PostgreSQL's json
        column would refuse NaN where the others stored it)."""
        event = make_event("ev-1")

        for value in (float("nan"), dt.date(2024, 1, 1)):
            with pytest.raises(ValueError, match="raw"):
                store.put(attrs.evolve(event, raw={**event.raw, "x": value}))
        assert store.list() == []

    def test_put_many_names_the_event_it_refuses_and_stores_none(self, store: Store) -> None:
        """An event no store can hold, in a batch: ValueError naming its position, none stored."""
        with pytest.raises(ValueError, match="event 1 of the batch"):
            store.put_many([make_event("a"), make_event("b\x00"), make_event("c")])

        assert store.list() == []

    # Timeouts

    def test_put_accepts_a_timeout(self, store: Store) -> None:
        """put and put_many take timeout= (a receiver's store_timeout) and store as usual."""
        assert store.put(make_event("a"), timeout=1.5) == PutResult.NEW
        assert store.put_many([make_event("a"), make_event("b")], timeout=0.5) == [
            PutResult.DUPLICATE,
            PutResult.NEW,
        ]
        assert store.put(make_event("c")) == PutResult.NEW
        assert len(store.list()) == 3

    @pytest.mark.parametrize("timeout", [-1, float("nan"), float("inf")])
    def test_put_refuses_a_bad_timeout(self, store: Store, timeout: float) -> None:
        """A negative or non-finite timeout is a ValueError, before anything is stored."""
        with pytest.raises(ValueError, match="timeout"):
            store.put(make_event("a"), timeout=timeout)
        assert store.get("a") is None
