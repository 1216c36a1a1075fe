"""What simulated terminals do: outcomes (scripted and standing), pairing, the operator queue.

A terminal acts under the world's lock and emits its event into the outbox; the methods a test
calls directly (:meth:`Terminals.scan`, the operator's) flush the outbox once the lock is free.
"""

from __future__ import annotations

import collections
from typing import Any

from ._documents import normalize_documento
from ._errors import QRCodeExpiredError, SandboxError
from ._outbox import Outbox
from ._outcomes import (
    Approve,
    NoAnswer,
    PaymentOutcome,
    PrintDone,
    PrintFail,
    PrintOutcome,
    Refuse,
    check_outcomes,
)
from ._records import Card
from ._world import PaymentState, PrintJobState, TerminalState, World

__all__ = ["Terminals", "valor_formatado"]

_TIPO_PAGAMENTO = {"credito": "CREDITO", "debito": "DEBITO", "pix": "PIX", "voucher": "VOUCHER"}


def valor_formatado(centavos: int) -> str:
    """Format cents as the spec's ``valorFormatado``: a decimal with a point (``"12.34"``).

    Args:
        centavos: The amount in cents.

    Returns:
        The formatted amount.
    """
    return f"{centavos // 100}.{centavos % 100:02d}"


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

    def script_payments(
        self, outcomes: tuple[PaymentOutcome, ...], smartpos_id: str | None
    ) -> None:
        """Queue what the next payments do (on one terminal, or on any)."""
        for outcome in outcomes:
            check_outcomes(outcome, None)
        with self._world.lock:
            script = (
                self._payment_script
                if smartpos_id is None
                else self._world.terminal(smartpos_id).payment_script
            )
            script.extend(outcomes)

    def script_prints(self, outcomes: tuple[PrintOutcome, ...], smartpos_id: str | None) -> None:
        """Queue what the next print jobs do (on one terminal, or on any)."""
        for outcome in outcomes:
            check_outcomes(None, outcome)
        with self._world.lock:
            script = (
                self._print_script
                if smartpos_id is None
                else self._world.terminal(smartpos_id).print_script
            )
            script.extend(outcomes)

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

    def _next_payment_outcome(self, terminal: TerminalState) -> PaymentOutcome:
        if terminal.payment_script:
            return terminal.payment_script.popleft()
        if self._payment_script:
            return self._payment_script.popleft()
        return terminal.payments or self._payment_default

    def _next_print_outcome(self, terminal: TerminalState) -> PrintOutcome:
        if terminal.print_script:
            return terminal.print_script.popleft()
        if self._print_script:
            return self._print_script.popleft()
        return terminal.prints or self._print_default

    # ------------------------------------------------------------------ acting

    def run_payment(
        self, payment: PaymentState, terminal: TerminalState, outcome: PaymentOutcome | None
    ) -> dict[str, Any] | None:
        """Let ``terminal`` execute ``payment`` (lock held); return the event, if any."""
        world = self._world
        outcome = outcome or self._next_payment_outcome(terminal)
        payment.smartpos_id = terminal.smartpos_id
        if isinstance(outcome, NoAnswer):
            payment.status = "processando"
            return None
        dados: dict[str, Any] = {
            "referencia": payment.referencia,
            "documentoCliente": payment.documento,
            "status": "aprovado" if isinstance(outcome, Approve) else outcome.status,
            "valorCentavos": payment.valor,
            "valorFormatado": valor_formatado(payment.valor),
        }
        if payment.forma is not None:
            dados["formaPagamento"] = payment.forma
        dados["parcelas"] = payment.parcelas or 1
        dados["smartposId"] = terminal.smartpos_id
        if isinstance(outcome, Approve):
            autorizacao = {
                "codigo": outcome.codigo or world.alnum(6),
                "numeroTransacao": outcome.numero_transacao or world.digits(12),
                "dadosFinalizacao": outcome.dados_finalizacao
                or f"{world.digits(6)}|{world.alnum(12)}|{world.digits(4)}",
                "tipoPagamento": outcome.tipo_pagamento
                or _TIPO_PAGAMENTO.get(payment.forma or "credito", "CREDITO"),
            }
            payment.autorizacao = autorizacao
            dados["autorizacao"] = dict(autorizacao)
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
        payment.status = dados["status"]
        return self._outbox.emit(payment.partner, tipo, dados)

    def run_print(self, job: PrintJobState, terminal: TerminalState) -> None:
        """Let ``terminal`` execute ``job`` (lock held)."""
        outcome = self._next_print_outcome(terminal)
        if isinstance(outcome, NoAnswer):
            return
        if isinstance(outcome, PrintDone):
            job.status, executado, tipo = "concluida", True, "impressao.concluida"
        else:
            assert isinstance(outcome, PrintFail)
            job.status, executado, tipo = outcome.status, outcome.executado, "impressao.falhou"
        dados = {
            "referencia": job.referencia,
            "documentoCliente": job.documento,
            "status": job.status,
            "smartposId": terminal.smartpos_id,
            "resultadoSmartPOS": {
                "executado": executado,
                "codigoStatus": outcome.codigo_status,
                "mensagemOperador": outcome.mensagem_operador,
            },
        }
        self._outbox.emit(job.partner, tipo, dados)

    # ------------------------------------------------------------------ pairing

    def scan(self, qr_code: str, smartpos_id: str) -> dict[str, Any]:
        """Read a QR code on a terminal (created when new); see ``Sandbox.scan``."""
        world = self._world
        with world.lock:
            qr = world.qrcodes.get(qr_code)
            if qr is None:
                raise SandboxError("no such QR code")
            if world.now() > qr.expires_at:
                raise QRCodeExpiredError(
                    f"QR code {qr.qr_code_id} expired at {qr.expires_at} (now {int(world.now())})"
                )
            terminal = world.terminals.get(smartpos_id)
            if terminal is None:
                terminal = TerminalState(smartpos_id, world.serial_number(), "STONE", None)
                world.terminals[smartpos_id] = terminal
            terminal.documento = qr.documento_cliente
            envelope = self._outbox.emit(
                world.customers[qr.documento_cliente],
                "smartpos.identificado",
                {
                    "qrCodeId": qr.qr_code_id,
                    "referencia": qr.referencia,
                    "documentoCliente": qr.documento_cliente,
                    "smartposId": smartpos_id,
                    "numeroSerieTerminal": terminal.numero_serie,
                    "adquirente": terminal.adquirente,
                },
            )
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
