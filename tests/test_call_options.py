"""Call options and escape hatches: with_options, per-call timeout=, with_raw_response,
client.request and retry-after-ms (each client test runs with Client and AsyncClient).

The service is the Sandbox of ``smartpos.testing``, behind a transport that records what
reached it; ``retry-after-ms`` is decided by the core and tested there without any client.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import inspect
import json
import logging
import math
import random
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

import smartpos
from client_cases import API_KEY, SDK, in_the_tests_loop
from smartpos import _calls, _config, _core
from smartpos.testing import Sandbox
from smartpos.webhooks import MemoryStore, WebhookReceiver, parse_event

BASE = "http://sandbox.invalid"
DOC = Sandbox.DOCUMENTO
TERMINAL = Sandbox.SMARTPOS_ID
PAYMENT: dict[str, Any] = {
    "documento_cliente": DOC,
    "valor_centavos": 1590,
    "smartpos_id": TERMINAL,
}
PAYMENT_JSON: dict[str, Any] = {
    "documentoCliente": DOC,
    "valorCentavos": 1590,
    "smartposId": TERMINAL,
    "modoExecucao": "imediato",
}


class Recorder:
    """The sandbox as the service, behind a transport that keeps every request it saw."""

    def __init__(self, sandbox: Sandbox | None = None) -> None:
        self.sandbox = sandbox or Sandbox()
        self.requests: list[httpx.Request] = []
        self.answer: Callable[[httpx.Request], httpx.Response] = self.sandbox.handle

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.answer(request)

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    @property
    def timeouts(self) -> list[dict[str, float | None]]:
        return [r.extensions["timeout"] for r in self.requests]


@pytest.fixture
def service() -> Iterator[Recorder]:
    recorder = Recorder()
    with recorder.sandbox:
        yield recorder


@pytest.fixture
def make_client(
    make_sdk: Callable[..., SDK], service: Recorder
) -> Callable[..., smartpos.Client | smartpos.AsyncClient]:
    """Build a client of the current flavour talking to the recorded sandbox."""

    def make(**options: Any) -> smartpos.Client | smartpos.AsyncClient:
        options = {
            "api_key": Sandbox.API_KEY,
            "base_url": BASE,
            "transport": service.transport(),
            **options,
        }
        return make_sdk(**options).client

    return make


async def run(function: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """Call a method of either client: awaited for AsyncClient."""
    with in_the_tests_loop():
        result = function(*args, **kwargs)
    if inspect.isawaitable(result):
        result = await result
    return result


async def close(client: smartpos.Client | smartpos.AsyncClient) -> None:
    await run(client.close)


def approved_event(service: Recorder, referencia: str) -> Any:
    """The parsed pagamento.aprovado the sandbox delivered for ``referencia``."""
    [envelope] = [
        e
        for e in service.sandbox.events
        if e["tipo"] == "pagamento.aprovado" and e["dados"]["referencia"] == referencia
    ]
    return parse_event(envelope)


# --- with_options ----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_with_options_shares_the_pool_the_store_and_the_class(
    make_client: Callable[..., Any],
) -> None:
    """The derived client is of the same class, on the same httpx client and store."""
    store = MemoryStore()
    client = make_client(store=store, max_retries=3)

    derived = client.with_options(timeout=2.5)

    assert type(client) is type(derived)
    assert client._http is derived._http
    assert client._store is derived._store is store
    assert (client.base_url, 3) == (derived.base_url, derived._config.max_retries)
    assert httpx.Timeout(2.5) == derived._config.timeout
    assert derived.payments._client is derived
    assert client.payments._client is client


@pytest.mark.asyncio
async def test_closing_the_derived_client_leaves_the_parent_working(
    make_client: Callable[..., Any], service: Recorder
) -> None:
    """Only the owner closes the shared pool (and the store it opened)."""
    client = make_client(store="memory:")
    derived = client.with_options(max_retries=0)

    await close(derived)

    assert not client._http.is_closed
    assert [TERMINAL] == [
        t.smartpos_id for t in await run(client.terminals.list, documento_cliente=DOC)
    ]
    acceptance = await run(client.payments.create, **PAYMENT)
    assert "accepted" == client._store.operation(acceptance.referencia).state
    with pytest.raises(smartpos.ClientClosedError):
        await run(derived.terminals.list, documento_cliente=DOC)


@pytest.mark.asyncio
async def test_closing_the_parent_closes_the_derived_client(
    make_client: Callable[..., Any], service: Recorder
) -> None:
    """A derived client whose owner closed the pool sends nothing more."""
    client = make_client()
    derived = client.with_options(timeout=3)

    await close(client)

    with pytest.raises(smartpos.ClientClosedError):
        await run(derived.terminals.list, documento_cliente=DOC)
    with pytest.raises(smartpos.ClientClosedError):
        await run(client.with_options(timeout=1).terminals.list, documento_cliente=DOC)
    assert [] == service.requests


@pytest.mark.asyncio
async def test_a_client_derived_from_a_closed_one_is_closed(
    make_client: Callable[..., Any], make_http: Callable[..., Any], service: Recorder
) -> None:
    """Even on a user's http_client (which the SDK never closes), a closed client's derived
    client sends nothing."""
    client = make_client(transport=None, http_client=make_http(transport=service.transport()))
    await close(client)

    with pytest.raises(smartpos.ClientClosedError):
        await run(client.with_options(timeout=1).terminals.list, documento_cliente=DOC)
    assert [] == service.requests


@pytest.mark.asyncio
async def test_with_options_headers_reach_every_request_and_never_replace_the_sdks(
    make_client: Callable[..., Any], service: Recorder
) -> None:
    """Extra headers are sent; a second with_options adds to them; Accept stays the SDK's."""
    client = make_client()
    derived = client.with_options(headers={"X-Trace": "t-1", "Accept": "text/plain"})
    again = derived.with_options(headers={"x-trace": "t-2", "X-Tenant": "loja-9"})

    await run(derived.terminals.list, documento_cliente=DOC)
    await run(again.payments.create, **PAYMENT)
    await run(client.terminals.list, documento_cliente=DOC)

    first, second, plain = service.requests
    assert ("t-1", "application/json") == (first.headers["x-trace"], first.headers["accept"])
    assert ("t-2", "loja-9") == (second.headers["x-trace"], second.headers["x-tenant"])
    assert "application/json" == second.headers["content-type"]
    assert Sandbox.API_KEY == second.headers["x-api-key"]
    assert "x-trace" not in plain.headers


@pytest.mark.parametrize(
    "name",
    ["Authorization", "authorization", "X-Api-Key", "X-API-KEY", "Proxy-Authorization", "Host"],
)
@pytest.mark.asyncio
async def test_with_options_refuses_the_credentials_headers(
    make_client: Callable[..., Any], name: str
) -> None:
    """The key and the credentials cannot be replaced through headers=; the value is not shown."""
    client = make_client()

    with pytest.raises(smartpos.ConfigurationError) as caught:
        client.with_options(headers={name: "Bearer s3cr3t-value"})

    assert name in str(caught.value)
    assert "s3cr3t" not in str(caught.value)


@pytest.mark.parametrize(
    "options",
    [
        {"timeout": 0},
        {"timeout": -1},
        {"timeout": math.nan},
        {"timeout": math.inf},
        {"timeout": "5"},
        {"timeout": True},
        {"max_retries": -1},
        {"max_retries": True},
        {"max_retries": 1.5},
        {"headers": ["X-A"]},
        {"headers": {"Bad Name": "x"}},
        {"headers": {"X-A": "line\nbreak"}},
        {"headers": {"X-A": 5}},
        {"headers": {"X-A": "não-ascii"}},
    ],
    ids=repr,
)
@pytest.mark.asyncio
async def test_with_options_refuses_bad_options(
    make_client: Callable[..., Any], options: dict[str, Any]
) -> None:
    """A bad option is a ConfigurationError, with the checks of the constructor."""
    client = make_client()

    with pytest.raises(smartpos.ConfigurationError):
        client.with_options(**options)


@pytest.mark.asyncio
async def test_with_options_max_retries_applies_to_the_derived_client_only(
    make_client: Callable[..., Any], service: Recorder
) -> None:
    """max_retries=0 sends once; the parent keeps retrying."""
    client = make_client(retry_backoff=0, max_retries=2)
    service.sandbox.fail_next("terminals", "502", times=10)

    with pytest.raises(smartpos.APIError):
        await run(client.with_options(max_retries=0).terminals.list, documento_cliente=DOC)
    assert 1 == len(service.requests)
    with pytest.raises(smartpos.APIError):
        await run(client.terminals.list, documento_cliente=DOC)
    assert 1 + 3 == len(service.requests)


@pytest.mark.asyncio
async def test_with_options_timeout_reaches_the_transport(
    make_client: Callable[..., Any], service: Recorder
) -> None:
    """The derived client's timeout is every request's; the parent keeps its own."""
    client = make_client(timeout=30)

    await run(client.with_options(timeout=4).terminals.list, documento_cliente=DOC)
    await run(client.terminals.list, documento_cliente=DOC)

    assert [httpx.Timeout(4).as_dict(), httpx.Timeout(30).as_dict()] == service.timeouts


# --- per-call timeout ------------------------------------------------------------------------

SENDING = [
    pytest.param("qrcodes", "create", {"documento_cliente": DOC}, id="qrcodes.create"),
    pytest.param("payments", "create", PAYMENT, id="payments.create"),
    pytest.param(
        "print_jobs",
        "create",
        {"documento_cliente": DOC, "smartpos_id": TERMINAL, "conteudo": "ok"},
        id="print_jobs.create",
    ),
    pytest.param("terminals", "list", {"documento_cliente": DOC}, id="terminals.list"),
]


@pytest.mark.parametrize(
    "timeout",
    [1.5, httpx.Timeout(2.0, connect=0.5)],
    ids=["seconds", "httpx.Timeout"],
)
@pytest.mark.parametrize(("resource", "method", "kwargs"), SENDING)
@pytest.mark.asyncio
async def test_a_per_call_timeout_reaches_the_transport(
    make_client: Callable[..., Any],
    service: Recorder,
    resource: str,
    method: str,
    kwargs: dict[str, Any],
    timeout: float | httpx.Timeout,
) -> None:
    """timeout= of a resource method is that request's, and only that one's."""
    client = make_client(timeout=30)
    function = getattr(getattr(client, resource), method)

    await run(function, **kwargs, timeout=timeout)
    await run(function, **kwargs)

    expected = timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout)
    assert [expected.as_dict(), httpx.Timeout(30).as_dict()] == service.timeouts


@pytest.mark.asyncio
async def test_refunds_take_a_per_call_timeout(
    make_client: Callable[..., Any], service: Recorder
) -> None:
    """refunds.create_for and refunds.create send with their own timeout too."""
    client = make_client()
    acceptance = await run(client.payments.create, **PAYMENT)
    event = approved_event(service, acceptance.referencia)

    await run(client.refunds.create_for, event, valor_centavos=100, timeout=3)
    await run(
        client.refunds.create,
        documento_cliente=DOC,
        smartpos_id=TERMINAL,
        valor_centavos=100,
        pagamento_original=smartpos.PagamentoOriginal(
            codigo_autorizacao=event.dados.autorizacao.codigo,
            numero_transacao=event.dados.autorizacao.numero_transacao,
            dados_finalizacao=event.dados.autorizacao.dados_finalizacao,
            tipo_pagamento=event.dados.autorizacao.tipo_pagamento,
        ),
        timeout=httpx.Timeout(6.0),
    )

    assert [httpx.Timeout(3).as_dict(), httpx.Timeout(6).as_dict()] == service.timeouts[1:]


@pytest.mark.asyncio
async def test_create_and_wait_takes_request_timeout_for_the_http_request(
    make_client: Callable[..., Any], service: Recorder
) -> None:
    """request_timeout= is the POST's timeout; timeout= stays the wait's."""
    store = MemoryStore()
    service.sandbox.set_webhook(WebhookReceiver(store))
    client = make_client(store=store)

    event = await run(client.payments.create_and_wait, **PAYMENT, timeout=10, request_timeout=2)

    assert isinstance(event, smartpos.webhooks.PagamentoAprovado)
    assert [httpx.Timeout(2).as_dict()] == service.timeouts


@pytest.mark.parametrize("timeout", [0, -2, math.nan, "3", True])
@pytest.mark.asyncio
async def test_a_bad_per_call_timeout_sends_nothing(
    make_client: Callable[..., Any], service: Recorder, timeout: object
) -> None:
    """A bad timeout= is a ValidationError (campo timeout) raised before any send."""
    client = make_client(store="memory:")

    with pytest.raises(smartpos.ValidationError) as caught:
        await run(client.payments.create, **PAYMENT, timeout=timeout)

    assert ("CAMPO_INVALIDO", "timeout") == (caught.value.codigo, caught.value.campo)
    assert [] == service.requests
    assert [] == client._store.operations()


# --- with_raw_response -----------------------------------------------------------------------


@pytest.mark.asyncio
async def test_raw_response_of_a_payment(
    make_client: Callable[..., Any], service: Recorder
) -> None:
    """status, headers, request id, elapsed, the bytes received, the referencia, parse()."""
    client = make_client()
    referencia = smartpos.new_referencia()

    raw = await run(client.payments.with_raw_response.create, **PAYMENT, referencia=referencia)

    assert isinstance(raw, smartpos.RawResponse)
    assert (202, referencia, 1) == (raw.status_code, raw.referencia, raw.attempts)
    assert raw.headers["x-request-id"] == raw.request_id
    assert raw.request_id
    assert isinstance(raw.elapsed, float)
    assert raw.elapsed >= 0
    assert referencia == json.loads(raw.content)["referencia"] == raw.json()["referencia"]
    acceptance = raw.parse()
    assert isinstance(acceptance, smartpos.Acceptance)
    assert (referencia, "processando") == (acceptance.referencia, acceptance.status)
    assert raw.status_code == acceptance.http.status_code


@pytest.mark.asyncio
async def test_raw_responses_of_every_resource_parse_to_the_plain_result(
    make_client: Callable[..., Any], service: Recorder
) -> None:
    """parse() gives what the plain method returns: QRCode, Acceptance, Refund, terminals."""
    client = make_client()
    qr = await run(client.qrcodes.with_raw_response.create, documento_cliente=DOC)
    job = await run(
        client.print_jobs.with_raw_response.create,
        documento_cliente=DOC,
        smartpos_id=TERMINAL,
        conteudo=b"ok",
        timeout=5,
    )
    terminals = await run(client.terminals.with_raw_response.list, documento_cliente=DOC)
    acceptance = await run(client.payments.create, **PAYMENT)
    refund = await run(
        client.refunds.with_raw_response.create_for,
        approved_event(service, acceptance.referencia),
    )

    assert isinstance(qr.parse(), smartpos.QRCode)
    assert qr.parse().referencia == qr.referencia
    assert isinstance(job.parse(), smartpos.Acceptance)
    assert httpx.Timeout(5).as_dict() == service.timeouts[1]
    assert (200, None) == (terminals.status_code, terminals.referencia)
    assert [TERMINAL] == [t.smartpos_id for t in terminals.parse()]
    assert TERMINAL == json.loads(terminals.content)["smartpos"][0]["smartposId"]
    assert isinstance(refund.parse(), smartpos.Refund)
    assert refund.referencia == refund.parse().referencia


@pytest.mark.parametrize("raw", [False, True], ids=["plain", "raw"])
@pytest.mark.asyncio
async def test_raw_and_plain_raise_the_same_outcome_unknown(
    make_client: Callable[..., Any], service: Recorder, raw: bool
) -> None:
    """A 500 after the service accepted is an unknown outcome through with_raw_response too."""
    client = make_client(max_retries=0)
    service.sandbox.fail_next("payments", "500 after-accept")
    payments = client.payments.with_raw_response if raw else client.payments

    with pytest.raises(smartpos.OutcomeUnknownError) as caught:
        await run(payments.create, **PAYMENT)

    assert [caught.value.referencia] == [p.referencia for p in service.sandbox.payments]


@pytest.mark.parametrize("raw", [False, True], ids=["plain", "raw"])
@pytest.mark.asyncio
async def test_raw_and_plain_raise_the_same_refusal(
    make_client: Callable[..., Any], raw: bool
) -> None:
    """A refusal of the service is the same APIError subclass either way."""
    client = make_client()
    payments = client.payments.with_raw_response if raw else client.payments

    with pytest.raises(smartpos.SmartposNaoEncontradoError):
        await run(payments.create, **{**PAYMENT, "smartpos_id": "SP-NOBODY"})


@pytest.mark.asyncio
async def test_raw_response_with_a_store_is_journaled_as_the_plain_call(
    make_client: Callable[..., Any], service: Recorder
) -> None:
    """The raw call journals the same answer; the same referencia again sends nothing and
    gives the journaled answer (attempts 0, no elapsed)."""
    client = make_client(store="memory:")
    referencia = smartpos.new_referencia()

    first = await run(client.payments.with_raw_response.create, **PAYMENT, referencia=referencia)
    again = await run(client.payments.with_raw_response.create, **PAYMENT, referencia=referencia)
    plain = await run(client.payments.create, **PAYMENT, referencia=referencia)

    assert 1 == len(service.requests)
    assert "accepted" == client._store.operation(referencia).state
    assert (0, None, 202) == (again.attempts, again.elapsed, again.status_code)
    assert first.request_id == again.request_id
    assert json.loads(first.content) == json.loads(again.content)
    assert first.parse() == again.parse() == plain


# --- client.request --------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_request_get_returns_the_parsed_json(
    make_client: Callable[..., Any], service: Recorder
) -> None:
    """GET with params and a timeout: the same key and headers, the answer's JSON."""
    client = make_client().with_options(headers={"X-Trace": "t"})

    body = await run(
        client.request, "GET", f"/v1/customers/{DOC}/smartpos", params={"a": "1"}, timeout=7
    )

    assert TERMINAL == body["smartpos"][0]["smartposId"]
    [request] = service.requests
    assert f"{BASE}/v1/customers/{DOC}/smartpos?a=1" == str(request.url)
    assert (Sandbox.API_KEY, "t") == (request.headers["x-api-key"], request.headers["x-trace"])
    assert httpx.Timeout(7).as_dict() == request.extensions["timeout"]
    assert b"" == request.content


@pytest.mark.asyncio
async def test_request_logs_mask_the_customers_document(
    make_client: Callable[..., Any], service: Recorder, caplog: pytest.LogCaptureFixture
) -> None:
    """A customer path given to request() is logged masked, by the SDK and by httpx."""
    caplog.set_level(logging.INFO)
    client = make_client()

    await run(client.request, "GET", f"/v1/customers/{DOC}/smartpos", params={"q": "1"})

    assert DOC not in caplog.text
    assert "/v1/customers/529.***.***-25/smartpos -> 200" in caplog.text
    assert [DOC] == [r.url.path.split("/")[3] for r in service.requests]


@pytest.mark.asyncio
async def test_request_get_is_retried(make_client: Callable[..., Any], service: Recorder) -> None:
    """A GET is safe to repeat: a 502 is retried."""
    client = make_client(retry_backoff=0)
    service.sandbox.fail_next("terminals", "502")

    body = await run(client.request, "get", f"/v1/customers/{DOC}/smartpos")

    assert 2 == len(service.requests)
    assert TERMINAL == body["smartpos"][0]["smartposId"]


@pytest.mark.asyncio
async def test_request_post_with_a_referencia_resends_the_same_bytes(
    make_client: Callable[..., Any], service: Recorder
) -> None:
    """A POST whose JSON carries a referencia is an operation: retries resend its bytes."""
    client = make_client(retry_backoff=0)
    referencia = smartpos.new_referencia()
    service.sandbox.fail_next("payments", "500", times=2)

    body = await run(
        client.request, "POST", "/v1/payments", json={"referencia": referencia, **PAYMENT_JSON}
    )

    assert referencia == body["referencia"]
    assert 3 == len(service.requests)
    assert 1 == len({r.content for r in service.requests})
    assert referencia == json.loads(service.requests[0].content)["referencia"]
    assert [referencia] == [p.referencia for p in service.sandbox.payments]


@pytest.mark.asyncio
async def test_request_post_with_a_referencia_in_doubt_is_an_unknown_outcome(
    make_client: Callable[..., Any], service: Recorder
) -> None:
    """Retries run out after the service accepted: OutcomeUnknownError with the referencia."""
    client = make_client(retry_backoff=0, max_retries=1)
    referencia = smartpos.new_referencia()
    service.sandbox.fail_next("payments", "500 after-accept", times=2)

    with pytest.raises(smartpos.OutcomeUnknownError) as caught:
        await run(
            client.request, "POST", "/v1/payments", json={"referencia": referencia, **PAYMENT_JSON}
        )

    assert referencia == caught.value.referencia
    assert 1 == len({r.content for r in service.requests})


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
@pytest.mark.asyncio
async def test_request_that_changes_something_without_referencia_is_not_resent(
    make_client: Callable[..., Any], service: Recorder, method: str
) -> None:
    """Without a referencia nothing tells a duplicate apart: a 503 is not retried, a 429 is
    (it proves the request was not taken)."""
    client = make_client(retry_backoff=0)
    answers = iter([httpx.Response(503), httpx.Response(429), httpx.Response(200, json=[1])])
    service.answer = lambda request: next(answers)

    with pytest.raises(smartpos.APIError) as caught:
        await run(client.request, method, "/v1/new-thing", json={"a": 1})
    assert (503, 1) == (caught.value.status_code, len(service.requests))
    assert [1] == await run(client.request, method, "/v1/new-thing", json={"a": 1})
    assert 3 == len(service.requests)


@pytest.mark.asyncio
async def test_request_post_with_a_store_is_journaled_and_reconciled(
    make_client: Callable[..., Any], service: Recorder
) -> None:
    """A journaled request: kind 'request'; the same referencia again sends nothing; an
    unknown one is settled by reconcile with the same bytes."""
    client = make_client(store="memory:", retry_backoff=0, max_retries=0)
    store = client._store
    first, second = smartpos.new_referencia(), smartpos.new_referencia()

    body = await run(
        client.request, "POST", "/v1/payments", json={"referencia": first, **PAYMENT_JSON}
    )
    again = await run(
        client.request, "POST", "/v1/payments", json={"referencia": first, **PAYMENT_JSON}
    )
    service.sandbox.fail_next("payments", "500 after-accept")
    with pytest.raises(smartpos.OutcomeUnknownError):
        await run(
            client.request, "POST", "/v1/payments", json={"referencia": second, **PAYMENT_JSON}
        )
    unknown = store.operation(second)
    settled = await run(client.reconcile, second)

    assert body == again == store.operation(first).result
    assert ("request", "accepted") == (store.operation(first).kind, store.operation(first).state)
    assert ("request", "unknown") == (unknown.kind, unknown.state)
    assert "accepted" == settled.state
    assert [service.requests[1].content] * 2 == [r.content for r in service.requests[1:]]
    assert 3 == len(service.requests)
    assert [first, second] == [p.referencia for p in service.sandbox.payments]


@pytest.mark.parametrize(
    ("args", "kwargs", "campo"),
    [
        (("TRACE", "/v1/x"), {}, "method"),
        ((5, "/v1/x"), {}, "method"),
        (("GET", "v1/x"), {}, "path"),
        (("GET", "//evil.invalid/x"), {}, "path"),
        (("GET", "/v1/x?a=1"), {}, "path"),
        (("GET", "/v1/x y"), {}, "path"),
        (("GET", "/v1/x"), {"params": ["a"]}, "params"),
        (("POST", "/v1/x"), {"json": {"a": object()}}, "json"),
        (("POST", "/v1/x"), {"json": {"a": math.nan}}, "json"),
        (("POST", "/v1/x"), {"json": {"referencia": "not-a-uuid"}}, "referencia"),
        (("GET", "/v1/x"), {"timeout": 0}, "timeout"),
    ],
    ids=repr,
)
@pytest.mark.asyncio
async def test_request_refuses_bad_arguments_before_sending(
    make_client: Callable[..., Any],
    service: Recorder,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    campo: str,
) -> None:
    """A bad method, path, params, JSON, referencia or timeout: ValidationError, nothing sent."""
    client = make_client()

    with pytest.raises(smartpos.ValidationError) as caught:
        await run(client.request, *args, **kwargs)

    assert campo == caught.value.campo
    assert [] == service.requests


# --- retry-after-ms: the core, without any client ---------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1500", 1.5),
        (" 250 ", 0.25),
        ("0", 0.0),
        ("12.5", 0.0125),
        (None, None),
        ("", None),
        ("soon", None),
        ("-5", None),
        ("nan", None),
        ("inf", None),
    ],
)
def test_parse_retry_after_ms(value: str | None, expected: float | None) -> None:
    """Milliseconds as seconds; anything unreadable is None."""
    assert expected == _core.parse_retry_after_ms(value)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after-ms": "1500", "retry-after": "20"}, 1.5),
        ({"retry-after-ms": "later", "retry-after": "2"}, 2.0),
        ({"retry-after": "3"}, 3.0),
        ({"retry-after-ms": "3600000"}, _core.MAX_RETRY_AFTER),
        ({"retry-after": "3600"}, _core.MAX_RETRY_AFTER),
        ({}, None),
    ],
)
def test_retry_after_prefers_milliseconds_and_caps_both(
    headers: dict[str, str], expected: float | None
) -> None:
    """retry-after-ms wins when readable; either is capped at MAX_RETRY_AFTER."""
    assert expected == _core.retry_after(httpx.Headers(headers))


def _attempts(retry_backoff: float) -> _core.Attempts[Any]:
    config = _config.Config.create(
        api_key=API_KEY,
        base_url="https://api.smartpos.test",
        timeout=None,
        max_retries=2,
        retry_backoff=retry_backoff,
        strict_referencia=True,
    )
    call = _calls.terminals_call(config, documento_cliente=DOC)
    attempts = _core.Attempts(config, call, rng=random.Random(0))
    attempts.sending()
    return attempts


@pytest.mark.parametrize("status", [429, 503])
def test_the_retry_decision_honours_retry_after_ms(status: int) -> None:
    """A 429/503 with retry-after-ms waits that long (capped), not the backoff."""
    attempts = _attempts(retry_backoff=0.5)

    step = attempts.answered(httpx.Response(status, headers={"retry-after-ms": "1200"}))

    assert _core.Retry(1.2) == step


def test_retry_after_ms_is_capped_in_the_retry_decision() -> None:
    """A huge retry-after-ms waits MAX_RETRY_AFTER at most."""
    attempts = _attempts(retry_backoff=0.5)

    step = attempts.answered(httpx.Response(429, headers={"retry-after-ms": "999999999"}))

    assert _core.Retry(_core.MAX_RETRY_AFTER) == step


def test_retry_after_ms_is_ignored_when_backoff_is_off() -> None:
    """retry_backoff=0 retries at once, retry-after-ms included (as Retry-After)."""
    attempts = _attempts(retry_backoff=0)

    step = attempts.answered(httpx.Response(429, headers={"retry-after-ms": "1200"}))

    assert _core.Retry(0.0) == step
