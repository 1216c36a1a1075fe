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


class TestExactIds(DjangoStoreSuites.TestExactIds):
    """Ids and referencias compare byte for byte on SQLite."""


class TestListener(DjangoStoreSuites.TestListener):
    """The waking contract on SQLite (a bounded check interval)."""


class TestRaces(DjangoStoreSuites.TestRaces):
    """Processes racing on one SQLite file."""
