"""Celery: the example's task on a real Celery worker process with a real Redis broker, a lost
message recovered by the inbox's lease, and the task's decisions in-process."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from framework_helpers import EXAMPLES, delivery, free_port, wait_for

from smartpos import webhooks

pytest.importorskip("celery")

from celery import Celery

from smartpos.integrations.celery import SmartPOSTasks


def load_example(monkeypatch: pytest.MonkeyPatch, store: Path, broker: str) -> ModuleType:
    """Import examples/celery_app.py with its store and broker from the environment."""
    monkeypatch.setenv("SMARTPOS_STORE", str(store))
    monkeypatch.setenv("SMARTPOS_CELERY_BROKER", broker)
    spec = importlib.util.spec_from_file_location("celery_app", EXAMPLES / "celery_app.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def put(store: webhooks.Store, event_id: str, **changes: Any) -> None:
    """Store one event as a receiver would."""
    raw = json.loads(delivery(event_id))
    raw.update(changes)
    store.put(webhooks.parse_envelope(raw))


def state(store: webhooks.Store, event_id: str) -> webhooks.EventState | None:
    """An event's state, or None."""
    record = store.get(event_id)
    return None if record is None else record.state


@pytest.fixture
def broker(redis_server: Any) -> str:
    """A real Redis (started by the tests on loopback) as the Celery broker, database 1."""
    return redis_server.url.rsplit("/", 1)[0] + "/1"


@pytest.fixture
def celery_worker(tmp_path: Path, broker: str) -> Iterator[Path]:
    """A real `celery worker` process running the example; yields its inbox path."""
    inbox = tmp_path / "inbox.sqlite3"
    webhooks.SQLiteStore(inbox).close()
    log = tmp_path / "worker.log"
    env = {
        "SMARTPOS_STORE": str(inbox),
        "SMARTPOS_CELERY_BROKER": broker,
        "PYTHONUNBUFFERED": "1",
    }
    import os

    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "celery_app", "worker", "--pool=solo",
             "--without-gossip", "--without-mingle", "--without-heartbeat", "--loglevel=INFO",
             "-n", f"smartpos-test-{free_port()}@127.0.0.1"],
            cwd=EXAMPLES, env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while b" ready." not in log.read_bytes():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"celery worker did not start:\n{log.read_text()}")
            time.sleep(0.05)
        yield inbox
    finally:
        proc.terminate()  # warm shutdown: finishes the task in hand
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    assert "approved: R$ 159,90" in log.read_text(), log.read_text()


@pytest.mark.slow
def test_real_worker_handles_dispatched_events_and_recovers_a_lost_message(
    celery_worker: Path, broker: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Events claimed and sent by id are handled on the Celery pool and acked in the inbox; a
    message that never reaches a worker is sent again once its lease runs out."""
    example = load_example(monkeypatch, celery_worker, broker)
    store = webhooks.SQLiteStore(celery_worker)
    put(store, "evt-ce-1")
    put(store, "evt-ce-2")
    put(store, "evt-ce-bad", dados={"referencia": 5})  # stored, but not the typed schema

    sent = example.smartpos_tasks.dispatch_once()
    wait_for(lambda: state(store, "evt-ce-2") is webhooks.EventState.DONE)
    wait_for(lambda: state(store, "evt-ce-bad") is webhooks.EventState.DEAD)

    # A message lost on the way: sent to a queue no worker reads, as a broker that lost it.
    lossy_app = Celery("lossy", broker=broker)
    lossy = SmartPOSTasks(
        lossy_app, store=store, handler=print, queue="nobody-reads-this", dispatch_lease=0.5
    )
    put(store, "evt-ce-lost")
    assert 1 == lossy.dispatch_once()
    assert 0 == example.smartpos_tasks.dispatch_once()  # still claimed by the lost message
    time.sleep(0.6)  # the lease of the lost message runs out
    assert 1 == example.smartpos_tasks.dispatch_once()
    wait_for(lambda: state(store, "evt-ce-lost") is webhooks.EventState.DONE)

    record = store.get("evt-ce-lost")
    assert record is not None
    assert 3 == sent
    assert webhooks.EventState.DONE == state(store, "evt-ce-1")
    assert 2 == record.attempts
    dead = store.get("evt-ce-bad")
    assert dead is not None
    assert "InvalidEventError" in (dead.last_error or "")
    store.close()
    lossy_app.close()
    example.app.close()


# --- the task's decisions, in-process ----------------------------------------------------


@pytest.fixture
def eager() -> Iterator[Celery]:
    """A Celery app that runs tasks at once, in this process (no broker)."""
    app = Celery("eager", broker="memory://")
    app.conf.task_always_eager = True
    yield app
    app.close()


def test_a_stale_message_is_skipped(eager: Celery) -> None:
    """A message whose claim was taken over (a new dispatch, a new token) does nothing."""
    store = webhooks.MemoryStore()
    handled: list[str] = []
    tasks = SmartPOSTasks(eager, store=store, handler=lambda e: handled.append(e.id))
    put(store, "evt-ce-stale")
    (old,) = store.claim(owner=tasks.owner, lease=0.05, limit=1)
    time.sleep(0.1)
    (new,) = store.claim(owner=tasks.owner, lease=30, limit=1)

    stale = tasks.task.run(old.event_id, old.token, old.owner)
    fresh = tasks.task.run(new.event_id, new.token, new.owner)
    again = tasks.task.run(new.event_id, new.token, new.owner)

    assert ("stale", "done", "stale") == (stale, fresh, again)
    assert ["evt-ce-stale"] == handled


def test_a_failing_handler_is_retried_from_the_inbox(eager: Celery) -> None:
    """A handler that raises: the event is nacked with its error and backoff, never lost."""

    def failing(event: webhooks.Event) -> None:
        raise RuntimeError("ERP down for CPF 529.982.247-25")

    store = webhooks.MemoryStore()
    tasks = SmartPOSTasks(eager, store=store, handler=failing, base_backoff=60)
    put(store, "evt-ce-fail")

    assert 1 == tasks.dispatch_once()

    record = store.get("evt-ce-fail")
    assert record is not None
    assert (webhooks.EventState.PENDING, 1) == (record.state, record.attempts)
    assert "RuntimeError: ERP down for CPF" in (record.last_error or "")
    assert "529.982.247-25" not in (record.last_error or "")
    assert 0 == tasks.dispatch_once()  # backing off


def test_async_handler_runs(eager: Celery) -> None:
    """An async def handler is run to completion before the ack."""
    handled: list[str] = []

    async def handler(event: webhooks.Event) -> None:
        handled.append(event.id)

    store = webhooks.MemoryStore()
    tasks = SmartPOSTasks(eager, store=store, handler=handler)
    put(store, "evt-ce-async")

    tasks.dispatch_once()

    assert (["evt-ce-async"], webhooks.EventState.DONE) == (handled, state(store, "evt-ce-async"))


def test_broker_down_gives_the_claims_back(tmp_path: Path) -> None:
    """When the broker refuses a message, the batch is released at once (no attempt counted)."""
    app = Celery("down", broker=f"redis://127.0.0.1:{free_port()}/0")
    app.conf.update(broker_connection_timeout=0.5, task_publish_retry=False)
    store = webhooks.MemoryStore()
    tasks = SmartPOSTasks(app, store=store, handler=print, batch=5)
    put(store, "evt-ce-down-1")
    put(store, "evt-ce-down-2")

    with pytest.raises(Exception) as info:
        tasks.dispatch_once()

    assert "Error" in type(info.value).__name__
    for event_id in ("evt-ce-down-1", "evt-ce-down-2"):
        record = store.get(event_id)
        assert record is not None
        assert (webhooks.EventState.PENDING, 0) == (record.state, record.attempts)
    app.close()


def test_store_is_opened_once_per_process(eager: Celery, tmp_inbox: Path) -> None:
    """A URL or a factory is opened on first use and reused; a store object is used as is."""
    opened: list[webhooks.Store] = []

    def factory() -> webhooks.Store:
        opened.append(webhooks.MemoryStore())
        return opened[-1]

    by_factory = SmartPOSTasks(eager, store=factory, handler=print, task_name="a")
    by_path = SmartPOSTasks(eager, store=str(tmp_inbox), handler=print, task_name="b")

    assert by_factory.store is by_factory.store
    assert 1 == len(opened)
    assert isinstance(by_path.store, webhooks.SQLiteStore)
    by_path.store.close()
