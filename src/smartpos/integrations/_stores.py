"""One store setting for every integration: a URL or a path becomes a webhook inbox."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from smartpos._errors import ConfigurationError
from smartpos.webhooks import MemoryStore, SQLiteStore, Store

__all__ = ["STORE_SCHEMES", "StoreSetting", "open_store", "sqlite_path", "store_scheme"]

#: The URL schemes :func:`open_store` understands (a value without a scheme is a file path).
STORE_SCHEMES: Final = (
    "sqlite",
    "redis",
    "rediss",
    "unix",
    "postgres",
    "postgresql",
    "memory",
)

StoreSetting = str | os.PathLike[str] | Store
"""What a store setting may hold: a URL, a file path, or a store already built."""


def _is_store(value: object) -> bool:
    return all(callable(getattr(value, name, None)) for name in ("put", "claim", "ack", "nack"))


def store_scheme(setting: str | os.PathLike[str]) -> str:
    """The scheme of a store setting: ``"sqlite"`` for a plain path.

    Raises:
        ConfigurationError: An empty setting or a scheme :func:`open_store` does not know.
    """
    if isinstance(setting, os.PathLike):
        return "sqlite"
    if not isinstance(setting, str) or not setting.strip():
        raise ConfigurationError(
            "the store setting is empty: give a path such as 'smartpos-inbox.sqlite3' or a "
            "URL such as 'sqlite:////var/lib/shop/inbox.sqlite3', 'redis://127.0.0.1:6379/0' "
            "or 'postgresql://user@host/db'"
        )
    if "://" not in setting:
        return "sqlite"
    scheme = setting.split("://", 1)[0].lower()
    if scheme not in STORE_SCHEMES:
        raise ConfigurationError(
            f"the store URL scheme {scheme!r} is not supported: use one of "
            f"{', '.join(s + '://' for s in STORE_SCHEMES)} or a file path"
        )
    return scheme


def sqlite_path(setting: str | os.PathLike[str]) -> Path:
    """The file of an SQLite store setting (``sqlite:///relative``, ``sqlite:////absolute``).

    Raises:
        ConfigurationError: The setting is not an SQLite one, or names no file.
    """
    if isinstance(setting, os.PathLike) or "://" not in setting:
        return Path(setting)
    if store_scheme(setting) != "sqlite":
        raise ConfigurationError("not an SQLite store setting")
    # SQLAlchemy's and dj-database-url's convention: three slashes, then the path, so an
    # absolute path has four.
    parts = urlsplit(setting)
    path = parts.path[1:] if parts.path.startswith("/") else parts.path
    if parts.netloc or not path or parts.query or parts.fragment:
        raise ConfigurationError(
            "an SQLite store URL is 'sqlite:///relative/inbox.sqlite3' or "
            "'sqlite:////absolute/inbox.sqlite3' (no host, query or fragment)"
        )
    return Path(path)


def open_store(setting: StoreSetting, options: Mapping[str, Any] | None = None) -> Store:
    """Build the webhook inbox a setting names.

    =====================================  ======================================
    Setting                                Store
    =====================================  ======================================
    ``"inbox.sqlite3"``, a ``Path``        ``SQLiteStore`` of that file
    ``"sqlite:///inbox.sqlite3"``          ``SQLiteStore``, relative path
    ``"sqlite:////var/lib/inbox.sqlite3"`` ``SQLiteStore``, absolute path
    ``"redis://..."``, ``"rediss://..."``  ``RedisStore`` (extra ``smartpos[redis]``)
    ``"postgresql://..."``                 ``PostgresStore`` (``smartpos[postgres]``);
                                           run ``store.migrate()`` once first
    ``"memory://"``                        ``MemoryStore``: tests only, nothing
                                           survives the process
    a store object                         itself
    =====================================  ======================================

    Args:
        setting: The URL, path or store.
        options: Keyword arguments for the store's constructor (``max_attempts``,
            ``retention``, ``busy_timeout``, ``prefix``, ``table``...).

    Returns:
        The store; the caller closes it.

    Raises:
        ConfigurationError: An unknown scheme, an empty setting, a malformed SQLite URL, or
            options the store does not take. The message never holds the URL, which may
            carry a password.
    """
    if _is_store(setting):
        if options:
            raise ConfigurationError("store options apply to a URL or a path, not to a store")
        return setting  # type: ignore[return-value]
    if not isinstance(setting, (str, os.PathLike)):
        raise ConfigurationError(
            f"the store setting must be a URL, a path or a store, not {type(setting).__name__}"
        )
    kwargs = dict(options or {})
    scheme = store_scheme(setting)
    try:
        if scheme == "sqlite":
            return SQLiteStore(sqlite_path(setting), **kwargs)
        if scheme == "memory":
            return MemoryStore(**kwargs)
        url = os.fspath(setting)
        if scheme in ("redis", "rediss", "unix"):
            try:
                from smartpos.webhooks import RedisStore
            except ImportError:
                raise ConfigurationError(
                    "a redis:// store needs the redis package: pip install 'smartpos[redis]'"
                ) from None
            return RedisStore(url, **kwargs)
        try:
            from smartpos.webhooks import PostgresStore
        except ImportError:
            raise ConfigurationError(
                "a postgresql:// store needs psycopg: pip install 'smartpos[postgres]'"
            ) from None
        return PostgresStore(url, **kwargs)
    except TypeError as exc:
        raise ConfigurationError(f"bad store options for a {scheme} store: {exc}") from None
