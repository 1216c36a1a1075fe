"""The observer seam: what the clients and the webhooks report, and to nobody by default.

Telemetry is not the core's business, but the core knows what telemetry wants: which call,
how many attempts, how it ended. So the core reports those facts to one module attribute,
`observer`, which is ``None`` until someone installs an observer
(``smartpos.integrations.otel.instrument()`` installs OpenTelemetry's). Each client call,
webhook delivery and worker handling reads that attribute once: when it is ``None`` nothing
else happens, so telemetry costs nothing when it is off, and nothing here imports a
telemetry library.

What is reported:

- a client call: `Observer.call` when its attempts start (after the arguments were
  checked: a call refused locally sends nothing and reports nothing), then
  `CallObservation.retry` before each retry and `CallObservation.finished` once
  with its outcome class (`outcome_of`);
- a webhook delivery: `Observer.received` with its ``Receipt`` once it is answered;
- a worker's handling of one claimed event: `Observer.handling` before, then
  `HandlingObservation.finished` with what became of the event.

Everything is called on the caller's thread (or task), so an observer may make its span the
current one between a start and its end.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeVar

from . import _errors
from ._errors import OutcomeUnknownError, SmartPOSError

if TYPE_CHECKING:
    from ._calls import Call
    from .webhooks._receipt import Receipt
    from .webhooks._store import Claim

__all__ = [
    "ACCEPTED",
    "HANDLING_RESULTS",
    "OUTCOMES",
    "PENDING",
    "REJECTED",
    "UNKNOWN",
    "CallObservation",
    "HandlingObservation",
    "Observer",
    "guarded",
    "handling",
    "install",
    "observer",
    "outcome_of",
]

#: The call returned its result: the service took the request.
ACCEPTED: Final = "accepted"
#: The call raised an error that proves nothing is pending: fix it, retry with a new referencia.
REJECTED: Final = "rejected"
#: ``OutcomeUnknownError``: the service may have taken it; wait for the event.
UNKNOWN: Final = "unknown"
#: ``OutcomePendingError``: taken (or maybe), and no final event came in time.
PENDING: Final = "pending"
OUTCOMES: Final = (ACCEPTED, REJECTED, UNKNOWN, PENDING)

# OutcomePendingError comes with the clients' store= and create_and_wait; until then nothing
# is pending (isinstance of an empty tuple is False).
_PENDING_ERROR: Any = getattr(_errors, "OutcomePendingError", ())

#: What a worker's handling did with an event: acked; acked too late (the lease was lost and
#: the store refused the ack); the handler failed (nacked: retried later, or dead after the
#: store's last attempt); the event does not fit the schema (dead-lettered); or the handling
#: was interrupted (the store failed, or the process is stopping).
HANDLING_RESULTS: Final = ("acked", "ack_refused", "failed", "dead_lettered", "interrupted")


class CallObservation(Protocol):
    """What an observer keeps about one client call, told how it goes on."""

    def retry(self, attempt: int, delay: float, status: int | None) -> None:
        """Attempt ``attempt`` failed (``status``: its HTTP status, if any); a retry follows."""

    def finished(
        self, outcome: str, attempts: int, status: int | None, error: BaseException | None
    ) -> None:
        """The call ended: its outcome class, its attempts, the last HTTP status, the error."""


class HandlingObservation(Protocol):
    """What an observer keeps about one worker handling of a claimed event."""

    def finished(self, result: str, error: BaseException | None) -> None:
        """The handling ended with ``result`` (one of `HANDLING_RESULTS`)."""


class Observer(Protocol):
    """What `install` takes; every method is called on the caller's thread or task."""

    def call(self, call: Call[Any]) -> CallObservation | None:
        """A client call starts sending ``call``."""

    def received(self, receipt: Receipt, started_ns: int) -> None:
        """A webhook delivery was answered (``started_ns``: ``time.time_ns()`` at its start)."""

    def handling(self, claim: Claim) -> HandlingObservation | None:
        """A worker starts handling a claimed event."""


R = TypeVar("R")

_logger = logging.getLogger("smartpos")

#: The installed observer; ``None`` (the default) means telemetry is off.
observer: Observer | None = None


def install(new: Observer | None) -> Observer | None:
    """Install ``new`` as the process's observer (``None`` turns telemetry off).

    Returns:
        The observer installed before.
    """
    global observer
    previous, observer = observer, new
    return previous


def guarded(method: Callable[..., R], *args: Any) -> R | None:
    """Call an observer's method; a failure of it is logged, never raised.

    Telemetry must not change what a call ends in: an observer that raises would replace an
    ``OutcomeUnknownError`` with its own exception.
    """
    try:
        return method(*args)
    except Exception:
        _logger.warning("smartpos: the telemetry observer failed", exc_info=True)
        return None


def handling(claim: Claim) -> HandlingObservation | None:
    """The observation of a worker's handling of ``claim``, or ``None`` when nobody observes."""
    current = observer
    return None if current is None else guarded(current.handling, claim)


def outcome_of(call: Call[Any], attempts: int, result: object) -> str:
    """The outcome class of a call that returned ``result`` or raised it (an exception).

    Args:
        call: The call.
        attempts: How many attempts were made.
        result: The result, or the exception that ended the call.
    """
    if not isinstance(result, BaseException):
        return ACCEPTED
    if isinstance(result, _PENDING_ERROR):
        return PENDING
    if isinstance(result, OutcomeUnknownError):
        return UNKNOWN
    if isinstance(result, SmartPOSError):
        return REJECTED
    # Cancellation, Ctrl-C, or a failure around the sends: an operation that may have been
    # sent is unknown, as the note the core adds to such an exception says.
    return UNKNOWN if call.starts_operation and attempts else REJECTED
