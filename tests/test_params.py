"""One parameter list per endpoint: the ``TypedDict`` of ``_params`` is what each method takes.

The methods take ``**params: Unpack[PaymentParams]``; these tests show what a caller still
gets from that: every keyword in the signature (with its default), a ``TypeError`` for a
misspelt or missing keyword before anything is sent (with the closest name), a dict typed
as the endpoint's params passed with ``**``, and one text of each keyword's documentation in
every method's ``Args:`` (``scripts/params_docs.py``).
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import inspect
import sys
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import smartpos
from client_cases import SDK, in_the_tests_loop
from smartpos import _async_client, _params, _sync_client
from smartpos.testing import Sandbox

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import params_docs  # noqa: E402

#: The resource classes of each client, by the client's attribute.
RESOURCES = {
    client: {
        "qrcodes": getattr(module, prefix + "QRCodes"),
        "payments": getattr(module, prefix + "Payments"),
        "refunds": getattr(module, prefix + "Refunds"),
        "print_jobs": getattr(module, prefix + "PrintJobs"),
    }
    for client, module, prefix in [
        (smartpos.Client, _sync_client, ""),
        (smartpos.AsyncClient, _async_client, "Async"),
    ]
}

#: Each params class and the methods that take it, on both clients.
TAKERS: dict[type, list[tuple[str, str]]] = {
    smartpos.QRCodeParams: [("qrcodes", "create"), ("qrcodes", "create_and_wait")],
    smartpos.PaymentParams: [("payments", "create"), ("payments", "create_and_wait")],
    smartpos.RefundParams: [("refunds", "create")],
    smartpos.PrintJobParams: [("print_jobs", "create"), ("print_jobs", "create_and_wait")],
}
PAYMENT: smartpos.PaymentParams = {
    "documento_cliente": Sandbox.DOCUMENTO,
    "valor_centavos": 1590,
    "smartpos_id": Sandbox.SMARTPOS_ID,
}


class Recorder:
    """The sandbox as the service; keeps every request that reached it."""

    def __init__(self) -> None:
        self.sandbox = Sandbox()
        self.requests: list[httpx.Request] = []

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.sandbox.handle(request)


@pytest.fixture
def service() -> Iterator[Recorder]:
    recorder = Recorder()
    with recorder.sandbox:
        yield recorder


@pytest.fixture
def client(make_sdk: Callable[..., SDK], service: Recorder) -> Any:
    return make_sdk(
        api_key=Sandbox.API_KEY,
        base_url="http://sandbox.invalid",
        transport=httpx.MockTransport(service.handle),
    ).client


async def run(function: Callable[..., Any], /, **kwargs: Any) -> Any:
    with in_the_tests_loop():
        result = function(**kwargs)
    if inspect.isawaitable(result):
        result = await result
    return result


@pytest.mark.parametrize("kind", list(TAKERS), ids=lambda kind: kind.__name__)
@pytest.mark.parametrize("client_class", [smartpos.Client, smartpos.AsyncClient])
def test_each_method_shows_every_keyword_of_its_params(kind: type, client_class: type) -> None:
    """inspect.signature (help(), IDEs at run time) lists the TypedDict's keys, each with its
    default, before the method's own keywords; nothing is left as ``**params``."""
    hints = kind.__annotations__
    for resource, method in TAKERS[kind]:
        function = getattr(RESOURCES[client_class][resource], method)
        parameters = inspect.signature(function).parameters
        names = list(parameters)

        assert names[1 : 1 + len(hints)] == list(hints), f"{resource}.{method}"
        assert not [p for p in parameters.values() if p.kind is p.VAR_KEYWORD]
        for name in hints:
            required = name in kind.__required_keys__  # type: ignore[attr-defined]
            assert required == (parameters[name].default is inspect.Parameter.empty)
    assert smartpos.ModoExecucao.IMEDIATO == (
        inspect.signature(RESOURCES[smartpos.Client]["payments"].create)
        .parameters["modo_execucao"]
        .default
    )


@pytest.mark.asyncio
async def test_a_misspelt_keyword_is_a_type_error_naming_the_closest_and_sends_nothing(
    client: Any, service: Recorder
) -> None:
    """``valr_centavos`` is refused as Python refuses an unknown keyword, with a hint."""
    for method in (client.payments.create, client.payments.with_raw_response.create):
        with pytest.raises(TypeError) as info:
            await run(method, **PAYMENT, valr_centavos=1)

        assert "'valr_centavos'" in str(info.value)
        assert "'valor_centavos'" in str(info.value)
    with pytest.raises(TypeError, match=r"'zzz'.*PrintJobParams.*documento_cliente"):
        await run(
            client.print_jobs.create,
            documento_cliente=Sandbox.DOCUMENTO,
            smartpos_id=Sandbox.SMARTPOS_ID,
            conteudo="x",
            zzz=1,
        )
    assert [] == service.requests


@pytest.mark.asyncio
async def test_a_missing_required_keyword_is_a_type_error_and_sends_nothing(
    client: Any, service: Recorder
) -> None:
    with pytest.raises(TypeError, match=r"'valor_centavos'.*PaymentParams"):
        await run(client.payments.create, documento_cliente=Sandbox.DOCUMENTO)
    with pytest.raises(TypeError, match="'pagamento_original'"):
        await run(
            client.refunds.create,
            documento_cliente=Sandbox.DOCUMENTO,
            smartpos_id=Sandbox.SMARTPOS_ID,
            valor_centavos=1,
        )
    assert [] == service.requests


def test_the_keyword_errors_speak_the_clients_language() -> None:
    config = smartpos._config.Config.create(
        api_key="k-123456",
        base_url="http://h",
        timeout=None,
        max_retries=0,
        retry_backoff=0,
        strict_referencia=True,
        lang="pt_BR",
    )
    with pytest.raises(TypeError, match="você quis dizer 'referencia'"):
        smartpos._calls.qrcode_call(config, {"documento_cliente": "1", "referncia": "x"})  # type: ignore[typeddict-unknown-key]


@pytest.mark.asyncio
async def test_a_params_dict_is_passed_with_stars_and_omitted_keys_take_their_defaults(
    client: Any, service: Recorder
) -> None:
    """A dict typed as ``PaymentParams`` is a call's arguments; omitted modo_execucao is
    ``imediato`` and omitted optional keys are not sent."""
    acceptance = await run(client.payments.create, **PAYMENT)

    [request] = service.requests
    body = request.content.decode()
    assert '"modoExecucao":"imediato"' in body.replace(" ", "")
    assert "formaPagamento" not in body
    assert acceptance.referencia in body


def test_complete_fills_defaults_and_keeps_given_values() -> None:
    done = _params.complete(smartpos.PaymentParams, {"documento_cliente": "1", "valor_centavos": 2})

    assert smartpos.ModoExecucao.IMEDIATO == done["modo_execucao"]
    assert None is done["comanda"]
    assert 2 == done["valor_centavos"]
    assert set(typing.get_type_hints(smartpos.PaymentParams)) == set(done)


# --- one text of each keyword's documentation ----------------------------------------------


@pytest.mark.parametrize("client_class", [smartpos.Client, smartpos.AsyncClient])
def test_every_method_documents_its_params_with_the_text_of_params_py(client_class: type) -> None:
    """Each ``Args:`` of a ``**params`` method starts with exactly the TypedDict's entries."""
    documented = params_docs.documented_keys()
    for kind, takers in TAKERS.items():
        for resource, method in takers:
            doc = inspect.getdoc(getattr(RESOURCES[client_class][resource], method)) or ""
            expected = "\n".join(
                f"    {line}" for entry in documented[kind.__name__].values() for line in entry
            )
            assert f"Args:\n{expected}\n" in doc, f"{resource}.{method}"


def test_fill_args_rewrites_the_keys_and_keeps_the_methods_own_entries() -> None:
    """A stale or missing key entry is rewritten from ``_params``; ``timeout`` stays after."""
    source = (
        "class X:\n"
        "    async def create(self, *, timeout: float = 1.0, **params: Unpack[QRCodeParams]):\n"
        '        """Do it.\n'
        "\n"
        "        Args:\n"
        "            referencia: stale text.\n"
        "            timeout: Seconds.\n"
        "\n"
        "        Returns:\n"
        "            Something.\n"
        '        """\n'
    )

    filled = params_docs.fill_args(source)

    assert (
        "        Args:\n"
        "            documento_cliente: The customer's CPF or CNPJ, masked or not.\n"
        "            referencia: Echoed back; default a new ``smartpos.new_referencia()``.\n"
        "            timeout: Seconds.\n"
        "\n"
        "        Returns:\n"
    ) in filled
    assert filled == params_docs.fill_args(filled)
