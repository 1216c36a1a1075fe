"""Default transports that build their connection pool and SSL context on first use.

Building an ``httpx.Client`` normally loads the CA bundle into a new SSL context (about 30 ms).
These transports share one SSL context between every client of the process and only create it
when the first request is sent, so ``Client()`` itself is cheap (CLIs, serverless cold starts).

Also here: the checks of a transport's flavour, and the body reader put in front of the
response hooks of a user's ``http_client``. A user's transport or client may be httpx2's
(``_httpcompat``): the wrappers below only forward calls, so they serve either library.
"""

from __future__ import annotations

import os
import ssl
import sys
import threading
import warnings
from collections.abc import AsyncGenerator
from types import TracebackType
from typing import TYPE_CHECKING

import httpx

from . import _httpcompat
from ._calls import OWN_REQUEST
from ._errors import ConfigurationError, SyncClientInEventLoopWarning
from ._messages import message

if TYPE_CHECKING:
    import asyncio

__all__ = [
    "AsyncLazyTransport",
    "AsyncUnownedTransport",
    "LazyTransport",
    "UnownedTransport",
    "client_options",
    "read_before_hooks",
    "shared_ssl_context",
    "warn_if_in_event_loop",
]

_ssl_lock = threading.Lock()
_ssl_context: ssl.SSLContext | None = None


def shared_ssl_context() -> ssl.SSLContext:
    """Return one SSL context for every client (building one costs about 30 ms)."""
    global _ssl_context
    if _ssl_context is None:
        with _ssl_lock:
            if _ssl_context is None:
                _ssl_context = httpx.create_ssl_context()
    return _ssl_context


class LazyTransport(httpx.BaseTransport):
    """An ``httpx.HTTPTransport`` created on the first request, with the shared SSL context."""

    def __init__(self) -> None:
        self._inner: httpx.HTTPTransport | None = None
        self._lock = threading.Lock()

    def _get(self) -> httpx.HTTPTransport:
        inner = self._inner
        if inner is None:
            with self._lock:
                if self._inner is None:
                    self._inner = httpx.HTTPTransport(verify=shared_ssl_context())
                inner = self._inner
        return inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self._get().handle_request(request)

    def close(self) -> None:
        if self._inner is not None:
            self._inner.close()

    def __exit__(
        self,
        exc_type: type[BaseException] | None = None,
        exc_value: BaseException | None = None,
        traceback: TracebackType | None = None,
    ) -> None:
        self.close()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    # No asyncio module loaded means no asyncio loop (trio): one pool then.
    module = sys.modules.get("asyncio")
    if module is None:
        return None
    try:
        return module.get_running_loop()  # type: ignore[no-any-return]
    except RuntimeError:
        return None


async def _closing(pool: httpx.AsyncHTTPTransport) -> AsyncGenerator[None, None]:
    """Close ``pool`` on its own event loop when that loop shuts down.

    An asyncio loop closes the async generators that started on it before it closes itself
    (``asyncio.run`` calls ``loop.shutdown_asyncgens()``): parked at its ``yield``, this one
    then closes the pool's connections while their loop still runs, instead of leaving sockets
    of a dead loop to the garbage collector. Under trio no closer is made: its one pool is
    keyed ``None`` and closed with the client.
    """
    try:
        yield
    finally:
        await pool.aclose()


class AsyncLazyTransport(httpx.AsyncBaseTransport):
    """One ``httpx.AsyncHTTPTransport`` per event loop, each made on that loop's first request.

    A connection pool belongs to the event loop that opened its connections. A client reused
    on a later loop (``asyncio.run`` twice: CLIs, Celery tasks, ``async_to_sync``) would write
    the request on a socket of a dead loop and fail *after* sending; here each loop gets its
    own pool. A pool is closed on its loop when the loop shuts down (``_closing``), and the
    pools of loops that were closed are dropped when a new one is made.
    """

    def __init__(self) -> None:
        self._pools: dict[asyncio.AbstractEventLoop | None, httpx.AsyncHTTPTransport] = {}
        self._closers: dict[asyncio.AbstractEventLoop, AsyncGenerator[None, None]] = {}
        self._lock = threading.Lock()

    def _get(self) -> httpx.AsyncHTTPTransport:
        loop = _running_loop()
        pool = self._pools.get(loop)
        if pool is None:
            # A lock, not for the loop (this code does not await) but for loops of other
            # threads sharing the client.
            with self._lock:
                for old in [k for k in self._pools if k is not None and k.is_closed()]:
                    # Closed by its loop's shutdown, or its connections cannot be closed
                    # without their loop (closed without shutting down): drop them.
                    del self._pools[old]
                    self._closers.pop(old, None)
                pool = self._pools.get(loop)
                if pool is None:
                    pool = httpx.AsyncHTTPTransport(verify=shared_ssl_context())
                    self._pools[loop] = pool
                    if loop is not None:
                        self._closers[loop] = _start(_closing(pool))
        return pool

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self._get().handle_async_request(request)

    async def aclose(self) -> None:
        loop = _running_loop()
        with self._lock:
            pools, self._pools = self._pools, {}
            closers, self._closers = self._closers, {}
        for owner, pool in pools.items():
            # Only the pool of the running loop can be closed from here; the others belong
            # to loops that are gone (closed at their shutdown) or run elsewhere (their
            # closer, dropped here, is closed by that loop: asyncio's finalizer hook).
            if owner is loop:
                closer = closers.get(owner) if owner is not None else None
                if closer is not None and not getattr(closer, "ag_running", False):
                    await closer.aclose()  # closes the pool
                else:  # trio, or the loop's shutdown is closing it right now
                    await pool.aclose()


def _start(closer: AsyncGenerator[None, None]) -> AsyncGenerator[None, None]:
    """Run ``closer`` to its ``yield`` now, on the running loop (which then owns it)."""
    step = closer.asend(None)
    try:
        step.send(None)
    except StopIteration:
        return closer
    raise RuntimeError("_closing must park at its yield")  # pragma: no cover


class UnownedTransport(httpx.BaseTransport):
    """Wraps a transport the user passed: requests go through, ``close()`` does not.

    The client closes its own ``httpx.Client``, which would close the transport in turn; a
    transport the user owns (a sandbox's, a shared pool) must outlive the client.
    """

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner = inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self.inner.handle_request(request)

    def close(self) -> None:
        """Leave the user's transport open."""


class AsyncUnownedTransport(httpx.AsyncBaseTransport):
    """Async twin of `UnownedTransport`."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        """Leave the user's transport open."""


def client_options(
    transport: object, *, asynchronous: bool, lang: str | None = None
) -> dict[str, object]:
    """The ``transport``/``verify`` arguments of the client's own ``httpx`` client.

    ``transport`` is ``None``, or an httpx or httpx2 transport (whose library builds the
    client: ``_httpcompat.library_of``).

    - a transport the user passed: used as given, never closed by the client;
    - proxies in the environment (``HTTPS_PROXY``...): httpx's default transport, which honours
      them (and ``NO_PROXY``), with the shared SSL context;
    - otherwise: a lazy transport, so that building a client costs nothing.

    A transport of the wrong flavour is refused in ``lang`` (the client's ``Config.lang``).
    """
    if transport is not None:
        _check_flavour(transport, asynchronous=asynchronous, lang=lang)
        if asynchronous:
            return {"transport": AsyncUnownedTransport(transport)}  # type: ignore[arg-type]
        return {"transport": UnownedTransport(transport)}  # type: ignore[arg-type]
    import urllib.request

    if urllib.request.getproxies():
        # httpx reads proxy variables only when it builds its own transport.
        return {"transport": None, "verify": shared_ssl_context()}
    return {"transport": AsyncLazyTransport() if asynchronous else LazyTransport()}


def _serves(transport: object, *, asynchronous: bool) -> bool:
    name = "handle_async_request" if asynchronous else "handle_request"
    library = _httpcompat.library_of(transport)
    base = library.AsyncBaseTransport if asynchronous else library.BaseTransport
    method = getattr(type(transport), name, None)
    # The base classes (httpx's, httpx2's) define their name as a stub that raises
    # NotImplementedError.
    return callable(method) and method is not getattr(base, name)


def _check_flavour(transport: object, *, asynchronous: bool, lang: str | None = None) -> None:
    if _serves(transport, asynchronous=asynchronous):
        return
    client, wanted = (
        ("AsyncClient", "httpx.AsyncBaseTransport (handle_async_request)")
        if asynchronous
        else ("Client", "httpx.BaseTransport (handle_request)")
    )
    if _serves(transport, asynchronous=not asynchronous):
        key = "client.transport_sync" if asynchronous else "client.transport_async"
    else:
        key = "client.not_a_transport"
    raise ConfigurationError(
        message(key, lang=lang, client=client, wanted=wanted, type=type(transport).__name__)
    )


def _read_own(response: httpx.Response) -> None:
    if response.request.extensions.get(OWN_REQUEST):
        response.read()


async def _aread_own(response: httpx.Response) -> None:
    if response.request.extensions.get(OWN_REQUEST):
        await response.aread()


def read_before_hooks(http_client: httpx.Client | httpx.AsyncClient) -> None:
    """Put a reader of the SDK's own responses in front of a user's response hooks.

    httpx runs response hooks before reading the body, and closes the response unread when
    a hook raises (``raise_for_status``): the SDK's error classification needs that body
    (``erro.codigo``). The reader reads only requests the SDK marked (``OWN_REQUEST``); every
    other request of the user's client is left alone. Idempotent.
    """
    hooks = http_client.event_hooks["response"]
    reader = _aread_own if _httpcompat.is_client(http_client, asynchronous=True) else _read_own
    if reader not in hooks:
        hooks.insert(0, reader)


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_if_in_event_loop() -> None:
    """Warn (`SyncClientInEventLoopWarning`) when a sync call blocks a running event loop.

    Called by ``Client`` before each send and each wait (``_sync_client.py`` gets the calls
    from ``scripts/unasync.py``; ``AsyncClient`` never makes them). The warning points at
    the first frame outside the SDK: the user's call.
    """
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:  # never imported: no loop can be running
        return
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return
    frame = sys._getframe(1)
    stacklevel = 2
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        stacklevel += 1
    warnings.warn(
        message("client.sync_in_event_loop"), SyncClientInEventLoopWarning, stacklevel=stacklevel
    )
