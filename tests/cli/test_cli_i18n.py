"""The command's own words follow SMARTPOS_LANG: argparse's frame, the error report, the demo.

The tables of ``smartpos.cli._i18n`` are walked like the SDK's catalog (same fields in both
languages, each in its own language); the command is run in-process under ``pt_BR``.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import argparse
import gettext
import inspect
import re
import string
from collections.abc import Iterator

import pytest
from cli_helpers import invoke

from smartpos import _messages
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
