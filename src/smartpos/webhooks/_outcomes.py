"""Which event ends which operation: the pure rules of the outcome journal (no I/O at all).

A client given a store journals every operation that starts something on a terminal before
sending it (state ``sending``), then records what the service answered (``accepted``,
``rejected`` or ``unknown``). The outcome comes later as a webhook event carrying the same
``dados.referencia``; this module decides, from the journal entry and that referencia's events
in store order, which event is the operation's outcome and which are anomalies::

    sending ──▶ accepted ──▶ final        (the first agreeing final event is stored)
       │  ╲        ▲
       │   ╲─▶ unknown ──▶ final
       ╰─▶ rejected                      (the service surely did not accept it: never final)

The rules (docs/en/stores.md, "The outcome journal"):

- Final tipos per kind: a payment ends with ``pagamento.aprovado`` / ``pagamento.recusado``, a
  print job with ``impressao.concluida`` / ``impressao.falhou``, a QR code with
  ``smartpos.identificado``. Refund events are not specified by the service yet, so any event
  ends a refund, except a print outcome or a terminal identification: the spec forbids using
  print outcomes to refund a sale, and an identification reports no outcome at all.
- An event whose tipo is not final for the operation's kind (a print event carrying a
  payment's referencia, a progress event) is *not considered*: neither outcome nor anomaly. It
  stays in the inbox like any other event. A print event never finalizes a payment.
- Agreement: an event ends an operation only when ``documentoCliente`` agrees with the
  journaled request (the event must carry it), and, for a payment, ``valorCentavos`` and
  ``smartposId`` agree whenever the event carries them (``smartposId`` only when the request
  named a terminal: a manual-mode payment may run on any of the customer's terminals).
  Documents compare without their mask and case-insensitively; amounts as integers.
- The first agreeing final event in store order wins forever (the store records it). A later
  agreeing final event is kept and flagged: ``duplicate`` when it repeats the winner (same tipo,
  same ``dados``: a redelivery under another id), ``contradiction`` otherwise. A final event
  that disagrees with the request is flagged ``disagreement`` and never taken as the outcome; one
  whose ``dados`` the SDK cannot read is flagged ``unreadable``; any final event of an operation
  the service refused (state ``rejected``) is flagged ``rejected``.
- A referencia with no journal entry (another system started it): its outcome is the first
  stored event with that ``dados.referencia`` whose tipo is final for any kind. Since refunds
  take any event, that is the first readable event with that referencia.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterable, Mapping
from typing import Any, Final, Literal, NamedTuple, TypeAlias, cast, get_args

import attrs

from smartpos._models import Acceptance, HTTPInfo, JSONAnswer, QRCode, Refund
from smartpos._wire import WireError, structure

from ._events import EVENT_KINDS, Event, InvalidEventError, parse_event

__all__ = [
    "ALLOWED_FROM",
    "ENDED_STATES",
    "KINDS",
    "RECORDABLE_STATES",
    "STATES",
    "WAITING_STATES",
    "Abandon",
    "Anomaly",
    "AnomalyReason",
    "Answer",
    "JournalEntry",
    "Kind",
    "Operation",
    "Settlement",
    "State",
    "agreement_problem",
    "answer_from_result",
    "first_outcome",
    "is_final",
    "is_final_for_any_kind",
    "kind_of_path",
    "next_state",
    "referencia_of",
    "request_matches",
    "resolve",
    "result_from_answer",
    "settle",
]

Kind: TypeAlias = Literal["payment", "refund", "print_job", "qrcode", "request"]
"""What an operation started on a terminal (``request``: a ``client.request`` POST with a
referencia, to an endpoint the SDK has no method for)."""
State: TypeAlias = Literal["sending", "accepted", "rejected", "unknown", "final"]
"""Where an operation stands; ``sending`` found after a crash means unknown."""
AnomalyReason: TypeAlias = Literal[
    "contradiction", "duplicate", "disagreement", "unreadable", "rejected"
]
"""Why an event with the operation's referencia was kept but not taken as its outcome."""

KINDS: Final[tuple[Kind, ...]] = get_args(Kind)
STATES: Final[tuple[State, ...]] = get_args(State)
#: States of an operation still waiting for its outcome: what a process reconciles at start-up.
WAITING_STATES: Final[tuple[State, ...]] = ("sending", "accepted", "unknown")
#: States that never change again; ``purge`` forgets such operations after the retention.
ENDED_STATES: Final[tuple[State, ...]] = ("final", "rejected")
#: States a client records after the journal entry was written.
RECORDABLE_STATES: Final[tuple[State, ...]] = ("accepted", "rejected", "unknown")

# Derived from the one list of event kinds (EVENT_KINDS): which tipos end which kind.
_FINAL_TIPOS: Final[Mapping[str, frozenset[str]]] = {
    kind: frozenset(tipo for tipo, known in EVENT_KINDS.items() if known.ends == kind)
    for kind in dict.fromkeys(known.ends for known in EVENT_KINDS.values() if known.ends)
}
# Refund events are not specified: any event ends a refund, except these (spec §6: print
# outcomes must not be used to refund a sale; an identification is no outcome).
_NEVER_ENDS_A_REFUND: Final = frozenset(
    tipo for tipo, known in EVENT_KINDS.items() if not known.ends_a_refund
)
_PATH_KINDS: Final[Mapping[str, Kind]] = {
    "/v1/payments": "payment",
    "/v1/refunds": "refund",
    "/v1/print-jobs": "print_job",
    "/qrcode": "qrcode",
}
# From a 2xx answer, only these headers are journaled (the request id and what a rebuilt
# result's ``http.headers`` may be asked for); cookies and the rest are not kept.
_KEPT_HEADERS: Final = (
    "content-type",
    "date",
    "x-request-id",
    "request-id",
    "x-correlation-id",
    "x-amzn-requestid",
)
_REQUEST_ID_HEADERS: Final = _KEPT_HEADERS[2:]
_DOCUMENT_MASK: Final = str.maketrans("", "", ".-/ ")

#: The transitions ``next_state`` allows: recorded state -> the states it may replace. ``final``
#: never changes; ``accepted`` is never downgraded (the service said yes: only the event is
#: missing). A store applies them atomically (a conditional update).
ALLOWED_FROM: Final[Mapping[str, frozenset[str]]] = {
    "accepted": frozenset({"sending", "accepted", "unknown", "rejected"}),
    "unknown": frozenset({"sending", "unknown", "rejected"}),
    "rejected": frozenset({"sending", "unknown", "rejected"}),
}


def is_final(kind: str, tipo: str) -> bool:
    """Tell whether an event of ``tipo`` can end an operation of ``kind``.

    Args:
        kind: ``"payment"``, ``"refund"``, ``"print_job"`` or ``"qrcode"``.
        tipo: The event's ``tipo``.

    Raises:
        ValueError: An unknown kind.
    """
    if kind == "refund":
        return tipo not in _NEVER_ENDS_A_REFUND
    if kind == "request":
        # An endpoint the SDK does not know: any tipo that ends some operation of the others.
        return any(tipo in tipos for tipos in _FINAL_TIPOS.values())
    tipos = _FINAL_TIPOS.get(kind)
    if tipos is None:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    return tipo in tipos


def is_final_for_any_kind(tipo: str) -> bool:
    """Tell whether ``tipo`` can end an operation of some kind (the rule for unjournaled waits)."""
    return any(is_final(kind, tipo) for kind in KINDS)


def kind_of_path(path: str) -> Kind:
    """Return the kind of operation a request path starts (``/v1/payments`` -> ``"payment"``).

    Raises:
        ValueError: The path starts nothing on a terminal.
    """
    kind = _PATH_KINDS.get(path)
    if kind is None:
        raise ValueError(f"{path!r} starts no operation on a terminal")
    return kind


def next_state(current: str, wanted: str) -> State | None:
    """Return the state a journal entry takes when a client records ``wanted``, or ``None``.

    ``None`` means the entry keeps its state: a ``final`` operation never changes, and an
    ``accepted`` one is never downgraded to ``unknown`` or ``rejected`` (a later resend that
    fails does not undo the service's acceptance).

    Raises:
        ValueError: ``wanted`` is not one of ``accepted``, ``rejected``, ``unknown``.
    """
    allowed = ALLOWED_FROM.get(wanted)
    if allowed is None:
        raise ValueError(f"state must be one of {', '.join(RECORDABLE_STATES)}, not {wanted!r}")
    return cast("State", wanted) if current in allowed else None


def referencia_of(raw: Mapping[str, Any]) -> str | None:
    """Return an envelope's ``dados.referencia`` when it is a non-empty string, else ``None``."""
    dados = raw.get("dados")
    if not isinstance(dados, Mapping):
        return None
    referencia = dados.get("referencia")
    return referencia if isinstance(referencia, str) and referencia else None


# --- the journaled answer ------------------------------------------------------------------


@attrs.frozen(slots=True)
class Answer:
    """The 2xx answer a journaled operation got: enough to rebuild its result without I/O.

    Attributes:
        status_code: The HTTP status (202 for an acceptance, 201 for a QR code).
        body: The JSON object the service answered.
        headers: The kept headers (content type, date, request id), lower-case names.
    """

    status_code: int
    body: Mapping[str, Any] = attrs.field(repr=False)
    headers: Mapping[str, str] = attrs.field(factory=dict, repr=False)

    @property
    def request_id(self) -> str | None:
        """The request id the service sent, if any."""
        for name in _REQUEST_ID_HEADERS:
            value = self.headers.get(name)
            if value:
                return value
        return None

    def to_json(self) -> str:
        """Serialize for the store."""
        return json.dumps(
            {"status": self.status_code, "headers": dict(self.headers), "body": self.body},
            separators=(",", ":"),
            ensure_ascii=False,
        )

    @classmethod
    def from_json(cls, text: str | bytes | Mapping[str, Any]) -> Answer:
        """Read what ``to_json`` wrote (or its already-parsed mapping)."""
        data = text if isinstance(text, Mapping) else json.loads(text)
        return cls(
            status_code=int(data["status"]), body=data["body"], headers=dict(data["headers"])
        )


def answer_from_result(
    result: Acceptance | Refund | QRCode | JSONAnswer, *, status_code: int | None = None
) -> Answer:
    """Reduce a client's result to the ``Answer`` the journal keeps.

    Args:
        result: What ``create`` returned; its ``.raw`` is the JSON answered, its ``.http`` the
            status and headers.
        status_code: The HTTP status when the result carries no ``.http``.

    Raises:
        TypeError: ``result`` is not an ``Acceptance``, ``Refund`` or ``QRCode``.
    """
    if not isinstance(result, (Acceptance, Refund, QRCode, JSONAnswer)):
        raise TypeError(f"expected an Acceptance, Refund or QRCode, not {type(result).__name__}")
    # A request's JSON may be any value: kept under "json" (the body must be an object).
    body = {"json": result.value} if isinstance(result, JSONAnswer) else dict(result.raw)
    http = result.http
    headers: dict[str, str] = {}
    if http is not None:
        lowered = {str(k).lower(): str(v) for k, v in http.headers.items()}
        headers = {k: lowered[k] for k in _KEPT_HEADERS if k in lowered}
        if http.request_id and not any(k in headers for k in _REQUEST_ID_HEADERS):
            headers["x-request-id"] = http.request_id
    status = http.status_code if http is not None else status_code
    if status is None:
        status = 201 if isinstance(result, QRCode) else 202
    return Answer(status_code=status, body=body, headers=headers)


def result_from_answer(
    kind: str, answer: Answer, referencia: str
) -> Acceptance | Refund | QRCode | JSONAnswer | None:
    """Rebuild the result a client returned from its journaled ``Answer``.

    Returns:
        An ``Acceptance`` (payments, print jobs), a ``Refund`` or a ``QRCode``, with ``.raw``
        and ``.http`` as the client had them; ``None`` when the answer cannot be read as one
        (never the case for what a client journaled).
    """
    http = HTTPInfo(
        status_code=answer.status_code, headers=dict(answer.headers), request_id=answer.request_id
    )
    body = answer.body
    if kind == "request":
        return JSONAnswer(body.get("json"), http)
    result: Acceptance | Refund | QRCode
    try:
        if kind in ("payment", "print_job"):
            result = structure(body, Acceptance)
        elif kind == "qrcode":
            result = structure(body, QRCode)
        elif kind == "refund":
            # The same reading as the client's: the refund answer is not specified.
            ref, status, mensagem = (body.get(k) for k in ("referencia", "status", "mensagem"))
            result = Refund(
                referencia=ref if isinstance(ref, str) and ref else referencia,
                status=status if isinstance(status, str) else None,
                mensagem=mensagem if isinstance(mensagem, str) else None,
                raw=body,
            )
        else:
            return None
    except (WireError, TypeError, ValueError):
        return None
    object.__setattr__(result, "http", http)
    return result


# --- journal entries and operations --------------------------------------------------------


@attrs.frozen(slots=True)
class JournalEntry:
    """One journaled operation as a store keeps it (for the SDK's own use).

    Times are epoch seconds from the store's clock; ``seq`` orders entries by journaling.
    ``final_event`` is the envelope of the outcome once a store recorded it: from then on it
    wins over any other event, even one stored earlier but seen later.
    """

    referencia: str
    kind: Kind
    state: State
    method: str
    path: str
    body: bytes = attrs.field(repr=False)
    created_at: float
    updated_at: float
    seq: int = 0
    answer: Answer | None = attrs.field(default=None, repr=False)
    final_event: Mapping[str, Any] | None = attrs.field(default=None, repr=False)
    sale: str | None = None
    """The sale's key, for an attempt of a sale or a compensation refund."""
    pending_after: float | None = None
    """Seconds after which an attempt of a sale without outcome needs a human."""
    abandoned: Mapping[str, Any] | None = attrs.field(default=None, repr=False)
    """``Abandon.to_json()`` once a cashier gave the attempt up."""


@attrs.frozen(slots=True)
class Abandon:
    """A cashier gave up an attempt: who, why and when. Nothing was sent to the service.

    Attributes:
        motivo: Why (the cashier's words).
        operador: Who, or ``None``.
        at: When (aware, UTC).
    """

    motivo: str
    operador: str | None
    at: _dt.datetime

    def to_json(self) -> dict[str, Any]:
        """What a store keeps."""
        return {"motivo": self.motivo, "operador": self.operador, "at": self.at.timestamp()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Abandon:
        """Read what ``to_json`` wrote."""
        operador = data.get("operador")
        return cls(
            motivo=str(data["motivo"]),
            operador=None if operador is None else str(operador),
            at=_utc(float(data["at"])),
        )


@attrs.frozen(slots=True)
class Anomaly:
    """An event with the operation's referencia, kept but not taken as its outcome.

    Attributes:
        id: The event's id (as stored in the inbox: ``store.get(id)``).
        tipo: The event's tipo.
        reason: ``"contradiction"`` (a later final event saying something else),
            ``"duplicate"`` (the outcome again under another id), ``"disagreement"`` (the
            event does not match the journaled request), ``"unreadable"`` (its ``dados``
            does not fit the typed schema) or ``"rejected"`` (the service refused the
            operation, so no event can be its outcome).
        detail: What was wrong, without personal data.
        event: The typed event, or ``None`` when it is unreadable.
        raw: The envelope as stored.
    """

    id: str
    tipo: str
    reason: AnomalyReason
    detail: str
    event: Event | None = attrs.field(default=None, repr=False)
    raw: Mapping[str, Any] = attrs.field(factory=dict, repr=False, eq=False)


@attrs.frozen(slots=True)
class Operation:
    """One operation a client started on a terminal, as the store's journal knows it.

    ``store.operation(referencia)`` and ``store.operations()`` return these. The journaled
    request (``method``, ``path``, ``body``: the exact bytes sent, for a byte-for-byte
    ``reconcile``) holds the customer's document, so it is kept out of the repr.

    Attributes:
        referencia: The operation's referencia.
        kind: ``"payment"``, ``"refund"``, ``"print_job"`` or ``"qrcode"``.
        state: ``"sending"`` (journaled before the request; after a crash it means unknown),
            ``"accepted"``, ``"rejected"``, ``"unknown"`` or ``"final"`` (its event is stored).
        created_at: When it was journaled (aware, UTC).
        updated_at: When its state last changed (aware, UTC).
        event: The final event, or ``None`` while there is none.
        anomalies: Events with this referencia kept but not taken as its outcome, in store
            order.
        method: The journaled request's HTTP method.
        path: The journaled request's path.
        body: The journaled request's exact body bytes.
        answer: The journaled 2xx answer, or ``None``.
        sale: The sale it belongs to (an attempt, or a compensation refund), or ``None``.
        abandoned: ``None``, or the ``Abandon`` (who, why, when) of an attempt a cashier gave
            up: its approval, if one comes, is a late approval, never counted.
    """

    referencia: str
    kind: Kind
    state: State
    created_at: _dt.datetime
    updated_at: _dt.datetime
    event: Event | None = None
    anomalies: tuple[Anomaly, ...] = ()
    method: str = attrs.field(kw_only=True, repr=False)
    path: str = attrs.field(kw_only=True, repr=False)
    body: bytes = attrs.field(kw_only=True, repr=False)
    answer: Answer | None = attrs.field(default=None, kw_only=True, repr=False)
    sale: str | None = attrs.field(default=None, kw_only=True)
    abandoned: Abandon | None = attrs.field(default=None, kw_only=True)

    @property
    def waiting(self) -> bool:
        """Whether it still waits for an outcome (``sending``, ``accepted`` or ``unknown``)."""
        return self.state in WAITING_STATES

    @property
    def acceptance(self) -> Acceptance | None:
        """The saved ``Acceptance`` (payments and print jobs), or ``None``."""
        result = self.result
        return result if isinstance(result, Acceptance) else None

    @property
    def result(self) -> Acceptance | Refund | QRCode | Any:
        """The saved result: an ``Acceptance``, ``Refund`` or ``QRCode``, or for a ``request``
        (``client.request``) the JSON it answered; ``None`` without a saved answer."""
        if self.answer is None:
            return None
        result = result_from_answer(self.kind, self.answer, self.referencia)
        return result.value if isinstance(result, JSONAnswer) else result


class Settlement(NamedTuple):
    """What ``settle`` decided: the outcome (or ``None``) and the anomalies, in store order."""

    event: Event | None
    anomalies: tuple[Anomaly, ...]


# --- agreement -----------------------------------------------------------------------------


def _request_fields(body: bytes) -> Mapping[str, Any]:
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _document(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    doc = value.translate(_DOCUMENT_MASK).upper()
    return doc or None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def agreement_problem(
    kind: str, request: Mapping[str, Any], dados: Mapping[str, Any]
) -> str | None:
    """Say why an event's ``dados`` disagrees with the journaled request, or ``None``.

    Args:
        kind: The operation's kind.
        request: The journaled request body, parsed.
        dados: The event's ``dados`` as received.

    Returns:
        A sentence naming the field (never its value when it is a document), or ``None``
        when the event may end the operation.
    """
    wanted = _document(request.get("documentoCliente"))
    got = _document(dados.get("documentoCliente"))
    if got is None:
        return "the event carries no documentoCliente"
    if wanted is None:
        return "the journaled request carries no documentoCliente"
    if got != wanted:
        return "documentoCliente differs from the request's"
    if kind != "payment":
        return None
    valor = dados.get("valorCentavos")
    if valor is not None:
        expected = request.get("valorCentavos")
        if not _is_int(valor) or not _is_int(expected) or valor != expected:
            return f"valorCentavos {valor!r} differs from the request's {expected!r}"
    terminal = dados.get("smartposId")
    expected_terminal = request.get("smartposId")
    if terminal is not None and expected_terminal is not None and terminal != expected_terminal:
        return f"smartposId {terminal!r} differs from the request's {expected_terminal!r}"
    return None


# --- settling ------------------------------------------------------------------------------


def _raw_of(item: Mapping[str, Any] | Any) -> Mapping[str, Any]:
    return item if isinstance(item, Mapping) else item.raw


def _parsed(raw: Mapping[str, Any]) -> Event | None:
    return _parse(raw)[0]


def _parse(raw: Mapping[str, Any]) -> tuple[Event | None, str]:
    """The typed event, or ``None`` and why it cannot be read."""
    try:
        return parse_event(raw), ""
    except InvalidEventError as exc:
        return None, f"dados does not fit the typed schema: {exc.path}: {exc.problem}"


def settle(entry: JournalEntry, events: Iterable[Mapping[str, Any] | Event]) -> Settlement:
    """Decide an operation's outcome from its journal entry and its events in store order.

    Args:
        entry: The journal entry (its ``final_event``, once recorded, wins over any other).
        events: The envelopes (or typed events) stored with ``dados.referencia`` equal to the
            entry's, in the order the store took them. Events of another referencia are
            ignored.

    Returns:
        ``(event, anomalies)``: the first agreeing final event (``None`` while there is
        none) and the events flagged on the way, in store order. See the module docstring
        for the rules.
    """
    request: Mapping[str, Any] | None = None  # parsed when an event needs it
    final: Event | None = None
    final_id: str | None = None
    if entry.final_event is not None:
        final = _parsed(entry.final_event)
        final_id = None if final is None else final.id
    anomalies: list[Anomaly] = []
    seen: set[str] = set()
    for item in events:
        raw = _raw_of(item)
        event_id, tipo = raw.get("id"), raw.get("tipo")
        if not isinstance(event_id, str) or not isinstance(tipo, str):
            continue
        if event_id == final_id or event_id in seen or referencia_of(raw) != entry.referencia:
            continue
        seen.add(event_id)
        if not is_final(entry.kind, tipo):
            continue
        event, unreadable = _parse(raw)
        if event is None:
            anomalies.append(Anomaly(event_id, tipo, "unreadable", unreadable, None, raw))
            continue
        if entry.state == "rejected" and final is None:
            detail = "the service refused this operation, so no event can be its outcome"
            anomalies.append(Anomaly(event_id, tipo, "rejected", detail, event, raw))
            continue
        if request is None:
            request = _request_fields(entry.body)
        problem = agreement_problem(entry.kind, request, raw["dados"])
        if problem is not None:
            anomalies.append(Anomaly(event_id, tipo, "disagreement", problem, event, raw))
            continue
        if final is None:
            final, final_id = event, event_id
            continue
        if tipo == final.tipo and raw.get("dados") == final.raw.get("dados"):
            detail = f"repeats the outcome {final.id} under another id"
            anomalies.append(Anomaly(event_id, tipo, "duplicate", detail, event, raw))
        else:
            detail = f"contradicts the outcome {final.id} ({final.tipo}), which stands"
            anomalies.append(Anomaly(event_id, tipo, "contradiction", detail, event, raw))
    return Settlement(final, tuple(anomalies))


def _utc(ts: float) -> _dt.datetime:
    return _dt.datetime.fromtimestamp(ts, tz=_dt.timezone.utc)


def resolve(
    entry: JournalEntry, events: Iterable[Mapping[str, Any] | Event]
) -> tuple[Operation, Mapping[str, Any] | None]:
    """Build the ``Operation`` of a journal entry and its events.

    Returns:
        The operation (state ``final`` once an outcome is known), and the envelope of an
        outcome found now that the entry had not recorded yet (the store writes it back,
        so that it wins forever), else ``None``.
    """
    event, anomalies = settle(entry, events)
    state: State = entry.state
    newly_final: Mapping[str, Any] | None = None
    if event is not None:
        if entry.final_event is None:
            newly_final = event.raw
        state = "final"
    operation = Operation(
        referencia=entry.referencia,
        kind=entry.kind,
        state=state,
        created_at=_utc(entry.created_at),
        updated_at=_utc(entry.updated_at),
        event=event,
        anomalies=anomalies,
        method=entry.method,
        path=entry.path,
        body=entry.body,
        answer=entry.answer,
        sale=entry.sale,
        abandoned=None if entry.abandoned is None else Abandon.from_json(entry.abandoned),
    )
    return operation, newly_final


def first_outcome(referencia: str, events: Iterable[Mapping[str, Any] | Event]) -> Event | None:
    """The outcome of a referencia the journal does not know (another system started it).

    Returns:
        The first event in store order whose ``dados.referencia`` is ``referencia``, whose tipo
        is final for some kind and whose ``dados`` the SDK can read; else ``None``.
    """
    for item in events:
        raw = _raw_of(item)
        tipo = raw.get("tipo")
        if not isinstance(tipo, str) or referencia_of(raw) != referencia:
            continue
        if not is_final_for_any_kind(tipo):  # pragma: no cover - every tipo ends some kind today
            continue
        event = _parsed(raw)
        if event is not None:
            return event
    return None


def request_matches(entry: JournalEntry | Operation, method: str, path: str, body: bytes) -> bool:
    """Tell whether a request is the journaled one (same method, path and JSON body).

    Bodies compare as parsed JSON, so key order and spacing do not matter; bodies that are not
    JSON compare byte for byte.
    """
    if method.upper() != entry.method.upper() or path != entry.path:
        return False
    if body == entry.body:
        return True
    try:
        return bool(json.loads(body) == json.loads(entry.body))
    except (ValueError, RecursionError):
        return False
