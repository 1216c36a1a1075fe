"""The SDK's clients against the sandbox: whole flows, error mapping and outcome-unknown cases."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sandbox_bodies import Bodies

import smartpos
from smartpos import webhooks
from smartpos.testing import (
    BadGateway,
    ConnectionRefused,
    DropConnection,
    InternalError,
    NoAnswer,
    PrintFail,
    RateLimited,
    ReadTimeout,
    Refuse,
    Sandbox,
)

NEW_CPF = "11144477735"


def approved_event(sandbox: Sandbox, referencia: str) -> webhooks.PagamentoAprovado:
    """Return the parsed pagamento.aprovado event of a payment."""
    (raw,) = [
        e
        for e in sandbox.events
        if e["tipo"] == "pagamento.aprovado" and e["dados"]["referencia"] == referencia
    ]
    event = webhooks.parse_event(raw)
    assert isinstance(event, webhooks.PagamentoAprovado)
    return event


# --- full flows ----------------------------------------------------------------------------


def test_full_flow_sync(smartpos_client: smartpos.Client, smartpos_sandbox: Sandbox) -> None:
    """Pair, pay, get pagamento.aprovado, refund from the event, then print — all accepted."""
    client, sandbox = smartpos_client, smartpos_sandbox
    qr = client.qrcodes.create(documento_cliente="529.982.247-25")
    assert not qr.is_expired()
    identificado = webhooks.parse_event(sandbox.scan(qr.qr_code, "SP-CAIXA-2"))
    assert isinstance(identificado, webhooks.SmartposIdentificado)
    smartpos_id = identificado.dados.smartpos_id
    assert smartpos_id == "SP-CAIXA-2"

    acceptance = client.payments.create(
        documento_cliente=Sandbox.DOCUMENTO,
        smartpos_id=smartpos_id,
        valor_centavos=15_990,
        forma_pagamento=smartpos.FormaPagamento.CREDITO,
        parcelas=3,
        parcelamento=smartpos.Parcelamento.ESTABELECIMENTO,
    )
    assert acceptance.status == "processando"
    assert [(t.smartpos_id, t.status) for t in acceptance.targets] == [(smartpos_id, "enviado")]
    aprovado = approved_event(sandbox, acceptance.referencia)
    assert aprovado.dados.valor_centavos == 15_990

    refund = client.refunds.create_for(aprovado, valor_centavos=5_000)
    assert refund.referencia
    assert sandbox.refunds[0].valor_centavos == 5_000
    assert sandbox.payment(acceptance.referencia).valor_estornado_centavos == 5_000

    job = client.print_jobs.create(
        documento_cliente=Sandbox.DOCUMENTO, smartpos_id=smartpos_id, conteudo="Obrigado!"
    )
    assert sandbox.print_jobs[0].conteudo == b"Obrigado!"
    printed = webhooks.parse_event(sandbox.events[-1])
    assert isinstance(printed, webhooks.ImpressaoConcluida)
    assert printed.dados.referencia == job.referencia
    assert [t.smartpos_id for t in client.terminals.list(documento_cliente=Sandbox.DOCUMENTO)] == [
        Sandbox.SMARTPOS_ID,
        smartpos_id,
    ]


@pytest.mark.asyncio
async def test_full_flow_async(
    smartpos_async_client: smartpos.AsyncClient, smartpos_sandbox: Sandbox
) -> None:
    """The same flow through AsyncClient, with the refund built by refunds.create."""
    sandbox = smartpos_sandbox
    async with smartpos_async_client as client:
        qr = await client.qrcodes.create(documento_cliente=Sandbox.DOCUMENTO)
        sandbox.scan(qr.qr_code, "SP-CAIXA-2")
        acceptance = await client.payments.create(
            documento_cliente=Sandbox.DOCUMENTO, smartpos_id="SP-CAIXA-2", valor_centavos=2_500
        )
        dados = approved_event(sandbox, acceptance.referencia).dados
        assert dados.autorizacao is not None
        await client.refunds.create(
            documento_cliente=Sandbox.DOCUMENTO,
            smartpos_id="SP-CAIXA-2",
            valor_centavos=2_500,
            pagamento_original=smartpos.PagamentoOriginal(
                codigo_autorizacao=dados.autorizacao.codigo,
                numero_transacao=dados.autorizacao.numero_transacao,
                dados_finalizacao=dados.autorizacao.dados_finalizacao,
                tipo_pagamento=dados.autorizacao.tipo_pagamento,
            ),
        )
        sandbox.script_prints(PrintFail(mensagem_operador="SEM PAPEL"))
        await client.print_jobs.create(
            documento_cliente=Sandbox.DOCUMENTO, smartpos_id="SP-CAIXA-2", conteudo=b"\x1b@hi"
        )
        terminals = await client.terminals.list(documento_cliente=Sandbox.DOCUMENTO)
    assert sandbox.payment(acceptance.referencia).valor_estornado_centavos == 2_500
    falhou = webhooks.parse_event(sandbox.events[-1])
    assert isinstance(falhou, webhooks.ImpressaoFalhou)
    assert len(terminals) == 2


def test_manual_mode_and_refusal_through_the_client(
    smartpos_client: smartpos.Client, smartpos_sandbox: Sandbox
) -> None:
    """A manual card started by the operator can end refused; the event is parsed as such."""
    acceptance = smartpos_client.payments.create(
        documento_cliente=Sandbox.DOCUMENTO,
        valor_centavos=700,
        modo_execucao="manual",
        comanda=smartpos.Comanda("Mesa 12", itens=[smartpos.ItemComanda(titulo="Café")]),
    )
    assert acceptance.smartpos_id is None
    (card,) = smartpos_sandbox.manual_queue()
    assert card.identificacao == "Mesa 12"
    smartpos_sandbox.operator_start(
        acceptance.referencia, outcome=Refuse(mensagem_operador="CARTAO EXPIRADO")
    )
    recusado = webhooks.parse_event(smartpos_sandbox.events[-1])
    assert isinstance(recusado, webhooks.PagamentoRecusado)
    assert recusado.dados.resultado_smartpos is not None
    assert recusado.dados.resultado_smartpos.mensagem_operador == "CARTAO EXPIRADO"


def test_client_over_real_http(smartpos_sandbox: Sandbox) -> None:
    """smartpos.Client works against serve() over real HTTP on 127.0.0.1."""
    with (
        smartpos_sandbox.serve() as base_url,
        smartpos.Client(api_key=Sandbox.API_KEY, base_url=base_url, retry_backoff=0) as client,
    ):
        acceptance = client.payments.create(
            documento_cliente=Sandbox.DOCUMENTO, smartpos_id=Sandbox.SMARTPOS_ID, valor_centavos=1
        )
        with pytest.raises(smartpos.SmartposNaoEncontradoError):
            client.payments.create(
                documento_cliente=Sandbox.DOCUMENTO, smartpos_id="SP-NOPE", valor_centavos=1
            )
    assert smartpos_sandbox.payment(acceptance.referencia).status == "aprovado"


def test_events_reach_the_sdks_webhook_receiver(
    smartpos_client: smartpos.Client, smartpos_sandbox: Sandbox
) -> None:
    """A WebhookReceiver as target stores each delivery; a resend is a duplicate."""
    store = webhooks.MemoryStore()
    smartpos_sandbox.set_webhook(webhooks.WebhookReceiver(store))
    smartpos_client.payments.create(
        documento_cliente=Sandbox.DOCUMENTO, smartpos_id=Sandbox.SMARTPOS_ID, valor_centavos=10
    )
    (event,) = smartpos_sandbox.events
    assert store.get(event["id"]) is not None
    smartpos_sandbox.resend(event["id"])
    assert [d.ok for d in smartpos_sandbox.deliveries] == [True, True]
    assert [e["id"] for e in smartpos_sandbox.events] == [event["id"]] * 2


# --- errors answered by the sandbox ---------------------------------------------------------


@pytest.fixture
def other_world(smartpos_sandbox: Sandbox) -> Sandbox:
    """The default world plus a partner 'other-key' owning NEW_CPF and terminal SP-OTHER."""
    smartpos_sandbox.add_partner("other-key")
    smartpos_sandbox.add_customer(NEW_CPF, api_key="other-key")
    smartpos_sandbox.add_terminal("SP-OTHER", documento_cliente=NEW_CPF)
    return smartpos_sandbox


@pytest.mark.parametrize(
    ("kwargs", "error", "codigo"),
    [
        (
            {"documento_cliente": NEW_CPF, "smartpos_id": "SP-OTHER"},
            smartpos.ClienteNaoAutorizadoError,
            "CLIENTE_NAO_AUTORIZADO",
        ),
        (
            {"documento_cliente": "39053344705"},
            smartpos.DocumentoClienteInvalidoError,
            "DOCUMENTO_CLIENTE_INVALIDO",
        ),
        (
            {"smartpos_id": "SP-OTHER"},
            smartpos.SmartposNaoEncontradoError,
            "SMARTPOS_NAO_ENCONTRADO",
        ),
    ],
)
def test_service_errors_map_to_their_classes(
    smartpos_client: smartpos.Client,
    other_world: Sandbox,
    kwargs: dict[str, Any],
    error: type[smartpos.APIError],
    codigo: str,
) -> None:
    """Errors only the service can know arrive as the SDK's class for their codigo."""
    call = {
        "documento_cliente": Sandbox.DOCUMENTO,
        "smartpos_id": Sandbox.SMARTPOS_ID,
        "valor_centavos": 100,
    }
    call.update(kwargs)
    with pytest.raises(error) as info:
        smartpos_client.payments.create(**call)
    assert info.value.codigo == codigo
    assert other_world.payments == []


def test_webhook_nao_configurado(
    smartpos_client: smartpos.Client, smartpos_sandbox: Sandbox
) -> None:
    """A partner without webhook gets WebhookNaoConfiguradoError."""
    smartpos_sandbox.set_webhook(False)
    with pytest.raises(smartpos.WebhookNaoConfiguradoError) as info:
        smartpos_client.payments.create(
            documento_cliente=Sandbox.DOCUMENTO, smartpos_id=Sandbox.SMARTPOS_ID, valor_centavos=1
        )
    assert info.value.codigo == "WEBHOOK_NAO_CONFIGURADO"


def test_invalid_key(smartpos_sandbox: Sandbox) -> None:
    """A rotated key gets ApiKeyInvalidaError from every resource."""
    smartpos_sandbox.rotate_key(Sandbox.API_KEY, "new")
    with smartpos.Client(
        api_key=Sandbox.API_KEY, base_url="http://s.invalid", transport=smartpos_sandbox.transport()
    ) as client:
        with pytest.raises(smartpos.ApiKeyInvalidaError):
            client.qrcodes.create(documento_cliente=Sandbox.DOCUMENTO)
        with pytest.raises(smartpos.ApiKeyInvalidaError):
            client.terminals.list(documento_cliente=Sandbox.DOCUMENTO)


def test_duplicate_referencia_on_a_first_attempt(
    smartpos_client: smartpos.Client, smartpos_sandbox: Sandbox
) -> None:
    """Reusing a referencia on a new call gets ReferenciaDuplicadaError."""
    referencia = Bodies.ref()
    smartpos_client.print_jobs.create(
        documento_cliente=Sandbox.DOCUMENTO,
        smartpos_id=Sandbox.SMARTPOS_ID,
        conteudo="a",
        referencia=referencia,
    )
    with pytest.raises(smartpos.ReferenciaDuplicadaError):
        smartpos_client.payments.create(
            documento_cliente=Sandbox.DOCUMENTO,
            smartpos_id=Sandbox.SMARTPOS_ID,
            valor_centavos=1,
            referencia=referencia,
        )
    assert smartpos_sandbox.payments == []


def test_non_uuid_referencia_refused_by_the_service_when_relaxed(
    smartpos_sandbox: Sandbox,
) -> None:
    """With strict_referencia=False the SDK sends it and the sandbox answers CAMPO_INVALIDO."""
    with (
        smartpos.Client(
            api_key=Sandbox.API_KEY,
            base_url="http://s.invalid",
            transport=smartpos_sandbox.transport(),
            strict_referencia=False,
        ) as client,
        pytest.raises(smartpos.CampoInvalidoError) as info,
    ):
        client.payments.create(
            documento_cliente=Sandbox.DOCUMENTO,
            smartpos_id=Sandbox.SMARTPOS_ID,
            valor_centavos=1,
            referencia="pedido-42",
        )
    assert info.value.campo == "referencia"


# --- retries and outcome unknown ------------------------------------------------------------


def test_dropped_connection_is_outcome_unknown(
    smartpos_client: smartpos.Client, smartpos_sandbox: Sandbox
) -> None:
    """A connection dropped after acceptance is OutcomeUnknownError; the payment happened once."""
    smartpos_sandbox.fail_next("payments", DropConnection())
    with pytest.raises(smartpos.OutcomeUnknownError) as info:
        smartpos_client.payments.create(
            documento_cliente=Sandbox.DOCUMENTO,
            smartpos_id=Sandbox.SMARTPOS_ID,
            valor_centavos=4_200,
        )
    (payment,) = smartpos_sandbox.payments
    assert info.value.referencia == payment.referencia
    assert {r.json["referencia"] for r in smartpos_sandbox.requests} == {payment.referencia}
    assert approved_event(smartpos_sandbox, payment.referencia).dados.valor_centavos == 4_200


@pytest.mark.asyncio
async def test_dropped_connection_is_outcome_unknown_async(
    smartpos_async_client: smartpos.AsyncClient, smartpos_sandbox: Sandbox
) -> None:
    """The async client reports the same OutcomeUnknownError for a dropped connection."""
    smartpos_sandbox.fail_next("refunds", DropConnection())
    async with smartpos_async_client as client:
        acceptance = await client.payments.create(
            documento_cliente=Sandbox.DOCUMENTO, smartpos_id=Sandbox.SMARTPOS_ID, valor_centavos=9
        )
        event = approved_event(smartpos_sandbox, acceptance.referencia)
        with pytest.raises(smartpos.OutcomeUnknownError) as info:
            await client.refunds.create_for(event)
    (refund,) = smartpos_sandbox.refunds
    assert info.value.referencia == refund.referencia


@pytest.mark.parametrize(
    "fault", [ReadTimeout(), InternalError(after_accept=True)], ids=["read-timeout", "500-after"]
)
def test_other_ambiguous_failures_are_outcome_unknown(
    smartpos_client: smartpos.Client, smartpos_sandbox: Sandbox, fault: Any
) -> None:
    """A read timeout or a 5xx after acceptance is OutcomeUnknownError, never a second charge."""
    smartpos_sandbox.fail_next("print_jobs", fault)
    with pytest.raises(smartpos.OutcomeUnknownError):
        smartpos_client.print_jobs.create(
            documento_cliente=Sandbox.DOCUMENTO, smartpos_id=Sandbox.SMARTPOS_ID, conteudo="x"
        )
    assert len(smartpos_sandbox.print_jobs) == 1


def test_a_500_before_acceptance_is_retried_with_the_same_referencia(
    smartpos_client: smartpos.Client, smartpos_sandbox: Sandbox
) -> None:
    """After one 500 the SDK retries the same referencia and the payment is accepted once."""
    smartpos_sandbox.fail_next("payments", InternalError())
    acceptance = smartpos_client.payments.create(
        documento_cliente=Sandbox.DOCUMENTO, smartpos_id=Sandbox.SMARTPOS_ID, valor_centavos=3
    )
    statuses = [r.status_code for r in smartpos_sandbox.requests]
    assert statuses == [500, 202]
    assert {r.json["referencia"] for r in smartpos_sandbox.requests} == {acceptance.referencia}
    assert len(smartpos_sandbox.payments) == 1


@pytest.mark.parametrize("fault", [RateLimited(retry_after=0), BadGateway()], ids=["429", "502"])
def test_safe_calls_are_retried(
    smartpos_client: smartpos.Client, smartpos_sandbox: Sandbox, fault: Any
) -> None:
    """A 429 or 502 on the terminal listing is retried and then succeeds."""
    smartpos_sandbox.fail_next("terminals", fault)
    terminals = smartpos_client.terminals.list(documento_cliente=Sandbox.DOCUMENTO)
    assert [t.smartpos_id for t in terminals] == [Sandbox.SMARTPOS_ID]
    assert len(smartpos_sandbox.requests) == 2


def test_rate_limit_exhausted(smartpos_client: smartpos.Client, smartpos_sandbox: Sandbox) -> None:
    """When every attempt is rate limited the SDK raises RateLimitError."""
    smartpos_sandbox.fail_next("qrcodes", RateLimited(retry_after=0), times=10)
    with pytest.raises(smartpos.RateLimitError):
        smartpos_client.qrcodes.create(documento_cliente=Sandbox.DOCUMENTO)
    assert smartpos_sandbox.qrcodes == []


def test_connection_refused_is_a_transport_error(
    smartpos_client: smartpos.Client, smartpos_sandbox: Sandbox
) -> None:
    """A refused connection is TransportError (surely not accepted), and nothing happened."""
    smartpos_sandbox.fail_next("payments", ConnectionRefused(), times=10)
    with pytest.raises(smartpos.TransportError):
        smartpos_client.payments.create(
            documento_cliente=Sandbox.DOCUMENTO, smartpos_id=Sandbox.SMARTPOS_ID, valor_centavos=1
        )
    assert smartpos_sandbox.payments == []


def test_no_answer_leaves_the_sale_open(
    smartpos_client: smartpos.Client, smartpos_sandbox: Sandbox
) -> None:
    """A silent terminal: the call is accepted but no event ever comes."""
    smartpos_sandbox.script_payments(NoAnswer())
    acceptance = smartpos_client.payments.create(
        documento_cliente=Sandbox.DOCUMENTO, smartpos_id=Sandbox.SMARTPOS_ID, valor_centavos=1
    )
    assert acceptance.status == "processando"
    assert smartpos_sandbox.events == []


@pytest.fixture
def plain_transport_client(smartpos_sandbox: Sandbox) -> Iterator[httpx.Client]:
    """An httpx.Client the user owns, passed to smartpos.Client as http_client."""
    with httpx.Client(transport=smartpos_sandbox.transport()) as client:
        yield client


def test_user_owned_http_client(
    plain_transport_client: httpx.Client, smartpos_sandbox: Sandbox
) -> None:
    """The sandbox transport also works inside an httpx.Client the user passes in."""
    with smartpos.Client(
        api_key=Sandbox.API_KEY, base_url="http://s.invalid", http_client=plain_transport_client
    ) as client:
        qr = client.qrcodes.create(documento_cliente=Sandbox.DOCUMENTO)
    assert smartpos_sandbox.qrcodes[0].qr_code == qr.qr_code
