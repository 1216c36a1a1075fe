"""The control API's optional key and the bounded log of a sandbox left running (a container)."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest

import smartpos
from smartpos.testing import RemoteSandbox, Sandbox, SandboxError
from smartpos.testing._control import KEY_HEADER
from smartpos.testing._headless import (
    REMOTE_WARNING,
    REMOTE_WARNING_KEYED,
    Settings,
    remote_warning,
    serving,
)

KEY = "k3y-0f-the-c0ntrol"


@pytest.fixture
def keyed(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Sandbox, str]]:
    """A sandbox served with a control key, and its base URL (no key in the environment)."""
    monkeypatch.delenv("SMARTPOS_SANDBOX_CONTROL_KEY", raising=False)
    with Sandbox(control_key=KEY) as sandbox, sandbox.serve() as base_url:
        yield sandbox, base_url


@pytest.mark.parametrize("sent", [None, "wrong", KEY + "x", ""])
def test_a_control_request_without_the_key_is_401_in_the_error_shape(
    keyed: tuple[Sandbox, str], sent: str | None
) -> None:
    """No key, a wrong one, a longer one: 401 CHAVE_CONTROLE_INVALIDA with the erro shape."""
    sandbox, base_url = keyed
    headers = {} if sent is None else {KEY_HEADER: sent}

    answer = httpx.post(
        f"{base_url}/_sandbox/v1/scripts/payments",
        json={"outcomes": ["recusar"]},
        headers=headers,
        trust_env=False,
    )
    erro = answer.json()["erro"]

    assert 401 == answer.status_code
    assert "CHAVE_CONTROLE_INVALIDA" == erro["codigo"]
    assert erro["mensagem"]
    assert erro["acao"]
    assert KEY not in answer.text
    assert [] == sandbox.manual_queue()


def test_the_right_key_drives_the_sandbox_and_is_never_logged(
    keyed: tuple[Sandbox, str],
) -> None:
    """RemoteSandbox(control_key=...) works; the service's own endpoints need no control key."""
    sandbox, base_url = keyed
    with (
        RemoteSandbox(base_url, control_key=KEY) as remote,
        smartpos.Client(api_key=Sandbox.API_KEY, base_url=base_url, max_retries=0) as client,
    ):
        acceptance = client.payments.create(
            documento_cliente=Sandbox.DOCUMENTO,
            valor_centavos=500,
            modo_execucao="manual",
            comanda=smartpos.Comanda("Mesa 3"),
        )
        queued = [card.referencia for card in remote.manual_queue()]
        cancelled = remote.operator_cancel(acceptance.referencia)
        logged = json.dumps([str(entry) for entry in remote.log()]) + str(sandbox.requests)

    assert [acceptance.referencia] == queued
    assert "cancelado" == cancelled["dados"]["status"]
    assert KEY not in logged


def test_remote_sandbox_without_the_key_raises_a_sandbox_error(
    keyed: tuple[Sandbox, str],
) -> None:
    """Without the key, every RemoteSandbox call is refused as CHAVE_CONTROLE_INVALIDA."""
    _, base_url = keyed
    with RemoteSandbox(base_url) as remote, pytest.raises(SandboxError) as info:
        remote.manual_queue()

    assert str(info.value).startswith("CHAVE_CONTROLE_INVALIDA")


def test_remote_sandbox_reads_the_key_from_the_environment(
    keyed: tuple[Sandbox, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """SMARTPOS_SANDBOX_CONTROL_KEY is the key RemoteSandbox sends when none is given."""
    _, base_url = keyed
    monkeypatch.setenv("SMARTPOS_SANDBOX_CONTROL_KEY", KEY)

    with RemoteSandbox(base_url) as remote:
        assert [] == remote.manual_queue()


def test_a_sandbox_without_a_key_needs_none(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default stays keyless: a control request with no header is answered."""
    monkeypatch.delenv("SMARTPOS_SANDBOX_CONTROL_KEY", raising=False)
    with Sandbox() as sandbox, sandbox.serve() as base_url, RemoteSandbox(base_url) as remote:
        assert [] == remote.manual_queue()


def test_settings_read_the_key_and_the_log_limit_from_the_environment() -> None:
    """A container sets both by variables; the key stays out of the settings' repr."""
    settings = Settings.from_environment(
        {"SMARTPOS_SANDBOX_CONTROL_KEY": KEY, "SMARTPOS_SANDBOX_LOG_LIMIT": "250"}
    )

    assert (KEY, 250) == (settings.control_key, settings.log_limit)
    assert KEY not in repr(settings)
    with pytest.raises(ValueError, match="SMARTPOS_SANDBOX_LOG_LIMIT"):
        Settings.from_environment({"SMARTPOS_SANDBOX_LOG_LIMIT": "0"})


def test_a_served_sandbox_takes_its_key_from_the_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``serving`` (python -m smartpos.testing, smartpos sandbox) requires the settings' key."""
    monkeypatch.delenv("SMARTPOS_SANDBOX_CONTROL_KEY", raising=False)
    with serving(Settings(port=0, control_key=KEY, log_limit=5)) as (_, base_url):
        refused = httpx.get(f"{base_url}/_sandbox/v1/log", trust_env=False)
        allowed = httpx.get(
            f"{base_url}/_sandbox/v1/log", headers={KEY_HEADER: KEY}, trust_env=False
        )

    assert (401, 200) == (refused.status_code, allowed.status_code)


def test_the_remote_warning_says_whether_the_control_api_has_a_key() -> None:
    """Beyond loopback, the warning says 'no key' only for a sandbox without one."""
    assert REMOTE_WARNING.format(host="0.0.0.0") == remote_warning(Settings(host="0.0.0.0"))
    assert REMOTE_WARNING_KEYED.format(host="0.0.0.0") == remote_warning(
        Settings(host="0.0.0.0", control_key=KEY)
    )


# ------------------------------------------------------------------------ the bounded log


def _pay(client: smartpos.Client) -> None:
    client.payments.create(
        documento_cliente=Sandbox.DOCUMENTO, valor_centavos=100, smartpos_id=Sandbox.SMARTPOS_ID
    )


def test_the_log_keeps_only_the_newest_entries_numbered_on() -> None:
    """With log_limit=4 the log, requests and deliveries keep 4 each; numbers keep counting."""
    with (
        Sandbox(log_limit=4) as sandbox,
        smartpos.Client(
            api_key=Sandbox.API_KEY, base_url="http://sandbox.test", transport=sandbox.transport()
        ) as client,
    ):
        sandbox.set_webhook(lambda envelope: None)
        for _ in range(5):
            _pay(client)
        sandbox.wait_for_deliveries()
        entries = sandbox.log()
        after = sandbox.log(entries[-2].seq)

    # 5 requests and 5 deliveries: 10 entries, the last 4 kept.
    assert [7, 8, 9, 10] == [entry.seq for entry in entries]
    assert [10] == [entry.seq for entry in after]
    assert 4 == len(sandbox.requests)
    assert 4 == len(sandbox.deliveries)


def test_a_resend_reports_its_attempts_once_the_log_is_full(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The control API's resend answers its own delivery attempts even at the limit."""
    monkeypatch.delenv("SMARTPOS_SANDBOX_CONTROL_KEY", raising=False)
    with (
        Sandbox(log_limit=2) as sandbox,
        sandbox.serve() as base_url,
        RemoteSandbox(base_url) as remote,
        smartpos.Client(api_key=Sandbox.API_KEY, base_url=base_url, max_retries=0) as client,
    ):
        sandbox.set_webhook(lambda envelope: None)
        for _ in range(3):
            _pay(client)
        sandbox.wait_for_deliveries()
        event_id = sandbox.events[0]["id"]
        answer = remote.call("POST", f"/events/{event_id}/resend", {})

    assert [event_id] == [attempt["eventId"] for attempt in answer["deliveries"]]


def test_a_log_limit_below_one_is_refused() -> None:
    """log_limit is a whole number >= 1."""
    with pytest.raises(ValueError, match="log_limit"):
        Sandbox(log_limit=0)


@pytest.mark.slow
def test_python_m_smartpos_testing_takes_the_key_and_the_limit_from_the_environment() -> None:
    """A container sets SMARTPOS_SANDBOX_CONTROL_KEY and _LOG_LIMIT: the key is required and
    never printed, and the log keeps the last N entries."""
    env = {
        **os.environ,
        "SMARTPOS_SANDBOX_CONTROL_KEY": KEY,
        "SMARTPOS_SANDBOX_LOG_LIMIT": "2",
        "SMARTPOS_SANDBOX_LOG": "quiet",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "smartpos.testing", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        base_url = process.stdout.readline().strip().rsplit(" ", 1)[1]
        with httpx.Client(base_url=base_url, trust_env=False, timeout=5) as http:
            refused = http.get("/_sandbox/v1/log")
            for _ in range(3):
                http.get(f"/v1/customers/{Sandbox.DOCUMENTO}/smartpos")  # no key: 401, logged
            entries = http.get("/_sandbox/v1/log", headers={KEY_HEADER: KEY}).json()["entries"]
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()

    assert 401 == refused.status_code
    assert [2, 3] == [entry["seq"] for entry in entries]
    assert 0 == process.returncode, err
    assert KEY not in out + err
