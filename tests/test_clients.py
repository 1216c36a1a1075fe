"""Both clients against pytest-httpx: every endpoint, its exact request and typed result.

Each test runs twice, with ``Client`` and with ``AsyncClient`` (the ``flavour`` fixture of
conftest.py, behind the ``SDK`` wrapper of client_cases.py), as ``test_retries.py`` does:
one test body per behaviour, so that the two clients cannot drift apart in what is checked.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from pytest_httpx import HTTPXMock

import smartpos
from client_cases import (
    ACCEPTANCE_JSON,
    API_KEY,
    BASE_URL,
    CNPJ_ALNUM,
    CPF,
    ENDPOINTS,
    INVALID,
    QR_EXPIRES_AT,
    QR_JSON,
    REF,
    REFUND_REF,
    SDK,
    STARTS_OPERATION,
    Endpoint,
    Invalid,
    approved_event_json,
    assert_no_nulls,
    echoing,
)
from smartpos import webhooks

pytestmark = pytest.mark.asyncio


def sent_json(request: httpx.Request) -> Any:
    """The JSON body of a captured request."""
    return json.loads(request.content)


# --- golden requests -----------------------------------------------------------------------


@pytest.mark.parametrize("endpoint", [e.param for e in ENDPOINTS])
async def test_endpoint_sends_golden_request(
    sdk: SDK, httpx_mock: HTTPXMock, endpoint: Endpoint
) -> None:
    """Each endpoint sends its exact method, URL and JSON body, key by key, without nulls."""
    httpx_mock.add_response(status_code=endpoint.status, json=endpoint.answer)

    await sdk.call(endpoint.resource, endpoint.method, **endpoint.kwargs)

    (request,) = httpx_mock.get_requests()
    assert endpoint.http_method == request.method
    assert BASE_URL + endpoint.path == str(request.url)
    if endpoint.body is None:
        assert b"" == request.content
    else:
        body = sent_json(request)
        assert sorted(endpoint.body) == sorted(body)
        for key, value in endpoint.body.items():
            assert (key, value) == (key, body[key])
        assert_no_nulls(body)


@pytest.mark.parametrize("endpoint", [e.param for e in ENDPOINTS])
async def test_endpoint_headers(sdk: SDK, httpx_mock: HTTPXMock, endpoint: Endpoint) -> None:
    """x-api-key goes on every call; content-type application/json only when a body is sent."""
    httpx_mock.add_response(status_code=endpoint.status, json=endpoint.answer)

    await sdk.call(endpoint.resource, endpoint.method, **endpoint.kwargs)

    (request,) = httpx_mock.get_requests()
    assert API_KEY == request.headers["x-api-key"]
    assert "application/json" == request.headers["accept"]
    assert request.headers["user-agent"].startswith(f"smartpos-python/{smartpos.__version__} ")
    if endpoint.body is None:
        assert "content-type" not in request.headers
    else:
        assert "application/json" == request.headers["content-type"]


async def test_modo_execucao_always_sent(sdk: SDK, httpx_mock: HTTPXMock) -> None:
    """modoExecucao is sent even when the caller leaves the default (imediato)."""
    httpx_mock.add_callback(echoing(202, ACCEPTANCE_JSON))

    await sdk.call(
        "payments", "create", documento_cliente=CPF, valor_centavos=100, smartpos_id="SP-1"
    )

    assert "imediato" == sent_json(httpx_mock.get_request())["modoExecucao"]


async def test_empty_comprovante_is_omitted(sdk: SDK, httpx_mock: HTTPXMock) -> None:
    """A Comprovante with no preference set is omitted rather than sent as {} or nulls."""
    httpx_mock.add_callback(echoing(202, ACCEPTANCE_JSON))

    await sdk.call(
        "payments",
        "create",
        documento_cliente=CPF,
        valor_centavos=100,
        smartpos_id="SP-1",
        comprovante=smartpos.Comprovante(),
        forma_pagamento=None,
        parcelas=None,
        parcelamento=None,
    )

    body = sent_json(httpx_mock.get_request())
    assert ["documentoCliente", "modoExecucao", "referencia", "smartposId", "valorCentavos"] == (
        sorted(body)
    )


# --- typed results -------------------------------------------------------------------------


async def test_qrcode_result(sdk: SDK, httpx_mock: HTTPXMock) -> None:
    """qrcodes.create returns a QRCode with an aware UTC expires_at read from a Unix timestamp."""
    httpx_mock.add_response(status_code=201, json=QR_JSON, headers={"x-request-id": "req-qr-1"})

    qr = await sdk.call("qrcodes", "create", documento_cliente=CPF, referencia=REF)

    assert isinstance(qr, smartpos.QRCode)
    assert (QR_JSON["qrCode"], REF) == (qr.qr_code, qr.referencia)
    assert QR_EXPIRES_AT == qr.expires_at
    assert dt.timedelta(0) == qr.expires_at.utcoffset()
    assert qr.is_expired(now=QR_EXPIRES_AT) is True
    assert qr.is_expired(now=QR_EXPIRES_AT - dt.timedelta(seconds=1)) is False
    assert qr.http is not None
    assert (201, "req-qr-1", 1) == (qr.http.status_code, qr.http.request_id, qr.http.attempts)
    assert "req-qr-1" == qr.http.headers["x-request-id"]


async def test_acceptance_result(sdk: SDK, httpx_mock: HTTPXMock) -> None:
    """payments.create returns an Acceptance with targets, smartpos_id, raw and HTTP metadata."""
    answer = {**ACCEPTANCE_JSON, "novoCampo": {"x": 1}}
    httpx_mock.add_response(status_code=202, json=answer, headers={"x-request-id": "req-42"})

    result = await sdk.call(
        "payments",
        "create",
        documento_cliente=CPF,
        valor_centavos=1590,
        smartpos_id="SP-1",
        referencia=REF,
    )

    assert isinstance(result, smartpos.Acceptance)
    assert (REF, "processando", "Pagamento enviado ao terminal", "SP-1") == (
        result.referencia,
        result.status,
        result.mensagem,
        result.smartpos_id,
    )
    assert [smartpos.Target(smartpos_id="SP-1", status="enviado")] == result.targets
    assert answer == result.raw
    assert result.http is not None
    assert (202, "req-42", 1) == (
        result.http.status_code,
        result.http.request_id,
        result.http.attempts,
    )
    assert result.http.elapsed is not None
    assert result.http.elapsed >= 0


async def test_print_job_result(sdk: SDK, httpx_mock: HTTPXMock) -> None:
    """print_jobs.create returns an Acceptance too."""
    httpx_mock.add_response(status_code=202, json={**ACCEPTANCE_JSON, "smartposId": None})

    result = await sdk.call(
        "print_jobs",
        "create",
        documento_cliente=CPF,
        smartpos_id="SP-1",
        conteudo="x",
        referencia=REF,
    )

    assert isinstance(result, smartpos.Acceptance)
    assert (REF, None) == (result.referencia, result.smartpos_id)


@pytest.mark.parametrize(
    ("answer", "expected_referencia", "expected_status", "expected_raw"),
    [
        pytest.param(
            {"referencia": REF, "status": "processando", "mensagem": "ok", "nsu": 7},
            REF,
            "processando",
            {"referencia": REF, "status": "processando", "mensagem": "ok", "nsu": 7},
            id="full-answer-kept-in-raw",
        ),
        pytest.param(
            {"status": "aceito"}, "SENT", "aceito", {"status": "aceito"}, id="no-referencia"
        ),
        pytest.param(
            {"referencia": 12, "status": 3},
            "SENT",
            None,
            {"referencia": 12, "status": 3},
            id="wrong-types-tolerated",
        ),
        pytest.param(b"", "SENT", None, {}, id="empty-body"),
    ],
)
async def test_refund_result_is_tolerant(
    sdk: SDK,
    httpx_mock: HTTPXMock,
    answer: Any,
    expected_referencia: str,
    expected_status: str | None,
    expected_raw: Any,
) -> None:
    """A Refund keeps every field in raw and always has a referencia (the one sent if omitted)."""
    if isinstance(answer, bytes):
        httpx_mock.add_response(status_code=202, content=answer)
    else:
        httpx_mock.add_response(status_code=200, json=answer)
    sent = REF

    refund = await sdk.call(
        "refunds",
        "create",
        documento_cliente=CPF,
        smartpos_id="SP-1",
        valor_centavos=500,
        pagamento_original=smartpos.PagamentoOriginal("A", "N", "F", "credito"),
        referencia=sent,
    )

    assert isinstance(refund, smartpos.Refund)
    assert (sent if expected_referencia == "SENT" else expected_referencia) == refund.referencia
    assert expected_status == refund.status
    assert expected_raw == refund.raw
    assert refund.http is not None


@pytest.mark.parametrize(
    ("answer", "expected_ids"),
    [
        pytest.param([{"smartposId": "SP-1"}, {"smartposId": "SP-2"}], ["SP-1", "SP-2"], id="list"),
        pytest.param({"smartpos": [{"smartposId": "SP-1", "m": 1}]}, ["SP-1"], id="smartpos-key"),
        pytest.param(
            {"dispositivos": [{"smartposId": "SP-9"}], "total": 1}, ["SP-9"], id="unknown-key"
        ),
        pytest.param({"smartposId": "SP-3", "status": "ativo"}, ["SP-3"], id="single-object"),
        pytest.param([{"serial": "X"}, {"smartposId": 5}], [None, None], id="no-usable-id"),
        pytest.param([], [], id="empty"),
    ],
)
async def test_terminals_list_shapes(
    sdk: SDK, httpx_mock: HTTPXMock, answer: Any, expected_ids: list[str | None]
) -> None:
    """terminals.list reads several listing shapes and keeps each record's raw dict."""
    httpx_mock.add_response(json=answer)

    terminals = await sdk.call("terminals", "list", documento_cliente=CPF)

    assert expected_ids == [t.smartpos_id for t in terminals]
    assert all(isinstance(t, smartpos.Terminal) for t in terminals)
    items = (
        answer
        if isinstance(answer, list)
        else next((v for v in answer.values() if isinstance(v, list)), [answer])
    )
    assert items == [t.raw for t in terminals]


# --- arguments -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "sent"),
    [
        ("123.456.789-09", "12345678909"),
        (" 123 456 789 09 ", "12345678909"),
        ("11.222.333/0001-81", "11222333000181"),
        ("12.abc.345/01de-35", CNPJ_ALNUM),
        ("12.ABC.345/01DE-35", CNPJ_ALNUM),
        ("12abc34501de35", CNPJ_ALNUM),
    ],
)
async def test_masked_documents_are_sent_normalized(
    sdk: SDK, httpx_mock: HTTPXMock, given: str, sent: str
) -> None:
    """A masked or lower-case document is sent as digits and upper-case letters only."""
    httpx_mock.add_callback(echoing(202, ACCEPTANCE_JSON))
    httpx_mock.add_response(json=[])

    await sdk.call(
        "payments", "create", documento_cliente=given, valor_centavos=1, smartpos_id="SP-1"
    )
    await sdk.call("terminals", "list", documento_cliente=given)

    payment, listing = httpx_mock.get_requests()
    assert sent == sent_json(payment)["documentoCliente"]
    assert f"/base/v1/customers/{sent}/smartpos" == listing.url.path


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(
            (
                smartpos.FormaPagamento.CREDITO,
                smartpos.Parcelamento.ESTABELECIMENTO,
                smartpos.ModoExecucao.IMEDIATO,
            ),
            id="members",
        ),
        pytest.param(("credito", "estabelecimento", "imediato"), id="wire-strings"),
    ],
)
async def test_enum_arguments_accept_member_or_wire_string(
    sdk: SDK, httpx_mock: HTTPXMock, args: tuple[Any, Any, Any]
) -> None:
    """An enum argument accepts its member or its exact wire string, with the same result."""
    httpx_mock.add_callback(echoing(202, ACCEPTANCE_JSON))
    forma, parcelamento, modo = args

    await sdk.call(
        "payments",
        "create",
        documento_cliente=CPF,
        valor_centavos=3000,
        smartpos_id="SP-1",
        referencia=REF,
        forma_pagamento=forma,
        parcelas=2,
        parcelamento=parcelamento,
        modo_execucao=modo,
    )

    body = sent_json(httpx_mock.get_request())
    assert ("credito", "estabelecimento", "imediato") == (
        body["formaPagamento"],
        body["parcelamento"],
        body["modoExecucao"],
    )


@pytest.mark.parametrize(
    ("conteudo", "expected"),
    [
        ("Olá", "T2zDoQ=="),
        ("€ ✓\n", "4oKsIOKckwo="),
        (b"\x00\x01\x02", "AAEC"),
        (bytearray(b"abc"), "YWJj"),
        (memoryview(b"abcd"), "YWJjZA=="),
    ],
)
async def test_print_conteudo_is_base64(
    sdk: SDK, httpx_mock: HTTPXMock, conteudo: Any, expected: str
) -> None:
    """A str is UTF-8 encoded then Base64-encoded; bytes-like content is Base64-encoded as is."""
    httpx_mock.add_callback(echoing(202, ACCEPTANCE_JSON))

    await sdk.call(
        "print_jobs", "create", documento_cliente=CPF, smartpos_id="SP-1", conteudo=conteudo
    )

    assert {"tipo": "base64", "base64": expected} == sent_json(httpx_mock.get_request())["conteudo"]


@pytest.mark.parametrize(
    ("resource", "method", "kwargs", "answer"),
    [
        pytest.param("qrcodes", "create", {"documento_cliente": CPF}, QR_JSON, id="qrcodes.create"),
        *[pytest.param(*p.values, ACCEPTANCE_JSON, id=p.id) for p in STARTS_OPERATION],
    ],
)
async def test_generated_referencia_is_sent_and_returned(
    sdk: SDK,
    httpx_mock: HTTPXMock,
    resource: str,
    method: str,
    kwargs: dict[str, Any],
    answer: dict[str, Any],
) -> None:
    """referencia=None sends a new UUID4-first referencia, and the value used is on the result."""
    # The service echoes whatever referencia it received.
    httpx_mock.add_callback(
        lambda request: httpx.Response(
            202, json={**answer, "referencia": sent_json(request)["referencia"]}
        )
    )

    result = await sdk.call(resource, method, **kwargs)

    sent = sent_json(httpx_mock.get_request())["referencia"]
    assert smartpos.is_valid_referencia(sent)
    assert 4 == uuid.UUID(sent[:36]).version
    assert sent == result.referencia


async def test_refund_referencia_on_result_when_answer_is_empty(
    sdk: SDK, httpx_mock: HTTPXMock
) -> None:
    """A generated refund referencia is on the Refund even when the answer body is empty."""
    httpx_mock.add_response(status_code=202)

    refund = await sdk.call(
        "refunds",
        "create",
        documento_cliente=CPF,
        smartpos_id="SP-1",
        valor_centavos=500,
        pagamento_original=smartpos.PagamentoOriginal("A", "N", "F", "credito"),
    )

    assert sent_json(httpx_mock.get_request())["referencia"] == refund.referencia
    assert smartpos.is_valid_referencia(refund.referencia)


async def test_referencia_suffix_is_allowed(sdk: SDK, httpx_mock: HTTPXMock) -> None:
    """A UUID-first referencia with a -suffix is sent unchanged."""
    httpx_mock.add_callback(echoing(202, ACCEPTANCE_JSON))
    referencia = REF + "-mesa_7.caixa:2"

    await sdk.call(
        "payments",
        "create",
        documento_cliente=CPF,
        valor_centavos=1,
        smartpos_id="SP-1",
        referencia=referencia,
    )

    assert referencia == sent_json(httpx_mock.get_request())["referencia"]


async def test_strict_referencia_false_relaxes_the_rule(
    make_sdk: Callable[..., SDK], httpx_mock: HTTPXMock
) -> None:
    """strict_referencia=False sends a legacy referencia (no UUID) as given."""
    httpx_mock.add_callback(echoing(202, ACCEPTANCE_JSON))

    async with make_sdk(strict_referencia=False) as sdk:
        await sdk.call(
            "payments",
            "create",
            documento_cliente=CPF,
            valor_centavos=1,
            smartpos_id="SP-1",
            referencia="PDV-000042",
        )

    assert "PDV-000042" == sent_json(httpx_mock.get_request())["referencia"]


# --- refunds.create_for --------------------------------------------------------------------


def approved(**dados: Any) -> webhooks.PagamentoAprovado:
    """A PagamentoAprovado parsed by smartpos.webhooks.parse_event."""
    event = webhooks.parse_event(approved_event_json(**dados))
    assert isinstance(event, webhooks.PagamentoAprovado)
    return event


async def test_create_for_total_refund(sdk: SDK, httpx_mock: HTTPXMock) -> None:
    """create_for fills documento, smartpos and pagamentoOriginal; the default is a total refund."""
    httpx_mock.add_response(json={"status": "processando"})

    refund = await sdk.call("refunds", "create_for", approved(), referencia=REFUND_REF + "-estorno")

    request = httpx_mock.get_request()
    assert ("POST", BASE_URL + "/v1/refunds") == (request.method, str(request.url))
    assert {
        "referencia": REFUND_REF + "-estorno",
        "documentoCliente": CPF,
        "smartposId": "SP-1",
        "valorCentavos": 1590,
        "pagamentoOriginal": {
            "codigoAutorizacao": "AUT123",
            "numeroTransacao": "NSU456",
            "dadosFinalizacao": "FIN-789-secret",
            "tipoPagamento": "credito",
        },
    } == sent_json(request)
    assert REFUND_REF + "-estorno" == refund.referencia


async def test_create_for_partial_refund(sdk: SDK, httpx_mock: HTTPXMock) -> None:
    """create_for with valor_centavos refunds that amount, under a new generated referencia."""
    httpx_mock.add_response(json={})

    refund = await sdk.call("refunds", "create_for", approved(), valor_centavos=590)

    body = sent_json(httpx_mock.get_request())
    assert 590 == body["valorCentavos"]
    assert REF != body["referencia"]
    assert smartpos.is_valid_referencia(body["referencia"])
    assert body["referencia"] == refund.referencia


@pytest.mark.parametrize(
    ("dados", "valor_centavos", "referencia", "codigo", "campo"),
    [
        *[
            pytest.param(
                {"autorizacao": {k: v for k, v in full.items() if k != missing}},
                None,
                None,
                "CAMPO_OBRIGATORIO",
                f"pagamentoOriginal.{campo}",
                id=f"no-autorizacao.{missing}",
            )
            for full in [
                {
                    "codigo": "AUT123",
                    "numeroTransacao": "NSU456",
                    "dadosFinalizacao": "FIN",
                    "tipoPagamento": "credito",
                }
            ]
            for missing, campo in [
                ("codigo", "codigoAutorizacao"),
                ("numeroTransacao", "numeroTransacao"),
                ("dadosFinalizacao", "dadosFinalizacao"),
                ("tipoPagamento", "tipoPagamento"),
            ]
        ],
        pytest.param(
            {"autorizacao": None},
            None,
            None,
            "CAMPO_OBRIGATORIO",
            "pagamentoOriginal.codigoAutorizacao",
            id="no-autorizacao",
        ),
        pytest.param(
            {"smartposId": None}, None, None, "CAMPO_OBRIGATORIO", "smartposId", id="no-smartposId"
        ),
        pytest.param(
            {"valorCentavos": None},
            None,
            None,
            "CAMPO_OBRIGATORIO",
            "valorCentavos",
            id="no-valorCentavos",
        ),
        pytest.param({}, 0, None, "VALOR_INVALIDO", "valorCentavos", id="zero-amount"),
        pytest.param({}, None, REF, "CAMPO_INVALIDO", "referencia", id="original-referencia"),
        pytest.param({}, None, "estorno-1", "CAMPO_INVALIDO", "referencia", id="not-uuid-first"),
    ],
)
async def test_create_for_refuses_incomplete_events(
    sdk: SDK,
    httpx_mock: HTTPXMock,
    dados: dict[str, Any],
    valor_centavos: int | None,
    referencia: str | None,
    codigo: str,
    campo: str,
) -> None:
    """create_for refuses an event it cannot refund with a ValidationError naming campo."""
    event = approved(**dados)

    with pytest.raises(smartpos.ValidationError) as info:
        await sdk.call(
            "refunds", "create_for", event, valor_centavos=valor_centavos, referencia=referencia
        )

    assert (codigo, campo) == (info.value.codigo, info.value.campo)
    assert [] == httpx_mock.get_requests()


async def test_create_for_refuses_other_events(sdk: SDK, httpx_mock: HTTPXMock) -> None:
    """create_for refuses a pagamento.recusado event: only an approved payment is refunded."""
    body = approved_event_json()
    refused = webhooks.parse_event({**body, "tipo": "pagamento.recusado"})

    with pytest.raises(smartpos.ValidationError) as info:
        await sdk.call("refunds", "create_for", refused)

    assert ("CAMPO_INVALIDO", "pagamentoOriginal") == (info.value.codigo, info.value.campo)
    assert [] == httpx_mock.get_requests()


# --- local validation ----------------------------------------------------------------------


@pytest.mark.parametrize("case", INVALID)
async def test_invalid_arguments_are_refused_before_sending(
    sdk: SDK, httpx_mock: HTTPXMock, case: Invalid
) -> None:
    """Each validation rule raises ValidationError with the codigo and campo; nothing is sent."""
    with pytest.raises(smartpos.ValidationError) as info:
        await sdk.call(case.resource, case.method, **case.kwargs)

    assert (case.codigo, case.campo) == (info.value.codigo, info.value.campo)
    assert isinstance(info.value, ValueError)
    assert [] == httpx_mock.get_requests()


async def test_arguments_are_keyword_only(sdk: SDK) -> None:
    """Resource methods take keyword arguments only."""
    with pytest.raises(TypeError):
        await sdk.call("terminals", "list", CPF)


# --- configuration and lifecycle -----------------------------------------------------------


@pytest.mark.usefixtures("no_env")
async def test_configuration_from_environment(
    client_class: type[smartpos.Client] | type[smartpos.AsyncClient],
    monkeypatch: pytest.MonkeyPatch,
    httpx_mock: HTTPXMock,
) -> None:
    """SMARTPOS_API_KEY and SMARTPOS_BASE_URL configure a client built without arguments."""
    monkeypatch.setenv("SMARTPOS_API_KEY", "env-key")
    monkeypatch.setenv("SMARTPOS_BASE_URL", "https://env.smartpos.test/")
    httpx_mock.add_response(json=[])

    async with SDK(client_class(retry_backoff=0)) as sdk:
        await sdk.call("terminals", "list", documento_cliente=CPF)

    request = httpx_mock.get_request()
    assert ("env-key", f"https://env.smartpos.test/v1/customers/{CPF}/smartpos") == (
        request.headers["x-api-key"],
        str(request.url),
    )
    assert "https://env.smartpos.test" == sdk.client.base_url


@pytest.mark.usefixtures("no_env")
@pytest.mark.parametrize(
    "kwargs",
    [
        pytest.param({"base_url": BASE_URL}, id="no-api-key"),
        pytest.param({"api_key": "", "base_url": BASE_URL}, id="empty-api-key"),
        pytest.param({"api_key": API_KEY}, id="no-base-url"),
        pytest.param(
            {"api_key": API_KEY, "base_url": BASE_URL, "http_client": object()},
            id="bad-http-client",
        ),
        pytest.param(
            {"api_key": API_KEY, "base_url": BASE_URL, "max_retries": -1}, id="bad-option"
        ),
    ],
)
async def test_configuration_errors(
    client_class: type[smartpos.Client] | type[smartpos.AsyncClient], kwargs: dict[str, Any]
) -> None:
    """A client without key or base URL, or with a bad option, raises ConfigurationError."""
    with pytest.raises(smartpos.ConfigurationError) as info:
        client_class(**kwargs)

    assert API_KEY not in str(info.value)


async def test_http_client_of_the_other_flavour_is_refused(
    flavour: str,
    client_class: type[smartpos.Client] | type[smartpos.AsyncClient],
    make_http: Callable[..., Any],
) -> None:
    """Client refuses an httpx.AsyncClient as http_client, AsyncClient a sync httpx.Client."""
    other = "async" if flavour == "sync" else "sync"

    with pytest.raises(smartpos.ConfigurationError) as info:
        client_class(api_key=API_KEY, base_url=BASE_URL, http_client=make_http(other))

    expected = {
        "sync": "http_client must be an httpx.Client/httpx2.Client, not AsyncClient",
        "async": "http_client must be an httpx.AsyncClient/httpx2.AsyncClient, not Client",
    }[flavour]
    assert expected == str(info.value)


async def test_http_client_and_transport_together_are_refused(
    client_class: type[smartpos.Client] | type[smartpos.AsyncClient],
    make_http: Callable[..., Any],
) -> None:
    """Passing both http_client and transport raises ConfigurationError."""
    with pytest.raises(smartpos.ConfigurationError):
        client_class(
            api_key=API_KEY,
            base_url=BASE_URL,
            http_client=make_http(),
            transport=httpx.MockTransport(httpx.Response),
        )


async def test_users_http_client_is_used_and_not_closed(
    make_sdk: Callable[..., SDK], make_http: Callable[..., Any], httpx_mock: HTTPXMock
) -> None:
    """A user's httpx client is used as given (its timeout too) and left open on close."""
    httpx_mock.add_response(json=[])
    own = make_http(timeout=3.5)

    async with make_sdk(http_client=own) as sdk:
        await sdk.call("terminals", "list", documento_cliente=CPF)

    assert own.is_closed is False
    assert httpx.Timeout(3.5).as_dict() == httpx_mock.get_request().extensions["timeout"]


async def test_explicit_timeout_wins_over_users_http_client(
    make_sdk: Callable[..., SDK], make_http: Callable[..., Any], httpx_mock: HTTPXMock
) -> None:
    """timeout= applies to every request even with a user's http_client."""
    httpx_mock.add_response(json=[])

    async with make_sdk(http_client=make_http(timeout=3.5), timeout=1.25) as sdk:
        await sdk.call("terminals", "list", documento_cliente=CPF)

    assert httpx.Timeout(1.25).as_dict() == httpx_mock.get_request().extensions["timeout"]


async def test_default_timeout(sdk: SDK, httpx_mock: HTTPXMock) -> None:
    """Without timeout=, requests use 5 s to connect and 30 s for the rest."""
    httpx_mock.add_response(json=[])

    await sdk.call("terminals", "list", documento_cliente=CPF)

    expected = {"connect": 5.0, "read": 30.0, "write": 30.0, "pool": 30.0}
    assert expected == httpx_mock.get_request().extensions["timeout"]


class RecordingTransport(httpx.MockTransport):
    """A mock transport of both flavours that counts how often it was closed."""

    def __init__(self) -> None:
        super().__init__(lambda request: httpx.Response(200, json=[]))
        self.closed = 0

    def close(self) -> None:
        self.closed += 1

    async def aclose(self) -> None:
        self.closed += 1


async def test_transport_is_used(make_sdk: Callable[..., SDK]) -> None:
    """transport= serves the client's requests."""
    async with make_sdk(transport=RecordingTransport()) as sdk:
        assert [] == await sdk.call("terminals", "list", documento_cliente=CPF)


async def test_users_transport_is_not_closed(make_sdk: Callable[..., SDK]) -> None:
    """A user's transport is used as given and not closed with the client."""
    transport = RecordingTransport()

    async with make_sdk(transport=transport):
        pass

    assert 0 == transport.closed


async def test_close_is_idempotent_and_repr_hides_the_key(
    flavour: str, make_sdk: Callable[..., SDK]
) -> None:
    """close() may be called twice, and repr(client) shows the base URL but never the key."""
    sdk = make_sdk()
    await sdk.close()
    await sdk.close()

    client_repr, payments_repr = {
        "sync": (f"<Client base_url={BASE_URL!r}>", "<Payments>"),
        "async": (f"<AsyncClient base_url={BASE_URL!r}>", "<AsyncPayments>"),
    }[flavour]
    assert client_repr == repr(sdk.client)
    assert API_KEY not in repr(sdk.client)
    assert payments_repr == repr(sdk.client.payments)


# --- a sync client inside a running event loop ------------------------------------------------


def _sandboxed_sync_client(**options: Any) -> smartpos.Client:
    from smartpos.testing import Sandbox

    sandbox = Sandbox()
    return smartpos.Client(
        api_key=Sandbox.API_KEY,
        base_url="http://sandbox.test",
        transport=sandbox.transport(),
        **options,
    )


@pytest.mark.asyncio
async def test_a_sync_call_inside_a_running_loop_warns_naming_async_client() -> None:
    """An async view calling Client blocks its loop: a SyncClientInEventLoopWarning (a
    RuntimeWarning) that names AsyncClient and points at this file, the caller's line."""
    from smartpos.testing import Sandbox

    with (
        _sandboxed_sync_client() as client,
        pytest.warns(smartpos.SyncClientInEventLoopWarning) as caught,
    ):
        client.terminals.list(documento_cliente=Sandbox.DOCUMENTO)
    [warning] = caught.list
    assert issubclass(warning.category, RuntimeWarning)
    assert "smartpos.AsyncClient" in str(warning.message)
    assert __file__ == warning.filename


@pytest.mark.asyncio
async def test_a_sync_wait_inside_a_running_loop_warns_too() -> None:
    """client.wait sends nothing but blocks the loop as long: the same warning."""
    store = webhooks.MemoryStore()
    with (
        _sandboxed_sync_client(store=store) as client,
        pytest.warns(smartpos.SyncClientInEventLoopWarning) as caught,
        pytest.raises(smartpos.OutcomePendingError),
    ):
        client.wait(smartpos.new_referencia(), timeout=0.01)
    assert __file__ == caught.list[0].filename


@pytest.mark.asyncio
async def test_a_sync_call_in_a_thread_of_a_loop_does_not_warn() -> None:
    """No running loop in the calling thread (asyncio.to_thread, Django's sync_to_async): no
    warning (pytest's filterwarnings=error would fail this test)."""
    import asyncio

    from smartpos.testing import Sandbox

    with _sandboxed_sync_client() as client:
        terminals = await asyncio.to_thread(
            client.terminals.list, documento_cliente=Sandbox.DOCUMENTO
        )
    assert isinstance(terminals, list)


@pytest.mark.asyncio
async def test_an_async_client_never_warns() -> None:
    """AsyncClient in its loop is the right tool: no warning."""
    from smartpos.testing import Sandbox

    sandbox = Sandbox()
    async with smartpos.AsyncClient(
        api_key=Sandbox.API_KEY, base_url="http://sandbox.test", transport=sandbox.transport()
    ) as client:
        await client.terminals.list(documento_cliente=Sandbox.DOCUMENTO)
