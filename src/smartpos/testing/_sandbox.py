"""The sandbox: the whole service simulated in process, as one ``httpx.Request -> Response``.

:meth:`Sandbox.handle` is a plain function over raw camelCase dicts written from the spec; it
never imports the SDK's models or wire converter, so a wrong field name cannot hide on both
sides. :meth:`Sandbox.transport` serves it to ``httpx.Client`` and ``httpx.AsyncClient``;
:meth:`Sandbox.serve` puts the same function behind a real HTTP server on 127.0.0.1.

Every piece of state sits behind one lock. Events are delivered outside it, so a webhook target
may call the sandbox (or a client bound to it) again.
"""

from __future__ import annotations

import collections
import contextlib
import datetime as dt
import json
import queue
import random
import re
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

import httpx

from . import _rules
from ._delivery import (
    DeliveryAttempt,
    WebhookTarget,
    attempt_delivery,
    check_target,
    describe_target,
    encode_envelope,
)
from ._documents import normalize_documento
from ._faults import (
    BadGateway,
    ConnectionRefused,
    DropConnection,
    Endpoint,
    Fault,
    InternalError,
    Latency,
    RateLimited,
    ReadTimeout,
)
from ._outcomes import (
    Approve,
    NoAnswer,
    PaymentOutcome,
    PrintDone,
    PrintFail,
    PrintOutcome,
    Refuse,
)
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
from ._rules import Reject

__all__ = ["QRCodeExpiredError", "Sandbox", "SandboxError", "SandboxTransport"]

_BRT = dt.timezone(dt.timedelta(hours=-3))
_CUSTOMER_TERMINALS = re.compile(r"/v1/customers/([^/]+)/smartpos")
_PATHS: dict[str, tuple[str, Endpoint]] = {
    "/qrcode": ("POST", "qrcodes"),
    "/v1/payments": ("POST", "payments"),
    "/v1/refunds": ("POST", "refunds"),
    "/v1/print-jobs": ("POST", "print_jobs"),
}
_BAD_GATEWAY_HTML = (
    b"<html><head><title>502 Bad Gateway</title></head>"
    b"<body><center><h1>502 Bad Gateway</h1></center></body></html>"
)
_ALNUM = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ"
_TIPO_PAGAMENTO = {"credito": "CREDITO", "debito": "DEBITO", "pix": "PIX", "voucher": "VOUCHER"}


class SandboxError(Exception):
    """A sandbox method was used wrongly (unknown terminal, referencia, QR code...)."""


class QRCodeExpiredError(SandboxError):
    """The QR code's ``expiresAt`` has passed: a terminal can no longer pair with it."""


@dataclass
class _Partner:
    name: str
    keys: dict[str, KeyStatus]
    webhook: WebhookTarget | bool
    referencias: set[str] = field(default_factory=set)


@dataclass
class _Terminal:
    smartpos_id: str
    numero_serie: str
    adquirente: str
    documento: str | None
    payments: PaymentOutcome | None = None
    prints: PrintOutcome | None = None
    payment_script: collections.deque[PaymentOutcome] = field(default_factory=collections.deque)
    print_script: collections.deque[PrintOutcome] = field(default_factory=collections.deque)


@dataclass
class _Payment:
    partner: str
    referencia: str
    documento: str
    valor: int
    modo: str
    smartpos_id: str | None
    targets: tuple[str, ...]
    forma: str | None
    parcelas: int | None
    identificacao: str | None
    body: Mapping[str, Any]
    status: str = "processando"
    autorizacao: dict[str, str] | None = None
    estornado: int = 0


@dataclass
class _PrintJob:
    partner: str
    referencia: str
    documento: str
    smartpos_id: str
    conteudo: bytes
    status: str = "processando"


@dataclass
class _FaultPlan:
    endpoint: Endpoint
    fault: Fault
    remaining: int


def _json_response(
    status: int, body: Mapping[str, Any], headers: Mapping[str, str] | None = None
) -> httpx.Response:
    all_headers = {
        "content-type": "application/json; charset=utf-8",
        "x-request-id": str(uuid.uuid4()),
        **(headers or {}),
    }
    return httpx.Response(status, headers=all_headers, content=encode_envelope(body))


def _endpoint_of(path: str) -> Endpoint | None:
    if path in _PATHS:
        return _PATHS[path][1]
    if _CUSTOMER_TERMINALS.fullmatch(path):
        return "terminals"
    return None


def _valor_formatado(centavos: int) -> str:
    """Format cents as the spec's ``valorFormatado``: a decimal with a point (``"12.34"``).

    Args:
        centavos: The amount in cents.

    Returns:
        The formatted amount.
    """
    return f"{centavos // 100}.{centavos % 100:02d}"


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
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._random = random.Random(seed)
        self._clock = clock
        self._offset = 0.0
        self._qr_ttl = qr_code_ttl
        self._attempts = webhook_attempts
        self._backoff = webhook_backoff
        self._timeout = webhook_timeout
        self._tz = event_timezone
        self._partners: dict[str, _Partner] = {}
        self._keys: dict[str, str] = {}
        self._customers: dict[str, str] = {}
        self._terminals: dict[str, _Terminal] = {}
        self._qrcodes: dict[str, SandboxQRCode] = {}
        self._payments: dict[str, _Payment] = {}
        self._refunds: list[SandboxRefund] = []
        self._prints: dict[str, _PrintJob] = {}
        self._requests: list[RecordedRequest] = []
        self._faults: list[_FaultPlan] = []
        self._payment_script: collections.deque[PaymentOutcome] = collections.deque()
        self._print_script: collections.deque[PrintOutcome] = collections.deque()
        self._payment_default: PaymentOutcome = Approve()
        self._print_default: PrintOutcome = PrintDone()
        self._envelopes: dict[str, tuple[str, dict[str, Any]]] = {}
        self._outbox: list[tuple[str, dict[str, Any]]] = []
        self._held: list[tuple[str, dict[str, Any]]] | None = None
        self._events: list[dict[str, Any]] = []
        self._deliveries: list[DeliveryAttempt] = []
        self._webhook_failures: list[int | None] = []
        self._pending = 0
        self._worker: threading.Thread | None = None
        self._jobs: queue.Queue[tuple[str, dict[str, Any]] | None] = queue.Queue()
        self._closed = threading.Event()
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
        self._closed.set()
        worker = self._worker
        if worker is not None:
            self._jobs.put(None)
            worker.join(timeout=5.0)

    def __repr__(self) -> str:
        with self._lock:
            return (
                f"<Sandbox partners={len(self._partners)} customers={len(self._customers)} "
                f"terminals={len(self._terminals)} events={len(self._events)}>"
            )

    # ------------------------------------------------------------------ clock

    def now(self) -> float:
        """Return the sandbox's current Unix time (the clock plus every :meth:`advance`).

        Returns:
            Seconds since the epoch.
        """
        return self._clock() + self._offset

    def advance(self, seconds: float) -> None:
        """Move the sandbox's clock forward, e.g. to expire a QR code without waiting.

        Args:
            seconds: How far to move it.
        """
        with self._lock:
            self._offset += seconds

    # ------------------------------------------------------------------ world building

    def _partner_of(self, api_key: str) -> _Partner:
        name = self._keys.get(api_key)
        if name is None:
            raise SandboxError(f"no partner has the API key {api_key[:4]}***")
        return self._partners[name]

    def _snapshot_partner(self, partner: _Partner) -> Partner:
        webhook = partner.webhook
        return Partner(
            name=partner.name,
            api_keys=dict(partner.keys),
            webhook_configured=webhook is not False,
            webhook_target=None if isinstance(webhook, bool) else webhook,
        )

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
        if not isinstance(webhook, bool):
            check_target(webhook)
        with self._lock:
            name = name or f"partner-{len(self._partners) + 1}"
            if api_key in self._keys or name in self._partners:
                raise SandboxError(f"partner {name!r} or its key already exists")
            partner = _Partner(name=name, keys={api_key: key_status}, webhook=webhook)
            self._partners[name] = partner
            self._keys[api_key] = name
            return self._snapshot_partner(partner)

    def set_webhook(self, webhook: WebhookTarget | bool, *, api_key: str = API_KEY) -> None:
        """Change where a partner's events go (see ``webhook`` in :meth:`add_partner`).

        Args:
            webhook: The new target, ``True`` (recorded only) or ``False`` (not configured).
            api_key: Any key of the partner.

        Raises:
            SandboxError: No partner has that key.
        """
        if not isinstance(webhook, bool):
            check_target(webhook)
        with self._lock:
            self._partner_of(api_key).webhook = webhook

    def set_key_status(self, api_key: str, status: KeyStatus) -> None:
        """Change a key's state; only ``"active"`` keys are accepted by the service.

        Args:
            api_key: The key.
            status: ``"active"``, ``"rotated"`` or ``"inactive"``.

        Raises:
            SandboxError: No partner has that key.
        """
        with self._lock:
            self._partner_of(api_key).keys[api_key] = status

    def rotate_key(self, api_key: str, new_api_key: str) -> None:
        """Rotate a partner's key: the old one answers ``API_KEY_INVALIDA``, the new one works.

        Args:
            api_key: The current key.
            new_api_key: The key that replaces it.

        Raises:
            SandboxError: No partner has ``api_key``, or ``new_api_key`` is taken.
        """
        with self._lock:
            partner = self._partner_of(api_key)
            if new_api_key in self._keys:
                raise SandboxError("the new API key is already taken")
            partner.keys[api_key] = "rotated"
            partner.keys[new_api_key] = "active"
            self._keys[new_api_key] = partner.name

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
        documento = normalize_documento(documento_cliente)
        if documento is None:
            raise SandboxError("not a valid CPF or CNPJ")
        with self._lock:
            partner = self._partner_of(api_key)
            if documento in self._customers:
                raise SandboxError("this customer already exists")
            self._customers[documento] = partner.name
            return Customer(documento_cliente=documento, partner=partner.name)

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
        _check_outcomes(payments, prints)
        with self._lock:
            if smartpos_id in self._terminals:
                raise SandboxError(f"terminal {smartpos_id!r} already exists")
            documento = self._existing_customer(documento_cliente)
            serial = numero_serie_terminal or f"SN{self._random.randrange(10**9, 10**10)}"
            terminal = _Terminal(smartpos_id, serial, adquirente, documento, payments, prints)
            self._terminals[smartpos_id] = terminal
            return _snapshot_terminal(terminal)

    def _existing_customer(self, documento_cliente: str | None) -> str | None:
        if documento_cliente is None:
            return None
        documento = normalize_documento(documento_cliente)
        if documento is None or documento not in self._customers:
            raise SandboxError("no such customer")
        return documento

    def _terminal(self, smartpos_id: str) -> _Terminal:
        terminal = self._terminals.get(smartpos_id)
        if terminal is None:
            raise SandboxError(f"no terminal {smartpos_id!r}")
        return terminal

    def link_terminal(self, smartpos_id: str, documento_cliente: str | None) -> None:
        """Link a terminal to a customer without a QR code, or unlink it with ``None``.

        Args:
            smartpos_id: The terminal.
            documento_cliente: The customer, or ``None``.

        Raises:
            SandboxError: Unknown terminal or customer.
        """
        with self._lock:
            self._terminal(smartpos_id).documento = self._existing_customer(documento_cliente)

    @property
    def partners(self) -> list[Partner]:
        """Every partner."""
        with self._lock:
            return [self._snapshot_partner(p) for p in self._partners.values()]

    @property
    def customers(self) -> list[Customer]:
        """Every customer."""
        with self._lock:
            return [Customer(d, p) for d, p in self._customers.items()]

    def terminals(self, documento_cliente: str | None = None) -> list[SandboxTerminal]:
        """List terminals, all of them or those linked to one customer.

        Args:
            documento_cliente: The customer (masked or not), or ``None`` for every terminal.

        Returns:
            The terminals in creation order.
        """
        documento = None if documento_cliente is None else normalize_documento(documento_cliente)
        with self._lock:
            return [
                _snapshot_terminal(t)
                for t in self._terminals.values()
                if documento_cliente is None or t.documento == documento
            ]

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
        for outcome in outcomes:
            _check_outcomes(outcome, None)
        with self._lock:
            target = (
                self._payment_script
                if smartpos_id is None
                else self._terminal(smartpos_id).payment_script
            )
            target.extend(outcomes)

    def script_prints(self, *outcomes: PrintOutcome, smartpos_id: str | None = None) -> None:
        """Queue what the next print jobs do, in order, before terminals fall back to defaults.

        Args:
            *outcomes: :class:`PrintDone`, :class:`PrintFail` or :class:`NoAnswer`.
            smartpos_id: Only print jobs on this terminal; ``None``: on any terminal.

        Raises:
            TypeError: An outcome is not a print outcome.
            SandboxError: Unknown terminal.
        """
        for outcome in outcomes:
            _check_outcomes(None, outcome)
        with self._lock:
            target = (
                self._print_script
                if smartpos_id is None
                else self._terminal(smartpos_id).print_script
            )
            target.extend(outcomes)

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
        _check_outcomes(payments, prints)
        with self._lock:
            if smartpos_id is None:
                self._payment_default = payments or self._payment_default
                self._print_default = prints or self._print_default
            else:
                terminal = self._terminal(smartpos_id)
                terminal.payments = payments or terminal.payments
                terminal.prints = prints or terminal.prints

    def _next_payment_outcome(self, terminal: _Terminal) -> PaymentOutcome:
        if terminal.payment_script:
            return terminal.payment_script.popleft()
        if self._payment_script:
            return self._payment_script.popleft()
        return terminal.payments or self._payment_default

    def _next_print_outcome(self, terminal: _Terminal) -> PrintOutcome:
        if terminal.print_script:
            return terminal.print_script.popleft()
        if self._print_script:
            return self._print_script.popleft()
        return terminal.prints or self._print_default

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
        if times < 1:
            raise ValueError("times must be at least 1")
        if endpoint != "*" and endpoint not in {e for _, e in _PATHS.values()} | {"terminals"}:
            raise ValueError(f"unknown endpoint {endpoint!r}")
        with self._lock:
            self._faults.append(_FaultPlan(endpoint, fault, times))

    def clear_faults(self) -> None:
        """Forget every fault not yet used, webhook faults included."""
        with self._lock:
            self._faults.clear()
            self._webhook_failures.clear()

    def fail_webhook(self, *, times: int = 1, status_code: int = 500) -> None:
        """Make the next delivery attempts fail as if the target answered ``status_code``.

        The target is not called for these attempts; the sandbox retries as it does for a real
        non-2xx answer, so the event arrives on a later attempt (if attempts remain).

        Args:
            times: How many attempts fail.
            status_code: The status recorded for them.
        """
        with self._lock:
            self._webhook_failures.extend([status_code] * times)

    def slow_webhook(self, *, times: int = 1) -> None:
        """Make the next delivery attempts reach the target but time out on the sandbox's side.

        This is what a receiver slower than the spec's 1-2 seconds causes: it got the event,
        the service did not get the answer in time and delivers the same id again.

        Args:
            times: How many attempts time out.
        """
        with self._lock:
            self._webhook_failures.extend([None] * times)

    def _take_fault(self, endpoint: Endpoint | None) -> Fault | None:
        if endpoint is None:
            return None
        with self._lock:
            for plan in self._faults:
                if plan.endpoint in ("*", endpoint):
                    plan.remaining -= 1
                    if plan.remaining == 0:
                        self._faults.remove(plan)
                    return plan.fault
        return None

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
        from ._server import serve

        return serve(self, host, port)

    def handle(self, request: httpx.Request) -> httpx.Response:
        """Answer one request as the service would, faults included (sync: latency sleeps).

        Args:
            request: The request; its body must be readable.

        Returns:
            The response.

        Raises:
            httpx.ConnectError: A :class:`ConnectionRefused` fault (nothing recorded).
            httpx.RemoteProtocolError: A :class:`DropConnection` fault (after processing).
            httpx.ReadTimeout: A :class:`ReadTimeout` fault (after processing).
        """
        request.read()
        fault = self._take_fault(_endpoint_of(request.url.path))
        if isinstance(fault, Latency):
            time.sleep(fault.seconds)
        return self._respond(request, fault)

    def _respond(self, request: httpx.Request, fault: Fault | None) -> httpx.Response:
        """Answer a request whose fault was already taken and whose latency was waited."""
        fault_name = None if fault is None else type(fault).__name__
        status: int | None = None
        try:
            if isinstance(fault, ConnectionRefused):
                raise httpx.ConnectError("[sandbox] connection refused", request=request)
            if isinstance(fault, InternalError) and not fault.after_accept:
                response = _json_response(500, Reject("ERRO_INTERNO").body())
            elif isinstance(fault, BadGateway):
                response = httpx.Response(
                    502, headers={"content-type": "text/html"}, content=_BAD_GATEWAY_HTML
                )
            elif isinstance(fault, RateLimited):
                reject = Reject("LIMITE_REQUISICOES")
                headers = {"retry-after": str(fault.retry_after)}
                response = _json_response(429, reject.body(), headers)
            else:
                response = self._process(request)
                if isinstance(fault, DropConnection):
                    raise httpx.RemoteProtocolError(
                        "[sandbox] server disconnected without sending a response",
                        request=request,
                    )
                if isinstance(fault, ReadTimeout):
                    raise httpx.ReadTimeout("[sandbox] read timed out", request=request)
                if isinstance(fault, InternalError):
                    response = _json_response(500, Reject("ERRO_INTERNO").body())
            status = response.status_code
            return response
        finally:
            with self._lock:
                self._requests.append(
                    RecordedRequest(
                        method=request.method,
                        path=request.url.path,
                        json=_try_json(request.content),
                        status_code=status,
                        fault=fault_name,
                    )
                )
            self._flush()

    def _process(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path.startswith("/_sandbox/"):
            return self._control(request)
        match = _CUSTOMER_TERMINALS.fullmatch(path)
        allowed = "GET" if match else _PATHS.get(path, ("", None))[0]
        try:
            if not allowed:
                raise Reject("RECURSO_NAO_ENCONTRADO")
            if request.method != allowed:
                raise Reject("METODO_NAO_PERMITIDO", headers={"allow": allowed})
            partner = self._authenticate(request)
            if match:
                status, body = self._list_terminals(partner, match.group(1))
                return _json_response(status, body)
            content_type = request.headers.get("content-type", "")
            if content_type.split(";")[0].strip().lower() != "application/json":
                raise Reject("CONTENT_TYPE_INVALIDO")
            data = _rules.decode_json(request.content)
            handler = {
                "/qrcode": self._create_qrcode,
                "/v1/payments": self._create_payment,
                "/v1/refunds": self._create_refund,
                "/v1/print-jobs": self._create_print_job,
            }[path]
            status, body = handler(partner, data)
            return _json_response(status, body)
        except Reject as reject:
            return _json_response(reject.status, reject.body(), reject.headers)

    def _control(self, request: httpx.Request) -> httpx.Response:
        """The sandbox's own endpoints, for tools in other languages (no API key).

        ``GET /_sandbox/events``; ``POST /_sandbox/scan`` with ``qrCode`` and ``smartposId``;
        ``POST /_sandbox/operator-start`` with ``referencia`` and optional ``smartposId``.
        """
        path, method = request.url.path, request.method
        routes = {
            "/_sandbox/events": "GET",
            "/_sandbox/scan": "POST",
            "/_sandbox/operator-start": "POST",
        }
        if path not in routes:
            return _json_response(404, Reject("RECURSO_NAO_ENCONTRADO").body())
        if method != routes[path]:
            reject = Reject("METODO_NAO_PERMITIDO", headers={"allow": routes[path]})
            return _json_response(405, reject.body(), reject.headers)
        if path == "/_sandbox/events":
            return _json_response(200, {"events": self.events})
        try:
            data = _rules.decode_json(request.content)
            smartpos_id = data.get("smartposId")
            envelope: dict[str, Any] | None
            if path == "/_sandbox/scan":
                envelope = self.scan(str(data.get("qrCode")), str(smartpos_id))
            else:
                envelope = self.operator_start(
                    str(data.get("referencia")),
                    smartpos_id=None if smartpos_id is None else str(smartpos_id),
                )
        except Reject as reject:
            return _json_response(reject.status, reject.body())
        except SandboxError as exc:
            codigo = "QR_CODE_EXPIRADO" if isinstance(exc, QRCodeExpiredError) else "SANDBOX"
            erro = {"codigo": codigo, "mensagem": str(exc), "acao": "Veja docs/testing.md."}
            return _json_response(409 if codigo == "QR_CODE_EXPIRADO" else 400, {"erro": erro})
        return _json_response(200, {"event": envelope})

    def _authenticate(self, request: httpx.Request) -> str:
        key = request.headers.get("x-api-key", "").strip()
        if not key:
            raise Reject("API_KEY_NAO_INFORMADA")
        with self._lock:
            name = self._keys.get(key)
            if name is None or self._partners[name].keys[key] != "active":
                raise Reject("API_KEY_INVALIDA")
            return name

    def _customer(self, partner: str, documento_cliente: str) -> str:
        """Return the normalized document of ``partner``'s customer (lock held)."""
        documento = normalize_documento(documento_cliente)
        owner = None if documento is None else self._customers.get(documento)
        if documento is None or owner is None:
            raise Reject("DOCUMENTO_CLIENTE_INVALIDO", "documentoCliente")
        if owner != partner:
            raise Reject("CLIENTE_NAO_AUTORIZADO")
        return documento

    def _customer_terminal(self, documento: str, smartpos_id: str) -> _Terminal:
        terminal = self._terminals.get(smartpos_id)
        if terminal is None or terminal.documento != documento:
            raise Reject("SMARTPOS_NAO_ENCONTRADO", "smartposId")
        return terminal

    def _new_referencia(self, partner: str, referencia: str) -> None:
        if referencia in self._partners[partner].referencias:
            raise Reject("REFERENCIA_DUPLICADA", "referencia")

    # ------------------------------------------------------------------ endpoints

    def _create_qrcode(self, partner: str, body: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
        req = _rules.check_qrcode(body)
        with self._lock:
            documento = self._customer(partner, req.documento_cliente)
            qr_code_id = self._uuid()
            referencia = req.referencia or self._uuid()
            qr = SandboxQRCode(
                qr_code=f"smartpos:qr:v1:{qr_code_id}",
                qr_code_id=qr_code_id,
                referencia=referencia,
                documento_cliente=documento,
                expires_at=int(self.now() + self._qr_ttl),
            )
            self._qrcodes[qr.qr_code] = qr
        return 201, {"qrCode": qr.qr_code, "referencia": referencia, "expiresAt": qr.expires_at}

    def _create_payment(self, partner: str, body: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
        req = _rules.check_payment(body)
        with self._lock:
            documento = self._customer(partner, req.documento_cliente)
            if self._partners[partner].webhook is False:
                raise Reject("WEBHOOK_NAO_CONFIGURADO")
            if req.smartpos_id is not None:
                targets: tuple[str, ...] = (
                    self._customer_terminal(documento, req.smartpos_id).smartpos_id,
                )
            else:
                targets = tuple(
                    t.smartpos_id for t in self._terminals.values() if t.documento == documento
                )
                if not targets:
                    raise Reject(
                        "SMARTPOS_NAO_ENCONTRADO",
                        mensagem="O cliente não tem terminais vinculados.",
                    )
            self._new_referencia(partner, req.referencia)
            self._partners[partner].referencias.add(req.referencia)
            payment = _Payment(
                partner=partner,
                referencia=req.referencia,
                documento=documento,
                valor=req.valor_centavos,
                modo=req.modo_execucao,
                smartpos_id=req.smartpos_id,
                targets=targets,
                forma=req.forma_pagamento,
                parcelas=req.parcelas,
                identificacao=req.identificacao,
                body=body,
            )
            self._payments[req.referencia] = payment
            response: dict[str, Any] = {"referencia": req.referencia, "status": "processando"}
            if payment.modo == "imediato":
                response["mensagem"] = "Pagamento enviado ao terminal."
                response["smartposId"] = targets[0]
                self._run_payment(payment, self._terminals[targets[0]], None)
            else:
                payment.status = "na_fila"
                response["mensagem"] = "Comanda criada na fila do operador."
            response["targets"] = [{"smartposId": t, "status": "enviado"} for t in targets]
        return 202, response

    def _create_refund(self, partner: str, body: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
        req = _rules.check_refund(body)
        with self._lock:
            documento = self._customer(partner, req.documento_cliente)
            self._customer_terminal(documento, req.smartpos_id)
            # 409 before the amount check: a retry of an accepted total refund must read as a
            # duplicate, not as "exceeds what is left".
            self._new_referencia(partner, req.referencia)
            original = self._find_original(partner, documento, req)
            if req.valor_centavos > original.valor - original.estornado:
                raise Reject(
                    "VALOR_INVALIDO",
                    "valorCentavos",
                    mensagem="valorCentavos excede o valor aprovado ainda não estornado.",
                )
            self._partners[partner].referencias.add(req.referencia)
            original.estornado += req.valor_centavos
            self._refunds.append(
                SandboxRefund(
                    referencia=req.referencia,
                    documento_cliente=documento,
                    smartpos_id=req.smartpos_id,
                    valor_centavos=req.valor_centavos,
                    pagamento_referencia=original.referencia,
                )
            )
        return 202, {
            "referencia": req.referencia,
            "status": "processando",
            "mensagem": "Estorno enviado ao terminal.",
            "smartposId": req.smartpos_id,
            "valorCentavos": req.valor_centavos,
            "targets": [{"smartposId": req.smartpos_id, "status": "enviado"}],
        }

    def _find_original(self, partner: str, documento: str, req: _rules.RefundRequest) -> _Payment:
        wanted = {
            "codigo": req.codigo_autorizacao,
            "numeroTransacao": req.numero_transacao,
            "dadosFinalizacao": req.dados_finalizacao,
            "tipoPagamento": req.tipo_pagamento,
        }
        for payment in self._payments.values():
            if (
                payment.partner == partner
                and payment.status == "aprovado"
                and payment.documento == documento
                and payment.smartpos_id == req.smartpos_id
                and payment.autorizacao == wanted
            ):
                return payment
        raise Reject("PAGAMENTO_ORIGINAL_NAO_ENCONTRADO", "pagamentoOriginal")

    def _create_print_job(
        self, partner: str, body: Mapping[str, Any]
    ) -> tuple[int, dict[str, Any]]:
        req = _rules.check_print(body)
        with self._lock:
            documento = self._customer(partner, req.documento_cliente)
            terminal = self._customer_terminal(documento, req.smartpos_id)
            self._new_referencia(partner, req.referencia)
            self._partners[partner].referencias.add(req.referencia)
            job = _PrintJob(partner, req.referencia, documento, req.smartpos_id, req.conteudo)
            self._prints[req.referencia] = job
            self._run_print(job, terminal)
        return 202, {
            "referencia": req.referencia,
            "status": "processando",
            "mensagem": "Impressão enviada ao terminal.",
            "smartposId": req.smartpos_id,
            "targets": [{"smartposId": req.smartpos_id, "status": "enviado"}],
        }

    def _list_terminals(self, partner: str, documento_cliente: str) -> tuple[int, dict[str, Any]]:
        with self._lock:
            documento = self._customer(partner, documento_cliente)
            terminals = [t for t in self._terminals.values() if t.documento == documento]
            return 200, {
                "documentoCliente": documento,
                "smartpos": [
                    {
                        "smartposId": t.smartpos_id,
                        "numeroSerieTerminal": t.numero_serie,
                        "adquirente": t.adquirente,
                        "status": "ativo",
                    }
                    for t in terminals
                ],
            }

    # ------------------------------------------------------------------ terminals acting

    def _uuid(self) -> str:
        return str(uuid.UUID(int=self._random.getrandbits(128), version=4))

    def _run_payment(
        self, payment: _Payment, terminal: _Terminal, outcome: PaymentOutcome | None
    ) -> dict[str, Any] | None:
        """Let ``terminal`` execute ``payment`` (lock held); return the event, if any."""
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
            "valorFormatado": _valor_formatado(payment.valor),
        }
        if payment.forma is not None:
            dados["formaPagamento"] = payment.forma
        dados["parcelas"] = payment.parcelas or 1
        dados["smartposId"] = terminal.smartpos_id
        if isinstance(outcome, Approve):
            autorizacao = {
                "codigo": outcome.codigo or self._alnum(6),
                "numeroTransacao": outcome.numero_transacao or self._digits(12),
                "dadosFinalizacao": outcome.dados_finalizacao
                or f"{self._digits(6)}|{self._alnum(12)}|{self._digits(4)}",
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
        return self._emit(payment.partner, tipo, dados)

    def _run_print(self, job: _PrintJob, terminal: _Terminal) -> None:
        outcome = self._next_print_outcome(terminal)
        if isinstance(outcome, NoAnswer):
            return
        done = isinstance(outcome, PrintDone)
        job.status = "concluida" if done else cast(PrintFail, outcome).status
        dados = {
            "referencia": job.referencia,
            "documentoCliente": job.documento,
            "status": job.status,
            "smartposId": terminal.smartpos_id,
            "resultadoSmartPOS": {
                "executado": True if done else cast(PrintFail, outcome).executado,
                "codigoStatus": outcome.codigo_status,
                "mensagemOperador": outcome.mensagem_operador,
            },
        }
        self._emit(job.partner, "impressao.concluida" if done else "impressao.falhou", dados)

    def _alnum(self, size: int) -> str:
        return "".join(self._random.choice(_ALNUM) for _ in range(size))

    def _digits(self, size: int) -> str:
        return "".join(self._random.choice("0123456789") for _ in range(size))

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
        with self._lock:
            qr = self._qrcodes.get(qr_code)
            if qr is None:
                raise SandboxError("no such QR code")
            if self.now() > qr.expires_at:
                raise QRCodeExpiredError(
                    f"QR code {qr.qr_code_id} expired at {qr.expires_at} (now {int(self.now())})"
                )
            terminal = self._terminals.get(smartpos_id)
            if terminal is None:
                terminal = _Terminal(
                    smartpos_id, f"SN{self._random.randrange(10**9, 10**10)}", "STONE", None
                )
                self._terminals[smartpos_id] = terminal
            terminal.documento = qr.documento_cliente
            envelope = self._emit(
                self._customers[qr.documento_cliente],
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
        self._flush()
        return envelope

    @property
    def qrcodes(self) -> list[SandboxQRCode]:
        """Every QR code created, in creation order."""
        with self._lock:
            return list(self._qrcodes.values())

    def manual_queue(self, documento_cliente: str | None = None) -> list[Card]:
        """List the manual-mode cards waiting for an operator.

        Args:
            documento_cliente: Only this customer's cards; ``None`` for all.

        Returns:
            The cards in arrival order.
        """
        documento = None if documento_cliente is None else normalize_documento(documento_cliente)
        with self._lock:
            return [
                Card(p.referencia, p.documento, p.identificacao or "", p.valor, p.targets)
                for p in self._payments.values()
                if p.status == "na_fila" and (documento_cliente is None or p.documento == documento)
            ]

    def _card(self, referencia: str) -> _Payment:
        payment = self._payments.get(referencia)
        if payment is None or payment.status != "na_fila":
            raise SandboxError(f"no card {referencia!r} in the manual queue")
        return payment

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
        _check_outcomes(outcome, None)
        with self._lock:
            payment = self._card(referencia)
            if smartpos_id is None:
                if len(payment.targets) != 1:
                    raise SandboxError(f"choose a smartpos_id among {payment.targets}")
                smartpos_id = payment.targets[0]
            if smartpos_id not in payment.targets:
                raise SandboxError(f"{smartpos_id!r} is not a target of this card")
            envelope = self._run_payment(payment, self._terminals[smartpos_id], outcome)
        self._flush()
        return envelope

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
        with self._lock:
            payment = self._card(referencia)
            terminal = self._terminals[payment.targets[0]]
            refuse = Refuse(
                status="cancelado",
                mensagem_operador=mensagem_operador,
                codigo_status="CANCELADO",
                executado=False,
            )
            envelope = self._run_payment(payment, terminal, refuse)
        self._flush()
        assert envelope is not None
        return envelope

    # ------------------------------------------------------------------ records

    @property
    def payments(self) -> list[Payment]:
        """Every payment accepted, in arrival order."""
        with self._lock:
            return [_snapshot_payment(p) for p in self._payments.values()]

    def payment(self, referencia: str) -> Payment:
        """Return one accepted payment.

        Args:
            referencia: Its referencia.

        Returns:
            The payment.

        Raises:
            SandboxError: No payment has that referencia.
        """
        with self._lock:
            payment = self._payments.get(referencia)
            if payment is None:
                raise SandboxError(f"no payment {referencia!r}")
            return _snapshot_payment(payment)

    @property
    def refunds(self) -> list[SandboxRefund]:
        """Every refund accepted, in arrival order."""
        with self._lock:
            return list(self._refunds)

    @property
    def print_jobs(self) -> list[PrintJob]:
        """Every print job accepted, in arrival order."""
        with self._lock:
            return [
                PrintJob(j.referencia, j.documento, j.smartpos_id, j.conteudo, j.status)
                for j in self._prints.values()
            ]

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request the sandbox saw, answered or not, in arrival order."""
        with self._lock:
            return list(self._requests)

    # ------------------------------------------------------------------ events

    @property
    def events(self) -> list[dict[str, Any]]:
        """Every envelope delivered so far (one entry per delivery, resends included)."""
        with self._lock:
            return [dict(e) for e in self._events]

    @property
    def deliveries(self) -> list[DeliveryAttempt]:
        """Every delivery attempt, retries included, in order."""
        with self._lock:
            return list(self._deliveries)

    def _emit(self, partner: str, tipo: str, dados: dict[str, Any]) -> dict[str, Any]:
        """Create an envelope and queue it for delivery after the lock is released."""
        criado_em = dt.datetime.fromtimestamp(self.now(), self._tz)
        envelope: dict[str, Any] = {
            "id": self._uuid(),
            "tipo": tipo,
            "criadoEm": criado_em.isoformat(timespec="milliseconds"),
            "dados": dados,
        }
        self._envelopes[envelope["id"]] = (partner, envelope)
        self._outbox.append((partner, envelope))
        return envelope

    def _flush(self) -> None:
        with self._lock:
            items, self._outbox = self._outbox, []
        for partner, envelope in items:
            self._dispatch(partner, envelope)

    def _dispatch(self, partner: str, envelope: dict[str, Any]) -> None:
        with self._lock:
            if self._held is not None:
                self._held.append((partner, envelope))
                return
            target = self._partners[partner].webhook
            failure = None
            if target is False:
                failure = "webhook not configured"
            elif isinstance(target, str) and self._closed.is_set():
                failure = "sandbox closed"
            if failure is not None:
                attempt = DeliveryAttempt(
                    envelope["id"], envelope["tipo"], 1, "-", ok=False, error=failure
                )
                self._deliveries.append(attempt)
                return
            if isinstance(target, str):
                self._pending += 1
                self._start_worker()
                self._jobs.put((partner, envelope))
                return
        self._deliver(None if isinstance(target, bool) else target, envelope, None)

    def _deliver(
        self,
        target: WebhookTarget | None,
        envelope: dict[str, Any],
        client: httpx.Client | None,
    ) -> None:
        """Deliver one envelope with retries; record it in :attr:`events` when done."""
        description = "sandbox.events" if target is None else describe_target(target)
        for attempt in range(1, self._attempts + 1):
            with self._lock:
                injected = self._webhook_failures.pop(0) if self._webhook_failures else False
            if injected is False or injected is None:
                if target is None:
                    ok, status, error = True, None, None
                else:
                    ok, status, error = attempt_delivery(target, envelope, client)
                if injected is None:
                    ok, status, error = False, None, "timed out waiting for the target's answer"
            else:
                ok, status, error = False, injected, f"HTTP {injected} (injected)"
            with self._lock:
                self._deliveries.append(
                    DeliveryAttempt(
                        envelope["id"], envelope["tipo"], attempt, description, ok, status, error
                    )
                )
            if ok or attempt == self._attempts:
                break
            if isinstance(target, str) and self._closed.wait(self._backoff * 2 ** (attempt - 1)):
                break
        with self._changed:
            self._events.append(envelope)
            self._changed.notify_all()

    def _start_worker(self) -> None:
        if self._worker is None and not self._closed.is_set():
            self._worker = threading.Thread(
                target=self._work, name="smartpos-sandbox-webhooks", daemon=True
            )
            self._worker.start()

    def _work(self) -> None:
        with httpx.Client(timeout=self._timeout, trust_env=False) as client:
            while True:
                job = self._jobs.get()
                if job is None:
                    return
                partner, envelope = job
                try:
                    with self._lock:
                        target = self._partners[partner].webhook
                    if self._closed.is_set():
                        continue
                    if isinstance(target, bool):
                        # The target changed while queued: deliver where it points now.
                        if target:
                            self._deliver(None, envelope, None)
                    else:
                        self._deliver(target, envelope, client)
                finally:
                    with self._changed:
                        self._pending -= 1
                        self._changed.notify_all()

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
        with self._changed:
            if not self._changed.wait_for(lambda: len(self._events) >= count, timeout):
                raise TimeoutError(f"{len(self._events)} of {count} events after {timeout}s")
            return [dict(e) for e in self._events]

    def wait_for_deliveries(self, timeout: float = 5.0) -> None:
        """Wait until no delivery to a URL is queued or running.

        Args:
            timeout: Seconds to wait at most.

        Raises:
            TimeoutError: Deliveries were still pending.
        """
        with self._changed:
            if not self._changed.wait_for(lambda: self._pending == 0, timeout):
                raise TimeoutError(f"{self._pending} deliveries still pending after {timeout}s")

    def resend(self, event_id: str) -> None:
        """Deliver an event again with the same ``id``, like the service's manual resend.

        Args:
            event_id: The envelope's ``id``.

        Raises:
            SandboxError: No event has that id.
        """
        with self._lock:
            found = self._envelopes.get(event_id)
            if found is None:
                raise SandboxError(f"no event {event_id!r}")
            self._outbox.append(found)
        self._flush()

    def hold_events(self) -> None:
        """Hold every new delivery until :meth:`release_events` (to deliver out of order)."""
        with self._lock:
            if self._held is None:
                self._held = []

    @property
    def held_events(self) -> list[dict[str, Any]]:
        """The envelopes held by :meth:`hold_events`, in the order they were emitted."""
        with self._lock:
            return [dict(e) for _, e in self._held or []]

    def release_events(self, *, reverse: bool = False) -> list[dict[str, Any]]:
        """Stop holding and deliver the held envelopes, in emission order or reversed.

        Args:
            reverse: Deliver the newest first.

        Returns:
            The envelopes in the order they were handed to delivery.
        """
        with self._lock:
            held, self._held = self._held or [], None
            if reverse:
                held.reverse()
            self._outbox.extend(held)
        self._flush()
        return [dict(e) for _, e in held]


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
        fault = self.sandbox._take_fault(_endpoint_of(request.url.path))
        if isinstance(fault, Latency):
            await asyncio.sleep(fault.seconds)
        return self.sandbox._respond(request, fault)


def _try_json(content: bytes) -> Any:
    if not content:
        return None
    try:
        return json.loads(content)
    except ValueError:
        return None


def _snapshot_terminal(t: _Terminal) -> SandboxTerminal:
    return SandboxTerminal(t.smartpos_id, t.numero_serie, t.adquirente, t.documento)


def _snapshot_payment(p: _Payment) -> Payment:
    return Payment(
        referencia=p.referencia,
        documento_cliente=p.documento,
        valor_centavos=p.valor,
        modo_execucao=p.modo,
        status=p.status,
        smartpos_id=p.smartpos_id,
        targets=p.targets,
        forma_pagamento=p.forma,
        parcelas=p.parcelas,
        autorizacao=None if p.autorizacao is None else dict(p.autorizacao),
        valor_estornado_centavos=p.estornado,
        body=p.body,
    )


def _check_outcomes(payments: object, prints: object) -> None:
    if payments is not None and not isinstance(payments, (Approve, Refuse, NoAnswer)):
        raise TypeError(f"a payment outcome is Approve, Refuse or NoAnswer, not {payments!r}")
    if prints is not None and not isinstance(prints, (PrintDone, PrintFail, NoAnswer)):
        raise TypeError(f"a print outcome is PrintDone, PrintFail or NoAnswer, not {prints!r}")
