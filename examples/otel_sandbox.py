"""OpenTelemetry on a whole sale: the client's spans, the webhook's, the worker's, the metrics.

A payment against the sandbox (over real HTTP on 127.0.0.1); its ``pagamento.aprovado`` event
is received into an inbox and handled by a worker that refunds it. Spans print to the console
as they end (one line each, with its parent or link), then the metrics. In your application,
set up the SDK with your exporter (OTLP...) instead; the two smartpos lines stay the same.

    pip install "smartpos[otel]" opentelemetry-sdk
    python otel_sandbox.py
"""

from __future__ import annotations

import threading
import time

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor

from smartpos import Client
from smartpos.integrations import otel
from smartpos.testing import Sandbox
from smartpos.webhooks import Event, MemoryStore, PagamentoAprovado, WebhookReceiver, Worker


def one_line(span: ReadableSpan) -> str:
    attributes = dict(span.attributes or {})
    shown = {k: v for k, v in attributes.items() if k != "smartpos.referencia"}
    where = f" parent={span.parent.span_id:016x}" if span.parent else ""
    for link in span.links:
        target = f"{link.context.span_id:016x}" if link.context.is_valid else "(elsewhere)"
        where += f" link={target}"
    span_id = span.context.span_id if span.context else 0
    return f"span {span.name} id={span_id:016x}{where} {shown}\n"


tracer_provider = TracerProvider()
tracer_provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(formatter=one_line)))
reader = InMemoryMetricReader()
meter_provider = MeterProvider(metric_readers=[reader])

# The two smartpos lines: every client, receiver and worker; the inbox gauges of the store.
otel.instrument(tracer_provider=tracer_provider, meter_provider=meter_provider)
store = MemoryStore()
otel.instrument_store(store, name="inbox", meter_provider=meter_provider)

sandbox = Sandbox()
sandbox.set_webhook(WebhookReceiver(store))
refunded = threading.Event()

with sandbox.serve() as base_url, Client(api_key=Sandbox.API_KEY, base_url=base_url) as client:

    def handle(event: Event) -> None:
        """Refund every approved payment (a child span of the handling)."""
        if isinstance(event, PagamentoAprovado):
            client.refunds.create_for(event)
            refunded.set()

    worker = Worker(store, handle, poll_interval=0.05)
    stop = threading.Event()
    thread = threading.Thread(target=worker.run, args=(stop,), daemon=True)
    thread.start()

    client.payments.create(
        documento_cliente=Sandbox.DOCUMENTO,
        valor_centavos=1990,
        smartpos_id=Sandbox.SMARTPOS_ID,
        forma_pagamento="pix",
    )
    deadline = time.monotonic() + 10
    while not refunded.wait(0.05) and time.monotonic() < deadline:
        pass
    stop.set()
    thread.join()

data = reader.get_metrics_data()
for resource in data.resource_metrics if data else ():
    for scope in resource.scope_metrics:
        for metric in scope.metrics:
            for point in metric.data.data_points:
                value = getattr(point, "value", getattr(point, "count", None))
                print(f"metric {metric.name} {dict(point.attributes or {})} = {value}")

sandbox.close()
tracer_provider.shutdown()
meter_provider.shutdown()
