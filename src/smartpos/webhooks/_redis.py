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
    {P}:seq       string  arrival counter
    {P}:refs      zset    events by dados.referencia (the outcome journal's link), all scores 0,
                          member "<8-digit byte length of referencia>:<referencia>:<arrival
                          member>", so that one ZRANGEBYLEX gives a referencia's events in
                          arrival order (UTF-8 never holds byte 0xff, the range's end)
    {P}:op:<referencia>  hash  one journaled operation (see _journal.py)
    {P}:ops       zset    every journaled operation by its journal number
    {P}:ops:waiting zset  operations still waiting for an outcome, by journal number
    {P}:ops:ended zset    final and rejected operations by their last update, for purge()
    {P}:opseq     string  journal counter
    {P}:changes   channel (pub/sub) where the put script publishes each new event's referencia

Every operation is one Lua script (registered once, run with EVALSHA), so each is atomic on
the server. ``claim`` first moves due members of ``timer`` into ``ready``, then pops from
``ready``. Times are the client's clock, passed in as arguments: the server's ``TIME`` is never
read, which makes the store testable with a fake clock, and means that the hosts sharing a
store need synchronised clocks (NTP): a host whose clock runs ahead sees leases expire early.
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
from typing import TYPE_CHECKING, Any

import redis
import redis.exceptions
from redis.backoff import NoBackoff
from redis.retry import Retry

from smartpos._errors import ConfigurationError

from ._outcomes import Answer, JournalEntry, State

if TYPE_CHECKING:
    from ._listener import ChangeSource
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
# purge() (which uses the client's clock) normally runs first and clock skew cannot bite.
_TTL_GRACE_SECONDS = 3600
_PURGE_BATCH = 500
# Seconds a store-made client waits to connect or for an answer.
_TIMEOUT = 5.0
# Clients kept for per-call timeouts (one per distinct value, oldest closed first).
_MAX_TIMED_CLIENTS = 4

# Lua scripts. In an event's hash, the optional fields ow, tk, le, av, dn and c are '' (or
# absent) when None: clearing them in the same HSET saves the server an HDEL per operation.
# Times travel as strings (Python's repr of a float) and are never formatted by Lua.

# held(): the event's fields when ``token`` holds an unexpired lease, else nil.
_LUA_HELPERS = """
local function held(k, token, now)
  local f = redis.call('HMGET', k, 'st', 'tk', 'le', 'id', 'at', 'sk', 'rm')
  if f[1] == 'claimed' and f[2] == token and tonumber(f[3]) > now then return f end
  return nil
end
local function to_dead(k, id, sk, rm, err, timer, dead)
  redis.call('HSET', k, 'st', 'dead', 'err', err, 'ow', '', 'tk', '', 'le', '', 'av', '')
  redis.call('ZREM', timer, id)
  redis.call('ZADD', dead, sk, rm)
end
"""

# KEYS: ready, seq, refs, event keys...
# ARGV: now, changes channel, then (id, body, hash, tipo, criado, referencia or '') per event.
# Answers per event: 0 when new, else the body hash already stored under its id. Each new
# event's referencia is published on the channel (the change listeners' wake-up).
_PUT = """
local now = ARGV[1]
local out = {}
for i = 4, #KEYS do
  local k = KEYS[i]
  local a = (i - 4) * 6 + 3
  local stored = redis.call('HGET', k, 'h')
  if stored then
    out[#out + 1] = stored
  else
    local criado = ARGV[a + 4]
    local sk = criado
    if criado == '' then sk = '+inf' end
    local rm = string.format('%016d', redis.call('INCR', KEYS[2])) .. ':' .. ARGV[a]
    redis.call('HSET', k, 'id', ARGV[a], 'body', ARGV[a + 1], 'h', ARGV[a + 2],
               'tipo', ARGV[a + 3], 'c', criado, 'sk', sk, 'rm', rm, 'st', 'pending', 'at', 0,
               'rcv', now, 'av', now)
    redis.call('ZADD', KEYS[1], sk, rm)
    local ref = ARGV[a + 5]
    if ref ~= '' then
      redis.call('HSET', k, 'ref', ref)
      redis.call('ZADD', KEYS[3], 0, string.format('%08d', #ref) .. ':' .. ref .. ':' .. rm)
      redis.call('PUBLISH', ARGV[2], ref)
    end
    out[#out + 1] = 0
  end
end
return out
"""

# KEYS: ready, timer, dead, done.  ARGV: now, lease expiry, owner, limit, event key prefix,
# max_attempts, promote max, expired-error prefix, expired-error suffix, "(<oldest done_at
# whose TTL has surely fired>", tokens...
# Answers (id, body, tipo, attempts) per claimed event, flattened; the n-th one got the n-th
# token.
_CLAIM = (
    _LUA_HELPERS
    + """
local ready, timer, dead, done = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local now, exp, owner, limit = tonumber(ARGV[1]), ARGV[2], ARGV[3], tonumber(ARGV[4])
local prefix, maxat = ARGV[5], tonumber(ARGV[6])
-- Drop done-index entries whose event the TTL has removed (or that was put again since), so
-- that the index stays bounded even when nobody calls purge(). Usually finds nothing.
for _, id in ipairs(redis.call('ZRANGEBYSCORE', done, '-inf', ARGV[10], 'LIMIT', 0, limit + 1)) do
  if redis.call('HGET', prefix .. id, 'st') ~= 'done' then redis.call('ZREM', done, id) end
end
local due = redis.call('ZRANGEBYSCORE', timer, '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[7]))
for _, id in ipairs(due) do
  local f = redis.call('HMGET', prefix .. id, 'sk', 'rm', 'st')
  if f[3] == 'pending' or f[3] == 'claimed' then redis.call('ZADD', ready, f[1], f[2]) end
end
if #due > 0 then redis.call('ZREM', timer, unpack(due)) end
local out = {}
local n = 0
while n < limit do
  local popped = redis.call('ZPOPMIN', ready, limit - n)
  if #popped == 0 then break end
  for j = 1, #popped, 2 do
    local rm = popped[j]
    local id = string.sub(rm, 18)
    local k = prefix .. id
    local f = redis.call('HMGET', k, 'st', 'at', 'av', 'body', 'tipo')
    if f[1] == 'pending' or f[1] == 'claimed' then
      if tonumber(f[3]) > now then
        -- Extended after it was moved here (clock skew between hosts): not due after all.
        redis.call('ZADD', timer, f[3], id)
      elseif f[1] == 'claimed' and tonumber(f[2]) >= maxat then
        to_dead(k, id, popped[j + 1], rm, ARGV[8] .. f[2] .. ARGV[9], timer, dead)
      else
        n = n + 1
        local token = ARGV[10 + n]
        local at = tonumber(f[2]) + 1
        redis.call('HSET', k, 'st', 'claimed', 'at', at, 'ow', owner, 'tk', token, 'le', exp,
                   'av', exp)
        redis.call('ZADD', timer, exp, id)
        out[#out + 1] = id
        out[#out + 1] = f[4]
        out[#out + 1] = f[5]
        out[#out + 1] = at
      end
    end
  end
end
return out
"""
)

# KEYS: timer, done, event keys...  ARGV: now, ttl seconds, tokens...
# Answers 1 (acked) or 0 per event.
_ACK = (
    _LUA_HELPERS
    + """
local timer, done = KEYS[1], KEYS[2]
local now = tonumber(ARGV[1])
local out = {}
for i = 3, #KEYS do
  local k = KEYS[i]
  local f = held(k, ARGV[i], now)
  if f then
    redis.call('HSET', k, 'st', 'done', 'dn', ARGV[1], 'ow', '', 'tk', '', 'le', '', 'av', '')
    redis.call('ZREM', timer, f[4])
    redis.call('ZADD', done, ARGV[1], f[4])
    redis.call('EXPIRE', k, ARGV[2])
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
return out
"""
)

# KEYS: event, timer, dead.  ARGV: now, token, error, available_at, max_attempts.
_NACK = (
    _LUA_HELPERS
    + """
local k = KEYS[1]
local f = held(k, ARGV[2], tonumber(ARGV[1]))
if not f then return 0 end
if tonumber(f[5]) >= tonumber(ARGV[5]) then
  to_dead(k, f[4], f[6], f[7], ARGV[3], KEYS[2], KEYS[3])
  return 2
end
redis.call('HSET', k, 'st', 'pending', 'err', ARGV[3], 'av', ARGV[4], 'ow', '', 'tk', '',
           'le', '')
redis.call('ZADD', KEYS[2], ARGV[4], f[4])
return 1
"""
)

# KEYS: event, timer, dead.  ARGV: now, token, error.
_DEAD_LETTER = (
    _LUA_HELPERS
    + """
local f = held(KEYS[1], ARGV[2], tonumber(ARGV[1]))
if not f then return 0 end
to_dead(KEYS[1], f[4], f[6], f[7], ARGV[3], KEYS[2], KEYS[3])
return 1
"""
)

# KEYS: event, timer, ready.  ARGV: now, token.
# Back to pending and ready at once, the claim's attempt taken back; 'err' is kept.
_RELEASE = (
    _LUA_HELPERS
    + """
local f = held(KEYS[1], ARGV[2], tonumber(ARGV[1]))
if not f then return 0 end
redis.call('HSET', KEYS[1], 'st', 'pending', 'at', tonumber(f[5]) - 1, 'av', ARGV[1], 'ow', '',
           'tk', '', 'le', '')
redis.call('ZREM', KEYS[2], f[4])
redis.call('ZADD', KEYS[3], f[6], f[7])
return 1
"""
)

# KEYS: event, timer, ready.  ARGV: now, token, new expiry.
_EXTEND = (
    _LUA_HELPERS
    + """
local f = held(KEYS[1], ARGV[2], tonumber(ARGV[1]))
if not f then return 0 end
redis.call('HSET', KEYS[1], 'le', ARGV[3], 'av', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[3], f[4])
-- Moved to ready by a host whose clock runs ahead: the lease holds, so it is not ready.
redis.call('ZREM', KEYS[3], f[7])
return 1
"""
)

# KEYS: event, ready, dead, done.  ARGV: now.
_REQUEUE = """
local k = KEYS[1]
local f = redis.call('HMGET', k, 'st', 'sk', 'rm', 'id')
if f[1] ~= 'dead' and f[1] ~= 'done' then return 0 end
redis.call('HSET', k, 'st', 'pending', 'at', 0, 'av', ARGV[1], 'dn', '', 'ow', '', 'tk', '',
           'le', '')
redis.call('PERSIST', k)
redis.call('ZREM', KEYS[3], f[3])
redis.call('ZREM', KEYS[4], f[4])
redis.call('ZADD', KEYS[2], f[2], f[3])
return 1
"""

# KEYS: done, refs.  ARGV: exclusive cutoff ("(<seconds>"), batch size, event key prefix.
# Answers {deleted, entries looked at}.
_PURGE = """
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local cutoff = tonumber(string.sub(ARGV[1], 2))
local deleted = 0
for _, id in ipairs(ids) do
  local k = ARGV[3] .. id
  local f = redis.call('HMGET', k, 'st', 'dn', 'ref', 'rm')
  if f[1] ~= 'done' then
    redis.call('ZREM', KEYS[1], id)
  elseif tonumber(f[2]) < cutoff then
    if f[3] then
      redis.call('ZREM', KEYS[2], string.format('%08d', #f[3]) .. ':' .. f[3] .. ':' .. f[4])
    end
    redis.call('DEL', k)
    redis.call('ZREM', KEYS[1], id)
    deleted = deleted + 1
  end
end
return {deleted, #ids}
"""

# KEYS: ready, timer, done, dead.  ARGV: state ('' for any), limit, event key prefix.
# Answers the HGETALL of up to ``limit`` events of that state, in claim order. ``ready`` and
# ``dead`` are in claim order already, so their walk stops after ``limit`` matches; ``timer``
# and ``done`` are not, so each of their members is looked at (for done events, or any state,
# the script's time grows with the done events kept: purge() keeps that bounded).
_LIST = """
local want, limit, prefix = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local rows, seen = {}, {}
local function consider(id)
  if seen[id] then return false end
  seen[id] = true
  local f = redis.call('HMGET', prefix .. id, 'st', 'c', 'rm')
  if not f[1] or (want ~= '' and f[1] ~= want) then return false end
  local c = tonumber(f[2])
  rows[#rows + 1] = {c == nil and 1 or 0, c or 0, f[3], id}
  return true
end
local function walk_in_order(key)
  local found, start = 0, 0
  while found < limit do
    local page = redis.call('ZRANGE', key, start, start + limit - 1)
    for _, rm in ipairs(page) do
      if consider(string.sub(rm, 18)) then found = found + 1 end
    end
    if #page < limit then break end
    start = start + limit
  end
end
local function walk_all(key)
  for _, id in ipairs(redis.call('ZRANGE', key, 0, -1)) do consider(id) end
end
if want == '' or want == 'pending' or want == 'claimed' then
  walk_in_order(KEYS[1])
  walk_all(KEYS[2])
end
if want == '' or want == 'done' then walk_all(KEYS[3]) end
if want == '' or want == 'dead' then walk_in_order(KEYS[4]) end
table.sort(rows, function(a, b)
  if a[1] ~= b[1] then return a[1] < b[1] end
  if a[2] ~= b[2] then return a[2] < b[2] end
  return a[3] < b[3]
end)
local out = {}
for i = 1, math.min(limit, #rows) do out[i] = redis.call('HGETALL', prefix .. rows[i][4]) end
return out
"""


# The outcome journal (see _journal.py). An operation's hash: r referencia, k kind, st state,
# m method, p path, b body, c created, u updated, n journal number, a answer JSON, fe the
# recorded outcome's envelope.

# KEYS: op, ops, waiting, opseq.  ARGV: referencia, kind, method, path, body, now.
# Answers the existing operation's HGETALL, or an empty list when it journaled this one.
_J_BEGIN = """
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('HGETALL', KEYS[1]) end
local n = redis.call('INCR', KEYS[4])
redis.call('HSET', KEYS[1], 'r', ARGV[1], 'k', ARGV[2], 'st', 'sending', 'm', ARGV[3],
           'p', ARGV[4], 'b', ARGV[5], 'c', ARGV[6], 'u', ARGV[6], 'n', n)
redis.call('ZADD', KEYS[2], n, ARGV[1])
redis.call('ZADD', KEYS[3], n, ARGV[1])
return {}
"""

# KEYS: op, waiting, ended.  ARGV: state, now, answer JSON or '', states it may replace...
_J_UPDATE = """
local f = redis.call('HMGET', KEYS[1], 'st', 'n', 'r')
if not f[1] then return 0 end
local allowed = false
for i = 4, #ARGV do
  if ARGV[i] == f[1] then allowed = true end
end
if not allowed then return 0 end
redis.call('HSET', KEYS[1], 'st', ARGV[1], 'u', ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'a', ARGV[3]) end
if ARGV[1] == 'rejected' then
  redis.call('ZREM', KEYS[2], f[3])
  redis.call('ZADD', KEYS[3], ARGV[2], f[3])
else
  redis.call('ZADD', KEYS[2], f[2], f[3])
  redis.call('ZREM', KEYS[3], f[3])
end
return 1
"""

# KEYS: op, waiting, ended.  ARGV: the outcome's envelope (JSON), now.
_J_FINALIZE = """
local f = redis.call('HMGET', KEYS[1], 'st', 'r')
if not f[1] or f[1] == 'final' then return 0 end
redis.call('HSET', KEYS[1], 'st', 'final', 'fe', ARGV[1], 'u', ARGV[2])
redis.call('ZREM', KEYS[2], f[2])
redis.call('ZADD', KEYS[3], ARGV[2], f[2])
return 1
"""

# KEYS: ops or waiting.  ARGV: after (journal number), limit, op key prefix.
_J_LIST = """
local refs = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf', 'LIMIT', 0,
                        tonumber(ARGV[2]))
local out = {}
for _, r in ipairs(refs) do out[#out + 1] = redis.call('HGETALL', ARGV[3] .. r) end
return out
"""

# KEYS: refs.  ARGV: range start, range end, event key prefix, byte length of the member
# prefix. Answers the bodies in arrival order; drops members whose event is gone (expired by
# TTL) or was stored again since.
_J_EVENTS = """
local out = {}
local skip = tonumber(ARGV[4])
for _, m in ipairs(redis.call('ZRANGEBYLEX', KEYS[1], ARGV[1], ARGV[2])) do
  local rm = string.sub(m, skip + 1)
  local f = redis.call('HMGET', ARGV[3] .. string.sub(rm, 18), 'body', 'rm')
  if f[1] and f[2] == rm then out[#out + 1] = f[1] else redis.call('ZREM', KEYS[1], m) end
end
return out
"""

# KEYS: ended, ops, waiting.  ARGV: exclusive cutoff, batch size, op key prefix.
_J_PURGE = """
local refs = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, r in ipairs(refs) do
  redis.call('DEL', ARGV[3] .. r)
  redis.call('ZREM', KEYS[1], r)
  redis.call('ZREM', KEYS[2], r)
  redis.call('ZREM', KEYS[3], r)
end
return #refs
"""


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


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _num(value: float) -> str:
    # repr() round-trips a float exactly; Lua and Redis parse it the same way.
    return repr(float(value))


def _store_error(exc: Exception) -> StoreError:
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
    earlier by the store's clock.

    Durability is the server's: run it with ``appendonly yes``, ``appendfsync everysec`` (or
    ``always``) and ``maxmemory-policy noeviction``. With ``check_settings`` (the default) the
    constructor reads these with ``CONFIG GET`` and logs a WARNING for each one that breaks a
    guarantee. All hosts must have synchronised clocks (NTP): times come from ``clock``.

    Args:
        url_or_client: A ``redis://`` / ``rediss://`` / ``unix://`` URL (the store owns and closes
            that client; 5 s connect and read timeouts unless the URL sets
            ``socket_timeout``/``socket_connect_timeout``) or a redis-py ``Redis`` client (the
            caller keeps owning it).
        prefix: Start of every key; several stores can share one Redis with different prefixes.
            It may not contain braces.
        max_attempts: Claims after which a failing event goes to the dead state.
        retention: How long done events are remembered (dedup of late redeliveries).
        clock: Returns the current time in epoch seconds; every expiry uses it.
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
        clock: Callable[[], float] = time.time,
        check_settings: bool = True,
    ) -> None:
        super().__init__(max_attempts=max_attempts, retention=retention, clock=clock)
        if not isinstance(prefix, str) or not prefix or "{" in prefix or "}" in prefix:
            raise ConfigurationError(
                f"prefix must be a non-empty string without braces, not {prefix!r}"
            )
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
                "RedisStore needs a redis:// URL or a redis.Redis client, "
                f"not {type(url_or_client).__name__}"
            )
        self._prefix = prefix
        base = "{" + prefix + "}:"
        self._ev = base + "ev:"
        self._ready = base + "ready"
        self._timer = base + "timer"
        self._dead = base + "dead"
        self._done = base + "done"
        self._seq = base + "seq"
        self._refs = base + "refs"
        self._op = base + "op:"
        self._ops = base + "ops"
        self._ops_waiting = base + "ops:waiting"
        self._ops_ended = base + "ops:ended"
        self._opseq = base + "opseq"
        self._changes = base + "changes"
        self._ttl_seconds = math.ceil(self._retention.total_seconds()) + _TTL_GRACE_SECONDS
        self._ttl = str(self._ttl_seconds)
        # Keys used by every call, encoded once.
        self._put_keys = [self._ready.encode(), self._seq.encode(), self._refs.encode()]
        self._claim_keys = [
            self._ready.encode(),
            self._timer.encode(),
            self._dead.encode(),
            self._done.encode(),
        ]
        self._ack_keys = [self._timer.encode(), self._done.encode()]
        self._list_keys = [self._ready, self._timer, self._done, self._dead]
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
        self._list_script = _Script(self._client, _LIST)
        self._j_begin = _Script(self._client, _J_BEGIN)
        self._j_update = _Script(self._client, _J_UPDATE)
        self._j_finalize = _Script(self._client, _J_FINALIZE)
        self._j_list = _Script(self._client, _J_LIST)
        self._j_events = _Script(self._client, _J_EVENTS)
        self._j_purge = _Script(self._client, _J_PURGE)
        if check_settings:
            check_redis_settings(self._client)

    def __repr__(self) -> str:
        return f"RedisStore(prefix={self._prefix!r})"

    @property
    def prefix(self) -> str:
        """Start of every key of this store (inside the ``{...}`` hash tag)."""
        return self._prefix

    def keys(self, *event_ids: str, referencias: Sequence[str] = ()) -> list[str]:
        """Return the names of the store's fixed keys, of the given events' keys and of the
        given journaled operations' keys.

        Useful to check a cluster layout or a key-space ACL: they all hash to one slot.
        """
        fixed = [self._ready, self._timer, self._dead, self._done, self._seq, self._refs]
        fixed += [self._ops, self._ops_waiting, self._ops_ended, self._opseq]
        return (
            fixed
            + [self._ev + event_id for event_id in event_ids]
            + [self._op + referencia for referencia in referencias]
        )

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
        args = [_num(self._now()), self._changes]
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
        now = self._now()
        expires = now + lease
        tokens = [self._new_token() for _ in range(limit)]
        args = [
            _num(now),
            _num(expires),
            owner,
            str(limit),
            self._ev,
            str(self._max_attempts),
            str(max(_PROMOTE_MAX, limit)),
            *_LEASE_EXPIRED_ERROR,
            "(" + _num(now - self._ttl_seconds),
            *tokens,
        ]
        flat = self._claim(self._claim_keys, args)
        expires_at = _utc(expires)
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
        now = self._now()
        keys: list[str | bytes] = [*self._ack_keys, *(self._ev + c.event_id for c in claims)]
        args = [_num(now), self._ttl, *(c.token for c in claims)]
        return [bool(code) for code in self._ack(keys, args)]

    @_translate
    def nack(self, claim: Claim, *, error: str, retry_in: float) -> bool:
        self._check_seconds("retry_in", retry_in, positive=False)
        self._check_open()
        now = self._now()
        args = [_num(now), claim.token, error, _num(now + retry_in), str(self._max_attempts)]
        keys = [self._ev + claim.event_id, self._timer, self._dead]
        return bool(self._nack(keys, args))

    @_translate
    def dead_letter(self, claim: Claim, *, error: str) -> bool:
        self._check_open()
        keys = [self._ev + claim.event_id, self._timer, self._dead]
        args = [_num(self._now()), claim.token, error]
        return bool(self._dead_letter(keys, args))

    @_translate
    def release(self, claim: Claim) -> bool:
        self._check_open()
        keys = [self._ev + claim.event_id, self._timer, self._ready]
        return bool(self._release(keys, [_num(self._now()), claim.token]))

    @_translate
    def extend(self, claim: Claim, *, lease: float) -> bool:
        self._check_seconds("lease", lease, positive=True)
        self._check_open()
        now = self._now()
        keys = [self._ev + claim.event_id, self._timer, self._ready]
        args = [_num(now), claim.token, _num(now + lease)]
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
        return [_stored(dict(zip(row[::2], row[1::2], strict=True))) for row in rows]

    @_translate
    def requeue(self, event_id: str) -> bool:
        self._check_open()
        keys = [self._ev + event_id, self._ready, self._dead, self._done]
        return bool(self._requeue(keys, [_num(self._now())]))

    @_translate
    def purge(self, *, done_before: _dt.datetime | None = None) -> int:
        self._check_open()
        cutoff = "(" + _num(self._purge_cutoff(done_before))
        total = 0
        while True:
            deleted, seen = self._purge(
                [self._done, self._refs], [cutoff, str(_PURGE_BATCH), self._ev]
            )
            total += int(deleted)
            if int(seen) < _PURGE_BATCH:
                break
        keys = [self._ops_ended, self._ops, self._ops_waiting]
        while True:
            deleted = int(self._j_purge(keys, [cutoff, str(_PURGE_BATCH), self._op]))
            total += deleted
            if deleted < _PURGE_BATCH:
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

    @_translate
    def _journal_insert(self, entry: JournalEntry) -> JournalEntry | None:
        self._check_open()
        keys = [self._op + entry.referencia, self._ops, self._ops_waiting, self._opseq]
        args: list[str | bytes] = [
            entry.referencia,
            entry.kind,
            entry.method,
            entry.path,
            entry.body,
            _num(entry.created_at),
        ]
        flat = self._j_begin(keys, args)
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
    ) -> bool:
        self._check_open()
        answer_json = "" if answer is None else answer.to_json()
        args = [state, _num(now), answer_json, *sorted(allowed_from)]
        return bool(self._j_update(self._op_keys(referencia), args))

    @_translate
    def _journal_finalize(self, referencia: str, event: Mapping[str, Any], now: float) -> bool:
        self._check_open()
        args = [canonical_json(event), _num(now)]
        return bool(self._j_finalize(self._op_keys(referencia), args))

    @_translate
    def _journal_list(self, *, waiting: bool, after: int, limit: int) -> list[JournalEntry]:
        self._check_open()
        key = self._ops_waiting if waiting else self._ops
        rows = self._j_list([key], [str(after), str(limit), self._op])
        return [_journal_entry(dict(zip(row[::2], row[1::2], strict=True))) for row in rows if row]

    @_translate
    def _journal_events(self, referencia: str) -> list[Mapping[str, Any]]:
        self._check_open()
        encoded = referencia.encode("utf-8", "surrogatepass")
        prefix = b"%08d:" % len(encoded) + encoded + b":"
        args: list[str | bytes] = [b"[" + prefix, b"(" + prefix + b"\xff", self._ev]
        args.append(str(len(prefix)))
        return [json.loads(body) for body in self._j_events([self._refs], args)]


def _journal_entry(fields: Mapping[Any, Any]) -> JournalEntry:
    f = {_text(k): v for k, v in fields.items()}
    answer, final = f.get("a"), f.get("fe")
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
