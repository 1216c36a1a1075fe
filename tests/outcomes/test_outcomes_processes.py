"""Outcomes across real processes: kill -9 around the send, and many sellers and receivers.

The sandbox is served over HTTP by this process; the other processes (``outcome_child.py``) open
the same SQLite file, Redis prefix or PostgreSQL table as this one, the way separate hosts
share a store. Every child is started here with a bounded timeout and stopped by its PID.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import collections
import json
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import smartpos
from smartpos.testing import Approve, Refuse, Sandbox
from smartpos.webhooks import SQLiteStore, StoreBase, WebhookReceiver

pytestmark = pytest.mark.slow

CHILD = Path(__file__).resolve().parent / "outcome_child.py"
TIMEOUT = 60.0

SHARED_KINDS = [
    "sqlite",
    pytest.param("redis", marks=pytest.mark.redis),
    pytest.param("postgres", marks=pytest.mark.postgres),
]


@pytest.fixture(params=SHARED_KINDS)
def shared(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, StoreBase]]:
    """A store other processes can open too: its spec for them, and this process's handle."""
    kind = request.param
    name = f"p{uuid.uuid4().hex[:12]}"
    store: StoreBase
    if kind == "sqlite":
        path = tmp_path / "inbox.sqlite3"
        store, spec = SQLiteStore(path), f"sqlite:{path}"
    elif kind == "redis":
        from smartpos.webhooks import RedisStore

        url = request.getfixturevalue("redis_server").url
        store, spec = RedisStore(url, prefix=name, check_settings=False), f"redis:{url}|{name}"
    else:
        from smartpos.webhooks import PostgresStore

        dsn = request.getfixturevalue("postgres_server").dsn
        store, spec = PostgresStore(dsn, table=name), f"postgres:{dsn}|{name}"
        store.migrate()
    yield spec, store
    store.close()


def child(*args: str) -> subprocess.Popen[str]:
    """Start ``outcome_child.py ARGS`` with its output as text."""
    return subprocess.Popen(
        [sys.executable, str(CHILD), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def stop(process: subprocess.Popen[str]) -> None:
    """Stop a child by its PID: SIGTERM, then SIGKILL if it does not stop in time."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


# --- kill -9 --------------------------------------------------------------------------------


@pytest.mark.parametrize(("where", "charged_before"), [("before-send", 0), ("after-answer", 1)])
def test_a_process_killed_around_the_send_is_reconciled_without_a_second_charge(
    shared: tuple[str, StoreBase], where: str, charged_before: int
) -> None:
    """After kill -9 the operation is listed as waiting; reconcile settles it, charged once."""
    spec, store = shared
    referencia = smartpos.new_referencia()
    with Sandbox() as sandbox, sandbox.serve() as base_url:
        sandbox.set_webhook(WebhookReceiver(store))
        sandbox.hold_events()
        process = child("crash", spec, base_url, referencia, where)
        try:
            process.wait(timeout=TIMEOUT)
        finally:
            stop(process)
        assert -signal.SIGKILL == process.returncode

        waiting = store.operations()
        assert [(referencia, "sending")] == [(o.referencia, o.state) for o in waiting]
        assert charged_before == sum(1 for p in sandbox.payments if p.referencia == referencia)

        with smartpos.Client(api_key=Sandbox.API_KEY, base_url=base_url, store=store) as client:
            operation = client.reconcile(referencia)
            sandbox.release_events()
            event = client.wait(referencia, timeout=10)

        assert "accepted" == operation.state
        assert [referencia] == [p.referencia for p in sandbox.payments]
        assert [e["id"] for e in sandbox.events] == [event.id]
        assert [] == store.operations()


def test_a_process_killed_between_the_sale_check_and_the_send_is_settled_once(
    shared: tuple[str, StoreBase],
) -> None:
    """kill -9 after the sale's checks journaled the attempt, before the send: the attempt is
    a no_outcome pendência that keeps the sale in progress; reconcile settles it, the sale is
    paid by it, and nothing charges the customer twice."""
    spec, store = shared
    referencia = smartpos.new_referencia()
    with Sandbox() as sandbox, sandbox.serve() as base_url:
        sandbox.set_webhook(WebhookReceiver(store))
        sandbox.hold_events()
        process = child("crash", spec, base_url, referencia, "before-send", "mesa-9")
        try:
            process.wait(timeout=TIMEOUT)
        finally:
            stop(process)
        assert -signal.SIGKILL == process.returncode

        sale = store.sale("mesa-9")
        assert sale is not None
        assert ("in_progress", [("no_outcome", referencia)]) == (
            sale.state,
            [(p.reason, p.referencia) for p in sale.pendencias],
        )
        assert [] == list(sandbox.payments)
        with smartpos.Client(api_key=Sandbox.API_KEY, base_url=base_url, store=store) as client:
            with pytest.raises(smartpos.SaleInProgressError):
                client.payments.create(
                    documento_cliente=Sandbox.DOCUMENTO,
                    valor_centavos=4200,
                    smartpos_id=Sandbox.SMARTPOS_ID,
                    sale="mesa-9",
                )
            operation = client.reconcile(referencia)
            sandbox.release_events()
            client.wait(referencia, timeout=10)
            with pytest.raises(smartpos.SalePaidError):
                client.payments.create(
                    documento_cliente=Sandbox.DOCUMENTO,
                    valor_centavos=4200,
                    smartpos_id=Sandbox.SMARTPOS_ID,
                    sale="mesa-9",
                )

        sale = store.sale("mesa-9")
        assert sale is not None
        assert ("accepted", "paid", []) == (operation.state, sale.state, sale.pendencias)
        assert [referencia] == [p.referencia for p in sandbox.payments]


def test_an_answer_recorded_without_an_fsync_survives_kill_9(shared: tuple[str, StoreBase]) -> None:
    """The answer's record skips the fsync on SQLite; a crash of the process still keeps it.

    Killed right after create returned: the operation is accepted with its saved answer, and
    the same create again returns that answer without sending anything.
    """
    spec, store = shared
    referencia = smartpos.new_referencia()
    with Sandbox() as sandbox, sandbox.serve() as base_url:
        sandbox.set_webhook(WebhookReceiver(store))
        sandbox.hold_events()
        process = child("crash", spec, base_url, referencia, "after-record")
        try:
            process.wait(timeout=TIMEOUT)
        finally:
            stop(process)
        assert -signal.SIGKILL == process.returncode

        operation = store.operation(referencia)
        assert operation is not None
        assert "accepted" == operation.state
        assert operation.acceptance is not None
        assert referencia == operation.acceptance.referencia
        with smartpos.Client(api_key=Sandbox.API_KEY, base_url=base_url, store=store) as client:
            again = client.payments.create(
                documento_cliente=Sandbox.DOCUMENTO,
                valor_centavos=4200,
                smartpos_id=Sandbox.SMARTPOS_ID,
                referencia=referencia,
            )
        assert operation.acceptance.raw == again.raw
        assert [referencia] == [p.referencia for p in sandbox.payments]


# --- sellers and receivers in separate processes --------------------------------------------


def _round_robin(urls: list[str]) -> Any:
    """A webhook target that spreads deliveries over the receivers, as a load balancer does."""
    lock = threading.Lock()
    turn = [0]
    http = httpx.Client(timeout=5.0)

    def deliver(envelope: dict[str, Any]) -> None:
        with lock:
            url = urls[turn[0] % len(urls)]
            turn[0] += 1
        http.post(url, json=envelope).raise_for_status()

    return deliver


def test_every_sale_of_many_processes_ends_with_the_one_event_the_sandbox_produced(
    shared: tuple[str, StoreBase],
) -> None:
    """3 selling processes, 2 receiving ones, one store: one final event per sale, the right one."""
    spec, store = shared
    sellers, sales = [("sync", 3), ("sync", 3), ("async", 4)], 10
    receivers = [child("receive", spec) for _ in range(2)]
    started: list[subprocess.Popen[str]] = []
    try:
        urls = [r.stdout.readline().strip() for r in receivers if r.stdout is not None]
        assert 2 == len([u for u in urls if u.startswith("http://127.0.0.1:")]), urls
        with Sandbox() as sandbox, sandbox.serve() as base_url:
            sandbox.set_webhook(_round_robin(urls))
            sandbox.script_payments(*([Approve(), Refuse(), Approve()] * 4)[:sales])
            started = [child("sell", spec, base_url, str(n), f) for f, n in sellers]
            lines: list[dict[str, Any]] = []
            for process in started:
                out, err = process.communicate(timeout=TIMEOUT)
                assert 0 == process.returncode, err
                lines += [json.loads(line) for line in out.splitlines()]
            produced = collections.defaultdict(list)
            for envelope in sandbox.events:
                produced[envelope["dados"]["referencia"]].append(envelope)
    finally:
        for process in [*receivers, *started]:
            stop(process)

    assert sales == len(lines) == len({line["referencia"] for line in lines})
    for line in lines:
        [envelope] = produced[line["referencia"]]
        assert (envelope["id"], envelope["tipo"]) == (line["id"], line["tipo"])
        operation = store.operation(line["referencia"])
        assert ("final", envelope["id"], ()) == (
            operation.state,
            operation.event.id,
            operation.anomalies,
        )
    assert {"pagamento.aprovado", "pagamento.recusado"} == {line["tipo"] for line in lines}
    assert [] == store.operations()


# --- two processes racing one referencia -----------------------------------------------------


def test_two_processes_racing_one_referencia_both_get_the_approval(
    shared: tuple[str, StoreBase],
) -> None:
    """Two processes behind a barrier call create_and_wait with the same referencia, 30 times.

    One journals and sends it, the other resends the journaled bytes: whichever send reaches
    the service second is answered 409, and the journal explains it. Each round charges once,
    and both processes get the approval: never ``ReferenciaDuplicadaError`` (an APIError,
    "surely not accepted") while the journal ends with the approval.
    """
    spec, store = shared
    rounds = 30
    racers: list[subprocess.Popen[str]] = []
    with Sandbox() as sandbox, sandbox.serve() as base_url:
        sandbox.set_webhook(WebhookReceiver(store))
        try:
            racers = [
                subprocess.Popen(
                    [sys.executable, str(CHILD), "race", spec, base_url],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
                for _ in range(2)
            ]
            for racer in racers:
                assert racer.stdout is not None
                assert "ready" == racer.stdout.readline().strip()
            results: list[list[dict[str, Any]]] = []
            referencias = [smartpos.new_referencia() for _ in range(rounds)]
            for referencia in referencias:
                for racer in racers:  # the barrier: both get the line at the same time
                    assert racer.stdin is not None
                    racer.stdin.write(referencia + "\n")
                for racer in racers:
                    assert racer.stdin is not None
                    racer.stdin.flush()
                results.append(
                    [json.loads(racer.stdout.readline()) for racer in racers if racer.stdout]
                )
            charged = collections.Counter(p.referencia for p in sandbox.payments)
        finally:
            for racer in racers:
                if racer.stdin is not None:
                    racer.stdin.close()
                stop(racer)

    for referencia, pair in zip(referencias, results, strict=True):
        assert [("pagamento.aprovado", referencia)] * 2 == [
            (line.get("tipo", line.get("error")), line["referencia"]) for line in pair
        ]
        assert 1 == charged[referencia]
        operation = store.operation(referencia)
        assert operation is not None
        assert "final" == operation.state
