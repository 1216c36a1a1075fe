"""The body of each request, as a record: what ``_arguments`` fills in and ``_wire`` writes.

Field names are the spec's words in snake_case, declared in the order the keys are sent;
``_wire`` writes them in camelCase and names them in ``ValidationError.campo``. Nothing is
checked here: a record is only built from values ``_arguments`` has already validated. Optional
fields left ``None`` are not sent.
"""

from __future__ import annotations

import attrs

from ._models import (
    Comanda,
    Comprovante,
    FormaPagamento,
    ModoExecucao,
    PagamentoOriginal,
    Parcelamento,
)

__all__ = [
    "Conteudo",
    "PaymentRequest",
    "PrintJobRequest",
    "QRCodeRequest",
    "RefundRequest",
]


@attrs.frozen(slots=True)
class QRCodeRequest:
    """The body of ``POST /qrcode``."""

    referencia: str
    documento_cliente: str


@attrs.frozen(slots=True)
class PaymentRequest:
    """The body of ``POST /v1/payments``."""

    referencia: str
    documento_cliente: str
    valor_centavos: int
    modo_execucao: ModoExecucao
    smartpos_id: str | None = None
    forma_pagamento: FormaPagamento | None = None
    parcelas: int | None = None
    parcelamento: Parcelamento | None = None
    comanda: Comanda | None = None
    comprovante: Comprovante | None = None
    """Not sent when it holds no preference at all."""


@attrs.frozen(slots=True)
class RefundRequest:
    """The body of ``POST /v1/refunds``."""

    referencia: str
    documento_cliente: str
    smartpos_id: str
    valor_centavos: int
    pagamento_original: PagamentoOriginal


@attrs.frozen(slots=True)
class Conteudo:
    """What a print job prints (``conteudo``): the bytes, Base64-encoded."""

    tipo: str
    base64: str


@attrs.frozen(slots=True)
class PrintJobRequest:
    """The body of ``POST /v1/print-jobs``."""

    referencia: str
    documento_cliente: str
    smartpos_id: str
    conteudo: Conteudo
