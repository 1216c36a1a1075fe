"""``DjangoStore``: the inbox, journal and sales on the project's own database, through Django.

The tables are the app's models (``models.py``, created by ``manage.py migrate``); the store
writes them with its own statements through ``connections[using]``, because every step that
must be atomic across processes is one the ORM cannot express as one statement:
insert-if-absent (``ON CONFLICT DO NOTHING``; a duplicate-key error on MySQL/MariaDB), the
conditional updates of a lease (``WHERE token = ... AND lease_expires_at > now``), a claim
that skips rows another worker locked (``FOR UPDATE SKIP LOCKED`` on PostgreSQL, MySQL 8 and
MariaDB 10.6+), and a sale's compare-and-set.

Why it is safe across processes:

- PostgreSQL (READ COMMITTED): every compare-and-set is a conditional ``UPDATE`` or an
  ``INSERT ... ON CONFLICT DO NOTHING``, which waits for a concurrent writer of the same row and
  then re-checks its condition; a claim locks the rows it hands out and skips those locked.
- MySQL/MariaDB (InnoDB; Django's default READ COMMITTED): an ``UPDATE`` reads the latest
  committed row, waits for a concurrent writer of it and re-checks its ``WHERE`` on what that
  writer committed, so a conditional ``UPDATE`` is a compare-and-set; its rowcount counts the
  rows it matched (Django's backend sets ``CLIENT.FOUND_ROWS``), as on PostgreSQL. An
  insert-if-absent is a plain ``INSERT``: the unique index's check waits for a concurrent
  inserter of the same key, and its duplicate-key error (that error only, see
  ``_insert_if_absent``) means "present". A claim reads candidates without locks, then locks
  them by primary key ``FOR UPDATE SKIP LOCKED``, a locking read that sees the latest
  committed row and re-checks that each is still claimable (see ``_CANDIDATES``). The one
  read that must see another transaction's commit, an existing event's hash after its
  duplicate-key error, is a locking read (``LOCK IN SHARE MODE``), right at any isolation
  level. The suites also passed under REPEATABLE READ (run by hand); READ COMMITTED, with
  fewer gap locks, is the level the tests run. Two batches of puts with some of the same
  new ids in other orders may deadlock: InnoDB aborts one, which is tried again
  (``_insert``). Id columns have a binary ``NO PAD`` collation (``_fields.py``); the
  connection must be ``utf8mb4`` (checked once per store). Times are float epoch seconds
  (``DOUBLE``: microseconds kept, no ``DATETIME`` precision to set); envelopes and errors
  are ``LONGTEXT``, journaled request bodies ``LONGBLOB``.
- SQLite: every write transaction starts with a write, which takes the database's write lock
  (waiting up to the connection's ``timeout``) before anything is read, as ``BEGIN IMMEDIATE``
  would: two connections never both read "absent" and then both write.

Handlers in the same transaction as the ack: ``webhooks.Worker`` asks a store for
``_handler_transaction()``; this one answers ``transaction.atomic(using=...)``, inside which
the ack holds as long as no other worker claimed the event (its token), even past the lease's
expiry, and commits with the handler's own writes.
Only the writes through the store's alias are in that transaction: one through another alias
commits on its own, and the worker logs a warning, once per alias (``_aliases.py``).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from smartpos._errors import ConfigurationError
from smartpos._messages import message
from smartpos.integrations.django._fields import MYSQL_ID_CHARS
from smartpos.webhooks._journal import CONFLICT, Linked, journal_entry, journal_row
from smartpos.webhooks._outcomes import Answer, JournalEntry, State
from smartpos.webhooks._sales import SaleRow
from smartpos.webhooks._store import DEFAULT_MAX_ATTEMPTS, DEFAULT_RETENTION, StoreBase
from smartpos.webhooks._store_errors import StoreError
from smartpos.webhooks._store_interface import (
    Claim,
    EventState,
    StoredEvent,
    _Encoded,
    _stored_event,
    _utc,
    canonical_json,
)

from ._aliases import OtherAliases

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper

    from smartpos.webhooks._listener import ChangeSource

__all__ = ["CHECK_INTERVAL", "DjangoStore"]

#: Seconds between the checks that wake waiters on a database without a change feed.
CHECK_INTERVAL: Final = 0.25

_EVENTS = "smartpos_event"
_OPERATIONS = "smartpos_operation"
_SALES = "smartpos_sale"
_HOLDS = "smartpos_terminalhold"
_EFFECTS = "smartpos_effect"

# SQLite: a write that changes nothing, run first in a transaction to take the write lock.
_TAKE_WRITE_LOCK = f"DELETE FROM {_HOLDS} WHERE 1 = 0"

# Claim order: criado_em with its NULLs last, then seq (the outer order of a merge below).
_ORDER = "ORDER BY CASE WHEN criado_em IS NULL THEN 1 ELSE 0 END, criado_em, seq"
_COLUMNS = (
    "event_id, tipo, criado_em, raw, body_hash, state, attempts, received_at, available_at, "
    "owner, lease_expires_at, last_error, done_at"
)
_SELECT = f"SELECT {_COLUMNS} FROM {_EVENTS} "
_GET = _SELECT + "WHERE event_id = %s"


class _Walk(NamedTuple):
    """A read of events in claim order: ordered index walks, each stopping at the LIMIT.

    ``sql`` takes, for each of its ``walks``, the parameters of its condition then the
    limit; when several are merged, the limit once more (``params``).
    """

    sql: str
    walks: int

    def params(self, condition: tuple[Any, ...], limit: int) -> tuple[Any, ...]:
        """The parameters of ``sql``: ``condition``'s and ``limit`` for each walk."""
        merged = () if self.walks == 1 else (limit,)
        return (*condition, limit) * self.walks + merged


def _walk(columns: str, conditions: Sequence[str], *, nulls_first: bool) -> _Walk:
    """Select ``columns`` of the first events of each condition in claim order, merged.

    Each condition is written so that one index holds its events in claim order (see
    ``models.py``). PostgreSQL walks an ascending index with its NULLs last: one walk per
    condition, ordered by ``criado_em, seq``. SQLite and MySQL/MariaDB put NULLs first:
    each condition is two walks, the events with a ``criado_em`` ordered by it, then those
    without ordered by ``seq`` (``criado_em IS NULL`` is an equality on the index). Several
    walks are merged by sorting their rows (at most the limit each) in claim order.
    """
    count = len(conditions) * (2 if nulls_first else 1)
    # Merged walks also select what the merge sorts by.
    names = [name.strip() for name in columns.split(",")]
    inner = ", ".join([*names, *(c for c in ("criado_em", "seq") if c not in names)])
    if count == 1:
        inner = columns
    walks = []
    for condition in conditions:
        where = f"{condition} AND " if condition else ""
        if nulls_first:
            walks.append(
                f"SELECT {inner} FROM {_EVENTS} WHERE {where}criado_em IS NOT NULL "
                "ORDER BY criado_em, seq LIMIT %s"
            )
            walks.append(
                f"SELECT {inner} FROM {_EVENTS} WHERE {where}criado_em IS NULL "
                "ORDER BY seq LIMIT %s"
            )
        else:
            walks.append(
                f"SELECT {inner} FROM {_EVENTS} WHERE {condition} ORDER BY criado_em, seq LIMIT %s"
            )
    if count == 1:
        return _Walk(walks[0], 1)
    merged = " UNION ALL ".join(f"SELECT * FROM ({w}) AS w{i}" for i, w in enumerate(walks))
    return _Walk(f"SELECT {columns} FROM ({merged}) AS w {_ORDER} LIMIT %s", len(walks))


# The events of each state, written out so that a partial index applies (PostgreSQL and
# SQLite): the claim index holds the pending and claimed events (those with an
# available_at), the state index the done and dead ones (those without), each state in claim
# order. Each condition states its index's own, as SQLite uses a partial index only for a
# query that does (and a state IN (...) there would be read as several ranges, then sorted).
_OF_STATE = {
    EventState.PENDING: "available_at IS NOT NULL AND state = 'pending'",
    EventState.CLAIMED: "available_at IS NOT NULL AND state = 'claimed'",
    EventState.DONE: "available_at IS NULL AND state = 'done'",
    EventState.DEAD: "available_at IS NULL AND state = 'dead'",
}
# Every state: the first events of the claim index and of each state of the state index.
_OF_ANY = ("available_at IS NOT NULL", _OF_STATE[EventState.DONE], _OF_STATE[EventState.DEAD])
# MySQL/MariaDB: the indexes are whole (no conditions there). The claim index is then every
# event in claim order (list() of any state walks it); the state index starts with the state,
# so that each state's events are a range of it in claim order.
_MYSQL_OF_STATE = {state: f"state = '{state.value}'" for state in EventState}


def _lists(
    any_state: Sequence[str], of_state: Mapping[EventState, str], *, nulls_first: bool
) -> dict[EventState | None, _Walk]:
    """The reads of ``list()``: every state's, and each state's."""
    walks: dict[EventState | None, _Walk] = {
        None: _walk(_COLUMNS, any_state, nulls_first=nulls_first)
    }
    for state, condition in of_state.items():
        walks[state] = _walk(_COLUMNS, [condition], nulls_first=nulls_first)
    return walks


_LIST = {
    "postgresql": _lists(_OF_ANY, _OF_STATE, nulls_first=False),
    "sqlite": _lists(_OF_ANY, _OF_STATE, nulls_first=True),
    "mysql": _lists([""], _MYSQL_OF_STATE, nulls_first=True),
}
_HASH = f"SELECT body_hash FROM {_EVENTS} WHERE event_id = %s"
# MySQL/MariaDB: a locking read, which sees the latest committed row at any isolation level.
_HASH_LOCKING = _HASH + " LOCK IN SHARE MODE"
_INSERT = (
    f"INSERT INTO {_EVENTS} (event_id, tipo, criado_em, raw, body_hash, state, attempts, "
    "received_at, available_at, referencia) VALUES (%s, %s, %s, %s, %s, 'pending', 0, %s, %s, %s)"
)
# PostgreSQL, one event: the insert, the sale's event count and the NOTIFY in one statement
# (data-modifying CTEs run whether or not the query reads them): one round trip, no BEGIN.
_PG_PUT_ONE = (
    f"WITH ins AS ({_INSERT} ON CONFLICT (event_id) DO NOTHING RETURNING referencia), "
    f"counted AS (UPDATE {_OPERATIONS} SET events = events + 1 "
    "WHERE referencia = (SELECT referencia FROM ins) AND sale IS NOT NULL) "
    "SELECT pg_notify(%s, %s) FROM ins"
)
# The events a claim may take now (pending, or claimed with an expired lease), in claim order
# (the claim index). PostgreSQL locks the ones it reads and skips those another claim holds.
_CLAIMABLE_COLUMNS = "seq, event_id, tipo, raw, state, attempts"
_CLAIMABLE_CONDITION = "available_at IS NOT NULL AND available_at <= %s"
_CLAIMABLE = {
    "postgresql": _walk(_CLAIMABLE_COLUMNS, [_CLAIMABLE_CONDITION], nulls_first=False),
    "sqlite": _walk(_CLAIMABLE_COLUMNS, [_CLAIMABLE_CONDITION], nulls_first=True),
}
_SKIP_LOCKED = " FOR UPDATE SKIP LOCKED"
# MySQL/MariaDB: InnoDB locks every row a locking read scans, before ORDER BY ... LIMIT sorts
# and cuts them: the statement above FOR UPDATE would lock every claimable event. A claim
# there reads the candidates' seqs without locks (the pending and the claimed events, each a
# range of the state index), then locks those by primary key, skipping the ones another claim
# holds and re-checking (on the latest committed row) that each is still claimable.
_CANDIDATES = _walk(
    "seq",
    [
        f"{_MYSQL_OF_STATE[s]} AND available_at <= %s"
        for s in (EventState.PENDING, EventState.CLAIMED)
    ],
    nulls_first=True,
)
_LOCK_CANDIDATES = (
    f"SELECT seq, event_id, tipo, raw, state, attempts FROM {_EVENTS} "
    "WHERE seq IN ({}) AND available_at <= %s FOR UPDATE SKIP LOCKED"
)
# Candidates read per claimed event wanted, beyond it (some may be held by other claims).
_SPARE_CANDIDATES = 16
# One statement claims a whole batch, each row with its own token: CASE seq WHEN ... END.
_CLAIM = (
    f"UPDATE {_EVENTS} SET state = 'claimed', attempts = attempts + 1, owner = %s, "
    "token = CASE seq {cases} END, lease_expires_at = %s, available_at = %s WHERE seq IN ({seqs})"
)
_EXPIRED_TO_DEAD = (
    f"UPDATE {_EVENTS} SET state = 'dead', available_at = NULL, owner = NULL, token = NULL, "
    "lease_expires_at = NULL, last_error = %s WHERE seq = %s"
)
# The statements that need a live lease end with the same condition: (event_id, token, now).
_HELD = " WHERE event_id = %s AND token = %s AND lease_expires_at > %s"
_ACK_SET = (
    f"UPDATE {_EVENTS} SET state = 'done', done_at = %s, available_at = NULL, owner = NULL, "
    "token = NULL, lease_expires_at = NULL"
)
_ACK = _ACK_SET + _HELD
# Inside a handler's transaction: the token alone (nobody claimed the event since).
_ACK_IN_TRANSACTION = _ACK_SET + " WHERE event_id = %s AND token = %s"
# Several claims of distinct events in one statement, each row's own token checked (the
# CASE), a live lease unless in a handler's transaction: the acked events are named by
# RETURNING (PostgreSQL, SQLite).
_HELD_MANY = " WHERE event_id IN ({ids}) AND token = CASE event_id {cases} END"
_LIVE = " AND lease_expires_at > %s"
_RETURNING = " RETURNING event_id"
# MySQL/MariaDB have no UPDATE ... RETURNING: a locking read of the held ones (the latest
# committed rows, locked until the commit), then one update of those.
_HELD_LOCKING = f"SELECT event_id FROM {_EVENTS}"
_ACK_LOCKED = _ACK_SET + " WHERE event_id IN ({ids})"
_NACK = (
    f"UPDATE {_EVENTS} SET state = CASE WHEN attempts >= %s THEN 'dead' ELSE 'pending' END, "
    "available_at = CASE WHEN attempts >= %s THEN NULL ELSE %s END, last_error = %s, "
    "owner = NULL, token = NULL, lease_expires_at = NULL" + _HELD
)
_RELEASE = (
    f"UPDATE {_EVENTS} SET state = 'pending', attempts = attempts - 1, available_at = %s, "
    "owner = NULL, token = NULL, lease_expires_at = NULL" + _HELD
)
_DEAD_LETTER = (
    f"UPDATE {_EVENTS} SET state = 'dead', available_at = NULL, last_error = %s, owner = NULL, "
    "token = NULL, lease_expires_at = NULL" + _HELD
)
_EXTEND = f"UPDATE {_EVENTS} SET lease_expires_at = %s, available_at = %s" + _HELD
_REQUEUE = (
    f"UPDATE {_EVENTS} SET state = 'pending', attempts = 0, available_at = %s, done_at = NULL, "
    "owner = NULL, token = NULL, lease_expires_at = NULL "
    "WHERE event_id = %s AND state IN ('dead', 'done')"
)
_PURGE = f"DELETE FROM {_EVENTS} WHERE state = 'done' AND done_at < %s"
# Whether a purge has any event to delete: when not, the journal's waiting entries are not
# settled first (see JournalBase._settle_waiting).
# Ordered by done_at: the oldest done event of the done index, never a scan for one.
_PURGE_DUE = (
    f"SELECT 1 FROM {_EVENTS} WHERE state = 'done' AND done_at < %s ORDER BY done_at LIMIT 1"
)

# The attempts that may need a human (the models' smartpos_operation_attention index).
CANDIDATE: Final = (
    "sale IS NOT NULL AND kind = 'payment' AND (state IN ('sending', 'accepted', 'unknown') "
    "OR events >= 2 OR (events >= 1 AND (abandoned IS NOT NULL OR state = 'rejected')))"
)
_J_COLUMNS = (
    "SELECT referencia, kind, state, method, path, body, created_at, updated_at, seq, answer, "
    f"final_event, sale, pending_after, abandoned FROM {_OPERATIONS} "
)
_J_GET = _J_COLUMNS + "WHERE referencia = %s"
_J_INSERT = (
    f"INSERT INTO {_OPERATIONS} (referencia, kind, state, method, path, body, created_at, "
    "updated_at, sale, pending_after, events) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, 0)"
)
_J_UPDATE = (
    f"UPDATE {_OPERATIONS} SET state = %s, updated_at = %s, "
    "answer = coalesce(%s, answer) WHERE referencia = %s AND state IN ({})"
)
_J_FINALIZE = (
    f"UPDATE {_OPERATIONS} SET state = 'final', final_event = %s, updated_at = %s "
    "WHERE referencia = %s AND state <> 'final'"
)
_J_LIST = {
    True: _J_COLUMNS + "WHERE state IN ('sending', 'accepted', 'unknown') AND seq > %s "
    "ORDER BY seq LIMIT %s",
    False: _J_COLUMNS + "WHERE seq > %s ORDER BY seq LIMIT %s",
}
_J_EVENTS = f"SELECT raw FROM {_EVENTS} WHERE referencia = %s ORDER BY seq"
_J_PURGE = (
    f"DELETE FROM {_OPERATIONS} WHERE state IN ('final', 'rejected') AND updated_at < %s "
    "AND sale IS NULL"
)
_J_COUNT_EVENT = (
    f"UPDATE {_OPERATIONS} SET events = events + 1 WHERE referencia = %s AND sale IS NOT NULL"
)
_J_EVENTS_SO_FAR = (
    f"UPDATE {_OPERATIONS} SET events = (SELECT count(*) FROM {_EVENTS} "
    "WHERE referencia = %s) WHERE referencia = %s"
)
_J_ABANDON = (
    f"UPDATE {_OPERATIONS} SET abandoned = %s, updated_at = %s "
    "WHERE referencia = %s AND abandoned IS NULL"
)
_S_COLUMNS = f"SELECT sale_id, total_centavos, version, created_at, updated_at, seq FROM {_SALES} "
_S_GET = _S_COLUMNS + "WHERE sale_id = %s"
_S_LIST = _S_COLUMNS + "WHERE seq > %s ORDER BY seq LIMIT %s"
# No LIMIT inside the subquery: MariaDB and MySQL refuse ``IN (SELECT ... LIMIT)``.
_S_CANDIDATES = (
    _S_COLUMNS + f"WHERE sale_id IN (SELECT sale FROM {_OPERATIONS} WHERE {CANDIDATE}) "
    "AND seq > %s ORDER BY seq LIMIT %s"
)
_S_ENTRIES = _J_COLUMNS + "WHERE sale = %s ORDER BY seq"
# The batched reads (see smartpos.webhooks._journal): one statement per _IN_BATCH keys.
_IN_BATCH = 500
_J_EVENTS_MANY = f"SELECT referencia, raw FROM {_EVENTS} WHERE referencia IN ({{}}) ORDER BY seq"
_S_ENTRIES_MANY = _J_COLUMNS + "WHERE sale IN ({}) ORDER BY seq"
_S_CREATE = (
    f"INSERT INTO {_SALES} (sale_id, total_centavos, version, created_at, updated_at) "
    "VALUES (%s, %s, 1, %s, %s)"
)
_S_BUMP = (
    f"UPDATE {_SALES} SET version = version + 1, updated_at = %s "
    "WHERE sale_id = %s AND version = %s"
)
_T_GET = f"SELECT referencia, hold_until FROM {_HOLDS} WHERE smartpos_id = %s"
_T_CREATE = f"INSERT INTO {_HOLDS} (smartpos_id, referencia, hold_until) VALUES (%s, %s, %s)"
_E_INSERT = (
    f"INSERT INTO {_EFFECTS} (effect_key, sale, kind, referencia, event_id, applied_at) "
    "VALUES (%s, %s, %s, %s, %s, %s)"
)
# Insert-if-absent: each insert above ends with its table's ON CONFLICT clause, except on
# MySQL/MariaDB (see DjangoStore._insert_if_absent).
_ON_CONFLICT = {
    _INSERT: " ON CONFLICT (event_id) DO NOTHING",
    _J_INSERT: " ON CONFLICT (referencia) DO NOTHING",
    _S_CREATE: " ON CONFLICT (sale_id) DO NOTHING",
    _T_CREATE: " ON CONFLICT (smartpos_id) DO NOTHING",
    _E_INSERT: " ON CONFLICT (effect_key) DO NOTHING",
}
# MySQL's error numbers of a duplicate key (ER_DUP_ENTRY) and a deadlock (ER_LOCK_DEADLOCK).
_DUPLICATE_KEY = 1062
_DEADLOCK = 1213
# Tries of a batch of puts aborted by deadlocks (see DjangoStore._insert), and of an event
# purged between its insert and the read of its hash (DjangoStore._pg_put_one).
_INSERT_ATTEMPTS = 3
# The oldest servers with FOR UPDATE SKIP LOCKED.
_MARIADB_MINIMUM = (10, 6)
_MYSQL_MINIMUM = (8, 0, 1)
_T_TAKE = (
    f"UPDATE {_HOLDS} SET referencia = %s, hold_until = %s "
    "WHERE smartpos_id = %s AND referencia = %s"
)
# PostgreSQL: one NOTIFY per stored event (in _PG_PUT_ONE) and per journal write (an entry
# inserted, its state, outcome or abandon changed), delivered at commit, carrying the referencia.
_NOTIFY = "SELECT pg_notify(%s, %s)"
# pg_notify's payload must stay under 8000 bytes; a longer referencia wakes every waiter.
_MAX_PAYLOAD = 1000


def _insert_row(item: _Encoded, now: float, referencia: str | None) -> tuple[Any, ...]:
    """The parameters of ``_INSERT`` (and the first ones of ``_PG_PUT_ONE``) for one event."""
    return (
        item.id,
        item.tipo,
        item.criado_em,
        item.raw_json,
        item.body_hash,
        now,
        now,
        referencia,
    )


class _Conflict(Exception):
    """Roll the sale's transaction back: another process changed the sale or the terminal."""


def _linkable(referencia: str | None, limit: int | None) -> str | None:
    # PostgreSQL's text cannot hold NUL, MySQL's id columns more than MYSQL_ID_CHARS
    # characters: such a referencia (no client sends one) is not linked.
    if referencia is None or "\x00" in referencia:
        return None
    return None if limit is not None and len(referencia) > limit else referencia


def _journal_entry(row: Sequence[Any]) -> JournalEntry:
    return journal_entry(row, timestamp=float, final_event=json.loads)


class DjangoStore(StoreBase):
    """The webhook inbox, outcome journal and sales on a database of ``DATABASES``.

    Its tables are the models of the ``smartpos.integrations.django`` app: run
    ``python manage.py migrate`` first. With it, ``webhooks.Worker`` runs each handler and the
    ack of its event in one ``transaction.atomic(using=...)``: the handler's writes through
    the same alias and "event consumed" commit together or not at all. ``AsyncWorker`` refuses
    it (Django has no asynchronous transactions).

    Safe for several threads, processes and hosts sharing the database (PostgreSQL, MariaDB
    10.6+ or MySQL 8 with InnoDB, or an SQLite file on one host). Each thread uses its own
    Django connection; a thread other than the main one that had none closes the one it
    opened after each call, unless the alias's ``CONN_MAX_AGE`` is not 0 (persistent
    connections, as Django keeps them): set it for a receiver under an ASGI server, whose
    threads then reuse their connections (about twice the throughput of reconnecting, in
    ``benchmarks/bench_django_store.py``).

    On MySQL/MariaDB the first call raises ``ConfigurationError`` when the server has no
    ``SKIP LOCKED`` (MariaDB before 10.6, MySQL before 8.0.1) or the connection's character
    set is not ``utf8mb4``; ids, referencias, sale ids and terminal ids hold at most 512
    characters there (a longer referencia of an event is stored but linked to nothing; one
    to journal is refused with ``StoreError``, nothing written).

    Args:
        using: The database alias (a key of ``settings.DATABASES``).
        check_interval: Seconds between the checks that wake ``wait()`` callers on a database
            without a change feed (PostgreSQL's ``LISTEN/NOTIFY`` is used when it is one).
        max_attempts: Claims after which a failing event goes to the dead state.
        retention: How long ``purge()`` keeps done events by default.
        clock: Returns the current time in epoch seconds.

    Raises:
        ConfigurationError: ``using`` is not a database alias of ``DATABASES``, or an option
            is out of range.
    """

    def __init__(
        self,
        using: str = "default",
        *,
        check_interval: float = CHECK_INTERVAL,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        retention: _dt.timedelta = DEFAULT_RETENTION,
        clock: Callable[[], float] = time.time,
    ) -> None:
        from django.db import connections

        super().__init__(max_attempts=max_attempts, retention=retention, clock=clock)
        if not isinstance(using, str) or using not in connections.settings:
            raise ConfigurationError(
                message(
                    "django.store_alias",
                    alias=using,
                    aliases=", ".join(sorted(connections.settings)),
                )
            )
        self._using = using
        self._check_interval = self._check_seconds_option("check_interval", check_interval)
        self._local = threading.local()
        self._server_checked = False
        self._other_aliases = OtherAliases(using)

    @staticmethod
    def _check_seconds_option(name: str, value: float) -> float:
        from smartpos.webhooks._seconds import check_seconds

        return check_seconds(name, value, positive=True, option=True)

    def __repr__(self) -> str:
        return f"DjangoStore(using={self._using!r})"

    @property
    def using(self) -> str:
        """The database alias."""
        return self._using

    # Connections and transactions.

    def _connection(self) -> BaseDatabaseWrapper:
        from django.db import connections

        return connections[self._using]

    @contextlib.contextmanager
    def _cursor(self) -> Iterator[Any]:
        """A cursor of this thread's connection; database errors become ``StoreError``."""
        from django.db import Error

        self._check_open()
        conn = self._connection()
        # A thread that is not the main one and had no connection closes the one it opens
        # (a heartbeat or listener thread would otherwise leave one behind when it ends),
        # unless the alias asks for persistent connections (CONN_MAX_AGE not 0), as Django
        # keeps them: a receiver's or server's long-lived threads then reuse theirs.
        opened_here = (
            conn.connection is None
            and threading.current_thread() is not threading.main_thread()
            and conn.settings_dict.get("CONN_MAX_AGE", 0) == 0
        )
        try:
            with conn.cursor() as cursor:
                if not self._server_checked:
                    self._check_server(conn, cursor)
                yield cursor
        except Error as exc:
            raise StoreError(
                f"DjangoStore (database {self._using!r}) failed: {type(exc).__name__}: {exc}"
            ) from exc
        finally:
            if opened_here and not conn.in_atomic_block:
                conn.close()

    def _check_server(self, conn: BaseDatabaseWrapper, cursor: Any) -> None:
        """Once per store, on MySQL/MariaDB: a server with ``SKIP LOCKED``, ``utf8mb4`` text."""
        if conn.vendor == "mysql":
            mariadb = bool(getattr(conn, "mysql_is_mariadb", False))
            version = tuple(getattr(conn, "mysql_version", ()))
            minimum = _MARIADB_MINIMUM if mariadb else _MYSQL_MINIMUM
            if version < minimum:
                raise ConfigurationError(
                    message(
                        "django.store_mysql_version",
                        alias=self._using,
                        server="MariaDB" if mariadb else "MySQL",
                        version=".".join(map(str, version)),
                        minimum=".".join(map(str, minimum)),
                    )
                )
            cursor.execute("SELECT @@character_set_connection")
            charset = cursor.fetchone()[0]
            if charset != "utf8mb4":
                raise ConfigurationError(
                    message("django.store_mysql_charset", alias=self._using, charset=charset)
                )
        self._server_checked = True

    def _id_limit(self) -> int | None:
        """The characters an id column holds on this database (``None``: no limit)."""
        return MYSQL_ID_CHARS if self._connection().vendor == "mysql" else None

    def _check_ids(self, **ids: str | None) -> None:
        """Refuse, before writing, an id longer than this database's id columns hold."""
        limit = self._id_limit()
        if limit is None:
            return
        for name, value in ids.items():
            if value is not None and len(value) > limit:
                raise StoreError(
                    message(
                        "django.store_id_too_long",
                        alias=self._using,
                        name=name,
                        length=len(value),
                        limit=limit,
                    ),
                    applied=False,
                )

    def _insert_if_absent(self, cursor: Any, statement: str, params: Sequence[Any]) -> bool:
        """Insert one row unless its key is taken: ``True`` when it was inserted.

        PostgreSQL and SQLite: ``ON CONFLICT DO NOTHING``. MySQL/MariaDB have none; there a
        plain ``INSERT`` whose duplicate-key error (ER_DUP_ENTRY, that one only) means "taken".
        InnoDB undoes only the failed statement, the transaction goes on, and the key's check
        waits for a concurrent inserter of the same key to commit or roll back. Not ``INSERT
        IGNORE``: it turns every error of the row into a warning (a value too long truncated, a
        NULL made a default) and would store what was not asked. Not ``ON DUPLICATE KEY UPDATE``
        either: with ``CLIENT.FOUND_ROWS``, which Django's backend sets, a row left unchanged
        counts 1 like an inserted one.
        """
        if self._connection().vendor != "mysql":
            cursor.execute(statement + _ON_CONFLICT[statement], params)
            return bool(cursor.rowcount == 1)
        from django.db import IntegrityError

        try:
            cursor.execute(statement, params)
        except IntegrityError as exc:
            if exc.args and exc.args[0] == _DUPLICATE_KEY:
                return False
            raise
        return True

    @contextlib.contextmanager
    def _write(self) -> Iterator[Any]:
        """Run the block in one transaction (a savepoint inside the caller's), write-locked."""
        from django.db import transaction

        with self._cursor() as cursor, transaction.atomic(using=self._using):
            conn = self._connection()
            if conn.vendor == "sqlite":
                cursor.execute(_TAKE_WRITE_LOCK)
            yield cursor

    @contextlib.contextmanager
    def _one_or_many(self, statements: int) -> Iterator[Any]:
        """A cursor for ``statements`` conditional updates, each atomic by itself.

        One statement outside any transaction runs in autocommit (one round trip, where
        ``_write`` would add a ``BEGIN`` and a ``COMMIT``); several, or any inside the
        caller's transaction, run in ``_write``.
        """
        if statements == 1 and not self._connection().in_atomic_block:
            with self._cursor() as cursor:
                yield cursor
        else:
            with self._write() as cursor:
                yield cursor

    @contextlib.contextmanager
    def _handler_transaction(self) -> Iterator[BaseDatabaseWrapper]:
        """The transaction a ``Worker`` runs a handler and its ack in (see ``_worker.py``).

        Database connections are checked (``close_old_connections``, as Django does around a
        request) before it opens and after it ends, never inside it.
        """
        from django.db import close_old_connections, transaction

        self._check_open()
        conn = self._connection()
        if not conn.in_atomic_block:
            close_old_connections()
        try:
            with transaction.atomic(using=self._using):
                if conn.vendor == "sqlite":
                    with self._cursor() as cursor:
                        cursor.execute(_TAKE_WRITE_LOCK)
                self._local.handler_transaction = True
                try:
                    with self._other_aliases.watching():  # writes elsewhere: warned
                        yield conn
                finally:
                    self._local.handler_transaction = False
        finally:
            if not conn.in_atomic_block:
                close_old_connections()

    def _record_effect(
        self, key: str, *, sale: str, kind: str, referencia: str, event_id: str
    ) -> bool:
        """Record an effect's key in the handler's transaction; ``False``: already recorded."""
        with self._write() as cursor:
            params = (key, sale, kind, referencia, event_id, self._now())
            return self._insert_if_absent(cursor, _E_INSERT, params)

    def close(self) -> None:
        """Mark the store closed; the connections are Django's, and stay open."""
        self._closed = True

    def _change_source(self) -> ChangeSource:
        from smartpos.webhooks._listener import PollingChanges, PostgresChanges

        conn = self._connection()
        if conn.vendor == "postgresql":
            try:
                import psycopg  # noqa: F401
            except ImportError:  # psycopg2: no LISTEN here, check at the interval
                return PollingChanges(self._check_interval)
            return PostgresChanges(self._listen_connection, self._channel())
        return PollingChanges(self._check_interval)

    def _channel(self) -> str:
        from smartpos.webhooks._listener import changes_channel

        return changes_channel(f"django:{_EVENTS}")

    def _listen_connection(self) -> Any:
        import psycopg

        settings = self._connection().settings_dict
        params = {
            "dbname": settings.get("NAME") or None,
            "user": settings.get("USER") or None,
            "password": settings.get("PASSWORD") or None,
            "host": settings.get("HOST") or None,
            "port": settings.get("PORT") or None,
        }
        return psycopg.connect(
            autocommit=True, **{k: v for k, v in params.items() if v is not None}
        )

    # The inbox.

    def _insert(self, batch: Sequence[_Encoded], timeout: float | None) -> list[str | None]:
        for attempt in range(_INSERT_ATTEMPTS):
            try:
                return self._insert_once(batch)
            except StoreError as exc:  # noqa: PERF203 - a retry, rare
                # Two batches holding some of the same new ids in other orders lock their
                # index entries in those orders (the batch order is the store order, kept on
                # purpose): the server aborted this one, whose insert is idempotent. Not
                # inside the caller's transaction, which the abort undid as a whole.
                if attempt + 1 == _INSERT_ATTEMPTS or not self._deadlocked(exc):
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _deadlocked(self, exc: StoreError) -> bool:
        """The store's own transaction was aborted by the server to break a deadlock."""
        conn = self._connection()
        if conn.in_atomic_block:
            return False
        cause = exc.__cause__
        if conn.vendor == "mysql":
            return bool(getattr(cause, "args", None)) and cause.args[0] == _DEADLOCK  # type: ignore[union-attr]
        inner = getattr(cause, "__cause__", None)
        return getattr(inner, "sqlstate", getattr(inner, "pgcode", None)) == "40P01"

    def _insert_once(self, batch: Sequence[_Encoded]) -> list[str | None]:
        kept: list[str | None] = []
        conn = self._connection()
        vendor = conn.vendor
        if vendor == "postgresql":
            if len(batch) == 1 and not conn.in_atomic_block:
                return [self._pg_put_one(batch[0])]
            with self._write() as cursor:
                return [self._pg_put_one(item, cursor) for item in batch]
        limit = self._id_limit()
        existing = _HASH_LOCKING if vendor == "mysql" else _HASH
        with self._write() as cursor:
            now = self._now()
            for item in batch:
                referencia = _linkable(item.referencia, limit)
                inserted = self._insert_if_absent(
                    cursor, _INSERT, _insert_row(item, now, referencia)
                )
                if inserted:
                    if referencia is not None:
                        cursor.execute(_J_COUNT_EVENT, (referencia,))
                    kept.append(None)
                else:
                    cursor.execute(existing, (item.id,))
                    kept.append(cursor.fetchone()[0])
        return kept

    def _pg_put_one(self, item: _Encoded, in_transaction: Any = None) -> str | None:
        """PostgreSQL: one event in one statement (``_PG_PUT_ONE``).

        Outside any transaction (autocommit) unless given the cursor of one (a batch's). An
        event present at the insert and purged before its hash is read is stored again, up to
        ``_INSERT_ATTEMPTS`` times in all; then ``StoreError``.
        """
        referencia = _linkable(item.referencia, self._id_limit())
        payload = referencia or ""
        if len(payload) > _MAX_PAYLOAD:
            payload = ""
        for _ in range(_INSERT_ATTEMPTS):
            now = self._now()
            with contextlib.ExitStack() as stack:
                cursor = in_transaction or stack.enter_context(self._cursor())
                cursor.execute(
                    _PG_PUT_ONE, (*_insert_row(item, now, referencia), self._channel(), payload)
                )
                if cursor.rowcount == 1:
                    return None
                cursor.execute(_HASH, (item.id,))
                row = cursor.fetchone()
            if row is not None:
                return str(row[0])
            # Purged between the insert and the read: store it again.
        raise StoreError(
            message("django.store_put_vanished", alias=self._using, attempts=_INSERT_ATTEMPTS),
            applied=False,
        )

    def claim(self, *, owner: str, lease: float, limit: int = 1) -> list[Claim]:
        self._check_claim(owner, lease, limit)
        claims: list[Claim] = []
        died: list[tuple[str, str, int]] = []
        vendor = self._connection().vendor
        walk = _CLAIMABLE.get(vendor, _CLAIMABLE["sqlite"])
        statement = walk.sql + (_SKIP_LOCKED if vendor == "postgresql" else "")
        with self._write() as cursor:
            now = self._now()
            expires = now + lease
            expires_at = _utc(expires)
            while len(claims) < limit:
                wanted = limit - len(claims)
                if vendor == "mysql":
                    rows = self._lock_candidates(cursor, now, wanted)
                else:
                    cursor.execute(statement, walk.params((now,), wanted))
                    rows = cursor.fetchall()
                exhausted: list[tuple[str, int]] = []
                taken: list[tuple[int, str]] = []
                for seq, event_id, tipo, raw, state, attempts in rows:
                    expired_error = self._expired_on_last_attempt(state, attempts)
                    if expired_error is not None:
                        exhausted.append((expired_error, seq))
                        died.append((event_id, tipo, attempts))
                        continue
                    token = self._new_token()
                    taken.append((seq, token))
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
                if taken:
                    statement_ = _CLAIM.format(
                        cases=" ".join(["WHEN %s THEN %s"] * len(taken)),
                        seqs=", ".join(["%s"] * len(taken)),
                    )
                    cursor.execute(
                        statement_,
                        (
                            owner,
                            *(value for pair in taken for value in pair),
                            expires,
                            expires,
                            *(seq for seq, _ in taken),
                        ),
                    )
                for params in exhausted:
                    cursor.execute(_EXPIRED_TO_DEAD, params)
                if not exhausted or len(rows) < wanted:
                    break
        for event_id, tipo, attempts in died:  # once committed
            self._log_expired_to_dead(event_id, tipo, attempts)
        return claims

    @staticmethod
    def _lock_candidates(cursor: Any, now: float, wanted: int) -> list[Any]:
        """MySQL/MariaDB: lock up to ``wanted`` claimable events, in claim order (_CANDIDATES)."""
        read = wanted + min(wanted, _SPARE_CANDIDATES)
        cursor.execute(_CANDIDATES.sql, _CANDIDATES.params((now,), read))
        seqs = [seq for (seq,) in cursor.fetchall()]
        if not seqs:
            return []
        cursor.execute(_LOCK_CANDIDATES.format(", ".join(["%s"] * len(seqs))), (*seqs, now))
        order = {seq: i for i, seq in enumerate(seqs)}
        return sorted(cursor.fetchall(), key=lambda row: order[row[0]])[:wanted]

    def ack(self, claim: Claim) -> bool:
        return self.ack_many([claim])[0]

    def ack_many(self, claims: Sequence[Claim]) -> list[bool]:
        if not claims:
            return []
        in_handler = getattr(self._local, "handler_transaction", False)
        if len(claims) == 1 or len({c.event_id for c in claims}) < len(claims):
            # One claim, or two of one event (at most one holds it: each answered in order).
            with self._one_or_many(len(claims)) as cursor:
                now = self._now()
                results = []
                for c in claims:
                    if in_handler:
                        cursor.execute(_ACK_IN_TRANSACTION, (now, c.event_id, c.token))
                    else:
                        cursor.execute(_ACK, (now, c.event_id, c.token, now))
                    results.append(cursor.rowcount == 1)
                return results
        batches = [claims[i : i + _IN_BATCH] for i in range(0, len(claims), _IN_BATCH)]
        mysql = self._connection().vendor == "mysql"
        acked: set[str] = set()
        with self._one_or_many(2 if mysql else len(batches)) as cursor:
            now = self._now()
            for batch in batches:
                held = _HELD_MANY.format(
                    ids=", ".join(["%s"] * len(batch)),
                    cases=" ".join(["WHEN %s THEN %s"] * len(batch)),
                ) + ("" if in_handler else _LIVE)
                params = (
                    *(c.event_id for c in batch),
                    *(value for c in batch for value in (c.event_id, c.token)),
                    *(() if in_handler else (now,)),
                )
                if not mysql:
                    cursor.execute(_ACK_SET + held + _RETURNING, (now, *params))
                    acked.update(event_id for (event_id,) in cursor.fetchall())
                    continue
                cursor.execute(_HELD_LOCKING + held + " FOR UPDATE", params)
                locked = [event_id for (event_id,) in cursor.fetchall()]
                if locked:
                    statement = _ACK_LOCKED.format(ids=", ".join(["%s"] * len(locked)))
                    cursor.execute(statement, (now, *locked))
                    acked.update(locked)
        return [c.event_id in acked for c in claims]

    def _held(self, statement: str, params: tuple[Any, ...], claim: Claim) -> bool:
        with self._one_or_many(1) as cursor:
            cursor.execute(statement, (*params, claim.event_id, claim.token, self._now()))
            return bool(cursor.rowcount == 1)

    def nack(self, claim: Claim, *, error: str, retry_in: float) -> bool:
        self._check_seconds("retry_in", retry_in, positive=False)
        maximum = self._max_attempts
        return self._held(_NACK, (maximum, maximum, self._now() + retry_in, error), claim)

    def dead_letter(self, claim: Claim, *, error: str) -> bool:
        return self._held(_DEAD_LETTER, (error,), claim)

    def release(self, claim: Claim) -> bool:
        return self._held(_RELEASE, (self._now(),), claim)

    def extend(self, claim: Claim, *, lease: float) -> bool:
        self._check_seconds("lease", lease, positive=True)
        expires = self._now() + lease
        return self._held(_EXTEND, (expires, expires), claim)

    def get(self, event_id: str) -> StoredEvent | None:
        with self._cursor() as cursor:
            cursor.execute(_GET, (event_id,))
            row = cursor.fetchone()
        return None if row is None else _stored_event(row)

    def _list(self, state: EventState | None, limit: int) -> list[StoredEvent]:
        walk = _LIST.get(self._connection().vendor, _LIST["sqlite"])[state]
        with self._cursor() as cursor:
            cursor.execute(walk.sql, walk.params((), limit))
            rows = cursor.fetchall()
        return [_stored_event(row) for row in rows]

    def requeue(self, event_id: str) -> bool:
        with self._write() as cursor:
            cursor.execute(_REQUEUE, (self._now(), event_id))
            return bool(cursor.rowcount == 1)

    def purge(self, *, done_before: _dt.datetime | None = None) -> int:
        cutoff = self._purge_cutoff(done_before)
        with self._cursor() as cursor:
            cursor.execute(_PURGE_DUE, (cutoff,))
            due = cursor.fetchone() is not None
        if due:
            self._settle_waiting()
        with self._write() as cursor:
            events = 0
            if due:  # not due when checked: none is deleted now (one done since was not settled)
                cursor.execute(_PURGE, (cutoff,))
                events = int(cursor.rowcount)
            cursor.execute(_J_PURGE, (cutoff,))
            return events + int(cursor.rowcount)

    # The outcome journal's primitives (see smartpos/webhooks/_journal.py).

    def _fetch_entries(self, statement: str, params: tuple[Any, ...]) -> list[JournalEntry]:
        with self._cursor() as cursor:
            cursor.execute(statement, params)
            rows = cursor.fetchall()
        return [_journal_entry(row) for row in rows]

    def _announce(self, cursor: Any, referencia: str) -> None:
        """PostgreSQL: NOTIFY the change listeners of a journal write of ``referencia``, in the
        write's transaction (delivered at its commit). Other databases are polled."""
        if self._connection().vendor != "postgresql":
            return
        payload = "" if len(referencia) > _MAX_PAYLOAD else referencia
        cursor.execute(_NOTIFY, (self._channel(), payload))

    def _journal_get(self, referencia: str) -> JournalEntry | None:
        if _linkable(referencia, self._id_limit()) is None:
            return None  # never journaled: the database cannot hold it (_linkable)
        found = self._fetch_entries(_J_GET, (referencia,))
        return found[0] if found else None

    def _journal_insert(self, entry: JournalEntry) -> JournalEntry | None:
        params = (*journal_row(entry, timestamp=float), entry.sale, entry.pending_after)
        self._check_ids(referencia=entry.referencia, sale=entry.sale)
        with self._write() as cursor:
            if self._insert_if_absent(cursor, _J_INSERT, params):
                if entry.sale is not None:
                    cursor.execute(_J_EVENTS_SO_FAR, (entry.referencia, entry.referencia))
                self._announce(cursor, entry.referencia)
                return None
        existing = self._journal_get(entry.referencia)
        if existing is None:  # purged meanwhile: never, an entry being sent is not purged
            raise StoreError(f"journal entry {entry.referencia!r} vanished", applied=False)
        return existing

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
        statement = _J_UPDATE.format(", ".join(["%s"] * len(allowed_from)))
        answer_json = None if answer is None else answer.to_json()
        with self._write() as cursor:
            cursor.execute(statement, (state, now, answer_json, referencia, *sorted(allowed_from)))
            written = bool(cursor.rowcount == 1)
            if written:
                self._announce(cursor, referencia)
            return written

    def _journal_finalize(self, referencia: str, event: Mapping[str, Any], now: float) -> bool:
        with self._write() as cursor:
            cursor.execute(_J_FINALIZE, (canonical_json(event), now, referencia))
            written = bool(cursor.rowcount == 1)
            if written:
                self._announce(cursor, referencia)
            return written

    def _journal_list(self, *, waiting: bool, after: int, limit: int) -> list[JournalEntry]:
        return self._fetch_entries(_J_LIST[waiting], (after, limit))

    def _journal_events(self, referencia: str) -> list[Mapping[str, Any]]:
        if _linkable(referencia, self._id_limit()) is None:
            return []
        with self._cursor() as cursor:
            cursor.execute(_J_EVENTS, (referencia,))
            rows = cursor.fetchall()
        return [json.loads(raw) for (raw,) in rows]

    def _read_in(self, statement: str, keys: Sequence[str]) -> list[Any]:
        """The rows of ``statement`` (its ``IN ({})`` filled) over ``keys``."""
        rows: list[Any] = []
        with self._cursor() as cursor:
            for start in range(0, len(keys), _IN_BATCH):
                chunk = keys[start : start + _IN_BATCH]
                cursor.execute(statement.format(", ".join(["%s"] * len(chunk))), chunk)
                rows += cursor.fetchall()
        return rows

    def _journal_events_many(
        self, referencias: Sequence[str]
    ) -> dict[str, list[Mapping[str, Any]]]:
        limit = self._id_limit()
        keys = list(dict.fromkeys(r for r in referencias if _linkable(r, limit) is not None))
        found: dict[str, list[Mapping[str, Any]]] = {}
        for referencia, raw in self._read_in(_J_EVENTS_MANY, keys):
            found.setdefault(referencia, []).append(json.loads(raw))
        return found

    def _sale_linked_many(self, sale_ids: Sequence[str]) -> dict[str, list[Linked]]:
        entries = [_journal_entry(row) for row in self._read_in(_S_ENTRIES_MANY, list(sale_ids))]
        events = self._journal_events_many([entry.referencia for entry in entries])
        found: dict[str, list[Linked]] = {}
        for entry in sorted(entries, key=lambda e: e.seq):
            assert entry.sale is not None  # read by its sale
            found.setdefault(entry.sale, []).append((entry, events.get(entry.referencia, [])))
        return found

    def _journal_purge(self, cutoff: float) -> int:
        with self._write() as cursor:
            cursor.execute(_J_PURGE, (cutoff,))
            return int(cursor.rowcount)

    # Sales: each attempt's compare-and-set in one transaction (see _journal.py).

    def _sale_rows(self, statement: str, params: tuple[Any, ...]) -> list[SaleRow]:
        with self._cursor() as cursor:
            cursor.execute(statement, params)
            rows = cursor.fetchall()
        return [SaleRow(*row) for row in rows]

    def _sale_get(self, sale_id: str) -> SaleRow | None:
        found = self._sale_rows(_S_GET, (sale_id,))
        return found[0] if found else None

    def _sale_entries(self, sale_id: str) -> list[JournalEntry]:
        return self._fetch_entries(_S_ENTRIES, (sale_id,))

    def _sale_list(self, *, after: int, limit: int) -> list[SaleRow]:
        return self._sale_rows(_S_LIST, (after, limit))

    def _sale_candidates(self, *, after: int, limit: int) -> list[SaleRow]:
        return self._sale_rows(_S_CANDIDATES, (after, limit))

    def _terminal_get(self, smartpos_id: str) -> tuple[str, float] | None:
        with self._cursor() as cursor:
            cursor.execute(_T_GET, (smartpos_id,))
            row = cursor.fetchone()
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
        existing = self._journal_get(entry.referencia)
        if existing is not None:
            return existing
        self._check_ids(referencia=entry.referencia, sale=entry.sale, terminal=terminal)
        try:
            # Always the same order (sale, terminal, journal): two attempts never deadlock.
            with self._write() as cursor:
                # An UPDATE's rowcount counts the rows it matched, on every database (on
                # MySQL/MariaDB Django's backend sets CLIENT.FOUND_ROWS); each of these
                # changes the row it matched.
                if expected_version is None:
                    changed = self._insert_if_absent(
                        cursor, _S_CREATE, (entry.sale, total_centavos, now, now)
                    )
                else:
                    cursor.execute(_S_BUMP, (now, entry.sale, expected_version))
                    changed = cursor.rowcount == 1
                if not changed:
                    raise _Conflict
                if terminal is not None:
                    if expected_holder is None:
                        changed = self._insert_if_absent(
                            cursor, _T_CREATE, (terminal, entry.referencia, hold_until)
                        )
                    else:
                        cursor.execute(
                            _T_TAKE, (entry.referencia, hold_until, terminal, expected_holder)
                        )
                        changed = cursor.rowcount == 1
                    if not changed:
                        raise _Conflict
                if not self._insert_if_absent(cursor, _J_INSERT, params):
                    raise _Conflict
                cursor.execute(_J_EVENTS_SO_FAR, (entry.referencia, entry.referencia))
                self._announce(cursor, entry.referencia)
        except _Conflict:
            # Rolled back; the referencia may have been journaled meanwhile: that entry wins.
            existing = self._journal_get(entry.referencia)
            return CONFLICT if existing is None else existing
        return None

    def _sale_abandon(self, referencia: str, abandon: Mapping[str, Any], now: float) -> bool:
        with self._write() as cursor:
            cursor.execute(_J_ABANDON, (canonical_json(abandon), now, referencia))
            written = bool(cursor.rowcount == 1)
            if written:
                self._announce(cursor, referencia)
            return written
