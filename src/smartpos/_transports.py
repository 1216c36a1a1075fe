"""Default transports that build their connection pool and SSL context on first use.

Building an ``httpx.Client`` normally loads the CA bundle into a new SSL context (about 30 ms).
These transports share one SSL context between every client of the process and only create it
when the first request is sent, so ``Client()`` itself is cheap (CLIs, serverless cold starts).
"""

from __future__ import annotations

import threading
from types import TracebackType

import httpx

from ._core import shared_ssl_context

__all__ = [
    "AsyncLazyTransport",
    "AsyncUnownedTransport",
    "LazyTransport",
    "UnownedTransport",
    "client_options",
]


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


class AsyncLazyTransport(httpx.AsyncBaseTransport):
    """An ``httpx.AsyncHTTPTransport`` created on the first request (shared SSL context)."""

    def __init__(self) -> None:
        self._inner: httpx.AsyncHTTPTransport | None = None

    def _get(self) -> httpx.AsyncHTTPTransport:
        # No lock: an event loop runs one coroutine at a time, and this code does not await.
        if self._inner is None:
            self._inner = httpx.AsyncHTTPTransport(verify=shared_ssl_context())
        return self._inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self._get().handle_async_request(request)

    async def aclose(self) -> None:
        if self._inner is not None:
            await self._inner.aclose()


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
    """Async twin of :class:`UnownedTransport`."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        """Leave the user's transport open."""


def client_options(
    transport: httpx.BaseTransport | httpx.AsyncBaseTransport | None, *, asynchronous: bool
) -> dict[str, object]:
    """The ``transport``/``verify`` arguments of the client's own ``httpx`` client.

    - a transport the user passed: used as given, never closed by the client;
    - proxies in the environment (``HTTPS_PROXY``...): httpx's default transport, which honours
      them (and ``NO_PROXY``), with the shared SSL context;
    - otherwise: a lazy transport, so that building a client costs nothing.
    """
    if transport is not None:
        if asynchronous:
            return {"transport": AsyncUnownedTransport(transport)}  # type: ignore[arg-type]
        return {"transport": UnownedTransport(transport)}  # type: ignore[arg-type]
    import urllib.request

    if urllib.request.getproxies():
        # httpx reads proxy variables only when it builds its own transport.
        return {"transport": None, "verify": shared_ssl_context()}
    return {"transport": AsyncLazyTransport() if asynchronous else LazyTransport()}
