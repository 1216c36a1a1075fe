"""The sandbox: the whole service simulated in process, and the facade a test talks to.

[`Sandbox`][smartpos.testing.Sandbox] only delegates. The pieces, in the order a request meets them:

- ``_front.Front``: the one place where a request meets its planned fault (``_faults.FaultPlan``),
  then the service; it logs the request and flushes the outbox. ``transport()`` (sync and async)
  and ``serve()`` (``_server``) are thin drivers of it.
- ``_service.Service``: the pure ``Request -> Response`` function: endpoints over raw camelCase
  dicts written from the spec (``_rules`` holds the checks that need no state);
  ``_control.Control`` answers the control API under ``/_sandbox/v1/`` by calling this facade's
  own methods (each route names its twin), outcomes and faults read by ``_vocabulary``.
- ``_terminals.Terminals``: what terminals do (scripted outcomes, pairing, the operator queue).
- ``_outbox.Outbox``: events emitted under the lock, delivered after it (``_delivery``).
- ``_world.World``: every piece of state, behind one lock; ``_records`` are its snapshots.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import time
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, cast

import httpx

from . import _rules
from ._control import Control
from ._delivery import (
    DEFAULT_ATTEMPTS,
    DEFAULT_BACKOFF,
    DeliveryAttempt,
    WebhookTarget,
    check_headers,
    check_schedule,
    check_target,
)
from ._faults import Endpoint, Fault, FaultPlan
from ._front import Front
from ._httpx import SandboxTransport, from_httpx, to_httpx
from ._outbox import Outbox, Plan
from ._outcomes import Outcome, PaymentOutcome, PrintOutcome
from ._records import (
    Card,
    Customer,
    KeyStatus,
    LogEntry,
    Partner,
    Payment,
    PrintJob,
    RecordedRequest,
    SandboxQRCode,
    SandboxRefund,
    SandboxTerminal,
)
from ._service import Service
from ._signing import WebhookSigning
from ._terminals import Terminals
from ._vocabulary import WebhookFault, endpoint_name, fault_from_json, outcome_from_json
from ._world import DEFAULT_LOG_LIMIT, World

__all__ = ["Sandbox"]

_BRT = dt.timezone(dt.timedelta(hours=-3))

_OutcomeLike = Outcome | str | Mapping[str, Any]
"""An outcome object, or the same in words (``"recusar"``, ``"atraso 5"``) or as JSON."""


def _check_signing(signing: object) -> None:
    if signing is not None and not isinstance(signing, WebhookSigning):
        raise TypeError(
            "webhook signing is a smartpos.testing.WebhookSigning(scheme, secret, **options) "
            f"or None, not {type(signing).__name__}"
        )


def _read(kind: str, value: Any) -> Any:
    """An outcome given as words or JSON becomes the object; objects pass through."""
    return outcome_from_json(kind, value) if isinstance(value, (str, Mapping)) else value


class Sandbox:
    """An in-process simulator of the whole service, ready to use with a default world.

    A new sandbox has one partner ([`API_KEY`][smartpos.testing.Sandbox.API_KEY], webhook
    configured, its deliveries recorded in [`events`][smartpos.testing.Sandbox.events]), one
    customer ([`DOCUMENTO`][smartpos.testing.Sandbox.DOCUMENTO]) and one terminal
    ([`SMARTPOS_ID`][smartpos.testing.Sandbox.SMARTPOS_ID]) linked to it. Terminals approve payments
    and finish print jobs unless scripted otherwise.

    Args:
        default_world: Create the default partner, customer and terminal.
        seed: Seed for generated ids and authorization data, for reproducible runs.
        clock: Returns the current Unix time; [`advance`][smartpos.testing.Sandbox.advance] moves it
            forward.
        qr_code_ttl: Seconds a QR code stays valid (``expiresAt``).
        webhook_attempts: Attempts per delivery (the first plus retries of failures).
        webhook_backoff: Seconds before the first retry to a URL, doubled on each retry.
            The default schedule (8 attempts, the first retry after 5 s, the last about 10.6
            minutes after the first attempt) has the shape of the schedule of Svix, the sender
            behind Standard Webhooks (at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h),
            compressed from a day into minutes: a receiver down for a restart loses nothing.
            A failed attempt does not hold back the deliveries behind it. For tests,
            ``webhook_attempts=4, webhook_backoff=0.05`` (the pytest plugin's fixtures use
            it). In-process targets are retried at once, so tests stay deterministic.
        webhook_timeout: Seconds the sandbox waits for a URL target to answer (spec: 1-2 s).
        webhook_signing: Sign every delivery (to a URL or a receiver object):
            ``WebhookSigning("standard-webhooks", "whsec_...")``, any scheme of
            [`sign`][smartpos.testing.sign]. Each attempt is signed again with a fresh
            timestamp from the sandbox's clock (``now()``: `advance` makes deliveries look
            late) and, for ``standard-webhooks``, the event's ``id`` as ``webhook-id``.
            ``None`` (the default): not signed.
        webhook_headers: Fixed headers of every delivery, e.g.
            ``{"x-webhook-secret": "..."}`` for a receiver that checks a shared secret (the
            Django setting ``WEBHOOK_SECRET``); a manifest's ``{header:NAME}`` fields sign
            them. Values are never logged.
        event_timezone: The UTC offset of ``criadoEm`` (default ``-03:00``, Brasília).
        allow_remote_webhooks: Accept webhook URLs beyond loopback, for a sandbox run as a
            service next to the application (docker-compose); off by default.
        control_key: A secret the control API (``/_sandbox/v1/``) then requires in the
            ``X-Sandbox-Control-Key`` header: a request without it is answered 401
            ``CHAVE_CONTROLE_INVALIDA``. ``None`` (the default): no key. The service's own
            endpoints are not affected, and the key is never logged.
        log_limit: The most entries the log (`log`), `requests` and `deliveries` each keep,
            the oldest dropped first, so that a sandbox left running stays bounded
            (default 10,000).
    """

    API_KEY: ClassVar[str] = "sandbox-key"
    """The default partner's API key."""
    DOCUMENTO: ClassVar[str] = "52998224725"
    """The default customer's CPF."""
    SMARTPOS_ID: ClassVar[str] = "SP-SANDBOX-1"
    """The default terminal, linked to [`DOCUMENTO`][smartpos.testing.Sandbox.DOCUMENTO]."""
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
        webhook_attempts: int = DEFAULT_ATTEMPTS,
        webhook_backoff: float = DEFAULT_BACKOFF,
        webhook_timeout: float = 2.0,
        webhook_signing: WebhookSigning | None = None,
        webhook_headers: Mapping[str, str] | None = None,
        event_timezone: dt.tzinfo = _BRT,
        allow_remote_webhooks: bool = False,
        control_key: str | None = None,
        log_limit: int = DEFAULT_LOG_LIMIT,
    ) -> None:
        check_schedule(webhook_attempts, webhook_backoff)
        _check_signing(webhook_signing)
        headers = check_headers(webhook_headers)
        if isinstance(log_limit, bool) or not isinstance(log_limit, int) or log_limit < 1:
            raise ValueError(f"log_limit must be a whole number >= 1, not {log_limit!r}")
        self._world = World(
            seed=seed,
            clock=clock,
            qr_code_ttl=qr_code_ttl,
            event_timezone=event_timezone,
            log_limit=log_limit,
        )
        self._world.allow_remote_webhooks = allow_remote_webhooks
        self._faults = FaultPlan()
        self._outbox = Outbox(
            self._world,
            self._faults,
            attempts=webhook_attempts,
            backoff=webhook_backoff,
            timeout=webhook_timeout,
            signing=webhook_signing,
            headers=headers,
        )
        self._terminals = Terminals(self._world, self._outbox)
        self._service = Service(self._world, self._terminals)
        self._front = Front(
            self._service,
            self._faults,
            self._world,
            self._outbox,
            Control(self, key=control_key).handle,
        )
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
        """Stop the delivery threads (pending and delayed deliveries are abandoned); idempotent."""
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
        """Return the sandbox's current Unix time (the clock plus every `advance`)."""
        return self._world.now()

    def advance(self, seconds: float) -> None:
        """Move the sandbox's clock forward, e.g. to expire a QR code without waiting.

        Delayed events ([`Delay`][smartpos.testing.Delay]) that become due are delivered before it
        returns.

        Args:
            seconds: How far to move it.
        """
        self._world.advance(seconds)
        self._outbox.deliver_due()

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
            webhook: ``True``: configured, deliveries recorded in
                [`events`][smartpos.testing.Sandbox.events] only; ``False``: not configured
                (payments answer ``WEBHOOK_NAO_CONFIGURADO``); or a target also receiving every
                delivery: a loopback URL, a callable taking the envelope dict, or an object
                with ``receive(body, headers)``.
            key_status: ``"rotated"`` or ``"inactive"`` keys answer ``401 API_KEY_INVALIDA``.

        Returns:
            The new partner.

        Raises:
            SandboxError: The key or the name is taken.
        """
        return self._world.add_partner(api_key, name, webhook, key_status)

    def set_webhook(self, webhook: WebhookTarget | bool, *, api_key: str = API_KEY) -> None:
        """Change where a partner's events go (see ``webhook`` in `add_partner`).

        Args:
            webhook: The new target, ``True`` (recorded only) or ``False`` (not configured).
            api_key: Any key of the partner.

        Raises:
            SandboxError: No partner has that key.
        """
        self._world.set_webhook(webhook, api_key)

    def set_webhook_signing(self, signing: WebhookSigning | None) -> None:
        """Sign every later delivery attempt so, or stop signing with ``None``.

        See ``webhook_signing`` of `Sandbox`.

        Args:
            signing: How to sign, e.g. ``WebhookSigning("stripe", "whsec_...")``.

        Raises:
            TypeError: Not a `WebhookSigning` nor ``None``.
        """
        _check_signing(signing)
        self._outbox.set_signing(signing)

    def set_webhook_headers(self, headers: Mapping[str, str] | None) -> None:
        """Send these fixed headers with every later delivery attempt (``None``: none).

        See ``webhook_headers`` of `Sandbox`.

        Args:
            headers: Header names and values, e.g. ``{"x-webhook-secret": "..."}``.

        Raises:
            TypeError: Not a mapping of str to str.
            ValueError: A name that is not a header name, a value with a line break.
        """
        self._outbox.set_headers(check_headers(headers))

    def set_key_status(self, api_key: str, status: KeyStatus) -> None:
        """Set a key's state: ``"active"`` (it works), ``"rotated"`` or ``"inactive"``.

        Raises:
            SandboxError: No partner has that key.
        """
        self._world.set_key_status(api_key, status)

    def rotate_key(self, api_key: str, new_api_key: str) -> None:
        """Rotate a partner's key: the old one answers ``API_KEY_INVALIDA``, the new one works.

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
        payments: PaymentOutcome | str | None = None,
        prints: PrintOutcome | str | None = None,
    ) -> SandboxTerminal:
        """Add a terminal, linked to a customer or waiting to be paired by `scan`.

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
            smartpos_id,
            documento_cliente,
            numero_serie_terminal,
            adquirente,
            None if payments is None else _read("payment", payments),
            None if prints is None else _read("print", prints),
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
        """Every terminal in creation order, or those linked to one customer (masked or not)."""
        return self._world.list_terminals(documento_cliente)

    # ------------------------------------------------------------------ scripting terminals

    def script_payments(
        self, *outcomes: _OutcomeLike, times: int = 1, smartpos_id: str | None = None
    ) -> None:
        """Queue what the next payments do, in order, before terminals fall back to defaults.

        Args:
            *outcomes: [`Approve`][smartpos.testing.Approve], [`Refuse`][smartpos.testing.Refuse],
                [`NoAnswer`][smartpos.testing.NoAnswer], or a wrapper
                ([`Delay`][smartpos.testing.Delay], [`Duplicate`][smartpos.testing.Duplicate],
                [`OutOfOrder`][smartpos.testing.OutOfOrder],
                [`Contradict`][smartpos.testing.Contradict], [`Hold`][smartpos.testing.Hold]); or
                the same in words (``"recusar"``, ``"atraso 5"``, ``"silencio"``,
                ``"segurar aprovar"``).
            times: Queue the sequence this many times (the next N operations).
            smartpos_id: Only payments on this terminal; ``None``: the next payments on any
                terminal (a terminal's own script is used first).

        Raises:
            TypeError: An outcome is not a payment outcome.
            ValueError: An unknown word, or ``times`` below 1.
            SandboxError: Unknown terminal.
        """
        parsed = tuple(_read("payment", o) for o in outcomes)
        self._terminals.script("payment", parsed, times, smartpos_id)

    def script_prints(
        self, *outcomes: _OutcomeLike, times: int = 1, smartpos_id: str | None = None
    ) -> None:
        """Queue what the next print jobs do: `script_payments` for print outcomes.

        [`PrintDone`][smartpos.testing.PrintDone], [`PrintFail`][smartpos.testing.PrintFail],
        [`NoAnswer`][smartpos.testing.NoAnswer] or a wrapper, or words (``"falhar"``,
        ``"concluir"``, ``"silencio"``).
        """
        parsed = tuple(_read("print", o) for o in outcomes)
        self._terminals.script("print", parsed, times, smartpos_id)

    def set_outcomes(
        self,
        *,
        payments: _OutcomeLike | None = None,
        prints: _OutcomeLike | None = None,
        smartpos_id: str | None = None,
    ) -> None:
        """Set what terminals do from now on when nothing is scripted.

        Args:
            payments: The standing payment outcome (unchanged when ``None``), or its words.
            prints: The standing print outcome (unchanged when ``None``), or its words.
            smartpos_id: One terminal; ``None`` sets the sandbox-wide default.

        Raises:
            TypeError: An outcome of the wrong kind.
            SandboxError: Unknown terminal.
        """
        self._terminals.set_outcomes(
            None if payments is None else _read("payment", payments),
            None if prints is None else _read("print", prints),
            smartpos_id,
        )

    # ------------------------------------------------------------------ faults

    def fail_next(self, endpoint: Endpoint | str, fault: Fault | str, *, times: int = 1) -> None:
        """Inject a fault into the next ``times`` requests to an endpoint.

        Args:
            endpoint: ``"qrcodes"``, ``"payments"``, ``"refunds"``, ``"print_jobs"``,
                ``"terminals"`` or ``"*"`` for any of them.
            fault: What happens (see `smartpos.testing` faults), or its words:
                ``"500"``, ``"500 after-accept"``, ``"502"``, ``"429 5"``, ``"latency 2"``,
                ``"drop"``, ``"refuse"``, ``"timeout 5"``.
            times: How many requests it applies to.

        Raises:
            ValueError: ``times`` below 1, an unknown endpoint or fault.
        """
        name = endpoint_name(endpoint)
        if name == "webhook":
            raise ValueError("webhook faults are fail_webhook() and slow_webhook()")
        if isinstance(fault, str):
            parsed = fault_from_json(name, fault)
            assert not isinstance(parsed, WebhookFault)
            fault = parsed
        self._faults.fail_next(cast(Endpoint, name), fault, times)

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
        self, host: str = "127.0.0.1", port: int = 0, *, allow_remote: bool = False
    ) -> contextlib.AbstractContextManager[str]:
        """Serve this sandbox over real HTTP (its control API too) while the block runs.

        Args:
            host: A loopback address (any address with ``allow_remote``).
            port: The port; 0 picks a free one.
            allow_remote: Bind beyond loopback (a container's ``0.0.0.0``): anyone who can reach
                the port can drive the sandbox through its control API, without a key.

        Returns:
            A context manager giving the base URL, e.g. ``"http://127.0.0.1:54321"``.

        Raises:
            ValueError: ``host`` is not a loopback address and ``allow_remote`` is false.
        """
        # Imported here: the HTTP server's modules are not needed by in-process tests.
        from ._server import serve

        return serve(self._front, host, port, allow_remote=allow_remote)

    def handle(self, request: httpx.Request) -> httpx.Response:
        """Answer one request as the service would, faults included (sync: latency sleeps).

        Args:
            request: The request; its body must be readable.

        Returns:
            The response.

        Raises:
            httpx.ConnectError: A [`ConnectionRefused`][smartpos.testing.ConnectionRefused] fault
                (nothing processed).
            httpx.RemoteProtocolError: A [`DropConnection`][smartpos.testing.DropConnection]
                fault (after processing).
            httpx.ReadTimeout: A [`ReadTimeout`][smartpos.testing.ReadTimeout] fault (after
                processing).
        """
        request.read()
        return to_httpx(self._front.handle(from_httpx(request)), request)

    # ------------------------------------------------------------------ pairing and operator

    def scan(self, qr_code: str | None = None, smartpos_id: str = SMARTPOS_ID) -> dict[str, Any]:
        """Read a QR code on a terminal: link it to the customer, emit ``smartpos.identificado``.

        An unknown ``smartpos_id`` is a new device: the terminal is created.

        Args:
            qr_code: The ``qrCode`` value returned by ``POST /qrcode``; ``None``: the newest.
            smartpos_id: The terminal that reads it (default
                [`SMARTPOS_ID`][smartpos.testing.Sandbox.SMARTPOS_ID]).

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
        outcome: _OutcomeLike | None = None,
    ) -> dict[str, Any] | None:
        """Start a queued manual-mode card on a terminal, as its operator would.

        Args:
            referencia: The card's payment referencia.
            smartpos_id: The terminal the operator uses; may be omitted when the card has one
                target.
            outcome: What the terminal does; ``None`` uses the scripts and defaults.

        Returns:
            The event envelope, or ``None`` for [`NoAnswer`][smartpos.testing.NoAnswer].

        Raises:
            SandboxError: No such card, or the terminal is not one of its targets.
            TypeError: ``outcome`` is not a payment outcome.
        """
        parsed = None if outcome is None else _read("payment", outcome)
        return self._terminals.operator_start(referencia, smartpos_id, parsed)

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
            count: How many envelopes [`events`][smartpos.testing.Sandbox.events] must hold.
            timeout: Seconds to wait at most.

        Returns:
            [`events`][smartpos.testing.Sandbox.events] at that moment.

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

    def resend(
        self,
        event_id: str,
        *,
        to: str | None = None,
        headers: Mapping[str, str] | None = None,
        signing: WebhookSigning | None = None,
    ) -> None:
        """Deliver an event again with the same ``id``, like the service's manual resend.

        Args:
            event_id: The envelope's ``id``.
            to: Deliver it only to this URL, at once and once (answer in
                [`deliveries`][smartpos.testing.Sandbox.deliveries]).
            headers: Extra headers of that delivery (e.g. a shared secret the URL checks).
            signing: How that delivery to ``to`` is signed, instead of the sandbox's own
                ``webhook_signing``.

        Raises:
            SandboxError: No event has that id.
            ValueError: ``to`` is not a URL the sandbox may deliver to, or a bad header.
            TypeError: ``signing`` is not a `WebhookSigning`.
        """
        if to is not None:
            check_target(to, allow_remote=self._world.allow_remote_webhooks)
        _check_signing(signing)
        self._outbox.resend(event_id, to, check_headers(headers, "headers") or None, signing)

    def hold_events(self) -> None:
        """Hold every new delivery until `release_events` (to deliver out of order)."""
        self._outbox.hold()

    @property
    def held_events(self) -> list[dict[str, Any]]:
        """The envelopes held by `hold_events`, in the order they were emitted."""
        return self._outbox.held

    def release_events(self, *, reverse: bool = False) -> list[dict[str, Any]]:
        """Stop holding and deliver the held envelopes, in emission order or reversed.

        Events held back by [`OutOfOrder`][smartpos.testing.OutOfOrder] are delivered too, after
        them. Those of an attempt held by [`Hold`][smartpos.testing.Hold] are not: `release`
        delivers them.

        Args:
            reverse: Deliver the newest first.

        Returns:
            The held envelopes in the order they were handed to delivery.
        """
        return self._outbox.release(reverse=reverse)

    @property
    def held_by_referencia(self) -> dict[str, list[dict[str, Any]]]:
        """The envelopes [`Hold`][smartpos.testing.Hold] keeps back, per referencia.

        Each referencia (in the order its first event was held) maps to its envelopes in
        emission order, one per delivery (a [`Duplicate`][smartpos.testing.Duplicate] twice).
        A referencia leaves it when `release` delivers its events.
        """
        return self._outbox.held_by_referencia

    def release(self, referencia: str) -> list[dict[str, Any]]:
        """Deliver the events held by [`Hold`][smartpos.testing.Hold] for one attempt.

        The envelopes are handed to delivery now, in emission order (the other wrappers of their
        outcome apply from now: a [`Delay`][smartpos.testing.Delay] counts from the release).
        While [`hold_events`][smartpos.testing.Sandbox.hold_events] is on they join its held
        envelopes, as any new delivery does.

        Args:
            referencia: The attempt's ``referencia`` (``dados.referencia`` of its events).

        Returns:
            The envelopes released, one per delivery.

        Raises:
            SandboxError: No event of that referencia is held (never held, or already released).
        """
        return self._outbox.release_referencia(referencia)

    # ------------------------------------------------------------------ log and trigger

    def log(self, since: int = 0, *, wait: float = 0.0) -> list[LogEntry]:
        """Every request answered and delivery attempt, in order (control API reads excluded).

        Args:
            since: Only entries after this `LogEntry.seq` (0: from the start).
            wait: Seconds to wait for a first new entry when there is none yet (follow mode).

        Returns:
            The entries, oldest first.
        """
        return self._world.log_since(since, wait)

    def trigger(
        self,
        tipo: str,
        *,
        to: str | None = None,
        documento_cliente: str = DOCUMENTO,
        smartpos_id: str = SMARTPOS_ID,
        valor_centavos: int = 1990,
        referencia: str | None = None,
        headers: Mapping[str, str] | None = None,
        signing: WebhookSigning | None = None,
    ) -> dict[str, Any]:
        """Make an event happen for real: its operation exists in the world (and can be refunded).

        Args:
            tipo: ``pagamento.aprovado``/``recusado`` (a payment), ``impressao.concluida``/
                ``falhou`` (a print job), ``smartpos.identificado`` (a QR code scanned).
            to: Deliver it only to this URL, at once and once (the answer is in
                [`deliveries`][smartpos.testing.Sandbox.deliveries]); ``None``: to the partner's
                webhook, as usual.
            documento_cliente: The customer (its partner receives the event).
            smartpos_id: The terminal.
            valor_centavos: Payments: the amount (``formaPagamento`` ``credito``).
            referencia: The operation's referencia (default: a new one).
            headers: Extra headers of the delivery to ``to``.
            signing: How the delivery to ``to`` is signed, instead of the sandbox's own
                ``webhook_signing``.

        Returns:
            The event envelope.

        Raises:
            SandboxError: Unknown ``tipo`` or customer, or a rule of the service broken.
            ValueError: ``to`` is not a URL the sandbox may deliver to, or a bad header.
            TypeError: ``signing`` is not a `WebhookSigning`.
        """
        if to is not None:
            check_target(to, allow_remote=self._world.allow_remote_webhooks)
        _check_signing(signing)
        extra = check_headers(headers, "headers") or None
        envelope = self._service.trigger(
            tipo,
            documento_cliente=documento_cliente,
            smartpos_id=smartpos_id,
            valor_centavos=valor_centavos,
            referencia=referencia,
            to=None if to is None else Plan(to=to, headers=extra, signing=signing),
        )
        self._outbox.flush()
        return envelope
