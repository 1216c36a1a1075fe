"""Clients given a store: journal, create_and_wait, wait, reconcile, on all four stores.

Every test runs with ``Client`` and ``AsyncClient`` (``flavour``) on Memory, SQLite, Redis and
PostgreSQL stores (``store``), against the sandbox, whose webhook is a ``WebhookReceiver`` on
the same store: the events reach the store the way they do in production.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from typing import Any

import pytest
from outcome_helpers import PAYMENT, Recording, envelope, on_client, payment_kwargs

import smartpos
from client_cases import SDK, in_the_tests_loop
from smartpos.testing import (
    ConnectionRefused,
    DropConnection,
    InternalError,
    NoAnswer,
    PrintFail,
    Refuse,
    Sandbox,
)
from smartpos.webhooks import (
    ImpressaoConcluida,
    ImpressaoFalhou,
    MemoryStore,
    PagamentoAprovado,
    PagamentoRecusado,
    SmartposIdentificado,
    StoreBase,
    StoreError,
    WebhookReceiver,
)

pytestmark = pytest.mark.asyncio

BASE = "http://sandbox.test"
#: Short enough for a test that must time out, long enough for an event already on its way.
SHORT = 0.3


@pytest.fixture
def recording(sandbox: Sandbox) -> Recording:
    """The sandbox's transport, recording the exact bytes of every request."""
    return Recording(sandbox.transport())


@pytest.fixture
def client(make_sdk: Callable[..., SDK], store: StoreBase, recording: Recording) -> SDK:
    """A client of this run's flavour on this run's store, against the sandbox."""
    return make_sdk(api_key=Sandbox.API_KEY, base_url=BASE, transport=recording, store=store)


def sandbox_event(sandbox: Sandbox, referencia: str) -> dict[str, Any]:
    """The one event the sandbox produced for ``referencia``."""
    [produced] = [e for e in sandbox.events if e["dados"].get("referencia") == referencia]
    return produced


def accepted_payments(sandbox: Sandbox, referencia: str) -> int:
    """How many payments the sandbox accepted under ``referencia`` (a charge each)."""
    return sum(1 for p in sandbox.payments if p.referencia == referencia)


# --- the journal around create --------------------------------------------------------------


async def test_create_journals_the_exact_request_before_sending_it(
    make_sdk: Callable[..., SDK], store: StoreBase, sandbox: Sandbox
) -> None:
    """When the request leaves, the journal already holds it in state sending, byte for byte."""
    seen: list[Any] = []
    transport = Recording(
        sandbox.transport(),
        before=lambda request: seen.append(
            store.operation(json.loads(request.content)["referencia"])
        ),
    )
    sdk = make_sdk(api_key=Sandbox.API_KEY, base_url=BASE, transport=transport, store=store)
    sandbox.hold_events()

    acceptance = await sdk.call("payments", "create", **PAYMENT)

    [(method, path, body)] = transport.sent
    [journaled] = seen
    assert ("sending", "payment", method, path, body) == (
        journaled.state,
        journaled.kind,
        journaled.method,
        journaled.path,
        journaled.body,
    )
    operation = store.operation(acceptance.referencia)
    assert "accepted" == operation.state
    assert acceptance.raw == operation.acceptance.raw
    assert [operation.referencia] == [o.referencia for o in store.operations()]


@pytest.mark.parametrize(
    ("resource", "kwargs", "kind"),
    [
        ("print_jobs", {"smartpos_id": Sandbox.SMARTPOS_ID, "conteudo": "recibo"}, "print_job"),
        ("qrcodes", {}, "qrcode"),
    ],
)
async def test_print_jobs_and_qrcodes_are_journaled_with_their_answer(
    client: SDK,
    store: StoreBase,
    sandbox: Sandbox,
    resource: str,
    kwargs: dict[str, Any],
    kind: str,
) -> None:
    """Print jobs and QR codes are journaled too, their answer kept as the saved result."""
    sandbox.hold_events()

    result = await client.call(resource, "create", documento_cliente=Sandbox.DOCUMENTO, **kwargs)

    operation = store.operation(result.referencia)
    assert (kind, "accepted") == (operation.kind, operation.state)
    assert result.raw == operation.result.raw


async def test_refunds_are_journaled(client: SDK, store: StoreBase, sandbox: Sandbox) -> None:
    """A refund from an approval event is journaled as a refund and accepted."""
    approved = await client.call("payments", "create_and_wait", **PAYMENT, timeout=5)
    sandbox.hold_events()

    refund = await client.call("refunds", "create_for", approved)

    operation = store.operation(refund.referencia)
    assert ("refund", "accepted") == (operation.kind, operation.state)
    assert refund.raw == operation.result.raw


async def test_a_refused_request_is_journaled_rejected_and_not_waiting(
    client: SDK, store: StoreBase
) -> None:
    """An API error (surely not accepted) is journaled rejected: operations() leaves it out."""
    referencia = smartpos.new_referencia()
    with pytest.raises(smartpos.SmartposNaoEncontradoError):
        await client.call(
            "payments", "create", **payment_kwargs(smartpos_id="SP-NOPE", referencia=referencia)
        )

    assert "rejected" == store.operation(referencia).state
    assert [] == store.operations()


async def test_an_unknown_answer_is_journaled_unknown_and_waiting(
    client: SDK, store: StoreBase, sandbox: Sandbox
) -> None:
    """No answer after the request arrived: unknown, listed by operations(final=False)."""
    sandbox.hold_events()
    sandbox.fail_next("payments", DropConnection(), times=3)

    with pytest.raises(smartpos.OutcomeUnknownError) as caught:
        await client.call("payments", "create", **PAYMENT)

    referencia = caught.value.referencia
    assert "unknown" == store.operation(referencia).state
    assert [referencia] == [o.referencia for o in store.operations()]


async def test_a_409_to_a_retry_is_journaled_accepted(
    client: SDK, store: StoreBase, sandbox: Sandbox
) -> None:
    """The create still raises OutcomeUnknownError, but the journal knows it arrived."""
    sandbox.hold_events()
    sandbox.fail_next("payments", DropConnection())

    with pytest.raises(smartpos.OutcomeUnknownError) as caught:
        await client.call("payments", "create", **PAYMENT)

    assert isinstance(caught.value.last_error, smartpos.ReferenciaDuplicadaError)
    operation = store.operation(caught.value.referencia)
    assert ("accepted", None) == (operation.state, operation.acceptance)


# --- create_and_wait ------------------------------------------------------------------------


async def test_payment_create_and_wait_returns_the_approval_the_sandbox_produced(
    client: SDK, store: StoreBase, sandbox: Sandbox
) -> None:
    """The approval comes back as the typed event, the one the sandbox delivered."""
    event = await client.call("payments", "create_and_wait", **PAYMENT, timeout=5)

    assert isinstance(event, PagamentoAprovado)
    assert sandbox_event(sandbox, event.dados.referencia) == dict(event.raw)
    assert "final" == store.operation(event.dados.referencia).state
    assert [] == store.operations()


async def test_payment_create_and_wait_returns_a_refusal(client: SDK, sandbox: Sandbox) -> None:
    """A refused payment ends with PagamentoRecusado, and a new referencia is a new attempt."""
    sandbox.script_payments(Refuse(mensagem_operador="SALDO INSUFICIENTE"))

    refused = await client.call("payments", "create_and_wait", **PAYMENT, timeout=5)
    retried = await client.call("payments", "create_and_wait", **PAYMENT, timeout=5)

    assert isinstance(refused, PagamentoRecusado)
    assert "SALDO INSUFICIENTE" == refused.dados.resultado_smartpos.mensagem_operador
    assert isinstance(retried, PagamentoAprovado)
    assert refused.dados.referencia != retried.dados.referencia


async def test_print_create_and_wait_returns_done_or_failed(client: SDK, sandbox: Sandbox) -> None:
    """A print job ends with ImpressaoConcluida or ImpressaoFalhou."""
    sandbox.script_prints(PrintFail())
    arguments = {
        "documento_cliente": Sandbox.DOCUMENTO,
        "smartpos_id": Sandbox.SMARTPOS_ID,
        "conteudo": b"recibo",
    }

    failed = await client.call("print_jobs", "create_and_wait", **arguments, timeout=5)
    done = await client.call("print_jobs", "create_and_wait", **arguments, timeout=5)

    assert (ImpressaoFalhou, ImpressaoConcluida) == (type(failed), type(done))


async def test_qrcode_create_and_wait_shows_the_code_then_returns_the_identification(
    client: SDK, sandbox: Sandbox
) -> None:
    """show() gets the QR code before the wait; the terminal reading it ends the wait."""
    shown: list[smartpos.QRCode] = []

    def show(qr: smartpos.QRCode) -> None:
        shown.append(qr)
        sandbox.scan(qr.qr_code, "SP-NEW-1")

    event = await client.call(
        "qrcodes", "create_and_wait", documento_cliente=Sandbox.DOCUMENTO, show=show, timeout=5
    )

    assert isinstance(event, SmartposIdentificado)
    assert ([event.dados.referencia], "SP-NEW-1") == (
        [qr.referencia for qr in shown],
        event.dados.smartpos_id,
    )


async def test_create_and_wait_after_an_unknown_answer_keeps_waiting_for_the_event(
    client: SDK, sandbox: Sandbox, recording: Recording
) -> None:
    """Every send lost its answer: no new referencia, the event still ends the wait."""
    sandbox.hold_events()
    sandbox.fail_next("payments", DropConnection(), times=3)
    threading.Timer(0.2, sandbox.release_events).start()

    event = await client.call("payments", "create_and_wait", **PAYMENT, timeout=10)

    referencia = event.dados.referencia
    assert isinstance(event, PagamentoAprovado)
    assert 1 == accepted_payments(sandbox, referencia)
    assert [referencia] * 3 == [json.loads(b)["referencia"] for _, _, b in recording.sent]


async def test_create_and_wait_without_an_event_in_time_is_pending(
    client: SDK, sandbox: Sandbox
) -> None:
    """The customer walked away: OutcomePendingError, an OutcomeUnknownError with the referencia."""
    sandbox.script_payments(NoAnswer())

    with pytest.raises(smartpos.OutcomePendingError) as caught:
        await client.call("payments", "create_and_wait", **PAYMENT, timeout=SHORT)

    assert isinstance(caught.value, smartpos.OutcomeUnknownError)
    assert 1 == accepted_payments(sandbox, caught.value.referencia)
    assert SHORT == caught.value.timeout


async def test_create_and_wait_raises_a_rejection_without_waiting(
    client: SDK, store: StoreBase, sandbox: Sandbox
) -> None:
    """Surely not accepted: the error itself at once (a wait would last the whole minute)."""
    sandbox.fail_next("payments", ConnectionRefused(), times=3)

    with pytest.raises(smartpos.TransportError):
        await client.call("payments", "create_and_wait", **PAYMENT, timeout=60)

    assert ["rejected"] == [o.state for o in store.operations(final=True)]


# --- wait -----------------------------------------------------------------------------------


async def test_wait_returns_the_outcome_of_a_referencia_nobody_journaled(
    client: SDK, store: StoreBase
) -> None:
    """Another system started it: the first stored final event with that referencia."""
    referencia = smartpos.new_referencia()
    approved = envelope("pagamento.aprovado", referencia, valorCentavos=100)
    WebhookReceiver(store).receive(json.dumps(approved).encode())

    event = await on_client(client, "wait", referencia, timeout=5)

    assert approved["id"] == event.id


async def test_wait_wakes_when_the_event_is_stored_later(client: SDK, sandbox: Sandbox) -> None:
    """A wait that starts before the event is stored ends when it is."""
    sandbox.hold_events()
    acceptance = await client.call("payments", "create", **PAYMENT)
    threading.Timer(0.2, sandbox.release_events).start()

    event = await on_client(client, "wait", acceptance.referencia, timeout=10)

    assert sandbox_event(sandbox, acceptance.referencia)["id"] == event.id


async def test_wait_without_an_event_is_pending(client: SDK) -> None:
    """No final event in time: OutcomePendingError."""
    with pytest.raises(smartpos.OutcomePendingError):
        await on_client(client, "wait", smartpos.new_referencia(), timeout=SHORT)


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), float("inf"), True, "5"])
async def test_wait_refuses_a_bad_timeout(client: SDK, timeout: object) -> None:
    """A timeout that is not a positive finite number is a ValidationError."""
    with pytest.raises(smartpos.ValidationError, match="timeout"):
        await on_client(client, "wait", smartpos.new_referencia(), timeout=timeout)


# --- agreement: forged, misrouted and contradicting events ----------------------------------


async def test_a_forged_approval_never_ends_the_sale(
    client: SDK, store: StoreBase, sandbox: Sandbox
) -> None:
    """An approval for another amount is kept as an anomaly; the real event still ends it."""
    sandbox.hold_events()
    acceptance = await client.call("payments", "create", **PAYMENT)
    forged = envelope("pagamento.aprovado", acceptance.referencia, valorCentavos=1)
    WebhookReceiver(store).receive(json.dumps(forged).encode())

    with pytest.raises(smartpos.OutcomePendingError):
        await on_client(client, "wait", acceptance.referencia, timeout=SHORT)
    sandbox.release_events()
    event = await on_client(client, "wait", acceptance.referencia, timeout=5)

    assert sandbox_event(sandbox, acceptance.referencia)["id"] == event.id
    operation = store.operation(acceptance.referencia)
    assert [(forged["id"], "disagreement")] == [(a.id, a.reason) for a in operation.anomalies]


async def test_a_misrouted_event_of_another_customer_never_ends_the_sale(
    client: SDK, store: StoreBase, sandbox: Sandbox
) -> None:
    """Same referencia, another customer's document: never the outcome."""
    sandbox.script_payments(NoAnswer())
    acceptance = await client.call("payments", "create", **PAYMENT)
    misrouted = envelope(
        "pagamento.recusado", acceptance.referencia, documentoCliente="11222333000181"
    )
    WebhookReceiver(store).receive(json.dumps(misrouted).encode())

    with pytest.raises(smartpos.OutcomePendingError):
        await on_client(client, "wait", acceptance.referencia, timeout=SHORT)
    assert ["disagreement"] == [a.reason for a in store.operation(acceptance.referencia).anomalies]


async def test_a_print_event_never_ends_a_payment(
    client: SDK, store: StoreBase, sandbox: Sandbox
) -> None:
    """A print outcome carrying the payment's referencia is not considered at all."""
    sandbox.script_payments(NoAnswer())
    acceptance = await client.call("payments", "create", **PAYMENT)
    printed = envelope("impressao.concluida", acceptance.referencia)
    WebhookReceiver(store).receive(json.dumps(printed).encode())

    with pytest.raises(smartpos.OutcomePendingError):
        await on_client(client, "wait", acceptance.referencia, timeout=SHORT)
    assert "accepted" == store.operation(acceptance.referencia).state


async def test_a_later_contradicting_event_is_an_anomaly(
    client: SDK, store: StoreBase, sandbox: Sandbox
) -> None:
    """A refusal after the approval is kept and flagged; the approval stands, forever."""
    approved = await client.call("payments", "create_and_wait", **PAYMENT, timeout=5)
    referencia = approved.dados.referencia
    contradiction = envelope(
        "pagamento.recusado",
        referencia,
        valorCentavos=PAYMENT["valor_centavos"],
        smartposId=Sandbox.SMARTPOS_ID,
    )
    WebhookReceiver(store).receive(json.dumps(contradiction).encode())

    again = await on_client(client, "wait", referencia, timeout=5)

    assert approved.id == again.id
    operation = store.operation(referencia)
    assert (approved.id, [(contradiction["id"], "contradiction")]) == (
        operation.event.id,
        [(a.id, a.reason) for a in operation.anomalies],
    )


# --- idempotent create ----------------------------------------------------------------------


async def test_the_same_request_after_acceptance_returns_the_saved_acceptance(
    client: SDK, sandbox: Sandbox, recording: Recording
) -> None:
    """Nothing is sent the second time; the result is the first one's."""
    sandbox.hold_events()
    referencia = smartpos.new_referencia()
    first = await client.call("payments", "create", **payment_kwargs(referencia=referencia))

    again = await client.call("payments", "create", **payment_kwargs(referencia=referencia))

    assert 1 == len(recording.sent)
    assert (first.referencia, first.raw, first.targets) == (
        again.referencia,
        again.raw,
        again.targets,
    )


async def test_a_different_request_under_a_journaled_referencia_is_refused(
    client: SDK, store: StoreBase, sandbox: Sandbox, recording: Recording
) -> None:
    """Another amount under the same referencia: ValidationError, nothing sent."""
    referencia = smartpos.new_referencia()
    await client.call("payments", "create", **payment_kwargs(referencia=referencia))

    with pytest.raises(smartpos.ValidationError) as caught:
        await client.call(
            "payments", "create", **payment_kwargs(referencia=referencia, valor_centavos=5)
        )

    assert ("REFERENCIA_DUPLICADA", "referencia") == (caught.value.codigo, caught.value.campo)
    assert 1 == len(recording.sent)


async def test_the_same_request_after_an_unknown_answer_is_resent_byte_for_byte(
    client: SDK, store: StoreBase, sandbox: Sandbox, recording: Recording
) -> None:
    """A 5xx left it unknown; creating it again resends the journaled bytes, once charged."""
    sandbox.hold_events()
    referencia = smartpos.new_referencia()
    sandbox.fail_next("payments", InternalError(), times=3)
    with pytest.raises(smartpos.OutcomeUnknownError):
        await client.call("payments", "create", **payment_kwargs(referencia=referencia))

    acceptance = await client.call("payments", "create", **payment_kwargs(referencia=referencia))

    assert referencia == acceptance.referencia
    assert 1 == len(set(recording.bodies(referencia)))
    assert 4 == len(recording.bodies(referencia))
    assert (1, "accepted") == (
        accepted_payments(sandbox, referencia),
        store.operation(referencia).state,
    )


async def test_the_same_request_after_its_answer_was_lost_is_not_charged_twice(
    client: SDK, store: StoreBase, sandbox: Sandbox, recording: Recording
) -> None:
    """It arrived and the answer was lost: the resend gets 409, still one charge."""
    sandbox.hold_events()
    referencia = smartpos.new_referencia()
    sandbox.fail_next("payments", DropConnection(), times=3)
    with pytest.raises(smartpos.OutcomeUnknownError):
        await client.call("payments", "create", **payment_kwargs(referencia=referencia))

    with pytest.raises(smartpos.OutcomeUnknownError) as caught:
        await client.call("payments", "create", **payment_kwargs(referencia=referencia))

    assert isinstance(caught.value.last_error, smartpos.ReferenciaDuplicadaError)
    assert (1, "accepted") == (
        accepted_payments(sandbox, referencia),
        store.operation(referencia).state,
    )
    assert 1 == len(set(recording.bodies(referencia)))


async def test_the_same_request_after_a_rejection_may_be_sent_again(
    client: SDK, store: StoreBase, sandbox: Sandbox
) -> None:
    """Nothing reached the service the first time: the same referencia may try again."""
    sandbox.hold_events()
    referencia = smartpos.new_referencia()
    sandbox.fail_next("payments", ConnectionRefused(), times=3)
    with pytest.raises(smartpos.TransportError):
        await client.call("payments", "create", **payment_kwargs(referencia=referencia))
    assert "rejected" == store.operation(referencia).state

    acceptance = await client.call("payments", "create", **payment_kwargs(referencia=referencia))

    assert (referencia, "accepted", 1) == (
        acceptance.referencia,
        store.operation(referencia).state,
        accepted_payments(sandbox, referencia),
    )


# --- reconcile ------------------------------------------------------------------------------


async def test_reconcile_after_a_lost_answer_settles_it_without_a_second_charge(
    client: SDK, store: StoreBase, sandbox: Sandbox, recording: Recording
) -> None:
    """The request arrived, every answer was lost: reconcile's resend gets 409: accepted."""
    sandbox.hold_events()
    sandbox.fail_next("payments", DropConnection(), times=3)
    with pytest.raises(smartpos.OutcomeUnknownError) as caught:
        await client.call("payments", "create", **PAYMENT)
    referencia = caught.value.referencia

    operation = await on_client(client, "reconcile", referencia)

    assert (referencia, "accepted") == (operation.referencia, operation.state)
    assert 1 == accepted_payments(sandbox, referencia)
    assert 1 == len(set(recording.bodies(referencia)))
    sandbox.release_events()
    event = await on_client(client, "wait", referencia, timeout=5)
    assert sandbox_event(sandbox, referencia)["id"] == event.id


async def test_reconcile_after_a_request_that_never_arrived_sends_it_now(
    client: SDK, store: StoreBase, sandbox: Sandbox, recording: Recording
) -> None:
    """5xx before processing: the resend is accepted now, with its acceptance saved."""
    sandbox.hold_events()
    sandbox.fail_next("payments", InternalError(), times=3)
    with pytest.raises(smartpos.OutcomeUnknownError) as caught:
        await client.call("payments", "create", **PAYMENT)
    referencia = caught.value.referencia

    operation = await on_client(client, "reconcile", referencia)

    assert ("accepted", referencia) == (operation.state, operation.acceptance.referencia)
    assert 1 == accepted_payments(sandbox, referencia)
    assert 1 == len(set(recording.bodies(referencia)))


async def test_reconcile_that_still_gets_no_answer_stays_unknown(
    client: SDK, store: StoreBase, sandbox: Sandbox
) -> None:
    """The resend fails too: OutcomeUnknownError, and the operation is still waiting."""
    sandbox.fail_next("payments", InternalError(), times=6)
    with pytest.raises(smartpos.OutcomeUnknownError) as caught:
        await client.call("payments", "create", **PAYMENT)
    referencia = caught.value.referencia

    with pytest.raises(smartpos.OutcomeUnknownError):
        await on_client(client, "reconcile", referencia)

    assert ["unknown"] == [o.state for o in store.operations()]
    assert 0 == accepted_payments(sandbox, referencia)


async def test_reconcile_returns_an_ended_operation_without_sending(
    client: SDK, recording: Recording
) -> None:
    """A final operation has nothing to resolve: returned as is, nothing sent."""
    event = await client.call("payments", "create_and_wait", **PAYMENT, timeout=5)
    sent = len(recording.sent)

    operation = await on_client(client, "reconcile", event.dados.referencia)

    assert ("final", event.id, sent) == (operation.state, operation.event.id, len(recording.sent))


async def test_reconcile_of_an_unknown_referencia_is_a_validation_error(
    client: SDK, recording: Recording
) -> None:
    """The journal does not hold it: ValidationError naming referencia, nothing sent."""
    with pytest.raises(smartpos.ValidationError) as caught:
        await on_client(client, "reconcile", smartpos.new_referencia())

    assert ("referencia", []) == (caught.value.campo, recording.sent)


# --- without a store, and when the store fails ----------------------------------------------


@pytest.mark.parametrize(
    ("target", "args", "kwargs"),
    [
        ("payments.create_and_wait", (), PAYMENT),
        (
            "print_jobs.create_and_wait",
            (),
            {
                "documento_cliente": Sandbox.DOCUMENTO,
                "smartpos_id": Sandbox.SMARTPOS_ID,
                "conteudo": "x",
            },
        ),
        ("qrcodes.create_and_wait", (), {"documento_cliente": Sandbox.DOCUMENTO}),
        ("wait", ("3f1c2b7e-9a4d-4c8e-b1f2-6d7e8f9a0b1c",), {"timeout": 1}),
        ("reconcile", ("3f1c2b7e-9a4d-4c8e-b1f2-6d7e8f9a0b1c",), {}),
    ],
)
async def test_without_a_store_the_outcome_methods_refuse_before_sending(
    make_sdk: Callable[..., SDK],
    target: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> None:
    """ConfigurationError that names the store option; the sandbox saw nothing."""
    with Sandbox() as sandbox:
        sdk = make_sdk(api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport())
        owner, _, method = target.rpartition(".")
        call = (
            sdk.call(owner, method, *args, **kwargs)
            if owner
            else on_client(sdk, method, *args, **kwargs)
        )
        with pytest.raises(smartpos.ConfigurationError, match="store="):
            await call
        assert [] == sandbox.requests


async def test_a_store_of_the_wrong_type_is_a_configuration_error(
    client_class: type[smartpos.Client] | type[smartpos.AsyncClient],
) -> None:
    """A dict is not a store (a path or a URL is one: see test_outcomes_store_url.py)."""
    with pytest.raises(smartpos.ConfigurationError, match=r"smartpos\.webhooks store"):
        client_class(api_key="k", base_url=BASE, store={"path": "inbox.db"})  # type: ignore[arg-type]


class _FailingStore(MemoryStore):
    """A MemoryStore whose journal writes fail on demand."""

    def __init__(self, fail: str, *, applied: bool | None = False) -> None:
        super().__init__()
        self.fail = fail
        self.applied = applied

    def _begin_operation(self, *args: Any, **kwargs: Any) -> Any:
        if self.fail == "begin":
            raise StoreError("the journal is down", applied=self.applied)
        return super()._begin_operation(*args, **kwargs)

    def _record_operation(self, *args: Any, **kwargs: Any) -> bool:
        if self.fail == "record":
            raise StoreError("the journal is down", applied=self.applied)
        return super()._record_operation(*args, **kwargs)


async def test_a_journal_that_cannot_be_written_sends_nothing(
    make_sdk: Callable[..., SDK],
) -> None:
    """A journal write the store proves was not applied: StoreError, nothing sent."""
    store = _FailingStore("begin", applied=False)
    with Sandbox() as sandbox:
        sdk = make_sdk(
            api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), store=store
        )
        with pytest.raises(StoreError):
            await sdk.call("payments", "create", **PAYMENT)
        assert [] == sandbox.requests


async def test_a_journal_write_that_may_have_been_applied_is_an_unknown_outcome(
    make_sdk: Callable[..., SDK],
) -> None:
    """A failed write the store cannot vouch for: OutcomeUnknownError with the referencia."""
    store = _FailingStore("begin", applied=None)
    with Sandbox() as sandbox:
        sdk = make_sdk(
            api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), store=store
        )
        with pytest.raises(smartpos.OutcomeUnknownError) as caught:
            await sdk.call("payments", "create", **PAYMENT)
        assert isinstance(caught.value.last_error, StoreError)
        assert smartpos.is_valid_referencia(caught.value.referencia)
        assert [] == sandbox.requests


async def test_an_answer_is_never_lost_to_a_journal_that_fails_after_the_send(
    make_sdk: Callable[..., SDK], caplog: pytest.LogCaptureFixture
) -> None:
    """The acceptance is returned, a warning says to reconcile, the entry stays waiting."""
    store = _FailingStore("record")
    with Sandbox() as sandbox:
        sandbox.hold_events()
        sdk = make_sdk(
            api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), store=store
        )
        with caplog.at_level(logging.WARNING, logger="smartpos"):
            acceptance = await sdk.call("payments", "create", **PAYMENT)

    assert "sending" == store.operation(acceptance.referencia).state
    assert any("reconcile" in r.getMessage() for r in caplog.records)


async def test_async_store_calls_never_block_the_event_loop() -> None:
    """A journal write that waits for the loop to run would deadlock if run in the loop."""
    import anyio

    released = threading.Event()

    class SlowStore(MemoryStore):
        def _begin_operation(self, *args: Any, **kwargs: Any) -> Any:
            # Only a task of the event loop sets it: in the loop's thread this never returns.
            assert released.wait(5.0), "the store call ran in the event loop's thread"
            return super()._begin_operation(*args, **kwargs)

    results: list[Any] = []
    with Sandbox() as sandbox:
        async with smartpos.AsyncClient(
            api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport(), store=SlowStore()
        ) as client:

            async def create() -> None:
                results.append(await client.payments.create(**PAYMENT))

            async with anyio.create_task_group() as group:
                group.start_soon(create)
                await anyio.sleep(0.05)
                released.set()

    assert 1 == len(results)


# --- the rarer paths ------------------------------------------------------------------------


async def test_create_after_an_acceptance_known_only_by_its_409_sends_nothing(
    client: SDK, store: StoreBase, sandbox: Sandbox, recording: Recording
) -> None:
    """Accepted by a 409, with no acceptance ever read: OutcomeUnknownError, nothing sent."""
    sandbox.hold_events()
    referencia = smartpos.new_referencia()
    sandbox.fail_next("payments", DropConnection())
    with pytest.raises(smartpos.OutcomeUnknownError):
        await client.call("payments", "create", **payment_kwargs(referencia=referencia))
    sent = len(recording.sent)

    with pytest.raises(smartpos.OutcomeUnknownError) as caught:
        await client.call("payments", "create", **payment_kwargs(referencia=referencia))

    assert sent == len(recording.sent)
    assert "without the service's answer" in str(caught.value.last_error)


async def test_a_pending_wait_after_an_unknown_answer_keeps_its_cause(
    client: SDK, sandbox: Sandbox
) -> None:
    """OutcomePendingError carries the create's last error, and the unknown outcome as cause."""
    sandbox.hold_events()
    sandbox.fail_next("payments", InternalError(after_accept=True), times=3)

    with pytest.raises(smartpos.OutcomePendingError) as caught:
        await client.call("payments", "create_and_wait", **PAYMENT, timeout=SHORT)

    assert isinstance(caught.value.__cause__, smartpos.OutcomeUnknownError)
    assert isinstance(caught.value.last_error, smartpos.InternalServerError)
    assert 3 == caught.value.attempts


@pytest.mark.parametrize(
    ("referencia", "codigo"), [("", "CAMPO_OBRIGATORIO"), (42, "CAMPO_INVALIDO")]
)
@pytest.mark.parametrize("method", ["wait", "reconcile"])
async def test_wait_and_reconcile_refuse_a_bad_referencia(
    client: SDK, recording: Recording, method: str, referencia: object, codigo: str
) -> None:
    """An empty or non-string referencia: ValidationError naming it, nothing sent."""
    kwargs = {"timeout": 1} if method == "wait" else {}

    with pytest.raises(smartpos.ValidationError) as caught:
        await on_client(client, method, referencia, **kwargs)

    assert (codigo, "referencia", []) == (caught.value.codigo, caught.value.campo, recording.sent)


async def test_qrcode_create_and_wait_refuses_a_show_that_is_not_callable(
    client: SDK, recording: Recording
) -> None:
    """show must be callable: ValidationError before anything is sent."""
    with pytest.raises(smartpos.ValidationError, match="show"):
        await client.call(
            "qrcodes", "create_and_wait", documento_cliente=Sandbox.DOCUMENTO, show="print"
        )

    assert [] == recording.sent


async def test_a_rejected_operation_accepted_meanwhile_by_another_process_is_not_resent(
    make_sdk: Callable[..., SDK],
) -> None:
    """Between reading "rejected" and journaling the resend, another process had it accepted."""

    class Racing(MemoryStore):
        def _restart_operation(self, referencia: str) -> bool:
            # Another process got there first, with a 409 (no acceptance read).
            super()._record_operation(referencia, "accepted")
            return super()._restart_operation(referencia)

    store = Racing()
    referencia = smartpos.new_referencia()
    with Sandbox() as sandbox:
        transport = Recording(sandbox.transport())
        sdk = make_sdk(api_key=Sandbox.API_KEY, base_url=BASE, transport=transport, store=store)
        sandbox.fail_next("payments", ConnectionRefused(), times=3)
        with pytest.raises(smartpos.TransportError):
            await sdk.call("payments", "create", **payment_kwargs(referencia=referencia))

        with pytest.raises(smartpos.OutcomeUnknownError):
            await sdk.call("payments", "create", **payment_kwargs(referencia=referencia))

        assert 3 == len(transport.sent)
        assert "accepted" == store.operation(referencia).state


async def test_a_409_to_the_first_send_keeps_the_operation_waiting_for_its_event(
    client: SDK, store: StoreBase, sandbox: Sandbox
) -> None:
    """Another process sent R first: a 409 here, and R's event still ends the operation."""
    sandbox.hold_events()
    referencia = smartpos.new_referencia()
    with (
        smartpos.Client(
            api_key=Sandbox.API_KEY, base_url=BASE, transport=sandbox.transport()
        ) as elsewhere,
        in_the_tests_loop(),
    ):
        elsewhere.payments.create(**payment_kwargs(referencia=referencia))

    with pytest.raises(smartpos.ReferenciaDuplicadaError):
        await client.call("payments", "create", **payment_kwargs(referencia=referencia))

    assert "accepted" == store.operation(referencia).state
    sandbox.release_events()
    event = await on_client(client, "wait", referencia, timeout=5)
    assert (sandbox_event(sandbox, referencia)["id"], 1) == (
        event.id,
        accepted_payments(sandbox, referencia),
    )
