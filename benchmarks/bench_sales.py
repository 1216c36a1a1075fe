"""Sales: the cost of the sale's checks per charge, and the review of sales as the store grows.

1. Per charge: ``payments.create(..., sale=...)`` (each charge a new sale on its own terminal:
   every check runs, the terminal's hold is written) against the same client's
   ``payments.create`` with the journal and no sale, in interleaved blocks of the same run,
   against one local server answering every POST with a 202. Goal: at most 1.15x, on SQLite
   ``FULL`` and on PostgreSQL (a server this script starts on 127.0.0.1 and stops by PID; left
   out when PostgreSQL is not installed, and said so).
2. ``store.sale(id)`` and ``store.sales(attention=True)``, time per call with a small and a
   large number of sales in an SQLite store (1,000 and 1,000,000; ``--quick``: 1,000 and
   20,000). Goal: the large store within 1.5x of the small one (indexes, not scans). The
   large store is filled by the store itself for its first sales, then in bulk with the same
   rows (paid sales: an attempt, its approval recorded), so that filling takes seconds.

    python benchmarks/bench_sales.py [--quick]
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import sqlite3
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import median, report, server_process

import smartpos
from smartpos.webhooks import SQLiteStore, StoreBase

ROOT = Path(__file__).resolve().parent.parent
DOC = "52998224725"
KEY = "bench-key"


def _servers() -> Any:
    spec = importlib.util.spec_from_file_location(
        "servers", ROOT / "tests" / "webhooks" / "servers.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["servers"] = module
    spec.loader.exec_module(module)
    return module


def per_charge(store: StoreBase, base_url: str, calls: int, block: int) -> tuple[float, float]:
    """Wall seconds of ``calls`` creates without a sale and with one, interleaved blocks."""
    counter = itertools.count()
    with smartpos.Client(api_key=KEY, base_url=base_url, store=store) as client:

        def plain() -> None:
            client.payments.create(documento_cliente=DOC, valor_centavos=1234, smartpos_id="SP-0")

        def with_sale() -> None:
            n = next(counter)
            client.payments.create(
                documento_cliente=DOC,
                valor_centavos=1234,
                smartpos_id=f"SP-{n}",
                sale=f"venda-{uuid.uuid4().hex[:8]}-{n}",
            )

        runs: dict[str, Callable[[], None]] = {"plain": plain, "sale": with_sale}
        for run in runs.values():
            for _ in range(10):
                run()
        totals = dict.fromkeys(runs, 0.0)
        for _ in range(calls // block):
            for name, run in runs.items():
                start = time.perf_counter()
                for _ in range(block):
                    run()
                totals[name] += time.perf_counter() - start
    return totals["plain"], totals["sale"]


def _fill(path: Path, count: int) -> list[str]:
    """An SQLite store of ``count`` paid sales; a few through the store, the rest in bulk."""
    with SQLiteStore(path) as store:
        store._begin_operation(  # the schema, and one real row to copy
            "00000000-aaaa-4bbb-8ccc-000000000000",
            kind="payment",
            method="POST",
            path="/v1/payments",
            body=b"{}",
        )
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("BEGIN")
    now = time.time()
    final = json.dumps(
        {
            "id": "ev",
            "tipo": "pagamento.aprovado",
            "criadoEm": "2026-05-01T12:00:00-03:00",
            "dados": {
                "referencia": "x",
                "documentoCliente": DOC,
                "status": "aprovado",
                "valorCentavos": 1234,
            },
        }
    )
    sales = ((f"venda-{n}", 1234, 1, now, now) for n in range(count))
    conn.executemany(
        "INSERT INTO smartpos_sales (sale_id, total_centavos, version, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?)",
        sales,
    )
    referencias = [f"{n:08d}-bbbb-4bbb-8ccc-{n:012d}" for n in range(count)]
    rows = (
        (r, "payment", "final", "POST", "/v1/payments", b"{}", now, now, final, f"venda-{n}", 600.0)
        for n, r in enumerate(referencias)
    )
    conn.executemany(
        "INSERT INTO smartpos_operations (referencia, kind, state, method, path, body, "
        "created_at, updated_at, final_event, sale, pending_after, events) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)",
        rows,
    )
    conn.execute("COMMIT")
    conn.execute("ANALYZE")
    conn.close()
    return [f"venda-{n}" for n in range(count)]


def per_read(path: Path, sale_ids: list[str], reads: int) -> tuple[float, float]:
    """Median seconds of ``store.sale(id)`` and of ``store.sales(attention=True)``."""
    with SQLiteStore(path) as store:
        # A sale needing a human, so that the review finds one.
        store._begin_operation(
            "ffffffff-aaaa-4bbb-8ccc-000000000000",
            kind="payment",
            method="POST",
            path="/v1/payments",
            body=b'{"documentoCliente":"52998224725","valorCentavos":1}',
        )
        step = max(len(sale_ids) // reads, 1)
        ids = sale_ids[::step][:reads]
        sale_times, review_times = [], []
        for sale_id in ids:
            start = time.perf_counter()
            found = store.sale(sale_id)
            sale_times.append(time.perf_counter() - start)
            assert found is not None
            assert found.state == "paid", found
        for _ in range(max(reads // 10, 5)):
            start = time.perf_counter()
            store.sales(attention=True)
            review_times.append(time.perf_counter() - start)
    return median(sale_times), median(review_times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny run that proves it works")
    args = parser.parse_args()
    calls, block = (40, 20) if args.quick else (400, 50)
    small, large, reads = (1_000, 20_000, 50) if args.quick else (1_000, 1_000_000, 400)

    print("bench_sales: the sale's checks per charge, and the review of sales as stores grow")
    with (
        server_process("_acceptance_server") as port,
        tempfile.TemporaryDirectory(prefix="smartpos-bench-") as directory,
    ):
        base_url = f"http://127.0.0.1:{port}"
        with SQLiteStore(Path(directory) / "full.db", synchronous="FULL") as store:
            plain, sale = per_charge(store, base_url, calls, block)
        report(
            f"sync  wall per create, sale= / no sale, SQLite FULL, {calls} calls",
            sale / plain,
            goal="<= 1.15x",
        )
        servers = _servers()
        if servers.find_pg_bindir() is None:
            print("  PostgreSQL is not installed here: its figure is left out")
        else:
            from smartpos.webhooks import PostgresStore

            pg = servers.PostgresServer()
            pg.start()
            try:
                with PostgresStore(pg.dsn, table="bench_sales") as store:
                    store.migrate()
                    plain, sale = per_charge(store, base_url, calls, block)
                report(
                    f"sync  wall per create, sale= / no sale, PostgreSQL, {calls} calls",
                    sale / plain,
                    goal="<= 1.15x",
                )
            finally:
                pg.stop()

        timings = {}
        for count in (small, large):
            path = Path(directory) / f"sales-{count}.db"
            start = time.perf_counter()
            ids = _fill(path, count)
            print(f"  filled {count:,} sales in {time.perf_counter() - start:.1f} s", flush=True)
            timings[count] = per_read(path, ids, reads)
        report(
            f"store.sale(id), {large:,} sales / {small:,}",
            timings[large][0] / timings[small][0],
            goal="<= 1.5x",
        )
        report(
            f"store.sales(attention=True), {large:,} sales / {small:,}",
            timings[large][1] / timings[small][1],
            goal="<= 1.5x",
        )
        for count in (small, large):
            report(f"  store.sale(id), {count:,} sales", timings[count][0] * 1e6, " us")
            report(
                f"  store.sales(attention=True), {count:,} sales", timings[count][1] * 1e6, " us"
            )


if __name__ == "__main__":
    main()
