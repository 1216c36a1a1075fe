"""Terminals that act: scripted outcomes and their events, the manual queue, refunds, pairing."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import httpx
import pytest
from sandbox_bodies import Bodies

from smartpos.testing import (
    Approve,
    NoAnswer,
    PrintDone,
    PrintFail,
    QRCodeExpiredError,
    Refuse,
    Sandbox,
    SandboxError,
)

ENVELOPE_KEYS = {"id", "tipo", "criadoEm", "dados"}


def pay(raw: httpx.Client, **overrides: Any) -> dict[str, Any]:
    """Send a payment that must be accepted; return its body."""
    body = Bodies.payment(**overrides)
    response = raw.post("/v1/payments", json=body)
    assert response.status_code == 202, response.text
    return body


def check_envelope(event: dict[str, Any], tipo: str) -> dict[str, Any]:
    """Assert the envelope of 2.9 and return its dados."""
    assert set(event) == ENVELOPE_KEYS
    assert event["tipo"] == tipo
    criado_em = dt.datetime.fromisoformat(event["criadoEm"])
    assert criado_em.utcoffset() is not None
    return event["dados"]  # type: ignore[no-any-return]


# --- payments ------------------------------------------------------------------------------


def test_default_terminal_approves_with_the_full_dados(raw: httpx.Client, sandbox: Sandbox) -> None:
    """By default a payment is approved and pagamento.aprovado carries every field of section 6."""
    body = pay(
        raw,
        valorCentavos=123456,
        formaPagamento="credito",
        parcelas=3,
        parcelamento="administradora",
    )
    (event,) = sandbox.events
    dados = check_envelope(event, "pagamento.aprovado")
    autorizacao = dados.pop("autorizacao")
    assert dados == {
        "referencia": body["referencia"],
        "documentoCliente": Sandbox.DOCUMENTO,
        "status": "aprovado",
        "valorCentavos": 123456,
        "valorFormatado": "1234.56",
        "formaPagamento": "credito",
        "parcelas": 3,
        "smartposId": Sandbox.SMARTPOS_ID,
        "resultadoSmartPOS": {
            "executado": True,
            "codigoStatus": "00",
            "mensagemOperador": "TRANSACAO APROVADA",
        },
    }
    assert set(autorizacao) == {"codigo", "numeroTransacao", "dadosFinalizacao", "tipoPagamento"}
    assert re.fullmatch(r"[0-9A-Z]{6}", autorizacao["codigo"])
    assert re.fullmatch(r"[0-9]{12}", autorizacao["numeroTransacao"])
    assert autorizacao["dadosFinalizacao"]
    assert autorizacao["tipoPagamento"] == "CREDITO"


@pytest.mark.parametrize(
    ("valor", "formatado"), [(1, "0.01"), (10, "0.10"), (100, "1.00"), (1234, "12.34")]
)
def test_valor_formatado_is_a_decimal_with_a_point(
    raw: httpx.Client, sandbox: Sandbox, valor: int, formatado: str
) -> None:
    """valorFormatado is the amount with two decimals and a point."""
    pay(raw, valorCentavos=valor)
    assert sandbox.events[-1]["dados"]["valorFormatado"] == formatado


def test_parcelas_omitted_is_normalized_to_1_and_forma_omitted_is_absent(
    raw: httpx.Client, sandbox: Sandbox
) -> None:
    """Without parcelas the event says 1; without formaPagamento the event has none."""
    pay(raw)
    dados = sandbox.events[-1]["dados"]
    assert dados["parcelas"] == 1
    assert "formaPagamento" not in dados


@pytest.mark.parametrize(
    ("forma", "tipo"), [("debito", "DEBITO"), ("pix", "PIX"), ("voucher", "VOUCHER")]
)
def test_tipo_pagamento_follows_forma_pagamento(
    raw: httpx.Client, sandbox: Sandbox, forma: str, tipo: str
) -> None:
    """autorizacao.tipoPagamento is derived from formaPagamento."""
    pay(raw, formaPagamento=forma)
    assert sandbox.events[-1]["dados"]["autorizacao"]["tipoPagamento"] == tipo


def test_scripted_approve_uses_the_given_autorizacao(raw: httpx.Client, sandbox: Sandbox) -> None:
    """Approve fields given in the script appear as such in the event."""
    sandbox.script_payments(
        Approve(codigo="ABC123", numero_transacao="1", dados_finalizacao="F", tipo_pagamento="X")
    )
    pay(raw)
    assert sandbox.events[-1]["dados"]["autorizacao"] == {
        "codigo": "ABC123",
        "numeroTransacao": "1",
        "dadosFinalizacao": "F",
        "tipoPagamento": "X",
    }


def test_scripted_refusal_emits_pagamento_recusado(raw: httpx.Client, sandbox: Sandbox) -> None:
    """A scripted refusal emits pagamento.recusado with its status and operator message."""
    sandbox.script_payments(
        Refuse(status="negado", mensagem_operador="SALDO INSUFICIENTE", codigo_status="51")
    )
    body = pay(raw, valorCentavos=500)
    dados = check_envelope(sandbox.events[-1], "pagamento.recusado")
    assert dados == {
        "referencia": body["referencia"],
        "documentoCliente": Sandbox.DOCUMENTO,
        "status": "negado",
        "valorCentavos": 500,
        "valorFormatado": "5.00",
        "parcelas": 1,
        "smartposId": Sandbox.SMARTPOS_ID,
        "resultadoSmartPOS": {
            "executado": True,
            "codigoStatus": "51",
            "mensagemOperador": "SALDO INSUFICIENTE",
        },
    }
    assert sandbox.payment(body["referencia"]).status == "negado"


def test_scripts_run_in_order_then_the_default_comes_back(
    raw: httpx.Client, sandbox: Sandbox
) -> None:
    """Scripted outcomes are used once each, in order, then terminals approve again."""
    sandbox.script_payments(Refuse(), NoAnswer())
    for _ in range(3):
        pay(raw)
    assert [e["tipo"] for e in sandbox.events] == ["pagamento.recusado", "pagamento.aprovado"]
    assert [p.status for p in sandbox.payments] == ["recusado", "processando", "aprovado"]


def test_terminal_script_wins_over_the_global_script(raw: httpx.Client, sandbox: Sandbox) -> None:
    """A terminal's own script is used before the script for any terminal."""
    sandbox.add_terminal("SP-2", documento_cliente=Sandbox.DOCUMENTO)
    sandbox.script_payments(Refuse(mensagem_operador="GLOBAL"))
    sandbox.script_payments(Refuse(mensagem_operador="SP-2"), smartpos_id="SP-2")
    pay(raw, smartposId="SP-2")
    pay(raw)
    messages = [e["dados"]["resultadoSmartPOS"]["mensagemOperador"] for e in sandbox.events]
    assert messages == ["SP-2", "GLOBAL"]


def test_standing_outcomes_per_terminal_and_sandbox_wide(
    raw: httpx.Client, sandbox: Sandbox
) -> None:
    """set_outcomes changes what terminals do until changed again."""
    sandbox.add_terminal("SP-2", documento_cliente=Sandbox.DOCUMENTO, payments=Refuse())
    pay(raw, smartposId="SP-2")
    pay(raw)
    sandbox.set_outcomes(payments=NoAnswer())
    pay(raw)
    sandbox.set_outcomes(payments=Approve(), smartpos_id="SP-2")
    pay(raw, smartposId="SP-2")
    assert [e["tipo"] for e in sandbox.events] == [
        "pagamento.recusado",
        "pagamento.aprovado",
        "pagamento.aprovado",
    ]


def test_no_answer_emits_nothing(raw: httpx.Client, sandbox: Sandbox) -> None:
    """A terminal that never answers leaves the payment processing without an event."""
    sandbox.script_payments(NoAnswer())
    body = pay(raw)
    assert sandbox.events == []
    assert sandbox.payment(body["referencia"]).status == "processando"


def test_outcomes_of_the_wrong_kind_are_refused(sandbox: Sandbox) -> None:
    """A print outcome cannot script a payment, nor the reverse."""
    with pytest.raises(TypeError):
        sandbox.script_payments(PrintDone())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        sandbox.script_prints(Approve())  # type: ignore[arg-type]


def test_scripting_an_unknown_terminal_fails(sandbox: Sandbox) -> None:
    """Scripting a terminal that does not exist raises SandboxError."""
    with pytest.raises(SandboxError):
        sandbox.script_payments(Refuse(), smartpos_id="SP-NOPE")


# --- print jobs ----------------------------------------------------------------------------


def test_print_done_emits_impressao_concluida(raw: httpx.Client, sandbox: Sandbox) -> None:
    """A print job finishes by default with impressao.concluida and the full dados."""
    body = Bodies.print_job()
    assert raw.post("/v1/print-jobs", json=body).status_code == 202
    dados = check_envelope(sandbox.events[-1], "impressao.concluida")
    assert dados == {
        "referencia": body["referencia"],
        "documentoCliente": Sandbox.DOCUMENTO,
        "status": "concluida",
        "smartposId": Sandbox.SMARTPOS_ID,
        "resultadoSmartPOS": {
            "executado": True,
            "codigoStatus": "00",
            "mensagemOperador": "IMPRESSAO CONCLUIDA",
        },
    }


def test_print_fail_emits_impressao_falhou(raw: httpx.Client, sandbox: Sandbox) -> None:
    """A scripted print failure emits impressao.falhou with its status and message."""
    sandbox.script_prints(PrintFail(mensagem_operador="SEM PAPEL", codigo_status="E01"))
    body = Bodies.print_job()
    raw.post("/v1/print-jobs", json=body)
    dados = check_envelope(sandbox.events[-1], "impressao.falhou")
    assert dados["status"] == "falhou"
    assert dados["resultadoSmartPOS"] == {
        "executado": False,
        "codigoStatus": "E01",
        "mensagemOperador": "SEM PAPEL",
    }
    assert sandbox.print_jobs[0].status == "falhou"


def test_print_no_answer_emits_nothing(raw: httpx.Client, sandbox: Sandbox) -> None:
    """A print job on a silent terminal emits no event."""
    sandbox.script_prints(NoAnswer(), smartpos_id=Sandbox.SMARTPOS_ID)
    raw.post("/v1/print-jobs", json=Bodies.print_job())
    assert sandbox.events == []
    assert sandbox.print_jobs[0].status == "processando"


def test_print_outcomes_do_not_touch_payments(raw: httpx.Client, sandbox: Sandbox) -> None:
    """A payment script is not consumed by a print job."""
    sandbox.script_payments(Refuse())
    raw.post("/v1/print-jobs", json=Bodies.print_job())
    pay(raw)
    assert [e["tipo"] for e in sandbox.events] == ["impressao.concluida", "pagamento.recusado"]


# --- manual queue --------------------------------------------------------------------------


def test_manual_card_waits_for_the_operator(raw: httpx.Client, sandbox: Sandbox) -> None:
    """A manual payment is queued with no event until the operator starts it."""
    body = Bodies.manual(comanda={"identificacao": "Mesa 7"}, valorCentavos=990)
    assert raw.post("/v1/payments", json=body).status_code == 202
    (card,) = sandbox.manual_queue()
    assert (card.referencia, card.identificacao, card.valor_centavos, card.targets) == (
        body["referencia"],
        "Mesa 7",
        990,
        (Sandbox.SMARTPOS_ID,),
    )
    assert sandbox.events == []
    assert sandbox.payment(body["referencia"]).status == "na_fila"
    event = sandbox.operator_start(body["referencia"])
    assert event is not None
    assert sandbox.events == [event]
    assert event["tipo"] == "pagamento.aprovado"
    assert event["dados"]["smartposId"] == Sandbox.SMARTPOS_ID
    assert sandbox.manual_queue() == []


def test_operator_picks_a_terminal_among_several(raw: httpx.Client, sandbox: Sandbox) -> None:
    """With several targets the operator must name the terminal, and it executes the payment."""
    sandbox.add_terminal("SP-2", documento_cliente=Sandbox.DOCUMENTO)
    body = Bodies.manual()
    raw.post("/v1/payments", json=body)
    with pytest.raises(SandboxError):
        sandbox.operator_start(body["referencia"])
    with pytest.raises(SandboxError):
        sandbox.operator_start(body["referencia"], smartpos_id="SP-ELSEWHERE")
    event = sandbox.operator_start(body["referencia"], smartpos_id="SP-2", outcome=Refuse())
    assert event is not None
    assert (event["tipo"], event["dados"]["smartposId"]) == ("pagamento.recusado", "SP-2")


def test_manual_queue_filters_by_customer(raw: httpx.Client, sandbox: Sandbox) -> None:
    """manual_queue(documento) lists only that customer's cards."""
    sandbox.add_customer("11144477735")
    sandbox.add_terminal("SP-2", documento_cliente="11144477735")
    raw.post("/v1/payments", json=Bodies.manual())
    raw.post("/v1/payments", json=Bodies.manual(documentoCliente="111.444.777-35"))
    assert [c.targets for c in sandbox.manual_queue("111.444.777-35")] == [("SP-2",)]
    assert len(sandbox.manual_queue()) == 2


def test_operator_cancel_emits_a_refusal(raw: httpx.Client, sandbox: Sandbox) -> None:
    """Cancelling a card removes it and emits pagamento.recusado with status cancelado."""
    body = Bodies.manual()
    raw.post("/v1/payments", json=body)
    event = sandbox.operator_cancel(body["referencia"])
    assert (event["tipo"], event["dados"]["status"]) == ("pagamento.recusado", "cancelado")
    assert sandbox.manual_queue() == []
    with pytest.raises(SandboxError):
        sandbox.operator_start(body["referencia"])


# --- refunds -------------------------------------------------------------------------------


def approved(raw: httpx.Client, sandbox: Sandbox, valor: int = 10_000) -> dict[str, Any]:
    """Make an approved payment and return its pagamento.aprovado event."""
    pay(raw, valorCentavos=valor)
    event = sandbox.events[-1]
    assert event["tipo"] == "pagamento.aprovado"
    return event


def test_refund_answers_202(api: httpx.Client, sandbox: Sandbox) -> None:
    """A total refund of an approved payment answers 202 and is recorded."""
    pay(api, valorCentavos=10_000)
    body = Bodies.refund(sandbox.events[-1])
    response = api.post("/v1/refunds", json=body)
    assert response.status_code == 202
    assert response.json() == {
        "referencia": body["referencia"],
        "status": "processando",
        "mensagem": response.json()["mensagem"],
        "smartposId": Sandbox.SMARTPOS_ID,
        "valorCentavos": 10_000,
        "targets": [{"smartposId": Sandbox.SMARTPOS_ID, "status": "enviado"}],
    }
    (refund,) = sandbox.refunds
    assert refund.pagamento_referencia == sandbox.events[-1]["dados"]["referencia"]


def test_partial_refunds_up_to_the_approved_amount(raw: httpx.Client, sandbox: Sandbox) -> None:
    """Partial refunds are accepted until the approved amount; one cent more is VALOR_INVALIDO."""
    event = approved(raw, sandbox, 10_000)
    assert raw.post("/v1/refunds", json=Bodies.refund(event, valorCentavos=6_000)).is_success
    response = raw.post("/v1/refunds", json=Bodies.refund(event, valorCentavos=4_001))
    assert response.status_code == 400
    assert response.json()["erro"]["codigo"] == "VALOR_INVALIDO"
    assert response.json()["erro"]["campo"] == "valorCentavos"
    assert raw.post("/v1/refunds", json=Bodies.refund(event, valorCentavos=4_000)).is_success
    payment = sandbox.payment(event["dados"]["referencia"])
    assert payment.valor_estornado_centavos == 10_000


def test_refund_retry_is_a_duplicate_not_an_excess(raw: httpx.Client, sandbox: Sandbox) -> None:
    """Resending an accepted total refund answers 409, not VALOR_INVALIDO."""
    body = Bodies.refund(approved(raw, sandbox))
    assert raw.post("/v1/refunds", json=body).status_code == 202
    response = raw.post("/v1/refunds", json=body)
    assert (response.status_code, response.json()["erro"]["codigo"]) == (
        409,
        "REFERENCIA_DUPLICADA",
    )


def test_refund_cannot_reuse_the_payment_referencia(raw: httpx.Client, sandbox: Sandbox) -> None:
    """A refund's referencia must differ from the original payment's."""
    event = approved(raw, sandbox)
    body = Bodies.refund(event, referencia=event["dados"]["referencia"])
    assert raw.post("/v1/refunds", json=body).status_code == 409


@pytest.mark.parametrize(
    "field", ["codigoAutorizacao", "numeroTransacao", "dadosFinalizacao", "tipoPagamento"]
)
def test_refund_with_a_wrong_original_is_404(
    raw: httpx.Client, sandbox: Sandbox, field: str
) -> None:
    """Each pagamentoOriginal field must match the approval, else 404."""
    body = Bodies.refund(approved(raw, sandbox))
    body["pagamentoOriginal"][field] += "X"
    response = raw.post("/v1/refunds", json=body)
    assert response.status_code == 404
    assert response.json()["erro"]["codigo"] == "PAGAMENTO_ORIGINAL_NAO_ENCONTRADO"
    assert sandbox.refunds == []


def test_refund_of_a_refused_payment_is_404(raw: httpx.Client, sandbox: Sandbox) -> None:
    """A payment that was not approved cannot be refunded."""
    event = approved(raw, sandbox)
    sandbox.script_payments(Refuse())
    pay(raw)
    body = Bodies.refund(event)
    body["pagamentoOriginal"]["codigoAutorizacao"] = "NONE"
    assert raw.post("/v1/refunds", json=body).status_code == 404


def test_refund_on_another_terminal_of_the_customer_is_404(
    raw: httpx.Client, sandbox: Sandbox
) -> None:
    """The refund must go to the terminal that executed the payment."""
    sandbox.add_terminal("SP-2", documento_cliente=Sandbox.DOCUMENTO)
    body = Bodies.refund(approved(raw, sandbox), smartposId="SP-2")
    response = raw.post("/v1/refunds", json=body)
    assert response.json()["erro"]["codigo"] == "PAGAMENTO_ORIGINAL_NAO_ENCONTRADO"


REFUND_ERRORS: list[tuple[dict[str, Any], int, str, str | None]] = [
    ({"referencia": ...}, 400, "CAMPO_OBRIGATORIO", "referencia"),
    ({"documentoCliente": ...}, 400, "CAMPO_OBRIGATORIO", "documentoCliente"),
    ({"smartposId": ...}, 400, "CAMPO_OBRIGATORIO", "smartposId"),
    ({"valorCentavos": ...}, 400, "CAMPO_OBRIGATORIO", "valorCentavos"),
    ({"pagamentoOriginal": ...}, 400, "CAMPO_OBRIGATORIO", "pagamentoOriginal"),
    ({"pagamentoOriginal": "x"}, 400, "CAMPO_INVALIDO", "pagamentoOriginal"),
    ({"referencia": "estorno-1"}, 400, "CAMPO_INVALIDO", "referencia"),
    ({"valorCentavos": 0}, 400, "VALOR_INVALIDO", "valorCentavos"),
    ({"valorCentavos": 1.5}, 400, "VALOR_INVALIDO", "valorCentavos"),
    ({"documentoCliente": "00000000000"}, 400, "DOCUMENTO_CLIENTE_INVALIDO", "documentoCliente"),
    ({"smartposId": "SP-NOPE"}, 404, "SMARTPOS_NAO_ENCONTRADO", "smartposId"),
]


@pytest.mark.parametrize(("overrides", "status", "codigo", "campo"), REFUND_ERRORS)
def test_refund_errors(
    raw: httpx.Client,
    sandbox: Sandbox,
    overrides: dict[str, Any],
    status: int,
    codigo: str,
    campo: str | None,
) -> None:
    """Refund field errors use the spec's codes (the sandbox's documented choice)."""
    response = raw.post("/v1/refunds", json=Bodies.refund(approved(raw, sandbox), **overrides))
    assert response.status_code == status
    assert response.json()["erro"]["codigo"] == codigo
    assert response.json()["erro"].get("campo") == campo


@pytest.mark.parametrize(
    "field", ["codigoAutorizacao", "numeroTransacao", "dadosFinalizacao", "tipoPagamento"]
)
def test_refund_requires_every_original_field(
    raw: httpx.Client, sandbox: Sandbox, field: str
) -> None:
    """Each pagamentoOriginal field is required, reported with its dotted campo."""
    body = Bodies.refund(approved(raw, sandbox))
    del body["pagamentoOriginal"][field]
    erro = raw.post("/v1/refunds", json=body).json()["erro"]
    assert (erro["codigo"], erro["campo"]) == ("CAMPO_OBRIGATORIO", f"pagamentoOriginal.{field}")


def test_refund_for_another_partners_customer_is_403(raw: httpx.Client, sandbox: Sandbox) -> None:
    """A refund for another partner's customer answers 403."""
    body = Bodies.refund(approved(raw, sandbox))
    sandbox.add_partner("other-key")
    response = raw.post("/v1/refunds", json=body, headers={"x-api-key": "other-key"})
    assert response.json()["erro"]["codigo"] == "CLIENTE_NAO_AUTORIZADO"


# --- pairing -------------------------------------------------------------------------------


def qr_code(raw: httpx.Client, referencia: str = "pairing-1") -> str:
    """Create a QR code for the default customer and return its qrCode value."""
    body = {"documentoCliente": Sandbox.DOCUMENTO, "referencia": referencia}
    response = raw.post("/qrcode", json=body)
    assert response.status_code == 201
    return str(response.json()["qrCode"])


def test_scan_pairs_a_new_terminal(raw: httpx.Client, sandbox: Sandbox) -> None:
    """Scanning emits smartpos.identificado with full dados and links the terminal."""
    event = sandbox.scan(qr_code(raw), "SP-NEW")
    dados = check_envelope(event, "smartpos.identificado")
    (qr,) = sandbox.qrcodes
    assert dados == {
        "qrCodeId": qr.qr_code_id,
        "referencia": "pairing-1",
        "documentoCliente": Sandbox.DOCUMENTO,
        "smartposId": "SP-NEW",
        "numeroSerieTerminal": sandbox.terminals()[-1].numero_serie_terminal,
        "adquirente": "STONE",
    }
    assert sandbox.events == [event]
    assert [t.smartpos_id for t in sandbox.terminals(Sandbox.DOCUMENTO)] == [
        Sandbox.SMARTPOS_ID,
        "SP-NEW",
    ]
    assert raw.post("/v1/payments", json=Bodies.payment(smartposId="SP-NEW")).status_code == 202


def test_scan_relinks_an_existing_terminal(raw: httpx.Client, sandbox: Sandbox) -> None:
    """A known terminal reading the QR code keeps its serial number and moves customer."""
    sandbox.add_customer("11144477735")
    sandbox.add_terminal("SP-X", documento_cliente="11144477735", numero_serie_terminal="N-X")
    event = sandbox.scan(qr_code(raw), "SP-X")
    assert event["dados"]["numeroSerieTerminal"] == "N-X"
    assert sandbox.terminals("11144477735") == []


def test_expired_qr_code_does_not_pair() -> None:
    """After expiresAt a scan raises QRCodeExpiredError, links nothing and emits nothing."""
    sandbox = Sandbox(clock=lambda: 1_700_000_000.0)
    raw = httpx.Client(
        base_url="http://s.invalid",
        transport=sandbox.transport(),
        headers={"x-api-key": Sandbox.API_KEY},
    )
    code = qr_code(raw)
    sandbox.advance(300)
    assert sandbox.scan(code, "SP-A")["tipo"] == "smartpos.identificado"
    sandbox.advance(0.5)
    with pytest.raises(QRCodeExpiredError):
        sandbox.scan(code, "SP-B")
    assert [e["dados"]["smartposId"] for e in sandbox.events] == ["SP-A"]
    assert "SP-B" not in [t.smartpos_id for t in sandbox.terminals()]


def test_unknown_qr_code_raises(sandbox: Sandbox) -> None:
    """Scanning a value that is no QR code raises SandboxError."""
    with pytest.raises(SandboxError):
        sandbox.scan("smartpos:qr:v1:nope", "SP-A")


# --- world ---------------------------------------------------------------------------------


def test_default_world(sandbox: Sandbox) -> None:
    """A new sandbox has the partner, customer and linked terminal of API.md."""
    assert Sandbox.API_KEY == "sandbox-key"
    assert Sandbox.DOCUMENTO == "52998224725"
    assert Sandbox.SMARTPOS_ID == "SP-SANDBOX-1"
    (partner,) = sandbox.partners
    assert partner.api_keys == {"sandbox-key": "active"}
    assert partner.webhook_configured
    assert [(c.documento_cliente, c.partner) for c in sandbox.customers] == [
        (Sandbox.DOCUMENTO, partner.name)
    ]
    assert [(t.smartpos_id, t.documento_cliente) for t in sandbox.terminals()] == [
        (Sandbox.SMARTPOS_ID, Sandbox.DOCUMENTO)
    ]
    assert sandbox.events == []


def test_empty_world() -> None:
    """default_world=False starts with nobody: every key is invalid."""
    with Sandbox(default_world=False) as sandbox:
        assert (sandbox.partners, sandbox.customers, sandbox.terminals()) == ([], [], [])


@pytest.mark.parametrize("documento", ["12345678900", "11111111111", "", "12ABC34501DE36"])
def test_add_customer_refuses_invalid_documents(sandbox: Sandbox, documento: str) -> None:
    """Customers must have a valid CPF or CNPJ."""
    with pytest.raises(SandboxError):
        sandbox.add_customer(documento)


def test_world_errors(sandbox: Sandbox) -> None:
    """Duplicates and unknown references in world building raise SandboxError."""
    with pytest.raises(SandboxError):
        sandbox.add_partner(Sandbox.API_KEY)
    with pytest.raises(SandboxError):
        sandbox.add_customer(Sandbox.DOCUMENTO)
    with pytest.raises(SandboxError):
        sandbox.add_terminal(Sandbox.SMARTPOS_ID)
    with pytest.raises(SandboxError):
        sandbox.add_terminal("SP-2", documento_cliente="11144477735")
    with pytest.raises(SandboxError):
        sandbox.add_customer("11144477735", api_key="nope")
    with pytest.raises(SandboxError):
        sandbox.rotate_key(Sandbox.API_KEY, Sandbox.API_KEY)
    with pytest.raises(SandboxError):
        sandbox.payment("nope")


def test_reprs_mask_documents_and_keys(raw: httpx.Client, sandbox: Sandbox) -> None:
    """No repr shows a full CPF or API key."""
    pay(raw)
    raw.post("/v1/payments", json=Bodies.manual())
    shown = repr(
        [
            sandbox.partners,
            sandbox.customers,
            sandbox.terminals(),
            sandbox.payments,
            sandbox.manual_queue(),
            sandbox,
        ]
    )
    assert Sandbox.DOCUMENTO not in shown
    assert "529.***.***-25" in shown
    assert Sandbox.API_KEY not in shown


def test_recorded_requests_mask_documents(raw: httpx.Client, sandbox: Sandbox) -> None:
    """The recorded requests' repr masks the document in the listing path and in bodies."""
    pay(raw)
    raw.get(f"/v1/customers/{Sandbox.DOCUMENTO}/smartpos")

    shown = repr(sandbox.requests)

    assert Sandbox.DOCUMENTO not in shown
    assert "/v1/customers/529.***.***-25/smartpos" in shown
    assert "'documentoCliente': '529.***.***-25'" in shown
    assert Sandbox.DOCUMENTO == sandbox.requests[0].json["documentoCliente"]
