"""The sandbox retries like a real sender: exponential over minutes by default, fast in tests.

The schedule itself is pure (``_delivery.retry_delay``); what it promises is tested with real
servers on 127.0.0.1: a delivery that keeps failing does not hold back the others, and a
receiver stopped and restarted (down for 5 s, as a development server is) loses nothing.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import inspect
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from smartpos import webhooks
from smartpos.cli._http import serve_receiver
from smartpos.testing import Sandbox
from smartpos.testing._delivery import (
    DEFAULT_ATTEMPTS,
    DEFAULT_BACKOFF,
    FAST_ATTEMPTS,
    FAST_BACKOFF,
    check_schedule,
    describe_schedule,
    retry_delay,
)

# ------------------------------------------------------------------------------- the schedule


def test_the_default_schedule_is_exponential_over_about_ten_minutes() -> None:
    """8 attempts: retries after 5, 10, 20 ... 320 s; the last 635 s after the first attempt."""
    waits = [retry_delay(attempt, DEFAULT_BACKOFF) for attempt in range(1, DEFAULT_ATTEMPTS)]
    assert [5.0, 10.0, 20.0, 40.0, 80.0, 160.0, 320.0] == waits
    assert 635.0 == sum(waits)
    parameters = inspect.signature(Sandbox).parameters
    assert (DEFAULT_ATTEMPTS, DEFAULT_BACKOFF) == (
        parameters["webhook_attempts"].default,
        parameters["webhook_backoff"].default,
    )


def test_the_tests_schedule_is_fast() -> None:
    """4 attempts within 0.35 s: what the fixtures use."""
    waits = [retry_delay(attempt, FAST_BACKOFF) for attempt in range(1, FAST_ATTEMPTS)]
    assert pytest.approx(0.35) == sum(waits)


def test_the_schedule_in_words() -> None:
    """What the served sandbox prints."""
    assert (
        "8 attempts, retries after 5 s, 10 s, 20 s, 40 s, ... (the last 10.6 min after the "
        "first attempt)"
    ) == describe_schedule(8, 5.0)
    assert "1 attempt, no retry" == describe_schedule(1, 5.0)
    assert "3 attempts, retries after 1 h, 2 h (the last 3 h after the first attempt)" == (
        describe_schedule(3, 3600.0)
    )


@pytest.mark.parametrize(
    ("attempts", "backoff"), [(0, 1.0), (True, 1.0), (2.5, 1.0), (3, -1.0), (3, float("inf"))]
)
def test_a_bad_schedule_is_refused(attempts: Any, backoff: Any) -> None:
    """Attempts are a whole number >= 1, the backoff finite seconds >= 0."""
    with pytest.raises(ValueError, match="webhook_"):
        check_schedule(attempts, backoff)
    with pytest.raises(ValueError, match="webhook_"):
        Sandbox(webhook_attempts=attempts, webhook_backoff=backoff)


def test_the_fixture_uses_the_fast_schedule(smartpos_sandbox: Sandbox) -> None:
    """A URL that refuses everything: four attempts, over well under the default's 5 s."""
    with _Refusing(lambda body: True) as server:
        smartpos_sandbox.set_webhook(server.url)
        started = time.monotonic()
        smartpos_sandbox.trigger("pagamento.aprovado")
        smartpos_sandbox.wait_for_deliveries(timeout=4.0)
    assert 4 == len(server.arrivals)
    assert time.monotonic() - started < 4.0


@pytest.mark.smartpos_sandbox(webhook_attempts=2)
def test_the_fixture_schedule_gives_way_to_the_marker(smartpos_sandbox: Sandbox) -> None:
    """smartpos_sandbox(webhook_attempts=...) overrides the fast default."""
    with _Refusing(lambda body: True) as server:
        smartpos_sandbox.set_webhook(server.url)
        smartpos_sandbox.trigger("pagamento.aprovado")
        smartpos_sandbox.wait_for_deliveries(timeout=4.0)
    assert 2 == len(server.arrivals)


# ------------------------------------------------------------------------------- real servers


class _Refusing:
    """A loopback endpoint that answers 500 to the bodies ``refuse(body)`` says, else 200."""

    def __init__(self, refuse: Any) -> None:
        self.arrivals: list[tuple[str, float]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["content-length"]))
                outer.arrivals.append((json.loads(body)["id"], time.monotonic()))
                self.send_response(500 if refuse(body) else 200)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}
        )
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def __enter__(self) -> _Refusing:
        self.thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


def test_a_delivery_that_keeps_failing_does_not_hold_back_the_others() -> None:
    """A refused event waits for its retries; the next event is delivered meanwhile."""
    with Sandbox(webhook_attempts=3, webhook_backoff=0.3) as sandbox:
        poison = sandbox.trigger("impressao.falhou")  # recorded only: its id is now known
        with _Refusing(lambda body: poison["id"].encode() in body) as server:
            sandbox.set_webhook(server.url)
            sandbox.resend(poison["id"])
            fine = sandbox.trigger("impressao.concluida")
            sandbox.wait_for_deliveries(timeout=10.0)
    order = [event_id for event_id, _ in server.arrivals]
    assert [poison["id"], fine["id"], poison["id"], poison["id"]] == order
    first, _, second, third = (at for _, at in server.arrivals)
    assert second - first >= 0.3
    assert third - second >= 0.6
    refused = [d for d in sandbox.deliveries if d.event_id == poison["id"] and not d.ok]
    assert [(1, 500), (2, 500), (3, 500)] == [(d.attempt, d.status_code) for d in refused]


@pytest.fixture
def inbox(tmp_path: Path) -> Iterator[webhooks.SQLiteStore]:
    """A real SQLite inbox."""
    with webhooks.SQLiteStore(tmp_path / "inbox.sqlite3") as store:
        yield store


@pytest.mark.slow
def test_a_receiver_down_for_five_seconds_during_a_restart_loses_nothing(
    inbox: webhooks.SQLiteStore,
) -> None:
    """The receiver (a real server, a real SQLite inbox) is stopped and started again on its
    port 5 s later: every event paid meanwhile is retried until it is stored."""
    receiver = webhooks.WebhookReceiver(inbox)
    with (
        Sandbox(webhook_backoff=0.5) as sandbox,
        httpx.Client(
            base_url="http://sandbox.invalid",
            transport=sandbox.transport(),
            headers={"x-api-key": Sandbox.API_KEY},
        ) as client,
    ):
        with serve_receiver(receiver, "127.0.0.1", 0, lambda delivery: None) as url:
            sandbox.set_webhook(url)
            before = sandbox.trigger("pagamento.aprovado")
            sandbox.wait_for_events(1)
            sandbox.wait_for_deliveries(timeout=5.0)
        port = httpx.URL(url).port
        assert port is not None
        down_at = time.monotonic()
        during = [sandbox.trigger("pagamento.aprovado") for _ in range(2)]
        body = {
            "referencia": "0b0f3d7a-1c1b-4c0e-9a58-7b4d2c1e5f60",
            "documentoCliente": Sandbox.DOCUMENTO,
            "valorCentavos": 1990,
            "modoExecucao": "imediato",
            "smartposId": Sandbox.SMARTPOS_ID,
        }
        assert 202 == client.post("/v1/payments", json=body).status_code
        time.sleep(max(0.0, 5.0 - (time.monotonic() - down_at)))  # the restart takes 5 s
        with serve_receiver(receiver, "127.0.0.1", port, lambda delivery: None):
            sandbox.wait_for_deliveries(timeout=30.0)
    paid = [e for e in sandbox.events if e["dados"].get("referencia") == body["referencia"]]
    ids = [before["id"], *(e["id"] for e in during), paid[0]["id"]]
    assert [] == [i for i in ids if inbox.get(i) is None]
    failed = [d for d in sandbox.deliveries if not d.ok]
    assert failed  # the outage was real: attempts failed before the restart
    assert all(d.status_code is None for d in failed)  # refused connections, not answers
    assert len(sandbox.deliveries) - len(failed) == 4
