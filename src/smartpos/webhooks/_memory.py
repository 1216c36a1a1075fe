"""``MemoryStore``: the inbox in a dictionary, for tests and development.

Nothing survives the process, so a production receiver should use ``SQLiteStore`` or a server
backend. The store is bounded: when ``max_events`` are held, the oldest *done* events are
evicted to make room. Eviction forgets ids, so a redelivery of an evicted id is ``NEW`` again;
pending, claimed and dead events are never evicted, and when nothing can be evicted ``put``
raises ``StoreFullError`` instead of dropping an event.

Claiming is O(log n): available events wait in a heap ordered by ``criado_em``, the others
(claimed, or delayed by ``nack``) in a heap ordered by the time they become available. An
update leaves the old heap entry behind, recognised as stale by its version number, and the
heaps are compacted when stale entries outnumber live ones.
"""

from __future__ import annotations

import collections
import contextlib
import datetime as _dt
import heapq
import itertools
import json
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from smartpos._errors import ConfigurationError
from smartpos._messages import message

if TYPE_CHECKING:
    from ._listener import ChangeSource

from ._journal import CONFLICT
from ._outcomes import ENDED_STATES, WAITING_STATES, Answer, JournalEntry, State
from ._sales import SaleRow
from ._store import DEFAULT_MAX_ATTEMPTS, DEFAULT_RETENTION, StoreBase
from ._store_errors import StoreFullError
from ._store_interface import Claim, EventState, StoredEvent, _Encoded, _stored_event, _utc

__all__ = ["MemoryStore"]

_PENDING, _CLAIMED, _DONE, _DEAD = (
    EventState.PENDING,
    EventState.CLAIMED,
    EventState.DONE,
    EventState.DEAD,
)
# Heaps are compacted only past this many stale entries, so small stores never pay for it.
_COMPACT_MIN_STALE = 1024


class _Record:
    """One stored event; mutated in place under the store's lock."""

    __slots__ = (
        "attempts",
        "available_at",
        "body_hash",
        "criado_em",
        "done_at",
        "id",
        "last_error",
        "lease_expires_at",
        "owner",
        "queued",
        "raw_json",
        "received_at",
        "seq",
        "state",
        "tipo",
        "token",
        "version",
    )

    def __init__(self, encoded: _Encoded, seq: int, now: float) -> None:
        self.id = encoded.id
        self.tipo = encoded.tipo
        self.criado_em = encoded.criado_em
        self.raw_json = encoded.raw_json
        self.body_hash = encoded.body_hash
        self.seq = seq
        self.state = _PENDING
        self.attempts = 0
        self.received_at = now
        self.available_at: float | None = now
        self.owner: str | None = None
        self.token: str | None = None
        self.lease_expires_at: float | None = None
        self.last_error: str | None = None
        self.done_at: float | None = None
        # ``version`` is unique store-wide (never reused, even when an id is readmitted), so a
        # heap entry carrying it is live exactly while the record still has that version.
        self.version = -1
        self.queued = False

    def order(self) -> tuple[bool, float, int]:
        """Claim order: ``criado_em`` first, events without one after, then arrival."""
        return (self.criado_em is None, self.criado_em or 0.0, self.seq)

    def release(self) -> None:
        self.owner = self.token = None
        self.lease_expires_at = None


class MemoryStore(StoreBase):
    """An in-process, thread-safe, bounded inbox for tests and development.

    Nothing survives the process. When ``max_events`` events are held, the oldest done events
    are evicted; an evicted id is forgotten, so its redelivery is ``NEW`` again. Pending,
    claimed and dead events are never evicted: when nothing can be evicted, ``put`` raises
    ``StoreFullError`` (a ``StoreError``, so a receiver answers 503 and the service retries);
    ``put_many`` stores all of its batch or, when there is no room for it, none.

    Args:
        max_events: Most events held at once.
        max_attempts: Claims after which a failing event goes to the dead state.
        retention: How long ``purge()`` keeps done events by default.
        clock: Returns the current time in epoch seconds.

    Raises:
        ConfigurationError: An option is out of range.
    """

    def __init__(
        self,
        max_events: int = 100_000,
        *,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        retention: _dt.timedelta = DEFAULT_RETENTION,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(max_attempts=max_attempts, retention=retention, clock=clock)
        if isinstance(max_events, bool) or not isinstance(max_events, int) or max_events < 1:
            raise ConfigurationError(
                message("webhooks.int_at_least_one", name="max_events", value=max_events)
            )
        self._max_events = max_events
        self._lock = threading.Lock()
        self._events: dict[str, _Record] = {}
        # Ids in the order they became done: the eviction order.
        self._done: collections.OrderedDict[str, None] = collections.OrderedDict()
        self._ready: list[tuple[tuple[bool, float, int], int, str]] = []
        self._waiting: list[tuple[float, int, str]] = []
        self._stale = 0
        self._seq = itertools.count()
        self._versions = itertools.count()
        # The outcome journal, and each event's link to its dados.referencia (arrival order).
        self._operations: dict[str, JournalEntry] = {}
        self._operation_seq = itertools.count(1)
        self._by_referencia: dict[str, list[str]] = {}
        self._referencia_of: dict[str, str] = {}
        self._change_callbacks: list[Callable[[Iterable[str] | None], None]] = []
        # Sales: each sale's row, its entries' referencias, and each terminal's holder.
        self._sales: dict[str, SaleRow] = {}
        self._sale_seq = itertools.count(1)
        self._sale_referencias: dict[str, list[str]] = {}
        self._holders: dict[str, tuple[str, float]] = {}

    def __repr__(self) -> str:
        return f"MemoryStore(max_events={self._max_events})"

    @property
    def max_events(self) -> int:
        """Most events held at once."""
        return self._max_events

    def _insert(self, batch: Sequence[_Encoded], timeout: float | None) -> list[str | None]:
        # Nothing to wait for but the store's own lock, held for microseconds: no timeout.
        kept: list[str | None] = []
        with self._lock:
            self._check_open()
            now = self._now()
            ids = {item.id for item in batch}
            self._make_room(sum(1 for i in ids if i not in self._events), keep=ids)
            for item in batch:
                record = self._events.get(item.id)
                if record is None:
                    record = _Record(item, next(self._seq), now)
                    self._events[item.id] = record
                    self._enqueue(record, now)
                    self._link(item)
                    kept.append(None)
                else:
                    kept.append(record.body_hash)
        return kept

    def claim(self, *, owner: str, lease: float, limit: int = 1) -> list[Claim]:
        self._check_claim(owner, lease, limit)
        claims: list[Claim] = []
        with self._lock:
            self._check_open()
            now = self._now()
            self._promote(now)
            while self._ready and len(claims) < limit:
                _, version, event_id = heapq.heappop(self._ready)
                record = self._live(event_id, version)
                if record is None:
                    continue
                record.queued = False
                expired_error = self._expired_on_last_attempt(record.state, record.attempts)
                if expired_error is not None:
                    self._to_dead(record, expired_error)
                    self._log_expired_to_dead(record.id, record.tipo, record.attempts)
                    continue
                record.state = _CLAIMED
                record.attempts += 1
                record.owner = owner
                record.token = self._new_token()
                record.lease_expires_at = record.available_at = now + lease
                self._enqueue(record, now)
                claims.append(
                    Claim(
                        event_id=record.id,
                        tipo=record.tipo,
                        raw=json.loads(record.raw_json),
                        owner=owner,
                        token=record.token,
                        attempts=record.attempts,
                        lease_expires_at=_utc(record.lease_expires_at),
                    )
                )
            self._maybe_compact()
        return claims

    def ack(self, claim: Claim) -> bool:
        with self._lock:
            self._check_open()
            now = self._now()
            record = self._held(claim, now)
            if record is None:
                return False
            self._dequeue(record)
            record.release()
            record.state = _DONE
            record.available_at = None
            record.done_at = now
            self._done[record.id] = None
            return True

    def nack(self, claim: Claim, *, error: str, retry_in: float) -> bool:
        self._check_seconds("retry_in", retry_in, positive=False)
        with self._lock:
            self._check_open()
            now = self._now()
            record = self._held(claim, now)
            if record is None:
                return False
            if self._last_attempt(record.attempts):
                self._to_dead(record, error)
                return True
            self._dequeue(record)
            record.release()
            record.state = _PENDING
            record.last_error = error
            record.available_at = now + retry_in
            self._enqueue(record, now)
            return True

    def dead_letter(self, claim: Claim, *, error: str) -> bool:
        with self._lock:
            self._check_open()
            record = self._held(claim, self._now())
            if record is None:
                return False
            self._to_dead(record, error)
            return True

    def release(self, claim: Claim) -> bool:
        with self._lock:
            self._check_open()
            now = self._now()
            record = self._held(claim, now)
            if record is None:
                return False
            self._dequeue(record)
            record.release()
            record.state = _PENDING
            record.attempts -= 1
            record.available_at = now
            self._enqueue(record, now)
            return True

    def extend(self, claim: Claim, *, lease: float) -> bool:
        self._check_seconds("lease", lease, positive=True)
        with self._lock:
            self._check_open()
            now = self._now()
            record = self._held(claim, now)
            if record is None:
                return False
            record.lease_expires_at = record.available_at = now + lease
            self._enqueue(record, now)
            return True

    def get(self, event_id: str) -> StoredEvent | None:
        with self._lock:
            self._check_open()
            record = self._events.get(event_id)
            return None if record is None else _stored(record)

    def _list(self, state: EventState | None, limit: int) -> list[StoredEvent]:
        with self._lock:
            self._check_open()
            records = self._events.values()
            wanted = records if state is None else (r for r in records if r.state is state)
            return [_stored(r) for r in heapq.nsmallest(limit, wanted, key=_Record.order)]

    def requeue(self, event_id: str) -> bool:
        with self._lock:
            self._check_open()
            record = self._events.get(event_id)
            if record is None or record.state not in (_DEAD, _DONE):
                return False
            now = self._now()
            self._done.pop(event_id, None)
            record.state = _PENDING
            record.attempts = 0
            record.done_at = None
            record.available_at = now
            self._enqueue(record, now)
            return True

    def purge(self, *, done_before: _dt.datetime | None = None) -> int:
        self._settle_waiting()
        with self._lock:
            self._check_open()
            cutoff = self._purge_cutoff(done_before)
            old = [i for i in self._done if (self._events[i].done_at or 0.0) < cutoff]
            for event_id in old:
                del self._done[event_id]
                del self._events[event_id]
                self._unlink(event_id)
            return len(old) + self._purge_operations(cutoff)

    def close(self) -> None:
        """Drop every event; the store is unusable afterwards."""
        with self._lock:
            self._closed = True
            self._events.clear()
            self._done.clear()
            self._ready.clear()
            self._waiting.clear()
            self._operations.clear()
            self._by_referencia.clear()
            self._referencia_of.clear()
            self._sales.clear()
            self._sale_referencias.clear()
            self._holders.clear()

    # Internals; every one runs under self._lock.

    def _make_room(self, needed: int, *, keep: set[str]) -> None:
        """Evict the oldest done events, except those in ``keep``, until ``needed`` fit."""
        excess = len(self._events) + needed - self._max_events
        if excess <= 0:
            return
        evictable = len(self._done) - sum(1 for i in keep if i in self._done)
        if excess > evictable:
            raise StoreFullError(
                f"MemoryStore is full: {len(self._events)} events are held, {evictable} of "
                f"them evictable, and {needed} new ones do not fit in max_events="
                f"{self._max_events}. Ack events, raise max_events, or use SQLiteStore.",
                applied=False,
            )
        kept: list[str] = []
        while excess:
            event_id, _ = self._done.popitem(last=False)
            if event_id in keep:
                kept.append(event_id)
                continue
            del self._events[event_id]
            self._unlink(event_id)
            excess -= 1
        for event_id in reversed(kept):
            self._done[event_id] = None
            self._done.move_to_end(event_id, last=False)

    def _held(self, claim: Claim, now: float) -> _Record | None:
        record = self._events.get(claim.event_id)
        if (
            record is None
            or record.token is None
            or record.token != claim.token
            or record.lease_expires_at is None
            or record.lease_expires_at <= now
        ):
            return None
        return record

    def _to_dead(self, record: _Record, error: str) -> None:
        self._dequeue(record)
        record.release()
        record.state = _DEAD
        record.available_at = None
        record.last_error = error

    def _live(self, event_id: str, version: int) -> _Record | None:
        record = self._events.get(event_id)
        if record is None or record.version != version:
            self._stale -= 1
            return None
        return record

    def _dequeue(self, record: _Record) -> None:
        if record.queued:
            self._stale += 1
            record.queued = False
        record.version = next(self._versions)

    def _enqueue(self, record: _Record, now: float) -> None:
        self._dequeue(record)
        record.queued = True
        available_at = record.available_at
        assert available_at is not None
        if available_at <= now:
            heapq.heappush(self._ready, (record.order(), record.version, record.id))
        else:
            heapq.heappush(self._waiting, (available_at, record.version, record.id))

    def _promote(self, now: float) -> None:
        while self._waiting and self._waiting[0][0] <= now:
            _, version, event_id = heapq.heappop(self._waiting)
            record = self._live(event_id, version)
            if record is not None:
                heapq.heappush(self._ready, (record.order(), version, event_id))

    def _maybe_compact(self) -> None:
        live = len(self._ready) + len(self._waiting) - self._stale
        if self._stale < _COMPACT_MIN_STALE or self._stale < live:
            return

        def is_live(event_id: str, version: int) -> bool:
            record = self._events.get(event_id)
            return record is not None and record.version == version

        self._ready = [e for e in self._ready if is_live(e[2], e[1])]
        self._waiting = [e for e in self._waiting if is_live(e[2], e[1])]
        heapq.heapify(self._ready)
        heapq.heapify(self._waiting)
        self._stale = 0

    def _link(self, item: _Encoded) -> None:
        if item.referencia is not None:
            self._by_referencia.setdefault(item.referencia, []).append(item.id)
            self._referencia_of[item.id] = item.referencia
            self._announce(item.referencia)

    def _announce(self, referencia: str) -> None:
        """Tell the change listener that ``referencia`` changed: an event stored with it, or
        a journal write of its operation (insert, state, outcome, abandon)."""
        for callback in self._change_callbacks:
            callback((referencia,))

    def _unlink(self, event_id: str) -> None:
        referencia = self._referencia_of.pop(event_id, None)
        if referencia is None:
            return
        ids = self._by_referencia[referencia]
        ids.remove(event_id)
        if not ids:
            del self._by_referencia[referencia]

    def _purge_operations(self, cutoff: float) -> int:
        old = [
            r
            for r, e in self._operations.items()
            if e.state in ENDED_STATES and e.updated_at < cutoff and e.sale is None
        ]
        for referencia in old:
            del self._operations[referencia]
        return len(old)

    def _change_source(self) -> ChangeSource:
        from ._listener import MemoryChanges

        return MemoryChanges(self._subscribe_changes)

    def _subscribe_changes(
        self, callback: Callable[[Iterable[str] | None], None]
    ) -> Callable[[], None]:
        """Call ``callback`` (under the store's lock: it must be quick) on every linked put and
        every journal write, with the referencia."""
        with self._lock:
            self._change_callbacks.append(callback)
        store = weakref.ref(self)  # the listener's thread holds this: it must not keep us

        def unsubscribe() -> None:
            owner = store()
            if owner is not None:
                with owner._lock, contextlib.suppress(ValueError):
                    owner._change_callbacks.remove(callback)

        return unsubscribe

    # The outcome journal's primitives (see _journal.py); each runs under self._lock.

    def _journal_get(self, referencia: str) -> JournalEntry | None:
        with self._lock:
            self._check_open()
            return self._operations.get(referencia)

    def _journal_insert(self, entry: JournalEntry) -> JournalEntry | None:
        with self._lock:
            self._check_open()
            existing = self._operations.get(entry.referencia)
            if existing is not None:
                return existing
            self._operations[entry.referencia] = attrs.evolve(entry, seq=next(self._operation_seq))
            if entry.sale is not None:
                self._sale_referencias.setdefault(entry.sale, []).append(entry.referencia)
            self._announce(entry.referencia)
            return None

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
        with self._lock:
            self._check_open()
            entry = self._operations.get(referencia)
            if entry is None or entry.state not in allowed_from:
                return False
            self._operations[referencia] = attrs.evolve(
                entry, state=state, updated_at=now, answer=answer or entry.answer
            )
            self._announce(referencia)
            return True

    def _journal_finalize(self, referencia: str, event: Mapping[str, Any], now: float) -> bool:
        with self._lock:
            self._check_open()
            entry = self._operations.get(referencia)
            if entry is None or entry.state == "final":
                return False
            self._operations[referencia] = attrs.evolve(
                entry, state="final", updated_at=now, final_event=event
            )
            self._announce(referencia)
            return True

    def _journal_list(self, *, waiting: bool, after: int, limit: int) -> list[JournalEntry]:
        with self._lock:
            self._check_open()
            found: list[JournalEntry] = []
            # Entries are kept in journaling order, which is seq order.
            for entry in self._operations.values():
                if entry.seq > after and (not waiting or entry.state in WAITING_STATES):
                    found.append(entry)
                    if len(found) == limit:
                        break
            return found

    def _journal_events(self, referencia: str) -> list[Mapping[str, Any]]:
        with self._lock:
            self._check_open()
            ids = self._by_referencia.get(referencia, ())
            return [json.loads(self._events[i].raw_json) for i in ids]

    # Sales (see _journal.py); each runs under self._lock.

    def _sale_get(self, sale_id: str) -> SaleRow | None:
        with self._lock:
            self._check_open()
            return self._sales.get(sale_id)

    def _sale_entries(self, sale_id: str) -> list[JournalEntry]:
        with self._lock:
            self._check_open()
            found = (self._operations.get(r) for r in self._sale_referencias.get(sale_id, ()))
            return [entry for entry in found if entry is not None]

    def _sale_list(self, *, after: int, limit: int) -> list[SaleRow]:
        with self._lock:
            self._check_open()
            # Sales are kept in creation order, which is seq order.
            found: list[SaleRow] = []
            for row in self._sales.values():
                if row.seq > after:
                    found.append(row)
                    if len(found) == limit:
                        break
            return found

    def _sale_candidates(self, *, after: int, limit: int) -> list[SaleRow]:
        # Not indexed: a MemoryStore holds what a test or a development run sells.
        with self._lock:
            self._check_open()
            found: list[SaleRow] = []
            for row in self._sales.values():
                if row.seq <= after:
                    continue
                entries = (self._operations.get(r) for r in self._sale_referencias[row.sale_id])
                if any(e is not None and self._candidate(e) for e in entries):
                    found.append(row)
                    if len(found) == limit:
                        break
            return found

    def _candidate(self, entry: JournalEntry) -> bool:
        if entry.kind != "payment":
            return False
        events = len(self._by_referencia.get(entry.referencia, ()))
        # The recorded outcome is one even after the inbox's purge (or eviction) dropped it.
        events = max(events, int(entry.final_event is not None))
        ended = entry.abandoned is not None or entry.state == "rejected"
        return entry.state in WAITING_STATES or events >= 2 or (events >= 1 and ended)

    def _terminal_get(self, smartpos_id: str) -> tuple[str, float] | None:
        with self._lock:
            self._check_open()
            return self._holders.get(smartpos_id)

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
        with self._lock:
            self._check_open()
            existing = self._operations.get(entry.referencia)
            if existing is not None:
                return existing
            assert entry.sale is not None
            row = self._sales.get(entry.sale)
            if (None if row is None else row.version) != expected_version:
                return CONFLICT
            if terminal is not None:
                held = self._holders.get(terminal)
                if (None if held is None else held[0]) != expected_holder:
                    return CONFLICT
                self._holders[terminal] = (entry.referencia, hold_until)
            if row is None:
                row = SaleRow(
                    sale_id=entry.sale,
                    total_centavos=total_centavos,
                    version=1,
                    created_at=entry.created_at,
                    updated_at=entry.created_at,
                    seq=next(self._sale_seq),
                )
            else:
                row = attrs.evolve(row, version=row.version + 1, updated_at=entry.created_at)
            self._sales[entry.sale] = row
            self._operations[entry.referencia] = attrs.evolve(entry, seq=next(self._operation_seq))
            self._sale_referencias.setdefault(entry.sale, []).append(entry.referencia)
            self._announce(entry.referencia)
            return None

    def _sale_abandon(self, referencia: str, abandon: Mapping[str, Any], now: float) -> bool:
        with self._lock:
            self._check_open()
            entry = self._operations.get(referencia)
            if entry is None or entry.abandoned is not None:
                return False
            self._operations[referencia] = attrs.evolve(
                entry, abandoned=dict(abandon), updated_at=now
            )
            self._announce(referencia)
            return True


def _stored(record: _Record) -> StoredEvent:
    return _stored_event(
        (
            record.id,
            record.tipo,
            record.criado_em,
            record.raw_json,
            record.body_hash,
            record.state,
            record.attempts,
            record.received_at,
            record.available_at,
            record.owner,
            record.lease_expires_at,
            record.last_error,
            record.done_at,
        )
    )
