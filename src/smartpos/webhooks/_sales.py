"""Sales: one sale, many attempts, paid once. The pure rules (no I/O at all).

A referencia is one attempt. A sale (a tab, an order, a ticket) may need several: a refusal
and a retry, a split bill, a cashier who gives up. A client with a store journals each
attempt of a sale with the sale's key (``sale=``) and this module decides, from the sale's
journal entries and their events, what the sale is: ``open``, ``in_progress`` or ``paid``,
how much is approved and what remains, and what needs a human (``pendencias``).

The rules:

- An attempt is **open** while its operation is ``sending``, ``accepted`` or ``unknown``, no
  final event of it is stored, and it was not abandoned. One open attempt per sale.
- An approval **counts** when its attempt was not abandoned; the sale is ``paid`` when the
  counted approvals add up to its total.
- An approval of an abandoned attempt is a **late approval**: money the customer paid that
  the sale did not take; a compensation refund (journaled under the sale, with the
  deterministic referencia of ``compensation_referencia``) takes it off the pendências once
  the service accepted it (not while it is refused, unknown, or journaled and never sent).
- **no_outcome**: an attempt not abandoned and without a final event, ``unknown``, or
  ``sending``/``accepted`` longer than its ``pending_after``.
- The anomalies of the attempts (a contradiction, a duplicate, a disagreement, an unreadable
  or a refused attempt's event) are pendências too: a human decides.
- A terminal is **held** by an open ``imediato`` attempt of a sale until its final event, its
  abandon, or its ``terminal_hold`` seconds after it was journaled.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Iterable, Sequence
from typing import Final, Literal, TypeAlias, get_args

import attrs

from ._events import Event, PagamentoAprovado
from ._outcomes import WAITING_STATES, Abandon, Operation

__all__ = [
    "SALE_STATES",
    "Abandon",
    "Pendencia",
    "PendenciaReason",
    "Sale",
    "SaleRow",
    "SaleState",
    "SaleTerms",
    "build_sale",
    "compensation_referencia",
    "counted_valor",
    "is_open",
    "split",
]

SaleState: TypeAlias = Literal["open", "in_progress", "paid"]
"""``open``: no attempt running and something remains; ``in_progress``: an attempt is open;
``paid``: the counted approvals add up to the total."""
PendenciaReason: TypeAlias = Literal[
    "late_approval",
    "no_outcome",
    "contradiction",
    "duplicate",
    "disagreement",
    "unreadable",
    "rejected",
]
"""Why a sale needs a human."""

SALE_STATES: Final[tuple[SaleState, ...]] = get_args(SaleState)


def _utc(ts: float) -> _dt.datetime:
    return _dt.datetime.fromtimestamp(ts, tz=_dt.timezone.utc)


@attrs.frozen(slots=True)
class Pendencia:
    """Something about a sale that needs a human before the till closes.

    Attributes:
        reason: ``"late_approval"`` (an approval of an abandoned attempt, not compensated),
            ``"no_outcome"`` (an attempt whose outcome is still unknown) or the reason of an
            anomaly of an attempt (``"contradiction"``, ``"duplicate"``, ``"disagreement"``,
            ``"unreadable"``, ``"rejected"``).
        referencia: The attempt's referencia.
        event: The event concerned, or ``None`` (``no_outcome``, an unreadable event).
        since: When the condition began: the event's storing, or the attempt's journaling
            plus its ``pending_after`` (for ``unknown``: when it became unknown).
    """

    reason: PendenciaReason
    referencia: str
    event: Event | None = attrs.field(repr=False)
    since: _dt.datetime


@attrs.frozen(slots=True)
class Sale:
    """A sale and its attempts, computed when it is read (``store.sale(sale_id)``).

    Attributes:
        sale_id: The partner's own key of the sale.
        state: ``"open"``, ``"in_progress"`` or ``"paid"``.
        total_centavos: What the sale costs (fixed by its first attempt).
        approved_centavos: The counted approvals' sum.
        remaining_centavos: ``total_centavos - approved_centavos`` (never below 0).
        attempts: The payment attempts (``Operation``), oldest first.
        approvals: The counted ``PagamentoAprovado`` events, oldest attempt first.
        pendencias: What needs a human (``Pendencia``), in attempt order.
        compensations: The compensation refunds' operations, oldest first.
        created_at: When its first attempt was journaled (aware, UTC).
        updated_at: When it or one of its attempts last changed (aware, UTC).
    """

    sale_id: str
    state: SaleState
    total_centavos: int
    approved_centavos: int
    remaining_centavos: int
    attempts: list[Operation] = attrs.field(repr=False)
    approvals: list[PagamentoAprovado] = attrs.field(repr=False)
    pendencias: list[Pendencia] = attrs.field(repr=False)
    compensations: list[Operation] = attrs.field(repr=False)
    created_at: _dt.datetime
    updated_at: _dt.datetime

    @property
    def open_attempt(self) -> Operation | None:
        """The attempt running now, or ``None``."""
        return next((op for op in self.attempts if is_open(op)), None)

    @property
    def attention(self) -> bool:
        """Whether a human must look at it (it has pendências)."""
        return bool(self.pendencias)


@attrs.frozen(slots=True)
class SaleRow:
    """A sale as a store keeps it (SDK use): its total and a version bumped by each attempt.

    Attributes:
        sale_id: The sale's key.
        total_centavos: Fixed by the first attempt.
        version: Incremented by each attempt journaled (the compare-and-set of one attempt at
            a time); an abandon only ends an attempt, so it needs none.
        created_at: Epoch seconds.
        updated_at: Epoch seconds.
        seq: Orders sales by creation.
    """

    sale_id: str
    total_centavos: int
    version: int
    created_at: float
    updated_at: float
    seq: int = 0


@attrs.frozen(slots=True)
class SaleTerms:
    """What a journaled call knows of its sale (SDK use): the rules' inputs.

    Attributes:
        sale_id: The sale's key.
        total_centavos: The total the caller passed, or ``None`` (the sale's, or this amount).
        valor_centavos: This attempt's amount.
        smartpos_id: The terminal it charges (``None`` in manual mode without one).
        imediato: An ``imediato`` charge (it holds the terminal).
        terminal_hold: Seconds the hold lasts at most; 0: no hold.
        pending_after: Seconds after which an attempt without outcome needs a human.
        attempt: ``False`` for a compensation refund: journaled under the sale, no checks.
    """

    sale_id: str
    total_centavos: int | None = None
    valor_centavos: int = 0
    smartpos_id: str | None = None
    imediato: bool = True
    terminal_hold: float = 300.0
    pending_after: float = 600.0
    attempt: bool = True


def compensation_referencia(referencia: str) -> str:
    """The referencia of the refund that compensates the late approval of ``referencia``."""
    from smartpos._referencia import referencia_for

    return referencia_for(f"compensacao:{referencia}")


def is_open(operation: Operation) -> bool:
    """Whether an attempt is open: waiting, no final event, not abandoned."""
    return (
        operation.state in WAITING_STATES
        and operation.event is None
        and operation.abandoned is None
    )


def counted_valor(operation: Operation) -> int:
    """The amount an approved attempt counts: the event's ``valor_centavos``, else the request's."""
    event = operation.event
    valor = getattr(getattr(event, "dados", None), "valor_centavos", None)
    if isinstance(valor, int) and not isinstance(valor, bool):
        return valor
    return _request_valor(operation.body)


def _request_valor(body: bytes) -> int:
    import json

    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return 0
    valor = data.get("valorCentavos") if isinstance(data, dict) else None
    return valor if isinstance(valor, int) and not isinstance(valor, bool) else 0


def build_sale(
    row: SaleRow,
    attempts: Sequence[Operation],
    compensations: Sequence[Operation],
    *,
    now: float,
    pending_after: Callable[[str], float | None],
    stored_at: Callable[[str], float | None],
) -> Sale:
    """Compute a sale from its row, its attempts and its compensation refunds.

    Args:
        row: The sale as stored.
        attempts: Its payment attempts, oldest first, settled with their events.
        compensations: Its compensation refunds, oldest first.
        now: The store's clock (epoch seconds).
        pending_after: An attempt's ``pending_after`` seconds by referencia (``None``: never).
        stored_at: When the store took an event, by id (``None``: unknown, then ``now``).
    """
    # Only a refund the service accepted compensates: one refused, one whose answer is unknown
    # (a 5xx, a read timeout: it may never have happened) or one journaled but never sent (a
    # process cut before its send) leaves the late approval a pendência (reconcile settles it).
    unsettled = {op.referencia for op in compensations if op.state not in ("accepted", "final")}
    compensated = {op.referencia for op in compensations} - unsettled
    approvals: list[PagamentoAprovado] = []
    approved = 0
    pendencias: list[Pendencia] = []
    updated = row.updated_at
    for op in attempts:
        updated = max(updated, op.updated_at.timestamp())
        event = op.event
        if isinstance(event, PagamentoAprovado):
            if op.abandoned is None:
                approvals.append(event)
                approved += counted_valor(op)
            elif compensation_referencia(op.referencia) not in compensated:
                since = stored_at(event.id)
                pendencias.append(
                    Pendencia("late_approval", op.referencia, event, _utc(since or now))
                )
        if op.abandoned is None and event is None and op.state in WAITING_STATES:
            after = pending_after(op.referencia)
            if op.state == "unknown":
                pendencias.append(Pendencia("no_outcome", op.referencia, None, op.updated_at))
            elif after is not None and now >= op.created_at.timestamp() + after:
                late = _utc(op.created_at.timestamp() + after)
                pendencias.append(Pendencia("no_outcome", op.referencia, None, late))
        for anomaly in op.anomalies:
            since = stored_at(anomaly.id)
            pendencias.append(
                Pendencia(anomaly.reason, op.referencia, anomaly.event, _utc(since or now))
            )
    for op in compensations:
        updated = max(updated, op.updated_at.timestamp())
    state: SaleState
    if approved >= row.total_centavos:
        state = "paid"
    elif any(is_open(op) for op in attempts):
        state = "in_progress"
    else:
        state = "open"
    return Sale(
        sale_id=row.sale_id,
        state=state,
        total_centavos=row.total_centavos,
        approved_centavos=approved,
        remaining_centavos=max(row.total_centavos - approved, 0),
        attempts=list(attempts),
        approvals=approvals,
        pendencias=pendencias,
        compensations=list(compensations),
        created_at=_utc(row.created_at),
        updated_at=_utc(updated),
    )


def split(operations: Iterable[Operation]) -> tuple[list[Operation], list[Operation]]:
    """A sale's journal entries as (payment attempts, compensation refunds)."""
    attempts: list[Operation] = []
    refunds: list[Operation] = []
    for op in operations:
        (attempts if op.kind == "payment" else refunds).append(op)
    return attempts, refunds
