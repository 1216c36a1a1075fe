"""DjangoStore on PostgreSQL: every store contract and race, one database per store (made
from a migrated template on the session's server), and its LISTEN/NOTIFY wake-ups."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("django")

from django_store_suites import DjangoStoreSuites, NewDatabase
from django_stores import postgres_database, setup_django
from servers import PostgresServer, require_module

require_module("psycopg", "psycopg (pip install 'smartpos[postgres]')")

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture(scope="module")
def new_database(
    postgres_server: PostgresServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[NewDatabase]:
    """New databases from a migrated template, a new alias each."""
    setup_django(tmp_path_factory.mktemp("django"))
    yield from postgres_database(postgres_server.dsn, postgres_server.port)


class TestStore(DjangoStoreSuites.TestStore):
    """The inbox contract on PostgreSQL."""


class TestJournal(DjangoStoreSuites.TestJournal):
    """The journal contract on PostgreSQL."""


class TestSales(DjangoStoreSuites.TestSales):
    """The sales contract on PostgreSQL."""


class TestAckMany(DjangoStoreSuites.TestAckMany):
    """ack_many in one statement per batch on PostgreSQL."""


class TestExactIds(DjangoStoreSuites.TestExactIds):
    """Ids and referencias compare byte for byte on PostgreSQL."""


class TestListener(DjangoStoreSuites.TestListener):
    """The waking contract on PostgreSQL (LISTEN/NOTIFY)."""


class TestRaces(DjangoStoreSuites.TestRaces):
    """Processes racing on one PostgreSQL database."""


def test_postgres_wakes_through_listen_notify(new_database: NewDatabase) -> None:
    """On PostgreSQL the change source is LISTEN/NOTIFY, not a check interval."""
    from django_stores import add_database, drop_database

    from smartpos.integrations.django import DjangoStore
    from smartpos.webhooks._listener import PostgresChanges

    alias, config = new_database()
    add_database(alias, config)
    try:
        with DjangoStore(alias) as store:
            assert isinstance(store._change_source(), PostgresChanges)
    finally:
        drop_database(alias)
