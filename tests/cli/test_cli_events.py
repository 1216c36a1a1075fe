"""``smartpos events list|show|requeue|resend`` on a real SQLite inbox file, in process."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from cli_helpers import cli_env, run_cli

from smartpos.cli._http import Delivery, serve_receiver
from smartpos.cli._output import mask_documents
from smartpos.cli._samples import new_event_id, sample
from smartpos.webhooks import EventState, SQLiteStore, WebhookReceiver, parse_event


@pytest.fixture
def inbox(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """An inbox with one done, one dead and one pending event; their ids by state."""
    path = tmp_path / "inbox.sqlite3"
    ids = {
        "done": new_event_id(1_800_000_000),
        "dead": new_event_id(1_800_000_001),
        "pending": new_event_id(1_800_000_002),
    }
    tipos = {
        "done": "pagamento.aprovado",
        "dead": "impressao.falhou",
        "pending": "smartpos.identificado",
    }
    with SQLiteStore(path) as store:
        for state, event_id in ids.items():
            store.put(parse_event(sample(tipos[state], event_id)))
        done, dead = store.claim(owner="test", lease=30, limit=2)
        assert store.ack(done)
        assert store.dead_letter(dead, error="RuntimeError: printer offline")
    return path, ids


def test_list_all_oldest_first(inbox: tuple[Path, dict[str, str]]) -> None:
    """``events list`` shows every event with its state, in arrival order."""
    path, ids = inbox
    result = run_cli("events", "list", "--store", str(path))
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if line[:1].isalpha()]
    assert [line.split()[0] for line in lines[:3]] == ["done", "dead", "pending"]
    assert ids["dead"] in lines[1]
    assert "printer offline" in result.stdout
    assert "3 event(s)" in result.stdout


def test_list_by_state_as_json(inbox: tuple[Path, dict[str, str]]) -> None:
    """``--state dead --json`` lists only the dead event, with its envelope under raw."""
    path, ids = inbox
    result = run_cli("events", "list", "--store", str(path), "--state", "dead", "--json")
    assert result.returncode == 0, result.stderr
    records = json.loads(result.stdout)
    assert [(r["id"], r["state"], r["attempts"]) for r in records] == [(ids["dead"], "dead", 1)]
    assert records[0]["raw"]["tipo"] == "impressao.falhou"
    assert records[0]["last_error"] == "RuntimeError: printer offline"


def test_list_empty_state(inbox: tuple[Path, dict[str, str]]) -> None:
    """A state with no events says so, exit 0."""
    path, _ = inbox
    result = run_cli("events", "list", "--store", str(path), "--state", "claimed")
    assert result.returncode == 0
    assert "no claimed events" in result.stdout


def test_show_text_masks_the_document(inbox: tuple[Path, dict[str, str]]) -> None:
    """``events show`` prints the record and the envelope, the document masked."""
    path, ids = inbox
    result = run_cli("events", "show", ids["done"], "--store", str(path))
    assert result.returncode == 0, result.stderr
    assert "pagamento.aprovado" in result.stdout
    assert "done" in result.stdout
    assert '"autorizacao"' in result.stdout
    assert "529.***.***-25" in result.stdout
    assert "52998224725" not in result.stdout


def test_show_json_is_the_stored_record(inbox: tuple[Path, dict[str, str]]) -> None:
    """``events show --json`` gives the record, the envelope as stored but its document masked."""
    path, ids = inbox
    result = run_cli("events", "show", ids["pending"], "--store", str(path), "--json")
    record = json.loads(result.stdout)
    assert record["state"] == "pending"
    assert record["store"] == str(path.resolve())
    stored = sample("smartpos.identificado", ids["pending"])
    assert record["raw"] == mask_documents(stored)
    assert record["raw"]["dados"]["documentoCliente"] == "529.***.***-25"
    assert "52998224725" not in result.stdout


def test_requeue_dead_event(inbox: tuple[Path, dict[str, str]]) -> None:
    """``events requeue`` makes a dead event pending again with its attempts reset."""
    path, ids = inbox
    result = run_cli("events", "requeue", ids["dead"], "--store", str(path))
    assert result.returncode == 0, result.stderr
    assert "pending again" in result.stdout
    with SQLiteStore(path) as store:
        record = store.get(ids["dead"])
    assert record is not None
    assert (record.state, record.attempts) == (EventState.PENDING, 0)


def test_requeue_pending_event_exits_1(inbox: tuple[Path, dict[str, str]]) -> None:
    """A pending event cannot be requeued: exit 1 saying why."""
    path, ids = inbox
    result = run_cli("events", "requeue", ids["pending"], "--store", str(path), "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout) == {
        "id": ids["pending"],
        "requeued": False,
        "state": "pending",
    }
    assert "only dead or done" in json.loads(result.stderr)["error"]["message"]


def test_unknown_id_and_missing_file_exit_1(
    inbox: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """An unknown id, or no inbox file at all, is exit 1 with what to do."""
    path, _ = inbox
    unknown = run_cli("events", "show", "no-such-id", "--store", str(path))
    assert unknown.returncode == 1
    assert "no event no-such-id" in unknown.stderr
    missing = run_cli("events", "list", "--store", str(tmp_path / "nope.sqlite3"))
    assert missing.returncode == 1
    assert "--store" in missing.stderr
    assert not (tmp_path / "nope.sqlite3").exists()


def test_a_file_that_is_not_an_inbox_exits_1(tmp_path: Path) -> None:
    """A file that is not an inbox is refused with exit 1, and is not modified."""
    other = tmp_path / "notes.sqlite3"
    other.write_bytes(b"just text")
    result = run_cli("events", "list", "--store", str(other))
    assert result.returncode == 1
    assert other.read_bytes() == b"just text"


def test_inbox_from_the_environment(inbox: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    """Without --store, SMARTPOS_INBOX names the inbox file."""
    path, ids = inbox
    result = run_cli(
        "events", "list", "--json", env=cli_env(SMARTPOS_INBOX=str(path)), cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert [r["id"] for r in json.loads(result.stdout)] == list(ids.values())


def test_resend_replays_a_stored_event_to_an_app(
    inbox: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """``events resend ID --to URL`` posts the envelope as stored; the app stores the same one."""
    path, ids = inbox
    deliveries: list[Delivery] = []
    with (
        SQLiteStore(tmp_path / "app.sqlite3") as app,
        serve_receiver(WebhookReceiver(app), "127.0.0.1", 0, deliveries.append) as url,
    ):
        result = run_cli("events", "resend", ids["dead"], "--to", url, "--store", str(path))
        again = run_cli(
            "events", "resend", ids["dead"], "--to", url, "--store", str(path), "--json"
        )
        stored = app.get(ids["dead"])
    assert 0 == result.returncode, result.stderr
    assert result.stdout.startswith(f"replayed impressao.falhou  id {ids['dead']}")
    assert "200 OK" in result.stdout
    assert stored is not None
    assert sample("impressao.falhou", ids["dead"]) == dict(stored.raw)
    answer = json.loads(again.stdout)
    assert (200, True) == (answer["status_code"], answer["response"]["duplicado"])
    with SQLiteStore(path) as store:
        record = store.get(ids["dead"])
    assert record is not None
    assert EventState.DEAD is record.state  # the inbox it came from is not changed


def test_resend_failures(inbox: tuple[Path, dict[str, str]], served: tuple[object, str]) -> None:
    """An unknown id, a non-2xx answer and an unreachable URL are exit 1; a bad URL exit 2."""
    path, ids = inbox
    _, base_url = served
    unknown = run_cli("events", "resend", "nope", "--to", base_url, "--store", str(path))
    refused = run_cli("events", "resend", ids["done"], "--to", base_url, "--store", str(path))
    bad = run_cli("events", "resend", ids["done"], "--to", "ftp://x", "--store", str(path))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    gone = run_cli("events", "resend", ids["done"], "--to", closed, "--store", str(path))
    assert (1, 1, 2, 1) == (unknown.returncode, refused.returncode, bad.returncode, gone.returncode)
    assert "could not deliver" in gone.stderr
    assert "no event nope" in unknown.stderr
    assert "answered HTTP 404" in refused.stderr
