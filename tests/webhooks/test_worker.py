"""Worker and AsyncWorker: ack, nack with backoff, dead letters, leases, graceful stop."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import os
import signal
import threading
from collections.abc import Callable
from typing import Any

import pytest

from smartpos import ConfigurationError
from smartpos._signals import stop_on_signals
from smartpos.webhooks import (
    AsyncWorker,
    Claim,
    Envelope,
    Event,
    EventState,
    MemoryStore,
    PagamentoAprovado,
    StoreError,
    Worker,
    parse_event,
)
from smartpos.webhooks._seconds import check_seconds
from smartpos.webhooks._worker import backoff_delay, error_text

DOC = "52998224725"
T0 = 1_800_000_000.0
UTC = dt.timezone.utc


class Clock:
    """A clock that only moves when told."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


def event(event_id: str, minute: int = 0, **dados: Any) -> Event:
    """A typed pagamento.aprovado created at 12:<minute>."""
    return parse_event(
        {
            "id": event_id,
            "tipo": "pagamento.aprovado",
            "criadoEm": f"2026-05-04T12:{minute:02d}:00Z",
            "dados": {"referencia": "r", "documentoCliente": DOC, "status": "aprovado", **dados},
        }
    )


def state(store: MemoryStore, event_id: str) -> EventState:
    """The stored state of an event."""
    stored = store.get(event_id)
    assert stored is not None
    return stored.state


#: A lease on the hand-moved clock of Watched: the heartbeat tests move it, nothing waits it out.
LEASE = 30.0


class Watched(MemoryStore):
    """A MemoryStore on a hand-moved clock that tells the test about every lease extension.

    The heartbeat tests move the clock past a lease instead of sleeping through it, and wait
    for the heartbeat's extensions instead of hoping one happened: nothing depends on timing.
    """

    def __init__(self, *, refuse_extensions: bool = False) -> None:
        self.clock = Clock()
        super().__init__(clock=self.clock)
        self.refuse_extensions = refuse_extensions
        self.changed = threading.Condition()
        #: (event id, clock time when the extension was asked) of every extend call.
        self.extensions: list[tuple[str, float]] = []

    def extend(self, claim: Claim, *, lease: float) -> bool:
        asked_at = self.clock.now  # the new lease runs from here or later
        kept = False if self.refuse_extensions else super().extend(claim, lease=lease)
        with self.changed:
            self.extensions.append((claim.event_id, asked_at))
            self.changed.notify_all()
        return kept

    def wait_until(self, what: str, predicate: Callable[[], bool]) -> None:
        """Block until ``predicate()`` holds after an extension; fail after a generous deadline."""
        with self.changed:
            assert self.changed.wait_for(predicate, timeout=10), f"the heartbeat never {what}"

    def wait_extended(self, *event_ids: str) -> None:
        """Block until the heartbeat has extended each lease at the clock's current time."""
        now = self.clock.now

        def extended() -> bool:
            return set(event_ids) <= {i for i, asked_at in self.extensions if asked_at >= now}

        self.wait_until(f"extended {event_ids} at {now}", extended)

    def skip_most_of_the_lease(self) -> None:
        """Move the clock 90% of a lease on: an unextended claim expires in two such moves."""
        self.clock.now += 0.9 * LEASE


def test_success_is_acked_in_criado_em_order() -> None:
    """Handled events are acked (done) and handed over oldest criado_em first."""
    store = MemoryStore()
    store.put(event("late", minute=9))
    store.put(event("early", minute=1))
    seen: list[str] = []
    worker = Worker(store, lambda e: seen.append(e.id), base_backoff=0)
    assert worker.run_once() == 2
    assert seen == ["early", "late"]
    assert state(store, "early") is state(store, "late") is EventState.DONE
    assert worker.run_once() == 0


def test_handler_gets_the_typed_event() -> None:
    """The handler receives the parsed, typed event."""
    store = MemoryStore()
    store.put(event("e1", valorCentavos=1500))
    got: list[Event] = []
    Worker(store, got.append).run_once()
    assert isinstance(got[0], PagamentoAprovado)
    assert got[0].dados.valor_centavos == 1500


def test_async_handler_is_refused_by_the_sync_worker() -> None:
    """An async def handler cannot go to Worker: it would ack events it never ran."""

    async def handler(_: Event) -> None:
        pass

    class Handler:
        async def __call__(self, _: Event) -> None:
            pass

    for candidate in (handler, Handler()):
        with pytest.raises(ConfigurationError, match="AsyncWorker"):
            Worker(MemoryStore(), candidate)


def test_handler_returning_an_awaitable_is_not_acked() -> None:
    """A sync handler that returns a coroutine did nothing: the event is nacked, never acked."""
    store = MemoryStore()
    store.put(event("e1"))
    ran: list[str] = []

    async def later(e: Event) -> None:
        ran.append(e.id)

    assert Worker(store, lambda e: later(e), base_backoff=0).run_once() == 1
    stored = store.get("e1")
    assert stored is not None
    assert (EventState.PENDING, 1, []) == (stored.state, stored.attempts, ran)
    assert stored.last_error is not None
    assert "AsyncWorker" in stored.last_error


def test_failure_is_nacked_with_backoff() -> None:
    """A raising handler: nack with a delay between half and all of base * 2**(n-1)."""
    clock = Clock()
    store = MemoryStore(clock=clock)
    store.put(event("e1"))

    def fail(_: Event) -> None:
        raise RuntimeError("erp offline")

    worker = Worker(store, fail, base_backoff=10.0, max_backoff=1000.0)
    assert worker.run_once() == 1
    stored = store.get("e1")
    assert stored is not None
    assert (stored.state, stored.attempts) == (EventState.PENDING, 1)
    assert stored.last_error == "RuntimeError: erp offline"
    assert stored.available_at is not None
    delay = stored.available_at.timestamp() - T0
    assert 5.0 <= delay <= 10.0
    assert worker.run_once() == 0  # not available yet
    clock.now += 10.0
    assert worker.run_once() == 1
    second = store.get("e1")
    assert second is not None
    assert second.available_at is not None
    assert 10.0 <= second.available_at.timestamp() - clock.now <= 20.0


def test_failures_end_in_the_dead_state() -> None:
    """After max_attempts failures the store moves the event to dead."""
    store = MemoryStore(max_attempts=3)
    store.put(event("e1"))
    calls: list[int] = []

    def fail(_: Event) -> None:
        calls.append(1)
        raise ValueError("no")

    worker = Worker(store, fail, base_backoff=0)
    for _ in range(5):
        worker.run_once()
    assert len(calls) == 3
    assert state(store, "e1") is EventState.DEAD
    assert [d.id for d in store.dead()] == ["e1"]


def test_error_text_masks_documents_and_is_bounded() -> None:
    """Recorded errors mask CPF/CNPJ shapes and are cut to a bounded length."""
    text = error_text(KeyError(f"cliente {DOC} / 529.982.247-25 / 12.ABC.345/01DE-35"))
    assert DOC not in text
    assert "529.982.247-25" not in text
    assert "12.ABC.345/01DE-35" not in text
    assert text.startswith("KeyError: ")
    assert "529.***.***-25" in text
    assert len(error_text(RuntimeError("x" * 5000))) == 500
    assert error_text(RuntimeError()) == "RuntimeError"


def test_recorded_error_has_no_document() -> None:
    """A handler whose exception names the customer's document leaves it out of the store."""
    store = MemoryStore()
    store.put(event("e1"))

    def fail(e: Event) -> None:
        raise LookupError(f"customer {e.dados.documento_cliente} unknown")  # type: ignore[union-attr]

    Worker(store, fail, base_backoff=0).run_once()
    stored = store.get("e1")
    assert stored is not None
    assert stored.last_error == "LookupError: customer 529.***.***-25 unknown"


def test_schema_mismatch_is_dead_lettered_at_once() -> None:
    """An event whose dados does not parse is dead-lettered on its first claim."""

    raw = {"id": "bad", "tipo": "pagamento.aprovado", "criadoEm": "x", "dados": {}}
    store = MemoryStore(max_attempts=10)
    store.put(Envelope("bad", "pagamento.aprovado", None, raw))
    handled: list[Event] = []
    assert Worker(store, handled.append).run_once() == 1
    stored = store.get("bad")
    assert stored is not None
    assert (stored.state, stored.attempts, handled) == (EventState.DEAD, 1, [])
    assert stored.last_error == "InvalidEventError: $.criadoEm: expected an ISO 8601 date-time"


def test_heartbeat_extends_the_lease_of_a_slow_handler() -> None:
    """While a handler outlives the lease, the heartbeat keeps others from claiming it."""
    store = Watched()
    store.put(event("slow"))
    stolen: list[Claim] = []

    def slow(_: Event) -> None:
        for _beat in range(3):  # 2.7 leases in all
            store.wait_extended("slow")
            store.skip_most_of_the_lease()
            stolen.extend(store.claim(owner="other", lease=5, limit=1))

    worker = Worker(store, slow, lease=LEASE, heartbeat=0.01)
    assert 1 == worker.run_once()
    assert [] == stolen
    stored = store.get("slow")
    assert stored is not None
    assert (EventState.DONE, 1) == (stored.state, stored.attempts)


def test_heartbeat_covers_events_waiting_in_the_batch() -> None:
    """Events claimed in the same batch keep their lease while earlier ones are handled."""
    store = Watched()
    ids = ["e0", "e1", "e2"]
    for n, event_id in enumerate(ids):
        store.put(event(event_id, minute=n))
    stolen: list[Claim] = []

    def slow(e: Event) -> None:
        unfinished = ids[ids.index(e.id) :]  # this event and the ones waiting for their turn
        for _beat in range(2):  # 1.8 leases per event: past the lease of every waiting claim
            store.wait_extended(*unfinished)
            store.skip_most_of_the_lease()
            stolen.extend(store.claim(owner="other", lease=5, limit=3))

    assert 3 == Worker(store, slow, lease=LEASE, heartbeat=0.01, batch=3).run_once()
    assert [] == stolen
    # Acked: the handler ran to its end (a failed wait in it would have nacked the event).
    assert [EventState.DONE] * 3 == [state(store, event_id) for event_id in ids]


def test_claim_that_lost_its_lease_is_skipped() -> None:
    """When extend reports the lease lost, the waiting event is not handled by this worker."""
    store = Watched(refuse_extensions=True)
    store.put(event("first", minute=1))
    store.put(event("second", minute=2))
    handled: list[str] = []

    def slow(e: Event) -> None:
        handled.append(e.id)
        # A second refusal for "second" means the heartbeat's next beat began: it has recorded
        # the first refusal (each beat handles its claims one after the other).
        store.wait_until(
            "came back to 'second'",
            lambda: 2 <= [i for i, _ in store.extensions].count("second"),
        )

    assert 1 == Worker(store, slow, lease=LEASE, heartbeat=0.01, batch=2).run_once()
    assert ["first"] == handled
    assert EventState.DONE is state(store, "first")  # the wait in the handler did not fail


def test_refused_ack_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    """An ack refused by the store (lease lost) is logged as a warning, not raised."""

    class Refusing(MemoryStore):
        def ack(self, claim: Claim) -> bool:
            return False

    store = Refusing()
    store.put(event("e1"))
    with caplog.at_level(logging.WARNING, logger="smartpos.webhooks"):
        assert Worker(store, lambda _: None).run_once() == 1
    assert "ack was refused" in caplog.text


def _failing(_: Event) -> None:
    raise RuntimeError(f"gateway down for {DOC}")


def test_last_failed_attempt_is_logged_as_dead_lettered(caplog: pytest.LogCaptureFixture) -> None:
    """The last attempt's failure says the event goes to the dead letters, not "retry in"."""
    store = MemoryStore(max_attempts=2)
    store.put(event("e1", valorCentavos=4321))
    worker = Worker(store, _failing, base_backoff=0.0)

    with caplog.at_level(logging.WARNING, logger="smartpos.webhooks"):
        worker.run_once()
        worker.run_once()

    first, last = caplog.records
    assert (logging.WARNING, True) == (first.levelno, "retry in" in first.getMessage())
    assert logging.ERROR == last.levelno
    assert "retry in" not in last.getMessage()
    assert last.getMessage().startswith(
        "webhook event 'e1' ('pagamento.aprovado') failed on attempt 2, its last: moved to the "
        "dead letters"
    )
    assert last.getMessage().endswith("'RuntimeError: gateway down for 529.***.***-25'")
    assert EventState.DEAD is state(store, "e1")


def test_dead_lettering_never_logs_the_event_or_its_documents(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The dead-letter log names the id, tipo, attempt and error, never the body or a document."""
    store = MemoryStore(max_attempts=1)
    store.put(event("e1", valorCentavos=4321))

    with caplog.at_level(logging.DEBUG, logger="smartpos.webhooks"):
        Worker(store, _failing).run_once()

    assert "attempt 1, its last" in caplog.text
    assert DOC not in caplog.text
    assert "4321" not in caplog.text


def test_last_attempt_whose_lease_was_lost_is_not_called_dead(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A last attempt whose nack is refused (lease lost) says the new owner decides."""

    class Refusing(MemoryStore):
        def nack(self, claim: Claim, *, error: str, retry_in: float) -> bool:
            return False

    store = Refusing(max_attempts=1)
    store.put(event("e1"))

    with caplog.at_level(logging.WARNING, logger="smartpos.webhooks"):
        Worker(store, _failing).run_once()

    (record,) = caplog.records
    assert "its new owner decides" in record.getMessage()
    assert "dead letters" not in record.getMessage()


def test_schema_mismatch_dead_letter_log_names_the_attempt(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An event that does not fit the schema is logged as dead-lettered with its attempt."""
    raw = {"id": "e1", "tipo": "pagamento.aprovado", "criadoEm": "x", "dados": {}}
    store = MemoryStore()
    store.put(Envelope("e1", "pagamento.aprovado", None, raw))

    with caplog.at_level(logging.ERROR, logger="smartpos.webhooks"):
        Worker(store, lambda _: None).run_once()

    assert "webhook event 'e1' ('pagamento.aprovado') does not fit the schema on attempt 1" in (
        caplog.text
    )
    assert EventState.DEAD is state(store, "e1")


def test_stop_finishes_the_current_event_and_releases_the_rest() -> None:
    """stop() during a batch: the current event is acked, the others go back to pending."""
    store = MemoryStore()
    for n in range(3):
        store.put(event(f"e{n}", minute=n))
    handled: list[str] = []

    def handler(e: Event) -> None:
        handled.append(e.id)
        worker.stop()

    worker = Worker(store, handler, batch=3)
    assert worker.run_once() == 1
    assert handled == ["e0"]
    assert state(store, "e0") is EventState.DONE
    assert state(store, "e1") is state(store, "e2") is EventState.PENDING
    assert worker.stopping
    assert worker.run_once() == 0
    assert len(store.claim(owner="next", lease=5, limit=5)) == 2


def test_run_until_stop_event() -> None:
    """run() processes events as they arrive and returns once stop_event is set."""
    store = MemoryStore()
    handled: list[str] = []
    arrived = threading.Event()

    def handler(e: Event) -> None:
        handled.append(e.id)
        arrived.set()

    worker = Worker(store, handler, poll_interval=0.01)
    stop = threading.Event()
    thread = threading.Thread(target=worker.run, args=(stop,))
    thread.start()
    store.put(event("late-arrival"))
    assert arrived.wait(timeout=10), "the event put while run() was polling was never handled"
    stop.set()
    thread.join(timeout=10)
    assert not thread.is_alive()
    assert ["late-arrival"] == handled


def test_run_survives_store_failures(caplog: pytest.LogCaptureFixture) -> None:
    """A claim that raises StoreError is logged and retried; the loop goes on."""

    class Flaky(MemoryStore):
        failures = 2

        def claim(self, *, owner: str, lease: float, limit: int = 1) -> list[Claim]:
            if self.failures:
                self.failures -= 1
                raise StoreError("database is locked")
            return super().claim(owner=owner, lease=lease, limit=limit)

    store = Flaky()
    store.put(event("e1"))
    handled: list[str] = []

    def handler(e: Event) -> None:
        handled.append(e.id)
        worker.stop()

    worker = Worker(store, handler, poll_interval=0.01)
    with caplog.at_level(logging.ERROR, logger="smartpos.webhooks"):
        worker.run()
    assert handled == ["e1"]
    assert caplog.text.count("store failed") == 2


def test_sigterm_stops_run_gracefully() -> None:
    """With install_signal_handlers, SIGTERM stops run(); the old handler comes back."""
    before = signal.getsignal(signal.SIGTERM)
    polling = threading.Event()

    class Polled(MemoryStore):
        def claim(self, *, owner: str, lease: float, limit: int = 1) -> list[Claim]:
            polling.set()  # run() is in its loop: its signal handlers are installed
            return super().claim(owner=owner, lease=lease, limit=limit)

    worker = Worker(Polled(), lambda _: None, poll_interval=0.01, install_signal_handlers=True)

    def terminate() -> None:
        if polling.wait(timeout=10):
            os.kill(os.getpid(), signal.SIGTERM)

    # If SIGTERM did not stop run(), the watchdog does, so that the test fails, not hangs.
    watchdog_fired = threading.Event()
    watchdog = threading.Timer(30, lambda: (watchdog_fired.set(), worker.stop()))
    killer = threading.Thread(target=terminate)
    watchdog.start()
    killer.start()
    worker.run()
    watchdog.cancel()
    killer.join()
    assert not watchdog_fired.is_set(), "SIGTERM did not stop run(): the watchdog did"
    assert worker.stopping
    assert before is signal.getsignal(signal.SIGTERM)


def test_signal_handlers_only_in_main_thread(caplog: pytest.LogCaptureFixture) -> None:
    """Outside the main thread, run() logs that it cannot install signal handlers."""
    worker = Worker(MemoryStore(), lambda _: None, install_signal_handlers=True)
    worker.stop()
    with caplog.at_level(logging.WARNING, logger="smartpos.webhooks"):
        thread = threading.Thread(target=worker.run)
        thread.start()
        thread.join(timeout=5)
    assert "not in the main thread" in caplog.text


def test_backoff_delay() -> None:
    """Exponential, capped, jittered between half and all; zero base means no delay."""

    def top(low: float, high: float) -> float:
        return high

    def bottom(low: float, high: float) -> float:
        return low

    assert [backoff_delay(n, base=1, maximum=60, jitter=top) for n in (1, 2, 3, 7, 8, 100)] == [
        1.0,
        2.0,
        4.0,
        60.0,
        60.0,
        60.0,
    ]
    assert backoff_delay(3, base=1, maximum=60, jitter=bottom) == 2.0
    assert backoff_delay(5, base=0, maximum=60) == 0.0


@pytest.mark.parametrize(
    "options",
    [
        {"batch": 0},
        {"batch": True},
        {"lease": 0},
        {"lease": float("inf")},
        {"lease": 10**400},
        {"lease": "30"},
        {"poll_interval": -1},
        {"base_backoff": float("nan")},
        {"max_backoff": None},
        {"heartbeat": 0},
    ],
)
@pytest.mark.parametrize("worker_class", [Worker, AsyncWorker])
def test_worker_options_are_checked(options: dict[str, Any], worker_class: type[Any]) -> None:
    """A bad option is a ConfigurationError (a ValueError too) naming it, for both workers."""
    with pytest.raises(ConfigurationError, match=f"^{next(iter(options))} must be"):
        worker_class(MemoryStore(), lambda _: None, **options)


@pytest.mark.parametrize("worker_class", [Worker, AsyncWorker])
def test_a_handler_that_is_not_callable_is_refused(worker_class: type[Any]) -> None:
    """A handler that cannot be called is a ConfigurationError that names its type."""
    with pytest.raises(ConfigurationError, match="handler must be callable, not str"):
        worker_class(MemoryStore(), "handle")


@pytest.mark.parametrize(
    ("value", "positive", "expected"),
    [(1, True, 1.0), (0, False, 0.0), (0.25, True, 0.25), (2**53, False, float(2**53))],
)
def test_check_seconds_accepts_finite_durations(
    value: float, positive: bool, expected: float
) -> None:
    """The one seconds check returns a float for a finite duration in range."""
    assert expected == check_seconds("lease", value, positive=positive)


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("1", TypeError),
        (True, TypeError),
        (None, TypeError),
        (0, ValueError),
        (-1, ValueError),
        (float("nan"), ValueError),
        (float("inf"), ValueError),
        (10**400, ValueError),
    ],
)
def test_check_seconds_errors(value: object, error: type[Exception]) -> None:
    """A method argument gets TypeError or ValueError; a constructor option ConfigurationError."""
    with pytest.raises(error, match=r"^lease must be") as info:
        check_seconds("lease", value, positive=True)
    assert not isinstance(info.value, ConfigurationError)
    with pytest.raises(ConfigurationError, match=r"^lease must be .*\(or None\)"):
        check_seconds("lease", value, positive=True, option=True, or_none=True)


def test_default_owner_names_host_and_pid() -> None:
    """Without an owner, the claims are held under host:pid:random, unique per worker."""
    one, two = Worker(MemoryStore(), print), Worker(MemoryStore(), print)
    assert f":{os.getpid()}:" in one.owner
    assert one.owner != two.owner


# --- AsyncWorker ----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_async_worker_acks_and_nacks() -> None:
    """An async handler: success is acked, failure is nacked with the error recorded."""
    store = MemoryStore()
    store.put(event("ok", minute=1))
    store.put(event("bad", minute=2))
    seen: list[str] = []

    async def handler(e: Event) -> None:
        await asyncio.sleep(0)
        seen.append(e.id)
        if e.id == "bad":
            raise RuntimeError("later")

    worker = AsyncWorker(store, handler, base_backoff=0)
    assert await worker.run_once() == 2
    assert seen == ["ok", "bad"]
    assert state(store, "ok") is EventState.DONE
    bad = store.get("bad")
    assert bad is not None
    assert (bad.state, bad.last_error) == (EventState.PENDING, "RuntimeError: later")


@pytest.mark.asyncio
async def test_async_worker_acks_a_plain_function_handler() -> None:
    """A plain function handler ran when it returned: acked once, not nacked and run again."""
    store = MemoryStore()
    store.put(event("e1"))
    seen: list[str] = []

    worker = AsyncWorker(store, lambda e: seen.append(e.id), base_backoff=0)  # type: ignore[arg-type, func-returns-value]
    assert await worker.run_once() == 1
    assert await worker.run_once() == 0
    assert (["e1"], EventState.DONE) == (seen, state(store, "e1"))


@pytest.mark.asyncio
async def test_async_worker_heartbeat_and_run_until_stopped() -> None:
    """AsyncWorker.run extends the lease of a slow handler and stops on stop_event."""
    store = Watched()
    store.put(event("slow"))
    stop = asyncio.Event()
    stolen: list[Claim] = []

    async def handler(_: Event) -> None:
        for _beat in range(3):  # 2.7 leases in all
            # Waited for in a thread: the heartbeat task needs this loop to run.
            await asyncio.to_thread(store.wait_extended, "slow")
            store.skip_most_of_the_lease()
            stolen.extend(await asyncio.to_thread(store.claim, owner="x", lease=5))
        stop.set()

    worker = AsyncWorker(store, handler, lease=LEASE, heartbeat=0.01, poll_interval=0.01)
    await asyncio.wait_for(worker.run(stop), timeout=10)
    assert [] == stolen
    assert EventState.DONE is state(store, "slow")
    assert worker.stopping


@pytest.mark.asyncio
async def test_async_worker_dead_letters_schema_mismatch() -> None:
    """AsyncWorker dead-letters an event whose dados does not parse."""

    raw = {"id": "bad", "tipo": "pagamento.aprovado", "criadoEm": "2026-01-01", "dados": 1}
    store = MemoryStore()
    store.put(Envelope("bad", "pagamento.aprovado", dt.datetime(2026, 1, 1, tzinfo=UTC), raw))

    async def handler(_: Event) -> None:
        raise AssertionError("not called")

    assert await AsyncWorker(store, handler).run_once() == 1
    assert state(store, "bad") is EventState.DEAD


@pytest.mark.asyncio
async def test_async_worker_stop_releases_the_rest_of_the_batch() -> None:
    """AsyncWorker.stop() during a batch: the current event is acked, the others released."""
    store = MemoryStore()
    for n in range(3):
        store.put(event(f"e{n}", minute=n))

    async def handler(_: Event) -> None:
        worker.stop()

    worker = AsyncWorker(store, handler, batch=3)
    assert await worker.run_once() == 1
    assert state(store, "e0") is EventState.DONE
    assert state(store, "e1") is state(store, "e2") is EventState.PENDING
    assert await worker.run_once() == 0


# --- a failed ack gives the rest of the batch back at once ----------------------------------


class AckFails(MemoryStore):
    """A store whose ack of one event raises, like a database that just went away."""

    def __init__(self, failing: str, clock: Clock) -> None:
        super().__init__(clock=clock)
        self.failing = failing

    def ack(self, claim: Claim) -> bool:
        if claim.event_id == self.failing:
            raise StoreError("database is locked")
        return super().ack(claim)


def test_a_failed_ack_releases_the_rest_of_the_batch_at_once() -> None:
    """The store fails on e1's ack: run_once raises, and e2, e3 are claimable at once (not
    after the 30 s lease) with their attempts not counted; e1 waits out its lease."""
    clock = Clock()
    store = AckFails("e1", clock)
    for n in range(1, 4):
        store.put(event(f"e{n}", minute=n))
    handled: list[str] = []

    with pytest.raises(StoreError):
        Worker(store, lambda e: handled.append(e.id), batch=3, lease=30).run_once()

    again = store.claim(owner="next", lease=30, limit=5)
    assert handled == ["e1"]
    assert [(c.event_id, c.attempts) for c in again] == [("e2", 1), ("e3", 1)]
    assert state(store, "e1") is EventState.CLAIMED


@pytest.mark.asyncio
async def test_async_worker_a_failed_ack_releases_the_rest_of_the_batch() -> None:
    """AsyncWorker: the same, with the store calls in a thread."""
    clock = Clock()
    store = AckFails("e1", clock)
    for n in range(1, 4):
        store.put(event(f"e{n}", minute=n))

    async def handler(_: Event) -> None:
        return None

    with pytest.raises(StoreError):
        await AsyncWorker(store, handler, batch=3, lease=30).run_once()

    again = store.claim(owner="next", lease=30, limit=5)
    assert [(c.event_id, c.attempts) for c in again] == [("e2", 1), ("e3", 1)]


def test_an_interrupted_handler_releases_the_rest_of_the_batch() -> None:
    """Ctrl-C in a handler: the events after it are given back before the interrupt goes on."""
    store = MemoryStore()
    for n in range(1, 4):
        store.put(event(f"e{n}", minute=n))

    def handler(_: Event) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        Worker(store, handler, batch=3).run_once()

    assert [c.event_id for c in store.claim(owner="next", lease=30, limit=5)] == ["e2", "e3"]


def test_stop_gives_the_rest_back_without_counting_attempts() -> None:
    """Released by stop(), events come back with the attempts they had, and an event on its
    last attempt is not dead-lettered by being given back."""
    store = MemoryStore(max_attempts=1)
    for n in range(3):
        store.put(event(f"e{n}", minute=n))

    def handler(_: Event) -> None:
        worker.stop()

    worker = Worker(store, handler, batch=3)
    worker.run_once()

    assert state(store, "e1") is state(store, "e2") is EventState.PENDING
    assert [c.attempts for c in store.claim(owner="next", lease=5, limit=5)] == [1, 1]


class _NoRelease(MemoryStore):
    release = None  # type: ignore[assignment]


class _OlderBackend(MemoryStore):
    def release(self, claim: Claim) -> bool:
        raise NotImplementedError  # StoreBase's own, before the backend wrote one


@pytest.mark.parametrize("store_class", [_NoRelease, _OlderBackend])
def test_a_store_without_release_is_given_back_through_nack(
    store_class: type[MemoryStore],
) -> None:
    """A hand-written store without release(): the rest of the batch is nacked for a retry
    at once (the attempt counts there)."""
    store = store_class()
    for n in range(3):
        store.put(event(f"e{n}", minute=n))

    def handler(_: Event) -> None:
        worker.stop()

    worker = Worker(store, handler, batch=3)
    worker.run_once()

    assert [c.attempts for c in store.claim(owner="next", lease=5, limit=5)] == [2, 2]


def test_a_release_that_fails_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    """When the store cannot take the claims back, the leases will: a warning, no error."""

    class Down(MemoryStore):
        def release(self, claim: Claim) -> bool:
            raise StoreError("gone")

    down = Down()
    for n in range(2):
        down.put(event(f"d{n}", minute=n))
    stopper = Worker(down, lambda _: stopper.stop(), batch=2)
    with caplog.at_level(logging.WARNING, logger="smartpos.webhooks"):
        assert stopper.run_once() == 1
    assert "could not give back 1 claimed events" in caplog.text


# --- the signal helper shared with the CLI ---------------------------------------------------


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_stop_on_signals_sets_the_event_and_restores(signum: signal.Signals) -> None:
    """SIGTERM and SIGINT set the event instead of ending the process; the old handlers return."""
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    stop = threading.Event()
    with stop_on_signals(stop) as installed:
        assert installed
        signal.raise_signal(signum)
        assert stop.is_set()
    assert before == {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}


def test_stop_on_signals_calls_a_function_with_the_signal() -> None:
    """Given a function, the helper calls it with the signal number."""
    received: list[int] = []
    with stop_on_signals(received.append):
        signal.raise_signal(signal.SIGTERM)
    assert [signal.SIGTERM] == received


def test_stop_on_signals_outside_the_main_thread_installs_nothing() -> None:
    """In another thread the helper says it installed nothing, and changes no handler."""
    before = signal.getsignal(signal.SIGTERM)
    seen: list[object] = []

    def body() -> None:
        with stop_on_signals(threading.Event()) as installed:
            seen.append((installed, signal.getsignal(signal.SIGTERM)))

    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    assert [(False, before)] == seen


def test_worker_run_stops_on_sigint_through_the_helper(caplog: pytest.LogCaptureFixture) -> None:
    """Worker.run with install_signal_handlers stops on SIGINT, logs it, restores the handler."""
    before = signal.getsignal(signal.SIGINT)
    store = MemoryStore()
    store.put(event("e1"))

    def handler(_: Event) -> None:
        signal.raise_signal(signal.SIGINT)

    worker = Worker(store, handler, poll_interval=0.01, install_signal_handlers=True)
    with caplog.at_level(logging.INFO, logger="smartpos.webhooks"):
        worker.run()
    assert worker.stopping
    assert store.get("e1").state is EventState.DONE  # type: ignore[union-attr]
    assert f"signal {int(signal.SIGINT)}, stopping" in caplog.text
    assert signal.getsignal(signal.SIGINT) is before
