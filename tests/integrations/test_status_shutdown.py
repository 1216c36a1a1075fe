"""The cashier's screen at rest and at shutdown: the status options, one heartbeat grid per
process, lifetimes spread, and a server's SIGTERM ending every open stream (uvicorn, gunicorn).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from status_http import ROOT, SSEReader, _free_port

import smartpos
from smartpos import webhooks
from smartpos.integrations import _status
from smartpos.integrations._status import (
    HEARTBEAT,
    STREAM_LIFETIME,
    StatusAnswer,
    _next_beat,
    _Plan,
    _Step,
    plan_for,
)
from smartpos.testing import Approve, Hold, Sandbox

AUTH = {"X-Caixa": "loja-1"}


# --- options ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("heartbeat", 0),
        ("heartbeat", -1.0),
        ("heartbeat", float("nan")),
        ("heartbeat", 121),
        ("heartbeat", True),
        ("heartbeat", "15"),
        ("max_wait", 0),
        ("max_wait", 301),
        ("max_wait", None),
    ],
)
def test_bad_status_options_are_refused_at_mount(name: str, value: object) -> None:
    with pytest.raises(smartpos.ConfigurationError, match=name):
        plan_for(**{name: value})


def test_every_framework_checks_the_options_at_mount() -> None:
    from fastapi import FastAPI
    from flask import Flask

    from smartpos.integrations.fastapi import SmartPOS as FastAPISmartPOS
    from smartpos.integrations.flask import SmartPOS as FlaskSmartPOS

    with pytest.raises(smartpos.ConfigurationError, match="heartbeat"):
        FastAPISmartPOS(store=webhooks.MemoryStore()).status_router(
            authorize=lambda r, k: True, heartbeat=0
        )
    FastAPI().include_router(
        FastAPISmartPOS(store=webhooks.MemoryStore()).status_router(
            authorize=lambda r, k: True, heartbeat=30, max_wait=55
        )
    )
    app = Flask("options")
    app.config["SMARTPOS_STORE"] = webhooks.MemoryStore()
    with pytest.raises(smartpos.ConfigurationError, match="max_wait"):
        FlaskSmartPOS(app).status_blueprint(authorize=lambda r, k: True, max_wait=-5)
    assert plan_for(max_wait=55, heartbeat=30) == _Plan(heartbeat=30.0, max_wait=55.0)


# --- idle: one heartbeat grid, lifetimes spread ----------------------------------------------


def test_streams_opened_apart_beat_at_the_same_instants(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1005.3]
    monkeypatch.setattr(_status.time, "monotonic", lambda: clock[0])
    view = {"id": "1.a", "done": False}
    first = _Step(StatusAnswer(stream=True), _Plan(heartbeat=15.0), view)
    clock[0] = 1014.9  # another tab, 9.6 s later
    second = _Step(StatusAnswer(stream=True), _Plan(heartbeat=15.0), view)
    assert first.beat == second.beat == 1020.0  # the grid's next instant, not each one's own
    for step in (first, second):
        out, _ = step.chunks(view, closed=False)  # the first message
        assert out[0].startswith(b"retry: ")
    # A message moves the next beat along the grid, never more than one period away.
    clock[0] = 1017.5
    out, over = second.chunks({"id": "2.b", "done": False}, closed=False)
    assert not over
    assert out[0].startswith(b"id: 2.b")
    assert second.beat == 1020.0
    # At the grid's instant both streams send their comment together.
    clock[0] = 1020.0
    assert first.chunks(view, closed=False) == ([b": keepalive\n\n"], False)
    assert second.chunks({"id": "2.b", "done": False}, closed=False) == (
        [b": keepalive\n\n"],
        False,
    )
    assert first.beat == second.beat == 1035.0


@pytest.mark.parametrize("now", [0.0, 14.999, 15.0, 1e6 + 0.5])
def test_next_beat_is_after_now_and_within_one_period(now: float) -> None:
    beat = _next_beat(now, HEARTBEAT)
    assert now < beat <= now + HEARTBEAT
    assert beat % HEARTBEAT == 0


def test_stream_lifetimes_are_spread_over_their_last_fifth() -> None:
    view = {"id": "1.a", "done": False}
    spans = set()
    for _ in range(50):
        before = time.monotonic()
        step = _Step(StatusAnswer(stream=True), _Plan(), view)
        spans.add(round(step.deadline - before, 3))
        assert STREAM_LIFETIME * 0.8 - 1 <= step.deadline - before <= STREAM_LIFETIME + 1
    assert len(spans) > 10  # not one instant for every tab
    poll = _Step(StatusAnswer(wait=5.0), _Plan(), view)
    assert poll.deadline - time.monotonic() <= 5.0  # a long poll ends when it said


# --- shutdown --------------------------------------------------------------------------------

_CHAIN = textwrap.dedent(
    """
    import os, signal, threading, sys
    from smartpos import webhooks
    from smartpos.integrations._status import (
        StatusAnswer, end_streams_at_shutdown, follow, hub_for,
    )
    assert not end_streams_at_shutdown()  # SIG_DFL / KeyboardInterrupt: left alone
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    seen = []
    signal.signal(signal.SIGTERM, lambda signum, frame: seen.append(signum))  # "the server's"
    assert end_streams_at_shutdown() and end_streams_at_shutdown()  # idempotent
    handler = signal.getsignal(signal.SIGTERM)
    assert handler.__wrapped__ is not None and not hasattr(handler.__wrapped__, "__wrapped__")
    store = webhooks.MemoryStore()
    status, chunks = follow(hub_for(store), ("sale", "pedido-1"), StatusAnswer(stream=True))
    first = next(chunks)
    ended = threading.Event()
    reader = threading.Thread(target=lambda: (list(chunks), ended.set()))
    reader.start()
    os.kill(os.getpid(), signal.SIGTERM)
    assert ended.wait(10), "the stream did not end at SIGTERM"
    assert seen == [signal.SIGTERM], seen  # the server's handler ran too
    # A stream opened after the signal answers its state once and ends.
    status, chunks = follow(hub_for(store), ("sale", "pedido-1"), StatusAnswer(stream=True))
    assert len(list(chunks)) == 1
    print("ok")
    """
)


def test_a_python_signal_handler_is_chained_and_ends_every_stream() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, "-c", _CHAIN], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


_APP = textwrap.dedent(
    """
    import sys
    from smartpos import webhooks

    def may_see(request, key):
        return request.headers.get("X-Caixa") == "loja-1"

    def fastapi_app():
        from fastapi import FastAPI
        from smartpos.integrations.fastapi import SmartPOS
        smartpos_app = SmartPOS(store=webhooks.SQLiteStore(INBOX))
        app = FastAPI(lifespan=smartpos_app.lifespan)
        router = smartpos_app.status_router(authorize=may_see, heartbeat=100)
        app.include_router(router, prefix="/caixa")
        return app

    def flask_app():
        from flask import Flask
        from smartpos.integrations.flask import SmartPOS
        app = Flask("status")
        app.config["SMARTPOS_STORE"] = webhooks.SQLiteStore(INBOX)
        ext = SmartPOS(app)
        blueprint = ext.status_blueprint(authorize=may_see, heartbeat=100)
        app.register_blueprint(blueprint, url_prefix="/caixa")
        return app
    """
)


@pytest.fixture
def held_sale(tmp_path: Path) -> Path:
    """An SQLite inbox whose sale ``pedido-9`` has an attempt in flight (approval held)."""
    path = tmp_path / "inbox.sqlite3"
    store = webhooks.SQLiteStore(path)
    with (
        Sandbox() as sandbox,
        smartpos.Client(
            api_key=Sandbox.API_KEY,
            base_url="http://sandbox.invalid",
            transport=sandbox.transport(),
            store=store,
        ) as client,
    ):
        sandbox.script_payments(Hold(Approve()))
        client.payments.create(
            documento_cliente=Sandbox.DOCUMENTO,
            smartpos_id=Sandbox.SMARTPOS_ID,
            valor_centavos=4590,
            sale="pedido-9",
        )
    store.close()
    return path


def _serve(command: list[str], app_dir: Path, inbox: Path, port: int) -> subprocess.Popen[str]:
    (app_dir / "status_app.py").write_text(f"INBOX = {str(inbox)!r}\n{_APP}")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(app_dir), str(ROOT / "src")])}
    server = subprocess.Popen(
        command, cwd=app_dir, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            SSEReader(f"http://127.0.0.1:{port}", "/caixa/smartpos-checkout.js").close()
            return server
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                raise RuntimeError(f"the server did not start: {server.communicate()}") from None
            time.sleep(0.1)


@pytest.mark.parametrize("server", ["uvicorn", "gunicorn"])
def test_sigterm_ends_open_streams_and_the_server_exits_at_once(
    server: str, held_sale: Path, tmp_path: Path
) -> None:
    """Without the chained handler the server would wait for the streams (5 minutes)."""
    port = _free_port()
    if server == "uvicorn":
        command = [
            sys.executable, "-m", "uvicorn", "status_app:fastapi_app", "--factory",
            "--host", "127.0.0.1", "--port", str(port),
        ]  # fmt: skip
    else:
        command = [
            sys.executable, "-m", "gunicorn", "status_app:flask_app()", "--bind",
            f"127.0.0.1:{port}", "--worker-class", "gthread", "--threads", "8",
            "--workers", "1", "--graceful-timeout", "120",
        ]  # fmt: skip
    process = _serve(command, tmp_path, held_sale, port)
    streams: list[SSEReader] = []
    try:
        for _ in range(3):
            stream = SSEReader(
                f"http://127.0.0.1:{port}", "/caixa/sales/pedido-9", headers=AUTH, timeout=30
            )
            assert stream.messages(1)[0]["data"]["status"] == "waiting"
            streams.append(stream)
        process.send_signal(signal.SIGTERM)
        for stream in streams:
            # Silent streams (a 100 s heartbeat): a read that waits 20 s fails the test.
            stream.sock.settimeout(20)
            stream.until_closed()
            assert stream.closed
        _, err = process.communicate(timeout=30)
        # uvicorn raises the signal again once it has shut down cleanly (-SIGTERM).
        assert process.returncode in (0, -signal.SIGTERM), err
        assert "graceful shutdown exceeded" not in err  # nothing had to be cancelled
        if server == "uvicorn":
            assert "Application shutdown complete" in err
            assert "Finished server process" in err
        else:
            assert "Shutting down: Master" in err
    finally:
        for stream in streams:
            stream.close()
        if process.poll() is None:
            process.kill()
            process.communicate()
