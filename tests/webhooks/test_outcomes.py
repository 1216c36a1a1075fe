"""The pure outcome rules: which event ends which operation, agreement, anomalies, answers."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from outcome_events import (
    DOCUMENTO,
    OTHER_DOCUMENTO,
    REFERENCIA,
    Envelope,
    event,
    payment_request,
    print_request,
    qrcode_request,
    refund_request,
)

from smartpos import Acceptance, HTTPInfo, QRCode, Refund
from smartpos._wire import structure
from smartpos.webhooks import Operation, PagamentoAprovado
from smartpos.webhooks._events import EVENT_KINDS
from smartpos.webhooks._outcomes import (
    KINDS,
    Answer,
    JournalEntry,
    agreement_problem,
    answer_from_result,
    first_outcome,
    is_final,
    is_final_for_any_kind,
    kind_of_path,
    next_state,
    referencia_of,
    request_matches,
    resolve,
    result_from_answer,
    settle,
)

#: A tipo no spec will ever use: what an event kind newer than the SDK looks like.
UNKNOWN_TIPO = "x-teste.evento-futuro"
#: Every kind of the registry (FINAL_TABLE below must then say what ends with it) and one
#: unknown tipo.
ALL_TIPOS = [*EVENT_KINDS, UNKNOWN_TIPO]
_REQUESTS = {
    "payment": ("/v1/payments", payment_request),
    "refund": ("/v1/refunds", refund_request),
    "print_job": ("/v1/print-jobs", print_request),
    "qrcode": ("/qrcode", qrcode_request),
}


def entry(
    kind: Any = "payment",
    *,
    state: Any = "accepted",
    body: bytes | None = None,
    final_event: dict[str, Any] | None = None,
    referencia: str = REFERENCIA,
) -> JournalEntry:
    """A journal entry of ``kind`` whose body is that kind's spec request."""
    path, build = _REQUESTS[kind]
    return JournalEntry(
        referencia=referencia,
        kind=kind,
        state=state,
        method="POST",
        path=path,
        body=build(referencia) if body is None else body,
        created_at=1_700_000_000.0,
        updated_at=1_700_000_001.0,
        seq=1,
        final_event=final_event,
    )


def ids(events: Any) -> list[str]:
    """The ids of events or anomalies."""
    return [e.id for e in events]


# Which tipo is final for which kind.

FINAL_TABLE = {
    "payment": {"pagamento.aprovado", "pagamento.recusado"},
    "print_job": {"impressao.concluida", "impressao.falhou"},
    "qrcode": {"smartpos.identificado"},
    "refund": {"pagamento.aprovado", "pagamento.recusado", UNKNOWN_TIPO},
    # client.request: an endpoint the SDK does not know ends with what ends the known ones.
    "request": {
        "pagamento.aprovado",
        "pagamento.recusado",
        "impressao.concluida",
        "impressao.falhou",
        "smartpos.identificado",
    },
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("tipo", ALL_TIPOS)
def test_final_tipos_per_kind(kind: str, tipo: str) -> None:
    """Payments end with pagamento.*, print jobs with impressao.*, QR codes with the
    identification, refunds with anything but a print outcome or an identification, and a
    client.request operation with a known final event of any kind."""
    assert (tipo in FINAL_TABLE[kind]) == is_final(kind, tipo)


def test_unknown_kind_is_refused() -> None:
    """A kind outside the five is a ValueError naming the allowed ones."""
    with pytest.raises(ValueError, match="payment, refund, print_job, qrcode, request"):
        is_final("sale", "pagamento.aprovado")


@given(st.text(min_size=1))
def test_every_tipo_is_final_for_some_kind(tipo: str) -> None:
    """Refunds take unspecified events, so any tipo can end some operation."""
    assert is_final_for_any_kind(tipo)


def test_kind_of_path() -> None:
    """The four paths that start something on a terminal map to their kinds; others fail."""
    paths = ["/v1/payments", "/v1/refunds", "/v1/print-jobs", "/qrcode"]

    assert ["payment", "refund", "print_job", "qrcode"] == [kind_of_path(p) for p in paths]
    with pytest.raises(ValueError, match="starts no operation"):
        kind_of_path("/v1/customers/x/smartpos")


# State transitions.


@pytest.mark.parametrize(
    ("current", "wanted", "expected"),
    [
        ("sending", "accepted", "accepted"),
        ("sending", "rejected", "rejected"),
        ("sending", "unknown", "unknown"),
        ("unknown", "accepted", "accepted"),
        ("unknown", "rejected", "rejected"),
        ("rejected", "accepted", "accepted"),
        ("rejected", "unknown", "unknown"),
        ("accepted", "accepted", "accepted"),
        ("accepted", "unknown", None),
        ("accepted", "rejected", None),
        ("final", "accepted", None),
        ("final", "unknown", None),
        ("final", "rejected", None),
    ],
)
def test_next_state(current: str, wanted: str, expected: str | None) -> None:
    """final never changes, accepted is never downgraded, the rest follows the last answer."""
    assert expected == next_state(current, wanted)


@pytest.mark.parametrize("wanted", ["sending", "final", "approved"])
def test_next_state_refuses_states_a_client_cannot_record(wanted: str) -> None:
    """sending is only written by begin and final only by an event."""
    with pytest.raises(ValueError, match="accepted, rejected, unknown"):
        next_state("sending", wanted)


# Agreement.


def _dados(body: bytes) -> dict[str, Any]:
    return dict(json.loads(body))


def test_agreement_accepts_a_masked_document() -> None:
    """Documents compare without their mask: 529.982.247-25 agrees with 52998224725."""
    request = _dados(payment_request())
    dados = event("e", documento="529.982.247-25").raw["dados"]

    assert agreement_problem("payment", request, dados) is None


@pytest.mark.parametrize(
    ("overrides", "problem"),
    [
        ({"documento": OTHER_DOCUMENTO}, "documentoCliente differs"),
        ({"valor": 999}, "valorCentavos 999 differs from the request's 1000"),
        ({"smartpos_id": "SP-OTHER"}, "smartposId 'SP-OTHER' differs"),
        ({"valorCentavos": "1000"}, "valorCentavos '1000' differs"),
        ({"valorCentavos": True}, "valorCentavos True differs"),
    ],
)
def test_payment_disagreements(overrides: dict[str, Any], problem: str) -> None:
    """Another document, amount or terminal disagrees; a string or bool amount never agrees."""
    request = _dados(payment_request())
    dados = event("e", **overrides).raw["dados"]

    found = agreement_problem("payment", request, dados)

    assert found is not None
    assert problem in found
    assert DOCUMENTO not in found
    assert OTHER_DOCUMENTO not in found


def test_agreement_needs_the_event_to_carry_the_document() -> None:
    """An event without documentoCliente cannot end an operation."""
    dados = event("e").raw["dados"]
    del dados["documentoCliente"]

    assert "carries no documentoCliente" in str(
        agreement_problem("payment", _dados(payment_request()), dados)
    )


def test_amount_and_terminal_are_checked_only_when_carried() -> None:
    """An event without valorCentavos and smartposId agrees on the document alone."""
    dados = event("e", valor=None, smartpos_id=None).raw["dados"]

    assert agreement_problem("payment", _dados(payment_request()), dados) is None


def test_manual_payment_may_end_on_any_terminal() -> None:
    """A request that named no terminal (manual mode) agrees with whichever terminal ran it."""
    request = _dados(payment_request(smartpos_id=None))
    dados = event("e", smartpos_id="SP-ANY").raw["dados"]

    assert agreement_problem("payment", request, dados) is None


def test_amount_is_not_checked_for_other_kinds() -> None:
    """A print event's other fields are not the payment checks: only the document counts."""
    dados = event("e", "impressao.concluida", smartpos_id="SP-OTHER").raw["dados"]

    assert agreement_problem("print_job", _dados(print_request()), dados) is None
    assert "documentoCliente" in str(
        agreement_problem("print_job", {"referencia": REFERENCIA}, dados)
    )


# settle.


def test_first_agreeing_final_event_wins() -> None:
    """The first pagamento.aprovado that agrees is the outcome; nothing is flagged."""
    outcome, anomalies = settle(entry(), [event("e1").raw])

    assert isinstance(outcome, PagamentoAprovado)
    assert ("e1", ()) == (outcome.id, anomalies)


def test_later_contradiction_is_flagged_and_never_replaces_the_outcome() -> None:
    """An approval then a refusal: the approval stands and the refusal is a contradiction."""
    outcome, anomalies = settle(entry(), [event("e1"), event("e2", "pagamento.recusado")])

    assert outcome is not None
    assert "e1" == outcome.id
    assert [("e2", "contradiction")] == [(a.id, a.reason) for a in anomalies]
    assert "e1" in anomalies[0].detail


def test_duplicate_under_another_id_is_flagged() -> None:
    """The same outcome redelivered under a new id is a duplicate, not a contradiction."""
    _, anomalies = settle(entry(), [event("e1"), event("e2")])

    assert [("e2", "duplicate")] == [(a.id, a.reason) for a in anomalies]


def test_same_tipo_with_other_dados_is_a_contradiction() -> None:
    """A second approval with another authorization is not a mere duplicate."""
    second = event("e2", autorizacao={"codigo": "OTHER"})

    _, anomalies = settle(entry(), [event("e1"), second])

    assert ["contradiction"] == [a.reason for a in anomalies]


def test_disagreeing_event_is_flagged_and_a_later_agreeing_one_wins() -> None:
    """A forged approval for another amount is never the outcome; the real one after it is."""
    events = [event("forged", valor=1), event("real", "pagamento.recusado")]

    outcome, anomalies = settle(entry(), events)

    assert outcome is not None
    assert "real" == outcome.id
    assert [("forged", "disagreement")] == [(a.id, a.reason) for a in anomalies]
    assert anomalies[0].event is not None


def test_print_event_never_finalizes_a_payment_and_is_not_an_anomaly() -> None:
    """An impressao event with a payment's referencia is not considered at all."""
    outcome, anomalies = settle(entry(), [event("p1", "impressao.concluida")])

    assert (None, ()) == (outcome, anomalies)


def test_unreadable_final_event_is_flagged_with_its_path() -> None:
    """An approval whose dados breaks the schema is unreadable, never the outcome."""
    bad = event("bad", valorCentavos="mil")

    outcome, anomalies = settle(entry(), [bad])

    assert outcome is None
    assert [("bad", "unreadable", None)] == [(a.id, a.reason, a.event) for a in anomalies]
    assert "$.dados.valorCentavos" in anomalies[0].detail


def test_rejected_operation_is_never_finalized() -> None:
    """The service refused the request: an event for it is flagged, never its outcome."""
    outcome, anomalies = settle(entry(state="rejected"), [event("e1")])

    assert outcome is None
    assert ["rejected"] == [a.reason for a in anomalies]


def test_recorded_outcome_wins_over_an_earlier_stored_event() -> None:
    """Once the store recorded an outcome, an event seen later but stored earlier never wins."""
    recorded = event("late-seen", "pagamento.recusado").raw

    outcome, anomalies = settle(entry(final_event=recorded), [event("e0"), recorded])

    assert outcome is not None
    assert "late-seen" == outcome.id
    assert [("e0", "contradiction")] == [(a.id, a.reason) for a in anomalies]


def test_events_of_other_referencias_and_repeated_ids_are_ignored() -> None:
    """settle only looks at the entry's referencia, and at each id once."""
    other = event("x", referencia="0f0e0d0c-0000-4000-8000-000000000000")

    outcome, anomalies = settle(entry(), [other, event("e1"), event("e1")])

    assert outcome is not None
    assert ("e1", ()) == (outcome.id, anomalies)


@pytest.mark.parametrize(
    ("kind", "tipo"),
    [
        ("print_job", "impressao.falhou"),
        ("qrcode", "smartpos.identificado"),
        ("refund", UNKNOWN_TIPO),
    ],
)
def test_other_kinds_end_with_their_events(kind: str, tipo: str) -> None:
    """A print job, a QR code and a refund each end with an event of their kind."""
    outcome, _ = settle(entry(kind), [event("e1", tipo)])

    assert outcome is not None
    assert tipo == outcome.tipo


def test_refund_is_not_ended_by_a_print_event() -> None:
    """Print outcomes must not be used to refund (spec §6)."""
    assert (None, ()) == settle(entry("refund"), [event("p", "impressao.concluida")])


_TIPO = st.sampled_from(ALL_TIPOS)
_AGREES = st.booleans()


@st.composite
def event_lists(draw: st.DrawFn) -> list[Envelope]:
    """Events for REFERENCIA: any tipo, some agreeing with the request and some not."""
    items = draw(st.lists(st.tuples(_TIPO, _AGREES), max_size=8))
    return [
        event(f"e{n}", tipo, valor=1000 if agrees else 1)
        if tipo.startswith("pagamento.")
        else event(f"e{n}", tipo, documento=DOCUMENTO if agrees else OTHER_DOCUMENTO)
        for n, (tipo, agrees) in enumerate(items)
    ]


def _agrees(e: Envelope) -> bool:
    return e.raw["dados"]["documentoCliente"] == DOCUMENTO and e.raw["dados"].get(
        "valorCentavos", 1000
    ) in (1000,)


@given(event_lists())
def test_outcome_is_the_first_agreeing_final_event(events: list[Envelope]) -> None:
    """Whatever the mix, the outcome is the first payment event agreeing with the request,
    and every other payment event is flagged exactly once; other tipos are not considered."""
    outcome, anomalies = settle(entry(), events)

    candidates = [e for e in events if e.tipo.startswith("pagamento.")]
    agreeing = [e for e in candidates if _agrees(e)]
    assert (agreeing[0].id if agreeing else None) == (outcome.id if outcome else None)
    flagged = [e.id for e in candidates if not agreeing or e.id != agreeing[0].id]
    assert flagged == ids(anomalies)


@given(event_lists(), event_lists())
def test_more_events_never_change_an_outcome(first: list[Envelope], more: list[Envelope]) -> None:
    """Events stored later never replace an outcome already found: it wins forever."""
    later = [event(f"later-{e.id}", e.tipo, **_overrides(e)) for e in more]
    outcome, _ = settle(entry(), first)

    outcome_after, anomalies_after = settle(entry(), [*first, *later])

    if outcome is not None:
        assert outcome_after is not None
        assert outcome.id == outcome_after.id
    assert set(ids(settle(entry(), first)[1])) <= set(ids(anomalies_after))


def _overrides(e: Envelope) -> dict[str, Any]:
    dados = e.raw["dados"]
    result: dict[str, Any] = {"documento": dados["documentoCliente"]}
    if "valorCentavos" in dados:
        result["valor"] = dados["valorCentavos"]
    return result


# resolve and Operation.


def test_resolve_reports_a_new_outcome_to_record() -> None:
    """An outcome found now is returned for the store to record; a recorded one is not."""
    found, to_record = resolve(entry(), [event("e1")])
    known, again = resolve(entry(final_event=event("e1").raw, state="final"), [event("e1")])

    assert ("final", "e1") == (found.state, found.event.id if found.event else None)
    assert to_record == event("e1").raw
    assert again is None
    assert "final" == known.state


def test_resolve_keeps_a_waiting_state_without_outcome() -> None:
    """Without an outcome the entry's own state shows, with aware UTC times."""
    operation, to_record = resolve(entry(state="unknown"), [])

    assert ("unknown", None, True) == (operation.state, to_record, operation.waiting)
    assert operation.created_at.tzinfo is not None
    assert 0 == operation.created_at.utcoffset().total_seconds()  # type: ignore[union-attr]


def test_operation_repr_masks_the_document_and_hides_the_request() -> None:
    """The journaled body and the events' documents never show in a repr (LGPD)."""
    events = [event("e1"), event("e2", "pagamento.recusado")]
    operation, _ = resolve(entry(), events)

    text = repr(operation)

    assert DOCUMENTO not in text
    assert "529.***.***-25" in text
    assert "valorCentavos" not in text
    assert "contradiction" in text


# first_outcome (no journal entry).


def test_unjournaled_referencia_takes_the_first_readable_event() -> None:
    """Without a journal entry, the first readable event with that referencia is the outcome."""
    events = [
        event("other", referencia="0f0e0d0c-0000-4000-8000-000000000000"),
        event("bad", valorCentavos="mil"),
        event("print", "impressao.concluida"),
        event("pay"),
    ]

    outcome = first_outcome(REFERENCIA, events)

    assert outcome is not None
    assert "print" == outcome.id
    assert first_outcome(REFERENCIA, events[:2]) is None


def test_referencia_of() -> None:
    """Only a non-empty string dados.referencia counts."""
    raws: list[dict[str, Any]] = [
        {"dados": {"referencia": "r"}},
        {"dados": {"referencia": 5}},
        {"dados": {"referencia": ""}},
        {"dados": "x"},
        {},
    ]

    assert ["r", None, None, None, None] == [referencia_of(r) for r in raws]


# Answers.

_ACCEPTANCE_JSON = {
    "referencia": REFERENCIA,
    "status": "processando",
    "mensagem": "Pagamento enviado",
    "targets": [{"smartposId": "SP-1", "status": "enviado"}],
}


def test_answer_round_trips_an_acceptance() -> None:
    """An Acceptance journaled as its JSON and kept headers rebuilds equal, with its http."""
    acceptance = structure(_ACCEPTANCE_JSON, Acceptance)
    http = HTTPInfo(
        status_code=202,
        headers={"Content-Type": "application/json", "X-Request-Id": "req-1", "Set-Cookie": "s"},
        request_id="req-1",
    )
    object.__setattr__(acceptance, "http", http)

    answer = Answer.from_json(answer_from_result(acceptance).to_json())
    rebuilt = result_from_answer("payment", answer, REFERENCIA)

    assert acceptance == rebuilt
    assert isinstance(rebuilt, Acceptance)
    assert rebuilt.http is not None
    assert (202, "req-1") == (rebuilt.http.status_code, rebuilt.http.request_id)
    assert "set-cookie" not in answer.headers
    assert _ACCEPTANCE_JSON == rebuilt.raw


def test_answer_rebuilds_refunds_and_qrcodes() -> None:
    """A refund's unspecified answer and a QR code come back as Refund and QRCode."""
    refund = result_from_answer("refund", Answer(200, {}), REFERENCIA)
    qr = result_from_answer(
        "qrcode",
        Answer(201, {"qrCode": "abc", "referencia": REFERENCIA, "expiresAt": 1_700_000_000}),
        REFERENCIA,
    )

    assert isinstance(refund, Refund)
    assert REFERENCIA == refund.referencia
    assert isinstance(qr, QRCode)
    assert "abc" == qr.qr_code


def test_answer_without_http_takes_the_usual_status() -> None:
    """A result built by hand (no .http) is journaled as 202, or 201 for a QR code."""
    acceptance = structure(_ACCEPTANCE_JSON, Acceptance)

    assert 202 == answer_from_result(acceptance).status_code
    assert 200 == answer_from_result(acceptance, status_code=200).status_code
    with pytest.raises(TypeError, match="Acceptance, Refund or QRCode"):
        answer_from_result({"referencia": "x"})  # type: ignore[arg-type]


def test_unreadable_answer_rebuilds_nothing() -> None:
    """An answer that is not an acceptance gives None, not an exception."""
    assert result_from_answer("payment", Answer(202, {"status": 5}), REFERENCIA) is None
    assert result_from_answer("sale", Answer(202, {}), REFERENCIA) is None


def test_operation_acceptance_and_result() -> None:
    """acceptance is the saved Acceptance of a payment; a refund's answer is in result."""
    payment, _ = resolve(entry(), [])
    payment = _with_answer(payment, Answer(202, _ACCEPTANCE_JSON))
    refund, _ = resolve(entry("refund"), [])
    refund = _with_answer(refund, Answer(200, {"status": "ok"}))

    assert payment.acceptance is not None
    assert "processando" == payment.acceptance.status
    assert refund.acceptance is None
    assert isinstance(refund.result, Refund)
    assert resolve(entry(), [])[0].acceptance is None


def _with_answer(operation: Operation, answer: Answer) -> Operation:
    import attrs

    return attrs.evolve(operation, answer=answer)


# request_matches.


def test_request_matches_compares_json_not_bytes() -> None:
    """The same request with keys in another order matches; another amount does not."""
    journaled = entry()
    reordered = json.dumps(dict(reversed(json.loads(payment_request()).items()))).encode()

    assert request_matches(journaled, "post", "/v1/payments", reordered)
    assert not request_matches(journaled, "POST", "/v1/payments", payment_request(valor=5))
    assert not request_matches(journaled, "POST", "/v1/print-jobs", payment_request())
    assert not request_matches(journaled, "POST", "/v1/payments", b"not json")
