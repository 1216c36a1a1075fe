"""Every endpoint and every error code of the spec, over raw httpx, in process and over HTTP."""

from __future__ import annotations

import base64
from typing import Any

import httpx
import pytest
from sandbox_bodies import Bodies

from smartpos.testing import Sandbox

CNPJ_ALNUM = "12ABC34501DE35"
OTHER_CPF = "11144477735"
TOO_BIG = 512 * 1024 + 1


def erro(response: httpx.Response, status: int, codigo: str, campo: str | None = None) -> None:
    """Assert an error answer: status, the erro shape, codigo and campo."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"erro"}
    assert body["erro"]["codigo"] == codigo
    assert isinstance(body["erro"]["mensagem"], str)
    assert body["erro"]["mensagem"]
    assert isinstance(body["erro"]["acao"], str)
    assert body["erro"]["acao"]
    assert body["erro"].get("campo") == campo


def other_partner(sandbox: Sandbox, **kwargs: Any) -> None:
    """Add a partner ``other-key`` owning the customer OTHER_CPF with terminal SP-OTHER."""
    sandbox.add_partner("other-key", **kwargs)
    sandbox.add_customer(OTHER_CPF, api_key="other-key")
    sandbox.add_terminal("SP-OTHER", documento_cliente=OTHER_CPF)


# --- POST /qrcode --------------------------------------------------------------------------


def test_qrcode_answers_201_with_the_body_of_2_8(api: httpx.Client, sandbox: Sandbox) -> None:
    """POST /qrcode answers 201 with exactly qrCode, the echoed referencia and expiresAt."""
    response = api.post("/qrcode", json={"documentoCliente": Sandbox.DOCUMENTO, "referencia": "r1"})
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"qrCode", "referencia", "expiresAt"}
    assert body["referencia"] == "r1"
    assert type(body["expiresAt"]) is int
    assert sandbox.now() < body["expiresAt"] <= sandbox.now() + 300


def test_qrcode_without_referencia_gets_one(raw: httpx.Client) -> None:
    """A QR code requested without referencia still answers one."""
    response = raw.post("/qrcode", json={"documentoCliente": Sandbox.DOCUMENTO})
    assert response.status_code == 201
    assert response.json()["referencia"]


def test_qrcode_ttl_and_clock_are_configurable() -> None:
    """expiresAt is the injected clock plus the configured TTL."""
    with Sandbox(clock=lambda: 1_700_000_000.0, qr_code_ttl=60) as sandbox:
        client = httpx.Client(transport=sandbox.transport(), headers={"x-api-key": "sandbox-key"})
        response = client.post(
            "http://s.invalid/qrcode", json={"documentoCliente": Sandbox.DOCUMENTO}
        )
    assert response.json()["expiresAt"] == 1_700_000_060


@pytest.mark.parametrize("documento", [None, "", "   "])
def test_qrcode_requires_documento_cliente(api: httpx.Client, documento: str | None) -> None:
    """An absent or empty documentoCliente answers 400 CAMPO_OBRIGATORIO."""
    body = {} if documento is None else {"documentoCliente": documento}
    erro(api.post("/qrcode", json=body), 400, "CAMPO_OBRIGATORIO", "documentoCliente")


def test_qrcode_for_unknown_customer_is_documento_invalido(raw: httpx.Client) -> None:
    """A QR code for a valid CPF that is no customer answers DOCUMENTO_CLIENTE_INVALIDO."""
    response = raw.post("/qrcode", json={"documentoCliente": OTHER_CPF})
    erro(response, 400, "DOCUMENTO_CLIENTE_INVALIDO", "documentoCliente")


def test_qrcode_for_another_partners_customer_is_403(raw: httpx.Client, sandbox: Sandbox) -> None:
    """A QR code for a customer of another partner answers 403 CLIENTE_NAO_AUTORIZADO."""
    other_partner(sandbox)
    erro(raw.post("/qrcode", json={"documentoCliente": OTHER_CPF}), 403, "CLIENTE_NAO_AUTORIZADO")


# --- authentication ------------------------------------------------------------------------

ENDPOINTS = [
    ("POST", "/qrcode", {"documentoCliente": Sandbox.DOCUMENTO}),
    ("POST", "/v1/payments", None),
    ("POST", "/v1/refunds", {}),
    ("POST", "/v1/print-jobs", None),
    ("GET", f"/v1/customers/{Sandbox.DOCUMENTO}/smartpos", None),
]


@pytest.mark.parametrize(("method", "path", "body"), ENDPOINTS)
def test_missing_key_is_api_key_nao_informada(
    api: httpx.Client, method: str, path: str, body: Any
) -> None:
    """Every endpoint without x-api-key answers 401 API_KEY_NAO_INFORMADA, before body checks."""
    del api.headers["x-api-key"]
    kwargs = {} if method == "GET" else {"json": body or {}}
    erro(api.request(method, path, **kwargs), 401, "API_KEY_NAO_INFORMADA")


@pytest.mark.parametrize("status", ["unknown", "rotated", "inactive"])
@pytest.mark.parametrize(("method", "path", "body"), ENDPOINTS)
def test_bad_key_is_api_key_invalida(
    raw: httpx.Client, sandbox: Sandbox, status: str, method: str, path: str, body: Any
) -> None:
    """A key that does not exist, was rotated or is inactive answers 401 API_KEY_INVALIDA."""
    if status == "unknown":
        raw.headers["x-api-key"] = "nope"
    elif status == "rotated":
        sandbox.rotate_key(Sandbox.API_KEY, "new-key")
    else:
        sandbox.set_key_status(Sandbox.API_KEY, "inactive")
    kwargs = {} if method == "GET" else {"json": body or {}}
    erro(raw.request(method, path, **kwargs), 401, "API_KEY_INVALIDA")


def test_rotated_partner_keeps_its_customers_under_the_new_key(
    raw: httpx.Client, sandbox: Sandbox
) -> None:
    """After rotate_key the new key works for the same customers."""
    sandbox.rotate_key(Sandbox.API_KEY, "new-key")
    raw.headers["x-api-key"] = "new-key"
    assert raw.post("/v1/payments", json=Bodies.payment()).status_code == 202


# --- POST /v1/payments ---------------------------------------------------------------------


def test_payment_imediato_answers_202_with_the_body_of_2_7(
    api: httpx.Client, sandbox: Sandbox
) -> None:
    """An imediato payment answers 202 with exactly the fields of 2.7 and smartposId."""
    body = Bodies.payment()
    response = api.post("/v1/payments", json=body)
    assert response.status_code == 202
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == {
        "referencia": body["referencia"],
        "status": "processando",
        "mensagem": response.json()["mensagem"],
        "smartposId": Sandbox.SMARTPOS_ID,
        "targets": [{"smartposId": Sandbox.SMARTPOS_ID, "status": "enviado"}],
    }
    assert isinstance(response.json()["mensagem"], str)
    assert sandbox.payment(body["referencia"]).status == "aprovado"


def test_payment_manual_targets_every_terminal_of_the_customer(
    api: httpx.Client, sandbox: Sandbox
) -> None:
    """A manual payment without smartposId is published to all the customer's terminals."""
    sandbox.add_terminal("SP-2", documento_cliente=Sandbox.DOCUMENTO)
    sandbox.add_terminal("SP-ELSEWHERE")
    response = api.post("/v1/payments", json=Bodies.manual())
    assert response.status_code == 202
    body = response.json()
    assert "smartposId" not in body
    assert body["targets"] == [
        {"smartposId": Sandbox.SMARTPOS_ID, "status": "enviado"},
        {"smartposId": "SP-2", "status": "enviado"},
    ]


def test_payment_manual_with_smartpos_id_targets_only_that_terminal(
    raw: httpx.Client, sandbox: Sandbox
) -> None:
    """A manual payment with smartposId is published to that terminal only."""
    sandbox.add_terminal("SP-2", documento_cliente=Sandbox.DOCUMENTO)
    response = raw.post("/v1/payments", json=Bodies.manual(smartposId="SP-2"))
    assert response.json()["targets"] == [{"smartposId": "SP-2", "status": "enviado"}]


@pytest.mark.parametrize(
    "overrides",
    [
        {"formaPagamento": "credito", "parcelas": 12, "parcelamento": "administradora"},
        {"formaPagamento": "credito", "parcelas": 2, "parcelamento": "estabelecimento"},
        {"formaPagamento": "credito", "parcelas": 1},
        {"formaPagamento": "debito", "parcelas": 1},
        {"formaPagamento": "pix"},
        {"formaPagamento": "voucher"},
        {"parcelas": Sandbox.MAX_PARCELAS, "formaPagamento": "credito", "parcelamento": "loja"}
        | {"parcelamento": "estabelecimento"},
        {"valorCentavos": 1},
        {"valorCentavos": Sandbox.MAX_VALOR_CENTAVOS},
        {"documentoCliente": "529.982.247-25"},
        {"referencia": Bodies.ref() + "-pedido.42:a_b"},
        {"comprovante": {"imprimir": {"cliente": True, "loja": False}, "visualizar": {}}},
        {"comanda": {"identificacao": "x", "itens": [{"titulo": "t", "descricao": "d"}]}},
        {"campoNovo": "ignored"},
    ],
)
def test_payment_accepts_valid_bodies(api: httpx.Client, overrides: dict[str, Any]) -> None:
    """Valid combinations of the spec's payment fields are accepted with 202."""
    response = api.post("/v1/payments", json=Bodies.payment(**overrides))
    assert response.status_code == 202, response.text


def test_payment_accepts_an_alphanumeric_cnpj_customer(raw: httpx.Client, sandbox: Sandbox) -> None:
    """A customer with an alphanumeric CNPJ can pay, masked or not."""
    sandbox.add_customer(CNPJ_ALNUM)
    sandbox.add_terminal("SP-CNPJ", documento_cliente="12.ABC.345/01DE-35")
    body = Bodies.payment(documentoCliente="12.ABC.345/01DE-35", smartposId="SP-CNPJ")
    assert raw.post("/v1/payments", json=body).status_code == 202
    assert sandbox.events[-1]["dados"]["documentoCliente"] == CNPJ_ALNUM


PAYMENT_ERRORS: list[tuple[dict[str, Any], str, str | None]] = [
    ({"referencia": ...}, "CAMPO_OBRIGATORIO", "referencia"),
    ({"referencia": ""}, "CAMPO_OBRIGATORIO", "referencia"),
    ({"documentoCliente": ...}, "CAMPO_OBRIGATORIO", "documentoCliente"),
    ({"documentoCliente": None}, "CAMPO_OBRIGATORIO", "documentoCliente"),
    ({"valorCentavos": ...}, "CAMPO_OBRIGATORIO", "valorCentavos"),
    ({"modoExecucao": ...}, "CAMPO_OBRIGATORIO", "modoExecucao"),
    ({"referencia": "pedido-123"}, "CAMPO_INVALIDO", "referencia"),
    ({"referencia": "x" + Bodies.ref()}, "CAMPO_INVALIDO", "referencia"),
    ({"referencia": Bodies.ref() + "-"}, "CAMPO_INVALIDO", "referencia"),
    ({"referencia": Bodies.ref() + "-" + "a" * 100}, "CAMPO_INVALIDO", "referencia"),
    ({"referencia": 42}, "CAMPO_INVALIDO", "referencia"),
    ({"documentoCliente": 52998224725}, "CAMPO_INVALIDO", "documentoCliente"),
    ({"smartposId": 5}, "CAMPO_INVALIDO", "smartposId"),
    ({"modoExecucao": "agendado"}, "CAMPO_INVALIDO", "modoExecucao"),
    ({"modoExecucao": True}, "CAMPO_INVALIDO", "modoExecucao"),
    ({"valorCentavos": 0}, "VALOR_INVALIDO", "valorCentavos"),
    ({"valorCentavos": -5}, "VALOR_INVALIDO", "valorCentavos"),
    ({"valorCentavos": 12.5}, "VALOR_INVALIDO", "valorCentavos"),
    ({"valorCentavos": 1234.0}, "VALOR_INVALIDO", "valorCentavos"),
    ({"valorCentavos": "1234"}, "VALOR_INVALIDO", "valorCentavos"),
    ({"valorCentavos": True}, "VALOR_INVALIDO", "valorCentavos"),
    ({"valorCentavos": Sandbox.MAX_VALOR_CENTAVOS + 1}, "VALOR_INVALIDO", "valorCentavos"),
    ({"parcelas": 0}, "VALOR_INVALIDO", "parcelas"),
    ({"parcelas": Sandbox.MAX_PARCELAS + 1}, "VALOR_INVALIDO", "parcelas"),
    ({"parcelas": 2.0}, "VALOR_INVALIDO", "parcelas"),
    ({"parcelas": False}, "VALOR_INVALIDO", "parcelas"),
    ({"formaPagamento": "boleto"}, "FORMA_PAGAMENTO_INVALIDA", "formaPagamento"),
    ({"formaPagamento": "CREDITO"}, "FORMA_PAGAMENTO_INVALIDA", "formaPagamento"),
    ({"formaPagamento": 1}, "CAMPO_INVALIDO", "formaPagamento"),
    ({"formaPagamento": "credito", "parcelas": 3}, "FORMA_PAGAMENTO_INVALIDA", "parcelamento"),
    ({"formaPagamento": "debito", "parcelas": 2}, "FORMA_PAGAMENTO_INVALIDA", "parcelas"),
    ({"formaPagamento": "pix", "parcelas": 3}, "FORMA_PAGAMENTO_INVALIDA", "parcelas"),
    (
        {"formaPagamento": "voucher", "parcelas": 2, "parcelamento": "estabelecimento"},
        "FORMA_PAGAMENTO_INVALIDA",
        "parcelas",
    ),
    ({"parcelamento": "loja"}, "FORMA_PAGAMENTO_INVALIDA", "parcelamento"),
    ({"smartposId": ...}, "SMARTPOS_OBRIGATORIO_MODO_IMEDIATO", "smartposId"),
    ({"smartposId": ""}, "SMARTPOS_OBRIGATORIO_MODO_IMEDIATO", "smartposId"),
    ({"modoExecucao": "manual"}, "COMANDA_OBRIGATORIA_MODO_MANUAL", "comanda"),
    (
        {"modoExecucao": "manual", "comanda": {}},
        "COMANDA_OBRIGATORIA_MODO_MANUAL",
        "comanda.identificacao",
    ),
    (
        {"modoExecucao": "manual", "comanda": {"identificacao": " "}},
        "COMANDA_OBRIGATORIA_MODO_MANUAL",
        "comanda.identificacao",
    ),
    ({"comanda": "Mesa 7"}, "CAMPO_INVALIDO", "comanda"),
    ({"comanda": {}}, "CAMPO_OBRIGATORIO", "comanda.identificacao"),
    ({"comanda": {"identificacao": ""}}, "CAMPO_OBRIGATORIO", "comanda.identificacao"),
    ({"comanda": {"identificacao": 7}}, "CAMPO_INVALIDO", "comanda.identificacao"),
    ({"comanda": {"identificacao": "x", "itens": {}}}, "CAMPO_INVALIDO", "comanda.itens"),
    (
        {"comanda": {"identificacao": "x", "itens": [{"titulo": 1}]}},
        "CAMPO_INVALIDO",
        "comanda.itens[0].titulo",
    ),
    ({"comanda": {"identificacao": "x", "endereco": 1}}, "CAMPO_INVALIDO", "comanda.endereco"),
    ({"comprovante": []}, "CAMPO_INVALIDO", "comprovante"),
    (
        {"comprovante": {"imprimir": {"cliente": "sim"}}},
        "CAMPO_INVALIDO",
        "comprovante.imprimir.cliente",
    ),
    ({"documentoCliente": "52998224724"}, "DOCUMENTO_CLIENTE_INVALIDO", "documentoCliente"),
    ({"documentoCliente": "11111111111"}, "DOCUMENTO_CLIENTE_INVALIDO", "documentoCliente"),
    ({"documentoCliente": "123"}, "DOCUMENTO_CLIENTE_INVALIDO", "documentoCliente"),
    ({"documentoCliente": OTHER_CPF}, "DOCUMENTO_CLIENTE_INVALIDO", "documentoCliente"),
    ({"smartposId": "SP-NOPE"}, "SMARTPOS_NAO_ENCONTRADO", "smartposId"),
]


@pytest.mark.parametrize(("overrides", "codigo", "campo"), PAYMENT_ERRORS)
def test_payment_errors(
    api: httpx.Client,
    sandbox: Sandbox,
    overrides: dict[str, Any],
    codigo: str,
    campo: str | None,
) -> None:
    """Each payment rule of the spec answers its codigo (and campo), and records nothing."""
    response = api.post("/v1/payments", json=Bodies.payment(**overrides))
    status = 404 if codigo == "SMARTPOS_NAO_ENCONTRADO" else 400
    erro(response, status, codigo, campo)
    assert sandbox.payments == []
    assert sandbox.events == []


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b'"x"', b"\xff\xfe"])
def test_payment_with_a_body_that_is_no_json_object_is_campo_invalido(
    api: httpx.Client, content: bytes
) -> None:
    """Malformed JSON, or JSON that is not an object, answers 400 CAMPO_INVALIDO, campo ``$``."""
    response = api.post(
        "/v1/payments", content=content, headers={"content-type": "application/json"}
    )
    erro(response, 400, "CAMPO_INVALIDO", "$")


def test_field_checks_come_before_the_customer(raw: httpx.Client) -> None:
    """With a bad amount and an unknown customer, the field check (VALOR_INVALIDO) wins."""
    response = raw.post("/v1/payments", json=Bodies.payment(valorCentavos=0, documentoCliente="1"))
    erro(response, 400, "VALOR_INVALIDO", "valorCentavos")


def test_payment_for_another_partners_customer_is_403(raw: httpx.Client, sandbox: Sandbox) -> None:
    """A payment for a customer owned by another partner answers 403 CLIENTE_NAO_AUTORIZADO."""
    other_partner(sandbox)
    body = Bodies.payment(documentoCliente=OTHER_CPF, smartposId="SP-OTHER")
    erro(raw.post("/v1/payments", json=body), 403, "CLIENTE_NAO_AUTORIZADO")


def test_payment_without_webhook_is_webhook_nao_configurado(
    api: httpx.Client, sandbox: Sandbox
) -> None:
    """A partner with no webhook URL gets 400 WEBHOOK_NAO_CONFIGURADO on payments only."""
    sandbox.set_webhook(False)
    erro(api.post("/v1/payments", json=Bodies.payment()), 400, "WEBHOOK_NAO_CONFIGURADO")
    assert api.post("/v1/print-jobs", json=Bodies.print_job()).status_code == 202


def test_webhook_check_comes_after_the_customer_and_before_the_terminal(
    raw: httpx.Client, sandbox: Sandbox
) -> None:
    """Without webhook, an unknown customer still answers DOCUMENTO_CLIENTE_INVALIDO first."""
    sandbox.set_webhook(False)
    body = Bodies.payment(documentoCliente=OTHER_CPF)
    erro(raw.post("/v1/payments", json=body), 400, "DOCUMENTO_CLIENTE_INVALIDO", "documentoCliente")
    body = Bodies.payment(smartposId="SP-NOPE")
    erro(raw.post("/v1/payments", json=body), 400, "WEBHOOK_NAO_CONFIGURADO")


def test_payment_on_another_customers_terminal_is_404(raw: httpx.Client, sandbox: Sandbox) -> None:
    """A terminal linked to another customer answers 404 SMARTPOS_NAO_ENCONTRADO."""
    other_partner(sandbox)
    body = Bodies.payment(smartposId="SP-OTHER")
    erro(raw.post("/v1/payments", json=body), 404, "SMARTPOS_NAO_ENCONTRADO", "smartposId")


def test_payment_manual_for_a_customer_without_terminals_is_404(
    raw: httpx.Client, sandbox: Sandbox
) -> None:
    """A manual card for a customer with no linked terminal answers 404."""
    sandbox.link_terminal(Sandbox.SMARTPOS_ID, None)
    erro(raw.post("/v1/payments", json=Bodies.manual()), 404, "SMARTPOS_NAO_ENCONTRADO")


def test_reused_referencia_is_409(api: httpx.Client, sandbox: Sandbox) -> None:
    """A referencia used before answers 409 REFERENCIA_DUPLICADA and nothing new happens."""
    body = Bodies.payment()
    assert api.post("/v1/payments", json=body).status_code == 202
    response = api.post("/v1/payments", json=body)
    erro(response, 409, "REFERENCIA_DUPLICADA", "referencia")
    assert len(sandbox.payments) == 1
    assert len(sandbox.events) == 1


def test_referencia_is_unique_across_payments_and_print_jobs(raw: httpx.Client) -> None:
    """A payment's referencia cannot be reused for a print job."""
    body = Bodies.payment()
    assert raw.post("/v1/payments", json=body).status_code == 202
    response = raw.post("/v1/print-jobs", json=Bodies.print_job(referencia=body["referencia"]))
    erro(response, 409, "REFERENCIA_DUPLICADA", "referencia")


def test_referencia_is_unique_per_partner(raw: httpx.Client, sandbox: Sandbox) -> None:
    """Two partners may use the same referencia."""
    other_partner(sandbox)
    body = Bodies.payment()
    assert raw.post("/v1/payments", json=body).status_code == 202
    other = dict(body, documentoCliente=OTHER_CPF, smartposId="SP-OTHER")
    response = raw.post("/v1/payments", json=other, headers={"x-api-key": "other-key"})
    assert response.status_code == 202


def test_a_rejected_request_does_not_use_up_its_referencia(raw: httpx.Client) -> None:
    """After a 400, the same referencia is still free."""
    body = Bodies.payment(valorCentavos=0)
    assert raw.post("/v1/payments", json=body).status_code == 400
    assert raw.post("/v1/payments", json=dict(body, valorCentavos=10)).status_code == 202


# --- POST /v1/print-jobs -------------------------------------------------------------------


def test_print_job_answers_202_with_the_body_of_2_7(api: httpx.Client, sandbox: Sandbox) -> None:
    """A print job answers 202 with the fields of 2.7 and the decoded content is kept."""
    body = Bodies.print_job()
    response = api.post("/v1/print-jobs", json=body)
    assert response.status_code == 202
    assert response.json() == {
        "referencia": body["referencia"],
        "status": "processando",
        "mensagem": response.json()["mensagem"],
        "smartposId": Sandbox.SMARTPOS_ID,
        "targets": [{"smartposId": Sandbox.SMARTPOS_ID, "status": "enviado"}],
    }
    assert sandbox.print_jobs[0].conteudo == "Olá, mundo!".encode()


PRINT_ERRORS: list[tuple[dict[str, Any], int, str, str | None]] = [
    ({"referencia": ...}, 400, "CAMPO_OBRIGATORIO", "referencia"),
    ({"documentoCliente": ...}, 400, "CAMPO_OBRIGATORIO", "documentoCliente"),
    ({"smartposId": ...}, 400, "CAMPO_OBRIGATORIO", "smartposId"),
    ({"conteudo": ...}, 400, "CAMPO_OBRIGATORIO", "conteudo.tipo"),
    ({"conteudo": {"base64": "aGk="}}, 400, "CAMPO_OBRIGATORIO", "conteudo.tipo"),
    ({"conteudo": {"tipo": "base64"}}, 400, "CAMPO_OBRIGATORIO", "conteudo.base64"),
    ({"conteudo": {"tipo": "base64", "base64": ""}}, 400, "CAMPO_OBRIGATORIO", "conteudo.base64"),
    ({"conteudo": "aGk="}, 400, "CAMPO_INVALIDO", "conteudo"),
    ({"conteudo": {"tipo": "pdf", "base64": "aGk="}}, 400, "CAMPO_INVALIDO", "conteudo.tipo"),
    ({"conteudo": {"tipo": "base64", "base64": "@@@"}}, 400, "CAMPO_INVALIDO", "conteudo.base64"),
    ({"conteudo": {"tipo": "base64", "base64": "aGk"}}, 400, "CAMPO_INVALIDO", "conteudo.base64"),
    ({"conteudo": {"tipo": "base64", "base64": 5}}, 400, "CAMPO_INVALIDO", "conteudo.base64"),
    (
        {
            "conteudo": {
                "tipo": "base64",
                "base64": base64.b64encode(bytes(512 * 1024 + 1)).decode(),
            }
        },
        400,
        "CAMPO_INVALIDO",
        "conteudo.base64",
    ),
    ({"referencia": "print-1"}, 400, "CAMPO_INVALIDO", "referencia"),
    ({"smartposId": ["SP"]}, 400, "CAMPO_INVALIDO", "smartposId"),
    ({"documentoCliente": "000"}, 400, "DOCUMENTO_CLIENTE_INVALIDO", "documentoCliente"),
    ({"smartposId": "SP-NOPE"}, 404, "SMARTPOS_NAO_ENCONTRADO", "smartposId"),
]


@pytest.mark.parametrize(("overrides", "status", "codigo", "campo"), PRINT_ERRORS)
def test_print_job_errors(
    api: httpx.Client,
    sandbox: Sandbox,
    overrides: dict[str, Any],
    status: int,
    codigo: str,
    campo: str | None,
) -> None:
    """Each print rule of the spec answers its codigo (and campo), and records nothing."""
    erro(api.post("/v1/print-jobs", json=Bodies.print_job(**overrides)), status, codigo, campo)
    assert sandbox.print_jobs == []


def test_print_job_accepts_content_at_the_size_limit(raw: httpx.Client) -> None:
    """Content of exactly 512 KiB is accepted."""
    encoded = base64.b64encode(bytes(512 * 1024)).decode()
    body = Bodies.print_job(conteudo={"tipo": "base64", "base64": encoded})
    assert raw.post("/v1/print-jobs", json=body).status_code == 202


def test_print_job_for_another_partners_customer_is_403(
    raw: httpx.Client, sandbox: Sandbox
) -> None:
    """A print job for another partner's customer answers 403 CLIENTE_NAO_AUTORIZADO."""
    other_partner(sandbox)
    body = Bodies.print_job(documentoCliente=OTHER_CPF, smartposId="SP-OTHER")
    erro(raw.post("/v1/print-jobs", json=body), 403, "CLIENTE_NAO_AUTORIZADO")


def test_print_job_duplicate_is_409(raw: httpx.Client) -> None:
    """A print job reusing its referencia answers 409."""
    body = Bodies.print_job()
    assert raw.post("/v1/print-jobs", json=body).status_code == 202
    erro(raw.post("/v1/print-jobs", json=body), 409, "REFERENCIA_DUPLICADA", "referencia")


# --- GET /v1/customers/{documentoCliente}/smartpos -----------------------------------------


def test_terminal_listing(api: httpx.Client, sandbox: Sandbox) -> None:
    """The listing answers 200 with the customer's terminals only."""
    sandbox.add_terminal(
        "SP-2", documento_cliente=Sandbox.DOCUMENTO, numero_serie_terminal="N2", adquirente="CIELO"
    )
    sandbox.add_terminal("SP-UNLINKED")
    response = api.get("/v1/customers/529.982.247-25/smartpos")
    assert response.status_code == 200
    assert response.json() == {
        "documentoCliente": Sandbox.DOCUMENTO,
        "smartpos": [
            {
                "smartposId": Sandbox.SMARTPOS_ID,
                "numeroSerieTerminal": "SN-SANDBOX-0001",
                "adquirente": "STONE",
                "status": "ativo",
            },
            {
                "smartposId": "SP-2",
                "numeroSerieTerminal": "N2",
                "adquirente": "CIELO",
                "status": "ativo",
            },
        ],
    }


@pytest.mark.parametrize("documento", ["12345678900", OTHER_CPF, "abc"])
def test_terminal_listing_for_a_bad_document_is_400(api: httpx.Client, documento: str) -> None:
    """An invalid or unknown document in the path answers 400 DOCUMENTO_CLIENTE_INVALIDO."""
    response = api.get(f"/v1/customers/{documento}/smartpos")
    erro(response, 400, "DOCUMENTO_CLIENTE_INVALIDO", "documentoCliente")


def test_terminal_listing_for_another_partners_customer_is_403(
    raw: httpx.Client, sandbox: Sandbox
) -> None:
    """Listing another partner's customer answers 403."""
    other_partner(sandbox)
    erro(raw.get(f"/v1/customers/{OTHER_CPF}/smartpos"), 403, "CLIENTE_NAO_AUTORIZADO")


# --- routing -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/v1/payment", "/v2/payments", "/v1/payments/x"])
def test_unknown_path_is_404_with_an_erro_body(api: httpx.Client, path: str) -> None:
    """An unknown path answers 404 with an erro body."""
    erro(api.post(path, json={}), 404, "RECURSO_NAO_ENCONTRADO")


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("GET", "/v1/payments", "POST"),
        ("DELETE", "/qrcode", "POST"),
        ("POST", f"/v1/customers/{Sandbox.DOCUMENTO}/smartpos", "GET"),
    ],
)
def test_wrong_method_is_405(api: httpx.Client, method: str, path: str, allow: str) -> None:
    """A known path with the wrong method answers 405 with Allow."""
    response = api.request(method, path)
    erro(response, 405, "METODO_NAO_PERMITIDO")
    assert response.headers["allow"] == allow


def test_body_without_json_content_type_is_415(api: httpx.Client) -> None:
    """A POST whose Content-Type is not application/json answers 415."""
    response = api.post("/v1/payments", content=b"{}", headers={"content-type": "text/plain"})
    erro(response, 415, "CONTENT_TYPE_INVALIDO")


def test_every_answer_has_a_request_id(raw: httpx.Client) -> None:
    """Answers carry an x-request-id header."""
    assert raw.post("/v1/payments", json={}).headers["x-request-id"]


def test_requests_are_recorded_without_the_api_key(raw: httpx.Client, sandbox: Sandbox) -> None:
    """sandbox.requests keeps method, path, JSON and status of every request."""
    body = Bodies.payment()
    raw.post("/v1/payments", json=body)
    (recorded,) = sandbox.requests
    assert (recorded.method, recorded.path, recorded.json, recorded.status_code) == (
        "POST",
        "/v1/payments",
        body,
        202,
    )
    assert Sandbox.API_KEY not in repr(recorded)
