"""``RedisStore``: the inbox in Redis, for receivers and workers on several hosts.

Data model (every key starts with ``{prefix}:``; the braces are a Redis Cluster hash tag, so all
of a store's keys live in one slot and every Lua script can touch them atomically)::

    {P}:ev:<id>   hash    one event: body, body hash, state, attempts, token, lease, ...
    {P}:ready     zset    claimable now; score criado_em (+inf when absent), member
                          "<16-digit arrival seq>:<id>" so that ties keep arrival order
    {P}:timer     zset    becomes claimable later; score available_at (a claimed event's is
                          its lease expiry, so a dead worker's claim comes back by itself)
    {P}:dead      zset    dead events, in claim order (criado_em, then arrival)
    {P}:done      zset    done events by done_at, for purge(); their hashes also expire by TTL
    {P}:donerm    zset    done events in claim order, for list(): members and scores as
                          ``ready``'s; a member whose hash the TTL removed stays until a claim's
                          sweep (the claims that trim ``done`` of such events pay for it)
    {P}:donerm:cursor  string  where that sweep goes on (a ZSCAN cursor over ``donerm``)
    {P}:donerm:ok string  set once ``donerm`` holds every done event: by the store's first put,
                          or, for a store written before ``donerm`` existed, by the backfill
                          the first list() of done events runs (ZSCAN batches over ``done``)
    {P}:seq       string  arrival counter
    {P}:refs      zset    events by dados.referencia (the outcome journal's link), all scores 0,
                          member "<8-digit byte length of referencia>:<referencia>:<arrival
                          member>", so that one ZRANGEBYLEX gives a referencia's events in
                          arrival order (UTF-8 never holds byte 0xff, the range's end)
    {P}:op:<referencia>  hash  one journaled operation (see _journal.py); a sale's payment
                          attempt also counts the events stored with its referencia
    {P}:ops       zset    every journaled operation by its journal number
    {P}:ops:waiting zset  operations still waiting for an outcome, by journal number
    {P}:ops:ended zset    final and rejected operations by their last update, for purge()
    {P}:opseq     string  journal counter
    {P}:sale:<sale>      hash  one sale: total, version (each attempt's compare-and-set), times,
                          its sale number
    {P}:saleops:<sale>   zset  the sale's operations (attempts, compensation refunds) by
                          journal number
    {P}:sales     zset    every sale by its sale number
    {P}:salewatch zset    the sales the till's review reads (sales(attention=True), and
                          state="in_progress"), by sale number: those with an attempt still
                          waiting, with two events or more, or refused or abandoned with one
                          or more; kept exact by the scripts that change those (a quiet paid
                          sale leaves it when its approval is recorded)
    {P}:saleseq   string  sale counter
    {P}:terminal:<smartpos_id>  hash  the attempt that last held the terminal, and until when
    {P}:changes   channel (pub/sub) where the put script publishes each new event's referencia,
                          and every journal-writing script the referencia of the operation it
                          wrote (inserted, its state, outcome or abandon changed)

Every operation is one Lua script (``_redis_scripts.py``; registered once, run with EVALSHA), so
each is atomic on the server. ``claim`` first moves due members of ``timer`` into ``ready``, then
pops from ``ready``. Times (leases, retries, arrival, done, the default purge cutoff) come from the
server's clock, read with ``TIME`` inside the scripts, so that the hosts sharing a store need no
synchronised clocks: a worker whose clock is a minute off claims and expires leases like the
others. Given a ``clock`` (tests), the store passes that clock's time to the scripts instead. The
outcome journal's times, its sales' too, come from the host's clock (``_journal.py``),
whichever the store's.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import logging
import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

import redis
import redis.exceptions
from redis.backoff import NoBackoff
from redis.retry import Retry

from smartpos._errors import ConfigurationError
from smartpos._messages import message

from ._journal import CONFLICT, Linked
from ._outcomes import Answer, JournalEntry, State
from ._sales import SaleRow

if TYPE_CHECKING:
    from ._listener import ChangeSource
from ._redis_scripts import (
    _ACK,
    _CLAIM,
    _DEAD_LETTER,
    _DONE_FILL,
    _EXTEND,
    _J_BEGIN,
    _J_EVENTS_MANY,
    _J_FINALIZE,
    _J_FINALIZE_MANY,
    _J_LIST,
    _J_PURGE,
    _J_UPDATE,
    _LIST,
    _NACK,
    _PURGE,
    _PURGE_DUE,
    _PUT,
    _RELEASE,
    _REQUEUE,
    _S_ABANDON,
    _S_INSERT,
    _S_LINKED,
)
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
    _stored_event,
    _utc,
    canonical_json,
)

__all__ = ["RedisStore", "check_redis_settings"]

_logger = logging.getLogger("smartpos.webhooks")

# Due timers moved to ``ready`` per claim: bounds the time one script blocks the server.
_PROMOTE_MAX = 1000
# Done events kept past the retention before the server's TTL drops them, so that an explicit
# purge() normally runs first (and a store given its own clock, skewed, cannot race the TTL).
_TTL_GRACE_SECONDS = 3600
_PURGE_BATCH = 500
# Members of ``done`` that one step of ``donerm``'s backfill looks at (a ZSCAN COUNT: about).
_FILL_BATCH = 500
# Seconds a store-made client waits to connect or for an answer.
_TIMEOUT = 5.0
# Clients kept for per-call timeouts (one per distinct value, oldest closed first).
_MAX_TIMED_CLIENTS = 4


class _Script:
    """A Lua script run with EVALSHA, loaded (again) when the server answers NOSCRIPT.

    A thinner path than redis-py's ``Script``: the store's hot calls are a few microseconds
    of Python, so layers matter (see benchmarks/bench_stores_remote.py).
    """

    __slots__ = ("_client", "_execute", "_sha", "_text")

    def __init__(self, client: redis.Redis, text: str) -> None:
        self._client = client
        self._execute: Callable[..., Any] = client.execute_command
        self._text = text
        # Redis names scripts by their SHA-1; nothing here depends on its strength.
        self._sha = hashlib.sha1(text.encode("utf-8"), usedforsecurity=False).hexdigest()

    def __call__(self, keys: Sequence[str | bytes], args: Sequence[str | bytes]) -> Any:
        try:
            return self._execute("EVALSHA", self._sha, len(keys), *keys, *args)
        except redis.exceptions.NoScriptError:
            self._client.script_load(self._text)
            return self._execute("EVALSHA", self._sha, len(keys), *keys, *args)


# What each setting must be for the store's guarantees, and what happens otherwise.
_SETTINGS_ADVICE = {
    "appendonly": (
        ("yes",),
        "events acknowledged to the service (2xx) are lost when Redis restarts; "
        "set 'appendonly yes'",
    ),
    "appendfsync": (
        ("always", "everysec"),
        "the OS decides when the append-only file reaches the disk, so a crash of the host "
        "can lose many seconds of events; set 'appendfsync everysec' (at most about one "
        "second lost on a power cut) or 'always' (none)",
    ),
    "maxmemory-policy": (
        ("noeviction",),
        "Redis may evict pending events and dedup records when memory runs out; "
        "set 'maxmemory-policy noeviction' so that a full Redis refuses writes instead "
        "(the receiver then answers 503 and the service retries)",
    ),
}


#: Most keys one batched script handles: a call of any size stays a bounded stall of the
#: server (one script runs alone) and of the client's read timeout; 1,000 rows is one round trip.
_SCRIPT_BATCH: Final = 1000


def _chunks(items: Sequence[str]) -> list[Sequence[str]]:
    """``items`` in slices of at most `_SCRIPT_BATCH`."""
    return [items[i : i + _SCRIPT_BATCH] for i in range(0, len(items), _SCRIPT_BATCH)]


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _num(value: float) -> str:
    # repr() round-trips a float exactly; Lua and Redis parse it the same way.
    return repr(float(value))


def _store_error(exc: Exception) -> StoreError:
    # Never "surely not applied": redis-py retries a command after a connection error, so
    # even a refused connection may follow an earlier try whose script ran (a lost reply).
    return StoreError(f"Redis failed: {type(exc).__name__}: {exc}")


# Turns redis-py's errors into ``StoreError`` (a receiver answers 503 on it).
_translate = _translating(redis.exceptions.RedisError, _store_error)


def check_redis_settings(client: redis.Redis) -> list[str]:
    """Read the server settings the store's guarantees depend on and explain any that break them.

    Logs one WARNING on the ``smartpos.webhooks`` logger per problem, or one WARNING saying the
    settings could not be checked (``CONFIG`` is often disabled on managed Redis). An
    ``appendfsync everysec`` setting is logged at INFO: it loses at most about one second of
    events on a power cut of the Redis host, the usual trade-off.

    Args:
        client: A redis-py client.

    Returns:
        The names of the settings that break a guarantee (empty when all is well or unknown).
    """
    values: dict[str, str] = {}
    try:
        for name in _SETTINGS_ADVICE:
            got = client.config_get(name)
            if name in got:
                values[name] = _text(got[name]).lower()
    except redis.exceptions.RedisError as exc:
        _logger.warning(
            "RedisStore could not check the Redis settings its guarantees depend on "
            "(appendonly yes, appendfsync everysec or always, maxmemory-policy noeviction): "
            "%s: %s. Check them with your provider; pass check_settings=False to silence this.",
            type(exc).__name__,
            exc,
        )
        return []
    broken: list[str] = []
    for name, (good, consequence) in _SETTINGS_ADVICE.items():
        value = values.get(name)
        if value is None:
            continue
        if name == "appendfsync" and values.get("appendonly") != "yes":
            continue  # Meaningless without the append-only file, already reported.
        if value not in good:
            broken.append(name)
            _logger.warning("Redis setting %s is %r: %s.", name, value, consequence)
    if values.get("appendonly") == "yes" and values.get("appendfsync") == "everysec":
        _logger.info(
            "Redis appendfsync is 'everysec': a power cut of the Redis host can lose up to about "
            "one second of stored events; 'appendfsync always' loses none, at a cost per write."
        )
    return broken


class RedisStore(StoreBase):
    """An inbox in Redis: for receivers and workers spread over several hosts.

    Every operation is one atomic Lua script. All keys share the hash tag ``{prefix}``, so the
    store works on Redis Cluster (all its keys live in one slot, hence on one node). Done events
    expire by TTL ``retention`` (plus an hour's grace) after their ack; ``purge()`` deletes them
    earlier by the server's clock.

    Durability is the server's: run it with ``appendonly yes``, ``appendfsync everysec`` (or
    ``always``) and ``maxmemory-policy noeviction``. With ``check_settings`` (the default) the
    constructor reads these with ``CONFIG GET`` and logs a WARNING for each one that breaks a
    guarantee. Lease times come from the server's clock (``TIME``), so the hosts sharing the
    store need no synchronised clocks.

    Args:
        url_or_client: A ``redis://`` / ``rediss://`` / ``unix://`` URL (the store owns and closes
            that client; 5 s connect and read timeouts unless the URL sets
            ``socket_timeout``/``socket_connect_timeout``) or a redis-py ``Redis`` client (the
            caller keeps owning it).
        prefix: Start of every key; several stores can share one Redis with different prefixes.
            It may not contain braces.
        max_attempts: Claims after which a failing event goes to the dead state.
        retention: How long done events are remembered (dedup of late redeliveries).
        clock: ``None`` (the default): every time of the inbox (leases, retries, arrival,
            done, the default purge cutoff) is the server's. A function returning epoch seconds
            (tests with a fake clock): those times come from it instead, as for the other
            stores. The outcome journal always uses this host's clock.
        check_settings: Check the server's persistence and eviction settings now.

    Raises:
        ConfigurationError: An option is out of range or the prefix is unusable.
    """

    def __init__(
        self,
        url_or_client: str | redis.Redis,
        *,
        prefix: str = "smartpos",
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
        if not isinstance(prefix, str) or not prefix or "{" in prefix or "}" in prefix:
            raise ConfigurationError(message("webhooks.redis_prefix", value=prefix))
        if isinstance(url_or_client, str):
            # Without timeouts a hung server would block a receiver for good; the URL's own
            # socket_timeout / socket_connect_timeout options take precedence over these.
            self._client: redis.Redis = redis.Redis.from_url(
                url_or_client, socket_timeout=_TIMEOUT, socket_connect_timeout=_TIMEOUT
            )
            self._owns_client = True
        elif isinstance(url_or_client, redis.Redis):
            self._client = url_or_client
            self._owns_client = False
        else:
            raise ConfigurationError(
                message("webhooks.redis_target", type=type(url_or_client).__name__)
            )
        self._prefix = prefix
        base = "{" + prefix + "}:"
        self._ev = base + "ev:"
        self._ready = base + "ready"
        self._timer = base + "timer"
        self._dead = base + "dead"
        self._done = base + "done"
        self._donerm = base + "donerm"
        self._donerm_cursor = base + "donerm:cursor"
        self._donerm_ok = base + "donerm:ok"
        self._seq = base + "seq"
        self._refs = base + "refs"
        self._op = base + "op:"
        self._ops = base + "ops"
        self._ops_waiting = base + "ops:waiting"
        self._ops_ended = base + "ops:ended"
        self._opseq = base + "opseq"
        # Each family of per-id keys has its own prefix ("saleops:", not "sale:<id>:ops"): a
        # sale id may hold ':' and must never name another sale's key.
        self._sale = base + "sale:"
        self._saleops = base + "saleops:"
        self._sales = base + "sales"
        self._salewatch = base + "salewatch"
        self._saleseq = base + "saleseq"
        self._terminal = base + "terminal:"
        self._changes = base + "changes"
        # The scripts that keep the sales' watch derive its keys (sale:, saleops:, op:, refs,
        # ev:, salewatch) from this prefix; all share the hash tag.
        self._base = base
        self._ttl_seconds = math.ceil(self._retention.total_seconds()) + _TTL_GRACE_SECONDS
        self._ttl = str(self._ttl_seconds)
        # Keys used by every call, encoded once.
        self._put_keys = [
            self._ready.encode(),
            self._seq.encode(),
            self._refs.encode(),
            self._donerm_ok.encode(),
        ]
        self._claim_keys = [
            self._ready.encode(),
            self._timer.encode(),
            self._dead.encode(),
            self._done.encode(),
            self._donerm.encode(),
            self._donerm_cursor.encode(),
        ]
        self._ack_keys = [self._timer.encode(), self._done.encode(), self._donerm.encode()]
        self._list_keys = [self._ready, self._timer, self._dead, self._donerm, self._donerm_ok]
        self._put = _Script(self._client, _PUT)
        self._claim = _Script(self._client, _CLAIM)
        self._ack = _Script(self._client, _ACK)
        self._nack = _Script(self._client, _NACK)
        self._dead_letter = _Script(self._client, _DEAD_LETTER)
        self._extend = _Script(self._client, _EXTEND)
        self._release = _Script(self._client, _RELEASE)
        # Per-call timeouts: a client (and its pool) per timeout value, made on first use.
        self._timed: dict[float, tuple[redis.Redis, _Script]] = {}
        self._timed_lock = threading.Lock()
        self._requeue = _Script(self._client, _REQUEUE)
        self._purge = _Script(self._client, _PURGE)
        self._purge_due = _Script(self._client, _PURGE_DUE)
        self._list_script = _Script(self._client, _LIST)
        self._done_fill = _Script(self._client, _DONE_FILL)
        self._j_begin = _Script(self._client, _J_BEGIN)
        self._j_update = _Script(self._client, _J_UPDATE)
        self._j_finalize = _Script(self._client, _J_FINALIZE)
        self._j_list = _Script(self._client, _J_LIST)
        self._j_events_many = _Script(self._client, _J_EVENTS_MANY)
        self._j_finalize_many = _Script(self._client, _J_FINALIZE_MANY)
        self._s_linked = _Script(self._client, _S_LINKED)
        self._j_purge = _Script(self._client, _J_PURGE)
        self._s_insert = _Script(self._client, _S_INSERT)
        self._s_abandon = _Script(self._client, _S_ABANDON)
        if check_settings:
            check_redis_settings(self._client)

    def __repr__(self) -> str:
        return f"RedisStore(prefix={self._prefix!r})"

    @property
    def prefix(self) -> str:
        """Start of every key of this store (inside the ``{...}`` hash tag)."""
        return self._prefix

    def keys(
        self,
        *event_ids: str,
        referencias: Sequence[str] = (),
        sales: Sequence[str] = (),
        terminals: Sequence[str] = (),
    ) -> list[str]:
        """Return the names of the store's fixed keys, of the given events' keys, of the
        given journaled operations' keys, of the given sales' keys and of the given
        terminals' keys (``smartpos_id``).

        Useful to check a cluster layout or a key-space ACL: they all hash to one slot.
        """
        fixed = [self._ready, self._timer, self._dead, self._done, self._seq, self._refs]
        fixed += [self._ops, self._ops_waiting, self._ops_ended, self._opseq]
        fixed += [self._sales, self._saleseq, self._salewatch]
        fixed += [self._donerm, self._donerm_cursor, self._donerm_ok]
        return (
            fixed
            + [self._ev + event_id for event_id in event_ids]
            + [self._op + referencia for referencia in referencias]
            + [key + sale for sale in sales for key in (self._sale, self._saleops)]
            + [self._terminal + smartpos_id for smartpos_id in terminals]
        )

    def _now_arg(self) -> str:
        """A script's "now" argument: the store's clock, or '' for the server's ``TIME``."""
        return "" if self._server_clock else _num(self._now())

    def _timed_put(self, timeout: float) -> _Script:
        """The put script on a client whose socket waits at most ``timeout`` seconds."""
        with self._timed_lock:
            timed = self._timed.get(timeout)
            if timed is not None:
                return timed[1]
            pool = self._client.connection_pool
            kwargs = {
                **pool.connection_kwargs,
                "socket_timeout": timeout,
                "socket_connect_timeout": timeout,
                # redis-py retries a timed-out command (up to 3 times, with backoff): that
                # would multiply the budget the caller gave.
                "retry": Retry(NoBackoff(), 0),
            }
            client = redis.Redis(
                connection_pool=redis.ConnectionPool(
                    connection_class=pool.connection_class, **kwargs
                )
            )
            script = _Script(client, _PUT)
            self._timed[timeout] = (client, script)
            if len(self._timed) > _MAX_TIMED_CLIENTS:  # a receiver uses one value
                old, _ = self._timed.pop(next(iter(self._timed)))
                old.close()
                old.connection_pool.disconnect()
            return script

    @_translate
    def _insert(self, batch: Sequence[_Encoded], timeout: float | None) -> list[str | None]:
        self._check_open()
        keys: list[str | bytes] = [*self._put_keys]
        args = [self._now_arg(), self._changes, self._base]
        for item in batch:
            keys.append(self._ev + item.id)
            criado = "" if item.criado_em is None else _num(item.criado_em)
            args += (item.id, item.raw_json, item.body_hash, item.tipo, criado)
            args.append(item.referencia or "")
        put = self._put if timeout is None else self._timed_put(max(timeout, 0.001))
        return [None if code == 0 else _text(code) for code in put(keys, args)]

    @_translate
    def claim(self, *, owner: str, lease: float, limit: int = 1) -> list[Claim]:
        self._check_claim(owner, lease, limit)
        self._check_open()
        tokens = [self._new_token() for _ in range(limit)]
        args = [
            self._now_arg(),
            _num(lease),
            owner,
            str(limit),
            self._ev,
            str(self._max_attempts),
            str(max(_PROMOTE_MAX, limit)),
            *_LEASE_EXPIRED_ERROR,
            self._ttl,
            *tokens,
        ]
        expires, died, flat = self._claim(self._claim_keys, args)
        for i in range(0, len(died), 3):
            self._log_expired_to_dead(_text(died[i]), _text(died[i + 1]), int(died[i + 2]))
        expires_at = _utc(float(expires))
        return [
            Claim(
                event_id=_text(flat[i]),
                tipo=_text(flat[i + 2]),
                raw=json.loads(flat[i + 1]),
                owner=owner,
                token=token,
                attempts=int(flat[i + 3]),
                lease_expires_at=expires_at,
            )
            # Fewer events than tokens when fewer were available.
            for i, token in zip(range(0, len(flat), 4), tokens, strict=False)
        ]

    @_translate
    def ack(self, claim: Claim) -> bool:
        return self.ack_many([claim])[0]

    @_translate
    def ack_many(self, claims: Sequence[Claim]) -> list[bool]:
        if not claims:
            return []
        self._check_open()
        keys: list[str | bytes] = [*self._ack_keys, *(self._ev + c.event_id for c in claims)]
        args = [self._now_arg(), self._ttl, *(c.token for c in claims)]
        return [bool(code) for code in self._ack(keys, args)]

    @_translate
    def nack(self, claim: Claim, *, error: str, retry_in: float) -> bool:
        self._check_seconds("retry_in", retry_in, positive=False)
        self._check_open()
        args = [self._now_arg(), claim.token, error, _num(retry_in), str(self._max_attempts)]
        keys = [self._ev + claim.event_id, self._timer, self._dead]
        return bool(self._nack(keys, args))

    @_translate
    def dead_letter(self, claim: Claim, *, error: str) -> bool:
        self._check_open()
        keys = [self._ev + claim.event_id, self._timer, self._dead]
        args = [self._now_arg(), claim.token, error]
        return bool(self._dead_letter(keys, args))

    @_translate
    def release(self, claim: Claim) -> bool:
        self._check_open()
        keys = [self._ev + claim.event_id, self._timer, self._ready]
        return bool(self._release(keys, [self._now_arg(), claim.token]))

    @_translate
    def extend(self, claim: Claim, *, lease: float) -> bool:
        self._check_seconds("lease", lease, positive=True)
        self._check_open()
        keys = [self._ev + claim.event_id, self._timer, self._ready]
        args = [self._now_arg(), claim.token, _num(lease)]
        return bool(self._extend(keys, args))

    @_translate
    def get(self, event_id: str) -> StoredEvent | None:
        self._check_open()
        fields = self._client.hgetall(self._ev + event_id)
        return _stored(fields) if fields else None

    @_translate
    def _list(self, state: EventState | None, limit: int) -> list[StoredEvent]:
        self._check_open()
        want = "" if state is None else state.value
        rows = self._list_script(self._list_keys, [want, str(limit), self._ev])
        if not isinstance(rows, list):  # 'unfilled': a store written before donerm existed
            self._fill_donerm()
            rows = self._list_script(self._list_keys, [want, str(limit), self._ev])
        return [_stored(dict(zip(row[::2], row[1::2], strict=True))) for row in rows]

    def _fill_donerm(self) -> None:
        """Backfill ``donerm`` (a store written before it existed), one bounded batch per script.

        Run by a list() of done events (or of all) that finds no marker; then the marker is
        set. Each batch blocks the server for about ``_FILL_BATCH`` events' worth of work; the
        other calls run between batches.
        """
        keys = [self._done, self._donerm, self._donerm_ok]
        cursor = "0"
        while True:
            cursor = _text(self._done_fill(keys, [cursor, str(_FILL_BATCH), self._ev]))
            if cursor == "0":
                return

    @_translate
    def requeue(self, event_id: str) -> bool:
        self._check_open()
        keys = [self._ev + event_id, self._ready, self._dead, self._done, self._donerm]
        return bool(self._requeue(keys, [self._now_arg()]))

    @_translate
    def purge(self, *, done_before: _dt.datetime | None = None) -> int:
        self._check_open()
        cutoff = self._purge_cutoff(done_before)
        # '': the server's clock minus the retention (done times are the server's), read once.
        since = "" if done_before is None and self._server_clock else _num(cutoff)
        retention = _num(self._retention.total_seconds())
        text, due = self._purge_due([self._done], [since, retention])
        if int(due):
            self._settle_waiting()
        args = [_text(text), str(_PURGE_BATCH), self._ev]
        total = 0
        # Not due when checked: none is deleted now (one done since was not settled).
        while int(due):
            deleted, seen = self._purge([self._done, self._refs, self._donerm], args)
            total += int(deleted)
            if int(seen) < _PURGE_BATCH:
                break
        keys = [self._ops_ended, self._ops, self._ops_waiting]
        journal_cutoff = "(" + _num(cutoff)
        while True:
            deleted, seen = self._j_purge(keys, [journal_cutoff, str(_PURGE_BATCH), self._op])
            total += int(deleted)
            if int(seen) < _PURGE_BATCH:
                return total

    def close(self) -> None:
        """Close the client if the store created it; the store is unusable afterwards."""
        if self._closed:
            return
        self._closed = True
        with self._timed_lock:
            timed, self._timed = list(self._timed.values()), {}
        for client, _ in timed:
            client.close()
            client.connection_pool.disconnect()
        if self._owns_client:
            self._client.close()

    def _change_source(self) -> ChangeSource:
        from ._listener import RedisChanges

        return RedisChanges(self._client, self._changes)

    # The outcome journal's primitives (see _journal.py); each one Lua script or command.

    def _op_keys(self, referencia: str) -> list[str]:
        return [self._op + referencia, self._ops_waiting, self._ops_ended]

    @_translate
    def _journal_get(self, referencia: str) -> JournalEntry | None:
        self._check_open()
        fields = self._client.hgetall(self._op + referencia)
        return _journal_entry(fields) if fields else None

    def _begin_keys_args(self, entry: JournalEntry) -> tuple[list[str], list[str | bytes]]:
        """The keys and arguments a journal insert starts with (``_LUA_JOURNAL``)."""
        keys = [self._op + entry.referencia, self._ops, self._ops_waiting, self._opseq]
        if entry.sale is not None:
            keys.append(self._saleops + entry.sale)
        args: list[str | bytes] = [
            entry.referencia,
            entry.kind,
            entry.method,
            entry.path,
            entry.body,
            _num(entry.created_at),
            "" if entry.sale is None else entry.sale,
            "" if entry.pending_after is None else _num(entry.pending_after),
            self._base,
        ]
        return keys, args

    @_translate
    def _journal_insert(self, entry: JournalEntry) -> JournalEntry | None:
        self._check_open()
        flat = self._j_begin(*self._begin_keys_args(entry))
        if not flat:
            return None
        return _journal_entry(dict(zip(flat[::2], flat[1::2], strict=True)))

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
        self._check_open()
        answer_json = "" if answer is None else answer.to_json()
        args = [state, _num(now), answer_json, self._base, *sorted(allowed_from)]
        return bool(self._j_update(self._op_keys(referencia), args))

    @_translate
    def _journal_finalize(self, referencia: str, event: Mapping[str, Any], now: float) -> bool:
        self._check_open()
        args = [canonical_json(event), _num(now), self._base]
        return bool(self._j_finalize(self._op_keys(referencia), args))

    @_translate
    def _journal_list(self, *, waiting: bool, after: int, limit: int) -> list[JournalEntry]:
        self._check_open()
        key = self._ops_waiting if waiting else self._ops
        rows = self._j_list([key], [str(after), str(limit), self._op])
        return [_journal_entry(dict(zip(row[::2], row[1::2], strict=True))) for row in rows if row]

    def _journal_events(self, referencia: str) -> list[Mapping[str, Any]]:
        return self._journal_events_many([referencia]).get(referencia, [])

    # The batched reads and writes (see _journal.py): one script each.

    @_translate
    def _journal_events_many(
        self, referencias: Sequence[str]
    ) -> dict[str, list[Mapping[str, Any]]]:
        self._check_open()
        if not referencias:
            return {}
        found: dict[str, list[Mapping[str, Any]]] = {}
        for chunk in _chunks(referencias):
            args: list[str | bytes] = [self._ev]
            args += [r.encode("utf-8", "surrogatepass") for r in chunk]
            answers = self._j_events_many([self._refs], args)
            for referencia, bodies in zip(chunk, answers, strict=True):
                found[referencia] = [json.loads(body) for body in bodies]
        return found

    @_translate
    def _journal_finalize_many(
        self, outcomes: Mapping[str, Mapping[str, Any]], now: float
    ) -> set[str]:
        self._check_open()
        if not outcomes:
            return set()
        won: set[str] = set()
        for keys in _chunks(list(outcomes)):
            args: list[str | bytes] = [_num(now), self._base]
            for referencia in keys:
                args += [
                    referencia.encode("utf-8", "surrogatepass"),
                    canonical_json(outcomes[referencia]),
                ]
            written = self._j_finalize_many([self._ops_waiting, self._ops_ended], args)
            won.update(r for r, done in zip(keys, written, strict=True) if int(done))
        return won

    @_translate
    def _sale_linked_many(self, sale_ids: Sequence[str]) -> dict[str, list[Linked]]:
        self._check_open()
        if not sale_ids:
            return {}
        found: dict[str, list[Linked]] = {}
        for chunk in _chunks(sale_ids):
            args: list[str | bytes] = [self._base]
            args += [s.encode("utf-8", "surrogatepass") for s in chunk]
            answers = self._s_linked([self._refs], args)
            for sale_id, entries in zip(chunk, answers, strict=True):
                found[sale_id] = [
                    (
                        _journal_entry(dict(zip(fields[::2], fields[1::2], strict=True))),
                        [json.loads(body) for body in bodies],
                    )
                    for fields, bodies in entries
                ]
        return found

    @_translate
    def _received_at_many(self, event_ids: Sequence[str]) -> dict[str, float]:
        self._check_open()
        if not event_ids:
            return {}
        pipe = self._client.pipeline(transaction=False)
        for event_id in event_ids:
            pipe.hget(self._ev + event_id, "rcv")
        received = pipe.execute()
        return {i: float(r) for i, r in zip(event_ids, received, strict=True) if r is not None}

    # Sales (see _journal.py): an attempt's compare-and-set and its journaling are one script.

    @_translate
    def _sale_get(self, sale_id: str) -> SaleRow | None:
        self._check_open()
        fields = self._client.hgetall(self._sale + sale_id)
        return _sale_row(fields) if fields else None

    @_translate
    def _sale_entries(self, sale_id: str) -> list[JournalEntry]:
        self._check_open()
        rows = self._j_list([self._saleops + sale_id], ["0", "-1", self._op])
        return [_journal_entry(dict(zip(row[::2], row[1::2], strict=True))) for row in rows if row]

    @_translate
    def _sale_list(self, *, after: int, limit: int) -> list[SaleRow]:
        self._check_open()
        rows = self._j_list([self._sales], [str(after), str(limit), self._sale])
        return [_sale_row(dict(zip(row[::2], row[1::2], strict=True))) for row in rows if row]

    @_translate
    def _sale_candidates(self, *, after: int, limit: int) -> list[SaleRow]:
        # The watch holds exactly the sales with a candidate attempt (the scripts keep it).
        self._check_open()
        rows = self._j_list([self._salewatch], [str(after), str(limit), self._sale])
        return [_sale_row(dict(zip(row[::2], row[1::2], strict=True))) for row in rows if row]

    @_translate
    def _terminal_get(self, smartpos_id: str) -> tuple[str, float] | None:
        self._check_open()
        referencia, until = self._client.hmget(self._terminal + smartpos_id, ["r", "h"])
        if referencia is None or until is None:
            return None
        return _text(referencia), float(until)

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
        self._check_open()
        assert entry.sale is not None
        keys, args = self._begin_keys_args(entry)
        keys += [self._sale + entry.sale, self._sales, self._saleseq]
        if terminal is not None:
            keys.append(self._terminal + terminal)
        args += [
            str(total_centavos),
            "" if expected_version is None else str(expected_version),
            "" if expected_holder is None else expected_holder,
            _num(hold_until),
        ]
        flat = self._s_insert(keys, args)
        if not isinstance(flat, list):  # the script's 'conflict'
            return CONFLICT
        if not flat:
            return None
        return _journal_entry(dict(zip(flat[::2], flat[1::2], strict=True)))

    @_translate
    def _sale_abandon(self, referencia: str, abandon: Mapping[str, Any], now: float) -> bool:
        self._check_open()
        args = [canonical_json(abandon), _num(now), self._base]
        return bool(self._s_abandon([self._op + referencia], args))


def _journal_entry(fields: Mapping[Any, Any]) -> JournalEntry:
    f = {_text(k): v for k, v in fields.items()}
    answer, final = f.get("a"), f.get("fe")
    sale, pending_after, abandoned = f.get("sl"), f.get("pa"), f.get("ab")
    body = f["b"]
    return JournalEntry(
        referencia=_text(f["r"]),
        kind=_text(f["k"]),  # type: ignore[arg-type]
        state=_text(f["st"]),  # type: ignore[arg-type]
        method=_text(f["m"]),
        path=_text(f["p"]),
        body=body.encode("utf-8") if isinstance(body, str) else bytes(body),
        created_at=float(f["c"]),
        updated_at=float(f["u"]),
        seq=int(f["n"]),
        answer=None if not answer else Answer.from_json(answer),
        final_event=None if not final else json.loads(final),
        sale=None if sale is None else _text(sale),
        pending_after=None if not pending_after else float(pending_after),
        abandoned=None if not abandoned else json.loads(abandoned),
    )


def _sale_row(fields: Mapping[Any, Any]) -> SaleRow:
    f = {_text(k): v for k, v in fields.items()}
    return SaleRow(
        sale_id=_text(f["id"]),
        total_centavos=int(f["t"]),
        version=int(f["v"]),
        created_at=float(f["c"]),
        updated_at=float(f["u"]),
        seq=int(f["s"]),
    )


def _stored(fields: Mapping[Any, Any]) -> StoredEvent:
    f = {_text(k): v for k, v in fields.items()}

    def opt_time(name: str) -> float | None:
        value = f.get(name)
        return float(value) if value else None

    def opt_text(name: str) -> str | None:
        value = f.get(name)
        return _text(value) if value else None

    return _stored_event(
        (
            _text(f["id"]),
            _text(f["tipo"]),
            opt_time("c"),
            f["body"],
            _text(f["h"]),
            _text(f["st"]),
            int(f["at"]),
            float(f["rcv"]),
            opt_time("av"),
            opt_text("ow"),
            opt_time("le"),
            None if f.get("err") is None else _text(f["err"]),
            opt_time("dn"),
        )
    )
