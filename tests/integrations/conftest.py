"""Fixtures of the framework integration tests: an SQLite inbox path, real Redis, PostgreSQL
and MariaDB servers."""

from __future__ import annotations

from pathlib import Path

import pytest
from framework_helpers import ROOT  # noqa: F401 - puts tests/webhooks on sys.path first
from servers import mariadb_server, postgres_server, redis_server, redis_server_unsafe

__all__ = ["mariadb_server", "postgres_server", "redis_server", "redis_server_unsafe", "tmp_inbox"]


@pytest.fixture
def tmp_inbox(tmp_path: Path) -> Path:
    """A path for an SQLite inbox."""
    return tmp_path / "inbox.sqlite3"
