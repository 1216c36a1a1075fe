"""serve(), python -m smartpos.testing and the pytest plugin as an integrator meets them."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import uuid
from pathlib import Path

import httpx
import pytest

import smartpos
from smartpos.testing import Sandbox
from smartpos.testing.__main__ import main


def test_serve_refuses_non_loopback_hosts(sandbox: Sandbox) -> None:
    """serve() only binds loopback addresses."""
    with pytest.raises(ValueError, match="loopback"):
        sandbox.serve("0.0.0.0")
    with pytest.raises(ValueError, match="loopback"):
        sandbox.serve("192.168.0.1")


def test_serve_gives_a_base_url_and_stops(sandbox: Sandbox) -> None:
    """The base URL is http://127.0.0.1:<port>, and the port is closed after the block."""
    with sandbox.serve() as base_url:
        assert base_url.startswith("http://127.0.0.1:")
        port = int(base_url.rsplit(":", 1)[1])
        with httpx.Client(base_url=base_url, trust_env=False) as client:
            assert client.get("/nothing").status_code == 404
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        pass


def test_serve_keeps_connections_alive(sandbox: Sandbox) -> None:
    """Several requests share one HTTP/1.1 connection."""
    headers = {"x-api-key": Sandbox.API_KEY}
    with sandbox.serve() as base_url, httpx.Client(base_url=base_url, trust_env=False) as client:
        path = f"/v1/customers/{Sandbox.DOCUMENTO}/smartpos"
        ports = set()
        for _ in range(3):
            response = client.get(path, headers=headers, extensions={})
            assert response.status_code == 200
            stream = response.extensions["network_stream"]
            ports.add(stream.get_extra_info("client_addr")[1])
    assert len(ports) == 1


def test_serve_on_ipv6_loopback(sandbox: Sandbox) -> None:
    """serve('::1') gives a bracketed base URL."""
    if not socket.has_ipv6:
        pytest.skip("no IPv6")
    try:
        server = sandbox.serve("::1")
        base_url = server.__enter__()
    except OSError:
        pytest.skip("no IPv6 loopback here")
    try:
        assert base_url.startswith("http://[::1]:")
        with httpx.Client(trust_env=False) as client:
            assert client.get(base_url + "/nothing").status_code == 404
    finally:
        server.__exit__(None, None, None)


def test_serve_handles_concurrent_requests(sandbox: Sandbox) -> None:
    """Threads paying at once each get their own 202 and one event each."""
    errors: list[BaseException] = []

    def pay(base_url: str) -> None:
        try:
            body = {
                "referencia": str(uuid.uuid4()),
                "documentoCliente": Sandbox.DOCUMENTO,
                "smartposId": Sandbox.SMARTPOS_ID,
                "valorCentavos": 1,
                "modoExecucao": "imediato",
            }
            headers = {"x-api-key": Sandbox.API_KEY}
            with httpx.Client(trust_env=False) as client:
                response = client.post(base_url + "/v1/payments", json=body, headers=headers)
            assert response.status_code == 202
        except BaseException as exc:
            errors.append(exc)

    with sandbox.serve() as base_url:
        threads = [threading.Thread(target=pay, args=(base_url,)) for _ in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == []
    assert len(sandbox.payments) == 16
    assert len({e["id"] for e in sandbox.events}) == 16


def test_main_warns_before_binding_beyond_loopback(capsys: pytest.CaptureFixture[str]) -> None:
    """A host beyond loopback is taken with a warning (here an address no interface has).

    192.0.2.1 (TEST-NET-1, RFC 5737) cannot be bound, so nothing listens beyond this machine;
    the stop event is set as well, so the server would end at once if it could bind.
    """
    stop = threading.Event()
    stop.set()
    assert main(["--host", "192.0.2.1", "--port", "0"], stop=stop) == 1
    err = capsys.readouterr().err
    assert "warning: serving on 192.0.2.1" in err
    assert "control API" in err
    assert "error:" in err


@pytest.mark.slow
def test_python_m_smartpos_testing_serves_until_sigterm(tmp_path: Path) -> None:
    """The module prints the base URL and the default world, serves, and stops on SIGTERM."""
    process = subprocess.Popen(
        [sys.executable, "-m", "smartpos.testing", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        base_url = first.strip().rsplit(" ", 1)[1]
        assert base_url.startswith("http://127.0.0.1:")
        banner = "".join(process.stdout.readline() for _ in range(4))
        assert Sandbox.API_KEY in banner
        assert Sandbox.DOCUMENTO in banner
        assert Sandbox.SMARTPOS_ID in banner
        with httpx.Client(trust_env=False) as client:
            response = client.get(
                f"{base_url}/v1/customers/{Sandbox.DOCUMENTO}/smartpos",
                headers={"x-api-key": Sandbox.API_KEY},
            )
        assert response.json()["smartpos"][0]["smartposId"] == Sandbox.SMARTPOS_ID
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert "stopped." in out


@pytest.mark.slow
def test_the_pytest_plugin_works_in_an_integrators_project(tmp_path: Path) -> None:
    """A project with no conftest gets smartpos_sandbox and both clients from the entry point."""
    (tmp_path / "test_checkout.py").write_text(
        textwrap.dedent(
            """
            import asyncio
            from smartpos.testing import Refuse

            def test_sync(smartpos_client, smartpos_sandbox):
                smartpos_sandbox.script_payments(Refuse(mensagem_operador="NEGADA"))
                smartpos_client.payments.create(
                    documento_cliente=smartpos_sandbox.DOCUMENTO,
                    smartpos_id=smartpos_sandbox.SMARTPOS_ID,
                    valor_centavos=100,
                )
                assert smartpos_sandbox.events[0]["tipo"] == "pagamento.recusado"

            def test_fresh(smartpos_sandbox):
                assert smartpos_sandbox.events == []

            def test_async(smartpos_async_client, smartpos_sandbox):
                async def go():
                    async with smartpos_async_client as client:
                        return await client.terminals.list(
                            documento_cliente=smartpos_sandbox.DOCUMENTO
                        )
                assert len(asyncio.run(go())) == 1
            """
        )
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 passed" in result.stdout


def test_events_are_json_serializable(sandbox: Sandbox) -> None:
    """Recorded envelopes survive a JSON round trip unchanged."""
    client = httpx.Client(transport=sandbox.transport(), headers={"x-api-key": Sandbox.API_KEY})
    response = client.post("http://s.invalid/qrcode", json={"documentoCliente": Sandbox.DOCUMENTO})
    sandbox.scan(response.json()["qrCode"], "SP-X")
    assert json.loads(json.dumps(sandbox.events)) == sandbox.events


def test_control_endpoints_pair_and_start_cards_over_http(sandbox: Sandbox) -> None:
    """Tools in other languages pair, start manual cards and read events through /_sandbox/."""
    headers = {"x-api-key": Sandbox.API_KEY}
    with sandbox.serve() as base_url, httpx.Client(base_url=base_url, trust_env=False) as client:
        qr = client.post("/qrcode", json={"documentoCliente": Sandbox.DOCUMENTO}, headers=headers)
        scan = client.post(
            "/_sandbox/scan", json={"qrCode": qr.json()["qrCode"], "smartposId": "SP-GO"}
        )
        assert scan.status_code == 200
        assert scan.json()["event"]["tipo"] == "smartpos.identificado"
        body = {
            "referencia": str(uuid.uuid4()),
            "documentoCliente": Sandbox.DOCUMENTO,
            "valorCentavos": 5,
            "modoExecucao": "manual",
            "smartposId": "SP-GO",
            "comanda": {"identificacao": "Pedido 9"},
        }
        assert client.post("/v1/payments", json=body, headers=headers).status_code == 202
        started = client.post("/_sandbox/operator-start", json={"referencia": body["referencia"]})
        assert started.json()["event"]["tipo"] == "pagamento.aprovado"
        events = client.get("/_sandbox/events").json()["events"]
        unknown = client.post("/_sandbox/scan", json={"qrCode": "x", "smartposId": "y"})
        missing = client.get("/_sandbox/nothing")
        wrong = client.get("/_sandbox/scan")
    assert [e["tipo"] for e in events] == ["smartpos.identificado", "pagamento.aprovado"]
    assert (unknown.status_code, unknown.json()["erro"]["codigo"]) == (400, "SANDBOX")
    assert (missing.status_code, wrong.status_code) == (404, 405)


def test_control_scan_of_an_expired_qr_code_is_409() -> None:
    """An expired QR code scanned over the control API answers 409 QR_CODE_EXPIRADO."""
    sandbox = Sandbox(qr_code_ttl=0, clock=lambda: 1_000.0)
    client = httpx.Client(
        base_url="http://s.invalid",
        transport=sandbox.transport(),
        headers={"x-api-key": Sandbox.API_KEY},
    )
    qr = client.post("/qrcode", json={"documentoCliente": Sandbox.DOCUMENTO}).json()["qrCode"]
    sandbox.advance(1)
    response = client.post("/_sandbox/scan", json={"qrCode": qr, "smartposId": "SP"})
    assert (response.status_code, response.json()["erro"]["codigo"]) == (409, "QR_CODE_EXPIRADO")


def test_main_reports_a_port_in_use(capsys: pytest.CaptureFixture[str]) -> None:
    """A port already taken exits 1 with an error instead of a traceback."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["--port", str(port)], stop=threading.Event()) == 1
    assert "error:" in capsys.readouterr().err


def test_main_serves_until_stopped(capsys: pytest.CaptureFixture[str]) -> None:
    """main() serves, returns 0 once stopped and puts the signal handlers back."""
    stop = threading.Event()
    stop.set()
    before = signal.getsignal(signal.SIGTERM)
    assert main(["--port", "0", "--seed", "1"], stop=stop) == 0
    assert signal.getsignal(signal.SIGTERM) is before
    out = capsys.readouterr().out
    assert "serving at http://127.0.0.1:" in out
    assert "stopped." in out


def test_settings_come_from_options_then_the_environment() -> None:
    """An option wins over its variable; a variable fills what no option gave."""
    from smartpos.testing._headless import Settings

    environ = {
        "SMARTPOS_SANDBOX_HOST": "0.0.0.0",
        "SMARTPOS_SANDBOX_PORT": "9000",
        "SMARTPOS_SANDBOX_WEBHOOK": "http://app:8000/hooks",
        "SMARTPOS_SANDBOX_SEED": "7",
        "SMARTPOS_SANDBOX_LOG": "json",
    }
    settings = Settings.from_environment(environ, port=0, host=None)
    assert Settings("0.0.0.0", 0, "http://app:8000/hooks", 7, "json") == settings
    assert settings.remote
    assert Settings() == Settings.from_environment({"SMARTPOS_SANDBOX_PORT": " "})
    assert not Settings().remote


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("SMARTPOS_SANDBOX_PORT", "http"),
        ("SMARTPOS_SANDBOX_PORT", "70000"),
        ("SMARTPOS_SANDBOX_SEED", "x"),
        ("SMARTPOS_SANDBOX_LOG", "loud"),
    ],
)
def test_a_bad_variable_is_exit_2_naming_it(
    variable: str,
    value: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A variable that cannot be read stops the program before it serves, naming it."""
    monkeypatch.setenv(variable, value)
    assert 2 == main([], stop=threading.Event())
    assert variable in capsys.readouterr().err


def test_main_refuses_a_webhook_beyond_loopback_on_loopback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Delivering to another host needs a sandbox that serves beyond loopback too."""
    stop = threading.Event()
    stop.set()
    assert 2 == main(["--port", "0", "--webhook", "http://app:8000/hooks"], stop=stop)
    assert "loopback" in capsys.readouterr().err


def test_a_remote_sandbox_accepts_a_webhook_of_another_host() -> None:
    """allow_remote_webhooks (a container's sandbox) takes http://app:8000/... as a target."""
    with Sandbox(allow_remote_webhooks=True) as sandbox:
        sandbox.set_webhook("http://app:8000/webhooks/smartpos")
        assert "http://app:8000/webhooks/smartpos" == sandbox.partners[0].webhook_target
        with pytest.raises(ValueError, match="http URLs"):
            sandbox.set_webhook("ftp://app/hooks")


@pytest.mark.slow
def test_the_container_entry_is_configured_by_the_environment(tmp_path: Path) -> None:
    """python -m smartpos.testing with SMARTPOS_SANDBOX_* only: JSON readiness, JSON log, stop."""
    from sandbox_receiver import receiving

    with receiving() as receiver:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("SMARTPOS_")},
            "SMARTPOS_SANDBOX_PORT": "0",
            "SMARTPOS_SANDBOX_SEED": "3",
            "SMARTPOS_SANDBOX_LOG": "json",
            "SMARTPOS_SANDBOX_WEBHOOK": receiver.url,
        }
        process = subprocess.Popen(
            [sys.executable, "-m", "smartpos.testing"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            assert process.stdout is not None
            ready = json.loads(process.stdout.readline())
            assert receiver.url == ready["webhook"]
            with smartpos.Client(api_key=ready["api_key"], base_url=ready["base_url"]) as client:
                client.payments.create(
                    documento_cliente=Sandbox.DOCUMENTO,
                    smartpos_id=Sandbox.SMARTPOS_ID,
                    valor_centavos=990,
                )
            request = json.loads(process.stdout.readline())
            delivery = json.loads(process.stdout.readline())
            process.send_signal(signal.SIGTERM)
            out, err = process.communicate(timeout=10)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
    assert ("request", "POST", "/v1/payments", 202) == (
        request["kind"],
        request["request"]["method"],
        request["request"]["path"],
        request["request"]["statusCode"],
    )
    assert "529.***.***-25" == request["request"]["json"]["documentoCliente"]
    assert ("delivery", receiver.url, True) == (
        delivery["kind"],
        delivery["delivery"]["target"],
        delivery["delivery"]["ok"],
    )
    assert [delivery["delivery"]["eventId"]] == [e["id"] for e in receiver.events]
    assert 0 == process.returncode, err
    assert '{"stopped": true}' == out.strip().splitlines()[-1]
