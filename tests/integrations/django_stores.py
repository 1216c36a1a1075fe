"""DjangoStores on fresh databases for the contract suites and the cross-process races.

Django is configured once per process with the example shop's settings (as
``test_django.py`` does, so that either module may run first). Each store gets a database
alias of its own, added at run time: a copy of an SQLite file, or a PostgreSQL database made
from a template, or a MariaDB database whose tables are copied (``CREATE TABLE ... LIKE``)
from a migrated one, all migrated once per module. A spawned process (the races) opens the
same alias with ``open_django_store``, a module-level function a ``StoreSpec`` can pickle.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from framework_helpers import EXAMPLES

__all__ = [
    "add_database",
    "drop_database",
    "mariadb_config",
    "mariadb_database",
    "migrate",
    "open_django_store",
    "postgres_database",
    "setup_django",
    "sqlite_database",
]


def setup_django(scratch: Path | None = None) -> None:
    """Configure Django with the example shop's settings unless this process did already."""
    import django
    from django.conf import settings

    if settings.configured:
        return
    sys.path.insert(0, str(EXAMPLES / "django_shop"))
    os.environ["DJANGO_SETTINGS_MODULE"] = "shop.settings"
    where = scratch if scratch is not None else Path(os.environ.get("TMPDIR", "/tmp"))
    os.environ["DJANGO_DB"] = str(where / f"shop-{uuid.uuid4().hex[:8]}.sqlite3")
    tz = os.environ.get("TZ")
    try:
        django.setup()
    finally:
        os.environ.pop("DJANGO_SETTINGS_MODULE", None)
        os.environ.pop("DJANGO_DB", None)
        # Django sets the process's TZ to TIME_ZONE; servers started later would inherit it.
        if tz is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = tz
        time.tzset()


def add_database(alias: str, config: dict[str, Any]) -> None:
    """Make ``alias`` a database of this process's ``DATABASES`` (with Django's defaults)."""
    from django.conf import settings
    from django.db import DEFAULT_DB_ALIAS, connections

    if alias in connections.settings:
        return
    both = connections.configure_settings(
        {DEFAULT_DB_ALIAS: dict(connections.settings[DEFAULT_DB_ALIAS]), alias: dict(config)}
    )
    connections.settings[alias] = both[alias]
    settings.DATABASES[alias] = both[alias]


def drop_database(alias: str) -> None:
    """Close this thread's connection to ``alias`` and forget it, settings too: Django's checks
    (and anything else iterating ``connections``) would connect to a database dropped since."""
    from django.conf import settings
    from django.db import connections

    if alias in connections.settings:
        connections[alias].close()
        del connections[alias]
        del connections.settings[alias]
        settings.DATABASES.pop(alias, None)


def migrate(alias: str) -> None:
    """Create the smartpos tables on ``alias`` (the app's migrations, without signals)."""
    from django.db import connections
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connections[alias])
    executor.migrate(executor.loader.graph.leaf_nodes("smartpos"))


def open_django_store(alias: str, config: dict[str, Any], options: dict[str, Any]) -> Any:
    """A DjangoStore on ``alias`` in this process (spawned children call it first)."""
    setup_django()
    add_database(alias, config)
    from smartpos.integrations.django import DjangoStore

    return DjangoStore(alias, **options)


def sqlite_database(template: Path, directory: Path) -> Callable[[], tuple[str, dict[str, Any]]]:
    """Copies of a migrated SQLite file: each call gives a new alias and its settings."""
    counter = iter(range(1_000_000))

    def new() -> tuple[str, dict[str, Any]]:
        name = f"sqlite_{uuid.uuid4().hex[:10]}"
        path = directory / f"{name}-{next(counter)}.sqlite3"
        shutil.copyfile(template, path)
        return name, {"ENGINE": "django.db.backends.sqlite3", "NAME": str(path)}

    return new


def sqlite_template(directory: Path) -> Path:
    """A migrated SQLite file in WAL mode, to copy for each store."""
    import sqlite3

    path = directory / "template.sqlite3"
    alias = f"template_{uuid.uuid4().hex[:8]}"
    add_database(alias, {"ENGINE": "django.db.backends.sqlite3", "NAME": str(path)})
    migrate(alias)
    drop_database(alias)
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
    finally:
        conn.close()
    return path


def postgres_config(port: int, name: str) -> dict[str, Any]:
    """Django's settings of database ``name`` on the test server."""
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": name,
        "USER": "postgres",
        "HOST": "127.0.0.1",
        "PORT": str(port),
    }


def postgres_database(dsn: str, port: int) -> Iterator[Callable[[], tuple[str, dict[str, Any]]]]:
    """New databases made from one migrated template on the server; dropped at the end."""
    import psycopg

    template = f"smartpos_tmpl_{uuid.uuid4().hex[:8]}"
    made: list[str] = []
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{template}"')
        alias = f"pg_{template}"
        add_database(alias, postgres_config(port, template))
        migrate(alias)
        drop_database(alias)

        def new() -> tuple[str, dict[str, Any]]:
            name = f"dj_{uuid.uuid4().hex[:12]}"
            admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
            made.append(name)
            return f"pg_{name}", postgres_config(port, name)

        try:
            yield new
        finally:
            for name in [*made, template]:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def mariadb_config(port: int, name: str) -> dict[str, Any]:
    """Django's settings of database ``name`` on the test MariaDB server.

    ``charset`` is explicit: Django before 5.2 connects in ``utf8`` (3-byte) by default.
    """
    return {
        "ENGINE": "django.db.backends.mysql",
        "NAME": name,
        "USER": "root",
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "OPTIONS": {"charset": "utf8mb4"},
    }


def mariadb_database(server: Any) -> Iterator[Callable[[], tuple[str, dict[str, Any]]]]:
    """New MariaDB databases with the tables of one migrated database; dropped at the end."""
    template = f"smartpos_tmpl_{uuid.uuid4().hex[:8]}"
    made: list[str] = []
    server.new_database(template)
    alias = f"my_{template}"
    add_database(alias, mariadb_config(server.port, template))
    migrate(alias)
    drop_database(alias)
    admin = server.connect()
    cursor = admin.cursor()
    cursor.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = %s", (template,)
    )
    tables = [name for (name,) in cursor.fetchall()]

    def new() -> tuple[str, dict[str, Any]]:
        name = f"dj_{uuid.uuid4().hex[:12]}"
        server.new_database(name)
        made.append(name)
        for table in tables:
            cursor.execute(f"CREATE TABLE `{name}`.`{table}` LIKE `{template}`.`{table}`")
        cursor.execute(
            f"INSERT INTO `{name}`.django_migrations SELECT * FROM `{template}`.django_migrations"
        )
        return f"my_{name}", mariadb_config(server.port, name)

    try:
        yield new
    finally:
        admin.close()
        for name in [*made, template]:
            server.drop_database(name)
