"""The ``--store`` of ``listen``, ``events`` and ``operations``: every store URL, one opener.

A store is named as everywhere else in the SDK (`smartpos.webhooks.open_store`): a file path or
``sqlite:///PATH`` (an SQLite inbox), ``redis://...`` or ``postgresql://...``; ``--namespace``
picks the RedisStore key prefix or the PostgresStore table. Commands that only read never create
an inbox: an SQLite file is checked read-only first (`check_inbox`), so a wrong path is never
modified. ``memory:`` is refused: a memory store lives and dies with one process, so a command
would only ever see an empty inbox. Messages name a URL without its password.

Building the parser never imports this module's store code: it loads when a command runs.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from smartpos._messages import message

from ._output import EXIT_USAGE, CommandError

if TYPE_CHECKING:
    from smartpos.webhooks import StoreBase

__all__ = [
    "check_inbox",
    "local_time",
    "open_store",
    "store_name",
]


def local_time(when: dt.datetime) -> str:
    """A time as the command prints it: local, to the second, with its UTC offset (ISO 8601).

    Args:
        when: A timezone-aware time.

    Returns:
        Such as ``2026-11-26T12:00:00-03:00`` (``+00:00`` on a host set to UTC).
    """
    return when.astimezone().isoformat(timespec="seconds")


def check_inbox(path: str | Path) -> None:
    """Check, read-only, that ``path`` is an existing SQLite inbox file.

    Opening a store on any other SQLite file would create the inbox table in it: commands
    that only read call this first, so that a wrong path never modifies a file.

    Args:
        path: The SQLite inbox file.

    Raises:
        CommandError: The file is missing or not an inbox.
    """
    import sqlite3

    file = Path(path)
    if not file.is_file():
        raise CommandError(
            message("cli.store_no_inbox", path=path),
            hint=message("cli.store_no_inbox_hint"),
        )
    try:
        conn = sqlite3.connect(f"{file.resolve().as_uri()}?mode=ro", uri=True, timeout=5.0)
    except sqlite3.Error as exc:
        raise CommandError(message("cli.store_cannot_open", path=path, error=exc)) from exc
    try:
        # The table named in docs/en/stores.md; SQLiteStore would create it in any other file.
        conn.execute("SELECT seq FROM smartpos_inbox LIMIT 0")
    except sqlite3.Error as exc:
        raise CommandError(
            message("cli.store_not_an_inbox", path=path, error=exc),
            hint=message("cli.store_not_an_inbox_hint"),
        ) from exc
    finally:
        conn.close()


def store_name(spec: str) -> str:
    """How messages and ``--json`` records name a store: an SQLite file's absolute path, or
    the URL without its password (the user stays: the record can name the store again).

    Args:
        spec: What ``--store`` said.

    Returns:
        The name.
    """
    from smartpos.webhooks._open import sqlite_path, store_scheme

    try:
        scheme = store_scheme(spec)
    except ValueError:
        return spec.split(":", 1)[0] + ":..."
    if scheme == "sqlite":
        with contextlib.suppress(ValueError):
            return str(sqlite_path(spec).resolve())
        return spec
    parts = urllib.parse.urlsplit(spec)
    if parts.password is None:
        return spec
    host = parts.netloc.rpartition("@")[2]
    user = urllib.parse.quote(parts.username or "", safe="")
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


@contextlib.contextmanager
def open_store(
    spec: str, *, namespace: str | None = None, create: bool = False
) -> Iterator[tuple[StoreBase, str]]:
    """Open the store ``--store`` names, and close it after.

    Args:
        spec: A file path, ``sqlite:///PATH``, ``redis://...`` or ``postgresql://...``.
        namespace: The RedisStore ``prefix`` or the PostgresStore ``table``.
        create: A missing SQLite file becomes a new inbox (``listen``); otherwise it must
            exist and be an inbox (checked read-only first).

    Yields:
        The store and its name for messages: an SQLite file as given, a URL without its
        password (`store_name`).

    Raises:
        CommandError: An unknown scheme or a ``memory:`` store (exit 2), a file that is not
            an inbox, a missing extra package, or a store that cannot be opened.
    """
    from smartpos._errors import ConfigurationError
    from smartpos.webhooks import StoreBase, StoreError
    from smartpos.webhooks._open import open_store as open_setting
    from smartpos.webhooks._open import sqlite_path, store_scheme

    name = store_name(spec)
    try:
        scheme = store_scheme(spec)
        if scheme == "memory":
            raise CommandError(
                message("cli.store_memory", store=spec),
                hint=message("cli.store_memory_hint"),
                code=EXIT_USAGE,
            )
        options: dict[str, str] = {}
        if scheme == "sqlite":
            if not create:
                # A wrong path must never become a new inbox: check it read-only first.
                check_inbox(sqlite_path(spec))
        elif namespace:
            options["table" if scheme.startswith("postgres") else "prefix"] = namespace
        store = open_setting(spec, options)
    except ConfigurationError as exc:
        raise CommandError(
            message("cli.store_setting", problem=exc),
            hint=message("cli.store_setting_hint"),
            code=EXIT_USAGE,
        ) from exc
    except StoreError as exc:
        hint = None
        if type(exc).__name__ == "MigrationRequiredError":
            hint = message("cli.store_migrate_hint")
        raise CommandError(message("cli.store_open", store=name, problem=exc), hint=hint) from exc
    assert isinstance(store, StoreBase)
    shown = spec if scheme == "sqlite" else name
    with store:
        yield store, shown
