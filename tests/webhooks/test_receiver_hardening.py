"""What a careless or hostile sender can send the receiver, on every store; and its logs.

Poison bodies (a lone surrogate, an id no store can hold, a ``criadoEm`` at the edge of the
calendar) get the same answer from every store, and never break the inbox for the others;
bodies in odd encodings or already parsed are stored; a stalled store is answered 503 within
the receiver's ``store_timeout``; sender text is escaped in log lines; ``SMARTPOS_LOG`` works
in a process that only receives or only works.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from smartpos import ConfigurationError
from smartpos.webhooks import (
    EventState,
    InvalidEventError,
    MemoryStore,
    PutResult,
    Receipt,
    SharedSecretVerifier,
    SQLiteStore,
    Store,
    StoreError,
    WebhookReceiver,
    Worker,
    parse_event,
)
from smartpos.webhooks._store import EventLike

DOC = "52998224725"


def event_json(event_id: str = "evt-1", **dados: Any) -> dict[str, Any]:
    """A pagamento.aprovado envelope with the required dados plus ``dados``."""
    return {
        "id": event_id,
        "tipo": "pagamento.aprovado",
        "criadoEm": "2026-05-04T13:45:12Z",
        "dados": {"referencia": "r-1", "documentoCliente": DOC, "status": "aprovado", **dados},
    }


def body(data: Any) -> bytes:
    """JSON bytes of ``data``, with the default escapes (so "\\ud800" stays an escape)."""
    return json.dumps(data).encode()


@pytest.fixture(
    params=[
        "memory",
        "sqlite",
        pytest.param("redis", marks=[pytest.mark.redis, pytest.mark.slow]),
        pytest.param("postgres", marks=[pytest.mark.postgres, pytest.mark.slow]),
    ]
)
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """Each of the four stores, fresh (Redis and PostgreSQL on the session's real servers)."""
    kind = request.param
    store: Any
    if kind == "memory":
        store = MemoryStore()
    elif kind == "sqlite":
        store = SQLiteStore(tmp_path / "inbox.db")
    elif kind == "redis":
        from smartpos.webhooks import RedisStore

        server = request.getfixturevalue("redis_server")
        store = RedisStore(server.url, prefix=f"t{uuid.uuid4().hex[:12]}", check_settings=False)
    else:
        from smartpos.webhooks import PostgresStore

        server = request.getfixturevalue("postgres_server")
        store = PostgresStore(server.dsn, table=f"t_{uuid.uuid4().hex[:12]}")
        store.migrate()
    with store:
        yield store


# --- poison bodies: the same answer on every store -------------------------------------------


def test_a_lone_surrogate_escape_in_dados_is_stored(any_store: Store) -> None:
    """ "\\ud800" inside a string: stored as sent (200), deduplicated, claimable, typed."""
    receiver = WebhookReceiver(any_store)
    data = event_json(mensagem="antes \ud800 depois")
    raw = body(data)
    assert b"\\ud800" in raw

    first, again = receiver.receive(raw), receiver.receive(raw)

    assert (first.status_code, first.put_result) == (200, PutResult.NEW)
    assert (again.status_code, again.put_result) == (200, PutResult.DUPLICATE)
    stored = any_store.get("evt-1")
    assert stored is not None
    assert stored.raw == data
    (claim,) = any_store.claim(owner="w", lease=30)
    assert claim.event.raw["dados"]["mensagem"] == "antes \ud800 depois"


@pytest.mark.parametrize(
    ("data", "mensagem"),
    [
        ({**event_json(), "id": "evt-\ud800"}, "$.id: contains a lone surrogate"),
        ({**event_json(), "id": "evt\x00-1"}, "$.id: contains a control character"),
        ({**event_json(), "id": "evt-1\nFORGED"}, "$.id: contains a control character"),
        ({**event_json(), "id": "e" * 2700}, "$.id: longer than 256 characters"),
        ({**event_json(), "tipo": "pagamento.aprovado\x00"}, "$.tipo: contains a control"),
    ],
)
def test_an_id_no_store_can_hold_is_refused_with_400(
    any_store: Store, data: dict[str, Any], mensagem: str
) -> None:
    """An id or tipo with NUL, a control character or a lone surrogate, or an id of 2.7 KB,
    is not an event: 400 on every store (it was 503 forever on PostgreSQL), nothing stored."""
    receipt = WebhookReceiver(any_store).receive(body(data))

    assert receipt.status_code == 400
    assert json.loads(receipt.body)["erro"]["codigo"] == "EVENTO_INVALIDO"
    assert receipt.error is not None
    assert receipt.error.startswith(mensagem)
    assert any_store.list() == []


def test_a_criado_em_at_the_edge_of_the_calendar_breaks_nothing(any_store: Store) -> None:
    """0001-01-01T00:00:00+05:00 (year 0 in UTC): stored without criado_em (200), get, list
    and claim keep working for the whole inbox, and the worker dead-letters that event."""
    receiver = WebhookReceiver(any_store)
    edge = {**event_json("edge"), "criadoEm": "0001-01-01T00:00:00+05:00"}

    receipt = receiver.receive(body(edge))
    receiver.receive(body(event_json("ok")))

    assert (receipt.status_code, receipt.put_result) == (200, PutResult.NEW)
    assert receipt.event is None
    assert receipt.error is not None
    assert receipt.error.startswith("$.criadoEm: outside the years 1 to 9999")
    stored = any_store.get("edge")
    assert stored is not None
    assert stored.criado_em is None
    assert sorted(e.id for e in any_store.list()) == ["edge", "ok"]
    handled: list[str] = []
    assert Worker(any_store, lambda e: handled.append(e.id), batch=5).run_once() == 2
    assert handled == ["ok"]
    dead = any_store.get("edge")
    assert dead is not None
    assert dead.state is EventState.DEAD


def test_parse_event_refuses_the_edge_of_the_calendar() -> None:
    """parse_event stays strict: a criadoEm that cannot be expressed in UTC is invalid."""
    with pytest.raises(InvalidEventError, match=r"^\$\.criadoEm: outside the years"):
        parse_event({**event_json(), "criadoEm": "9999-12-31T23:00:00-05:00"})


# --- encodings and parsed bodies -------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "mensagem"),
    [
        (b"\xef\xbb\xbf" + body(event_json(mensagem="ação")), "ação"),
        ("\ufeff" + json.dumps(event_json(mensagem="ação"), ensure_ascii=False), "ação"),
        (
            json.dumps(event_json(mensagem="“Transação” de 10 €"), ensure_ascii=False).encode(
                "cp1252"
            ),
            "“Transação” de 10 €",
        ),
        (
            json.dumps(event_json(mensagem="ação \x81"), ensure_ascii=False).encode("latin-1"),
            "ação \x81",
        ),
    ],
    ids=["utf8-bom-bytes", "bom-str", "cp1252", "latin1"],
)
def test_a_body_in_another_encoding_is_stored(raw: bytes | str, mensagem: str) -> None:
    """A UTF-8 BOM, or a cp1252/Latin-1 body, holding an envelope is stored, not refused."""
    store = MemoryStore()

    receipt = WebhookReceiver(store).receive(raw)

    assert (receipt.status_code, receipt.put_result) == (200, PutResult.NEW)
    stored = store.get("evt-1")
    assert stored is not None
    assert stored.raw["dados"]["mensagem"] == mensagem


def test_parse_event_ignores_a_bom_but_stays_strict_about_utf8() -> None:
    """parse_event reads a body after a UTF-8 BOM; invalid UTF-8 is still its error."""
    assert parse_event(b"\xef\xbb\xbf" + body(event_json())).id == "evt-1"
    cp1252 = json.dumps(event_json(mensagem="ação"), ensure_ascii=False).encode("cp1252")
    with pytest.raises(InvalidEventError, match="invalid UTF-8"):
        parse_event(cp1252)


def test_a_parsed_mapping_is_received_like_its_json() -> None:
    """receive(request.json): the same answer and the same stored event as the raw body."""
    parsed, raw = MemoryStore(), MemoryStore()
    secret = {"X-Webhook-Secret": "k"}
    data = event_json(mensagem="x \ud800")

    receipt = WebhookReceiver(parsed, verifier=SharedSecretVerifier(secret="k")).receive(
        data, secret
    )
    WebhookReceiver(raw).receive(body(data))

    assert (receipt.status_code, receipt.put_result) == (200, PutResult.NEW)
    from_mapping, from_bytes = parsed.get("evt-1"), raw.get("evt-1")
    assert from_mapping is not None
    assert from_bytes is not None
    assert (from_mapping.raw, from_mapping.body_hash) == (from_bytes.raw, from_bytes.body_hash)


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({**event_json(), "x": float("nan")}, "not a JSON object"),
        ({**event_json(), "x": {1, 2}}, "not a JSON object"),
        ({"tipo": "x"}, "$.id: required field is missing"),
    ],
)
def test_a_parsed_mapping_that_is_no_event_is_400(data: dict[str, Any], problem: str) -> None:
    """A mapping with NaN or a non-JSON value, or without an envelope, is refused with 400."""
    store = MemoryStore()

    receipt = WebhookReceiver(store).receive(data)

    assert receipt.status_code == 400
    assert receipt.error is not None
    assert problem in receipt.error
    assert store.list() == []


@pytest.mark.parametrize("value", [None, [event_json()], 42, object()])
def test_a_body_of_another_type_is_a_type_error(value: Any) -> None:
    """None (Flask's request.json without a JSON content type) or any other type: TypeError
    naming what to pass instead, never a receipt."""
    receiver = WebhookReceiver(MemoryStore())

    with pytest.raises(TypeError, match=r"bytes, str or a parsed JSON object.*get_data"):
        receiver.receive(value)


# --- the answer window -----------------------------------------------------------------------


class TimedSQLiteStore(SQLiteStore):
    """An SQLiteStore that records the timeout each put was given."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, busy_timeout=3600)
        self.timeouts: list[float | None] = []

    def put(self, event: EventLike, *, timeout: float | None = None) -> PutResult:
        self.timeouts.append(timeout)
        return super().put(event, timeout=timeout)

    def put_many(
        self, events: Sequence[EventLike], *, timeout: float | None = None
    ) -> list[PutResult]:
        self.timeouts.append(timeout)
        return super().put_many(events, timeout=timeout)


def receive_in_thread(receiver: WebhookReceiver, data: bytes) -> Receipt:
    """receive() in a thread, failing the test (instead of hanging) past a generous minute."""
    receipts: list[Receipt] = []
    thread = threading.Thread(target=lambda: receipts.append(receiver.receive(data)))
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "the receiver did not answer: the store timeout was ignored"
    return receipts[0]


def test_a_locked_sqlite_file_is_answered_503_within_the_budget(tmp_path: Path) -> None:
    """Another connection holds the file (BEGIN EXCLUSIVE): 503 after the receiver's
    store_timeout, not after the store's busy timeout of an hour; nothing half-written."""
    path = tmp_path / "inbox.db"
    with TimedSQLiteStore(path) as store:
        receiver = WebhookReceiver(store, store_timeout=0.2)
        other = sqlite3.connect(path, isolation_level=None)
        try:
            other.execute("BEGIN EXCLUSIVE")
            receipt = receive_in_thread(receiver, body(event_json()))
            other.execute("ROLLBACK")
        finally:
            other.close()

        assert receipt.status_code == 503
        assert json.loads(receipt.body)["erro"]["codigo"] == "ARMAZENAMENTO_INDISPONIVEL"
        assert store.timeouts == [0.2]
        assert store.get("evt-1") is None
        assert store.list() == []
        assert receiver.receive(body(event_json())).put_result is PutResult.NEW


def test_the_default_budget_fits_the_services_answer_window() -> None:
    """By default a put may wait 1 s at most: the service wants an answer within 1 to 2 s."""
    receiver = WebhookReceiver(MemoryStore())

    assert receiver.store_timeout == 1.0
    assert "store_timeout=1.0" in repr(receiver)


def test_a_store_whose_put_takes_no_timeout_still_works() -> None:
    """A hand-written store whose put has no timeout parameter is called without one."""

    class Plain(MemoryStore):
        def put(self, event: EventLike) -> PutResult:  # type: ignore[override]
            return super().put(event)

    assert WebhookReceiver(Plain()).receive(body(event_json())).status_code == 200


@pytest.mark.parametrize("value", [0, -1, float("inf"), float("nan"), "1", True, 10**400])
def test_store_timeout_is_checked(value: Any) -> None:
    """store_timeout must be a positive number of seconds, or None: else ConfigurationError."""
    with pytest.raises(ConfigurationError, match=r"store_timeout .*\(or None\)"):
        WebhookReceiver(MemoryStore(), store_timeout=value)
    assert WebhookReceiver(MemoryStore(), store_timeout=None).store_timeout is None
    assert WebhookReceiver(MemoryStore(), store_timeout=2).store_timeout == 2.0


# --- logs ------------------------------------------------------------------------------------


def webhook_messages(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The formatted messages of the smartpos.webhooks records."""
    return [r.getMessage() for r in caplog.records if r.name.startswith("smartpos")]


def test_sender_text_cannot_forge_or_flood_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    """Ids, tipos and error texts are escaped and cut in every log line: a newline in an id,
    a line separator in a tipo, a 256-character id, a store error quoting the sender."""
    store = MemoryStore()
    receiver = WebhookReceiver(store)

    class Quoting(MemoryStore):
        def put(self, event: EventLike, *, timeout: float | None = None) -> PutResult:
            raise StoreError(f"could not store {event.id}\nFORGED line")

    with caplog.at_level(logging.DEBUG, logger="smartpos.webhooks"):
        receiver.receive(body({**event_json(), "id": "evt-1\nFORGED 200 OK"}))
        receiver.receive(body({**event_json("evt-2"), "tipo": "x\u2028FORGED"}))
        receiver.receive(body(event_json("L" * 256, valorCentavos="x\nFORGED")))
        WebhookReceiver(Quoting()).receive(body(event_json("evt-3")))

    messages = webhook_messages(caplog)
    assert len(messages) >= 4
    for message in messages:
        assert "\n" not in message
        assert "\u2028" not in message
        assert "L" * 81 not in message
    assert any("'x\\u2028FORGED'" in m for m in messages)
    assert any("'" + "L" * 80 + "…'" in m for m in messages)


def test_a_failing_handler_cannot_forge_a_worker_log_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A handler's error text (often quoting the event) is escaped in the worker's log line."""
    store = MemoryStore()
    WebhookReceiver(store).receive(body(event_json()))

    def handler(_: Any) -> None:
        raise ValueError("bad referencia\nFORGED worker line")

    with caplog.at_level(logging.DEBUG, logger="smartpos.webhooks"):
        Worker(store, handler, base_backoff=0).run_once()

    messages = webhook_messages(caplog)
    assert any("bad referencia\\nFORGED" in m for m in messages)
    assert all("\n" not in m for m in messages)


# --- SMARTPOS_LOG in a process that only receives, or only works ------------------------------

RECEIVER_ONLY = """
import json
from smartpos import webhooks
store = webhooks.SQLiteStore({path!r})
receiver = webhooks.WebhookReceiver(store)
event = {{"id": "evt-log", "tipo": "pagamento.aprovado", "criadoEm": "2026-05-04T13:45:12Z",
          "dados": {{"referencia": "r", "documentoCliente": "52998224725", "status": "aprovado"}}}}
print(receiver.receive(json.dumps(event)).status_code)
"""

WORKER_ONLY = """
from smartpos import webhooks
store = webhooks.SQLiteStore({path!r})
worker = webhooks.Worker(store, lambda event: None)
print(worker.run_once())
"""


def run_script(script: str, level: str | None) -> subprocess.CompletedProcess[str]:
    """Run ``script`` in a fresh interpreter with SMARTPOS_LOG set to ``level`` (or unset)."""
    env = {k: v for k, v in os.environ.items() if k != "SMARTPOS_LOG"}
    if level is not None:
        env["SMARTPOS_LOG"] = level
    return subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )


def test_smartpos_log_works_in_a_receiver_or_worker_process(tmp_path: Path) -> None:
    """SMARTPOS_LOG=info/debug prints the webhooks' lines in processes that never build a
    client; without it, nothing is printed."""
    path = str(tmp_path / "inbox.db")

    received = run_script(RECEIVER_ONLY.format(path=path), "info")
    worked = run_script(WORKER_ONLY.format(path=path), "debug")
    quiet = run_script(RECEIVER_ONLY.format(path=path), None)

    assert (received.returncode, received.stdout.strip()) == (0, "200"), received.stderr
    assert "smartpos.webhooks INFO webhook event 'evt-log'" in received.stderr
    assert "received: new" in received.stderr
    assert (worked.returncode, worked.stdout.strip()) == (0, "1"), worked.stderr
    assert "smartpos.webhooks DEBUG webhook event 'evt-log'" in worked.stderr
    assert "processed" in worked.stderr
    assert (quiet.returncode, quiet.stderr) == (0, "")
    assert DOC not in received.stderr + worked.stderr
