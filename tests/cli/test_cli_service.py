"""qrcode, pay, refund, print and terminals as subprocesses, against a sandbox on 127.0.0.1."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from cli_helpers import cli_env, run_cli

from smartpos.testing import DropConnection, Sandbox

pytestmark = pytest.mark.slow

DOC = Sandbox.DOCUMENTO
TERMINAL = Sandbox.SMARTPOS_ID


def approved_event(sandbox: Sandbox, referencia: str) -> dict[str, object]:
    """The pagamento.aprovado envelope the sandbox recorded for ``referencia``."""
    for envelope in sandbox.wait_for_events(1):
        if (
            envelope["tipo"] == "pagamento.aprovado"
            and envelope["dados"]["referencia"] == referencia
        ):
            return envelope
    raise AssertionError(f"no pagamento.aprovado for {referencia}")


def pay(env: dict[str, str], valor: int = 1990, *extra: str) -> dict[str, object]:
    """Run ``smartpos pay --json`` and return its output."""
    result = run_cli("pay", DOC, str(valor), "--smartpos-id", TERMINAL, "--json", *extra, env=env)
    assert result.returncode == 0, result.stderr
    return dict(json.loads(result.stdout))


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_pay_json_is_the_acceptance(
    served: tuple[Sandbox, str], sandbox_env: dict[str, str]
) -> None:
    """``pay --json`` prints the acceptance, and the sandbox recorded that very payment."""
    sandbox, _ = served
    data = pay(sandbox_env, 2500, "--forma", "pix")
    assert data["status"] == "processando"
    assert data["targets"] == [{"smartpos_id": TERMINAL, "status": "enviado"}]
    payment = sandbox.payment(str(data["referencia"]))
    assert (payment.valor_centavos, payment.forma_pagamento) == (2500, "pix")


def test_pay_text_says_it_is_not_final(sandbox_env: dict[str, str]) -> None:
    """The text output of ``pay`` shows the referencia and says the sale is not final yet."""
    result = run_cli("pay", DOC, "1990", "--smartpos-id", TERMINAL, env=sandbox_env)
    assert result.returncode == 0
    assert "accepted" in result.stdout
    assert "not final yet" in result.stdout
    assert "\x1b[" not in result.stdout


def test_pay_with_given_referencia_and_installments(
    served: tuple[Sandbox, str], sandbox_env: dict[str, str]
) -> None:
    """``--referencia`` is used as given; credito in installments sends parcelamento."""
    sandbox, _ = served
    referencia = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9-pdv1"
    data = pay(
        sandbox_env,
        30000,
        "--forma",
        "credito",
        "--parcelas",
        "3",
        "--parcelamento",
        "estabelecimento",
        "--referencia",
        referencia,
    )
    assert data["referencia"] == referencia
    assert sandbox.payment(referencia).parcelas == 3


def test_pay_manual_creates_a_queue_card(
    served: tuple[Sandbox, str], sandbox_env: dict[str, str]
) -> None:
    """``--manual --comanda`` puts a card in the operator's queue with its items."""
    sandbox, _ = served
    data = pay(sandbox_env, 4500, "--manual", "--comanda", "Mesa 12", "--item", "Pizza:Grande")
    cards = [c for c in sandbox.manual_queue(DOC) if c.referencia == data["referencia"]]
    assert [c.identificacao for c in cards] == ["Mesa 12"]


def test_reused_referencia_is_exit_3(sandbox_env: dict[str, str]) -> None:
    """A referencia used before: exit 3 (its earlier request may have charged), with the
    service's codigo, mensagem and acao on stderr."""
    referencia = "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d"
    pay(sandbox_env, 100, "--referencia", referencia)
    result = run_cli(
        "pay", DOC, "100", "--smartpos-id", TERMINAL, "--referencia", referencia, env=sandbox_env
    )
    assert result.returncode == 3
    assert "REFERENCIA_DUPLICADA" in result.stderr
    assert "mensagem" in result.stderr
    assert "acao" in result.stderr


def test_invalid_key_exits_1_with_codigo_mensagem_acao(served: tuple[Sandbox, str]) -> None:
    """An invalid API key: exit 1, the error's codigo, mensagem and acao, and no key echoed."""
    _, base_url = served
    env = cli_env(SMARTPOS_API_KEY="not-a-key-s3cr3t", SMARTPOS_BASE_URL=base_url)
    result = run_cli("pay", DOC, "1990", "--smartpos-id", TERMINAL, env=env)
    assert result.returncode == 1
    lines = dict(
        line.strip().split(None, 1) for line in result.stderr.splitlines() if line.startswith("  ")
    )
    assert lines["codigo"] == "API_KEY_INVALIDA"
    assert lines["mensagem"]
    assert lines["acao"]
    assert "s3cr3t" not in result.stderr + result.stdout


def test_service_error_as_json(served: tuple[Sandbox, str]) -> None:
    """With ``--json`` the error is one JSON object on stderr with codigo, mensagem and acao."""
    _, base_url = served
    result = run_cli(
        "terminals", DOC, "--json", "--api-key", "wrong", "--base-url", base_url, env=cli_env()
    )
    assert result.returncode == 1
    error = json.loads(result.stderr)["error"]
    assert error["codigo"] == "API_KEY_INVALIDA"
    assert error["mensagem"]
    assert error["acao"]


def test_unknown_terminal_names_the_field(sandbox_env: dict[str, str]) -> None:
    """A terminal not linked to the customer: exit 1 with SMARTPOS_NAO_ENCONTRADO."""
    result = run_cli("pay", DOC, "1990", "--smartpos-id", "SP-NOPE", env=sandbox_env)
    assert result.returncode == 1
    assert "SMARTPOS_NAO_ENCONTRADO" in result.stderr
    assert "smartposId" in result.stderr


def test_local_validation_exits_1_before_sending(
    served: tuple[Sandbox, str], sandbox_env: dict[str, str]
) -> None:
    """A zero amount is refused locally (VALOR_INVALIDO), exit 1, and nothing is sent."""
    sandbox, _ = served
    before = len(sandbox.requests)
    result = run_cli("pay", DOC, "0", "--smartpos-id", TERMINAL, env=sandbox_env)
    assert result.returncode == 1
    assert "VALOR_INVALIDO" in result.stderr
    assert "nothing was sent" in result.stderr
    assert len(sandbox.requests) == before


def test_missing_configuration_says_what_to_set() -> None:
    """Without a key or base URL anywhere: exit 1 naming the environment variables."""
    result = run_cli("terminals", DOC, env=cli_env())
    assert result.returncode == 1
    assert "SMARTPOS_API_KEY" in result.stderr


def test_network_failure_exits_1_with_advice() -> None:
    """Nothing listening at the base URL: exit 1, and the advice says it is safe to retry."""
    env = cli_env(SMARTPOS_API_KEY="k", SMARTPOS_BASE_URL=f"http://127.0.0.1:{free_port()}")
    result = run_cli("terminals", DOC, "--max-retries", "0", env=env)
    assert result.returncode == 1
    assert "could not reach the service" in result.stderr
    assert "safe to try again" in result.stderr


def test_outcome_unknown_exits_3(served: tuple[Sandbox, str], sandbox_env: dict[str, str]) -> None:
    """A payment whose answer never came: exit 3, its referencia, and 'do NOT retry'."""
    sandbox, _ = served
    sandbox.fail_next("payments", DropConnection())
    referencia = "9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a"
    result = run_cli(
        "pay",
        DOC,
        "1990",
        "--smartpos-id",
        TERMINAL,
        "--referencia",
        referencia,
        "--max-retries",
        "0",
        env=sandbox_env,
    )
    assert result.returncode == 3
    assert referencia in result.stderr
    assert "do NOT retry with a new referencia" in result.stderr
    assert sandbox.payment(referencia).valor_centavos == 1990


def test_qrcode_json_and_png(tmp_path: Path, sandbox_env: dict[str, str]) -> None:
    """``qrcode --png --json`` prints the QR code's value and writes a PNG image."""
    png = tmp_path / "qr.png"
    result = run_cli("qrcode", DOC, "--png", str(png), "--json", env=sandbox_env)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["qr_code"].startswith("smartpos:qr:v1:")
    assert data["saved_to"] == str(png)
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_qrcode_draws_and_saves_svg(tmp_path: Path, sandbox_env: dict[str, str]) -> None:
    """``qrcode --svg`` draws the code with block characters and writes an SVG file."""
    svg = tmp_path / "qr.svg"
    result = run_cli("qrcode", DOC, "--svg", str(svg), env=sandbox_env)
    assert result.returncode == 0, result.stderr
    assert "\u2588" in result.stdout
    assert "smartpos:qr:v1:" in result.stdout
    assert "<svg" in svg.read_text()


def test_qrcode_unwritable_image_exits_1(tmp_path: Path, sandbox_env: dict[str, str]) -> None:
    """An image path in a missing directory: exit 1 naming the path."""
    target = tmp_path / "missing" / "qr.png"
    result = run_cli("qrcode", DOC, "--png", str(target), env=sandbox_env)
    assert result.returncode == 1
    assert str(target) in result.stderr


def test_terminals_lists_the_sandbox_terminal(sandbox_env: dict[str, str]) -> None:
    """``terminals --json`` lists the customer's terminal with its raw fields; text too."""
    result = run_cli("terminals", "529.982.247-25", "--json", env=sandbox_env)
    assert result.returncode == 0, result.stderr
    terminals = json.loads(result.stdout)
    assert TERMINAL in [t["smartpos_id"] for t in terminals]
    assert all("raw" in t for t in terminals)
    text = run_cli("terminals", DOC, env=sandbox_env)
    assert text.stdout.startswith(TERMINAL)


def test_print_from_stdin(served: tuple[Sandbox, str], sandbox_env: dict[str, str]) -> None:
    """``print DOC ID -`` prints standard input; the sandbox got exactly those bytes."""
    sandbox, _ = served
    content = b"Recibo\nTotal R$ 19,90\n"
    result = run_cli("print", DOC, TERMINAL, "-", "--json", env=sandbox_env, input=content)
    assert result.returncode == 0, result.stderr
    referencia = json.loads(result.stdout)["referencia"]
    jobs = [j for j in sandbox.print_jobs if j.referencia == referencia]
    assert [j.conteudo for j in jobs] == [content]


def test_print_from_file_and_missing_file(tmp_path: Path, sandbox_env: dict[str, str]) -> None:
    """``print`` reads a file; a missing file is exit 1 naming it, before any call."""
    receipt = tmp_path / "recibo.txt"
    receipt.write_text("Obrigado!\n")
    ok = run_cli("print", DOC, TERMINAL, str(receipt), env=sandbox_env)
    assert ok.returncode == 0
    assert "impressao.concluida" in ok.stdout
    missing = run_cli("print", DOC, TERMINAL, str(tmp_path / "nope.txt"), env=sandbox_env)
    assert missing.returncode == 1
    assert "nope.txt" in missing.stderr


def test_refund_from_event_file(
    tmp_path: Path, served: tuple[Sandbox, str], sandbox_env: dict[str, str]
) -> None:
    """``refund --event FILE`` refunds the approved total on the payment's terminal."""
    sandbox, _ = served
    referencia = str(pay(sandbox_env, 3100)["referencia"])
    event_file = tmp_path / "aprovado.json"
    event_file.write_text(json.dumps(approved_event(sandbox, referencia)))
    result = run_cli("refund", "--event", str(event_file), "--json", env=sandbox_env)
    assert result.returncode == 0, result.stderr
    refund_ref = json.loads(result.stdout)["referencia"]
    refunds = [r for r in sandbox.refunds if r.referencia == refund_ref]
    assert [(r.valor_centavos, r.pagamento_referencia) for r in refunds] == [(3100, referencia)]


def test_refund_partial_from_wrapped_record_on_stdin(
    served: tuple[Sandbox, str], sandbox_env: dict[str, str]
) -> None:
    """``refund --event -`` reads an inbox record (``events show --json``) from stdin."""
    sandbox, _ = served
    referencia = str(pay(sandbox_env, 5000)["referencia"])
    record = {"id": "x", "state": "done", "raw": approved_event(sandbox, referencia)}
    result = run_cli(
        "refund",
        "--event",
        "-",
        "--valor-centavos",
        "1200",
        "--json",
        env=sandbox_env,
        input=json.dumps(record).encode(),
    )
    assert result.returncode == 0, result.stderr
    refund_ref = json.loads(result.stdout)["referencia"]
    assert [r.valor_centavos for r in sandbox.refunds if r.referencia == refund_ref] == [1200]


def test_refund_with_explicit_fields(
    served: tuple[Sandbox, str], sandbox_env: dict[str, str]
) -> None:
    """The explicit form takes the authorization fields as options."""
    sandbox, _ = served
    referencia = str(pay(sandbox_env, 800)["referencia"])
    autorizacao = approved_event(sandbox, referencia)["dados"]["autorizacao"]  # type: ignore[index]
    result = run_cli(
        "refund",
        DOC,
        TERMINAL,
        "800",
        "--codigo-autorizacao",
        autorizacao["codigo"],
        "--numero-transacao",
        autorizacao["numeroTransacao"],
        "--dados-finalizacao",
        autorizacao["dadosFinalizacao"],
        "--tipo-pagamento",
        autorizacao["tipoPagamento"],
        env=sandbox_env,
    )
    assert result.returncode == 0, result.stderr
    assert "refund requested" in result.stdout


def test_refund_usage_errors(tmp_path: Path, sandbox_env: dict[str, str]) -> None:
    """Missing authorization options, or positionals mixed with --event, exit 2."""
    missing = run_cli("refund", DOC, TERMINAL, "800", "--codigo-autorizacao", "X", env=sandbox_env)
    assert missing.returncode == 2
    assert "--numero-transacao" in missing.stderr
    mixed = run_cli("refund", DOC, "--event", str(tmp_path / "e.json"), env=sandbox_env)
    assert mixed.returncode == 2


def test_refund_of_a_non_payment_event_exits_1(tmp_path: Path, sandbox_env: dict[str, str]) -> None:
    """An event file of another kind is refused with exit 1 before anything is sent."""
    event_file = tmp_path / "impressao.json"
    event_file.write_text(
        json.dumps(
            {
                "id": "e1",
                "tipo": "impressao.concluida",
                "criadoEm": "2026-05-04T13:45:12-03:00",
                "dados": {"referencia": "r", "documentoCliente": DOC, "status": "concluida"},
            }
        )
    )
    result = run_cli("refund", "--event", str(event_file), env=sandbox_env)
    assert result.returncode == 1
    assert "only pagamento.aprovado can be refunded" in result.stderr
