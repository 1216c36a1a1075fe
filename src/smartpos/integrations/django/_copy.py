"""Copy an inbox, its outcome journal and its sales from any store into a ``DjangoStore``.

What ``python manage.py smartpos_copy`` runs. The source is read through the store API
(``list()`` for the events, the journal's and sales' paged readers for the rest); the
destination is written through the app's models, on the destination's alias, in
transactions of `BATCH` rows that take the store's write lock first (as its own writes
do).

Only what is absent is inserted: an event by its id, an operation by its referencia, a sale
by its id. A row the destination holds already is kept as it is (it may be live there), so
running the copy twice copies nothing twice. Each row keeps its state: an event its state,
attempts, last error, lease owner and times (``done_at``...); an operation its state,
request, answer, final event and abandon; a sale its total and version. A claimed event
keeps its claim but not the claim's token (which no store shows): nobody can ack it in the
destination, and it is claimable again once its lease runs out, as after a worker's crash.

Not copied: the terminals' holds (at most ``terminal_hold`` seconds, 300 by default): copy
with the shop's workers and web processes stopped, and start them on the destination.
"""

from __future__ import annotations

import datetime as _dt
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Final

import attrs

from smartpos.webhooks._outcomes import JournalEntry, referencia_of
from smartpos.webhooks._sales import SaleRow
from smartpos.webhooks._store_interface import EventState, StoredEvent, canonical_json

if TYPE_CHECKING:
    from smartpos.webhooks._store import StoreBase

    from ._store import DjangoStore

__all__ = ["BATCH", "CopyReport", "copy_store"]

#: Rows per read of the source's journal and sales, and per write transaction.
BATCH: Final = 500

#: ``list()``'s limit that means "every event" (no store has a paged event listing).
_EVERY: Final = 2**62


@attrs.define
class CopyReport:
    """What a copy inserted, and what the destination held already (kept as it was).

    Attributes:
        events: Events copied, by state (``pending``, ``claimed``, ``done``, ``dead``).
        events_present: Events the destination held already.
        events_differing: Of those, the ones stored with another body there (the
            destination's kept: look at both before trusting either).
        operations: Journal entries copied.
        operations_present: Journal entries the destination held already.
        sales: Sales copied.
        sales_present: Sales the destination held already.
    """

    events: Counter[str] = attrs.Factory(Counter)
    events_present: int = 0
    events_differing: list[str] = attrs.Factory(list)
    operations: int = 0
    operations_present: int = 0
    sales: int = 0
    sales_present: int = 0


def _epoch(when: _dt.datetime | None) -> float | None:
    return None if when is None else when.timestamp()


def _chunks(items: Sequence[Any], size: int = BATCH) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _linkable(referencia: str | None) -> str | None:
    # As DjangoStore writes it: PostgreSQL's text cannot hold NUL.
    return None if referencia is None or "\x00" in referencia else referencia


def _event_row(event: StoredEvent, now: float) -> dict[str, Any]:
    waiting = event.state in (EventState.PENDING, EventState.CLAIMED)
    available = _epoch(event.available_at) or _epoch(event.lease_expires_at) or now
    return {
        "event_id": event.id,
        "tipo": event.tipo,
        "criado_em": _epoch(event.criado_em),
        "raw": canonical_json(event.raw),
        "body_hash": event.body_hash,
        "state": EventState(event.state).value,
        "attempts": event.attempts,
        "received_at": event.received_at.timestamp(),
        # DjangoStore's invariant: not NULL exactly while pending or claimed.
        "available_at": available if waiting else None,
        "owner": event.owner if event.state == EventState.CLAIMED else None,
        "token": None,
        "lease_expires_at": _epoch(event.lease_expires_at)
        if event.state == EventState.CLAIMED
        else None,
        "last_error": event.last_error,
        "done_at": _epoch(event.done_at),
        "referencia": _linkable(referencia_of(event.raw)),
    }


def _operation_row(entry: JournalEntry) -> dict[str, Any]:
    return {
        "referencia": entry.referencia,
        "kind": entry.kind,
        "state": entry.state,
        "method": entry.method,
        "path": entry.path,
        "body": bytes(entry.body),
        "answer": None if entry.answer is None else entry.answer.to_json(),
        "final_event": None if entry.final_event is None else canonical_json(entry.final_event),
        "created_at": float(entry.created_at),
        "updated_at": float(entry.updated_at),
        "sale": entry.sale,
        "pending_after": entry.pending_after,
        "abandoned": None if entry.abandoned is None else canonical_json(entry.abandoned),
        "events": 0,  # counted from the events once both are copied
    }


def _sale_row(row: SaleRow) -> dict[str, Any]:
    return {
        "sale_id": row.sale_id,
        "total_centavos": row.total_centavos,
        "version": row.version,
        "created_at": float(row.created_at),
        "updated_at": float(row.updated_at),
    }


def _paged(read: Any) -> Iterator[Sequence[Any]]:
    """Pages of a source's ``_journal_list``/``_sale_list`` style reader (by ``seq``)."""
    after = 0
    while True:
        page = read(after=after, limit=BATCH)
        if page:
            yield page
        if len(page) < BATCH:
            return
        after = page[-1].seq


class _Writer:
    """Inserts the absent rows of one model on the destination, a batch per transaction."""

    def __init__(self, destination: DjangoStore, model: Any, key: str, *, dry_run: bool) -> None:
        self._destination = destination
        self._model = model
        self._key = key
        self._dry_run = dry_run

    def present(self, keys: Iterable[str]) -> dict[str, Any]:
        """The destination's rows among ``keys``: key -> row (only the key and a hash)."""
        fields = [self._key, "body_hash"] if self._key == "event_id" else [self._key]
        found: dict[str, Any] = {}
        manager = self._model.objects.using(self._destination.using)
        for chunk in _chunks(list(keys)):
            for values in manager.filter(**{f"{self._key}__in": chunk}).values(*fields):
                found[values[self._key]] = values
        return found

    def insert(self, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Insert the rows whose key is absent; return them (nothing written on a dry run)."""
        if not rows:
            return []
        if self._dry_run:
            there = self.present(row[self._key] for row in rows)
            return [row for row in rows if row[self._key] not in there]
        # The store's write transaction: SQLite's write lock is taken before anything is read.
        with self._destination._write():
            there = self.present(row[self._key] for row in rows)
            absent = [row for row in rows if row[self._key] not in there]
            self._model.objects.using(self._destination.using).bulk_create(
                [self._model(**row) for row in absent], ignore_conflicts=True
            )
        return absent


def copy_store(source: StoreBase, destination: DjangoStore, *, dry_run: bool = False) -> CopyReport:
    """Copy every event, journal entry and sale of ``source`` absent from ``destination``.

    Args:
        source: Any store (SQLite, PostgreSQL, Redis, memory, another ``DjangoStore``).
        destination: The ``DjangoStore`` to fill (migrated).
        dry_run: Count what would be copied; write nothing.

    Returns:
        The counts.

    Raises:
        StoreError: A store failed; what was committed before stays (run it again).
    """
    from django.db.models import Count, OuterRef, Subquery, Value
    from django.db.models.functions import Coalesce

    from . import models

    report = CopyReport()
    touched: set[str] = set()

    sales = _Writer(destination, models.Sale, "sale_id", dry_run=dry_run)
    for page in _paged(source._sale_list):
        copied = sales.insert([_sale_row(row) for row in page])
        report.sales += len(copied)
        report.sales_present += len(page) - len(copied)

    operations = _Writer(destination, models.Operation, "referencia", dry_run=dry_run)

    def journal(*, after: int, limit: int) -> list[JournalEntry]:
        return source._journal_list(waiting=False, after=after, limit=limit)

    for page in _paged(journal):
        copied = operations.insert([_operation_row(entry) for entry in page])
        report.operations += len(copied)
        report.operations_present += len(page) - len(copied)
        touched.update(row["referencia"] for row in copied if row["sale"] is not None)

    events = _Writer(destination, models.Event, "event_id", dry_run=dry_run)
    now = destination._now()
    listed = source.list(limit=_EVERY)
    for chunk in _chunks(listed):
        rows = [_event_row(event, now) for event in chunk]
        copied = events.insert(rows)
        copied_ids = {row["event_id"] for row in copied}
        present = [row for row in rows if row["event_id"] not in copied_ids]
        if present:
            there = events.present(row["event_id"] for row in present)
            report.events_differing += [
                row["event_id"]
                for row in present
                if row["event_id"] in there
                and there[row["event_id"]]["body_hash"] != row["body_hash"]
            ]
        report.events.update(row["state"] for row in copied)
        report.events_present += len(present)
        touched.update(row["referencia"] for row in copied if row["referencia"] is not None)

    if not dry_run and touched:
        # The attempts' event counts (the index of the sales needing attention), as
        # DjangoStore keeps them when it stores an event or journals an attempt.
        counted = (
            models.Event.objects.using(destination.using)
            .filter(referencia=OuterRef("referencia"))
            .order_by()
            .values("referencia")
            .annotate(n=Count("seq"))
            .values("n")
        )
        for chunk in _chunks(sorted(touched)):
            with destination._write():
                models.Operation.objects.using(destination.using).filter(
                    referencia__in=chunk, sale__isnull=False
                ).update(events=Coalesce(Subquery(counted), Value(0)))
    return report
