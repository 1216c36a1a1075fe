"""Typed webhook events (spec 2.9 and 6) and the strict parser that reads them.

``parse_event`` turns a delivery body into one of the event classes below, dispatching on
``tipo``; any ``tipo`` it does not know becomes an [`UnknownEvent`][smartpos.webhooks.UnknownEvent]
(kept, never an error). It is strict: the only exception it ever raises is
[`InvalidEventError`][smartpos.webhooks.InvalidEventError], whose message names the JSON path of the
problem (``$.dados.valorCentavos: expected an integer``).

``parse_envelope`` is its lenient sibling for the receiver: it only needs a JSON object with a
string ``id`` and ``tipo`` so the event can be stored; a ``dados`` that does not fit the typed
schema is the worker's business, never a reason to lose an event.

The JSON decoding itself is guarded: a body nested deeper than `MAX_DEPTH` levels is
refused *before* the C decoder could recurse into a ``RecursionError``, ``NaN``/``Infinity``
literals and numbers too large for a float are refused, and invalid UTF-8 is refused (the
receiver alone reads such a body as cp1252/Latin-1 rather than lose an event). The depth check
costs time linear in the body, whatever its shape: a fixed number of passes of ``str``
primitives over the text, no backtracking regular expression.

An ``id`` or ``tipo`` that no store can hold as a key (longer than `MAX_ID_LENGTH`
characters, a control character such as NUL, a lone surrogate) and a ``criadoEm`` that cannot
be expressed in UTC (``0001-01-01T00:00:00+05:00``) are problems of the envelope, named like
any other.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import unicodedata
from collections.abc import Callable, Mapping
from itertools import accumulate
from typing import Any, ClassVar, Final, NamedTuple, TypeAlias, cast

import attrs

from smartpos._documents import mask_documento
from smartpos._errors import SmartPOSError
from smartpos._wire import WireError, parse_datetime, structure

__all__ = [
    "EVENT_KINDS",
    "MAX_DEPTH",
    "MAX_ID_LENGTH",
    "Autorizacao",
    "DadosImpressao",
    "DadosPagamento",
    "DadosSmartposIdentificado",
    "Envelope",
    "Event",
    "EventClass",
    "EventKind",
    "ImpressaoConcluida",
    "ImpressaoFalhou",
    "InvalidEventError",
    "PagamentoAprovado",
    "PagamentoRecusado",
    "ResultadoSmartPOS",
    "SmartposIdentificado",
    "UnknownEvent",
    "decode_json",
    "envelope_problem",
    "escape_lone_surrogates",
    "parse_envelope",
    "parse_event",
    "utc_problem",
]

#: Deepest nesting of arrays and objects a body may have. Events of the spec nest 3 levels.
MAX_DEPTH: Final = 64
#: Longest ``id`` (and ``tipo``) an event may have, in characters: every store indexes the id
#: (PostgreSQL refuses index entries over about 2.7 KB; 256 characters are at most 1 KB).
MAX_ID_LENGTH: Final = 256


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


class EventKind(NamedTuple):
    """One event kind of the spec (section 6): its class and the operation it ends.

    Attributes:
        cls: The event class ``parse_event`` returns for its ``tipo``.
        ends: The operation kind it is final for (``"payment"``, ``"print_job"``,
            ``"qrcode"``), or ``None`` for an event that ends no operation (progress, say).
        ends_a_refund: Whether it may end a refund. Refund events are not specified yet, so
            any event may, except a print outcome (spec 6: never used to refund a sale) and
            an identification (no outcome at all).
    """

    cls: EventClass
    ends: str | None
    ends_a_refund: bool


#: Every event kind the SDK knows, by ``tipo``: the one list of them (STYLE.md section 8).
#: The outcome rules, the CLI and the OpenAPI description derive from it; the lists kept on
#: purpose elsewhere (the sandbox's triggers, the CLI's samples and colours, the fixtures) are
#: compared with it by ``tests/test_event_kinds.py``, which names the list left behind.
EVENT_KINDS: Final[Mapping[str, EventKind]] = {
    SmartposIdentificado.TIPO: EventKind(SmartposIdentificado, "qrcode", ends_a_refund=False),
    PagamentoAprovado.TIPO: EventKind(PagamentoAprovado, "payment", ends_a_refund=True),
    PagamentoRecusado.TIPO: EventKind(PagamentoRecusado, "payment", ends_a_refund=True),
    ImpressaoConcluida.TIPO: EventKind(ImpressaoConcluida, "print_job", ends_a_refund=False),
    ImpressaoFalhou.TIPO: EventKind(ImpressaoFalhou, "print_job", ends_a_refund=False),
}

_BY_TIPO: Final[dict[str, EventClass]] = {tipo: kind.cls for tipo, kind in EVENT_KINDS.items()}


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


# Everything but a bracket: one character class, so its matches never backtrack.
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}.__getitem__


def _too_deep(text: str) -> bool:
    """Whether ``text``, when it is valid JSON, nests arrays and objects deeper than MAX_DEPTH.

    Linear whatever the shape: a fixed number of passes of ``str`` primitives and one
    character-class substitution, none of which backtracks (a string-matching regular
    expression did, quadratically, on unterminated strings full of escaped quotes).
    """
    # A cheap bound first: a body with no more than MAX_DEPTH opening brackets cannot nest
    # deeper, and real events have a handful.
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return False
    # Valid JSON has backslashes only inside strings, where escapes pair up from the left:
    # dropping every "\\" pair, then every \", leaves exactly the quotes that open and close
    # strings, so every other piece of a split on '"' lies outside them. Invalid JSON may be
    # misjudged here; the decoder then refuses it (a RecursionError included).
    unescaped = text.replace("\\\\", "").replace('\\"', "")
    outside = "".join(unescaped.split('"')[::2])
    brackets = _NOT_BRACKET.sub("", outside)
    return max(accumulate(map(_STEP, brackets)), default=0) > MAX_DEPTH


def _text_of(body: bytes | bytearray | memoryview | str, lenient: bool) -> str:
    if isinstance(body, str):
        text = body
    else:
        raw = body if type(body) is bytes else bytes(body)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            if not lenient:
                raise InvalidEventError("$", f"invalid UTF-8 at byte {exc.start}") from None
            # A misconfigured sender writes Windows' cp1252 (a superset of Latin-1's printable
            # characters); the JSON syntax is ASCII either way. Latin-1 decodes every byte.
            try:
                text = raw.decode("cp1252")
            except UnicodeDecodeError:
                text = raw.decode("latin-1")
    # RFC 8259: a parser may ignore a byte order mark (a UTF-8 BOM decodes to U+FEFF).
    return text[1:] if text and text[0] == "\ufeff" else text


def decode_json(
    body: bytes | bytearray | memoryview | str, *, lenient_encoding: bool = False
) -> Any:
    """Decode a JSON body strictly (UTF-8, no NaN/Infinity, bounded depth).

    A leading byte order mark (UTF-8 BOM, or U+FEFF in a str) is ignored.

    Args:
        body: The raw body, or already-decoded text.
        lenient_encoding: Read a body that is not valid UTF-8 as cp1252 (Latin-1 for the
            bytes cp1252 leaves undefined) instead of refusing it: the receiver's choice,
            so that an event is not lost to a sender's encoding.

    Returns:
        The decoded JSON value.

    Raises:
        InvalidEventError: The body is not valid, UTF-8 encoded, reasonably nested JSON.
    """
    if type(body) is bytes:
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            text = _text_of(body, lenient_encoding)
        else:
            if text and text[0] == "\ufeff":
                text = text[1:]
    else:
        text = _text_of(body, lenient_encoding)
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


def escape_lone_surrogates(text: str) -> bytes:
    """Encode a JSON text in UTF-8, every lone surrogate written as its ``\\uXXXX`` escape.

    ``json.loads`` turns ``"\\ud800"`` into a str no UTF-8 encoder accepts; in JSON text
    such a character can only sit inside a string, where its escape is valid JSON that decodes
    back to the very same str. (``backslashreplace`` writes exactly that escape, in C.)
    """
    return text.encode("utf-8", "backslashreplace")


def _as_object(
    body: bytes | bytearray | memoryview | str | Mapping[str, Any], *, lenient: bool = False
) -> Mapping[str, Any]:
    if type(body) is not bytes and type(body) is not str:
        if isinstance(body, Mapping):
            return body
        if not isinstance(body, (bytes, bytearray, memoryview, str)):
            raise InvalidEventError("$", "expected a JSON object as bytes, str or a mapping")
    data = decode_json(body, lenient_encoding=lenient)
    if type(data) is not dict:
        raise InvalidEventError("$", "expected an object")
    return data


def envelope_problem(value: str) -> str | None:
    """What makes ``value`` unfit as an event's ``id`` or ``tipo`` in every store, or ``None``.

    Stores use both as keys or columns: PostgreSQL text cannot hold NUL and its index refuses
    entries over about 2.7 KB; no backend can encode a lone surrogate. No service id has any.
    """
    if not value:
        return "expected a non-empty string"
    if len(value) > MAX_ID_LENGTH:
        return f"longer than {MAX_ID_LENGTH} characters"
    if not value.isprintable():
        for char in value:
            category = unicodedata.category(char)
            if category == "Cc":
                return "contains a control character"
            if category == "Cs":
                return "contains a lone surrogate (not valid Unicode)"
    return None


def utc_problem(value: _dt.datetime) -> str | None:
    """What keeps an aware datetime from being expressed in UTC, or ``None``.

    ``0001-01-01T00:00:00+05:00`` is a valid datetime whose UTC instant falls in year 0:
    stores order events by their UTC time, and Python cannot represent it.
    """
    if 1 < value.year < 9999:  # no offset (less than a day) can cross a year's end
        return None
    try:
        value.astimezone(_dt.timezone.utc)
    except (OverflowError, ValueError):
        return "outside the years 1 to 9999 once converted to UTC"
    return None


def _envelope_string(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if value is None and key not in data:
        raise InvalidEventError(f"$.{key}", "required field is missing")
    if type(value) is not str:
        raise InvalidEventError(f"$.{key}", "expected a string")
    problem = envelope_problem(value)
    if problem is not None:
        raise InvalidEventError(f"$.{key}", problem)
    return value


# --- parsing -------------------------------------------------------------------------------


def parse_envelope(body: bytes | bytearray | memoryview | str | Mapping[str, Any]) -> Envelope:
    """Read only the envelope of a delivery: enough to store it, lenient about the rest.

    Args:
        body: The delivery body (bytes or str of JSON) or an already-parsed mapping.

    Returns:
        The envelope; ``criado_em`` is ``None`` when ``criadoEm`` is absent, unreadable, or
        cannot be expressed in UTC.

    Raises:
        InvalidEventError: The body cannot be an event at all: not JSON, not an object, or
            no ``id`` and ``tipo`` a store can hold (non-empty strings of at most
            ``MAX_ID_LENGTH`` characters, without control characters or lone surrogates).
    """
    return _envelope(_as_object(body))


def _envelope(data: Mapping[str, Any]) -> Envelope:
    event_id = _envelope_string(data, "id")
    tipo = _envelope_string(data, "tipo")
    try:
        criado_em: _dt.datetime | None = parse_datetime(data.get("criadoEm"))
    except (TypeError, ValueError):
        criado_em = None
    if criado_em is not None and utc_problem(criado_em) is not None:
        criado_em = None
    return Envelope(event_id, tipo, criado_em, data)


def parse_event(body: bytes | bytearray | memoryview | str | Mapping[str, Any]) -> Event:
    """Parse a webhook delivery into its typed event.

    Args:
        body: The delivery body (bytes or str of JSON) or an already-parsed mapping.

    Returns:
        The event class matching ``tipo``, or [`UnknownEvent`][smartpos.webhooks.UnknownEvent] for
        any other ``tipo``.

    Raises:
        InvalidEventError: Anything else: invalid JSON or UTF-8, a body that is not an
            object, a missing envelope field, a known field of the wrong type, absurd
            nesting, an ``id`` or ``tipo`` no store can hold, a ``criadoEm`` that cannot be
            expressed in UTC. The message names the JSON path (``$.dados.valorCentavos:
            expected an integer``). Nothing else ever escapes.
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
    event_id, tipo = event.id, event.tipo
    # The common case in a few cheap tests; envelope_problem names what is wrong otherwise.
    if not (
        0 < len(event_id) <= MAX_ID_LENGTH
        and 0 < len(tipo) <= MAX_ID_LENGTH
        and event_id.isprintable()
        and tipo.isprintable()
    ):
        for key, value in (("id", event_id), ("tipo", tipo)):
            problem = envelope_problem(value)
            if problem is not None:
                raise InvalidEventError(f"$.{key}", problem)
    if not 1 < event.criado_em.year < 9999:
        problem = utc_problem(event.criado_em)
        if problem is not None:
            raise InvalidEventError("$.criadoEm", problem)
    return event
