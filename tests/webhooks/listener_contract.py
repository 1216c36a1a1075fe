"""Waking: what every store's change listener must do, written once and run by every backend.

A backend plugs in by subclassing ``ListenerContract`` and overriding two fixtures:
``make_store`` (as in ``store_contract.py``: a factory of fresh, empty stores on the wall
clock) and ``spec``, a picklable ``StoreSpec`` of one fresh store that other processes open.
Nothing here measures time: a wait that should wake has a generous deadline, and the test
asserts what it returned.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, cast

import anyio
import pytest
from journal_contract import begin_payment
from outcome_events import REFERENCIA, event
from races import StoreSpec, _collect, _context, _report, _started
from store_contract import StoreFactory

from smartpos.webhooks._listener import (
    AsyncOutcomeWaiter,
    ChangeListener,
    OutcomeWaiter,
    listener_for,
)
from smartpos.webhooks._store import StoreBase

__all__ = [
    "WOKEN",
    "ListenerContract",
    "referencias",
    "started_listener",
    "until",
    "wait_in_thread",
]

#: Deadline of a wait that must wake: only reached when the listener failed.
WAKE = 60.0
#: A wait that must wake returns within this many seconds of the put, long before its
#: deadline (WAKE): only a wake-up can make it return in time, however slow the machine.
WOKEN = 15.0


def referencias(count: int, tag: str = "a") -> list[str]:
    """Distinct UUID-first referencias."""
    return [f"{n:08d}-{tag * 4}-4bbb-8ccc-000000000000" for n in range(count)]


def until(condition: Callable[[], bool], what: str, timeout: float = WOKEN) -> None:
    """Wait for ``condition`` (polled every 10 ms), failing with ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


class _Wait:
    """A sync wait in a thread, its result kept."""

    def __init__(self, listener: ChangeListener, referencia: str, seconds: float) -> None:
        self.result: Any = "not returned"
        self.error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._run, args=(listener, referencia, seconds), daemon=True
        )
        self._thread.start()

    def _run(self, listener: ChangeListener, referencia: str, seconds: float) -> None:
        try:
            self.result = listener.wait_for(referencia, time.monotonic() + seconds)
        except BaseException as exc:
            self.error = exc

    def join(self, within: float = WOKEN) -> Any:
        """The result, which must come ``within`` seconds (long before the deadline)."""
        self._thread.join(timeout=within)
        assert not self._thread.is_alive(), f"the wait was not woken within {within} s"
        if self.error is not None:
            raise self.error
        return self.result


def _id(outcome: Any) -> str | None:
    return None if outcome is None else str(outcome.id)


def _started_listener(store: StoreBase) -> ChangeListener:
    """The store's listener, running and subscribed (proved by one wake)."""
    listener = listener_for(store)
    warm = "ffffffff-eeee-4ddd-8ccc-000000000000"
    before = listener.checks
    wait = _Wait(listener, warm, WAKE)
    # After its first check, only a wake-up (from a live source) can end the wait in time.
    until(lambda: listener.checks > before, "the warm-up waiter's first check")
    store.put(event("warm-up", "pagamento.aprovado", warm))
    assert "warm-up" == _id(wait.join())
    return listener


# Another process's puts.


def _putter(spec: StoreSpec, ids_and_refs: list[tuple[str, str]], go: Any, results: Any) -> None:
    def work() -> int:
        store = spec.open()
        try:
            go.wait(timeout=60)
            for event_id, referencia in ids_and_refs:
                store.put(event(event_id, "pagamento.recusado", referencia))
            return len(ids_and_refs)
        finally:
            store.close()

    _report(results, work)


class ListenerContract:
    """Waking tests for one backend; a subclass overrides ``make_store`` and ``spec``."""

    @pytest.fixture
    def make_store(self) -> StoreFactory:
        """The backend's store factory: every subclass overrides this fixture."""
        raise NotImplementedError

    @pytest.fixture
    def store(self, make_store: StoreFactory) -> StoreBase:
        """A fresh store on the wall clock."""
        return cast(StoreBase, make_store())

    def test_an_outcome_already_stored_returns_at_once(self, store: StoreBase) -> None:
        """A wait for a referencia whose event is stored returns it without waiting."""
        store.put(event("ev-1"))

        outcome = listener_for(store).wait_for(REFERENCIA, time.monotonic() + WAKE)

        assert "ev-1" == _id(outcome)

    def test_deadline_without_an_event_returns_none(self, store: StoreBase) -> None:
        """No event before the deadline: None, and the waiter is gone."""
        listener = listener_for(store)

        outcome = listener.wait_for(REFERENCIA, time.monotonic() + 0.2)

        assert outcome is None
        assert 0 == listener.waiting()

    def test_a_put_from_another_thread_wakes_the_waiter(self, store: StoreBase) -> None:
        """The waiter sleeps until the put, then returns the event."""
        listener = _started_listener(store)
        wait = _Wait(listener, REFERENCIA, WAKE)
        until(lambda: listener.waiting() == 1, "the waiter")

        store.put(event("ev-1", "pagamento.recusado"))

        assert "ev-1" == _id(wait.join())

    def test_journaled_wait_ignores_a_forged_event(self, store: StoreBase) -> None:
        """A disagreeing approval does not end the wait; the real refusal after it does."""
        begin_payment(store)
        listener = _started_listener(store)
        wait = _Wait(listener, REFERENCIA, WAKE)
        until(lambda: listener.waiting() == 1, "the waiter")

        store.put(event("forged", valor=1))
        store.put(event("real", "pagamento.recusado"))

        assert "real" == _id(wait.join())

    def test_only_the_named_referencia_checks_again(self, store: StoreBase) -> None:
        """With 20 waiters, a put for one of them makes that one check the store, no other."""
        listener = _started_listener(store)
        refs = referencias(20)
        before = listener.checks
        waits = [_Wait(listener, r, WAKE) for r in refs]
        until(lambda: listener.waiting() == 20, "20 waiters")
        until(lambda: listener.checks >= before + 20, "the first checks")
        broadcasts = listener.broadcasts

        store.put(event("ev-5", "pagamento.recusado", refs[5]))
        first = _id(waits[5].join())
        store.put(event("ev-6", "pagamento.recusado", refs[6]))
        second = _id(waits[6].join())

        assert ("ev-5", "ev-6") == (first, second)
        # Exactly one check per woken waiter; only a source that (re)connected meanwhile and
        # woke everyone (a broadcast, counted) may explain more.
        extra = 20 * (listener.broadcasts - broadcasts)
        assert before + 22 <= listener.checks <= before + 22 + extra, (
            before,
            listener.checks,
            listener.broadcasts - broadcasts,
        )
        for referencia in refs:
            store.put(event(f"end-{referencia}", "pagamento.recusado", referencia))
        assert all(w.join() is not None for w in waits)

    def test_outcome_waiter(self, store: StoreBase) -> None:
        """OutcomeWaiter(store).wait(referencia, timeout) is the sync clients' entry point."""
        store.put(event("ev-1"))

        assert "ev-1" == _id(OutcomeWaiter(store).wait(REFERENCIA, WAKE))
        assert OutcomeWaiter(store).wait("0f0e0d0c-1111-4222-8333-444455556666", 0.1) is None

    def test_async_waits_wake_and_never_block_the_loop(self, store: StoreBase) -> None:
        """Fifty async waiters wake on their puts; no store check runs on the loop's thread."""
        refs = referencias(50, "b")
        checked_on: set[int] = set()
        original = store._outcome

        def recording(referencia: str) -> Any:
            checked_on.add(threading.get_ident())
            return original(referencia)

        store._outcome = recording  # type: ignore[method-assign]
        listener = listener_for(store)

        async def main() -> tuple[list[str | None], int]:
            loop_thread = threading.get_ident()
            results: list[str | None] = [None] * len(refs)

            async def wait_one(n: int) -> None:
                waiter = AsyncOutcomeWaiter(store)
                results[n] = _id(await waiter.wait(refs[n], WAKE))

            # Only wake-ups can end the 60 s waits within WOKEN.
            with anyio.fail_after(WOKEN):
                async with anyio.create_task_group() as tg:
                    for n in range(len(refs)):
                        tg.start_soon(wait_one, n)
                    await anyio.to_thread.run_sync(
                        lambda: until(lambda: listener.waiting() == len(refs), "the waiters")
                    )
                    await anyio.to_thread.run_sync(
                        lambda: [store.put(event(f"ev-{r}", "pagamento.recusado", r)) for r in refs]
                    )
            return results, loop_thread

        results, loop_thread = anyio.run(main)

        assert [f"ev-{r}" for r in refs] == results
        assert checked_on
        assert loop_thread not in checked_on

    def test_closing_the_store_stops_the_listener(self, make_store: StoreFactory) -> None:
        """The listener's thread ends once its store is closed."""
        store = cast(StoreBase, make_store())
        listener = _started_listener(store)
        thread = listener._thread
        assert thread is not None

        store.close()
        listener.notify(None)
        thread.join(timeout=WAKE)

        assert not thread.is_alive()


class SharedListenerContract(ListenerContract):
    """The contract of a store other processes open too (every backend but MemoryStore)."""

    @pytest.fixture
    def spec(self) -> StoreSpec:
        """One fresh store that other processes open: every subclass overrides this fixture."""
        raise NotImplementedError

    def test_puts_from_another_process_wake_waiters(self, spec: StoreSpec) -> None:
        """Events stored by another process wake this process's sync and async waiters."""
        refs = referencias(20, "c")
        store = cast(StoreBase, spec.open())
        try:
            listener = listener_for(store)
            sync_waits = [_Wait(listener, r, WAKE) for r in refs[:10]]
            ctx = _context()
            go, results = ctx.Event(), ctx.Queue()
            putter = ctx.Process(
                target=_putter, args=(spec, [(f"ev-{r}", r) for r in refs], go, results)
            )

            async def async_waits() -> list[str | None]:
                out: list[str | None] = [None] * 10

                async def one(n: int) -> None:
                    out[n] = _id(await AsyncOutcomeWaiter(store).wait(refs[10 + n], WAKE))

                with anyio.fail_after(WOKEN):  # only wake-ups end the 60 s waits in time
                    async with anyio.create_task_group() as tg:
                        for n in range(10):
                            tg.start_soon(one, n)
                        await anyio.to_thread.run_sync(
                            lambda: until(lambda: listener.waiting() == 20, "the waiters")
                        )
                        go.set()
                return out

            with _started([putter]):
                async_results = anyio.run(async_waits)
                _collect(results, [putter], 1, WAKE)
            sync_results = [_id(w.join()) for w in sync_waits]
        finally:
            store.close()

        assert [f"ev-{r}" for r in refs] == sync_results + async_results


def wait_in_thread(listener: ChangeListener, referencia: str, seconds: float = WAKE) -> _Wait:
    """Start a sync wait in a thread (for backend-specific tests)."""
    return _Wait(listener, referencia, seconds)


def started_listener(store: StoreBase) -> ChangeListener:
    """The store's listener, proved running by one wake (for backend-specific tests)."""
    return _started_listener(store)
