"""The Lua scripts of ``RedisStore``: one per operation, so that each is atomic on the server.

The keys they touch (``ready``, ``timer``, ``dead``, ``done``, ``donerm``, ``refs``, the journal's
``op`` and ``ops`` keys, ...) are drawn in ``_redis.py``'s docstring, which is where
``RedisStore`` registers and runs them (EVALSHA). The ``#:`` comment above each script says what
it does, and gives its KEYS, its ARGV and its answer. The scripts are ``RedisStore``'s own,
private names that ``_redis.py`` imports: nothing here is public.
"""

from __future__ import annotations

__all__ = []


# Lua scripts. In an event's hash, the optional fields ow, tk, le, av, dn and c are '' (or
# absent) when None: clearing them in the same HSET saves the server an HDEL per operation.
# Times are epoch seconds as strings. A script's "now" argument is the store's clock (Python's
# repr of a float; tests) or '' for the server's clock (TIME), the default; a later time (a
# lease's expiry, a retry) is computed here as now plus seconds, written with 17 significant
# digits so that Python reads back the very double Lua computed.

#: Lua functions that read the time.
#: clock(): the time of a "now" argument, as (text, number); '' reads the server's TIME.
#: later(): ``seconds`` after the number ``now``, as text.
_LUA_CLOCK = """
local function clock(given)
  if given ~= '' then return given, tonumber(given) end
  -- Writes after TIME need effects replication: the default since Redis 5, the only mode
  -- since 7 (where this call does nothing).
  redis.replicate_commands()
  local t = redis.call('TIME')
  local text = t[1] .. '.' .. string.format('%06d', tonumber(t[2]))
  return text, tonumber(text)
end
local function later(now, seconds)
  return string.format('%.17g', now + tonumber(seconds))
end
"""

#: Lua functions that the lease-holding scripts share.
#: held(): the event's fields when ``token`` holds an unexpired lease, else nil.
#: sweep_donerm(): one ``ZSCAN`` step of about ``count`` members over ``donerm`` from the cursor
#: kept at key ``cursor``: drops the members whose event is gone (its TTL), not done, or stored
#: again since (another ``rm``).
#: to_dead(): the event to the dead state with ``err``, out of ``timer``, into ``dead``.
_LUA_HELPERS = (
    _LUA_CLOCK
    + """
local function held(k, token, now)
  local f = redis.call('HMGET', k, 'st', 'tk', 'le', 'id', 'at', 'sk', 'rm')
  if f[1] == 'claimed' and f[2] == token and tonumber(f[3]) > now then return f end
  return nil
end
local function sweep_donerm(donerm, cursor, prefix, count)
  local page = redis.call('ZSCAN', donerm, redis.call('GET', cursor) or '0', 'COUNT', count)
  for j = 1, #page[2], 2 do
    local rm = page[2][j]
    local f = redis.call('HMGET', prefix .. string.sub(rm, 18), 'st', 'rm')
    if f[1] ~= 'done' or f[2] ~= rm then redis.call('ZREM', donerm, rm) end
  end
  if page[1] == '0' then redis.call('DEL', cursor) else redis.call('SET', cursor, page[1]) end
end
local function to_dead(k, id, sk, rm, err, timer, dead)
  redis.call('HSET', k, 'st', 'dead', 'err', err, 'ow', '', 'tk', '', 'le', '', 'av', '')
  redis.call('ZREM', timer, id)
  redis.call('ZADD', dead, sk, rm)
end
"""
)

#: Lua functions that keep the till's review index, ``salewatch``: the sales (scored by their
#: sale number) with an attempt that may have pendências or be open, a superset that
#: ``store.sales(attention=True)`` reads instead of every sale. Each script that changes what
#: decides it (an attempt's state, its events count ``ev``, its abandon) calls them in the same
#: step, so the set is exact after every script: a sale enters when one of its attempts becomes
#: a candidate and leaves when none is any more (a quiet paid sale once its approval is
#: recorded). ``base`` is the store's key prefix ``{P}:``; the keys derived from it share the
#: store's hash tag.
#: candidate(): whether the operation of key ``op`` is such an attempt: a payment of a sale
#: still waiting, with two events or more, or refused or abandoned with one or more.
#: watch_add(): the sale into the watch, by its sale number.
#: watch(): after a change to the attempt ``op`` of ``sale``: the sale into the watch when
#: ``op`` is a candidate, else out of it unless another of its attempts is one.
_LUA_WATCH = """
local function candidate(op)
  local f = redis.call('HMGET', op, 'k', 'st', 'ev', 'ab', 'sl')
  if f[1] ~= 'payment' or not f[5] then return false end
  if f[2] == 'sending' or f[2] == 'accepted' or f[2] == 'unknown' then return true end
  local ev = tonumber(f[3]) or 0
  return ev >= 2 or (ev >= 1 and (f[4] ~= false or f[2] == 'rejected'))
end
local function watch_add(base, sale)
  local s = redis.call('HGET', base .. 'sale:' .. sale, 's')
  if s then redis.call('ZADD', base .. 'salewatch', s, sale) end
end
local function watch(base, sale, op)
  if candidate(op) then return watch_add(base, sale) end
  for _, r in ipairs(redis.call('ZRANGE', base .. 'saleops:' .. sale, 0, -1)) do
    if candidate(base .. 'op:' .. r) then return watch_add(base, sale) end
  end
  redis.call('ZREM', base .. 'salewatch', sale)
end
"""

#: ``put`` and ``put_many``: store each event whose id is new.
#: KEYS: ready, seq, refs, donerm's backfill marker, event keys...
#: ARGV: now ('' for the server's), changes channel, the store's key prefix ``{P}:``, then (id,
#: body, hash, tipo, criado, referencia or '') per event.
#: Answers per event: 0 when new, else the body hash already stored under its id. Each new
#: event's referencia is published on the channel (the change listeners' wake-up); when it is
#: a sale's payment attempt, the attempt's events count ``ev`` grows by one, and the sale
#: enters the watch when that makes the attempt a candidate. A store's very first event (the
#: arrival counter's 1) sets the marker: ``donerm`` holds every done event from the start.
_PUT = (
    _LUA_CLOCK
    + _LUA_WATCH
    + """
local now = clock(ARGV[1])
local base = ARGV[3]
local out = {}
for i = 5, #KEYS do
  local k = KEYS[i]
  local a = (i - 5) * 6 + 4
  local stored = redis.call('HGET', k, 'h')
  if stored then
    out[#out + 1] = stored
  else
    local criado = ARGV[a + 4]
    local sk = criado
    if criado == '' then sk = '+inf' end
    local seq = redis.call('INCR', KEYS[2])
    if seq == 1 then redis.call('SET', KEYS[4], '1') end
    local rm = string.format('%016d', seq) .. ':' .. ARGV[a]
    redis.call('HSET', k, 'id', ARGV[a], 'body', ARGV[a + 1], 'h', ARGV[a + 2],
               'tipo', ARGV[a + 3], 'c', criado, 'sk', sk, 'rm', rm, 'st', 'pending', 'at', 0,
               'rcv', now, 'av', now)
    redis.call('ZADD', KEYS[1], sk, rm)
    local ref = ARGV[a + 5]
    if ref ~= '' then
      redis.call('HSET', k, 'ref', ref)
      redis.call('ZADD', KEYS[3], 0, string.format('%08d', #ref) .. ':' .. ref .. ':' .. rm)
      redis.call('PUBLISH', ARGV[2], ref)
      local op = base .. 'op:' .. ref
      local o = redis.call('HMGET', op, 'sl', 'k', 'st', 'ab')
      if o[1] and o[2] == 'payment' then
        -- Waiting, the attempt is in the watch already; ended, this event may make it a
        -- candidate (the count is at least one now).
        if redis.call('HINCRBY', op, 'ev', 1) >= 2 or o[4] or o[3] == 'rejected' then
          watch_add(base, o[1])
        end
      end
    end
    out[#out + 1] = 0
  end
end
return out
"""
)

#: ``claim``: move due timers to ``ready``, then lease events in claim order.
#: KEYS: ready, timer, dead, done, donerm, donerm's sweep cursor.  ARGV: now ('' for the
#: server's), lease seconds, owner,
#: limit, event key prefix, max_attempts, promote max, expired-error prefix, expired-error
#: suffix, the done events' TTL in seconds, tokens...
#: The TTL removes a done event's hash without a script, leaving its ``donerm`` member behind:
#: each entry the claim drops from ``done`` for that reason pays for a sweep of ten ``donerm``
#: members (``sweep_donerm``), so that ``donerm`` stays bounded without purge() too.
#: Answers {lease expiry, died, claimed}: died holds (id, tipo, attempts) per event that this
#: claim moved to dead (its lease ran out on its last attempt), claimed holds (id, body, tipo,
#: attempts) per claimed event; both flattened; the n-th claimed event got the n-th token.
_CLAIM = (
    _LUA_HELPERS
    + """
local ready, timer, dead, done = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local nowtext, now = clock(ARGV[1])
local exp, owner, limit = later(now, ARGV[2]), ARGV[3], tonumber(ARGV[4])
local prefix, maxat = ARGV[5], tonumber(ARGV[6])
-- Drop done-index entries whose event the TTL has removed (or that was put again since), so
-- that the index stays bounded even when nobody calls purge(). Usually finds nothing.
local fired = '(' .. later(now, -tonumber(ARGV[10]))
local trimmed = 0
for _, id in ipairs(redis.call('ZRANGEBYSCORE', done, '-inf', fired, 'LIMIT', 0, limit + 1)) do
  if redis.call('HGET', prefix .. id, 'st') ~= 'done' then
    redis.call('ZREM', done, id)
    trimmed = trimmed + 1
  end
end
if trimmed > 0 then sweep_donerm(KEYS[5], KEYS[6], prefix, trimmed * 10) end
local due = redis.call('ZRANGEBYSCORE', timer, '-inf', nowtext, 'LIMIT', 0, tonumber(ARGV[7]))
for _, id in ipairs(due) do
  local f = redis.call('HMGET', prefix .. id, 'sk', 'rm', 'st')
  if f[3] == 'pending' or f[3] == 'claimed' then redis.call('ZADD', ready, f[1], f[2]) end
end
if #due > 0 then redis.call('ZREM', timer, unpack(due)) end
local out, died = {}, {}
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
        died[#died + 1] = id
        died[#died + 1] = f[5]
        died[#died + 1] = f[2]
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
return {exp, died, out}
"""
)

#: ``ack`` and ``ack_many``: mark each event done while its token holds the lease.
#: KEYS: timer, done, donerm, event keys...  ARGV: now ('' for the server's), ttl seconds,
#: tokens...
#: Answers 1 (acked) or 0 per event.
_ACK = (
    _LUA_HELPERS
    + """
local timer, done, donerm = KEYS[1], KEYS[2], KEYS[3]
local nowtext, now = clock(ARGV[1])
local out = {}
for i = 4, #KEYS do
  local k = KEYS[i]
  local f = held(k, ARGV[i - 1], now)
  if f then
    redis.call('HSET', k, 'st', 'done', 'dn', nowtext, 'ow', '', 'tk', '', 'le', '', 'av', '')
    redis.call('ZREM', timer, f[4])
    redis.call('ZADD', done, nowtext, f[4])
    redis.call('ZADD', donerm, f[6], f[7])
    redis.call('EXPIRE', k, ARGV[2])
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
return out
"""
)

#: ``nack``: back to pending after a delay, or to dead at ``max_attempts``.
#: KEYS: event, timer, dead.  ARGV: now ('' for the server's), token, error, seconds before
#: the retry, max_attempts.
#: Answers 0 (lease lost), 1 (pending again) or 2 (dead).
_NACK = (
    _LUA_HELPERS
    + """
local k = KEYS[1]
local _, now = clock(ARGV[1])
local f = held(k, ARGV[2], now)
if not f then return 0 end
if tonumber(f[5]) >= tonumber(ARGV[5]) then
  to_dead(k, f[4], f[6], f[7], ARGV[3], KEYS[2], KEYS[3])
  return 2
end
local avail = later(now, ARGV[4])
redis.call('HSET', k, 'st', 'pending', 'err', ARGV[3], 'av', avail, 'ow', '', 'tk', '',
           'le', '')
redis.call('ZADD', KEYS[2], avail, f[4])
return 1
"""
)

#: ``dead_letter``: straight to the dead state.
#: KEYS: event, timer, dead.  ARGV: now ('' for the server's), token, error.
#: Answers 1, or 0 when the lease was lost.
_DEAD_LETTER = (
    _LUA_HELPERS
    + """
local _, now = clock(ARGV[1])
local f = held(KEYS[1], ARGV[2], now)
if not f then return 0 end
to_dead(KEYS[1], f[4], f[6], f[7], ARGV[3], KEYS[2], KEYS[3])
return 1
"""
)

#: ``release``: give an unprocessed claim back.
#: KEYS: event, timer, ready.  ARGV: now ('' for the server's), token.
#: Back to pending and ready at once, the claim's attempt taken back; 'err' is kept.
#: Answers 1, or 0 when the lease was lost.
_RELEASE = (
    _LUA_HELPERS
    + """
local nowtext, now = clock(ARGV[1])
local f = held(KEYS[1], ARGV[2], now)
if not f then return 0 end
redis.call('HSET', KEYS[1], 'st', 'pending', 'at', tonumber(f[5]) - 1, 'av', nowtext, 'ow', '',
           'tk', '', 'le', '')
redis.call('ZREM', KEYS[2], f[4])
redis.call('ZADD', KEYS[3], f[6], f[7])
return 1
"""
)

#: ``extend``: push the lease expiry (and the event's timer) later.
#: KEYS: event, timer, ready.  ARGV: now ('' for the server's), token, lease seconds from now.
#: Answers 1, or 0 when the lease was lost.
_EXTEND = (
    _LUA_HELPERS
    + """
local _, now = clock(ARGV[1])
local f = held(KEYS[1], ARGV[2], now)
if not f then return 0 end
local exp = later(now, ARGV[3])
redis.call('HSET', KEYS[1], 'le', exp, 'av', exp)
redis.call('ZADD', KEYS[2], exp, f[4])
-- Moved to ready by a host whose clock runs ahead: the lease holds, so it is not ready.
redis.call('ZREM', KEYS[3], f[7])
return 1
"""
)

#: ``requeue``: a dead or done event back to pending, its attempts reset.
#: KEYS: event, ready, dead, done, donerm.  ARGV: now ('' for the server's).
#: Answers 1, or 0 when the event is not dead or done.
_REQUEUE = (
    _LUA_CLOCK
    + """
local k = KEYS[1]
local now = clock(ARGV[1])
local f = redis.call('HMGET', k, 'st', 'sk', 'rm', 'id')
if f[1] ~= 'dead' and f[1] ~= 'done' then return 0 end
redis.call('HSET', k, 'st', 'pending', 'at', 0, 'av', now, 'dn', '', 'ow', '', 'tk', '',
           'le', '')
redis.call('PERSIST', k)
redis.call('ZREM', KEYS[3], f[3])
redis.call('ZREM', KEYS[4], f[4])
redis.call('ZREM', KEYS[5], f[3])
redis.call('ZADD', KEYS[2], f[2], f[3])
return 1
"""
)

#: ``purge``, one batch: delete done events finished before the cutoff.
#: KEYS: done, refs, donerm.  ARGV: exclusive cutoff in seconds (as `_PURGE_DUE` answered it: the
#: server's clock is read once per purge, there), batch size, event key prefix.
#: Answers {deleted, entries looked at}.
_PURGE = """
local cutoff = tonumber(ARGV[1])
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. string.format('%.17g', cutoff),
                       'LIMIT', 0, tonumber(ARGV[2]))
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
    redis.call('ZREM', KEYS[3], f[4])
    deleted = deleted + 1
  end
end
return {deleted, #ids}
"""

#: ``list``: the events of one state (or all), in claim order.
#: KEYS: ready, timer, dead, donerm, donerm's backfill marker.  ARGV: state ('' for any),
#: limit, event key prefix.
#: Answers the HGETALL of up to ``limit`` events of that state, in claim order. ``ready``,
#: ``donerm`` and ``dead`` are in claim order already, so their walk stops after ``limit``
#: matches (a member whose event is gone or was stored again since, another ``rm``, is passed
#: over and not counted). ``timer`` is not: each of its members is looked at (claimed events,
#: and pending ones waiting for a retry). Answers 'unfilled' instead, having read nothing, when
#: done events are wanted and the marker is missing: a store written before ``donerm``, whose
#: caller runs ``_DONE_FILL`` first (never one script walking every done event).
_LIST = """
local want, limit, prefix = ARGV[1], tonumber(ARGV[2]), ARGV[3]
if (want == '' or want == 'done') and redis.call('EXISTS', KEYS[5]) == 0 then
  return 'unfilled'
end
local rows, seen = {}, {}
local function consider(id, rm)
  if seen[id] then return false end
  local f = redis.call('HMGET', prefix .. id, 'st', 'c', 'rm')
  -- A member of an in-order set (rm given) counts only at its event's own place.
  if rm and f[3] ~= rm then return false end
  seen[id] = true
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
      if consider(string.sub(rm, 18), rm) then found = found + 1 end
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
if want == '' or want == 'done' then walk_in_order(KEYS[4]) end
if want == '' or want == 'dead' then walk_in_order(KEYS[3]) end
table.sort(rows, function(a, b)
  if a[1] ~= b[1] then return a[1] < b[1] end
  if a[2] ~= b[2] then return a[2] < b[2] end
  return a[3] < b[3]
end)
local out = {}
for i = 1, math.min(limit, #rows) do out[i] = redis.call('HGETALL', prefix .. rows[i][4]) end
return out
"""

#: ``donerm``'s backfill, one batch: a store written before ``donerm`` existed keeps its done
#: events in ``done`` only. One ``ZSCAN`` step over ``done`` adds the ``rm`` of each of its
#: events still done to ``donerm``; the step that ends the scan sets the marker, from which on
#: ``list`` reads ``donerm`` (a store that began with this version has it from its first put).
#: Safe beside the other scripts: ZSCAN returns every member present for the whole scan, so an
#: event done from before the scan to its end is added (by the batch that meets it, which
#: checks its state then), and every event acked, requeued or purged meanwhile updates
#: ``donerm`` itself. Several processes may run it at once (each with its own
#: cursor): adding a member twice changes nothing.
#: KEYS: done, donerm, marker.  ARGV: cursor ('0' to start), batch size, event key prefix.
#: Answers the next cursor, '0' when the scan (or an earlier one: the marker) is complete.
_DONE_FILL = """
if redis.call('EXISTS', KEYS[3]) == 1 then return '0' end
local page = redis.call('ZSCAN', KEYS[1], ARGV[1], 'COUNT', tonumber(ARGV[2]))
for j = 1, #page[2], 2 do
  local f = redis.call('HMGET', ARGV[3] .. page[2][j], 'st', 'sk', 'rm')
  if f[1] == 'done' then redis.call('ZADD', KEYS[2], f[2], f[3]) end
end
if page[1] == '0' then redis.call('SET', KEYS[3], '1') end
return page[1]
"""


# The outcome journal (see _journal.py). An operation's hash: r referencia, k kind, st state,
# m method, p path, b body, c created, u updated, n journal number, a answer JSON, fe the
# recorded outcome's envelope, sl its sale, pa its pending_after seconds, ab its abandon JSON
# (the last three absent when None), ev the number of events stored with its referencia (a
# sale's payment attempts only: the till's review, see _LUA_WATCH). A sale's hash: id sale id,
# t total_centavos, v version, c created, u updated, s sale number. A terminal's hash: r the
# referencia that last held it, h until when. The journal's times are the host's (passed
# in), never the server's TIME.

#: Lua functions that journal an operation, shared by the journal's insert and a sale's.
#: events_so_far(): how many events stored now carry the referencia (its ``refs`` members
#: whose event is still there: an event can be stored before its journal entry).
#: journal(): writes the operation of ARGV[1..9] (referencia, kind, method, path, body, now,
#: sale or '', pending_after or '', the store's key prefix ``{P}:``) under KEYS[1..5] (op, ops,
#: waiting, opseq, and the sale's saleops when it has a sale); a sale's payment attempt gets
#: its events count and puts its sale in the watch (so the sale's hash must exist by then).
#: The referencia is published on the store's changes channel (``{P}:changes``, where the put
#: script publishes): every process's change listener hears of the journal write.
#: Answers its journal number.
_LUA_JOURNAL = (
    _LUA_WATCH
    + """
local function events_so_far(base, ref)
  local p = string.format('%08d', #ref) .. ':' .. ref .. ':'
  local n = 0
  for _, m in ipairs(redis.call('ZRANGEBYLEX', base .. 'refs', '[' .. p, '(' .. p .. '\\255')) do
    local rm = string.sub(m, #p + 1)
    if redis.call('HGET', base .. 'ev:' .. string.sub(rm, 18), 'rm') == rm then n = n + 1 end
  end
  return n
end
local function journal()
  local n = redis.call('INCR', KEYS[4])
  redis.call('HSET', KEYS[1], 'r', ARGV[1], 'k', ARGV[2], 'st', 'sending', 'm', ARGV[3],
             'p', ARGV[4], 'b', ARGV[5], 'c', ARGV[6], 'u', ARGV[6], 'n', n)
  redis.call('ZADD', KEYS[2], n, ARGV[1])
  redis.call('ZADD', KEYS[3], n, ARGV[1])
  if ARGV[8] ~= '' then redis.call('HSET', KEYS[1], 'pa', ARGV[8]) end
  if ARGV[7] ~= '' then
    redis.call('HSET', KEYS[1], 'sl', ARGV[7])
    redis.call('ZADD', KEYS[5], n, ARGV[1])
    if ARGV[2] == 'payment' then
      redis.call('HSET', KEYS[1], 'ev', events_so_far(ARGV[9], ARGV[1]))
      watch_add(ARGV[9], ARGV[7])
    end
  end
  redis.call('PUBLISH', ARGV[9] .. 'changes', ARGV[1])
  return n
end
"""
)

#: The journal's insert: journal an operation unless its referencia already is.
#: KEYS: op, ops, waiting, opseq, then saleops when the operation has a sale.
#: ARGV: referencia, kind, method, path, body, now, sale or '', pending_after or '', the
#: store's key prefix.
#: Answers the existing operation's HGETALL, or an empty list when it journaled this one.
_J_BEGIN = (
    _LUA_JOURNAL
    + """
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('HGETALL', KEYS[1]) end
journal()
return {}
"""
)

#: A sale's attempt: the sale's compare-and-set and the journal's insert, in one step.
#: KEYS: op, ops, waiting, opseq, saleops, sale, sales, saleseq, then the terminal's key when
#: the attempt holds one.
#: ARGV: as ``_J_BEGIN`` (1-9), total_centavos, expected version ('' for no sale yet),
#: expected holder ('' for none), hold_until.
#: Answers the existing operation's HGETALL (nothing written); 'conflict' when the sale's
#: version or the terminal's holder is not the expected one (nothing written); else an empty
#: list: the sale created (version 1, the next sale number) or its version incremented, the
#: operation journaled (its sale in the watch), the terminal's holder set.
_S_INSERT = (
    _LUA_JOURNAL
    + """
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('HGETALL', KEYS[1]) end
local version = redis.call('HGET', KEYS[6], 'v') or ''
if version ~= ARGV[11] then return 'conflict' end
if KEYS[9] and (redis.call('HGET', KEYS[9], 'r') or '') ~= ARGV[12] then return 'conflict' end
if version == '' then
  local s = redis.call('INCR', KEYS[8])
  redis.call('HSET', KEYS[6], 'id', ARGV[7], 't', ARGV[10], 'v', 1, 'c', ARGV[6], 'u', ARGV[6],
             's', s)
  redis.call('ZADD', KEYS[7], s, ARGV[7])
else
  redis.call('HINCRBY', KEYS[6], 'v', 1)
  redis.call('HSET', KEYS[6], 'u', ARGV[6])
end
journal()
if KEYS[9] then redis.call('HSET', KEYS[9], 'r', ARGV[1], 'h', ARGV[13]) end
return {}
"""
)

#: A sale's abandon: record who, why and when on an operation, once.
#: KEYS: op.  ARGV: the abandon's JSON, now, the store's key prefix.
#: Answers 1, or 0 when the operation is unknown or abandoned already. An abandoned attempt
#: with an event is a candidate: its sale enters the watch. The referencia is published on the
#: store's changes channel.
_S_ABANDON = (
    _LUA_WATCH
    + """
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'ab') == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'ab', ARGV[1], 'u', ARGV[2])
local sale = redis.call('HGET', KEYS[1], 'sl')
if sale then watch(ARGV[3], sale, KEYS[1]) end
redis.call('PUBLISH', ARGV[3] .. 'changes', redis.call('HGET', KEYS[1], 'r'))
return 1
"""
)

#: The journal's update: a new state (and answer) when the current state allows it.
#: KEYS: op, waiting, ended.  ARGV: state, now, answer JSON or '', the store's key prefix,
#: states it may replace...
#: Answers 1, or 0 when unknown or not allowed. A sale's operation into or out of
#: ``rejected`` updates the watch (the waiting states are all candidates: between them
#: nothing changes). A write publishes the referencia on the store's changes channel.
_J_UPDATE = (
    _LUA_WATCH
    + """
local f = redis.call('HMGET', KEYS[1], 'st', 'n', 'r', 'sl')
if not f[1] then return 0 end
local allowed = false
for i = 5, #ARGV do
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
if f[4] and (ARGV[1] == 'rejected' or f[1] == 'rejected') then watch(ARGV[4], f[4], KEYS[1]) end
redis.call('PUBLISH', ARGV[4] .. 'changes', f[3])
return 1
"""
)

#: The journal's finalize: record the outcome's envelope, once.
#: KEYS: op, waiting, ended.  ARGV: the outcome's envelope (JSON), now, the store's key prefix.
#: Answers 1, or 0 when unknown or final already. A sale's operation updates the watch: its
#: sale leaves it when no attempt is a candidate any more (a quiet paid sale). A write
#: publishes the referencia on the store's changes channel.
_LUA_FINALIZE = (
    _LUA_WATCH
    + """
local function finalize(op, waiting, ended, event, now, base)
  local f = redis.call('HMGET', op, 'st', 'r', 'sl')
  if not f[1] or f[1] == 'final' then return 0 end
  redis.call('HSET', op, 'st', 'final', 'fe', event, 'u', now)
  redis.call('ZREM', waiting, f[2])
  redis.call('ZADD', ended, now, f[2])
  if f[3] then watch(base, f[3], op) end
  redis.call('PUBLISH', base .. 'changes', f[2])
  return 1
end
"""
)
_J_FINALIZE = (
    _LUA_FINALIZE
    + """
return finalize(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2], ARGV[3])
"""
)

#: The journal's finalize of several operations in one call (``_journal_finalize_many``).
#: KEYS: waiting, ended.  ARGV: now, the store's key prefix, then (referencia, envelope JSON)
#: pairs.  Answers, per pair in order, 1 when written, 0 when unknown or final already.
_J_FINALIZE_MANY = (
    _LUA_FINALIZE
    + """
local out = {}
for i = 3, #ARGV, 2 do
  out[#out + 1] = finalize(ARGV[2] .. 'op:' .. ARGV[i], KEYS[1], KEYS[2], ARGV[i + 1], ARGV[1],
                           ARGV[2])
end
return out
"""
)

#: The journal's list: members after a score, in score order, with their hashes. Lists
#: operations (ops or waiting, by journal number), a sale's operations (saleops) and sales
#: (sales, or the review's salewatch, by sale number).
#: KEYS: the zset.  ARGV: after (exclusive score), limit (negative: all), the hashes' key prefix.
#: Answers each member's HGETALL (an empty list for a member whose hash is gone).
_J_LIST = """
local refs = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf', 'LIMIT', 0,
                        tonumber(ARGV[2]))
local out = {}
for _, r in ipairs(refs) do out[#out + 1] = redis.call('HGETALL', ARGV[3] .. r) end
return out
"""

#: Lua function that reads the envelopes stored for one referencia (the journal's link to
#: the inbox).
#: events_of(): the bodies stored with the referencia ``ref`` (``refs`` is the store's refs
#: zset, ``ev`` its event key prefix), in arrival order; drops the members whose event is
#: gone (expired by TTL) or was stored again since.
_LUA_EVENTS_OF = """
local function events_of(refs, ev, ref)
  local p = string.format('%08d', #ref) .. ':' .. ref .. ':'
  local out = {}
  for _, m in ipairs(redis.call('ZRANGEBYLEX', refs, '[' .. p, '(' .. p .. '\\255')) do
    local rm = string.sub(m, #p + 1)
    local f = redis.call('HMGET', ev .. string.sub(rm, 18), 'body', 'rm')
    if f[1] and f[2] == rm then out[#out + 1] = f[1] else redis.call('ZREM', refs, m) end
  end
  return out
end
"""

#: The envelopes of several referencias in one call (``_journal_events_many``).
#: KEYS: refs.  ARGV: event key prefix, then the referencias.
#: Answers, per referencia in order, the list of its bodies in arrival order.
_J_EVENTS_MANY = (
    _LUA_EVENTS_OF
    + """
local out = {}
for i = 2, #ARGV do out[#out + 1] = events_of(KEYS[1], ARGV[1], ARGV[i]) end
return out
"""
)

#: The entries of several sales with their events in one call (``_sale_linked_many``).
#: KEYS: refs.  ARGV: the store's key prefix ``{P}:``, then the sale ids.
#: Answers, per sale in order, a list of {HGETALL of an entry, its bodies} by journal number
#: (an entry whose hash is gone is left out).
_S_LINKED = (
    _LUA_EVENTS_OF
    + """
local base = ARGV[1]
local out = {}
for i = 2, #ARGV do
  local entries = {}
  for _, r in ipairs(redis.call('ZRANGE', base .. 'saleops:' .. ARGV[i], 0, -1)) do
    local fields = redis.call('HGETALL', base .. 'op:' .. r)
    if #fields > 0 then
      entries[#entries + 1] = {fields, events_of(KEYS[1], base .. 'ev:', r)}
    end
  end
  out[#out + 1] = entries
end
return out
"""
)

#: The journal's purge, one batch: forget ended operations updated before the cutoff, except
#: those of a sale (a sale is computed from them), which only leave ``ended``.
#: KEYS: ended, ops, waiting.  ARGV: exclusive cutoff, batch size, op key prefix.
#: Answers {operations forgotten, operations looked at}.
_J_PURGE = """
local refs = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local deleted = 0
for _, r in ipairs(refs) do
  local k = ARGV[3] .. r
  if not redis.call('HGET', k, 'sl') then
    redis.call('DEL', k)
    redis.call('ZREM', KEYS[2], r)
    redis.call('ZREM', KEYS[3], r)
    deleted = deleted + 1
  end
  redis.call('ZREM', KEYS[1], r)
end
return {deleted, #refs}
"""


#: Whether a purge has any event to delete, and the cutoff it then deletes before (the
#: server's clock read once when ARGV[1] is ''): KEYS[1] the done set (by done time); ARGV[2]
#: the retention in seconds. When none is due, the journal's waiting entries are not settled
#: first (see JournalBase._settle_waiting).
_PURGE_DUE = (
    _LUA_CLOCK
    + """
local cutoff = tonumber(ARGV[1])
if ARGV[1] == '' then
  local _, now = clock('')
  cutoff = now - tonumber(ARGV[2])
end
local text = string.format('%.17g', cutoff)
local first = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. text, 'LIMIT', 0, 1)
return {text, #first}
"""
)
