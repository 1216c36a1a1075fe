"""The inbox interface every store backend implements: dedup and at-least-once delivery.

The model is an SQS visibility timeout. ``put`` is one atomic insert-if-absent; ``claim`` hands
out pending events with a lease (a random token and an expiry); ``ack``, ``nack`` and
``extend`` only apply while that token still holds the lease, so a worker whose lease ran out
can never overwrite the work of the next owner. An event that fails ``max_attempts`` times goes
to the ``dead`` state, where it can be listed and requeued. A crash at any point loses nothing:
an event is only ``done`` after the partner's handler said so.

A "seen" set marked before processing loses the event when the process dies mid-way: this
interface exists so that nobody builds the inbox that way.
"""

from __future__ import annotations

import datetime as _dt
import enum
import hashlib
import json
import logging
import math
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

import attrs

from smartpos._errors import ConfigurationError, SmartPOSError

if TYPE_CHECKING:
    from ._events import Event

__all__ = [
    "DEFAULT_MAX_ATTEMPTS",
    "DEFAULT_RETENTION",
    "Claim",
    "EventLike",
    "EventState",
    "PutResult",
    "Store",
    "StoreBase",
    "StoreError",
    "StoreFullError",
    "StoredEvent",
    "body_hash",
    "canonical_json",
]

#: Failed attempts after which an event is moved to the dead state.
DEFAULT_MAX_ATTEMPTS = 10
#: How long a finished event's id is remembered: longer than redeliveries and manual resends.
DEFAULT_RETENTION = _dt.timedelta(days=7)

_logger = logging.getLogger("smartpos.webhooks")


class StoreError(SmartPOSError):
    """The store's backend failed (database locked too long, disk full, unreachable, corrupt).

    A receiver answers 503 so that the service delivers the event again later; a worker backs
    off and tries again. The message names the backend's error, never an event's contents.
    """


class StoreFullError(StoreError):
    """A bounded store has no room: every slot holds an event that is not done yet."""


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


def canonical_json(raw: Mapping[str, Any]) -> str:
    """Serialize an envelope the same way every time (sorted keys, no spaces, UTF-8)."""
    return json.dumps(raw, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def body_hash(raw: Mapping[str, Any]) -> str:
    """Return the SHA-256 hex digest of an envelope's canonical JSON (dedup vs conflict)."""
    return hashlib.sha256(canonical_json(raw).encode("utf-8")).hexdigest()


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

    def put(self, event: EventLike) -> PutResult:
        """Insert the event if its id is new; atomic across threads and processes."""
        ...

    def put_many(self, events: Sequence[EventLike]) -> list[PutResult]:
        """Insert several events in one transaction (group commit); results in input order."""
        ...

    def claim(self, *, owner: str, lease: float, limit: int = 1) -> list[Claim]:
        """Lease up to ``limit`` available events, oldest ``criado_em`` first."""
        ...

    def ack(self, claim: Claim) -> bool:
        """Mark the event done; ``False`` when the claim had lost its lease."""
        ...

    def ack_many(self, claims: Sequence[Claim]) -> list[bool]:
        """Mark several events done in one transaction; one ``ack`` result per claim, in order."""
        ...

    def nack(self, claim: Claim, *, error: str, retry_in: float) -> bool:
        """Release the event for a later attempt (or to dead after ``max_attempts``)."""
        ...

    def dead_letter(self, claim: Claim, *, error: str) -> bool:
        """Move the event straight to the dead state (it can never succeed as is)."""
        ...

    def extend(self, claim: Claim, *, lease: float) -> bool:
        """Push the lease expiry to now + ``lease``; ``False`` when the lease was lost."""
        ...

    def get(self, event_id: str) -> StoredEvent | None:
        """Return the stored record of an event, or ``None``."""
        ...

    def dead(self, *, limit: int = 100) -> list[StoredEvent]:
        """List dead events, oldest first."""
        ...

    def requeue(self, event_id: str) -> bool:
        """Make a dead (or done) event pending again with its attempts reset."""
        ...

    def purge(self, *, done_before: _dt.datetime | None = None) -> int:
        """Delete done events finished before ``done_before`` (default: now - retention)."""
        ...

    def close(self) -> None:
        """Release connections; the store is unusable afterwards."""
        ...


_S = TypeVar("_S", bound="StoreBase")


def _utc(ts: float) -> _dt.datetime:
    """Turn epoch seconds (the stores' time unit) into an aware UTC datetime."""
    return _dt.datetime.fromtimestamp(ts, tz=_dt.timezone.utc)


def _utc_or_none(ts: float | None) -> _dt.datetime | None:
    return None if ts is None else _utc(ts)


def _aware_timestamp(value: _dt.datetime, name: str) -> float:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{name} must be a timezone-aware datetime")
    return value.timestamp()


@attrs.frozen(slots=True)
class _Encoded:
    """An event reduced to what a backend writes: canonical JSON once, hashed once."""

    id: str
    tipo: str
    criado_em: float | None
    raw_json: str = attrs.field(repr=False)
    body_hash: str


class StoreBase:
    """What every backend shares: the clock, the limits, argument checks and the conflict log.

    A backend subclasses it and implements the ``Store`` methods. ``ack_many`` here is a loop
    over ``ack``; a backend that can do it in one transaction overrides it. Every store is a
    context manager that closes itself.

    Args:
        max_attempts: Claims after which a failing event goes to the dead state (``nack`` at
            that attempt, or a lease that expires again).
        retention: How long ``purge()`` keeps done events by default.
        clock: Returns the current time in epoch seconds; every expiry uses it.

    Raises:
        ConfigurationError: ``max_attempts`` below 1 or a negative ``retention``.
    """

    def __init__(
        self,
        *,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        retention: _dt.timedelta = DEFAULT_RETENTION,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise ConfigurationError(f"max_attempts must be an int >= 1, not {max_attempts!r}")
        if not isinstance(retention, _dt.timedelta) or retention < _dt.timedelta(0):
            raise ConfigurationError(f"retention must be a timedelta >= 0, not {retention!r}")
        if not callable(clock):
            raise ConfigurationError("clock must be a callable returning epoch seconds")
        self._max_attempts = max_attempts
        self._retention = retention
        self._clock = clock

    @property
    def max_attempts(self) -> int:
        """Claims after which a failing event goes to the dead state."""
        return self._max_attempts

    @property
    def retention(self) -> _dt.timedelta:
        """How long ``purge()`` keeps done events by default."""
        return self._retention

    def ack(self, claim: Claim) -> bool:
        """Mark the event done; ``False`` when the claim had lost its lease."""
        raise NotImplementedError

    def ack_many(self, claims: Sequence[Claim]) -> list[bool]:
        """Ack several claims; one result per claim, in order.

        Args:
            claims: Claims returned by ``claim``.

        Returns:
            ``ack(claim)`` for each claim.
        """
        return [self.ack(claim) for claim in claims]

    def close(self) -> None:
        """Release connections; the store is unusable afterwards."""
        raise NotImplementedError

    def __enter__(self: _S) -> _S:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # Helpers for backends.

    def _now(self) -> float:
        return float(self._clock())

    def _purge_cutoff(self, done_before: _dt.datetime | None) -> float:
        if done_before is None:
            return self._now() - self._retention.total_seconds()
        return _aware_timestamp(done_before, "done_before")

    @staticmethod
    def _new_token() -> str:
        return secrets.token_hex(16)

    @staticmethod
    def _encode(event: EventLike) -> _Encoded:
        event_id, tipo, criado_em = event.id, event.tipo, event.criado_em
        if not isinstance(event_id, str) or not event_id:
            raise ValueError("an event needs a non-empty string id")
        if not isinstance(tipo, str):
            raise ValueError("an event needs a string tipo")
        text = canonical_json(event.raw)
        return _Encoded(
            id=event_id,
            tipo=tipo,
            criado_em=None if criado_em is None else _aware_timestamp(criado_em, "criado_em"),
            raw_json=text,
            body_hash=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        )

    @staticmethod
    def _check_claim(owner: str, lease: float, limit: int) -> None:
        if not isinstance(owner, str) or not owner:
            raise ValueError("owner must be a non-empty string")
        StoreBase._check_seconds("lease", lease, positive=True)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be an int >= 1, not {limit!r}")

    @staticmethod
    def _check_seconds(name: str, value: float, *, positive: bool) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"{name} must be a number of seconds, not {type(value).__name__}")
        if not math.isfinite(value) or value < 0 or (positive and value == 0):
            bound = "> 0" if positive else ">= 0"
            raise ValueError(f"{name} must be a finite number {bound} of seconds, not {value!r}")

    @staticmethod
    def _lease_expired_error(attempts: int) -> str:
        return f"lease expired without ack, nack or dead_letter on attempt {attempts}"

    @staticmethod
    def _log_conflict(event_id: str, tipo: str, kept_hash: str, new_hash: str) -> None:
        # The id, tipo and hashes are the service's, not personal data; the body never is logged.
        _logger.warning(
            "webhook event %s (%s) arrived again with a different body; the first one is kept "
            "(stored sha256 %s..., new sha256 %s...)",
            event_id,
            tipo,
            kept_hash[:12],
            new_hash[:12],
        )
