"""Races between real processes that every shared store's journal must win.

Like ``races.py`` (whose ``StoreSpec`` and process helpers these reuse): each helper starts
``spawn`` processes that open their own store from a picklable spec, lets them hit it at once,
and raises ``AssertionError`` when the journal lost.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from typing import Any, cast

from journal_contract import begin_payment
from outcome_events import event
from races import StoreSpec, _collect, _context, _report, _started

from smartpos.webhooks._store import StoreBase

__all__ = ["race_begins", "race_outcomes"]


def _referencias(count: int) -> list[str]:
    return [f"{n:08d}-aaaa-4bbb-8ccc-000000000000" for n in range(count)]


def _open(spec: StoreSpec) -> StoreBase:
    return cast(StoreBase, spec.open())


# Begins.


def _begin_worker(spec: StoreSpec, worker: int, count: int, barrier: Any, results: Any) -> None:
    def work() -> list[tuple[str, bool]]:
        referencias = _referencias(count)
        random.Random(worker).shuffle(referencias)
        store = _open(spec)
        try:
            barrier.wait(timeout=60)
            answers = []
            for referencia in referencias:
                # Each process journals its own amount: the winner's shows who won.
                operation, created = begin_payment(store, referencia, valor=1000 + worker)
                answers.append((referencia, created))
                again = store.operation(referencia)
                assert again is not None
                assert operation.body == again.body, "two processes saw different winners"
            return answers
        finally:
            store.close()

    _report(results, work)


def race_begins(
    spec: StoreSpec, *, processes: int = 4, referencias: int = 60, timeout: float = 120.0
) -> None:
    """Several processes journal the same referencias at once: exactly one wins each.

    Every process then reads back the winner's request, and the journal lists each
    referencia once.
    """
    ctx = _context()
    barrier, results = ctx.Barrier(processes), ctx.Queue()
    workers = [
        ctx.Process(target=_begin_worker, args=(spec, n, referencias, barrier, results))
        for n in range(processes)
    ]
    with _started(workers):
        answers = _collect(results, workers, processes, timeout)

    won = Counter(r for answer in answers for r, created in answer if created)
    refs = _referencias(referencias)
    assert dict.fromkeys(refs, 1) == dict(won), "a referencia was journaled twice, or never"
    store = _open(spec)
    try:
        listed = [o.referencia for o in store.operations(limit=10 * referencias)]
    finally:
        store.close()
    assert sorted(refs) == sorted(listed)
    assert len(set(listed)) == len(listed)


# Outcomes.


def _putter(spec: StoreSpec, tipo: str, count: int, barrier: Any, results: Any) -> None:
    def work() -> int:
        referencias = _referencias(count)
        random.Random(tipo).shuffle(referencias)
        store = _open(spec)
        try:
            barrier.wait(timeout=60)
            for referencia in referencias:
                store.put(event(f"{tipo}:{referencia}", tipo, referencia))
            return count
        finally:
            store.close()

    _report(results, work)


def _watcher(spec: StoreSpec, count: int, barrier: Any, results: Any) -> None:
    def work() -> dict[str, str]:
        store = _open(spec)
        seen: dict[str, str] = {}
        try:
            barrier.wait(timeout=60)
            deadline = time.monotonic() + 60
            while len(seen) < count and time.monotonic() < deadline:
                for referencia in _referencias(count):
                    if referencia in seen:
                        continue
                    operation = store.operation(referencia)
                    if operation is not None and operation.event is not None:
                        seen[referencia] = operation.event.id
                time.sleep(0.01)
            return seen
        finally:
            store.close()

    _report(results, work)


def race_outcomes(spec: StoreSpec, *, referencias: int = 40, timeout: float = 120.0) -> None:
    """An approval and a refusal for each operation arrive at once from two processes, while
    two other processes read the operations: every reader sees the same outcome, forever.

    Half the operations are journaled before the events and half after them started
    arriving, so some events are stored before their journal entry.
    """
    refs = _referencias(referencias)
    half = referencias // 2
    store = _open(spec)
    try:
        for referencia in refs[:half]:
            begin_payment(store, referencia)
        ctx = _context()
        barrier, results = ctx.Barrier(4), ctx.Queue()
        workers = [
            ctx.Process(
                target=_putter, args=(spec, "pagamento.aprovado", referencias, barrier, results)
            ),
            ctx.Process(
                target=_putter, args=(spec, "pagamento.recusado", referencias, barrier, results)
            ),
            *(
                ctx.Process(target=_watcher, args=(spec, referencias, barrier, results))
                for _ in range(2)
            ),
        ]
        with _started(workers):
            for referencia in refs[half:]:
                begin_payment(store, referencia)
            answers = _collect(results, workers, 4, timeout)

        seen = [a for a in answers if isinstance(a, dict)]
        assert 2 == len(seen)
        for referencia in refs:
            operation = store.operation(referencia)
            assert operation is not None
            assert operation.event is not None
            outcome = operation.event.id
            assert operation.state == "final"
            assert [(a.reason, a.id != outcome) for a in operation.anomalies] == [
                ("contradiction", True)
            ]
            for watcher in seen:
                assert watcher.get(referencia, outcome) == outcome, "an outcome changed"
    finally:
        store.close()
