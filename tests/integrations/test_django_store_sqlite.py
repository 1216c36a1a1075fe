"""DjangoStore on SQLite: every store contract and race, one migrated file per store."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("django")

from django_store_suites import DjangoStoreSuites, NewDatabase
from django_stores import setup_django, sqlite_database, sqlite_template


@pytest.fixture(scope="module")
def new_database(tmp_path_factory: pytest.TempPathFactory) -> NewDatabase:
    """Copies of a migrated SQLite file (WAL), a new alias each."""
    setup_django(tmp_path_factory.mktemp("django"))
    directory: Path = tmp_path_factory.mktemp("django-stores")
    return sqlite_database(sqlite_template(directory), directory)


class TestStore(DjangoStoreSuites.TestStore):
    """The inbox contract on SQLite."""


class TestJournal(DjangoStoreSuites.TestJournal):
    """The journal contract on SQLite."""


class TestSales(DjangoStoreSuites.TestSales):
    """The sales contract on SQLite."""


class TestAckMany(DjangoStoreSuites.TestAckMany):
    """ack_many in one statement per batch on SQLite."""


class TestExactIds(DjangoStoreSuites.TestExactIds):
    """Ids and referencias compare byte for byte on SQLite."""


class TestListener(DjangoStoreSuites.TestListener):
    """The waking contract on SQLite (a bounded check interval)."""

    # No change feed: every waiter re-checks at the interval, named or not.
    names_journal_writes = False


class TestRaces(DjangoStoreSuites.TestRaces):
    """Processes racing on one SQLite file."""


@pytest.mark.parametrize(("max_age", "kept"), [(0, False), (None, True), (60, True)])
def test_a_thread_keeps_its_connection_only_when_the_alias_persists_them(
    new_database: NewDatabase, max_age: int | None, kept: bool
) -> None:
    """Another thread's connection is closed after each call, unless CONN_MAX_AGE keeps it."""
    import threading

    from django.db import connections
    from django_stores import add_database, drop_database

    from smartpos.integrations.django import DjangoStore

    alias, config = new_database()
    add_database(alias, {**config, "CONN_MAX_AGE": max_age})
    seen: list[object] = []

    def calls() -> None:
        store = DjangoStore(alias)
        for _ in range(2):
            assert store.get("absent") is None
            seen.append(connections[alias].connection)
        connections[alias].close()

    try:
        thread = threading.Thread(target=calls)
        thread.start()
        thread.join(30)
    finally:
        drop_database(alias)
    assert 2 == len(seen)
    if kept:
        assert seen[0] is not None
        assert seen[0] is seen[1]
    else:
        assert [None, None] == seen
