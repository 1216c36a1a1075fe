"""``smartpos demo`` end to end: every event shown, a summary, bounded.

In process, except one smoke test of the whole demo as a real process.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_helpers import cli_env, run_cli, run_subprocess

import smartpos

pytestmark = pytest.mark.slow

DEMO_TIMEOUT = 90.0


def check_text_output(stdout: str) -> None:
    """The demo's text shows each step, each event kind as it arrives, and the summary."""
    for step in range(1, 8):
        assert f"[{step}/7]" in stdout
    for tipo in (
        "smartpos.identificado",
        "pagamento.recusado",
        "pagamento.aprovado",
        "impressao.concluida",
    ):
        assert re.search(rf"<- {re.escape(tipo)}  id \S+  HTTP 200, stored in the inbox", stdout)
    assert re.search(r"<- pagamento\.aprovado  id \S+  HTTP 200, DUPLICATE", stdout)
    assert stdout.count("processed by the worker: claimed, handled (1x), acked") == 7
    assert "refused (SALDO INSUFICIENTE)" in stdout
    assert "approved" in stdout
    assert "outcome unknown: the connection dropped" in stdout
    assert "(409 REFERENCIA_DUPLICADA): accepted, charged 1x" in stdout
    assert "lost answer x1 (reconciled: accepted, charged 1x)" in stdout
    assert "refund requested" in stdout
    assert "Summary" in stdout
    assert "each processed exactly once" in stdout
    assert "8 over HTTP, 1 duplicate(s)" in stdout
    assert "abandoned, nothing sent: the sale is open again" in stdout
    assert "the slow attempt was approved late" in stdout
    assert "compensate again sends nothing (refunded 1x)" in stdout
    assert "late approval refunded 1x (compensate run twice)" in stdout
    assert re.search(r"duration\s+\d+\.\d\d s", stdout)
    assert "529.***.***-25" in stdout
    assert "52998224725" not in stdout


def test_demo_runs_the_whole_sale() -> None:
    """Smoke: the sync demo, as a process, exits 0, shows every event and the summary."""
    result = run_subprocess("demo", timeout=DEMO_TIMEOUT)
    assert result.returncode == 0, result.stdout + result.stderr
    check_text_output(result.stdout)
    assert "smartpos.Client against the sandbox" in result.stdout
    assert "\x1b[" not in result.stdout
    assert "\u2588" in result.stdout  # the QR code is drawn


def test_demo_async_runs_the_same_flow() -> None:
    """``demo --async`` runs the same flow on AsyncClient and AsyncWorker."""
    result = run_cli("demo", "--async", "--no-qr", timeout=DEMO_TIMEOUT)
    assert result.returncode == 0, result.stdout + result.stderr
    check_text_output(result.stdout)
    assert "smartpos.AsyncClient against the sandbox" in result.stdout
    assert "\u2588" not in result.stdout


@pytest.mark.parametrize("flag", [[], ["--async"]], ids=["sync", "async"])
def test_demo_json_summary(flag: list[str]) -> None:
    """``demo --json`` prints one summary: every event processed once, one duplicate, all done."""
    result = run_cli("demo", "--json", *flag, timeout=DEMO_TIMEOUT)
    assert result.returncode == 0, result.stderr
    [line] = result.stdout.splitlines()
    summary = json.loads(line)
    assert summary["ok"] is True
    assert summary["client"] == ("AsyncClient" if flag else "Client")
    assert [e["tipo"] for e in summary["events"]] == [
        "smartpos.identificado",
        "pagamento.recusado",
        "pagamento.aprovado",
        "pagamento.aprovado",
        "impressao.concluida",
        "pagamento.aprovado",
        "pagamento.aprovado",
    ]
    assert {e["processed"] for e in summary["events"]} == {1}
    assert (summary["deliveries"], summary["duplicates"]) == (8, 1)
    assert summary["inbox"]["states"] == {"done": 7}
    assert [s["step"] for s in summary["steps"]] == [1, 2, 3, 4, 5, 6, 7]
    referencias = summary["referencias"]
    assert set(referencias) == {
        "qrcode",
        "payment_refused",
        "payment",
        "payment_reconciled",
        "print_job",
        "refund",
        "payment_abandoned",
    }
    outcomes = summary["outcomes"]
    assert outcomes["refused"] == referencias["payment_refused"]
    assert outcomes["approved"][:2] == [referencias["payment"], referencias["payment_reconciled"]]
    assert 3 == len(outcomes["approved"])
    compensated = outcomes["compensated"]
    assert (1, [compensated["referencia"]]) == (compensated["refunds"], compensated["again"])
    assert compensated["referencia"] == smartpos.referencia_for(
        f"compensacao:{referencias['payment_abandoned']}"
    )
    assert outcomes["reconciled"] == {
        "referencia": referencias["payment_reconciled"],
        "state": "accepted",
        "charges": 1,
    }
    assert summary["duration_seconds"] < DEMO_TIMEOUT


def test_demo_keeps_the_inbox_with_store(tmp_path: Path) -> None:
    """``--store PATH`` keeps the inbox; ``events list`` then shows the seven events done, and
    the SDK's own event of the compensation."""
    store = tmp_path / "demo.sqlite3"
    result = run_cli("demo", "--no-qr", "--delay", "0", "--store", str(store), timeout=DEMO_TIMEOUT)
    assert result.returncode == 0, result.stderr
    assert f"smartpos events list --store {store}" in result.stdout
    listed = json.loads(run_cli("events", "list", "--store", str(store), "--json").stdout)
    assert [(r["tipo"], r["state"]) for r in listed] == [
        ("smartpos.identificado", "done"),
        ("pagamento.recusado", "done"),
        ("pagamento.aprovado", "done"),
        ("pagamento.aprovado", "done"),
        ("impressao.concluida", "done"),
        ("pagamento.aprovado", "done"),
        ("pagamento.aprovado", "done"),
        # The SDK's own event of the accepted compensation (step 7), for on_sale.
        ("smartpos.compensacao.aceita", "done"),
    ]
    again = run_cli("demo", "--json", "--delay", "0", "--store", str(store), timeout=DEMO_TIMEOUT)
    assert again.returncode == 0, again.stderr
    assert len(json.loads(again.stdout)["events"]) == 7
    assert len(json.loads(run_cli("events", "list", "--store", str(store), "--json").stdout)) == 16


def test_demo_failure_is_a_clear_non_zero_exit(tmp_path: Path) -> None:
    """An inbox that cannot be created ends the demo with exit 1 and a message, not a hang."""
    result = run_cli(
        "demo", "--store", str(tmp_path / "missing-dir" / "inbox.sqlite3"), timeout=DEMO_TIMEOUT
    )
    assert result.returncode == 1
    assert "error:" in result.stderr
    assert "Traceback" not in result.stderr


def test_demo_respects_no_color_and_amount() -> None:
    """With NO_COLOR set there are no escape codes; --valor-centavos is the amount charged."""
    result = run_cli(
        "demo",
        "--no-qr",
        "--valor-centavos",
        "12345",
        env=cli_env(NO_COLOR="1"),
        timeout=DEMO_TIMEOUT,
    )
    assert result.returncode == 0, result.stderr
    assert "\x1b[" not in result.stdout
    assert "Charge R$ 123,45" in result.stdout
    assert "valor R$ 123,45 credito 1x" in result.stdout


def test_demo_speaks_portuguese_under_smartpos_lang() -> None:
    """``SMARTPOS_LANG=pt_BR smartpos demo``: the same sale, every line of the demo's own in
    Portuguese (no English sentence of the demo left), identifiers as they are."""
    from smartpos import _messages
    from smartpos.cli._i18n import PORTUGUESE_WORDS

    _messages.reset()
    try:
        result = run_cli(
            "demo", "--no-qr", "--delay", "0", env=cli_env(SMARTPOS_LANG="pt_BR"),
            timeout=DEMO_TIMEOUT,
        )  # fmt: skip
    finally:
        _messages.reset()
    assert result.returncode == 0, result.stdout + result.stderr
    stdout = result.stdout
    assert "smartpos demo - uma venda completa contra o sandbox" in stdout
    for step in range(1, 8):
        assert f"[{step}/7]" in stdout
    assert "[1/7] Parear um terminal" in stdout
    assert re.search(r"<- pagamento\.aprovado  id \S+  HTTP 200, DUPLICADO", stdout)
    assert stdout.count("processado pelo worker: reservado, tratado (1x), confirmado") == 7
    assert "recusado (SALDO INSUFICIENTE): não finalize a venda" in stdout
    assert "(409 REFERENCIA_DUPLICADA): accepted, cobrado 1x" in stdout
    assert "Resumo" in stdout
    assert "cada um processado exatamente uma vez" in stdout
    assert re.search(r"duração\s+\d+\.\d\d s", stdout)
    english = [
        chunk.strip()
        for template in PORTUGUESE_WORDS
        for chunk in re.split(r"\{[^}]*\}", template)
        if len(chunk.split()) >= 3
    ]
    assert len(english) > 40
    assert [] == [chunk for chunk in english if chunk in stdout]
