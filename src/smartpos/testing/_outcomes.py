"""What a simulated terminal does with a payment or a print job.

A payment ends in :class:`Approve`, :class:`Refuse` or :class:`NoAnswer`; a print job in
:class:`PrintDone`, :class:`PrintFail` or :class:`NoAnswer`. Fields left ``None`` are filled with
realistic generated values when the terminal acts.
"""

from __future__ import annotations

import attrs

__all__ = [
    "Approve",
    "NoAnswer",
    "PaymentOutcome",
    "PrintDone",
    "PrintFail",
    "PrintOutcome",
    "Refuse",
    "check_outcomes",
]


@attrs.frozen
class Approve:
    """The terminal approves the payment and the sandbox emits ``pagamento.aprovado``.

    Attributes:
        codigo: ``autorizacao.codigo``; generated (6 characters) when ``None``.
        numero_transacao: ``autorizacao.numeroTransacao``; generated (12 digits) when ``None``.
        dados_finalizacao: ``autorizacao.dadosFinalizacao``; generated when ``None``.
        tipo_pagamento: ``autorizacao.tipoPagamento``; derived from ``formaPagamento`` when
            ``None`` (``CREDITO``, ``DEBITO``, ``PIX``, ``VOUCHER``; ``CREDITO`` by default).
        mensagem_operador: ``resultadoSmartPOS.mensagemOperador``.
        codigo_status: ``resultadoSmartPOS.codigoStatus``.
    """

    codigo: str | None = None
    numero_transacao: str | None = None
    dados_finalizacao: str | None = None
    tipo_pagamento: str | None = None
    mensagem_operador: str = "TRANSACAO APROVADA"
    codigo_status: str = "00"


@attrs.frozen
class Refuse:
    """The terminal refuses the payment and the sandbox emits ``pagamento.recusado``.

    Attributes:
        status: ``dados.status`` (the spec leaves refusal statuses open).
        mensagem_operador: ``resultadoSmartPOS.mensagemOperador``, shown to the customer.
        codigo_status: ``resultadoSmartPOS.codigoStatus``, the raw terminal code.
        executado: ``resultadoSmartPOS.executado``.
    """

    status: str = "recusado"
    mensagem_operador: str = "TRANSACAO NEGADA"
    codigo_status: str = "05"
    executado: bool = True


@attrs.frozen
class PrintDone:
    """The terminal prints and the sandbox emits ``impressao.concluida``.

    Attributes:
        mensagem_operador: ``resultadoSmartPOS.mensagemOperador``.
        codigo_status: ``resultadoSmartPOS.codigoStatus``.
    """

    mensagem_operador: str = "IMPRESSAO CONCLUIDA"
    codigo_status: str = "00"


@attrs.frozen
class PrintFail:
    """The terminal does not print and the sandbox emits ``impressao.falhou``.

    Attributes:
        status: ``dados.status`` (the spec leaves print failure statuses open).
        mensagem_operador: ``resultadoSmartPOS.mensagemOperador``.
        codigo_status: ``resultadoSmartPOS.codigoStatus``.
        executado: ``resultadoSmartPOS.executado``.
    """

    status: str = "falhou"
    mensagem_operador: str = "SEM PAPEL"
    codigo_status: str = "E01"
    executado: bool = False


@attrs.frozen
class NoAnswer:
    """The terminal never answers: the operation is accepted and no event is ever emitted."""


PaymentOutcome = Approve | Refuse | NoAnswer
"""What a terminal may do with a payment."""

PrintOutcome = PrintDone | PrintFail | NoAnswer
"""What a terminal may do with a print job."""


def check_outcomes(payments: object, prints: object) -> None:
    """Refuse an outcome of the wrong kind where a payment or a print outcome is expected.

    Args:
        payments: A payment outcome, or ``None``.
        prints: A print outcome, or ``None``.

    Raises:
        TypeError: One of them is not an outcome of its kind.
    """
    if payments is not None and not isinstance(payments, (Approve, Refuse, NoAnswer)):
        raise TypeError(f"a payment outcome is Approve, Refuse or NoAnswer, not {payments!r}")
    if prints is not None and not isinstance(prints, (PrintDone, PrintFail, NoAnswer)):
        raise TypeError(f"a print outcome is PrintDone, PrintFail or NoAnswer, not {prints!r}")
