"""``StoreBase``: what every store backend shares, written once.

The interface itself (the ``Store`` protocol, the records it takes and returns, the model of
dedup and leases) is in ``_store_interface.py``; its public names are re-exported here, where
tests and backends written outside the package import them from. Here are the public methods'
documentation, argument checks and results, the "dead at ``max_attempts``" decisions, the
conflict log and the translation of a client library's errors into ``StoreError``.
"""

from __future__ import annotations

import builtins
import datetime as _dt
import functools
import hashlib
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import ParamSpec, TypeVar

from smartpos._errors import ConfigurationError
from smartpos._messages import message

from ._events import envelope_problem, utc_problem
from ._journal import JournalBase
from ._logsafe import configure_logging, loggable
from ._outcomes import referencia_of
from ._seconds import check_seconds
from ._store_errors import StoreError, StoreFullError
from ._store_interface import (
    Claim,
    EventLike,
    EventState,
    PutResult,
    Store,
    StoredEvent,
    _canonical,
    _Encoded,
    body_hash,
    canonical_json,
)

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


_S = TypeVar("_S", bound="StoreBase")

# The ``last_error`` of an event whose lease ran out on its last attempt, as the text before and
# after the attempt number: RedisStore and PostgresStore build it on the server from these parts.
_LEASE_EXPIRED_ERROR = ("lease expired without ack, nack or dead_letter on attempt ", "")


def _lease_expired_error(attempts: int) -> str:
    """The ``last_error`` of an event whose lease ran out on attempt ``attempts``, its last."""
    head, tail = _LEASE_EXPIRED_ERROR
    return f"{head}{attempts}{tail}"


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _translating(
    errors: type[Exception], to_store_error: Callable[[Exception], StoreError]
) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Make a decorator that turns a client library's ``errors`` into ``StoreError``s.

    A receiver answers 503 on a ``StoreError`` and a worker backs off, so a backend's own
    exceptions must not escape its methods.

    Args:
        errors: The client library's base exception class.
        to_store_error: Builds the ``StoreError`` (or a subclass) raised in its place.

    Returns:
        The decorator.
    """

    def decorator(method: Callable[_P, _R]) -> Callable[_P, _R]:
        @functools.wraps(method)
        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            try:
                return method(*args, **kwargs)
            except errors as exc:
                raise to_store_error(exc) from exc

        return wrapper

    return decorator


def _aware_timestamp(value: _dt.datetime, name: str) -> float:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{name} must be a timezone-aware datetime")
    return value.timestamp()


class StoreBase(JournalBase):
    """What every backend shares: the public methods' documentation, argument checks and results.

    A backend subclasses it and implements the ``Store`` methods, inheriting their docstrings
    from here. ``put`` and ``put_many`` are written here once: a backend implements
    ``_insert`` (store what is new, report what was already there) and this class turns that
    into ``PutResult``s and logs conflicts. ``dead`` and ``list`` check their arguments here and
    call the backend's ``_list``. ``ack_many`` here is a loop over ``ack``; a backend that can do
    it in one transaction overrides it. Every store is a context manager that closes itself.
    The outcome journal (``operation``, ``operations``) comes from ``JournalBase``, over the
    backend's ``_journal_*`` primitives.

    A backend failure raises ``StoreError`` (``MigrationRequiredError`` from a
    ``PostgresStore`` that was never migrated) and changes nothing.

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
            raise ConfigurationError(
                message("webhooks.int_at_least_one", name="max_attempts", value=max_attempts)
            )
        if not isinstance(retention, _dt.timedelta) or retention < _dt.timedelta(0):
            raise ConfigurationError(message("webhooks.retention", value=retention))
        if not callable(clock):
            raise ConfigurationError(message("webhooks.clock"))
        configure_logging()
        self._max_attempts = max_attempts
        self._retention = retention
        self._clock = clock
        self._closed = False

    @property
    def max_attempts(self) -> int:
        """Claims after which a failing event goes to the dead state."""
        return self._max_attempts

    @property
    def retention(self) -> _dt.timedelta:
        """How long ``purge()`` keeps done events by default."""
        return self._retention

    def put(self, event: EventLike, *, timeout: float | None = None) -> PutResult:
        """Store the event if its id is new, atomically (insert-if-absent), durably.

        Args:
            event: A parsed event or any object with ``id``, ``tipo``, ``criado_em`` and
                ``raw``.
            timeout: Seconds the call may wait for the backend (a lock held by another
                process, a busy server, a free connection) before it fails with
                ``StoreError``; ``None`` waits as long as the store's own settings allow.
                A receiver passes its ``store_timeout`` so that it can answer in time.

        Returns:
            ``NEW``, ``DUPLICATE`` (same id, same body) or ``CONFLICT`` (same id, different
            body: logged, the first one kept).

        Raises:
            StoreError: The backend failed or did not answer within ``timeout``
                (``StoreFullError``: a ``MemoryStore`` has no room and no done event to
                evict); nothing was stored.
            ValueError: The event cannot be stored by any backend: an ``id`` or ``tipo``
                that is empty, longer than 256 characters or holds a control character or a
                lone surrogate; a naive ``criado_em``, or one outside the years 1 to 9999 in
                UTC; a ``raw`` that is not JSON (``NaN``, a ``datetime``).
        """
        self._check_timeout(timeout)
        item = self._encode(event)
        return self._put_result(item, self._insert((item,), timeout)[0])

    def put_many(
        self, events: Sequence[EventLike], *, timeout: float | None = None
    ) -> builtins.list[PutResult]:
        """Store several events in one transaction (group commit): all of them or none.

        Every event is checked first, so an event no backend can hold raises ``ValueError``
        before anything is written. A receiver's group commit checks each delivery on its own
        before batching it, and puts the members of a failed batch one by one, so that one
        event never fails the others.

        Args:
            events: Events to store; an id repeated in the batch is ``DUPLICATE`` or
                ``CONFLICT`` after its first occurrence.
            timeout: As for ``put``, for the whole batch.

        Returns:
            One ``PutResult`` per event, in input order.

        Raises:
            StoreError: The backend failed or did not answer within ``timeout``
                (``StoreFullError``: not enough room in a ``MemoryStore``, even after
                evicting done events); nothing was stored.
            ValueError: An event cannot be stored (see ``put``); its position is named and
                nothing was stored.
        """
        self._check_timeout(timeout)
        batch = [self._encode_member(index, event) for index, event in enumerate(events)]
        if not batch:
            return []
        return self._put_results(batch, self._insert(batch, timeout))

    def claim(self, *, owner: str, lease: float, limit: int = 1) -> builtins.list[Claim]:
        """Lease up to ``limit`` available events, oldest ``criado_em`` first, then arrival.

        Available are pending events whose retry time has come and claimed events whose lease
        ran out; one of the latter that was already claimed ``max_attempts`` times goes to the
        dead state instead of being handed out again.

        Args:
            owner: Who holds the lease (shown by ``get``), e.g. a worker's name.
            lease: Seconds before the event may be claimed again unless acked or extended.
            limit: Most events to claim.

        Returns:
            The claims, possibly none.

        Raises:
            StoreError: The backend failed; nothing was claimed.
            ValueError: An empty owner, a lease that is not a positive number of seconds, or
                a limit below 1.
        """
        raise NotImplementedError

    def ack(self, claim: Claim) -> bool:
        """Mark the event done.

        Args:
            claim: A claim returned by ``claim``.

        Returns:
            ``False`` (and nothing changed) when the claim no longer holds the lease.

        Raises:
            StoreError: The backend failed; nothing changed.
        """
        raise NotImplementedError

    def ack_many(self, claims: Sequence[Claim]) -> builtins.list[bool]:
        """Ack several claims (in one transaction where the backend can); results in order.

        Args:
            claims: Claims returned by ``claim``.

        Returns:
            ``ack(claim)`` for each claim.

        Raises:
            StoreError: The backend failed.
        """
        return [self.ack(claim) for claim in claims]

    def nack(self, claim: Claim, *, error: str, retry_in: float) -> bool:
        """Give the event back for another attempt after ``retry_in`` seconds.

        At the ``max_attempts``-th attempt the event goes to the dead state instead.

        Args:
            claim: A claim returned by ``claim``.
            error: Why the attempt failed; kept as ``last_error``.
            retry_in: Seconds before the event can be claimed again.

        Returns:
            ``False`` (and nothing changed) when the claim no longer holds the lease.

        Raises:
            StoreError: The backend failed; nothing changed.
            ValueError: ``retry_in`` is not a number of seconds >= 0.
        """
        raise NotImplementedError

    def dead_letter(self, claim: Claim, *, error: str) -> bool:
        """Move the event to the dead state at once (it cannot succeed as it is).

        Args:
            claim: A claim returned by ``claim``.
            error: Why; kept as ``last_error``.

        Returns:
            ``False`` (and nothing changed) when the claim no longer holds the lease.

        Raises:
            StoreError: The backend failed; nothing changed.
        """
        raise NotImplementedError

    def release(self, claim: Claim) -> bool:
        """Give a claim back unprocessed: claimable again at once, the attempt not counted.

        For a worker that claimed a batch and cannot go on with it (it is stopping, or the
        store failed on an earlier event of the batch): unlike ``nack``, the claim's attempt
        is taken back (the next claim has the same ``attempts`` as this one had), the event
        never goes to the dead state, and ``last_error`` is kept.

        Args:
            claim: A claim returned by ``claim``.

        Returns:
            ``False`` (and nothing changed) when the claim no longer holds the lease.

        Raises:
            StoreError: The backend failed; nothing changed.
        """
        raise NotImplementedError

    def extend(self, claim: Claim, *, lease: float) -> bool:
        """Move the lease's expiry to now + ``lease`` seconds.

        Args:
            claim: A claim returned by ``claim``.
            lease: Seconds from now.

        Returns:
            ``False`` (and nothing changed) when the claim no longer holds the lease.

        Raises:
            StoreError: The backend failed; nothing changed.
            ValueError: ``lease`` is not a positive number of seconds.
        """
        raise NotImplementedError

    def get(self, event_id: str) -> StoredEvent | None:
        """Return the stored record of an event, or ``None`` when unknown (or purged).

        Raises:
            StoreError: The backend failed.
        """
        raise NotImplementedError

    def dead(self, *, limit: int = 100) -> builtins.list[StoredEvent]:
        """List up to ``limit`` dead events, oldest ``criado_em`` first, then arrival.

        Raises:
            StoreError: The backend failed.
        """
        return self.list(state=EventState.DEAD, limit=limit)

    def list(
        self, *, state: EventState | None = None, limit: int = 100
    ) -> builtins.list[StoredEvent]:
        """List up to ``limit`` events, oldest first in claim order: ``criado_em``, then arrival.

        Events without a ``criado_em`` come after those with one. This is for inspection
        (``smartpos events list``, dashboards), not for processing: use ``claim``.

        Args:
            state: Only events in this state (an ``EventState`` or its value), or all.
            limit: Most events to list; below 1, none.

        Returns:
            The stored records.

        Raises:
            StoreError: The backend failed.
            ValueError: An unknown state.
            TypeError: ``limit`` is not an int.
        """
        if isinstance(limit, bool) or not isinstance(limit, int):
            raise TypeError(f"limit must be an int, not {type(limit).__name__}")
        wanted = None if state is None else EventState(state)
        return self._list(wanted, limit) if limit > 0 else []

    def requeue(self, event_id: str) -> bool:
        """Make a dead or done event pending again with its attempts reset to 0.

        Returns:
            ``False`` when the event is unknown, pending or claimed.

        Raises:
            StoreError: The backend failed.
        """
        raise NotImplementedError

    def purge(self, *, done_before: _dt.datetime | None = None) -> int:
        """Forget done events finished before ``done_before`` (default: now - retention).

        The outcome journal expires the same way: operations that ended (``final`` or
        ``rejected``) and were last updated before ``done_before`` are forgotten too.

        Returns:
            How many events and operations were deleted. Pending, claimed and dead events
            are kept, and so are operations still waiting for an outcome.

        Raises:
            StoreError: The backend failed.
            ValueError: ``done_before`` is a naive datetime.
        """
        raise NotImplementedError

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

    # What a backend implements besides the public methods (``builtins.list`` in annotations:
    # inside this class, ``list`` is the method).

    def _insert(
        self, batch: Sequence[_Encoded], timeout: float | None
    ) -> builtins.list[str | None]:
        """Store the events whose id is new, in one transaction, in order.

        ``timeout`` (checked: ``None`` or finite seconds >= 0) bounds the waits for the
        backend, as ``put`` documents.

        Returns:
            Per event, ``None`` when it was stored, else the body hash already stored under
            its id (an earlier event of the batch counts: the first occurrence wins).
        """
        raise NotImplementedError

    def _list(self, state: EventState | None, limit: int) -> builtins.list[StoredEvent]:
        """``list`` with its arguments checked: ``limit`` >= 1."""
        raise NotImplementedError

    # Helpers for backends.

    def _now(self) -> float:
        return float(self._clock())

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"this {type(self).__name__} is closed")

    def _purge_cutoff(self, done_before: _dt.datetime | None) -> float:
        if done_before is None:
            return self._now() - self._retention.total_seconds()
        return _aware_timestamp(done_before, "done_before")

    def _last_attempt(self, attempts: int) -> bool:
        """Whether a failure of an event claimed ``attempts`` times sends it to dead."""
        return attempts >= self._max_attempts

    def _expired_on_last_attempt(self, state: str, attempts: int) -> str | None:
        """The ``last_error`` that sends an available event to dead instead of a new claim.

        An event found still ``claimed`` by ``claim`` had its lease run out: that counts as a
        failed attempt, so at ``max_attempts`` it is dead. ``None`` when it may be claimed.
        """
        if state == EventState.CLAIMED and attempts >= self._max_attempts:
            return _lease_expired_error(attempts)
        return None

    @staticmethod
    def _log_expired_to_dead(event_id: str, tipo: str, attempts: int) -> None:
        """Log an event that ``claim`` moved to dead: its lease ran out on its last attempt.

        The worker logs the dead-letters it makes itself; these happen in the store, where the
        worker that held the lease (a crashed one, as a rule) never hears of them.
        """
        _logger.error(
            "webhook event %s (%s) ran out of its lease on attempt %d, its last (its worker "
            "died or stalled): moved to the dead letters (requeue it once the cause is fixed)",
            loggable(event_id),
            loggable(tipo),
            attempts,
        )

    def _put_result(self, item: _Encoded, kept_hash: str | None) -> PutResult:
        """Turn ``_insert``'s answer for one event into its ``PutResult``, logging a conflict."""
        if kept_hash is None:
            return PutResult.NEW
        if kept_hash == item.body_hash:
            return PutResult.DUPLICATE
        self._log_conflict(item.id, item.tipo, kept_hash, item.body_hash)
        return PutResult.CONFLICT

    def _put_results(
        self, batch: Sequence[_Encoded], kept: Sequence[str | None]
    ) -> builtins.list[PutResult]:
        """``_put_result`` for each event of a batch, in order."""
        return [self._put_result(item, h) for item, h in zip(batch, kept, strict=True)]

    @staticmethod
    def _new_token() -> str:
        return secrets.token_hex(16)

    @staticmethod
    def _encode(event: EventLike) -> _Encoded:
        event_id, tipo, criado_em = event.id, event.tipo, event.criado_em
        if not isinstance(event_id, str) or not event_id:
            raise ValueError("an event needs a non-empty string id")
        if not isinstance(tipo, str) or not tipo:
            raise ValueError("an event needs a non-empty string tipo")
        for name, value in (("id", event_id), ("tipo", tipo)):
            problem = envelope_problem(value)
            if problem is not None:
                raise ValueError(f"the event's {name} cannot be stored: {problem}")
        timestamp: float | None = None
        if criado_em is not None:
            timestamp = _aware_timestamp(criado_em, "criado_em")
            problem = utc_problem(criado_em)
            if problem is not None:
                raise ValueError(f"criado_em cannot be stored: {problem}")
        try:
            text, data = _canonical(event.raw)
        except (TypeError, ValueError, RecursionError) as exc:
            raise ValueError(f"the event's raw is not storable JSON: {exc}") from None
        return _Encoded(
            id=event_id,
            tipo=tipo,
            criado_em=timestamp,
            raw_json=text,
            body_hash=hashlib.sha256(data).hexdigest(),
            referencia=referencia_of(event.raw),
        )

    @staticmethod
    def _encode_member(index: int, event: EventLike) -> _Encoded:
        try:
            return StoreBase._encode(event)
        except ValueError as exc:
            raise ValueError(f"event {index} of the batch: {exc}") from exc

    @staticmethod
    def _check_timeout(timeout: float | None) -> None:
        if timeout is not None:
            StoreBase._check_seconds("timeout", timeout, positive=False)

    @staticmethod
    def _check_claim(owner: str, lease: float, limit: int) -> None:
        if not isinstance(owner, str) or not owner:
            raise ValueError("owner must be a non-empty string")
        StoreBase._check_seconds("lease", lease, positive=True)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError(f"limit must be an int >= 1, not {limit!r}")

    @staticmethod
    def _check_seconds(name: str, value: float, *, positive: bool) -> None:
        check_seconds(name, value, positive=positive)

    @staticmethod
    def _log_conflict(event_id: str, tipo: str, kept_hash: str, new_hash: str) -> None:
        # The id, tipo and hashes are the service's, not personal data; the body never is logged.
        _logger.warning(
            "webhook event %s (%s) arrived again with a different body; the first one is kept "
            "(stored sha256 %s..., new sha256 %s...)",
            loggable(event_id),
            loggable(tipo),
            kept_hash[:12],
            new_hash[:12],
        )
