"""A sandbox served elsewhere, driven through its control API with the same methods as in process.

[`RemoteSandbox`][smartpos.testing.RemoteSandbox] has the switches and records of
[`Sandbox`][smartpos.testing.Sandbox], with the same names and arguments; each one is a request to
the control API (``/_sandbox/v1/``) of a served sandbox: ``smartpos sandbox``, ``python -m
smartpos.testing``, a container, or the pytest fixture ``smartpos_sandbox_url``. Outcomes and faults
travel in the vocabulary's JSON, so words (``"recusar"``) and objects (``Refuse()``) both work. What
cannot cross a process boundary (a callable webhook target, ``transport()``) is not offered.
"""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

import httpx

from ._codec import from_json
from ._control import KEY_HEADER
from ._delivery import DeliveryAttempt
from ._errors import QRCodeExpiredError, SandboxError
from ._faults import Fault
from ._outcomes import Outcome
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
from ._signing import WebhookSigning, signing_to_json
from ._vocabulary import fault_to_json, outcome_to_json

__all__ = ["CONTROL_KEY_VARIABLE", "RemoteSandbox"]

CONTROL_KEY_VARIABLE = "SMARTPOS_SANDBOX_CONTROL_KEY"
"""The environment variable of a served sandbox's control key (the server's and the clients')."""

_R = TypeVar("_R")

_Outcome = Outcome | str | Mapping[str, Any]


def _outcome(value: _Outcome) -> Any:
    return value if isinstance(value, (str, Mapping)) else outcome_to_json(value)


class RemoteSandbox:
    """A served sandbox, driven over HTTP through its control API.

    ```python
    from smartpos.testing import RemoteSandbox, Sandbox

    with Sandbox().serve() as url, RemoteSandbox(url) as remote:  # or `smartpos sandbox`'s URL
        remote.script_payments("recusar")
    ```

    Args:
        base_url: The sandbox's base URL (what ``serve()`` or ``smartpos sandbox`` printed).
        timeout: Seconds to wait for an answer (waits ask for more as they need it).
        control_key: The sandbox's control key, for one served with a key
            (``--control-key``, ``SMARTPOS_SANDBOX_CONTROL_KEY``): sent in the
            ``X-Sandbox-Control-Key`` header of every request. Default: the
            ``SMARTPOS_SANDBOX_CONTROL_KEY`` environment variable, else none.

    Raises a [`SandboxError`][smartpos.testing.SandboxError] for a misuse (its ``SANDBOX`` answer),
    [`QRCodeExpiredError`][smartpos.testing.QRCodeExpiredError], ``ValueError`` for a bad argument
    (``CAMPO_INVALIDO``), ``TimeoutError`` for a wait that timed out, and ``httpx.HTTPError`` when
    the sandbox cannot be reached; a missing or wrong control key is a ``SandboxError`` whose
    message starts with ``CHAVE_CONTROLE_INVALIDA``.
    """

    API_KEY: ClassVar[str] = "sandbox-key"
    """The default partner's API key."""
    DOCUMENTO: ClassVar[str] = "52998224725"
    """The default customer's CPF."""
    SMARTPOS_ID: ClassVar[str] = "SP-SANDBOX-1"
    """The default terminal."""

    def __init__(
        self, base_url: str, *, timeout: float = 10.0, control_key: str | None = None
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._timeout = timeout
        key = control_key or os.environ.get(CONTROL_KEY_VARIABLE) or None
        self._http = httpx.Client(
            base_url=self.base_url + "/_sandbox/v1",
            timeout=timeout,
            trust_env=False,
            headers={} if key is None else {KEY_HEADER: key},
        )

    def __enter__(self) -> RemoteSandbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the HTTP connection (the served sandbox keeps running)."""
        self._http.close()

    def __repr__(self) -> str:
        return f"<RemoteSandbox {self.base_url}>"

    def call(
        self,
        method: str,
        path: str,
        body: Mapping[str, Any] | None = None,
        *,
        params: Mapping[str, Any] | None = None,
        wait: float = 0.0,
        send_nulls: bool = False,
    ) -> Any:
        """Send one control request and return its JSON answer.

        Args:
            method: The HTTP method.
            path: The path after ``/_sandbox/v1``.
            body: The JSON body.
            params: The query.
            wait: Seconds the sandbox may wait before answering (added to the timeout).
            send_nulls: Keep ``None`` values in the body (dropped by default: "not given").

        Returns:
            The decoded JSON answer.

        Raises:
            SandboxError: A ``SANDBOX`` answer (or any other error answer).
            QRCodeExpiredError: A ``QR_CODE_EXPIRADO`` answer.
            ValueError: A ``CAMPO_INVALIDO`` or ``CAMPO_OBRIGATORIO`` answer.
            TimeoutError: A ``TEMPO_ESGOTADO`` answer.
        """
        if body is not None and not send_nulls:
            body = {k: v for k, v in body.items() if v is not None}
        response = self._http.request(
            method,
            path,
            json=body,
            params={k: v for k, v in (params or {}).items() if v is not None},
            timeout=self._timeout + wait,
        )
        try:
            data = response.json()
        except ValueError:
            data = None
        if response.is_success:
            return data
        erro = data.get("erro", {}) if isinstance(data, dict) else {}
        codigo = erro.get("codigo")
        message = str(erro.get("mensagem") or f"HTTP {response.status_code}")
        if erro.get("campo"):
            message = f"{message} (campo {erro['campo']})"
        if codigo == "QR_CODE_EXPIRADO":
            raise QRCodeExpiredError(message)
        if codigo in ("CAMPO_INVALIDO", "CAMPO_OBRIGATORIO"):
            raise ValueError(message)
        if codigo == "TEMPO_ESGOTADO":
            raise TimeoutError(message)
        raise SandboxError(f"{codigo or response.status_code}: {message}")

    def _records(self, cls: type[_R], path: str, key: str, **params: Any) -> list[_R]:
        return [from_json(cls, item) for item in self.call("GET", path, params=params)[key]]

    # ------------------------------------------------------------------ clock

    def now(self) -> float:
        """The sandbox's current Unix time."""
        return float(self.call("GET", "/clock")["now"])

    def advance(self, seconds: float) -> None:
        """Move the sandbox's clock forward (delayed events that become due are delivered)."""
        self.call("POST", "/clock/advance", {"seconds": seconds})

    # ------------------------------------------------------------------ world

    def add_partner(
        self,
        api_key: str,
        *,
        name: str | None = None,
        webhook: str | bool = True,
        key_status: KeyStatus = "active",
    ) -> Partner:
        """Add a partner; ``webhook`` is a URL, ``True`` (recorded only) or ``False``."""
        if not isinstance(webhook, (str, bool)):
            raise TypeError("over HTTP a webhook is a URL, True or False")
        body = {"apiKey": api_key, "name": name, "webhook": webhook, "keyStatus": key_status}
        return from_json(Partner, self.call("POST", "/partners", body)["partner"])

    def set_webhook(self, webhook: str | bool, *, api_key: str = API_KEY) -> None:
        """Change where a partner's events go: a URL, ``True`` or ``False``."""
        if not isinstance(webhook, (str, bool)):
            raise TypeError("over HTTP a webhook is a URL, True or False")
        self.call("PUT", "/webhook", {"webhook": webhook, "apiKey": api_key})

    def set_webhook_signing(self, signing: WebhookSigning | None) -> None:
        """Sign every later delivery so, or stop signing with ``None`` (text secrets only)."""
        self.call(
            "PUT",
            "/webhook/signing",
            {"signing": None if signing is None else signing_to_json(signing)},
            send_nulls=True,
        )

    def set_webhook_headers(self, headers: Mapping[str, str] | None) -> None:
        """Send these fixed headers with every later delivery (``None``: none)."""
        self.call(
            "PUT",
            "/webhook/headers",
            {"headers": None if headers is None else dict(headers)},
            send_nulls=True,
        )

    def set_key_status(self, api_key: str, status: KeyStatus) -> None:
        """Change a key's state (``active``, ``rotated``, ``inactive``)."""
        self.call("POST", "/keys/status", {"apiKey": api_key, "status": status})

    def rotate_key(self, api_key: str, new_api_key: str) -> None:
        """Rotate a partner's key."""
        self.call("POST", "/keys/rotate", {"apiKey": api_key, "newApiKey": new_api_key})

    def add_customer(self, documento_cliente: str, *, api_key: str = API_KEY) -> Customer:
        """Add a customer owned by the partner that has ``api_key``."""
        body = {"documentoCliente": documento_cliente, "apiKey": api_key}
        return from_json(Customer, self.call("POST", "/customers", body)["customer"])

    def add_terminal(
        self,
        smartpos_id: str,
        *,
        documento_cliente: str | None = None,
        numero_serie_terminal: str | None = None,
        adquirente: str = "STONE",
        payments: _Outcome | None = None,
        prints: _Outcome | None = None,
    ) -> SandboxTerminal:
        """Add a terminal, linked to a customer or waiting to be paired."""
        body = {
            "smartposId": smartpos_id,
            "documentoCliente": documento_cliente,
            "numeroSerieTerminal": numero_serie_terminal,
            "adquirente": adquirente,
            "payments": None if payments is None else _outcome(payments),
            "prints": None if prints is None else _outcome(prints),
        }
        return from_json(SandboxTerminal, self.call("POST", "/terminals", body)["terminal"])

    def link_terminal(self, smartpos_id: str, documento_cliente: str | None) -> None:
        """Link a terminal to a customer, or unlink it with ``None``."""
        body = {"smartposId": smartpos_id, "documentoCliente": documento_cliente}
        # documentoCliente null means "unlink": sent as is, not dropped.
        self.call("POST", "/terminals/link", body, send_nulls=True)

    @property
    def partners(self) -> list[Partner]:
        """Every partner."""
        return self._records(Partner, "/partners", "partners")

    @property
    def customers(self) -> list[Customer]:
        """Every customer."""
        return self._records(Customer, "/customers", "customers")

    def terminals(self, documento_cliente: str | None = None) -> list[SandboxTerminal]:
        """Every terminal, or those linked to one customer."""
        return self._records(
            SandboxTerminal, "/terminals", "terminals", documentoCliente=documento_cliente
        )

    # ------------------------------------------------------------------ outcomes and faults

    def script_payments(
        self, *outcomes: _Outcome, times: int = 1, smartpos_id: str | None = None
    ) -> None:
        """Queue what the next payments do (objects or words such as ``"recusar"``)."""
        body = {
            "kind": "payment",
            "outcomes": [_outcome(o) for o in outcomes],
            "times": times,
            "smartposId": smartpos_id,
        }
        self.call("POST", "/outcomes", body)

    def script_prints(
        self, *outcomes: _Outcome, times: int = 1, smartpos_id: str | None = None
    ) -> None:
        """Queue what the next print jobs do (objects or words such as ``"falhar"``)."""
        body = {
            "kind": "print",
            "outcomes": [_outcome(o) for o in outcomes],
            "times": times,
            "smartposId": smartpos_id,
        }
        self.call("POST", "/outcomes", body)

    def set_outcomes(
        self,
        *,
        payments: _Outcome | None = None,
        prints: _Outcome | None = None,
        smartpos_id: str | None = None,
    ) -> None:
        """Set what terminals do when nothing is scripted."""
        body = {
            "payments": None if payments is None else _outcome(payments),
            "prints": None if prints is None else _outcome(prints),
            "smartposId": smartpos_id,
        }
        self.call("PUT", "/outcomes", body)

    def fail_next(self, endpoint: str, fault: Fault | str, *, times: int = 1) -> None:
        """Inject a fault into the next ``times`` requests to an endpoint."""
        given = fault if isinstance(fault, str) else fault_to_json(fault)
        self.call("POST", "/faults", {"endpoint": endpoint, "fault": given, "times": times})

    def clear_faults(self) -> None:
        """Forget every fault not yet used, webhook faults included."""
        self.call("DELETE", "/faults")

    def fail_webhook(self, *, times: int = 1, status_code: int = 500) -> None:
        """Make the next delivery attempts fail as if the target answered ``status_code``."""
        body = {"endpoint": "webhook", "fault": str(status_code), "times": times}
        self.call("POST", "/faults", body)

    def slow_webhook(self, *, times: int = 1) -> None:
        """Make the next delivery attempts time out on the sandbox's side."""
        self.call("POST", "/faults", {"endpoint": "webhook", "fault": "timeout", "times": times})

    # ------------------------------------------------------------------ pairing and operator

    def scan(self, qr_code: str | None = None, smartpos_id: str = SMARTPOS_ID) -> dict[str, Any]:
        """Read a QR code (the newest when ``None``) on a terminal; return the event."""
        event: dict[str, Any] = self.call(
            "POST", "/scan", {"qrCode": qr_code, "smartposId": smartpos_id}
        )["event"]
        return event

    @property
    def qrcodes(self) -> list[SandboxQRCode]:
        """Every QR code created."""
        return self._records(SandboxQRCode, "/qrcodes", "qrcodes")

    def manual_queue(self, documento_cliente: str | None = None) -> list[Card]:
        """The manual-mode cards waiting for an operator."""
        return self._records(Card, "/queue", "cards", documentoCliente=documento_cliente)

    def operator_start(
        self,
        referencia: str,
        *,
        smartpos_id: str | None = None,
        outcome: _Outcome | None = None,
    ) -> dict[str, Any] | None:
        """Start a queued card; return its event (``None`` for silence)."""
        body = {
            "referencia": referencia,
            "smartposId": smartpos_id,
            "outcome": None if outcome is None else _outcome(outcome),
        }
        event: dict[str, Any] | None = self.call("POST", "/operator/start", body)["event"]
        return event

    def operator_cancel(
        self, referencia: str, *, mensagem_operador: str = "CANCELADO PELO OPERADOR"
    ) -> dict[str, Any]:
        """Cancel a queued card; return its ``pagamento.recusado`` event."""
        body = {"referencia": referencia, "mensagemOperador": mensagem_operador}
        event: dict[str, Any] = self.call("POST", "/operator/cancel", body)["event"]
        return event

    # ------------------------------------------------------------------ records

    @property
    def payments(self) -> list[Payment]:
        """Every payment accepted."""
        return self._records(Payment, "/payments", "payments")

    def payment(self, referencia: str) -> Payment:
        """One accepted payment."""
        path = "/payments/" + urllib.parse.quote(referencia, safe="")
        return from_json(Payment, self.call("GET", path)["payment"])

    @property
    def refunds(self) -> list[SandboxRefund]:
        """Every refund accepted."""
        return self._records(SandboxRefund, "/refunds", "refunds")

    @property
    def print_jobs(self) -> list[PrintJob]:
        """Every print job accepted."""
        return self._records(PrintJob, "/print-jobs", "printJobs")

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request recorded (control reads excluded)."""
        return self._records(RecordedRequest, "/requests", "requests")

    # ------------------------------------------------------------------ events

    @property
    def events(self) -> list[dict[str, Any]]:
        """Every envelope delivered so far."""
        events: list[dict[str, Any]] = self.call("GET", "/events")["events"]
        return events

    @property
    def deliveries(self) -> list[DeliveryAttempt]:
        """Every delivery attempt."""
        return self._records(DeliveryAttempt, "/deliveries", "deliveries")

    def wait_for_events(self, count: int, timeout: float = 5.0) -> list[dict[str, Any]]:
        """Wait until at least ``count`` envelopes were delivered."""
        params = {"count": count, "timeout": timeout}
        events: list[dict[str, Any]] = self.call("GET", "/events", params=params, wait=timeout)[
            "events"
        ]
        return events

    def wait_for_deliveries(self, timeout: float = 5.0) -> None:
        """Wait until no delivery to a URL is queued or running."""
        self.call("GET", "/deliveries", params={"timeout": timeout}, wait=timeout)

    def resend(
        self,
        event_id: str,
        *,
        to: str | None = None,
        headers: Mapping[str, str] | None = None,
        signing: WebhookSigning | None = None,
    ) -> None:
        """Deliver an event again with the same ``id`` (only to ``to`` when given)."""
        path = f"/events/{urllib.parse.quote(event_id, safe='')}/resend"
        body = {
            "to": to,
            "headers": None if headers is None else dict(headers),
            "signing": None if signing is None else signing_to_json(signing),
        }
        self.call("POST", path, body)

    def hold_events(self) -> None:
        """Hold every new delivery until `release_events`."""
        self.call("POST", "/events/hold")

    @property
    def held_events(self) -> list[dict[str, Any]]:
        """The envelopes held."""
        events: list[dict[str, Any]] = self.call("GET", "/events/held")["events"]
        return events

    def release_events(self, *, reverse: bool = False) -> list[dict[str, Any]]:
        """Stop holding and deliver the held envelopes."""
        events: list[dict[str, Any]] = self.call("POST", "/events/release", {"reverse": reverse})[
            "events"
        ]
        return events

    @property
    def held_by_referencia(self) -> dict[str, list[dict[str, Any]]]:
        """The envelopes ``Hold`` keeps back, per referencia."""
        held: dict[str, list[dict[str, Any]]] = self.call("GET", "/events/held/by-referencia")[
            "held"
        ]
        return held

    def release(self, referencia: str) -> list[dict[str, Any]]:
        """Deliver the events ``Hold`` keeps back for one referencia; return them."""
        path = f"/events/held/{urllib.parse.quote(referencia, safe='')}/release"
        events: list[dict[str, Any]] = self.call("POST", path)["events"]
        return events

    def log(self, since: int = 0, *, wait: float = 0.0) -> list[LogEntry]:
        """The log entries after ``since``, waiting up to ``wait`` seconds for a first one."""
        params = {"since": since, "wait": wait}
        data = self.call("GET", "/log", params=params, wait=wait)
        return [from_json(LogEntry, entry) for entry in data["entries"]]

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
        """Make an event happen for real in the sandbox's world; return its envelope."""
        body = {
            "tipo": tipo,
            "to": to,
            "headers": None if headers is None else dict(headers),
            "signing": None if signing is None else signing_to_json(signing),
            "documentoCliente": documento_cliente,
            "smartposId": smartpos_id,
            "valorCentavos": valor_centavos,
            "referencia": referencia,
        }
        event: dict[str, Any] = self.call("POST", "/trigger", body)["event"]
        return event
