"""The exception tree, the mapping of error answers to it, and what error messages may show."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import builtins
import logging
import pickle
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from pytest_httpx import HTTPXMock

import smartpos
from client_cases import (
    ACCEPTANCE_JSON,
    API_KEY,
    CPF,
    ENDPOINTS,
    ERROR_CODES,
    QR_JSON,
    REF,
    SDK,
    Endpoint,
)
from smartpos import _responses

HTTP_CLASSES = {
    400: smartpos.BadRequestError,
    401: smartpos.AuthenticationError,
    403: smartpos.PermissionDeniedError,
    404: smartpos.NotFoundError,
    409: smartpos.ConflictError,
    429: smartpos.RateLimitError,
    500: smartpos.InternalServerError,
    502: smartpos.InternalServerError,
    503: smartpos.InternalServerError,
    504: smartpos.InternalServerError,
}
CODES = [pytest.param(*row, id=row[1]) for row in ERROR_CODES]


def response(status: int, body: Any = None, **kwargs: Any) -> httpx.Response:
    """An error answer; a dict or list body is sent as JSON, bytes as they are."""
    if isinstance(body, (dict, list)):
        return httpx.Response(status, json=body, **kwargs)
    return httpx.Response(status, content=body or b"", **kwargs)


def erro(codigo: str, campo: str | None = None) -> dict[str, Any]:
    """An error body in the spec's shape."""
    body = {"codigo": codigo, "mensagem": f"mensagem de {codigo}", "acao": f"acao de {codigo}"}
    if campo:
        body["campo"] = campo
    return {"erro": body}


# --- the tree ------------------------------------------------------------------------------


@pytest.mark.parametrize(("status", "codigo", "name", "http_name"), CODES)
def test_one_class_per_codigo_under_its_http_class(
    status: int, codigo: str, name: str, http_name: str
) -> None:
    """Each codigo of the spec's table has its own class, under the class of its HTTP status."""
    cls = getattr(smartpos, name)
    http_cls = getattr(smartpos, http_name)

    assert codigo == cls.CODIGO
    assert http_cls is HTTP_CLASSES[status]
    assert [cls, http_cls, smartpos.APIError, smartpos.SmartPOSError] == [
        c for c in cls.__mro__ if c in (cls, http_cls, smartpos.APIError, smartpos.SmartPOSError)
    ]


@pytest.mark.parametrize(
    ("cls", "bases"),
    [
        (smartpos.ConfigurationError, (smartpos.SmartPOSError, ValueError)),
        (smartpos.ValidationError, (smartpos.SmartPOSError, ValueError)),
        (smartpos.TransportError, (smartpos.SmartPOSError,)),
        (smartpos.TimeoutError, (smartpos.TransportError, builtins.TimeoutError)),
        (smartpos.OutcomeUnknownError, (smartpos.SmartPOSError,)),
        (smartpos.ResponseError, (smartpos.SmartPOSError,)),
        (smartpos.APIError, (smartpos.SmartPOSError,)),
        (smartpos.SmartPOSError, (Exception,)),
    ],
)
def test_tree(cls: type[Exception], bases: tuple[type[Exception], ...]) -> None:
    """The exception tree of API.md, with the builtin bases callers may catch."""
    assert all(issubclass(cls, base) for base in bases)


def test_transport_and_outcome_unknown_are_apart() -> None:
    """OutcomeUnknownError is not a TransportError: catching one never swallows the other."""
    assert not issubclass(smartpos.OutcomeUnknownError, smartpos.TransportError)
    assert not issubclass(smartpos.TransportError, smartpos.OutcomeUnknownError)
    assert not issubclass(smartpos.OutcomeUnknownError, smartpos.APIError)


# --- mapping answers -----------------------------------------------------------------------


@pytest.mark.parametrize(("status", "codigo", "name", "http_name"), CODES)
def test_error_from_response_per_codigo(
    status: int, codigo: str, name: str, http_name: str
) -> None:
    """error_from_response gives the codigo's class with every field of the body."""
    answer = response(
        status, erro(codigo, campo="valorCentavos"), headers={"x-request-id": "req-9"}
    )

    error = _responses.error_from_response(answer)

    assert getattr(smartpos, name) is type(error)
    assert (status, codigo, f"mensagem de {codigo}", f"acao de {codigo}", "valorCentavos") == (
        error.status_code,
        error.codigo,
        error.mensagem,
        error.acao,
        error.campo,
    )
    assert (answer, "req-9") == (error.response, error.request_id)
    assert (
        f"HTTP {status} {codigo}: mensagem de {codigo} (campo valorCentavos). "
        f"What to do: acao de {codigo} [request id req-9]"
    ) == str(error)


@pytest.mark.asyncio
@pytest.mark.parametrize(("status", "codigo", "name", "http_name"), CODES)
async def test_clients_raise_the_codigo_class(
    make_sdk: Callable[..., SDK],
    httpx_mock: HTTPXMock,
    status: int,
    codigo: str,
    name: str,
    http_name: str,
) -> None:
    """Both clients raise the codigo's class, under its HTTP class, with every attribute set."""
    httpx_mock.add_response(
        status_code=status,
        json=erro(codigo, campo="documentoCliente"),
        headers={"x-request-id": "r1"},
    )

    with pytest.raises(smartpos.APIError) as info:
        await make_sdk(max_retries=0).call("qrcodes", "create", documento_cliente=CPF)

    error = info.value
    assert type(error) is getattr(smartpos, name)
    assert isinstance(error, getattr(smartpos, http_name))
    assert (status, codigo, f"mensagem de {codigo}", f"acao de {codigo}", "documentoCliente") == (
        error.status_code,
        error.codigo,
        error.mensagem,
        error.acao,
        error.campo,
    )
    assert error.response is not None
    assert (status, "r1") == (error.response.status_code, error.request_id)


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (400, smartpos.BadRequestError),
        (401, smartpos.AuthenticationError),
        (403, smartpos.PermissionDeniedError),
        (404, smartpos.NotFoundError),
        (409, smartpos.ConflictError),
        (429, smartpos.RateLimitError),
        (500, smartpos.InternalServerError),
        (503, smartpos.InternalServerError),
        (418, smartpos.APIError),
    ],
)
def test_unknown_codigo_gives_the_http_class(status: int, expected: type[Exception]) -> None:
    """An unknown codigo gives the class of the HTTP status, with .codigo filled in."""
    error = _responses.error_from_response(response(status, erro("CODIGO_NOVO_DO_SERVICO")))

    assert type(error) is expected
    assert ("CODIGO_NOVO_DO_SERVICO", "mensagem de CODIGO_NOVO_DO_SERVICO") == (
        error.codigo,
        error.mensagem,
    )


@pytest.mark.parametrize(
    ("status", "codigo", "expected"),
    [
        # The HTTP class wins when the codigo's class would contradict the status.
        (404, "CAMPO_INVALIDO", smartpos.NotFoundError),
        (502, "REFERENCIA_DUPLICADA", smartpos.InternalServerError),
        (400, "ERRO_INTERNO", smartpos.BadRequestError),
        # A status without its own class never takes a codigo's class either.
        (422, "ERRO_INTERNO", smartpos.APIError),
        (422, "CAMPO_INVALIDO", smartpos.APIError),
        (307, "REFERENCIA_DUPLICADA", smartpos.APIError),
        # The same family keeps the codigo's class.
        (503, "ERRO_INTERNO", smartpos.ErroInternoError),
    ],
)
def test_known_codigo_with_another_status(
    status: int, codigo: str, expected: type[Exception]
) -> None:
    """A known codigo with an unexpected status never gives a class that contradicts the status."""
    error = _responses.error_from_response(response(status, erro(codigo)))

    assert (expected, status, codigo) == (type(error), error.status_code, error.codigo)


NOT_ERRO_SHAPE = [
    pytest.param(502, b"<html><body><h1>502 Bad Gateway</h1></body></html>", id="html-502"),
    pytest.param(401, b"", id="empty-body"),
    pytest.param(400, {"error": "bad"}, id="other-json-object"),
    pytest.param(403, [1, 2], id="json-array"),
    pytest.param(404, {"erro": "SMARTPOS_NAO_ENCONTRADO"}, id="erro-not-object"),
    pytest.param(
        409, {"erro": {"codigo": 5, "mensagem": None, "acao": ["x"]}}, id="erro-wrong-types"
    ),
    pytest.param(429, b"null", id="json-null"),
    pytest.param(500, b'"ERRO_INTERNO"', id="json-string"),
    pytest.param(503, b"\xff\xfe{", id="invalid-utf8"),
    pytest.param(504, b'{"erro": {"codigo": "ERRO', id="truncated-json"),
    pytest.param(500, b"[" * 100_000, id="deeply-nested-json"),
]


@pytest.mark.parametrize(("status", "body"), NOT_ERRO_SHAPE)
def test_body_without_erro_shape_gives_the_http_class(status: int, body: Any) -> None:
    """An HTML page, an empty body or JSON of another shape still gives the HTTP class."""
    error = _responses.error_from_response(response(status, body))

    assert type(error) is HTTP_CLASSES[status]
    assert (status, None, None, None, None) == (
        error.status_code,
        error.codigo,
        error.mensagem,
        error.acao,
        error.campo,
    )


@pytest.mark.asyncio
@pytest.mark.parametrize(("status", "body"), NOT_ERRO_SHAPE)
async def test_clients_map_bodies_without_erro_shape(
    make_sdk: Callable[..., SDK], httpx_mock: HTTPXMock, status: int, body: Any
) -> None:
    """Both clients raise the HTTP class for answers without the erro shape."""
    if isinstance(body, (dict, list)):
        httpx_mock.add_response(status_code=status, json=body)
    else:
        httpx_mock.add_response(status_code=status, content=body)

    with pytest.raises(smartpos.APIError) as info:
        await make_sdk(max_retries=0).call("terminals", "list", documento_cliente=CPF)

    assert (HTTP_CLASSES[status], status) == (type(info.value), info.value.status_code)


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (500, "HTTP 500: the service failed; try again later"),
        (503, "HTTP 503: the service failed; try again later"),
        (429, "HTTP 429: too many requests; slow down and try again later"),
        (400, "HTTP 400: the service refused the request"),
    ],
)
def test_default_messages(status: int, message: str) -> None:
    """An error without a body still says what happened."""
    assert message == str(_responses.error_from_response(response(status)))


def test_api_error_pickles() -> None:
    """An APIError survives pickling (multiprocessing, task queues) with its fields."""
    error = _responses.error_from_response(
        response(
            409, erro("REFERENCIA_DUPLICADA", campo="referencia"), headers={"x-request-id": "r"}
        )
    )

    copy = pickle.loads(pickle.dumps(error))

    assert type(error) is type(copy)
    assert (
        error.status_code,
        error.codigo,
        error.mensagem,
        error.acao,
        error.campo,
        error.request_id,
    ) == (
        copy.status_code,
        copy.codigo,
        copy.mensagem,
        copy.acao,
        copy.campo,
        copy.request_id,
    )
    assert str(error) == str(copy)


def test_validation_error_fields() -> None:
    """ValidationError carries codigo, campo and mensagem, and says them in its message."""
    error = smartpos.ValidationError("VALOR_INVALIDO", "must be positive", campo="valorCentavos")

    assert ("VALOR_INVALIDO", "valorCentavos", "must be positive") == (
        error.codigo,
        error.campo,
        error.mensagem,
    )
    assert "VALOR_INVALIDO (campo valorCentavos): must be positive" == str(error)
    assert "CAMPO_INVALIDO: x" == str(smartpos.ValidationError("CAMPO_INVALIDO", "x"))


def test_outcome_unknown_error_message() -> None:
    """OutcomeUnknownError names referencia, attempts and last error, and says what to do."""
    last = smartpos.TimeoutError("POST /v1/payments failed after 3 attempt(s): ReadTimeout: t")

    error = smartpos.OutcomeUnknownError("ref-1", last, attempts=3)

    assert ("ref-1", last, 3) == (error.referencia, error.last_error, error.attempts)
    assert str(error).startswith(
        "the outcome of referencia ref-1 is unknown after 3 attempt(s) (last error: TimeoutError: "
        "POST /v1/payments failed"
    )
    assert "do not retry with a new referencia" in str(error)
    assert "(last error: ValueError)" in str(
        smartpos.OutcomeUnknownError("r", ValueError(), attempts=1)
    )


# --- 2xx bodies the SDK cannot read --------------------------------------------------------

UNREADABLE = [
    pytest.param(b"<html>ok</html>", id="html"),
    pytest.param(b"", id="empty"),
    pytest.param(b"\xff\xfe", id="invalid-utf8"),
    pytest.param(b"[" * 100_000, id="deeply-nested"),
    pytest.param(b"null", id="null"),
    pytest.param(b'"ok"', id="string"),
    pytest.param(b"[1, 2]", id="array-of-numbers"),
    pytest.param(b"{}", id="empty-object"),
    pytest.param(b'{"a": [], "b": []}', id="two-lists"),
    pytest.param(
        b'{"referencia": 1, "status": [], "mensagem": {}, "targets": 7, "qrCode": 1}',
        id="wrong-types",
    ),
    pytest.param(
        b'{"referencia": "r", "status": "s", "mensagem": "m", "targets": [{"smartposId": 1}]}',
        id="bad-target",
    ),
    pytest.param(
        b'{"qrCode": "q", "referencia": "r", "expiresAt": "tomorrow"}', id="bad-expiresAt"
    ),
    pytest.param(b'{"qrCode": "q", "referencia": "r", "expiresAt": 1e300}', id="huge-expiresAt"),
    pytest.param(b'{"qrCode": "q", "referencia": "r", "expiresAt": NaN}', id="nan-expiresAt"),
]


def _readable_by(endpoint: Endpoint, body: bytes) -> bool:
    """A few bodies are fine for the tolerant endpoints (the refund answer and the terminal
    listing are not specified by the service)."""
    if endpoint.resource == "refunds":
        return body == b"" or body.startswith(b"{")
    if endpoint.resource == "terminals":
        return body.startswith(b'{"referencia"')
    return False


UNREADABLE_CASES = [
    pytest.param(endpoint, body.values[0], id=f"{endpoint.id}-{body.id}")
    for endpoint in ENDPOINTS
    if endpoint.id
    in (
        "qrcodes.create",
        "payments.create-imediato-minimal",
        "refunds.create",
        "print_jobs.create-str",
        "terminals.list",
    )
    for body in UNREADABLE
    if not _readable_by(endpoint, body.values[0])
]


@pytest.mark.asyncio
@pytest.mark.parametrize(("endpoint", "body"), UNREADABLE_CASES)
async def test_unreadable_2xx_is_response_error(
    sdk: SDK, httpx_mock: HTTPXMock, endpoint: Endpoint, body: bytes
) -> None:
    """A 2xx body that is not JSON or of another shape is a ResponseError, never a KeyError.

    For an operation on a terminal the 2xx means the service took it, so the ResponseError
    comes as the ``last_error`` of an OutcomeUnknownError: never an invitation to charge again.
    """
    httpx_mock.add_response(status_code=endpoint.status, content=body)

    with pytest.raises(smartpos.SmartPOSError) as info:
        await sdk.call(endpoint.resource, endpoint.method, **endpoint.kwargs)

    error: Any = info.value
    if endpoint.resource in ("terminals", "qrcodes"):
        assert type(error) is smartpos.ResponseError
    else:
        assert type(error) is smartpos.OutcomeUnknownError
        assert endpoint.kwargs["referencia"] == error.referencia
        assert CPF not in str(error)
        error = error.last_error
        assert type(error) is smartpos.ResponseError
        assert endpoint.kwargs["referencia"] == error.referencia
    assert (endpoint.status, endpoint.status) == (
        error.status_code,
        error.response.status_code if error.response else None,
    )
    assert f"{endpoint.http_method} " in str(error)
    assert CPF not in str(error)


# --- the API key never shows ---------------------------------------------------------------

FAILURES: list[Any] = [
    pytest.param(
        lambda m: m.add_response(status_code=401, json=erro("API_KEY_INVALIDA")), id="401"
    ),
    pytest.param(
        lambda m: m.add_response(status_code=400, json=erro("CAMPO_INVALIDO", "x")), id="400"
    ),
    pytest.param(lambda m: m.add_response(status_code=503, is_reusable=True), id="503-exhausted"),
    pytest.param(lambda m: m.add_response(status_code=202, content=b"<html>"), id="unreadable-2xx"),
    pytest.param(
        lambda m: m.add_exception(httpx.ConnectError("refused"), is_reusable=True), id="connect"
    ),
    pytest.param(
        lambda m: m.add_exception(httpx.ReadTimeout("timed out"), is_reusable=True),
        id="read-timeout",
    ),
    pytest.param(
        lambda m: m.add_exception(httpx.RemoteProtocolError("disconnected"), is_reusable=True),
        id="dropped",
    ),
]


@pytest.mark.asyncio
@pytest.mark.parametrize("resource", ["payments", "qrcodes"])
@pytest.mark.parametrize("script", FAILURES)
async def test_api_key_never_in_errors_or_logs(
    sdk: SDK,
    httpx_mock: HTTPXMock,
    caplog: pytest.LogCaptureFixture,
    script: Callable[[HTTPXMock], None],
    resource: str,
) -> None:
    """No exception message, repr (causes included) or log line of any logger shows the key."""
    script(httpx_mock)
    caplog.set_level(logging.DEBUG)
    kwargs: dict[str, Any] = {"documento_cliente": CPF}
    if resource == "payments":
        kwargs.update(valor_centavos=1590, smartpos_id="SP-1")

    with pytest.raises(smartpos.SmartPOSError) as info:
        await sdk.call(resource, "create", **kwargs)

    chain: list[BaseException] = []
    error: BaseException | None = info.value
    while error is not None and len(chain) < 10:
        chain.append(error)
        error = error.__cause__ or getattr(error, "last_error", None)
    for exc in chain:
        assert API_KEY not in str(exc)
        assert API_KEY not in repr(exc)
    assert caplog.records, "the failure was logged"
    assert API_KEY not in caplog.text
    assert all(API_KEY not in str(record.args) for record in caplog.records)


@pytest.mark.parametrize(
    "error",
    [
        pytest.param(
            smartpos.ValidationError("VALOR_INVALIDO", "m", campo="valorCentavos"), id="validation"
        ),
        pytest.param(
            smartpos.OutcomeUnknownError(REF, smartpos.TimeoutError("t"), attempts=3), id="unknown"
        ),
        pytest.param(smartpos.ResponseError("unreadable", referencia=REF), id="response"),
    ],
)
def test_errors_with_own_arguments_pickle(error: Any) -> None:
    """Errors built from their own arguments survive pickling (worker processes, task queues)."""
    copy = pickle.loads(pickle.dumps(error))

    assert type(error) is type(copy)
    assert str(error) == str(copy)
    fields = ("codigo", "mensagem", "campo", "referencia", "attempts")
    assert [getattr(error, f, None) for f in fields] == [getattr(copy, f, None) for f in fields]
    assert type(getattr(error, "last_error", None)) is type(getattr(copy, "last_error", None))


def test_response_error_without_response() -> None:
    """A ResponseError built without a response has no status code."""
    error = smartpos.ResponseError("unreadable")

    assert (None, None, None) == (error.response, error.status_code, error.referencia)


def test_acceptance_answer_is_readable() -> None:
    """Sanity check of the fixtures above: the golden acceptance is readable by the core."""
    assert {"referencia", "status", "mensagem", "targets", "smartposId"} == set(ACCEPTANCE_JSON)
    assert {"qrCode", "referencia", "expiresAt"} == set(QR_JSON)
