"""Read-only snapshots of the sandbox's world and records, returned by `Sandbox`.

Documents (CPF/CNPJ) are masked in every ``repr``; API keys show only their first 4 characters.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

import attrs

from ._delivery import DeliveryAttempt
from ._documents import mask_documento

__all__ = [
    "Card",
    "Customer",
    "KeyStatus",
    "LogEntry",
    "Partner",
    "Payment",
    "PrintJob",
    "RecordedRequest",
    "SandboxQRCode",
    "SandboxRefund",
    "SandboxTerminal",
    "mask_key",
]

KeyStatus = Literal["active", "rotated", "inactive"]
"""An API key's state; only ``"active"`` keys are accepted."""


def mask_key(key: str) -> str:
    """Mask an API key for reprs: its first 4 characters, then ``***``.

    Args:
        key: The API key.

    Returns:
        The masked key.
    """
    return key[:4] + "***"


class _MaskedRepr:
    """An attrs repr that masks ``documento_cliente`` and API keys."""

    __slots__ = ()

    def __repr__(self) -> str:
        parts = []
        for field in attrs.fields(type(self)):  # type: ignore[arg-type]
            if not field.repr:
                continue
            value = getattr(self, field.name)
            if field.name == "documento_cliente" and isinstance(value, str):
                shown = repr(mask_documento(value))
            elif field.name == "api_keys" and isinstance(value, Mapping):
                shown = repr({mask_key(k): v for k, v in value.items()})
            else:
                shown = repr(value)
            parts.append(f"{field.name}={shown}")
        return f"{type(self).__name__}({', '.join(parts)})"


@attrs.frozen(repr=False)
class Partner(_MaskedRepr):
    """A partner of the service: its API keys and whether it has a webhook configured.

    Attributes:
        name: The partner's name in the sandbox.
        api_keys: Every key of the partner and its state.
        webhook_configured: ``False`` makes payments answer ``400 WEBHOOK_NAO_CONFIGURADO``.
        webhook_target: Where its events go besides ``sandbox.events`` (``None``: recorded only).
    """

    name: str
    api_keys: Mapping[str, KeyStatus]
    webhook_configured: bool
    webhook_target: object | None


@attrs.frozen(repr=False)
class Customer(_MaskedRepr):
    """A customer (CPF or CNPJ) owned by one partner.

    Attributes:
        documento_cliente: The normalized document (digits and upper-case letters).
        partner: The owning partner's name.
    """

    documento_cliente: str
    partner: str


@attrs.frozen(repr=False)
class SandboxTerminal(_MaskedRepr):
    """A smart POS terminal of the sandbox (not `smartpos.Terminal`, the listing's result).

    Attributes:
        smartpos_id: Its public id.
        numero_serie_terminal: The serial number it reports.
        adquirente: The acquirer it reports.
        documento_cliente: The customer it is linked to, or ``None``.
    """

    smartpos_id: str
    numero_serie_terminal: str
    adquirente: str
    documento_cliente: str | None


@attrs.frozen(repr=False)
class SandboxQRCode(_MaskedRepr):
    """A QR code the sandbox created for ``POST /qrcode`` (not `smartpos.QRCode`).

    Attributes:
        qr_code: The ``qrCode`` value returned (what [`Sandbox.scan`][smartpos.testing.Sandbox.scan]
            takes).
        qr_code_id: The internal id sent as ``dados.qrCodeId``.
        referencia: The referencia echoed back.
        documento_cliente: The customer a scan links the terminal to.
        expires_at: The ``expiresAt`` Unix timestamp.
    """

    qr_code: str
    qr_code_id: str
    referencia: str
    documento_cliente: str
    expires_at: int


@attrs.frozen(repr=False)
class Payment(_MaskedRepr):
    """A payment the sandbox accepted.

    Attributes:
        referencia: Its referencia.
        documento_cliente: The customer.
        valor_centavos: The amount.
        modo_execucao: ``"imediato"`` or ``"manual"``.
        status: ``"processando"`` (sent, no answer yet or never), ``"na_fila"`` (manual card
            waiting), ``"aprovado"``, or the refusal status (``"recusado"``, ``"cancelado"``...).
        smartpos_id: The terminal that executed it (or was asked to), if any.
        targets: The terminals it was published to.
        forma_pagamento: As requested.
        parcelas: As requested.
        autorizacao: The ``autorizacao`` object of its ``pagamento.aprovado`` event.
        valor_estornado_centavos: The total refunded so far.
        body: The JSON body as received.
    """

    referencia: str
    documento_cliente: str
    valor_centavos: int
    modo_execucao: str
    status: str
    smartpos_id: str | None
    targets: tuple[str, ...]
    forma_pagamento: str | None
    parcelas: int | None
    autorizacao: Mapping[str, str] | None
    valor_estornado_centavos: int
    body: Mapping[str, Any] = attrs.field(repr=False)


@attrs.frozen(repr=False)
class Card(_MaskedRepr):
    """A manual-mode payment waiting in the operator queue.

    Attributes:
        referencia: The payment's referencia.
        documento_cliente: The customer.
        identificacao: ``comanda.identificacao``, the label on the card.
        valor_centavos: The amount.
        targets: The terminals the card is published to.
    """

    referencia: str
    documento_cliente: str
    identificacao: str
    valor_centavos: int
    targets: tuple[str, ...]


@attrs.frozen(repr=False)
class SandboxRefund(_MaskedRepr):
    """A refund the sandbox accepted (not `smartpos.Refund`, the client's result).

    Attributes:
        referencia: The refund's referencia.
        documento_cliente: The customer.
        smartpos_id: The terminal.
        valor_centavos: The amount refunded.
        pagamento_referencia: The referencia of the refunded payment.
    """

    referencia: str
    documento_cliente: str
    smartpos_id: str
    valor_centavos: int
    pagamento_referencia: str


@attrs.frozen(repr=False)
class PrintJob(_MaskedRepr):
    """A print job the sandbox accepted.

    Attributes:
        referencia: Its referencia.
        documento_cliente: The customer.
        smartpos_id: The terminal.
        conteudo: The decoded content.
        status: ``"processando"``, ``"concluida"`` or the failure status.
    """

    referencia: str
    documento_cliente: str
    smartpos_id: str
    conteudo: bytes
    status: str


@attrs.frozen(repr=False)
class RecordedRequest:
    """One request the sandbox saw, in arrival order (the API key is not kept).

    Attributes:
        method: The HTTP method.
        path: The URL path.
        json: The decoded JSON body, or ``None``.
        status_code: The status answered, or ``None`` when no answer was sent (a fault).
        fault: The name of the injected fault, if any.
    """

    method: str
    path: str
    json: Any
    status_code: int | None
    fault: str | None

    def __repr__(self) -> str:
        path = _CUSTOMER_PATH.sub(lambda m: m[1] + mask_documento(m[2]) + m[3], self.path)
        body = self.json
        if isinstance(body, Mapping) and isinstance(body.get("documentoCliente"), str):
            body = {**body, "documentoCliente": mask_documento(body["documentoCliente"])}
        return (
            f"RecordedRequest(method={self.method!r}, path={path!r}, json={body!r}, "
            f"status_code={self.status_code!r}, fault={self.fault!r})"
        )


@attrs.frozen
class LogEntry:
    """One line of the sandbox's log: a request it answered or a delivery attempt it made.

    Attributes:
        seq: The entry's number, from 1, in the order things happened.
        at: When, as Unix time on the sandbox's clock.
        record: The [`RecordedRequest`][smartpos.testing.RecordedRequest] or the
            [`DeliveryAttempt`][smartpos.testing.DeliveryAttempt].
    """

    seq: int
    at: float
    record: RecordedRequest | DeliveryAttempt

    @property
    def kind(self) -> Literal["request", "delivery"]:
        """``"request"`` or ``"delivery"``."""
        return "request" if isinstance(self.record, RecordedRequest) else "delivery"


_CUSTOMER_PATH = re.compile(r"(/v1/customers/)([^/?#]+)(/smartpos)")
