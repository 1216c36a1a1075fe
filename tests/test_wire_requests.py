"""Request bodies: the exact bytes of every request, and the wire names _wire gives out.

The expected bodies are written here from ``shared/service-spec.md`` (camelCase keys in the
spec's order, no nulls, compact UTF-8 JSON), never by the SDK's converter, so that a wrong wire
name or a changed key order cannot be mirrored on both sides.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import base64
import json
import subprocess
import sys
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import smartpos
from client_cases import API_KEY, BASE_URL
from smartpos import _calls, _config, _requests, _wire
from smartpos.webhooks import PagamentoAprovado

REF = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"
#: Documents as a caller may pass them, and as the body carries them.
DOCUMENTS = {
    "123.456.789-09": "12345678909",
    "12345678909": "12345678909",
    "11.222.333/0001-81": "11222333000181",
    "12.abc.345/01de-35": "12ABC34501DE35",
}
CONFIG = _config.Config.create(
    api_key=API_KEY,
    base_url=BASE_URL,
    timeout=None,
    max_retries=0,
    retry_backoff=0,
    strict_referencia=True,
)


def spec_json(body: dict[str, Any]) -> bytes:
    """The bytes the spec's body is sent as: compact JSON, UTF-8, non-ASCII as is."""
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


texts = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=10)
labels = texts.filter(str.strip)
documents = st.sampled_from(sorted(DOCUMENTS))
referencias = st.one_of(
    st.just(REF), st.uuids(version=4).map(str), texts.map(lambda s: f"{REF}-{s.strip() or 'x'}")
).filter(lambda r: smartpos.is_valid_referencia(r))
amounts = st.integers(1, 10**12)
terminals = labels
item_lists = st.lists(
    st.builds(
        smartpos.ItemComanda,
        titulo=st.one_of(st.none(), texts),
        descricao=st.one_of(st.none(), texts),
    ),
    max_size=3,
)
comandas = st.builds(
    smartpos.Comanda, identificacao=labels, itens=item_lists, endereco=st.none() | texts
)
flags = st.sampled_from([None, True, False])
comprovantes = st.builds(smartpos.Comprovante, flags, flags, flags, flags)


def spec_comanda(card: smartpos.Comanda) -> dict[str, Any]:
    """``comanda`` as the spec writes it (section 2.3)."""
    out: dict[str, Any] = {
        "identificacao": card.identificacao,
        "itens": [
            {k: v for k, v in (("titulo", i.titulo), ("descricao", i.descricao)) if v is not None}
            for i in card.itens
        ],
    }
    if card.endereco is not None:
        out["endereco"] = card.endereco
    return out


def spec_comprovante(receipt: smartpos.Comprovante) -> dict[str, Any]:
    """``comprovante`` as the spec writes it: nested ``imprimir``/``visualizar`` objects."""
    out: dict[str, Any] = {}
    for group in ("imprimir", "visualizar"):
        sub = {
            who: flag
            for who in ("cliente", "loja")
            if (flag := getattr(receipt, f"{group}_{who}")) is not None
        }
        if sub:
            out[group] = sub
    return out


@settings(max_examples=300, deadline=None)
@given(documents, referencias)
def test_qrcode_body(documento: str, referencia: str) -> None:
    """POST /qrcode sends referencia then documentoCliente."""
    call = _calls.qrcode_call(CONFIG, {"documento_cliente": documento, "referencia": referencia})

    assert (
        spec_json({"referencia": referencia, "documentoCliente": DOCUMENTS[documento]}) == call.body
    )


@pytest.mark.parametrize(("documento", "normalized"), sorted(DOCUMENTS.items()))
def test_terminal_listing_request(documento: str, normalized: str) -> None:
    """GET /v1/customers/{documentoCliente}/smartpos: the document normalized, no body."""
    call = _calls.terminals_call(CONFIG, documento_cliente=documento)

    assert ("GET", f"/v1/customers/{normalized}/smartpos", None) == (
        call.method,
        call.path,
        call.body,
    )


@settings(max_examples=500, deadline=None)
@given(
    documento=documents,
    referencia=referencias,
    valor=amounts,
    terminal=st.none() | terminals,
    forma=st.none() | st.sampled_from(list(smartpos.FormaPagamento)),
    parcelas=st.none() | st.integers(1, 12),
    parcelamento=st.none() | st.sampled_from(list(smartpos.Parcelamento)),
    manual=st.booleans(),
    comanda=st.none() | comandas,
    comprovante=st.none() | comprovantes,
)
def test_payment_body(
    documento: str,
    referencia: str,
    valor: int,
    terminal: str | None,
    forma: smartpos.FormaPagamento | None,
    parcelas: int | None,
    parcelamento: smartpos.Parcelamento | None,
    manual: bool,
    comanda: smartpos.Comanda | None,
    comprovante: smartpos.Comprovante | None,
) -> None:
    """POST /v1/payments sends the spec's keys in the spec's order, optional ones omitted."""
    if forma is not smartpos.FormaPagamento.CREDITO and parcelas is not None and parcelas > 1:
        parcelas = 1
    if forma is smartpos.FormaPagamento.CREDITO and (parcelas or 1) > 1 and parcelamento is None:
        parcelamento = smartpos.Parcelamento.ESTABELECIMENTO
    if manual and comanda is None:
        comanda = smartpos.Comanda("Mesa 1")
    if not manual and terminal is None:
        terminal = "SP-1"
    modo = "manual" if manual else "imediato"

    call = _calls.payment_call(
        CONFIG,
        {
            "documento_cliente": documento,
            "valor_centavos": valor,
            "smartpos_id": terminal,
            "referencia": referencia,
            "forma_pagamento": forma,
            "parcelas": parcelas,
            "parcelamento": parcelamento,
            "modo_execucao": modo,
            "comanda": comanda,
            "comprovante": comprovante,
        },
    )

    body: dict[str, Any] = {
        "referencia": referencia,
        "documentoCliente": DOCUMENTS[documento],
        "valorCentavos": valor,
        "modoExecucao": modo,
    }
    if terminal is not None:
        body["smartposId"] = terminal
    if forma is not None:
        body["formaPagamento"] = forma.value
    if parcelas is not None:
        body["parcelas"] = parcelas
    if parcelamento is not None:
        body["parcelamento"] = parcelamento.value
    if comanda is not None:
        body["comanda"] = spec_comanda(comanda)
    if comprovante is not None and spec_comprovante(comprovante):
        body["comprovante"] = spec_comprovante(comprovante)
    assert spec_json(body) == call.body


originals = st.builds(smartpos.PagamentoOriginal, labels, labels, labels, labels)


@settings(max_examples=300, deadline=None)
@given(documents, terminals, amounts, originals, referencias)
def test_refund_body(
    documento: str,
    terminal: str,
    valor: int,
    original: smartpos.PagamentoOriginal,
    referencia: str,
) -> None:
    """POST /v1/refunds sends the refund and the four keys of pagamentoOriginal."""
    call = _calls.refund_call(
        CONFIG,
        {
            "documento_cliente": documento,
            "smartpos_id": terminal,
            "valor_centavos": valor,
            "pagamento_original": original,
            "referencia": referencia,
        },
    )

    assert (
        spec_json(
            {
                "referencia": referencia,
                "documentoCliente": DOCUMENTS[documento],
                "smartposId": terminal,
                "valorCentavos": valor,
                "pagamentoOriginal": {
                    "codigoAutorizacao": original.codigo_autorizacao,
                    "numeroTransacao": original.numero_transacao,
                    "dadosFinalizacao": original.dados_finalizacao,
                    "tipoPagamento": original.tipo_pagamento,
                },
            }
        )
        == call.body
    )


@settings(max_examples=300, deadline=None)
@given(documents, terminals, st.one_of(texts, st.binary(min_size=1)), referencias)
def test_print_job_body(
    documento: str, terminal: str, conteudo: str | bytes, referencia: str
) -> None:
    """POST /v1/print-jobs sends the content Base64-encoded under conteudo.base64."""
    data = conteudo.encode("utf-8") if isinstance(conteudo, str) else conteudo

    call = _calls.print_call(
        CONFIG,
        {
            "documento_cliente": documento,
            "smartpos_id": terminal,
            "conteudo": conteudo,
            "referencia": referencia,
        },
    )

    assert (
        spec_json(
            {
                "referencia": referencia,
                "documentoCliente": DOCUMENTS[documento],
                "smartposId": terminal,
                "conteudo": {"tipo": "base64", "base64": base64.b64encode(data).decode("ascii")},
            }
        )
        == call.body
    )


# --- the wire names _wire gives out ---------------------------------------------------------


@pytest.mark.parametrize(
    ("cls", "steps", "expected"),
    [
        (_requests.PaymentRequest, ("documento_cliente",), "documentoCliente"),
        (_requests.PaymentRequest, ("smartpos_id",), "smartposId"),
        (_requests.PaymentRequest, ("modo_execucao",), "modoExecucao"),
        (_requests.PaymentRequest, ("comanda", "itens", 2, "titulo"), "comanda.itens[2].titulo"),
        (
            _requests.PaymentRequest,
            ("comprovante", "visualizar_loja"),
            "comprovante.visualizar.loja",
        ),
        (
            _requests.RefundRequest,
            ("pagamento_original", "dados_finalizacao"),
            "pagamentoOriginal.dadosFinalizacao",
        ),
        (_requests.PrintJobRequest, ("conteudo", "base64"), "conteudo.base64"),
        (
            PagamentoAprovado,
            ("dados", "autorizacao", "numero_transacao"),
            "dados.autorizacao.numeroTransacao",
        ),
        (PagamentoAprovado, ("dados", "resultado_smartpos"), "dados.resultadoSmartPOS"),
    ],
)
def test_path_names_fields_as_campo_does(cls: type[Any], steps: Any, expected: str) -> None:
    """path() walks nested classes, optional fields and list indexes to the wire path."""
    assert expected == _wire.path(cls, *steps)


def test_path_refuses_an_unknown_field() -> None:
    """A field name that does not exist is a programming error, not a made-up wire name."""
    with pytest.raises(KeyError):
        _wire.path(_requests.PaymentRequest, "valor")


def test_request_records_declare_the_spec_order() -> None:
    """Each record's fields, written as wire names, are the keys of the spec in its order."""
    assert {
        "QRCodeRequest": ["referencia", "documentoCliente"],
        "PaymentRequest": [
            "referencia",
            "documentoCliente",
            "valorCentavos",
            "modoExecucao",
            "smartposId",
            "formaPagamento",
            "parcelas",
            "parcelamento",
            "comanda",
            "comprovante",
        ],
        "RefundRequest": [
            "referencia",
            "documentoCliente",
            "smartposId",
            "valorCentavos",
            "pagamentoOriginal",
        ],
        "PrintJobRequest": ["referencia", "documentoCliente", "smartposId", "conteudo"],
    } == {
        name: [_wire.path(getattr(_requests, name), f.name) for f in attrs.fields(cls)]
        for name in ("QRCodeRequest", "PaymentRequest", "RefundRequest", "PrintJobRequest")
        for cls in [getattr(_requests, name)]
    }


def test_a_nested_wire_name_is_written_only() -> None:
    """A class with a dotted wire name (Comprovante) is refused when a reader is built."""
    with pytest.raises(TypeError, match="for writing only"):
        _wire.structure({"imprimir": {"cliente": True}}, smartpos.Comprovante)


@attrs.frozen
class Holder:
    """A wire object with optional nested objects."""

    receipt: smartpos.Comprovante | None = None
    items: list[smartpos.ItemComanda] = attrs.field(factory=list)


def test_an_empty_nested_object_is_omitted_but_not_an_empty_list_item() -> None:
    """An optional object with nothing to say is left out; an empty item of a list stays."""
    assert {"items": [{}]} == _wire.unstructure(
        Holder(smartpos.Comprovante(), [smartpos.ItemComanda()])
    )
    assert {"receipt": {"imprimir": {"loja": False}}, "items": []} == _wire.unstructure(
        Holder(smartpos.Comprovante(imprimir_loja=False))
    )


def test_writing_a_payment_does_not_import_cattrs() -> None:
    """A payment is written without cattrs (~20 ms to import): a cold start stays cheap."""
    code = (
        "import sys, smartpos\n"
        "from smartpos import _calls, _config\n"
        "config = _config.Config.create(api_key='k', base_url='http://h', timeout=None,\n"
        "    max_retries=0, retry_backoff=0, strict_referencia=True)\n"
        "_calls.payment_call(config, dict(documento_cliente='12345678909', valor_centavos=1,\n"
        "    smartpos_id=None, referencia=None, forma_pagamento=None, parcelas=None,\n"
        "    parcelamento=None, modo_execucao='manual',\n"
        "    comanda=smartpos.Comanda('M', [smartpos.ItemComanda('t')]),\n"
        "    comprovante=smartpos.Comprovante(True)))\n"
        "print('cattrs' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout

    assert "False" == out.strip()
