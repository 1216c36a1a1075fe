"""``smartpos listen`` and ``smartpos trigger`` talking over real HTTP on 127.0.0.1.

``listen`` runs as a real process (it serves until a signal); ``trigger`` runs in process,
with a standalone sample (``--no-sandbox``) or through a sandbox served here.
"""

from __future__ import annotations

import json
import re
import signal
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from cli_helpers import Starter, cli_env, run_cli

from smartpos.cli._app import build_parser
from smartpos.cli._samples import sample
from smartpos.testing import Sandbox
from smartpos.webhooks import EventState, SQLiteStore

TIPOS = [
    "smartpos.identificado",
    "pagamento.aprovado",
    "pagamento.recusado",
    "impressao.concluida",
    "impressao.falhou",
]


def start_listen(background: Starter, store: Path, *extra: str) -> tuple[object, str]:
    """Start ``smartpos listen`` on a free port and return it with its URL once ready."""
    proc = background("listen", "--port", "0", "--store", str(store), *extra)
    match = proc.wait_for(r"ready at (http://127\.0\.0\.1:\d+/)")
    return proc, match.group(1)


def trigger(url: str, tipo: str, *extra: str) -> dict[str, object]:
    """Run ``smartpos trigger --json --no-sandbox`` (a sample) and return what it printed."""
    result = run_cli("trigger", tipo, "--to", url, "--json", "--no-sandbox", *extra)
    assert result.returncode == 0, result.stderr
    return dict(json.loads(result.stdout))


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.slow
def test_listen_prints_each_kind_and_marks_a_resend_duplicate(
    tmp_path: Path, background: Starter
) -> None:
    """Five kinds arrive and print; a --resend of one id is printed as DUPLICATE and stored once."""
    store = tmp_path / "inbox.sqlite3"
    proc, url = start_listen(background, store)
    sent = {tipo: trigger(url, tipo) for tipo in TIPOS}
    for tipo, data in sent.items():
        proc.wait_for(re.escape(f"{tipo}  id {data['id']}"))
    first = sent["pagamento.aprovado"]
    assert first["status_code"] == 200
    assert first["duplicate"] is False
    again = trigger(url, "pagamento.aprovado", "--resend", str(first["id"]))
    assert again["duplicate"] is True
    assert again["event"] == first["event"]
    line = proc.wait_for(re.escape(str(first["id"])) + ".*DUPLICATE")
    assert "different body" not in line.string
    assert proc.stop() == 0
    assert "stopped: 6 deliveries, 5 new, 1 duplicates, 0 rejected." in proc.output
    with SQLiteStore(store) as inbox:
        record = inbox.get(str(first["id"]))
    assert record is not None
    assert record.state is EventState.PENDING
    assert record.raw == sample("pagamento.aprovado", str(first["id"]))


@pytest.mark.slow
def test_resend_with_other_content_is_a_conflict(tmp_path: Path, background: Starter) -> None:
    """The same id with a different body is answered 2xx, and listen says the first is kept."""
    proc, url = start_listen(background, tmp_path / "inbox.sqlite3")
    first = trigger(url, "pagamento.aprovado", "--valor-centavos", "1000")
    changed = trigger(
        url, "pagamento.aprovado", "--resend", str(first["id"]), "--valor-centavos", "999"
    )
    assert changed["status_code"] == 200
    assert changed["response"] == {"recebido": True, "duplicado": True, "conflito": True}
    proc.wait_for("different body")


@pytest.mark.slow
def test_trigger_text_output_and_resend_hint(tmp_path: Path, background: Starter) -> None:
    """Text output shows the event, the receiver's answer and the exact resend command."""
    _, url = start_listen(background, tmp_path / "inbox.sqlite3")
    result = run_cli(
        "trigger", "impressao.falhou", "--to", url, "--documento", "529.982.247-25", "--no-sandbox"
    )
    assert result.returncode == 0, result.stderr
    assert "200 OK" in result.stdout
    assert "SEM PAPEL" in result.stdout
    assert "529.***.***-25" in result.stdout
    assert "52998224725" not in result.stdout
    resend = re.search(r"--resend (\S+)", result.stdout)
    assert resend is not None
    again = run_cli(
        "trigger",
        "impressao.falhou",
        "--to",
        url,
        "--resend",
        resend.group(1),
        "--documento",
        "529.982.247-25",
        "--no-sandbox",
    )
    assert "a duplicate, not processed again" in again.stdout


@pytest.mark.slow
def test_listen_json_lines(tmp_path: Path, background: Starter) -> None:
    """``listen --json`` prints one JSON object per line: ready, each delivery, stopped."""
    proc = background("listen", "--port", "0", "--store", str(tmp_path / "i.sqlite3"), "--json")
    ready = json.loads(proc.wait_for(r'^\{"listening"').string)
    sent = trigger(ready["listening"], "smartpos.identificado")
    delivery = json.loads(proc.wait_for(re.escape(str(sent["id"]))).string)
    assert delivery["tipo"] == "smartpos.identificado"
    assert (delivery["status_code"], delivery["duplicate"]) == (200, False)
    assert delivery["event"] == sent["event"]
    assert delivery["event"]["dados"]["documentoCliente"] == "529.***.***-25"
    proc.stop()
    assert json.loads(proc.lines[-1]) == {
        "stopped": True,
        "deliveries": 1,
        "new": 1,
        "duplicates": 0,
        "rejected": 0,
    }


@pytest.mark.slow
def test_listen_rejects_a_body_that_is_not_an_event(tmp_path: Path, background: Starter) -> None:
    """A body that is not JSON is answered 400 and printed as rejected; GET is a health check."""
    proc, url = start_listen(background, tmp_path / "inbox.sqlite3")
    with httpx.Client(trust_env=False, timeout=5) as client:
        assert client.get(url).status_code == 200
        assert client.post(url, content=b"not json").status_code == 400
    proc.wait_for("400  rejected")


@pytest.mark.slow
def test_listen_forwards_every_delivery(tmp_path: Path, background: Starter) -> None:
    """``--forward-to`` posts each delivery, unchanged, to another receiver."""
    target, target_url = start_listen(background, tmp_path / "target.sqlite3")
    proc, url = start_listen(background, tmp_path / "front.sqlite3", "--forward-to", target_url)
    sent = trigger(url, "pagamento.recusado")
    proc.wait_for(re.escape(f"forwarded to {target_url}: 200"))
    target.wait_for(re.escape(str(sent["id"])))
    with SQLiteStore(tmp_path / "target.sqlite3") as inbox:
        record = inbox.get(str(sent["id"]))
    assert record is not None
    assert record.raw == sample("pagamento.recusado", str(sent["id"]))


@pytest.mark.slow
def test_listen_stops_on_sigint(tmp_path: Path, background: Starter) -> None:
    """Ctrl-C (SIGINT) stops listen cleanly with exit status 0."""
    proc, _ = start_listen(background, tmp_path / "inbox.sqlite3")
    proc.process.send_signal(signal.SIGINT)
    assert proc.process.wait(10) == 0
    proc.stop()
    assert "stopped:" in proc.output


def test_listen_on_a_busy_port_exits_1(tmp_path: Path) -> None:
    """A port already in use: exit 1 and the advice to pick another one."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run_cli("listen", "--port", str(port), "--store", str(tmp_path / "i.sqlite3"))
    assert result.returncode == 1
    assert "--port" in result.stderr


@pytest.mark.parametrize("through", ["sample", "sandbox"])
def test_trigger_unreachable_receiver_exits_1(through: str, served: tuple[Sandbox, str]) -> None:
    """Nothing listening at --to: exit 1 with a hint to start a receiver, either way."""
    where = ["--no-sandbox"] if through == "sample" else ["--sandbox", served[1]]
    to = f"http://127.0.0.1:{free_port()}/"
    result = run_cli("trigger", "pagamento.aprovado", "--to", to, *where)
    assert result.returncode == 1
    assert "could not deliver" in result.stderr
    assert "smartpos listen" in result.stderr


def test_trigger_reports_a_refusing_receiver(served: tuple[Sandbox, str]) -> None:
    """A receiver answering 4xx makes trigger exit 1 and explain what the service would do."""
    _, base_url = served
    # The sandbox answers 404 to an unknown path: a stand-in for a broken endpoint; it also
    # makes the event, and delivers it to itself.
    result = run_cli(
        "trigger", "pagamento.aprovado", "--sandbox", base_url, "--to", base_url + "/webhook"
    )
    assert result.returncode == 1
    assert "404 Not Found" in result.stdout
    assert "delivers again" in result.stderr


def test_trigger_through_the_sandbox_makes_a_refundable_approval(
    live: tuple[Sandbox, str], recorder: Recorder, tmp_path: Path
) -> None:
    """The event exists in the sandbox: refunding it works; --resend ID goes through it too."""
    sandbox, base_url = live
    made = run_cli(
        "trigger",
        "pagamento.aprovado",
        "--sandbox",
        base_url,
        "--to",
        recorder.url,
        "--valor-centavos",
        "2500",
        "-H",
        "X-Segredo: abc",
        "--json",
    )
    assert made.returncode == 0, made.stderr
    data = json.loads(made.stdout)
    assert (base_url, 200, False) == (data["sandbox"], data["status_code"], data["duplicate"])
    [(headers, body)] = recorder.requests
    assert "abc" == headers["x-segredo"]
    envelope = json.loads(body)
    assert data["id"] == envelope["id"]
    assert "aprovado" == sandbox.payment(envelope["dados"]["referencia"]).status
    (tmp_path / "aprovado.json").write_bytes(body)
    env = cli_env(SMARTPOS_BASE_URL=base_url, SMARTPOS_API_KEY=Sandbox.API_KEY)
    refund = run_cli("refund", "--event", str(tmp_path / "aprovado.json"), env=env)
    assert 0 == refund.returncode, refund.stderr
    assert [2500] == [r.valor_centavos for r in sandbox.refunds]
    again = run_cli(
        "trigger",
        "pagamento.aprovado",
        "--sandbox",
        base_url,
        "--to",
        recorder.url,
        "--resend",
        data["id"],
    )
    assert 0 == again.returncode, again.stderr
    assert f"resent pagamento.aprovado  id {data['id']}" in again.stdout
    assert [body, body] == [b for _, b in recorder.requests]


def test_trigger_text_through_the_sandbox(live: tuple[Sandbox, str], recorder: Recorder) -> None:
    """Text output names the sandbox that made the event, and the resend line to run."""
    _, base_url = live
    env = cli_env(SMARTPOS_SANDBOX_URL=base_url)
    result = run_cli("trigger", "impressao.falhou", "--to", recorder.url, env=env)
    assert result.returncode == 0, result.stderr
    assert f"made by the sandbox at {base_url}" in result.stdout
    assert "SEM PAPEL" in result.stdout
    assert f"resend it:  smartpos trigger impressao.falhou --to {recorder.url} --resend" in (
        result.stdout
    )
    assert "" == result.stderr


@pytest.mark.parametrize("where", ["nothing", "not-a-sandbox"])
def test_trigger_without_a_sandbox_sends_a_sample_and_says_so(
    where: str, recorder: Recorder
) -> None:
    """No sandbox at the URL (or something else answers there): a warning, then a sample."""
    sandbox = f"http://127.0.0.1:{free_port()}" if where == "nothing" else recorder.url
    result = run_cli(
        "trigger", "pagamento.recusado", "--sandbox", sandbox, "--to", recorder.url, "--json"
    )
    assert result.returncode == 0, result.stderr
    assert "warning:" in result.stderr
    assert "standalone sample" in result.stderr
    sent = json.loads(result.stdout)
    assert sent["sandbox"] is None
    body = recorder.requests[-1][1]
    assert sample("pagamento.recusado", sent["id"]) == json.loads(body)


def test_trigger_sends_to_listens_address_by_default() -> None:
    """Without --to, trigger posts to smartpos listen's default address."""
    args = build_parser().parse_args(["trigger", "pagamento.aprovado"])
    assert "http://127.0.0.1:8766/" == args.to


def test_trigger_through_the_sandbox_refuses_an_unknown_terminal(
    live: tuple[Sandbox, str], recorder: Recorder
) -> None:
    """The sandbox's rules apply: a terminal that is not the customer's is exit 1."""
    _, base_url = live
    result = run_cli(
        "trigger",
        "pagamento.aprovado",
        "--sandbox",
        base_url,
        "--to",
        recorder.url,
        "--smartpos-id",
        "SP-DE-OUTRO",
    )
    assert 1 == result.returncode
    assert "SMARTPOS_NAO_ENCONTRADO" in result.stderr
    assert [] == recorder.requests


class Recorder:
    """A loopback HTTP server that answers 200 and records each POST's headers and body."""

    def __init__(self) -> None:
        self.requests: list[tuple[dict[str, str], bytes]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                recorder.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(200)
                self.send_header("content-length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    """A recording HTTP endpoint on 127.0.0.1."""
    server = Recorder()
    yield server
    server.close()


@pytest.fixture
def live() -> Iterator[tuple[Sandbox, str]]:
    """A fresh sandbox served on 127.0.0.1 for one test, and its base URL."""
    with Sandbox() as sandbox, sandbox.serve() as base_url:
        yield sandbox, base_url


def test_trigger_sends_extra_headers_and_json(recorder: Recorder) -> None:
    """``-H 'Name: value'`` adds a header; the body is the JSON envelope it printed."""
    bad = run_cli(
        "trigger", "pagamento.aprovado", "--to", recorder.url, "-H", "no-colon", "--no-sandbox"
    )
    assert bad.returncode == 2
    ok = trigger(recorder.url, "pagamento.aprovado", "-H", "X-Segredo: abc")
    [(headers, body)] = recorder.requests
    assert headers["x-segredo"] == "abc"
    assert headers["content-type"] == "application/json"
    assert json.loads(body) == sample("pagamento.aprovado", str(ok["id"]))


@pytest.mark.slow
def test_forward_keeps_the_headers(tmp_path: Path, background: Starter, recorder: Recorder) -> None:
    """``listen --forward-to`` passes the sender's headers on with the body unchanged."""
    proc, url = start_listen(background, tmp_path / "f.sqlite3", "--forward-to", recorder.url)
    sent = trigger(url, "impressao.concluida", "-H", "X-Segredo: abc")
    proc.wait_for("forwarded to")
    [(headers, body)] = recorder.requests
    assert headers["x-segredo"] == "abc"
    assert json.loads(body) == sample("impressao.concluida", str(sent["id"]))
