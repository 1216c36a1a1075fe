"""The outcome journal every store must keep, written once and run by every backend.

A backend plugs in by subclassing ``JournalContract`` beside its ``StoreContract`` and
overriding the same ``make_store`` fixture (see ``store_contract.py``)::

    class TestMemoryJournal(JournalContract):
        @pytest.fixture
        def make_store(self) -> Iterator[StoreFactory]:
            with closing_factory(MemoryStore) as factory:
                yield factory

Time is a ``FakeClock``; nothing here knows a backend: the assertions go through the public
``operation``/``operations``/``put``/``purge`` and the SDK's own ``_begin_operation``,
``_record_operation`` and ``_outcome``.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import Counter
from typing import Any, cast

import pytest
from outcome_events import (
    DOCUMENTO,
    OTHER_DOCUMENTO,
    REFERENCIA,
    event,
    payment_request,
    print_request,
)
from store_contract import FakeClock, StoreFactory

from smartpos import Acceptance
from smartpos._wire import structure
from smartpos.webhooks import Operation, PagamentoAprovado, PutResult
from smartpos.webhooks._outcomes import Answer
from smartpos.webhooks._store import StoreBase

__all__ = ["JournalContract", "begin_payment"]

OTHER = "0f0e0d0c-1111-4222-8333-444455556666"
ACCEPTANCE_JSON = {
    "referencia": REFERENCIA,
    "status": "processando",
    "mensagem": "Pagamento enviado ao terminal",
    "targets": [{"smartposId": "SP-1", "status": "enviado"}],
}


def begin_payment(
    store: StoreBase, referencia: str = REFERENCIA, **request: Any
) -> tuple[Operation, bool]:
    """Journal a payment of 1000 cents on SP-1 (``request`` overrides its body's fields)."""
    return store._begin_operation(
        referencia,
        kind="payment",
        method="POST",
        path="/v1/payments",
        body=payment_request(referencia, **request),
    )


def final_id(operation: Operation | None) -> str | None:
    """The id of an operation's outcome, or None."""
    assert operation is not None
    return None if operation.event is None else operation.event.id


def reasons(operation: Operation | None) -> list[tuple[str, str]]:
    """(id, reason) of an operation's anomalies."""
    assert operation is not None
    return [(a.id, a.reason) for a in operation.anomalies]


class JournalContract:
    """Journal behaviour tests for one backend; a subclass overrides ``make_store``."""

    @pytest.fixture
    def make_store(self) -> StoreFactory:
        """The backend's store factory: every subclass overrides this fixture."""
        raise NotImplementedError("a backend's test class overrides the make_store fixture")

    @pytest.fixture
    def clock(self) -> FakeClock:
        """A clock the test moves by hand."""
        return FakeClock()

    @pytest.fixture
    def store(self, make_store: StoreFactory, clock: FakeClock) -> StoreBase:
        """A fresh store with default options on the fake clock."""
        return cast(StoreBase, make_store(clock=clock))

    # begin

    def test_unknown_referencia_has_no_operation(self, store: StoreBase) -> None:
        """A referencia never journaled has no operation and lists nothing."""
        assert store.operation(REFERENCIA) is None
        assert [] == store.operations()
        assert [] == store.operations(final=True)

    def test_begin_journals_the_exact_request_in_state_sending(
        self, store: StoreBase, clock: FakeClock
    ) -> None:
        """begin keeps kind, method, path and the exact body bytes, in state sending."""
        body = payment_request() + b" \xff\x00 not utf-8"

        operation, created = store._begin_operation(
            REFERENCIA, kind="payment", method="post", path="/v1/payments", body=body
        )

        stored = store.operation(REFERENCIA)
        assert created
        assert operation == stored
        assert stored is not None
        assert (stored.referencia, stored.kind, stored.state) == (REFERENCIA, "payment", "sending")
        assert (stored.method, stored.path, stored.body) == ("POST", "/v1/payments", body)
        assert (stored.created_at, stored.updated_at) == (clock.datetime(), clock.datetime())
        assert (stored.event, stored.anomalies, stored.acceptance) == (None, (), None)

    def test_second_begin_returns_the_first_entry_unchanged(
        self, store: StoreBase, clock: FakeClock
    ) -> None:
        """begin of a journaled referencia journals nothing and answers the first request."""
        first, _ = begin_payment(store)
        clock.advance(5)

        again, created = begin_payment(store, valor=5)

        assert not created
        assert first == again
        assert payment_request() == again.body

    def test_begin_from_threads_journals_once(self, store: StoreBase) -> None:
        """Eight threads beginning the same referencias at once: each is journaled once."""
        referencias = [f"{n:08d}-aaaa-4bbb-8ccc-000000000000" for n in range(20)]
        barrier = threading.Barrier(8)
        created: list[str] = []
        lock = threading.Lock()

        def begin_all(worker: int) -> None:
            barrier.wait()
            for referencia in referencias[worker:] + referencias[:worker]:
                _, new = begin_payment(store, referencia, valor=worker + 1)
                if new:
                    with lock:
                        created.append(referencia)

        threads = [threading.Thread(target=begin_all, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)

        assert dict.fromkeys(referencias, 1) == dict(Counter(created))
        assert len(referencias) == len(store.operations(limit=100))

    @pytest.mark.parametrize(
        "arguments",
        [
            {"kind": "sale"},
            {"method": ""},
            {"path": ""},
        ],
    )
    def test_begin_refuses_bad_arguments(self, store: StoreBase, arguments: dict[str, Any]) -> None:
        """An unknown kind or an empty method or path is a ValueError; nothing is journaled."""
        call = {"kind": "payment", "method": "POST", "path": "/v1/payments", "body": b"{}"}

        with pytest.raises(ValueError):
            store._begin_operation(REFERENCIA, **{**call, **arguments})
        assert store.operation(REFERENCIA) is None

    def test_bad_referencia_types(self, store: StoreBase) -> None:
        """A referencia that is not a non-empty str is refused with a clear error."""
        with pytest.raises(TypeError, match="referencia must be a str"):
            store.operation(5)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="non-empty"):
            store.operation("")

    # record

    def test_record_accepted_keeps_the_acceptance(self, store: StoreBase, clock: FakeClock) -> None:
        """accepted with its answer: the saved Acceptance comes back, rebuilt from the store."""
        begin_payment(store)
        clock.advance(2)
        acceptance = structure(ACCEPTANCE_JSON, Acceptance)

        recorded = store._record_operation(REFERENCIA, "accepted", answer=acceptance)

        operation = store.operation(REFERENCIA)
        assert recorded
        assert operation is not None
        assert ("accepted", clock.datetime()) == (operation.state, operation.updated_at)
        assert acceptance == operation.acceptance
        assert ACCEPTANCE_JSON == dict(operation.acceptance.raw)  # type: ignore[union-attr]

    def test_record_transitions(self, store: StoreBase) -> None:
        """unknown then accepted; accepted is never downgraded; an answer is kept after a 409."""
        begin_payment(store)
        steps = [
            store._record_operation(REFERENCIA, "unknown"),
            store._record_operation(REFERENCIA, "accepted", answer=Answer(202, ACCEPTANCE_JSON)),
            store._record_operation(REFERENCIA, "unknown"),
            store._record_operation(REFERENCIA, "rejected"),
            store._record_operation(REFERENCIA, "accepted"),
        ]

        operation = store.operation(REFERENCIA)
        assert [True, True, False, False, True] == steps
        assert operation is not None
        assert "accepted" == operation.state
        assert operation.acceptance is not None

    def test_record_of_an_unknown_referencia_is_false(self, store: StoreBase) -> None:
        """Nothing is journaled by a record."""
        assert not store._record_operation(REFERENCIA, "accepted")
        assert store.operation(REFERENCIA) is None

    def test_record_refuses_states_a_client_cannot_record(self, store: StoreBase) -> None:
        """final comes only from an event, sending only from begin."""
        begin_payment(store)

        for state in ("final", "sending"):
            with pytest.raises(ValueError, match="accepted, rejected, unknown"):
                store._record_operation(REFERENCIA, state)

    # outcomes

    def test_event_after_acceptance_finalizes(self, store: StoreBase) -> None:
        """The approval stored after the acceptance is the outcome; the state is final."""
        begin_payment(store)
        store._record_operation(REFERENCIA, "accepted")

        store.put(event("ev-1"))

        operation = store.operation(REFERENCIA)
        assert operation is not None
        assert isinstance(operation.event, PagamentoAprovado)
        assert ("final", "ev-1", ()) == (operation.state, operation.event.id, operation.anomalies)
        assert "ev-1" == getattr(store._outcome(REFERENCIA), "id", None)

    def test_event_stored_before_the_journal_entry_is_found(self, store: StoreBase) -> None:
        """The event arrives first (another process was faster): the entry still finds it."""
        assert PutResult.NEW == store.put(event("ev-1", "pagamento.recusado"))

        operation, created = begin_payment(store)

        assert (created, operation.state) == (True, "sending")
        assert "ev-1" == final_id(store.operation(REFERENCIA))

    def test_events_of_put_many_are_linked(self, store: StoreBase) -> None:
        """Events stored in a batch are linked to their referencias like single puts."""
        begin_payment(store)
        begin_payment(store, OTHER)

        store.put_many([event("a", referencia=OTHER), event("b"), event("c")])

        assert ("b", "a") == (
            final_id(store.operation(REFERENCIA)),
            final_id(store.operation(OTHER)),
        )
        assert [("c", "duplicate")] == reasons(store.operation(REFERENCIA))

    def test_later_contradiction_is_kept_and_flagged(self, store: StoreBase) -> None:
        """A refusal after the approval never replaces it: it is flagged as a contradiction."""
        begin_payment(store)
        store.put(event("approval"))
        assert "approval" == final_id(store.operation(REFERENCIA))

        store.put(event("refusal", "pagamento.recusado"))

        operation = store.operation(REFERENCIA)
        assert "approval" == final_id(operation)
        assert [("refusal", "contradiction")] == reasons(operation)
        assert store.get("refusal") is not None

    def test_duplicate_under_another_id(self, store: StoreBase) -> None:
        """The same approval redelivered under a new id is a duplicate anomaly."""
        begin_payment(store)

        store.put_many([event("first"), event("second")])

        operation = store.operation(REFERENCIA)
        assert "first" == final_id(operation)
        assert [("second", "duplicate")] == reasons(operation)

    def test_disagreeing_events_never_finalize(self, store: StoreBase) -> None:
        """Approvals for another amount, document or terminal are flagged, not the outcome."""
        begin_payment(store)
        store.put_many(
            [
                event("amount", valor=1),
                event("document", documento=OTHER_DOCUMENTO),
                event("terminal", smartpos_id="SP-9"),
            ]
        )

        waiting = store.operation(REFERENCIA)
        store.put(event("real", "pagamento.recusado"))
        ended = store.operation(REFERENCIA)

        assert waiting is not None
        assert (waiting.state, waiting.event) == ("sending", None)
        expected = [(i, "disagreement") for i in ("amount", "document", "terminal")]
        assert expected == reasons(waiting)
        assert "real" == final_id(ended)
        assert expected == reasons(ended)
        assert store._outcome(REFERENCIA) is not None

    def test_print_event_never_finalizes_a_payment(self, store: StoreBase) -> None:
        """A print outcome carrying a payment's referencia is not considered at all."""
        begin_payment(store)

        store.put(event("printed", "impressao.concluida"))

        operation = store.operation(REFERENCIA)
        assert operation is not None
        assert (operation.state, operation.event, operation.anomalies) == ("sending", None, ())
        assert store._outcome(REFERENCIA) is None

    def test_print_job_ends_with_its_print_event(self, store: StoreBase) -> None:
        """A journaled print job ends with impressao.falhou; a payment event is not its."""
        store._begin_operation(
            REFERENCIA, kind="print_job", method="POST", path="/v1/print-jobs", body=print_request()
        )

        store.put_many([event("paid"), event("failed", "impressao.falhou")])

        assert "failed" == final_id(store.operation(REFERENCIA))

    def test_rejected_operation_flags_its_events(self, store: StoreBase) -> None:
        """An event for an operation the service refused is flagged, never its outcome."""
        begin_payment(store)
        store._record_operation(REFERENCIA, "rejected")

        store.put(event("ev-1"))

        operation = store.operation(REFERENCIA)
        assert operation is not None
        assert (operation.state, operation.event) == ("rejected", None)
        assert [("ev-1", "rejected")] == reasons(operation)

    def test_final_never_changes(self, store: StoreBase) -> None:
        """Once final, recording accepted, unknown or rejected changes nothing."""
        begin_payment(store)
        store.put(event("ev-1"))
        store.operation(REFERENCIA)

        steps = [store._record_operation(REFERENCIA, s) for s in ("accepted", "unknown")]

        assert [False, False] == steps
        assert "final" == getattr(store.operation(REFERENCIA), "state", None)

    def test_unknown_referencia_event_is_kept_and_served_to_wait(self, store: StoreBase) -> None:
        """An event nobody journaled stays in the inbox; a wait without journal gets it."""
        store.put_many(
            [event("print", "impressao.concluida", OTHER), event("pay", referencia=OTHER)]
        )

        assert store.operation(OTHER) is None
        assert store.get("print") is not None
        assert "print" == getattr(store._outcome(OTHER), "id", None)

    def test_events_without_a_string_referencia_are_stored_and_not_linked(
        self, store: StoreBase
    ) -> None:
        """A numeric or missing dados.referencia, or dados that is no object, is only stored."""
        numeric = event("numeric")
        numeric.raw["dados"]["referencia"] = 123
        odd = event("odd")
        odd.raw["dados"] = ["not", "an", "object"]

        results = store.put_many([numeric, odd])

        assert [PutResult.NEW, PutResult.NEW] == results
        assert store._outcome("123") is None

    @pytest.mark.parametrize(
        "referencia",
        [
            'ação "citada" \\ barra',
            "\U0001f600-emoji",
            "a" * 300,
        ],
    )
    def test_awkward_referencias_are_linked_exactly(
        self, store: StoreBase, referencia: str
    ) -> None:
        """Quotes, backslashes, a NUL, emoji and long values link only to themselves."""
        results = store.put_many(
            [
                event("mine", referencia=referencia),
                event("prefix", referencia=referencia[:-1]),
                event("longer", referencia=referencia + "0"),
            ]
        )

        assert {PutResult.NEW} == set(results)
        assert "mine" == getattr(store._outcome(referencia), "id", None)

    def test_nul_in_a_referencia_never_breaks_put_nor_links_elsewhere(
        self, store: StoreBase
    ) -> None:
        """A referencia with a NUL (no client sends one) is stored; it never ends "x"."""
        results = store.put_many([event("nul", referencia="x\u0000y"), event("x", referencia="x")])

        assert [PutResult.NEW, PutResult.NEW] == results
        assert "x" == getattr(store._outcome("x"), "id", None)
        assert store.get("nul") is not None

    def test_recorded_outcome_survives_the_purge_of_its_event(
        self, store: StoreBase, clock: FakeClock
    ) -> None:
        """The outcome is kept in the journal: purging the done event does not lose it."""
        begin_payment(store)
        store.put(event("ev-1"))
        (claim,) = store.claim(owner="w", lease=30)
        store.ack(claim)
        clock.advance(10)
        store.operation(REFERENCIA)  # found and recorded after the event was done

        assert 1 == store.purge(done_before=clock.datetime() - dt.timedelta(seconds=5))

        assert store.get("ev-1") is None
        assert "ev-1" == final_id(store.operation(REFERENCIA))

    def test_purge_records_an_outcome_nobody_read_before_deleting_its_event(
        self, store: StoreBase, clock: FakeClock
    ) -> None:
        """An approval handled by a worker, never read through the journal, is recorded by
        the purge that deletes its event; a purge with nothing due deletes nothing."""
        begin_payment(store)
        store.put(event("ev-1"))
        (claim,) = store.claim(owner="w", lease=30)
        store.ack(claim)
        clock.advance(10)

        assert 0 == store.purge(done_before=clock.datetime() - dt.timedelta(seconds=60))
        assert store.get("ev-1") is not None
        assert 1 == store.purge(done_before=clock.datetime() - dt.timedelta(seconds=5))

        assert store.get("ev-1") is None
        assert "ev-1" == final_id(store.operation(REFERENCIA))

    def test_repr_of_a_stored_operation_masks_the_document(self, store: StoreBase) -> None:
        """Neither the journaled body nor the event's document show in the repr (LGPD)."""
        begin_payment(store)
        store.put_many([event("ev-1"), event("ev-2", "pagamento.recusado")])

        text = repr(store.operation(REFERENCIA))

        assert DOCUMENTO not in text
        assert "valorCentavos" not in text
        assert "529.***.***-25" in text

    # operations

    def test_operations_lists_the_waiting_oldest_first(
        self, store: StoreBase, clock: FakeClock
    ) -> None:
        """final=False lists sending, accepted and unknown in journaling order, no others."""
        refs = [f"{n:08d}-aaaa-4bbb-8ccc-000000000000" for n in range(6)]
        for referencia in refs:
            begin_payment(store, referencia)
            clock.advance(1)
        store._record_operation(refs[1], "accepted")
        store._record_operation(refs[2], "unknown")
        store._record_operation(refs[3], "rejected")
        store.put(event("ev", referencia=refs[4]))  # final, never read before the listing

        waiting = store.operations()
        everything = store.operations(final=True)

        assert [refs[0], refs[1], refs[2], refs[5]] == [o.referencia for o in waiting]
        assert ["sending", "accepted", "unknown", "sending"] == [o.state for o in waiting]
        assert refs == [o.referencia for o in everything]
        assert "final" == everything[4].state
        assert "final" == getattr(store.operation(refs[4]), "state", None)

    def test_operations_skip_accepted_refunds_and_expired_qr_codes(
        self, store: StoreBase, clock: FakeClock
    ) -> None:
        """Nothing more will come for an accepted refund (no refund event is specified) or a QR
        code past its expires_at: final=False leaves them out; a sending refund and a live QR
        code stay; final=True lists all."""
        refund, pending_refund, qr_old, qr_live = (
            f"{n:08d}-bbbb-4bbb-8ccc-000000000000" for n in range(4)
        )
        for referencia in (refund, pending_refund):
            store._begin_operation(
                referencia, kind="refund", method="POST", path="/v1/refunds", body=b"{}"
            )
        store._record_operation(refund, "accepted", answer=Answer(202, {"referencia": refund}))
        for referencia, seconds in ((qr_old, 60), (qr_live, 600)):
            store._begin_operation(
                referencia, kind="qrcode", method="POST", path="/qrcode", body=b"{}"
            )
            expires = clock.datetime() + dt.timedelta(seconds=seconds)
            body = {"qrCode": "x", "referencia": referencia, "expiresAt": expires.isoformat()}
            store._record_operation(referencia, "accepted", answer=Answer(201, body))
        clock.advance(120)

        waiting = [o.referencia for o in store.operations()]

        assert [pending_refund, qr_live] == waiting
        assert 4 == len(store.operations(final=True))

    def test_operations_limit_skips_finished_ones_across_pages(self, store: StoreBase) -> None:
        """With limit=2 and finished operations in between, the first two waiting come back."""
        refs = [f"{n:08d}-aaaa-4bbb-8ccc-000000000000" for n in range(7)]
        for referencia in refs:
            begin_payment(store, referencia)
        store.put_many([event(f"ev-{n}", referencia=refs[n]) for n in (0, 1, 2, 4)])

        first_two = store.operations(limit=2)
        one = store.operations(limit=1)

        assert [refs[3], refs[5]] == [o.referencia for o in first_two]
        assert [refs[3]] == [o.referencia for o in one]
        assert [refs[3], refs[5], refs[6]] == [o.referencia for o in store.operations()]

    def test_operations_argument_checks(self, store: StoreBase) -> None:
        """limit must be an int (below 1: nothing), final a bool."""
        begin_payment(store)

        assert [] == store.operations(limit=0)
        with pytest.raises(TypeError, match="limit"):
            store.operations(limit="5")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="final"):
            store.operations(final=None)  # type: ignore[arg-type]

    # purge

    def test_purge_forgets_ended_operations_after_the_cutoff(
        self, store: StoreBase, clock: FakeClock
    ) -> None:
        """Final and rejected operations updated before the cutoff go; waiting ones stay."""
        refs = [f"{n:08d}-aaaa-4bbb-8ccc-000000000000" for n in range(5)]
        for referencia in refs:
            begin_payment(store, referencia)
        store._record_operation(refs[0], "rejected")
        store.put(event("ev-1", referencia=refs[1]))
        store.operation(refs[1])
        store._record_operation(refs[2], "accepted")
        clock.advance(100)
        cutoff = clock.datetime()
        clock.advance(1)
        store._record_operation(refs[3], "rejected")

        purged = store.purge(done_before=cutoff)

        left = [o.referencia for o in store.operations(final=True)]
        assert 2 == purged
        assert [refs[2], refs[3], refs[4]] == left
        assert store.operation(refs[0]) is None
        assert store.operation(refs[1]) is None
        assert store.get("ev-1") is not None

    def test_purge_by_default_retention(self, store: StoreBase, clock: FakeClock) -> None:
        """purge() forgets an operation that ended more than the retention ago."""
        begin_payment(store)
        store._record_operation(REFERENCIA, "rejected")

        clock.advance(7 * 86400)
        kept = store.purge()
        clock.advance(1)
        gone = store.purge()

        assert (0, 1) == (kept, gone)
        assert store.operation(REFERENCIA) is None

    def test_purged_events_leave_the_referencia_index(
        self, store: StoreBase, clock: FakeClock
    ) -> None:
        """A purged done event is no longer found by referencia (nor as an anomaly)."""
        store.put_many([event("old"), event("other", referencia=OTHER)])
        for claim in store.claim(owner="w", lease=30, limit=2):
            store.ack(claim)
        clock.advance(10)
        store.purge(done_before=clock.datetime())

        store.put(event("new", "pagamento.recusado"))

        assert "new" == getattr(store._outcome(REFERENCIA), "id", None)
        assert store._outcome(OTHER) is None
        assert PutResult.NEW == store.put(event("old"))
