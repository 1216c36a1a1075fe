"""httpx and httpx2 side by side: which library an object comes from, and the classes of both.

httpx2 (pydantic's maintained fork of httpx) has the same API under another import name, and
its classes are not httpx's: an ``httpx2.ReadTimeout`` is no ``httpx.TimeoutException``, and a
request built by httpx cannot be sent by an httpx2 client. smartpos depends on httpx and
accepts httpx2's clients and transports too, so every ``isinstance`` or ``except`` on an httpx
class goes through here and matches the class of that name in every library loaded.

httpx2 is never imported here: it is in ``sys.modules`` exactly when the user made one of its
objects, which is the only case where its classes can show up. Under ``httpx2.alias_httpx()``
the name ``httpx`` *is* httpx2, and everything below still holds.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

import httpx

if TYPE_CHECKING:
    import httpx2

    AnyTimeout = httpx.Timeout | httpx2.Timeout

__all__ = ["classes", "is_client", "library_of", "timeout_for", "to_httpx_timeout"]

_FORK = "httpx2"


def _libraries() -> tuple[ModuleType, ...]:
    fork = sys.modules.get(_FORK)
    if fork is None or fork is httpx:
        return (httpx,)
    return (httpx, fork)


def classes(*names: str) -> tuple[type[Any], ...]:
    """The classes of these names in httpx and, when it is loaded, in httpx2.

    For ``isinstance`` and ``except``: ``except classes("ResponseNotRead"):``.
    """
    return tuple(getattr(library, name) for library in _libraries() for name in names)


def library_of(obj: object) -> ModuleType:
    """The library (the ``httpx`` or ``httpx2`` module) an object's class comes from.

    Anything else (``None``, a duck-typed transport of the user's) is httpx's: the library
    smartpos builds its own clients with.
    """
    for cls in type(obj).__mro__:
        if cls.__module__.partition(".")[0] == _FORK:
            fork = sys.modules.get(_FORK)
            if fork is not None:
                return fork
    return httpx


def is_client(obj: object, *, asynchronous: bool) -> bool:
    """``obj`` is an ``httpx.AsyncClient`` or ``httpx2.AsyncClient`` (or the sync ones)."""
    return isinstance(obj, classes("AsyncClient" if asynchronous else "Client"))


def to_httpx_timeout(timeout: AnyTimeout) -> httpx.Timeout:
    """An ``httpx.Timeout`` with the same four limits (the one a ``Config`` holds)."""
    if isinstance(timeout, httpx.Timeout):
        return timeout
    return httpx.Timeout(**timeout.as_dict())


def timeout_for(library: ModuleType, timeout: httpx.Timeout) -> Any:
    """``timeout`` as the ``Timeout`` class of ``library``, to build one of its clients."""
    if library is httpx:
        return timeout
    return library.Timeout(**timeout.as_dict())
