"""Type-checked by pyright (strict) and ``mypy --strict`` in CI, never run.

It proves that users get precise types from the public API: each resource method's result, the
coroutine of the async client, the fields of results and errors. A ``type: ignore`` marks a
call that must be refused; ``warn_unused_ignores`` (mypy --strict) and
``reportUnnecessaryTypeIgnoreComment`` (below) fail if it is ever accepted.
"""

# pyright: reportUnnecessaryTypeIgnoreComment=true

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Awaitable, Coroutine, Mapping
from typing import Any, Literal

import httpx

import smartpos
from smartpos import webhooks

if sys.version_info >= (3, 11):
    from typing import assert_type
else:
    from typing_extensions import assert_type


def check_sync_client(client: smartpos.Client, event: webhooks.PagamentoAprovado) -> None:
    qr = client.qrcodes.create(documento_cliente="123.456.789-09")
    assert_type(qr, smartpos.QRCode)
    assert_type(qr.qr_code, str)
    assert_type(qr.referencia, str)
    assert_type(qr.expires_at, dt.datetime)
    assert_type(qr.is_expired(), bool)
    assert_type(qr.is_expired(now=dt.datetime.now(dt.timezone.utc)), bool)
    assert_type(qr.to_terminal(), str)
    assert_type(qr.http, smartpos.HTTPInfo | None)

    acceptance = client.payments.create(
        documento_cliente="123.456.789-09",
        valor_centavos=1590,
        smartpos_id="SP-1",
        forma_pagamento=smartpos.FormaPagamento.CREDITO,
        parcelas=3,
        parcelamento="estabelecimento",
        modo_execucao="imediato",
        comanda=smartpos.Comanda("Mesa 7", itens=[smartpos.ItemComanda(titulo="Pizza")]),
        comprovante=smartpos.Comprovante(imprimir_cliente=True),
    )
    assert_type(acceptance, smartpos.Acceptance)
    assert_type(acceptance.referencia, str)
    assert_type(acceptance.status, str)
    assert_type(acceptance.smartpos_id, str | None)
    assert_type(acceptance.targets, list[smartpos.Target])
    assert_type(acceptance.targets[0].smartpos_id, str)
    assert_type(acceptance.raw, Mapping[str, Any])

    refund = client.refunds.create(
        documento_cliente="123.456.789-09",
        smartpos_id="SP-1",
        valor_centavos=500,
        pagamento_original=smartpos.PagamentoOriginal("A", "N", "F", "credito"),
    )
    assert_type(refund, smartpos.Refund)
    assert_type(refund.referencia, str)
    assert_type(refund.status, str | None)
    assert_type(client.refunds.create_for(event), smartpos.Refund)
    assert_type(client.refunds.create_for(event, valor_centavos=100), smartpos.Refund)

    assert_type(
        client.print_jobs.create(documento_cliente="1", smartpos_id="SP-1", conteudo=b"x"),
        smartpos.Acceptance,
    )
    terminals = client.terminals.list(documento_cliente="123.456.789-09")
    assert_type(terminals, list[smartpos.Terminal])
    assert_type(terminals[0].smartpos_id, str | None)
    assert_type(terminals[0].raw, Mapping[str, Any])

    # Keyword-only arguments, and money is an int.
    client.terminals.list("123.456.789-09")  # type: ignore[call-arg]
    client.payments.create(documento_cliente="1", valor_centavos=15.9)  # type: ignore[arg-type]

    # One parameter list per endpoint (a TypedDict, ``**params: Unpack[...]``): every keyword
    # is still checked, in create, create_and_wait and with_raw_response alike.
    client.payments.create(documento_cliente="1", valr_centavos=1)  # type: ignore[call-arg]
    client.payments.create(valor_centavos=1590)  # type: ignore[call-arg]
    client.payments.create_and_wait(documento_cliente="1", valor=1)  # type: ignore[call-arg]
    client.print_jobs.create(documento_cliente="1", smartpos_id="S", conteudo=1)  # type: ignore[arg-type]
    client.payments.with_raw_response.create(documento_cliente="1")  # type: ignore[call-arg]
    params: smartpos.PaymentParams = {"documento_cliente": "1", "valor_centavos": 1590}
    params["smartpos_id"] = "SP-1"
    assert_type(client.payments.create(**params, timeout=5.0), smartpos.Acceptance)
    assert_type(
        client.refunds.create(
            documento_cliente="1",
            smartpos_id="SP-1",
            valor_centavos=1,
            pagamento_original=smartpos.PagamentoOriginal("c", "n", "d", "t"),
        ),
        smartpos.Refund,
    )
    client.qrcodes.create_and_wait(documento_cliente="1", show=print, timeout=1.0)


def check_sync_outcomes(client: smartpos.Client, store: webhooks.SQLiteStore) -> None:
    smartpos.Client(api_key="k", base_url="http://h", store=store)
    smartpos.Client(store=webhooks.MemoryStore())
    smartpos.Client(store="sqlite:///inbox.db")  # a store's URL or path: opened by the client
    smartpos.Client(store=42)  # type: ignore[arg-type]

    outcome = client.payments.create_and_wait(
        documento_cliente="1", valor_centavos=1590, smartpos_id="SP-1", timeout=30.0
    )
    assert_type(outcome, webhooks.PagamentoAprovado | webhooks.PagamentoRecusado)
    if isinstance(outcome, webhooks.PagamentoAprovado):
        assert_type(outcome.dados.valor_centavos, int | None)
    printed = client.print_jobs.create_and_wait(
        documento_cliente="1", smartpos_id="SP-1", conteudo=b"x"
    )
    assert_type(printed, webhooks.ImpressaoConcluida | webhooks.ImpressaoFalhou)
    paired = client.qrcodes.create_and_wait(
        documento_cliente="1", show=lambda qr: print(qr.qr_code), timeout=60
    )
    assert_type(paired, webhooks.SmartposIdentificado)
    assert_type(paired.dados.smartpos_id, str)
    assert_type(client.wait("ref", timeout=5.0), webhooks.Event)
    operation = client.reconcile("ref")
    assert_type(operation, webhooks.Operation)
    assert_type(operation.state, Literal["sending", "accepted", "rejected", "unknown", "final"])
    assert_type(operation.acceptance, smartpos.Acceptance | None)
    assert_type(store.operations(final=False), list[webhooks.Operation])
    client.wait("ref")  # type: ignore[call-arg]
    client.wait("ref", 5.0)  # type: ignore[call-arg]


async def check_async_outcomes(client: smartpos.AsyncClient) -> None:
    outcome = await client.payments.create_and_wait(
        documento_cliente="1", valor_centavos=1590, smartpos_id="SP-1"
    )
    assert_type(outcome, webhooks.PagamentoAprovado | webhooks.PagamentoRecusado)
    assert_type(
        await client.print_jobs.create_and_wait(
            documento_cliente="1", smartpos_id="S", conteudo="x"
        ),
        webhooks.ImpressaoConcluida | webhooks.ImpressaoFalhou,
    )
    assert_type(
        await client.qrcodes.create_and_wait(documento_cliente="1"), webhooks.SmartposIdentificado
    )
    assert_type(await client.wait("ref", timeout=5.0), webhooks.Event)
    assert_type(await client.reconcile("ref"), webhooks.Operation)


async def check_async_client(
    client: smartpos.AsyncClient, event: webhooks.PagamentoAprovado
) -> None:
    coroutine: Coroutine[Any, Any, smartpos.Acceptance] = client.payments.create(
        documento_cliente="123.456.789-09", valor_centavos=1590, smartpos_id="SP-1"
    )
    assert_type(await coroutine, smartpos.Acceptance)
    awaitable: Awaitable[smartpos.Acceptance] = client.print_jobs.create(
        documento_cliente="1", smartpos_id="S", conteudo="x"
    )
    assert_type(await awaitable, smartpos.Acceptance)
    # The awaited type is precise: not any result.
    wrong: Awaitable[smartpos.Refund] = client.payments.create(  # type: ignore[assignment]
        documento_cliente="1", valor_centavos=1, smartpos_id="S"
    )
    await wrong
    assert_type(await client.qrcodes.create(documento_cliente="1"), smartpos.QRCode)
    assert_type(
        await client.refunds.create(
            documento_cliente="1",
            smartpos_id="SP-1",
            valor_centavos=1,
            pagamento_original=smartpos.PagamentoOriginal("A", "N", "F", "T"),
        ),
        smartpos.Refund,
    )
    assert_type(await client.refunds.create_for(event), smartpos.Refund)
    assert_type(
        await client.print_jobs.create(documento_cliente="1", smartpos_id="S", conteudo="x"),
        smartpos.Acceptance,
    )
    assert_type(await client.terminals.list(documento_cliente="1"), list[smartpos.Terminal])


def check_sync_call_options(client: smartpos.Client, event: webhooks.PagamentoAprovado) -> None:
    derived = client.with_options(timeout=httpx.Timeout(2.0), max_retries=0, headers={"X-A": "1"})
    assert_type(derived, smartpos.Client)
    client.with_options(retries=1)  # type: ignore[call-arg]
    client.with_options(headers={"X-A": 1})  # type: ignore[dict-item]
    raw = client.payments.with_raw_response.create(
        documento_cliente="123.456.789-09", valor_centavos=100, smartpos_id="SP-1", timeout=2.5
    )
    assert_type(raw, smartpos.RawResponse[smartpos.Acceptance])
    assert_type(raw.parse(), smartpos.Acceptance)
    assert_type(raw.status_code, int)
    assert_type(raw.content, bytes)
    assert_type(raw.elapsed, float | None)
    assert_type(raw.referencia, str | None)
    refund = client.refunds.with_raw_response.create_for(event, timeout=httpx.Timeout(3.0))
    assert_type(refund.parse(), smartpos.Refund)
    terminals = client.terminals.with_raw_response.list(documento_cliente="123.456.789-09")
    assert_type(terminals.parse(), list[smartpos.Terminal])
    client.terminals.with_raw_response.list(documento="x")  # type: ignore[call-arg]
    assert_type(client.request("GET", "/v1/x", params={"a": 1}, timeout=1.0), Any)


async def check_async_call_options(client: smartpos.AsyncClient) -> None:
    assert_type(client.with_options(max_retries=1), smartpos.AsyncClient)
    raw = await client.qrcodes.with_raw_response.create(documento_cliente="1", timeout=1)
    assert_type(raw, smartpos.RawResponse[smartpos.QRCode])
    assert_type(raw.parse(), smartpos.QRCode)
    job = client.print_jobs.with_raw_response.create(
        documento_cliente="1", smartpos_id="SP-1", conteudo=b"x"
    )
    assert_type(await job, smartpos.RawResponse[smartpos.Acceptance])
    assert_type(await client.request("POST", "/v1/x", json={"referencia": "r"}), Any)


def check_clients_are_context_managers() -> None:
    with smartpos.Client(api_key="k", base_url="http://h", timeout=httpx.Timeout(5.0)) as client:
        assert_type(client, smartpos.Client)
    assert_type(smartpos.Client(http_client=httpx.Client()), smartpos.Client)
    smartpos.Client(http_client=httpx.AsyncClient())  # type: ignore[arg-type]


def check_httpx2_objects_are_accepted() -> None:
    import httpx2

    timeout = httpx2.Timeout(5.0)
    assert_type(smartpos.Client(http_client=httpx2.Client(), timeout=timeout), smartpos.Client)
    assert_type(smartpos.AsyncClient(http_client=httpx2.AsyncClient()), smartpos.AsyncClient)
    smartpos.Client(transport=httpx2.HTTPTransport())
    smartpos.AsyncClient(transport=httpx2.AsyncHTTPTransport())
    smartpos.Client(http_client=httpx2.AsyncClient())  # type: ignore[arg-type]


async def check_async_context_manager() -> None:
    async with smartpos.AsyncClient(max_retries=0, retry_backoff=0) as client:
        assert_type(client, smartpos.AsyncClient)


def check_errors(error: Exception) -> None:
    if isinstance(error, smartpos.APIError):
        assert_type(error.status_code, int)
        assert_type(error.codigo, str | None)
        assert_type(error.mensagem, str | None)
        assert_type(error.acao, str | None)
        assert_type(error.campo, str | None)
        assert_type(error.request_id, str | None)
        assert_type(error.response, httpx.Response | None)
    if isinstance(error, smartpos.ValidationError):
        assert_type(error.codigo, str)
        assert_type(error.mensagem, str)
        assert_type(error.campo, str | None)
    if isinstance(error, smartpos.OutcomeUnknownError):
        assert_type(error.referencia, str)
        assert_type(error.last_error, BaseException)
        assert_type(error.attempts, int)
    if isinstance(error, smartpos.OutcomePendingError):
        assert_type(error.timeout, float)
        assert_type(error.referencia, str)
    if isinstance(error, smartpos.ResponseError):
        assert_type(error.status_code, int | None)
        assert_type(error.referencia, str | None)


def check_helpers() -> None:
    assert_type(smartpos.new_referencia(), str)
    assert_type(smartpos.new_referencia("pedido-42"), str)
    assert_type(smartpos.is_valid_referencia("x"), bool)
    assert_type(smartpos.normalize_documento("x"), str | None)
    assert_type(smartpos.mask_documento("x"), str)
