"""Time to answer a webhook delivery through the ASGI adapter, vs a bare ASGI app, same run.

Uvicorn servers, each in its own process on 127.0.0.1:

- the floor: a bare ASGI app that reads the body and answers 200;
- ``sqlite``: ``WebhookReceiver(SQLiteStore(path, synchronous="FULL")).asgi_app()``;
- ``postgres``: ``WebhookReceiver(PostgresStore(dsn)).asgi_app()`` on a PostgreSQL (durable
  defaults) that this script starts on 127.0.0.1 with the helpers of
  ``tests/webhooks/servers.py`` and stops by its PID.

Every delivery to a receiver is a new event, so every answer waits for a durable commit
(group commit batches them). ``--backend sqlite|postgres`` picks the receivers (both by
default; the floor always runs).

200 keep-alive connections send deliveries back to back from a minimal HTTP/1.1 client on raw
asyncio streams (httpx saturates first; see BENCHMARKING.md). Rounds of the servers are
interleaved (``_common.saturate``); each round has a fixed number of requests per connection.
Reported: p50/p99 of the time to answer and the throughput of each side, and each receiver's
figures as ratios to the floor's. Goals: saturated, throughput >= 0.85x the floor's and p99
<= 1.5x the floor's (issue 27); paced at a third of the floor's throughput, p99 under 50 ms at
200 concurrent deliveries (issue 3).

    python benchmarks/bench_receiver.py [--quick] [--backend sqlite|postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import (
    Connection,
    close_sides,
    free_port,
    load_servers,
    open_sides,
    percentile,
    report,
    request_bytes,
    run_uvicorn,
    saturate,
    start_script,
    stop_process,
)

__all__ = ["floor_app", "main"]

CONNECTIONS = 200
THROUGHPUT_GOAL = 0.85
P99_GOAL = 1.5
RECEIVERS = ("sqlite", "postgres")


# --- the servers (run as: bench_receiver.py --serve KIND PORT [DB or DSN]) -----------------


async def floor_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The floor: read the whole body, answer 200 with a short JSON body."""
    if scope["type"] != "http":
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
            await receive()
            await send({"type": "lifespan.shutdown.complete"})
        return
    more = True
    while more:
        message = await receive()
        more = message.get("more_body", False)
    body = b'{"recebido":true,"duplicado":false}'
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def unbatched_app(receiver: Any) -> Any:
    """For comparison only: one ``receive`` (one commit) per request, each in a thread."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await floor_app(scope, receive, send)
            return
        chunks, more = [], True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        receipt = await asyncio.to_thread(receiver.receive, b"".join(chunks), {})
        headers = [(b"content-type", b"application/json")]
        headers.append((b"content-length", b"%d" % len(receipt.body)))
        await send(
            {"type": "http.response.start", "status": receipt.status_code, "headers": headers}
        )
        await send({"type": "http.response.body", "body": receipt.body})

    return app


def serve(kind: str, port: int, target: str | None) -> None:
    """Run one server until terminated: ``target`` is the SQLite file or the PostgreSQL DSN."""
    if kind == "floor":
        app: Any = floor_app
    else:
        from smartpos.webhooks import PostgresStore, SQLiteStore, WebhookReceiver

        assert target is not None
        if kind == "postgres":
            store: Any = PostgresStore(target)
            store.migrate()
        else:
            store = SQLiteStore(target, synchronous="FULL")
        receiver = WebhookReceiver(store)
        app = receiver.asgi_app() if kind != "unbatched" else unbatched_app(receiver)
    run_uvicorn(app, port)


# --- the load generator (the saturated one is _common.saturate) ------------------------------


async def run_paced(
    conns: list[Connection], rate: float, duration: float, make_body: Any, tag: str
) -> tuple[list[float], int]:
    """Open loop: ``rate`` deliveries/s in total, spread over every connection, for ``duration``.

    Each connection sends at fixed times (staggered), whatever the answers' speed, so the
    time to answer includes any queueing the server causes: what the service would see.
    """
    latencies: list[float] = []
    errors = 0
    period = len(conns) / rate
    begin = time.perf_counter()

    async def drive(index: int, conn: Connection) -> None:
        nonlocal errors
        due = begin + period * index / len(conns)
        n = 0
        while due < begin + duration:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            data = request_bytes(make_body(f"{tag}-{index}-{n}"))
            start = time.perf_counter()
            status = await conn.post(data)
            latencies.append(time.perf_counter() - start)
            errors += status != 200
            due += period
            n += 1

    await asyncio.gather(*(drive(i, c) for i, c in enumerate(conns)))
    return latencies, errors


async def measure(ports: dict[str, int], rounds: int, per_conn: int, paced: float) -> None:
    """Interleave rounds on every server and report."""
    sides = await open_sides(ports, CONNECTIONS)
    try:
        sat = await saturate(sides, rounds, per_conn)
        rate = round(sat.throughput("floor") / 3, -1)  # a third of what the floor can take
        paced_samples: dict[str, list[float]] = {name: [] for name in ports}
        paced_errors = dict.fromkeys(ports, 0)
        for round_no in range(2):
            for name, (conns, make) in sides.items():
                lat, errs = await run_paced(
                    conns, rate, paced / 2, make, f"{name}-paced-{round_no}"
                )
                paced_samples[name] += lat
                paced_errors[name] += errs
    finally:
        close_sides(sides)

    print(
        f"Saturation: {CONNECTIONS} concurrent keep-alive connections sending back to back, "
        f"{rounds} interleaved rounds of {per_conn} requests per connection per side"
    )
    sat.report_sides()
    for name in (n for n in sat.latencies if n != "floor"):
        throughput = sat.throughput(name) / sat.throughput("floor")
        p99 = sat.p99(name) / sat.p99("floor")
        report(f"{name} / floor, p50", sat.p50(name) / sat.p50("floor"))
        report(f"{name} / floor, p99", p99, goal=f"<= {P99_GOAL}x")
        report(f"{name} / floor, throughput", throughput, goal=f">= {THROUGHPUT_GOAL}x")
        met = throughput >= THROUGHPUT_GOAL and p99 <= P99_GOAL
        print(f"  {name}: {'goal met' if met else 'below goal'}", flush=True)
    print(
        f"Paced: {CONNECTIONS} concurrent keep-alive connections, {rate:.0f} deliveries/s in "
        f"total (a third of the floor's saturation throughput), {paced:.0f} s per side"
    )
    for name, lat in paced_samples.items():
        report(f"{name}: requests (non-200 answers: {paced_errors[name]})", len(lat), "")
        report(f"{name}: p50 time to answer, ms", statistics.median(lat) * 1e3, " ms")
        report(
            f"{name}: p99 time to answer, ms",
            percentile(lat, 99) * 1e3,
            " ms",
            goal="" if name == "floor" else "< 50 ms",
        )


def start(kind: str, port: int, target: str | None) -> subprocess.Popen[bytes]:
    """Start one server process of this script."""
    args = ["--serve", kind, str(port)] + ([target] if target else [])
    return start_script(__file__, port, *args, timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run for CI")
    parser.add_argument(
        "--backend",
        choices=RECEIVERS,
        action="append",
        help="the receivers' stores (repeat for both; both by default)",
    )
    parser.add_argument(
        "--compare-unbatched",
        action="store_true",
        help="also measure a SQLite receiver that commits once per request (no group commit)",
    )
    parser.add_argument("--serve", nargs="+", metavar="ARG", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        kind, port, *rest = args.serve
        serve(kind, int(port), rest[0] if rest else None)
        return
    rounds, per_conn, paced = (2, 10, 2.0) if args.quick else (6, 25, 10.0)
    backends = [b for b in RECEIVERS if b in (args.backend or RECEIVERS)]
    kinds = ["floor", *backends] + (["unbatched"] if args.compare_unbatched else [])
    ports = {kind: free_port() for kind in kinds}
    procs: list[subprocess.Popen[bytes]] = []
    pg_server: Any = None
    with tempfile.TemporaryDirectory(prefix="bench-receiver-") as tmp:
        try:
            if "postgres" in kinds:
                pg_server = load_servers().PostgresServer()
                pg_server.start()
            for kind, port in ports.items():
                target = {
                    "floor": None,
                    "postgres": pg_server.dsn if pg_server else None,
                }.get(kind, str(Path(tmp) / f"{kind}.db"))
                procs.append(start(kind, port, target))
            asyncio.run(asyncio.wait_for(measure(ports, rounds, per_conn, paced), 900))
        finally:
            for proc in procs:
                stop_process(proc)
            if pg_server is not None:
                pg_server.stop()


if __name__ == "__main__":
    main()
