"""``smartpos demo``: a whole sale against an embedded sandbox, over real HTTP, in seconds.

What runs, all on 127.0.0.1:

- the sandbox (the service, simulated) behind a real HTTP server;
- the SDK's [`WebhookReceiver`][smartpos.webhooks.WebhookReceiver] with an SQLite inbox behind
  another one, configured as the partner's webhook URL, so events travel over HTTP like in
  production;
- a [`Worker`][smartpos.webhooks.Worker] (or ``AsyncWorker``) that claims each stored event,
  handles it and acks it, so an event delivered twice is processed once;
- a real [`smartpos.Client`][smartpos.Client] (or ``AsyncClient`` with ``--async``) against the
  sandbox, given the same store: it journals every operation and waits for outcomes there.

The sale shows the three outcomes a caller must handle, each once: a payment refused (retried
with a new referencia), approved (``create_and_wait``), and one whose answer is lost on the
network (settled by ``client.reconcile``, charged once, then ``client.wait``).

The flow is written once, as a generator of steps (call the client, wait for an event, act as
the terminal), and driven either synchronously or with asyncio: the two modes cannot drift
apart. Every wait is bounded; a failure ends the demo with exit status 1 and a message.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ._demo_report import summary as _summary
from ._http import Delivery, serve_receiver
from ._i18n import words
from ._output import EXIT_OK, CommandError, Output, format_centavos, mask

if TYPE_CHECKING:
    from smartpos import AsyncClient, Client
    from smartpos.testing import Sandbox
    from smartpos.webhooks import Event, StoreBase

__all__ = ["DEMO_SMARTPOS_ID", "run"]

DEMO_SMARTPOS_ID: Final = "SP-DEMO-0001"
"""The terminal the demo pairs: a new device, linked to the customer by the QR code."""
_SPINNER: Final = "|/-\\"
_STEPS: Final = 7
_MOTIVO: Final = "cliente pagou com outro cartão"
_MAX_RETRIES: Final = 2
"""The demo client's retries: the lost answer drops every one of its attempts."""


def _receipt(valor: int, codigo: str, referencia: str) -> str:
    """The customer receipt the demo prints on the terminal, 32 columns wide."""
    amount = format_centavos(valor)
    rows = [
        "LOJA DEMO SMARTPOS".center(32),
        "-" * 32,
        f"{'1x Cafe especial':<20}{amount:>12}",
        "-" * 32,
        f"{'TOTAL':<20}{amount:>12}",
        "Pagamento: credito 1x",
        f"Autorizacao: {codigo}",
        f"referencia: {referencia[:18]}...",
        "Obrigado e volte sempre!".center(32),
    ]
    return "\n".join(row.rstrip() for row in rows) + "\n"


# --- the steps a flow yields -----------------------------------------------------------------


@dataclass(frozen=True)
class _Call:
    """Call ``client.<resource>.<method>(*args, **kwargs)`` (``client.<method>`` for an empty
    resource); the result is sent back, or the exception when it is one of ``catch``."""

    resource: str
    method: str
    kwargs: Mapping[str, Any]
    args: tuple[Any, ...] = ()
    catch: tuple[type[Exception], ...] = ()

    def target(self, client: Any) -> Any:
        """The bound method this step calls."""
        owner = getattr(client, self.resource) if self.resource else client
        return getattr(owner, self.method)


@dataclass(frozen=True)
class _Wait:
    """Wait for the worker to process an event of one of ``tipos`` for ``referencia``.

    ``quiet``: the event is known already (``create_and_wait`` returned it); only wait for
    the worker to handle it, without a progress line.
    """

    tipos: tuple[str, ...]
    referencia: str
    why: str
    quiet: bool = False


@dataclass(frozen=True)
class _WaitDuplicate:
    """Wait for the receiver to answer a redelivery of ``event_id`` as a duplicate."""

    event_id: str


@dataclass(frozen=True)
class _Act:
    """Run a local action (the simulated terminal or customer); the result is sent back."""

    action: Callable[[], Any]


_Step = _Call | _Wait | _WaitDuplicate | _Act


# --- what the receiver and the worker saw -----------------------------------------------------


@dataclass
class _Seen:
    """Events seen by the receiver and the worker, shared between threads under one lock."""

    changed: threading.Condition = field(default_factory=threading.Condition)
    processed: list[Event] = field(default_factory=list)
    handled: collections.Counter[str] = field(default_factory=collections.Counter)
    received: list[tuple[str, str, bool]] = field(default_factory=list)
    taken: set[str] = field(default_factory=set)

    def find(self, wait: _Wait) -> Event | None:
        """Return (and mark as taken) the first processed event matching ``wait``."""
        with self.changed:
            for event in self.processed:
                if event.id in self.taken or event.tipo not in wait.tipos:
                    continue
                if getattr(event.dados, "referencia", None) == wait.referencia:
                    self.taken.add(event.id)
                    return event
        return None

    def duplicate_of(self, event_id: str) -> bool:
        """Tell whether the receiver answered a redelivery of ``event_id`` as a duplicate."""
        with self.changed:
            return any(eid == event_id and dup for eid, _, dup in self.received)


class _Demo:
    """The demo's state, its event handlers and its flow."""

    def __init__(self, args: argparse.Namespace, out: Output, sandbox: Sandbox) -> None:
        self.args = args
        self.out = out
        self.sandbox = sandbox
        self.seen = _Seen()
        self.steps: list[dict[str, Any]] = []
        self.timers: list[threading.Timer] = []
        self.referencias: dict[str, str] = {}
        self.outcomes: dict[str, Any] = {
            "refused": None,
            "approved": [],
            "reconciled": None,
            "compensated": None,
        }
        self.started = time.perf_counter()
        self._step_started = self.started

    # Receiver thread: after the answer was sent.

    def on_delivery(self, delivery: Delivery) -> None:
        """Show an event as it arrives over HTTP, marking a duplicate."""
        receipt = delivery.receipt
        envelope = receipt.envelope
        if envelope is None:
            self.out.line(
                f"  {self.out.style(words('<- rejected'), 'red')} HTTP {receipt.status_code}: "
                f"{receipt.error}"
            )
            return
        with self.seen.changed:
            self.seen.received.append((envelope.id, envelope.tipo, receipt.duplicate))
            self.seen.changed.notify_all()
        if receipt.duplicate:
            note = words(
                "HTTP {status}, DUPLICATE: already in the inbox", status=receipt.status_code
            )
            self.out.event(envelope.raw, prefix="  <- ", note=note)
        else:
            self.out.event(
                envelope.raw,
                prefix="  <- ",
                note=words("HTTP {status}, stored in the inbox", status=receipt.status_code),
                note_style="dim",
            )

    # Worker: after the claim, before the ack.

    def handle(self, event: Event) -> None:
        """The partner's event handler: record the event (the worker acks it after)."""
        with self.seen.changed:
            self.seen.handled[event.id] += 1
            self.seen.processed.append(event)
            count = self.seen.handled[event.id]
            self.seen.changed.notify_all()
        self.out.line(
            "     "
            + self.out.style(
                words("processed by the worker: claimed, handled ({count}x), acked", count=count),
                "dim",
            )
        )

    async def ahandle(self, event: Event) -> None:
        """The same handler for ``AsyncWorker``."""
        self.handle(event)

    # Output helpers.

    def step(self, number: int, title: str, code: str) -> None:
        """Close the previous step's timing and announce the next one with its SDK call."""
        self._end_step()
        self.steps.append({"step": number, "title": title, "seconds": None})
        self._step_started = time.perf_counter()
        self.out.line()
        self.out.line(self.out.style(f"[{number}/{_STEPS}] {title}", "bold"))
        for line in code.splitlines():
            self.out.line("    " + self.out.style(line, "dim"))

    def _end_step(self) -> None:
        if self.steps and self.steps[-1]["seconds"] is None:
            self.steps[-1]["seconds"] = round(time.perf_counter() - self._step_started, 3)

    def release_later(self, seconds: float) -> None:
        """The customer at the terminal: deliver the held events after ``seconds``."""
        timer = threading.Timer(seconds, self.sandbox.release_events)
        timer.daemon = True
        self.timers.append(timer)
        timer.start()

    def progress(self, text: str, elapsed: float) -> None:
        """Redraw the progress line (terminals only)."""
        frame = _SPINNER[int(elapsed * 10) % len(_SPINNER)]
        self.out.status(f"  {frame} {text} {elapsed:4.1f}s")

    def timed_out(self, what: str) -> CommandError:
        """The error for a wait that ran out, with the sandbox's last delivery problems."""
        failures = [d for d in self.sandbox.deliveries if not d.ok][-3:]
        detail = "; ".join(
            words(
                "{tipo} attempt {attempt}: {error}", tipo=d.tipo, attempt=d.attempt, error=d.error
            )
            for d in failures
        )
        return CommandError(
            words("{what} did not arrive within {wait} s", what=what, wait=f"{self.args.wait:g}")
            + (words(" (webhook deliveries failed: {detail})", detail=detail) if detail else ""),
            hint=words(
                "run it again with a longer --wait; if it keeps failing, report it with this "
                "output."
            ),
        )

    # The flow, written once for both clients.

    def flow(self) -> Generator[_Step, Any, None]:
        """The sale, step by step; the driver sends each step's result back."""
        from smartpos.testing import Sandbox

        out = self.out
        documento = Sandbox.DOCUMENTO
        valor = self.args.valor_centavos
        delay = self.args.delay

        self.step(
            1,
            words("Pair a terminal: a QR code on your screen, read by the terminal"),
            "qr = client.qrcodes.create(documento_cliente=DOCUMENTO)",
        )
        qr = yield _Call("qrcodes", "create", {"documento_cliente": documento})
        self.referencias["qrcode"] = qr.referencia
        if not self.args.no_qr and not out.json:
            from ._service import show_qrcode

            show_qrcode(out, qr.qr_code)
        out.fields(
            {
                "qrCode": qr.qr_code,
                "expiresAt": qr.expires_at.isoformat(),
                words("customer"): mask(documento),
            }
        )
        out.line(words("  the terminal {terminal} reads the QR code...", terminal=DEMO_SMARTPOS_ID))

        def scan() -> None:
            time.sleep(min(delay, 0.3))
            self.sandbox.scan(qr.qr_code, DEMO_SMARTPOS_ID)

        yield _Act(scan)
        identified = yield _Wait(("smartpos.identificado",), qr.referencia, "smartpos.identificado")
        smartpos_id = identified.dados.smartpos_id
        out.line(
            words(
                "  paired: save smartposId {terminal} for this customer.",
                terminal=out.style(smartpos_id, "bold"),
            )
        )

        charge = {
            "documento_cliente": documento,
            "valor_centavos": valor,
            "smartpos_id": smartpos_id,
            "forma_pagamento": "credito",
            "parcelas": 1,
            "timeout": self.args.wait,
        }
        self.step(
            2,
            words(
                "Charge {valor}: refused once, retried with a new referencia",
                valor=format_centavos(valor),
            ),
            "event = client.payments.create_and_wait(\n"
            f"    documento_cliente=DOCUMENTO, valor_centavos={valor},\n"
            f'    smartpos_id="{smartpos_id}", forma_pagamento="credito", parcelas=1,\n'
            f"    timeout={self.args.wait:g})  # PagamentoAprovado | PagamentoRecusado",
        )
        from smartpos.testing import Refuse

        yield _Act(
            lambda: self.sandbox.script_payments(Refuse(mensagem_operador="SALDO INSUFICIENTE"))
        )
        out.line(words("  the customer taps the card and types the PIN..."))
        refused = yield from self._sale(charge)
        self.referencias["payment_refused"] = refused.dados.referencia
        self.outcomes["refused"] = refused.dados.referencia
        resultado = refused.dados.resultado_smartpos
        reason = resultado.mensagem_operador if resultado else refused.dados.status
        out.line(
            f"  {out.style(words('refused'), 'bold', 'red')}"
            + words(
                " ({reason}): do not finalize. This attempt is over: the next one gets a new "
                "referencia.",
                reason=reason,
            )
        )
        out.line(words("  the customer tries another card..."))
        outcome = yield from self._sale(charge)
        if outcome.tipo != "pagamento.aprovado":
            raise CommandError(
                words("the terminal refused the payment ({status})", status=outcome.dados.status),
                hint=words("a new attempt needs a new referencia."),
            )
        self.referencias["payment"] = outcome.dados.referencia
        self.outcomes["approved"].append(outcome.dados.referencia)
        autorizacao = outcome.dados.autorizacao
        codigo = autorizacao.codigo if autorizacao else "?"
        out.line(
            f"  {out.style(words('approved'), 'bold', 'green')}"
            + words(
                ": finalize the sale now; keep dados.autorizacao (codigo {codigo}) for a refund.",
                codigo=codigo,
            )
        )

        self.step(
            3,
            words("The service delivers pagamento.aprovado again (a manual resend, same id)"),
            "receiver.receive(body, headers)  # " + words("the inbox already holds this id"),
        )
        yield _Act(lambda: self.sandbox.resend(outcome.id))
        yield _WaitDuplicate(outcome.id)
        out.line(
            words(
                "  answered 200 so the service stops resending; the worker does not see it again."
            )
        )

        self.step(
            4,
            words(
                "The next sale's answer is lost on the network: reconcile, never a new referencia"
            ),
            "try:\n"
            "    client.payments.create(...)\n"
            "except smartpos.OutcomeUnknownError as exc:\n"
            "    operation = client.reconcile(exc.referencia)  # "
            + words("the same bytes, same referencia")
            + "\n"
            f"    event = client.wait(exc.referencia, timeout={self.args.wait:g})",
        )
        from smartpos import OutcomeUnknownError
        from smartpos.testing import DropConnection

        attempts = _MAX_RETRIES + 1

        def lose_answers() -> None:
            self.sandbox.hold_events()
            self.sandbox.fail_next("payments", DropConnection(), times=attempts)

        yield _Act(lose_answers)
        payment = {k: v for k, v in charge.items() if k != "timeout"}
        lost = yield _Call("payments", "create", payment, catch=(OutcomeUnknownError,))
        if not isinstance(lost, OutcomeUnknownError):
            raise CommandError(
                words("the sandbox did not drop the answer"), hint=words("report it.")
            )
        referencia = lost.referencia
        self.referencias["payment_reconciled"] = referencia
        out.line(
            f"  {out.style(words('outcome unknown'), 'bold', 'yellow')}"
            + words(
                ": the connection dropped after the request was sent, {attempts} time(s). It may "
                "have been charged: a new referencia could charge twice.",
                attempts=attempts,
            )
        )
        operation = yield _Call("", "reconcile", {}, (referencia,))
        charges = yield _Act(
            lambda: sum(1 for p in self.sandbox.payments if p.referencia == referencia)
        )
        self.outcomes["reconciled"] = {
            "referencia": referencia,
            "state": operation.state,
            "charges": charges,
        }
        out.line(
            words(
                "  reconciled: resent byte for byte, referencia {referencia}; the service already "
                "had it (409 REFERENCIA_DUPLICADA): {state}, charged {charges}x.",
                referencia=referencia,
                state=operation.state,
                charges=charges,
            )
        )
        out.line(words("  the customer finishes paying..."))
        yield _Act(lambda: self.release_later(delay / 2))
        settled = yield _Call("", "wait", {"timeout": self.args.wait}, (referencia,))
        yield _Wait((settled.tipo,), referencia, settled.tipo, quiet=True)
        if settled.tipo == "pagamento.aprovado":
            self.outcomes["approved"].append(referencia)
        out.line(
            "  "
            + words(
                "{tipo}: the lost answer is settled, with one charge.", tipo=out.tipo(settled.tipo)
            )
        )

        receipt = _receipt(valor, str(codigo), outcome.dados.referencia)
        self.step(
            5,
            words("Print the receipt on the terminal, wait for impressao.concluida"),
            "event = client.print_jobs.create_and_wait(\n"
            f'    documento_cliente=DOCUMENTO, smartpos_id="{smartpos_id}", conteudo=receipt_text)',
        )
        yield _Act(self.sandbox.hold_events)
        yield _Act(lambda: self.release_later(delay / 2))
        printed = yield _Call(
            "print_jobs",
            "create_and_wait",
            {
                "documento_cliente": documento,
                "smartpos_id": smartpos_id,
                "conteudo": receipt,
                "timeout": self.args.wait,
            },
        )
        self.referencias["print_job"] = printed.dados.referencia
        yield _Wait((printed.tipo,), printed.dados.referencia, printed.tipo, quiet=True)
        if printed.tipo != "impressao.concluida":
            out.line(words("  the print failed: printing never changes the sale; print it again."))
        else:
            for line in receipt.rstrip().splitlines():
                out.line("  " + out.style("|", "dim") + " " + line)

        self.step(
            6,
            words("Refund the approved payment from its pagamento.aprovado event"),
            "refund = client.refunds.create_for(aprovado)  # " + words("total refund"),
        )
        refund = yield _Call("refunds", "create_for", {}, (outcome,))
        self.referencias["refund"] = refund.referencia
        out.line(
            words(
                "  refund requested ({status}): referencia {referencia}",
                status=refund.status or words("sent"),
                referencia=refund.referencia,
            )
        )
        yield from self._given_up(payment, charge)
        self._end_step()

    def _given_up(
        self, payment: Mapping[str, Any], charge: Mapping[str, Any]
    ) -> Generator[_Step, Any, None]:
        """Step 7: the cashier gives an attempt up, the customer pays by another, the first
        one's approval arrives late and is compensated once."""
        out = self.out
        sale = f"mesa-{uuid.uuid4().hex[:6]}"
        self.step(
            7,
            words("A sale the cashier gives up: the late approval is refunded once"),
            f'client.payments.create(..., sale="{sale}")\n'
            f'client.abandon("{sale}", motivo="{_MOTIVO}")  # ' + words("nothing is sent") + "\n"
            f'client.payments.create_and_wait(..., sale="{sale}")\n'
            f'client.compensate("{sale}")  # ' + words("the late approval, refunded once"),
        )
        from smartpos.testing import Hold

        # The terminal approves this attempt, but its event is held until released below.
        yield _Act(lambda: self.sandbox.script_payments(Hold()))
        slow = yield _Call("payments", "create", {**payment, "sale": sale})
        self.referencias["payment_abandoned"] = slow.referencia
        out.line(
            words(
                "  the terminal is slow: the cashier gives up on referencia {referencia}",
                referencia=slow.referencia,
            )
        )
        given_up = yield _Call("", "abandon", {"motivo": _MOTIVO, "operador": "caixa 1"}, (sale,))
        out.line(
            words("  abandoned, nothing sent: the sale is {state} again", state=given_up.state)
        )
        paid = yield _Call("payments", "create_and_wait", {**charge, "sale": sale})
        out.line(f"  referencia {paid.dados.referencia}: {out.tipo(paid.tipo)}")
        yield _Wait((paid.tipo,), paid.dados.referencia, paid.tipo, quiet=True)
        if paid.tipo == "pagamento.aprovado":
            self.outcomes["approved"].append(paid.dados.referencia)
        yield _Act(lambda: self.sandbox.release(slow.referencia))
        yield _Wait(("pagamento.aprovado",), slow.referencia, "pagamento.aprovado")
        out.line(
            words("  the slow attempt was approved late: a pendência, never counted for the sale")
        )
        compensations = yield _Call("", "compensate", {}, (sale,))
        again = yield _Call("", "compensate", {}, (sale,))
        referencia = compensations[0].referencia if compensations else None
        refunds = yield _Act(
            lambda: sum(1 for r in self.sandbox.refunds if r.referencia == referencia)
        )
        self.outcomes["compensated"] = {
            "sale": sale,
            "referencia": referencia,
            "refunds": refunds,
            "again": [o.referencia for o in again],
        }
        out.line(
            words(
                "  compensated: refund {referencia}; compensate again sends nothing (refunded "
                "{refunds}x)",
                referencia=referencia,
                refunds=refunds,
            )
        )

    def _sale(self, charge: Mapping[str, Any]) -> Generator[_Step, Any, Any]:
        """One payments.create_and_wait while the simulated customer pays, then the worker."""
        yield _Act(self.sandbox.hold_events)
        yield _Act(lambda: self.release_later(self.args.delay))
        event = yield _Call("payments", "create_and_wait", charge)
        self.out.line(f"  referencia {event.dados.referencia}: {self.out.tipo(event.tipo)}")
        yield _Wait((event.tipo,), event.dados.referencia, event.tipo, quiet=True)
        return event

    # Drivers.

    def _waiting(self, step: _Wait | _WaitDuplicate) -> tuple[str, Callable[[], Any]]:
        if isinstance(step, _Wait):
            what = "the worker to process {why}" if step.quiet else "waiting for {why}"
            return words(what, why=step.why), lambda: self.seen.find(step)
        return (
            words("waiting for the receiver to see the resend"),
            lambda: True if self.seen.duplicate_of(step.event_id) else None,
        )

    def _what(self, step: _Wait | _WaitDuplicate) -> str:
        if isinstance(step, _Wait):
            return words(
                "{why} for referencia {referencia}", why=step.why, referencia=step.referencia
            )
        return words("the resend of event {event_id}", event_id=step.event_id)

    def _start_wait(self, text: str, quiet: bool) -> None:
        if not self.out.interactive and not quiet:
            self.out.line(
                words("  ... {text} (up to {wait} s)", text=text, wait=f"{self.args.wait:g}")
            )

    def _end_wait(self, text: str, elapsed: float, quiet: bool) -> None:
        self.out.clear_status()
        if not quiet:
            done = words("{text}: done after {elapsed} s", text=text, elapsed=f"{elapsed:.2f}")
            self.out.line("  " + self.out.style(done, "dim"))

    def _outcome_pending(self, step: _Call, exc: Exception) -> CommandError:
        referencia = getattr(exc, "referencia", "?")
        return self.timed_out(
            words(
                "the outcome of {method} for referencia {referencia}",
                method=step.method,
                referencia=referencia,
            )
        )

    def call(self, step: _Call, client: Any) -> Any:
        """Run a ``_Call`` step with the sync client."""
        from smartpos import OutcomePendingError

        try:
            return step.target(client)(*step.args, **step.kwargs)
        except step.catch as exc:
            return exc
        except OutcomePendingError as exc:
            raise self._outcome_pending(step, exc) from exc

    async def acall(self, step: _Call, client: Any) -> Any:
        """Run a ``_Call`` step with the async client."""
        from smartpos import OutcomePendingError

        try:
            return await step.target(client)(*step.args, **step.kwargs)
        except step.catch as exc:
            return exc
        except OutcomePendingError as exc:
            raise self._outcome_pending(step, exc) from exc

    def drive(self, client: Client) -> None:
        """Run the flow with the synchronous client."""
        flow = self.flow()
        value: Any = None
        while True:
            try:
                step = flow.send(value)
            except StopIteration:
                return
            if isinstance(step, _Call):
                value = self.call(step, client)
            elif isinstance(step, _Act):
                value = step.action()
            else:
                value = self._wait_sync(step)

    def _wait_sync(self, step: _Wait | _WaitDuplicate) -> Any:
        poll = self._poller(step)
        while True:
            done, found, left = poll()
            if done:
                return found
            with self.seen.changed:
                self.seen.changed.wait(min(0.1, left))

    def _poller(self, step: _Wait | _WaitDuplicate) -> Callable[[], tuple[bool, Any, float]]:
        """Start waiting for ``step``; each call of the result checks once.

        It returns ``(True, found, 0)`` when the awaited thing arrived, else ``(False, None,
        seconds left)``, and raises when the wait timed out. Both drivers sleep between calls
        in their own way.
        """
        text, check = self._waiting(step)
        quiet = isinstance(step, _Wait) and step.quiet
        self._start_wait(text, quiet)
        started = time.perf_counter()

        def poll() -> tuple[bool, Any, float]:
            found = check()
            elapsed = time.perf_counter() - started
            if found is not None:
                self._end_wait(text, elapsed, quiet)
                return True, found, 0.0
            if elapsed >= self.args.wait:
                self.out.clear_status()
                raise self.timed_out(self._what(step))
            self.progress(text, elapsed)
            return False, None, self.args.wait - elapsed

        return poll

    async def adrive(self, client: AsyncClient) -> None:
        """Run the same flow with the asyncio client."""
        flow = self.flow()
        value: Any = None
        while True:
            try:
                step = flow.send(value)
            except StopIteration:
                return
            if isinstance(step, _Call):
                value = await self.acall(step, client)
            elif isinstance(step, _Act):
                value = await asyncio.to_thread(step.action)
            else:
                value = await self._wait_async(step)

    async def _wait_async(self, step: _Wait | _WaitDuplicate) -> Any:
        poll = self._poller(step)
        while True:
            done, found, left = poll()
            if done:
                return found
            await asyncio.sleep(min(0.02, left))

    def cancel_timers(self) -> None:
        """Stop the simulated customer's pending timers."""
        for timer in self.timers:
            timer.cancel()


_CLIENT_OPTIONS: Final[dict[str, Any]] = {
    "timeout": 5.0,
    "max_retries": _MAX_RETRIES,
    # Retries of the lost answer, quickly: the demo shows them, it does not wait for them.
    "retry_backoff": 0.05,
}
_WORKER_OPTIONS: Final[dict[str, Any]] = {
    "lease": 10.0,
    "poll_interval": 0.02,
    "base_backoff": 0.05,
    "max_backoff": 1.0,
}


def _drained(store: StoreBase, seconds: float = 5.0) -> None:
    """Wait (bounded) until the worker has finished every stored event.

    ``client.compensate`` stores an event of the SDK's own at the very end
    (``smartpos.compensacao.aceita``): the inbox the demo leaves holds every event done.
    """
    from smartpos.webhooks import EventState

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not store.list(state=EventState.PENDING, limit=1) and not store.list(
            state=EventState.CLAIMED, limit=1
        ):
            return
        time.sleep(0.02)


def _run_sync(demo: _Demo, base_url: str, store: StoreBase) -> None:
    from smartpos import Client
    from smartpos.testing import Sandbox
    from smartpos.webhooks import Worker

    worker = Worker(store, demo.handle, owner="smartpos-demo", **_WORKER_OPTIONS)
    stop = threading.Event()
    thread = threading.Thread(
        target=worker.run, args=(stop,), name="smartpos-demo-worker", daemon=True
    )
    thread.start()
    try:
        with Client(
            api_key=Sandbox.API_KEY, base_url=base_url, store=store, **_CLIENT_OPTIONS
        ) as client:
            demo.drive(client)
        _drained(store)
    finally:
        stop.set()
        worker.stop()
        thread.join(timeout=5.0)


async def _run_async(demo: _Demo, base_url: str, store: StoreBase) -> None:
    from smartpos import AsyncClient
    from smartpos.testing import Sandbox
    from smartpos.webhooks import AsyncWorker

    worker = AsyncWorker(store, demo.ahandle, owner="smartpos-demo-async", **_WORKER_OPTIONS)
    stop = asyncio.Event()
    task = asyncio.create_task(worker.run(stop))
    try:
        async with AsyncClient(
            api_key=Sandbox.API_KEY, base_url=base_url, store=store, **_CLIENT_OPTIONS
        ) as client:
            await demo.adrive(client)
        await asyncio.to_thread(_drained, store)
    finally:
        stop.set()
        worker.stop()
        try:
            await asyncio.wait_for(task, 5.0)
        except asyncio.TimeoutError:
            task.cancel()


def run(args: argparse.Namespace, out: Output) -> int:
    """Run the demo; every wait is bounded by ``--wait``.

    Args:
        args: ``use_async``, ``store``, ``valor_centavos``, ``wait``, ``delay``, ``no_qr``.
        out: The output.

    Returns:
        0 when the whole flow ran and every event was processed exactly once.

    Raises:
        CommandError: A step failed or an event did not arrive in time.
    """
    from smartpos.testing import Sandbox
    from smartpos.webhooks import SQLiteStore, WebhookReceiver

    with contextlib.ExitStack() as stack:
        if args.store:
            store_path = args.store
        else:
            tmp = stack.enter_context(
                tempfile.TemporaryDirectory(prefix="smartpos-demo-", ignore_cleanup_errors=True)
            )
            store_path = str(Path(tmp) / "inbox.sqlite3")
        store = stack.enter_context(SQLiteStore(store_path))
        sandbox = stack.enter_context(Sandbox())
        demo = _Demo(args, out, sandbox)
        stack.callback(demo.cancel_timers)
        receiver_url = stack.enter_context(
            serve_receiver(WebhookReceiver(store), "127.0.0.1", 0, demo.on_delivery)
        )
        sandbox.set_webhook(receiver_url)
        base_url = stack.enter_context(sandbox.serve())
        title = words("smartpos demo - a whole sale against the sandbox")
        out.line(out.style("smartpos demo", "bold") + title.removeprefix("smartpos demo"))
        out.fields(
            {
                words("service"): words("{url}  (the sandbox, over real HTTP)", url=base_url),
                "webhook": words("{url}  (WebhookReceiver + SQLite inbox)", url=receiver_url),
                words("inbox"): store_path,
                words("client"): (
                    "smartpos.AsyncClient (asyncio)" if args.use_async else "smartpos.Client"
                ),
            }
        )
        if args.use_async:
            asyncio.run(_run_async(demo, base_url, store))
        else:
            _run_sync(demo, base_url, store)
        _summary(
            demo, out, store=store, store_path=store_path, kept=bool(args.store), base_url=base_url
        )
    return EXIT_OK
