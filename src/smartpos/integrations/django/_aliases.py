"""A warning when a handler writes through another database alias inside the store's transaction.

``DjangoStore`` runs a ``Worker``'s handler and the ack of its event in one transaction on
the store's alias: the handler's writes *through that alias* commit with the ack or not at
all. A write through another alias (``Order.objects.using("orders")``, a router sending a
model elsewhere, a ``transaction.atomic(using="other")`` of the handler's own) is a separate
transaction on a separate connection: it commits on its own, so a crash before the ack runs
the handler again and that write happens twice. Nothing can make it atomic with the ack;
the worker says so, once per alias, in a ``logging`` warning of ``smartpos.django``.

How: for the length of each handler, an ``execute_wrapper`` on the thread's connections of
the other aliases looks at each statement; the first write (``INSERT``, ``UPDATE``,
``DELETE``...) through an alias logs the warning, and that alias is watched no more (by this
store: a worker process has one). Reads are never reported. A handler's own threads are not
watched.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

__all__ = ["OtherAliases"]

_logger = logging.getLogger("smartpos.django")

#: The statements that write: their first keyword.
_WRITE: Final = re.compile(
    r"\s*(?:INSERT|UPDATE|DELETE|REPLACE|MERGE|UPSERT|TRUNCATE|CREATE|ALTER|DROP|COPY)\b",
    re.IGNORECASE,
)


def is_write(sql: object) -> bool:
    """Whether a statement writes (by its first keyword; a ``WITH ...`` is taken as a read)."""
    return isinstance(sql, str) and _WRITE.match(sql) is not None


class OtherAliases:
    """Watches the aliases other than ``using`` while a handler runs; warns once per alias."""

    def __init__(self, using: str) -> None:
        self._using = using
        self._warned: set[str] = set()
        self._lock = threading.Lock()

    @property
    def warned(self) -> frozenset[str]:
        """The aliases reported so far."""
        with self._lock:
            return frozenset(self._warned)

    @contextlib.contextmanager
    def watching(self) -> Iterator[None]:
        """Install the watch on this thread's other connections for the block."""
        from django.db import connections

        installed: list[tuple[Any, Callable[..., Any]]] = []
        with self._lock:
            aliases = [a for a in connections if a != self._using and a not in self._warned]
        for alias in aliases:
            connection = connections[alias]
            wrapper = functools.partial(self._execute, alias)
            connection.execute_wrappers.append(wrapper)
            installed.append((connection, wrapper))
        try:
            yield
        finally:
            for connection, installed_wrapper in installed:
                with contextlib.suppress(ValueError):
                    connection.execute_wrappers.remove(installed_wrapper)

    def _execute(
        self,
        alias: str,
        execute: Callable[..., Any],
        sql: str,
        params: Any,
        many: bool,
        context: Mapping[str, Any],
    ) -> Any:
        if is_write(sql):
            with self._lock:
                first = alias not in self._warned
                self._warned.add(alias)
            if first:
                connection = context.get("connection")
                own = bool(getattr(connection, "in_atomic_block", False))
                _logger.warning(
                    "smartpos: a handler wrote through database alias %r while the worker ran "
                    "it in DjangoStore's transaction on %r%s: that write commits on its own, "
                    "not with the event's ack, so a crash before the ack runs the handler "
                    "again and repeats it. Write through %r (the default when it is "
                    "'default'), or make that write idempotent with the event id "
                    "(said once per alias)",
                    alias,
                    self._using,
                    " (in the handler's own transaction.atomic)" if own else "",
                    self._using,
                )
        return execute(sql, params, many, context)
