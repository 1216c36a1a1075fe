"""Money safety and secrets across the whole call path, sync and async."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

import smartpos
from smartpos import _transports

KEY = "sk-very-secret"
CPF = "52998224725"

Handler = Callable[[httpx.Request], httpx.Response]


def scripted(*steps: Any) -> Handler:
    """A handler answering each request with the next step (a Response or an exception)."""
    queue: Iterator[Any] = iter(steps)

    def handle(request: httpx.Request) -> httpx.Response:
        step = next(queue)
        if isinstance(step, Exception):
            raise step
        return step

    return handle


def pay(handler: Handler, *, use_async: bool) -> smartpos.Acceptance:
    """One payments.create through the chosen client over a MockTransport."""
    transport = httpx.MockTransport(handler)
    kwargs: dict[str, Any] = {
        "documento_cliente": CPF,
        "valor_centavos": 500,
        "smartpos_id": "SP-1",
    }
    if use_async:

        async def run() -> smartpos.Acceptance:
            async with smartpos.AsyncClient(
                api_key=KEY, base_url="http://svc.invalid", transport=transport, retry_backoff=0
            ) as client:
                return await client.payments.create(**kwargs)

        return asyncio.run(run())
    with smartpos.Client(
        api_key=KEY, base_url="http://svc.invalid", transport=transport, retry_backoff=0
    ) as client:
        return client.payments.create(**kwargs)


def erro(status: int, codigo: str) -> httpx.Response:
    """An error answer in the service's shape."""
    return httpx.Response(status, json={"erro": {"codigo": codigo, "mensagem": "m", "acao": "a"}})


@pytest.fixture(params=[False, True], ids=["sync", "async"])
def use_async(request: pytest.FixtureRequest) -> bool:
    """Run the test with Client and with AsyncClient."""
    return bool(request.param)


@pytest.mark.parametrize(
    ("status", "codigo"),
    [
        (401, "API_KEY_INVALIDA"),
        (403, "CLIENTE_NAO_AUTORIZADO"),
        (404, "SMARTPOS_NAO_ENCONTRADO"),
        (400, "DOCUMENTO_CLIENTE_INVALIDO"),
        (400, "WEBHOOK_NAO_CONFIGURADO"),
        (422, "QUALQUER"),
    ],
)
def test_a_state_dependent_refusal_after_a_timeout_is_unknown(
    use_async: bool, status: int, codigo: str
) -> None:
    """After an attempt that may have been accepted, a refusal that can follow a change of
    state (a rotated key, an unlinked terminal) is an unknown outcome, never a rejection."""
    handler = scripted(httpx.ReadTimeout("slow"), erro(status, codigo))
    with pytest.raises(smartpos.OutcomeUnknownError) as info:
        pay(handler, use_async=use_async)
    assert isinstance(info.value.last_error, smartpos.APIError)
    assert (info.value.last_error.status_code, info.value.last_error.codigo) == (status, codigo)


@pytest.mark.parametrize(
    ("codigo", "cls"),
    [
        ("CAMPO_INVALIDO", smartpos.CampoInvalidoError),
        ("VALOR_INVALIDO", smartpos.ValorInvalidoError),
        ("FORMA_PAGAMENTO_INVALIDA", smartpos.FormaPagamentoInvalidaError),
    ],
)
def test_a_verdict_on_the_request_after_a_timeout_is_a_rejection(
    use_async: bool, codigo: str, cls: type[smartpos.APIError]
) -> None:
    """A 400 that judges the request's own bytes refused the first attempt too: rejected."""
    handler = scripted(httpx.ReadTimeout("slow"), erro(400, codigo))
    with pytest.raises(cls):
        pay(handler, use_async=use_async)


def test_the_api_key_is_not_readable_from_an_api_error(use_async: bool) -> None:
    """exc.response.request carries no API key once the error reaches the caller."""
    with pytest.raises(smartpos.APIError) as info:
        pay(scripted(erro(404, "SMARTPOS_NAO_ENCONTRADO")), use_async=use_async)
    response = info.value.response
    assert response is not None
    headers = response.request.headers
    assert headers["x-api-key"] == "[redacted]"
    assert KEY not in repr(headers)
    assert KEY not in str(info.value)


def test_the_api_key_is_not_readable_from_a_transport_failure(use_async: bool) -> None:
    """The httpx exception chained under TransportError carries no API key either."""

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    with pytest.raises(smartpos.TransportError) as info:
        pay(refuse, use_async=use_async)
    cause = info.value.__cause__
    assert isinstance(cause, httpx.ConnectError)
    assert cause.request.headers["x-api-key"] == "[redacted]"


def test_the_api_key_is_not_readable_from_an_unknown_outcome(use_async: bool) -> None:
    """OutcomeUnknownError's last error does not expose the key through its response."""
    handler = scripted(erro(500, "ERRO_INTERNO"), erro(500, "ERRO_INTERNO"), erro(502, "X"))
    with pytest.raises(smartpos.OutcomeUnknownError) as info:
        pay(handler, use_async=use_async)
    last = info.value.last_error
    assert isinstance(last, smartpos.APIError)
    assert last.response is not None
    assert KEY not in repr(last.response.request.headers)


PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy")


def test_proxies_in_the_environment_are_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    """With HTTPS_PROXY set, the client's httpx client is built with its proxy mounts."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    options = _transports.client_options(None, asynchronous=False)
    assert options["transport"] is None
    with smartpos.Client(api_key=KEY, base_url="https://svc.invalid") as client:
        mounts = client._http._mounts
    proxies = [getattr(t._pool, "_proxy_url", None) for t in mounts.values() if t is not None]
    assert [url.host for url in proxies if url is not None] == [b"proxy.invalid"]


def test_without_proxies_the_transport_is_lazy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without proxy variables, the default transport is built on the first request."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    sync = _transports.client_options(None, asynchronous=False)["transport"]
    asynchronous = _transports.client_options(None, asynchronous=True)["transport"]
    assert isinstance(sync, _transports.LazyTransport)
    assert isinstance(asynchronous, _transports.AsyncLazyTransport)
