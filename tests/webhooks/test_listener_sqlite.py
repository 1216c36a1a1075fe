"""SQLiteStore: waking waiters through PRAGMA data_version, across processes."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from listener_contract import SharedListenerContract, started_listener, until, wait_in_thread
from outcome_events import REFERENCIA, event
from races import StoreSpec
from store_contract import StoreFactory, closing_factory

from smartpos.webhooks._sqlite import SQLiteStore

pytestmark = [pytest.mark.slow]


class TestSQLiteListener(SharedListenerContract):
    """The waking contract on SQLiteStore, one database file per store."""

    @pytest.fixture
    def make_store(self, tmp_path: Path) -> Iterator[StoreFactory]:
        """Fresh SQLiteStores on new files in tmp_path, closed after the test."""
        paths = (tmp_path / f"inbox-{n}.db" for n in range(1_000))

        def create(**options: Any) -> SQLiteStore:
            return SQLiteStore(next(paths), **options)

        with closing_factory(create) as factory:
            yield factory

    @pytest.fixture
    def spec(self, tmp_path: Path) -> StoreSpec:
        """A new SQLite file that each process opens on its own."""
        return StoreSpec(SQLiteStore, (str(tmp_path / "shared.db"),))


def test_waiter_wakes_when_the_newest_event_was_purged_and_its_seq_reused(
    tmp_path: Path,
) -> None:
    """Purging the newest event lets SQLite reuse its seq: the waiter still wakes."""
    with SQLiteStore(tmp_path / "inbox.db") as store:
        listener = started_listener(store)  # stores "warm-up", the newest event
        (claim,) = store.claim(owner="w", lease=30)
        store.ack(claim)
        wait = wait_in_thread(listener, REFERENCIA)
        until(lambda: listener.waiting() == 1, "the waiter")

        assert 1 == store.purge(done_before=dt.datetime.now(dt.timezone.utc) + dt.timedelta(1))
        store.put(event("reused", "pagamento.recusado"))

        outcome = wait.join()

    assert outcome is not None
    assert "reused" == outcome.id
