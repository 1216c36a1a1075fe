"""``smartpos sandbox`` serving the simulator, used by httpx, the other commands and ``listen``."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import httpx
import pytest
from cli_helpers import URL, Starter, cli_env, run_cli

from smartpos.testing import Sandbox

pytestmark = pytest.mark.slow


def test_sandbox_serves_until_sigterm(background: Starter) -> None:
    """The sandbox prints its URL, key, document and terminal, answers, and stops on SIGTERM."""
    proc = background("sandbox", "--port", "0")
    match = URL.search(proc.wait_for(r"serving at").string)
    assert match is not None
    base_url = match.group(0)
    proc.wait_for("Ctrl-C to stop")
    assert Sandbox.API_KEY in proc.output
    assert Sandbox.DOCUMENTO in proc.output
    assert Sandbox.SMARTPOS_ID in proc.output
    with httpx.Client(base_url=base_url, trust_env=False, timeout=5) as client:
        created = client.post(
            "/qrcode",
            json={"documentoCliente": Sandbox.DOCUMENTO},
            headers={"x-api-key": Sandbox.API_KEY},
        )
        refused = client.post("/qrcode", json={"documentoCliente": Sandbox.DOCUMENTO})
    assert created.status_code == 201
    assert created.json()["qrCode"]
    assert (refused.status_code, refused.json()["erro"]["codigo"]) == (401, "API_KEY_NAO_INFORMADA")
    assert proc.stop() == 0
    assert "sandbox stopped." in proc.output


def test_sandbox_json_readiness_line(background: Starter) -> None:
    """``sandbox --json`` prints one JSON object with everything a script needs."""
    proc = background("sandbox", "--port", "0", "--json")
    ready = json.loads(proc.wait_for(r"^\{").string)
    assert ready["api_key"] == Sandbox.API_KEY
    assert ready["smartpos_id"] == Sandbox.SMARTPOS_ID
    with httpx.Client(trust_env=False, timeout=5) as client:
        response = client.get(
            f"{ready['base_url']}/v1/customers/{Sandbox.DOCUMENTO}/smartpos",
            headers={"x-api-key": Sandbox.API_KEY},
        )
    assert response.status_code == 200


def test_commands_against_smartpos_sandbox_and_events_reach_listen(
    tmp_path: Path, background: Starter
) -> None:
    """pay and print against ``smartpos sandbox --webhook``: their events arrive in ``listen``."""
    listen = background("listen", "--port", "0", "--store", str(tmp_path / "inbox.sqlite3"))
    webhook = listen.wait_for(r"ready at (http://\S+/)").group(1)
    sandbox = background("sandbox", "--port", "0", "--webhook", webhook)
    base = URL.search(sandbox.wait_for("serving at").string)
    assert base is not None
    env = cli_env(SMARTPOS_API_KEY=Sandbox.API_KEY, SMARTPOS_BASE_URL=base.group(0))
    paid = run_cli(
        "pay", Sandbox.DOCUMENTO, "1990", "--smartpos-id", Sandbox.SMARTPOS_ID, "--json", env=env
    )
    assert paid.returncode == 0, paid.stderr
    referencia = json.loads(paid.stdout)["referencia"]
    listen.wait_for(r"pagamento\.aprovado")
    listen.wait_for(re.escape(referencia))
    printed = run_cli("print", Sandbox.DOCUMENTO, Sandbox.SMARTPOS_ID, "-", env=env, input=b"ok")
    assert printed.returncode == 0, printed.stderr
    listen.wait_for(r"impressao\.concluida")


def test_sandbox_refuses_a_non_loopback_host() -> None:
    """The sandbox only listens on loopback: another address is exit 1 with advice."""
    result = run_cli("sandbox", "--host", "0.0.0.0", "--port", "0")
    assert result.returncode == 1
    assert "loopback" in result.stderr


def test_sandbox_on_a_busy_port_exits_1() -> None:
    """A port in use: exit 1 and the advice to use --port."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        result = run_cli("sandbox", "--port", str(busy.getsockname()[1]))
    assert result.returncode == 1
    assert "--port" in result.stderr
