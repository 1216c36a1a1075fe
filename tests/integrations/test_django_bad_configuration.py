"""DjangoStore's bad configurations: a handler writing through another database alias inside
the store's transaction (warned, once per alias), and a partly migrated app (E008 names the
migrations left and the command)."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("django")

from django_stores import (
    add_database,
    drop_database,
    migrate,
)
from store_contract import make_event

from smartpos import webhooks


@pytest.fixture
def aliases(sqlite_databases: Any, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """The store's alias (migrated) and another database with the partner's table."""
    from django.db import connections

    store_alias, config = sqlite_databases()
    add_database(store_alias, config)
    other = f"orders_{uuid.uuid4().hex[:8]}"
    add_database(other, {"ENGINE": "django.db.backends.sqlite3", "NAME": str(tmp_path / "o.db")})
    for alias in (store_alias, other):
        with connections[alias].cursor() as cursor:
            cursor.execute("CREATE TABLE partner_rows (event_id VARCHAR(100), n INTEGER)")
    yield store_alias, other
    drop_database(store_alias)
    drop_database(other)


def _write(alias: str, event_id: str) -> None:
    from django.db import connections

    with connections[alias].cursor() as cursor:
        cursor.execute("INSERT INTO partner_rows (event_id, n) VALUES (%s, 1)", (event_id,))


def _read(alias: str) -> int:
    from django.db import connections

    with connections[alias].cursor() as cursor:
        cursor.execute("SELECT count(*) FROM partner_rows")
        return int(cursor.fetchone()[0])


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "smartpos.django" and r.levelno == logging.WARNING
    ]


def test_a_write_through_another_alias_is_warned_once_per_alias(
    aliases: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    """Writes through the store's alias and reads elsewhere say nothing; the first write
    through another alias is warned (naming both aliases), later ones are not; the watch
    is gone once the handler ends."""
    from django.db import connections

    from smartpos.integrations.django import DjangoStore

    store_alias, other = aliases
    store = DjangoStore(store_alias)
    for n in range(3):
        store.put(make_event(f"ev-{n}"))
    calls: list[str] = []

    def handler(event: webhooks.Event) -> None:
        _write(store_alias, event.id)
        _read(other)
        calls.append(event.id)
        if event.id != "ev-0":  # the first event writes only where it should
            _write(other, event.id)

    caplog.set_level(logging.WARNING, logger="smartpos.django")
    worker = webhooks.Worker(store, handler, batch=1)
    first = worker.run_once()
    quiet = list(_warnings(caplog))
    rest = worker.run_once() + worker.run_once()
    warned = _warnings(caplog)

    assert (1, 2) == (first, rest)
    assert ["ev-0", "ev-1", "ev-2"] == calls
    assert [] == quiet
    assert 1 == len(warned)
    assert repr(other) in warned[0]
    assert repr(store_alias) in warned[0]
    assert "commits on its own" in warned[0]
    assert frozenset({other}) == store._other_aliases.warned
    assert [] == connections[other].execute_wrappers
    assert (3, 2) == (_read(store_alias), _read(other))


def test_a_handler_s_own_transaction_on_another_alias_is_named(
    aliases: tuple[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    """transaction.atomic(using=other) inside the handler: the warning says so; the write
    stays committed even when the store's transaction rolls back."""
    from django.db import transaction

    from smartpos.integrations.django import DjangoStore

    store_alias, other = aliases
    store = DjangoStore(store_alias)
    store.put(make_event("ev-1"))

    def handler(event: webhooks.Event) -> None:
        with transaction.atomic(using=other):
            _write(other, event.id)
        _write(store_alias, event.id)
        raise RuntimeError("the fiscal service is down")

    caplog.set_level(logging.WARNING, logger="smartpos.django")
    webhooks.Worker(store, handler, base_backoff=0.0).run_once()
    warned = _warnings(caplog)

    assert 1 == len(warned)
    assert "own transaction.atomic" in warned[0]
    assert (0, 1) == (_read(store_alias), _read(other))  # the very hazard warned about


def test_is_write_tells_writes_from_reads() -> None:
    from smartpos.integrations.django._aliases import is_write

    assert all(
        is_write(sql)
        for sql in ("INSERT INTO t", " update t set", "DELETE FROM t", "create table t (a int)")
    )
    assert not any(
        is_write(sql) for sql in ("SELECT 1", "SAVEPOINT s1", "RELEASE SAVEPOINT s1", "PRAGMA x")
    )


def test_e008_names_the_migrations_a_partly_migrated_app_lacks(
    sqlite_databases: Any, tmp_path: Path
) -> None:
    """After an upgrade that brings a migration, a database migrated before it fails E008,
    which names that migration (not the applied one) and the command; migrated, it passes."""
    from django.conf import settings
    from django.db import connections
    from django.db.migrations.executor import MigrationExecutor
    from django.test import override_settings

    from smartpos.integrations.django.checks import check_store_tables

    alias = f"upgraded_{uuid.uuid4().hex[:8]}"
    add_database(alias, {"ENGINE": "django.db.backends.sqlite3", "NAME": str(tmp_path / "u.db")})
    later = {"smartpos": "smartpos_later_migrations"}
    store = {**settings.SMARTPOS, "STORE": f"django://{alias}", "WEBHOOK_SECRET": "s"}
    try:
        with override_settings(SMARTPOS=store, MIGRATION_MODULES=later):
            executor = MigrationExecutor(connections[alias])
            executor.migrate([("smartpos", "0001_initial")])
            partly = check_store_tables(databases=[alias])
            migrate(alias)
            fully = check_store_tables(databases=[alias])
    finally:
        drop_database(alias)

    assert ["smartpos.E008"] == [m.id for m in partly]
    assert "0002_later" in partly[0].msg
    assert "0001_initial" not in partly[0].msg
    assert f"python manage.py migrate smartpos --database {alias}" in str(partly[0].hint)
    assert [] == fully


def test_manage_py_migrate_runs_on_a_fresh_database(tmp_path: Path) -> None:
    """``migrate`` runs the database checks before it migrates: E008 is not one of its
    errors there (it refused the very command its hint names), while ``check --database``
    still reports it before the migration, and nothing after."""
    import os
    import subprocess
    import sys

    from framework_helpers import EXAMPLES

    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SHOP_"))}
    env = {**clean, "DJANGO_DB": str(tmp_path / "fresh.sqlite3"), "PYTHONDONTWRITEBYTECODE": "1"}

    def manage(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=EXAMPLES / "django_shop",
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    before = manage("check", "--database", "default")
    migrated = manage("migrate")
    after = manage("check", "--database", "default")

    assert 1 == before.returncode, before.stdout + before.stderr
    assert "smartpos.E008" in before.stderr
    assert 0 == migrated.returncode, migrated.stdout + migrated.stderr
    assert "Applying smartpos.0002_effect... OK" in migrated.stdout
    assert "smartpos.E008" not in migrated.stderr
    assert 0 == after.returncode, after.stdout + after.stderr
    assert "smartpos.E008" not in after.stderr
