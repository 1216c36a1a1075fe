"""Every retry path through both clients (each test runs with Client and AsyncClient).

Backoff is disabled through configuration (``retry_backoff=0``); the waiting itself is decided
by ``_core.Attempts``, whose delays are unit-tested in ``test_core.py``.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from pytest_httpx import HTTPXMock

import smartpos
from client_cases import ACCEPTANCE_JSON, CPF, QR_JSON, REF, SDK, STARTS_OPERATION, echoing

pytestmark = pytest.mark.asyncio

SAFE = [
    pytest.param("qrcodes", "create", {"documento_cliente": CPF}, QR_JSON, id="qrcodes.create"),
    pytest.param("terminals", "list", {"documento_cliente": CPF}, [], id="terminals.list"),
]
PAYMENT = {"documento_cliente": CPF, "valor_centavos": 1590, "smartpos_id": "SP-1"}


def erro(codigo: str) -> dict[str, Any]:
    """An error body in the spec's shape."""
    return {"erro": {"codigo": codigo, "mensagem": "m", "acao": "a"}}


def assert_same_request_resent(requests: list[httpx.Request], count: int) -> str:
    """All ``count`` captured requests carry the same bytes; return their referencia."""
    assert count == len(requests)
    assert [requests[0].content] * count == [r.content for r in requests]
    assert [requests[0].url] * count == [r.url for r in requests]
    return str(json.loads(requests[0].content)["referencia"])


@pytest.mark.parametrize("status", [429, 500, 502, 503, 504])
@pytest.mark.parametrize(("resource", "method", "kwargs"), STARTS_OPERATION)
async def test_retryable_status_then_success_resends_the_same_body(
    sdk: SDK,
    httpx_mock: HTTPXMock,
    resource: str,
    method: str,
    kwargs: dict[str, Any],
    status: int,
) -> None:
    """A 429 or 5xx is retried with the very same bytes (same referencia) until it succeeds."""
    httpx_mock.add_response(status_code=status)
    httpx_mock.add_response(status_code=status, json=erro("ERRO_INTERNO"))
    httpx_mock.add_callback(echoing(202, ACCEPTANCE_JSON))

    result = await sdk.call(resource, method, **kwargs)

    referencia = assert_same_request_resent(httpx_mock.get_requests(), 3)
    assert smartpos.is_valid_referencia(referencia)
    assert result.http is not None
    assert (202, 3) == (result.http.status_code, result.http.attempts)


@pytest.mark.parametrize("status", [500, 502, 503, 504])
@pytest.mark.parametrize(("resource", "method", "kwargs"), STARTS_OPERATION)
async def test_5xx_until_retries_run_out_is_an_unknown_outcome(
    sdk: SDK,
    httpx_mock: HTTPXMock,
    resource: str,
    method: str,
    kwargs: dict[str, Any],
    status: int,
) -> None:
    """When the last answer to an operation on a terminal is a 5xx, the outcome is unknown."""
    httpx_mock.add_response(status_code=status, is_reusable=True, json=erro("ERRO_INTERNO"))

    with pytest.raises(smartpos.OutcomeUnknownError) as info:
        await sdk.call(resource, method, **kwargs)

    referencia = assert_same_request_resent(httpx_mock.get_requests(), 3)
    assert (referencia, 3) == (info.value.referencia, info.value.attempts)
    assert type(info.value.last_error) is smartpos.ErroInternoError
    assert isinstance(info.value.last_error, smartpos.InternalServerError)
    assert status == info.value.last_error.status_code


@pytest.mark.parametrize("max_retries", [0, 1, 4])
async def test_max_retries_counts_the_retries(
    make_sdk: Callable[..., SDK], httpx_mock: HTTPXMock, max_retries: int
) -> None:
    """max_retries=N sends at most N+1 times; 0 disables retries."""
    httpx_mock.add_response(status_code=503, is_reusable=True)
    sdk = make_sdk(max_retries=max_retries)

    with pytest.raises(smartpos.InternalServerError):
        await sdk.call("qrcodes", "create", documento_cliente=CPF)

    assert max_retries + 1 == len(httpx_mock.get_requests())


@pytest.mark.parametrize(("resource", "method", "kwargs", "answer"), SAFE)
@pytest.mark.parametrize("status", [500, 502, 503, 504])
async def test_5xx_of_safe_calls_is_internal_server_error(
    sdk: SDK,
    httpx_mock: HTTPXMock,
    resource: str,
    method: str,
    kwargs: dict[str, Any],
    answer: Any,
    status: int,
) -> None:
    """For qrcodes.create and terminals.list, a 5xx after the retries is an InternalServerError."""
    httpx_mock.add_response(status_code=status, is_reusable=True)

    with pytest.raises(smartpos.InternalServerError) as info:
        await sdk.call(resource, method, **kwargs)

    assert status == info.value.status_code
    assert 3 == len(httpx_mock.get_requests())


@pytest.mark.parametrize(
    ("resource", "method", "kwargs"),
    [*STARTS_OPERATION, *[pytest.param(*p.values[:3], id=p.id) for p in SAFE]],
)
async def test_429_until_retries_run_out_is_rate_limit_error(
    sdk: SDK, httpx_mock: HTTPXMock, resource: str, method: str, kwargs: dict[str, Any]
) -> None:
    """429 is retried; when every answer is 429 the service never acted: RateLimitError."""
    httpx_mock.add_response(status_code=429, headers={"retry-after": "1"}, is_reusable=True)

    with pytest.raises(smartpos.RateLimitError):
        await sdk.call(resource, method, **kwargs)

    assert 3 == len(httpx_mock.get_requests())


@pytest.mark.parametrize(
    ("status", "codigo"),
    [
        (400, "CAMPO_INVALIDO"),
        (401, "API_KEY_INVALIDA"),
        (403, "CLIENTE_NAO_AUTORIZADO"),
        (404, "SMARTPOS_NAO_ENCONTRADO"),
        (409, "REFERENCIA_DUPLICADA"),
        (422, None),
    ],
)
async def test_other_4xx_are_never_retried(
    sdk: SDK, httpx_mock: HTTPXMock, status: int, codigo: str | None
) -> None:
    """A 4xx other than 429 is raised after one request (the first attempt of a referencia)."""
    httpx_mock.add_response(status_code=status, json=erro(codigo) if codigo else {})

    with pytest.raises(smartpos.APIError) as info:
        await sdk.call("payments", "create", referencia=REF, **PAYMENT)

    assert (status, codigo) == (info.value.status_code, info.value.codigo)
    assert 1 == len(httpx_mock.get_requests())


async def test_first_attempt_409_is_referencia_duplicada(sdk: SDK, httpx_mock: HTTPXMock) -> None:
    """A 409 REFERENCIA_DUPLICADA on the first attempt is a ReferenciaDuplicadaError."""
    httpx_mock.add_response(status_code=409, json=erro("REFERENCIA_DUPLICADA"))

    with pytest.raises(smartpos.ReferenciaDuplicadaError) as info:
        await sdk.call("payments", "create", referencia=REF, **PAYMENT)

    assert ("REFERENCIA_DUPLICADA", 409) == (info.value.codigo, info.value.status_code)


@pytest.mark.parametrize(
    "first",
    [
        pytest.param(httpx.ReadTimeout("timed out"), id="read-timeout"),
        pytest.param(httpx.RemoteProtocolError("Server disconnected"), id="dropped-connection"),
    ],
)
@pytest.mark.parametrize(("resource", "method", "kwargs"), STARTS_OPERATION)
async def test_retry_answered_409_after_a_timeout_is_unknown(
    sdk: SDK,
    httpx_mock: HTTPXMock,
    resource: str,
    method: str,
    kwargs: dict[str, Any],
    first: Exception,
) -> None:
    """First attempt times out, the retry is answered 409: OutcomeUnknownError, same referencia."""
    httpx_mock.add_exception(first)
    httpx_mock.add_response(status_code=409, json=erro("REFERENCIA_DUPLICADA"))

    with pytest.raises(smartpos.SmartPOSError) as info:
        await sdk.call(resource, method, **kwargs)

    assert type(info.value) is smartpos.OutcomeUnknownError
    referencia = assert_same_request_resent(httpx_mock.get_requests(), 2)
    assert referencia == info.value.referencia
    assert type(info.value.last_error) is smartpos.ReferenciaDuplicadaError


@pytest.mark.parametrize(
    "conflict",
    [
        pytest.param({"status_code": 409}, id="empty-body"),
        pytest.param({"status_code": 409, "content": b"<html>Conflict</html>"}, id="html"),
        pytest.param({"status_code": 409, "json": erro("OUTRO_CONFLITO")}, id="other-codigo"),
    ],
)
@pytest.mark.parametrize(("resource", "method", "kwargs"), STARTS_OPERATION)
async def test_retry_answered_any_409_after_a_timeout_is_unknown(
    sdk: SDK,
    httpx_mock: HTTPXMock,
    resource: str,
    method: str,
    kwargs: dict[str, Any],
    conflict: dict[str, Any],
) -> None:
    """A retry answered 409 without a readable REFERENCIA_DUPLICADA body is still unknown."""
    httpx_mock.add_exception(httpx.ReadTimeout("timed out"))
    httpx_mock.add_response(**conflict)

    with pytest.raises(smartpos.SmartPOSError) as info:
        await sdk.call(resource, method, **kwargs)

    assert type(info.value) is smartpos.OutcomeUnknownError
    referencia = assert_same_request_resent(httpx_mock.get_requests(), 2)
    assert referencia == info.value.referencia
    assert isinstance(info.value.last_error, smartpos.ConflictError)


@pytest.mark.parametrize(
    ("exc", "last_error"),
    [
        pytest.param(httpx.ReadTimeout("timed out"), smartpos.TimeoutError, id="ReadTimeout"),
        pytest.param(httpx.WriteTimeout("timed out"), smartpos.TimeoutError, id="WriteTimeout"),
        pytest.param(
            httpx.RemoteProtocolError("Server disconnected without sending a response."),
            smartpos.TransportError,
            id="RemoteProtocolError",
        ),
        pytest.param(httpx.ReadError("connection reset"), smartpos.TransportError, id="ReadError"),
    ],
)
@pytest.mark.parametrize(("resource", "method", "kwargs"), STARTS_OPERATION)
async def test_no_answer_after_sending_an_operation_is_unknown(
    sdk: SDK,
    httpx_mock: HTTPXMock,
    resource: str,
    method: str,
    kwargs: dict[str, Any],
    exc: Exception,
    last_error: type[Exception],
) -> None:
    """No answer after the request was sent, each attempt: OutcomeUnknownError with referencia."""
    httpx_mock.add_exception(exc, is_reusable=True)

    with pytest.raises(smartpos.OutcomeUnknownError) as info:
        await sdk.call(resource, method, **kwargs)

    referencia = assert_same_request_resent(httpx_mock.get_requests(), 3)
    assert (referencia, 3) == (info.value.referencia, info.value.attempts)
    assert type(info.value.last_error) is last_error
    assert referencia in str(info.value)


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        pytest.param(httpx.ConnectError("refused"), smartpos.TransportError, id="ConnectError"),
        pytest.param(httpx.ConnectTimeout("timed out"), smartpos.TimeoutError, id="ConnectTimeout"),
        pytest.param(httpx.PoolTimeout("timed out"), smartpos.TimeoutError, id="PoolTimeout"),
    ],
)
@pytest.mark.parametrize(("resource", "method", "kwargs"), STARTS_OPERATION)
async def test_nothing_sent_on_an_operation_is_transport_error(
    sdk: SDK,
    httpx_mock: HTTPXMock,
    resource: str,
    method: str,
    kwargs: dict[str, Any],
    exc: Exception,
    expected: type[Exception],
) -> None:
    """A connect failure on every attempt is a TransportError: the service surely got nothing."""
    httpx_mock.add_exception(exc, is_reusable=True)

    with pytest.raises(smartpos.TransportError) as info:
        await sdk.call(resource, method, **kwargs)

    assert type(info.value) is expected
    assert 3 == len(httpx_mock.get_requests())


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        pytest.param(httpx.ConnectError("refused"), smartpos.TransportError, id="ConnectError"),
        pytest.param(httpx.ReadTimeout("timed out"), smartpos.TimeoutError, id="ReadTimeout"),
        pytest.param(
            httpx.RemoteProtocolError("disconnected"),
            smartpos.TransportError,
            id="RemoteProtocolError",
        ),
    ],
)
@pytest.mark.parametrize(("resource", "method", "kwargs", "answer"), SAFE)
async def test_network_failures_of_safe_calls_are_transport_errors(
    sdk: SDK,
    httpx_mock: HTTPXMock,
    resource: str,
    method: str,
    kwargs: dict[str, Any],
    answer: Any,
    exc: Exception,
    expected: type[Exception],
) -> None:
    """For qrcodes.create and terminals.list a network failure is TransportError/TimeoutError."""
    httpx_mock.add_exception(exc, is_reusable=True)

    with pytest.raises(smartpos.TransportError) as info:
        await sdk.call(resource, method, **kwargs)

    assert type(info.value) is expected
    assert 3 == len(httpx_mock.get_requests())
    assert CPF not in str(info.value)


@pytest.mark.parametrize(("resource", "method", "kwargs", "answer"), SAFE)
async def test_safe_calls_recover_after_network_failures(
    sdk: SDK,
    httpx_mock: HTTPXMock,
    resource: str,
    method: str,
    kwargs: dict[str, Any],
    answer: Any,
) -> None:
    """A network failure then a success gives the result, after the same request twice."""
    httpx_mock.add_exception(httpx.ReadTimeout("timed out"))
    if resource == "qrcodes":
        httpx_mock.add_callback(echoing(201, answer))
    else:
        httpx_mock.add_response(status_code=200, json=answer)

    await sdk.call(resource, method, **kwargs)

    requests = httpx_mock.get_requests()
    assert 2 == len(requests)
    assert requests[0].content == requests[1].content


async def test_timeout_then_success_returns_the_acceptance(sdk: SDK, httpx_mock: HTTPXMock) -> None:
    """A payment whose first attempt timed out and whose retry was accepted returns the result."""
    httpx_mock.add_exception(httpx.ReadTimeout("timed out"))
    httpx_mock.add_response(status_code=202, json=ACCEPTANCE_JSON)

    result = await sdk.call("payments", "create", referencia=REF, **PAYMENT)

    assert (REF, 2) == (result.referencia, result.http.attempts)
    assert_same_request_resent(httpx_mock.get_requests(), 2)


async def test_unsupported_protocol_is_not_retried(
    make_sdk: Callable[..., SDK], httpx_mock: HTTPXMock
) -> None:
    """A transport error that cannot pass on a retry raises TransportError after one attempt."""
    httpx_mock.add_exception(httpx.UnsupportedProtocol("Request URL has an unsupported protocol"))

    with pytest.raises(smartpos.TransportError) as info:
        await make_sdk().call("payments", "create", **PAYMENT)

    assert type(info.value) is smartpos.TransportError
    assert 1 == len(httpx_mock.get_requests())


@pytest.mark.parametrize("status", [429, 503])
async def test_positive_backoff_waits_then_retries(
    make_sdk: Callable[..., SDK], httpx_mock: HTTPXMock, status: int
) -> None:
    """With a (tiny) positive backoff the client sleeps between attempts, then succeeds."""
    httpx_mock.add_response(status_code=status, headers={"retry-after": "0.001"})
    httpx_mock.add_response(status_code=500)
    httpx_mock.add_callback(echoing(201, QR_JSON))
    sdk = make_sdk(retry_backoff=0.001)

    qr = await sdk.call("qrcodes", "create", documento_cliente=CPF)

    assert 3 == qr.http.attempts
    assert 3 == len(httpx_mock.get_requests())
