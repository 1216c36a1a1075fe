"""The caller's arguments, checked: each endpoint's arguments become its request record.

What the service would refuse for the request's content alone is refused here, before anything
is sent, with the ``codigo`` the service would answer and the ``campo`` it would name: the wire
name of the field, which only ``_wire`` knows. A payment's checks run in the order the service
applies them. Messages name a document only masked, and never the API key.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import TYPE_CHECKING, TypeVar

import attrs

from . import _wire
from ._config import Config
from ._documents import mask_documento, normalize_documento
from ._errors import ValidationError
from ._messages import message
from ._models import (
    Comanda,
    Comprovante,
    FormaPagamento,
    ItemComanda,
    ModoExecucao,
    PagamentoOriginal,
    Parcelamento,
)
from ._params import PaymentParams, PrintJobParams, QRCodeParams, RefundParams, complete
from ._referencia import is_valid_referencia, new_referencia, same_first_characters
from ._requests import (
    Conteudo,
    PaymentRequest,
    PrintJobRequest,
    QRCodeRequest,
    RefundRequest,
)

if TYPE_CHECKING:
    from .webhooks import PagamentoAprovado
    from .webhooks._sales import SaleTerms

__all__ = [
    "documento",
    "payment_request",
    "print_job_request",
    "qrcode_request",
    "refund_request",
    "refund_request_for",
    "sale_terms",
    "text",
]

T = TypeVar("T")

# The campo of each argument: the wire name of the field it fills (the shared ones are the
# same in every request).
_REFERENCIA = _wire.path(PaymentRequest, "referencia")
_DOCUMENTO = _wire.path(PaymentRequest, "documento_cliente")
_VALOR = _wire.path(PaymentRequest, "valor_centavos")
_MODO = _wire.path(PaymentRequest, "modo_execucao")
_SMARTPOS_ID = _wire.path(PaymentRequest, "smartpos_id")
_FORMA = _wire.path(PaymentRequest, "forma_pagamento")
_PARCELAS = _wire.path(PaymentRequest, "parcelas")
_PARCELAMENTO = _wire.path(PaymentRequest, "parcelamento")
_COMANDA = _wire.path(PaymentRequest, "comanda")
_IDENTIFICACAO = _wire.path(PaymentRequest, "comanda", "identificacao")
_ITENS = _wire.path(PaymentRequest, "comanda", "itens")
_ENDERECO = _wire.path(PaymentRequest, "comanda", "endereco")
_COMPROVANTE = _wire.path(PaymentRequest, "comprovante")
_ORIGINAL = _wire.path(RefundRequest, "pagamento_original")
_ORIGINAL_FIELDS = [
    (field.name, _wire.path(RefundRequest, "pagamento_original", field.name))
    for field in attrs.fields(PagamentoOriginal)
]
_CONTEUDO = _wire.path(PrintJobRequest, "conteudo", "base64")
# Not sent: a sale is the SDK's own (the journal's), so its campo is the argument's name.
_SALE = "sale"
_SALE_MAX = 100
_TOTAL = "total_centavos"

# --- one value -----------------------------------------------------------------------------


def _missing(campo: str) -> ValidationError:
    return ValidationError(
        "CAMPO_OBRIGATORIO", message("argument.required", campo=campo), campo=campo
    )


def _not_a_string(value: object, campo: str) -> ValidationError:
    return ValidationError(
        "CAMPO_INVALIDO",
        message("argument.not_a_string", campo=campo, type=type(value).__name__),
        campo=campo,
    )


def text(
    value: object, campo: str, *, required: bool = True, max_length: int | None = None
) -> str | None:
    """The one checker of a text argument: a ``str``, non-blank when required, bounded.

    Args:
        value: What the caller passed.
        campo: The field's name in the messages (``ValidationError.campo``).
        required: ``None``, ``""`` or a blank string is ``CAMPO_OBRIGATORIO``; otherwise
            ``None`` is returned as is.
        max_length: At most this many characters (``CAMPO_INVALIDO`` beyond).

    Raises:
        ValidationError: ``CAMPO_OBRIGATORIO`` or ``CAMPO_INVALIDO``, naming ``campo``.
    """
    if value is None:
        if required:
            raise _missing(campo)
        return None
    if not isinstance(value, str):
        raise _not_a_string(value, campo)
    if required and not value.strip():
        raise _missing(campo)
    if max_length is not None and len(value) > max_length:
        raise ValidationError(
            "CAMPO_INVALIDO",
            message("argument.too_long", campo=campo, max=max_length, length=len(value)),
            campo=campo,
        )
    return value


def _require_str(value: object, campo: str) -> str:
    checked = text(value, campo)
    assert checked is not None
    return checked


def _optional_str(value: object, campo: str) -> str | None:
    return text(value, campo, required=False)


def documento(value: object) -> str:
    """Return the customer's CPF or CNPJ normalized (digits and capital letters only).

    Raises:
        ValidationError: missing, not a string, or not a valid CPF or CNPJ.
    """
    raw = _require_str(value, _DOCUMENTO)
    doc = normalize_documento(raw)
    if doc is None:
        raise ValidationError(
            "DOCUMENTO_CLIENTE_INVALIDO",
            message("argument.documento", campo=_DOCUMENTO, documento=mask_documento(raw)),
            campo=_DOCUMENTO,
        )
    return doc


def _referencia(config: Config, value: object) -> str:
    if value is None:
        return new_referencia()
    ref = _require_str(value, _REFERENCIA)
    if config.strict_referencia and not is_valid_referencia(ref):
        raise ValidationError(
            "CAMPO_INVALIDO",
            message("argument.referencia", campo=_REFERENCIA, referencia=ref[:60]),
            campo=_REFERENCIA,
        )
    return ref


#: The message that refuses a bad value of each positive integer field (what it holds).
_POSITIVE_INT = {_VALOR: "argument.valor_centavos", _PARCELAS: "argument.parcelas"}
#: An amount written in reais (19.9, "19,90", Decimal("19.90")) given as valorCentavos: the
#: message points at smartpos.to_centavos, which converts it exactly.
_IN_REAIS = {
    "float": "argument.valor_centavos_float",
    "str": "argument.valor_centavos_in_reais",
    "Decimal": "argument.valor_centavos_in_reais",
}


def _positive_int(value: object, campo: str) -> int:
    if value is None:
        raise _missing(campo)
    # bool is an int in Python, and 5.0 or "5" are not integers on the wire.
    if type(value) is not int or value <= 0:
        key = _POSITIVE_INT.get(campo, "argument.positive_int")
        if campo == _VALOR and type(value).__name__ in _IN_REAIS:
            key = _IN_REAIS[type(value).__name__]
        raise ValidationError("VALOR_INVALIDO", message(key, campo=campo, value=value), campo=campo)
    return value


def _optional_positive_int(value: object, campo: str) -> int | None:
    return None if value is None else _positive_int(value, campo)


_E = TypeVar("_E", FormaPagamento, Parcelamento, ModoExecucao)


def _enum(cls: type[_E], value: object, campo: str, codigo: str) -> _E | None:
    if value is None:
        return None
    member = cls.parse(value, campo)
    if member is None:
        allowed = ", ".join(m.value for m in cls)
        raise ValidationError(
            codigo,
            message("argument.one_of", campo=campo, allowed=allowed, value=value),
            campo=campo,
        )
    return member  # type: ignore[return-value]


def _instance(value: object, cls: type[T], campo: str) -> T | None:
    if value is None or isinstance(value, cls):
        return value
    raise ValidationError(
        "CAMPO_INVALIDO",
        message("argument.instance", campo=campo, cls=cls.__name__, type=type(value).__name__),
        campo=campo,
    )


# --- the objects of a payment --------------------------------------------------------------


def _check_comanda(card: Comanda) -> None:
    # attrs classes do not check types: a list of str, or a number, would reach the wire.
    _optional_str(card.endereco, _ENDERECO)
    itens = card.itens
    if not isinstance(itens, tuple):
        raise ValidationError(
            "CAMPO_INVALIDO",
            message("argument.itens", campo=_ITENS, type=type(itens).__name__),
            campo=_ITENS,
        )
    for index, item in enumerate(itens):
        if not isinstance(item, ItemComanda):
            raise _not_an_item(item, _wire.path(PaymentRequest, "comanda", "itens", index))
        for field in attrs.fields(ItemComanda):
            value = getattr(item, field.name)
            if value is not None and not isinstance(value, str):
                campo = _wire.path(PaymentRequest, "comanda", "itens", index, field.name)
                raise _not_a_string(value, campo)


def _not_an_item(item: object, campo: str) -> ValidationError:
    return ValidationError(
        "CAMPO_INVALIDO",
        message("argument.item", campo=campo, type=type(item).__name__),
        campo=campo,
    )


def _check_comprovante(receipt: Comprovante) -> None:
    for field in attrs.fields(Comprovante):
        flag = getattr(receipt, field.name)
        if flag is not None and not isinstance(flag, bool):
            raise ValidationError(
                "CAMPO_INVALIDO",
                message(
                    "argument.comprovante", name=field.name, type=type(flag).__name__, value=flag
                ),
                campo=_wire.path(PaymentRequest, "comprovante", field.name),
            )


def _combination(
    forma: FormaPagamento | None, parcelas: int | None, parcelamento: Parcelamento | None
) -> None:
    installments = parcelas is not None and parcelas > 1
    if forma is not None and forma is not FormaPagamento.CREDITO and installments:
        raise ValidationError(
            "FORMA_PAGAMENTO_INVALIDA",
            message("argument.no_installments", forma=forma.value),
            campo=_PARCELAS,
        )
    if forma is FormaPagamento.CREDITO and installments and parcelamento is None:
        raise ValidationError(
            "FORMA_PAGAMENTO_INVALIDA",
            message("argument.needs_parcelamento"),
            campo=_PARCELAMENTO,
        )


# --- one request per endpoint --------------------------------------------------------------


def qrcode_request(config: Config, params: Mapping[str, object]) -> QRCodeRequest:
    """Check the arguments of ``POST /qrcode``."""
    p = complete(QRCodeParams, params)
    ref = _referencia(config, p["referencia"])
    return QRCodeRequest(referencia=ref, documento_cliente=documento(p["documento_cliente"]))


def payment_request(config: Config, params: Mapping[str, object]) -> PaymentRequest:
    """Check the arguments of ``POST /v1/payments``.

    The checks run in the order the service applies them, so that a request with several
    problems is refused locally with the code the service would have answered first:
    required fields, referencia, amounts, enumerated values, their combination, the
    mode's requirements, and last the document's check digits.
    """
    p = complete(PaymentParams, params)
    referencia, documento_cliente, modo_execucao = (
        p["referencia"],
        p["documento_cliente"],
        p["modo_execucao"],
    )
    if isinstance(referencia, str) and not referencia.strip():
        raise _missing(_REFERENCIA)
    if documento_cliente is None or documento_cliente == "":
        raise _missing(_DOCUMENTO)
    if p["valor_centavos"] is None:
        raise _missing(_VALOR)
    if modo_execucao is None or modo_execucao == "":
        raise _missing(_MODO)
    ref = _referencia(config, referencia)
    valor = _positive_int(p["valor_centavos"], _VALOR)
    modo = _enum(ModoExecucao, modo_execucao, _MODO, "CAMPO_INVALIDO")
    terminal = _optional_str(p["smartpos_id"], _SMARTPOS_ID)
    n_parcelas = _optional_positive_int(p["parcelas"], _PARCELAS)
    forma = _enum(FormaPagamento, p["forma_pagamento"], _FORMA, "FORMA_PAGAMENTO_INVALIDA")
    financing = _enum(Parcelamento, p["parcelamento"], _PARCELAMENTO, "FORMA_PAGAMENTO_INVALIDA")
    _combination(forma, n_parcelas, financing)
    card = _instance(p["comanda"], Comanda, _COMANDA)
    receipt = _instance(p["comprovante"], Comprovante, _COMPROVANTE)
    if card is not None:
        _check_comanda(card)
    if receipt is not None:
        _check_comprovante(receipt)
    if modo is ModoExecucao.MANUAL and terminal and not terminal.strip():
        raise ValidationError(
            "CAMPO_INVALIDO",
            message("argument.smartpos_id_blank", campo=_SMARTPOS_ID),
            campo=_SMARTPOS_ID,
        )
    if modo is ModoExecucao.IMEDIATO and not (terminal and terminal.strip()):
        raise ValidationError(
            "SMARTPOS_OBRIGATORIO_MODO_IMEDIATO",
            message("argument.imediato_needs_smartpos_id", modo=_MODO),
            campo=_SMARTPOS_ID,
        )
    has_label = card is not None and isinstance(card.identificacao, str)
    if card is not None and not (has_label and card.identificacao.strip()):
        if modo is ModoExecucao.MANUAL:
            raise ValidationError(
                "COMANDA_OBRIGATORIA_MODO_MANUAL",
                message("argument.manual_needs_identificacao", modo=_MODO),
                campo=_IDENTIFICACAO,
            )
        raise _missing(_IDENTIFICACAO)
    if modo is ModoExecucao.MANUAL and card is None:
        raise ValidationError(
            "COMANDA_OBRIGATORIA_MODO_MANUAL",
            message("argument.manual_needs_comanda", modo=_MODO),
            campo=_COMANDA,
        )
    assert modo is not None  # refused above when missing
    return PaymentRequest(
        referencia=ref,
        documento_cliente=documento(documento_cliente),
        valor_centavos=valor,
        modo_execucao=modo,
        smartpos_id=terminal or None,
        forma_pagamento=forma,
        parcelas=n_parcelas,
        parcelamento=financing,
        comanda=card,
        comprovante=receipt,
    )


def sale_terms(
    config: Config, params: Mapping[str, object], request: PaymentRequest
) -> SaleTerms | None:
    """Check ``sale`` and ``total_centavos`` of a payment; the sale's terms, or ``None``."""
    sale, total = params.get("sale"), params.get("total_centavos")
    if sale is None:
        if total is not None:
            raise ValidationError(
                "CAMPO_INVALIDO", message("sale.total_without_sale"), campo="total_centavos"
            )
        return None
    if (
        not isinstance(sale, str)
        or not sale.strip()
        or len(sale) > _SALE_MAX
        or not sale.isprintable()
    ):
        raise ValidationError(
            "CAMPO_INVALIDO", message("argument.sale", max=_SALE_MAX), campo=_SALE
        )
    if total is not None:
        total = _positive_int(total, _TOTAL)
    from .webhooks._sales import SaleTerms

    return SaleTerms(
        sale_id=sale,
        total_centavos=total,
        valor_centavos=request.valor_centavos,
        smartpos_id=request.smartpos_id,
        imediato=request.modo_execucao is ModoExecucao.IMEDIATO,
        terminal_hold=config.terminal_hold,
        pending_after=config.pending_after,
    )


def refund_request(
    config: Config, params: Mapping[str, object], *, payment_referencia: str | None = None
) -> RefundRequest:
    """Check the arguments of ``POST /v1/refunds``.

    ``payment_referencia`` is the refunded payment's referencia when it is known (``create_for``
    reads it from the event): the refund's must not share its first 10 characters.
    """
    p = complete(RefundParams, params)
    documento_cliente, pagamento_original, referencia = (
        p["documento_cliente"],
        p["pagamento_original"],
        p["referencia"],
    )
    if documento_cliente is None or documento_cliente == "":
        raise _missing(_DOCUMENTO)
    terminal = _require_str(p["smartpos_id"], _SMARTPOS_ID)
    valor = _positive_int(p["valor_centavos"], _VALOR)
    if pagamento_original is None:
        raise _missing(_ORIGINAL)
    original = _instance(pagamento_original, PagamentoOriginal, _ORIGINAL)
    assert original is not None  # refused above when missing
    for name, campo in _ORIGINAL_FIELDS:
        _require_str(getattr(original, name), campo)
    ref = _referencia(config, referencia)
    if payment_referencia is not None and same_first_characters(ref, payment_referencia):
        if referencia is not None:
            raise ValidationError(
                "CAMPO_INVALIDO",
                message("argument.refund_referencia", campo=_REFERENCIA),
                campo=_REFERENCIA,
            )
        while same_first_characters(ref, payment_referencia):  # 1 in 2**36: nearly never
            ref = new_referencia()
    return RefundRequest(
        referencia=ref,
        documento_cliente=documento(documento_cliente),
        smartpos_id=terminal,
        valor_centavos=valor,
        pagamento_original=original,
    )


#: The fields of a refund's ``pagamento_original``, and where the approved event has each.
_FROM_AUTORIZACAO = (
    ("codigo_autorizacao", "codigo"),
    ("numero_transacao", "numero_transacao"),
    ("dados_finalizacao", "dados_finalizacao"),
    ("tipo_pagamento", "tipo_pagamento"),
)


def _event_path(*steps: str) -> str:
    """The wire path of a field of the ``pagamento.aprovado`` event (for messages only)."""
    from .webhooks._events import PagamentoAprovado

    return _wire.path(PagamentoAprovado, *steps)


def refund_request_for(
    config: Config,
    evento: PagamentoAprovado,
    *,
    valor_centavos: object,
    referencia: object,
) -> RefundRequest:
    """Check an approved payment's event, and the arguments, for a refund of that payment."""
    dados = getattr(evento, "dados", None)
    if getattr(evento, "tipo", None) != "pagamento.aprovado" or dados is None:
        raise ValidationError(
            "CAMPO_INVALIDO",
            message("argument.not_an_approved_event", type=type(evento).__name__),
            campo=_ORIGINAL,
        )
    autorizacao = dados.autorizacao
    values = {}
    for name, attr in _FROM_AUTORIZACAO:
        value = getattr(autorizacao, attr, None) if autorizacao is not None else None
        if not value:
            raise ValidationError(
                "CAMPO_OBRIGATORIO",
                message(
                    "argument.event_without_autorizacao",
                    evento=evento.id,
                    path=_event_path("dados", "autorizacao", attr),
                ),
                campo=_wire.path(RefundRequest, "pagamento_original", name),
            )
        values[name] = value
    if not dados.smartpos_id:
        raise ValidationError(
            "CAMPO_OBRIGATORIO",
            message(
                "argument.event_without_smartpos_id",
                evento=evento.id,
                path=_event_path("dados", "smartpos_id"),
            ),
            campo=_SMARTPOS_ID,
        )
    approved = dados.valor_centavos
    if valor_centavos is None:
        valor_centavos = approved
        if valor_centavos is None:
            raise ValidationError(
                "CAMPO_OBRIGATORIO",
                message(
                    "argument.event_without_valor",
                    evento=evento.id,
                    path=_event_path("dados", "valor_centavos"),
                ),
                campo=_VALOR,
            )
    elif type(valor_centavos) is int and type(approved) is int and 0 < approved < valor_centavos:
        raise ValidationError(
            "VALOR_INVALIDO",
            message(
                "argument.more_than_approved", campo=_VALOR, valor=valor_centavos, approved=approved
            ),
            campo=_VALOR,
        )
    payment_referencia = dados.referencia if isinstance(dados.referencia, str) else None
    params = {
        "documento_cliente": dados.documento_cliente,
        "smartpos_id": dados.smartpos_id,
        "valor_centavos": valor_centavos,
        "pagamento_original": PagamentoOriginal(**values),
        "referencia": referencia,
    }
    return refund_request(config, params, payment_referencia=payment_referencia)


def print_job_request(config: Config, params: Mapping[str, object]) -> PrintJobRequest:
    """Check the arguments of ``POST /v1/print-jobs``; the content is Base64-encoded here."""
    p = complete(PrintJobParams, params)
    documento_cliente, conteudo = p["documento_cliente"], p["conteudo"]
    if documento_cliente is None or documento_cliente == "":
        raise _missing(_DOCUMENTO)
    terminal = _require_str(p["smartpos_id"], _SMARTPOS_ID)
    if conteudo is None or (hasattr(conteudo, "__len__") and len(conteudo) == 0):
        raise _missing(_CONTEUDO)
    if isinstance(conteudo, str):
        try:
            data = conteudo.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValidationError(
                "CAMPO_INVALIDO",
                message("argument.conteudo_unencodable", position=exc.start),
                campo=_CONTEUDO,
            ) from None
    elif isinstance(conteudo, (bytes, bytearray, memoryview)):
        data = bytes(conteudo)
    else:
        raise ValidationError(
            "CAMPO_INVALIDO",
            message("argument.conteudo_type", type=type(conteudo).__name__),
            campo=_CONTEUDO,
        )
    ref = _referencia(config, p["referencia"])
    return PrintJobRequest(
        referencia=ref,
        documento_cliente=documento(documento_cliente),
        smartpos_id=terminal,
        conteudo=Conteudo(tipo="base64", base64=base64.b64encode(data).decode("ascii")),
    )
