"""Fixtures of the framework integration tests: an SQLite inbox path, real Redis, PostgreSQL
and MariaDB servers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from framework_helpers import ROOT  # noqa: F401 - puts tests/webhooks on sys.path first
from servers import mariadb_server, postgres_server, redis_server, redis_server_unsafe

__all__ = [
    "mariadb_databases",
    "mariadb_server",
    "postgres_databases",
    "postgres_server",
    "redis_server",
    "redis_server_unsafe",
    "sqlite_databases",
    "tmp_inbox",
]


@pytest.fixture
def tmp_inbox(tmp_path: Path) -> Path:
    """A path for an SQLite inbox."""
    return tmp_path / "inbox.sqlite3"


# Databases for DjangoStores (django_stores.py): each fixture gives a factory of new aliases.


@pytest.fixture(scope="module")
def sqlite_databases(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Copies of a migrated SQLite file."""
    from django_stores import setup_django, sqlite_database, sqlite_template

    setup_django(tmp_path_factory.mktemp("django"))
    directory: Path = tmp_path_factory.mktemp("django-dbs")
    return sqlite_database(sqlite_template(directory), directory)


@pytest.fixture(scope="module")
def postgres_databases(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Any]:
    """Databases from a migrated template on the session's PostgreSQL server."""
    from django_stores import postgres_database, setup_django

    server = request.getfixturevalue("postgres_server")
    setup_django(tmp_path_factory.mktemp("django"))
    yield from postgres_database(server.dsn, server.port)


@pytest.fixture(scope="module")
def mariadb_databases(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Any]:
    """Databases with the migrated tables on the session's MariaDB server."""
    from django_stores import mariadb_database, setup_django

    server = request.getfixturevalue("mariadb_server")
    setup_django(tmp_path_factory.mktemp("django"))
    yield from mariadb_database(server)
