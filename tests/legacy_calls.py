"""TRANSITIONAL: the request builders as they were before requests became attrs records.

A verbatim copy of ``smartpos/_calls.py`` (and of the cattrs writer of ``smartpos/_wire.py``)
as of the split of ``_core``, kept only as the oracle of the differential test in
``test_wire_requests.py`` while the new builders replace these; deleted with it.
"""

from __future__ import annotations

import base64
import enum
import json
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

import attrs
import cattrs
import httpx
from cattrs.gen import make_dict_unstructure_fn, override

from smartpos import _referencia as _referencia_module
from smartpos._config import Config
from smartpos._documents import mask_documento, normalize_documento
from smartpos._errors import ValidationError
from smartpos._models import (
    Acceptance,
    Comanda,
    Comprovante,
    FormaPagamento,
    HTTPInfo,
    ItemComanda,
    ModoExecucao,
    PagamentoOriginal,
    Parcelamento,
    QRCode,
    Refund,
    Terminal,
)
from smartpos._referencia import is_valid_referencia, same_first_characters
from smartpos._responses import read_acceptance, read_qrcode, read_refund, read_terminals
from smartpos.webhooks import PagamentoAprovado


def new_referencia() -> str:
    return _referencia_module.new_referencia()


class _wire:  # noqa: N801 - stands in for the module the copied code calls
    """The old writer: cattrs with a camelCase rename, nulls dropped, Comprovante by hand."""

    @staticmethod
    def camel(name: str) -> str:
        head, *rest = name.split("_")
        return head + "".join(part[:1].upper() + part[1:] for part in rest)

    @staticmethod
    def wire_name(field: Any) -> str:
        explicit = field.metadata.get("wire")
        return explicit if explicit is not None else _wire.camel(field.name)

    @staticmethod
    def unstructure(obj: Any) -> Any:
        return _CONVERTER.unstructure(obj)


def _attrs_unstructure_factory(conv: cattrs.Converter) -> Callable[[Any], Any]:
    def factory(cls: type[Any]) -> Any:
        overrides: dict[str, Any] = {}
        for field in attrs.fields(cls):
            if field.name == "raw" or field.metadata.get("wire_skip"):
                overrides[field.name] = override(omit=True)
            else:
                overrides[field.name] = override(rename=_wire.wire_name(field))
        base = make_dict_unstructure_fn(cls, conv, **overrides)

        def hook(obj: Any) -> dict[str, Any]:
            return {k: v for k, v in base(obj).items() if v is not None}

        return hook

    return factory


def _unstructure_comprovante(value: Comprovante) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for group in ("imprimir", "visualizar"):
        sub = {
            who: flag
            for who in ("cliente", "loja")
            if (flag := getattr(value, f"{group}_{who}")) is not None
        }
        if sub:
            out[group] = sub
    return out


_CONVERTER = cattrs.Converter()
_CONVERTER.register_unstructure_hook_factory(attrs.has, _attrs_unstructure_factory(_CONVERTER))
_CONVERTER.register_unstructure_hook(enum.Enum, lambda e: e.value)
_CONVERTER.register_unstructure_hook(Comprovante, _unstructure_comprovante)

T = TypeVar("T")


@attrs.frozen(slots=True)
class Call(Generic[T]):
    """One API call, ready to send: what to send and how to read the answer."""

    method: str
    path: str
    parse: Callable[[httpx.Response, Call[T], HTTPInfo], T] = attrs.field(repr=False)
    body: bytes | None = attrs.field(default=None, repr=False)
    referencia: str | None = None
    starts_operation: bool = False
    """Starts something on a terminal (payment, refund, print): any doubt is an unknown outcome."""
    log_path: str | None = None
    """The path as logged, when ``path`` carries personal data."""
    referencia_supplied: bool = False
    """The caller chose the referencia: only then can a first-attempt 409 be the caller's own
    earlier request, and so prove that *this* call started nothing."""


#: Marks the SDK's own requests, so that the body reader added to a user's ``http_client``
#: (see ``_transports.read_before_hooks``) leaves every other request alone.
OWN_REQUEST = "smartpos"


def build_request(
    config: Config,
    call: Call[Any],
    http_client: httpx.Client | httpx.AsyncClient | None = None,
) -> httpx.Request:
    """Build the ``httpx.Request`` of a call; the same object is resent on every retry.

    With a user's ``http_client``, the client builds it: its default headers, cookies and
    query parameters are merged in (ours win for the headers the SDK sets). Building is pure
    in httpx: nothing is sent.
    """
    headers = {
        "x-api-key": config.api_key,
        "accept": "application/json",
        "user-agent": config.user_agent,
    }
    if call.body is not None:
        headers["content-type"] = "application/json"
    extensions = {"timeout": config.timeout.as_dict()}
    if http_client is not None:
        return http_client.build_request(
            call.method,
            config.base_url + call.path,
            headers=headers,
            content=call.body,
            extensions={**extensions, OWN_REQUEST: True},
        )
    return httpx.Request(
        call.method,
        config.base_url + call.path,
        headers=headers,
        content=call.body,
        extensions=extensions,
    )


def _dumps(body: Mapping[str, Any]) -> bytes:
    try:
        return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        campo = _unencodable(body) or "body"
        raise ValidationError(
            "CAMPO_INVALIDO",
            f"{campo} holds text that cannot be encoded as UTF-8 (a lone surrogate such as "
            "'\\ud800', often from bytes decoded with errors='surrogateescape'): fix the text",
            campo=campo,
        ) from None


def _unencodable(value: Any, path: str = "") -> str | None:
    """The wire path of the first string that UTF-8 cannot encode (only on the error path)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path
        return None
    if isinstance(value, Mapping):
        for key, item in value.items():
            found = _unencodable(item, f"{path}.{key}" if path else str(key))
            if found is not None:
                return found
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = _unencodable(item, f"{path}[{index}]")
            if found is not None:
                return found
    return None


# --- local validation ----------------------------------------------------------------------


def _missing(campo: str) -> ValidationError:
    return ValidationError(
        "CAMPO_OBRIGATORIO", f"{campo} is required and cannot be empty", campo=campo
    )


def _require_str(value: object, campo: str) -> str:
    if value is None or value == "":
        raise _missing(campo)
    if not isinstance(value, str):
        raise ValidationError(
            "CAMPO_INVALIDO", f"{campo} must be a string, not {type(value).__name__}", campo=campo
        )
    if not value.strip():
        raise _missing(campo)
    return value


def _optional_str(value: object, campo: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationError(
            "CAMPO_INVALIDO", f"{campo} must be a string, not {type(value).__name__}", campo=campo
        )
    return value


def _documento(value: object) -> str:
    raw = _require_str(value, "documentoCliente")
    doc = normalize_documento(raw)
    if doc is None:
        raise ValidationError(
            "DOCUMENTO_CLIENTE_INVALIDO",
            f"documentoCliente {mask_documento(raw)} is not a valid CPF (11 digits) or CNPJ "
            "(14 characters, numeric or alphanumeric): check the digits",
            campo="documentoCliente",
        )
    return doc


def _referencia(config: Config, value: object) -> str:
    if value is None:
        return new_referencia()
    ref = _require_str(value, "referencia")
    if config.strict_referencia and not is_valid_referencia(ref):
        raise ValidationError(
            "CAMPO_INVALIDO",
            f"referencia {ref[:60]!r} must start with a UUID version 4 or 5 at its first "
            "character (optionally followed by -suffix), because some acquirers read only its "
            "first 10 characters, which time-ordered UUIDs (versions 1, 6, 7) and the nil UUID "
            "repeat: use smartpos.new_referencia() or smartpos.referencia_for(key), or build "
            "the client with strict_referencia=False for a legacy system",
            campo="referencia",
        )
    return ref


#: What each positive integer field holds, for the message that refuses a bad value.
_POSITIVE_INT = {
    "valorCentavos": "a positive integer number of cents (1590 for R$ 15,90; never a float)",
    "parcelas": "a positive integer number of installments (never a float)",
}


def _positive_int(value: object, campo: str, *, required: bool) -> int | None:
    if value is None:
        if required:
            raise _missing(campo)
        return None
    # bool is an int in Python, and 5.0 or "5" are not integers on the wire.
    if type(value) is not int or value <= 0:
        what = _POSITIVE_INT.get(campo, "a positive integer")
        raise ValidationError(
            "VALOR_INVALIDO", f"{campo} must be {what}; got {value!r}", campo=campo
        )
    return value


_E = TypeVar("_E", FormaPagamento, Parcelamento, ModoExecucao)


def _enum(cls: type[_E], value: object, campo: str, codigo: str) -> _E | None:
    if value is None:
        return None
    member = cls.parse(value, campo)
    if member is None:
        allowed = ", ".join(m.value for m in cls)
        raise ValidationError(
            codigo, f"{campo} must be one of {allowed}; got {value!r}", campo=campo
        )
    return member  # type: ignore[return-value]


def _instance(value: object, cls: type[T], campo: str) -> T | None:
    if value is None or isinstance(value, cls):
        return value
    raise ValidationError(
        "CAMPO_INVALIDO",
        f"{campo} must be a smartpos.{cls.__name__}, not {type(value).__name__}",
        campo=campo,
    )


def _check_comanda(card: Comanda) -> None:
    # attrs classes do not check types: a list of str, or a number, would reach the wire.
    _optional_str(card.endereco, "comanda.endereco")
    itens = card.itens
    if not isinstance(itens, tuple):
        raise ValidationError(
            "CAMPO_INVALIDO",
            f"comanda.itens must be a sequence of smartpos.ItemComanda, not {type(itens).__name__}",
            campo="comanda.itens",
        )
    for index, item in enumerate(itens):
        campo = f"comanda.itens[{index}]"
        if not isinstance(item, ItemComanda):
            raise ValidationError(
                "CAMPO_INVALIDO",
                f"{campo} must be a smartpos.ItemComanda(titulo=..., descricao=...), not "
                f"{type(item).__name__}",
                campo=campo,
            )
        _optional_str(item.titulo, f"{campo}.titulo")
        _optional_str(item.descricao, f"{campo}.descricao")


def _check_comprovante(receipt: Comprovante) -> None:
    for field in attrs.fields(Comprovante):
        flag = getattr(receipt, field.name)
        if flag is not None and not isinstance(flag, bool):
            group, who = field.name.split("_")
            raise ValidationError(
                "CAMPO_INVALIDO",
                f"Comprovante.{field.name} must be True, False or None, not "
                f"{type(flag).__name__} {flag!r}",
                campo=f"comprovante.{group}.{who}",
            )


def _combination(
    forma: FormaPagamento | None, parcelas: int | None, parcelamento: Parcelamento | None
) -> None:
    installments = parcelas is not None and parcelas > 1
    if forma is not None and forma is not FormaPagamento.CREDITO and installments:
        raise ValidationError(
            "FORMA_PAGAMENTO_INVALIDA",
            f"{forma.value} does not take installments: send parcelas=1 or omit it",
            campo="parcelas",
        )
    if forma is FormaPagamento.CREDITO and installments and parcelamento is None:
        raise ValidationError(
            "FORMA_PAGAMENTO_INVALIDA",
            "credito with parcelas > 1 needs parcelamento (estabelecimento or administradora)",
            campo="parcelamento",
        )


# --- builders ------------------------------------------------------------------------------


def qrcode_call(config: Config, *, documento_cliente: str, referencia: str | None) -> Call[QRCode]:
    """Validate and build ``POST /qrcode``."""
    body = {
        "referencia": _referencia(config, referencia),
        "documentoCliente": _documento(documento_cliente),
    }
    return Call(
        "POST",
        "/qrcode",
        read_qrcode,
        _dumps(body),
        body["referencia"],
        referencia_supplied=referencia is not None,
    )


def payment_call(
    config: Config,
    *,
    documento_cliente: str,
    valor_centavos: int,
    smartpos_id: str | None,
    referencia: str | None,
    forma_pagamento: FormaPagamento | str | None,
    parcelas: int | None,
    parcelamento: Parcelamento | str | None,
    modo_execucao: ModoExecucao | str,
    comanda: Comanda | None,
    comprovante: Comprovante | None,
) -> Call[Acceptance]:
    """Validate and build ``POST /v1/payments``.

    The checks run in the order the service applies them, so that a request with several
    problems is refused locally with the code the service would have answered first:
    required fields, referencia, amounts, enumerated values, their combination, the
    mode's requirements, and last the document's check digits.
    """
    if isinstance(referencia, str) and not referencia.strip():
        raise _missing("referencia")
    if documento_cliente is None or documento_cliente == "":
        raise _missing("documentoCliente")
    if valor_centavos is None:
        raise _missing("valorCentavos")
    if modo_execucao is None or modo_execucao == "":
        raise _missing("modoExecucao")
    ref = _referencia(config, referencia)
    valor = _positive_int(valor_centavos, "valorCentavos", required=True)
    modo = _enum(ModoExecucao, modo_execucao, "modoExecucao", "CAMPO_INVALIDO")
    terminal = _optional_str(smartpos_id, "smartposId")
    n_parcelas = _positive_int(parcelas, "parcelas", required=False)
    forma = _enum(FormaPagamento, forma_pagamento, "formaPagamento", "FORMA_PAGAMENTO_INVALIDA")
    financing = _enum(Parcelamento, parcelamento, "parcelamento", "FORMA_PAGAMENTO_INVALIDA")
    _combination(forma, n_parcelas, financing)
    card = _instance(comanda, Comanda, "comanda")
    receipt = _instance(comprovante, Comprovante, "comprovante")
    if card is not None:
        _check_comanda(card)
    if receipt is not None:
        _check_comprovante(receipt)
    if modo is ModoExecucao.MANUAL and terminal and not terminal.strip():
        raise ValidationError(
            "CAMPO_INVALIDO",
            "smartposId is blank: pass the terminal's id, or omit smartpos_id to publish the "
            "card to the customer's terminals",
            campo="smartposId",
        )
    if modo is ModoExecucao.IMEDIATO and not (terminal and terminal.strip()):
        raise ValidationError(
            "SMARTPOS_OBRIGATORIO_MODO_IMEDIATO",
            "modoExecucao imediato needs smartpos_id (the terminal that charges); use "
            "modo_execucao='manual' with a comanda to queue the charge for an operator instead",
            campo="smartposId",
        )
    has_label = card is not None and isinstance(card.identificacao, str)
    if card is not None and not (has_label and card.identificacao.strip()):
        if modo is ModoExecucao.MANUAL:
            raise ValidationError(
                "COMANDA_OBRIGATORIA_MODO_MANUAL",
                "modoExecucao manual needs a comanda with identificacao (name, table, ticket)",
                campo="comanda.identificacao",
            )
        raise _missing("comanda.identificacao")
    if modo is ModoExecucao.MANUAL and card is None:
        raise ValidationError(
            "COMANDA_OBRIGATORIA_MODO_MANUAL",
            "modoExecucao manual needs comanda=smartpos.Comanda(identificacao=...) for the "
            "operator's queue",
            campo="comanda",
        )
    doc = _documento(documento_cliente)
    body: dict[str, Any] = {
        "referencia": ref,
        "documentoCliente": doc,
        "valorCentavos": valor,
        "modoExecucao": modo.value if modo is not None else ModoExecucao.IMEDIATO.value,
    }
    if terminal:
        body["smartposId"] = terminal
    if forma is not None:
        body["formaPagamento"] = forma.value
    if n_parcelas is not None:
        body["parcelas"] = n_parcelas
    if financing is not None:
        body["parcelamento"] = financing.value
    if card is not None:
        body["comanda"] = _wire.unstructure(card)
    if receipt is not None:
        wire_receipt = _wire.unstructure(receipt)
        if wire_receipt:
            body["comprovante"] = wire_receipt
    return Call(
        "POST",
        "/v1/payments",
        read_acceptance,
        _dumps(body),
        ref,
        True,
        referencia_supplied=referencia is not None,
    )


def refund_call(
    config: Config,
    *,
    documento_cliente: str,
    smartpos_id: str,
    valor_centavos: int,
    pagamento_original: PagamentoOriginal,
    referencia: str | None,
    payment_referencia: str | None = None,
) -> Call[Refund]:
    """Validate and build ``POST /v1/refunds``.

    ``payment_referencia`` is the refunded payment's referencia when it is known (``create_for``
    reads it from the event): the refund's must not share its first 10 characters.
    """
    if documento_cliente is None or documento_cliente == "":
        raise _missing("documentoCliente")
    terminal = _require_str(smartpos_id, "smartposId")
    valor = _positive_int(valor_centavos, "valorCentavos", required=True)
    if pagamento_original is None:
        raise _missing("pagamentoOriginal")
    original = _instance(pagamento_original, PagamentoOriginal, "pagamentoOriginal")
    assert original is not None
    for field in attrs.fields(PagamentoOriginal):
        _require_str(getattr(original, field.name), f"pagamentoOriginal.{_wire.wire_name(field)}")
    ref = _referencia(config, referencia)
    if payment_referencia is not None and same_first_characters(ref, payment_referencia):
        if referencia is not None:
            raise ValidationError(
                "CAMPO_INVALIDO",
                "a refund's referencia must not share its first 10 characters with the "
                "payment's (some acquirers read only those, and would take the refund for the "
                "payment): use smartpos.new_referencia() or smartpos.referencia_for(key)",
                campo="referencia",
            )
        while same_first_characters(ref, payment_referencia):  # 1 in 2**36: nearly never
            ref = new_referencia()
    doc = _documento(documento_cliente)
    body = {
        "referencia": ref,
        "documentoCliente": doc,
        "smartposId": terminal,
        "valorCentavos": valor,
        "pagamentoOriginal": _wire.unstructure(original),
    }
    return Call(
        "POST",
        "/v1/refunds",
        read_refund,
        _dumps(body),
        ref,
        True,
        referencia_supplied=referencia is not None,
    )


def refund_for_call(
    config: Config,
    evento: PagamentoAprovado,
    *,
    valor_centavos: int | None,
    referencia: str | None,
) -> Call[Refund]:
    """Build the refund of an approved payment from its ``pagamento.aprovado`` event."""
    dados = getattr(evento, "dados", None)
    if getattr(evento, "tipo", None) != "pagamento.aprovado" or dados is None:
        raise ValidationError(
            "CAMPO_INVALIDO",
            "refunds.create_for needs the PagamentoAprovado event of the payment "
            f"(tipo pagamento.aprovado); got {type(evento).__name__}",
            campo="pagamentoOriginal",
        )
    autorizacao = dados.autorizacao
    values = {}
    for name, attr, source in (
        ("codigo_autorizacao", "codigo", "codigo"),
        ("numero_transacao", "numero_transacao", "numeroTransacao"),
        ("dados_finalizacao", "dados_finalizacao", "dadosFinalizacao"),
        ("tipo_pagamento", "tipo_pagamento", "tipoPagamento"),
    ):
        value = getattr(autorizacao, attr, None) if autorizacao is not None else None
        if not value:
            raise ValidationError(
                "CAMPO_OBRIGATORIO",
                f"the event {evento.id} has no dados.autorizacao.{source}: it cannot be refunded "
                "through create_for; use refunds.create with the authorization data",
                campo=f"pagamentoOriginal.{_wire.camel(name)}",
            )
        values[name] = value
    if not dados.smartpos_id:
        raise ValidationError(
            "CAMPO_OBRIGATORIO",
            f"the event {evento.id} has no dados.smartposId: use refunds.create with the "
            "terminal that executed the payment",
            campo="smartposId",
        )
    approved = dados.valor_centavos
    if valor_centavos is None:
        valor_centavos = approved
        if valor_centavos is None:
            raise ValidationError(
                "CAMPO_OBRIGATORIO",
                f"the event {evento.id} has no dados.valorCentavos: pass valor_centavos",
                campo="valorCentavos",
            )
    elif type(valor_centavos) is int and type(approved) is int and 0 < approved < valor_centavos:
        raise ValidationError(
            "VALOR_INVALIDO",
            f"valorCentavos {valor_centavos} is more than the approved amount of the payment "
            f"({approved} cents): a refund cannot return more than was charged",
            campo="valorCentavos",
        )
    payment_referencia = dados.referencia if isinstance(dados.referencia, str) else None
    return refund_call(
        config,
        documento_cliente=dados.documento_cliente,
        smartpos_id=dados.smartpos_id,
        valor_centavos=valor_centavos,
        pagamento_original=PagamentoOriginal(**values),
        referencia=referencia,
        payment_referencia=payment_referencia,
    )


def print_call(
    config: Config,
    *,
    documento_cliente: str,
    smartpos_id: str,
    conteudo: bytes | str,
    referencia: str | None,
) -> Call[Acceptance]:
    """Validate and build ``POST /v1/print-jobs``; the content is Base64-encoded here."""
    if documento_cliente is None or documento_cliente == "":
        raise _missing("documentoCliente")
    terminal = _require_str(smartpos_id, "smartposId")
    if conteudo is None or (hasattr(conteudo, "__len__") and len(conteudo) == 0):
        raise _missing("conteudo.base64")
    if isinstance(conteudo, str):
        try:
            data = conteudo.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValidationError(
                "CAMPO_INVALIDO",
                f"conteudo holds a character UTF-8 cannot encode at position {exc.start} (a "
                "lone surrogate such as '\\ud800'): fix the text, or pass the bytes to print",
                campo="conteudo.base64",
            ) from None
    elif isinstance(conteudo, (bytes, bytearray, memoryview)):
        data = bytes(conteudo)
    else:
        raise ValidationError(
            "CAMPO_INVALIDO",
            f"conteudo must be bytes or str, not {type(conteudo).__name__}",
            campo="conteudo.base64",
        )
    ref = _referencia(config, referencia)
    doc = _documento(documento_cliente)
    body = {
        "referencia": ref,
        "documentoCliente": doc,
        "smartposId": terminal,
        "conteudo": {"tipo": "base64", "base64": base64.b64encode(data).decode("ascii")},
    }
    return Call(
        "POST",
        "/v1/print-jobs",
        read_acceptance,
        _dumps(body),
        ref,
        True,
        referencia_supplied=referencia is not None,
    )


def terminals_call(config: Config, *, documento_cliente: str) -> Call[list[Terminal]]:
    """Validate and build ``GET /v1/customers/{documentoCliente}/smartpos``."""
    doc = _documento(documento_cliente)
    return Call(
        "GET",
        f"/v1/customers/{doc}/smartpos",
        read_terminals,
        log_path=f"/v1/customers/{mask_documento(doc)}/smartpos",
    )
