"""``smartpos listen`` and ``smartpos trigger`` talking over real HTTP on 127.0.0.1."""

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
from cli_helpers import URL, Starter, run_cli

from smartpos.cli._samples import sample
from smartpos.webhooks import EventState, SQLiteStore

pytestmark = pytest.mark.slow

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
    """Run ``smartpos trigger --json`` and return what it printed."""
    result = run_cli("trigger", tipo, "--to", url, "--json", *extra)
    assert result.returncode == 0, result.stderr
    return dict(json.loads(result.stdout))


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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


def test_trigger_text_output_and_resend_hint(tmp_path: Path, background: Starter) -> None:
    """Text output shows the event, the receiver's answer and the exact resend command."""
    _, url = start_listen(background, tmp_path / "inbox.sqlite3")
    result = run_cli("trigger", "impressao.falhou", "--to", url, "--documento", "529.982.247-25")
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
    )
    assert "a duplicate, not processed again" in again.stdout


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


def test_listen_rejects_a_body_that_is_not_an_event(tmp_path: Path, background: Starter) -> None:
    """A body that is not JSON is answered 400 and printed as rejected; GET is a health check."""
    proc, url = start_listen(background, tmp_path / "inbox.sqlite3")
    with httpx.Client(trust_env=False, timeout=5) as client:
        assert client.get(url).status_code == 200
        assert client.post(url, content=b"not json").status_code == 400
    proc.wait_for("400  rejected")


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


def test_trigger_unreachable_receiver_exits_1() -> None:
    """Nothing listening at --to: exit 1 with a hint to start a receiver."""
    result = run_cli("trigger", "pagamento.aprovado", "--to", f"http://127.0.0.1:{free_port()}/")
    assert result.returncode == 1
    assert "could not deliver" in result.stderr
    assert "smartpos listen" in result.stderr


def test_trigger_reports_a_refusing_receiver(tmp_path: Path, background: Starter) -> None:
    """A receiver answering 4xx makes trigger exit 1 and explain what the service would do."""
    proc = background("sandbox", "--port", "0")
    base_url = URL.search(proc.wait_for(r"serving at").string)
    assert base_url is not None
    # The sandbox answers 404 to an unknown path: a stand-in for a broken endpoint.
    result = run_cli("trigger", "pagamento.aprovado", "--to", base_url.group(0) + "/webhook")
    assert result.returncode == 1
    assert "404" in result.stdout
    assert "delivers again" in result.stderr


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


def test_trigger_sends_extra_headers_and_json(recorder: Recorder) -> None:
    """``-H 'Name: value'`` adds a header; the body is the JSON envelope it printed."""
    bad = run_cli("trigger", "pagamento.aprovado", "--to", recorder.url, "-H", "no-colon")
    assert bad.returncode == 2
    ok = trigger(recorder.url, "pagamento.aprovado", "-H", "X-Segredo: abc")
    [(headers, body)] = recorder.requests
    assert headers["x-segredo"] == "abc"
    assert headers["content-type"] == "application/json"
    assert json.loads(body) == sample("pagamento.aprovado", str(ok["id"]))


def test_forward_keeps_the_headers(tmp_path: Path, background: Starter, recorder: Recorder) -> None:
    """``listen --forward-to`` passes the sender's headers on with the body unchanged."""
    proc, url = start_listen(background, tmp_path / "f.sqlite3", "--forward-to", recorder.url)
    sent = trigger(url, "impressao.concluida", "-H", "X-Segredo: abc")
    proc.wait_for("forwarded to")
    [(headers, body)] = recorder.requests
    assert headers["x-segredo"] == "abc"
    assert json.loads(body) == sample("impressao.concluida", str(sent["id"]))
