"""Every documented ``smartpos`` command line runs, against a sandbox, as documented.

The lines are read from the docs, not copied here: every ``$ `` line of a ``console`` block of
README.md and docs/**/*.md that runs ``smartpos`` (pipes included, ``\\`` continuations joined),
every example in the ``--help`` epilogs, and the command lines the command itself tells the
user to run next (``resend it: smartpos trigger ...``, the ``smartpos pay`` and ``smartpos
trigger`` that ``sandbox`` and ``listen`` suggest). A line that is added, changed or broken in
the docs is therefore tested as it reads. Commands named inside prose (``smartpos events list
--store PATH``) are not: they carry placeholders.

Each line runs in a fresh world that holds what the docs assume (a served sandbox and the
environment of ``smartpos sandbox``'s "Use it from another terminal", ``aprovado.json``,
``recibo.txt``, inbox files with the ids the docs name, the default one with the sale
``mesa-12``, whose one attempt waits for an approval the sandbox holds back). Placeholders are
replaced: the docs' loopback URLs by the world's, ``ID``/``EVENT_ID`` by an approved
payment's event id, ``REFERENCIA`` by an attempt whose event the sandbox holds back, fixed
ports of servers by ``0``. The exit status must be the documented one (0, or what a
following ``echo $?`` shows), and the first documented output line must match: its JSON keys,
or its leading words.

Most lines run in-process through ``smartpos.cli.main``; lines that contain a pipe also run
through a real ``bash`` pipe, and the long-running servers (``smartpos sandbox``, ``smartpos
listen``, ``python -m smartpos.testing``) run as background processes on ephemeral ports,
stopped by PID. No documented line is exempt.
"""

from __future__ import annotations

import argparse
import json
import queue
import re
import shlex
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import REPO, Background, Invoked, Starter, cli_env, invoke

import smartpos
from smartpos.cli._app import build_parser
from smartpos.cli._http import Delivery, serve_receiver
from smartpos.cli._samples import sample
from smartpos.testing import Approve, Hold, Sandbox
from smartpos.webhooks import SQLiteStore, WebhookReceiver, parse_envelope

DOCS = [
    "README.md",
    *sorted(str(p.relative_to(REPO).as_posix()) for p in (REPO / "docs").rglob("*.md")),
]
UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
LOOPBACK_URL = re.compile(r"http://127\.0\.0\.1:(\d+)(/\S*)?")
# Lines where the command tells the user what to run next.
SUGGESTED = re.compile(r"(?:resend it|Inspect the inbox):\s+(smartpos \S.*)$", re.MULTILINE)
DOC_SANDBOX_PORT = "8765"
# The authorization the docs' explicit refund example names: the world's payment gets it.
DOC_AUTORIZACAO = Approve(
    codigo="77FF4Y",
    numero_transacao="700725970931",
    dados_finalizacao="634431|T2D71H4T3C29|0984",
    tipo_pagamento="CREDITO",
)


@dataclass(frozen=True)
class DocLine:
    """A documented command line: where it is, what it runs, what the docs say it does."""

    source: str
    command: str
    output: tuple[str, ...] = ()
    status: int = 0

    def __str__(self) -> str:
        return f"{self.source}: $ {self.command}"


def _is_smartpos(command: str) -> bool:
    return any(
        stage[:1] == ["smartpos"] or stage[:3] == ["python", "-m", "smartpos.testing"]
        for stage in pipeline(command)
    )


def _console_lines(relpath: str) -> list[DocLine]:
    """The ``$`` lines of the ``console`` blocks of a Markdown file, with their output."""
    lines = (REPO / relpath).read_text(encoding="utf-8").splitlines()
    found: list[tuple[int, str, list[str]]] = []
    in_block = False
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("```"):
            in_block = not in_block and line.strip() == "```console"
        elif in_block and line.startswith("$ "):
            number, command = index + 1, line[2:]
            while command.endswith("\\"):
                index += 1
                command = command[:-1].rstrip() + " " + lines[index].strip()
            found.append((number, command, []))
        elif in_block and found:
            found[-1][2].append(line)
        index += 1
    result: list[DocLine] = []
    for number, command, output in found:
        if command.strip() == "echo $?" and result:
            last = result[-1]
            result[-1] = DocLine(last.source, last.command, last.output, int(output[0]))
        elif _is_smartpos(command):
            output = [o for o in output if o.strip()]
            result.append(DocLine(f"{relpath}:{number}", command, tuple(output)))
    return result


def _parsers() -> dict[str, argparse.ArgumentParser]:
    """Every command and action of the parser (``sandbox next``, ``events resend``...)."""
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(prefix: str, parser: argparse.ArgumentParser) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    found[f"{prefix}{name}"] = sub
                    walk(f"{prefix}{name} ", sub)

    walk("", build_parser())
    return found


def _help_lines() -> list[DocLine]:
    """The examples of every command's and action's ``--help`` epilog."""
    result = []
    for name, sub in _parsers().items():
        lines = (sub.epilog or "").splitlines()
        index = 0
        while index < len(lines):
            command = lines[index].strip()
            while command.endswith("\\"):
                index += 1
                command = command[:-1].rstrip() + " " + lines[index].strip()
            if command.startswith("smartpos "):
                result.append(DocLine(f"smartpos {name} --help", command))
            index += 1
    return result


def documented_lines() -> list[DocLine]:
    """Every documented command line that runs ``smartpos``."""
    return [line for path in DOCS for line in _console_lines(path)] + _help_lines()


def pipeline(command: str) -> list[list[str]]:
    """Split a shell line into the argv of each stage of its pipe."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars="|")
    lexer.whitespace_split = True
    stages: list[list[str]] = [[]]
    for token in lexer:
        if token == "|":
            stages.append([])
        else:
            stages[-1].append(token)
    return stages


def is_server(argv: list[str]) -> bool:
    """A command that serves until stopped (``smartpos sandbox`` without an action)."""
    if argv[:2] == ["smartpos", "sandbox"]:
        return len(argv) == 2 or argv[2].startswith("-")
    return argv[:2] == ["smartpos", "listen"] or argv[:3] == ["python", "-m", "smartpos.testing"]


LINES = documented_lines()
SERVERS = [line for line in LINES if any(is_server(argv) for argv in pipeline(line.command))]
ONE_SHOT = [line for line in LINES if line not in SERVERS]
PIPES = [line for line in ONE_SHOT if len(pipeline(line.command)) > 1]


# ---------------------------------------------------------------------------------- the world


@dataclass
class World:
    """What the documented lines assume exists."""

    sandbox: Sandbox
    base_url: str
    receiver_url: str
    deliveries: queue.Queue[Delivery]
    approved: dict[str, Any]
    held: str
    cwd: Path
    env: dict[str, str] = field(default_factory=dict)

    def substitute(self, command: str) -> str:
        """The command with the docs' placeholders replaced by this world's values."""

        def url(match: re.Match[str]) -> str:
            if match.group(1) == DOC_SANDBOX_PORT:
                return self.base_url + (match.group(2) or "")
            return self.receiver_url

        command = LOOPBACK_URL.sub(url, command)
        if command.startswith("smartpos trigger ") and " --to " not in command:
            # The default --to is smartpos listen's address: here, the world's receiver.
            command += f" --to {self.receiver_url}"
        command = re.sub(r"(?<![\w-])REFERENCIA(?![\w-])", self.held, command)
        return re.sub(r"(?<![\w-])(EVENT_ID|ID)(?![\w-])", self.approved["id"], command)


def _doc_event_ids() -> set[str]:
    """The literal event ids the docs' ``smartpos events`` lines name."""
    return {
        found
        for line in LINES
        for argv in pipeline(line.command)
        if argv[:2] == ["smartpos", "events"]
        for found in UUID.findall(" ".join(argv))
    }


def _fill_inbox(path: Path, approved: dict[str, Any]) -> None:
    """An inbox with the approved payment's event (done) and the docs' ids (dead)."""
    with SQLiteStore(path) as store:
        store.put(parse_envelope(approved))
        [claim] = store.claim(owner="docs", lease=30)
        assert store.ack(claim)
        for event_id in sorted(_doc_event_ids()):
            store.put(parse_envelope(sample("impressao.falhou", event_id)))
            [claim] = store.claim(owner="docs", lease=30)
            assert store.dead_letter(claim, error="RuntimeError: printer offline")


def _start_sale(path: Path, sandbox: Sandbox, base_url: str) -> None:
    """The docs' sale mesa-12, journaled in the inbox: one attempt, its approval held back."""
    with (
        SQLiteStore(path) as store,
        smartpos.Client(api_key=Sandbox.API_KEY, base_url=base_url, store=store) as client,
    ):
        sandbox.script_payments(Hold())
        client.payments.create(
            documento_cliente=Sandbox.DOCUMENTO,
            valor_centavos=5000,
            smartpos_id=Sandbox.SMARTPOS_ID,
            forma_pagamento="credito",
            sale="mesa-12",
        )


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    """A served sandbox with an approved payment, a receiver, and the files the docs name."""
    deliveries: queue.Queue[Delivery] = queue.Queue()
    with (
        Sandbox() as sandbox,
        sandbox.serve() as base_url,
        SQLiteStore(tmp_path / "receiver.sqlite3") as received,
        serve_receiver(WebhookReceiver(received), "127.0.0.1", 0, deliveries.put) as receiver,
    ):
        sandbox.script_payments(DOC_AUTORIZACAO)
        with smartpos.Client(api_key=Sandbox.API_KEY, base_url=base_url) as client:
            client.payments.create(
                documento_cliente=Sandbox.DOCUMENTO,
                valor_centavos=1990,
                smartpos_id=Sandbox.SMARTPOS_ID,
                forma_pagamento="credito",
            )
            # What `smartpos sandbox scan` reads: the newest QR code.
            client.qrcodes.create(documento_cliente=Sandbox.DOCUMENTO)
            # What `smartpos sandbox operator start|cancel` acts on: a card in the queue.
            client.payments.create(
                documento_cliente=Sandbox.DOCUMENTO,
                valor_centavos=3500,
                modo_execucao="manual",
                comanda=smartpos.Comanda("Mesa 7"),
            )
            # What `smartpos sandbox release REFERENCIA` delivers: an attempt held back.
            sandbox.script_payments(Hold())
            held = client.payments.create(
                documento_cliente=Sandbox.DOCUMENTO,
                valor_centavos=2500,
                smartpos_id=Sandbox.SMARTPOS_ID,
            ).referencia
        [approved] = sandbox.events
        assert approved["tipo"] == "pagamento.aprovado"
        cwd = tmp_path / "work"
        cwd.mkdir()
        (cwd / "aprovado.json").write_text(json.dumps(approved), encoding="utf-8")
        (cwd / "recibo.txt").write_text("Obrigado e volte sempre!\n", encoding="utf-8")
        for inbox in ("smartpos-inbox.db", "inbox.sqlite3"):
            _fill_inbox(cwd / inbox, approved)
        # Only in the default inbox: inbox.sqlite3 has no operation waiting, as documented.
        _start_sale(cwd / "smartpos-inbox.db", sandbox, base_url)
        env = {"SMARTPOS_BASE_URL": base_url, "SMARTPOS_API_KEY": Sandbox.API_KEY}
        monkeypatch.chdir(cwd)
        for name in ("SMARTPOS_INBOX", "SMARTPOS_LOG", "NO_COLOR"):
            monkeypatch.delenv(name, raising=False)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        yield World(sandbox, base_url, receiver, deliveries, approved, held, cwd, env)


# --------------------------------------------------------------------------------- checking


def run_in_process(line: DocLine, world: World) -> list[Invoked]:
    """Run every stage of a documented line through ``main``, each stage's stdout piped on."""
    stdin = b""
    results: list[Invoked] = []
    for argv in pipeline(world.substitute(line.command)):
        if argv[0] == "echo":
            stdin = (" ".join(argv[1:]) + "\n").encode()
            continue
        assert argv[0] == "smartpos", f"{line}: {argv[0]!r} cannot run in-process"
        result = invoke(*argv[1:], stdin=stdin)
        results.append(result)
        stdin = result.stdout_bytes
    return results


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def check_output(line: DocLine, stdout: str, stderr: str) -> None:
    """The first documented output line matches: its JSON keys, or its leading words."""
    if not line.output:
        return
    shown = line.output[0].strip()
    if shown[:1] in "{[":
        documented = set(re.findall(r'"(\w+)":', shown))
        actual = {k for text in stdout.splitlines() if text for k in _keys(json.loads(text))}
        assert documented <= actual, f"{line}: documented keys missing: {documented - actual}"
        return
    words = []
    for word in shown.split():
        if not re.fullmatch(r"[A-Za-z][A-Za-z.:()-]*", word):
            break
        words.append(word)
    if len(words) >= 2:
        actual = " ".join((stdout + "\n" + stderr).split())
        assert " ".join(words) in actual, f"{line}: documented {words!r}, got:\n{stdout}{stderr}"


def test_the_docs_are_read() -> None:
    """The extraction finds the documented lines, the pipe of issue 11 among them."""
    commands = {line.command for line in LINES}
    assert "smartpos events show EVENT_ID --json | smartpos refund --event -" in commands
    assert "smartpos pay 52998224725 1990 --smartpos-id SP-SANDBOX-1 --api-key wrong" in commands
    assert any(line.status == 1 for line in LINES)  # from `echo $?`
    assert {line.source.split(":")[0] for line in LINES} >= {
        "docs/en/cli.md",
        "docs/en/quickstart.md",
        "docs/en/testing.md",
        "smartpos refund --help",
    }
    for name in _parsers():
        assert any(f"smartpos {name}" in command for command in commands), name
    assert len(LINES) >= 40


@pytest.mark.parametrize("line", ONE_SHOT, ids=str)
def test_documented_line_runs(line: DocLine, world: World) -> None:
    """The documented line exits with the documented status and prints what the docs show."""
    results = run_in_process(line, world)
    for stage in results[:-1]:
        assert stage.returncode == 0, f"{line}: {stage!r}"
    last = results[-1]
    assert last.returncode == line.status, f"{line}: {last!r}"
    check_output(line, last.stdout, last.stderr)
    for suggested in SUGGESTED.findall(last.stdout):
        [argv] = pipeline(suggested)
        followed = invoke(*argv[1:])
        assert followed.returncode == 0, f"{line}: suggested {suggested!r}: {followed!r}"


def _bash(command: str, world: World) -> subprocess.CompletedProcess[str]:
    """Run a shell line in bash, ``smartpos`` being this interpreter's ``-m smartpos``."""
    import sys

    script = f'smartpos() {{ "{sys.executable}" -m smartpos "$@"; }}\nset -o pipefail\n{command}\n'
    return subprocess.run(
        ["bash", "-c", script],
        env=cli_env(**world.env),
        cwd=world.cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )


@pytest.mark.slow
@pytest.mark.parametrize("line", PIPES, ids=str)
def test_documented_pipe_runs_in_a_real_shell(line: DocLine, world: World) -> None:
    """A documented pipe works as a user types it: processes joined by a real pipe."""
    assert PIPES
    result = _bash(world.substitute(line.command), world)
    assert result.returncode == line.status, f"{line}: {result.stdout}{result.stderr}"
    check_output(line, result.stdout, result.stderr)


# ---------------------------------------------------------------------------------- servers


def server_argv(argv: list[str], world: World) -> tuple[str, list[str]]:
    """The module and arguments to run a documented server line with, on port 0."""
    module, args = ("smartpos", argv[1:]) if argv[0] == "smartpos" else (argv[2], argv[3:])
    args = list(args)
    if "--port" in args:
        args[args.index("--port") + 1] = "0"
    else:
        args += ["--port", "0"]
    return module, args


def _pay_as_told(proc: Background, base_url: str, world: World, monkeypatch: Any) -> str:
    """Run the ``smartpos pay`` line a sandbox tells the user to run; return its referencia."""
    export = re.search(r"export (SMARTPOS_BASE_URL=\S+) (SMARTPOS_API_KEY=\S+)", proc.output)
    env = dict(pair.split("=", 1) for pair in export.groups()) if export else {}
    monkeypatch.setenv("SMARTPOS_BASE_URL", env.get("SMARTPOS_BASE_URL", base_url))
    monkeypatch.setenv("SMARTPOS_API_KEY", env.get("SMARTPOS_API_KEY", Sandbox.API_KEY))
    told = re.search(r"^\s+(smartpos pay .*)$", proc.output, flags=re.MULTILINE)
    command = told.group(1) if told else "smartpos pay 52998224725 1990 --smartpos-id SP-SANDBOX-1"
    [argv] = pipeline(command)
    result = invoke(*argv[1:], "--json")
    assert result.returncode == 0, result
    return str(json.loads(result.stdout)["referencia"])


@pytest.mark.slow
@pytest.mark.parametrize("line", SERVERS, ids=str)
def test_documented_server_runs(
    line: DocLine, world: World, background: Starter, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A documented server starts on 127.0.0.1, does its job, and stops on SIGTERM with 0."""
    [argv] = pipeline(world.substitute(line.command))
    module, args = server_argv(argv, world)
    proc = background(*args, module=module, env=cli_env(**world.env), cwd=world.cwd)
    url = proc.wait_for(r"(?:serving|ready) at (http://127\.0\.0\.1:\d+/?)").group(1)
    if "listen" in args:
        told = proc.wait_for(r"smartpos trigger pagamento\.aprovado --to \S+").group(0)
        [trigger] = pipeline(told)
        sent = invoke(*trigger[1:], "--json")
        assert sent.returncode == 0, sent
        event_id = json.loads(sent.stdout)["id"]
        proc.wait_for(re.escape(f"pagamento.aprovado  id {event_id}"))
        if "--forward-to" in args:
            proc.wait_for(re.escape(f"forwarded to {world.receiver_url}: 200"))
    else:
        proc.wait_for("Ctrl-C to stop")
        referencia = _pay_as_told(proc, url.rstrip("/"), world, monkeypatch)
        if "--webhook" in args:
            delivery = world.deliveries.get(timeout=10)
            assert delivery.receipt.envelope is not None
            assert delivery.receipt.envelope.raw["dados"]["referencia"] == referencia
    assert proc.stop() == 0, proc.stderr
    assert "stopped" in proc.output, proc.output


@pytest.mark.slow
def test_the_whole_loop_on_one_machine(
    world: World, background: Starter, monkeypatch: pytest.MonkeyPatch
) -> None:
    """listen, the sandbox it suggests, the pay the sandbox suggests, then the documented pipe."""
    listen = background("listen", "--port", "0", env=cli_env(), cwd=world.cwd)
    told = listen.wait_for(r"smartpos sandbox --webhook (\S+)")
    sandbox = background(
        "sandbox", "--webhook", told.group(1), "--port", "0", env=cli_env(), cwd=world.cwd
    )
    url = sandbox.wait_for(r"serving at (http://127\.0\.0\.1:\d+)").group(1)
    sandbox.wait_for("Ctrl-C to stop")
    referencia = _pay_as_told(sandbox, url, world, monkeypatch)
    listen.wait_for(r"pagamento\.aprovado  id ")
    listen.wait_for(re.escape(f"referencia {referencia}"))
    listed = invoke("events", "list", "--json")
    assert listed.returncode == 0, listed
    [event_id] = [
        r["id"] for r in json.loads(listed.stdout) if r["raw"]["dados"]["referencia"] == referencia
    ]
    world.env["SMARTPOS_BASE_URL"] = url
    piped = _bash(f"smartpos events show {event_id} --json | smartpos refund --event -", world)
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.startswith("refund requested: processando")
    assert listen.stop() == 0
    assert sandbox.stop() == 0
