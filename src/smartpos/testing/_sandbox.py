"""The sandbox: the whole service simulated in process, and the facade a test talks to.

:class:`Sandbox` only delegates. The pieces, in the order a request meets them:

- ``_front.Front``: the one place where a request meets its planned fault (``_faults.FaultPlan``),
  then the service; it logs the request and flushes the outbox. ``transport()`` (sync and async)
  and ``serve()`` (``_server``) are thin drivers of it.
- ``_service.Service``: the pure ``Request -> Response`` function: endpoints over raw camelCase
  dicts written from the spec (``_rules`` holds the checks that need no state);
  ``_control.Control`` answers the sandbox's own ``/_sandbox/`` endpoints.
- ``_terminals.Terminals``: what terminals do (scripted outcomes, pairing, the operator queue).
- ``_outbox.Outbox``: events emitted under the lock, delivered after it (``_delivery``).
- ``_world.World``: every piece of state, behind one lock; ``_records`` are its snapshots.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import time
from collections.abc import Callable
from typing import Any, ClassVar

import httpx

from . import _rules
from ._control import Control
from ._delivery import DeliveryAttempt, WebhookTarget
from ._faults import Endpoint, Fault, FaultPlan
from ._front import Front
from ._httpx import from_httpx, to_httpx
from ._outbox import Outbox
from ._outcomes import PaymentOutcome, PrintOutcome
from ._records import (
    Card,
    Customer,
    KeyStatus,
    Partner,
    Payment,
    PrintJob,
    RecordedRequest,
    SandboxQRCode,
    SandboxRefund,
    SandboxTerminal,
)
from ._service import Service
from ._terminals import Terminals
from ._world import World

__all__ = ["Sandbox", "SandboxTransport"]

_BRT = dt.timezone(dt.timedelta(hours=-3))


class Sandbox:
    """An in-process simulator of the whole service, ready to use with a default world.

    A new sandbox has one partner (:attr:`API_KEY`, webhook configured, its deliveries recorded
    in :attr:`events`), one customer (:attr:`DOCUMENTO`) and one terminal (:attr:`SMARTPOS_ID`)
    linked to it. Terminals approve payments and finish print jobs unless scripted otherwise.

    Args:
        default_world: Create the default partner, customer and terminal.
        seed: Seed for generated ids and authorization data, for reproducible runs.
        clock: Returns the current Unix time; :meth:`advance` moves it forward.
        qr_code_ttl: Seconds a QR code stays valid (``expiresAt``).
        webhook_attempts: Attempts per delivery (the first plus retries of non-2xx answers).
        webhook_backoff: Seconds before the first retry to a URL, doubled on each retry.
            In-process targets are retried at once, so tests stay deterministic.
        webhook_timeout: Seconds the sandbox waits for a URL target to answer (spec: 1-2 s).
        event_timezone: The UTC offset of ``criadoEm`` (default ``-03:00``, Brasília).
    """

    API_KEY: ClassVar[str] = "sandbox-key"
    """The default partner's API key."""
    DOCUMENTO: ClassVar[str] = "52998224725"
    """The default customer's CPF."""
    SMARTPOS_ID: ClassVar[str] = "SP-SANDBOX-1"
    """The default terminal, linked to :attr:`DOCUMENTO`."""
    MAX_VALOR_CENTAVOS: ClassVar[int] = _rules.MAX_VALOR_CENTAVOS
    """The largest ``valorCentavos`` accepted."""
    MAX_PARCELAS: ClassVar[int] = _rules.MAX_PARCELAS
    """The largest ``parcelas`` accepted."""

    def __init__(
        self,
        *,
        default_world: bool = True,
        seed: int | None = None,
        clock: Callable[[], float] = time.time,
        qr_code_ttl: float = 300.0,
        webhook_attempts: int = 4,
        webhook_backoff: float = 0.05,
        webhook_timeout: float = 2.0,
        event_timezone: dt.tzinfo = _BRT,
    ) -> None:
        if webhook_attempts < 1:
            raise ValueError("webhook_attempts must be at least 1")
        self._world = World(
            seed=seed, clock=clock, qr_code_ttl=qr_code_ttl, event_timezone=event_timezone
        )
        self._faults = FaultPlan()
        self._outbox = Outbox(
            self._world,
            self._faults,
            attempts=webhook_attempts,
            backoff=webhook_backoff,
            timeout=webhook_timeout,
        )
        self._terminals = Terminals(self._world, self._outbox)
        service = Service(self._world, self._terminals, Control(self._terminals, self._outbox))
        self._front = Front(service, self._faults, self._world, self._outbox)
        if default_world:
            self.add_partner(self.API_KEY, name="sandbox")
            self.add_customer(self.DOCUMENTO)
            self.add_terminal(
                self.SMARTPOS_ID,
                documento_cliente=self.DOCUMENTO,
                numero_serie_terminal="SN-SANDBOX-0001",
            )

    # ------------------------------------------------------------------ life cycle

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the delivery thread (pending URL deliveries are abandoned); idempotent."""
        self._outbox.close()

    def __repr__(self) -> str:
        world = self._world
        with world.lock:
            return (
                f"<Sandbox partners={len(world.partners)} customers={len(world.customers)} "
                f"terminals={len(world.terminals)} events={self._outbox.delivered}>"
            )

    # ------------------------------------------------------------------ clock

    def now(self) -> float:
        """Return the sandbox's current Unix time (the clock plus every :meth:`advance`).

        Returns:
            Seconds since the epoch.
        """
        return self._world.now()

    def advance(self, seconds: float) -> None:
        """Move the sandbox's clock forward, e.g. to expire a QR code without waiting.

        Args:
            seconds: How far to move it.
        """
        self._world.advance(seconds)

    # ------------------------------------------------------------------ world building

    def add_partner(
        self,
        api_key: str,
        *,
        name: str | None = None,
        webhook: WebhookTarget | bool = True,
        key_status: KeyStatus = "active",
    ) -> Partner:
        """Add a partner with one API key.

        Args:
            api_key: Its key (the ``x-api-key`` header).
            name: A name for reprs; generated when ``None``.
            webhook: ``True``: configured, deliveries recorded in :attr:`events` only;
                ``False``: not configured (payments answer ``WEBHOOK_NAO_CONFIGURADO``);
                or a target also receiving every delivery: a loopback URL, a callable taking
                the envelope dict, or an object with ``receive(body, headers)``.
            key_status: ``"rotated"`` or ``"inactive"`` keys answer ``401 API_KEY_INVALIDA``.

        Returns:
            The new partner.

        Raises:
            SandboxError: The key or the name is taken.
        """
        return self._world.add_partner(api_key, name, webhook, key_status)

    def set_webhook(self, webhook: WebhookTarget | bool, *, api_key: str = API_KEY) -> None:
        """Change where a partner's events go (see ``webhook`` in :meth:`add_partner`).

        Args:
            webhook: The new target, ``True`` (recorded only) or ``False`` (not configured).
            api_key: Any key of the partner.

        Raises:
            SandboxError: No partner has that key.
        """
        self._world.set_webhook(webhook, api_key)

    def set_key_status(self, api_key: str, status: KeyStatus) -> None:
        """Change a key's state; only ``"active"`` keys are accepted by the service.

        Args:
            api_key: The key.
            status: ``"active"``, ``"rotated"`` or ``"inactive"``.

        Raises:
            SandboxError: No partner has that key.
        """
        self._world.set_key_status(api_key, status)

    def rotate_key(self, api_key: str, new_api_key: str) -> None:
        """Rotate a partner's key: the old one answers ``API_KEY_INVALIDA``, the new one works.

        Args:
            api_key: The current key.
            new_api_key: The key that replaces it.

        Raises:
            SandboxError: No partner has ``api_key``, or ``new_api_key`` is taken.
        """
        self._world.rotate_key(api_key, new_api_key)

    def add_customer(self, documento_cliente: str, *, api_key: str = API_KEY) -> Customer:
        """Add a customer owned by the partner that has ``api_key``.

        Args:
            documento_cliente: A valid CPF or CNPJ (alphanumeric too), masked or not.
            api_key: Any key of the owning partner.

        Returns:
            The customer, with its normalized document.

        Raises:
            SandboxError: The document is not a valid CPF/CNPJ or the customer exists.
        """
        return self._world.add_customer(documento_cliente, api_key)

    def add_terminal(
        self,
        smartpos_id: str,
        *,
        documento_cliente: str | None = None,
        numero_serie_terminal: str | None = None,
        adquirente: str = "STONE",
        payments: PaymentOutcome | None = None,
        prints: PrintOutcome | None = None,
    ) -> SandboxTerminal:
        """Add a terminal, linked to a customer or waiting to be paired by :meth:`scan`.

        Args:
            smartpos_id: Its public id.
            documento_cliente: The customer it is linked to; ``None`` for an unlinked terminal.
            numero_serie_terminal: Its serial number; generated when ``None``.
            adquirente: The acquirer it reports.
            payments: What it does with every payment unless scripted (default: approve).
            prints: What it does with every print job unless scripted (default: print).

        Returns:
            The terminal.

        Raises:
            SandboxError: The id is taken or the customer does not exist.
        """
        return self._world.add_terminal(
            smartpos_id, documento_cliente, numero_serie_terminal, adquirente, payments, prints
        )

    def link_terminal(self, smartpos_id: str, documento_cliente: str | None) -> None:
        """Link a terminal to a customer without a QR code, or unlink it with ``None``.

        Args:
            smartpos_id: The terminal.
            documento_cliente: The customer, or ``None``.

        Raises:
            SandboxError: Unknown terminal or customer.
        """
        self._world.link_terminal(smartpos_id, documento_cliente)

    @property
    def partners(self) -> list[Partner]:
        """Every partner."""
        return self._world.list_partners()

    @property
    def customers(self) -> list[Customer]:
        """Every customer."""
        return self._world.list_customers()

    def terminals(self, documento_cliente: str | None = None) -> list[SandboxTerminal]:
        """List terminals, all of them or those linked to one customer.

        Args:
            documento_cliente: The customer (masked or not), or ``None`` for every terminal.

        Returns:
            The terminals in creation order.
        """
        return self._world.list_terminals(documento_cliente)

    # ------------------------------------------------------------------ scripting terminals

    def script_payments(self, *outcomes: PaymentOutcome, smartpos_id: str | None = None) -> None:
        """Queue what the next payments do, in order, before terminals fall back to defaults.

        Args:
            *outcomes: :class:`Approve`, :class:`Refuse` or :class:`NoAnswer`, one per payment.
            smartpos_id: Only payments on this terminal; ``None``: the next payments on any
                terminal (a terminal's own script is used first).

        Raises:
            TypeError: An outcome is not a payment outcome.
            SandboxError: Unknown terminal.
        """
        self._terminals.script_payments(outcomes, smartpos_id)

    def script_prints(self, *outcomes: PrintOutcome, smartpos_id: str | None = None) -> None:
        """Queue what the next print jobs do, in order, before terminals fall back to defaults.

        Args:
            *outcomes: :class:`PrintDone`, :class:`PrintFail` or :class:`NoAnswer`.
            smartpos_id: Only print jobs on this terminal; ``None``: on any terminal.

        Raises:
            TypeError: An outcome is not a print outcome.
            SandboxError: Unknown terminal.
        """
        self._terminals.script_prints(outcomes, smartpos_id)

    def set_outcomes(
        self,
        *,
        payments: PaymentOutcome | None = None,
        prints: PrintOutcome | None = None,
        smartpos_id: str | None = None,
    ) -> None:
        """Set what terminals do from now on when nothing is scripted.

        Args:
            payments: The standing payment outcome (unchanged when ``None``).
            prints: The standing print outcome (unchanged when ``None``).
            smartpos_id: One terminal; ``None`` sets the sandbox-wide default.

        Raises:
            TypeError: An outcome of the wrong kind.
            SandboxError: Unknown terminal.
        """
        self._terminals.set_outcomes(payments, prints, smartpos_id)

    # ------------------------------------------------------------------ faults

    def fail_next(self, endpoint: Endpoint, fault: Fault, *, times: int = 1) -> None:
        """Inject a fault into the next ``times`` requests to an endpoint.

        Args:
            endpoint: ``"qrcodes"``, ``"payments"``, ``"refunds"``, ``"print_jobs"``,
                ``"terminals"`` or ``"*"`` for any of them.
            fault: What happens (see :mod:`smartpos.testing` faults).
            times: How many requests it applies to.

        Raises:
            ValueError: ``times`` below 1 or an unknown endpoint.
        """
        self._faults.fail_next(endpoint, fault, times)

    def clear_faults(self) -> None:
        """Forget every fault not yet used, webhook faults included."""
        self._faults.clear()

    def fail_webhook(self, *, times: int = 1, status_code: int = 500) -> None:
        """Make the next delivery attempts fail as if the target answered ``status_code``.

        The target is not called for these attempts; the sandbox retries as it does for a real
        non-2xx answer, so the event arrives on a later attempt (if attempts remain).

        Args:
            times: How many attempts fail.
            status_code: The status recorded for them.
        """
        self._faults.fail_webhook(status_code, times)

    def slow_webhook(self, *, times: int = 1) -> None:
        """Make the next delivery attempts reach the target but time out on the sandbox's side.

        This is what a receiver slower than the spec's 1-2 seconds causes: it got the event,
        the service did not get the answer in time and delivers the same id again.

        Args:
            times: How many attempts time out.
        """
        self._faults.fail_webhook(None, times)

    # ------------------------------------------------------------------ HTTP

    def transport(self) -> SandboxTransport:
        """Return an httpx transport serving this sandbox to ``httpx.Client`` and ``AsyncClient``.

        Returns:
            A transport; it holds no resources and needs no closing.
        """
        return SandboxTransport(self)

    def serve(
        self, host: str = "127.0.0.1", port: int = 0
    ) -> contextlib.AbstractContextManager[str]:
        """Serve this sandbox over real HTTP on a loopback address while the block runs.

        Args:
            host: A loopback address.
            port: The port; 0 picks a free one.

        Returns:
            A context manager giving the base URL, e.g. ``"http://127.0.0.1:54321"``.

        Raises:
            ValueError: ``host`` is not a loopback address.
        """
        # Imported here: the HTTP server's modules are not needed by in-process tests.
        from ._server import serve

        return serve(self._front, host, port)

    def handle(self, request: httpx.Request) -> httpx.Response:
        """Answer one request as the service would, faults included (sync: latency sleeps).

        Args:
            request: The request; its body must be readable.

        Returns:
            The response.

        Raises:
            httpx.ConnectError: A :class:`ConnectionRefused` fault (nothing processed).
            httpx.RemoteProtocolError: A :class:`DropConnection` fault (after processing).
            httpx.ReadTimeout: A :class:`ReadTimeout` fault (after processing).
        """
        request.read()
        return to_httpx(self._front.handle(from_httpx(request)), request)

    # ------------------------------------------------------------------ pairing and operator

    def scan(self, qr_code: str, smartpos_id: str) -> dict[str, Any]:
        """Read a QR code on a terminal: link it to the customer, emit ``smartpos.identificado``.

        An unknown ``smartpos_id`` is a new device: the terminal is created.

        Args:
            qr_code: The ``qrCode`` value returned by ``POST /qrcode``.
            smartpos_id: The terminal that reads it.

        Returns:
            The event envelope.

        Raises:
            SandboxError: No such QR code.
            QRCodeExpiredError: Its ``expiresAt`` has passed; nothing is linked or emitted.
        """
        return self._terminals.scan(qr_code, smartpos_id)

    @property
    def qrcodes(self) -> list[SandboxQRCode]:
        """Every QR code created, in creation order."""
        return self._world.list_qrcodes()

    def manual_queue(self, documento_cliente: str | None = None) -> list[Card]:
        """List the manual-mode cards waiting for an operator.

        Args:
            documento_cliente: Only this customer's cards; ``None`` for all.

        Returns:
            The cards in arrival order.
        """
        return self._terminals.manual_queue(documento_cliente)

    def operator_start(
        self,
        referencia: str,
        *,
        smartpos_id: str | None = None,
        outcome: PaymentOutcome | None = None,
    ) -> dict[str, Any] | None:
        """Start a queued manual-mode card on a terminal, as its operator would.

        Args:
            referencia: The card's payment referencia.
            smartpos_id: The terminal the operator uses; may be omitted when the card has one
                target.
            outcome: What the terminal does; ``None`` uses the scripts and defaults.

        Returns:
            The event envelope, or ``None`` for :class:`NoAnswer`.

        Raises:
            SandboxError: No such card, or the terminal is not one of its targets.
            TypeError: ``outcome`` is not a payment outcome.
        """
        return self._terminals.operator_start(referencia, smartpos_id, outcome)

    def operator_cancel(
        self, referencia: str, *, mensagem_operador: str = "CANCELADO PELO OPERADOR"
    ) -> dict[str, Any]:
        """Cancel a queued card: it leaves the queue and ``pagamento.recusado`` is emitted.

        Args:
            referencia: The card's payment referencia.
            mensagem_operador: The operator message of the event.

        Returns:
            The event envelope (``dados.status`` is ``"cancelado"``).

        Raises:
            SandboxError: No such card.
        """
        return self._terminals.operator_cancel(referencia, mensagem_operador)

    # ------------------------------------------------------------------ records

    @property
    def payments(self) -> list[Payment]:
        """Every payment accepted, in arrival order."""
        return self._world.list_payments()

    def payment(self, referencia: str) -> Payment:
        """Return one accepted payment.

        Args:
            referencia: Its referencia.

        Returns:
            The payment.

        Raises:
            SandboxError: No payment has that referencia.
        """
        return self._world.get_payment(referencia)

    @property
    def refunds(self) -> list[SandboxRefund]:
        """Every refund accepted, in arrival order."""
        return self._world.list_refunds()

    @property
    def print_jobs(self) -> list[PrintJob]:
        """Every print job accepted, in arrival order."""
        return self._world.list_print_jobs()

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request the sandbox saw, answered or not, in arrival order."""
        return self._world.list_requests()

    # ------------------------------------------------------------------ events

    @property
    def events(self) -> list[dict[str, Any]]:
        """Every envelope delivered so far (one entry per delivery, resends included)."""
        return self._outbox.events

    @property
    def deliveries(self) -> list[DeliveryAttempt]:
        """Every delivery attempt, retries included, in order."""
        return self._outbox.deliveries

    def wait_for_events(self, count: int, timeout: float = 5.0) -> list[dict[str, Any]]:
        """Wait until at least ``count`` envelopes were delivered (for URL targets).

        Args:
            count: How many envelopes :attr:`events` must hold.
            timeout: Seconds to wait at most.

        Returns:
            :attr:`events` at that moment.

        Raises:
            TimeoutError: Fewer events arrived in time.
        """
        return self._outbox.wait_for_events(count, timeout)

    def wait_for_deliveries(self, timeout: float = 5.0) -> None:
        """Wait until no delivery to a URL is queued or running.

        Args:
            timeout: Seconds to wait at most.

        Raises:
            TimeoutError: Deliveries were still pending.
        """
        self._outbox.wait_for_deliveries(timeout)

    def resend(self, event_id: str) -> None:
        """Deliver an event again with the same ``id``, like the service's manual resend.

        Args:
            event_id: The envelope's ``id``.

        Raises:
            SandboxError: No event has that id.
        """
        self._outbox.resend(event_id)

    def hold_events(self) -> None:
        """Hold every new delivery until :meth:`release_events` (to deliver out of order)."""
        self._outbox.hold()

    @property
    def held_events(self) -> list[dict[str, Any]]:
        """The envelopes held by :meth:`hold_events`, in the order they were emitted."""
        return self._outbox.held

    def release_events(self, *, reverse: bool = False) -> list[dict[str, Any]]:
        """Stop holding and deliver the held envelopes, in emission order or reversed.

        Args:
            reverse: Deliver the newest first.

        Returns:
            The envelopes in the order they were handed to delivery.
        """
        return self._outbox.release(reverse=reverse)


class SandboxTransport(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """An httpx transport serving a :class:`Sandbox` to both ``Client`` and ``AsyncClient``.

    Args:
        sandbox: The sandbox to serve.
    """

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Answer a request from ``httpx.Client`` (latency faults use ``time.sleep``).

        Args:
            request: The request.

        Returns:
            The response.
        """
        return self.sandbox.handle(request)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Answer a request from ``httpx.AsyncClient`` (latency faults use ``asyncio.sleep``).

        Args:
            request: The request.

        Returns:
            The response.
        """
        import asyncio

        await request.aread()
        front = self.sandbox._front
        exchange = front.begin(from_httpx(request))
        if exchange.delay is not None:
            await asyncio.sleep(exchange.delay)
        return to_httpx(front.answer(exchange), request)
