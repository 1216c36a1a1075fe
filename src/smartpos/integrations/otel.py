"""OpenTelemetry: a span per client call, per webhook delivery and per handling; metrics.

::

    from smartpos.integrations import otel

    otel.instrument()               # once at start-up: every client, receiver and worker
    otel.instrument_store(inbox)    # the inbox gauges of a store

Needs the ``otel`` extra (``pip install "smartpos[otel]"``: ``opentelemetry-api`` only); the
application sets up the SDK and its exporters as usual. Until `instrument` is called
smartpos reports nothing, and ``import smartpos`` never imports this module.

Spans (attributes ``smartpos.*``, plus OpenTelemetry's ``http.*`` and ``error.type``):

- ``smartpos payments.create`` (one per client call, kind CLIENT, the current span while the
  call runs, so HTTP instrumentation nests under it): ``smartpos.operation``,
  ``smartpos.referencia``, ``smartpos.attempts``, ``smartpos.outcome`` (``accepted``,
  ``rejected``, ``unknown``, ``pending``), ``http.request.method``,
  ``http.response.status_code`` of the last answer, ``error.type``; an event
  ``smartpos.retry`` per retry;
- ``smartpos webhooks.receive`` (one per delivery answered by ``WebhookReceiver.receive`` or
  its ASGI app, kind PRODUCER: it puts the event into the inbox; a child of the request's
  span): ``smartpos.event.id``, ``smartpos.event.tipo``, ``smartpos.webhooks.result``
  (``new``, ``duplicate``, ``conflict``, ``rejected``, ``unavailable``),
  ``http.response.status_code``;
- ``smartpos webhooks.process`` (one per worker handling, kind CONSUMER, the current span
  while the handler runs): ``smartpos.event.id``, ``smartpos.event.tipo``,
  ``smartpos.webhooks.attempt``, ``smartpos.webhooks.result`` (``acked``, ``ack_refused``,
  ``failed``, ``dead_lettered``, ``interrupted``), ``error.type``.

Processing happens later than the delivery, often in another process, so a handling span is
not the receive span's child: it carries a *link* with the attribute ``smartpos.event.id``.
When this process received the event (and still remembers it: the last 10,000), the link
points at that receive span; otherwise the link has no span context, only the event id, which
is also on both spans: search for it.

Never recorded: the API key, a CPF/CNPJ (no URL, path, body or ``dados`` is), an exception's
message (only its type: ``error.type``).

Metrics: ``smartpos.client.calls`` (by ``smartpos.operation`` and ``smartpos.outcome``),
``smartpos.client.duration`` (seconds, same attributes), ``smartpos.client.retries`` and
``smartpos.client.unknown_outcomes`` (by operation), ``smartpos.webhooks.received`` (by result
and status code), ``smartpos.webhooks.handled`` (by result and tipo). With
`instrument_store`: ``smartpos.webhooks.inbox.depth`` (by ``smartpos.event.state``:
``pending``, ``claimed``), ``smartpos.webhooks.inbox.oldest_age`` (seconds since the oldest
waiting event was received) and ``smartpos.webhooks.dead_letters``, each by ``smartpos.store``.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Final

try:
    from opentelemetry import context as _context
    from opentelemetry import metrics, trace
    from opentelemetry.trace import Link, SpanKind, Status, StatusCode
except ImportError as exc:  # pragma: no cover - the extra is missing
    raise ImportError(
        "smartpos.integrations.otel needs OpenTelemetry's API: pip install 'smartpos[otel]'"
    ) from exc

from smartpos import _telemetry
from smartpos._errors import ConfigurationError
from smartpos._messages import message
from smartpos._version import __version__
from smartpos.webhooks import EventState, Store

if TYPE_CHECKING:
    from smartpos._calls import Call
    from smartpos.webhooks import Claim, Receipt

__all__ = ["StoreGauges", "instrument", "instrument_store", "is_instrumented", "uninstrument"]

_logger = logging.getLogger("smartpos")

#: The instrumentation scope of every span and metric.
SCOPE: Final = "smartpos"
#: Receive spans remembered for linking the handling spans of the same process.
REMEMBERED_DELIVERIES: Final = 10_000
#: Events counted per state by a store's gauges; a larger inbox reports this many.
DEFAULT_MAX_COUNT: Final = 10_000

_OPERATION = "smartpos.operation"
_REFERENCIA = "smartpos.referencia"
_ATTEMPTS = "smartpos.attempts"
_OUTCOME = "smartpos.outcome"
_EVENT_ID = "smartpos.event.id"
_EVENT_TIPO = "smartpos.event.tipo"
_RESULT = "smartpos.webhooks.result"
_ATTEMPT = "smartpos.webhooks.attempt"
_STATE = "smartpos.event.state"
_STORE = "smartpos.store"
_HTTP_METHOD = "http.request.method"
_HTTP_STATUS = "http.response.status_code"
_ERROR_TYPE = "error.type"


def _known_tipos() -> frozenset[str]:
    from smartpos.webhooks import _events

    return frozenset(_events._BY_TIPO)


class _Deliveries:
    """The span contexts of recent receive spans by event id, for the handling spans' links."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._lock = threading.Lock()
        self._contexts: collections.OrderedDict[str, trace.SpanContext] = collections.OrderedDict()

    def remember(self, event_id: str, span_context: trace.SpanContext) -> None:
        with self._lock:
            self._contexts[event_id] = span_context
            if len(self._contexts) > self._size:
                self._contexts.popitem(last=False)

    def recall(self, event_id: str) -> trace.SpanContext | None:
        with self._lock:
            return self._contexts.get(event_id)


class _Observer:
    """smartpos's ``_telemetry.Observer`` for OpenTelemetry."""

    def __init__(self, tracer: trace.Tracer, meter: metrics.Meter) -> None:
        self.tracer = tracer
        self.calls = meter.create_counter(
            "smartpos.client.calls", unit="{call}", description="Client calls, by outcome"
        )
        self.duration = meter.create_histogram(
            "smartpos.client.duration",
            unit="s",
            description="Duration of client calls, retries included",
        )
        self.retries = meter.create_counter(
            "smartpos.client.retries", unit="{retry}", description="Retries of client calls"
        )
        self.unknown = meter.create_counter(
            "smartpos.client.unknown_outcomes",
            unit="{call}",
            description="Operations whose outcome is unknown: wait for their events",
        )
        self.receipts = meter.create_counter(
            "smartpos.webhooks.received",
            unit="{delivery}",
            description="Webhook deliveries answered, by result",
        )
        self.handled = meter.create_counter(
            "smartpos.webhooks.handled",
            unit="{event}",
            description="Events handled by workers, by result",
        )
        self.deliveries = _Deliveries(REMEMBERED_DELIVERIES)
        self.tipos = _known_tipos()

    # _telemetry.Observer

    def call(self, call: Call[Any]) -> _CallSpan:
        # Never the path: the listing's carries the customer's document.
        operation = call.operation or call.method
        attributes: dict[str, Any] = {_OPERATION: operation, _HTTP_METHOD: call.method}
        if call.referencia is not None:
            attributes[_REFERENCIA] = call.referencia
        span = self.tracer.start_span(
            f"smartpos {operation}", kind=SpanKind.CLIENT, attributes=attributes
        )
        return _CallSpan(self, span, operation)

    def received(self, receipt: Receipt, started_ns: int) -> None:
        envelope = receipt.envelope
        if receipt.put_result is not None:
            result = receipt.put_result.value
        else:
            result = "unavailable" if receipt.status_code == 503 else "rejected"
        attributes: dict[str, Any] = {_RESULT: result, _HTTP_STATUS: receipt.status_code}
        if envelope is not None:
            attributes[_EVENT_ID] = envelope.id
            attributes[_EVENT_TIPO] = envelope.tipo
        span = self.tracer.start_span(
            "smartpos webhooks.receive",
            kind=SpanKind.PRODUCER,
            attributes=attributes,
            start_time=started_ns,
        )
        if receipt.status_code >= 500:
            # The receiver's own failure (the store, the verifier): the service delivers again.
            span.set_attribute(_ERROR_TYPE, result)
            span.set_status(Status(StatusCode.ERROR, result))
        if result == "new" and envelope is not None:
            self.deliveries.remember(envelope.id, span.get_span_context())
        span.end()
        self.receipts.add(1, {_RESULT: result, _HTTP_STATUS: receipt.status_code})

    def handling(self, claim: Claim) -> _HandlingSpan:
        delivered = self.deliveries.recall(claim.event_id) or trace.INVALID_SPAN_CONTEXT
        link = Link(delivered, {_EVENT_ID: claim.event_id})
        span = self.tracer.start_span(
            "smartpos webhooks.process",
            kind=SpanKind.CONSUMER,
            links=[link],
            attributes={
                _EVENT_ID: claim.event_id,
                _EVENT_TIPO: claim.tipo,
                _ATTEMPT: claim.attempts,
            },
        )
        tipo = claim.tipo if claim.tipo in self.tipos else "other"
        return _HandlingSpan(self, span, tipo)


class _Current:
    """A span made current on the caller's thread or task until it ends."""

    def __init__(self, span: trace.Span) -> None:
        self.span = span
        self._token = _context.attach(trace.set_span_in_context(span))

    def end(self, error: BaseException | None, failed: bool = False) -> None:
        span = self.span
        if error is not None:
            name = type(error).__qualname__
            span.set_attribute(_ERROR_TYPE, name)
            span.set_status(Status(StatusCode.ERROR, name))
        elif failed:
            span.set_status(Status(StatusCode.ERROR))
        _context.detach(self._token)
        span.end()


class _CallSpan(_Current):
    """``_telemetry.CallObservation``: the span of one client call."""

    def __init__(self, observer: _Observer, span: trace.Span, operation: str) -> None:
        super().__init__(span)
        self._observer = observer
        self._operation = operation
        self._started = time.perf_counter()

    def retry(self, attempt: int, delay: float, status: int | None) -> None:
        attributes: dict[str, Any] = {"smartpos.attempt": attempt, "smartpos.retry.delay": delay}
        if status is not None:
            attributes[_HTTP_STATUS] = status
        self.span.add_event("smartpos.retry", attributes)
        self._observer.retries.add(1, {_OPERATION: self._operation})

    def finished(
        self, outcome: str, attempts: int, status: int | None, error: BaseException | None
    ) -> None:
        span = self.span
        span.set_attribute(_ATTEMPTS, attempts)
        span.set_attribute(_OUTCOME, outcome)
        if status is not None:
            span.set_attribute(_HTTP_STATUS, status)
        self.end(error)
        observer = self._observer
        labels = {_OPERATION: self._operation, _OUTCOME: outcome}
        observer.calls.add(1, labels)
        observer.duration.record(time.perf_counter() - self._started, labels)
        if outcome == _telemetry.UNKNOWN:
            observer.unknown.add(1, {_OPERATION: self._operation})


class _HandlingSpan(_Current):
    """``_telemetry.HandlingObservation``: the span of one worker handling."""

    def __init__(self, observer: _Observer, span: trace.Span, tipo: str) -> None:
        super().__init__(span)
        self._observer = observer
        self._tipo = tipo

    def finished(self, result: str, error: BaseException | None) -> None:
        self.span.set_attribute(_RESULT, result)
        self.end(error, failed=result in ("dead_lettered", "ack_refused"))
        self._observer.handled.add(1, {_RESULT: result, _EVENT_TIPO: self._tipo})


_lock = threading.Lock()
_installed: tuple[object, object, _Observer] | None = None


def instrument(
    *,
    tracer_provider: trace.TracerProvider | None = None,
    meter_provider: metrics.MeterProvider | None = None,
) -> None:
    """Report every client call, webhook delivery and worker handling of this process.

    Call it once at start-up. Spans and metrics go to the global providers (set up by your
    OpenTelemetry SDK configuration, before or after this call), or to the ones passed.
    Calling it again with the same providers changes nothing; with others, they replace them.

    Args:
        tracer_provider: Where spans go; default the global one.
        meter_provider: Where metrics go; default the global one.
    """
    global _installed
    with _lock:
        if (
            _installed is not None
            and _installed[0] is tracer_provider
            and _installed[1] is meter_provider
            and _telemetry.observer is _installed[2]
        ):
            return
        tracer = trace.get_tracer(SCOPE, __version__, tracer_provider)
        meter = metrics.get_meter(SCOPE, __version__, meter_provider)
        observer = _Observer(tracer, meter)
        _installed = (tracer_provider, meter_provider, observer)
        _telemetry.install(observer)


def uninstrument() -> None:
    """Stop reporting (store gauges registered with `instrument_store` go on)."""
    global _installed
    with _lock:
        if _installed is not None and _telemetry.observer is _installed[2]:
            _telemetry.install(None)
        _installed = None


def is_instrumented() -> bool:
    """``True`` while `instrument` reports this process's calls and events."""
    return _installed is not None and _telemetry.observer is _installed[2]


class _Snapshot:
    __slots__ = ("claimed", "dead", "oldest_age", "pending", "taken")

    def __init__(self, pending: int, claimed: int, dead: int, oldest_age: float) -> None:
        self.pending = pending
        self.claimed = claimed
        self.dead = dead
        self.oldest_age = oldest_age
        self.taken = time.monotonic()


class StoreGauges:
    """The inbox gauges of one store, read at each metrics collection; `close` stops.

    Made by `instrument_store`. Each collection lists the store's waiting and dead
    events (``store.list``, at most ``max_count`` of each state), once for the three gauges.
    """

    def __init__(
        self,
        registry: _Gauges,
        store: Store,
        name: str,
        max_count: int,
        clock: Callable[[], float],
    ) -> None:
        self._registry = registry
        self.store = store
        self.name = name
        self.max_count = max_count
        self._clock = clock
        self._snapshot: _Snapshot | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"StoreGauges({self.name!r})"

    def close(self) -> None:
        """Stop reporting this store's gauges (the store itself stays open)."""
        self._registry.remove(self)

    def snapshot(self) -> _Snapshot | None:
        """The counts of one collection (read once for the three gauges), or ``None`` when
        the store failed (logged; the next collection tries again)."""
        with self._lock:
            current = self._snapshot
            if current is not None and time.monotonic() - current.taken < 1.0:
                return current
            try:
                current = self._read()
            except Exception as exc:  # noqa: BLE001 - a collection must never raise
                _logger.warning(
                    "smartpos: the inbox gauges of store %r could not be read: %s",
                    self.name,
                    type(exc).__name__,
                )
                current = None
            self._snapshot = current
            return current

    def _read(self) -> _Snapshot:
        limit = self.max_count
        store = self.store
        pending = store.list(state=EventState.PENDING, limit=limit)
        claimed = store.list(state=EventState.CLAIMED, limit=limit)
        dead = store.list(state=EventState.DEAD, limit=limit)
        oldest = min((e.received_at for e in (*pending, *claimed)), default=None)
        age = 0.0 if oldest is None else max(0.0, self._clock() - oldest.timestamp())
        return _Snapshot(len(pending), len(claimed), len(dead), age)


class _Gauges:
    """The three observable gauges of one meter and the stores they report."""

    def __init__(self, meter: metrics.Meter) -> None:
        self._lock = threading.Lock()
        self._stores: list[StoreGauges] = []
        meter.create_observable_gauge(
            "smartpos.webhooks.inbox.depth",
            callbacks=[self._depth],
            unit="{event}",
            description="Events waiting in the inbox: pending, or claimed by a worker",
        )
        meter.create_observable_gauge(
            "smartpos.webhooks.inbox.oldest_age",
            callbacks=[self._oldest_age],
            unit="s",
            description="Seconds since the oldest waiting event was received",
        )
        meter.create_observable_gauge(
            "smartpos.webhooks.dead_letters",
            callbacks=[self._dead],
            unit="{event}",
            description="Dead events: inspect them, requeue them after a fix",
        )

    def add(self, gauges: StoreGauges) -> None:
        with self._lock:
            if any(g.name == gauges.name for g in self._stores):
                raise ConfigurationError(message("otel.store_name_taken", name=gauges.name))
            self._stores.append(gauges)

    def remove(self, gauges: StoreGauges) -> None:
        with self._lock:
            if gauges in self._stores:
                self._stores.remove(gauges)

    def _each(self) -> Iterable[tuple[StoreGauges, _Snapshot]]:
        with self._lock:
            stores = list(self._stores)
        for gauges in stores:
            snapshot = gauges.snapshot()
            if snapshot is not None:
                yield gauges, snapshot

    def _depth(self, options: metrics.CallbackOptions) -> Iterable[metrics.Observation]:
        for gauges, snap in self._each():
            yield metrics.Observation(snap.pending, {_STORE: gauges.name, _STATE: "pending"})
            yield metrics.Observation(snap.claimed, {_STORE: gauges.name, _STATE: "claimed"})

    def _oldest_age(self, options: metrics.CallbackOptions) -> Iterable[metrics.Observation]:
        for gauges, snap in self._each():
            yield metrics.Observation(snap.oldest_age, {_STORE: gauges.name})

    def _dead(self, options: metrics.CallbackOptions) -> Iterable[metrics.Observation]:
        for gauges, snap in self._each():
            yield metrics.Observation(snap.dead, {_STORE: gauges.name})


_gauges: dict[int, tuple[object, _Gauges]] = {}


def instrument_store(
    store: Store,
    *,
    name: str | None = None,
    meter_provider: metrics.MeterProvider | None = None,
    max_count: int = DEFAULT_MAX_COUNT,
    clock: Callable[[], float] = time.time,
) -> StoreGauges:
    """Report a store's inbox gauges: depth, age of the oldest waiting event, dead letters.

    Independent of `instrument`: call it in the process that should report them (one
    process per store is enough: every process sees the same inbox).

    Args:
        store: Any webhooks store.
        name: The ``smartpos.store`` attribute of its observations; default the store's class
            name. Two stores of one process need two names.
        meter_provider: Where the gauges go; default the global one.
        max_count: Most events counted per state at each collection (the counts list them).
        clock: Epoch seconds now, for the age (the store's own clock, in tests).

    Returns:
        The store's gauges; ``close()`` stops reporting them.

    Raises:
        ConfigurationError: ``name`` is taken by another instrumented store, or ``max_count``
            is not a positive int.
    """
    if isinstance(max_count, bool) or not isinstance(max_count, int) or max_count < 1:
        raise ConfigurationError(message("otel.max_count", value=max_count))
    if not callable(getattr(store, "list", None)):
        raise ConfigurationError(message("otel.not_a_store", type=type(store).__name__))
    meter = metrics.get_meter(SCOPE, __version__, meter_provider)
    with _lock:
        # One set of gauges per meter: an instrument cannot be registered twice.
        entry = _gauges.get(id(meter))
        if entry is None or entry[0] is not meter:
            entry = (meter, _Gauges(meter))
            _gauges[id(meter)] = entry
    gauges = StoreGauges(entry[1], store, name or type(store).__name__, max_count, clock)
    entry[1].add(gauges)
    return gauges
