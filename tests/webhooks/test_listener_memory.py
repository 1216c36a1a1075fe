"""MemoryStore: waking waiters from puts in the same process."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from listener_contract import ListenerContract
from races import StoreSpec
from store_contract import StoreFactory, closing_factory

from smartpos.webhooks._memory import MemoryStore


class TestMemoryListener(ListenerContract):
    """The waking contract on MemoryStore (put calls the listener directly)."""

    @pytest.fixture
    def make_store(self) -> Iterator[StoreFactory]:
        """Fresh MemoryStores, closed after the test."""
        with closing_factory(MemoryStore) as factory:
            yield factory

    @pytest.fixture
    def spec(self) -> StoreSpec:
        """A MemoryStore lives in one process: no other process can put into it."""
        pytest.skip("a MemoryStore lives in one process")
