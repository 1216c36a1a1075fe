"""The sandbox's world: partners, customers, terminals and everything the service accepted.

One `World` holds the state and its lock; the service, the terminals and the outbox
change it under that lock. Methods here build the world (what a test sets up) and read it (the
snapshots of `_records`); they never answer requests or emit events.
"""

from __future__ import annotations

import collections
import datetime as dt
import itertools
import random
import threading
import uuid
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from ._delivery import DeliveryAttempt, WebhookTarget, check_target
from ._documents import normalize_documento
from ._errors import SandboxError
from ._outcomes import PaymentOutcome, PrintOutcome, check_outcomes
from ._protocol import Request, try_json
from ._records import (
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
    mask_key,
)

__all__ = [
    "DEFAULT_LOG_LIMIT",
    "PartnerState",
    "PaymentState",
    "PrintJobState",
    "TerminalState",
    "World",
]

DEFAULT_LOG_LIMIT = 10_000
"""The most log entries, request and delivery records a sandbox keeps, each (``log_limit``)."""

_ALNUM = "0123456789ABCDEFGHJKLMNPQRSTUVWXYZ"

_HIDDEN = "***"
"""What the log shows of a secret sent to the control API."""


def _mask_control(body: dict[str, Any]) -> dict[str, Any]:
    """A control request's body for the log: keys masked, secrets and header values hidden.

    ``headers`` (fixed or per delivery) often carry a shared secret, and ``signing`` the key
    material: the names stay, the values do not.
    """
    masked: dict[str, Any] = {}
    for key, value in body.items():
        if key in ("apiKey", "newApiKey") and isinstance(value, str):
            value = mask_key(value)
        elif key == "headers" and isinstance(value, Mapping):
            value = dict.fromkeys(value, _HIDDEN)
        elif key == "signing" and isinstance(value, Mapping):
            value = {k: _HIDDEN if k == "secret" else v for k, v in value.items()}
            options = value.get("options")
            if isinstance(options, Mapping) and isinstance(options.get("headers"), Mapping):
                value["options"] = {
                    **options,
                    "headers": dict.fromkeys(options["headers"], _HIDDEN),
                }
        masked[key] = value
    return masked


@attrs.define
class PartnerState:
    """A partner: its keys (and their state), its webhook and the referencias it used."""

    name: str
    keys: dict[str, KeyStatus]
    webhook: WebhookTarget | bool
    referencias: set[str] = attrs.Factory(set)

    def snapshot(self) -> Partner:
        """Return the read-only record."""
        webhook = self.webhook
        return Partner(
            name=self.name,
            api_keys=dict(self.keys),
            webhook_configured=webhook is not False,
            webhook_target=None if isinstance(webhook, bool) else webhook,
        )


@attrs.define
class TerminalState:
    """A terminal: what it reports, its customer, and what it does (standing and scripted)."""

    smartpos_id: str
    numero_serie: str
    adquirente: str
    documento: str | None
    payments: PaymentOutcome | None = None
    prints: PrintOutcome | None = None
    payment_script: collections.deque[PaymentOutcome] = attrs.Factory(collections.deque)
    print_script: collections.deque[PrintOutcome] = attrs.Factory(collections.deque)

    def snapshot(self) -> SandboxTerminal:
        """Return the read-only record."""
        return SandboxTerminal(self.smartpos_id, self.numero_serie, self.adquirente, self.documento)


@attrs.define
class PaymentState:
    """An accepted payment and what became of it."""

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

    def snapshot(self) -> Payment:
        """Return the read-only record."""
        return Payment(
            referencia=self.referencia,
            documento_cliente=self.documento,
            valor_centavos=self.valor,
            modo_execucao=self.modo,
            status=self.status,
            smartpos_id=self.smartpos_id,
            targets=self.targets,
            forma_pagamento=self.forma,
            parcelas=self.parcelas,
            autorizacao=None if self.autorizacao is None else dict(self.autorizacao),
            valor_estornado_centavos=self.estornado,
            body=self.body,
        )


@attrs.define
class PrintJobState:
    """An accepted print job and what became of it."""

    partner: str
    referencia: str
    documento: str
    smartpos_id: str
    conteudo: bytes
    status: str = "processando"

    def snapshot(self) -> PrintJob:
        """Return the read-only record."""
        return PrintJob(
            self.referencia, self.documento, self.smartpos_id, self.conteudo, self.status
        )


class World:
    """Every piece of the sandbox's state, behind one re-entrant lock.

    Args:
        seed: Seed for generated ids and authorization data.
        clock: Returns the current Unix time.
        qr_code_ttl: Seconds a QR code stays valid.
        event_timezone: The UTC offset of ``criadoEm``.
    """

    def __init__(
        self,
        *,
        seed: int | None,
        clock: Callable[[], float],
        qr_code_ttl: float,
        event_timezone: dt.tzinfo,
        log_limit: int = DEFAULT_LOG_LIMIT,
    ) -> None:
        self.lock = threading.RLock()
        #: The most entries the log, the request records and the delivery records each keep
        #: (the oldest go first): a sandbox left running in a container stays bounded.
        self.log_limit = log_limit
        self.qr_code_ttl = qr_code_ttl
        self._random = random.Random(seed)
        self._clock = clock
        self._offset = 0.0
        self._tz = event_timezone
        self.partners: dict[str, PartnerState] = {}
        self.keys: dict[str, str] = {}
        self.customers: dict[str, str] = {}
        self.terminals: dict[str, TerminalState] = {}
        self.qrcodes: dict[str, SandboxQRCode] = {}
        self.payments: dict[str, PaymentState] = {}
        self.refunds: list[SandboxRefund] = []
        self.prints: dict[str, PrintJobState] = {}
        self.requests: collections.deque[RecordedRequest] = collections.deque(maxlen=log_limit)
        self.log: collections.deque[LogEntry] = collections.deque(maxlen=log_limit)
        self.log_seq = 0
        self.log_changed = threading.Condition(self.lock)
        self.allow_remote_webhooks = False

    # ------------------------------------------------------------------ clock and ids

    def now(self) -> float:
        """Return the current Unix time: the clock plus every `advance`."""
        return self._clock() + self._offset

    def advance(self, seconds: float) -> None:
        """Move the clock forward."""
        with self.lock:
            self._offset += seconds

    def uuid(self) -> str:
        """Return a new uuid4 drawn from the seeded generator."""
        return str(uuid.UUID(int=self._random.getrandbits(128), version=4))

    def alnum(self, size: int) -> str:
        """Return ``size`` random upper-case letters and digits (no I or O)."""
        return "".join(self._random.choice(_ALNUM) for _ in range(size))

    def digits(self, size: int) -> str:
        """Return ``size`` random digits."""
        return "".join(self._random.choice("0123456789") for _ in range(size))

    def serial_number(self) -> str:
        """Return a new terminal serial number."""
        return f"SN{self._random.randrange(10**9, 10**10)}"

    def envelope(self, tipo: str, dados: dict[str, Any]) -> dict[str, Any]:
        """Return a new event envelope (a fresh ``id``, ``criadoEm`` now)."""
        criado_em = dt.datetime.fromtimestamp(self.now(), self._tz)
        return {
            "id": self.uuid(),
            "tipo": tipo,
            "criadoEm": criado_em.isoformat(timespec="milliseconds"),
            "dados": dados,
        }

    # ------------------------------------------------------------------ lookups

    def partner_of(self, api_key: str) -> PartnerState:
        """Return the partner that has ``api_key`` (any state).

        Raises:
            SandboxError: No partner has it.
        """
        name = self.keys.get(api_key)
        if name is None:
            raise SandboxError(f"no partner has the API key {api_key[:4]}***")
        return self.partners[name]

    def terminal(self, smartpos_id: str) -> TerminalState:
        """Return a terminal.

        Raises:
            SandboxError: No such terminal.
        """
        terminal = self.terminals.get(smartpos_id)
        if terminal is None:
            raise SandboxError(f"no terminal {smartpos_id!r}")
        return terminal

    def existing_customer(self, documento_cliente: str | None) -> str | None:
        """Return the normalized document of an existing customer (``None`` passes through).

        Raises:
            SandboxError: No such customer.
        """
        if documento_cliente is None:
            return None
        documento = normalize_documento(documento_cliente)
        if documento is None or documento not in self.customers:
            raise SandboxError("no such customer")
        return documento

    def webhook_of(self, partner: str) -> WebhookTarget | bool:
        """Return where a partner's events go now."""
        with self.lock:
            return self.partners[partner].webhook

    # ------------------------------------------------------------------ building

    def add_partner(
        self, api_key: str, name: str | None, webhook: WebhookTarget | bool, key_status: KeyStatus
    ) -> Partner:
        """Add a partner with one key (see ``Sandbox.add_partner``)."""
        if not isinstance(webhook, bool):
            check_target(webhook, allow_remote=self.allow_remote_webhooks)
        with self.lock:
            name = name or f"partner-{len(self.partners) + 1}"
            if api_key in self.keys or name in self.partners:
                raise SandboxError(f"partner {name!r} or its key already exists")
            partner = PartnerState(name=name, keys={api_key: key_status}, webhook=webhook)
            self.partners[name] = partner
            self.keys[api_key] = name
            return partner.snapshot()

    def set_webhook(self, webhook: WebhookTarget | bool, api_key: str) -> None:
        """Change where a partner's events go."""
        if not isinstance(webhook, bool):
            check_target(webhook, allow_remote=self.allow_remote_webhooks)
        with self.lock:
            self.partner_of(api_key).webhook = webhook

    def set_key_status(self, api_key: str, status: KeyStatus) -> None:
        """Change a key's state."""
        with self.lock:
            self.partner_of(api_key).keys[api_key] = status

    def rotate_key(self, api_key: str, new_api_key: str) -> None:
        """Mark ``api_key`` rotated and give its partner ``new_api_key``."""
        with self.lock:
            partner = self.partner_of(api_key)
            if new_api_key in self.keys:
                raise SandboxError("the new API key is already taken")
            partner.keys[api_key] = "rotated"
            partner.keys[new_api_key] = "active"
            self.keys[new_api_key] = partner.name

    def add_customer(self, documento_cliente: str, api_key: str) -> Customer:
        """Add a customer owned by the partner that has ``api_key``."""
        documento = normalize_documento(documento_cliente)
        if documento is None:
            raise SandboxError("not a valid CPF or CNPJ")
        with self.lock:
            partner = self.partner_of(api_key)
            if documento in self.customers:
                raise SandboxError("this customer already exists")
            self.customers[documento] = partner.name
            return Customer(documento_cliente=documento, partner=partner.name)

    def add_terminal(
        self,
        smartpos_id: str,
        documento_cliente: str | None,
        numero_serie_terminal: str | None,
        adquirente: str,
        payments: PaymentOutcome | None,
        prints: PrintOutcome | None,
    ) -> SandboxTerminal:
        """Add a terminal, linked to a customer or not."""
        check_outcomes(payments, prints)
        with self.lock:
            if smartpos_id in self.terminals:
                raise SandboxError(f"terminal {smartpos_id!r} already exists")
            documento = self.existing_customer(documento_cliente)
            serial = numero_serie_terminal or self.serial_number()
            terminal = TerminalState(smartpos_id, serial, adquirente, documento, payments, prints)
            self.terminals[smartpos_id] = terminal
            return terminal.snapshot()

    def link_terminal(self, smartpos_id: str, documento_cliente: str | None) -> None:
        """Link a terminal to a customer, or unlink it with ``None``."""
        with self.lock:
            self.terminal(smartpos_id).documento = self.existing_customer(documento_cliente)

    def record(self, request: Request, status: int | None, fault: str | None) -> None:
        """Add a request to the log (its API key is not kept).

        Reads of the control API (``GET /_sandbox/...``) are not kept: a tool following the
        log would otherwise fill it with its own polling. Keys in control bodies are masked.
        """
        control = request.path.startswith("/_sandbox/")
        if control and request.method in ("GET", "HEAD"):
            return
        body = try_json(request.body)
        if control and isinstance(body, dict):
            body = _mask_control(body)
        recorded = RecordedRequest(
            method=request.method,
            path=request.path,
            json=body,
            status_code=status,
            fault=fault,
        )
        with self.lock:
            self.requests.append(recorded)
            self.add_log(recorded)

    def add_log(self, record: RecordedRequest | DeliveryAttempt) -> None:
        """Append a request or a delivery attempt to the log and wake its followers."""
        with self.log_changed:
            self.log_seq += 1
            self.log.append(LogEntry(self.log_seq, self.now(), record))
            self.log_changed.notify_all()

    def log_since(self, since: int, wait: float) -> list[LogEntry]:
        """The log entries after sequence number ``since``, waiting up to ``wait`` s for one.

        Entries numbered before the kept ones (beyond ``log_limit``) are gone: the first
        returned may be numbered above ``since + 1``.
        """
        with self.log_changed:
            if wait > 0:
                self.log_changed.wait_for(lambda: self.log_seq > since, wait)
            first = self.log_seq - len(self.log) + 1
            return list(itertools.islice(self.log, max(since + 1 - first, 0), None))

    # ------------------------------------------------------------------ reading

    def list_partners(self) -> list[Partner]:
        """Every partner."""
        with self.lock:
            return [p.snapshot() for p in self.partners.values()]

    def list_customers(self) -> list[Customer]:
        """Every customer."""
        with self.lock:
            return [Customer(d, p) for d, p in self.customers.items()]

    def list_terminals(self, documento_cliente: str | None) -> list[SandboxTerminal]:
        """Every terminal, or those linked to one customer."""
        documento = None if documento_cliente is None else normalize_documento(documento_cliente)
        with self.lock:
            return [
                t.snapshot()
                for t in self.terminals.values()
                if documento_cliente is None or t.documento == documento
            ]

    def list_qrcodes(self) -> list[SandboxQRCode]:
        """Every QR code, in creation order."""
        with self.lock:
            return list(self.qrcodes.values())

    def list_payments(self) -> list[Payment]:
        """Every payment, in arrival order."""
        with self.lock:
            return [p.snapshot() for p in self.payments.values()]

    def get_payment(self, referencia: str) -> Payment:
        """One payment.

        Raises:
            SandboxError: No payment has that referencia.
        """
        with self.lock:
            payment = self.payments.get(referencia)
            if payment is None:
                raise SandboxError(f"no payment {referencia!r}")
            return payment.snapshot()

    def list_refunds(self) -> list[SandboxRefund]:
        """Every refund, in arrival order."""
        with self.lock:
            return list(self.refunds)

    def list_print_jobs(self) -> list[PrintJob]:
        """Every print job, in arrival order."""
        with self.lock:
            return [j.snapshot() for j in self.prints.values()]

    def list_requests(self) -> list[RecordedRequest]:
        """Every request, in arrival order."""
        with self.lock:
            return list(self.requests)
