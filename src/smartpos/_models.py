"""Request objects, enums and result records.

Field names are the wire's Portuguese words in snake_case; ``_wire`` turns them into camelCase.
Money is always ``int`` cents. Datetimes are timezone-aware.
"""

from __future__ import annotations

import datetime as _dt
import enum
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import attrs

from . import _wire

__all__ = [
    "Acceptance",
    "Comanda",
    "Comprovante",
    "FormaPagamento",
    "HTTPInfo",
    "ItemComanda",
    "ModoExecucao",
    "PagamentoOriginal",
    "Parcelamento",
    "QRCode",
    "Refund",
    "Target",
    "Terminal",
]


class _WireEnum(str, enum.Enum):
    """A str enum whose members compare equal to, and print as, their wire strings."""

    def __str__(self) -> str:
        return str(self.value)

    @classmethod
    def parse(cls, value: object, campo: str) -> _WireEnum | None:
        """Return the member for ``value`` (a member or its wire string), or ``None``."""
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            try:
                return cls(value)
            except ValueError:
                return None
        return None


class FormaPagamento(_WireEnum):
    """Payment method (``formaPagamento``)."""

    CREDITO = "credito"
    DEBITO = "debito"
    PIX = "pix"
    VOUCHER = "voucher"


class Parcelamento(_WireEnum):
    """Who finances the installments (``parcelamento``)."""

    ESTABELECIMENTO = "estabelecimento"
    ADMINISTRADORA = "administradora"


class ModoExecucao(_WireEnum):
    """How the charge starts (``modoExecucao``)."""

    IMEDIATO = "imediato"
    """Start the charge now on the terminal given in ``smartpos_id``."""
    MANUAL = "manual"
    """Create a card in the operator's queue; the operator starts the charge later."""


# --- request objects ---------------------------------------------------------------------


def _tuple_of_items(value: Sequence[ItemComanda] | None) -> tuple[ItemComanda, ...]:
    return tuple(value) if value is not None else ()


@attrs.frozen(slots=True)
class ItemComanda:
    """One item shown on a manual-queue card (``comanda.itens[]``)."""

    titulo: str | None = None
    descricao: str | None = None


@attrs.frozen(slots=True)
class Comanda:
    """The card created in the operator's manual queue (``comanda``).

    Args:
        identificacao: Label shown on the card (name, table, ticket number or order).
        itens: Items shown on the card.
        endereco: Address or operating context shown to the operator.
    """

    identificacao: str
    itens: tuple[ItemComanda, ...] = attrs.field(default=(), converter=_tuple_of_items)
    endereco: str | None = None


@attrs.frozen(slots=True)
class Comprovante:
    """Receipt preferences (``comprovante``), sent as the nested ``imprimir``/``visualizar``."""

    imprimir_cliente: bool | None = attrs.field(default=None, metadata={"wire": "imprimir.cliente"})
    imprimir_loja: bool | None = attrs.field(default=None, metadata={"wire": "imprimir.loja"})
    visualizar_cliente: bool | None = attrs.field(
        default=None, metadata={"wire": "visualizar.cliente"}
    )
    visualizar_loja: bool | None = attrs.field(default=None, metadata={"wire": "visualizar.loja"})


@attrs.frozen(slots=True)
class PagamentoOriginal:
    """The approved payment a refund refers to; every field comes from ``dados.autorizacao``."""

    codigo_autorizacao: str
    numero_transacao: str
    dados_finalizacao: str = attrs.field(repr=False)
    tipo_pagamento: str


# --- results -----------------------------------------------------------------------------


@attrs.frozen(slots=True)
class HTTPInfo:
    """HTTP metadata of the response a result came from."""

    status_code: int
    headers: Mapping[str, str] = attrs.field(repr=False)
    request_id: str | None = None
    elapsed: float | None = attrs.field(default=None, repr=False)
    """Seconds from sending the request to reading the whole response (last attempt)."""
    attempts: int = 1
    """How many times the request was sent (1 when no retry happened)."""


@attrs.frozen(slots=True)
class JSONAnswer:
    """The answer of ``client.request`` as its call returns it, before the client unwraps it.

    Internal: it carries the HTTP metadata beside the parsed JSON, so that a journaled
    ``request`` keeps its status and headers as the other kinds do.
    """

    value: Any
    http: HTTPInfo | None = attrs.field(default=None, repr=False, eq=False)


_RAW: Any = attrs.field(factory=dict, repr=False, eq=False)
_HTTP: Any = attrs.field(default=None, repr=False, eq=False, metadata={"wire_skip": True})


@attrs.frozen(slots=True)
class Target:
    """A terminal that received, or should receive, the request (``targets[]``)."""

    smartpos_id: str
    status: str
    """Initial publication result for that terminal (observed: ``enviado``)."""


@attrs.frozen(slots=True)
class Acceptance:
    """The service accepted the request (HTTP 202). Never a final result.

    The outcome arrives later as a webhook event carrying the same ``referencia``
    (``pagamento.aprovado``/``pagamento.recusado``, ``impressao.concluida``/``impressao.falhou``).
    """

    referencia: str
    status: str
    """Initial state (observed: ``processando``)."""
    mensagem: str
    targets: list[Target] = attrs.field(factory=list)
    smartpos_id: str | None = None
    raw: Mapping[str, Any] = _RAW
    http: HTTPInfo | None = _HTTP


@attrs.frozen(slots=True)
class QRCode:
    """A QR code that pairs a terminal with the customer (HTTP 201 of ``POST /qrcode``).

    Show it with [`to_svg`][smartpos.QRCode.to_svg] or [`to_data_uri`][smartpos.QRCode.to_data_uri]
    in a web page, [`to_terminal`][smartpos.QRCode.to_terminal] in a terminal or
    [`save`][smartpos.QRCode.save] as an image file, or render ``qr_code`` yourself. When the
    terminal reads it, the ``smartpos.identificado`` event carries the terminal's id.
    """

    qr_code: str
    referencia: str
    expires_at: _dt.datetime = attrs.field(metadata={"wire_hook": _wire.parse_unix_timestamp})
    raw: Mapping[str, Any] = _RAW
    http: HTTPInfo | None = _HTTP

    def is_expired(self, now: _dt.datetime | None = None) -> bool:
        """Tell whether the QR code is no longer valid at ``now`` (default: the current time)."""
        if now is None:
            now = _dt.datetime.now(_dt.timezone.utc)
        elif now.tzinfo is None:
            now = now.replace(tzinfo=_dt.timezone.utc)
        return now >= self.expires_at

    def to_terminal(self, *, border: int = 2, invert: bool = False) -> str:
        """Return the QR code drawn with half-block characters, ready to print in a terminal.

        Args:
            border: Quiet-zone width in modules (the QR standard asks for 4; 2 scans well on
                screens).
            invert: Swap dark and light, for terminals with a light background.
        """
        from ._qr import to_terminal

        return to_terminal(self.qr_code, border=border, invert=invert)

    def save(
        self, target: str | Path | IO[bytes], *, kind: str | None = None, scale: int = 8
    ) -> None:
        """Write the QR code as an image: PNG or SVG, picked from the file name or ``kind``.

        Args:
            target: A path (``.png`` or ``.svg``) or a binary file object.
            kind: ``"png"`` or ``"svg"``; required when ``target`` is a file object.
            scale: Pixels per module.
        """
        from ._qr import save

        save(self.qr_code, target, kind=kind, scale=scale)

    def to_svg(self, *, scale: int = 8, border: int = 4, title: str | None = None) -> str:
        """Return the QR code as an SVG document (a str) to put inline in a web page.

        Args:
            scale: CSS pixels per module.
            border: Quiet-zone width in modules.
            title: An accessible name for screen readers.
        """
        from ._qr import to_svg

        return to_svg(self.qr_code, scale=scale, border=border, title=title)

    def to_data_uri(self, kind: str = "svg", *, scale: int = 8, border: int = 4) -> str:
        """Return the QR code as a ``data:`` URI for ``<img src="...">``.

        Args:
            kind: ``"svg"`` (``data:image/svg+xml``) or ``"png"`` (``data:image/png;base64``).
            scale: Pixels (PNG) or CSS pixels (SVG) per module.
            border: Quiet-zone width in modules.
        """
        from ._qr import to_data_uri

        return to_data_uri(self.qr_code, kind=kind, scale=scale, border=border)


@attrs.frozen(slots=True)
class Refund:
    """The service's answer to a refund request.

    The refund response is not specified by the service: every field it returns stays
    readable in ``raw``. ``referencia`` is always set (the one sent when the answer omits it).
    """

    referencia: str
    status: str | None = None
    mensagem: str | None = None
    raw: Mapping[str, Any] = _RAW
    http: HTTPInfo | None = _HTTP


@attrs.frozen(slots=True)
class Terminal:
    """A terminal of the customer's listing; the listing's shape is not specified: see ``raw``."""

    smartpos_id: str | None
    raw: Mapping[str, Any] = _RAW
