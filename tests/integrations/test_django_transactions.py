"""DjangoStore and webhooks.Worker: the handler's writes and the ack commit together or not at
all, on SQLite, PostgreSQL and MariaDB, with real processes killed (kill -9) at each point."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("django")

from django_stores import (
    add_database,
    drop_database,
    open_django_store,
)
from store_contract import make_event

from smartpos import ConfigurationError, webhooks
from smartpos.webhooks._store import EventState

_PARTNER = "CREATE TABLE partner_rows (event_id VARCHAR(100) NOT NULL, n INTEGER NOT NULL)"


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("postgres", marks=pytest.mark.postgres),
        pytest.param("mariadb", marks=pytest.mark.mariadb),
    ]
)
def database(request: pytest.FixtureRequest) -> Iterator[tuple[str, dict[str, Any]]]:
    """A fresh migrated database with the partner's own table, as (alias, settings)."""
    from django.db import connections

    alias, config = request.getfixturevalue(f"{request.param}_databases")()
    add_database(alias, config)
    with connections[alias].cursor() as cursor:
        cursor.execute(_PARTNER)
    yield alias, config
    drop_database(alias)


def _write(alias: str, event_id: str, n: int) -> None:
    from django.db import connections

    with connections[alias].cursor() as cursor:
        cursor.execute("INSERT INTO partner_rows (event_id, n) VALUES (%s, %s)", (event_id, n))


def _rows(alias: str, event_id: str) -> int:
    from django.db import connections

    with connections[alias].cursor() as cursor:
        cursor.execute("SELECT count(*) FROM partner_rows WHERE event_id = %s", (event_id,))
        return int(cursor.fetchone()[0])


def _doomed_worker(alias: str, config: dict[str, Any], point: str) -> None:
    """A worker process that kills itself (SIGKILL) at ``point`` of its handler."""
    store = open_django_store(alias, config, {})

    def die() -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    def handler(event: webhooks.Event) -> None:
        if point == "before":
            die()
        _write(alias, event.id, 1)
        if point == "inside":
            die()
        _write(alias, event.id, 2)
        if point == "between":
            die()

    webhooks.Worker(store, handler, lease=1.0).run_once()


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals")
@pytest.mark.parametrize("point", ["before", "inside", "between"])
def test_kill_9_leaves_both_or_neither(database: tuple[str, dict[str, Any]], point: str) -> None:
    """A worker killed before its handler, inside it, or between its writes and the ack leaves
    neither the partner's rows nor the ack; the next worker then leaves both, once."""
    from smartpos.integrations.django import DjangoStore

    alias, config = database
    store = DjangoStore(alias)
    store.put(make_event("ev-1"))
    process = multiprocessing.get_context("spawn").Process(
        target=_doomed_worker, args=(alias, config, point)
    )
    process.start()
    process.join(timeout=60)
    if process.is_alive():  # pragma: no cover - a hung child fails the test below
        process.kill()
        process.join(timeout=10)
    after_kill = (process.exitcode, _rows(alias, "ev-1"), store.get("ev-1"))

    time.sleep(1.2)  # the dead worker's lease runs out
    handled = webhooks.Worker(
        store, lambda event: [_write(alias, event.id, n) for n in (1, 2)], lease=5.0
    ).run_once()
    stored = store.get("ev-1")

    assert -signal.SIGKILL == after_kill[0]
    assert 0 == after_kill[1]
    assert after_kill[2] is not None
    assert EventState.CLAIMED == after_kill[2].state
    assert 1 == handled
    assert 2 == _rows(alias, "ev-1")
    assert stored is not None
    assert EventState.DONE == stored.state


def test_a_handler_that_raises_rolls_back_and_is_nacked(
    database: tuple[str, dict[str, Any]],
) -> None:
    """The handler's write is undone; the event is pending again with its error kept."""
    from smartpos.integrations.django import DjangoStore

    alias, _ = database
    store = DjangoStore(alias)
    store.put(make_event("ev-1"))

    def handler(event: webhooks.Event) -> None:
        _write(alias, event.id, 1)
        raise RuntimeError("fiscal service down")

    webhooks.Worker(store, handler, base_backoff=0.0).run_once()
    stored = store.get("ev-1")

    assert 0 == _rows(alias, "ev-1")
    assert stored is not None
    assert (EventState.PENDING, 1) == (stored.state, stored.attempts)
    assert "RuntimeError: fiscal service down" == stored.last_error


def test_an_ack_refused_rolls_the_handler_back(database: tuple[str, dict[str, Any]]) -> None:
    """When the claim lost its event (requeued and claimed anew meanwhile), the handler's
    writes are undone: the new owner's run is the one that counts."""
    from smartpos.integrations.django import DjangoStore

    alias, _ = database
    store = DjangoStore(alias)
    store.put(make_event("ev-1"))
    (claim,) = store.claim(owner="old", lease=30)
    store.nack(claim, error="x", retry_in=0)
    (newer,) = store.claim(owner="new", lease=30)
    worker = webhooks.Worker(store, lambda event: _write(alias, event.id, 1))

    result = worker._handle(worker._settings, claim)
    stored = store.get("ev-1")

    assert ("ack_refused", None) == result
    assert 0 == _rows(alias, "ev-1")
    assert stored is not None
    assert (EventState.CLAIMED, "new") == (stored.state, stored.owner)
    assert store.ack(newer)


def test_the_ack_inside_the_transaction_holds_past_the_lease(
    database: tuple[str, dict[str, Any]],
) -> None:
    """While nobody else claimed the event, the ack in the handler's transaction holds even
    after the lease's expiry time."""
    from smartpos.integrations.django import DjangoStore

    alias, _ = database
    now = [1_700_000_000.0]
    store = DjangoStore(alias, clock=lambda: now[0])
    store.put(make_event("ev-1"))

    def slow(event: webhooks.Event) -> None:
        _write(alias, event.id, 1)
        now[0] += 60  # past the 30 s lease

    handled = webhooks.Worker(store, slow, lease=30, heartbeat=1000).run_once()
    stored = store.get("ev-1")

    assert 1 == handled
    assert 1 == _rows(alias, "ev-1")
    assert stored is not None
    assert EventState.DONE == stored.state


def test_async_worker_refuses_a_django_store(database: tuple[str, dict[str, Any]]) -> None:
    """Django has no asynchronous transactions: AsyncWorker says to use Worker."""
    from smartpos.integrations.django import DjangoStore

    async def handler(event: webhooks.Event) -> None:
        return None

    with pytest.raises(ConfigurationError, match="Worker"):
        webhooks.AsyncWorker(DjangoStore(database[0]), handler)


def test_open_store_and_an_unknown_alias(database: tuple[str, dict[str, Any]]) -> None:
    """ "django://ALIAS" opens a DjangoStore on that alias; an unknown alias is refused."""
    from smartpos.integrations.django import DjangoStore
    from smartpos.webhooks._open import open_store

    store = open_store(f"django://{database[0]}")

    assert isinstance(store, DjangoStore)
    assert database[0] == store.using
    with pytest.raises(ConfigurationError, match="nowhere"):
        DjangoStore("nowhere")


def test_checks_name_a_missing_alias_and_unmigrated_tables(
    sqlite_databases: Any, tmp_path: Path
) -> None:
    """E007: STORE names an alias DATABASES lacks; E008: its tables are not migrated, and the
    hint names the command; none once migrated."""
    from django.conf import settings
    from django.test import override_settings

    from smartpos.integrations.django.checks import check_settings, check_store_tables

    bare = f"bare_{tmp_path.name[-8:]}"
    add_database(bare, {"ENGINE": "django.db.backends.sqlite3", "NAME": str(tmp_path / "b.db")})
    migrated, config = sqlite_databases()
    add_database(migrated, config)
    base = {**settings.SMARTPOS, "WEBHOOK_SECRET": "s"}
    try:
        with override_settings(SMARTPOS={**base, "STORE": "django://nowhere"}):
            missing = [m.id for m in check_settings()]
        with override_settings(SMARTPOS={**base, "STORE": f"django://{bare}"}):
            unmigrated = check_store_tables(databases=[bare])
            not_asked = check_store_tables()
        with override_settings(SMARTPOS={**base, "STORE": f"django://{migrated}"}):
            fine = check_store_tables(databases=[migrated])
    finally:
        drop_database(bare)
        drop_database(migrated)

    assert "smartpos.E007" in missing
    assert ["smartpos.E008"] == [m.id for m in unmigrated]
    assert f"python manage.py migrate smartpos --database {bare}" in str(unmigrated[0].hint)
    assert [] == not_asked
    assert [] == fine
