"""Data shared by the core client's tests: golden requests per endpoint and the validation table.

Golden bodies are written by hand from ``shared/service-spec.md`` (camelCase keys, exact
values), never produced by the SDK's own converter, so that a wrong wire name cannot be
mirrored on both sides. The client suites (each test run with ``Client`` and ``AsyncClient``
through ``SDK``) and the pure ``_core`` tests all read the same tables.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import inspect
import json
import warnings
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import attrs
import httpx
import pytest

from smartpos import (
    AsyncClient,
    Client,
    Comanda,
    Comprovante,
    FormaPagamento,
    ItemComanda,
    ModoExecucao,
    PagamentoOriginal,
    Parcelamento,
    SyncClientInEventLoopWarning,
)

__all__ = [
    "ACCEPTANCE_JSON",
    "API_KEY",
    "BASE_URL",
    "CNPJ",
    "CNPJ_ALNUM",
    "CPF",
    "ENDPOINTS",
    "ERROR_CODES",
    "INVALID",
    "ORIGINAL",
    "QR_EXPIRES_AT",
    "QR_JSON",
    "REF",
    "REFUND_REF",
    "SDK",
    "STARTS_OPERATION",
    "Endpoint",
    "Invalid",
    "approved_event_json",
    "assert_no_nulls",
    "echoing",
    "in_the_tests_loop",
    "invoke",
    "notes_of",
]

#: A key that must never appear in any message, repr or log line.
API_KEY = "sk_live_DO-NOT-LEAK-7c1f0e9a"
#: A base URL with a path, to prove endpoint paths are appended to it.
BASE_URL = "https://api.smartpos.test/base"
#: Valid documents: CPF (masked as in the brief), numeric CNPJ, alphanumeric CNPJ (official
#: example of the Receita Federal).
CPF = "12345678909"
CNPJ = "11222333000181"
CNPJ_ALNUM = "12ABC34501DE35"
REF = "3f1c2b7e-9a4d-4c8e-b1f2-6d7e8f9a0b1c"
#: A refund's own referencia: its first 10 characters differ from the payment's (REF).
REFUND_REF = "7d2e9c41-5b8a-4f3e-a6d1-2c9b8e7f6a5d"

ACCEPTANCE_JSON: dict[str, Any] = {
    "referencia": REF,
    "status": "processando",
    "mensagem": "Pagamento enviado ao terminal",
    "smartposId": "SP-1",
    "targets": [{"smartposId": "SP-1", "status": "enviado"}],
}
QR_EXPIRES_AT = dt.datetime(2026, 8, 1, 15, 30, tzinfo=dt.timezone.utc)
QR_JSON: dict[str, Any] = {
    "qrCode": "SMARTPOS:QR:0f9e8d7c",
    "referencia": REF,
    "expiresAt": 1785598200,  # QR_EXPIRES_AT as a Unix timestamp
}
REFUND_JSON: dict[str, Any] = {
    "referencia": REF,
    "status": "processando",
    "mensagem": "Estorno enviado ao terminal",
}
TERMINALS_JSON: list[dict[str, Any]] = [{"smartposId": "SP-1", "modelo": "P2"}]
ORIGINAL = PagamentoOriginal(
    codigo_autorizacao="AUT123",
    numero_transacao="NSU456",
    dados_finalizacao="FIN-789-secret",
    tipo_pagamento="credito",
)


@attrs.frozen
class Endpoint:
    """One golden call: the arguments given and the exact request expected on the wire."""

    id: str
    resource: str
    method: str
    kwargs: Mapping[str, Any]
    http_method: str
    path: str
    body: Mapping[str, Any] | None
    status: int
    answer: Any

    @property
    def param(self) -> Any:
        return pytest.param(self, id=self.id)


def invoke(client: Any, resource: str, method: str, kwargs: Mapping[str, Any]) -> Any:
    """Call ``client.<resource>.<method>(**kwargs)``; a coroutine for the async client."""
    return getattr(getattr(client, resource), method)(**kwargs)


@contextlib.contextmanager
def in_the_tests_loop() -> Iterator[None]:
    """Let a sync client run inside a test's event loop without SyncClientInEventLoopWarning.

    One test body drives both flavours from an async test on purpose; a user's code that does
    the same gets the warning (tests/test_clients.py checks it).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyncClientInEventLoopWarning)
        yield


@attrs.frozen
class SDK:
    """Either client behind one awaitable call, so one test body checks both flavours.

    ``async with SDK(client)`` enters and exits the client's own context manager (``with``
    for ``Client``, ``async with`` for ``AsyncClient``).
    """

    client: Client | AsyncClient

    @property
    def flavour(self) -> str:
        return "async" if isinstance(self.client, AsyncClient) else "sync"

    async def call(self, resource: str, method: str, /, *args: Any, **kwargs: Any) -> Any:
        """Run ``client.<resource>.<method>(*args, **kwargs)``, awaited for the async client.

        The sync client runs inside this test's event loop on purpose (one body for both
        flavours): its SyncClientInEventLoopWarning is expected here, and only here.
        """
        with in_the_tests_loop():
            result = getattr(getattr(self.client, resource), method)(*args, **kwargs)
        if inspect.isawaitable(result):
            result = await result
        return result

    async def close(self) -> None:
        if isinstance(self.client, AsyncClient):
            await self.client.close()
        else:
            self.client.close()

    async def __aenter__(self) -> SDK:
        if isinstance(self.client, AsyncClient):
            await self.client.__aenter__()
        else:
            self.client.__enter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        if isinstance(self.client, AsyncClient):
            await self.client.__aexit__(*exc_info)
        else:
            self.client.__exit__(*exc_info)


ENDPOINTS = [
    Endpoint(
        "qrcodes.create",
        "qrcodes",
        "create",
        {"documento_cliente": "123.456.789-09", "referencia": REF},
        "POST",
        "/qrcode",
        {"referencia": REF, "documentoCliente": CPF},
        201,
        QR_JSON,
    ),
    Endpoint(
        "payments.create-imediato-minimal",
        "payments",
        "create",
        {
            "documento_cliente": CPF,
            "valor_centavos": 1590,
            "smartpos_id": "SP-1",
            "referencia": REF,
        },
        "POST",
        "/v1/payments",
        {
            "referencia": REF,
            "documentoCliente": CPF,
            "valorCentavos": 1590,
            "modoExecucao": "imediato",
            "smartposId": "SP-1",
        },
        202,
        ACCEPTANCE_JSON,
    ),
    Endpoint(
        "payments.create-credito-installments-receipt",
        "payments",
        "create",
        {
            "documento_cliente": "11.222.333/0001-81",
            "valor_centavos": 120000,
            "smartpos_id": "SP-1",
            "referencia": REF + "-pedido.42",
            "forma_pagamento": FormaPagamento.CREDITO,
            "parcelas": 3,
            "parcelamento": "administradora",
            "modo_execucao": ModoExecucao.IMEDIATO,
            "comprovante": Comprovante(
                imprimir_cliente=True, imprimir_loja=False, visualizar_cliente=True
            ),
        },
        "POST",
        "/v1/payments",
        {
            "referencia": REF + "-pedido.42",
            "documentoCliente": CNPJ,
            "valorCentavos": 120000,
            "modoExecucao": "imediato",
            "smartposId": "SP-1",
            "formaPagamento": "credito",
            "parcelas": 3,
            "parcelamento": "administradora",
            "comprovante": {
                "imprimir": {"cliente": True, "loja": False},
                "visualizar": {"cliente": True},
            },
        },
        202,
        {**ACCEPTANCE_JSON, "referencia": REF + "-pedido.42"},
    ),
    Endpoint(
        "payments.create-manual-comanda",
        "payments",
        "create",
        {
            "documento_cliente": CPF,
            "valor_centavos": 4500,
            "referencia": REF,
            "forma_pagamento": "pix",
            "parcelas": 1,
            "modo_execucao": "manual",
            "comanda": Comanda(
                "Mesa 7",
                itens=[ItemComanda(titulo="Pizza", descricao="Grande"), ItemComanda(titulo="Suco")],
                endereco="Salão 2",
            ),
        },
        "POST",
        "/v1/payments",
        {
            "referencia": REF,
            "documentoCliente": CPF,
            "valorCentavos": 4500,
            "modoExecucao": "manual",
            "formaPagamento": "pix",
            "parcelas": 1,
            "comanda": {
                "identificacao": "Mesa 7",
                "itens": [{"titulo": "Pizza", "descricao": "Grande"}, {"titulo": "Suco"}],
                "endereco": "Salão 2",
            },
        },
        202,
        {**ACCEPTANCE_JSON, "targets": [], "smartposId": None},
    ),
    Endpoint(
        "refunds.create",
        "refunds",
        "create",
        {
            "documento_cliente": "12.abc.345/01de-35",
            "smartpos_id": "SP-1",
            "valor_centavos": 500,
            "pagamento_original": ORIGINAL,
            "referencia": REF,
        },
        "POST",
        "/v1/refunds",
        {
            "referencia": REF,
            "documentoCliente": CNPJ_ALNUM,
            "smartposId": "SP-1",
            "valorCentavos": 500,
            "pagamentoOriginal": {
                "codigoAutorizacao": "AUT123",
                "numeroTransacao": "NSU456",
                "dadosFinalizacao": "FIN-789-secret",
                "tipoPagamento": "credito",
            },
        },
        200,
        REFUND_JSON,
    ),
    Endpoint(
        "print_jobs.create-str",
        "print_jobs",
        "create",
        {
            "documento_cliente": CPF,
            "smartpos_id": "SP-1",
            "conteudo": "Olá, mundo!\n",
            "referencia": REF,
        },
        "POST",
        "/v1/print-jobs",
        {
            "referencia": REF,
            "documentoCliente": CPF,
            "smartposId": "SP-1",
            # base64("Olá, mundo!\n".encode("utf-8"))
            "conteudo": {"tipo": "base64", "base64": "T2zDoSwgbXVuZG8hCg=="},
        },
        202,
        ACCEPTANCE_JSON,
    ),
    Endpoint(
        "print_jobs.create-bytes",
        "print_jobs",
        "create",
        {
            "documento_cliente": CPF,
            "smartpos_id": "SP-1",
            "conteudo": b"\x1b@\x00\xff",
            "referencia": REF,
        },
        "POST",
        "/v1/print-jobs",
        {
            "referencia": REF,
            "documentoCliente": CPF,
            "smartposId": "SP-1",
            "conteudo": {"tipo": "base64", "base64": "G0AA/w=="},  # base64(b"\x1b@\x00\xff")
        },
        202,
        ACCEPTANCE_JSON,
    ),
    Endpoint(
        "terminals.list",
        "terminals",
        "list",
        {"documento_cliente": "123.456.789-09"},
        "GET",
        f"/v1/customers/{CPF}/smartpos",
        None,
        200,
        TERMINALS_JSON,
    ),
]

#: (resource, method, valid kwargs without referencia) of the operations that start something
#: on a terminal: money safety applies to them.
STARTS_OPERATION = [
    pytest.param(
        "payments",
        "create",
        {"documento_cliente": CPF, "valor_centavos": 1590, "smartpos_id": "SP-1"},
        id="payments.create",
    ),
    pytest.param(
        "refunds",
        "create",
        {
            "documento_cliente": CPF,
            "smartpos_id": "SP-1",
            "valor_centavos": 500,
            "pagamento_original": ORIGINAL,
        },
        id="refunds.create",
    ),
    pytest.param(
        "print_jobs",
        "create",
        {"documento_cliente": CPF, "smartpos_id": "SP-1", "conteudo": "Olá"},
        id="print_jobs.create",
    ),
]


def echoing(status: int, body: Mapping[str, Any]) -> Callable[[httpx.Request], httpx.Response]:
    """A pytest-httpx callback answering ``body`` with the request's own referencia.

    The service echoes the referencia it was sent, and the SDK checks it: an answer about
    another referencia is an unknown outcome. Use this where the SDK generates the referencia.
    """

    def answer(request: httpx.Request) -> httpx.Response:
        sent = json.loads(request.content)["referencia"]
        return httpx.Response(status, json={**body, "referencia": sent})

    return answer


def assert_no_nulls(value: Any, path: str = "$") -> None:
    """Fail if any value of a parsed JSON document is ``null``."""
    assert value is not None, f"null sent at {path}"
    if isinstance(value, dict):
        for key, item in value.items():
            assert_no_nulls(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            assert_no_nulls(item, f"{path}[{index}]")


def approved_event_json(**dados: Any) -> dict[str, Any]:
    """A ``pagamento.aprovado`` delivery body; ``dados`` keys override (``None`` removes)."""
    base: dict[str, Any] = {
        "referencia": REF,
        "documentoCliente": CPF,
        "status": "aprovado",
        "valorCentavos": 1590,
        "formaPagamento": "credito",
        "smartposId": "SP-1",
        "autorizacao": {
            "codigo": "AUT123",
            "numeroTransacao": "NSU456",
            "dadosFinalizacao": "FIN-789-secret",
            "tipoPagamento": "credito",
        },
    }
    for key, value in dados.items():
        if value is None:
            base.pop(key, None)
        else:
            base[key] = value
    return {
        "id": "evt_0001",
        "tipo": "pagamento.aprovado",
        "criadoEm": "2026-07-01T12:00:00Z",
        "dados": base,
    }


# --- the validation table ------------------------------------------------------------------


@attrs.frozen
class Invalid:
    """Arguments the SDK must refuse before sending, and the exact error it must raise."""

    resource: str
    method: str
    kwargs: Mapping[str, Any]
    codigo: str
    campo: str


_BASE: dict[tuple[str, str], dict[str, Any]] = {
    ("qrcodes", "create"): {"documento_cliente": CPF},
    ("payments", "create"): {
        "documento_cliente": CPF,
        "valor_centavos": 1590,
        "smartpos_id": "SP-1",
    },
    ("refunds", "create"): {
        "documento_cliente": CPF,
        "smartpos_id": "SP-1",
        "valor_centavos": 500,
        "pagamento_original": ORIGINAL,
    },
    ("print_jobs", "create"): {"documento_cliente": CPF, "smartpos_id": "SP-1", "conteudo": "x"},
    ("terminals", "list"): {"documento_cliente": CPF},
}

_ALL = list(_BASE)
_STARTS = [("payments", "create"), ("refunds", "create"), ("print_jobs", "create")]
_WITH_REFERENCIA = [*_STARTS, ("qrcodes", "create")]


def _case(target: tuple[str, str], id_: str, codigo: str, campo: str, **over: Any) -> Any:
    kwargs = {**_BASE[target], **over}
    kwargs = {k: v for k, v in kwargs.items() if v is not _DROP}
    return pytest.param(
        Invalid(target[0], target[1], kwargs, codigo, campo), id=f"{target[0]}-{id_}"
    )


_DROP = object()
PAY = ("payments", "create")
OBRIG = "CAMPO_OBRIGATORIO"
INVAL = "CAMPO_INVALIDO"
DOC = "DOCUMENTO_CLIENTE_INVALIDO"
VALOR = "VALOR_INVALIDO"
FORMA = "FORMA_PAGAMENTO_INVALIDA"

BAD_DOCUMENTS = [
    pytest.param("111.111.111-11", id="cpf-repeated-digits"),
    pytest.param("00000000000", id="cpf-zeros"),
    pytest.param("123.456.789-00", id="cpf-wrong-check-digits"),
    pytest.param("123.456.789-08", id="cpf-wrong-second-check-digit"),
    pytest.param("11.111.111/1111-11", id="cnpj-repeated-digits"),
    pytest.param("11.222.333/0001-82", id="cnpj-wrong-check-digit"),
    pytest.param("12.ABC.345/01DE-36", id="cnpj-alnum-wrong-check-digit"),
    pytest.param("12ABC34501DEA5", id="cnpj-letter-in-check-digits"),
    pytest.param("12ÀBC34501DE35", id="cnpj-non-ascii-letter"),
    pytest.param("١٢٣٤٥٦٧٨٩٠٩", id="cpf-arabic-indic-digits"),
    pytest.param("１２３．４５６．７８９－０９", id="cpf-fullwidth-digits"),
    pytest.param("1234567890", id="ten-digits"),
    pytest.param("123456789091", id="twelve-digits"),
    pytest.param("123_456_789_09", id="unknown-mask-character"),
    pytest.param("123.456.789-09\n", id="trailing-newline"),
]

INVALID = [
    # required fields
    *[_case(t, "documento-none", OBRIG, "documentoCliente", documento_cliente=None) for t in _ALL],
    *[_case(t, "documento-empty", OBRIG, "documentoCliente", documento_cliente="") for t in _ALL],
    *[
        _case(t, "documento-blank", OBRIG, "documentoCliente", documento_cliente="   ")
        for t in _ALL
    ],
    *[
        _case(t, "documento-int", INVAL, "documentoCliente", documento_cliente=12345678909)
        for t in _ALL
    ],
    _case(PAY, "valor-none", OBRIG, "valorCentavos", valor_centavos=None),
    _case(PAY, "modo-none", OBRIG, "modoExecucao", modo_execucao=None),
    _case(PAY, "modo-empty", OBRIG, "modoExecucao", modo_execucao=""),
    _case(("refunds", "create"), "smartpos-none", OBRIG, "smartposId", smartpos_id=None),
    _case(("refunds", "create"), "smartpos-blank", OBRIG, "smartposId", smartpos_id=" "),
    _case(("refunds", "create"), "valor-none", OBRIG, "valorCentavos", valor_centavos=None),
    _case(
        ("refunds", "create"), "original-none", OBRIG, "pagamentoOriginal", pagamento_original=None
    ),
    _case(
        ("refunds", "create"),
        "original-dict",
        INVAL,
        "pagamentoOriginal",
        pagamento_original={"codigoAutorizacao": "AUT123"},
    ),
    *[
        _case(
            ("refunds", "create"),
            f"original-{name}-empty",
            OBRIG,
            f"pagamentoOriginal.{wire}",
            pagamento_original=attrs.evolve(ORIGINAL, **{name: ""}),
        )
        for name, wire in [
            ("codigo_autorizacao", "codigoAutorizacao"),
            ("numero_transacao", "numeroTransacao"),
            ("dados_finalizacao", "dadosFinalizacao"),
            ("tipo_pagamento", "tipoPagamento"),
        ]
    ],
    _case(("print_jobs", "create"), "smartpos-none", OBRIG, "smartposId", smartpos_id=None),
    _case(("print_jobs", "create"), "smartpos-int", INVAL, "smartposId", smartpos_id=7),
    _case(("print_jobs", "create"), "conteudo-none", OBRIG, "conteudo.base64", conteudo=None),
    _case(("print_jobs", "create"), "conteudo-empty-str", OBRIG, "conteudo.base64", conteudo=""),
    _case(("print_jobs", "create"), "conteudo-empty-bytes", OBRIG, "conteudo.base64", conteudo=b""),
    _case(("print_jobs", "create"), "conteudo-list", INVAL, "conteudo.base64", conteudo=["x"]),
    _case(("print_jobs", "create"), "conteudo-int", INVAL, "conteudo.base64", conteudo=42),
    # valor_centavos and parcelas: positive ints only
    *[
        _case(target, f"valor-{label}", VALOR, "valorCentavos", valor_centavos=value)
        for target in [PAY, ("refunds", "create")]
        for label, value in [
            ("true", True),
            ("false", False),
            ("float", 15.9),
            ("integral-float", 1590.0),
            ("numeric-str", "1590"),
            ("zero", 0),
            ("negative", -100),
        ]
    ],
    *[
        _case(PAY, f"parcelas-{label}", VALOR, "parcelas", parcelas=value)
        for label, value in [
            ("true", True),
            ("float", 2.0),
            ("numeric-str", "2"),
            ("zero", 0),
            ("negative", -3),
        ]
    ],
    # formaPagamento / parcelas / parcelamento
    _case(PAY, "forma-unknown", FORMA, "formaPagamento", forma_pagamento="dinheiro"),
    _case(PAY, "forma-wrong-case", FORMA, "formaPagamento", forma_pagamento="CREDITO"),
    _case(PAY, "forma-int", FORMA, "formaPagamento", forma_pagamento=1),
    _case(
        PAY,
        "parcelamento-unknown",
        FORMA,
        "parcelamento",
        forma_pagamento="credito",
        parcelas=2,
        parcelamento="loja",
    ),
    _case(
        PAY,
        "credito-installments-without-parcelamento",
        FORMA,
        "parcelamento",
        forma_pagamento=FormaPagamento.CREDITO,
        parcelas=3,
    ),
    *[
        _case(PAY, f"{forma}-installments", FORMA, "parcelas", forma_pagamento=forma, parcelas=2)
        for forma in ["debito", "pix", "voucher"]
    ],
    _case(
        PAY,
        "debito-installments-member",
        FORMA,
        "parcelas",
        forma_pagamento=FormaPagamento.DEBITO,
        parcelas=6,
        parcelamento=Parcelamento.ESTABELECIMENTO,
    ),
    # modoExecucao
    _case(PAY, "modo-unknown", INVAL, "modoExecucao", modo_execucao="agora"),
    _case(PAY, "modo-wrong-case", INVAL, "modoExecucao", modo_execucao="IMEDIATO"),
    _case(
        PAY,
        "imediato-without-smartpos",
        "SMARTPOS_OBRIGATORIO_MODO_IMEDIATO",
        "smartposId",
        smartpos_id=_DROP,
    ),
    _case(
        PAY,
        "imediato-smartpos-empty",
        "SMARTPOS_OBRIGATORIO_MODO_IMEDIATO",
        "smartposId",
        smartpos_id="",
    ),
    _case(
        PAY,
        "imediato-smartpos-blank",
        "SMARTPOS_OBRIGATORIO_MODO_IMEDIATO",
        "smartposId",
        smartpos_id="  ",
    ),
    _case(PAY, "smartpos-int", INVAL, "smartposId", smartpos_id=1),
    _case(
        PAY,
        "manual-without-comanda",
        "COMANDA_OBRIGATORIA_MODO_MANUAL",
        "comanda",
        modo_execucao="manual",
        smartpos_id=_DROP,
    ),
    _case(
        PAY,
        "manual-comanda-empty-identificacao",
        "COMANDA_OBRIGATORIA_MODO_MANUAL",
        "comanda.identificacao",
        modo_execucao=ModoExecucao.MANUAL,
        comanda=Comanda(""),
    ),
    _case(
        PAY,
        "manual-comanda-blank-identificacao",
        "COMANDA_OBRIGATORIA_MODO_MANUAL",
        "comanda.identificacao",
        modo_execucao="manual",
        comanda=Comanda("   "),
    ),
    _case(
        PAY,
        "imediato-comanda-empty-identificacao",
        OBRIG,
        "comanda.identificacao",
        comanda=Comanda(""),
    ),
    _case(PAY, "comanda-dict", INVAL, "comanda", comanda={"identificacao": "Mesa 7"}),
    _case(
        PAY, "comprovante-dict", INVAL, "comprovante", comprovante={"imprimir": {"cliente": True}}
    ),
    # documents
    *[
        _case(t, f"documento-{p.id}", DOC, "documentoCliente", documento_cliente=p.values[0])
        for t in _ALL
        for p in BAD_DOCUMENTS
    ],
    # referencia (spec 2.6)
    *[
        _case(t, f"referencia-{label}", codigo, "referencia", referencia=value)
        for t in _WITH_REFERENCIA
        for label, codigo, value in [
            ("empty", OBRIG, ""),
            ("blank", OBRIG, "   "),
            ("int", INVAL, 42),
            ("order-number", INVAL, "PEDIDO-000042"),
            ("prefix-before-uuid", INVAL, "PED-" + REF),
            ("one-char-prefix", INVAL, "x" + REF),
            ("uuid-without-dashes", INVAL, REF.replace("-", "")),
            ("truncated-uuid", INVAL, REF[:35]),
            ("suffix-without-dash", INVAL, REF + "abc"),
            ("suffix-with-space", INVAL, REF + "-pedido 42"),
            ("uuid-with-braces", INVAL, "{" + REF + "}"),
        ]
    ],
]
"""Every local validation rule of issue 2 item 3, with the exact ``codigo`` and ``campo``."""

#: The spec's error table: (HTTP status, codigo, class name, HTTP class name).
ERROR_CODES = [
    (400, "CAMPO_OBRIGATORIO", "CampoObrigatorioError", "BadRequestError"),
    (400, "CAMPO_INVALIDO", "CampoInvalidoError", "BadRequestError"),
    (400, "DOCUMENTO_CLIENTE_INVALIDO", "DocumentoClienteInvalidoError", "BadRequestError"),
    (400, "VALOR_INVALIDO", "ValorInvalidoError", "BadRequestError"),
    (400, "FORMA_PAGAMENTO_INVALIDA", "FormaPagamentoInvalidaError", "BadRequestError"),
    (
        400,
        "SMARTPOS_OBRIGATORIO_MODO_IMEDIATO",
        "SmartposObrigatorioModoImediatoError",
        "BadRequestError",
    ),
    (
        400,
        "COMANDA_OBRIGATORIA_MODO_MANUAL",
        "ComandaObrigatoriaModoManualError",
        "BadRequestError",
    ),
    (400, "WEBHOOK_NAO_CONFIGURADO", "WebhookNaoConfiguradoError", "BadRequestError"),
    (401, "API_KEY_NAO_INFORMADA", "ApiKeyNaoInformadaError", "AuthenticationError"),
    (401, "API_KEY_INVALIDA", "ApiKeyInvalidaError", "AuthenticationError"),
    (403, "CLIENTE_NAO_AUTORIZADO", "ClienteNaoAutorizadoError", "PermissionDeniedError"),
    (404, "SMARTPOS_NAO_ENCONTRADO", "SmartposNaoEncontradoError", "NotFoundError"),
    (409, "REFERENCIA_DUPLICADA", "ReferenciaDuplicadaError", "ConflictError"),
    (500, "ERRO_INTERNO", "ErroInternoError", "InternalServerError"),
]


def notes_of(exc: BaseException | None) -> list[str]:
    """Every note on ``exc`` and on the exceptions it was raised from (``__cause__``, else
    ``__context__``): on Python 3.10 ``asyncio.wait_for`` re-raises a new CancelledError whose
    context is the one the SDK annotated."""
    notes: list[str] = []
    while exc is not None:
        notes.extend(getattr(exc, "__notes__", []))
        exc = exc.__cause__ or exc.__context__
    return notes
