"""The pytest plugin's markers and its served fixture, used here as an integrator would."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import httpx
import pytest

import smartpos
from smartpos.testing import Refuse, RemoteSandbox, Sandbox

pytestmark = pytest.mark.smartpos_payments("aprovar")


def pay(client: smartpos.Client) -> None:
    """Charge on the default terminal."""
    client.payments.create(
        documento_cliente=Sandbox.DOCUMENTO, smartpos_id=Sandbox.SMARTPOS_ID, valor_centavos=100
    )


@pytest.mark.smartpos_payments("recusar", Refuse(mensagem_operador="SALDO INSUFICIENTE"))
@pytest.mark.smartpos_prints("falhar")
def test_markers_script_outcomes_module_first(
    smartpos_client: smartpos.Client, smartpos_sandbox: Sandbox
) -> None:
    """The module's marker runs first, then the function's, in order, in words or objects."""
    for _ in range(3):
        pay(smartpos_client)
    smartpos_client.print_jobs.create(
        documento_cliente=Sandbox.DOCUMENTO, smartpos_id=Sandbox.SMARTPOS_ID, conteudo="x"
    )
    events = smartpos_sandbox.events
    assert ["pagamento.aprovado", "pagamento.recusado", "pagamento.recusado"] == [
        e["tipo"] for e in events[:3]
    ]
    assert "SALDO INSUFICIENTE" == events[2]["dados"]["resultadoSmartPOS"]["mensagemOperador"]
    assert "impressao.falhou" == events[3]["tipo"]


@pytest.mark.smartpos_fault("payments", "drop")
@pytest.mark.smartpos_fault("webhook", 503, times=2)
def test_fault_markers(smartpos_client: smartpos.Client, smartpos_sandbox: Sandbox) -> None:
    """A fault marker drops the answer after acceptance; a webhook one fails deliveries."""
    with pytest.raises(smartpos.OutcomeUnknownError):
        pay(smartpos_client)
    assert [(False, 503), (False, 503), (True, None)] == [
        (d.ok, d.status_code) for d in smartpos_sandbox.deliveries
    ]


@pytest.mark.smartpos_sandbox(seed=7, qr_code_ttl=5)
def test_sandbox_options_marker(smartpos_sandbox: Sandbox) -> None:
    """Sandbox options come from their marker: a seed gives the same ids."""
    again = Sandbox(seed=7, qr_code_ttl=5)
    with (
        httpx.Client(transport=smartpos_sandbox.transport()) as a,
        httpx.Client(transport=again.transport()) as b,
    ):
        body = {"documentoCliente": Sandbox.DOCUMENTO}
        key = {"x-api-key": Sandbox.API_KEY}
        first = a.post("http://s.invalid/qrcode", json=body, headers=key).json()
        second = b.post("http://s.invalid/qrcode", json=body, headers=key).json()
    again.close()
    assert first["qrCode"] == second["qrCode"]


@pytest.mark.smartpos_payments("silencio")
def test_the_served_fixture_for_code_in_another_process(
    smartpos_sandbox_url: str, smartpos_sandbox: Sandbox
) -> None:
    """Code in a subprocess pays through the URL; the markers (module's first) applied there."""
    code = textwrap.dedent(
        f"""
        import smartpos
        with smartpos.Client(api_key="sandbox-key", base_url={smartpos_sandbox_url!r}) as c:
            for _ in range(2):
                print(c.payments.create(documento_cliente="52998224725",
                                        smartpos_id="SP-SANDBOX-1", valor_centavos=250).referencia)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert 0 == result.returncode, result.stderr
    first, second = result.stdout.split()
    assert ["aprovado", "processando"] == [
        smartpos_sandbox.payment(first).status,
        smartpos_sandbox.payment(second).status,
    ]
    with RemoteSandbox(smartpos_sandbox_url) as remote:
        assert [first, second] == [p.referencia for p in remote.payments]


def test_markers_are_registered(pytestconfig: pytest.Config) -> None:
    """--strict-markers knows the plugin's markers (this suite runs with it)."""
    registered = " ".join(pytestconfig.getini("markers"))
    names = ("smartpos_payments", "smartpos_prints", "smartpos_fault", "smartpos_sandbox")
    for name in (*names, "smartpos_webhook_signing"):
        assert f"{name}(" in registered


@pytest.mark.slow
def test_an_integrators_project_uses_markers_and_the_url(tmp_path: Path) -> None:
    """In a project with no conftest, the markers and smartpos_sandbox_url work as documented."""
    (tmp_path / "test_shop.py").write_text(
        textwrap.dedent(
            """
            import httpx
            import pytest

            @pytest.mark.smartpos_payments("recusar")
            def test_refused(smartpos_client, smartpos_sandbox):
                smartpos_client.payments.create(
                    documento_cliente=smartpos_sandbox.DOCUMENTO,
                    smartpos_id=smartpos_sandbox.SMARTPOS_ID,
                    valor_centavos=100,
                )
                assert smartpos_sandbox.events[0]["tipo"] == "pagamento.recusado"

            def test_url(smartpos_sandbox_url):
                got = httpx.get(smartpos_sandbox_url + "/_sandbox/v1/clock", trust_env=False)
                assert got.status_code == 200
            """
        )
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "--strict-markers", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert 0 == result.returncode, result.stdout + result.stderr
    assert "2 passed" in result.stdout
