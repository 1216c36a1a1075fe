"""Typed webhook events (spec 2.9 and 6) and the strict parser that reads them.

``parse_event`` turns a delivery body into one of the event classes below, dispatching on
``tipo``; any ``tipo`` it does not know becomes an :class:`UnknownEvent` (kept, never an
error). It is strict: the only exception it ever raises is :class:`InvalidEventError`, whose
message names the JSON path of the problem (``$.dados.valorCentavos: expected an integer``).

``parse_envelope`` is its lenient sibling for the receiver: it only needs a JSON object with a
string ``id`` and ``tipo`` so the event can be stored; a ``dados`` that does not fit the typed
schema is the worker's business, never a reason to lose an event.

The JSON decoding itself is guarded: a body nested deeper than :data:`MAX_DEPTH` levels is
refused *before* the C decoder could recurse into a ``RecursionError``, ``NaN``/``Infinity``
literals and numbers too large for a float are refused, and invalid UTF-8 is refused.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from collections.abc import Callable, Mapping
from itertools import accumulate
from typing import Any, ClassVar, Final, TypeAlias, cast

import attrs

from smartpos._documents import mask_documento
from smartpos._errors import SmartPOSError
from smartpos._wire import WireError, parse_datetime, structure

__all__ = [
    "MAX_DEPTH",
    "Autorizacao",
    "DadosImpressao",
    "DadosPagamento",
    "DadosSmartposIdentificado",
    "Envelope",
    "Event",
    "EventClass",
    "ImpressaoConcluida",
    "ImpressaoFalhou",
    "InvalidEventError",
    "PagamentoAprovado",
    "PagamentoRecusado",
    "ResultadoSmartPOS",
    "SmartposIdentificado",
    "UnknownEvent",
    "decode_json",
    "parse_envelope",
    "parse_event",
]

#: Deepest nesting of arrays and objects a body may have. Events of the spec nest 3 levels.
MAX_DEPTH: Final = 64


class InvalidEventError(SmartPOSError, ValueError):
    """A body that is not a valid event; the message names the JSON path of the problem.

    Attributes:
        path: Where the problem is, as a JSON path (``$``, ``$.dados.valorCentavos``).
        problem: What is wrong there (``expected an integer``).
    """

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.path, self.problem))


# --- dados ---------------------------------------------------------------------------------


@attrs.frozen(slots=True)
class Autorizacao:
    """``dados.autorizacao`` of a payment event: what a refund needs (spec 2.4)."""

    codigo: str | None = None
    numero_transacao: str | None = None
    dados_finalizacao: str | None = attrs.field(default=None, repr=False)
    tipo_pagamento: str | None = None


@attrs.frozen(slots=True)
class ResultadoSmartPOS:
    """``dados.resultadoSmartPOS``: what the terminal itself reported."""

    executado: bool | None = None
    codigo_status: str | None = None
    mensagem_operador: str | None = None


@attrs.frozen(slots=True)
class DadosSmartposIdentificado:
    """``dados`` of ``smartpos.identificado``: a QR code was read on a terminal."""

    qr_code_id: str
    referencia: str
    documento_cliente: str = attrs.field(repr=mask_documento)
    smartpos_id: str
    numero_serie_terminal: str | None = None
    adquirente: str | None = None


@attrs.frozen(slots=True)
class DadosPagamento:
    """``dados`` of ``pagamento.aprovado`` and ``pagamento.recusado``.

    ``status`` and ``forma_pagamento`` stay ``str``: the spec leaves refusal statuses open and
    the service may report a payment method the SDK does not know yet.
    """

    referencia: str
    documento_cliente: str = attrs.field(repr=mask_documento)
    status: str
    valor_centavos: int | None = None
    valor_formatado: str | None = None
    forma_pagamento: str | None = None
    parcelas: int | None = None
    smartpos_id: str | None = None
    autorizacao: Autorizacao | None = None
    resultado_smartpos: ResultadoSmartPOS | None = attrs.field(
        default=None, metadata={"wire": "resultadoSmartPOS"}
    )


@attrs.frozen(slots=True)
class DadosImpressao:
    """``dados`` of ``impressao.concluida`` and ``impressao.falhou`` (no financial effect)."""

    referencia: str
    documento_cliente: str = attrs.field(repr=mask_documento)
    status: str
    smartpos_id: str | None = None
    resultado_smartpos: ResultadoSmartPOS | None = attrs.field(
        default=None, metadata={"wire": "resultadoSmartPOS"}
    )


# --- events --------------------------------------------------------------------------------

_RAW: Any = attrs.field(factory=dict, repr=False, eq=False)


@attrs.frozen(slots=True)
class SmartposIdentificado:
    """``smartpos.identificado``: a terminal was identified; save ``dados.smartpos_id``."""

    TIPO: ClassVar[str] = "smartpos.identificado"

    id: str
    tipo: str
    criado_em: _dt.datetime
    dados: DadosSmartposIdentificado
    raw: Mapping[str, Any] = _RAW


@attrs.frozen(slots=True)
class PagamentoAprovado:
    """``pagamento.aprovado``: finalize the sale; keep ``dados.autorizacao`` for refunds."""

    TIPO: ClassVar[str] = "pagamento.aprovado"

    id: str
    tipo: str
    criado_em: _dt.datetime
    dados: DadosPagamento
    raw: Mapping[str, Any] = _RAW


@attrs.frozen(slots=True)
class PagamentoRecusado:
    """``pagamento.recusado``: do not finalize; a new attempt needs a new referencia."""

    TIPO: ClassVar[str] = "pagamento.recusado"

    id: str
    tipo: str
    criado_em: _dt.datetime
    dados: DadosPagamento
    raw: Mapping[str, Any] = _RAW


@attrs.frozen(slots=True)
class ImpressaoConcluida:
    """``impressao.concluida``: a print job finished (no financial effect)."""

    TIPO: ClassVar[str] = "impressao.concluida"

    id: str
    tipo: str
    criado_em: _dt.datetime
    dados: DadosImpressao
    raw: Mapping[str, Any] = _RAW


@attrs.frozen(slots=True)
class ImpressaoFalhou:
    """``impressao.falhou``: a print job did not finish (no financial effect)."""

    TIPO: ClassVar[str] = "impressao.falhou"

    id: str
    tipo: str
    criado_em: _dt.datetime
    dados: DadosImpressao
    raw: Mapping[str, Any] = _RAW


@attrs.frozen(slots=True)
class UnknownEvent:
    """An event whose ``tipo`` this version of the SDK does not know: kept, never an error.

    Its envelope is still validated; ``dados`` is the JSON object as received.
    """

    TIPO: ClassVar[str | None] = None

    id: str
    tipo: str
    criado_em: _dt.datetime
    dados: Mapping[str, Any] = attrs.field(repr=False)
    raw: Mapping[str, Any] = _RAW


Event: TypeAlias = (
    SmartposIdentificado
    | PagamentoAprovado
    | PagamentoRecusado
    | ImpressaoConcluida
    | ImpressaoFalhou
    | UnknownEvent
)
"""Any event ``parse_event`` can return."""

EventClass: TypeAlias = (
    type[SmartposIdentificado]
    | type[PagamentoAprovado]
    | type[PagamentoRecusado]
    | type[ImpressaoConcluida]
    | type[ImpressaoFalhou]
)

_BY_TIPO: Final[dict[str, EventClass]] = {
    cls.TIPO: cls
    for cls in (
        SmartposIdentificado,
        PagamentoAprovado,
        PagamentoRecusado,
        ImpressaoConcluida,
        ImpressaoFalhou,
    )
}


@attrs.frozen(slots=True)
class Envelope:
    """The envelope of a delivery (spec 2.9), read leniently; what the receiver stores.

    ``criado_em`` is ``None`` when ``criadoEm`` is absent or not a date-time: such an event is
    still stored, and ``parse_event`` reports the problem when a worker claims it.
    """

    id: str
    tipo: str
    criado_em: _dt.datetime | None
    raw: Mapping[str, Any] = attrs.field(repr=False, eq=False)


# --- JSON decoding -------------------------------------------------------------------------


class _Constant(ValueError):
    pass


def _parse_constant(name: str) -> Any:
    raise _Constant(f"{name} is not valid JSON")


def _parse_float(text: str) -> float:
    value = float(text)
    if value - value != 0.0:  # inf: the literal overflowed a float
        raise _Constant(f"number {text[:20]} is too large")
    return value


_decoder = json.JSONDecoder(parse_constant=_parse_constant, parse_float=_parse_float)
# The C scanner behind JSONDecoder (not in typeshed's stubs).
_scan_once: Callable[[str, int], tuple[Any, int]] = _decoder.scan_once  # type: ignore[attr-defined]
_JSON_SPACE = " \t\n\r"


def _decode(text: str) -> Any:
    # JSONDecoder.decode without its two regex passes for whitespace (bodies rarely have any
    # around the top-level value): about 0.5 µs of parse_event's 8. Same errors, same texts.
    if not text or text[0] in _JSON_SPACE:
        return _decoder.decode(text)
    try:
        value, end = _scan_once(text, 0)
    except StopIteration as exc:
        raise json.JSONDecodeError("Expecting value", text, exc.value) from None
    if end != len(text) and text[end:].strip(_JSON_SPACE):
        end += len(text[end:]) - len(text[end:].lstrip(_JSON_SPACE))
        raise json.JSONDecodeError("Extra data", text, end)
    return value


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def _too_deep(text: str) -> bool:
    # A cheap bound first: a body with no more than MAX_DEPTH opening brackets cannot nest
    # deeper, and real events have a handful. Only beyond that are strings stripped and
    # the brackets walked.
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(_STEP[c] for c in brackets), default=0) > MAX_DEPTH


def decode_json(body: bytes | bytearray | memoryview | str) -> Any:
    """Decode a JSON body strictly (UTF-8, no NaN/Infinity, bounded depth).

    Args:
        body: The raw body, or already-decoded text.

    Returns:
        The decoded JSON value.

    Raises:
        InvalidEventError: The body is not valid, UTF-8 encoded, reasonably nested JSON.
    """
    if isinstance(body, str):
        text = body
    else:
        try:
            text = (body if type(body) is bytes else bytes(body)).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidEventError("$", f"invalid UTF-8 at byte {exc.start}") from None
    if _too_deep(text):
        raise InvalidEventError("$", f"nested deeper than {MAX_DEPTH} levels")
    try:
        return _decode(text)
    except _Constant as exc:
        raise InvalidEventError("$", f"invalid JSON: {exc}") from None
    except json.JSONDecodeError as exc:
        raise InvalidEventError(
            "$", f"invalid JSON: {exc.msg} (line {exc.lineno} column {exc.colno})"
        ) from None
    except (ValueError, RecursionError) as exc:  # an int too long to convert, say
        raise InvalidEventError("$", f"invalid JSON: {exc}") from None


def _as_object(body: bytes | bytearray | memoryview | str | Mapping[str, Any]) -> Mapping[str, Any]:
    if type(body) is not bytes and type(body) is not str:
        if isinstance(body, Mapping):
            return body
        if not isinstance(body, (bytes, bytearray, memoryview, str)):
            raise InvalidEventError("$", "expected a JSON object as bytes, str or a mapping")
    data = decode_json(body)
    if type(data) is not dict:
        raise InvalidEventError("$", "expected an object")
    return data


def _envelope_string(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if value is None and key not in data:
        raise InvalidEventError(f"$.{key}", "required field is missing")
    if type(value) is not str:
        raise InvalidEventError(f"$.{key}", "expected a string")
    if not value:
        raise InvalidEventError(f"$.{key}", "expected a non-empty string")
    return value


# --- parsing -------------------------------------------------------------------------------


def parse_envelope(body: bytes | bytearray | memoryview | str | Mapping[str, Any]) -> Envelope:
    """Read only the envelope of a delivery: enough to store it, lenient about the rest.

    Args:
        body: The delivery body (bytes or str of JSON) or an already-parsed mapping.

    Returns:
        The envelope; ``criado_em`` is ``None`` when ``criadoEm`` is absent or unreadable.

    Raises:
        InvalidEventError: The body cannot be an event at all: not JSON, not an object, or
            no non-empty string ``id`` and ``tipo``.
    """
    data = _as_object(body)
    event_id = _envelope_string(data, "id")
    tipo = _envelope_string(data, "tipo")
    try:
        criado_em: _dt.datetime | None = parse_datetime(data.get("criadoEm"))
    except (TypeError, ValueError):
        criado_em = None
    return Envelope(event_id, tipo, criado_em, data)


def parse_event(body: bytes | bytearray | memoryview | str | Mapping[str, Any]) -> Event:
    """Parse a webhook delivery into its typed event.

    Args:
        body: The delivery body (bytes or str of JSON) or an already-parsed mapping.

    Returns:
        The event class matching ``tipo``, or :class:`UnknownEvent` for any other ``tipo``.

    Raises:
        InvalidEventError: Anything else: invalid JSON or UTF-8, a body that is not an
            object, a missing envelope field, a known field of the wrong type, absurd
            nesting. The message names the JSON path (``$.dados.valorCentavos: expected an
            integer``). Nothing else ever escapes.
    """
    data = _as_object(body)
    tipo = data.get("tipo")
    cls = _BY_TIPO.get(tipo, UnknownEvent) if type(tipo) is str else UnknownEvent
    try:
        event = cast("Event", structure(data, cls))
    except WireError as exc:
        raise InvalidEventError(exc.path, exc.problem) from None
    except RecursionError:  # pragma: no cover - decode_json bounds the depth first
        raise InvalidEventError("$", f"nested deeper than {MAX_DEPTH} levels") from None
    if not event.id:
        raise InvalidEventError("$.id", "expected a non-empty string")
    if not event.tipo:
        raise InvalidEventError("$.tipo", "expected a non-empty string")
    return event
