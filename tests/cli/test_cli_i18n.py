"""The command's own words follow SMARTPOS_LANG: argparse's frame, the help, refusals, the demo.

The tables of ``smartpos.cli._i18n`` are walked like the SDK's catalog (same fields in both
languages, each in its own language); the command is run in-process under ``pt_BR``.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import argparse
import ast
import gettext
import inspect
import pathlib
import re
import string
from collections.abc import Iterator

import pytest
from cli_helpers import invoke

from smartpos import _messages
from smartpos._message_catalog import CATALOG
from smartpos.cli._app import build_parser
from smartpos.cli._i18n import ARGPARSE, PORTUGUESE_WORDS

#: Common English words a Portuguese line never holds (identifiers are not words).
ENGLISH = {"the", "must", "is", "not", "and", "with", "cannot", "has", "or", "of", "was", "fix"}
#: Common Portuguese words an English line never holds.
PORTUGUESE = {"não", "deve", "é", "ou", "um", "uma", "com", "para", "de", "que", "da", "foi"}
# A Python identifier (smartpos_id, modo_execucao), a Python call or keyword argument.
PYTHON = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b|\b\w+=|smartpos\.[A-Za-z_]+\(")


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-zà-ú]+", re.sub(r"\{[^}]*\}|%\([^)]*\)\w", " ", text.lower())))


@pytest.fixture
def portuguese(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The process in Portuguese (SMARTPOS_LANG=pt_BR), read afresh, and back after."""
    monkeypatch.setenv("SMARTPOS_LANG", "pt_BR")
    _messages.reset()
    yield
    _messages.reset()


@pytest.mark.parametrize("english", sorted(PORTUGUESE_WORDS))
def test_each_line_has_the_same_fields_in_both_languages(english: str) -> None:
    """A Portuguese template takes exactly the fields of its English one, and reads as
    Portuguese (no common English word), the English one as English."""
    portuguese = PORTUGUESE_WORDS[english]

    def fields(template: str) -> set[str | None]:
        return {name for _, name, _, _ in string.Formatter().parse(template) if name}

    assert fields(english) == fields(portuguese)
    assert english != portuguese
    assert set() == _words(portuguese) & ENGLISH, portuguese
    assert set() == _words(english) & PORTUGUESE, english


@pytest.mark.parametrize("msgid", sorted(ARGPARSE))
def test_each_argparse_text_is_one_argparse_asks_for(msgid: str) -> None:
    """Every entry is a message id of this Python's argparse (or of a supported one: 3.10 says
    "options" too), with the same %-fields in Portuguese: a renamed id is caught here."""
    source = inspect.getsource(argparse)
    assert repr(msgid) in source or f'"{msgid}"' in source or msgid in ("options",)
    assert re.findall(r"%\(\w+\)\w|%\w", msgid) == re.findall(r"%\(\w+\)\w|%\w", ARGPARSE[msgid])


def test_argparse_frame_is_portuguese_and_restored_after(portuguese: None) -> None:
    """Usage, the error line, argparse's own refusals and the help headings are Portuguese
    while the command runs; afterwards argparse speaks gettext again for everyone else."""
    missing = invoke("pay")
    unknown = invoke("paay")
    helped = invoke("--help")
    converted = invoke("pay", "1", "1", "--timeout", "-1")

    assert 2 == missing.returncode == unknown.returncode
    assert missing.stderr.startswith("uso: smartpos pay")
    assert "smartpos pay: erro: os seguintes argumentos são obrigatórios: DOC" in missing.stderr
    assert "argumento COMMAND: escolha inválida: 'paay' (escolha entre" in unknown.stderr
    assert "argumento --timeout: esperava segundos > 0, não '-1'" in converted.stderr
    assert "opções:" in helped.stdout
    assert "mostra esta ajuda e sai" in helped.stdout
    assert gettext.gettext is vars(argparse)["_"]
    assert "usage:" in argparse.ArgumentParser(prog="x").format_usage()


def test_argparse_frame_stays_english_by_default() -> None:
    """Without SMARTPOS_LANG nothing is swapped: argparse's own English."""
    _messages.reset()
    missing = invoke("pay")
    assert "smartpos pay: error: the following arguments are required: DOC" in missing.stderr


def test_a_refusal_is_wholly_portuguese_and_speaks_the_commands_options(
    portuguese: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bad --referencia under pt_BR: the report's frame, the SDK's message and the advice are
    all Portuguese, and the advice names what the command takes (no smartpos.new_referencia(),
    no strict_referencia=: that is Python, not a command line)."""
    monkeypatch.setenv("SMARTPOS_API_KEY", "sk_test")
    monkeypatch.setenv("SMARTPOS_BASE_URL", "http://127.0.0.1:9")
    result = invoke(
        "pay", "52998224725", "100", "--smartpos-id", "SP-1", "--referencia", "pedido-1"
    )

    assert 1 == result.returncode
    assert result.stderr.startswith("erro: recusado localmente antes do envio: nada foi enviado")
    assert "deixe --referencia de fora (uma nova é criada)" in result.stderr
    assert "o que fazer: corrija --referencia e rode o comando de novo." in result.stderr
    assert not PYTHON.search(result.stderr), result.stderr
    assert set() == _words(result.stderr) & ENGLISH, result.stderr


# --- the whole command: help, refusals and advice (the cli.* keys of the catalog) -------------

#: Two words in a row: a sentence, which only the catalog may hold (as in tests/test_messages.py).
SENTENCE = re.compile(r"[A-Za-z]{2,}[^\w{}]+[A-Za-z]{2,}")
#: Every English template of the command's own keys, cut at its fields: the literal pieces that
#: hold two words apart (a sentence, not an identifier such as ``--forward-to`` or ``{url}``).
ENGLISH_PIECES = sorted(
    {
        piece.strip()
        for key, templates in CATALOG.items()
        if key.startswith("cli.")
        for piece, _, _, _ in string.Formatter().parse(templates["en"].replace("\n", " "))
        if re.search(r"[A-Za-z]{2,}\s+[A-Za-z]{2,}", piece)
    }
)


def _commands() -> list[tuple[str, ...]]:
    """Every command and action of the parser, as the words that name it (() is smartpos)."""
    found: list[tuple[str, ...]] = [()]

    def walk(prefix: tuple[str, ...], parser: argparse.ArgumentParser) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    found.append((*prefix, name))
                    walk((*prefix, name), sub)

    walk((), build_parser())
    return found


def _english_in(text: str) -> list[str]:
    """The English catalog pieces that ``text`` holds (its line breaks and indents ignored)."""
    flat = " ".join(text.split())
    return [piece for piece in ENGLISH_PIECES if " ".join(piece.split()) in flat]


@pytest.mark.parametrize("command", _commands(), ids=lambda c: " ".join(c) or "smartpos")
def test_every_help_is_wholly_portuguese(portuguese: None, command: tuple[str, ...]) -> None:
    """``smartpos --help`` and each command's and action's ``--help`` under pt_BR: no sentence
    of an English template of the command's keys (help, descriptions, epilogs), no common
    English word; its own texts are there, in Portuguese."""
    helped = invoke(*command, "--help")

    assert 0 == helped.returncode, helped
    assert [] == _english_in(helped.stdout), helped.stdout
    assert set() == _words(helped.stdout) & ENGLISH, helped.stdout
    assert "opções:" in helped.stdout


def test_the_help_follows_smartpos_lang(monkeypatch: pytest.MonkeyPatch) -> None:
    """``smartpos --help`` and ``smartpos pay --help``: English by default (the pieces the
    scan looks for are there, so it is not vacuous), none of them under pt_BR."""
    monkeypatch.delenv("SMARTPOS_LANG", raising=False)
    _messages.reset()
    english = invoke("--help").stdout + invoke("pay", "--help").stdout
    monkeypatch.setenv("SMARTPOS_LANG", "pt_BR")
    _messages.reset()
    portuguese = invoke("--help").stdout + invoke("pay", "--help").stdout
    _messages.reset()

    assert "status de saída:" in portuguese
    assert "pede um pagamento a um terminal" in portuguese
    assert [] == _english_in(portuguese), portuguese
    flat = " ".join(english.split())
    for key in ("cli.about.smartpos", "cli.command.operations", "cli.help.pay.manual"):
        assert " ".join(_messages.message(key, lang="en").split()) in flat
    assert len(_english_in(english)) > 20


def test_events_on_a_missing_store_refuses_in_portuguese(
    portuguese: None, tmp_path: pathlib.Path
) -> None:
    """No inbox file: the refusal and its advice are Portuguese, and the file is not made."""
    missing = tmp_path / "nada.sqlite3"
    result = invoke("events", "list", "--store", str(missing))

    assert 1 == result.returncode, result
    assert result.stderr.startswith(f"erro: nenhuma caixa de entrada em {missing}")
    assert "o que fazer: passe o store com --store" in result.stderr
    assert [] == _english_in(result.stderr), result.stderr
    said = result.stderr.replace(str(missing), "PATH")  # pytest-of-USER is no sentence
    assert set() == _words(said) & ENGLISH, said
    assert not missing.exists()


def test_operations_wait_on_a_rejected_operation_refuses_in_portuguese(
    portuguese: None, tmp_path: pathlib.Path
) -> None:
    """A payment the service refused is journaled as rejected: ``operations wait`` says at
    once, in Portuguese, that nothing was charged and what to do."""
    import smartpos
    from smartpos import SmartposNaoEncontradoError
    from smartpos.testing import Sandbox
    from smartpos.webhooks import SQLiteStore

    path = tmp_path / "diario.sqlite3"
    referencia = smartpos.new_referencia()
    with (
        Sandbox() as sandbox,
        sandbox.serve() as base_url,
        SQLiteStore(path) as store,
        smartpos.Client(api_key=Sandbox.API_KEY, base_url=base_url, store=store) as client,
        pytest.raises(SmartposNaoEncontradoError),
    ):
        client.payments.create(
            documento_cliente=Sandbox.DOCUMENTO,
            valor_centavos=1990,
            smartpos_id="SP-NENHUM",
            referencia=referencia,
        )
    result = invoke("operations", "wait", referencia, "--timeout", "30", "--store", str(path))

    assert 1 == result.returncode, result
    assert result.stderr.startswith(f"erro: a referencia {referencia} está no diário de")
    assert "nada foi cobrado" in result.stderr
    assert "o que fazer: corrija a requisição" in result.stderr
    assert [] == _english_in(result.stderr), result.stderr
    said = result.stderr.replace(str(path), "PATH")  # pytest-of-USER is no sentence
    assert set() == _words(said) & ENGLISH, said


def test_sandbox_operator_refuses_in_portuguese(portuguese: None) -> None:
    """``sandbox operator start`` with an empty queue, and with no sandbox at the URL: both
    refusals and their advice are Portuguese."""
    from smartpos.testing import Sandbox

    with Sandbox() as sandbox, sandbox.serve() as base_url:
        empty = invoke("sandbox", "operator", "start", "--url", base_url)
    nobody = invoke("sandbox", "operator", "start", "--url", "http://127.0.0.1:9")

    assert 1 == empty.returncode == nobody.returncode, (empty, nobody)
    assert empty.stderr.startswith("erro: nenhum cartão aguarda na fila do operador")
    assert "o que fazer: um pagamento em modo manual" in empty.stderr
    assert nobody.stderr.startswith("erro: nenhum sandbox responde em http://127.0.0.1:9")
    assert "o que fazer: inicie um com 'smartpos sandbox'" in nobody.stderr
    for result in (empty, nobody):
        assert [] == _english_in(result.stderr), result.stderr
        assert set() == _words(result.stderr) & ENGLISH, result.stderr


def test_sandbox_release_refuses_in_portuguese(portuguese: None) -> None:
    """``sandbox release`` of an attempt nothing holds: the refusal and its advice are Portuguese;
    ``held`` says so in Portuguese too."""
    from smartpos.testing import Sandbox

    with Sandbox() as sandbox, sandbox.serve() as base_url:
        refused = invoke("sandbox", "release", "4adcdd3a-46b6-40aa-902f", "--url", base_url)
        held = invoke("sandbox", "held", "--url", base_url)

    assert (1, 0) == (refused.returncode, held.returncode), (refused, held)
    assert refused.stderr.startswith("erro: nenhum evento de 4adcdd3a-46b6-40aa-902f está retido")
    assert "o que fazer: o evento de uma tentativa fica retido" in refused.stderr
    assert "nenhum evento retido." == held.stdout.strip()
    assert [] == _english_in(refused.stderr), refused.stderr
    assert set() == _words(refused.stderr) & ENGLISH, refused.stderr


# --- the source: no English sentence handed to a refusal ---------------------------------------

CLI_SOURCE = pathlib.Path(_messages.__file__).parent / "cli"
#: Literals that are command lines, the same in every language (not sentences).
COMMAND_LINES = frozenset({"smartpos refund --event FILE [--valor-centavos N]"})


def _literal(node: ast.expr) -> str:
    """The literal words of a str constant, an f-string or a concatenation (fields left out)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "{}".join(_literal(value) for value in node.values)
    if isinstance(node, ast.BinOp):
        return _literal(node.left) + "{}" + _literal(node.right)
    if isinstance(node, ast.IfExp):
        return _literal(node.body) + " " + _literal(node.orelse)
    return ""


def _english_refusals(source: str, filename: str) -> list[str]:
    """``CommandError(...)``, ``out.error(...)``/``out.warn(...)`` and any ``hint=`` given a
    sentence as a literal (a message(...) or words(...) call is not a literal)."""
    bad = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", getattr(node.func, "attr", None))
        given = [k.value for k in node.keywords if k.arg == "hint"]
        if name in ("CommandError", "error", "warn"):
            given += [*node.args, *(k.value for k in node.keywords if k.arg != "hint")]
        for value in given:
            text = _literal(value)
            if text not in COMMAND_LINES and SENTENCE.search(text):
                bad.append(f"{filename}:{node.lineno}: {text[:60]!r}")
    return bad


def test_no_english_sentence_is_handed_to_a_refusal_of_the_command() -> None:
    """Every refusal of the command and its advice come from message(...) (or, for the
    demo and the error report, words(...)): a new ``CommandError("no such thing")`` or
    ``hint="try again"`` fails here. And every cli.* key of the catalog is asked for."""
    source = """
raise CommandError(f"no event {event_id} in {name}", hint=message("cli.events_list_hint"))
raise CommandError(message("cli.store_no_inbox", path=path), hint="check the path.")
out.error(f"{url} answered HTTP {status}")
raise CommandError(str(exc), hint=message("cli.see_help", command="smartpos sandbox"))
raise CommandError(f"--webhook: {exc}", code=2)
"""
    where = [int(w.split(":")[1]) for w in _english_refusals(source, "x.py")]
    assert [2, 3, 4] == sorted(where)  # the scan is not vacuous; message(...) and values pass
    sources = {path.name: path.read_text(encoding="utf-8") for path in CLI_SOURCE.glob("*.py")}
    assert len(sources) > 10
    bad = [where for name, text in sources.items() for where in _english_refusals(text, name)]
    assert [] == bad
    constants = {
        node.value
        for text in sources.values()
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    assert [] == [key for key in CATALOG if key.startswith("cli.") and key not in constants]
