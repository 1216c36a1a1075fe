"""The sans-I/O core without any client: configuration, request building, validation, retries."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import email.utils
import json
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

import smartpos
from client_cases import (
    API_KEY,
    BASE_URL,
    CPF,
    ENDPOINTS,
    INVALID,
    QR_JSON,
    REF,
    Endpoint,
    Invalid,
)
from smartpos import _calls, _config, _core, _responses, _transports

# --- configuration -------------------------------------------------------------------------


def make_config(**kwargs: Any) -> _config.Config:
    """A Config from explicit arguments, with the clients' defaults for what is not given."""
    options: dict[str, Any] = {
        "api_key": API_KEY,
        "base_url": BASE_URL,
        "timeout": None,
        "max_retries": 2,
        "retry_backoff": 0.0,
        "strict_referencia": True,
    }
    options.update(kwargs)
    return _config.Config.create(**options)


@pytest.mark.usefixtures("no_env")
def test_config_from_arguments() -> None:
    """Config.create keeps the arguments, strips trailing slashes and uses the default timeout."""
    config = make_config(base_url="https://api.smartpos.test/base//", retry_backoff=1)

    assert (API_KEY, "https://api.smartpos.test/base", 2, 1.0, True) == (
        config.api_key,
        config.base_url,
        config.max_retries,
        config.retry_backoff,
        config.strict_referencia,
    )
    assert _config.DEFAULT_TIMEOUT == config.timeout
    assert httpx.Timeout(30.0, connect=5.0) == config.timeout
    assert isinstance(config.retry_backoff, float)


def test_config_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """A missing api_key or base_url is read from SMARTPOS_API_KEY / SMARTPOS_BASE_URL."""
    monkeypatch.setenv("SMARTPOS_API_KEY", "from-env")
    monkeypatch.setenv("SMARTPOS_BASE_URL", "http://localhost:8080/")

    config = make_config(api_key=None, base_url=None)

    assert ("from-env", "http://localhost:8080") == (config.api_key, config.base_url)


def test_config_arguments_win_over_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Explicit arguments win over the environment."""
    monkeypatch.setenv("SMARTPOS_API_KEY", "from-env")
    monkeypatch.setenv("SMARTPOS_BASE_URL", "http://localhost:8080")

    config = make_config()

    assert (API_KEY, BASE_URL) == (config.api_key, config.base_url)


@pytest.mark.parametrize(
    ("timeout", "expected"),
    [
        (2, httpx.Timeout(2.0)),
        (0.5, httpx.Timeout(0.5)),
        (httpx.Timeout(1.0, connect=3.0), httpx.Timeout(1.0, connect=3.0)),
    ],
)
def test_config_timeout(timeout: Any, expected: httpx.Timeout) -> None:
    """A timeout in seconds becomes an httpx.Timeout; an httpx.Timeout is kept."""
    assert expected == make_config(timeout=timeout).timeout


@pytest.mark.usefixtures("no_env")
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"api_key": None}, "no API key", id="api-key-missing"),
        pytest.param({"api_key": ""}, "no API key", id="api-key-empty"),
        pytest.param({"api_key": 123}, "no API key", id="api-key-not-str"),
        pytest.param({"api_key": API_KEY + "\n"}, "line break", id="api-key-newline"),
        pytest.param({"api_key": " " + API_KEY}, "whitespace", id="api-key-space"),
        pytest.param({"api_key": "ab\r\ncd"}, "line break", id="api-key-crlf-inside"),
        pytest.param({"base_url": None}, "no base URL", id="base-url-missing"),
        pytest.param({"base_url": ""}, "no base URL", id="base-url-empty"),
        pytest.param({"base_url": "ftp://host"}, "absolute http(s) URL", id="base-url-ftp"),
        pytest.param({"base_url": "/relative"}, "absolute http(s) URL", id="base-url-relative"),
        pytest.param({"base_url": "http://"}, "absolute http(s) URL", id="base-url-no-host"),
        pytest.param({"base_url": "http://[::1"}, "not a valid URL", id="base-url-invalid"),
        pytest.param({"timeout": 0}, "timeout", id="timeout-zero"),
        pytest.param({"timeout": -1.0}, "timeout", id="timeout-negative"),
        pytest.param({"timeout": True}, "timeout", id="timeout-bool"),
        pytest.param({"timeout": "5"}, "timeout", id="timeout-str"),
        pytest.param({"max_retries": -1}, "max_retries", id="max-retries-negative"),
        pytest.param({"max_retries": 1.5}, "max_retries", id="max-retries-float"),
        pytest.param({"max_retries": True}, "max_retries", id="max-retries-bool"),
        pytest.param({"retry_backoff": -0.1}, "retry_backoff", id="backoff-negative"),
        pytest.param({"retry_backoff": "1"}, "retry_backoff", id="backoff-str"),
        pytest.param({"retry_backoff": False}, "retry_backoff", id="backoff-bool"),
    ],
)
def test_config_errors(kwargs: dict[str, Any], message: str) -> None:
    """A missing or bad setting raises ConfigurationError saying which, never showing the key."""
    with pytest.raises(smartpos.ConfigurationError) as info:
        make_config(**kwargs)

    assert message in str(info.value)
    assert API_KEY not in str(info.value)
    assert isinstance(info.value, ValueError)


def test_config_repr_hides_the_api_key() -> None:
    """repr(Config) shows *** in place of the API key."""
    config = make_config()

    assert API_KEY not in repr(config)
    assert "api_key=***" in repr(config)


def test_config_with_timeout() -> None:
    """with_timeout returns a copy with another timeout and leaves the original alone."""
    config = make_config()

    other = config.with_timeout(httpx.Timeout(9.0))

    assert (httpx.Timeout(9.0), _config.DEFAULT_TIMEOUT) == (other.timeout, config.timeout)
    assert config.api_key == other.api_key


def test_shared_ssl_context_is_built_once() -> None:
    """Every client shares one SSL context."""
    assert _transports.shared_ssl_context() is _transports.shared_ssl_context()


# --- request building ----------------------------------------------------------------------

#: Each resource method's builder: it takes the method's keywords as one dict (``_params``).
BUILDERS: dict[tuple[str, str], Callable[..., _calls.Call[Any]]] = {
    ("qrcodes", "create"): _calls.qrcode_call,
    ("payments", "create"): _calls.payment_call,
    ("refunds", "create"): _calls.refund_call,
    ("print_jobs", "create"): _calls.print_call,
    ("terminals", "list"): lambda config, kwargs: _calls.terminals_call(config, **kwargs),
}


def build(resource: str, method: str, kwargs: dict[str, Any], **config: Any) -> _calls.Call[Any]:
    """Run the builder of ``client.<resource>.<method>(**kwargs)`` without any client."""
    return BUILDERS[resource, method](make_config(**config), kwargs)


@pytest.mark.parametrize("endpoint", [e.param for e in ENDPOINTS])
def test_builder_golden_call(endpoint: Endpoint) -> None:
    """Each builder returns the method, path and exact JSON body of the spec."""
    call = build(endpoint.resource, endpoint.method, dict(endpoint.kwargs))

    assert (endpoint.http_method, endpoint.path) == (call.method, call.path)
    if endpoint.body is None:
        assert call.body is None
    else:
        assert call.body is not None
        assert endpoint.body == json.loads(call.body)


@pytest.mark.parametrize(
    ("resource", "method", "starts_operation"),
    [
        ("qrcodes", "create", False),
        ("payments", "create", True),
        ("refunds", "create", True),
        ("print_jobs", "create", True),
        ("terminals", "list", False),
    ],
)
def test_builder_marks_operations_on_a_terminal(
    resource: str, method: str, starts_operation: bool
) -> None:
    """Payments, refunds and print jobs are marked as starting an operation (money safety)."""
    endpoint = next(e for e in ENDPOINTS if (e.resource, e.method) == (resource, method))

    call = build(resource, method, dict(endpoint.kwargs))

    assert starts_operation == call.starts_operation
    assert (REF if resource != "terminals" else None) == (
        call.referencia[:36] if call.referencia else None
    )


def test_call_is_built_by_keyword_only() -> None:
    """A Call names every field: a positional argument is refused."""
    with pytest.raises(TypeError):
        _calls.Call("GET", "/v1/x", None)  # type: ignore[misc]


def test_body_is_compact_utf8_json() -> None:
    """Bodies are compact JSON, UTF-8 encoded, non-ASCII kept as is."""
    call = build(
        "payments",
        "create",
        {
            "documento_cliente": CPF,
            "valor_centavos": 1,
            "referencia": REF,
            "modo_execucao": "manual",
            "comanda": smartpos.Comanda("Açaí"),
        },
    )

    assert call.body is not None
    assert b'"comanda":{"identificacao":"A\xc3\xa7a\xc3\xad","itens":[]}' in call.body
    assert b", " not in call.body
    assert b": " not in call.body


def test_build_request() -> None:
    """build_request joins base URL and path and sets the key, accept, agent and content type."""
    config = make_config(timeout=4.0)
    call = build("qrcodes", "create", {"documento_cliente": CPF, "referencia": REF})

    request = _calls.build_request(config, call)

    assert ("POST", f"{BASE_URL}/qrcode") == (request.method, str(request.url))
    assert call.body == request.content
    assert {
        "x-api-key": API_KEY,
        "accept": "application/json",
        "user-agent": config.user_agent,
        "content-type": "application/json",
        "content-length": str(len(call.body or b"")),
        "host": "api.smartpos.test",
    } == dict(request.headers)
    assert httpx.Timeout(4.0).as_dict() == request.extensions["timeout"]


def test_build_request_without_body() -> None:
    """A GET carries no body, no content-type and no content-length."""
    call = build("terminals", "list", {"documento_cliente": CPF})

    request = _calls.build_request(make_config(), call)

    assert b"" == request.content
    assert "content-type" not in request.headers
    assert "content-length" not in request.headers


def test_terminals_call_masks_the_document_in_its_log_path() -> None:
    """terminals_call puts the document in the path and a masked copy in log_path."""
    call = build("terminals", "list", {"documento_cliente": "123.456.789-09"})

    assert (f"/v1/customers/{CPF}/smartpos", "/v1/customers/123.***.***-09/smartpos") == (
        call.path,
        call.log_path,
    )


@pytest.mark.parametrize("case", INVALID)
def test_builders_refuse_invalid_arguments(case: Invalid) -> None:
    """Every validation rule raises ValidationError with the service's codigo and campo."""
    with pytest.raises(smartpos.ValidationError) as info:
        build(case.resource, case.method, dict(case.kwargs))

    assert (case.codigo, case.campo) == (info.value.codigo, info.value.campo)
    assert info.value.mensagem in str(info.value)
    assert str(info.value).startswith(f"{case.codigo} (campo {case.campo}): ")
    documento = case.kwargs.get("documento_cliente")
    if isinstance(documento, str) and len(documento.strip()) >= 10:
        # LGPD: a document is never copied whole into a message, valid or not.
        assert documento not in str(info.value)
        assert documento.replace(".", "").replace("-", "").replace("/", "") not in str(info.value)


@pytest.mark.parametrize(
    "kwargs",
    [
        pytest.param({"forma_pagamento": "credito", "parcelas": 1}, id="credito-one"),
        pytest.param(
            {"forma_pagamento": "credito", "parcelas": 12, "parcelamento": "estabelecimento"},
            id="credito-installments",
        ),
        pytest.param({"forma_pagamento": "debito", "parcelas": 1}, id="debito-one"),
        pytest.param({"forma_pagamento": "voucher"}, id="voucher"),
        pytest.param(
            {"forma_pagamento": "credito", "parcelamento": "estabelecimento"},
            id="parcelamento-without-parcelas",
        ),
        pytest.param(
            {"forma_pagamento": "credito", "parcelas": 1, "parcelamento": "administradora"},
            id="parcelamento-with-one-parcela",
        ),
        pytest.param({"parcelas": 3}, id="installments-terminal-default-flow"),
        pytest.param({"valor_centavos": 10**12}, id="large-amount"),
        pytest.param(
            {"modo_execucao": "manual", "smartpos_id": "SP-1", "comanda": smartpos.Comanda("M")},
            id="manual-with-terminal",
        ),
        pytest.param({"comanda": smartpos.Comanda("Mesa 1")}, id="imediato-with-comanda"),
        pytest.param({"referencia": REF.upper()}, id="upper-case-uuid"),
    ],
)
def test_valid_payment_combinations(kwargs: dict[str, Any]) -> None:
    """Accepted combinations build a call (no false positives of the validation)."""
    base = {"documento_cliente": CPF, "valor_centavos": 1590, "smartpos_id": "SP-1"}

    call = build("payments", "create", {**base, **kwargs})

    assert call.body is not None
    body = json.loads(call.body)
    for name, wire in [
        ("forma_pagamento", "formaPagamento"),
        ("parcelas", "parcelas"),
        ("parcelamento", "parcelamento"),
        ("valor_centavos", "valorCentavos"),
    ]:
        if name in kwargs:
            assert kwargs[name] == body[wire]


@pytest.mark.parametrize(
    ("kwargs", "codigo", "campo"),
    [
        pytest.param(
            {"referencia": "", "documento_cliente": None},
            "CAMPO_OBRIGATORIO",
            "referencia",
            id="blank-referencia-first",
        ),
        pytest.param(
            {"documento_cliente": None, "referencia": "pedido-1", "valor_centavos": 0},
            "CAMPO_OBRIGATORIO",
            "documentoCliente",
            id="required-before-formats",
        ),
        pytest.param(
            {"referencia": "pedido-1", "valor_centavos": 0},
            "CAMPO_INVALIDO",
            "referencia",
            id="referencia-before-amount",
        ),
        pytest.param(
            {"valor_centavos": 1.5, "forma_pagamento": "dinheiro"},
            "VALOR_INVALIDO",
            "valorCentavos",
            id="amount-before-enums",
        ),
        pytest.param(
            {"forma_pagamento": "pix", "parcelas": 2, "smartpos_id": None},
            "FORMA_PAGAMENTO_INVALIDA",
            "parcelas",
            id="combination-before-mode",
        ),
        pytest.param(
            {"smartpos_id": None, "documento_cliente": "111.111.111-11"},
            "SMARTPOS_OBRIGATORIO_MODO_IMEDIATO",
            "smartposId",
            id="mode-before-document",
        ),
    ],
)
def test_first_problem_in_the_services_order(
    kwargs: dict[str, Any], codigo: str, campo: str
) -> None:
    """With several problems, the payment is refused for the one the service would report first."""
    base = {"documento_cliente": CPF, "valor_centavos": 1590, "smartpos_id": "SP-1"}

    with pytest.raises(smartpos.ValidationError) as info:
        build("payments", "create", {**base, **kwargs})

    assert (codigo, campo) == (info.value.codigo, info.value.campo)


def test_strict_referencia_false_keeps_type_and_emptiness_checks() -> None:
    """strict_referencia=False accepts any non-empty string, still refusing empty values."""
    kwargs = {"documento_cliente": CPF}

    call = build("qrcodes", "create", {**kwargs, "referencia": "legacy-1"}, strict_referencia=False)
    with pytest.raises(smartpos.ValidationError) as info:
        build("qrcodes", "create", {**kwargs, "referencia": ""}, strict_referencia=False)

    assert "legacy-1" == call.referencia
    assert ("CAMPO_OBRIGATORIO", "referencia") == (info.value.codigo, info.value.campo)


# --- retry decisions -----------------------------------------------------------------------

PAYMENT = {
    "documento_cliente": CPF,
    "valor_centavos": 1590,
    "smartpos_id": "SP-1",
    "referencia": REF,
}
QRCODE = {"documento_cliente": CPF, "referencia": REF}
ACCEPTED = {"referencia": REF, "status": "processando", "mensagem": "ok", "targets": []}


def answer(status: int, body: Any = None, headers: dict[str, str] | None = None) -> httpx.Response:
    """A response read in full, as the clients hand it to Attempts."""
    if isinstance(body, dict):
        return httpx.Response(status, json=body, headers=headers)
    return httpx.Response(status, content=body or b"", headers=headers)


def erro(status: int, codigo: str) -> httpx.Response:
    """An error answer in the spec's shape."""
    return answer(status, {"erro": {"codigo": codigo, "mensagem": "m", "acao": "a"}})


Event = httpx.Response | Exception


def drive(
    kind: str,
    events: Sequence[Event],
    *,
    max_retries: int = 2,
    retry_backoff: float = 0.0,
    rng: random.Random | None = None,
) -> tuple[list[float], Any]:
    """Feed ``events`` to a fresh Attempts; return the retry delays and the result or exception.

    Fails when the decision came before the last event or no decision came after it.
    """
    config = make_config(max_retries=max_retries, retry_backoff=retry_backoff)
    call = (
        _calls.payment_call(config, dict(PAYMENT))
        if kind == "payment"
        else _calls.qrcode_call(config, dict(**QRCODE))
    )
    attempts = _core.Attempts(config, call, rng=rng)
    delays: list[float] = []
    for index, event in enumerate(events):
        attempts.sending()
        try:
            if isinstance(event, httpx.Response):
                step = attempts.answered(event)
            else:
                step = attempts.failed(event)
        except smartpos.SmartPOSError as exc:
            outcome: Any = exc
        else:
            if isinstance(step, _core.Retry):
                delays.append(step.delay)
                continue
            outcome = step
        assert len(events) - 1 == index, "decided before the last event"
        assert index + 1 == attempts.attempt
        return delays, outcome
    raise AssertionError("no decision after the last event")


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504])
@pytest.mark.parametrize("kind", ["payment", "qrcode"])
def test_retryable_status_then_success(kind: str, status: int) -> None:
    """429, 500, 502, 503 and 504 are retried, and a later success is the result."""
    ok = answer(202, ACCEPTED) if kind == "payment" else answer(201, QR_JSON)

    delays, result = drive(kind, [answer(status), answer(status), ok])

    assert [0.0, 0.0] == delays
    assert REF == result.referencia
    assert 3 == result.http.attempts


@pytest.mark.parametrize(
    ("kind", "status", "expected"),
    [
        ("qrcode", 429, smartpos.RateLimitError),
        ("qrcode", 500, smartpos.InternalServerError),
        ("qrcode", 503, smartpos.InternalServerError),
        # A 429 is a verdict on this request: the service did not act on it.
        ("payment", 429, smartpos.RateLimitError),
        ("payment", 500, smartpos.OutcomeUnknownError),
        ("payment", 502, smartpos.OutcomeUnknownError),
        ("payment", 503, smartpos.OutcomeUnknownError),
        ("payment", 504, smartpos.OutcomeUnknownError),
    ],
)
def test_retryable_status_until_retries_run_out(
    kind: str, status: int, expected: type[Exception]
) -> None:
    """A retryable status is retried max_retries times; the last answer decides the error."""
    delays, error = drive(kind, [answer(status)] * 4, max_retries=3)

    assert [0.0, 0.0, 0.0] == delays
    assert type(error) is expected
    if isinstance(error, smartpos.OutcomeUnknownError):
        assert (REF, 4) == (error.referencia, error.attempts)
        assert isinstance(error.last_error, smartpos.InternalServerError)
        assert status == error.last_error.status_code
    else:
        assert status == error.status_code


@pytest.mark.parametrize("kind", ["payment", "qrcode"])
def test_max_retries_zero_disables_retries(kind: str) -> None:
    """max_retries=0 decides on the first answer or failure."""
    _, error = drive(kind, [answer(503)], max_retries=0)
    _, failure = drive(kind, [httpx.ConnectError("refused")], max_retries=0)

    assert isinstance(
        error, smartpos.OutcomeUnknownError if kind == "payment" else smartpos.InternalServerError
    )
    assert type(failure) is smartpos.TransportError


@pytest.mark.parametrize("status", [400, 401, 403, 404, 405, 409, 410, 413, 422, 451])
@pytest.mark.parametrize("kind", ["payment", "qrcode"])
def test_other_4xx_are_never_retried(kind: str, status: int) -> None:
    """Any 4xx but 429 raises at once, even with retries left, as the HTTP class of its status."""
    delays, error = drive(kind, [answer(status)], max_retries=5)

    assert [] == delays
    assert isinstance(error, smartpos.APIError)
    assert status == error.status_code


@pytest.mark.parametrize("status", [501, 505])
def test_non_retryable_5xx_on_a_payment_is_an_unknown_outcome(status: int) -> None:
    """A 5xx outside 500/502/503/504 is not retried; on a payment it is an unknown outcome."""
    delays, error = drive("payment", [answer(status)])
    _, qr_error = drive("qrcode", [answer(status)])

    assert [] == delays
    assert isinstance(error, smartpos.OutcomeUnknownError)
    assert status == error.last_error.status_code
    assert type(qr_error) is smartpos.InternalServerError


def test_first_attempt_409_is_referencia_duplicada() -> None:
    """A 409 REFERENCIA_DUPLICADA on the first attempt is a plain ReferenciaDuplicadaError."""
    _, error = drive("payment", [erro(409, "REFERENCIA_DUPLICADA")])

    assert type(error) is smartpos.ReferenciaDuplicadaError


@pytest.mark.parametrize(
    "first",
    [
        pytest.param(httpx.ReadTimeout("read"), id="read-timeout"),
        pytest.param(httpx.WriteTimeout("write"), id="write-timeout"),
        pytest.param(httpx.RemoteProtocolError("dropped"), id="dropped-connection"),
        pytest.param(answer(503), id="503"),
    ],
)
def test_retry_answered_409_after_a_possible_send_is_unknown(first: Event) -> None:
    """A retry answered 409 after an attempt that may have been received is an unknown outcome."""
    delays, error = drive("payment", [first, erro(409, "REFERENCIA_DUPLICADA")])

    assert [0.0] == delays
    assert isinstance(error, smartpos.OutcomeUnknownError)
    assert REF == error.referencia
    assert isinstance(error.last_error, smartpos.ReferenciaDuplicadaError)


@pytest.mark.parametrize(
    "first",
    [
        pytest.param(httpx.ConnectError("refused"), id="connect-error"),
        pytest.param(httpx.ConnectTimeout("connect"), id="connect-timeout"),
        pytest.param(answer(429), id="429"),
    ],
)
def test_retry_answered_409_after_nothing_was_accepted_is_still_unknown(first: Event) -> None:
    """Even after a failure proving the service did not act, a 409 on a retry is unknown.

    An upstream retry (a proxy, a service mesh) may have delivered the first attempt anyway:
    a 409 proves "not accepted" only on the first attempt of the caller's own referencia.
    """
    _, error = drive("payment", [first, erro(409, "REFERENCIA_DUPLICADA")])

    assert type(error) is smartpos.OutcomeUnknownError
    assert type(error.last_error) is smartpos.ReferenciaDuplicadaError


def test_verdict_4xx_after_a_timeout_stays_a_verdict() -> None:
    """A 400 after a read timeout is a verdict on the request, not an unknown outcome."""
    _, error = drive("payment", [httpx.ReadTimeout("read"), erro(400, "CAMPO_INVALIDO")])

    assert type(error) is smartpos.CampoInvalidoError


def test_rate_limit_after_a_timeout_is_unknown() -> None:
    """A 429 as last answer after a read timeout leaves the first attempt's outcome unknown."""
    _, error = drive("payment", [httpx.ReadTimeout("read"), answer(429)], max_retries=1)

    assert isinstance(error, smartpos.OutcomeUnknownError)
    assert isinstance(error.last_error, smartpos.RateLimitError)


def test_success_after_a_timeout_is_the_result() -> None:
    """A 2xx after a read timeout is the answer to the same referencia: the result."""
    delays, result = drive("payment", [httpx.ReadTimeout("read"), answer(202, ACCEPTED)])

    assert ([0.0], REF, 2) == (delays, result.referencia, result.http.attempts)


NOT_SENT = [
    pytest.param(httpx.ConnectError("refused"), smartpos.TransportError, id="ConnectError"),
    pytest.param(httpx.ConnectTimeout("connect"), smartpos.TimeoutError, id="ConnectTimeout"),
    pytest.param(httpx.PoolTimeout("pool"), smartpos.TimeoutError, id="PoolTimeout"),
]
MAYBE_SENT = [
    pytest.param(httpx.ReadTimeout("read"), smartpos.TimeoutError, id="ReadTimeout"),
    pytest.param(httpx.WriteTimeout("write"), smartpos.TimeoutError, id="WriteTimeout"),
    pytest.param(
        httpx.RemoteProtocolError("dropped"), smartpos.TransportError, id="RemoteProtocolError"
    ),
    pytest.param(httpx.ReadError("reset"), smartpos.TransportError, id="ReadError"),
    pytest.param(httpx.WriteError("broken pipe"), smartpos.TransportError, id="WriteError"),
]


@pytest.mark.parametrize(("exc", "expected"), NOT_SENT + MAYBE_SENT)
def test_network_failures_of_safe_calls_are_transport_errors(
    exc: Exception, expected: type[Exception]
) -> None:
    """For qrcodes.create, any network failure is retried, then a TransportError/TimeoutError."""
    delays, error = drive("qrcode", [exc, exc, exc])

    assert [0.0, 0.0] == delays
    assert type(error) is expected
    assert exc is error.__cause__
    assert f"POST /qrcode failed after 3 attempt(s): {type(exc).__name__}: " in str(error)


@pytest.mark.parametrize(("exc", "expected"), NOT_SENT)
def test_failures_before_sending_a_payment_are_transport_errors(
    exc: Exception, expected: type[Exception]
) -> None:
    """Connect errors and connect/pool timeouts of a payment are TransportErrors (nothing sent)."""
    delays, error = drive("payment", [exc, exc, exc])

    assert [0.0, 0.0] == delays
    assert type(error) is expected


@pytest.mark.parametrize(("exc", "expected"), MAYBE_SENT)
def test_failures_after_sending_a_payment_are_unknown_outcomes(
    exc: Exception, expected: type[Exception]
) -> None:
    """Read/write timeouts and dropped connections of a payment end in OutcomeUnknownError."""
    delays, error = drive("payment", [exc, exc, exc])

    assert [0.0, 0.0] == delays
    assert isinstance(error, smartpos.OutcomeUnknownError)
    assert (REF, 3) == (error.referencia, error.attempts)
    assert type(error.last_error) is expected
    assert exc is error.last_error.__cause__


def test_connect_errors_after_a_possible_send_stay_unknown() -> None:
    """Once an attempt may have reached the service, later connect errors cannot clear the doubt."""
    _, error = drive(
        "payment", [httpx.ReadTimeout("read"), httpx.ConnectError("a"), httpx.ConnectError("b")]
    )

    assert isinstance(error, smartpos.OutcomeUnknownError)
    assert type(error.last_error) is smartpos.TransportError


@pytest.mark.parametrize(
    "exc",
    [
        httpx.UnsupportedProtocol("no scheme"),
        httpx.LocalProtocolError("bad header"),
        httpx.ProxyError("refused by proxy"),
    ],
)
@pytest.mark.parametrize("kind", ["payment", "qrcode"])
def test_fatal_transport_errors_are_not_retried(kind: str, exc: Exception) -> None:
    """Errors that cannot pass on a retry raise a TransportError at once (nothing was sent)."""
    delays, error = drive(kind, [exc])

    assert [] == delays
    assert type(error) is smartpos.TransportError


@pytest.mark.parametrize(
    "exc",
    [httpx.DecodingError("bad gzip"), httpx.TooManyRedirects("loop")],
)
def test_errors_after_an_answer_are_not_retried(exc: Exception) -> None:
    """httpx errors other than transport errors are not retried; on a payment they are unknown."""
    delays, error = drive("payment", [exc])
    _, qr_error = drive("qrcode", [exc])

    assert [] == delays
    assert isinstance(error, smartpos.OutcomeUnknownError)
    assert type(qr_error) is smartpos.TransportError


# --- Retry-After and backoff ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "retry_after", "expected"),
    [
        (429, "3", 3.0),
        (503, "2.5", 2.5),
        (429, "0", 0.0),
        (429, "120", _core.MAX_RETRY_AFTER),
        (503, "86400", _core.MAX_RETRY_AFTER),
        (429, "inf", _core.MAX_RETRY_AFTER),
    ],
)
def test_retry_after_is_honoured_and_capped(status: int, retry_after: str, expected: float) -> None:
    """A 429 or 503 with Retry-After waits that long, capped at MAX_RETRY_AFTER."""
    delays, _ = drive(
        "qrcode",
        [answer(status, headers={"retry-after": retry_after}), answer(201, QR_JSON)],
        retry_backoff=0.5,
    )

    assert [expected] == delays


def test_retry_after_http_date_is_honoured() -> None:
    """Retry-After as an HTTP date waits until that moment."""
    when = email.utils.formatdate(time.time() + 20, usegmt=True)

    delays, _ = drive(
        "qrcode",
        [answer(503, headers={"retry-after": when}), answer(201, QR_JSON)],
        retry_backoff=0.5,
    )

    assert 18.0 <= delays[0] <= 20.0


@pytest.mark.parametrize(
    ("status", "retry_after"),
    [(500, "3"), (502, "3"), (504, "3"), (429, "soon"), (503, "")],
)
def test_retry_after_ignored_falls_back_to_backoff(status: int, retry_after: str) -> None:
    """Retry-After counts only on a 429/503 and when readable; else the jittered backoff applies."""
    delays, _ = drive(
        "qrcode",
        [answer(status, headers={"retry-after": retry_after}), answer(201, QR_JSON)],
        retry_backoff=0.5,
        rng=random.Random(3),
    )

    assert [0.5 * (0.5 + random.Random(3).random() / 2)] == delays


def test_zero_backoff_ignores_retry_after() -> None:
    """retry_backoff=0 retries at once, Retry-After included (for tests)."""
    delays, _ = drive("qrcode", [answer(429, headers={"retry-after": "30"}), answer(201, QR_JSON)])

    assert [0.0] == delays


def test_backoff_is_exponential_jittered_and_capped() -> None:
    """Backoff doubles per attempt from retry_backoff, jittered in [0.5, 1]x, capped at 8 s."""
    seed = 20260701
    reference = random.Random(seed)
    events: list[Event] = [answer(503)] * 8 + [answer(201, QR_JSON)]

    delays, _ = drive("qrcode", events, max_retries=8, retry_backoff=0.5, rng=random.Random(seed))

    bases = [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0, 8.0]
    assert [base * (0.5 + reference.random() / 2) for base in bases] == delays
    assert 8.0 == _core.MAX_BACKOFF


@given(
    seed=st.integers(min_value=0, max_value=2**32),
    base=st.floats(min_value=0.001, max_value=20.0, allow_nan=False),
    failures=st.integers(min_value=1, max_value=10),
)
def test_backoff_bounds(seed: int, base: float, failures: int) -> None:
    """Every backoff lies within [0.5, 1] x min(MAX_BACKOFF, base x 2^(n-1))."""
    events: list[Event] = [answer(502)] * failures + [answer(201, QR_JSON)]

    delays, _ = drive(
        "qrcode", events, max_retries=failures, retry_backoff=base, rng=random.Random(seed)
    )

    for n, delay in enumerate(delays, start=1):
        ceiling = min(_core.MAX_BACKOFF, base * 2 ** (n - 1))
        assert ceiling * 0.5 <= delay <= ceiling


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        ("", None),
        ("5", 5.0),
        (" 7 ", 7.0),
        ("1.5", 1.5),
        ("-3", 0.0),
        ("nan", None),
        ("soon", None),
        ("Wed, 21 Oct 2015 07:28:10 GMT", 10.0),
        ("Wed, 21 Oct 2015 07:27:00 GMT", 0.0),
        ("Wed, 99 Foo 2015 07:28:00 GMT", None),
    ],
)
def test_parse_retry_after(value: str | None, expected: float | None) -> None:
    """Retry-After reads as seconds (never negative) from a number or an HTTP date, else None."""
    now = 1445412480.0  # Wed, 21 Oct 2015 07:28:00 GMT

    assert expected == _core.parse_retry_after(value, now=now)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"x-request-id": "a", "request-id": "b"}, "a"),
        ({"request-id": "b", "x-correlation-id": "c"}, "b"),
        ({"x-correlation-id": "c"}, "c"),
        ({"x-amzn-requestid": "d"}, "d"),
        ({"x-request-id": "", "request-id": "b"}, "b"),
        ({}, None),
    ],
)
def test_request_id_of(headers: dict[str, str], expected: str | None) -> None:
    """The request id comes from x-request-id first, then the other usual headers."""
    assert expected == _responses.request_id_of(httpx.Headers(headers))


def test_one_tolerant_reader_serves_records_the_spec_does_not_describe() -> None:
    """Strings are kept, other types become None, unknown keys stay in raw: never an error."""
    from smartpos._models import Refund, Terminal
    from smartpos._responses import read_tolerant

    data = {"smartposId": 7, "extra": {"a": 1}}
    terminal = read_tolerant(Terminal, data)
    refund = read_tolerant(Refund, {"status": "ok", "mensagem": ["x"]}, referencia="r")
    assert (None, data) == (terminal.smartpos_id, terminal.raw)
    assert ("r", "ok", None) == (refund.referencia, refund.status, refund.mensagem)


@pytest.mark.parametrize(
    ("value", "kwargs", "codigo"),
    [
        (None, {}, "CAMPO_OBRIGATORIO"),
        ("   ", {}, "CAMPO_OBRIGATORIO"),
        (5, {}, "CAMPO_INVALIDO"),
        ("x" * 101, {"max_length": 100}, "CAMPO_INVALIDO"),
    ],
)
def test_one_text_checker_refuses_with_the_services_codes(
    value: object, kwargs: dict[str, Any], codigo: str
) -> None:
    """Missing, blank, not a str, too long: a ValidationError naming the campo."""
    from smartpos._arguments import text

    with pytest.raises(smartpos.ValidationError) as caught:
        text(value, "descricao", **kwargs)
    assert (codigo, "descricao") == (caught.value.codigo, caught.value.campo)


def test_the_text_checker_keeps_what_it_accepts() -> None:
    """An optional None stays None; a bounded text at its limit passes unchanged."""
    from smartpos._arguments import text

    assert (None, "x" * 100) == (
        text(None, "descricao", required=False),
        text("x" * 100, "descricao", max_length=100),
    )
