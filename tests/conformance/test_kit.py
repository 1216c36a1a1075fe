"""The kit judged by two integrations: the recommended one passes, the naive one fails."""

from __future__ import annotations

import pytest
from shops import NaiveShop, SdkShop

from smartpos.testing.conformance import (
    INVARIANTS,
    Scenario,
    ScenarioResult,
    load_scenario,
    pytest_scenarios,
    run_scenario,
    scenarios,
)

test_sdk_shop_passes = pytest_scenarios(SdkShop)


def naive(name: str, lang: str = "en") -> ScenarioResult:
    """Run one scenario against the naive shop."""
    return run_scenario(load_scenario(name), NaiveShop, lang=lang)


def test_the_issue_s_scenarios_are_shipped() -> None:
    """Every hard case the issue lists has its transcript, each valid and versioned."""
    names = [s.name for s in scenarios()]
    assert [
        "approved-once",
        "refused-then-retried",
        "answer-lost",
        "conflict-on-retry",
        "duplicate-same-id",
        "duplicate-reminted-id",
        "out-of-order",
        "refusal-then-approval",
        "approval-then-refusal",
        "late-approval",
        "other-amount",
        "other-customer",
        "store-stall",
        "webhook-down",
        "split-bill",
        "refund",
        "print-on-payment",
        "unknown-tipo",
    ] == names
    for scenario in scenarios():
        assert scenario.version >= 1
        assert {"en", "pt_BR"} == set(scenario.title) == set(scenario.models)
    used = {s["invariant"] for sc in scenarios() for s in sc.steps if s["op"] == "expect"}
    assert set(INVARIANTS) - {"same-referencia", "refund-once"} == used


def test_naive_finalizing_on_the_202_fails_with_what_to_do() -> None:
    """Finalizing from the 202 breaks not-from-202, and the message says where to finalize."""
    result = naive("approved-once")
    assert "failed" == result.outcome
    first = result.violations[0]
    assert ("not-from-202", 4) == (first.invariant, first.step)
    assert "before any pagamento.aprovado arrived" in first.message
    assert "only in the handler of pagamento.aprovado" in first.message


def test_naive_new_referencia_after_unknown_fails() -> None:
    """A new referencia after a lost answer: same-referencia, and the customer charged twice."""
    result = naive("answer-lost")
    invariants = [v.invariant for v in result.violations]
    assert "same-referencia" in invariants
    assert "paid-once" in invariants
    lost = next(v for v in result.violations if v.invariant == "same-referencia")
    assert "never charge again with a new referencia" in lost.message
    twice = next(v for v in result.violations if v.key == "conformance.paid_once.charged_twice")
    assert "charged twice" in twice.message
    assert twice.step is None


def test_naive_409_on_retry_fails_same_referencia() -> None:
    """A 409 on the SDK's own retry is unknown, not 'not charged': the naive retry is caught."""
    result = naive("conflict-on-retry")
    cause = next(v for v in result.violations if v.invariant == "same-referencia")
    assert "(409)" in cause.message or "(500)" in cause.message


@pytest.mark.parametrize(
    ("name", "invariant"),
    [
        ("duplicate-same-id", "each-event-once"),
        ("duplicate-reminted-id", "each-event-once"),
        ("approval-then-refusal", "paid-once"),
        ("refusal-then-approval", "late-approval"),
        ("other-amount", "amount-agrees"),
        ("print-on-payment", "no-money-from-print"),
        ("unknown-tipo", "no-money-from-print"),
    ],
)
def test_naive_fails_the_hard_cases(name: str, invariant: str) -> None:
    """Each hard case catches its bug in the naive shop, under the scenario's invariant."""
    result = naive(name)
    assert "failed" == result.outcome
    assert invariant in {v.invariant for v in result.violations}


def test_messages_speak_portuguese() -> None:
    """lang='pt_BR' gives the catalog's Portuguese messages."""
    result = naive("approved-once", lang="pt_BR")
    assert "Marque a venda como paga só no handler de pagamento.aprovado" in (
        result.violations[0].message
    )


def test_a_missing_operation_is_not_applicable_never_passed() -> None:
    """The naive shop cannot abandon: late-approval is reported not applicable."""
    result = naive("late-approval")
    assert ("not-applicable", "abandon") == (result.outcome, result.missing)
    assert not result.passed


def test_a_transcript_of_another_format_is_refused() -> None:
    """A transcript of a format this kit does not read is refused with both numbers."""
    with pytest.raises(ValueError, match="format 2: this kit reads 1"):
        Scenario.from_json({"format": 2, "name": "x", "version": 1, "steps": []})
    with pytest.raises(ValueError, match="unknown op 'teleport'"):
        Scenario.from_json({"format": 1, "name": "x", "version": 1, "steps": [{"op": "teleport"}]})
