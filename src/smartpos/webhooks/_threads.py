"""Worker threads for a store's blocking calls from a coroutine (``AsyncClient``, waiters).

A store call blocks (a file, a socket), so a coroutine runs it in a worker thread. anyio's
default pool lends up to 40 threads per event loop; for an embedded database whose writes take
turns anyway that many threads only fight the event loop for the GIL: 200 concurrent journaled
payments ran at 0.53x the throughput of a client without a store through 40 threads, at
0.71-0.76x through one or two (``benchmarks/bench_journal.py``). So a store may name how many
threads of each event loop its calls use (``_worker_threads``); ``None`` keeps anyio's pool,
which suits network backends whose calls mostly wait for a round trip.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from anyio import CapacityLimiter

__all__ = ["run_store_call"]

_T = TypeVar("_T")

# One limiter per (event loop, store): anyio's RunVar is per event loop, created on first use.
_limiters: Any = None


def _limiter(store: object, threads: int) -> CapacityLimiter:
    global _limiters  # created on first use: `import smartpos` stays cheap
    import anyio
    from anyio.lowlevel import RunVar

    if _limiters is None:
        _limiters = RunVar("smartpos_store_threads")
    per_store: weakref.WeakKeyDictionary[object, CapacityLimiter]
    try:
        per_store = _limiters.get()
    except LookupError:
        per_store = weakref.WeakKeyDictionary()
        _limiters.set(per_store)
    limiter = per_store.get(store)
    if limiter is None:
        limiter = per_store[store] = anyio.CapacityLimiter(threads)
    return limiter


async def run_store_call(store: object, function: Callable[..., _T], *args: Any) -> _T:
    """Run ``function(*args)`` (a blocking call of ``store``) in a worker thread.

    Args:
        store: The store the call belongs to; its ``_worker_threads`` (``None``: anyio's
            default pool) bounds the threads its calls use in this event loop.
        function: The blocking call.
        args: Its positional arguments.
    """
    import anyio.to_thread

    threads = getattr(store, "_worker_threads", None)
    if threads is None:
        return await anyio.to_thread.run_sync(function, *args)
    return await anyio.to_thread.run_sync(function, *args, limiter=_limiter(store, threads))
