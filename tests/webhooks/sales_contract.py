"""Sales every store must keep: one sale, many attempts, paid once; written once, run by every
backend beside its ``JournalContract`` (same ``make_store`` fixture)::

    class TestMemorySales(SalesContract):
        @pytest.fixture
        def make_store(self) -> Iterator[StoreFactory]: ...

Time is a ``FakeClock``. The assertions go through the public ``sale``/``sales``/``put`` and
the SDK's own ``_begin_operation(..., sale=SaleTerms(...))``, ``_abandon`` and
``_record_operation``: nothing here knows a backend.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import Counter
from typing import Any, cast

import pytest
from outcome_events import DOCUMENTO, event, payment_request
from store_contract import FakeClock, StoreFactory

import smartpos
from smartpos.webhooks import Operation, PagamentoAprovado, Sale
from smartpos.webhooks._sales import SaleTerms, compensation_referencia
from smartpos.webhooks._store import StoreBase

__all__ = ["SalesContract", "attempt", "refs"]


def refs(count: int, prefix: str = "5a1e") -> list[str]:
    """Distinct referencias (UUID-shaped), in order."""
    return [f"{prefix}{n:04d}-aaaa-4bbb-8ccc-000000000000" for n in range(count)]


R1, R2, R3, R4, R5 = refs(5)


def attempt(
    store: StoreBase,
    referencia: str,
    sale: str = "mesa-1",
    *,
    valor: int = 1000,
    total: int | None = None,
    smartpos_id: str | None = "SP-1",
    imediato: bool = True,
    terminal_hold: float = 300.0,
    pending_after: float = 600.0,
) -> tuple[Operation, bool]:
    """Journal a payment attempt of ``sale`` the way a client does (checks included)."""
    return store._begin_operation(
        referencia,
        kind="payment",
        method="POST",
        path="/v1/payments",
        body=payment_request(referencia, valor=valor, smartpos_id=smartpos_id),
        sale=SaleTerms(
            sale_id=sale,
            total_centavos=total,
            valor_centavos=valor,
            smartpos_id=smartpos_id,
            imediato=imediato and smartpos_id is not None,
            terminal_hold=terminal_hold,
            pending_after=pending_after,
        ),
    )


def approve(
    store: StoreBase,
    referencia: str,
    *,
    valor: int = 1000,
    n: int = 0,
    smartpos_id: str | None = None,
) -> None:
    """Store the approval of ``referencia`` (an event without smartposId unless given)."""
    store.put(
        event(
            f"ev-ok-{referencia}-{n}",
            "pagamento.aprovado",
            referencia,
            valor=valor,
            smartpos_id=smartpos_id,
        )
    )


def refuse(
    store: StoreBase,
    referencia: str,
    *,
    valor: int = 1000,
    n: int = 0,
    smartpos_id: str | None = None,
) -> None:
    """Store the refusal of ``referencia``."""
    store.put(
        event(
            f"ev-no-{referencia}-{n}",
            "pagamento.recusado",
            referencia,
            valor=valor,
            smartpos_id=smartpos_id,
        )
    )


def compensation(store: StoreBase, late: str, sale: str = "mesa-1") -> tuple[Operation, bool]:
    """Journal the compensation refund of the late approval of ``late`` (as compensate does)."""
    referencia = compensation_referencia(late)
    return store._begin_operation(
        referencia,
        kind="refund",
        method="POST",
        path="/v1/refunds",
        body=b'{"referencia":"%s"}' % referencia.encode(),
        sale=SaleTerms(sale_id=sale, attempt=False),
    )


def the_sale(store: StoreBase, sale: str = "mesa-1") -> Sale:
    found = store.sale(sale)
    assert found is not None
    return found


class SalesContract:
    """Sales behaviour tests for one backend; a subclass overrides ``make_store``."""

    @pytest.fixture
    def make_store(self) -> StoreFactory:
        """The backend's store factory: every subclass overrides this fixture."""
        raise NotImplementedError("a backend's test class overrides the make_store fixture")

    @pytest.fixture
    def clock(self) -> FakeClock:
        return FakeClock()

    @pytest.fixture
    def store(self, make_store: StoreFactory, clock: FakeClock) -> StoreBase:
        return cast(StoreBase, make_store(clock=clock))

    # --- one attempt, the total, paid once ----------------------------------------------

    def test_unknown_sale_is_none(self, store: StoreBase) -> None:
        assert None is store.sale("nobody")
        assert [] == store.sales()

    def test_first_attempt_makes_the_sale_in_progress_with_its_amount_as_total(
        self, store: StoreBase, clock: FakeClock
    ) -> None:
        operation, created = attempt(store, R1, valor=1590)

        sale = the_sale(store)
        assert (True, "mesa-1") == (created, operation.sale)
        assert ("in_progress", 1590, 0, 1590) == (
            sale.state,
            sale.total_centavos,
            sale.approved_centavos,
            sale.remaining_centavos,
        )
        assert [R1] == [a.referencia for a in sale.attempts]
        assert R1 == (sale.open_attempt.referencia if sale.open_attempt else None)
        assert dt.datetime.fromtimestamp(clock.now, dt.timezone.utc) == sale.created_at
        assert "mesa-1" == store.operation(R1).sale  # type: ignore[union-attr]

    def test_an_approval_pays_the_sale_and_a_new_charge_is_refused(self, store: StoreBase) -> None:
        attempt(store, R1)
        approve(store, R1)

        sale = the_sale(store)
        assert ("paid", 1000, 0) == (sale.state, sale.approved_centavos, sale.remaining_centavos)
        assert [R1] == [a.dados.referencia for a in sale.approvals]
        with pytest.raises(smartpos.SalePaidError) as info:
            attempt(store, R2)
        assert ("VENDA_PAGA", "mesa-1", "paid") == (
            info.value.codigo,
            info.value.sale_id,
            info.value.sale.state,
        )
        assert None is store.operation(R2)

    def test_an_open_attempt_refuses_the_next_one(self, store: StoreBase) -> None:
        attempt(store, R1)
        store._record_operation(R1, "accepted")

        with pytest.raises(smartpos.SaleInProgressError) as info:
            attempt(store, R2)

        assert ("VENDA_EM_ANDAMENTO", R1) == (info.value.codigo, info.value.referencia)
        assert None is store.operation(R2)

    @pytest.mark.parametrize("state", ["sending", "unknown"])
    def test_sending_and_unknown_attempts_are_open_too(self, store: StoreBase, state: str) -> None:
        attempt(store, R1)
        if state == "unknown":
            store._record_operation(R1, "unknown")

        with pytest.raises(smartpos.SaleInProgressError):
            attempt(store, R2)

    def test_a_refusal_leaves_the_sale_open_for_a_new_attempt(self, store: StoreBase) -> None:
        attempt(store, R1)
        refuse(store, R1)
        assert "open" == the_sale(store).state

        _, created = attempt(store, R2)
        approve(store, R2)

        sale = the_sale(store)
        assert (True, "paid", [R1, R2]) == (
            created,
            sale.state,
            [a.referencia for a in sale.attempts],
        )
        assert [] == sale.pendencias

    def test_a_rejected_attempt_is_not_open(self, store: StoreBase) -> None:
        attempt(store, R1)
        store._record_operation(R1, "rejected")

        _, created = attempt(store, R2)

        assert created

    def test_a_final_event_nobody_waited_for_ends_the_attempt_inside_the_check(
        self, store: StoreBase
    ) -> None:
        """The approval is stored while the journal still says ``accepted``: counted."""
        attempt(store, R1)
        store._record_operation(R1, "accepted")
        approve(store, R1)

        with pytest.raises(smartpos.SalePaidError):
            attempt(store, R2)

    def test_the_same_referencia_again_is_never_refused(self, store: StoreBase) -> None:
        """A journaled referencia is the idempotent create: not a new attempt."""
        attempt(store, R1)
        approve(store, R1)

        operation, created = attempt(store, R1)

        assert (False, R1, "final") == (created, operation.referencia, operation.state)

    # --- a split bill ------------------------------------------------------------------

    def test_a_split_bill_is_paid_when_the_counted_approvals_reach_the_total(
        self, store: StoreBase
    ) -> None:
        attempt(store, R1, valor=3000, total=9000)
        approve(store, R1, valor=3000)
        assert ("open", 3000, 6000) == (
            the_sale(store).state,
            the_sale(store).approved_centavos,
            the_sale(store).remaining_centavos,
        )

        with pytest.raises(smartpos.ValidationError) as above:
            attempt(store, R2, valor=7000)
        assert ("VALOR_ACIMA_DO_RESTANTE", "valorCentavos") == (
            above.value.codigo,
            above.value.campo,
        )
        with pytest.raises(smartpos.ValidationError) as other:
            attempt(store, R2, valor=6000, total=8000)
        assert ("CAMPO_INVALIDO", "total_centavos") == (other.value.codigo, other.value.campo)

        attempt(store, R2, valor=6000, total=9000)
        approve(store, R2, valor=6000)

        sale = the_sale(store)
        assert ("paid", 9000, 0) == (sale.state, sale.approved_centavos, sale.remaining_centavos)
        assert None is store.operation(R3)

    def test_a_first_charge_above_its_total_is_refused(self, store: StoreBase) -> None:
        with pytest.raises(smartpos.ValidationError) as info:
            attempt(store, R1, valor=2000, total=1000)

        assert "VALOR_ACIMA_DO_RESTANTE" == info.value.codigo
        assert None is store.sale("mesa-1")

    def test_the_refusals_come_in_their_order(self, store: StoreBase) -> None:
        """Another total before paid; paid before in progress; in progress before the rest."""
        attempt(store, R1, valor=1000, total=2000)
        approve(store, R1)
        attempt(store, R2, valor=1000)
        with pytest.raises(smartpos.SaleInProgressError):
            attempt(store, R3, valor=5000, smartpos_id="SP-1")
        with pytest.raises(smartpos.ValidationError) as total:
            attempt(store, R3, valor=1000, total=1)
        assert "CAMPO_INVALIDO" == total.value.codigo
        approve(store, R2)
        with pytest.raises(smartpos.SalePaidError):
            attempt(store, R3, valor=5000, total=2000)

    # --- one payment at a time on a terminal ---------------------------------------------

    def test_an_open_imediato_attempt_holds_its_terminal_for_other_sales(
        self, store: StoreBase
    ) -> None:
        attempt(store, R1, "mesa-1")

        with pytest.raises(smartpos.TerminalBusyError) as info:
            attempt(store, R2, "mesa-2")

        assert ("TERMINAL_OCUPADO", R1, "SP-1") == (
            info.value.codigo,
            info.value.referencia,
            info.value.smartpos_id,
        )
        assert None is store.sale("mesa-2")
        _, other_terminal = attempt(store, R3, "mesa-3", smartpos_id="SP-2")
        assert other_terminal

    def test_the_hold_ends_with_the_final_event(self, store: StoreBase) -> None:
        attempt(store, R1, "mesa-1")
        refuse(store, R1)

        _, created = attempt(store, R2, "mesa-2")

        assert created

    def test_the_hold_ends_after_terminal_hold_seconds(
        self, store: StoreBase, clock: FakeClock
    ) -> None:
        attempt(store, R1, "mesa-1", terminal_hold=30.0)
        clock.advance(29.0)
        with pytest.raises(smartpos.TerminalBusyError):
            attempt(store, R2, "mesa-2")
        clock.advance(2.0)

        _, created = attempt(store, R2, "mesa-2")

        assert created
        with pytest.raises(smartpos.TerminalBusyError) as info:
            attempt(store, R3, "mesa-3")
        assert R2 == info.value.referencia

    def test_terminal_hold_zero_journals_no_hold(self, store: StoreBase) -> None:
        attempt(store, R1, "mesa-1", terminal_hold=0)

        _, created = attempt(store, R2, "mesa-2")

        assert created

    def test_manual_charges_and_payments_without_sale_neither_wait_nor_hold(
        self, store: StoreBase
    ) -> None:
        attempt(store, R1, "mesa-1")
        _, manual = attempt(store, R2, "mesa-2", imediato=False)
        plain = store._begin_operation(
            R3, kind="payment", method="POST", path="/v1/payments", body=payment_request(R3)
        )
        assert (True, True) == (manual, plain[1])
        refuse(store, R1)

        _, created = attempt(store, R4, "mesa-4")

        assert created

    # --- abandon, late approvals, compensations ------------------------------------------

    def test_abandon_frees_the_sale_and_the_terminal_and_records_who_why_when(
        self, store: StoreBase, clock: FakeClock
    ) -> None:
        attempt(store, R1, "mesa-1")
        clock.advance(5.0)

        sale = store._abandon("mesa-1", motivo="cliente desistiu", operador="ana")

        abandoned = sale.attempts[0].abandoned
        assert abandoned is not None
        assert ("open", "cliente desistiu", "ana") == (
            sale.state,
            abandoned.motivo,
            abandoned.operador,
        )
        assert dt.datetime.fromtimestamp(clock.now, dt.timezone.utc) == abandoned.at
        assert attempt(store, R2, "mesa-2")[1]  # the terminal is free
        assert attempt(store, R3, "mesa-1", smartpos_id="SP-2")[1]  # the sale is open

    def test_abandon_without_an_open_attempt_records_nothing(self, store: StoreBase) -> None:
        attempt(store, R1)
        refuse(store, R1)

        sale = store._abandon("mesa-1", motivo="nada", operador=None)

        assert [None] == [a.abandoned for a in sale.attempts]

    def test_abandon_of_an_unknown_sale_is_refused(self, store: StoreBase) -> None:
        with pytest.raises(smartpos.ValidationError) as info:
            store._abandon("nobody", motivo="x", operador=None)

        assert ("CAMPO_INVALIDO", "sale") == (info.value.codigo, info.value.campo)

    def test_a_late_approval_is_never_counted_and_is_a_pendencia(
        self, store: StoreBase, clock: FakeClock
    ) -> None:
        attempt(store, R1)
        store._abandon("mesa-1", motivo="desistiu", operador=None)
        attempt(store, R2, smartpos_id="SP-2")
        approve(store, R2)
        clock.advance(60.0)
        approve(store, R1)

        sale = the_sale(store)
        assert ("paid", 1000, [R2]) == (
            sale.state,
            sale.approved_centavos,
            [a.dados.referencia for a in sale.approvals],
        )
        [pendencia] = sale.pendencias
        assert ("late_approval", R1) == (pendencia.reason, pendencia.referencia)
        assert isinstance(pendencia.event, PagamentoAprovado)
        assert dt.datetime.fromtimestamp(clock.now, dt.timezone.utc) == pendencia.since
        assert ["mesa-1"] == [s.sale_id for s in store.sales(attention=True)]

    def test_a_compensation_takes_the_late_approval_off_the_pendencias(
        self, store: StoreBase
    ) -> None:
        attempt(store, R1)
        store._abandon("mesa-1", motivo="desistiu", operador=None)
        approve(store, R1)

        _, created = compensation(store, R1)
        _, again = compensation(store, R1)
        unsent = [p.reason for p in the_sale(store).pendencias]
        store._record_operation(compensation_referencia(R1), "accepted")

        sale = the_sale(store)
        assert (True, False, ["late_approval"], []) == (created, again, unsent, sale.pendencias)
        assert [compensation_referencia(R1)] == [c.referencia for c in sale.compensations]
        assert [R1] == [a.referencia for a in sale.attempts]
        assert [] == store.sales(attention=True)

    def test_a_refused_compensation_leaves_the_pendencia(self, store: StoreBase) -> None:
        attempt(store, R1)
        store._abandon("mesa-1", motivo="desistiu", operador=None)
        approve(store, R1)
        compensation(store, R1)
        store._record_operation(compensation_referencia(R1), "rejected")

        assert ["late_approval"] == [p.reason for p in the_sale(store).pendencias]

    # --- what needs a human --------------------------------------------------------------

    def test_an_attempt_without_outcome_is_a_pendencia_after_pending_after(
        self, store: StoreBase, clock: FakeClock
    ) -> None:
        start = clock.now
        attempt(store, R1, pending_after=120.0)
        store._record_operation(R1, "accepted")
        clock.advance(119.0)
        assert [] == the_sale(store).pendencias

        clock.advance(1.0)

        [pendencia] = the_sale(store).pendencias
        assert ("no_outcome", R1, None) == (
            pendencia.reason,
            pendencia.referencia,
            pendencia.event,
        )
        assert dt.datetime.fromtimestamp(start + 120.0, dt.timezone.utc) == pendencia.since

    def test_an_unknown_attempt_is_a_pendencia_at_once(self, store: StoreBase) -> None:
        attempt(store, R1)
        store._record_operation(R1, "unknown")

        assert ["no_outcome"] == [p.reason for p in the_sale(store).pendencias]

    def test_a_contradiction_after_a_refusal_needs_a_human(self, store: StoreBase) -> None:
        attempt(store, R1)
        refuse(store, R1)
        approve(store, R1)

        sale = the_sale(store)
        assert ("open", ["contradiction"]) == (sale.state, [p.reason for p in sale.pendencias])
        assert isinstance(sale.pendencias[0].event, PagamentoAprovado)

    def test_events_stored_before_the_attempt_count_for_the_review(self, store: StoreBase) -> None:
        """A refusal and a contradicting approval stored before the attempt is journaled (a
        slow journal write): the till's review still lists the sale."""
        refuse(store, R1)
        approve(store, R1)
        attempt(store, R1)

        sale = the_sale(store)
        assert ("open", ["contradiction"]) == (sale.state, [p.reason for p in sale.pendencias])
        assert ["mesa-1"] == [s.sale_id for s in store.sales(attention=True)]

    def test_a_quiet_paid_sale_is_not_reviewed(self, store: StoreBase) -> None:
        """Paid by one approval, nothing else: neither attention nor in progress."""
        attempt(store, R1)
        approve(store, R1)
        the_sale(store)

        assert ([], [], ["mesa-1"]) == (
            store.sales(attention=True),
            store.sales(state="in_progress"),
            [s.sale_id for s in store.sales(attention=False)],
        )

    # --- listing -------------------------------------------------------------------------

    def test_sales_lists_oldest_first_and_filters(self, store: StoreBase) -> None:
        attempt(store, R1, "a")
        approve(store, R1)
        attempt(store, R2, "b", smartpos_id="SP-2")
        attempt(store, R3, "c", smartpos_id="SP-3")
        refuse(store, R3)
        store._record_operation(R2, "unknown")

        assert ["a", "b", "c"] == [s.sale_id for s in store.sales()]
        assert ["a"] == [s.sale_id for s in store.sales(state="paid")]
        assert ["b"] == [s.sale_id for s in store.sales(state="in_progress")]
        assert ["c"] == [s.sale_id for s in store.sales(state="open")]
        assert ["b"] == [s.sale_id for s in store.sales(attention=True)]
        assert ["a", "c"] == [s.sale_id for s in store.sales(attention=False)]
        assert ["a", "b"] == [s.sale_id for s in store.sales(limit=2)]
        assert [] == store.sales(limit=0)

    def test_sales_pages_past_the_filtered_out(self, store: StoreBase) -> None:
        many = refs(130, prefix="b0b0")
        for n, referencia in enumerate(many):
            attempt(store, referencia, f"s{n:03d}", smartpos_id=f"T{n}")
            (approve if n != 120 else refuse)(store, referencia)

        assert ["s120"] == [s.sale_id for s in store.sales(state="open", limit=5)]

    @pytest.mark.parametrize(
        ("arguments", "error"),
        [
            ({"state": "pago"}, ValueError),
            ({"attention": 1}, TypeError),
            ({"limit": "10"}, TypeError),
        ],
    )
    def test_sales_argument_checks(
        self, store: StoreBase, arguments: dict[str, Any], error: type[Exception]
    ) -> None:
        with pytest.raises(error):
            store.sales(**arguments)

    def test_purge_keeps_the_entries_of_sales(self, store: StoreBase, clock: FakeClock) -> None:
        attempt(store, R1)
        approve(store, R1)
        assert "final" == store.operation(R1).state  # type: ignore[union-attr]
        clock.advance(400 * 86400.0)

        store.purge(done_before=dt.datetime.fromtimestamp(clock.now, dt.timezone.utc))

        assert store.operation(R1) is not None
        assert "paid" == the_sale(store).state

    def test_repr_of_a_sale_masks_nothing_it_should_not_show(self, store: StoreBase) -> None:
        attempt(store, R1)
        approve(store, R1)

        assert DOCUMENTO not in repr(the_sale(store))

    # --- one step across threads ----------------------------------------------------------

    def test_threads_charging_one_sale_journal_one_attempt(self, store: StoreBase) -> None:
        outcomes = self._race(
            store, [(referencia, "mesa-1", f"SP-{n}") for n, referencia in enumerate(refs(8))]
        )

        assert 1 == outcomes["created"], outcomes
        assert 7 == outcomes["SaleInProgressError"], outcomes
        assert 1 == len(the_sale(store).attempts)

    def test_threads_charging_sales_on_one_terminal_journal_one_attempt(
        self, store: StoreBase
    ) -> None:
        outcomes = self._race(
            store, [(referencia, f"mesa-{n}", "SP-1") for n, referencia in enumerate(refs(8))]
        )

        assert 1 == outcomes["created"], outcomes
        assert 7 == outcomes["TerminalBusyError"], outcomes
        assert 1 == len(store.sales())

    @staticmethod
    def _race(store: StoreBase, charges: list[tuple[str, str, str]]) -> Counter[str]:
        barrier = threading.Barrier(len(charges))
        outcomes: Counter[str] = Counter()
        lock = threading.Lock()

        def charge(referencia: str, sale: str, terminal: str) -> None:
            barrier.wait(timeout=30)
            try:
                _, created = attempt(store, referencia, sale, smartpos_id=terminal)
                name = "created" if created else "found"
            except smartpos.ValidationError as exc:
                name = type(exc).__name__
            with lock:
                outcomes[name] += 1

        threads = [threading.Thread(target=charge, args=c) for c in charges]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        return outcomes
