"""Races between real processes that every shared store's sales must win.

Like ``journal_races.py`` (whose process helpers these reuse): ``spawn`` processes open their
own store from a picklable ``StoreSpec`` and, round after round behind a barrier (many rounds,
not one lucky race), charge at once:

- ``race_one_sale``: every process charges the same sale (each on its own terminal): of each
  round exactly one attempt is journaled, the others are refused ``VENDA_EM_ANDAMENTO``;
- ``race_one_terminal``: every process charges its own sale on the same terminal: exactly one
  is journaled, the others are refused ``TERMINAL_OCUPADO``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, cast

from races import StoreSpec, _collect, _context, _report, _started
from sales_contract import attempt

import smartpos
from smartpos.webhooks._store import StoreBase

__all__ = ["race_one_sale", "race_one_terminal"]


def _referencia(round_: int, worker: int) -> str:
    return f"{round_:05d}{worker:03d}-aaaa-4bbb-8ccc-000000000000"


def _charger(
    spec: StoreSpec, mode: str, worker: int, rounds: int, barrier: Any, results: Any
) -> None:
    def work() -> list[tuple[int, str]]:
        store = cast(StoreBase, spec.open())
        answers: list[tuple[int, str]] = []
        try:
            for n in range(rounds):
                if mode == "sale":
                    sale, terminal = f"sale-{n}", f"SP-{n}-{worker}"
                else:
                    sale, terminal = f"sale-{n}-{worker}", f"SP-{n}"
                barrier.wait(timeout=60)
                try:
                    _, created = attempt(store, _referencia(n, worker), sale, smartpos_id=terminal)
                    answers.append((n, "created" if created else "found"))
                except smartpos.ValidationError as exc:
                    answers.append((n, exc.codigo))
            return answers
        finally:
            store.close()

    _report(results, work)


def _race(spec: StoreSpec, mode: str, processes: int, rounds: int, timeout: float) -> None:
    ctx = _context()
    barrier, results = ctx.Barrier(processes), ctx.Queue()
    workers = [
        ctx.Process(target=_charger, args=(spec, mode, n, rounds, barrier, results))
        for n in range(processes)
    ]
    with _started(workers):
        answers = _collect(results, workers, processes, timeout)
    refused = "VENDA_EM_ANDAMENTO" if mode == "sale" else "TERMINAL_OCUPADO"
    for n in range(rounds):
        outcome = Counter(code for answer in answers for round_, code in answer if round_ == n)
        assert {"created": 1, refused: processes - 1} == dict(outcome), f"round {n}: {outcome}"
    store = cast(StoreBase, spec.open())
    try:
        if mode == "sale":
            for n in range(rounds):
                sale = store.sale(f"sale-{n}")
                assert sale is not None
                assert 1 == len(sale.attempts), f"round {n}: {len(sale.attempts)} attempts"
        else:
            assert rounds == len(store.sales(limit=10 * rounds * processes))
    finally:
        store.close()


def race_one_sale(
    spec: StoreSpec, *, processes: int = 4, rounds: int = 25, timeout: float = 180.0
) -> None:
    """``processes`` processes charge one sale at once, ``rounds`` times: one sends each."""
    _race(spec, "sale", processes, rounds, timeout)


def race_one_terminal(
    spec: StoreSpec, *, processes: int = 4, rounds: int = 25, timeout: float = 180.0
) -> None:
    """``processes`` processes charge their own sales on one terminal: one sends each round."""
    _race(spec, "terminal", processes, rounds, timeout)
