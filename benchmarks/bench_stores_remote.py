"""RedisStore and PostgresStore rates as ratios to their floors on the same server, same run.

    python benchmarks/bench_stores_remote.py            # full run (budget: 8 minutes)
    python benchmarks/bench_stores_remote.py --quick    # CI: small counts, about a minute

Starts its own redis-server (appendonly yes, appendfsync everysec) and PostgreSQL (durable
defaults) on 127.0.0.1 with the helpers of ``tests/webhooks/servers.py``, and stops them by PID.

For each backend and 1, 2, 4 and 8 worker processes (``--workers``; long-lived, each with its
own raw client and store), every round runs four timed blocks, each pair in alternating order:

- **put**: a block of ``store.put`` per event and a block of its floor, the least a put must
  do: ``SET key body NX`` through redis-py; ``INSERT INTO raw (id, body) VALUES (...) ON
  CONFLICT (id) DO NOTHING`` through psycopg (autocommit) into a table of a text primary key
  and a text body.
- **claim+ack**: ``store.claim(limit=10)`` then ``store.ack`` per claimed event, over the events
  the store's put block just stored; and its floor, the same loop (claim 10, one ack call per
  event, until the worker has its share) over a bare queue that an untimed block filled with
  the same number of events first:

  - Redis, two Lua scripts through EVALSHA (redis-py's ``register_script``). The queue is a
    sorted set of pending ids (scored in put order) and a hash per event (``body``, ``st``).
    The claim script ``ZPOPMIN``s up to 10 ids, and for each sets ``st=claimed`` and the
    claim's token ``tk`` (one ``HSET``) and reads its ``body`` (``HGET``); it answers the ids
    and bodies. The ack script marks one event ``st=done`` (and clears ``tk``) only when ``tk``
    is still its token, else answers 0.
  - PostgreSQL, the pattern of its job queues (procrastinate, pgqueuer): a table (``id`` text
    primary key, ``seq`` identity, ``body`` json, ``state`` text) with a partial index on
    ``seq`` where ``state = 'pending'``; the claim is one statement, ``UPDATE q SET state =
    'doing' WHERE id IN (SELECT id FROM q WHERE state = 'pending' ORDER BY seq LIMIT 10 FOR
    UPDATE SKIP LOCKED) RETURNING id, body``, and the ack one ``UPDATE q SET state = 'done'
    WHERE id = %s AND state = 'doing'`` per event, each in autocommit.

  Both floors hand the worker each event's body as a dict (``json.loads`` on Redis, psycopg's
  json column on PostgreSQL), as the store's ``Claim.raw`` does. What the store does beyond
  them: lease expiry (a timer index and an expiry per claim), attempts and dead letters,
  per-event tokens, the done index and TTL, the change notifications of a put (``PUBLISH`` /
  ``NOTIFY``), the sale's event counts, and on PostgreSQL the body hash, the ``tipo`` and
  ``criado_em`` columns and their indexes.

A block's rate is its operations over the span from the first worker's start to the last
one's end; a ratio compares blocks of the same round, and the figure reported is the median
over rounds. Each worker count runs on its own tables/keys; the scaling table divides each
rate at N workers by the rate at 1 worker (medians), for the store and for its floor, and
states the store's scaling over the floor's (the worker counts run one after the other, so
that table moves with the machine's load more than the ratios do).

Wall-clock rates on a shared 2-core machine swing with whatever else runs, so each block also
sums the CPU it cost: the workers' own (``time.process_time``) and the server's, read from
``/proc`` for the server's whole process tree. The "cpu" ratio (the floor's cost per operation
over the store's) is what the store's throughput would be, relative to its floor, on a
CPU-bound host. Goal (issue 27): put and claim+ack at 0.8x their floor or better, each ratio.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import multiprocessing
import os
import signal
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any, NamedTuple

from _common import load_servers

__all__ = ["main"]

GOAL = 0.8
CLAIM_BATCH = 10


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


# Worker processes.

#: The Redis floor's claim: KEYS: the pending ids (sorted set). ARGV: limit, event key prefix,
#: token. Answers id, body, id, body... of the popped events, each now claimed by the token.
FLOOR_CLAIM_LUA = """
local popped = redis.call('ZPOPMIN', KEYS[1], ARGV[1])
local out = {}
for j = 1, #popped, 2 do
  local k = ARGV[2] .. popped[j]
  redis.call('HSET', k, 'st', 'claimed', 'tk', ARGV[3])
  out[#out + 1] = popped[j]
  out[#out + 1] = redis.call('HGET', k, 'body')
end
return out
"""

#: The Redis floor's ack: KEYS: the event's hash. ARGV: token. Answers 1 (done) or 0.
FLOOR_ACK_LUA = """
if redis.call('HGET', KEYS[1], 'tk') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'st', 'done', 'tk', '')
return 1
"""


class Worker(NamedTuple):
    """What one worker process calls: the store, and the floors of put and claim+ack."""

    store: Any
    raw_write: Any  # (id, body) -> None: the put floor
    fill: Any  # (round, [(id, body)]) -> None: the claim floor's queue, untimed
    floor_claim: Any  # (limit) -> [(id, token, body as a dict)]
    floor_ack: Any  # (id, token) -> bool
    close: Any


def _open_redis(url: str, namespace: str) -> Worker:
    import redis

    from smartpos.webhooks._redis import RedisStore

    client = redis.Redis.from_url(url)
    raw_prefix = "{raw-" + namespace + "}:"
    queue = "{floor-" + namespace + "}:"
    pending, event_prefix = queue + "pending", queue + "ev:"
    claim_script = client.register_script(FLOOR_CLAIM_LUA)
    ack_script = client.register_script(FLOOR_ACK_LUA)

    def raw_write(key: str, body: str) -> None:
        client.set(raw_prefix + key, body, nx=True)

    def fill(round_no: int, items: list[tuple[str, str]]) -> None:
        pipe = client.pipeline(transaction=False)
        for n, (event_id, body) in enumerate(items):
            pipe.hset(event_prefix + event_id, mapping={"body": body, "st": "pending"})
            pipe.zadd(pending, {event_id: (round_no + 2) * 1_000_000 + n})
        pipe.execute()

    def floor_claim(limit: int) -> list[tuple[str, str, Any]]:
        token = uuid.uuid4().hex
        flat = claim_script(keys=[pending], args=[limit, event_prefix, token])
        return [(flat[i].decode(), token, json.loads(flat[i + 1])) for i in range(0, len(flat), 2)]

    def floor_ack(event_id: str, token: str) -> bool:
        return bool(ack_script(keys=[event_prefix + event_id], args=[token]))

    store = RedisStore(url, prefix=namespace, check_settings=False)
    return Worker(store, raw_write, fill, floor_claim, floor_ack, client.close)


def _open_postgres(url: str, namespace: str) -> Worker:
    import psycopg

    from smartpos.webhooks._postgres import PostgresStore

    conn = psycopg.connect(url, autocommit=True)
    insert = f'INSERT INTO "raw_{namespace}" (id, body) VALUES (%s, %s) ON CONFLICT (id) DO NOTHING'
    queue = f'"floor_{namespace}"'
    claim = (
        f"UPDATE {queue} SET state = 'doing' WHERE id IN (SELECT id FROM {queue} "
        "WHERE state = 'pending' ORDER BY seq LIMIT %s FOR UPDATE SKIP LOCKED) "
        "RETURNING id, body"
    )
    ack = f"UPDATE {queue} SET state = 'done' WHERE id = %s AND state = 'doing'"

    def raw_write(key: str, body: str) -> None:
        conn.execute(insert, (key, body))

    def fill(round_no: int, items: list[tuple[str, str]]) -> None:
        with conn.cursor() as cur, cur.copy(f"COPY {queue} (id, body) FROM STDIN") as copy:
            for item in items:
                copy.write_row(item)

    def floor_claim(limit: int) -> list[tuple[str, str, Any]]:
        return [(i, "", body) for i, body in conn.execute(claim, (limit,)).fetchall()]

    def floor_ack(event_id: str, token: str) -> bool:
        return conn.execute(ack, (event_id,)).rowcount == 1

    store = PostgresStore(url, table=namespace, check_settings=False)
    return Worker(store, raw_write, fill, floor_claim, floor_ack, conn.close)


def worker(
    backend: str, url: str, namespace: str, number: int, commands: Any, results: Any, barrier: Any
) -> None:
    """Run the blocks the coordinator sends until it sends None."""
    from smartpos.webhooks._store import canonical_json

    opened = (_open_redis if backend == "redis" else _open_postgres)(url, namespace)
    store = opened.store
    try:
        while (command := commands.get()) is not None:
            phase, round_no, count = command
            tag = "f" if phase in ("fill", "floor") else "r"
            events = [make_event(f"{tag}{round_no}-w{number}-{i}", i) for i in range(count)]
            bodies = [canonical_json(e.raw) for e in events]
            done = 0
            if phase == "fill":
                opened.fill(round_no, [(e.id, b) for e, b in zip(events, bodies, strict=True)])
            barrier.wait(timeout=120)
            start, cpu = time.monotonic(), time.process_time()
            if phase == "raw":
                for event, body in zip(events, bodies, strict=True):
                    opened.raw_write(event.id, body)
                done = count
            elif phase == "put":
                for event in events:
                    store.put(event)
                done = count
            elif phase == "claim":
                while done < count and (
                    claims := store.claim(owner=f"w{number}", lease=60, limit=CLAIM_BATCH)
                ):
                    acked = sum(store.ack(claim) for claim in claims)
                    if acked != len(claims):
                        raise RuntimeError(f"{len(claims) - acked} store acks found no lease")
                    done += len(claims)
            elif phase == "floor":
                while done < count and (floor_claims := opened.floor_claim(CLAIM_BATCH)):
                    acked = sum(opened.floor_ack(i, token) for i, token, _ in floor_claims)
                    if acked != len(floor_claims):
                        raise RuntimeError(f"{len(floor_claims) - acked} floor acks found no claim")
                    done += len(floor_claims)
            else:
                done = count  # "fill": done before the barrier, not timed
            end, cpu = time.monotonic(), time.process_time() - cpu
            results.put((done, start, end, cpu))
    finally:
        store.close()
        opened.close()


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
    """Create the PostgreSQL tables of one run: the store's, the floors' (Redis needs none)."""
    if backend != "postgres":
        return
    import psycopg

    from smartpos.webhooks._postgres import PostgresStore

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE TABLE "raw_{namespace}" (id text PRIMARY KEY, body text NOT NULL)')
        conn.execute(
            f'CREATE TABLE "floor_{namespace}" (id text PRIMARY KEY, '
            "seq bigint GENERATED ALWAYS AS IDENTITY, body json NOT NULL, "
            "state text NOT NULL DEFAULT 'pending')"
        )
        conn.execute(
            f'CREATE INDEX "floor_{namespace}_pending" ON "floor_{namespace}" (seq) '
            "WHERE state = 'pending'"
        )
    with PostgresStore(url, table=namespace, check_settings=False) as store:
        store.migrate()


#: The per-round series ``bench`` returns: rates, and ratios (store over floor, wall and CPU).
SERIES = (
    "raw", "put", "floor", "claim", "put_ratio", "claim_ratio", "put_cpu", "claim_cpu",
)  # fmt: skip


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
    out: dict[str, list[float]] = {k: [] for k in SERIES}

    def block(phase: str, round_no: int, size: int) -> Block:
        return run_block(queues, results, processes, server_pid, phase, round_no, size)

    try:
        # A warm-up round: connections, script loading, prepared statements.
        for phase in ("raw", "put", "claim", "fill", "floor"):
            block(phase, -1, min(count, 100))
        for round_no in range(rounds):
            flip = round_no % 2 == 1
            blocks = {}
            for phase in ("put", "raw") if flip else ("raw", "put"):
                blocks[phase] = block(phase, round_no, count)
            block("fill", round_no, count)  # the floor's queue, outside any timed block
            for phase in ("floor", "claim") if flip else ("claim", "floor"):
                blocks[phase] = block(phase, round_no, count)
            for phase in ("claim", "floor"):
                assert blocks[phase].ops == workers * count, f"{phase} missed events"
            raw, put, floor, claim = (blocks[k] for k in ("raw", "put", "floor", "claim"))
            for name, value in (
                ("raw", raw.rate),
                ("put", put.rate),
                ("floor", floor.rate),
                ("claim", claim.rate),
                ("put_ratio", put.rate / raw.rate),
                ("claim_ratio", claim.rate / floor.rate),
                ("put_cpu", raw.cost / put.cost),
                ("claim_cpu", floor.cost / claim.cost),
            ):
                out[name].append(value)
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


#: The ratios a row is judged on, and their names in the verdict.
JUDGED = {"put_ratio": "put wall", "put_cpu": "put cpu", "claim_ratio": "c+a wall",
          "claim_cpu": "c+a cpu"}  # fmt: skip


def verdict(med: dict[str, float]) -> str:
    """'goal met', or 'below goal' and the ratios under it."""
    below = [name for key, name in JUDGED.items() if med[key] < GOAL]
    return "goal met" if not below else "below goal (" + ", ".join(below) + ")"


def print_scaling(medians: dict[tuple[str, int], dict[str, float]]) -> None:
    """Each rate at N workers over its rate at 1 worker, the store's beside its floor's."""
    print(
        "\nScaling: rate at N workers / rate at 1 worker (medians), the store's beside its "
        "floor's;\n'vs fl': the store's scaling over its floor's (1.00x: scales as its floor does)"
    )
    header = (
        f"{'backend':<9} {'workers':>7} {'put':>7} {'put fl':>7} {'vs fl':>7} "
        f"{'c+a':>7} {'c+a fl':>7} {'vs fl':>7}"
    )
    print(header)
    print("-" * len(header))
    for (backend, workers), med in medians.items():
        one = medians.get((backend, 1))
        if one is None:
            print(f"{backend:<9} {workers:>7}   (no 1-worker run to compare with)")
            continue
        cells = []
        for store, floor in (("put", "raw"), ("claim", "floor")):
            mine, its = med[store] / one[store], med[floor] / one[floor]
            cells += [mine, its, mine / its]
        print(f"{backend:<9} {workers:>7} " + " ".join(f"{c:>6.2f}x" for c in cells))


def main(argv: list[str] | None = None) -> int:
    """Start the servers, run every backend and worker count, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small counts for CI")
    parser.add_argument("--rounds", type=int, default=None, help="rounds per configuration")
    parser.add_argument("--count", type=int, default=None, help="events per worker per block")
    parser.add_argument("--backend", choices=("redis", "postgres"), action="append")
    parser.add_argument("--workers", type=int, action="append", help="1, 2, 4 and 8 by default")
    parser.add_argument("--max-seconds", type=float, default=None, help="time budget")
    args = parser.parse_args(argv)
    rounds = args.rounds or (2 if args.quick else 5)
    count = args.count or (100 if args.quick else 2000)
    budget = args.max_seconds or (45.0 if args.quick else 480.0)
    backends = args.backend or ["redis", "postgres"]
    worker_counts = args.workers or [1, 2, 4, 8]

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
            f"{count} events per worker per block, {rounds} rounds, medians; goal >= {GOAL}x "
            "each ratio.\nFloors: put / SET NX (Redis), INSERT ... ON CONFLICT DO NOTHING "
            "(PostgreSQL); claim+ack / a bare Lua claim + ack (Redis), UPDATE ... FOR UPDATE "
            "SKIP LOCKED + UPDATE (PostgreSQL).\nRatios to the floor: 'wall' from rates, 'cpu' "
            "from CPU (workers + server) per operation; 'fl/s': the floor's rate."
        )
        header = (
            f"{'backend':<9} {'workers':>7} {'put fl/s':>8} {'put/s':>8} {'put wall':>8} "
            f"{'put cpu':>7} {'c+a fl/s':>8} {'c+a/s':>8} {'c+a wall':>8} {'c+a cpu':>7}  goal"
        )
        print(header)
        print("-" * len(header))
        deadline = time.monotonic() + budget
        medians: dict[tuple[str, int], dict[str, float]] = {}
        for backend in backends:
            for n, workers in enumerate(worker_counts):
                left = (
                    len(worker_counts)
                    - n
                    + len(worker_counts) * (len(backends) - 1 - backends.index(backend))
                )
                stop = time.monotonic() + (deadline - time.monotonic()) / max(1, left)
                r = bench(backend, urls[backend], pids[backend], workers, rounds, count, stop)
                med = {k: statistics.median(v) for k, v in r.items()}
                medians[backend, workers] = med
                print(
                    f"{backend:<9} {workers:>7} {med['raw']:>8.0f} {med['put']:>8.0f} "
                    f"{med['put_ratio']:>7.2f}x {med['put_cpu']:>6.2f}x {med['floor']:>8.0f} "
                    f"{med['claim']:>8.0f} {med['claim_ratio']:>7.2f}x {med['claim_cpu']:>6.2f}x"
                    f"  {verdict(med)}",
                    flush=True,
                )
        print_scaling(medians)
        if args.quick:
            print("--quick is a smoke run (few, short blocks): run without it to measure.")
    finally:
        for server in reversed(started):
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
