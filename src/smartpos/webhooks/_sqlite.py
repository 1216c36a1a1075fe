"""``SQLiteStore``: the embedded, durable default inbox, one file on local disk.

Why it is safe for several threads and processes on one host:

- WAL journal mode: readers never block the writer, and a commit is one append to the log.
- ``synchronous=FULL`` by default: the log is fsynced at every commit, so an event answered 2xx
  survives a power cut. ``NORMAL`` skips that fsync (a power cut, not a crash, may lose the
  last commits) and is an explicit option.
- Every read-then-write runs in ``BEGIN IMMEDIATE``, which takes the write lock first: two
  connections can never both read "absent" or "available" and then both write.
- A busy timeout makes a connection wait for the lock instead of failing at once.

SQLite's locking depends on POSIX locks and shared memory that network file systems (NFS,
SMB) do not provide reliably: keep the file on a local disk.

The schema is created on open (idempotent); ``PRAGMA user_version`` records its version for
future migrations. Times are stored as float epoch seconds, the envelope as canonical JSON.

A transactional ``Worker`` (``transactional=True`` or ``on_sale=``) runs each handler and its
ack in one ``BEGIN IMMEDIATE`` transaction of a pooled connection (``_handler_connection``):
while it lasts, every call of this store from that thread runs on that connection (a write in a
``SAVEPOINT``), so that the sale read, the effect's key and the ack join it.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeVar

from smartpos._errors import ConfigurationError
from smartpos._messages import message

from ._group_commit import GroupCommit
from ._journal import CONFLICT, Linked, journal_entry, journal_row
from ._outcomes import Answer, JournalEntry, State
from ._sales import SaleRow
from ._seconds import check_seconds
from ._store import DEFAULT_MAX_ATTEMPTS, DEFAULT_RETENTION, StoreBase
from ._store_errors import StoreError
from ._store_interface import (
    Claim,
    EventState,
    StoredEvent,
    _Encoded,
    _stored_event,
    _utc,
    canonical_json,
)

if TYPE_CHECKING:
    from ._listener import ChangeSource

__all__ = ["SCHEMA_VERSION", "SQLiteStore"]

_T = TypeVar("_T")

SCHEMA_VERSION: Final = 6
_SYNCHRONOUS_MODES = ("FULL", "NORMAL")
# Connections kept open for reuse; more than this at once (more concurrent threads) are opened
# for the call and closed after it.
_MAX_IDLE = 8
# The write lock is polled every 0.5, 1, 2, then 4 ms (see SQLiteStore._begin_immediate).
_FIRST_PAUSE: Final = 0.0005
_MAX_PAUSE: Final = 0.004
# sqlite3.SQLITE_BUSY/SQLITE_LOCKED exist from Python 3.11 only.
_SQLITE_BUSY: Final = 5
_SQLITE_LOCKED: Final = 6


def _busy(exc: sqlite3.OperationalError) -> bool:
    # sqlite_errorcode exists from Python 3.11; the message is the same on every version.
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in (_SQLITE_BUSY, _SQLITE_LOCKED)
    return "locked" in str(exc) or "busy" in str(exc)


def _polling(conn: sqlite3.Connection, statement: str, budget: float) -> sqlite3.Cursor:
    """Execute ``statement``, retrying while the database is busy, every 0.5 to 4 ms.

    Raises:
        sqlite3.OperationalError: Still busy after ``budget`` seconds, or another error.
    """
    deadline = time.monotonic() + budget
    pause = _FIRST_PAUSE
    while True:
        try:
            return conn.execute(statement)
        except sqlite3.OperationalError as exc:  # noqa: PERF203 - the retry itself
            remaining = deadline - time.monotonic()
            if not _busy(exc) or remaining <= 0:
                raise
            time.sleep(min(pause, remaining))
            pause = min(pause * 2, _MAX_PAUSE)


# ON CONFLICT ... DO NOTHING needs 3.24 (2018); every supported Python ships a newer one.
_MIN_SQLITE = (3, 24, 0)

_SCHEMA = (
    # available_at is not NULL exactly while the event is pending or claimed: it is when the
    # event may next be claimed (for a claimed event, its lease expiry). The claim query reads
    # one partial index in claim order and stops after `limit` rows.
    """
    CREATE TABLE IF NOT EXISTS smartpos_inbox (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        tipo TEXT NOT NULL,
        criado_em REAL,
        raw TEXT NOT NULL,
        body_hash TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'claimed', 'done', 'dead')),
        attempts INTEGER NOT NULL DEFAULT 0,
        received_at REAL NOT NULL,
        available_at REAL,
        owner TEXT,
        token TEXT,
        lease_expires_at REAL,
        last_error TEXT,
        done_at REAL,
        CHECK ((state IN ('pending', 'claimed')) = (available_at IS NOT NULL))
    )
    """,
    """
    CREATE INDEX IF NOT EXISTS smartpos_inbox_claim
    ON smartpos_inbox (criado_em IS NULL, criado_em, seq, available_at)
    WHERE available_at IS NOT NULL
    """,
    # Partial indexes for purge and dead(): a put never touches them, so a commit writes fewer
    # pages (FULL fsyncs every page of the log).
    """
    CREATE INDEX IF NOT EXISTS smartpos_inbox_done
    ON smartpos_inbox (done_at) WHERE state = 'done'
    """,
    """
    CREATE INDEX IF NOT EXISTS smartpos_inbox_dead
    ON smartpos_inbox (criado_em IS NULL, criado_em, seq) WHERE state = 'dead'
    """,
)

# Version 2: the outcome journal, and the index that finds events by their dados.referencia.
# The index is on an expression, so put() stays one INSERT and events stored before version 2
# are indexed by the upgrade itself; json_valid() keeps a body that is not JSON storable.
_REFERENCIA = "(CASE WHEN json_valid(raw) THEN json_extract(raw, '$.dados.referencia') END)"
_JOURNAL_SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS smartpos_operations (
        seq INTEGER PRIMARY KEY,
        referencia TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        state TEXT NOT NULL
            CHECK (state IN ('sending', 'accepted', 'rejected', 'unknown', 'final')),
        method TEXT NOT NULL,
        path TEXT NOT NULL,
        body BLOB NOT NULL,
        answer TEXT,
        final_event TEXT,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        sale TEXT,
        pending_after REAL,
        abandoned TEXT,
        events INTEGER NOT NULL DEFAULT 0
    )
    """,
    """
    CREATE INDEX IF NOT EXISTS smartpos_operations_waiting
    ON smartpos_operations (seq) WHERE state IN ('sending', 'accepted', 'unknown')
    """,
    """
    CREATE INDEX IF NOT EXISTS smartpos_operations_ended
    ON smartpos_operations (updated_at) WHERE state IN ('final', 'rejected')
    """,
    f"""
    CREATE INDEX IF NOT EXISTS smartpos_inbox_referencia
    ON smartpos_inbox ({_REFERENCIA}, seq) WHERE {_REFERENCIA} IS NOT NULL
    """,
)
# Version 3: sales. A sale's row (its total, and a version each attempt increments: the
# compare-and-set of one attempt at a time), each terminal's holder, and the journal's link of
# an entry to its sale. Columns added to a version-2 journal by _SALE_COLUMNS.
_SALE_COLUMNS = (
    ("sale", "TEXT"),
    ("pending_after", "REAL"),
    ("abandoned", "TEXT"),
    ("events", "INTEGER NOT NULL DEFAULT 0"),
)
# The attempts that may need a human (a superset: each is then judged by _sales.build_sale):
# one still waiting, one with two events or more (a contradiction, a duplicate), one refused
# or abandoned that got an event (a late approval). ``events`` counts the events stored with
# the attempt's referencia, so the till's review reads an index of few rows, not every sale.
_CANDIDATE = (
    "sale IS NOT NULL AND kind = 'payment' AND (state IN ('sending', 'accepted', 'unknown') "
    "OR events >= 2 OR (events >= 1 AND (abandoned IS NOT NULL OR state = 'rejected')))"
)
_SALES_SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS smartpos_sales (
        seq INTEGER PRIMARY KEY,
        sale_id TEXT NOT NULL UNIQUE,
        total_centavos INTEGER NOT NULL,
        version INTEGER NOT NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS smartpos_terminal_holds (
        smartpos_id TEXT PRIMARY KEY,
        referencia TEXT NOT NULL,
        hold_until REAL NOT NULL
    )
    """,
    """
    CREATE INDEX IF NOT EXISTS smartpos_operations_sale
    ON smartpos_operations (sale, seq) WHERE sale IS NOT NULL
    """,
    f"""
    CREATE INDEX IF NOT EXISTS smartpos_operations_attention
    ON smartpos_operations (sale) WHERE {_CANDIDATE}
    """,
)
# Version 5: done events in claim order (list(), list(state="done")): an ordered walk that
# stops at the LIMIT, not every done event sorted (issue 27). Built by the upgrade over the
# events a file holds. A done event is in two partial indexes now: an ack writes one more.
# The journal's purge reads an index of the entries it may delete only (the ended entries of
# sales, kept for good, would otherwise be walked by every purge); it replaces version 2's.
_ORDER_SCHEMA = (
    """
    CREATE INDEX IF NOT EXISTS smartpos_inbox_done_order
    ON smartpos_inbox (criado_em IS NULL, criado_em, seq) WHERE state = 'done'
    """,
    """
    CREATE INDEX IF NOT EXISTS smartpos_operations_purge
    ON smartpos_operations (updated_at) WHERE state IN ('final', 'rejected') AND sale IS NULL
    """,
    "DROP INDEX IF EXISTS smartpos_operations_ended",
)
# Version 6: every journal write is numbered, so that the change listener of every process
# (``SQLiteChanges`` in _listener.py) finds the entries written since its last look, as it finds
# the events stored since then: ``changed`` is the number of an entry's last write (an insert,
# or a change of what a reader sees: its state, answer, outcome or abandon), one more than the
# highest given so far, set by the writing statement itself (no statement more per write). The
# number never goes back: the purge of the journal first raises the floor kept in
# ``smartpos_journal_clock`` to the highest number it may delete, so that no number is given
# twice. A put's count of events (``events``) is announced by its event already. Entries written
# before version 6 have none.
_CHANGE_COLUMNS = (("changed", "INTEGER"),)
_CHANGES_SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS smartpos_journal_clock (
        id INTEGER PRIMARY KEY CHECK (id = 0),
        value INTEGER NOT NULL
    )
    """,
    "INSERT OR IGNORE INTO smartpos_journal_clock (id, value) VALUES (0, 0)",
    """
    CREATE INDEX IF NOT EXISTS smartpos_operations_changed
    ON smartpos_operations (changed) WHERE changed IS NOT NULL
    """,
)
# The highest write number given: one step of the index (its last entry) and the floor's row.
_LAST_CHANGE = (
    "max(coalesce((SELECT max(changed) FROM smartpos_operations WHERE changed IS NOT NULL), 0), "
    "coalesce((SELECT value FROM smartpos_journal_clock WHERE id = 0), 0))"
)
_NEXT_CHANGE = f"({_LAST_CHANGE} + 1)"
_J_CLOCK_FLOOR = f"UPDATE smartpos_journal_clock SET value = {_LAST_CHANGE} WHERE id = 0"  # noqa: S608
#: What the change listener reads (``SQLiteChanges``): the journal's last write number, and the
#: referencias of the entries written after a number, in write order (the index above).
_J_CLOCK: Final = f"SELECT {_LAST_CHANGE}"
_J_CHANGES: Final = (
    "SELECT changed, referencia FROM smartpos_operations WHERE changed > ? ORDER BY changed"
)
# Version 4: the effects of sales a transactional worker applied (see _effects.py), each key
# recorded in the transaction of the partner's writes.
_EFFECTS_SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS smartpos_effects (
        effect_key TEXT PRIMARY KEY,
        sale TEXT NOT NULL,
        kind TEXT NOT NULL,
        referencia TEXT NOT NULL,
        event_id TEXT NOT NULL,
        applied_at REAL NOT NULL
    )
    """,
)
_E_INSERT = (
    "INSERT INTO smartpos_effects (effect_key, sale, kind, referencia, event_id, applied_at) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (effect_key) DO NOTHING"
)
_J_COLUMNS = (
    "SELECT referencia, kind, state, method, path, body, created_at, updated_at, seq, answer, "
    "final_event, sale, pending_after, abandoned FROM smartpos_operations "
)
_J_GET = _J_COLUMNS + "WHERE referencia = ?"
# Each journal write numbers the entry it writes (_NEXT_CHANGE, a constant of this module).
_J_INSERT = (
    "INSERT INTO smartpos_operations (referencia, kind, state, method, path, body, created_at, "  # noqa: S608
    f"updated_at, sale, pending_after, changed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
    f"{_NEXT_CHANGE}) ON CONFLICT (referencia) DO NOTHING"
)
_J_UPDATE = (
    "UPDATE smartpos_operations SET state = ?, updated_at = ?, answer = coalesce(?, answer), "  # noqa: S608
    f"changed = {_NEXT_CHANGE} WHERE referencia = ? AND state IN ({{}})"
)
_J_FINALIZE = (
    "UPDATE smartpos_operations SET state = 'final', final_event = ?, updated_at = ?, "  # noqa: S608
    f"changed = {_NEXT_CHANGE} WHERE referencia = ? AND state <> 'final'"
)
_J_LIST = {
    True: _J_COLUMNS + "WHERE state IN ('sending', 'accepted', 'unknown') AND seq > ? "
    "ORDER BY seq LIMIT ?",
    False: _J_COLUMNS + "WHERE seq > ? ORDER BY seq LIMIT ?",
}
# _REFERENCIA written out again: the planner only uses the index for the very same expression.
_J_EVENTS = (
    "SELECT raw FROM smartpos_inbox WHERE (CASE WHEN json_valid(raw) "
    "THEN json_extract(raw, '$.dados.referencia') END) = ? ORDER BY seq"
)
# The batched reads (see _journal.py): one statement per _IN_BATCH keys (SQLite's variable
# limit is 999 before 3.32), each key an index probe.
_IN_BATCH = 500
_J_EVENTS_MANY = (
    "SELECT (CASE WHEN json_valid(raw) THEN json_extract(raw, '$.dados.referencia') END), raw "
    "FROM smartpos_inbox WHERE (CASE WHEN json_valid(raw) "
    "THEN json_extract(raw, '$.dados.referencia') END) IN ({}) ORDER BY seq"
)
_J_NOT_FINAL = (
    "SELECT referencia FROM smartpos_operations WHERE referencia IN ({}) AND state <> 'final'"
)
_J_FINALIZE_MANY = (
    "UPDATE smartpos_operations SET state = 'final', final_event = CASE referencia {} END, "  # noqa: S608
    f"updated_at = ?, changed = {_NEXT_CHANGE} WHERE referencia IN ({{}})"
)
_S_ENTRIES_MANY = _J_COLUMNS + "WHERE sale IN ({}) ORDER BY seq"
_RECEIVED_MANY = "SELECT id, received_at FROM smartpos_inbox WHERE id IN ({})"
_J_PURGE = (
    "DELETE FROM smartpos_operations WHERE state IN ('final', 'rejected') AND updated_at < ? "
    "AND sale IS NULL"
)
_S_COLUMNS = (
    "SELECT sale_id, total_centavos, version, created_at, updated_at, seq FROM smartpos_sales "
)
_S_GET = _S_COLUMNS + "WHERE sale_id = ?"
_S_LIST = _S_COLUMNS + "WHERE seq > ? ORDER BY seq LIMIT ?"
# _CANDIDATE is a constant of this module, never input.
_S_CANDIDATES = (
    _S_COLUMNS + f"WHERE sale_id IN (SELECT sale FROM smartpos_operations WHERE {_CANDIDATE}) "  # noqa: S608
    "AND seq > ? ORDER BY seq LIMIT ?"
)
_J_COUNT_EVENT = (
    "UPDATE smartpos_operations SET events = events + 1 WHERE referencia = ? AND sale IS NOT NULL"
)
_J_EVENTS_SO_FAR = (
    "UPDATE smartpos_operations SET events = (SELECT count(*) FROM smartpos_inbox WHERE "
    "(CASE WHEN json_valid(raw) THEN json_extract(raw, '$.dados.referencia') END) = ?) "
    "WHERE referencia = ?"
)
_S_ENTRIES = _J_COLUMNS + "WHERE sale = ? ORDER BY seq"
_S_VERSION = "SELECT version FROM smartpos_sales WHERE sale_id = ?"
_S_CREATE = (
    "INSERT INTO smartpos_sales (sale_id, total_centavos, version, created_at, updated_at) "
    "VALUES (?, ?, 1, ?, ?)"
)
_S_BUMP = "UPDATE smartpos_sales SET version = version + 1, updated_at = ? WHERE sale_id = ?"
_T_GET = "SELECT referencia, hold_until FROM smartpos_terminal_holds WHERE smartpos_id = ?"
_T_SET = (
    "INSERT INTO smartpos_terminal_holds (smartpos_id, referencia, hold_until) VALUES (?, ?, ?) "
    "ON CONFLICT (smartpos_id) DO UPDATE SET referencia = excluded.referencia, "
    "hold_until = excluded.hold_until"
)
_J_ABANDON = (
    f"UPDATE smartpos_operations SET abandoned = ?, updated_at = ?, changed = {_NEXT_CHANGE} "  # noqa: S608
    "WHERE referencia = ? AND abandoned IS NULL"
)

_SELECT = (
    "SELECT id, tipo, criado_em, raw, body_hash, state, attempts, received_at, available_at, "
    "owner, lease_expires_at, last_error, done_at FROM smartpos_inbox "
)
_GET = _SELECT + "WHERE id = ?"
_CLAIM_ORDER = "ORDER BY criado_em IS NULL, criado_em, seq LIMIT ?"
_DEAD = _SELECT + "WHERE state = 'dead' " + _CLAIM_ORDER
# One statement per state, the state written out so that the partial indexes apply: pending
# and claimed events are exactly those with an available_at, which the claim index covers;
# done and dead events have their own index in claim order. Every state: the first rows of
# each of the three, merged.
_CLAIM_ORDER_BY = "ORDER BY criado_em IS NULL, criado_em, seq"
_COLUMNS = (
    "id, tipo, criado_em, raw, body_hash, state, attempts, received_at, available_at, "
    "owner, lease_expires_at, last_error, done_at"
)
# Built from constants of this module, never input.
_LIST_ALL = (
    f"SELECT {_COLUMNS} FROM ("  # noqa: S608
    + " UNION ALL ".join(
        f"SELECT * FROM (SELECT {_COLUMNS}, seq FROM smartpos_inbox WHERE {where} "  # noqa: S608
        f"{_CLAIM_ORDER_BY} LIMIT ?)"
        for where in ("available_at IS NOT NULL", "state = 'done'", "state = 'dead'")
    )
    + f") {_CLAIM_ORDER} "
)
_LIST = {
    None: _LIST_ALL,
    EventState.PENDING: _SELECT
    + "WHERE available_at IS NOT NULL AND state = 'pending' "
    + _CLAIM_ORDER,
    EventState.CLAIMED: _SELECT
    + "WHERE available_at IS NOT NULL AND state = 'claimed' "
    + _CLAIM_ORDER,
    EventState.DONE: _SELECT + "WHERE state = 'done' " + _CLAIM_ORDER,
    EventState.DEAD: _DEAD,
}
_HASH = "SELECT body_hash FROM smartpos_inbox WHERE id = ?"
_INSERT = (
    "INSERT INTO smartpos_inbox (id, tipo, criado_em, raw, body_hash, state, received_at, "
    "available_at) VALUES (?, ?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT (id) DO NOTHING"
)
_CLAIMABLE = (
    "SELECT seq, id, tipo, raw, state, attempts FROM smartpos_inbox WHERE available_at <= ? "
    "ORDER BY criado_em IS NULL, criado_em, seq LIMIT ?"
)
_CLAIM = (
    "UPDATE smartpos_inbox SET state = 'claimed', attempts = attempts + 1, owner = ?, token = ?, "
    "lease_expires_at = ?, available_at = ? WHERE seq = ?"
)
_EXPIRED_TO_DEAD = (
    "UPDATE smartpos_inbox SET state = 'dead', available_at = NULL, owner = NULL, token = NULL, "
    "lease_expires_at = NULL, last_error = ? WHERE seq = ?"
)
# The statements that need a live lease end with the same condition: (id, token, now).
_ACK_SET = (
    "UPDATE smartpos_inbox SET state = 'done', done_at = ?, available_at = NULL, owner = NULL, "
    "token = NULL, lease_expires_at = NULL WHERE id = ? AND token = ?"
)
_ACK = _ACK_SET + " AND lease_expires_at > ?"
# Inside a handler's transaction, which holds the write lock: the token alone (nobody claimed
# the event since), even past the lease's expiry.
_ACK_IN_TRANSACTION = _ACK_SET
_NACK = (
    "UPDATE smartpos_inbox SET state = CASE WHEN attempts >= ? THEN 'dead' ELSE 'pending' END, "
    "available_at = CASE WHEN attempts >= ? THEN NULL ELSE ? END, last_error = ?, owner = NULL, "
    "token = NULL, lease_expires_at = NULL WHERE id = ? AND token = ? AND lease_expires_at > ?"
)
# Back to pending, available now, the claim's attempt taken back.
_RELEASE = (
    "UPDATE smartpos_inbox SET state = 'pending', attempts = attempts - 1, available_at = ?, "
    "owner = NULL, token = NULL, lease_expires_at = NULL "
    "WHERE id = ? AND token = ? AND lease_expires_at > ?"
)
_DEAD_LETTER = (
    "UPDATE smartpos_inbox SET state = 'dead', available_at = NULL, last_error = ?, owner = NULL, "
    "token = NULL, lease_expires_at = NULL WHERE id = ? AND token = ? AND lease_expires_at > ?"
)
_EXTEND = (
    "UPDATE smartpos_inbox SET lease_expires_at = ?, available_at = ? "
    "WHERE id = ? AND token = ? AND lease_expires_at > ?"
)
_REQUEUE = (
    "UPDATE smartpos_inbox SET state = 'pending', attempts = 0, available_at = ?, done_at = NULL, "
    "owner = NULL, token = NULL, lease_expires_at = NULL WHERE id = ? AND state IN ('dead', 'done')"
)
_PURGE = "DELETE FROM smartpos_inbox WHERE state = 'done' AND done_at < ?"
# Whether a purge has any event to delete (the done index's first entry): when not, it does not
# settle the journal's waiting entries first (see JournalBase._settle_waiting).
_PURGE_DUE = "SELECT 1 FROM smartpos_inbox WHERE state = 'done' AND done_at < ? LIMIT 1"


class _Connection(sqlite3.Connection):
    """The store's pooled connection (autocommit: the store writes BEGIN/COMMIT itself).

    ``synchronous`` is the connection's current ``PRAGMA synchronous``: a write that needs
    only to survive a crash of the process commits under ``NORMAL`` on a ``FULL`` store.
    """

    synchronous: str = ""


class SQLiteStore(StoreBase):
    """The embedded, durable inbox: one SQLite file on a local disk.

    Safe for several threads and several processes on one host; not on a network file system
    (NFS, SMB), whose locks SQLite cannot rely on. Use it as a context manager, or call
    ``close()``. ``put_many`` and ``ack_many`` run in one transaction: one fsync per batch.

    The outcome journal's entry written before a request leaves, and a ``rejected`` record,
    are committed as durably as ``synchronous`` says; an ``accepted`` or ``unknown`` answer
    recorded after the send and an outcome found by a read are committed without an fsync (a
    crash of the process keeps them; a power cut may lose them, which leaves the operation
    ``sending`` for ``reconcile``). Concurrent journal writes of one process share one commit
    (group commit).

    Args:
        path: The database file; created with its directory's permissions when absent.
        synchronous: ``"FULL"`` (default) fsyncs every commit, so an event answered 2xx
            survives a power cut; ``"NORMAL"`` is faster but a power cut (not a crash) may
            lose the last commits.
        busy_timeout: Seconds to wait for another connection's write lock before failing;
            a put given a shorter ``timeout`` (a receiver's ``store_timeout``) waits that.
        max_attempts: Claims after which a failing event goes to the dead state.
        retention: How long ``purge()`` keeps done events by default.
        clock: Returns the current time in epoch seconds.

    Raises:
        ConfigurationError: An option is out of range, or ``path`` is ``":memory:"``.
        StoreError: The file cannot be opened, is not a database, or cannot use WAL.
    """

    # A coroutine's calls of this store use at most this many threads per event loop (see
    # _threads.py): its writes take turns anyway, and more threads fight the loop for the GIL.
    _worker_threads: int | None = 2

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        synchronous: str = "FULL",
        busy_timeout: float = 5.0,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        retention: _dt.timedelta = DEFAULT_RETENTION,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(max_attempts=max_attempts, retention=retention, clock=clock)
        self._path = os.fspath(path)
        if self._path in ("", ":memory:"):
            raise ConfigurationError(message("webhooks.sqlite_memory"))
        mode = synchronous.upper() if isinstance(synchronous, str) else synchronous
        if mode not in _SYNCHRONOUS_MODES:
            raise ConfigurationError(message("webhooks.sqlite_synchronous", value=synchronous))
        busy = check_seconds("busy_timeout", busy_timeout, positive=False, option=True)
        if sqlite3.sqlite_version_info < _MIN_SQLITE:
            raise StoreError(
                f"SQLiteStore needs SQLite >= 3.24, this Python has {sqlite3.sqlite_version}"
            )
        self._synchronous = mode
        self._busy_timeout = busy
        self._lock = threading.Lock()
        self._idle: list[_Connection] = []
        # Connections opened before a fork belong to the parent; the child must not use or
        # close them (SQLite forbids carrying a connection across fork), only keep them alive.
        self._inherited: list[sqlite3.Connection] = []
        self._pid = os.getpid()
        # The journal's writes: concurrent ones share one transaction (see _group_commit.py).
        self._group = GroupCommit(self._batch_transaction, self._error)
        # The connection of a handler's transaction, per thread (see _handler_connection).
        self._local = threading.local()
        conn = self._connect()
        try:
            self._set_up(conn)
        except sqlite3.Error as exc:
            conn.close()
            raise self._error(exc) from exc
        except BaseException:
            conn.close()
            raise
        self._checkin(conn)

    def __repr__(self) -> str:
        return f"SQLiteStore({self._path!r}, synchronous={self._synchronous!r})"

    @property
    def path(self) -> str:
        """The database file."""
        return self._path

    @property
    def synchronous(self) -> str:
        """``"FULL"`` or ``"NORMAL"``."""
        return self._synchronous

    def _insert(self, batch: Sequence[_Encoded], timeout: float | None) -> list[str | None]:
        kept: list[str | None] = []
        with self._write(timeout) as conn:
            now = self._now()
            for item in batch:
                cursor = conn.execute(
                    _INSERT,
                    (item.id, item.tipo, item.criado_em, item.raw_json, item.body_hash, now, now),
                )
                if cursor.rowcount == 1:
                    if item.referencia is not None:
                        conn.execute(_J_COUNT_EVENT, (item.referencia,))
                    kept.append(None)
                else:
                    kept.append(conn.execute(_HASH, (item.id,)).fetchone()[0])
        return kept

    def claim(self, *, owner: str, lease: float, limit: int = 1) -> list[Claim]:
        self._check_claim(owner, lease, limit)
        claims: list[Claim] = []
        died: list[tuple[str, str, int]] = []
        with self._write() as conn:
            now = self._now()
            expires = now + lease
            expires_at = _utc(expires)
            while len(claims) < limit:
                wanted = limit - len(claims)
                rows = conn.execute(_CLAIMABLE, (now, wanted)).fetchall()
                exhausted: list[tuple[str, int]] = []
                leases: list[tuple[str, str, float, float, int]] = []
                for seq, event_id, tipo, raw, state, attempts in rows:
                    expired_error = self._expired_on_last_attempt(state, attempts)
                    if expired_error is not None:
                        exhausted.append((expired_error, seq))
                        died.append((event_id, tipo, attempts))
                        continue
                    token = self._new_token()
                    leases.append((owner, token, expires, expires, seq))
                    claims.append(
                        Claim(
                            event_id=event_id,
                            tipo=tipo,
                            raw=json.loads(raw),
                            owner=owner,
                            token=token,
                            attempts=attempts + 1,
                            lease_expires_at=expires_at,
                        )
                    )
                conn.executemany(_EXPIRED_TO_DEAD, exhausted)
                conn.executemany(_CLAIM, leases)
                if not exhausted or len(rows) < wanted:
                    break
        for event_id, tipo, attempts in died:  # once committed
            self._log_expired_to_dead(event_id, tipo, attempts)
        return claims

    def ack(self, claim: Claim) -> bool:
        return self.ack_many([claim])[0]

    def ack_many(self, claims: Sequence[Claim]) -> list[bool]:
        if not claims:
            return []
        in_handler = self._in_handler() is not None
        with self._write() as conn:
            now = self._now()
            return [
                (
                    conn.execute(_ACK_IN_TRANSACTION, (now, c.event_id, c.token))
                    if in_handler
                    else conn.execute(_ACK, (now, c.event_id, c.token, now))
                ).rowcount
                == 1
                for c in claims
            ]

    def nack(self, claim: Claim, *, error: str, retry_in: float) -> bool:
        self._check_seconds("retry_in", retry_in, positive=False)
        max_attempts = self._max_attempts
        with self._write() as conn:
            now = self._now()
            params = (max_attempts, max_attempts, now + retry_in, error)
            cursor = conn.execute(_NACK, (*params, claim.event_id, claim.token, now))
            return cursor.rowcount == 1

    def dead_letter(self, claim: Claim, *, error: str) -> bool:
        with self._write() as conn:
            now = self._now()
            cursor = conn.execute(_DEAD_LETTER, (error, claim.event_id, claim.token, now))
            return cursor.rowcount == 1

    def release(self, claim: Claim) -> bool:
        with self._write() as conn:
            now = self._now()
            cursor = conn.execute(_RELEASE, (now, claim.event_id, claim.token, now))
            return cursor.rowcount == 1

    def extend(self, claim: Claim, *, lease: float) -> bool:
        self._check_seconds("lease", lease, positive=True)
        with self._write() as conn:
            now = self._now()
            expires = now + lease
            cursor = conn.execute(_EXTEND, (expires, expires, claim.event_id, claim.token, now))
            return cursor.rowcount == 1

    def get(self, event_id: str) -> StoredEvent | None:
        with self._read() as conn:
            row = conn.execute(_GET, (event_id,)).fetchone()
        return None if row is None else _stored_event(row)

    def _list(self, state: EventState | None, limit: int) -> list[StoredEvent]:
        with self._read() as conn:
            statement = _LIST[state]
            rows = conn.execute(statement, (limit,) * statement.count("?")).fetchall()
        return [_stored_event(row) for row in rows]

    def requeue(self, event_id: str) -> bool:
        with self._write() as conn:
            return conn.execute(_REQUEUE, (self._now(), event_id)).rowcount == 1

    def purge(self, *, done_before: _dt.datetime | None = None) -> int:
        cutoff = self._purge_cutoff(done_before)
        with self._read() as conn:
            due = conn.execute(_PURGE_DUE, (cutoff,)).fetchone() is not None
        if due:
            self._settle_waiting()
        with self._write() as conn:
            # Not due when checked: none is deleted now (one done since was not settled).
            events = conn.execute(_PURGE, (cutoff,)).rowcount if due else 0
            conn.execute(_J_CLOCK_FLOOR)  # the numbers of the entries it deletes stay given
            return events + conn.execute(_J_PURGE, (cutoff,)).rowcount

    def close(self) -> None:
        """Close every connection; the store is unusable afterwards."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    # Connections.

    def _connect(self) -> _Connection:
        try:
            # isolation_level=None: this module writes BEGIN IMMEDIATE / COMMIT itself.
            # check_same_thread=False: a pooled connection moves between threads, one at a time.
            conn = sqlite3.connect(
                self._path,
                timeout=self._busy_timeout,
                isolation_level=None,
                check_same_thread=False,
                factory=_Connection,
            )
        except sqlite3.Error as exc:
            raise self._error(exc) from exc
        try:
            conn.execute(f"PRAGMA synchronous = {self._synchronous}")
        except sqlite3.Error as exc:
            conn.close()
            raise self._error(exc) from exc
        conn.synchronous = self._synchronous
        return conn

    def _set_up(self, conn: sqlite3.Connection) -> None:
        (mode,) = conn.execute("PRAGMA journal_mode").fetchone()
        if mode.lower() != "wal":
            # Polled: when several processes open a new file at once, SQLite answers "locked"
            # at once, without its busy handler, to one holding a read lock while another
            # holds the write lock (waiting would deadlock them).
            (mode,) = _polling(conn, "PRAGMA journal_mode = WAL", self._busy_timeout).fetchone()
            if mode.lower() != "wal":
                raise StoreError(
                    f"SQLite store {self._path!r}: cannot use WAL journal mode (got {mode!r}); "
                    "is the file on a network or read-only file system?"
                )
        (version,) = conn.execute("PRAGMA user_version").fetchone()
        if version == SCHEMA_VERSION:
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            (version,) = conn.execute("PRAGMA user_version").fetchone()
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"SQLite store {self._path!r} has schema version {version}, newer than "
                    f"this smartpos knows ({SCHEMA_VERSION}); upgrade smartpos"
                )
            for statement in (*_SCHEMA, *_JOURNAL_SCHEMA):
                conn.execute(statement)
            columns = {row[1] for row in conn.execute("PRAGMA table_info(smartpos_operations)")}
            for name, kind in (*_SALE_COLUMNS, *_CHANGE_COLUMNS):
                if name not in columns:
                    conn.execute(f"ALTER TABLE smartpos_operations ADD COLUMN {name} {kind}")
            for statement in (*_SALES_SCHEMA, *_EFFECTS_SCHEMA, *_ORDER_SCHEMA, *_CHANGES_SCHEMA):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                conn.rollback()
            raise

    def _checkout(self) -> _Connection:
        with self._lock:
            if self._closed:
                raise StoreError(f"SQLite store {self._path!r} is closed", applied=False)
            if self._pid != os.getpid():
                self._inherited.extend(self._idle)
                self._idle = []
                self._pid = os.getpid()
            if self._idle:
                return self._idle.pop()
        return self._connect()

    def _checkin(self, conn: _Connection) -> None:
        with self._lock:
            if not self._closed and len(self._idle) < _MAX_IDLE:
                self._idle.append(conn)
                return
        conn.close()

    @contextlib.contextmanager
    def _write(
        self, timeout: float | None = None, *, durable: bool = True
    ) -> Iterator[sqlite3.Connection]:
        """Run the block in ``BEGIN IMMEDIATE`` ... ``COMMIT``; SQLite errors become StoreError.

        Args:
            timeout: Seconds to wait for another connection's write lock, instead of the
                store's ``busy_timeout``.
            durable: ``False``: the commit need only survive a crash of the process, not a
                power cut (``synchronous=NORMAL`` for it: no fsync; the next durable commit
                fsyncs the log, this one's pages with it).
        """
        if self._in_handler() is not None:
            with self._read() as conn, _savepoint(conn):
                yield conn
            return
        with self._read() as conn:
            mode = self._synchronous if durable else "NORMAL"
            if conn.synchronous != mode:
                conn.execute(f"PRAGMA synchronous = {mode}")
                conn.synchronous = mode
            budget = self._busy_timeout if timeout is None else min(timeout, self._busy_timeout)
            self._begin_immediate(conn, budget)
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    conn.rollback()
                raise

    def _begin_immediate(self, conn: _Connection, budget: float) -> None:
        """Take the write lock within ``budget`` seconds, polling in short steps.

        SQLite's own busy handler sleeps 1, 2, 5, 10 ... up to 100 ms between tries, so under
        a few hundred commits per second from other processes a writer waits hundreds of
        milliseconds for a lock that was free most of that time (measured by
        benchmarks/bench_wait.py: p99 of a waiter's journal write 436-733 ms, 15-29 ms with
        short steps). The handler is off only while the lock is taken: every other statement
        keeps the connection's busy timeout.
        """
        conn.execute("PRAGMA busy_timeout = 0")
        try:
            _polling(conn, "BEGIN IMMEDIATE", budget)
        finally:
            conn.execute(f"PRAGMA busy_timeout = {round(self._busy_timeout * 1000)}")

    @contextlib.contextmanager
    def _read(self) -> Iterator[_Connection]:
        """Lend a pooled connection to the block; SQLite errors become StoreError."""
        handler = self._in_handler()
        if handler is not None:  # the handler's transaction: its connection, kept open
            try:
                yield handler
            except sqlite3.Error as exc:
                raise self._error(exc) from exc
            return
        conn = self._checkout()
        try:
            yield conn
        except sqlite3.Error as exc:
            # The connection may be in any state after an error: do not lend it again.
            conn.close()
            raise self._error(exc) from exc
        except BaseException:
            self._checkin(conn)
            raise
        self._checkin(conn)

    def _in_handler(self) -> _Connection | None:
        """The connection of this thread's handler transaction, or ``None``."""
        conn: _Connection | None = getattr(self._local, "handler", None)
        return conn

    @contextlib.contextmanager
    def _handler_connection(self) -> Iterator[sqlite3.Connection]:
        """A transaction for a handler and its ack (a transactional ``Worker``, ``_worker.py``).

        ``BEGIN IMMEDIATE`` on a pooled connection, committed as durably as ``synchronous``
        says when the block ends, rolled back when it raises (the exception passes unchanged).
        The write lock is held throughout: other writers, a receiver's puts included, wait.
        """
        if self._in_handler() is not None:
            raise StoreError("a handler transaction is already open in this thread", applied=False)
        conn = self._checkout()
        try:
            if conn.synchronous != self._synchronous:
                conn.execute(f"PRAGMA synchronous = {self._synchronous}")
                conn.synchronous = self._synchronous
            self._begin_immediate(conn, self._busy_timeout)
        except sqlite3.Error as exc:
            conn.close()
            raise self._error(exc) from exc
        self._local.handler = conn
        try:
            yield conn
        except BaseException:
            self._local.handler = None
            try:
                conn.rollback()
            except sqlite3.Error:
                conn.close()
            else:
                self._checkin(conn)
            raise
        self._local.handler = None
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                conn.rollback()
            conn.close()
            raise self._error(exc) from exc
        self._checkin(conn)

    def _grouped(self, work: Callable[[sqlite3.Connection], _T], *, durable: bool) -> _T:
        """A journal write: in the handler's transaction when one is open, else group-committed."""
        if self._in_handler() is None:
            return self._group.run(work, durable=durable)
        with self._write() as conn:
            return work(conn)

    def _record_effect(
        self, key: str, *, sale: str, kind: str, referencia: str, event_id: str
    ) -> bool:
        """Record an effect's key in the handler's transaction; ``False``: already recorded."""
        with self._write() as conn:
            params = (key, sale, kind, referencia, event_id, self._now())
            return bool(conn.execute(_E_INSERT, params).rowcount == 1)

    def _error(self, exc: sqlite3.Error) -> StoreError:
        # A local file with atomic commits: a statement or COMMIT that raised left nothing
        # behind (the block rolls back), so a failed write is known not to be applied.
        return StoreError(f"SQLite store {self._path!r} failed: {exc}", applied=False)

    def _change_source(self) -> ChangeSource:
        from ._listener import SQLiteChanges

        return SQLiteChanges(self._path, _REFERENCIA, journal=(_J_CLOCK, _J_CHANGES))

    # The outcome journal's primitives (see _journal.py).

    def _journal_get(self, referencia: str) -> JournalEntry | None:
        with self._read() as conn:
            row = conn.execute(_J_GET, (referencia,)).fetchone()
        return None if row is None else _journal_entry(row)

    def _batch_transaction(self, durable: bool) -> contextlib.AbstractContextManager[Any]:
        return self._write(durable=durable)

    def _journal_insert(self, entry: JournalEntry) -> JournalEntry | None:
        params = (*journal_row(entry, timestamp=float), entry.sale, entry.pending_after)

        def insert(conn: sqlite3.Connection) -> JournalEntry | None:
            if conn.execute(_J_INSERT, params).rowcount == 1:
                if entry.sale is not None:
                    conn.execute(_J_EVENTS_SO_FAR, (entry.referencia, entry.referencia))
                return None
            return _journal_entry(conn.execute(_J_GET, (entry.referencia,)).fetchone())

        # Durable: the entry is what operations() lists after a power cut during the send.
        return self._grouped(insert, durable=True)

    def _journal_update(
        self,
        referencia: str,
        state: State,
        allowed_from: frozenset[str],
        answer: Answer | None,
        now: float,
        *,
        durable: bool = True,
    ) -> bool:
        statement = _J_UPDATE.format(", ".join("?" * len(allowed_from)))
        answer_json = None if answer is None else answer.to_json()
        params = (state, now, answer_json, referencia, *sorted(allowed_from))

        def update(conn: sqlite3.Connection) -> bool:
            return conn.execute(statement, params).rowcount == 1

        return self._grouped(update, durable=durable)

    def _journal_finalize(self, referencia: str, event: Mapping[str, Any], now: float) -> bool:
        params = (canonical_json(event), now, referencia)

        def finalize(conn: sqlite3.Connection) -> bool:
            return conn.execute(_J_FINALIZE, params).rowcount == 1

        # Not durable: a finalize lost to a power cut is found again from the stored events
        # (the first final one in store order), the same event.
        return self._grouped(finalize, durable=False)

    def _journal_list(self, *, waiting: bool, after: int, limit: int) -> list[JournalEntry]:
        with self._read() as conn:
            rows = conn.execute(_J_LIST[waiting], (after, limit)).fetchall()
        return [_journal_entry(row) for row in rows]

    def _journal_events(self, referencia: str) -> list[Mapping[str, Any]]:
        with self._read() as conn:
            rows = conn.execute(_J_EVENTS, (referencia,)).fetchall()
        return [json.loads(raw) for (raw,) in rows]

    # The batched reads and writes (see _journal.py): one statement per _IN_BATCH keys.

    def _read_in(self, statement: str, keys: Sequence[str]) -> list[Any]:
        """The rows of ``statement`` (its ``IN ({})`` filled) over ``keys``, in one read."""
        rows: list[Any] = []
        with self._read() as conn:
            for start in range(0, len(keys), _IN_BATCH):
                chunk = keys[start : start + _IN_BATCH]
                query = statement.format(", ".join("?" * len(chunk)))
                rows += conn.execute(query, chunk).fetchall()
        return rows

    def _journal_events_many(
        self, referencias: Sequence[str]
    ) -> dict[str, list[Mapping[str, Any]]]:
        found: dict[str, list[Mapping[str, Any]]] = {}
        # In seq order within each chunk; a referencia is in one chunk only.
        for referencia, raw in self._read_in(_J_EVENTS_MANY, list(dict.fromkeys(referencias))):
            found.setdefault(referencia, []).append(json.loads(raw))
        return found

    def _journal_finalize_many(
        self, outcomes: Mapping[str, Mapping[str, Any]], now: float
    ) -> set[str]:
        keys = list(outcomes)
        events = {referencia: canonical_json(event) for referencia, event in outcomes.items()}

        def finalize(conn: sqlite3.Connection) -> set[str]:
            # In the write transaction: the entries not final yet are exactly those written.
            written: set[str] = set()
            for start in range(0, len(keys), _IN_BATCH // 2):
                chunk = keys[start : start + _IN_BATCH // 2]
                marks = ", ".join("?" * len(chunk))
                found = conn.execute(_J_NOT_FINAL.format(marks), chunk).fetchall()
                if not found:
                    continue
                open_ones = [referencia for (referencia,) in found]
                cases = " ".join("WHEN ? THEN ?" for _ in open_ones)
                params = [x for r in open_ones for x in (r, events[r])]
                statement = _J_FINALIZE_MANY.format(cases, ", ".join("?" * len(open_ones)))
                conn.execute(statement, (*params, now, *open_ones))
                written.update(open_ones)
            return written

        # Not durable, as _journal_finalize.
        return self._group.run(finalize, durable=False)

    def _sale_linked_many(self, sale_ids: Sequence[str]) -> dict[str, list[Linked]]:
        entries = [_journal_entry(row) for row in self._read_in(_S_ENTRIES_MANY, list(sale_ids))]
        events = self._journal_events_many([entry.referencia for entry in entries])
        found: dict[str, list[Linked]] = {}
        for entry in sorted(entries, key=lambda e: e.seq):
            assert entry.sale is not None  # read by its sale
            found.setdefault(entry.sale, []).append((entry, events.get(entry.referencia, [])))
        return found

    def _received_at_many(self, event_ids: Sequence[str]) -> dict[str, float]:
        return {i: float(r) for i, r in self._read_in(_RECEIVED_MANY, list(event_ids))}

    # Sales (see _journal.py): the checks' compare-and-set runs in one write transaction
    # (BEGIN IMMEDIATE): one writer at a time across processes.

    def _sale_get(self, sale_id: str) -> SaleRow | None:
        with self._read() as conn:
            row = conn.execute(_S_GET, (sale_id,)).fetchone()
        return None if row is None else SaleRow(*row)

    def _sale_entries(self, sale_id: str) -> list[JournalEntry]:
        with self._read() as conn:
            rows = conn.execute(_S_ENTRIES, (sale_id,)).fetchall()
        return [_journal_entry(row) for row in rows]

    def _sale_list(self, *, after: int, limit: int) -> list[SaleRow]:
        with self._read() as conn:
            rows = conn.execute(_S_LIST, (after, limit)).fetchall()
        return [SaleRow(*row) for row in rows]

    def _sale_candidates(self, *, after: int, limit: int) -> list[SaleRow]:
        with self._read() as conn:
            rows = conn.execute(_S_CANDIDATES, (after, limit)).fetchall()
        return [SaleRow(*row) for row in rows]

    def _terminal_get(self, smartpos_id: str) -> tuple[str, float] | None:
        with self._read() as conn:
            row = conn.execute(_T_GET, (smartpos_id,)).fetchone()
        return None if row is None else (row[0], float(row[1]))

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
        params = (*journal_row(entry, timestamp=float), entry.sale, entry.pending_after)
        now = entry.created_at

        def insert(conn: sqlite3.Connection) -> JournalEntry | str | None:
            existing = conn.execute(_J_GET, (entry.referencia,)).fetchone()
            if existing is not None:
                return _journal_entry(existing)
            version = conn.execute(_S_VERSION, (entry.sale,)).fetchone()
            if (None if version is None else version[0]) != expected_version:
                return CONFLICT
            if terminal is not None:
                held = conn.execute(_T_GET, (terminal,)).fetchone()
                if (None if held is None else held[0]) != expected_holder:
                    return CONFLICT
                conn.execute(_T_SET, (terminal, entry.referencia, hold_until))
            if version is None:
                conn.execute(_S_CREATE, (entry.sale, total_centavos, now, now))
            else:
                conn.execute(_S_BUMP, (now, entry.sale))
            conn.execute(_J_INSERT, params)
            conn.execute(_J_EVENTS_SO_FAR, (entry.referencia, entry.referencia))
            return None

        # Durable, as every entry written before its send.
        return self._grouped(insert, durable=True)

    def _sale_abandon(self, referencia: str, abandon: Mapping[str, Any], now: float) -> bool:
        params = (canonical_json(abandon), now, referencia)

        def record(conn: sqlite3.Connection) -> bool:
            return conn.execute(_J_ABANDON, params).rowcount == 1

        return self._grouped(record, durable=True)


@contextlib.contextmanager
def _savepoint(conn: sqlite3.Connection) -> Iterator[None]:
    """A nested write inside a handler's transaction: undone alone when it raises."""
    conn.execute("SAVEPOINT smartpos_nested")
    try:
        yield
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK TO smartpos_nested")
            conn.execute("RELEASE smartpos_nested")
        raise
    conn.execute("RELEASE smartpos_nested")


def _journal_entry(row: Sequence[Any]) -> JournalEntry:
    return journal_entry(row, timestamp=float, final_event=json.loads)
