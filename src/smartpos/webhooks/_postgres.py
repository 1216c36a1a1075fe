"""``PostgresStore``: the inbox in a PostgreSQL table, for receivers and workers on several hosts.

One row per event. ``put`` is ``INSERT ... ON CONFLICT (id) DO NOTHING`` (then the stored body
hash tells a duplicate from a conflict); ``claim`` is one ``UPDATE`` over a
``SELECT ... FOR UPDATE SKIP LOCKED`` that a partial index on ``(criado_em, seq)`` serves, so
concurrent workers never wait for each other nor get the same event. ``available_at`` is when a
row can be claimed: for a claimed row it is the lease expiry, so a dead worker's events come
back by themselves.

The schema is created and upgraded only by ``store.migrate()``, which is versioned and takes a
transaction-scoped advisory lock, so several processes may run it at once. ``ack``, ``nack`` and
``dead_letter`` accept ``conn=``: a connection inside the partner's own transaction, so that the
ack commits (or rolls back) together with the handler's writes; a transactional ``Worker``
(``transactional=True`` or ``on_sale=``) opens that transaction itself (``_handler_connection``),
and while it lasts every call of this store from that thread runs on its connection. The
schema's migrations and every statement are in ``_postgres_sql.py``.

Times (leases, retries, when an event arrived, was done, may be purged) come from the server's
clock (``statement_timestamp()``, in the statements), so that the hosts sharing a table need no
synchronised clocks: a worker whose clock is a minute off claims and expires leases like the
others. Given a ``clock`` (tests), the store sends that clock's times as parameters instead. The
outcome journal's and the sales' times (a terminal's hold included) come from the host's clock
(``_journal.py``), whichever the store's.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import logging
import select
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import psycopg
import psycopg.errors
import psycopg_pool

from smartpos._errors import ConfigurationError
from smartpos._messages import message

from ._journal import CONFLICT, Linked, SaleSnapshot, journal_row
from ._listener import changes_channel
from ._outcomes import Answer, JournalEntry, State

if TYPE_CHECKING:
    from ._listener import ChangeSource
from ._postgres_sql import (
    _MIGRATIONS,
    SCHEMA_VERSION,
    _check_name,
    _journal_entry,
    _sale_linked,
    _sale_row,
    _sale_snapshot,
    _stored,
    render,
)
from ._sales import SaleRow
from ._store import (
    _LEASE_EXPIRED_ERROR,
    DEFAULT_MAX_ATTEMPTS,
    DEFAULT_RETENTION,
    StoreBase,
    _translating,
)
from ._store_errors import StoreError
from ._store_interface import (
    Claim,
    EventState,
    StoredEvent,
    _Encoded,
    _utc,
    canonical_json,
)

__all__ = ["SCHEMA_VERSION", "MigrationRequiredError", "PostgresStore"]

_logger = logging.getLogger("smartpos.webhooks")

_PURGE_BATCH = 1000
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)

# A connection whose statement_timeout this store has not set (or lost track of).
_UNKNOWN = object()


class MigrationRequiredError(StoreError):
    """The store's table is missing or older than this code: call ``store.migrate()``."""


class _Retry(Exception):
    """A row vanished between two statements (purged meanwhile): run the put again."""


def _store_error(exc: Exception) -> StoreError:
    if isinstance(exc, (psycopg.errors.UndefinedTable, psycopg.errors.UndefinedColumn)):
        return MigrationRequiredError(
            f"the inbox table is missing or outdated ({exc}); call store.migrate()"
        )
    # No connection could be had: this call's statement never reached the server. Any other
    # failure (a connection lost mid-statement, a timeout) may follow a write the server
    # applied, so it vouches for nothing (store failures never hide a charge).
    applied = False if isinstance(exc, psycopg_pool.PoolTimeout) else None
    return StoreError(f"PostgreSQL failed: {type(exc).__name__}: {exc}", applied=applied)


# Turns psycopg's errors into ``StoreError`` (a receiver answers 503 on it).
_translate = _translating(psycopg.Error, _store_error)


def _spoke_while_idle(fd: int) -> bool:
    """Whether a socket that nobody is reading has something to read (or was closed)."""
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(0))
    return bool(select.select([fd], [], [], 0)[0])  # pragma: no cover - Windows


def _check_idle_connection(conn: psycopg.Connection[Any]) -> None:
    """The pool's check on checkout: raise for a connection the server dropped while it sat idle.

    A server that restarts, fails over or ends an idle session sends a FATAL message and closes
    the socket: a pooled connection then has something to read, which an idle one never has
    (its notices aside). Only then does the check cost a round trip (``check_connection``'s
    empty query, which fails and makes the pool replace the connection); a healthy connection
    costs one ``poll`` instead of a round trip per call. A server that vanished without closing
    its sockets is not seen here: its connections fail once, like any lost network.
    """
    if conn.closed or _spoke_while_idle(conn.fileno()):
        psycopg_pool.ConnectionPool.check_connection(conn)


def _ref(item: _Encoded) -> str | None:
    # text cannot hold NUL: such a referencia is never journaled either (see _journal_get).
    ref = item.referencia
    return None if ref is None or "\x00" in ref else ref


class PostgresStore(StoreBase):
    """An inbox in a PostgreSQL table: for receivers and workers spread over several hosts.

    The table is created or upgraded only by ``migrate()``; using the store before that raises
    ``MigrationRequiredError``. PostgreSQL 13 or later (for ``gen_random_uuid()``). Durability is
    the server's: keep ``fsync``, ``synchronous_commit`` and ``full_page_writes`` on (checked on
    first use when ``check_settings``). Lease times come from the server's clock, so the hosts
    sharing the table need no synchronised clocks.

    Args:
        dsn_or_pool: A libpq connection string or URL (the store opens and closes its own
            ``psycopg_pool.ConnectionPool`` of autocommit connections, each one checked on
            checkout so that a server restart fails no call), or a pool the caller owns
            (autocommit connections save a round trip per call; give it
            ``check=ConnectionPool.check_connection`` to survive server restarts the same way).
        table: Name of the table; its schema version lives in ``<table>_schema``.
        schema: Schema of the table; ``None`` uses the connection's ``search_path``.
        max_attempts: Claims after which a failing event goes to the dead state.
        retention: How long ``purge()`` keeps done events by default.
        clock: ``None`` (the default): every time of the inbox (leases, retries, arrival,
            done, the default purge cutoff) is the server's. A function returning epoch seconds
            (tests with a fake clock): those times come from it instead, as for the other
            stores. The outcome journal always uses this host's clock.
        check_settings: On first use, log a WARNING for each server setting that breaks the
            store's durability (``fsync``, ``synchronous_commit``, ``full_page_writes``).

    Raises:
        ConfigurationError: An option is out of range or a name is not a plain identifier.
    """

    def __init__(
        self,
        dsn_or_pool: str | psycopg_pool.ConnectionPool[Any],
        *,
        table: str = "smartpos_inbox",
        schema: str | None = None,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        retention: _dt.timedelta = DEFAULT_RETENTION,
        clock: Callable[[], float] | None = None,
        check_settings: bool = True,
    ) -> None:
        super().__init__(
            max_attempts=max_attempts,
            retention=retention,
            clock=time.time if clock is None else clock,
        )
        self._server_clock = clock is None
        _check_name(table, "table")
        if schema is not None:
            _check_name(schema, "schema")
        if isinstance(dsn_or_pool, str):
            self._pool: psycopg_pool.ConnectionPool[Any] = psycopg_pool.ConnectionPool(
                dsn_or_pool,
                min_size=1,
                max_size=10,
                kwargs={"autocommit": True},
                timeout=5.0,
                check=_check_idle_connection,
                name=f"smartpos-{table}",
                open=True,
            )
            self._owns_pool = True
        elif isinstance(dsn_or_pool, psycopg_pool.ConnectionPool):
            self._pool = dsn_or_pool
            self._owns_pool = False
        else:
            raise ConfigurationError(
                message("webhooks.postgres_target", type=type(dsn_or_pool).__name__)
            )
        self._table = table
        self._schema = schema
        self._check_settings = check_settings
        self._sql: dict[str, str] = {}
        self._ready = False
        self._channel = changes_channel(f"{schema or ''}.{table}")
        key = f"smartpos-inbox:{schema or ''}.{table}".encode()
        self._lock_key = int.from_bytes(hashlib.sha256(key).digest()[:8], "big", signed=True)
        head, tail = _LEASE_EXPIRED_ERROR
        self._claim_params = {"max": max_attempts, "head": head, "tail": tail}
        # statement_timeout in ms this store set on each pooled connection; None: default.
        self._statement_timeouts: weakref.WeakKeyDictionary[psycopg.Connection[Any], int | None] = (
            weakref.WeakKeyDictionary()
        )
        # The connection of a handler's transaction, per thread (see _handler_connection).
        self._local = threading.local()

    def __repr__(self) -> str:
        where = f"{self._schema}." if self._schema else ""
        return f"PostgresStore(table={where}{self._table!r})"

    @property
    def table(self) -> str:
        """The store's table name, schema-qualified when a schema was given."""
        return f"{self._schema}.{self._table}" if self._schema else self._table

    def _times(self, **later: float) -> dict[str, Any]:
        """The time parameters of a statement: ``now``, and a later time per keyword.

        Each keyword gives ``<name>`` (that many seconds after ``now``) and ``<name>_s`` (the
        seconds). ``None`` times make the statement read the server's clock instead (see
        ``_postgres_sql.py``).
        """
        if self._server_clock:
            times: dict[str, Any] = {"now": None}
            for name, seconds in later.items():
                times[name] = None
                times[f"{name}_s"] = float(seconds)
            return times
        now = self._now()
        times = {"now": _utc(now)}
        for name, seconds in later.items():
            times[name] = _utc(now + seconds)
            times[f"{name}_s"] = float(seconds)
        return times

    def _render(self, conn: psycopg.Connection[Any]) -> dict[str, str]:
        """Render every statement once with this store's quoted names."""
        if not self._sql:
            self._sql = render(conn, table=self._table, schema=self._schema, channel=self._channel)
        return self._sql

    @contextmanager
    def _connection(self, timeout: float | None = None) -> Iterator[psycopg.Connection[Any]]:
        """Lend a pooled connection whose waits are bounded by ``timeout`` seconds.

        ``timeout`` bounds the wait for a free connection and, as ``statement_timeout``, each
        statement (a lock held by another transaction, a slow server); ``None`` restores the
        pool's wait and the server's default.
        """
        self._check_open()
        handler: psycopg.Connection[Any] | None = getattr(self._local, "handler", None)
        if handler is not None:  # the handler's transaction: its connection, as it is
            yield handler
            return
        with self._pool.connection(timeout=timeout) as conn:
            try:
                if not self._ready:
                    self._check_ready(conn)
                wanted = None if timeout is None else max(1, round(timeout * 1000))
                if self._statement_timeouts.get(conn, _UNKNOWN) != wanted:
                    # Only when it changes: a receiver's puts keep the same budget.
                    if wanted is None:
                        conn.execute("RESET statement_timeout")
                    else:
                        conn.execute(f"SET statement_timeout = {wanted}")
                    self._statement_timeouts[conn] = wanted
                yield conn
            except BaseException:
                # A rolled-back transaction undoes a SET: set it again next time.
                self._statement_timeouts.pop(conn, None)
                raise

    @contextmanager
    def _handler_connection(self) -> Iterator[psycopg.Connection[Any]]:
        """A transaction for a handler and its ack (a transactional ``Worker``, ``_worker.py``).

        A pooled connection in ``conn.transaction()``: committed when the block ends, rolled
        back when it raises (the exception passes unchanged).
        """
        if getattr(self._local, "handler", None) is not None:
            raise StoreError("a handler transaction is already open in this thread", applied=False)
        raised: BaseException | None = None
        try:
            with self._connection() as conn, conn.transaction():
                self._local.handler = conn
                try:
                    yield conn
                except BaseException as exc:
                    raised = exc
                    raise
                finally:
                    self._local.handler = None
        except psycopg.Error as exc:
            if exc is raised:  # the handler's own: the worker keeps its text
                raise
            raise _store_error(exc) from exc

    @_translate
    def _record_effect(
        self, key: str, *, sale: str, kind: str, referencia: str, event_id: str
    ) -> bool:
        """Record an effect's key in the handler's transaction; ``False``: already recorded."""
        with self._connection() as conn:
            params = (key, sale, kind, referencia, event_id)
            return bool(conn.execute(self._sql["effect_insert"], params).rowcount == 1)

    def _check_ready(self, conn: psycopg.Connection[Any]) -> None:
        try:
            row = conn.execute(self._render(conn)["version"]).fetchone()
        except psycopg.errors.UndefinedTable as exc:
            raise MigrationRequiredError(
                f"the inbox table {self.table} does not exist yet: call store.migrate() once "
                "(at deployment, from any process) before using the store"
            ) from exc
        version = row[0] if row else None
        if version is None or version < SCHEMA_VERSION:
            raise MigrationRequiredError(
                f"the inbox table {self.table} is at schema version {version or 0} and this "
                f"smartpos needs version {SCHEMA_VERSION}: call store.migrate()"
            )
        if self._check_settings:
            self._warn_settings(conn)
        self._ready = True

    def _warn_settings(self, conn: psycopg.Connection[Any]) -> None:
        row = conn.execute(self._sql["settings"]).fetchone()
        if row is None:  # pragma: no cover - one row always comes back
            return
        fsync, synchronous_commit, full_page_writes = row
        if fsync == "off":
            _logger.warning(
                "PostgreSQL setting fsync is 'off': a crash of the database host can lose or "
                "corrupt stored events; set fsync = on."
            )
        if synchronous_commit == "off":
            _logger.warning(
                "PostgreSQL setting synchronous_commit is 'off': a crash of the database host "
                "can lose events already answered 2xx; set synchronous_commit = on (or "
                "remote_apply with synchronous replicas)."
            )
        if full_page_writes == "off":
            _logger.warning(
                "PostgreSQL setting full_page_writes is 'off': a power cut can leave torn "
                "pages in the inbox table; set full_page_writes = on."
            )

    def migrate(self) -> int:
        """Create the table and its indexes, or bring them to ``SCHEMA_VERSION``.

        Safe to run from several processes at once (they serialise on an advisory lock) and
        to run again (it does nothing when the table is current). Run it at deployment,
        before any receiver or worker uses the store. Every step of a run commits together or
        not at all; an INFO log line names the versions applied, once they committed.

        Returns:
            The schema version now in place.

        Raises:
            StoreError: PostgreSQL failed (for example, no CREATE privilege); nothing changed.
        """
        return self._migrate()[0]

    @_translate
    def _migrate(self) -> tuple[int, list[int]]:
        """``migrate()``: the schema version now in place, and the versions this run applied."""
        self._check_open()
        applied: list[int] = []
        with self._pool.connection() as conn:
            with conn.transaction():
                if self._statement_timeouts.pop(conn, None) is not None:
                    # A receiver's put left its budget on this connection; DDL waits for locks.
                    conn.execute("RESET statement_timeout")
                q = self._render(conn)
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._lock_key,))
                if self._schema is not None:
                    conn.execute(q["create_schema"])
                conn.execute(q["create_versions"])
                row = conn.execute(q["current_version"]).fetchone()
                current = int(row[0]) if row else 0
                for version in range(current + 1, SCHEMA_VERSION + 1):
                    for i in range(len(_MIGRATIONS[version - 1])):
                        conn.execute(q[f"migration{version}.{i}"])
                    conn.execute(q["add_version"], (version,))
                    applied.append(version)
            # Only now, after the commit: a failed run applied nothing.
            if applied:
                _logger.info(
                    "migrated %s to schema version %d (applied %s)",
                    self.table,
                    applied[-1],
                    ", ".join(map(str, applied)),
                )
        return max(current, SCHEMA_VERSION), applied

    @_translate
    def _insert(self, batch: Sequence[_Encoded], timeout: float | None) -> list[str | None]:
        with self._connection(timeout) as conn:
            for _ in range(3):
                try:
                    if len(batch) == 1:
                        kept = [self._insert_one(conn, batch[0])]
                    else:
                        with conn.transaction():
                            kept = self._insert_many(conn, batch)
                    break
                except _Retry:
                    continue
                except psycopg.errors.DeadlockDetected:
                    # Two batches holding some of the same new ids in other orders lock their
                    # index entries in those orders (the batch order is the store order, kept
                    # on purpose): the server aborted this one, whose insert is idempotent.
                    continue
            else:  # pragma: no cover - needs purges or deadlocks three times in a row
                raise StoreError("events kept vanishing or deadlocking while being stored")
        return kept

    def _insert_one(self, conn: psycopg.Connection[Any], item: _Encoded) -> str | None:
        # One event needs neither the batch statement nor a transaction: a round trip less.
        params = {
            **self._times(),
            "id": item.id,
            "tipo": item.tipo,
            "criado": None if item.criado_em is None else _utc(item.criado_em),
            "body": item.raw_json,
            "hash": item.body_hash,
            "ref": _ref(item),
        }
        cur = conn.execute(self._sql["put"], params)
        if cur.rowcount == 1:
            return None
        row = conn.execute(self._sql["hash"], (item.id,)).fetchone()
        if row is None:
            raise _Retry
        return str(row[0])

    def _insert_many(
        self, conn: psycopg.Connection[Any], batch: Sequence[_Encoded]
    ) -> list[str | None]:
        first: dict[str, _Encoded] = {}
        for item in batch:
            first.setdefault(item.id, item)
        unique = list(first.values())
        rows = conn.execute(
            self._sql["put_many"],
            {
                **self._times(),
                "ids": [i.id for i in unique],
                "tipos": [i.tipo for i in unique],
                "criados": [None if i.criado_em is None else _utc(i.criado_em) for i in unique],
                "bodies": [i.raw_json for i in unique],
                "hashes": [i.body_hash for i in unique],
                "refs": [_ref(i) for i in unique],
            },
        ).fetchall()
        new = {r[0] for r in rows}
        others = [i.id for i in unique if i.id not in new]
        stored: dict[str, str] = {}
        if others:
            stored = dict(conn.execute(self._sql["hashes"], (others,)).fetchall())
            if len(stored) < len(others):
                raise _Retry
        kept: list[str | None] = []
        for item in batch:
            if item.id in new:
                # Its first occurrence was stored; later ones in the batch compare with it.
                new.discard(item.id)
                stored[item.id] = item.body_hash
                kept.append(None)
            else:
                kept.append(stored[item.id])
        return kept

    @_translate
    def claim(self, *, owner: str, lease: float, limit: int = 1) -> list[Claim]:
        self._check_claim(owner, lease, limit)
        claims: list[tuple[tuple[bool, _dt.datetime | None, int], Claim]] = []
        dead: list[tuple[str, str, int]] = []
        with self._connection() as conn:
            while len(claims) < limit:
                params = {
                    **self._claim_params,
                    **self._times(exp=lease),
                    "owner": owner,
                    "limit": limit - len(claims),
                }
                rows = conn.execute(self._sql["claim"], params).fetchall()
                died = 0
                for event_id, tipo, body, attempts, token, state, criado_em, seq, exp in rows:
                    if state != "claimed":
                        died += 1
                        dead.append((event_id, tipo, attempts))
                        continue
                    claim = Claim(
                        event_id=event_id,
                        tipo=tipo,
                        raw=body,
                        owner=owner,
                        token=token,
                        attempts=attempts,
                        lease_expires_at=exp.astimezone(_dt.timezone.utc),
                    )
                    claims.append(((criado_em is None, criado_em, seq), claim))
                if not died:
                    break
        for event_id, tipo, attempts in dead:  # once committed
            self._log_expired_to_dead(event_id, tipo, attempts)
        claims.sort(key=lambda c: (c[0][0], c[0][1] or _EPOCH, c[0][2]))
        return [c for _, c in claims]

    def _held_params(self, claim: Claim, **extra: Any) -> dict[str, Any]:
        """The parameters of the ``held`` guard (id, token, now), and ``extra``."""
        return {"id": claim.event_id, "token": claim.token, **self._times(), **extra}

    def _ensure_ready(self) -> None:
        if not self._ready:
            with self._connection():
                pass

    def _run(self, conn: psycopg.Connection[Any] | None, query: str, params: Any) -> int:
        """Run one statement on the caller's connection (their transaction) or on the pool's."""
        if conn is not None:
            self._ensure_ready()
            return conn.execute(query, params).rowcount
        with self._connection() as own:
            return own.execute(query, params).rowcount

    @_translate
    def ack(self, claim: Claim, *, conn: psycopg.Connection[Any] | None = None) -> bool:
        """Mark the event done.

        Given ``conn``, a connection inside the caller's transaction (on the same database),
        the update runs there and commits or rolls back with the caller's own writes: a handler
        that only writes to this database then processes each event effectively once. The row
        stays locked until that transaction ends, so no other worker can claim it meanwhile.

        Args:
            claim: A claim returned by ``claim``.
            conn: A psycopg connection in the caller's transaction, or ``None`` to commit now.

        Returns:
            ``False`` (and nothing changed) when the claim no longer holds the lease.

        Raises:
            MigrationRequiredError: ``migrate()`` has not been run.
            StoreError: PostgreSQL failed or is unreachable.
        """
        in_handler = conn is None and getattr(self._local, "handler", None) is not None
        query = self._sql["ack_in_transaction" if in_handler else "ack"]
        return self._run(conn, query, self._held_params(claim)) == 1

    @_translate
    def ack_many(
        self, claims: Sequence[Claim], *, conn: psycopg.Connection[Any] | None = None
    ) -> list[bool]:
        """Ack several claims in one statement, optionally in the caller's transaction.

        Args:
            claims: Claims returned by ``claim``.
            conn: As for ``ack``: run inside the caller's transaction.
        """
        if not claims:
            return []
        params = {
            "ids": [c.event_id for c in claims],
            "tokens": [c.token for c in claims],
            **self._times(),
        }
        if conn is None:
            with self._connection() as own:
                done = {r[0] for r in own.execute(self._sql["ack_many"], params).fetchall()}
        else:
            self._ensure_ready()
            done = {r[0] for r in conn.execute(self._sql["ack_many"], params).fetchall()}
        results: list[bool] = []
        for c in claims:
            results.append(c.event_id in done)
            done.discard(c.event_id)
        return results

    @_translate
    def nack(
        self,
        claim: Claim,
        *,
        error: str,
        retry_in: float,
        conn: psycopg.Connection[Any] | None = None,
    ) -> bool:
        """``StoreBase.nack``, optionally in the caller's transaction.

        Args:
            claim: A claim returned by ``claim``.
            error: Why the attempt failed; kept as ``last_error``.
            retry_in: Seconds before the event can be claimed again.
            conn: As for ``ack``: run inside the caller's transaction.
        """
        self._check_seconds("retry_in", retry_in, positive=False)
        params = {
            **self._held_params(claim, error=error, max=self._max_attempts),
            **self._times(avail=retry_in),
        }
        return self._run(conn, self._sql["nack"], params) == 1

    @_translate
    def dead_letter(
        self, claim: Claim, *, error: str, conn: psycopg.Connection[Any] | None = None
    ) -> bool:
        """``StoreBase.dead_letter``, optionally in the caller's transaction.

        Args:
            claim: A claim returned by ``claim``.
            error: Why; kept as ``last_error``.
            conn: As for ``ack``: run inside the caller's transaction.
        """
        params = self._held_params(claim, error=error)
        return self._run(conn, self._sql["dead_letter"], params) == 1

    @_translate
    def release(self, claim: Claim) -> bool:
        return self._run(None, self._sql["release"], self._held_params(claim)) == 1

    @_translate
    def extend(self, claim: Claim, *, lease: float) -> bool:
        self._check_seconds("lease", lease, positive=True)
        params = {**self._held_params(claim), **self._times(exp=lease)}
        return self._run(None, self._sql["extend"], params) == 1

    @_translate
    def get(self, event_id: str) -> StoredEvent | None:
        with self._connection() as conn:
            row = conn.execute(self._sql["get"], (event_id,)).fetchone()
        return None if row is None else _stored(row)

    @_translate
    def _list(self, state: EventState | None, limit: int) -> list[StoredEvent]:
        with self._connection() as conn:
            # Inside: the first call of a store renders its statements on its first connection.
            query = self._render(conn)["list" if state is None else f"list_{state.value}"]
            rows = conn.execute(query, {"limit": limit}).fetchall()
        return [_stored(row) for row in rows]

    @_translate
    def requeue(self, event_id: str) -> bool:
        params = {"id": event_id, **self._times()}
        self._ensure_ready()  # the first call of a store (smartpos events requeue) renders
        return self._run(None, self._sql["requeue"], params) == 1

    @_translate
    def purge(self, *, done_before: _dt.datetime | None = None) -> int:
        cutoff = _utc(self._purge_cutoff(done_before))
        params = {
            # None: the server's clock minus the retention (done_at is the server's time).
            "cutoff": None if done_before is None and self._server_clock else cutoff,
            "retention": self._retention.total_seconds(),
            "limit": _PURGE_BATCH,
        }
        self._ensure_ready()  # the first call of a store (smartpos events purge) renders
        with self._connection() as conn:
            row = conn.execute(self._sql["purge_due"], params).fetchone()
            if not conn.autocommit:
                conn.commit()
        params["cutoff"], due = row if row is not None else (params["cutoff"], True)
        if due:
            self._settle_waiting()
        total = 0
        with self._connection() as conn:
            # Not due when checked: none is deleted now (one done since was not settled).
            while due:
                deleted = conn.execute(self._sql["purge"], params).rowcount
                if not conn.autocommit:
                    conn.commit()
                total += deleted
                if deleted < _PURGE_BATCH:
                    break
            while True:
                deleted = conn.execute(self._sql["j_purge"], (cutoff, _PURGE_BATCH)).rowcount
                if not conn.autocommit:
                    conn.commit()
                total += deleted
                if deleted < _PURGE_BATCH:
                    return total

    def close(self) -> None:
        """Close the pool if the store opened it; the store is unusable afterwards."""
        if self._closed:
            return
        self._closed = True
        if self._owns_pool:
            self._pool.close()

    def _change_source(self) -> ChangeSource:
        from ._listener import PostgresChanges

        pool = self._pool

        def connect() -> psycopg.Connection[Any]:
            # The pool's own settings (newer pools may compute them: call them then).
            conninfo = pool.conninfo() if callable(pool.conninfo) else pool.conninfo
            kwargs = pool.kwargs() if callable(pool.kwargs) else pool.kwargs
            return psycopg.connect(conninfo, **{**(kwargs or {}), "autocommit": True})

        return PostgresChanges(connect, self._channel)

    # The outcome journal's primitives (see _journal.py); each one statement.

    @_translate
    def _journal_get(self, referencia: str) -> JournalEntry | None:
        if "\x00" in referencia:
            return None  # text cannot hold NUL: such a referencia was never journaled
        with self._connection() as conn:
            row = conn.execute(self._sql["j_get"], (referencia,)).fetchone()
        return None if row is None else _journal_entry(row)

    @_translate
    def _journal_insert(self, entry: JournalEntry) -> JournalEntry | None:
        params = _journal_params(entry)
        with self._connection() as conn:
            for _ in range(3):
                if conn.execute(self._sql["j_insert"], params).rowcount == 1:
                    return None
                row = conn.execute(self._sql["j_get"], (entry.referencia,)).fetchone()
                if row is not None:
                    return _journal_entry(row)
                # Purged between the two statements: try the insert again.
        raise StoreError("a journal entry kept vanishing while being written")  # pragma: no cover

    @_translate
    def _journal_update(
        self,
        referencia: str,
        state: State,
        allowed_from: frozenset[str],
        answer: Answer | None,
        now: float,
        *,
        durable: bool = True,  # every write here is as durable as the store is
    ) -> bool:
        params = {
            "state": state,
            "now": _utc(now),
            "answer": None if answer is None else answer.to_json(),
            "referencia": referencia,
            "allowed": sorted(allowed_from),
        }
        with self._connection() as conn:
            return conn.execute(self._sql["j_update"], params).rowcount == 1

    @_translate
    def _journal_finalize(self, referencia: str, event: Mapping[str, Any], now: float) -> bool:
        params = (canonical_json(event), _utc(now), referencia)
        with self._connection() as conn:
            return conn.execute(self._sql["j_finalize"], params).rowcount == 1

    @_translate
    def _journal_list(self, *, waiting: bool, after: int, limit: int) -> list[JournalEntry]:
        with self._connection() as conn:
            query = self._sql["j_list_waiting" if waiting else "j_list"]
            rows = conn.execute(query, (after, limit)).fetchall()
        return [_journal_entry(row) for row in rows]

    @_translate
    def _journal_events(self, referencia: str) -> list[Mapping[str, Any]]:
        if "\x00" in referencia:
            return []  # never indexed (see the "referencia" fragment)
        with self._connection() as conn:
            rows = conn.execute(self._sql["j_events"], (referencia,)).fetchall()
        return [body for (body,) in rows]

    # The batched reads and writes (see _journal.py): one statement each. Text cannot hold
    # NUL: such a key was never stored, it is not sent.

    @_translate
    def _journal_events_many(
        self, referencias: Sequence[str]
    ) -> dict[str, list[Mapping[str, Any]]]:
        keys = list(dict.fromkeys(r for r in referencias if "\x00" not in r))
        if not keys:
            return {}
        found: dict[str, list[Mapping[str, Any]]] = {}
        with self._connection() as conn:
            rows = conn.execute(self._sql["j_events_many"], (keys,)).fetchall()
        for referencia, body in rows:
            found.setdefault(referencia, []).append(body)
        return found

    @_translate
    def _journal_finalize_many(
        self, outcomes: Mapping[str, Mapping[str, Any]], now: float
    ) -> set[str]:
        keys = [r for r in outcomes if "\x00" not in r]
        if not keys:
            return set()
        params = {
            "now": _utc(now),
            "refs": keys,
            "events": [canonical_json(outcomes[r]) for r in keys],
        }
        with self._connection() as conn:
            rows = conn.execute(self._sql["j_finalize_many"], params).fetchall()
        return {referencia for (referencia,) in rows}

    @_translate
    def _sale_linked_many(self, sale_ids: Sequence[str]) -> dict[str, list[Linked]]:
        keys = list(dict.fromkeys(s for s in sale_ids if "\x00" not in s))
        if not keys:
            return {}
        with self._connection() as conn:
            rows = conn.execute(self._sql["s_linked"], (keys,)).fetchall()
        return _sale_linked(rows)

    @_translate
    def _received_at_many(self, event_ids: Sequence[str]) -> dict[str, float]:
        keys = [i for i in event_ids if "\x00" not in i]
        if not keys:
            return {}
        with self._connection() as conn:
            rows = conn.execute(self._sql["received_many"], (keys,)).fetchall()
        return {event_id: received.timestamp() for event_id, received in rows}

    # Sales (see _journal.py): reads of one statement each; _sale_snapshot reads what an
    # attempt's checks need in one statement, and _sale_insert writes it in one.

    @_translate
    def _sale_get(self, sale_id: str) -> SaleRow | None:
        if "\x00" in sale_id:
            return None  # text cannot hold NUL: no such sale was ever stored
        with self._connection() as conn:
            row = conn.execute(self._sql["s_get"], (sale_id,)).fetchone()
        return None if row is None else _sale_row(row)

    @_translate
    def _sale_entries(self, sale_id: str) -> list[JournalEntry]:
        if "\x00" in sale_id:
            return []
        with self._connection() as conn:
            rows = conn.execute(self._sql["s_entries"], (sale_id,)).fetchall()
        return [_journal_entry(row) for row in rows]

    @_translate
    def _sale_list(self, *, after: int, limit: int) -> list[SaleRow]:
        with self._connection() as conn:
            rows = conn.execute(self._sql["s_list"], (after, limit)).fetchall()
        return [_sale_row(row) for row in rows]

    @_translate
    def _sale_candidates(self, *, after: int, limit: int) -> list[SaleRow]:
        # The sales of the attempts in the partial index <table>_ops_review_idx: each entry of
        # a sale counts its stored events (the triggers of migration 4), so the index holds the
        # attempts waiting, contradicted, or refused or abandoned and then approved.
        with self._connection() as conn:
            rows = conn.execute(self._sql["s_candidates"], (after, limit)).fetchall()
        return [_sale_row(row) for row in rows]

    @_translate
    def _terminal_get(self, smartpos_id: str) -> tuple[str, float] | None:
        if "\x00" in smartpos_id:
            return None
        with self._connection() as conn:
            row = conn.execute(self._sql["t_get"], (smartpos_id,)).fetchone()
        return None if row is None else (row[0], row[1].timestamp())

    def _sale_snapshot(
        self, referencia: str, sale_id: str, smartpos_id: str | None
    ) -> SaleSnapshot:
        """Everything one attempt's checks read, in one statement (one round trip, one
        snapshot): ``s_snapshot``."""
        if any("\x00" in text for text in (referencia, sale_id, smartpos_id or "")):
            # text cannot hold NUL: the primitives answer "none" for such a key, unsent.
            return super()._sale_snapshot(referencia, sale_id, smartpos_id)
        return self._read_snapshot(referencia, sale_id, smartpos_id)

    @_translate
    def _read_snapshot(
        self, referencia: str, sale_id: str, smartpos_id: str | None
    ) -> SaleSnapshot:
        params = {"referencia": referencia, "sale": sale_id, "terminal": smartpos_id}
        with self._connection() as conn:
            rows = conn.execute(self._sql["s_snapshot"], params).fetchall()
        return _sale_snapshot(rows)

    @_translate
    def _sale_insert(
        self,
        entry: JournalEntry,
        *,
        total_centavos: int,
        expected_version: int | None,
        terminal: str | None,
        expected_holder: str | None,
        hold_until: float,
    ) -> JournalEntry | str | None:
        texts = (entry.referencia, entry.sale or "", terminal or "", expected_holder or "")
        if any("\x00" in text for text in texts):
            # psycopg refuses it before sending anything: say so, rather than "maybe written".
            raise StoreError(
                "PostgreSQL text cannot hold a NUL character (in the referencia, the sale or "
                "the terminal); nothing was journaled",
                applied=False,
            )
        params = {
            "referencia": entry.referencia,
            "kind": entry.kind,
            "state": entry.state,
            "method": entry.method,
            "path": entry.path,
            "body": entry.body,
            "created_at": _utc(entry.created_at),
            "updated_at": _utc(entry.updated_at),
            "sale": entry.sale,
            "pending_after": entry.pending_after,
            "total": total_centavos,
            "version": expected_version,
            "terminal": terminal,
            "holder": expected_holder,
            "until": _utc(hold_until),
        }
        try:
            # One statement: the function of migration 4 runs the compare-and-sets (the
            # journal entry, the sale, then the terminal) and, on a lost one, rolls back what
            # it wrote. Its own transaction on an autocommit connection; on another, the
            # pool commits it as it takes the connection back (or rolls it back on an error).
            with self._connection() as conn:
                row = conn.execute(self._sql["s_insert"], params).fetchone()
        except (psycopg.errors.SerializationFailure, psycopg.errors.DeadlockDetected):
            # A server whose default isolation is stricter aborts a compare-and-set that
            # READ COMMITTED answers by changing no row; the statement wrote nothing.
            return CONFLICT
        if row is None:  # pragma: no cover - the function always answers one row
            raise StoreError("the sale's journal function answered nothing", applied=None)
        outcome = row[0]
        if outcome == "inserted":
            return None
        if outcome == "existing":
            return _journal_entry(row[1:])
        return CONFLICT

    @_translate
    def _sale_abandon(self, referencia: str, abandon: Mapping[str, Any], now: float) -> bool:
        params = (canonical_json(abandon), _utc(now), referencia)
        with self._connection() as conn:
            return conn.execute(self._sql["s_abandon"], params).rowcount == 1


def _journal_params(entry: JournalEntry) -> tuple[Any, ...]:
    """The parameters of ``j_insert``: the entry's row, its sale and its ``pending_after``."""
    return (*journal_row(entry, timestamp=_utc), entry.sale, entry.pending_after)
