"""MemoryStore: the store contract, plus its bound and eviction."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import attrs
import pytest
from store_contract import (
    Envelope,
    FakeClock,
    StoreContract,
    StoreFactory,
    closing_factory,
    make_event,
)

from smartpos import ConfigurationError
from smartpos.webhooks._memory import MemoryStore
from smartpos.webhooks._store import EventState, PutResult, StoreError, StoreFullError


class TestMemoryStore(StoreContract):
    """The contract suite on MemoryStore."""

    @pytest.fixture
    def make_store(self) -> Iterator[StoreFactory]:
        """Fresh MemoryStores, closed after the test."""
        with closing_factory(MemoryStore) as factory:
            yield factory


def _done(store: MemoryStore, *ids: str) -> None:
    store.put_many([make_event(i) for i in ids])
    assert all(store.ack_many(store.claim(owner="w", lease=30, limit=len(ids))))


def test_full_store_evicts_oldest_done_event() -> None:
    """A put into a full store evicts the event that became done first."""
    store = MemoryStore(max_events=3)
    _done(store, "a")
    _done(store, "b")
    store.put(make_event("pending"))

    result = store.put(make_event("new"))

    assert result == PutResult.NEW
    assert store.get("a") is None
    assert [s.state for s in map(store.get, ("b", "pending", "new")) if s is not None] == [
        EventState.DONE,
        EventState.PENDING,
        EventState.PENDING,
    ]


def test_evicted_id_is_new_again() -> None:
    """An evicted id is forgotten: its redelivery is NEW (the documented cost of the bound)."""
    store = MemoryStore(max_events=1)
    _done(store, "a")
    _done(store, "b")

    assert store.put(make_event("a")) == PutResult.NEW


def test_full_store_without_done_events_refuses_put() -> None:
    """With only pending, claimed and dead events, put raises StoreFullError and keeps them all."""
    store = MemoryStore(max_events=3)
    store.put_many([make_event("claimed"), make_event("dead"), make_event("pending")])
    _, dead = store.claim(owner="w", lease=30, limit=2)
    store.dead_letter(dead, error="bad")

    with pytest.raises(StoreFullError, match="max_events=3") as info:
        store.put(make_event("new"))

    assert isinstance(info.value, StoreError)
    assert store.get("new") is None
    assert [s.state for s in map(store.get, ("claimed", "dead", "pending")) if s is not None] == [
        EventState.CLAIMED,
        EventState.DEAD,
        EventState.PENDING,
    ]


def test_duplicate_into_a_full_store_is_still_answered() -> None:
    """A redelivery of a stored id needs no room, so a full store still answers DUPLICATE."""
    store = MemoryStore(max_events=1)
    store.put(make_event("a"))

    assert store.put(make_event("a")) == PutResult.DUPLICATE


def test_put_many_is_all_or_nothing_when_full() -> None:
    """A batch that does not fit stores none of its events."""
    store = MemoryStore(max_events=3)
    _done(store, "done")
    store.put(make_event("pending"))

    with pytest.raises(StoreFullError):
        store.put_many([make_event("x"), make_event("y"), make_event("z")])

    assert [store.get(i) for i in ("x", "y", "z")] == [None, None, None]
    assert store.get("done") is not None


def test_put_many_never_evicts_an_id_of_its_own_batch() -> None:
    """The oldest done event, redelivered in the batch that needs room, stays as DUPLICATE."""
    store = MemoryStore(max_events=3)
    _done(store, "again")
    _done(store, "old")
    _done(store, "newer")

    results = store.put_many([make_event("again"), make_event("new")])
    store.put(make_event("newest"))

    assert results == [PutResult.DUPLICATE, PutResult.NEW]
    assert [store.get(i) is None for i in ("again", "old", "newer", "new", "newest")] == [
        True,  # evicted by "newest": it still was the oldest done event
        True,
        False,
        False,
        False,
    ]


def test_heaps_stay_bounded_under_long_leases() -> None:
    """Acks and extends leave no unbounded trail of stale heap entries behind."""
    clock = FakeClock()
    store = MemoryStore(max_events=100, clock=clock)

    for n in range(5_000):
        store.put(make_event(f"ev-{n}"))
        (claim,) = store.claim(owner="w", lease=3600)
        store.extend(claim, lease=3600)
        store.ack(claim)

    assert len(store._waiting) + len(store._ready) < 3_000


@pytest.mark.parametrize(
    "options",
    [
        {"max_events": 0},
        {"max_attempts": 0},
        {"max_attempts": True},
        {"retention": dt.timedelta(seconds=-1)},
    ],
)
def test_bad_options_are_refused(options: dict[str, object]) -> None:
    """An out-of-range option raises ConfigurationError (also a ValueError)."""
    with pytest.raises(ConfigurationError):
        MemoryStore(**options)  # type: ignore[arg-type]


def test_closed_store_refuses_use() -> None:
    """After close (here by leaving a with block) every call raises StoreError."""
    with MemoryStore() as store:
        store.put(make_event("a"))

    with pytest.raises(StoreError, match="closed"):
        store.get("a")
    with pytest.raises(StoreError, match="closed"):
        store.put(make_event("b"))


def test_repr_shows_the_bound() -> None:
    """The repr names the class and its bound."""
    assert repr(MemoryStore(max_events=10)) == "MemoryStore(max_events=10)"


@pytest.mark.parametrize(
    ("event", "message"),
    [
        (make_event(""), "non-empty string id"),
        (attrs.evolve(make_event("ev-1"), tipo=None), "string tipo"),
    ],
)
def test_put_refuses_an_event_without_id_or_tipo(event: Envelope, message: str) -> None:
    """An event without a usable id or tipo is refused before anything is stored."""
    store = MemoryStore()

    with pytest.raises(ValueError, match=message):
        store.put_many([make_event("ok"), event])
    assert store.get("ok") is None


def test_claim_refuses_an_empty_owner_and_a_non_numeric_lease() -> None:
    """owner must be a non-empty string and lease a number of seconds."""
    store = MemoryStore()

    with pytest.raises(ValueError, match="owner"):
        store.claim(owner="", lease=30)
    with pytest.raises(TypeError, match="lease must be a number"):
        store.claim(owner="w", lease="30")  # type: ignore[arg-type]


def test_clock_must_be_callable() -> None:
    """A clock that cannot be called is refused when the store is built."""
    with pytest.raises(ConfigurationError, match="clock"):
        MemoryStore(clock=1_700_000_000.0)  # type: ignore[arg-type]


def test_options_are_readable() -> None:
    """The limits a store was built with can be read back."""
    store = MemoryStore(max_events=5, max_attempts=3, retention=dt.timedelta(hours=2))

    assert (store.max_events, store.max_attempts, store.retention) == (
        5,
        3,
        dt.timedelta(hours=2),
    )
