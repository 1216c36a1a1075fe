"""Waking: what every store's change listener must do, written once and run by every backend.

A backend plugs in by subclassing ``ListenerContract`` and overriding two fixtures:
``make_store`` (as in ``store_contract.py``: a factory of fresh, empty stores on the wall
clock) and ``spec``, a picklable ``StoreSpec`` of one fresh store that other processes open.
Nothing here measures time: a wait that should wake has a generous deadline, and the test
asserts what it returned.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, cast

import anyio
import pytest
from journal_contract import begin_payment
from outcome_events import REFERENCIA, event
from races import _ERROR, StoreSpec, _collect, _context, _report, _started
from sales_contract import attempt
from sales_contract import refs as sale_refs
from store_contract import StoreFactory

from smartpos.integrations._status import StatusHub
from smartpos.webhooks._listener import (
    AsyncOutcomeWaiter,
    ChangeListener,
    OutcomeWaiter,
    _Waiter,
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


# Journal writes (no event stored), one step at a time: what each step writes, and the
# referencia its change must name.

_A, _B, _S1, _S2 = sale_refs(4, prefix="7c4a")
_SALE = "balcao-7"
JOURNAL_STEPS: tuple[tuple[str, str], ...] = (
    ("an operation journaled", _A),
    ("its answer recorded: accepted", _A),
    ("another operation journaled", _B),
    ("its answer recorded: unknown", _B),
    ("a sale's attempt journaled", _S1),
    ("the attempt accepted", _S1),
    ("the attempt abandoned (client.abandon)", _S1),
    ("a new attempt of the sale journaled", _S2),
    ("the new attempt's answer recorded: unknown", _S2),
)


def journal_step(store: StoreBase, step: int) -> str:
    """Make journal write number ``step`` of JOURNAL_STEPS; its referencia."""
    what, referencia = JOURNAL_STEPS[step]
    if step in (0, 2):
        written = begin_payment(store, referencia)[1]
    elif step in (1, 5):
        written = store._record_operation(referencia, "accepted")
    elif step in (3, 8):
        written = store._record_operation(referencia, "unknown")
    elif step in (4, 7):
        written = attempt(store, referencia, _SALE, total=3000, smartpos_id=None)[1]
    else:
        store._abandon(_SALE, motivo="the customer left", operador="op-1")
        sale = store.sale(_SALE)
        written = sale is not None and any(
            a.referencia == referencia and a.abandoned is not None for a in sale.attempts
        )
    assert written, f"step {step} ({what}) wrote nothing"
    return referencia


class _Seen:
    """What a listener's watcher was called with, in order (the source's thread appends)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._changes: list[frozenset[str] | None] = []

    def __call__(self, named: frozenset[str] | None) -> None:
        with self._changed:
            self._changes.append(named)
            self._changed.notify_all()

    def mark(self) -> int:
        """Where the changes after now start."""
        with self._changed:
            return len(self._changes)

    def named(self, referencia: str, since: int, *, everyone_counts: bool) -> bool:
        """Whether a change after ``since`` names ``referencia`` (waits up to WOKEN seconds).

        ``everyone_counts``: a change naming nobody (every waiter re-checks) counts too: a
        store without a change feed has only those.
        """
        deadline = time.monotonic() + WOKEN
        with self._changed:
            while True:
                for change in self._changes[since:]:
                    if (referencia in change) if change is not None else everyone_counts:
                        return True
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._changed.wait(remaining)


def _hub_until(hub: StatusHub, key: Any, waiter: _Waiter, condition: Callable[[Any], bool]) -> Any:
    """The hub's view of ``key`` once ``condition`` holds, woken by the hub (WOKEN at most)."""
    deadline = time.monotonic() + WOKEN
    while True:
        waiter.clear()
        view = hub.view(key)
        if view is not None and condition(view):
            return view
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return view
        waiter.sleep(remaining)


# Another process's journal writes, one step at a time as the parent asks.


def _journal_writer(spec: StoreSpec, steps: Any, done: Any) -> None:
    store = spec.open()
    try:
        while True:
            step = steps.get(timeout=WAKE)
            if step is None:
                return
            _report(done, lambda step=step: (step, journal_step(store, step)))
    finally:
        store.close()


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

    #: Whether the store's change feed names the referencia of a journal write (a store that
    #: is polled wakes everyone instead: ``False``).
    names_journal_writes = True

    @pytest.fixture
    def watched(self, store: StoreBase) -> StoreBase:
        """The store this process watches (for a shared backend: opened from ``spec``)."""
        return store

    @pytest.fixture
    def writer(self, watched: StoreBase) -> Callable[[int], str]:
        """Makes journal step N (``journal_step``) where the watched store sees it: here, in
        this process (a shared backend: in another process); returns its referencia."""
        return lambda step: journal_step(watched, step)

    def test_every_journal_write_reaches_a_watcher_naming_its_referencia(
        self, watched: StoreBase, writer: Callable[[int], str]
    ) -> None:
        """An operation journaled, accepted, unknown, a sale's attempt, its abandon, a new
        attempt: each write is a change naming the operation's referencia (no event stored)."""
        seen = _Seen()
        unwatch = listener_for(watched).watch(seen)
        try:
            missed = []
            for step, (what, _) in enumerate(JOURNAL_STEPS):
                since = seen.mark()
                referencia = writer(step)
                if not seen.named(referencia, since, everyone_counts=not self.names_journal_writes):
                    missed.append(what)
        finally:
            unwatch()

        assert [] == missed

    def test_a_followed_sale_shows_journal_writes_without_a_resync(
        self, watched: StoreBase, writer: Callable[[int], str]
    ) -> None:
        """A status hub that never re-reads on its own (``resync=None``) shows a sale's
        attempt waiting, then abandoned, then the new attempt: the journal's writes wake it."""
        key = ("sale", _SALE)
        hub = StatusHub(watched, resync=None)
        waiter = _Waiter()
        hub.subscribe(key, waiter)
        try:
            writer(4)  # the sale's first attempt: "sending"
            # Never read by this test: the hub learns of the sale from the attempt's write.
            first = _hub_until(hub, key, waiter, lambda v: v["open_attempt"] == _S1)
            writer(5)
            waiting = _hub_until(hub, key, waiter, lambda v: v["status"] == "waiting")
            writer(6)
            abandoned = _hub_until(hub, key, waiter, lambda v: v["status"] == "abandoned")
            writer(7)  # a referencia the hub does not know yet, of the followed sale
            second = _hub_until(hub, key, waiter, lambda v: v["open_attempt"] == _S2)
            writer(8)
            unknown = _hub_until(hub, key, waiter, lambda v: v["status"] == "unknown")
        finally:
            hub.close()

        assert ("sending", _S1) == (first["status"], first["open_attempt"])
        assert ("waiting", _S1) == (waiting["status"], waiting["open_attempt"])
        assert ("abandoned", None) == (abandoned["status"], abandoned["open_attempt"])
        assert ("sending", _S2) == (second["status"], second["open_attempt"])
        assert ("unknown", _S2) == (unknown["status"], unknown["open_attempt"])

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

    @pytest.fixture
    def watched(self, spec: StoreSpec) -> Iterator[StoreBase]:
        """This process's store on the spec's database, closed after the test."""
        store = cast(StoreBase, spec.open())
        try:
            yield store
        finally:
            store.close()

    @pytest.fixture
    def writer(self, spec: StoreSpec) -> Iterator[Callable[[int], str]]:
        """Journal steps made by another process on the spec's database."""
        ctx = _context()
        steps, done = ctx.Queue(), ctx.Queue()
        child = ctx.Process(target=_journal_writer, args=(spec, steps, done))

        def write(step: int) -> str:
            steps.put(step)
            deadline = time.monotonic() + WAKE
            while True:
                try:
                    answer = done.get(timeout=0.2)
                except queue.Empty:
                    if not child.is_alive() or time.monotonic() > deadline:
                        raise AssertionError(
                            f"the writing process did not make step {step} "
                            f"(exit code {child.exitcode})"
                        ) from None
                    continue
                if answer[0] == _ERROR:
                    raise AssertionError(f"the writing process failed:\n{answer[1]}")
                assert step == answer[0]
                return str(answer[1])

        with _started([child]), contextlib.ExitStack() as stack:
            stack.callback(steps.put, None)
            yield write

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
