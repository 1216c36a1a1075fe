"""The observer seam of the core (``smartpos._telemetry``), without any telemetry library.

A recording observer proves the contract every observer relies on: one ``call`` per client
call that sends, retries reported before they happen, and exactly one ``finished`` with the
outcome class, whichever way the call ends.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

import smartpos
from client_cases import ACCEPTANCE_JSON, CPF, SDK, approved_event_json
from smartpos import _telemetry, webhooks

PAYMENT = {"documento_cliente": CPF, "valor_centavos": 1590, "smartpos_id": "SP-1"}


class Recorder:
    """An observer that writes down what it is told."""

    def __init__(self) -> None:
        self.log: list[tuple[Any, ...]] = []

    def call(self, call: Any) -> Recorder:
        self.log.append(("call", call.operation))
        return self

    def retry(self, attempt: int, delay: float, status: int | None) -> None:
        self.log.append(("retry", attempt, status))

    def finished(
        self, outcome: str, attempts: int, status: int | None, error: BaseException | None
    ) -> None:
        self.log.append(("finished", outcome, attempts, status, type(error).__name__))

    def received(self, receipt: Any, started_ns: int) -> None:
        self.log.append(("received", receipt.status_code))

    def handling(self, claim: Any) -> None:
        self.log.append(("handling", claim.event_id))


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    recorder = Recorder()
    previous = _telemetry.install(recorder)
    yield recorder
    _telemetry.install(previous)


def accepting(request: httpx.Request) -> httpx.Response:
    sent = json.loads(request.content)
    return httpx.Response(202, json={**ACCEPTANCE_JSON, "referencia": sent["referencia"]})


class Interrupt(BaseException):
    """Like Ctrl-C or a cancellation."""


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("answers", "expected"),
    [
        pytest.param(
            [accepting],
            [("call", "payments.create"), ("finished", "accepted", 1, 202, "NoneType")],
            id="accepted",
        ),
        pytest.param(
            [lambda r: httpx.Response(503), accepting],
            [
                ("call", "payments.create"),
                ("retry", 1, 503),
                ("finished", "accepted", 2, 202, "NoneType"),
            ],
            id="retried",
        ),
        pytest.param(
            [lambda r: httpx.Response(400, json={"erro": {"codigo": "VALOR_INVALIDO"}})],
            [
                ("call", "payments.create"),
                ("finished", "rejected", 1, 400, "ValorInvalidoError"),
            ],
            id="rejected",
        ),
        pytest.param(
            [lambda r: httpx.Response(202, content=b"not json")],
            [
                ("call", "payments.create"),
                ("finished", "unknown", 1, 202, "OutcomeUnknownError"),
            ],
            id="unreadable-2xx",
        ),
        pytest.param(
            [lambda r: httpx.Response(503), lambda r: (_ for _ in ()).throw(Interrupt())],
            [
                ("call", "payments.create"),
                ("retry", 1, 503),
                ("finished", "unknown", 2, None, "Interrupt"),
            ],
            id="interrupted",
        ),
    ],
)
async def test_each_call_is_reported_once(
    recorder: Recorder,
    make_sdk: Callable[..., SDK],
    answers: list[Callable[[httpx.Request], httpx.Response]],
    expected: list[tuple[Any, ...]],
) -> None:
    """One call, its retries, and one end with the outcome class, whichever way it ends."""
    queue = iter(answers)
    sdk = make_sdk(transport=httpx.MockTransport(lambda request: next(queue)(request)))

    with contextlib.suppress(smartpos.SmartPOSError, Interrupt):
        await sdk.call("payments", "create", **PAYMENT)

    assert expected == recorder.log


@pytest.mark.asyncio
async def test_a_call_refused_locally_reports_nothing(
    recorder: Recorder, make_sdk: Callable[..., SDK]
) -> None:
    """A ValidationError is raised before anything is sent: nothing to report."""
    with pytest.raises(smartpos.ValidationError):
        await make_sdk().call("payments", "create", **{**PAYMENT, "valor_centavos": 0})

    assert [] == recorder.log


def test_nobody_observes_by_default() -> None:
    """Telemetry is off unless an observer is installed."""
    assert _telemetry.observer is None


def test_outcome_classes() -> None:
    """accepted for a result, unknown for OutcomeUnknownError, rejected for other SDK errors;
    an interruption is unknown only for an operation that may have been sent."""
    payment = smartpos._calls.payment_call(
        smartpos._config.Config.create(
            api_key="k-123456",
            base_url="http://h",
            timeout=None,
            max_retries=0,
            retry_backoff=0,
            strict_referencia=True,
        ),
        dict(
            **PAYMENT,
            referencia=None,
            forma_pagamento=None,
            parcelas=None,
            parcelamento=None,
            modo_execucao="imediato",
            comanda=None,
            comprovante=None,
        ),
    )
    unknown = smartpos.OutcomeUnknownError("r", RuntimeError("x"), attempts=1)

    assert "accepted" == _telemetry.outcome_of(payment, 1, object())
    assert "unknown" == _telemetry.outcome_of(payment, 1, unknown)
    assert "rejected" == _telemetry.outcome_of(payment, 1, smartpos.TransportError("x"))
    assert "unknown" == _telemetry.outcome_of(payment, 1, KeyboardInterrupt())
    assert "rejected" == _telemetry.outcome_of(payment, 0, KeyboardInterrupt())


class Broken:
    """An observer whose every method raises."""

    def call(self, call: Any) -> Broken:
        return self

    def retry(self, *args: Any) -> None:
        raise RuntimeError("observer bug")

    def finished(self, *args: Any) -> None:
        raise RuntimeError("observer bug")

    def received(self, *args: Any) -> None:
        raise RuntimeError("observer bug")

    def handling(self, claim: Any) -> None:
        raise RuntimeError("observer bug")


@pytest.mark.asyncio
async def test_a_failing_observer_changes_no_outcome(
    make_sdk: Callable[..., SDK], caplog: pytest.LogCaptureFixture
) -> None:
    """An observer that raises is logged; the call still ends in its own outcome, the
    delivery is still stored and the event still handled."""
    previous = _telemetry.install(Broken())
    try:

        def timeout(request: httpx.Request) -> httpx.Response:
            raise httpx.ReadTimeout("slow", request=request)

        with pytest.raises(smartpos.OutcomeUnknownError):
            await make_sdk(transport=httpx.MockTransport(timeout)).call(
                "payments", "create", **PAYMENT
            )
        store = webhooks.MemoryStore()
        body = json.dumps(approved_event_json())
        assert 200 == webhooks.WebhookReceiver(store).receive(body).status_code
        assert 1 == webhooks.Worker(store, lambda event: None).run_once()
    finally:
        _telemetry.install(previous)

    assert "the telemetry observer failed" in caplog.text
    assert store.get("evt_0001").state == webhooks.EventState.DONE  # type: ignore[union-attr]
