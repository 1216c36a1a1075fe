"""``smartpos sandbox``: serving with a live log, and the actions that drive a running sandbox.

The actions (``scan``, ``next``, ``fault``, ``resend``, ``held``, ``release``, ``log``) run in
process against a sandbox served on 127.0.0.1; serving until a signal, and ``log --follow``, are
smoke-tested as real processes, stopped by PID.
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from cli_helpers import URL, Starter, cli_env, run_cli, run_subprocess

import smartpos
from smartpos.testing import Contradict, Refuse, Sandbox
from smartpos.testing._vocabulary import outcome_to_json

DOC, TERMINAL = Sandbox.DOCUMENTO, Sandbox.SMARTPOS_ID


@pytest.fixture
def live() -> Iterator[tuple[Sandbox, str]]:
    """A fresh sandbox served on 127.0.0.1 for one test, and its base URL."""
    with Sandbox() as sandbox, sandbox.serve() as base_url:
        yield sandbox, base_url


def pay(base_url: str, **extra: object) -> str:
    """Charge through a client bound to the served sandbox; return the referencia."""
    with smartpos.Client(api_key=Sandbox.API_KEY, base_url=base_url, max_retries=0) as client:
        return client.payments.create(
            documento_cliente=DOC, smartpos_id=TERMINAL, valor_centavos=1990, **extra
        ).referencia


def sandbox_cli(base_url: str, *args: str) -> tuple[int, str, str]:
    """Run ``smartpos sandbox ARGS --url BASE_URL`` in process."""
    result = run_cli("sandbox", *args, "--url", base_url)
    return result.returncode, result.stdout, result.stderr


# ------------------------------------------------------------------------------- actions


def test_next_scripts_outcomes_in_words(live: tuple[Sandbox, str]) -> None:
    """next payment recusar --mensagem, then silencio twice: the events say so."""
    sandbox, url = live
    code, out, _ = sandbox_cli(url, "next", "payment", "recusar", "--mensagem", "SEM SALDO")
    assert (0, "the next payment on any terminal: recusar") == (code, out.strip())
    assert 0 == sandbox_cli(url, "next", "payment", "silêncio", "--times", "2")[0]
    referencias = [pay(url) for _ in range(4)]
    assert ["recusado", "processando", "processando", "aprovado"] == [
        sandbox.payment(r).status for r in referencias
    ]
    assert "SEM SALDO" == sandbox.events[0]["dados"]["resultadoSmartPOS"]["mensagemOperador"]


def test_next_hard_cases_and_json(live: tuple[Sandbox, str]) -> None:
    """atraso N duplicar recusar, with --json: the outcome in the vocabulary's JSON form."""
    sandbox, url = live
    code, out, _ = sandbox_cli(
        url, "next", "payment", "atraso", "30", "duplicar", "recusar", "--json"
    )
    assert 0 == code
    outcome = json.loads(out)["outcome"]
    assert ["atraso", 30, "duplicar", "recusar"] == [
        outcome["outcome"],
        outcome["seconds"],
        outcome["then"]["outcome"],
        outcome["then"]["then"]["outcome"],
    ]
    pay(url)
    assert [] == sandbox.events
    sandbox.advance(30)
    assert ["pagamento.recusado"] * 2 == [e["tipo"] for e in sandbox.events]


def test_next_always_and_per_terminal(live: tuple[Sandbox, str]) -> None:
    """--always sets the standing outcome; --smartpos-id limits it to one terminal."""
    sandbox, url = live
    sandbox.add_terminal("SP-2", documento_cliente=DOC)
    code, out, _ = sandbox_cli(url, "next", "print", "falhar", "--always", "--smartpos-id", "SP-2")
    assert (0, "from now on, every print on SP-2: falhar") == (code, out.strip())
    with smartpos.Client(api_key=Sandbox.API_KEY, base_url=url) as client:
        for terminal in ("SP-2", "SP-2", TERMINAL):
            client.print_jobs.create(documento_cliente=DOC, smartpos_id=terminal, conteudo="x")
    assert ["impressao.falhou", "impressao.falhou", "impressao.concluida"] == [
        e["tipo"] for e in sandbox.events
    ]


def test_segurar_holds_one_attempt_until_release(live: tuple[Sandbox, str]) -> None:
    """next payment segurar aprovar: held (listed by held), delivered by release REFERENCIA."""
    sandbox, url = live
    code, out, _ = sandbox_cli(url, "next", "payment", "segurar", "aprovar")
    assert (0, "the next payment on any terminal: segurar aprovar") == (code, out.strip())
    held, delivered = pay(url), pay(url)
    assert [delivered] == [e["dados"]["referencia"] for e in sandbox.events]
    code, out, _ = sandbox_cli(url, "held")
    assert 0 == code
    assert re.match(rf"held {held}: pagamento\.aprovado  id [0-9a-f-]{{36}}$", out.splitlines()[0])
    assert DOC not in out
    code, out, _ = sandbox_cli(url, "held", "--json")
    [[envelope]] = json.loads(out)["held"].values()
    assert (held, "529.***.***-25") == (
        envelope["dados"]["referencia"],
        envelope["dados"]["documentoCliente"],
    )
    code, out, _ = sandbox_cli(url, "release", held, "--json")
    assert (0, held, [envelope["id"]]) == (
        code,
        json.loads(out)["referencia"],
        [e["id"] for e in json.loads(out)["events"]],
    )
    assert [delivered, held] == [e["dados"]["referencia"] for e in sandbox.events]
    code, out, _ = sandbox_cli(url, "held")
    assert (0, "no event is held.") == (code, out.strip())
    code, _, err = sandbox_cli(url, "release", held)
    assert 1 == code
    assert err.startswith(f"error: no event of {held} is held")
    assert "'smartpos sandbox held' lists what is held" in err


def test_release_prints_each_event_it_delivers(live: tuple[Sandbox, str]) -> None:
    """segurar contradicao recusar: release prints the refusal, then its contradiction."""
    sandbox, url = live
    assert 0 == sandbox_cli(url, "next", "payment", "segurar", "contradicao", "recusar")[0]
    referencia = pay(url)
    assert [] == sandbox.events
    code, out, _ = sandbox_cli(url, "release", referencia)
    heads = [line for line in out.splitlines() if line.startswith("released")]
    assert (0, 2) == (code, len(heads))
    assert heads[0].startswith(f"released {referencia}: pagamento.recusado  id ")
    assert heads[1].startswith(f"released {referencia}: pagamento.aprovado  id ")
    assert ["pagamento.recusado", "pagamento.aprovado"] == [e["tipo"] for e in sandbox.events]


def test_next_contradicao_recusar_is_a_refusal_then_an_approval(live: tuple[Sandbox, str]) -> None:
    """next payment contradição recusar: two events, same referencia, the refusal counts."""
    sandbox, url = live
    code, out, _ = sandbox_cli(url, "next", "payment", "contradição", "recusar", "--json")
    assert (0, outcome_to_json(Contradict(Refuse()))) == (code, json.loads(out)["outcome"])
    referencia = pay(url)
    events = sandbox.events
    assert ["pagamento.recusado", "pagamento.aprovado"] == [e["tipo"] for e in events]
    assert {referencia} == {e["dados"]["referencia"] for e in events}
    assert "recusado" == sandbox.payment(referencia).status


def test_next_silencio_never_delivers_nor_holds(live: tuple[Sandbox, str]) -> None:
    """next payment silencio: accepted, no event even a day later, nothing to release."""
    sandbox, url = live
    assert 0 == sandbox_cli(url, "next", "payment", "silencio")[0]
    referencia = pay(url)
    sandbox.advance(86_400)
    assert ([], "processando") == (sandbox.events, sandbox.payment(referencia).status)
    assert "no event is held." == sandbox_cli(url, "held")[1].strip()
    assert 1 == sandbox_cli(url, "release", referencia)[0]
    code, _, err = sandbox_cli(url, "next", "payment", "segurar", "silencio")
    assert (2, True) == (code, "Hold needs an outcome with an event" in err)


def test_fault_words_and_clear(live: tuple[Sandbox, str]) -> None:
    """fault payments drop: the answer is lost after acceptance; --clear forgets a fault."""
    sandbox, url = live
    code, out, _ = sandbox_cli(url, "fault", "payments", "drop")
    assert (0, "the next request to payments: drop") == (code, out.strip())
    with pytest.raises(smartpos.OutcomeUnknownError):
        pay(url)
    assert 1 == len(sandbox.payments)
    assert 0 == sandbox_cli(url, "fault", "any", "500", "--times", "3")[0]
    assert 0 == sandbox_cli(url, "fault", "--clear")[0]
    pay(url)
    code, out, _ = sandbox_cli(url, "fault", "payments", "429", "--retry-after", "4", "--json")
    assert {"endpoint": "payments", "fault": {"fault": "429", "retryAfter": 4}, "times": 1} == (
        json.loads(out)
    )
    with pytest.raises(smartpos.RateLimitError):
        pay(url)
    code, out, _ = sandbox_cli(url, "fault", "payments", "drop", "--before-accept", "--json")
    assert {"fault": "refuse"} == json.loads(out)["fault"]
    with pytest.raises((smartpos.TransportError, smartpos.OutcomeUnknownError)):
        pay(url)
    assert 2 == len(sandbox.payments)  # the drop before acceptance processed nothing


def test_fault_on_webhook_deliveries(live: tuple[Sandbox, str]) -> None:
    """fault webhook 503 --times 2: two failed attempts, then the delivery that works."""
    sandbox, url = live
    code, out, _ = sandbox_cli(url, "fault", "webhook", "503", "--times", "2")
    assert (0, "the next 2 delivery attempts: 503") == (code, out.strip())
    pay(url)
    assert [503, 503, None] == [d.status_code for d in sandbox.deliveries]


def test_scan_the_newest_qr_code(live: tuple[Sandbox, str]) -> None:
    """scan with no QR code reads the newest; the terminal is paired."""
    sandbox, url = live
    with smartpos.Client(api_key=Sandbox.API_KEY, base_url=url) as client:
        qr = client.qrcodes.create(documento_cliente=DOC)
    code, out, _ = sandbox_cli(url, "scan", "--smartpos-id", "SP-BALCAO-2")
    assert 0 == code
    assert out.startswith("scanned: smartpos.identificado")
    assert "529.***.***-25" in out
    assert qr.referencia in out
    assert "SP-BALCAO-2" in [t.smartpos_id for t in sandbox.terminals(DOC)]
    code, out, err = sandbox_cli(url, "scan", "smartpos:qr:v1:nope", "--json")
    assert 1 == code
    assert "no such QR code" in json.loads(err)["error"]["message"]


def test_resend_and_log(live: tuple[Sandbox, str]) -> None:
    """resend delivers the same id again; log shows the request and both deliveries."""
    sandbox, url = live
    referencia = pay(url)
    event_id = sandbox.events[0]["id"]
    code, out, _ = sandbox_cli(url, "resend", event_id)
    assert (
        0,
        [f"resent {event_id} to the partner's webhook, same id.", "  -> sandbox.events: ok"],
    ) == (
        code,
        out.splitlines(),
    )
    assert [event_id, event_id] == [e["id"] for e in sandbox.events]
    code, out, _ = sandbox_cli(url, "log")
    lines = out.splitlines()
    assert 0 == code
    assert re.search(rf"POST /v1/payments  202  referencia {referencia}", lines[0])
    assert 2 == sum(f"-> pagamento.aprovado  id {event_id}" in line for line in lines)
    assert any(f"POST /_sandbox/v1/events/{event_id}/resend  200" in line for line in lines)
    code, out, _ = sandbox_cli(url, "log", "--json", "--since", "1")
    entries = [json.loads(line) for line in out.splitlines()]
    assert [2, 3] == [e["seq"] for e in entries][:2]
    assert "delivery" == entries[0]["kind"]
    assert 1 == sandbox_cli(url, "resend", "no-such-event")[0]


def test_log_masks_documents(live: tuple[Sandbox, str]) -> None:
    """The log shows customer documents masked, in text and JSON, paths included."""
    _, url = live
    pay(url)
    with smartpos.Client(api_key=Sandbox.API_KEY, base_url=url) as client:
        client.terminals.list(documento_cliente=DOC)
    text = sandbox_cli(url, "log")[1]
    data = sandbox_cli(url, "log", "--json")[1]
    assert DOC not in text + data
    assert "/v1/customers/529.***.***-25/smartpos" in text


def test_actions_without_a_sandbox_say_how_to_start_one() -> None:
    """No sandbox at the URL: exit 1 and the advice to start one."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code, _, err = sandbox_cli(f"http://127.0.0.1:{port}", "log")
    assert 1 == code
    assert "no sandbox answers" in err
    assert "smartpos sandbox" in err


def test_actions_find_the_sandbox_through_the_environment(
    live: tuple[Sandbox, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """SMARTPOS_SANDBOX_URL, else SMARTPOS_BASE_URL (what 'smartpos sandbox' says to export)."""
    sandbox, url = live
    result = run_cli("sandbox", "next", "payment", "recusar", env=cli_env(SMARTPOS_BASE_URL=url))
    assert 0 == result.returncode, result.stderr
    result = run_cli(
        "sandbox",
        "next",
        "payment",
        "silencio",
        env=cli_env(SMARTPOS_SANDBOX_URL=url, SMARTPOS_BASE_URL="http://127.0.0.1:9"),
    )
    assert 0 == result.returncode, result.stderr
    pay(url)
    pay(url)
    assert ["recusado", "processando"] == [p.status for p in sandbox.payments]


def test_an_address_that_is_no_sandbox(live: tuple[Sandbox, str]) -> None:
    """A URL answering 404 on /_sandbox/v1/ is called out as not a sandbox."""
    _, url = live
    code, _, err = sandbox_cli(url + "/not-here", "log")
    assert 1 == code
    assert "is not a smartpos sandbox" in err


# ------------------------------------------------------------------------------- serving


def test_serving_refuses_a_bad_webhook_and_a_busy_port() -> None:
    """A webhook beyond loopback is exit 2; a port in use is exit 1 with advice (in process)."""
    bad = run_cli("sandbox", "--port", "0", "--webhook", "http://example.com/hooks")
    assert 2 == bad.returncode
    assert "loopback" in bad.stderr
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        result = run_cli("sandbox", "--port", str(busy.getsockname()[1]))
    assert 1 == result.returncode
    assert "--port" in result.stderr
    env = run_cli("sandbox", env=cli_env(SMARTPOS_SANDBOX_PORT="nope"))
    assert (2, True) == (env.returncode, "SMARTPOS_SANDBOX_PORT" in env.stderr)


@pytest.mark.slow
def test_serving_beyond_loopback_warns_first() -> None:
    """--host beyond loopback is served with a warning (here an address no interface has).

    192.0.2.1 (TEST-NET-1) cannot be bound, so nothing listens beyond this machine; the
    process has a timeout in case it could.
    """
    result = run_subprocess("sandbox", "--host", "192.0.2.1", "--port", "0", timeout=30)
    assert 1 == result.returncode
    assert "warning: serving on 192.0.2.1" in result.stderr
    assert "no key" in result.stderr
    assert "cannot listen on 192.0.2.1" in result.stderr


@pytest.mark.slow
def test_sandbox_serves_with_a_live_log_until_sigterm(background: Starter) -> None:
    """Smoke: the banner, one line per request and per delivery, and a clean stop."""
    proc = background("sandbox", "--port", "0")
    match = URL.search(proc.wait_for(r"serving at").string)
    assert match is not None
    base_url = match.group(0)
    proc.wait_for("Ctrl-C to stop")
    assert Sandbox.API_KEY in proc.output
    assert DOC in proc.output
    referencia = pay(base_url)
    with httpx.Client(base_url=base_url, trust_env=False, timeout=5) as client:
        refused = client.post("/qrcode", json={"documentoCliente": DOC})
    assert (refused.status_code, refused.json()["erro"]["codigo"]) == (401, "API_KEY_NAO_INFORMADA")
    proc.wait_for(rf"POST /v1/payments  202  referencia {referencia}")
    proc.wait_for(r"-> pagamento\.aprovado  id \S+  to sandbox\.events  ok")
    proc.wait_for(r"POST /qrcode  401")
    assert proc.stop() == 0
    assert "sandbox stopped." in proc.output


@pytest.mark.slow
def test_sandbox_json_log_and_quiet(background: Starter) -> None:
    """Smoke: --json prints the readiness line, then JSON entries; --quiet prints none."""
    proc = background("sandbox", "--port", "0", "--json")
    ready = json.loads(proc.wait_for(r"^\{").string)
    assert (Sandbox.API_KEY, TERMINAL) == (ready["api_key"], ready["smartpos_id"])
    pay(ready["base_url"])
    entry = json.loads(proc.wait_for(r'"kind":"request"').string)
    assert ("POST", "/v1/payments", 202) == (
        entry["request"]["method"],
        entry["request"]["path"],
        entry["request"]["statusCode"],
    )
    assert proc.stop() == 0
    assert '{"stopped":true}' in proc.output
    quiet = background("sandbox", "--port", "0", "--quiet")
    url = URL.search(quiet.wait_for(r"serving at").string)
    assert url is not None
    pay(url.group(0))
    assert quiet.stop() == 0
    assert "POST /v1/payments" not in quiet.output


@pytest.mark.slow
def test_log_follow_until_sigterm(live: tuple[Sandbox, str], background: Starter) -> None:
    """Smoke: log --follow prints entries as they happen, and stops on SIGTERM."""
    _, url = live
    follow = background("sandbox", "log", "--follow", "--url", url)
    referencia = pay(url)
    follow.wait_for(rf"POST /v1/payments  202  referencia {referencia}")
    follow.wait_for(r"-> pagamento\.aprovado")
    assert 0 == follow.stop()


@pytest.mark.slow
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
    paid = run_cli("pay", DOC, "1990", "--smartpos-id", TERMINAL, "--json", env=env)
    assert paid.returncode == 0, paid.stderr
    referencia = json.loads(paid.stdout)["referencia"]
    listen.wait_for(r"pagamento\.aprovado")
    listen.wait_for(re.escape(referencia))
    sandbox.wait_for(rf"-> pagamento\.aprovado  id \S+  to {re.escape(webhook)}  200")
    printed = run_cli("print", DOC, TERMINAL, "-", env=env, input=b"ok")
    assert printed.returncode == 0, printed.stderr
    listen.wait_for(r"impressao\.concluida")
