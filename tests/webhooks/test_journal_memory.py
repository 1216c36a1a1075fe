"""MemoryStore: the journal contract, plus its eviction of linked events."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from journal_contract import JournalContract, begin_payment
from outcome_events import REFERENCIA, event
from sales_contract import SalesContract
from store_contract import StoreFactory, closing_factory

from smartpos.webhooks._memory import MemoryStore


class TestMemoryJournal(JournalContract):
    """The journal contract on MemoryStore."""

    @pytest.fixture
    def make_store(self) -> Iterator[StoreFactory]:
        """Fresh MemoryStores, closed after the test."""
        with closing_factory(MemoryStore) as factory:
            yield factory


class TestMemorySales(SalesContract):
    """The sales contract on MemoryStore."""

    @pytest.fixture
    def make_store(self) -> Iterator[StoreFactory]:
        """Fresh MemoryStores, closed after the test."""
        with closing_factory(MemoryStore) as factory:
            yield factory


def test_evicted_event_leaves_the_referencia_index() -> None:
    """An event evicted to make room is no longer found by its referencia."""
    store = MemoryStore(max_events=1)
    begin_payment(store)
    store.put(event("old", "pagamento.recusado"))
    store.ack(store.claim(owner="w", lease=30)[0])

    store.put(event("new", referencia="0f0e0d0c-1111-4222-8333-444455556666"))

    assert store.get("old") is None
    operation = store.operation(REFERENCIA)
    assert operation is not None
    assert (operation.event, operation.anomalies) == (None, ())
    assert store._by_referencia.keys() == {"0f0e0d0c-1111-4222-8333-444455556666"}
