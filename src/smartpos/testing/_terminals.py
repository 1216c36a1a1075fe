"""What simulated terminals do: outcomes (scripted and standing), pairing, the operator queue.

A terminal acts under the world's lock and emits its event into the outbox; the methods a test
calls directly (`Terminals.scan`, the operator's) flush the outbox once the lock is free.
An outcome's wrappers (``Delay``, ``Duplicate``, ``OutOfOrder``, ``Contradict``, ``Hold``) are
unwrapped here into the base outcome and the outbox's delivery `Plan`.
"""

from __future__ import annotations

import collections
from typing import Any, Protocol

import attrs

from ._documents import normalize_documento
from ._errors import QRCodeExpiredError, SandboxError
from ._outbox import Outbox, Plan
from ._outcomes import (
    Approve,
    Contradict,
    Delay,
    Duplicate,
    Hold,
    NoAnswer,
    Outcome,
    OutOfOrder,
    PaymentOutcome,
    PrintDone,
    PrintFail,
    PrintOutcome,
    Refuse,
    check_outcome,
    check_outcomes,
)
from ._records import Card
from ._world import PaymentState, PrintJobState, TerminalState, World

__all__ = [
    "Codes",
    "Resolved",
    "Terminals",
    "identification_event",
    "payment_event",
    "print_event",
    "resolve",
    "valor_formatado",
]

_TIPO_PAGAMENTO = {"credito": "CREDITO", "debito": "DEBITO", "pix": "PIX", "voucher": "VOUCHER"}


def valor_formatado(centavos: int) -> str:
    """Format cents as the spec's ``valorFormatado``: a decimal with a point (``"12.34"``).

    Args:
        centavos: The amount in cents.

    Returns:
        The formatted amount.
    """
    return f"{centavos // 100}.{centavos % 100:02d}"


class Codes(Protocol):
    """Where an event's generated codes come from: the world's seeded generator, or another."""

    def alnum(self, size: int) -> str:
        """Return ``size`` random upper-case letters and digits (no I or O)."""
        ...  # pragma: no cover

    def digits(self, size: int) -> str:
        """Return ``size`` random digits."""
        ...  # pragma: no cover


# The events a terminal emits, as raw ``(tipo, dados)`` from the spec (section 6): the one
# builder of each, used by the sandbox and by ``smartpos trigger``'s standalone samples.


def payment_event(
    outcome: Approve | Refuse,
    codes: Codes,
    *,
    referencia: str,
    documento: str,
    valor: int,
    forma: str | None,
    parcelas: int | None,
    smartpos_id: str,
) -> tuple[str, dict[str, Any]]:
    """``pagamento.aprovado`` or ``pagamento.recusado`` for a payment, every field in order.

    Args:
        outcome: What the terminal did; its codes, when set, replace generated ones.
        codes: Where the authorization's generated codes come from (in a fixed order).
        referencia: ``dados.referencia``.
        documento: ``dados.documentoCliente``.
        valor: ``dados.valorCentavos``.
        forma: ``dados.formaPagamento`` (absent when ``None``).
        parcelas: ``dados.parcelas`` (default 1).
        smartpos_id: ``dados.smartposId``.

    Returns:
        The ``tipo`` and ``dados``.
    """
    dados: dict[str, Any] = {
        "referencia": referencia,
        "documentoCliente": documento,
        "status": "aprovado" if isinstance(outcome, Approve) else outcome.status,
        "valorCentavos": valor,
        "valorFormatado": valor_formatado(valor),
    }
    if forma is not None:
        dados["formaPagamento"] = forma
    dados["parcelas"] = parcelas or 1
    dados["smartposId"] = smartpos_id
    if isinstance(outcome, Approve):
        dados["autorizacao"] = {
            "codigo": outcome.codigo or codes.alnum(6),
            "numeroTransacao": outcome.numero_transacao or codes.digits(12),
            "dadosFinalizacao": outcome.dados_finalizacao
            or f"{codes.digits(6)}|{codes.alnum(12)}|{codes.digits(4)}",
            "tipoPagamento": outcome.tipo_pagamento
            or _TIPO_PAGAMENTO.get(forma or "credito", "CREDITO"),
        }
        executado = True
        tipo = "pagamento.aprovado"
    else:
        executado = outcome.executado
        tipo = "pagamento.recusado"
    dados["resultadoSmartPOS"] = {
        "executado": executado,
        "codigoStatus": outcome.codigo_status,
        "mensagemOperador": outcome.mensagem_operador,
    }
    return tipo, dados


def print_event(
    outcome: PrintDone | PrintFail, *, referencia: str, documento: str, smartpos_id: str
) -> tuple[str, dict[str, Any]]:
    """``impressao.concluida`` or ``impressao.falhou`` for a print job.

    Returns:
        The ``tipo`` and ``dados``.
    """
    if isinstance(outcome, PrintDone):
        status, executado, tipo = "concluida", True, "impressao.concluida"
    else:
        status, executado, tipo = outcome.status, outcome.executado, "impressao.falhou"
    dados = {
        "referencia": referencia,
        "documentoCliente": documento,
        "status": status,
        "smartposId": smartpos_id,
        "resultadoSmartPOS": {
            "executado": executado,
            "codigoStatus": outcome.codigo_status,
            "mensagemOperador": outcome.mensagem_operador,
        },
    }
    return tipo, dados


def identification_event(
    *,
    qr_code_id: str,
    referencia: str,
    documento: str,
    smartpos_id: str,
    numero_serie: str,
    adquirente: str,
) -> tuple[str, dict[str, Any]]:
    """``smartpos.identificado``: a QR code read on a terminal.

    Returns:
        The ``tipo`` and ``dados``.
    """
    return "smartpos.identificado", {
        "qrCodeId": qr_code_id,
        "referencia": referencia,
        "documentoCliente": documento,
        "smartposId": smartpos_id,
        "numeroSerieTerminal": numero_serie,
        "adquirente": adquirente,
    }


class Resolved:
    """An outcome without its wrappers: what the terminal does, and how its event travels.

    Attributes:
        base: The outcome itself (never a wrapper).
        plan: The delivery plan of its event.
        contradict: Whether an opposite event follows it.
    """

    __slots__ = ("base", "contradict", "plan")

    def __init__(self, base: Outcome, plan: Plan, contradict: bool) -> None:
        self.base = base
        self.plan = plan
        self.contradict = contradict


def resolve(
    outcome: Outcome | None, standing: Outcome, default: Outcome, to: Plan | None = None
) -> Resolved:
    """Unwrap ``outcome``; a wrapper without ``then`` wraps the ``standing`` outcome.

    Args:
        outcome: The outcome, possibly wrapped (nested wrappers add up); ``None``: the
            standing one.
        standing: The terminal's standing outcome (itself possibly a wrapper).
        default: What a standing wrapper without ``then`` wraps (approve, or print).
        to: A plan with the single URL target (``to``, ``headers``, ``signing``) to keep, if
            any.

    Returns:
        The base outcome and its plan.
    """
    delay, copies, out_of_order, contradict, hold = 0.0, 1, False, False, False
    value = outcome if outcome is not None else standing
    used_standing = outcome is None
    while True:
        if isinstance(value, Delay):
            delay += value.seconds
        elif isinstance(value, Duplicate):
            copies *= value.times
        elif isinstance(value, OutOfOrder):
            out_of_order = True
        elif isinstance(value, Contradict):
            contradict = True
        elif isinstance(value, Hold):
            hold = True
        else:
            # The single URL target's fields (to, headers, signing) carry over as they are.
            plan = attrs.evolve(
                to or Plan(), delay=delay, copies=copies, out_of_order=out_of_order, hold=hold
            )
            return Resolved(value, plan, contradict)
        then = value.then
        if then is None:
            then = default if used_standing else standing
            used_standing = True
        value = then


class Terminals:
    """The terminals' behaviour over the world's terminals.

    Args:
        world: The world.
        outbox: Where the terminals' events go.
    """

    def __init__(self, world: World, outbox: Outbox) -> None:
        self._world = world
        self._outbox = outbox
        self._payment_script: collections.deque[PaymentOutcome] = collections.deque()
        self._print_script: collections.deque[PrintOutcome] = collections.deque()
        self._payment_default: PaymentOutcome = Approve()
        self._print_default: PrintOutcome = PrintDone()

    # ------------------------------------------------------------------ outcomes

    def script(
        self, kind: str, outcomes: tuple[Outcome, ...], times: int, smartpos_id: str | None
    ) -> None:
        """Queue what the next payments or print jobs do (on one terminal, or on any).

        Args:
            kind: ``"payment"`` or ``"print"``.
            outcomes: In order; the whole sequence is queued ``times`` times.
            times: How many times.
            smartpos_id: One terminal, or ``None`` for any.

        Raises:
            TypeError: An outcome of the wrong kind.
            ValueError: ``times`` below 1, no outcome, a contradiction of silence.
            SandboxError: Unknown terminal.
        """
        if isinstance(times, bool) or not isinstance(times, int) or times < 1:
            raise ValueError(f"times must be a whole number of at least 1, not {times!r}")
        if not outcomes:
            raise ValueError("script at least one outcome")
        for outcome in outcomes:
            check_outcome(kind, outcome)
        with self._world.lock:
            if smartpos_id is None:
                script: collections.deque[Any] = (
                    self._payment_script if kind == "payment" else self._print_script
                )
            else:
                terminal = self._world.terminal(smartpos_id)
                script = terminal.payment_script if kind == "payment" else terminal.print_script
            script.extend(outcomes * times)

    def set_outcomes(
        self,
        payments: PaymentOutcome | None,
        prints: PrintOutcome | None,
        smartpos_id: str | None,
    ) -> None:
        """Set the standing outcomes of one terminal or of every terminal."""
        check_outcomes(payments, prints)
        with self._world.lock:
            if smartpos_id is None:
                self._payment_default = payments or self._payment_default
                self._print_default = prints or self._print_default
            else:
                terminal = self._world.terminal(smartpos_id)
                terminal.payments = payments or terminal.payments
                terminal.prints = prints or terminal.prints

    def _next_payment_outcome(self, terminal: TerminalState) -> PaymentOutcome | None:
        """The scripted outcome, or ``None`` for the standing one."""
        if terminal.payment_script:
            return terminal.payment_script.popleft()
        if self._payment_script:
            return self._payment_script.popleft()
        return None

    def _next_print_outcome(self, terminal: TerminalState) -> PrintOutcome | None:
        if terminal.print_script:
            return terminal.print_script.popleft()
        if self._print_script:
            return self._print_script.popleft()
        return None

    # ------------------------------------------------------------------ acting

    def run_payment(
        self,
        payment: PaymentState,
        terminal: TerminalState,
        outcome: PaymentOutcome | None,
        *,
        to: Plan | None = None,
    ) -> dict[str, Any] | None:
        """Let ``terminal`` execute ``payment`` (lock held); return the event, if any.

        ``to`` (a plan with ``to`` and ``headers``) sends the event to that URL only.
        """
        chosen = outcome or self._next_payment_outcome(terminal)
        resolved = resolve(chosen, terminal.payments or self._payment_default, Approve(), to)
        base = resolved.base
        payment.smartpos_id = terminal.smartpos_id
        if isinstance(base, NoAnswer):
            payment.status = "processando"
            return None
        assert isinstance(base, (Approve, Refuse))
        tipo, dados = self._payment_event(payment, terminal, base)
        payment.status = dados["status"]
        if isinstance(base, Approve):
            payment.autorizacao = dict(dados["autorizacao"])
        envelope = self._outbox.emit(payment.partner, tipo, dados, resolved.plan)
        if resolved.contradict:
            opposite: Approve | Refuse = Refuse() if isinstance(base, Approve) else Approve()
            tipo, dados = self._payment_event(payment, terminal, opposite)
            self._outbox.emit(payment.partner, tipo, dados, resolved.plan)
        return envelope

    def _payment_event(
        self, payment: PaymentState, terminal: TerminalState, outcome: Approve | Refuse
    ) -> tuple[str, dict[str, Any]]:
        return payment_event(
            outcome,
            self._world,
            referencia=payment.referencia,
            documento=payment.documento,
            valor=payment.valor,
            forma=payment.forma,
            parcelas=payment.parcelas,
            smartpos_id=terminal.smartpos_id,
        )

    def run_print(
        self,
        job: PrintJobState,
        terminal: TerminalState,
        outcome: PrintOutcome | None = None,
        *,
        to: Plan | None = None,
    ) -> dict[str, Any] | None:
        """Let ``terminal`` execute ``job`` (lock held); return the event, if any."""
        chosen = outcome or self._next_print_outcome(terminal)
        resolved = resolve(chosen, terminal.prints or self._print_default, PrintDone(), to)
        base = resolved.base
        if isinstance(base, NoAnswer):
            return None
        assert isinstance(base, (PrintDone, PrintFail))
        tipo, dados = self._print_event(job, terminal, base)
        job.status = dados["status"]
        envelope = self._outbox.emit(job.partner, tipo, dados, resolved.plan)
        if resolved.contradict:
            opposite: PrintDone | PrintFail = (
                PrintFail() if isinstance(base, PrintDone) else PrintDone()
            )
            tipo, dados = self._print_event(job, terminal, opposite)
            self._outbox.emit(job.partner, tipo, dados, resolved.plan)
        return envelope

    @staticmethod
    def _print_event(
        job: PrintJobState, terminal: TerminalState, outcome: PrintDone | PrintFail
    ) -> tuple[str, dict[str, Any]]:
        return print_event(
            outcome,
            referencia=job.referencia,
            documento=job.documento,
            smartpos_id=terminal.smartpos_id,
        )

    # ------------------------------------------------------------------ pairing

    def scan(
        self, qr_code: str | None, smartpos_id: str, *, to: Plan | None = None, flush: bool = True
    ) -> dict[str, Any]:
        """Read a QR code on a terminal (created when new); see ``Sandbox.scan``.

        ``qr_code`` ``None`` reads the newest QR code; ``to`` sends the event to that URL only;
        ``flush=False`` leaves the delivery to the caller (lock held by it).
        """
        world = self._world
        with world.lock:
            if qr_code is None:
                if not world.qrcodes:
                    raise SandboxError("no QR code was created yet (POST /qrcode first)")
                qr_code = next(reversed(world.qrcodes))
            qr = world.qrcodes.get(qr_code)
            if qr is None:
                raise SandboxError(f"no such QR code {qr_code!r}")
            if world.now() > qr.expires_at:
                raise QRCodeExpiredError(
                    f"QR code {qr.qr_code_id} expired at {qr.expires_at} (now {int(world.now())})"
                )
            terminal = world.terminals.get(smartpos_id)
            if terminal is None:
                terminal = TerminalState(smartpos_id, world.serial_number(), "STONE", None)
                world.terminals[smartpos_id] = terminal
            terminal.documento = qr.documento_cliente
            tipo, dados = identification_event(
                qr_code_id=qr.qr_code_id,
                referencia=qr.referencia,
                documento=qr.documento_cliente,
                smartpos_id=smartpos_id,
                numero_serie=terminal.numero_serie,
                adquirente=terminal.adquirente,
            )
            envelope = self._outbox.emit(world.customers[qr.documento_cliente], tipo, dados, to)
        if flush:
            self._outbox.flush()
        return envelope

    # ------------------------------------------------------------------ the operator queue

    def manual_queue(self, documento_cliente: str | None) -> list[Card]:
        """The manual-mode cards waiting for an operator, in arrival order."""
        documento = None if documento_cliente is None else normalize_documento(documento_cliente)
        with self._world.lock:
            return [
                Card(p.referencia, p.documento, p.identificacao or "", p.valor, p.targets)
                for p in self._world.payments.values()
                if p.status == "na_fila" and (documento_cliente is None or p.documento == documento)
            ]

    def _card(self, referencia: str) -> PaymentState:
        payment = self._world.payments.get(referencia)
        if payment is None or payment.status != "na_fila":
            raise SandboxError(f"no card {referencia!r} in the manual queue")
        return payment

    def operator_start(
        self, referencia: str, smartpos_id: str | None, outcome: PaymentOutcome | None
    ) -> dict[str, Any] | None:
        """Start a queued card on a terminal; see ``Sandbox.operator_start``."""
        check_outcomes(outcome, None)
        with self._world.lock:
            payment = self._card(referencia)
            if smartpos_id is None:
                if len(payment.targets) != 1:
                    raise SandboxError(f"choose a smartpos_id among {payment.targets}")
                smartpos_id = payment.targets[0]
            if smartpos_id not in payment.targets:
                raise SandboxError(f"{smartpos_id!r} is not a target of this card")
            envelope = self.run_payment(payment, self._world.terminals[smartpos_id], outcome)
        self._outbox.flush()
        return envelope

    def operator_cancel(self, referencia: str, mensagem_operador: str) -> dict[str, Any]:
        """Cancel a queued card; see ``Sandbox.operator_cancel``."""
        with self._world.lock:
            payment = self._card(referencia)
            terminal = self._world.terminals[payment.targets[0]]
            refuse = Refuse(
                status="cancelado",
                mensagem_operador=mensagem_operador,
                codigo_status="CANCELADO",
                executado=False,
            )
            envelope = self.run_payment(payment, terminal, refuse)
        self._outbox.flush()
        assert envelope is not None
        return envelope
