"""The outcome journal every store keeps beside its inbox: what all backends share.

A client given a store journals each operation that starts something on a terminal before
sending it, records what the service answered, and waits for the event that ends it (see
``_outcomes`` for the rules). ``JournalBase`` holds the logic: the public ``operation`` and
``operations``, and the SDK's own ``_begin_operation``, ``_record_operation`` and
``_outcome``. A backend implements a handful of storage primitives (``_journal_*``), each one
atomic on its own:

- ``_journal_insert``: insert-if-absent of an entry in state ``sending`` (one winner across
  processes and hosts);
- ``_journal_update``: a conditional state change (only from the states ``next_state``
  allows, so a ``final`` entry never changes), durable or not (an answer recorded after the
  send need not survive a power cut: see ``_record_operation``);
- ``_journal_finalize``: record the outcome once (only while the entry is not final yet: the
  first writer wins and every reader then sees its event);
- ``_journal_events``: the stored envelopes whose ``dados.referencia`` is the referencia, in
  store order. The backend links an event to its referencia atomically with the event's
  insert, so an event stored *before* its journal entry is found too;
- ``_journal_get``, ``_journal_list`` and ``_journal_purge``.

The calls that read many operations or sales (``operations``, ``sales``, ``purge``'s settling)
read them in a bounded number of round trips, whatever their ``limit``: a page of entries,
then their events in one ``_journal_events_many`` (a sale's entries with their events in one
``_sale_linked_many``), the outcomes found recorded in one ``_journal_finalize_many``, and
the times the pendências need in one ``_received_at_many``. Each has a default here, a loop
over the one-row primitive, so that a backend written before them keeps working; every
backend of the package answers each in one round trip (one statement, one script).

Events are never copied into the journal: an operation's event and anomalies are computed on
each read from its entry and its referencia's events, and the outcome, once found, is written
back (state ``final``) so that it wins forever.
"""

from __future__ import annotations

import builtins
import datetime as _dt
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from smartpos._errors import (
    OperationRejectedError,
    SaleInProgressError,
    SalePaidError,
    TerminalBusyError,
    ValidationError,
)
from smartpos._models import Acceptance, QRCode, Refund

from ._outcomes import (
    ALLOWED_FROM,
    KINDS,
    RECORDABLE_STATES,
    Answer,
    JournalEntry,
    Operation,
    State,
    answer_from_result,
    first_outcome,
    resolve,
)
from ._sales import SALE_STATES, Sale, SaleRow, SaleTerms, build_sale, is_open, split
from ._store_errors import StoreError

if TYPE_CHECKING:
    from ._events import Event
    from ._listener import ChangeSource

__all__ = ["CONFLICT", "JournalBase", "Linked", "SaleSnapshot", "journal_entry", "journal_row"]

#: What ``_sale_insert`` answers when the sale or the terminal changed since they were read.
CONFLICT = "conflict"
#: Compare-and-set rounds of one sale attempt before giving up (each lost one means another
#: process journaled an attempt of the same sale or terminal meanwhile).
_SALE_ROUNDS = 50
#: Waiting operations read per round by ``_settle_waiting``.
_SETTLE_BATCH = 500


def _utc(ts: float) -> _dt.datetime:
    return _dt.datetime.fromtimestamp(ts, tz=_dt.timezone.utc)


def _check_referencia(referencia: object) -> str:
    if not isinstance(referencia, str):
        raise TypeError(f"referencia must be a str, not {type(referencia).__name__}")
    if not referencia:
        raise ValueError("referencia must be a non-empty string")
    return referencia


def _nothing_more_to_come(operation: Operation, now: _dt.datetime) -> bool:
    """An operation still ``waiting`` for which the service will send nothing more."""
    if operation.kind == "refund":
        return operation.state == "accepted"
    if operation.kind == "qrcode" and operation.state == "accepted":
        qr = operation.result
        return isinstance(qr, QRCode) and qr.expires_at <= now
    return False


#: A journal entry with the envelopes stored under its referencia, in store order.
Linked = tuple[JournalEntry, "builtins.list[Mapping[str, Any]]"]


@attrs.frozen(slots=True)
class SaleSnapshot:
    """What the checks of one attempt of a sale read (``_sale_snapshot``).

    Attributes:
        existing: The entry already journaled under the attempt's referencia, with its
            events: the idempotent create, never refused by the sale's rules.
        row: The sale's row, or ``None`` (a new sale).
        entries: The sale's entries with their events, by seq.
        holder: The terminal's last holder: its referencia, until when, and its entry with
            its events (``None`` when purged); ``None`` when nobody held it.
    """

    existing: Linked | None = None
    row: SaleRow | None = None
    entries: Sequence[Linked] = ()
    holder: tuple[str, float, Linked | None] | None = None


def _check_sale_id(sale_id: object) -> str:
    if not isinstance(sale_id, str):
        raise TypeError(f"sale_id must be a str, not {type(sale_id).__name__}")
    return sale_id


def _check_valor(valor: int, remaining: int) -> None:
    from smartpos._messages import message

    if valor > remaining:
        raise ValidationError(
            "VALOR_ACIMA_DO_RESTANTE",
            message("sale.above_remaining", valor=valor, remaining=remaining),
            campo="valorCentavos",
        )


def _other_total(sale_id: str, wanted: int, total: int) -> ValidationError:
    from smartpos._messages import message

    return ValidationError(
        "CAMPO_INVALIDO",
        message("sale.other_total", sale=sale_id, wanted=wanted, total=total),
        campo="total_centavos",
    )


def _unknown_sale(sale_id: str) -> ValidationError:
    from smartpos._messages import message

    return ValidationError("CAMPO_INVALIDO", message("sale.unknown", sale=sale_id), campo="sale")


def journal_entry(
    row: Sequence[Any],
    *,
    timestamp: Callable[[Any], float],
    final_event: Callable[[Any], Mapping[str, Any]],
) -> JournalEntry:
    """A journal row of an SQL backend, in the column order every backend selects.

    Args:
        row: referencia, kind, state, method, path, body, created, updated, seq, answer, final,
            then sale, pending_after, abandoned (a JSON text or mapping, or ``None``).
        timestamp: Turns the backend's stored time into epoch seconds.
        final_event: Turns the backend's stored final event (not ``None``) into a mapping;
            also reads the stored abandon.
    """
    referencia, kind, state, method, path, body, created, updated, seq, answer, final = row[:11]
    sale, pending_after, abandoned = (*row[11:14], None, None, None)[:3]
    return JournalEntry(
        referencia=referencia,
        kind=kind,
        state=state,
        method=method,
        path=path,
        body=bytes(body),
        created_at=timestamp(created),
        updated_at=timestamp(updated),
        seq=seq,
        answer=None if answer is None else Answer.from_json(answer),
        final_event=None if final is None else final_event(final),
        sale=sale,
        pending_after=None if pending_after is None else float(pending_after),
        abandoned=None if abandoned is None else final_event(abandoned),
    )


def journal_row(entry: JournalEntry, *, timestamp: Callable[[float], Any]) -> tuple[Any, ...]:
    """An entry's insert parameters for an SQL backend, the inverse of ``journal_entry``.

    Args:
        entry: The entry to insert.
        timestamp: Turns epoch seconds into the backend's stored time.

    Returns:
        referencia, kind, state, method, path, body, created, updated (then a backend with
        sales adds ``entry.sale`` and ``entry.pending_after``).
    """
    return (
        entry.referencia,
        entry.kind,
        entry.state,
        entry.method,
        entry.path,
        entry.body,
        timestamp(entry.created_at),
        timestamp(entry.updated_at),
    )


class JournalBase:
    """The journal's logic over a backend's primitives; ``StoreBase`` inherits it.

    Public: ``operation`` and ``operations``. For the SDK's own use (the clients call them;
    applications should not): ``_begin_operation``, ``_record_operation``, ``_outcome``.
    """

    # ``builtins.list`` in annotations: a store's ``list`` method shadows the builtin.

    def operation(self, referencia: str) -> Operation | None:
        """Return the journaled operation of ``referencia`` with its outcome, or ``None``.

        The outcome (``event``) is the first stored event with that referencia that is final
        for the operation's kind and agrees with the journaled request; other such events
        are listed in ``anomalies``. Finding the outcome records it (state ``final``), so
        that it wins forever.

        Args:
            referencia: The operation's referencia.

        Returns:
            The operation, or ``None`` when the journal has no entry for it (never journaled,
            or purged).

        Raises:
            StoreError: The backend failed.
            TypeError: ``referencia`` is not a str.
        """
        referencia = _check_referencia(referencia)
        entry = self._journal_get(referencia)
        if entry is None:
            return None
        return self._resolved(entry, self._journal_events(referencia))

    def operations(self, *, final: bool = False, limit: int = 100) -> builtins.list[Operation]:
        """List journaled operations, oldest first.

        Args:
            final: ``False`` (the default) lists only those still waiting for an outcome
                the service will send (states ``sending``, ``accepted``, ``unknown``, and not
                those whose final event is already stored): what a process reconciles at
                start-up. Not an accepted refund either (no refund event is specified yet:
                acceptance is as far as it goes), nor a QR code past its ``expires_at``
                (nobody can read it any more), nor an abandoned attempt of a sale (nobody
                waits for it: its late approval is the sale's pendência, and a resend could
                charge anew). ``True`` lists every operation, whatever its state.
            limit: Most operations to list; below 1, none.

        Returns:
            The operations, in the order they were journaled.

        Raises:
            StoreError: The backend failed.
            TypeError: ``final`` is not a bool or ``limit`` is not an int.
        """
        if not isinstance(final, bool):
            raise TypeError(f"final must be a bool, not {type(final).__name__}")
        if isinstance(limit, bool) or not isinstance(limit, int):
            raise TypeError(f"limit must be an int, not {type(limit).__name__}")
        found: builtins.list[Operation] = []
        after = 0
        now = _utc(self._now())
        while len(found) < limit:
            batch = self._journal_list(waiting=not final, after=after, limit=limit)
            for operation in self._resolved_many(self._linked(batch)):
                if final or (
                    operation.waiting
                    and operation.abandoned is None
                    and not _nothing_more_to_come(operation, now)
                ):
                    found.append(operation)
                    if len(found) == limit:
                        break
            if len(batch) < limit:
                break
            after = batch[-1].seq
        return found

    def _begin_operation(
        self,
        referencia: str,
        *,
        kind: str,
        method: str,
        path: str,
        body: bytes,
        sale: SaleTerms | None = None,
    ) -> tuple[Operation, bool]:
        """Journal an operation in state ``sending`` before its request is sent (SDK use).

        Atomic across threads, processes and hosts: of several calls with one referencia,
        exactly one journals it.

        Args:
            referencia: The operation's referencia.
            kind: ``"payment"``, ``"refund"``, ``"print_job"`` or ``"qrcode"``.
            method: The request's HTTP method.
            path: The request's path.
            body: The exact bytes about to be sent.
            sale: The sale this attempt (or compensation refund) belongs to: the sale's
                checks and the journal write are then one atomic step (see ``_sales.py``).

        Returns:
            The operation and ``True`` when this call journaled it; the operation already
            journaled under ``referencia`` (its request may differ) and ``False`` otherwise.

        Raises:
            StoreError: The backend failed; nothing was journaled.
            ValidationError: A sale's rule refused the attempt (``SalePaidError``,
                ``SaleInProgressError``, ``TerminalBusyError``, another total, an amount
                above what remains); nothing was journaled.
            TypeError, ValueError: A bad argument.
        """
        referencia = _check_referencia(referencia)
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
        if not isinstance(method, str) or not method:
            raise ValueError("method must be a non-empty string")
        if not isinstance(path, str) or not path:
            raise ValueError("path must be a non-empty string")
        if not isinstance(body, (bytes, bytearray, memoryview)):
            raise TypeError(f"body must be bytes, not {type(body).__name__}")
        now = self._now()
        entry = JournalEntry(
            referencia=referencia,
            kind=kind,
            state="sending",
            method=method.upper(),
            path=path,
            body=bytes(body),
            created_at=now,
            updated_at=now,
            sale=None if sale is None else sale.sale_id,
            pending_after=None if sale is None or not sale.attempt else sale.pending_after,
        )
        if sale is not None and sale.attempt:
            return self._begin_sale_attempt(entry, sale)
        existing = self._journal_insert(entry)
        if existing is None:
            operation, _ = resolve(entry, ())
            return operation, True
        try:
            return self._resolved(existing, self._journal_events(referencia)), False
        except StoreError as exc:
            # The journal holds the referencia (an earlier call journaled, maybe sent it):
            # a failure now must not read as "nothing journaled", whatever the backend.
            raise StoreError(str(exc), applied=None) from exc

    def _record_operation(
        self,
        referencia: str,
        state: str,
        *,
        answer: Answer | Acceptance | Refund | QRCode | None = None,
        durable: bool = True,
        only_from: frozenset[str] | None = None,
    ) -> bool:
        """Record what the service answered to a journaled operation (SDK use).

        Args:
            referencia: The operation's referencia.
            state: ``"accepted"`` (a 2xx, or a 409 proving an earlier attempt arrived),
                ``"rejected"`` (surely not accepted) or ``"unknown"``.
            answer: The 2xx answer (or the result built from it) to keep, for
                ``"accepted"``; an answer already kept is only replaced by another one.
            durable: ``False`` when losing this record to a power cut is safe, as for an
                ``accepted`` or ``unknown`` answer recorded after the send: the entry then
                stays ``sending``, which ``operations(final=False)`` lists and ``reconcile``
                settles with a 409, never a second charge (never for ``rejected``: a resend
                of it would be a first send). A backend may then commit without waiting for
                its disk (SQLite: no fsync); a crash of the process never loses it.
            only_from: Narrow the states the write may replace (a compare-and-set): e.g. a
                first send's rejection only over ``sending``, so that it never overwrites
                another process's resend.

        Returns:
            ``True`` when the state was written; ``False`` when the referencia is not
            journaled or the transition is not allowed (a ``final`` operation never changes,
            an ``accepted`` one is never downgraded).

        Raises:
            StoreError: The backend failed; nothing changed.
            ValueError: ``state`` is not one a client records.
        """
        referencia = _check_referencia(referencia)
        if state not in RECORDABLE_STATES:
            raise ValueError(f"state must be one of {', '.join(RECORDABLE_STATES)}, not {state!r}")
        if answer is not None and not isinstance(answer, Answer):
            answer = answer_from_result(answer)
        allowed = ALLOWED_FROM[state]
        if only_from is not None:
            allowed = allowed & frozenset(only_from)
        if durable:  # the flag only when it says something: backends written before it
            return self._journal_update(referencia, state, allowed, answer, self._now())
        return self._journal_update(referencia, state, allowed, answer, self._now(), durable=False)

    def _restart_operation(self, referencia: str) -> bool:
        """Journal a ``rejected`` operation as ``sending`` again, before it is sent anew (SDK use).

        The service never accepted it, so its next send is a first send: ``sending`` says so,
        and lets a process that finds it resend it (marking it ``unknown``, which this
        process then sees). Durable, like the entry written before a first send.

        Never a payment attempt of a sale (``False``): it would open again outside the sale's
        compare-and-set (``_begin_sale_attempt`` trusts that attempts only end outside it),
        so a second attempt could be open, or the sale paid, meanwhile. A compensation refund
        may: it is no attempt.

        Returns:
            ``True`` when written; ``False`` when the entry is no longer ``rejected``, or is
            an attempt of a sale.

        Raises:
            StoreError: The backend failed.
        """
        referencia = _check_referencia(referencia)
        entry = self._journal_get(referencia)
        if entry is None or (entry.sale is not None and entry.kind == "payment"):
            return False  # an entry's sale and kind never change
        return self._journal_update(
            referencia, "sending", frozenset({"rejected"}), None, self._now()
        )

    def _outcome(self, referencia: str) -> Event | None:
        """The event a ``wait(referencia)`` returns now, or ``None`` (SDK use).

        Journaled: the operation's outcome (recorded as it is found). Not journaled (another
        system started it): the first stored event with that referencia whose tipo is final
        for any kind.

        Raises:
            OperationRejectedError: The journal holds the operation as ``rejected``: the
                service surely did not accept it, so no event will end it.
            StoreError: The backend failed.
        """
        referencia = _check_referencia(referencia)
        entry = self._journal_get(referencia)
        events = self._journal_events(referencia)
        if entry is None:
            return first_outcome(referencia, events)
        operation = self._resolved(entry, events)
        if operation.state == "rejected":
            raise OperationRejectedError(referencia)
        return operation.event

    def _settle_waiting(self) -> None:
        """Record the outcome of every waiting operation whose final event is stored.

        Run by ``purge`` before it deletes events: an outcome is recorded in the journal only
        when somebody reads the operation, and an approval nobody read (a ``create`` without a
        waiter, its event handled by a worker) must not vanish with its event: the sale it
        paid would look unpaid again.
        """
        after = 0
        while True:
            batch = self._journal_list(waiting=True, after=after, limit=_SETTLE_BATCH)
            self._resolved_many(self._linked(batch))
            if len(batch) < _SETTLE_BATCH:
                return
            after = batch[-1].seq

    def _resolved(self, entry: JournalEntry, events: builtins.list[Mapping[str, Any]]) -> Operation:
        """Settle an entry with its events, recording an outcome found now."""
        return self._resolved_many([(entry, events)])[0]

    def _linked(self, entries: Sequence[JournalEntry]) -> builtins.list[Linked]:
        """The entries with their events, read in one ``_journal_events_many``."""
        if not entries:
            return []
        events = self._journal_events_many([entry.referencia for entry in entries])
        return [(entry, events.get(entry.referencia, [])) for entry in entries]

    def _resolved_many(self, linked: Sequence[Linked]) -> builtins.list[Operation]:
        """Settle entries with their events, recording the outcomes found now, in order.

        The outcomes are recorded in one write (``_journal_finalize`` for one, else
        ``_journal_finalize_many``); those another process recorded first are read back (its
        event wins), in one ``_journal_get_many``.
        """
        settled = [resolve(entry, events) for entry, events in linked]
        found = {
            entry.referencia: newly_final
            for (entry, _), (_, newly_final) in zip(linked, settled, strict=True)
            if newly_final is not None
        }
        if not found:
            return [operation for operation, _ in settled]
        now = self._now()
        if len(found) == 1:
            ((referencia, event),) = found.items()
            won = {referencia} if self._journal_finalize(referencia, event, now) else set()
        else:
            won = self._journal_finalize_many(found, now)
        lost = [referencia for referencia in found if referencia not in won]
        winners = self._journal_get_many(lost) if lost else {}
        operations: builtins.list[Operation] = []
        for (entry, events), (operation, newly_final) in zip(linked, settled, strict=True):
            if newly_final is not None:
                if entry.referencia in won:
                    operation = attrs.evolve(operation, updated_at=_utc(now))
                else:
                    # Another process recorded an outcome first: its event wins.
                    winner = winners.get(entry.referencia)
                    if winner is not None:  # else purged meanwhile
                        operation = resolve(winner, events)[0]
            operations.append(operation)
        return operations

    # --- sales (see _sales.py) -------------------------------------------------------------

    def sale(self, sale_id: str) -> Sale | None:
        """Return a sale with its attempts, approvals and pendências, or ``None``.

        Computed when it is read, from its attempts and their events: what another process
        stored is seen at once.

        Args:
            sale_id: The partner's key of the sale (``sale=`` of ``payments.create``).

        Raises:
            StoreError: The backend failed.
            TypeError: ``sale_id`` is not a str.
        """
        sale_id = _check_sale_id(sale_id)
        row = self._sale_get(sale_id)
        return None if row is None else self._build_sale(row)

    def sales(
        self,
        *,
        state: str | None = None,
        attention: bool | None = None,
        limit: int = 100,
    ) -> builtins.list[Sale]:
        """List sales, oldest first.

        Args:
            state: Only sales in this state (``"open"``, ``"in_progress"``, ``"paid"``).
            attention: ``True``: only sales with pendências (what an operator reviews before
                closing the till); ``False``: only those without; ``None``: both.
            limit: Most sales to list; below 1, none.

        Raises:
            StoreError: The backend failed.
            TypeError, ValueError: A bad argument.
        """
        if state is not None and state not in SALE_STATES:
            raise ValueError(
                f"state must be one of {', '.join(SALE_STATES)} or None, not {state!r}"
            )
        if attention is not None and not isinstance(attention, bool):
            raise TypeError(f"attention must be a bool or None, not {type(attention).__name__}")
        if isinstance(limit, bool) or not isinstance(limit, int):
            raise TypeError(f"limit must be an int, not {type(limit).__name__}")
        found: builtins.list[Sale] = []
        after = 0
        # Unfiltered, every sale read is listed: read no more than wanted.
        page = limit if state is None and attention is None else max(limit, 100)
        # A sale with pendências, or one in progress, has an attempt among the candidates:
        # the backend's index of few rows, not every sale.
        listing = self._sale_candidates if attention or state == "in_progress" else self._sale_list
        while len(found) < limit:
            rows = listing(after=after, limit=page)
            for sale in self._build_sales(rows):
                if state is not None and sale.state != state:
                    continue
                if attention is not None and sale.attention != attention:
                    continue
                found.append(sale)
                if len(found) == limit:
                    break
            if len(rows) < page:
                break
            after = rows[-1].seq
        return found

    def _build_sale(self, row: SaleRow, entries: Sequence[Linked] | None = None) -> Sale:
        """The sale of ``row``, from its entries and their events (read now if not given)."""
        linked = None if entries is None else {row.sale_id: entries}
        return self._build_sales([row], linked)[0]

    def _build_sales(
        self,
        rows: Sequence[SaleRow],
        linked: Mapping[str, Sequence[Linked]] | None = None,
    ) -> builtins.list[Sale]:
        """The sales of ``rows``, in order, in a bounded number of round trips.

        Their entries and events (read now in one ``_sale_linked_many`` if not given), the
        outcomes found recorded in one write, then, only when some sale has a pendência about
        a stored event, when the store took those events, in one ``_received_at_many``.
        """
        if not rows:
            return []
        if linked is None:
            linked = self._sale_linked_many([row.sale_id for row in rows])
        flat = [link for row in rows for link in linked.get(row.sale_id, ())]
        settled = iter(self._resolved_many(flat))
        parts = []
        for row in rows:
            entries = linked.get(row.sale_id, ())
            operations = [next(settled) for _ in entries]
            pending = {e.referencia: e.pending_after for e, _ in entries}
            parts.append((row, split(operations), pending))
        now = self._now()

        def build(stored_at: Callable[[str], float | None]) -> builtins.list[Sale]:
            return [
                build_sale(
                    row,
                    attempts,
                    refunds,
                    now=now,
                    pending_after=pending.get,
                    stored_at=stored_at,
                )
                for row, (attempts, refunds), pending in parts
            ]

        # A first pass notes the events whose storing time a pendência needs (build_sale is
        # pure); when there are any, they are read in one call and the sales built again.
        wanted: set[str] = set()

        def note(event_id: str) -> float | None:
            wanted.add(event_id)
            return None

        sales = build(note)
        if not wanted:
            return sales
        stored = self._received_at_many(sorted(wanted))
        return build(stored.get)

    def _begin_sale_attempt(self, entry: JournalEntry, terms: SaleTerms) -> tuple[Operation, bool]:
        """Check the sale's rules and journal the attempt, as one compare-and-set."""
        imediato = terms.smartpos_id if terms.imediato and terms.smartpos_id else None
        for _ in range(_SALE_ROUNDS):
            snapshot = self._sale_snapshot(entry.referencia, terms.sale_id, imediato)
            if snapshot.existing is not None:
                return self._resolved(*snapshot.existing), False
            now = self._now()
            row = snapshot.row
            valor = terms.valor_centavos
            if row is None:
                total = terms.total_centavos if terms.total_centavos is not None else valor
                _check_valor(valor, total)
                version = None
            else:
                total = row.total_centavos
                if terms.total_centavos is not None and terms.total_centavos != total:
                    raise _other_total(terms.sale_id, terms.total_centavos, total)
                sale = self._build_sale(row, snapshot.entries)
                if sale.state == "paid":
                    raise SalePaidError(sale)
                running = sale.open_attempt
                if running is not None:
                    raise SaleInProgressError(running.referencia, sale_id=terms.sale_id)
                _check_valor(valor, sale.remaining_centavos)
                version = row.version
            terminal = holder = None
            hold_until = 0.0
            if imediato is not None:
                if snapshot.holder is not None:
                    holder, until, holding = snapshot.holder
                    if now < until and holding is not None:
                        op = self._resolved(*holding)
                        if op.referencia != entry.referencia and is_open(op):
                            raise TerminalBusyError(holder, smartpos_id=imediato)
                # Compared even without a hold (terminal_hold=0 records one that ends now): a
                # hold another client takes between this read and the insert is then seen.
                terminal = imediato
                hold_until = now + terms.terminal_hold
            stamped = attrs.evolve(entry, created_at=now, updated_at=now)
            result = self._sale_insert(
                stamped,
                total_centavos=total,
                expected_version=version,
                terminal=terminal,
                expected_holder=holder,
                hold_until=hold_until,
            )
            if result == CONFLICT:
                continue
            if result is None:
                return resolve(stamped, ())[0], True
            assert isinstance(result, JournalEntry)
            return self._resolved(result, self._journal_events(entry.referencia)), False
        raise StoreError(
            f"sale {terms.sale_id!r} kept changing under {_SALE_ROUNDS} attempts to journal "
            "its next attempt; nothing was journaled",
            applied=False,
        )

    def _abandon(self, sale_id: str, *, motivo: str, operador: str | None) -> Sale:
        """Give up the sale's open attempt (SDK use: ``client.abandon``); nothing is sent.

        Raises:
            ValidationError: The store knows no such sale.
            StoreError: The backend failed.
        """
        from ._outcomes import Abandon

        sale_id = _check_sale_id(sale_id)
        for _ in range(_SALE_ROUNDS):
            row = self._sale_get(sale_id)
            if row is None:
                raise _unknown_sale(sale_id)
            sale = self._build_sale(row)
            running = sale.open_attempt
            if running is None:
                return sale
            now = self._now()
            record = Abandon(motivo=motivo, operador=operador, at=_utc(now)).to_json()
            if self._sale_abandon(running.referencia, record, now):
                return self._build_sale(row)
        raise StoreError(f"sale {sale_id!r} kept changing; nothing was abandoned", applied=False)

    def _change_source(self) -> ChangeSource:
        """How a ``ChangeListener`` learns that events were stored (see ``_listener.py``).

        This default wakes every waiter twice a second; every backend here has a real feed.
        """
        from ._listener import PollingChanges

        return PollingChanges()

    # What a backend implements (each atomic); times are epoch seconds from the store's clock.

    def _now(self) -> float:
        raise NotImplementedError

    def _journal_get(self, referencia: str) -> JournalEntry | None:
        """The entry of ``referencia``, or ``None``."""
        raise NotImplementedError

    def _journal_insert(self, entry: JournalEntry) -> JournalEntry | None:
        """Insert the entry (numbering its ``seq``) unless one exists: ``None``, or the existing."""
        raise NotImplementedError

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
        """Set ``state`` (and ``answer`` when given) if the entry's state is in ``allowed_from``.

        ``durable=False``: the write may skip waiting for the disk (it must survive a crash of
        the process, not a power cut).
        """
        raise NotImplementedError

    def _journal_finalize(self, referencia: str, event: Mapping[str, Any], now: float) -> bool:
        """Record the outcome and state ``final`` unless the entry is final already (or gone)."""
        raise NotImplementedError

    def _journal_list(
        self, *, waiting: bool, after: int, limit: int
    ) -> builtins.list[JournalEntry]:
        """Up to ``limit`` entries with ``seq > after`` (only waiting states if asked), by seq."""
        raise NotImplementedError

    def _journal_events(self, referencia: str) -> builtins.list[Mapping[str, Any]]:
        """The envelopes stored with this ``dados.referencia``, in store order."""
        raise NotImplementedError

    # The batched reads and writes (see the module's docstring). Each default loops over the
    # one-row primitive; a backend whose calls are round trips answers each in one.

    def _journal_events_many(
        self, referencias: Sequence[str]
    ) -> dict[str, builtins.list[Mapping[str, Any]]]:
        """``_journal_events`` of each referencia (those without events may be absent)."""
        return {referencia: self._journal_events(referencia) for referencia in referencias}

    def _journal_get_many(self, referencias: Sequence[str]) -> dict[str, JournalEntry]:
        """The entries of those referencias that are journaled."""
        found = {referencia: self._journal_get(referencia) for referencia in referencias}
        return {referencia: entry for referencia, entry in found.items() if entry is not None}

    def _journal_finalize_many(
        self, outcomes: Mapping[str, Mapping[str, Any]], now: float
    ) -> set[str]:
        """``_journal_finalize`` of each referencia with its event; those written.

        Each entry on its own: one already final (or gone) is left as it is, the others are
        written all the same.
        """
        return {
            referencia
            for referencia, event in outcomes.items()
            if self._journal_finalize(referencia, event, now)
        }

    def _sale_linked_many(self, sale_ids: Sequence[str]) -> dict[str, builtins.list[Linked]]:
        """The entries of each sale (``_sale_entries``) with their events, by sale."""
        entries = {sale_id: self._sale_entries(sale_id) for sale_id in sale_ids}
        events = self._journal_events_many([e.referencia for es in entries.values() for e in es])
        return {
            sale_id: [(e, events.get(e.referencia, [])) for e in es]
            for sale_id, es in entries.items()
        }

    def _received_at_many(self, event_ids: Sequence[str]) -> dict[str, float]:
        """When the store took each of those events (epoch seconds); unknown ones absent."""
        found: dict[str, float] = {}
        for event_id in event_ids:
            stored = self.get(event_id)  # type: ignore[attr-defined]
            if stored is not None:
                found[event_id] = float(stored.received_at.timestamp())
        return found

    def _journal_purge(self, cutoff: float) -> int:
        """Delete final and rejected entries last updated before ``cutoff``; how many.

        Entries of a sale (``sale`` set) are kept: a sale is computed from them.
        """
        raise NotImplementedError

    def _sale_get(self, sale_id: str) -> SaleRow | None:
        """The sale's row, or ``None``."""
        raise NotImplementedError

    def _sale_entries(self, sale_id: str) -> builtins.list[JournalEntry]:
        """The journal entries of the sale (attempts and compensation refunds), by seq."""
        raise NotImplementedError

    def _sale_list(self, *, after: int, limit: int) -> builtins.list[SaleRow]:
        """Up to ``limit`` sales with ``seq > after``, by seq."""
        raise NotImplementedError

    def _sale_candidates(self, *, after: int, limit: int) -> builtins.list[SaleRow]:
        """Up to ``limit`` sales with ``seq > after``, by seq, that may have pendências or an
        open attempt: those with a payment attempt still waiting (``sending``, ``accepted``,
        ``unknown``), with two stored events or more, or refused or abandoned with one event
        or more. A superset (each is judged when built); found by an index, not a scan.

        This default lists every sale (``_sale_list``): a correct superset for a backend
        without such an index yet, so that the till's review never fails on it."""
        return self._sale_list(after=after, limit=limit)

    def _terminal_get(self, smartpos_id: str) -> tuple[str, float] | None:
        """The attempt that last held the terminal and until when, or ``None``."""
        raise NotImplementedError

    def _sale_snapshot(
        self, referencia: str, sale_id: str, smartpos_id: str | None
    ) -> SaleSnapshot:
        """Everything one attempt's checks read, from the primitives above.

        A backend whose reads are round trips (a server) overrides it with one read.
        """
        existing = self._journal_get(referencia)
        if existing is not None:
            return SaleSnapshot(existing=(existing, self._journal_events(referencia)))
        row = self._sale_get(sale_id)
        entries: builtins.list[Linked] = []
        if row is not None:
            entries = [(e, self._journal_events(e.referencia)) for e in self._sale_entries(sale_id)]
        holder: tuple[str, float, Linked | None] | None = None
        held = None if smartpos_id is None else self._terminal_get(smartpos_id)
        if held is not None:
            holding = self._journal_get(held[0])
            linked = None if holding is None else (holding, self._journal_events(held[0]))
            holder = (held[0], held[1], linked)
        return SaleSnapshot(row=row, entries=entries, holder=holder)

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
        """Journal an attempt of a sale, as one atomic step across processes and hosts.

        In one step: when the journal holds ``entry.referencia`` already, answer that entry
        and write nothing. Otherwise, unless the sale's version is still
        ``expected_version`` (``None``: the sale does not exist yet) and, when ``terminal``
        is given, its holder is still ``expected_holder`` (``None``: no holder recorded),
        answer ``CONFLICT`` and write nothing. Else insert the entry (numbering its ``seq``),
        create the sale with ``total_centavos`` and version 1 or increment its version (and
        ``updated_at``), record ``(entry.referencia, hold_until)`` as the terminal's holder,
        and answer ``None``.
        """
        raise NotImplementedError

    def _sale_abandon(self, referencia: str, abandon: Mapping[str, Any], now: float) -> bool:
        """Record ``abandon`` on the entry unless it has one already; ``updated_at = now``."""
        raise NotImplementedError
