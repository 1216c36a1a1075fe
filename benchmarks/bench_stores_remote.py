"""RedisStore and PostgresStore rates as ratios to their raw client on the same server.

    python benchmarks/bench_stores_remote.py            # full run (a few minutes)
    python benchmarks/bench_stores_remote.py --quick    # CI: small counts, under a minute

Starts its own redis-server (appendonly yes, appendfsync everysec) and PostgreSQL (durable
defaults) on 127.0.0.1 with the helpers of ``tests/webhooks/servers.py``, and stops them by PID.

For each backend and 1, 2 and 4 worker processes (long-lived, each with its own raw client and
store), every round runs, in alternating order, a block of raw writes and a block of
``store.put``, then a block of ``store.claim(limit=10)`` + ``store.ack`` per event over the
events just put. The raw write is what the store's put must at least do: ``SET key body NX``
through redis-py, a bare ``INSERT`` into a keyed table through psycopg (autocommit). A block's
rate is its operations over the span from the first worker's start to the last one's end; a
ratio compares blocks of the same round, and the figure reported is the median over rounds.

Wall-clock rates on a shared 2-core machine swing with whatever else runs, so each block also
sums the CPU it cost: the workers' own (``time.process_time``) and the server's, read from
``/proc`` for the server's whole process tree. The "cpu" ratio (raw cost per operation over the
store's) is what the store's throughput would be, relative to raw, on a CPU-bound host.
Goal (issue 7): put and claim+ack at 0.5x the raw rate or better.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import multiprocessing
import os
import signal
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any, NamedTuple

__all__ = ["main"]

GOAL = 0.5
CLAIM_BATCH = 10
ROOT = Path(__file__).resolve().parent.parent


class Envelope(NamedTuple):
    """The least a store needs of an event (``EventLike``)."""

    id: str
    tipo: str
    criado_em: dt.datetime | None
    raw: dict[str, Any]


def make_event(event_id: str, n: int) -> Envelope:
    """A pagamento.aprovado envelope of realistic size (about 450 bytes of JSON)."""
    criado_em = dt.datetime(2024, 5, 1, 12, 0, tzinfo=dt.timezone.utc) + dt.timedelta(
        milliseconds=n
    )
    raw = {
        "id": event_id,
        "tipo": "pagamento.aprovado",
        "criadoEm": criado_em.isoformat(),
        "dados": {
            "referencia": f"pedido-{n}",
            "smartposId": "SP-0001-ABCD",
            "documentoCliente": "52998224725",
            "valorCentavos": 1000 + n,
            "formaPagamento": "credito",
            "parcelas": 1,
            "autorizacao": {"nsu": f"{n:012d}", "codigo": "A1B2C3", "bandeira": "visa"},
            "mensagem": "Transação aprovada",
        },
    }
    return Envelope(event_id, "pagamento.aprovado", criado_em, raw)


def load_servers() -> Any:
    """Import tests/webhooks/servers.py by path (the tests' server helpers)."""
    path = ROOT / "tests" / "webhooks" / "servers.py"
    spec = importlib.util.spec_from_file_location("_bench_servers", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Worker processes.


def _open(backend: str, url: str, namespace: str) -> tuple[Any, Any, Any]:
    """Open (raw write function, store, closer) for one worker."""
    if backend == "redis":
        import redis

        from smartpos.webhooks._redis import RedisStore

        client = redis.Redis.from_url(url)
        raw_prefix = "{raw-" + namespace + "}:"

        def raw_write(key: str, body: str) -> None:
            client.set(raw_prefix + key, body, nx=True)

        store = RedisStore(url, prefix=namespace, check_settings=False)
        return raw_write, store, client.close

    import psycopg

    from smartpos.webhooks._postgres import PostgresStore

    conn = psycopg.connect(url, autocommit=True)
    insert = f'INSERT INTO "raw_{namespace}" (id, body) VALUES (%s, %s)'

    def raw_write(key: str, body: str) -> None:
        conn.execute(insert, (key, body))

    store = PostgresStore(url, table=namespace, check_settings=False)
    return raw_write, store, conn.close


def worker(
    backend: str, url: str, namespace: str, number: int, commands: Any, results: Any, barrier: Any
) -> None:
    """Run the blocks the coordinator sends until it sends None."""
    from smartpos.webhooks._store import canonical_json

    raw_write, store, close = _open(backend, url, namespace)
    try:
        while (command := commands.get()) is not None:
            phase, round_no, count = command
            events = [make_event(f"r{round_no}-w{number}-{i}", i) for i in range(count)]
            bodies = [canonical_json(e.raw) for e in events]
            done = 0
            barrier.wait(timeout=120)
            start, cpu = time.monotonic(), time.process_time()
            if phase == "raw":
                for event, body in zip(events, bodies, strict=True):
                    raw_write(event.id, body)
                done = count
            elif phase == "put":
                for event in events:
                    store.put(event)
                done = count
            else:
                while done < count and (
                    claims := store.claim(owner=f"w{number}", lease=60, limit=CLAIM_BATCH)
                ):
                    for claim in claims:
                        store.ack(claim)
                    done += len(claims)
            end, cpu = time.monotonic(), time.process_time() - cpu
            results.put((done, start, end, cpu))
    finally:
        store.close()
        close()


# Coordinator.


def tree_cpu(root: int) -> dict[int, float]:
    """CPU seconds used so far by a process and its children, per PID (Linux /proc)."""
    ticks = os.sysconf("SC_CLK_TCK")
    usage: dict[int, float] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # The process ended meanwhile.
        pid, ppid = int(stat.parent.name), int(fields[1])
        if root in (pid, ppid):
            usage[pid] = (int(fields[11]) + int(fields[12])) / ticks
    return usage


class Block(NamedTuple):
    """One timed block of all workers."""

    ops: int
    seconds: float
    client_cpu: float
    server_cpu: float

    @property
    def rate(self) -> float:
        """Operations per second over the block's span."""
        return self.ops / self.seconds

    @property
    def cost(self) -> float:
        """CPU seconds (workers and server) per operation."""
        return (self.client_cpu + self.server_cpu) / max(self.ops, 1)


def collect(results: Any, processes: list[Any], timeout: float = 600.0) -> list[Any]:
    """One answer per worker; fails at once if a worker died instead of waiting forever."""
    import queue

    answers: list[Any] = []
    deadline = time.monotonic() + timeout
    while len(answers) < len(processes):
        try:
            answers.append(results.get(timeout=1.0))
        except queue.Empty:
            dead = [p.pid for p in processes if not p.is_alive()]
            if dead:
                raise RuntimeError(
                    f"benchmark worker(s) {dead} died; see their traceback"
                ) from None
            if time.monotonic() > deadline:
                raise RuntimeError(f"no answer from the workers in {timeout:.0f} s") from None
    return answers


def run_block(
    queues: list[Any],
    results: Any,
    processes: list[Any],
    server_pid: int,
    phase: str,
    round_no: int,
    count: int,
) -> Block:
    """Send one block to every worker and combine their timings and CPU."""
    before = tree_cpu(server_pid)
    for q in queues:
        q.put((phase, round_no, count))
    answers = collect(results, processes)
    after = tree_cpu(server_pid)
    server = sum(used - before.get(pid, 0.0) for pid, used in after.items())
    ops = sum(a[0] for a in answers)
    span = max(a[2] for a in answers) - min(a[1] for a in answers)
    return Block(ops, span, sum(a[3] for a in answers), server)


def prepare(backend: str, url: str, namespace: str) -> None:
    """Create the PostgreSQL tables of one run (Redis needs nothing)."""
    if backend != "postgres":
        return
    import psycopg

    from smartpos.webhooks._postgres import PostgresStore

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE TABLE "raw_{namespace}" (id text PRIMARY KEY, body text NOT NULL)')
    with PostgresStore(url, table=namespace, check_settings=False) as store:
        store.migrate()


def bench(
    backend: str,
    url: str,
    server_pid: int,
    workers: int,
    rounds: int,
    count: int,
    deadline: float,
) -> dict[str, list[float]]:
    """Run ``rounds`` rounds with ``workers`` processes; return per-round rates and ratios."""
    namespace = f"b{uuid.uuid4().hex[:10]}"
    prepare(backend, url, namespace)
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(workers), ctx.Queue()
    queues = [ctx.Queue() for _ in range(workers)]
    processes = [
        ctx.Process(target=worker, args=(backend, url, namespace, n, queues[n], results, barrier))
        for n in range(workers)
    ]
    for process in processes:
        process.start()
    out: dict[str, list[float]] = {
        k: [] for k in ("raw", "put", "claim", "put_ratio", "claim_ratio", "put_cpu", "claim_cpu")
    }
    try:
        # A warm-up round: connections, script loading, prepared statements.
        for phase in ("raw", "put", "claim"):
            run_block(queues, results, processes, server_pid, phase, -1, min(count, 100))
        for round_no in range(rounds):
            order = ("raw", "put") if round_no % 2 == 0 else ("put", "raw")
            blocks = {
                phase: run_block(queues, results, processes, server_pid, phase, round_no, count)
                for phase in order
            }
            blocks["claim"] = run_block(
                queues, results, processes, server_pid, "claim", round_no, count
            )
            assert blocks["claim"].ops == workers * count, "claim+ack missed events"
            raw = blocks["raw"]
            out["raw"].append(raw.rate)
            out["put"].append(blocks["put"].rate)
            out["claim"].append(blocks["claim"].rate)
            out["put_ratio"].append(blocks["put"].rate / raw.rate)
            out["claim_ratio"].append(blocks["claim"].rate / raw.rate)
            out["put_cpu"].append(raw.cost / blocks["put"].cost)
            out["claim_cpu"].append(raw.cost / blocks["claim"].cost)
            if time.monotonic() > deadline:
                break
    finally:
        for q in queues:
            q.put(None)
        for process in processes:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()
                process.join(timeout=10)
    return out


def main(argv: list[str] | None = None) -> int:
    """Start the servers, run every backend and worker count, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small counts for CI")
    parser.add_argument("--rounds", type=int, default=None, help="rounds per configuration")
    parser.add_argument("--count", type=int, default=None, help="events per worker per block")
    parser.add_argument("--backend", choices=("redis", "postgres"), action="append")
    parser.add_argument("--workers", type=int, action="append", help="1, 2 and 4 by default")
    parser.add_argument("--max-seconds", type=float, default=None, help="time budget")
    args = parser.parse_args(argv)
    rounds = args.rounds or (2 if args.quick else 5)
    count = args.count or (300 if args.quick else 2000)
    budget = args.max_seconds or (45.0 if args.quick else 100.0)
    backends = args.backend or ["redis", "postgres"]
    worker_counts = args.workers or [1, 2, 4]

    # SIGTERM (a CI time-out, a Ctrl-C of run_all) must still stop the servers started here.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    servers = load_servers()
    started: list[Any] = []
    urls: dict[str, str] = {}
    pids: dict[str, int] = {}
    try:
        if "redis" in backends:
            redis_server = servers.RedisServer(
                appendonly=True, extra_args=["--appendfsync", "everysec"]
            )
            redis_server.start()
            started.append(redis_server)
            urls["redis"] = redis_server.url
            pids["redis"] = redis_server.pid
        if "postgres" in backends:
            pg_server = servers.PostgresServer()
            pg_server.start()
            started.append(pg_server)
            urls["postgres"] = pg_server.dsn
            pids["postgres"] = pg_server.pid

        print(
            f"{count} events per worker per block, {rounds} rounds, medians; goal >= {GOAL}x.\n"
            "Ratios to raw: 'wall' from rates, 'cpu' from CPU (workers + server) per operation."
        )
        header = (
            f"{'backend':<9} {'workers':>7} {'raw/s':>8} {'put/s':>8} {'put wall':>8} "
            f"{'put cpu':>7} {'claim+ack/s':>11} {'c+a wall':>8} {'c+a cpu':>7}"
        )
        print(header)
        print("-" * len(header))
        deadline = time.monotonic() + budget
        below = []
        for backend in backends:
            share = (deadline - time.monotonic()) / max(1, len(backends) * len(worker_counts))
            for workers in worker_counts:
                stop = time.monotonic() + share
                r = bench(backend, urls[backend], pids[backend], workers, rounds, count, stop)
                med = {k: statistics.median(v) for k, v in r.items()}
                print(
                    f"{backend:<9} {workers:>7} {med['raw']:>8.0f} {med['put']:>8.0f} "
                    f"{med['put_ratio']:>7.2f}x {med['put_cpu']:>6.2f}x {med['claim']:>11.0f} "
                    f"{med['claim_ratio']:>7.2f}x {med['claim_cpu']:>6.2f}x",
                    flush=True,
                )
                for what in ("put_ratio", "put_cpu", "claim_ratio", "claim_cpu"):
                    if med[what] < GOAL:
                        below.append(f"{backend} {workers}w {what}={med[what]:.2f}")
        print("all ratios meet the goal" if not below else "below goal: " + ", ".join(below))
        if args.quick:
            print("--quick is a smoke run (few, short blocks): run without it to measure.")
    finally:
        for server in reversed(started):
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
