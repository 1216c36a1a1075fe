"""DjangoStore on MariaDB: every store contract and race, one database per store (its tables
copied from a migrated one on the session's server), woken at the check interval."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("django")

from django_store_suites import DjangoStoreSuites, NewDatabase
from django_stores import mariadb_database, setup_django
from servers import MariaDbServer, require_module

require_module("MySQLdb", "mysqlclient (pip install mysqlclient)")

pytestmark = [pytest.mark.mariadb, pytest.mark.slow]


@pytest.fixture(scope="module")
def new_database(
    mariadb_server: MariaDbServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[NewDatabase]:
    """New databases with the migrated tables, a new alias each."""
    setup_django(tmp_path_factory.mktemp("django"))
    yield from mariadb_database(mariadb_server)


class TestStore(DjangoStoreSuites.TestStore):
    """The inbox contract on MariaDB."""


class TestJournal(DjangoStoreSuites.TestJournal):
    """The journal contract on MariaDB."""


class TestSales(DjangoStoreSuites.TestSales):
    """The sales contract on MariaDB."""


class TestAckMany(DjangoStoreSuites.TestAckMany):
    """ack_many in one statement per batch on MariaDB."""


class TestExactIds(DjangoStoreSuites.TestExactIds):
    """Ids and referencias compare byte for byte on MariaDB."""


class TestListener(DjangoStoreSuites.TestListener):
    """The waking contract on MariaDB (a bounded check interval)."""

    # No change feed: every waiter re-checks at the interval, named or not.
    names_journal_writes = False


class TestRaces(DjangoStoreSuites.TestRaces):
    """Processes racing on one MariaDB database."""


@pytest.fixture
def alias(new_database: NewDatabase) -> Iterator[str]:
    """A fresh migrated database's alias."""
    from django_stores import add_database, drop_database

    name, config = new_database()
    add_database(name, config)
    yield name
    drop_database(name)


def test_mariadb_wakes_at_the_check_interval(alias: str) -> None:
    """No change feed on MariaDB: waiters are woken by checks at ``check_interval``."""
    from smartpos.integrations.django import DjangoStore
    from smartpos.webhooks._listener import PollingChanges

    with DjangoStore(alias, check_interval=0.1) as store:
        source = store._change_source()

    assert isinstance(source, PollingChanges)


def test_id_columns_have_a_binary_no_pad_collation(alias: str) -> None:
    """The migration gives every id and referencia column utf8mb4_nopad_bin, and the raw
    envelopes LONGTEXT."""
    from django.db import connections

    with connections[alias].cursor() as cursor:
        cursor.execute(
            "SELECT table_name, column_name, column_type, collation_name "
            "FROM information_schema.columns WHERE table_schema = DATABASE() "
            "AND table_name LIKE 'smartpos%%' AND collation_name LIKE '%%bin'"
        )
        exact = {(t, c): (ty, co) for t, c, ty, co in cursor.fetchall()}
        cursor.execute(
            "SELECT column_type FROM information_schema.columns WHERE table_schema = DATABASE() "
            "AND table_name = 'smartpos_event' AND column_name = 'raw'"
        )
        (raw,) = cursor.fetchone()

    assert {
        ("smartpos_event", "event_id"): ("varchar(256)", "utf8mb4_nopad_bin"),
        ("smartpos_event", "token"): ("varchar(32)", "utf8mb4_nopad_bin"),
        ("smartpos_event", "referencia"): ("varchar(512)", "utf8mb4_nopad_bin"),
        ("smartpos_operation", "referencia"): ("varchar(512)", "utf8mb4_nopad_bin"),
        ("smartpos_operation", "sale"): ("varchar(512)", "utf8mb4_nopad_bin"),
        ("smartpos_sale", "sale_id"): ("varchar(512)", "utf8mb4_nopad_bin"),
        ("smartpos_effect", "effect_key"): ("varchar(512)", "utf8mb4_nopad_bin"),
        ("smartpos_effect", "event_id"): ("varchar(256)", "utf8mb4_nopad_bin"),
        ("smartpos_effect", "referencia"): ("varchar(512)", "utf8mb4_nopad_bin"),
        ("smartpos_effect", "sale"): ("varchar(512)", "utf8mb4_nopad_bin"),
        ("smartpos_terminalhold", "smartpos_id"): ("varchar(512)", "utf8mb4_nopad_bin"),
        ("smartpos_terminalhold", "referencia"): ("varchar(512)", "utf8mb4_nopad_bin"),
    } == exact
    assert "longtext" == raw


def test_a_referencia_longer_than_the_columns(alias: str) -> None:
    """An event's referencia of 513 characters is stored but linked to nothing; journaling
    one is refused before anything is written, saying the limit."""
    from journal_contract import begin_payment
    from outcome_events import event

    from smartpos.integrations.django import DjangoStore
    from smartpos.webhooks import PutResult
    from smartpos.webhooks._store_errors import StoreError

    long = "r" * 513
    with DjangoStore(alias) as store:
        put = store.put(event("ev-long", referencia=long))
        with pytest.raises(StoreError, match=r"513 characters.*at most 512") as refused:
            begin_payment(store, long)
        fits = begin_payment(store, "r" * 512)[1]
        stored = store.get("ev-long")
        outcome = store._outcome(long)

    assert PutResult.NEW == put
    assert stored is not None
    assert outcome is None
    assert refused.value.applied is False
    assert fits


def test_a_connection_not_in_utf8mb4_is_refused(new_database: NewDatabase) -> None:
    """A connection in 3-byte ``utf8`` cannot hold every id: the first call says to set the
    charset option."""
    from django_stores import add_database, drop_database

    from smartpos import ConfigurationError
    from smartpos.integrations.django import DjangoStore

    name, config = new_database()
    add_database(name, {**config, "OPTIONS": {"charset": "utf8mb3"}})
    try:
        with DjangoStore(name) as store, pytest.raises(ConfigurationError, match="utf8mb4"):
            store.get("ev-1")
    finally:
        drop_database(name)


def test_checks_on_mariadb(
    alias: str, mariadb_server: MariaDbServer, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """E007 and E008 as on the other databases; migrating leaves no warning about the
    models (their partial indexes are whole ones here, their unique ids fit a key)."""
    import uuid

    from django.conf import settings
    from django.core import checks
    from django.test import override_settings
    from django_stores import add_database, drop_database, mariadb_config

    from smartpos.integrations.django.checks import check_settings, check_store_tables

    bare = f"bare_{uuid.uuid4().hex[:8]}"
    mariadb_server.new_database(bare)
    add_database(bare, mariadb_config(mariadb_server.port, bare))
    base = {**settings.SMARTPOS, "WEBHOOK_SECRET": "s"}
    try:
        with override_settings(SMARTPOS={**base, "STORE": "django://nowhere"}):
            missing = [m.id for m in check_settings()]
        with override_settings(SMARTPOS={**base, "STORE": f"django://{bare}"}):
            unmigrated = check_store_tables(databases=[bare])
        with override_settings(SMARTPOS={**base, "STORE": f"django://{alias}"}):
            fine = check_store_tables(databases=[alias])
            everything = checks.run_checks(databases=[alias])
    finally:
        drop_database(bare)
        mariadb_server.drop_database(bare)

    assert "smartpos.E007" in missing
    assert ["smartpos.E008"] == [m.id for m in unmigrated]
    assert f"python manage.py migrate smartpos --database {bare}" in str(unmigrated[0].hint)
    assert [] == fine
    assert [] == [
        (m.id, str(m.obj))
        for m in everything
        if m.id.startswith(("models.", "fields.", "mysql.")) or m.id.startswith("smartpos.E")
    ]
