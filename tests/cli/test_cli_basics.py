"""The command's surface: help on every command, usage errors, version, referencia.

In process (``smartpos.cli.main``), except the smoke tests of the installed entry point.
"""

from __future__ import annotations

import json
import uuid
from importlib.metadata import entry_points

import pytest
from cli_helpers import run_cli, run_subprocess

import smartpos
from smartpos.cli import main
from smartpos.cli._app import build_parser

COMMANDS = [
    ["demo"],
    ["sandbox"],
    ["sandbox", "scan"],
    ["sandbox", "next"],
    ["sandbox", "fault"],
    ["sandbox", "resend"],
    ["sandbox", "log"],
    ["sandbox", "operator"],
    ["sandbox", "operator", "start"],
    ["sandbox", "operator", "cancel"],
    ["referencia"],
    ["qrcode"],
    ["pay"],
    ["refund"],
    ["print"],
    ["terminals"],
    ["listen"],
    ["trigger"],
    ["events"],
    ["events", "list"],
    ["events", "show"],
    ["events", "requeue"],
    ["events", "resend"],
    ["operations"],
    ["operations", "list"],
    ["operations", "reconcile"],
    ["operations", "wait"],
    ["sales"],
    ["sales", "list"],
    ["sales", "show"],
    ["sales", "abandon"],
    ["sales", "compensate"],
    ["sales", "report"],
]


def test_console_script_points_at_main() -> None:
    """The installed console script ``smartpos`` runs ``smartpos.cli:main``."""
    scripts = entry_points(group="console_scripts", name="smartpos")
    assert [ep.value for ep in scripts] == ["smartpos.cli:main"]


@pytest.mark.slow
def test_python_m_smartpos_help_in_a_process() -> None:
    """Smoke: ``python -m smartpos --help`` and ``--version`` work as a real process."""
    result = run_subprocess("--help")
    assert (0, "") == (result.returncode, result.stderr)
    assert "smartpos demo" in result.stdout
    version = run_subprocess("--version")
    assert f"smartpos {smartpos.__version__}" == version.stdout.strip()


def test_top_level_help_lists_every_command() -> None:
    """``smartpos --help`` exits 0 and names every command and the exit statuses."""
    result = run_cli("--help")
    assert result.returncode == 0
    for command in {c[0] for c in COMMANDS}:
        assert f"    {command}" in result.stdout
    assert "3  outcome unknown" in result.stdout
    assert "4  sales report: pendencias remain" in result.stdout


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_has_help(command: list[str]) -> None:
    """``--help`` works on every command and subcommand, with a usage line and exit 0."""
    result = run_cli(*command, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: smartpos {' '.join(command)}")


def test_version() -> None:
    """``--version`` prints the package version."""
    result = run_cli("--version")
    assert (result.returncode, result.stdout.strip()) == (0, f"smartpos {smartpos.__version__}")


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["no-such-command"],
        ["pay", "52998224725"],
        ["pay", "52998224725", "dez-reais"],
        ["pay", "52998224725", "100", "--forma", "cheque"],
        ["trigger", "pagamento.estornado", "--to", "http://127.0.0.1:1/"],
        ["trigger", "pagamento.aprovado", "--sandbox", "x", "--no-sandbox"],
        ["sandbox", "--port", "70000"],
        ["sandbox", "next", "payment"],
        ["sandbox", "next", "refund", "aprovar"],
        ["sandbox", "log", "--since", "x"],
        ["events", "resend", "X"],
        ["events"],
        ["qrcode", "52998224725", "--png", "a.png", "--svg", "a.svg"],
    ],
    ids=lambda a: " ".join(a) or "(nothing)",
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    """Missing or malformed arguments are usage errors: exit status 2 and a usage line."""
    result = run_cli(*args)
    assert result.returncode == 2
    assert "usage: smartpos" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["sandbox", "next", "payment", "talvez"],
        ["sandbox", "next", "payment", "atraso"],
        ["sandbox", "next", "print", "aprovar"],
        ["sandbox", "next", "payment", "silencio", "--mensagem", "X"],
        ["sandbox", "next", "payment", "recusar", "--always", "--times", "2"],
        ["sandbox", "fault"],
        ["sandbox", "fault", "payments"],
        ["sandbox", "fault", "nowhere", "500"],
        ["sandbox", "fault", "payments", "boom"],
        ["sandbox", "fault", "webhook", "200"],
        ["sandbox", "fault", "payments", "500", "--clear"],
    ],
    ids=" ".join,
)
def test_bad_words_are_usage_errors_before_anything_is_sent(args: list[str]) -> None:
    """An outcome or fault the vocabulary does not know: exit 2 and what to type instead.

    The URL points at a closed port: nothing is sent before the words are understood.
    """
    result = run_cli(*args, "--url", "http://127.0.0.1:9")
    assert 2 == result.returncode, result.stderr
    assert "error:" in result.stderr
    assert "no sandbox answers" not in result.stderr


def test_main_in_process_returns_statuses() -> None:
    """``main(argv)`` returns the status instead of exiting: 0 for help, 2 for usage."""
    assert main(["--version"]) == 0
    assert main(["pay"]) == 2


def test_referencia_is_uuid_first_with_suffix() -> None:
    """``referencia --suffix`` prints a UUID from the first character, then ``-suffix``."""
    result = run_cli("referencia", "--suffix", "pdv7")
    assert result.returncode == 0
    value = result.stdout.strip()
    assert smartpos.is_valid_referencia(value)
    assert value.endswith("-pdv7")
    assert str(uuid.UUID(value[:36])) == value[:36]


def test_referencia_json() -> None:
    """``referencia --json`` prints one JSON object with a fresh referencia each time."""
    first = json.loads(run_cli("referencia", "--json").stdout)
    second = json.loads(run_cli("referencia", "--json").stdout)
    assert smartpos.is_valid_referencia(first["referencia"])
    assert first["referencia"] != second["referencia"]


@pytest.mark.slow
def test_help_does_not_import_heavy_modules() -> None:
    """Building the parser imports neither the sandbox, the webhook kit nor segno."""
    code = (
        "import sys; from smartpos.cli._app import build_parser; build_parser(); "
        "print(sorted(m for m in sys.modules if m.startswith(('smartpos.testing', "
        "'smartpos.webhooks', 'segno', 'smartpos.cli._demo'))))"
    )
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "[]"


def test_parser_every_subcommand_has_a_handler() -> None:
    """Every leaf command of the parser names a handler module and function that exist."""
    import importlib

    parser = build_parser()
    for command in COMMANDS:
        if command in (["events"], ["sandbox", "operator"]):
            continue
        extra = {
            "show": ["X"],
            "requeue": ["X"],
            "resend": ["X", "--to", "http://x"] if command[0] == "events" else ["X"],
            "next": ["payment", "aprovar"],
            "reconcile": ["X"],
            "wait": ["X"],
            "abandon": ["X", "--motivo", "M"],
            "compensate": ["X"],
        }.get(command[-1], [])
        positional = {
            "qrcode": ["D"],
            "pay": ["D", "1"],
            "print": ["D", "S", "F"],
            "terminals": ["D"],
            "trigger": ["pagamento.aprovado"],
        }.get(command[0], [])
        args = parser.parse_args([*command, *positional, *extra])
        module_name, _, function = args.handler.partition(":")
        module = importlib.import_module(f"smartpos.cli.{module_name}")
        assert callable(getattr(module, function))
