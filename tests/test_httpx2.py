"""httpx2's clients and transports, beside httpx in one process: the case of a FastAPI app.

Each failure an httpx2 transport can raise is classified exactly as httpx's exception of the
same name (a differential test: the same scenario with each library, the same outcome), and
requests are built by the library that sends them. The whole client suite also runs with
httpx2 standing in for httpx (``scripts/test.sh``: ``scripts/on_httpx2.py``).
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import json
import logging
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from types import ModuleType
from typing import Any

import httpx
import pytest
import pytest_asyncio

import smartpos
from client_cases import ACCEPTANCE_JSON, API_KEY, BASE_URL, CPF, REF, SDK
from smartpos.testing import Sandbox

httpx2 = pytest.importorskip("httpx2")

PAYMENT = {"documento_cliente": CPF, "valor_centavos": 1590, "smartpos_id": "SP-1"}
LIBRARIES = {"httpx": httpx, "httpx2": httpx2}

#: Every exception a transport may raise while sending, by name (both libraries have them).
FAILURES = [
    "ConnectError",
    "ConnectTimeout",
    "PoolTimeout",
    "ReadTimeout",
    "WriteTimeout",
    "ReadError",
    "WriteError",
    "RemoteProtocolError",
    "CloseError",
    "UnsupportedProtocol",
    "LocalProtocolError",
    "ProxyError",
]


#: The user's own clients made by a test, closed after it (the SDK leaves them open).
_users_clients: list[Any] = []


@pytest_asyncio.fixture(autouse=True)
async def _close_users_clients() -> AsyncIterator[None]:
    yield
    while _users_clients:
        http = _users_clients.pop()
        if hasattr(http, "aclose"):
            await http.aclose()
        else:
            http.close()


def users_client(library: ModuleType, flavour: str, **options: Any) -> Any:
    """``library``'s Client or AsyncClient, closed after the test."""
    http = (library.Client if flavour == "sync" else library.AsyncClient)(**options)
    _users_clients.append(http)
    return http


def build(
    flavour: str,
    library: ModuleType,
    handler: Callable[[Any], Any],
    *,
    via: str,
    **options: Any,
) -> SDK:
    """A client of ``flavour`` whose requests ``handler`` answers, through ``library``'s
    MockTransport given as ``transport=`` or inside ``library``'s own client."""
    transport = library.MockTransport(handler)
    cls = smartpos.Client if flavour == "sync" else smartpos.AsyncClient
    options = {"api_key": API_KEY, "base_url": BASE_URL, "retry_backoff": 0, **options}
    if via == "transport":
        return SDK(cls(transport=transport, **options))
    return SDK(cls(http_client=users_client(library, flavour, transport=transport), **options))


def raising(library: ModuleType, name: str, seen: list[Any]) -> Callable[[Any], Any]:
    def handler(request: Any) -> Any:
        seen.append(request)
        raise getattr(library, name)("boom", request=request)

    return handler


async def outcome(sdk: SDK, resource: str, method: str, **kwargs: Any) -> tuple[str, ...]:
    """What a caller sees: the exception's class, its last error's class, the attempts."""
    try:
        async with sdk:
            await sdk.call(resource, method, **kwargs)
    except smartpos.SmartPOSError as exc:
        last = getattr(exc, "last_error", None)
        return (type(exc).__name__, type(last).__name__, str(getattr(exc, "attempts", "-")))
    return ("returned",)


@pytest.mark.parametrize("via", ["transport", "http_client"])
@pytest.mark.parametrize("name", FAILURES)
@pytest.mark.parametrize(("resource", "kwargs"), [("payments", PAYMENT), ("terminals", {})])
@pytest.mark.asyncio
async def test_failures_are_classified_as_httpx_classifies_them(
    flavour: str, via: str, name: str, resource: str, kwargs: dict[str, Any]
) -> None:
    """An httpx2 failure gives the very outcome (class, last error, attempts) httpx's gives."""
    results = {}
    for label, library in LIBRARIES.items():
        seen: list[Any] = []
        sdk = build(flavour, library, raising(library, name, seen), via=via, max_retries=1)
        method = "list" if resource == "terminals" else "create"
        arguments = kwargs or {"documento_cliente": CPF}
        results[label] = (await outcome(sdk, resource, method, **arguments), len(seen))
        assert all(isinstance(request, library.Request) for request in seen)

    assert results["httpx"] == results["httpx2"]


@pytest.mark.parametrize("via", ["transport", "http_client"])
@pytest.mark.asyncio
async def test_httpx2_connect_error_was_not_sent_and_read_timeout_is_unknown(
    flavour: str, via: str
) -> None:
    """The anchors of the differential test: nothing sent is a TransportError after the
    retries; a payment's read timeout is an unknown outcome."""
    seen: list[Any] = []
    sdk = build(flavour, httpx2, raising(httpx2, "ConnectError", seen), via=via)
    with pytest.raises(smartpos.TransportError) as refused:
        async with sdk:
            await sdk.call("payments", "create", **PAYMENT)
    assert not isinstance(refused.value, smartpos.OutcomeUnknownError)
    assert 3 == len(seen)

    sdk = build(flavour, httpx2, raising(httpx2, "ReadTimeout", []), via=via)
    with pytest.raises(smartpos.OutcomeUnknownError) as unknown:
        async with sdk:
            await sdk.call("payments", "create", **PAYMENT)
    assert isinstance(unknown.value.last_error, smartpos.TimeoutError)


@pytest.mark.asyncio
async def test_users_httpx2_client_builds_the_requests(flavour: str) -> None:
    """A user's httpx2 client builds each request: its default headers and its timeout are
    used, the SDK's headers win, and the answer is read into the result."""
    seen: list[Any] = []

    def handler(request: Any) -> Any:
        seen.append(request)
        return httpx2.Response(202, json={**ACCEPTANCE_JSON, "referencia": REF})

    transport = httpx2.MockTransport(handler)
    http = users_client(
        httpx2, flavour, transport=transport, headers={"x-tenant": "loja-7"}, timeout=3.5
    )
    cls = smartpos.Client if flavour == "sync" else smartpos.AsyncClient
    async with SDK(cls(api_key=API_KEY, base_url=BASE_URL, http_client=http)) as sdk:
        acceptance = await sdk.call("payments", "create", **PAYMENT, referencia=REF)

    assert REF == acceptance.referencia
    (request,) = seen
    assert isinstance(request, httpx2.Request)
    assert "loja-7" == request.headers["x-tenant"]
    assert API_KEY == request.headers["x-api-key"]
    assert httpx.Timeout(3.5).as_dict() == request.extensions["timeout"]
    assert REF == json.loads(request.content)["referencia"]
    assert http.is_closed is False


@pytest.mark.asyncio
async def test_httpx2_transport_gets_an_httpx2_client(flavour: str) -> None:
    """transport= of httpx2's: the SDK builds its own client with httpx2, times out as told."""
    seen: list[Any] = []

    def handler(request: Any) -> Any:
        seen.append(request)
        return httpx2.Response(200, json=[{"smartposId": "SP-1"}])

    sdk = build(flavour, httpx2, handler, via="transport", timeout=httpx2.Timeout(2.0))
    async with sdk:
        (terminal,) = await sdk.call("terminals", "list", documento_cliente=CPF)

    assert "SP-1" == terminal.smartpos_id
    assert isinstance(seen[0], httpx2.Request)
    assert httpx.Timeout(2.0).as_dict() == seen[0].extensions["timeout"]


@pytest.mark.asyncio
async def test_raise_for_status_hook_of_an_httpx2_client_gives_the_api_error(
    flavour: str,
) -> None:
    """httpx2's HTTPStatusError from a user's hook is classified by its response's body."""
    body = {"erro": {"codigo": "CAMPO_INVALIDO", "mensagem": "valor", "campo": "valorCentavos"}}
    transport = httpx2.MockTransport(lambda request: httpx2.Response(400, json=body))

    def hook(response: Any) -> None:
        response.raise_for_status()

    async def ahook(response: Any) -> None:
        response.raise_for_status()

    hooks = {"response": [hook if flavour == "sync" else ahook]}
    http = users_client(httpx2, flavour, transport=transport, event_hooks=hooks)
    cls = smartpos.Client if flavour == "sync" else smartpos.AsyncClient
    with pytest.raises(smartpos.CampoInvalidoError) as info:
        async with SDK(cls(api_key=API_KEY, base_url=BASE_URL, http_client=http)) as sdk:
            await sdk.call("payments", "create", **PAYMENT)

    assert "valorCentavos" == info.value.campo


@pytest.mark.asyncio
async def test_httpx2_objects_of_the_other_flavour_are_refused(flavour: str) -> None:
    """An httpx2 client or transport of the other flavour is a ConfigurationError."""
    cls = smartpos.Client if flavour == "sync" else smartpos.AsyncClient
    other_client = users_client(httpx2, "async" if flavour == "sync" else "sync")
    with pytest.raises(smartpos.ConfigurationError, match="http_client must be"):
        cls(api_key=API_KEY, base_url=BASE_URL, http_client=other_client)

    class SyncOnly(httpx2.BaseTransport):
        def handle_request(self, request: Any) -> Any:
            return httpx2.Response(200)

    class AsyncOnly(httpx2.AsyncBaseTransport):
        async def handle_async_request(self, request: Any) -> Any:
            return httpx2.Response(200)

    wrong = AsyncOnly() if flavour == "sync" else SyncOnly()
    with pytest.raises(smartpos.ConfigurationError, match="transport= of"):
        cls(api_key=API_KEY, base_url=BASE_URL, transport=wrong)


@pytest.mark.asyncio
async def test_httpx2_log_line_masks_the_document(
    flavour: str, caplog: pytest.LogCaptureFixture
) -> None:
    """httpx2 logs every URL under its own logger: the listing's document is masked there."""
    caplog.set_level(logging.INFO)
    sdk = build(flavour, httpx2, lambda request: httpx2.Response(200, json=[]), via="http_client")

    async with sdk:
        await sdk.call("terminals", "list", documento_cliente=CPF)

    lines = [r.getMessage() for r in caplog.records if r.name == "httpx2"]
    assert 1 == len(lines)
    assert "/v1/customers/123.***.***-09/smartpos" in lines[0]
    assert CPF not in caplog.text


# --- real sockets ----------------------------------------------------------------------------


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections (the kernel's backlog) and never answers."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield listener.getsockname()[1]


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def real(flavour: str, base_url: str, **options: Any) -> SDK:
    http = users_client(httpx2, flavour, **options)
    cls = smartpos.Client if flavour == "sync" else smartpos.AsyncClient
    return SDK(
        cls(
            api_key=Sandbox.API_KEY,
            base_url=base_url,
            http_client=http,
            retry_backoff=0,
            max_retries=1,
        )
    )


@pytest.mark.slow
@pytest.mark.asyncio
async def test_real_sockets_through_an_httpx2_client(
    flavour: str, silent_port: int, closed_port: int
) -> None:
    """Against the sandbox served on 127.0.0.1, a refused port and a silent one, an httpx2
    client gives an acceptance, a TransportError and an unknown outcome."""
    payment = {
        "documento_cliente": Sandbox.DOCUMENTO,
        "valor_centavos": 1590,
        "smartpos_id": Sandbox.SMARTPOS_ID,
    }
    sandbox = Sandbox()
    with sandbox.serve() as base_url:
        async with real(flavour, base_url) as sdk:
            acceptance = await sdk.call("payments", "create", **payment)
    assert "processando" == acceptance.status

    with pytest.raises(smartpos.TransportError) as refused:
        async with real(flavour, f"http://127.0.0.1:{closed_port}") as sdk:
            await sdk.call("payments", "create", **payment)
    assert not isinstance(refused.value, smartpos.OutcomeUnknownError)

    with pytest.raises(smartpos.OutcomeUnknownError) as unknown:
        async with real(flavour, f"http://127.0.0.1:{silent_port}", timeout=0.2) as sdk:
            await sdk.call("payments", "create", **payment)
    assert isinstance(unknown.value.last_error, smartpos.TimeoutError)


def test_import_smartpos_does_not_import_httpx2() -> None:
    """Building clients and classifying a failure never import httpx2: only a user's own
    httpx2 object brings it in."""
    code = (
        "import sys, httpx, smartpos\n"
        "def fail(request): raise httpx.ReadTimeout('x', request=request)\n"
        "client = smartpos.Client(api_key='k-123456', base_url='http://h', retry_backoff=0,"
        " transport=httpx.MockTransport(fail))\n"
        "try: client.terminals.list(documento_cliente='52998224725')\n"
        "except smartpos.TimeoutError: pass\n"
        "smartpos.AsyncClient(api_key='k-123456', base_url='http://h')\n"
        "print('httpx2' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert "False" == result.stdout.strip()


def test_runs_on_httpx2_alone_when_httpx_cannot_be_imported() -> None:
    """After ``httpx2.alias_httpx()``, smartpos works with httpx and httpcore not importable
    at all: the "httpx2 only" recipe of docs/integrations.md."""
    code = (
        "import importlib.abc, sys\n"
        "class Block(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.partition('.')[0] in ('httpx', 'httpcore'):\n"
        "            raise ImportError(name + ' is not installed')\n"
        "sys.meta_path.insert(0, Block())\n"
        "import httpx2\n"
        "httpx2.alias_httpx()\n"
        "import smartpos\n"
        "answer = lambda request: httpx2.Response(200, json=[{'smartposId': 'SP-1'}])\n"
        "with smartpos.Client(api_key='k-123456', base_url='http://h',"
        " transport=httpx2.MockTransport(answer)) as client:\n"
        "    (terminal,) = client.terminals.list(documento_cliente='52998224725')\n"
        "print(terminal.smartpos_id, type(client._http).__module__)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert "SP-1 httpx2" == result.stdout.strip()
