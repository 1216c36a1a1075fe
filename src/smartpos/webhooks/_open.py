"""One store setting everywhere: a URL or a path becomes a webhook inbox.

`open_store` is the one opener behind ``Client(store="redis://...")``, the ``smartpos``
command's ``--store`` and every integration's store setting (Django's ``STORE``, Flask's
``SMARTPOS_STORE``, Celery's ``store=``), so that a URL means the same store everywhere.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from smartpos._errors import ConfigurationError
from smartpos._messages import message

from ._memory import MemoryStore
from ._sqlite import SQLiteStore
from ._store_interface import Store

__all__ = [
    "STORE_SCHEMES",
    "StoreSetting",
    "django_alias",
    "open_store",
    "option_problem",
    "sqlite_path",
    "store_scheme",
]

#: The URL schemes ``open_store`` understands (a value without a scheme is a file path).
STORE_SCHEMES: Final = (
    "sqlite",
    "redis",
    "rediss",
    "unix",
    "postgres",
    "postgresql",
    "memory",
    "django",
)

#: The forms of the in-memory store's setting (``memory:`` and ``memory://`` alike).
_MEMORY: Final = ("memory:", "memory://")

StoreSetting = str | os.PathLike[str] | Store
"""What a store setting may hold: a URL, a file path, or a store already built."""


def _is_store(value: object) -> bool:
    return all(callable(getattr(value, name, None)) for name in ("put", "claim", "ack", "nack"))


def store_scheme(setting: str | os.PathLike[str]) -> str:
    """The scheme of a store setting: ``"sqlite"`` for a plain path.

    Raises:
        ConfigurationError: An empty setting or a scheme `open_store` does not know.
    """
    if isinstance(setting, os.PathLike):
        return "sqlite"
    if not isinstance(setting, str) or not setting.strip():
        raise ConfigurationError(message("integrations.store_empty"))
    if setting.strip().lower() in _MEMORY:
        return "memory"
    if "://" not in setting:
        return "sqlite"
    scheme = setting.split("://", 1)[0].lower()
    if scheme not in STORE_SCHEMES:
        raise ConfigurationError(
            message(
                "integrations.store_scheme",
                scheme=scheme,
                schemes=", ".join(s + "://" for s in STORE_SCHEMES),
            )
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
        raise ConfigurationError(message("integrations.not_sqlite"))
    # SQLAlchemy's and dj-database-url's convention: three slashes, then the path, so an
    # absolute path has four.
    parts = urlsplit(setting)
    path = parts.path[1:] if parts.path.startswith("/") else parts.path
    if parts.netloc or not path or parts.query or parts.fragment:
        raise ConfigurationError(message("integrations.sqlite_url"))
    return Path(path)


def django_alias(setting: str | os.PathLike[str]) -> str:
    """The database alias of a ``"django://ALIAS"`` setting (``"django://"``: ``default``).

    Raises:
        ConfigurationError: The setting is not a Django one.
    """
    if store_scheme(setting) != "django":
        raise ConfigurationError(message("integrations.store_empty"))
    return os.fspath(setting).split("://", 1)[1].strip("/") or "default"


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
    ``"memory:"``, ``"memory://"``         ``MemoryStore``: tests only, nothing
                                           survives the process
    ``"django://default"``                 ``DjangoStore`` on that alias of
                                           ``DATABASES``; ``manage.py migrate`` first
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
            raise ConfigurationError(message("integrations.options_for_a_store"))
        return setting  # type: ignore[return-value]
    if not isinstance(setting, (str, os.PathLike)):
        raise ConfigurationError(
            message("integrations.store_setting_type", type=type(setting).__name__)
        )
    kwargs = dict(options or {})
    scheme = store_scheme(setting)
    target: Callable[..., Any] = SQLiteStore
    try:
        if scheme == "sqlite":
            return SQLiteStore(sqlite_path(setting), **kwargs)
        if scheme == "memory":
            target = MemoryStore
            return MemoryStore(**kwargs)
        if scheme == "django":
            from smartpos.integrations.django._store import DjangoStore

            target = DjangoStore
            return DjangoStore(django_alias(setting), **kwargs)
        url = os.fspath(setting)
        if scheme in ("redis", "rediss", "unix"):
            try:
                from ._redis import RedisStore
            except ImportError:
                raise ConfigurationError(message("integrations.needs_redis")) from None
            target = RedisStore
            return RedisStore(url, **kwargs)
        try:
            from ._postgres import PostgresStore
        except ImportError:
            raise ConfigurationError(message("integrations.needs_psycopg")) from None
        target = PostgresStore
        return PostgresStore(url, **kwargs)
    except TypeError as exc:
        problem = option_problem(exc, target, kwargs)
        raise ConfigurationError(
            message("integrations.bad_store_options", scheme=scheme, problem=problem)
        ) from None


def option_problem(exc: Exception, target: Callable[..., Any], options: Mapping[str, Any]) -> str:
    """What is wrong with ``options`` passed on to ``target``, in the SDK's language.

    Python's own ``TypeError`` for an unknown keyword is English whatever ``SMARTPOS_LANG``
    says: the options ``target`` does not take are named in a message of the catalog instead.
    The SDK's own errors (from ``message``) are already in the right language.
    """
    try:
        parameters = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):  # pragma: no cover - every target is a Python class
        return str(exc)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return str(exc)
    # The required parameters (a path, a URL, the store) are the integration's, not options.
    known = {
        p.name
        for p in parameters
        if p.kind is not inspect.Parameter.POSITIONAL_ONLY and p.default is not p.empty
    }
    unknown = sorted(name for name in options if name not in known)
    if not unknown:
        return str(exc)
    return message(
        "integrations.unknown_options", unknown=", ".join(unknown), known=", ".join(sorted(known))
    )
