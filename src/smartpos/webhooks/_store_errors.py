"""The stores' errors: a leaf module, so that every part of the inbox can raise them."""

from __future__ import annotations

from typing import Any

from smartpos._errors import SmartPOSError

__all__ = ["StoreError", "StoreFullError"]


class StoreError(SmartPOSError):
    """The store's backend failed (database locked too long, disk full, unreachable, corrupt).

    A receiver answers 503 so that the service delivers the event again later; a worker backs
    off and tries again. The message names the backend's error, never an event's contents.

    A failed write is not proof that nothing was written: a server may apply a statement whose
    reply is lost (a dropped connection, a timeout while the server was paused). ``applied``
    says what the backend knows: ``False`` when the write surely did not happen (SQLite's
    atomic commit, a connection that could not even be opened), ``None`` when it may have.
    A client journaling an operation treats ``None`` as "may have been written" and never
    reports it as "nothing was sent" (the rule: store failures never hide a charge).

    Attributes:
        applied: ``False``: surely not applied; ``None``: unknown.
    """

    applied: bool | None

    def __init__(self, *args: object, applied: bool | None = None) -> None:
        super().__init__(*args)
        self.applied = applied

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.args, self.applied))


def _rebuild(cls: type[StoreError], args: tuple[Any, ...], applied: bool | None) -> StoreError:
    return cls(*args, applied=applied)


class StoreFullError(StoreError):
    """A bounded store has no room: every slot holds an event that is not done yet."""
