"""Races between real processes that every shared store must win; reusable by every backend.

Each helper starts processes with the ``spawn`` context (a fresh interpreter, as separate
workers or receivers would be), lets them hit the store at once, checks the outcome and raises
``AssertionError`` when the store lost. The store under test is described by a picklable
``StoreSpec`` (a module-level factory and its arguments) so that each process opens its own::

    race_puts(StoreSpec(SQLiteStore, (str(tmp_path / "inbox.db"),)))

Every wait has a timeout; processes still alive at the end are killed through the PID they
were started with, never by name.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import random
import signal
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from multiprocessing.context import SpawnContext, SpawnProcess
from typing import Any

import attrs
from store_contract import make_event

from smartpos.webhooks._store import Claim, EventState, PutResult, Store

__all__ = ["StoreSpec", "race_claims", "race_killed_worker", "race_puts"]

_ERROR = "error"


@attrs.frozen
class StoreSpec:
    """How a process opens the store under test: ``factory(*args, **kwargs)``; picklable."""

    factory: Callable[..., Store]
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = attrs.field(factory=dict)

    def open(self) -> Store:
        """Open a new store (and its own connections) from the spec."""
        return self.factory(*self.args, **self.kwargs)


def _context() -> SpawnContext:
    return multiprocessing.get_context("spawn")


def _report(results: Any, work: Callable[[], Any]) -> None:
    """Run ``work`` in a child and send its result, or its traceback, to the parent."""
    try:
        results.put(work())
    except BaseException:
        results.put((_ERROR, traceback.format_exc()))


@contextlib.contextmanager
def _started(processes: Sequence[SpawnProcess]) -> Iterator[None]:
    """Start the processes; on the way out join them, killing (by PID) any left running."""
    for process in processes:
        process.start()
    try:
        yield
    finally:
        for process in processes:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
                process.join(timeout=10)


def _collect(
    results: Any, processes: Sequence[SpawnProcess], count: int, timeout: float
) -> list[Any]:
    """Take ``count`` answers; fail early when a process died without answering."""
    deadline = time.monotonic() + timeout
    collected: list[Any] = []
    while len(collected) < count:
        try:
            item = results.get(timeout=0.2)
        except queue.Empty:
            # A child that answered exits 0 (even after a failure, which it reports): any other
            # exit code means it died before answering, e.g. it could not import the store.
            died = [p.exitcode for p in processes if p.exitcode not in (None, 0)]
            if died:
                raise AssertionError(f"a child died without answering: exit codes {died}") from None
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"only {len(collected)} of {count} processes answered in {timeout} s"
                ) from None
            continue
        if isinstance(item, tuple) and item and item[0] == _ERROR:
            raise AssertionError(f"a child process failed:\n{item[1]}")
        collected.append(item)
    return collected


def _event_ids(count: int) -> list[str]:
    return [f"race-{n:05d}" for n in range(count)]


# Puts.


def _put_worker(spec: StoreSpec, worker: int, count: int, barrier: Any, results: Any) -> None:
    def work() -> list[tuple[str, str]]:
        ids = _event_ids(count)
        random.Random(worker).shuffle(ids)
        store = spec.open()
        try:
            barrier.wait(timeout=60)
            if worker % 2:
                # Half the processes group their puts, as a receiver batching deliveries does.
                outcome: list[tuple[str, str]] = []
                for start in range(0, count, 10):
                    chunk = ids[start : start + 10]
                    answers = store.put_many([make_event(i) for i in chunk])
                    outcome.extend((i, r.value) for i, r in zip(chunk, answers, strict=True))
                return outcome
            return [(i, store.put(make_event(i)).value) for i in ids]
        finally:
            store.close()

    _report(results, work)


def race_puts(
    spec: StoreSpec, *, processes: int = 4, events: int = 200, timeout: float = 120.0
) -> None:
    """Several processes put the same ids at once: each id is NEW exactly once across all.

    Args:
        spec: The store under test, empty.
        processes: How many processes race (3 or more to be meaningful).
        events: How many ids each process puts, in its own shuffled order.
        timeout: Seconds the whole race may take.
    """
    ctx = _context()
    barrier, results = ctx.Barrier(processes), ctx.Queue()
    workers = [
        ctx.Process(target=_put_worker, args=(spec, n, events, barrier, results))
        for n in range(processes)
    ]
    with _started(workers):
        answers = _collect(results, workers, processes, timeout)

    new = Counter(i for answer in answers for i, result in answer if result == PutResult.NEW.value)
    duplicate = Counter(
        i for answer in answers for i, result in answer if result == PutResult.DUPLICATE.value
    )
    ids = _event_ids(events)
    assert dict.fromkeys(ids, 1) == dict(new), "an id was NEW more than once, or never"
    assert dict.fromkeys(ids, processes - 1) == dict(duplicate)


# Claims.


def _claim_worker(spec: StoreSpec, worker: int, barrier: Any, results: Any) -> None:
    def work() -> list[tuple[str, int, bool]]:
        rng = random.Random(worker)
        store = spec.open()
        seen: list[tuple[str, int, bool]] = []
        try:
            barrier.wait(timeout=60)
            while claims := store.claim(
                owner=f"worker-{worker}", lease=300, limit=rng.randint(1, 5)
            ):
                if worker % 2:
                    acked = store.ack_many(claims)
                else:
                    acked = [store.ack(claim) for claim in claims]
                seen.extend((c.event_id, c.attempts, a) for c, a in zip(claims, acked, strict=True))
            return seen
        finally:
            store.close()

    _report(results, work)


def race_claims(
    spec: StoreSpec, *, processes: int = 4, events: int = 300, timeout: float = 120.0
) -> None:
    """Several processes claim and ack at once: every event is claimed once, none is missed.

    Args:
        spec: The store under test, empty.
        processes: How many processes race (3 or more to be meaningful).
        events: How many events are stored before the race.
        timeout: Seconds the whole race may take.
    """
    ids = _event_ids(events)
    store = spec.open()
    try:
        assert {PutResult.NEW} == set(store.put_many([make_event(i) for i in ids]))
    finally:
        store.close()

    ctx = _context()
    barrier, results = ctx.Barrier(processes), ctx.Queue()
    workers = [
        ctx.Process(target=_claim_worker, args=(spec, n, barrier, results))
        for n in range(processes)
    ]
    with _started(workers):
        answers = _collect(results, workers, processes, timeout)

    claimed = Counter(event_id for answer in answers for event_id, _, _ in answer)
    assert dict.fromkeys(ids, 1) == dict(claimed), "an event was claimed twice, or missed"
    assert {(1, True)} == {(attempts, acked) for a in answers for _, attempts, acked in a}
    store = spec.open()
    try:
        states = {stored.state for stored in map(store.get, ids) if stored is not None}
    finally:
        store.close()
    assert {EventState.DONE} == states


# A worker killed while it holds a claim.


def _doomed_worker(spec: StoreSpec, lease: float, results: Any) -> None:
    def work() -> Claim:
        store = spec.open()
        (claim,) = store.claim(owner="doomed", lease=lease)
        return claim

    _report(results, work)
    time.sleep(3600)  # holds its claim until the parent kills it


def race_killed_worker(spec: StoreSpec, *, lease: float = 3.0, timeout: float = 60.0) -> None:
    """A worker killed with SIGKILL while holding a claim loses it, and its late ack is refused.

    After the lease runs out, another worker claims the event with its attempt count raised;
    an ack with the dead worker's claim (as a zombie or a slow retry would send) changes
    nothing, and the new owner's ack completes the event.

    Args:
        spec: The store under test, empty. Its clock must be the wall clock.
        lease: Seconds of the dead worker's lease.
        timeout: Seconds to wait for the worker to claim and for the lease to expire.
    """
    store = spec.open()
    try:
        store.put(make_event("victim"))
        ctx = _context()
        results = ctx.Queue()
        doomed = ctx.Process(target=_doomed_worker, args=(spec, lease, results))
        with _started([doomed]):
            (dead_claim,) = _collect(results, [doomed], 1, timeout)
            assert doomed.pid is not None
            os.kill(doomed.pid, signal.SIGKILL)
            doomed.join(timeout=10)
            assert doomed.exitcode == -signal.SIGKILL
            killed_at = time.time()

        holder = store.get("victim")
        assert holder is not None
        assert (holder.state, holder.owner) == (EventState.CLAIMED, "doomed")
        if killed_at < dead_claim.lease_expires_at.timestamp():
            assert store.claim(owner="survivor", lease=60) == [], "claimed under a live lease"

        deadline = dead_claim.lease_expires_at.timestamp() + timeout
        reclaimed: list[Claim] = []
        while not reclaimed and time.time() < deadline:
            time.sleep(0.05)
            reclaimed = store.claim(owner="survivor", lease=60)
        assert reclaimed, "the event never came back after the dead worker's lease"
        (claim,) = reclaimed

        assert (claim.event_id, claim.attempts) == ("victim", 2)
        assert dead_claim.lease_expires_at.timestamp() <= time.time()
        assert store.ack(dead_claim) is False
        assert store.nack(dead_claim, error="late", retry_in=0) is False
        assert store.ack(claim) is True
        final = store.get("victim")
        assert final is not None
        assert (final.state, final.attempts) == (EventState.DONE, 2)
    finally:
        store.close()
