"""Growth and round trips per store call: a small store against a large one (issue 27).

    python benchmarks/bench_scale.py            # 10,000 vs 1,000,000 events (minutes)
    python benchmarks/bench_scale.py --quick    # CI: 1,000 vs 5,000 events, under a minute
    python benchmarks/bench_scale.py --small 10000 --large 200000 --backend postgres

For each backend (SQLite ``FULL`` in a temporary directory, PostgreSQL with durable defaults,
redis-server with ``appendonly yes`` / ``appendfsync everysec``, ``DjangoStore`` on that same
PostgreSQL; both servers started here on 127.0.0.1 with the helpers of
``tests/webhooks/servers.py`` and stopped by PID, which removes their directories and the
databases in them) two stores are filled: ``--small`` and ``--large`` events (1 % pending, the
rest done within the retention), with ``--small-ops`` and ``--large-ops`` journal entries (2 %
still waiting, the rest final with their event stored; one in four the attempt of a sale); the
first 400 rows are half pending (waiting), so that a small store lists as many rows as a large
one. SQLite and PostgreSQL are filled with bulk SQL writing exactly the store's columns, Redis
through the store's own scripts (``put_many``, ``claim``/``ack_many``, the journal's insert).
The Django store gets one database per size (``CREATE DATABASE``) and one alias each in
``DATABASES``, Django configured once in this process and ``migrate`` run on both; its tables
(``smartpos_event``, ``smartpos_operation``, ``smartpos_sale``) are filled with ``COPY`` as
PostgreSQL's are.

Then, in rounds that alternate the two stores, each call is timed ``--calls`` times: ``put``,
``get``, ``claim(limit=10)`` + ``ack_many`` (10 new events put first, untimed), ``list`` of
100 pending and of 100 of any state, ``operation``, ``operations`` of 100 waiting and of 100
of any state, ``sales(limit=100)``, ``sale``, and ``purge()`` with nothing due. The table gives
each call's median per size, the growth (large / small; goal <= 1.5x), the round trips it
made (counted once on the large store: statements sent to PostgreSQL, packets to Redis,
statements SQLite ran, statements Django's cursors sent, seen by the alias's
``execute_wrappers``; BEGIN/COMMIT are not counted on the SQL stores), and, for the reads
that return rows, a bare query returning the same rows through the same driver (for Django,
raw SQL through ``connections[alias].cursor()``), same round, and the call's ratio to it
(goal <= 2x); then the ratio to that bare query followed by decoding the JSON texts it
returned ("/decoded": what any reader of those rows must do before it sees an event; psycopg
decodes ``jsonb`` itself, so on PostgreSQL both floors decode; the Django tables hold JSON as
text, which only the second floor decodes). Storage per event is stated for each store. Times
are wall-clock medians of interleaved rounds on a shared machine: read the ratios, not the
milliseconds.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import hashlib
import itertools
import json
import shutil
import signal
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from _common import load_servers

__all__ = ["main"]

GROWTH_GOAL = 1.5
BARE_GOAL = 2.0
LIMIT = 100
_T0 = 1_700_000_000.0


class Envelope(NamedTuple):
    """The least a store needs of an event (``EventLike``)."""

    id: str
    tipo: str
    criado_em: dt.datetime | None
    raw: dict[str, Any]


def referencia(j: int) -> str:
    """The referencia of journal entry ``j`` (UUID-shaped, as a client makes them)."""
    return f"{j:08x}-aaaa-4bbb-8ccc-000000000000"


def make_event(i: int, ref: str | None) -> Envelope:
    """A pagamento.aprovado envelope of realistic size (about 450 bytes of JSON)."""
    criado_em = dt.datetime.fromtimestamp(_T0 + i, dt.timezone.utc)
    dados: dict[str, Any] = {
        "referencia": ref if ref is not None else f"outro-{i}",
        "smartposId": "SP-0001-ABCD",
        "documentoCliente": "52998224725",
        "valorCentavos": 1000,
        "formaPagamento": "credito",
        "parcelas": 1,
        "autorizacao": {"nsu": f"{i:012d}", "codigo": "A1B2C3", "bandeira": "visa"},
        "mensagem": "Transação aprovada",
        "status": "aprovado",
    }
    raw = {
        "id": f"ev-{i}",
        "tipo": "pagamento.aprovado",
        "criadoEm": criado_em.isoformat(),
        "dados": dados,
    }
    return Envelope(f"ev-{i}", "pagamento.aprovado", criado_em, raw)


def request_body(ref: str) -> bytes:
    return (
        b'{"referencia":"%s","documentoCliente":"52998224725","valorCentavos":1000,'
        b'"modoExecucao":"manual","comanda":{"identificacao":"Mesa 4"}}' % ref.encode()
    )


class Shape(NamedTuple):
    """What one store holds."""

    events: int
    ops: int

    # The first 2 * LIMIT rows too: a small store lists as many rows as a large one.

    def pending(self, i: int) -> bool:
        return i % 100 == 0 or (i % 2 == 0 and i < 4 * LIMIT)

    def waiting(self, j: int) -> bool:
        return j % 50 == 0 or (j % 2 == 0 and j < 4 * LIMIT)

    def sale(self, j: int) -> str | None:
        return f"venda-{j // 4:07d}" if j % 4 == 0 else None

    def event_ref(self, i: int) -> str | None:
        """Event ``i`` is the outcome of entry ``i`` (a final one), else of nobody."""
        return referencia(i) if i < self.ops and not self.waiting(i) else None


# --- Loading ---------------------------------------------------------------------------------


def _rows(shape: Shape) -> Iterator[tuple[Envelope, str, str, str | None]]:
    from smartpos.webhooks._store import canonical_json

    for i in range(shape.events):
        event = make_event(i, shape.event_ref(i))
        text = canonical_json(event.raw)
        digest = hashlib.sha256(text.encode()).hexdigest()
        state = "pending" if shape.pending(i) else "done"
        yield event, text, digest, state


def load_sqlite(path: Path, shape: Shape) -> None:
    """Fill a SQLite store's file with bulk SQL, as the store writes each row."""
    from smartpos.webhooks._sqlite import SQLiteStore
    from smartpos.webhooks._store import canonical_json

    SQLiteStore(path).close()  # the schema
    now = time.time()
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.executemany(
            "INSERT INTO smartpos_inbox (id, tipo, criado_em, raw, body_hash, state, attempts, "
            "received_at, available_at, done_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                (
                    e.id,
                    e.tipo,
                    _T0 + i,
                    text,
                    digest,
                    state,
                    0 if state == "pending" else 1,
                    now - 86400,
                    now - 86400 if state == "pending" else None,
                    None if state == "pending" else now - 86400 + i / 1000,
                )
                for i, (e, text, digest, state) in enumerate(_rows(shape))
            ),
        )
        conn.executemany(
            "INSERT INTO smartpos_operations (referencia, kind, state, method, path, body, "
            "final_event, created_at, updated_at, sale, pending_after, events) "
            "VALUES (?, 'payment', ?, 'POST', '/v1/payments', ?, ?, ?, ?, ?, ?, ?)",
            (
                (
                    referencia(j),
                    "sending" if shape.waiting(j) else "final",
                    request_body(referencia(j)),
                    None if shape.waiting(j) else canonical_json(make_event(j, referencia(j)).raw),
                    now - 86400,
                    now - 86400,
                    shape.sale(j),
                    None if shape.sale(j) is None else 600.0,
                    0 if shape.waiting(j) or shape.sale(j) is None else 1,
                )
                for j in range(shape.ops)
            ),
        )
        conn.executemany(
            "INSERT INTO smartpos_sales (sale_id, total_centavos, version, created_at, "
            "updated_at) VALUES (?, 1000, 1, ?, ?)",
            ((shape.sale(j), now - 86400, now - 86400) for j in range(0, shape.ops, 4)),
        )
        conn.commit()


def copy_rows(
    conn: Any,
    shape: Shape,
    events: tuple[str, str, str],
    journal: tuple[str, str],
    *,
    criado: Callable[[int, Envelope], Any],
    at: Callable[[float], Any],
) -> None:
    """COPY a shape's events, journal entries and sales into PostgreSQL tables, as a store
    writes each row: ``events`` is (table, id column, envelope column), ``journal`` the
    operations and sales tables; ``criado`` gives event ``i``'s ``criado_em`` and ``at`` turns
    seconds after a day ago into the tables' time type."""
    from smartpos.webhooks._store import canonical_json

    table, id_column, body_column = events
    with conn.cursor().copy(
        f"COPY {table} ({id_column}, tipo, criado_em, {body_column}, body_hash, state, "
        "attempts, received_at, available_at, done_at, referencia) FROM STDIN"
    ) as copy:
        for i, (e, text, digest, state) in enumerate(_rows(shape)):
            copy.write_row((
                e.id, e.tipo, criado(i, e), text, digest, state,
                0 if state == "pending" else 1, at(0),
                at(0) if state == "pending" else None,
                None if state == "pending" else at(i / 1000),
                e.raw["dados"]["referencia"],
            ))  # fmt: skip
    operations, sales = journal
    with conn.cursor().copy(
        f"COPY {operations} (referencia, kind, state, method, path, body, "
        "final_event, created_at, updated_at, sale, pending_after, events) FROM STDIN"
    ) as copy:
        for j in range(shape.ops):
            ref = referencia(j)
            copy.write_row((
                ref, "payment", "sending" if shape.waiting(j) else "final", "POST",
                "/v1/payments", request_body(ref),
                None if shape.waiting(j) else canonical_json(make_event(j, ref).raw),
                at(0), at(0), shape.sale(j), None if shape.sale(j) is None else 600.0,
                0 if shape.waiting(j) or shape.sale(j) is None else 1,
            ))  # fmt: skip
    with conn.cursor().copy(
        f"COPY {sales} (sale_id, total_centavos, version, created_at, updated_at) FROM STDIN"
    ) as copy:
        for j in range(0, shape.ops, 4):
            copy.write_row((shape.sale(j), 1000, 1, at(0), at(0)))


def load_postgres(dsn: str, table: str, shape: Shape) -> None:
    """Fill a PostgresStore's tables with COPY, as the store writes each row."""
    import psycopg

    from smartpos.webhooks._postgres import PostgresStore

    with PostgresStore(dsn, table=table, check_settings=False) as store:
        store.migrate()
    now = dt.datetime.now(dt.timezone.utc)
    day = now - dt.timedelta(days=1)
    with psycopg.connect(dsn, autocommit=True) as conn:
        for name in (table, f"{table}_operations"):
            conn.execute(f'ALTER TABLE "{name}" DISABLE TRIGGER USER')
        copy_rows(
            conn,
            shape,
            (f'"{table}"', "id", "body"),
            (f'"{table}_operations"', f'"{table}_sales"'),
            criado=lambda i, e: e.criado_em,
            at=lambda seconds: day + dt.timedelta(seconds=seconds),
        )
        for name in (table, f"{table}_operations"):
            conn.execute(f'ALTER TABLE "{name}" ENABLE TRIGGER USER')
        for name in (table, f"{table}_operations", f"{table}_sales"):
            conn.execute(f'VACUUM ANALYZE "{name}"')


def configure_django(port: int, aliases: list[str]) -> None:
    """Configure Django once in this process: one alias per store (its own database on the
    benchmark's PostgreSQL, named as the alias), the smartpos app, ``migrate`` on each."""
    import django
    from django.conf import settings
    from django.core.management import call_command

    base = {
        "ENGINE": "django.db.backends.postgresql",
        "USER": "postgres",
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "CONN_MAX_AGE": None,
    }
    settings.configure(
        DATABASES={"default": {}, **{alias: {**base, "NAME": alias} for alias in aliases}},
        INSTALLED_APPS=["django.contrib.contenttypes", "smartpos.integrations.django"],
        USE_TZ=True,
        SMARTPOS={"STORE": f"django://{aliases[-1]}", "API_KEY": "bench", "BASE_URL": "http://x"},
    )
    django.setup()
    for alias in aliases:
        call_command("migrate", database=alias, verbosity=0)


def load_django(dsn: str, shape: Shape) -> None:
    """Fill a migrated DjangoStore database with COPY, as the store writes each row.

    Its tables have no triggers (the store's NOTIFY is part of its put statement): nothing to
    disable during the load. Times are float epoch seconds, envelopes text (``models.py``).
    """
    import psycopg

    day = time.time() - 86400
    with psycopg.connect(dsn, autocommit=True) as conn:
        copy_rows(
            conn,
            shape,
            ("smartpos_event", "event_id", "raw"),
            ("smartpos_operation", "smartpos_sale"),
            criado=lambda i, e: _T0 + i,
            at=lambda seconds: day + seconds,
        )
        for name in ("smartpos_event", "smartpos_operation", "smartpos_sale"):
            conn.execute(f"VACUUM ANALYZE {name}")


def load_redis(store: Any, shape: Shape) -> None:
    """Fill a RedisStore through its own scripts: puts, claims and acks, journal inserts."""
    from smartpos.webhooks._sales import SaleTerms

    for j in range(shape.ops):
        ref = referencia(j)
        sale = shape.sale(j)
        terms = None
        if sale is not None:
            terms = SaleTerms(sale_id=sale, valor_centavos=1000, smartpos_id=None, imediato=False)
        store._begin_operation(
            ref, kind="payment", method="POST", path="/v1/payments", body=request_body(ref),
            sale=terms,
        )  # fmt: skip
    batch: list[Envelope] = []
    for i in range(shape.events):
        batch.append(make_event(i, shape.event_ref(i)))
        if len(batch) == 500 or i == shape.events - 1:
            store.put_many(batch)
            batch = []
    to_ack = shape.events - sum(1 for i in range(shape.events) if shape.pending(i))
    acked = 0
    while acked < to_ack:
        claims = store.claim(owner="load", lease=600.0, limit=min(500, to_ack - acked))
        if not claims:
            break
        store.ack_many(claims)
        acked += len(claims)
    store.operations(final=True, limit=shape.ops)  # records every outcome found, in pages


# --- Counting round trips --------------------------------------------------------------------


class Counter:
    n = 0


def counting_sqlite(path: Path, counter: Counter) -> Any:
    from smartpos.webhooks._sqlite import SQLiteStore

    skip = ("PRAGMA", "BEGIN", "COMMIT", "ROLLBACK")

    def trace(statement: str) -> None:
        if not statement.lstrip().upper().startswith(skip):
            counter.n += 1

    class Counting(SQLiteStore):
        def _connect(self) -> Any:
            conn = super()._connect()
            conn.set_trace_callback(trace)
            return conn

    return Counting(path, synchronous="FULL")


def counting_postgres(dsn: str, table: str, counter: Counter) -> Any:
    import psycopg
    import psycopg_pool

    from smartpos.webhooks._postgres import PostgresStore

    class Counting(psycopg.Connection):  # type: ignore[type-arg]
        def execute(self, *args: Any, **kwargs: Any) -> Any:
            counter.n += 1
            return super().execute(*args, **kwargs)

    pool = psycopg_pool.ConnectionPool(
        dsn,
        connection_class=Counting,
        kwargs={"autocommit": True},
        min_size=1,
        max_size=1,
        open=True,
    )
    store = PostgresStore(pool, table=table, check_settings=False)
    store._bench_pool = pool  # type: ignore[attr-defined]
    return store


def counting_redis(url: str, prefix: str, counter: Counter) -> Any:
    import redis

    from smartpos.webhooks._redis import RedisStore

    class Counting(redis.Connection):
        def send_packed_command(self, *args: Any, **kwargs: Any) -> None:
            counter.n += 1
            super().send_packed_command(*args, **kwargs)

    pool = redis.ConnectionPool.from_url(url, connection_class=Counting)
    return RedisStore(redis.Redis(connection_pool=pool), prefix=prefix, check_settings=False)


def counting_django(alias: str, counter: Counter) -> Any:
    """A DjangoStore on ``alias``, whose connection counts the statements Django sends
    (its ``execute_wrappers``; transaction control, as on the other backends, not counted)."""
    from django.db import connections

    from smartpos.integrations.django import DjangoStore

    skip = ("SAVEPOINT", "RELEASE", "ROLLBACK")

    def wrapper(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if not sql.lstrip().upper().startswith(skip):
            counter.n += 1
        return execute(sql, params, many, context)

    connections[alias].execute_wrappers.append(wrapper)
    return DjangoStore(alias)


# --- Bare queries returning the same rows ----------------------------------------------------


def _decode_json(value: Any) -> Any:
    """Decode every JSON object text inside a driver's answer (rows, Redis hashes)."""
    if isinstance(value, (str, bytes)) and value[:1] in ("{", b"{"):
        return json.loads(value)
    if isinstance(value, (list, tuple)):
        return [_decode_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _decode_json(v) for k, v in value.items()}
    return value


def decoded(bare: dict[str, Callable[[], Any]]) -> dict[str, Callable[[], Any]]:
    """Each bare read followed by what any reader of its rows must do to see an event: decode
    the JSON texts (bodies, recorded outcomes). psycopg already decodes ``jsonb`` columns."""
    return {
        f"decoded {name}": (lambda fn=fn: _decode_json(fn()))
        for name, fn in bare.items()
        if not name.startswith("_")
    }


_INBOX_COLUMNS = (
    "id, tipo, criado_em, {raw}, body_hash, state, attempts, received_at, available_at, "
    "owner, lease_expires_at, last_error, done_at"
)
_J_COLUMNS = (
    "referencia, kind, state, method, path, body, created_at, updated_at, seq, answer, "
    "final_event, sale, pending_after, abandoned"
)


def bare_sqlite(path: Path) -> dict[str, Callable[[], Any]]:
    conn = sqlite3.connect(path, check_same_thread=False)
    cols = _INBOX_COLUMNS.format(raw="raw")
    pending = (
        f"SELECT {cols} FROM smartpos_inbox WHERE available_at IS NOT NULL AND state = 'pending' "
        "ORDER BY criado_em IS NULL, criado_em, seq LIMIT 100"
    )
    waiting = (
        f"SELECT {_J_COLUMNS} FROM smartpos_operations "
        "WHERE state IN ('sending', 'accepted', 'unknown') AND seq > 0 ORDER BY seq LIMIT 100"
    )
    sales = (
        f"SELECT s.sale_id, s.total_centavos, s.version, o.{_J_COLUMNS.replace(', ', ', o.')} "
        "FROM (SELECT * FROM smartpos_sales WHERE seq > 0 ORDER BY seq LIMIT 100) AS s "
        "JOIN smartpos_operations AS o ON o.sale = s.sale_id ORDER BY s.seq, o.seq"
    )
    return {
        "list pending": lambda: conn.execute(pending).fetchall(),
        "operations waiting": lambda: conn.execute(waiting).fetchall(),
        "sales": lambda: conn.execute(sales).fetchall(),
        "_close": conn.close,
    }


def bare_postgres(dsn: str, table: str) -> dict[str, Callable[[], Any]]:
    import psycopg

    conn = psycopg.connect(dsn, autocommit=True)
    cols = _INBOX_COLUMNS.format(raw="body")
    pending = (
        f"SELECT {cols} FROM \"{table}\" WHERE state = 'pending' ORDER BY criado_em, seq LIMIT 100"
    )
    waiting = (
        f'SELECT {_J_COLUMNS} FROM "{table}_operations" '
        "WHERE state IN ('sending', 'accepted', 'unknown') AND seq > 0 ORDER BY seq LIMIT 100"
    )
    sales = (
        f"SELECT s.sale_id, s.total_centavos, s.version, o.{_J_COLUMNS.replace(', ', ', o.')} "
        f'FROM (SELECT * FROM "{table}_sales" WHERE seq > 0 ORDER BY seq LIMIT 100) AS s '
        f'JOIN "{table}_operations" AS o ON o.sale = s.sale_id ORDER BY s.seq, o.seq'
    )
    return {
        "list pending": lambda: conn.execute(pending).fetchall(),
        "operations waiting": lambda: conn.execute(waiting).fetchall(),
        "sales": lambda: conn.execute(sales).fetchall(),
        "_close": conn.close,
    }


def bare_django(alias: str) -> dict[str, Callable[[], Any]]:
    """The store's reads as raw SQL through Django's own cursor (same driver, same wrapper)."""
    from django.db import connections

    def rows(statement: str) -> Callable[[], Any]:
        def run() -> Any:
            with connections[alias].cursor() as cursor:
                cursor.execute(statement)
                return cursor.fetchall()

        return run

    cols = _INBOX_COLUMNS.format(raw="raw").replace("id, ", "event_id, ", 1)
    pending = (
        f"SELECT {cols} FROM smartpos_event WHERE available_at IS NOT NULL AND state = 'pending' "
        "ORDER BY CASE WHEN criado_em IS NULL THEN 1 ELSE 0 END, criado_em, seq LIMIT 100"
    )
    waiting = (
        f"SELECT {_J_COLUMNS} FROM smartpos_operation "
        "WHERE state IN ('sending', 'accepted', 'unknown') AND seq > 0 ORDER BY seq LIMIT 100"
    )
    sales = (
        f"SELECT s.sale_id, s.total_centavos, s.version, o.{_J_COLUMNS.replace(', ', ', o.')} "
        "FROM (SELECT * FROM smartpos_sale WHERE seq > 0 ORDER BY seq LIMIT 100) AS s "
        "JOIN smartpos_operation AS o ON o.sale = s.sale_id ORDER BY s.seq, o.seq"
    )
    return {
        "list pending": rows(pending),
        "operations waiting": rows(waiting),
        "sales": rows(sales),
        "_close": lambda: None,  # the connection is Django's: closed with the others
    }


def bare_redis(url: str, prefix: str) -> dict[str, Callable[[], Any]]:
    import redis

    client = redis.Redis.from_url(url)
    base = "{" + prefix + "}:"

    def hashes(keys: list[bytes], head: str) -> Any:
        pipe = client.pipeline(transaction=False)
        for key in keys:
            pipe.hgetall(head + key.decode())
        return pipe.execute()

    def pending() -> Any:
        members = client.zrange(base + "ready", 0, 99)
        return hashes([m[17:] for m in members], base + "ev:")

    def waiting() -> Any:
        return hashes(client.zrange(base + "ops:waiting", 0, 99), base + "op:")

    def sales() -> Any:
        ids = client.zrange(base + "sales", 0, 99)
        pipe = client.pipeline(transaction=False)
        for sale in ids:
            pipe.hgetall(base + "sale:" + sale.decode())
            pipe.zrange(base + "saleops:" + sale.decode(), 0, -1)
        answers = pipe.execute()
        refs = [r for ops in answers[1::2] for r in ops]
        return answers, hashes(refs, base + "op:")

    return {
        "list pending": pending,
        "operations waiting": waiting,
        "sales": sales,
        "_close": client.close,
    }


# --- The calls -------------------------------------------------------------------------------


class Target(NamedTuple):
    """One filled store, with what its calls need."""

    size: str
    store: Any
    counter: Counter
    shape: Shape
    bare: dict[str, Callable[[], Any]]
    fresh: Iterator[int]


def calls(target: Target) -> dict[str, Callable[[], Any]]:
    """Each measured call, as a function of nothing (state it needs comes from ``target``)."""
    store, shape = target.store, target.shape
    some = shape.events // 2 + 1  # a done event
    entry = referencia(shape.ops // 2 + 1)  # a final entry
    sale_id = shape.sale(shape.ops // 2 // 4 * 4) or "none"

    def put() -> Any:
        return store.put(make_event(next(target.fresh), None))

    def claim_ack() -> Any:
        claims = store.claim(owner="bench", lease=60.0, limit=10)
        return store.ack_many(claims)

    return {
        "put": put,
        "get": lambda: store.get(f"ev-{some}"),
        "claim(10) + ack_many": claim_ack,
        "list pending": lambda: store.list(state="pending", limit=LIMIT),
        "list any": lambda: store.list(limit=LIMIT),
        "operation": lambda: store.operation(entry),
        "operations waiting": lambda: store.operations(limit=LIMIT),
        "operations any": lambda: store.operations(final=True, limit=LIMIT),
        "sales": lambda: store.sales(limit=LIMIT),
        "sale": lambda: store.sale(sale_id),
        "purge (none due)": store.purge,
    }


def before(name: str, target: Target) -> None:
    """Untimed work a call needs first (claim: 10 new pending events)."""
    if name == "claim(10) + ack_many":
        target.store.put_many([make_event(next(target.fresh), None) for _ in range(10)])


def measure(
    targets: list[Target], rounds: int, repeat: int, deadline: float
) -> dict[tuple[str, str], list[float]]:
    """Median seconds per call, per (call, size) and per (bare, size), interleaved rounds."""
    times: dict[tuple[str, str], list[float]] = {}
    for round_no in range(rounds):
        order = targets if round_no % 2 == 0 else list(reversed(targets))
        for target in order:
            for name, call in calls(target).items():
                samples = []
                for _ in range(repeat):
                    before(name, target)
                    start = time.perf_counter()
                    call()
                    samples.append(time.perf_counter() - start)
                times.setdefault((name, target.size), []).append(statistics.median(samples))
                for kind in ("bare", "decoded"):
                    bare = target.bare.get(name if kind == "bare" else f"decoded {name}")
                    if bare is None:
                        continue
                    samples = []
                    for _ in range(repeat):
                        start = time.perf_counter()
                        bare()
                        samples.append(time.perf_counter() - start)
                    key = (f"{kind} {name}", target.size)
                    times.setdefault(key, []).append(statistics.median(samples))
        if time.monotonic() > deadline:
            break
    return times


def round_trips(target: Target) -> dict[str, int]:
    """Each call's round trips, counted on its second run (a script loaded, a statement
    prepared, an outcome recorded by the first)."""
    counts = {}
    for name, call in calls(target).items():
        before(name, target)
        call()
        before(name, target)
        target.counter.n = 0
        call()
        counts[name] = target.counter.n
    return counts


def report(
    backend: str, times: dict[tuple[str, str], list[float]], trips: dict[str, int]
) -> list[str]:
    """Print one backend's table; answer the figures that miss a goal."""
    med = {key: statistics.median(values) for key, values in times.items()}
    header = (
        f"{'call':<22} {'rt':>3} {'small ms':>9} {'large ms':>9} {'growth':>7} "
        f"{'bare ms':>8} {'/bare':>6} {'/decoded':>8}"
    )
    print(f"\n{backend}\n{header}\n{'-' * len(header)}")
    missed = []
    for name in trips:
        small, large = med[(name, "small")], med[(name, "large")]
        growth = large / small
        bare = med.get((f"bare {name}", "large"))
        bare_text = f"{bare * 1000:>8.3f} {large / bare:>5.2f}x" if bare else f"{'':>8} {'':>6}"
        plain = med.get((f"decoded {name}", "large"))
        bare_text += f" {large / plain:>7.2f}x" if plain else f" {'':>8}"
        print(
            f"{name:<22} {trips[name]:>3} {small * 1000:>9.3f} {large * 1000:>9.3f} "
            f"{growth:>6.2f}x {bare_text}",
            flush=True,
        )
        if growth > GROWTH_GOAL:
            missed.append(f"{backend} {name} growth {growth:.2f}x")
        if bare and large / bare > BARE_GOAL:
            missed.append(f"{backend} {name} {large / bare:.2f}x bare")
    return missed


# --- Backends --------------------------------------------------------------------------------


@contextlib.contextmanager
def sqlite_targets(shapes: dict[str, Shape], workdir: Path) -> Iterator[list[Target]]:
    targets = []
    with contextlib.ExitStack() as stack:
        for size, shape in shapes.items():
            path = workdir / f"{size}.db"
            load_sqlite(path, shape)
            counter = Counter()
            store = counting_sqlite(path, counter)
            stack.callback(store.close)
            bare = bare_sqlite(path)
            bare.update(decoded(bare))
            stack.callback(bare["_close"])
            fresh = itertools.count(shape.events)
            targets.append(Target(size, store, counter, shape, bare, fresh))
            files = [path, path.with_name(path.name + "-wal")]
            used = sum(f.stat().st_size for f in files if f.exists())
            print(f"  SQLite {size}: {used / shape.events:,.0f} bytes per event (file and WAL)")
        yield targets


@contextlib.contextmanager
def postgres_targets(shapes: dict[str, Shape], dsn: str) -> Iterator[list[Target]]:
    import psycopg

    targets = []
    with contextlib.ExitStack() as stack:
        for size, shape in shapes.items():
            table = f"scale_{size}"
            load_postgres(dsn, table, shape)
            counter = Counter()
            store = counting_postgres(dsn, table, counter)
            stack.callback(store._bench_pool.close)
            stack.callback(store.close)
            bare = bare_postgres(dsn, table)
            bare.update(decoded(bare))
            stack.callback(bare["_close"])
            fresh = itertools.count(shape.events)
            targets.append(Target(size, store, counter, shape, bare, fresh))
            with psycopg.connect(dsn) as conn:
                row = conn.execute(
                    "SELECT pg_total_relation_size(%s::regclass) "
                    "+ pg_total_relation_size(%s::regclass)",
                    (f'"{table}"', f'"{table}_operations"'),
                ).fetchone()
            used = row[0] if row else 0
            print(f"  PostgreSQL {size}: {used / shape.events:,.0f} bytes per event (tables)")
        yield targets


@contextlib.contextmanager
def django_targets(shapes: dict[str, Shape], server: Any) -> Iterator[list[Target]]:
    """DjangoStore on PostgreSQL: one database per size on ``server``, one alias each."""
    import psycopg
    from django.db import connections

    aliases = {size: f"django_{size}" for size in shapes}
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        for alias in aliases.values():
            conn.execute(f'CREATE DATABASE "{alias}"')
    configure_django(server.port, list(aliases.values()))
    targets = []
    with contextlib.ExitStack() as stack:
        stack.callback(connections.close_all)
        for size, shape in shapes.items():
            alias = aliases[size]
            dsn = f"host=127.0.0.1 port={server.port} user=postgres dbname={alias}"
            load_django(dsn, shape)
            counter = Counter()
            store = counting_django(alias, counter)
            stack.callback(store.close)
            bare = bare_django(alias)
            bare.update(decoded(bare))
            fresh = itertools.count(shape.events)
            targets.append(Target(size, store, counter, shape, bare, fresh))
            with psycopg.connect(dsn) as conn:
                row = conn.execute(
                    "SELECT pg_total_relation_size('smartpos_event') "
                    "+ pg_total_relation_size('smartpos_operation')"
                ).fetchone()
            used = row[0] if row else 0
            print(
                f"  Django (PostgreSQL) {size}: {used / shape.events:,.0f} bytes per event (tables)"
            )
        yield targets


@contextlib.contextmanager
def redis_targets(shapes: dict[str, Shape], url: str) -> Iterator[list[Target]]:
    import redis

    targets = []
    with contextlib.ExitStack() as stack:
        client = redis.Redis.from_url(url)
        stack.callback(client.close)
        for size, shape in shapes.items():
            prefix = f"scale-{size}"
            counter = Counter()
            store = counting_redis(url, prefix, counter)
            stack.callback(store.close)
            memory = int(client.info("memory")["used_memory"])
            load_redis(store, shape)
            used = int(client.info("memory")["used_memory"]) - memory
            print(f"  Redis {size}: {used / shape.events:,.0f} bytes per event (used_memory)")
            bare = bare_redis(url, prefix)
            bare.update(decoded(bare))
            stack.callback(bare["_close"])
            fresh = itertools.count(shape.events)
            targets.append(Target(size, store, counter, shape, bare, fresh))
        yield targets


def main(argv: list[str] | None = None) -> int:
    """Start the servers, fill the stores, print each backend's table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes for CI")
    parser.add_argument("--small", type=int, default=None, help="events in the small store")
    parser.add_argument("--large", type=int, default=None, help="events in the large store")
    parser.add_argument("--small-ops", type=int, default=None, help="its journal entries")
    parser.add_argument("--large-ops", type=int, default=None, help="its journal entries")
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds")
    parser.add_argument("--calls", type=int, default=None, help="timed calls per round")
    parser.add_argument(
        "--backend", choices=("sqlite", "postgres", "redis", "django"), action="append"
    )
    parser.add_argument("--max-seconds", type=float, default=None, help="measuring budget")
    args = parser.parse_args(argv)
    quick = args.quick
    shapes = {
        "small": Shape(args.small or (1000 if quick else 10_000), 0),
        "large": Shape(args.large or (5000 if quick else 1_000_000), 0),
    }
    shapes["small"] = shapes["small"]._replace(ops=args.small_ops or (500 if quick else 10_000))
    shapes["large"] = shapes["large"]._replace(ops=args.large_ops or (2000 if quick else 200_000))
    rounds = args.rounds or (2 if quick else 7)
    repeat = args.calls or (3 if quick else 15)
    budget = args.max_seconds or (20.0 if quick else 900.0)
    backends = args.backend or ["sqlite", "postgres", "redis", "django"]

    # SIGTERM (a CI time-out, a Ctrl-C of run_all) must still stop the servers started here.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    servers = load_servers()
    workdir = Path(tempfile.mkdtemp(prefix="smartpos-scale-"))
    started: list[Any] = []
    pg_server: Any = None  # one PostgreSQL for the postgres and django backends
    missed: list[str] = []
    print(
        f"small: {shapes['small'].events:,} events, {shapes['small'].ops:,} journal entries; "
        f"large: {shapes['large'].events:,} events, {shapes['large'].ops:,} entries; "
        f"{rounds} rounds of {repeat} calls, medians. rt: round trips of one call.\n"
        f"Goals: growth <= {GROWTH_GOAL}x, reads <= {BARE_GOAL}x a bare query of the same rows."
    )
    try:
        for backend in backends:
            share = budget / len(backends)
            if backend == "sqlite":
                context = sqlite_targets(shapes, workdir)
            elif backend in ("postgres", "django"):
                if pg_server is None:
                    pg_server = servers.PostgresServer()
                    pg_server.start()
                    started.append(pg_server)
                if backend == "postgres":
                    context = postgres_targets(shapes, pg_server.dsn)
                else:
                    context = django_targets(shapes, pg_server)
            else:
                redis_server = servers.RedisServer(
                    appendonly=True, extra_args=["--appendfsync", "everysec"]
                )
                redis_server.start()
                started.append(redis_server)
                context = redis_targets(shapes, redis_server.url)
            with context as targets:
                trips = round_trips(targets[-1])
                times = measure(targets, rounds, repeat, time.monotonic() + share)
                missed += report(backend, times, trips)
        print("\nall figures meet their goals" if not missed else "\nmissed: " + "; ".join(missed))
        if quick:
            print("--quick is a smoke run (tiny stores, few calls): run without it to measure.")
    finally:
        for server in reversed(started):
            server.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
