"""MemoryStore: waking waiters from puts in the same process."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from listener_contract import WOKEN, ListenerContract, started_listener, until, wait_in_thread
from outcome_events import REFERENCIA, event
from store_contract import StoreFactory, closing_factory

from smartpos.webhooks._journal import JournalBase
from smartpos.webhooks._listener import ChangeSource, PollingChanges, listener_for
from smartpos.webhooks._memory import MemoryStore


class TestMemoryListener(ListenerContract):
    """The waking contract on MemoryStore (put calls the listener directly)."""

    @pytest.fixture
    def make_store(self) -> Iterator[StoreFactory]:
        """Fresh MemoryStores, closed after the test."""
        with closing_factory(MemoryStore) as factory:
            yield factory


class _NoFeedStore(MemoryStore):
    """A store without a change feed of its own: the listener falls back to polling."""

    def _change_source(self) -> ChangeSource:
        return JournalBase._change_source(self)


def test_a_store_without_a_feed_falls_back_to_one_polling_thread() -> None:
    """The default source wakes every waiter at an interval: waits still end soon."""
    with _NoFeedStore() as store:
        listener = listener_for(store)
        assert isinstance(listener._source, PollingChanges)
        wait = wait_in_thread(listener, REFERENCIA)
        until(lambda: listener.waiting() == 1, "the waiter")

        store.put(event("ev-1", "pagamento.recusado"))
        outcome = wait.join()

    assert outcome is not None
    assert "ev-1" == outcome.id


def test_a_dropped_store_stops_its_listener() -> None:
    """The listeners' registry holds stores weakly: once dropped, the thread ends."""
    store = MemoryStore()
    listener = started_listener(store)
    thread = listener._thread
    assert thread is not None

    del store
    gc.collect()
    thread.join(timeout=WOKEN)

    assert not thread.is_alive()
    assert listener.stopped


def test_a_closed_listener_is_replaced() -> None:
    """listener.close() ends its thread; listener_for(store) then makes a working new one."""
    with MemoryStore() as store:
        listener = started_listener(store)
        thread = listener._thread
        assert thread is not None

        listener.close()
        thread.join(timeout=WOKEN)
        stopped = not thread.is_alive()
        again = started_listener(store)

    assert stopped
    assert again is not listener
