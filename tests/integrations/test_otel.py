"""OpenTelemetry: spans and metrics of both clients, the receiver and the workers.

Spans go to the SDK's ``InMemorySpanExporter`` and metrics to its ``InMemoryMetricReader``,
through providers passed to ``instrument()`` (the global ones can be set once per process).
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import httpx
import pytest
from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

import smartpos
from client_cases import ACCEPTANCE_JSON, API_KEY, CPF, REF, SDK, approved_event_json
from smartpos import webhooks
from smartpos.integrations import otel

PAYMENT = {"documento_cliente": CPF, "valor_centavos": 1590, "smartpos_id": "SP-1"}


@attrs.define
class Telemetry:
    """What the instrumented process exported."""

    exporter: InMemorySpanExporter
    reader: InMemoryMetricReader
    tracer_provider: TracerProvider
    meter_provider: MeterProvider

    def spans(self, name: str | None = None) -> list[ReadableSpan]:
        return [s for s in self.exporter.get_finished_spans() if name is None or s.name == name]

    def metrics(self) -> dict[str, list[tuple[dict[str, Any], Any]]]:
        """Every data point by metric name: (attributes, value)."""
        found: dict[str, list[tuple[dict[str, Any], Any]]] = {}
        data = self.reader.get_metrics_data()
        if data is None:
            return found
        for resource in data.resource_metrics:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    for point in metric.data.data_points:
                        value = getattr(point, "value", None)
                        if value is None:
                            value = point.count  # type: ignore[union-attr]
                        found.setdefault(metric.name, []).append((dict(point.attributes), value))
        return found

    def value(self, name: str, **attributes: Any) -> Any:
        """The value of the one point of ``name`` that has these attributes."""
        points = [v for a, v in self.metrics().get(name, []) if attributes.items() <= a.items()]
        assert 1 == len(points), (name, attributes, self.metrics().get(name))
        return points[0]


@pytest.fixture
def telemetry() -> Iterator[Telemetry]:
    """Instrument the process into in-memory exporters; uninstrument afterwards."""
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    otel.instrument(tracer_provider=tracer_provider, meter_provider=meter_provider)
    yield Telemetry(exporter, reader, tracer_provider, meter_provider)
    otel.uninstrument()
    tracer_provider.shutdown()
    meter_provider.shutdown()


def echoing(status: int = 202) -> Callable[[httpx.Request], httpx.Response]:
    """Answer every payment with an acceptance of the referencia it was sent with."""

    def handle(request: httpx.Request) -> httpx.Response:
        sent = json.loads(request.content)
        return httpx.Response(status, json={**ACCEPTANCE_JSON, "referencia": sent["referencia"]})

    return handle


def everything(telemetry: Telemetry) -> str:
    """Every span and metric exported, as text."""
    spans = "\n".join(span.to_json() for span in telemetry.spans())
    data = telemetry.reader.get_metrics_data()
    return spans + (data.to_json() if data is not None else "")


# --- client calls --------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_one_span_per_accepted_call(
    telemetry: Telemetry, make_sdk: Callable[..., SDK]
) -> None:
    """A payment gives one CLIENT span named after the operation, with its referencia,
    attempts, outcome and HTTP status; the calls counter counts it."""
    sdk = make_sdk(transport=httpx.MockTransport(echoing()))

    await sdk.call("payments", "create", **PAYMENT, referencia=REF)

    (span,) = telemetry.spans()
    assert "smartpos payments.create" == span.name
    assert SpanKind.CLIENT == span.kind
    assert {
        "smartpos.operation": "payments.create",
        "smartpos.referencia": REF,
        "smartpos.attempts": 1,
        "smartpos.outcome": "accepted",
        "http.request.method": "POST",
        "http.response.status_code": 202,
    } == dict(span.attributes or {})
    assert StatusCode.UNSET == span.status.status_code
    calls = telemetry.value("smartpos.client.calls", **{"smartpos.operation": "payments.create"})
    assert 1 == calls
    assert trace.INVALID_SPAN == trace.get_current_span()


@pytest.mark.asyncio
async def test_the_call_span_is_current_while_sending(
    telemetry: Telemetry, make_sdk: Callable[..., SDK]
) -> None:
    """The transport runs inside the call's span, so HTTP instrumentation nests under it."""
    current: list[trace.Span] = []

    def handle(request: httpx.Request) -> httpx.Response:
        current.append(trace.get_current_span())
        return httpx.Response(200, json=[])

    await make_sdk(transport=httpx.MockTransport(handle)).call(
        "terminals", "list", documento_cliente=CPF
    )

    (span,) = telemetry.spans("smartpos terminals.list")
    assert span.context == current[0].get_span_context()


@pytest.mark.asyncio
async def test_retries_are_events_and_counted(
    telemetry: Telemetry, make_sdk: Callable[..., SDK]
) -> None:
    """A 503 then an acceptance: two attempts, one retry event, the retries counter at 1."""
    answers = iter([httpx.Response(503), None])

    def handle(request: httpx.Request) -> httpx.Response:
        return next(answers) or echoing()(request)

    await make_sdk(transport=httpx.MockTransport(handle)).call("payments", "create", **PAYMENT)

    (span,) = telemetry.spans()
    assert 2 == span.attributes["smartpos.attempts"]  # type: ignore[index]
    assert "accepted" == span.attributes["smartpos.outcome"]  # type: ignore[index]
    (event,) = span.events
    assert "smartpos.retry" == event.name
    assert 1 == event.attributes["smartpos.attempt"]  # type: ignore[index]
    assert 503 == event.attributes["http.response.status_code"]  # type: ignore[index]
    assert 1 == telemetry.value("smartpos.client.retries")


@pytest.mark.asyncio
async def test_unknown_outcome(telemetry: Telemetry, make_sdk: Callable[..., SDK]) -> None:
    """Read timeouts of a payment: outcome unknown, an error span, the unknown counter at 1."""

    def handle(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow", request=request)

    with pytest.raises(smartpos.OutcomeUnknownError):
        await make_sdk(transport=httpx.MockTransport(handle)).call("payments", "create", **PAYMENT)

    (span,) = telemetry.spans()
    attributes = dict(span.attributes or {})
    assert "unknown" == attributes["smartpos.outcome"]
    assert 3 == attributes["smartpos.attempts"]
    assert "OutcomeUnknownError" == attributes["error.type"]
    assert "http.response.status_code" not in attributes
    assert StatusCode.ERROR == span.status.status_code
    assert 1 == telemetry.value("smartpos.client.unknown_outcomes")
    assert 1 == telemetry.value("smartpos.client.calls", **{"smartpos.outcome": "unknown"})
    assert 2 == telemetry.value("smartpos.client.retries")


@pytest.mark.asyncio
async def test_rejected_call_records_no_message(
    telemetry: Telemetry, make_sdk: Callable[..., SDK]
) -> None:
    """A 400 is rejected: its status and error type are recorded, not its message (which
    may quote the customer's document)."""
    body = {"erro": {"codigo": "CAMPO_INVALIDO", "mensagem": f"documento {CPF} recusado"}}

    with pytest.raises(smartpos.CampoInvalidoError):
        await make_sdk(
            transport=httpx.MockTransport(lambda request: httpx.Response(400, json=body))
        ).call("payments", "create", **PAYMENT)

    (span,) = telemetry.spans()
    attributes = dict(span.attributes or {})
    assert "rejected" == attributes["smartpos.outcome"]
    assert 400 == attributes["http.response.status_code"]
    assert "CampoInvalidoError" == attributes["error.type"]
    assert [] == list(span.events)
    assert CPF not in everything(telemetry)


@pytest.mark.asyncio
async def test_no_key_and_no_document_anywhere(
    telemetry: Telemetry, make_sdk: Callable[..., SDK]
) -> None:
    """Every endpoint, successes and failures: neither the API key nor the customer's
    document (bare or masked) is in any span or metric."""

    def handle(request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            return httpx.Response(200, json=[{"smartposId": "SP-1"}])
        if request.url.path.endswith("/qrcode"):
            return httpx.Response(500, text=f"{CPF} {API_KEY}")
        return echoing()(request)

    sdk = make_sdk(transport=httpx.MockTransport(handle), max_retries=0)
    await sdk.call("terminals", "list", documento_cliente="123.456.789-09")
    await sdk.call("payments", "create", **PAYMENT)
    await sdk.call("print_jobs", "create", documento_cliente=CPF, smartpos_id="SP-1", conteudo="oi")
    with pytest.raises(smartpos.APIError):
        await sdk.call("qrcodes", "create", documento_cliente=CPF)

    text = everything(telemetry)
    assert 4 == len(telemetry.spans())
    for secret in (API_KEY, CPF, "123.456.789-09", "123.***.***-09"):
        assert secret not in text


class Stop(BaseException):
    """Something that interrupts a call, like Ctrl-C or a cancellation."""


@pytest.mark.asyncio
async def test_an_interrupted_payment_ends_its_span_as_unknown(
    telemetry: Telemetry, make_sdk: Callable[..., SDK]
) -> None:
    """An interruption while sending ends the span (outcome unknown) and leaves no span
    current behind it."""

    def handle(request: httpx.Request) -> httpx.Response:
        raise Stop

    with pytest.raises(Stop):
        await make_sdk(transport=httpx.MockTransport(handle)).call("payments", "create", **PAYMENT)

    (span,) = telemetry.spans()
    assert "unknown" == span.attributes["smartpos.outcome"]  # type: ignore[index]
    assert "Stop" == span.attributes["error.type"]  # type: ignore[index]
    assert trace.INVALID_SPAN == trace.get_current_span()


@pytest.mark.asyncio
async def test_a_closed_client_is_rejected(
    telemetry: Telemetry, make_sdk: Callable[..., SDK]
) -> None:
    """A call on a closed client sends nothing: its span says rejected, ClientClosedError."""
    sdk = make_sdk(transport=httpx.MockTransport(echoing()))
    await sdk.close()

    with pytest.raises(smartpos.ClientClosedError):
        await sdk.call("payments", "create", **PAYMENT)

    (span,) = telemetry.spans()
    assert "rejected" == span.attributes["smartpos.outcome"]  # type: ignore[index]
    assert "ClientClosedError" == span.attributes["error.type"]  # type: ignore[index]


@pytest.mark.asyncio
async def test_create_for_and_qrcodes_are_named(
    telemetry: Telemetry, make_sdk: Callable[..., SDK]
) -> None:
    """Each operation names its span: refunds.create_for and qrcodes.create."""
    qr = {"qrCode": "X", "referencia": REF, "expiresAt": 1785598200}

    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/qrcode"):
            return httpx.Response(201, json=qr)
        sent = json.loads(request.content)
        return httpx.Response(200, json={"referencia": sent["referencia"]})

    sdk = make_sdk(transport=httpx.MockTransport(handle))
    await sdk.call("qrcodes", "create", documento_cliente=CPF, referencia=REF)
    event = webhooks.parse_event(approved_event_json())
    await sdk.call("refunds", "create_for", event)

    assert ["smartpos qrcodes.create", "smartpos refunds.create_for"] == [
        s.name for s in telemetry.spans()
    ]


@pytest.mark.asyncio
async def test_uninstrument_stops_reporting(
    telemetry: Telemetry, make_sdk: Callable[..., SDK]
) -> None:
    """After uninstrument() calls report nothing; instrument() twice reports once."""
    sdk = make_sdk(transport=httpx.MockTransport(echoing()))
    otel.instrument(
        tracer_provider=telemetry.tracer_provider, meter_provider=telemetry.meter_provider
    )
    await sdk.call("payments", "create", **PAYMENT)
    assert otel.is_instrumented()

    otel.uninstrument()
    await sdk.call("payments", "create", **PAYMENT)

    assert 1 == len(telemetry.spans())
    assert not otel.is_instrumented()


# --- webhooks ------------------------------------------------------------------------------


def test_receive_spans_and_counter(telemetry: Telemetry) -> None:
    """receive(): a PRODUCER span per delivery with the event's id, tipo and result; the
    received counter by result."""
    receiver = webhooks.WebhookReceiver(webhooks.MemoryStore())
    body = json.dumps(approved_event_json()).encode()
    before = time.time_ns()

    assert 200 == receiver.receive(body).status_code
    assert 200 == receiver.receive(body).status_code
    assert 400 == receiver.receive(b"[]").status_code

    new, duplicate, rejected = telemetry.spans()
    assert {"smartpos webhooks.receive"} == {new.name, duplicate.name, rejected.name}
    assert SpanKind.PRODUCER == new.kind
    assert {
        "smartpos.webhooks.result": "new",
        "http.response.status_code": 200,
        "smartpos.event.id": "evt_0001",
        "smartpos.event.tipo": "pagamento.aprovado",
    } == dict(new.attributes or {})
    assert "duplicate" == duplicate.attributes["smartpos.webhooks.result"]  # type: ignore[index]
    assert {"smartpos.webhooks.result": "rejected", "http.response.status_code": 400} == dict(
        rejected.attributes or {}
    )
    assert new.start_time is not None
    assert new.end_time is not None
    assert before <= new.start_time <= new.end_time
    assert 1 == telemetry.value("smartpos.webhooks.received", **{"smartpos.webhooks.result": "new"})
    assert CPF not in everything(telemetry)


class BrokenStore(webhooks.MemoryStore):
    def put(self, event: Any, *, timeout: float | None = None) -> webhooks.PutResult:
        raise webhooks.StoreError("disk full")


def test_receive_store_failure_is_an_error_span(telemetry: Telemetry) -> None:
    """A store that fails: 503, result unavailable, an error span."""
    receiver = webhooks.WebhookReceiver(BrokenStore())

    assert 503 == receiver.receive(json.dumps(approved_event_json())).status_code

    (span,) = telemetry.spans()
    assert "unavailable" == span.attributes["smartpos.webhooks.result"]  # type: ignore[index]
    assert StatusCode.ERROR == span.status.status_code


@pytest.mark.asyncio
async def test_asgi_receive_span_is_a_child_of_the_request_span(telemetry: Telemetry) -> None:
    """The ASGI app reports its deliveries too, under the span current in the request."""
    receiver = webhooks.WebhookReceiver(webhooks.MemoryStore())
    tracer = telemetry.tracer_provider.get_tracer("test")
    transport = httpx.ASGITransport(app=receiver.asgi_app())
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        with tracer.start_as_current_span("POST /webhooks") as request_span:
            answer = await http.post("/", content=json.dumps(approved_event_json()))

    assert 200 == answer.status_code
    (span,) = telemetry.spans("smartpos webhooks.receive")
    assert span.parent is not None
    assert request_span.get_span_context().span_id == span.parent.span_id
    assert "new" == span.attributes["smartpos.webhooks.result"]  # type: ignore[index]


def refunding_handler(client: smartpos.Client) -> Callable[[webhooks.Event], None]:
    def handle(event: webhooks.Event) -> None:
        assert isinstance(event, webhooks.PagamentoAprovado)
        client.refunds.create_for(event)

    return handle


def refund_client() -> smartpos.Client:
    def handle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"referencia": json.loads(request.content)["referencia"]})

    return smartpos.Client(
        api_key=API_KEY, base_url="http://h", transport=httpx.MockTransport(handle)
    )


def test_worker_span_links_the_delivery_and_parents_the_handlers_calls(
    telemetry: Telemetry,
) -> None:
    """A handling span (CONSUMER) links the receive span of its event, and the handler's own
    client calls are its children."""
    store = webhooks.MemoryStore()
    webhooks.WebhookReceiver(store).receive(json.dumps(approved_event_json()))
    with refund_client() as client:
        assert 1 == webhooks.Worker(store, refunding_handler(client)).run_once()

    (receive,) = telemetry.spans("smartpos webhooks.receive")
    (process,) = telemetry.spans("smartpos webhooks.process")
    (refund,) = telemetry.spans("smartpos refunds.create_for")
    assert SpanKind.CONSUMER == process.kind
    assert {
        "smartpos.event.id": "evt_0001",
        "smartpos.event.tipo": "pagamento.aprovado",
        "smartpos.webhooks.attempt": 1,
        "smartpos.webhooks.result": "acked",
    } == dict(process.attributes or {})
    (link,) = process.links
    assert receive.context == link.context
    assert {"smartpos.event.id": "evt_0001"} == dict(link.attributes or {})
    assert refund.parent is not None
    assert process.context.span_id == refund.parent.span_id
    assert 1 == telemetry.value(
        "smartpos.webhooks.handled",
        **{"smartpos.webhooks.result": "acked", "smartpos.event.tipo": "pagamento.aprovado"},
    )


def test_an_event_received_elsewhere_is_linked_by_its_id(telemetry: Telemetry) -> None:
    """An event this process did not receive (another host's receiver): the link has no span
    context, only the event id; a failing handler makes an error span."""
    store = webhooks.MemoryStore()
    store.put(webhooks.parse_event(approved_event_json()))

    def fail(event: webhooks.Event) -> None:
        raise RuntimeError(f"no refund for {CPF}")

    webhooks.Worker(store, fail).run_once()

    (process,) = telemetry.spans()
    (link,) = process.links
    assert not link.context.is_valid
    assert {"smartpos.event.id": "evt_0001"} == dict(link.attributes or {})
    assert "failed" == process.attributes["smartpos.webhooks.result"]  # type: ignore[index]
    assert "RuntimeError" == process.attributes["error.type"]  # type: ignore[index]
    assert StatusCode.ERROR == process.status.status_code
    assert CPF not in everything(telemetry)


def test_a_dead_lettered_event_is_an_error_span(telemetry: Telemetry) -> None:
    """An event whose dados does not fit the schema is dead-lettered: result dead_lettered."""
    store = webhooks.MemoryStore()
    receiver = webhooks.WebhookReceiver(store)
    receiver.receive(json.dumps(approved_event_json(valorCentavos="muito")))

    webhooks.Worker(store, lambda event: None).run_once()

    (process,) = telemetry.spans("smartpos webhooks.process")
    assert "dead_lettered" == process.attributes["smartpos.webhooks.result"]  # type: ignore[index]
    assert StatusCode.ERROR == process.status.status_code


@pytest.mark.asyncio
async def test_async_worker_spans(telemetry: Telemetry) -> None:
    """AsyncWorker: the same span, current while the async handler runs."""
    store = webhooks.MemoryStore()
    webhooks.WebhookReceiver(store).receive(json.dumps(approved_event_json()))
    seen: list[trace.Span] = []

    async def handle(event: webhooks.Event) -> None:
        await asyncio.sleep(0)
        seen.append(trace.get_current_span())

    assert 1 == await webhooks.AsyncWorker(store, handle).run_once()

    (receive,) = telemetry.spans("smartpos webhooks.receive")
    (process,) = telemetry.spans("smartpos webhooks.process")
    assert process.context == seen[0].get_span_context()
    assert receive.context == process.links[0].context
    assert "acked" == process.attributes["smartpos.webhooks.result"]  # type: ignore[index]
    assert trace.INVALID_SPAN == trace.get_current_span()


# --- store gauges --------------------------------------------------------------------------


def events(count: int) -> list[webhooks.Event]:
    return [webhooks.parse_event({**approved_event_json(), "id": f"evt_{n}"}) for n in range(count)]


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_store_gauges(telemetry: Telemetry, tmp_path: Path, kind: str) -> None:
    """Depth by state, the oldest waiting event's age, dead letters; close() stops them."""
    now = [1_000_000.0]
    clock = lambda: now[0]  # noqa: E731
    store: webhooks.Store
    if kind == "memory":
        store = webhooks.MemoryStore(clock=clock)
    else:
        store = webhooks.SQLiteStore(tmp_path / "inbox.db", clock=clock)
    first, *others = events(4)
    store.put(first)
    now[0] += 30.0
    for event in others:
        store.put(event)
    (claim,) = store.claim(owner="w", lease=60.0, limit=1)  # the first (oldest) one
    (dying,) = store.claim(owner="w", lease=60.0, limit=1)
    store.dead_letter(dying, error="boom")
    now[0] += 90.0

    gauges = otel.instrument_store(
        store, name=kind, meter_provider=telemetry.meter_provider, clock=clock
    )
    attributes = {"smartpos.store": kind}
    assert 2 == telemetry.value(
        "smartpos.webhooks.inbox.depth", **attributes, **{"smartpos.event.state": "pending"}
    )
    assert 1 == telemetry.value(
        "smartpos.webhooks.inbox.depth", **attributes, **{"smartpos.event.state": "claimed"}
    )
    assert 1 == telemetry.value("smartpos.webhooks.dead_letters", **attributes)
    assert 120.0 == telemetry.value("smartpos.webhooks.inbox.oldest_age", **attributes)
    assert claim.event_id == "evt_0"

    gauges.close()
    assert "smartpos.webhooks.dead_letters" not in telemetry.metrics()
    store.close()


def test_store_gauges_names_and_failures(
    telemetry: Telemetry, caplog: pytest.LogCaptureFixture
) -> None:
    """Two stores need two names; a store that fails is skipped and logged, not raised."""
    provider = telemetry.meter_provider
    store = webhooks.MemoryStore()
    otel.instrument_store(store, meter_provider=provider)
    with pytest.raises(smartpos.ConfigurationError, match="already instrumented"):
        otel.instrument_store(webhooks.MemoryStore(), meter_provider=provider)
    with pytest.raises(smartpos.ConfigurationError, match="max_count"):
        otel.instrument_store(store, name="x", meter_provider=provider, max_count=0)

    store.close()

    assert "smartpos.webhooks.dead_letters" not in telemetry.metrics()
    assert "could not be read: StoreError" in caplog.text


# --- without the extra ---------------------------------------------------------------------


def run(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return result.stdout.strip()


def test_nothing_of_opentelemetry_is_imported_by_smartpos() -> None:
    """A client call, a delivery and a handling import nothing of OpenTelemetry when it is
    installed but not asked for."""
    out = run(
        """
        import sys, httpx, smartpos
        from smartpos import webhooks
        client = smartpos.Client(api_key='k-123456', base_url='http://h',
            transport=httpx.MockTransport(lambda request: httpx.Response(200, json=[])))
        client.terminals.list(documento_cliente='52998224725')
        store = webhooks.MemoryStore()
        webhooks.WebhookReceiver(store).receive(b'{"id": "e", "tipo": "x.y", "dados": {}}')
        webhooks.Worker(store, lambda event: None).run_once()
        print(sorted(m for m in sys.modules if m.startswith(('opentelemetry', 'smartpos.integ'))))
        """
    )
    assert "[]" == out


def test_without_the_extra_smartpos_works_and_otel_says_what_to_install() -> None:
    """With opentelemetry not importable at all, smartpos works; importing the integration
    raises an ImportError that names the extra."""
    out = run(
        """
        import importlib.abc, sys
        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.partition('.')[0] == 'opentelemetry':
                    raise ModuleNotFoundError(f'No module named {name!r}')
        sys.meta_path.insert(0, Block())
        import httpx, smartpos
        client = smartpos.Client(api_key='k-123456', base_url='http://h',
            transport=httpx.MockTransport(lambda request: httpx.Response(200, json=[])))
        print(client.terminals.list(documento_cliente='52998224725'))
        try:
            from smartpos.integrations import otel
        except ImportError as exc:
            print(exc)
        """
    )
    assert "[]\nsmartpos.integrations.otel needs OpenTelemetry's API: pip install " in out
    assert "'smartpos[otel]'" in out


@pytest.mark.slow
def test_the_example_runs_and_links_the_sale() -> None:
    """examples/otel_sandbox.py: the handling span links the receive span, the refund is the
    handling's child, and the metrics and gauges print."""
    example = Path(__file__).resolve().parents[2] / "examples" / "otel_sandbox.py"
    result = subprocess.run(
        [sys.executable, "-W", "error", str(example)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert 0 == result.returncode, result.stderr
    spans = {
        line.split()[1] + " " + line.split()[2]: dict(
            part.split("=", 1) for part in line.split()[3:6] if "=" in part
        )
        for line in result.stdout.splitlines()
        if line.startswith("span ")
    }
    receive = spans["smartpos webhooks.receive"]
    process = spans["smartpos webhooks.process"]
    refund = spans["smartpos refunds.create_for"]
    assert receive["id"] == process["link"]
    assert process["id"] == refund["parent"]
    assert "smartpos payments.create" in spans
    assert "metric smartpos.webhooks.dead_letters {'smartpos.store': 'inbox'} = 0" in (
        result.stdout
    )
