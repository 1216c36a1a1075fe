"""The stores' errors: a leaf module, so that every part of the inbox can raise them."""

from __future__ import annotations

from smartpos._errors import SmartPOSError

__all__ = ["StoreError", "StoreFullError"]


class StoreError(SmartPOSError):
    """The store's backend failed (database locked too long, disk full, unreachable, corrupt).

    A receiver answers 503 so that the service delivers the event again later; a worker backs
    off and tries again. The message names the backend's error, never an event's contents.
    """


class StoreFullError(StoreError):
    """A bounded store has no room: every slot holds an event that is not done yet."""
