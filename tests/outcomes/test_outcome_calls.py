"""The pure decisions of ``_outcome_calls`` and the resend mode of ``_core.Attempts``."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import httpx
import pytest

import smartpos
from smartpos import _calls, _core, _outcome_calls
from smartpos._config import Config

REF = "3f1c2b7e-9a4d-4c8e-b1f2-6d7e8f9a0b1c"
CONFIG = Config.create(
    api_key="k", base_url="http://h", timeout=None, max_retries=0, retry_backoff=0,
    strict_referencia=True,
)  # fmt: skip


def journaled(kind: str = "payment") -> _calls.Call[object]:
    path = {"payment": "/v1/payments", "qrcode": "/qrcode"}[kind]
    return _calls.journaled_call(
        kind=kind, method="POST", path=path, body=b'{"referencia":"%s"}' % REF.encode(),
        referencia=REF,
    )  # fmt: skip


def conflict() -> smartpos.ReferenciaDuplicadaError:
    return smartpos.ReferenciaDuplicadaError(409, codigo="REFERENCIA_DUPLICADA")


def with_cause(error: smartpos.SmartPOSError, cause: BaseException) -> smartpos.SmartPOSError:
    error.__cause__ = cause
    return error


@pytest.mark.parametrize(
    ("kind", "error", "expected"),
    [
        ("payment", smartpos.OutcomeUnknownError(REF, conflict(), attempts=2), "accepted"),
        ("payment", conflict(), "accepted"),
        ("payment", smartpos.OutcomeUnknownError(REF, TimeoutError(), attempts=3), "unknown"),
        ("payment", smartpos.CampoInvalidoError(400, codigo="CAMPO_INVALIDO"), "rejected"),
        ("payment", smartpos.TransportError("refused"), "rejected"),
        ("qrcode", smartpos.BadRequestError(400), "rejected"),
        ("qrcode", smartpos.ClientClosedError("closed"), "rejected"),
        (
            "qrcode",
            with_cause(smartpos.TransportError("refused"), httpx.ConnectError("no")),
            "rejected",
        ),
        (
            "qrcode",
            with_cause(smartpos.TimeoutError("read"), httpx.ReadTimeout("slow")),
            "unknown",
        ),
        ("qrcode", smartpos.InternalServerError(502), "unknown"),
    ],
)
def test_state_after_a_failed_send(kind: str, error: Exception, expected: str) -> None:
    """A 409 proves the service holds it, other doubts are unknown, only proof is rejected."""
    assert expected == _outcome_calls.state_after(journaled(kind), error)


def test_a_resend_takes_a_first_409_as_proof_of_arrival() -> None:
    """In resend mode a 409 on the very first attempt is an unknown outcome, never a refusal."""
    response = httpx.Response(
        409, json={"erro": {"codigo": "REFERENCIA_DUPLICADA", "mensagem": "usada"}}
    )
    fresh = _core.Attempts(CONFIG, journaled())
    fresh.sending()
    resent = _core.Attempts(CONFIG, journaled(), resend=True)
    resent.sending()

    with pytest.raises(smartpos.ReferenciaDuplicadaError):
        fresh.answered(response)
    with pytest.raises(smartpos.OutcomeUnknownError) as caught:
        resent.answered(response)
    assert isinstance(caught.value.last_error, smartpos.ReferenciaDuplicadaError)


def test_a_resend_refused_for_its_bytes_is_a_refusal() -> None:
    """The same bytes refused for their content were refused the first time too."""
    response = httpx.Response(400, json={"erro": {"codigo": "CAMPO_INVALIDO", "mensagem": "x"}})
    resent = _core.Attempts(CONFIG, journaled(), resend=True)
    resent.sending()

    with pytest.raises(smartpos.CampoInvalidoError):
        resent.answered(response)


def test_a_journaled_call_sends_the_journaled_bytes() -> None:
    """The rebuilt request carries the journaled body as is, to the journaled path."""
    body = b'{ "valorCentavos" : 1990, "referencia":"%s" }' % REF.encode()
    call = _calls.journaled_call(
        kind="payment", method="POST", path="/v1/payments", body=body, referencia=REF
    )
    request = _calls.build_request(CONFIG, call)

    assert (body, "/v1/payments", True) == (
        request.content,
        request.url.path,
        call.starts_operation,
    )
    with pytest.raises(ValueError, match="kind"):
        _calls.journaled_call(kind="lunch", method="POST", path="/", body=b"", referencia=REF)


def test_the_pending_error_is_an_unknown_outcome_that_pickles() -> None:
    """OutcomePendingError keeps its referencia and timeout across a process boundary."""
    import pickle

    error = smartpos.OutcomePendingError(REF, timeout=2.5)
    again = pickle.loads(pickle.dumps(error))

    assert isinstance(again, smartpos.OutcomeUnknownError)
    assert (REF, 2.5, str(error)) == (again.referencia, again.timeout, str(again))
    assert isinstance(error.last_error, TimeoutError)
