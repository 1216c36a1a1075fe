"""The command's errors speak its own language: its options, its JSON spelling, no false claims.

In-process, through ``smartpos.cli.main``, against a sandbox served on 127.0.0.1.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import invoke

import smartpos
from smartpos.cli._app import build_parser, cli_option, cli_words
from smartpos.cli._samples import sample
from smartpos.testing import InternalError, Sandbox

DOC = Sandbox.DOCUMENTO
TERMINAL = Sandbox.SMARTPOS_ID
# A Python identifier (smartpos_id, modo_execucao), a Python call or keyword argument.
PYTHON = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b|\b\w+=|smartpos\.[A-Za-z_]+\(|\bcreate(_for)?\b")
SNAKE_KEY = re.compile(r"^[a-z]+(?:_[a-z]+)*$")


@pytest.fixture
def env(served: tuple[Sandbox, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Sandbox:
    """The command pointed at the served sandbox, run from an empty directory."""
    sandbox, base_url = served
    monkeypatch.setenv("SMARTPOS_BASE_URL", base_url)
    monkeypatch.setenv("SMARTPOS_API_KEY", Sandbox.API_KEY)
    monkeypatch.delenv("SMARTPOS_INBOX", raising=False)
    monkeypatch.chdir(tmp_path)
    return sandbox


def _unauthorized_event(tmp_path: Path) -> str:
    """An approval without dados.autorizacao, in a file."""
    envelope = sample("pagamento.aprovado", "44444444-4444-4444-8444-444444444444")
    del envelope["dados"]["autorizacao"]
    path = tmp_path / "sem-autorizacao.json"
    path.write_text(json.dumps(envelope), encoding="utf-8")
    return str(path)


PAY = ["pay", DOC, "1990", "--smartpos-id", TERMINAL]
LOCAL_ERRORS: list[tuple[list[str], str]] = [
    (["pay", DOC, "1990"], "--smartpos-id"),
    (["pay", DOC, "1990", "--manual"], "--comanda"),
    (["pay", DOC, "0", "--smartpos-id", TERMINAL], "VALOR_CENTAVOS"),
    ([*PAY, "--parcelas", "0"], "--parcelas"),
    ([*PAY, "--forma", "pix", "--parcelas", "3"], "--parcelas"),
    ([*PAY, "--forma", "credito", "--parcelas", "3"], "--parcelamento"),
    ([*PAY, "--referencia", "pedido-1"], "--referencia"),
    (["pay", "123", "1990", "--smartpos-id", TERMINAL], "DOC"),
    (["qrcode", "123"], "DOC"),
    (["terminals", "123"], "DOC"),
    (["print", DOC, " ", "-"], "SMARTPOS_ID"),
    (
        ["refund", DOC, TERMINAL, "0", "--codigo-autorizacao", "A", "--numero-transacao", "1",
         "--dados-finalizacao", "x", "--tipo-pagamento", "CREDITO"],
        "VALOR_CENTAVOS",
    ),
    (
        ["refund", DOC, TERMINAL, "10", "--codigo-autorizacao", "", "--numero-transacao", "1",
         "--dados-finalizacao", "x", "--tipo-pagamento", "CREDITO"],
        "--codigo-autorizacao",
    ),
    (["refund", "--event", "EVENT_FILE"], "--event (its dados.autorizacao.codigo)"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "option"), LOCAL_ERRORS, ids=lambda v: v if isinstance(v, str) else " ".join(v)
)
def test_a_local_validation_error_names_the_option(
    env: Sandbox, tmp_path: Path, argv: list[str], option: str
) -> None:
    """A refusal before sending names the option to fix, never a Python argument; exit 1."""
    argv = [_unauthorized_event(tmp_path) if a == "EVENT_FILE" else a for a in argv]
    before = len(env.requests)
    text = invoke(*argv, stdin=b"recibo")
    assert text.returncode == 1, text
    assert "nothing was sent" in text.stderr
    assert re.search(rf"^  option +{re.escape(option)}$", text.stderr, flags=re.MULTILINE)
    assert f"what to do: fix {option}" in text.stderr
    assert not PYTHON.search(text.stderr), text.stderr
    as_json = invoke(*argv, "--json", stdin=b"recibo")
    error = json.loads(as_json.stderr)["error"]
    assert error["option"] == option
    assert error["codigo"]
    assert not PYTHON.search(error["mensagem"]), error["mensagem"]
    assert len(env.requests) == before


def test_a_service_refusal_names_the_option_too(env: Sandbox) -> None:
    """The service's campo is shown with the command's option for it (SMARTPOS_ID for print)."""
    result = invoke("print", DOC, "SP-NOPE", "-", "--json", stdin=b"recibo")
    assert result.returncode == 1
    error = json.loads(result.stderr)["error"]
    assert (error["codigo"], error["campo"], error["option"]) == (
        "SMARTPOS_NAO_ENCONTRADO",
        "smartposId",
        "SMARTPOS_ID",
    )


def test_json_error_keys_are_spelled_like_the_success_output(env: Sandbox) -> None:
    """Error keys are snake_case like success keys: ``request_id`` in both, never "request id"."""
    ok = invoke("pay", DOC, "1990", "--smartpos-id", TERMINAL, "--json")
    assert ok.returncode == 0, ok
    assert "request_id" in json.loads(ok.stdout)
    refused = invoke("pay", DOC, "1990", "--smartpos-id", TERMINAL, "--api-key", "wrong", "--json")
    assert refused.returncode == 1
    error = json.loads(refused.stderr)["error"]
    assert error["request_id"]
    assert error["status_code"] == 401
    env.fail_next("payments", InternalError(after_accept=True))
    unknown = invoke("pay", DOC, "1990", "--smartpos-id", TERMINAL, "--max-retries", "0", "--json")
    assert unknown.returncode == 3
    unknown_error = json.loads(unknown.stderr)["error"]
    assert unknown_error["last_error"]
    for key in [*error, *unknown_error]:
        assert SNAKE_KEY.match(key), key


def test_text_errors_show_the_keys_as_words(env: Sandbox) -> None:
    """In text, ``request_id`` reads ``request id``, as in docs/en/cli.md."""
    result = invoke("pay", DOC, "1990", "--smartpos-id", TERMINAL, "--api-key", "wrong")
    assert result.returncode == 1
    assert re.search(r"^  request id  \S+$", result.stderr, flags=re.MULTILINE), result.stderr
    assert "request_id" not in result.stderr


def test_referencia_never_claims_something_was_not_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    """``referencia`` sends nothing: its error names --suffix and says nothing about sending."""
    monkeypatch.delenv("SMARTPOS_BASE_URL", raising=False)
    result = invoke("referencia", "--suffix", "a b")
    assert result.returncode == 1
    assert result.stderr.startswith("error: --suffix is not valid")
    assert "what to do: fix --suffix" in result.stderr
    assert "sent" not in result.stderr
    helped = invoke("referencia", "--help")
    assert helped.returncode == 0
    assert "sent" not in helped.stdout
    good = invoke("referencia", "--suffix", "pdv7")
    assert good.returncode == 0
    assert smartpos.is_valid_referencia(good.stdout.strip())


@pytest.mark.parametrize("url", ["notaurl", "ftp://127.0.0.1/x", "http://", "127.0.0.1:8000"])
def test_listen_refuses_a_bad_forward_url_at_start(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``listen --forward-to notaurl`` is a usage error (exit 2) naming the flag; nothing starts."""
    monkeypatch.chdir(tmp_path)
    result = invoke("listen", "--port", "0", "--forward-to", url)
    assert result.returncode == 2, result
    assert result.stderr.startswith("error: --forward-to")
    assert result.stdout == ""  # never ready
    assert not (tmp_path / "smartpos-inbox.db").exists()


def test_sandbox_refuses_a_bad_webhook_url_at_start() -> None:
    """``sandbox --webhook notaurl`` is a usage error (exit 2) naming the flag."""
    result = invoke("sandbox", "--port", "0", "--webhook", "notaurl")
    assert result.returncode == 2, result
    assert result.stderr.startswith("error: --webhook")
    assert result.stdout == ""


def _args(*argv: str) -> Any:
    return build_parser().parse_args(list(argv))


def test_cli_option_maps_nested_fields_per_command() -> None:
    """A wire field maps to the option of the command that ran, nested fields to their parent."""
    pay = _args("pay", DOC, "1")
    assert cli_option(pay, "comanda.itens[0].titulo") == "--item"
    assert cli_option(pay, "comanda.identificacao") == "--comanda"
    assert cli_option(pay, "valorCentavos") == "VALOR_CENTAVOS"
    assert cli_option(pay, "nada") is None
    assert cli_option(pay, None) is None
    with_event = _args("refund", "--event", "x.json")
    assert cli_option(with_event, "valorCentavos") == "--valor-centavos"
    explicit = _args("refund", DOC, TERMINAL, "1")
    assert cli_option(explicit, "valorCentavos") == "VALOR_CENTAVOS"
    assert cli_option(_args("referencia"), "referencia") == "--suffix"


def test_cli_words_rewrites_python_arguments() -> None:
    """Python names and keyword arguments become the options the command takes."""
    pay = _args("pay", DOC, "1")
    assert cli_words(pay, "send parcelas=1 or omit it") == "send --parcelas 1 or omit it"
    assert cli_words(pay, "use modo_execucao='manual' instead") == "use --manual instead"
    assert cli_words(pay, "needs smartpos_id (a)") == "needs --smartpos-id (a)"
    assert cli_words(pay, "parcelas must be positive") == "parcelas must be positive"
    with_event = _args("refund", "--event", "x.json")
    assert cli_words(with_event, "pass valor_centavos") == "pass --valor-centavos"


def test_configuration_errors_name_the_options(monkeypatch: pytest.MonkeyPatch) -> None:
    """No key, or a bad base URL: the message names --api-key / --base-url, not api_key=."""
    monkeypatch.delenv("SMARTPOS_API_KEY", raising=False)
    monkeypatch.delenv("SMARTPOS_BASE_URL", raising=False)
    no_key = invoke("terminals", DOC)
    assert no_key.returncode == 1
    assert no_key.stderr.startswith("error: no API key: pass --api-key")
    bad_url = invoke("terminals", DOC, "--api-key", "k", "--base-url", "foo")
    assert bad_url.returncode == 1
    assert bad_url.stderr.startswith("error: --base-url must be an absolute http(s) URL")
    for result in (no_key, bad_url):
        assert not PYTHON.search(result.stderr), result.stderr


def test_a_409_on_the_callers_referencia_is_exit_3_and_never_advises_a_new_one(
    env: Sandbox,
) -> None:
    """A second pay under the same --referencia answers 409: wait for the event, exit 3."""
    referencia = smartpos.new_referencia()
    first = invoke(*PAY, "--referencia", referencia)
    assert first.returncode == 0, first.stderr
    second = invoke(*PAY, "--referencia", referencia, "--json")
    assert second.returncode == 3, second.stderr
    error = json.loads(second.stderr)["error"]
    assert error["codigo"] == "REFERENCIA_DUPLICADA"
    assert error["referencia"] == referencia
    assert "new referencia" not in error.get("hint", "").replace("NOT retry with a new", "")
