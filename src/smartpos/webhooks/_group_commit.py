"""Group commit: concurrent writes of one process share one transaction and one commit.

A durable SQLite commit costs one fsync of the log (0.3-1.4 ms on the disks measured in
``benchmarks/``), whatever it writes. When several threads of a process write at once (an
``AsyncClient`` journaling 200 concurrent payments from its worker threads, 1,000 waiters
recording the outcomes they found), committing each write on its own makes them queue for
SQLite's single write lock and pay one fsync each. Here the first writer to arrive becomes the
*leader*: it takes every write queued so far, runs them in one transaction and commits once;
writes arriving meanwhile queue for the next leader. A lone writer pays one uncontended lock
more than a plain transaction, nothing else.

Each write in a batch runs inside its own ``SAVEPOINT``: one that fails is rolled back alone and
raises in its own caller, while the others commit. A failure of the batch itself (the write lock
not taken in time, the commit failing) raises in every caller whose write it carried: none of
them was written. A writer whose wait is cut short (an exception raised by a signal handler,
such as a task's time limit) leaves the queue, passing on the lead if it had been handed it.

The module knows nothing of SQL beyond the savepoint: the store gives ``GroupCommit`` a way to
run a batch in a write transaction (``transaction``), and each write is a function of the open
connection.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any, Generic, TypeVar, cast

from ._store_errors import StoreError

__all__ = ["GroupCommit"]

_T = TypeVar("_T")

_Work = Callable[[sqlite3.Connection], _T]
"""One write: runs on the open connection inside the batch's transaction; returns its result."""


class _Job(Generic[_T]):
    """One caller's write and, once the batch ran, its result or its error."""

    __slots__ = ("durable", "error", "lead", "settled", "value", "wake", "work")

    def __init__(self, work: _Work[_T], durable: bool) -> None:
        self.work = work
        self.durable = durable
        self.settled = False
        self.lead = False
        self.value: Any = None
        self.error: BaseException | None = None
        # Held while its caller sleeps; released to wake it (settled, or to lead the next
        # batch). Only a caller that queues behind a leader sleeps, so only it has one.
        self.wake: threading.Lock | None = None

    def result(self) -> _T:
        if self.error is not None:
            raise self.error
        return cast("_T", self.value)


class GroupCommit:
    """Run writes of several threads in shared transactions (see the module doc).

    Args:
        transaction: Opens a write transaction on a connection for a batch and commits it
            when the block ends (rolls it back on an error); ``durable`` says whether the
            commit must survive a power cut (an fsync) or only a crash of the process.
        describe: Turns an ``sqlite3.Error`` raised by one write into the error its caller
            gets.
    """

    def __init__(
        self,
        transaction: Callable[[bool], AbstractContextManager[sqlite3.Connection]],
        describe: Callable[[sqlite3.Error], Exception],
    ) -> None:
        self._transaction = transaction
        self._describe = describe
        self._reset()
        _GROUPS.add(self)

    def _reset(self) -> None:
        # Also a forked child's first step (_after_fork_in_child): the parent's lock may have
        # been held by one of its threads at the fork, and its queued writes are the parent's.
        self._lock = threading.Lock()
        self._queue: list[_Job[Any]] = []
        self._leading = False

    def run(self, work: _Work[_T], *, durable: bool = True) -> _T:
        """Run ``work`` in the next batch's transaction and return its result once committed.

        Args:
            work: The write, a function of the open connection.
            durable: The commit must survive a power cut (``False``: a crash of the process
                only); a batch is durable when any of its writes asks it.

        Raises:
            StoreError: The batch could not be committed, or ``work`` failed on the database
                (nothing of it was written).
            Exception: What ``work`` raised otherwise (nothing of it was written).
        """
        job: _Job[_T] = _Job(work, durable)
        with self._lock:
            self._queue.append(job)
            if self._leading:
                job.wake = threading.Lock()
                job.wake.acquire()
            else:
                self._leading = job.lead = True
        if job.wake is not None:
            try:
                job.wake.acquire()  # until the leader settles it or hands it the lead
            except BaseException:
                # Interrupted (a signal handler's exception, a timeout of Celery's): leave
                # the queue as if this write never came, or the lead would be lost.
                self._withdraw(job)
                raise
            if not job.lead:
                return job.result()
        batch: list[_Job[Any]] = []
        try:
            with self._lock:
                batch, self._queue = self._queue, []
            self._commit(batch)
        except BaseException as exc:
            self._fail(batch, job, exc)
            raise
        finally:
            self._hand_over(batch, job)
        return job.result()

    def _withdraw(self, job: _Job[Any]) -> None:
        """Take an interrupted follower out of the queue, passing on a lead it was handed."""
        with self._lock:
            if job not in self._queue:
                return  # taken into a batch in flight: it may still be committed
            self._queue.remove(job)
            if not job.lead:
                return
            following = self._queue[0] if self._queue else None
            if following is None:
                self._leading = False
            else:
                following.lead = True
        if following is not None:
            assert following.wake is not None, "a queued writer behind a leader sleeps"
            following.wake.release()

    def _hand_over(self, batch: list[_Job[Any]], leader: _Job[Any]) -> None:
        """Settle a batch: wake its writers, and the first queued since as the next leader."""
        with self._lock:
            for queued in batch:
                queued.settled = True
            if not batch and leader in self._queue:
                self._queue.remove(leader)  # interrupted before it took its batch
            if self._queue:
                following = self._queue[0]
                following.lead = True
            else:
                following = None
                self._leading = False
        if following is not None:
            assert following.wake is not None, "a queued writer behind a leader sleeps"
            following.wake.release()
        for queued in batch:
            if queued.wake is not None and not queued.lead:
                queued.wake.release()

    def _commit(self, batch: list[_Job[Any]]) -> None:
        durable = any(job.durable for job in batch)
        with self._transaction(durable) as conn:
            if len(batch) == 1:
                # Alone: no savepoint needed, its failure rolls the transaction back.
                batch[0].value = batch[0].work(conn)
                return
            for job in batch:
                with self._savepoint(conn, job):
                    job.value = job.work(conn)

    @contextlib.contextmanager
    def _savepoint(self, conn: sqlite3.Connection, job: _Job[Any]) -> Iterator[None]:
        conn.execute("SAVEPOINT smartpos_write")
        try:
            yield
        except Exception as exc:  # noqa: BLE001 - this write alone fails; the batch goes on
            conn.execute("ROLLBACK TO smartpos_write")
            conn.execute("RELEASE smartpos_write")
            job.value = None
            job.error = self._describe(exc) if isinstance(exc, sqlite3.Error) else exc
            return
        conn.execute("RELEASE smartpos_write")

    @staticmethod
    def _fail(batch: list[_Job[Any]], leader: _Job[Any], exc: BaseException) -> None:
        """The batch was not committed: every write it carried fails (the leader's raises)."""
        for job in batch:
            job.value = None
            if job is leader:
                job.error = None  # the leader raises ``exc`` itself
                continue
            error = StoreError(
                f"{exc} (this write was committed together with another thread's, "
                "and that commit failed: nothing of it was written)"
                if isinstance(exc, StoreError)
                else f"a shared commit failed in another thread ({type(exc).__name__}: "
                f"{exc}): nothing of this write was written"
            )
            error.__cause__ = exc
            job.error = error


_GROUPS: weakref.WeakSet[GroupCommit] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    # Runs in the child right after a fork, before any other thread exists there.
    for group in list(_GROUPS):
        group._reset()


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_after_fork_in_child)
