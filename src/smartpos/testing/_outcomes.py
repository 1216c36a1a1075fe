"""What a simulated terminal does with a payment or a print job, and how its event travels.

A payment ends in [`Approve`][smartpos.testing.Approve], [`Refuse`][smartpos.testing.Refuse] or
[`NoAnswer`][smartpos.testing.NoAnswer]; a print job in [`PrintDone`][smartpos.testing.PrintDone],
[`PrintFail`][smartpos.testing.PrintFail] or [`NoAnswer`][smartpos.testing.NoAnswer]. Fields left
``None`` are filled with realistic generated values when the terminal acts.

Five wrappers change how the event of an outcome reaches the partner, for the hard cases an
integrator must handle: [`Delay`][smartpos.testing.Delay] (it comes late),
[`Duplicate`][smartpos.testing.Duplicate] (the same event twice),
[`OutOfOrder`][smartpos.testing.OutOfOrder] (after the next event),
[`Contradict`][smartpos.testing.Contradict] (a second event that says the opposite),
[`Hold`][smartpos.testing.Hold] (not until the test releases that attempt). They wrap an
outcome (``then``), or the terminal's standing one when ``then`` is ``None``, and nest: ``Delay(2,
then=Duplicate(then=Refuse()))``.

Each class has a `NAME`, the word the control API, the command line and pytest markers use
for it (``aprovar``, ``recusar``, ``silencio``...): `_vocabulary` reads and writes them.
"""

from __future__ import annotations

from typing import ClassVar

import attrs

__all__ = [
    "Approve",
    "Contradict",
    "Delay",
    "Duplicate",
    "Hold",
    "Modifier",
    "NoAnswer",
    "OutOfOrder",
    "Outcome",
    "PaymentOutcome",
    "PrintDone",
    "PrintFail",
    "PrintOutcome",
    "Refuse",
    "check_outcome",
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

    NAME: ClassVar[str] = "aprovar"

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

    NAME: ClassVar[str] = "recusar"

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

    NAME: ClassVar[str] = "concluir"

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

    NAME: ClassVar[str] = "falhar"

    status: str = "falhou"
    mensagem_operador: str = "SEM PAPEL"
    codigo_status: str = "E01"
    executado: bool = False


@attrs.frozen
class NoAnswer:
    """Silence: the operation is accepted, and no event ever comes (the customer walked away)."""

    NAME: ClassVar[str] = "silencio"


@attrs.frozen
class Delay:
    """The event of ``then`` is delivered ``seconds`` after the terminal acted.

    The delay runs on the sandbox's clock: it passes in real time, and ``Sandbox.advance``
    delivers what became due at once (no sleeping in tests). ``criadoEm`` is when the terminal
    acted.

    Attributes:
        seconds: How late (0 to 3600).
        then: The outcome; ``None``: what the terminal would do otherwise.
    """

    NAME: ClassVar[str] = "atraso"

    seconds: float
    then: Outcome | None = None

    def __attrs_post_init__(self) -> None:
        if isinstance(self.seconds, bool) or not isinstance(self.seconds, (int, float)):
            raise TypeError(f"Delay.seconds is a number of seconds, not {self.seconds!r}")
        if not 0 <= self.seconds <= 3600:
            raise ValueError(f"Delay.seconds must be 0 to 3600, not {self.seconds!r}")


@attrs.frozen
class Duplicate:
    """The event of ``then`` is delivered ``times`` times in a row, with the same ``id``.

    Attributes:
        then: The outcome; ``None``: what the terminal would do otherwise.
        times: Deliveries of the same envelope (2 to 10).
    """

    NAME: ClassVar[str] = "duplicar"

    then: Outcome | None = None
    times: int = 2

    def __attrs_post_init__(self) -> None:
        if isinstance(self.times, bool) or not isinstance(self.times, int):
            raise TypeError(f"Duplicate.times is a whole number, not {self.times!r}")
        if not 2 <= self.times <= 10:
            raise ValueError(f"Duplicate.times must be 2 to 10, not {self.times!r}")


@attrs.frozen
class OutOfOrder:
    """The event of ``then`` is held back and delivered right after the next event emitted.

    If no other event comes, ``Sandbox.release_events()`` delivers it.

    Attributes:
        then: The outcome; ``None``: what the terminal would do otherwise.
    """

    NAME: ClassVar[str] = "fora-de-ordem"

    then: Outcome | None = None


@attrs.frozen
class Contradict:
    """The event of ``then``, followed by a second event (another ``id``) saying the opposite.

    An approval is followed by ``pagamento.recusado``, a refusal by ``pagamento.aprovado``, a
    finished print job by ``impressao.falhou`` and a failed one by ``impressao.concluida``, all
    with the same ``referencia``. The sandbox's own record keeps the first outcome (a refund of
    a contradicted approval works), as a receiver that keeps the first final event should.

    Attributes:
        then: The outcome; ``None``: what the terminal would do otherwise.
    """

    NAME: ClassVar[str] = "contradicao"

    then: Outcome | None = None


@attrs.frozen
class Hold:
    """The event of ``then`` is held back until ``Sandbox.release(referencia)`` delivers it.

    The terminal acts at once (the sandbox's record shows the payment approved or refused, and a
    refund of a held approval works); only the delivery of its event waits, for as long as the
    test wants: the approval that arrives after the cashier gave up on the attempt. It is held
    per referencia, apart from ``hold_events()``: ``release_events()`` does not deliver it, and
    ``Sandbox.held_by_referencia`` shows it. ``criadoEm`` is when the terminal acted. The other
    wrappers of the same outcome apply from the release: ``Hold(Delay(5))`` is delivered five
    seconds after it, ``Hold(Contradict(Refuse()))`` holds and releases both events.

    Attributes:
        then: The outcome; ``None``: what the terminal would do otherwise.
    """

    NAME: ClassVar[str] = "segurar"

    then: Outcome | None = None


Modifier = Delay | Duplicate | OutOfOrder | Contradict | Hold
"""A wrapper that changes how the event of an outcome is delivered."""

Outcome = Approve | Refuse | PrintDone | PrintFail | NoAnswer | Modifier
"""Any outcome or wrapper."""

PaymentOutcome = Approve | Refuse | NoAnswer | Modifier
"""What a terminal may do with a payment (a wrapper must wrap a payment outcome)."""

PrintOutcome = PrintDone | PrintFail | NoAnswer | Modifier
"""What a terminal may do with a print job (a wrapper must wrap a print outcome)."""

_MODIFIERS = (Delay, Duplicate, OutOfOrder, Contradict, Hold)
_KINDS = {
    "payment": ((Approve, Refuse, NoAnswer), "Approve, Refuse or NoAnswer"),
    "print": ((PrintDone, PrintFail, NoAnswer), "PrintDone, PrintFail or NoAnswer"),
}


def check_outcome(kind: str, outcome: object) -> None:
    """Refuse what is not an outcome of ``kind`` (``"payment"`` or ``"print"``), wrappers included.

    Args:
        kind: ``"payment"`` or ``"print"``.
        outcome: The outcome, possibly wrapped.

    Raises:
        TypeError: Not an outcome of that kind (or a wrapper around one).
        ValueError: [`Contradict`][smartpos.testing.Contradict] or
            [`Hold`][smartpos.testing.Hold] around [`NoAnswer`][smartpos.testing.NoAnswer],
            directly or through other wrappers: silence has no opposite, and nothing to hold.
    """
    classes, names = _KINDS[kind]
    value = outcome
    needs_event: str | None = None
    while isinstance(value, _MODIFIERS):
        if isinstance(value, (Contradict, Hold)) and needs_event is None:
            needs_event = type(value).__name__
        inner = value.then
        if inner is None:
            return
        value = inner
    if needs_event is not None and isinstance(value, NoAnswer):
        raise ValueError(f"{needs_event} needs an outcome with an event, not NoAnswer")
    if not isinstance(value, classes):
        raise TypeError(f"a {kind} outcome is {names} (or a wrapper of one), not {outcome!r}")


def check_outcomes(payments: object, prints: object) -> None:
    """Refuse an outcome of the wrong kind where a payment or a print outcome is expected.

    Args:
        payments: A payment outcome, or ``None``.
        prints: A print outcome, or ``None``.

    Raises:
        TypeError: One of them is not an outcome of its kind.
        ValueError: A contradiction of silence.
    """
    if payments is not None:
        check_outcome("payment", payments)
    if prints is not None:
        check_outcome("print", prints)
