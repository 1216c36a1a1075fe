"""Journal overhead per ``payments.create``: a client given a store vs one without, same run.

A client with a store journals each operation: the entry (state ``sending``, the exact bytes)
before the request leaves, committed durably (``SQLiteStore(synchronous="FULL")`` fsyncs the
WAL), and the answer after it, committed without an fsync (losing it to a power cut leaves the
entry ``sending``, which ``reconcile`` settles: see ``_outcome_calls._record``). Figures,
against one local uvicorn server (another process) answering every POST with a 202:

1. sync, one call after another, interleaved blocks: wall time per call with a store / without.
   The goal, at most 1.3x on SQLite ``FULL``, is read against the journal's floor measured in
   the same blocks (BENCHMARKING.md: a goal the disk makes unreachable as an absolute is a
   ratio to its floor): the same client without a store plus the same two writes done by hand
   in bare ``sqlite3`` on the same schema (the entry committed under ``FULL``, the answer under
   ``NORMAL``), which is what a journal written by hand would cost. One fsync on this disk
   (0.2-1.4 ms) is as long as the whole round trip to a server on the loopback, so the ratio
   to a client without any journal is printed too, and the same with the server answering
   after 20 ms, a short round trip to a remote service;
2. the same calls' CPU in this process, with a store / without;
3. async, 200 calls at once on one ``AsyncClient``: throughput with a store / the same client
   without a store and the same writes by hand, each in a worker thread (anyio's pool, as an
   application would), goal at least 1/1.3; and with a store / without any journal.
   Concurrent journal writes share one commit (``_group_commit.py``).

    python benchmarks/bench_journal.py [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio.to_thread
from _common import median, report, server_process

import smartpos
from smartpos.webhooks import SQLiteStore, _sqlite

DOC = "52998224725"
KEY = "bench-key"
TERMINAL = "SP-BENCH-1"
PAYMENT = {"documento_cliente": DOC, "valor_centavos": 1234, "smartpos_id": TERMINAL}
WIRE = {"documentoCliente": DOC, "valorCentavos": 1234, "smartposId": TERMINAL}


class HandJournal:
    """The journal's two writes by hand in bare ``sqlite3``, on the store's own schema.

    One connection shared by threads under a lock, each write its own transaction: how an
    application would write such a journal by hand (async: each write in anyio's threads).
    """

    def __init__(self, path: Path) -> None:
        SQLiteStore(path).close()  # the schema, created once
        self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._lock = threading.Lock()
        self._update = _sqlite._J_UPDATE.format("?, ?, ?")

    def begin(self, referencia: str) -> None:
        """The entry, before the send: committed under FULL."""
        now = time.time()
        body = json.dumps({"referencia": referencia, **WIRE}).encode()
        # The store's own insert; the last two (sale, pending_after) are None without a sale.
        params = (
            referencia,
            "payment",
            "sending",
            "POST",
            "/api/v1/pagamentos",
            body,
            now,
            now,
            None,
            None,
        )
        self._commit("FULL", _sqlite._J_INSERT, params)

    def answer(self, acceptance: smartpos.Acceptance) -> None:
        """The answer, after the send: committed under NORMAL."""
        answer = json.dumps(  # what the store keeps: the status and the answer's fields
            {
                "status": 202,
                "body": {
                    "referencia": acceptance.referencia,
                    "status": str(acceptance.status),
                    "mensagem": acceptance.mensagem,
                    "smartposId": acceptance.smartpos_id,
                },
            }
        )
        states = ("sending", "unknown", "accepted")
        params = ("accepted", time.time(), answer, acceptance.referencia, *states)
        self._commit("NORMAL", self._update, params)

    def _commit(self, synchronous: str, statement: str, params: tuple[object, ...]) -> None:
        """One statement in its own transaction, committed under ``synchronous``."""
        with self._lock:
            self._conn.execute(f"PRAGMA synchronous = {synchronous}")
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.execute(statement, params)
            self._conn.execute("COMMIT")

    def create(self, client: smartpos.Client) -> None:
        """One payment: entry, send, answer."""
        referencia = smartpos.new_referencia()
        self.begin(referencia)
        self.answer(client.payments.create(**PAYMENT, referencia=referencia))

    async def acreate(self, client: smartpos.AsyncClient) -> None:
        """The same from a coroutine, each write in a worker thread."""
        referencia = smartpos.new_referencia()
        await anyio.to_thread.run_sync(self.begin, referencia)
        acceptance = await client.payments.create(**PAYMENT, referencia=referencia)
        await anyio.to_thread.run_sync(self.answer, acceptance)

    def close(self) -> None:
        self._conn.close()


@contextlib.contextmanager
def stores(directory: str) -> Iterator[dict[str, SQLiteStore | None]]:
    """No store, an SQLite store with synchronous FULL, one with NORMAL."""
    full = SQLiteStore(Path(directory) / "full.sqlite3", synchronous="FULL")
    normal = SQLiteStore(Path(directory) / "normal.sqlite3", synchronous="NORMAL")
    try:
        yield {"none": None, "FULL": full, "NORMAL": normal}
    finally:
        full.close()
        normal.close()


def sync_blocks(base_url: str, calls: int, block: int) -> dict[str, tuple[float, float]]:
    """Interleaved blocks of sequential creates: (wall seconds, CPU seconds) per setting.

    ``hand``: the client without a store, and the journal's two writes by hand around it.
    """
    with (
        tempfile.TemporaryDirectory(prefix="smartpos-bench-") as directory,
        stores(directory) as settings,
    ):
        clients = {
            name: smartpos.Client(api_key=KEY, base_url=base_url, store=store)
            for name, store in settings.items()
        }
        hand = HandJournal(Path(directory) / "hand.sqlite3")
        runs: dict[str, Callable[[], object]] = {
            name: functools.partial(client.payments.create, **PAYMENT)
            for name, client in clients.items()
        }
        runs["hand"] = functools.partial(hand.create, clients["none"])
        totals = dict.fromkeys(runs, (0.0, 0.0))
        try:
            for run in runs.values():  # warm up: connections, caches, the schema
                for _ in range(10):
                    run()
            for _ in range(calls // block):
                for name, run in runs.items():
                    wall, cpu = time.perf_counter(), time.process_time()
                    for _ in range(block):
                        run()
                    spent_wall, spent_cpu = totals[name]
                    totals[name] = (
                        spent_wall + time.perf_counter() - wall,
                        spent_cpu + time.process_time() - cpu,
                    )
        finally:
            hand.close()
            for client in clients.values():
                client.close()
    return totals


async def concurrent(base_url: str, n: int, rounds: int) -> dict[str, float]:
    """Throughput of ``n`` concurrent creates on one AsyncClient, per setting (median)."""
    rates: dict[str, list[float]] = {}
    with (
        tempfile.TemporaryDirectory(prefix="smartpos-bench-") as directory,
        stores(directory) as settings,
    ):
        hand = HandJournal(Path(directory) / "hand.sqlite3")
        try:
            for _ in range(rounds):
                for name, store in [*settings.items(), ("hand", None)]:
                    async with smartpos.AsyncClient(
                        api_key=KEY, base_url=base_url, store=store
                    ) as client:
                        if name == "hand":
                            create = functools.partial(hand.acreate, client)
                        else:
                            create = functools.partial(client.payments.create, **PAYMENT)
                        await create()
                        start = time.perf_counter()
                        await asyncio.gather(*(create() for _ in range(n)))
                        rates.setdefault(name, []).append(n / (time.perf_counter() - start))
        finally:
            hand.close()
    return {name: median(values) for name, values in rates.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny run that proves it works")
    args = parser.parse_args()
    calls, block, burst, rounds = (40, 20, 20, 1) if args.quick else (600, 50, 200, 3)

    print("bench_journal: payments.create with an SQLiteStore journal vs without a store")
    with server_process("_acceptance_server") as port:
        base_url = f"http://127.0.0.1:{port}"
        totals = sync_blocks(base_url, calls, block)
        bare_wall, bare_cpu = totals["none"]
        hand_wall, hand_cpu = totals["hand"]
        report(
            f"sync  wall per create, SQLite FULL / its floor (no store + the writes by hand), "
            f"{calls} calls",
            totals["FULL"][0] / hand_wall,
            goal="<= 1.3x",
        )
        report("sync  CPU per create, SQLite FULL / its floor", totals["FULL"][1] / hand_cpu)
        for mode in ("FULL", "NORMAL"):
            wall, cpu = totals[mode]
            report(f"sync  wall per create, SQLite {mode} / no store", wall / bare_wall)
            report(f"sync  CPU per create, SQLite {mode} / no store", cpu / bare_cpu)
        for name in ("none", "hand", "FULL", "NORMAL"):
            report(f"  wall per create, {name}", totals[name][0] / calls * 1e6, " us")
        smartpos_part = (totals["FULL"][0] - hand_wall) / calls
        report("  smartpos's own part of a journaled create", smartpos_part * 1e6, " us")
        rates = asyncio.run(concurrent(base_url, burst, rounds))
        report(
            f"async {burst} concurrent: throughput SQLite FULL / its floor (the writes by hand)",
            rates["FULL"] / rates["hand"],
            goal=">= 0.77x (1.3x per create)",
        )
        for mode in ("FULL", "NORMAL"):
            report(
                f"async {burst} concurrent: throughput SQLite {mode} / no store",
                rates[mode] / rates["none"],
            )
        for name in ("none", "hand", "FULL", "NORMAL"):
            report(f"  creates/s, {name}", rates[name], " /s")
    with server_process("_acceptance_server", "20") as port:
        slow = max(block // 5, 4)
        totals = sync_blocks(f"http://127.0.0.1:{port}", slow * 2, slow)
        report(
            f"sync  wall per create, SQLite FULL / no store, 20 ms service ({slow * 2} calls)",
            totals["FULL"][0] / totals["none"][0],
            goal="<= 1.3x",
        )


if __name__ == "__main__":
    main()
