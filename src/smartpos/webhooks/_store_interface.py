"""The inbox interface every store backend implements: dedup and at-least-once delivery.

The model is an SQS visibility timeout. ``put`` is one atomic insert-if-absent; ``claim`` hands
out pending events with a lease (a random token and an expiry); ``ack``, ``nack`` and
``extend`` only apply while that token still holds the lease, so a worker whose lease ran out
can never overwrite the work of the next owner. An event that fails ``max_attempts`` times goes
to the ``dead`` state, where it can be listed and requeued. A crash at any point loses nothing:
an event is only ``done`` after the partner's handler said so.

Every store gives the same answer for the same event: what one backend could not hold (an id
with NUL for PostgreSQL, a lone surrogate for all of them, a ``criado_em`` whose UTC instant
falls outside Python's calendar) is refused by ``put`` with the same ``ValueError`` before any
backend sees it, and a lone surrogate inside the body is stored as its JSON escape.

A "seen" set marked before processing loses the event when the process dies mid-way: this
interface exists so that nobody builds the inbox that way.

The shared implementation a backend subclasses is ``StoreBase`` (``_store.py``). The two
shapes an event takes inside a backend live here with the records: ``_Encoded`` (what
``put`` writes) and ``_stored_event`` (a row read back as a ``StoredEvent``).
"""

from __future__ import annotations

import builtins
import datetime as _dt
import enum
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import attrs

from ._events import escape_lone_surrogates

if TYPE_CHECKING:
    from ._events import Event
    from ._outcomes import Operation

__all__ = [
    "Claim",
    "EventLike",
    "EventState",
    "PutResult",
    "Store",
    "StoredEvent",
    "body_hash",
    "canonical_json",
]


class PutResult(enum.Enum):
    """What ``Store.put`` did with an event."""

    NEW = "new"
    """First time this id was seen: stored as pending."""
    DUPLICATE = "duplicate"
    """Same id and same content as an event already stored: nothing written."""
    CONFLICT = "conflict"
    """Same id, different content: the first one is kept, the new one is logged and dropped."""


class EventState(str, enum.Enum):
    """Life cycle of a stored event."""

    PENDING = "pending"
    CLAIMED = "claimed"
    DONE = "done"
    DEAD = "dead"

    def __str__(self) -> str:
        return self.value


@runtime_checkable
class EventLike(Protocol):
    """What a store needs of an event: every parsed ``Event`` fits, and so does an envelope."""

    @property
    def id(self) -> str: ...

    @property
    def tipo(self) -> str: ...

    @property
    def criado_em(self) -> _dt.datetime | None: ...

    @property
    def raw(self) -> Mapping[str, Any]: ...


def _canonical(raw: Mapping[str, Any]) -> tuple[str, bytes]:
    """The canonical JSON text of an envelope and its UTF-8 bytes."""
    text = json.dumps(
        raw, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    try:
        return text, text.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate ("\ud800" in the body) encodes nowhere: keep its JSON escape,
        # which decodes back to the very same str.
        data = escape_lone_surrogates(text)
        return data.decode("utf-8"), data


def canonical_json(raw: Mapping[str, Any]) -> str:
    """Serialize an envelope the same way every time (sorted keys, no spaces, UTF-8).

    Lone surrogates are written as their ``\\uXXXX`` escapes, so the text always encodes.

    Raises:
        TypeError: A value is not JSON (a ``datetime``, a set).
        ValueError: A float is ``NaN`` or infinite, or the mapping contains itself.
    """
    return _canonical(raw)[0]


def body_hash(raw: Mapping[str, Any]) -> str:
    """Return the SHA-256 hex digest of an envelope's canonical JSON (dedup vs conflict)."""
    return hashlib.sha256(_canonical(raw)[1]).hexdigest()


@attrs.frozen(slots=True)
class StoredEvent:
    """A stored event as ``Store.get`` and ``Store.dead`` return it."""

    id: str
    tipo: str
    criado_em: _dt.datetime | None
    raw: Mapping[str, Any] = attrs.field(repr=False)
    body_hash: str = attrs.field(repr=False)
    state: EventState
    attempts: int
    received_at: _dt.datetime
    available_at: _dt.datetime | None = None
    owner: str | None = None
    lease_expires_at: _dt.datetime | None = None
    last_error: str | None = None
    done_at: _dt.datetime | None = None

    @property
    def event(self) -> Event:
        """The typed event; raises ``InvalidEventError`` when ``dados`` fails the schema."""
        from ._events import parse_event

        return parse_event(self.raw)


@attrs.frozen(slots=True)
class Claim:
    """A lease on one event, held by ``owner`` until ``lease_expires_at`` unless extended.

    ``attempts`` is 1 on the first claim of an event and grows by one on every later claim.
    ``token`` is what proves ownership to ``ack``, ``nack`` and ``extend``.
    """

    event_id: str
    tipo: str
    raw: Mapping[str, Any] = attrs.field(repr=False)
    owner: str
    token: str = attrs.field(repr=False)
    attempts: int
    lease_expires_at: _dt.datetime

    @property
    def event(self) -> Event:
        """The typed event; raises ``InvalidEventError`` when ``dados`` fails the schema.

        The receiver stores events whose ``dados`` does not match the typed schema (it must
        answer 2xx and lose nothing); the mismatch surfaces here, in the worker, so the event
        can be dead-lettered, inspected and requeued after an upgrade.
        """
        from ._events import parse_event

        return parse_event(self.raw)


class Store(Protocol):
    """The one interface of every inbox backend (Memory, SQLite, Redis, PostgreSQL).

    All times are wall-clock seconds from the store's injectable ``clock`` (default
    ``time.time``). ``lease``/``retry_in`` are seconds.
    """

    # ``builtins.list`` in the annotations: inside this class, ``list`` is the method.

    def put(self, event: EventLike, *, timeout: float | None = None) -> PutResult:
        """Insert the event if its id is new; atomic across threads and processes."""
        ...

    def put_many(
        self, events: Sequence[EventLike], *, timeout: float | None = None
    ) -> builtins.list[PutResult]:
        """Insert several events in one transaction (group commit); results in input order."""
        ...

    def claim(self, *, owner: str, lease: float, limit: int = 1) -> builtins.list[Claim]:
        """Lease up to ``limit`` available events, oldest ``criado_em`` first."""
        ...

    def ack(self, claim: Claim) -> bool:
        """Mark the event done; ``False`` when the claim had lost its lease."""
        ...

    def ack_many(self, claims: Sequence[Claim]) -> builtins.list[bool]:
        """Mark several events done in one transaction; one ``ack`` result per claim, in order."""
        ...

    def nack(self, claim: Claim, *, error: str, retry_in: float) -> bool:
        """Release the event for a later attempt (or to dead after ``max_attempts``)."""
        ...

    def dead_letter(self, claim: Claim, *, error: str) -> bool:
        """Move the event straight to the dead state (it can never succeed as is)."""
        ...

    def release(self, claim: Claim) -> bool:
        """Give an unprocessed claim back at once, without counting it as an attempt."""
        ...

    def extend(self, claim: Claim, *, lease: float) -> bool:
        """Push the lease expiry to now + ``lease``; ``False`` when the lease was lost."""
        ...

    def get(self, event_id: str) -> StoredEvent | None:
        """Return the stored record of an event, or ``None``."""
        ...

    def dead(self, *, limit: int = 100) -> builtins.list[StoredEvent]:
        """List dead events, oldest first."""
        ...

    def list(
        self, *, state: EventState | None = None, limit: int = 100
    ) -> builtins.list[StoredEvent]:
        """List events (of one state, or all), oldest first in claim order."""
        ...

    def requeue(self, event_id: str) -> bool:
        """Make a dead (or done) event pending again with its attempts reset."""
        ...

    def purge(self, *, done_before: _dt.datetime | None = None) -> int:
        """Delete done events and ended operations older than ``done_before``."""
        ...

    def close(self) -> None:
        """Release connections; the store is unusable afterwards."""
        ...

    def operation(self, referencia: str) -> Operation | None:
        """Return the journaled operation of ``referencia`` with its outcome, or ``None``."""
        ...

    def operations(self, *, final: bool = False, limit: int = 100) -> builtins.list[Operation]:
        """List journaled operations still waiting for an outcome (or all), oldest first."""
        ...


# What backends share of the records: times, a row read back, an event about to be written.


def _utc(ts: float) -> _dt.datetime:
    """Turn epoch seconds (the stores' time unit) into an aware UTC datetime."""
    return _dt.datetime.fromtimestamp(ts, tz=_dt.timezone.utc)


def _utc_or_none(ts: float | None) -> _dt.datetime | None:
    return None if ts is None else _utc(ts)


def _stored_event(
    row: Sequence[Any],
    *,
    to_datetime: Callable[[Any], _dt.datetime] = _utc,
    to_raw: Callable[[Any], Mapping[str, Any]] = json.loads,
) -> StoredEvent:
    """Build a ``StoredEvent`` from a backend's row, its values in ``StoredEvent``'s field order.

    Args:
        row: ``id, tipo, criado_em, raw, body_hash, state, attempts, received_at,
            available_at, owner, lease_expires_at, last_error, done_at``; an absent optional
            time is ``None``.
        to_datetime: Turns a stored time into an aware UTC datetime (default: epoch seconds).
        to_raw: Turns the stored envelope into a mapping (default: JSON text).

    Returns:
        The record.
    """
    (
        event_id,
        tipo,
        criado_em,
        raw,
        hash_,
        state,
        attempts,
        received_at,
        available_at,
        owner,
        lease_expires_at,
        last_error,
        done_at,
    ) = row
    return StoredEvent(
        id=event_id,
        tipo=tipo,
        criado_em=_criado_em(criado_em, to_datetime),
        raw=to_raw(raw),
        body_hash=hash_,
        state=EventState(state),
        attempts=attempts,
        received_at=to_datetime(received_at),
        available_at=None if available_at is None else to_datetime(available_at),
        owner=owner,
        lease_expires_at=None if lease_expires_at is None else to_datetime(lease_expires_at),
        last_error=last_error,
        done_at=None if done_at is None else to_datetime(done_at),
    )


def _criado_em(value: Any, to_datetime: Callable[[Any], _dt.datetime]) -> _dt.datetime | None:
    # A row written by an older smartpos may hold a time outside Python's calendar (year 0):
    # it reads as "no criado_em" rather than failing every get and list of the inbox.
    if value is None:
        return None
    try:
        return to_datetime(value)
    except (OverflowError, ValueError, OSError):
        return None


@attrs.frozen(slots=True)
class _Encoded:
    """An event reduced to what a backend writes: canonical JSON once, hashed once."""

    id: str
    tipo: str
    criado_em: float | None
    raw_json: str = attrs.field(repr=False)
    body_hash: str
    referencia: str | None = None
    """``dados.referencia`` when it is a string: stores link the event to it (the journal)."""
