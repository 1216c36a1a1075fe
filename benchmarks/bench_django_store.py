"""The Django store's price: its rates against ``PostgresStore`` on the same PostgreSQL, same run.

    python benchmarks/bench_django_store.py            # full run (a few minutes)
    python benchmarks/bench_django_store.py --quick    # CI: small counts, under a minute

Starts its own PostgreSQL (durable defaults) on 127.0.0.1 with the helpers of
``tests/webhooks/servers.py`` and stops it by its PID. Two databases on that one server: one for
``PostgresStore`` (its own schema), one for ``DjangoStore`` (the app's models, made by
``migrate``), so neither store's tables grow the other's indexes.

- **Store calls**, in one process: every round runs, in alternating order, a block of
  ``store.put`` per event on each store, then a block of ``store.claim(limit=10)`` + ``ack`` per
  claim over the events just put. Reported: the Django store's rate over ``PostgresStore``'s (the
  median over rounds), wall clock and per CPU second (this process's and the server's, read from
  ``/proc``). Goal (issue 24): >= 0.5x, the ORM's price.
- **Receiver**: three uvicorn processes, a bare ASGI app (the floor), a ``WebhookReceiver`` on
  ``PostgresStore`` and one on ``DjangoStore``, under the load of ``bench_receiver.py`` (keep-alive
  connections sending back to back, interleaved rounds): p50/p99 time to answer and throughput,
  and the Django receiver's p99 over the ``PostgresStore`` receiver's.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import subprocess
import time
import uuid
from typing import Any

from _common import (
    close_sides,
    free_port,
    load_servers,
    median,
    open_sides,
    report,
    run_uvicorn,
    saturate,
    start_script,
    stop_process,
)
from bench_stores_remote import make_event, tree_cpu

__all__ = ["main"]

GOAL = 0.5
CLAIM_BATCH = 10


def configure_django(dsn_params: dict[str, Any]) -> None:
    """Configure Django in this process with one PostgreSQL database, the smartpos app, migrate."""
    import django
    from django.conf import settings
    from django.core.management import call_command

    settings.configure(
        DATABASES={
            "default": {
                "ENGINE": "django.db.backends.postgresql",
                "NAME": dsn_params["dbname"],
                "USER": "postgres",
                "HOST": "127.0.0.1",
                "PORT": str(dsn_params["port"]),
                "CONN_MAX_AGE": None,
            }
        },
        INSTALLED_APPS=["django.contrib.contenttypes", "smartpos.integrations.django"],
        USE_TZ=True,
        SMARTPOS={"STORE": "django://default", "API_KEY": "bench", "BASE_URL": "http://x"},
    )
    django.setup()
    call_command("migrate", verbosity=0)


def create_database(admin_dsn: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')


# --- store calls, in process -----------------------------------------------------------------


def put_block(store: Any, events: list[Any]) -> None:
    for event in events:
        store.put(event)


def claim_block(store: Any, count: int) -> int:
    done = 0
    while done < count and (claims := store.claim(owner="bench", lease=60, limit=CLAIM_BATCH)):
        for claim in claims:
            store.ack(claim)
        done += len(claims)
    return done


def timed(server_pid: int, call: Any) -> tuple[float, float]:
    """Run ``call``; return (wall seconds, CPU seconds of this process and the server)."""
    server_before = sum(tree_cpu(server_pid).values())
    start, cpu = time.perf_counter(), time.process_time()
    call()
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return wall, cpu + sum(tree_cpu(server_pid).values()) - server_before


def measure_stores(stores: dict[str, Any], server_pid: int, rounds: int, count: int) -> None:
    ratios: dict[str, list[float]] = {"put": [], "put cpu": [], "claim": [], "claim cpu": []}
    run = uuid.uuid4().hex[:6]
    for round_no in range(rounds + 1):
        order = list(stores) if round_no % 2 else list(reversed(stores))
        results: dict[str, dict[str, tuple[float, float]]] = {}
        for name in order:
            events = [make_event(f"{run}-{name}-{round_no}-{i}", i) for i in range(count)]
            store = stores[name]
            put = timed(server_pid, lambda s=store, e=events: put_block(s, e))
            claimed: list[int] = []
            claim = timed(server_pid, lambda s=store, c=claimed: c.append(claim_block(s, count)))
            assert claimed == [count], f"{name} claimed {claimed} of {count}"
            results[name] = {"put": put, "claim": claim}
        if round_no == 0:
            continue  # warm-up
        for phase in ("put", "claim"):
            django_wall, django_cpu = results["django"][phase]
            pg_wall, pg_cpu = results["postgres"][phase]
            ratios[phase].append(pg_wall / django_wall)
            ratios[f"{phase} cpu"].append(pg_cpu / django_cpu)
    print(
        f"Store calls: one process, {rounds} interleaved rounds of {count} events per store "
        "(PostgreSQL 127.0.0.1, durable defaults)"
    )
    report("DjangoStore / PostgresStore, put rate", median(ratios["put"]), goal=f">= {GOAL}x")
    report("DjangoStore / PostgresStore, put per CPU second", median(ratios["put cpu"]))
    report(
        f"DjangoStore / PostgresStore, claim({CLAIM_BATCH}) + ack rate",
        median(ratios["claim"]),
        goal=f">= {GOAL}x",
    )
    report(
        f"DjangoStore / PostgresStore, claim({CLAIM_BATCH}) + ack per CPU second",
        median(ratios["claim cpu"]),
    )


# --- the receiver -----------------------------------------------------------------------------


def serve(kind: str, port: int, dbname: str, pg_port: int) -> None:
    """Run one uvicorn server until terminated (``--serve`` mode)."""
    from bench_receiver import floor_app

    app: Any
    if kind == "floor":
        app = floor_app
    elif kind == "postgres":
        from smartpos.webhooks import PostgresStore, WebhookReceiver

        dsn = f"host=127.0.0.1 port={pg_port} user=postgres dbname={dbname}"
        store = PostgresStore(dsn, check_settings=False)
        store.migrate()
        app = WebhookReceiver(store).asgi_app()
    else:
        configure_django({"dbname": dbname, "port": pg_port})
        from smartpos.integrations.django import DjangoStore
        from smartpos.webhooks import WebhookReceiver

        app = WebhookReceiver(DjangoStore("default")).asgi_app()
    run_uvicorn(app, port)


async def measure_receivers(ports: dict[str, int], rounds: int, per_conn: int, conns: int) -> None:
    sides = await open_sides(ports, conns)
    try:
        sat = await saturate(sides, rounds, per_conn)
    finally:
        close_sides(sides)
    print(
        f"Receiver: {conns} keep-alive connections sending back to back, {rounds} interleaved "
        f"rounds of {per_conn} requests per connection per side"
    )
    sat.report_sides()
    report("django / postgres receiver, p99", sat.p99("django") / sat.p99("postgres"))
    report(
        "django / postgres receiver, throughput",
        sat.throughput("django") / sat.throughput("postgres"),
    )
    report("django receiver / floor, p99", sat.p99("django") / sat.p99("floor"))


def start(kind: str, port: int, dbname: str, pg_port: int) -> subprocess.Popen[bytes]:
    args = ["--serve", kind, str(port), dbname, str(pg_port)]
    return start_script(__file__, port, *args, timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run for CI")
    parser.add_argument("--serve", nargs=4, metavar="ARG", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        kind, port, dbname, pg_port = args.serve
        serve(kind, int(port), dbname, int(pg_port))
        return
    rounds, count = (2, 100) if args.quick else (8, 1000)
    r_rounds, per_conn, conns = (2, 5, 50) if args.quick else (6, 25, 200)
    servers = load_servers()
    server = servers.PostgresServer()
    server.start()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        admin = server.dsn
        for name in ("bench_pg", "bench_django", "recv_pg", "recv_django"):
            create_database(admin, name)
        from smartpos.webhooks import PostgresStore

        pg_dsn = f"host=127.0.0.1 port={server.port} user=postgres dbname=bench_pg"
        postgres = PostgresStore(pg_dsn, check_settings=False)
        postgres.migrate()
        configure_django({"dbname": "bench_django", "port": server.port})
        from smartpos.integrations.django import DjangoStore

        stores = {"postgres": postgres, "django": DjangoStore("default")}
        try:
            measure_stores(stores, server.pid, rounds, count)
        finally:
            postgres.close()
            from django.db import connections

            connections.close_all()
        ports = {kind: free_port() for kind in ("floor", "postgres", "django")}
        for kind, port in ports.items():
            dbname = "recv_django" if kind == "django" else "recv_pg"
            procs.append(start(kind, port, dbname, server.port))
        asyncio.run(asyncio.wait_for(measure_receivers(ports, r_rounds, per_conn, conns), 900))
    finally:
        for proc in procs:
            stop_process(proc)
        server.stop()
    print(f"(finished {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC)")


if __name__ == "__main__":
    main()
