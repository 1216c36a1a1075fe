"""Async waiters on both of anyio's backends: asyncio (a bare future and one timer per sleep)
and trio (an ``anyio.Event``): woken by an event stored from another thread, and timing out
when nothing comes."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
from outcome_events import REFERENCIA, event

from smartpos.webhooks import MemoryStore
from smartpos.webhooks._listener import AsyncOutcomeWaiter

trio = pytest.importorskip("trio")

Runner = Callable[[Callable[[], Coroutine[Any, Any, Any]]], Any]
RUNNERS: dict[str, Runner] = {"asyncio": lambda main: asyncio.run(main()), "trio": trio.run}


@pytest.mark.parametrize("backend", sorted(RUNNERS))
def test_async_waiter_wakes_on_an_event_stored_by_another_thread(backend: str) -> None:
    store = MemoryStore()
    waiting = threading.Event()

    def store_later() -> None:
        waiting.wait(10)
        store.put(event("ev-1"))

    async def main() -> Any:
        waiter = AsyncOutcomeWaiter(store)
        waiting.set()
        return await waiter.wait(REFERENCIA, timeout=30)

    writer = threading.Thread(target=store_later)
    writer.start()
    found = RUNNERS[backend](main)
    writer.join(10)
    assert found is not None
    assert found.id == "ev-1"


@pytest.mark.parametrize("backend", sorted(RUNNERS))
def test_async_waiter_times_out_when_nothing_comes(backend: str) -> None:
    store = MemoryStore()

    async def main() -> Any:
        return await AsyncOutcomeWaiter(store).wait(REFERENCIA, timeout=0.2)

    assert RUNNERS[backend](main) is None
