"""Outcomes on a client given a store: what to journal, what the journal means for a call, when
to wait. Sans-I/O: nothing here sends, reads a store or sleeps.

Each operation of a client with a store is a *flow*: a generator that yields the steps it
needs and is sent back what each one gave (`Reply`). Both clients drive every flow with
the same small loop (``_run``), the async one running store calls in worker threads:

- `Send`: send a call through the client's execute loop (retries and the money-safety
  classification of ``_core.Attempts`` included); ``resend`` marks a journaled request sent
  again, whose earlier send may have reached the service;
- `Blocking`: one call of the store's (blocking I/O);
- `Wait`: wait for the referencia's outcome (the store's change listener).

The flows (docs/en/client.md, "Outcomes"):

- `create`: journal the request (state ``sending``) *before* it is sent, then record
  ``accepted`` (with the answer), ``rejected`` or ``unknown``. A referencia already journaled
  is never sent as a new request: the same request after acceptance gives the saved result,
  a different one under it is a [`ValidationError`][smartpos.ValidationError], and one whose answer
  is unknown (``sending``, ``unknown``) is resent byte for byte, as `reconcile` does;
- `create_and_wait`: `create`, then the final event; an unknown outcome of the
  create keeps waiting (the operation may have been accepted), never sends anew;
- `wait`: the final event of a referencia, journaled or not;
- `reconcile`: resend a journaled request whose answer is unknown, byte for byte.

The journaled state after an answer (`state_after`)::

    2xx                                               accepted (the answer is kept)
    409 REFERENCIA_DUPLICADA, raised as it is or as   accepted (the service holds the
      the last_error of an OutcomeUnknownError          referencia: an earlier send arrived)
    any other OutcomeUnknownError                     unknown
    any other error of a payment, refund, print job   rejected (surely not accepted)
    a QR code's 4xx, or a send that never left        rejected
    a QR code's other failures                        unknown (a QR code is safe to repeat)

Store failures never hide a charge. Before the send, a journal write that
failed but may have been applied (``StoreError.applied`` is not ``False``) is confirmed by the
same insert-if-absent once more, and is otherwise an ``OutcomeUnknownError`` with the
referencia: a ``StoreError`` only ever means that nothing was journaled. A 409 to the first
send that the journal explains (the entry was marked ``unknown`` by another process's resend)
is acceptance, not "surely not accepted". A wait retries a failing store until its deadline
and then raises ``OutcomePendingError`` carrying the ``StoreError``.

A journal write that fails *after* the send never hides the service's answer: it is logged and
the answer (or the send's error) is what the caller gets; the entry stays ``sending``, which
``operations(final=False)`` lists and `reconcile` settles. For the same reason an
``accepted`` or ``unknown`` record need not survive a power cut (only a crash of the process):
it is written without waiting for the disk, while the entry written before the send and a
``rejected`` record (whose resend would be a first send) are durable.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar, cast

import attrs
import httpx

from ._calls import Call, journaled_call
from ._config import is_seconds
from ._errors import (
    APIError,
    AttemptAbandonedError,
    ClientClosedError,
    ConfigurationError,
    OperationRejectedError,
    OutcomePendingError,
    OutcomeUnknownError,
    ReferenciaDuplicadaError,
    SmartPOSError,
    ValidationError,
)
from ._logging import logger
from ._messages import message
from ._models import QRCode

if TYPE_CHECKING:
    from .webhooks import (
        Event,
        ImpressaoConcluida,
        ImpressaoFalhou,
        Operation,
        PagamentoAprovado,
        PagamentoRecusado,
        Sale,
        SmartposIdentificado,
        StoreBase,
    )

__all__ = [
    "Blocking",
    "Flow",
    "Reply",
    "Send",
    "Step",
    "Wait",
    "abandon",
    "check_sale",
    "check_store",
    "compensate",
    "create",
    "create_and_wait",
    "interrupted",
    "payment_and_wait",
    "print_and_wait",
    "qrcode_and_wait",
    "reconcile",
    "state_after",
    "wait",
]

T = TypeVar("T")
R = TypeVar("R")

RecordedState = Literal["accepted", "rejected", "unknown"]

# Raised before any byte left: a QR code that failed with one of these was surely not created.
_NEVER_SENT: Final = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


@attrs.frozen(slots=True)
class Send:
    """Send ``call`` through the client's execute loop; reply with its result or its error.

    Attributes:
        call: What to send.
        resend: A journaled request sent again: an earlier send may have reached the service.
    """

    call: Call[Any]
    resend: bool = False


@attrs.frozen(slots=True)
class Blocking:
    """Call ``function()``, one call of the store's (blocking I/O: a worker thread for async)."""

    function: Callable[[], Any]


@attrs.frozen(slots=True)
class Wait:
    """Wait up to ``timeout`` seconds for the outcome of ``referencia``; reply with it or None."""

    referencia: str
    timeout: float


Step = Send | Blocking | Wait


@attrs.frozen(slots=True)
class Reply:
    """What a step gave: its value, or the exception it raised."""

    value: Any = None
    error: Exception | None = None

    def get(self) -> Any:
        """The value; the step's exception is raised here, inside the flow."""
        if self.error is not None:
            raise self.error
        return self.value


Flow = Generator[Step, Reply, T]
"""A flow yields steps, is sent a `Reply` for each, and returns its result."""


# --- checks --------------------------------------------------------------------------------


def check_store(store: object) -> StoreBase | None:
    """Check a client's ``store`` option: ``None``, a webhooks store, or its URL or path.

    A URL or a path is opened by ``smartpos.webhooks.open_store`` (the caller closes it).

    Raises:
        ConfigurationError: ``store`` is not a ``smartpos.webhooks`` store, or a URL
            ``open_store`` refuses.
    """
    if store is None:
        return None
    import os

    from .webhooks._journal import JournalBase

    if isinstance(store, (str, os.PathLike)):
        from .webhooks._open import open_store

        store = open_store(store)

    if not isinstance(store, JournalBase):
        raise ConfigurationError(message("outcomes.not_a_store", type=type(store).__name__))
    return cast("StoreBase", store)


def _require_store(store: StoreBase | None, what: str) -> StoreBase:
    if store is None:
        raise ConfigurationError(message("outcomes.needs_store", what=what))
    return store


def _check_timeout(timeout: object) -> float:
    if not is_seconds(timeout, positive=True):
        raise ValidationError("CAMPO_INVALIDO", message("outcomes.timeout", value=timeout))
    return float(cast("float", timeout))


def _check_referencia(referencia: object) -> str:
    from ._arguments import text

    checked = text(referencia, "referencia")
    assert checked is not None
    return checked


def _kind(call: Call[Any]) -> str:
    from .webhooks._outcomes import kind_of_path

    if call.operation == "request":
        return "request"  # client.request: any path
    return kind_of_path(call.path)


def _referencia(call: Call[Any]) -> str:
    assert call.referencia is not None, "every operation has a referencia"
    return call.referencia


# --- decisions -----------------------------------------------------------------------------


def interrupted(exc: BaseException, referencia: str | None, what: str) -> None:
    """Annotate an exception that escapes a journaled call without being the SDK's own.

    Cancellation, Ctrl-C, a time limit raised by a signal handler: whatever cut the call
    (while it journaled, confirmed, sent or waited) propagates as it is, but the referencia
    must not be lost with it, since the operation may have been journaled or accepted. The
    exception gets a note with the referencia (``exc.__notes__``) and a warning is logged,
    unless the HTTP step already noted it.
    """
    if referencia is None or isinstance(exc, (SmartPOSError, GeneratorExit)):
        return
    from ._core import note_interrupted

    note_interrupted(exc, where=what, referencia=referencia)


def state_after(call: Call[Any], error: Exception) -> RecordedState:
    """The journal state after a send of ``call`` failed with ``error`` (see the module doc)."""
    if isinstance(error, OutcomeUnknownError):
        # A 409 to a resend, to a retry, or to a referencia only this SDK can have used: the
        # service holds the referencia, so an earlier send of this very request arrived.
        if isinstance(error.last_error, ReferenciaDuplicadaError):
            return "accepted"
        return "unknown"
    if isinstance(error, ReferenciaDuplicadaError):
        # A 409 to the first send of a referencia the caller chose. This call started nothing
        # (the caller hears so), but the journal created the entry, so the one holding the
        # referencia is most likely this very request, sent by another process resending it
        # ("sending" in its eyes) or by an earlier run: keep it waiting, never "rejected",
        # whose events would be flagged instead of ending it. The agreement check still
        # keeps another request's events from ending it.
        return "accepted"
    if call.starts_operation:
        # _core.Attempts turns every doubt about an operation on a terminal into an
        # OutcomeUnknownError: anything else was surely not accepted.
        return "rejected"
    if isinstance(error, APIError) and error.status_code < 500:
        return "rejected"
    if isinstance(error, ClientClosedError) or isinstance(error.__cause__, _NEVER_SENT):
        return "rejected"
    return "unknown"


def _different_request(referencia: str, operation: Operation) -> ValidationError:
    return ValidationError(
        "REFERENCIA_DUPLICADA",
        message(
            "outcomes.different_request",
            referencia=referencia,
            kind=operation.kind,
            state=operation.state,
        ),
        campo="referencia",
    )


def _refused_attempt(referencia: str, sale: str) -> ValidationError:
    return ValidationError(
        "REFERENCIA_DUPLICADA",
        message("sale.attempt_refused", referencia=referencia, sale=sale),
        campo="referencia",
    )


def _accepted_without_answer(operation: Operation) -> OutcomeUnknownError:
    # A resend answered 409 REFERENCIA_DUPLICADA: accepted, but the acceptance was never read.
    cause = SmartPOSError(
        message(
            "outcomes.accepted_without_answer",
            referencia=operation.referencia,
            state=operation.state,
        )
    )
    return OutcomeUnknownError(operation.referencia, cause, attempts=0)


# --- steps every flow shares ---------------------------------------------------------------


def _record(
    store: StoreBase, referencia: str, state: RecordedState, answer: Any = None
) -> Flow[None]:
    """Record what the service answered; a failure is logged, never raised (see module doc).

    ``accepted`` and ``unknown`` are not durable: lost to a power cut, they leave the entry
    ``sending`` (or as it was before this resend), which ``reconcile`` settles with the same
    bytes and a 409, never a second charge; so an answer costs no fsync (SQLite) after the
    entry's. ``rejected`` is durable: the service never took that referencia, so a resend of
    an entry that fell back to ``sending`` would be a *first* send, after the caller was
    told "surely not accepted" (and may have charged again under a new referencia).
    """
    durable = state == "rejected"
    reply = yield Blocking(
        functools.partial(
            store._record_operation, referencia, state, answer=answer, durable=durable
        )
    )
    if reply.error is not None:
        logger.warning(
            "smartpos: could not journal referencia=%s as %s (%s: %s); the journal keeps it "
            "as sending: reconcile it (client.reconcile) once the store is back",
            referencia,
            state,
            type(reply.error).__name__,
            reply.error,
        )


def _send(store: StoreBase, call: Call[T], *, resend: bool) -> Flow[T]:
    """Send ``call`` and journal what the service answered; return its result or raise."""
    reply = yield Send(call, resend)
    referencia = _referencia(call)
    if reply.error is None:
        yield from _record(store, referencia, "accepted", reply.value)
        return cast("T", reply.value)
    error = reply.error
    if not resend and isinstance(error, ReferenciaDuplicadaError):
        error = yield from _explain_409(store, referencia, error)
    state = state_after(call, error)
    if state == "rejected":
        error = yield from _record_rejection(store, referencia, error, first_send=not resend)
    else:
        yield from _record(store, referencia, state)
    if error is reply.error:
        return cast("T", reply.get())
    raise error from reply.error


def _record_rejection(
    store: StoreBase, referencia: str, error: Exception, *, first_send: bool
) -> Flow[Exception]:
    """Journal that the service surely did not accept this send; what the caller gets then.

    The caller hears "surely not accepted" (and may charge again under a new referencia)
    only once the journal says so too; otherwise a start-up loop would later send the entry
    it still holds as ``sending``. So:

    - a first send's rejection is written only over ``sending`` (a compare-and-set): an
      entry past it was resent by another process meanwhile, whose copy may have been
      charged: an unknown outcome;
    - a rejection the store could not record: an unknown outcome that this call cannot end
      by waiting (nothing of it was accepted): resume under the referencia.
    """
    only_from = frozenset({"sending"}) if first_send else None
    reply = yield Blocking(
        functools.partial(
            store._record_operation, referencia, "rejected", durable=True, only_from=only_from
        )
    )
    if reply.error is not None:
        logger.warning(
            "smartpos: could not journal referencia=%s as rejected (%s: %s); its outcome stays "
            "unknown: resume with create(..., referencia=%s), never with a new referencia",
            referencia,
            type(reply.error).__name__,
            reply.error,
            referencia,
        )
        unknown: OutcomeUnknownError = _Resume(referencia, error, attempts=1)
        unknown.__context__ = reply.error
        return unknown
    if first_send and not reply.value:
        return OutcomeUnknownError(referencia, error, attempts=1)
    return error


def _explain_409(
    store: StoreBase, referencia: str, error: ReferenciaDuplicadaError
) -> Flow[Exception]:
    """A 409 to the first send of a journaled referencia: acceptance when the journal explains it.

    Another process that resends a journaled request marks its entry ``unknown`` before its
    send (`_mark_resending`); a 409 to this send, found with the entry past ``sending``, is
    the service holding that very request, sent by the other process: the service took it
    (a 409 the journal explains is acceptance). An entry this process cannot read leaves
    the same doubt, so it is an unknown outcome too; only an entry still ``sending`` (nobody
    else sent it) or ``rejected`` keeps the 409 as "this call started nothing".
    """
    reply = yield Blocking(functools.partial(store.operation, referencia))
    if reply.error is None:
        operation = reply.value
        if operation is None or operation.state in ("sending", "rejected"):
            return error
    unknown = OutcomeUnknownError(referencia, error, attempts=1)
    if reply.error is not None:
        unknown.__context__ = reply.error
    return unknown


def _may_be_applied(error: Exception) -> bool:
    """Whether a store call that raised ``error`` may still have written."""
    from .webhooks._store_errors import StoreError

    return isinstance(error, StoreError) and error.applied is not False


class _Resume(OutcomeUnknownError):
    """An unknown outcome that no event of *this* call can end: resume under the referencia.

    The store failed before this call's send (a journal write that may have been applied), or
    could not record that the service refused it: the journal may hold the referencia as
    ``sending`` (which a start-up loop sends), or an earlier call may have sent it, so it is
    an `OutcomeUnknownError`; but waiting is no use until something sends it, so
    ``create_and_wait`` raises it at once: resume with ``create(..., referencia=...)`` or
    ``client.reconcile``.
    """


def _unconfirmed(referencia: str, error: Exception) -> OutcomeUnknownError:
    logger.warning(
        "smartpos: the journal write of referencia=%s failed and may have been applied "
        "(%s: %s): its outcome is unknown; resume with create(..., referencia=%s) or "
        "client.reconcile, never with a new referencia",
        referencia,
        type(error).__name__,
        error,
        referencia,
    )
    return _Resume(referencia, error, attempts=0)


def _begin(store: StoreBase, call: Call[Any]) -> Flow[tuple[Operation, bool]]:
    """Journal ``call`` as ``sending`` before its send: the entry and whether this call wrote it.

    A write that failed but may have been applied (a reply lost, a server paused past the
    client's timeout) is confirmed by the same insert-if-absent once more, on a connection
    of its own: either way the journal is then certain. If that fails too, the outcome is
    unknown (`OutcomeUnknownError` with the referencia): a `StoreError` only ever means
    that nothing was journaled.
    """
    referencia = _referencia(call)
    assert call.body is not None, "every operation has a body"
    begin = functools.partial(
        store._begin_operation,
        referencia,
        kind=_kind(call),
        method=call.method,
        path=call.path,
        body=call.body,
        sale=call.sale,
    )
    reply = yield Blocking(begin)
    if reply.error is None or not _may_be_applied(reply.error):
        return cast("tuple[Operation, bool]", reply.get())
    again = yield Blocking(begin)
    if again.error is None:
        return cast("tuple[Operation, bool]", again.value)
    if isinstance(again.error, ValidationError):
        # A sale's rule refused the re-run, which read the journal first and found no entry
        # under the referencia: nothing was journaled, so nothing can have been sent.
        raise again.error
    raise _unconfirmed(referencia, again.error) from again.error


def _mark_resending(store: StoreBase, referencia: str) -> Flow[bool]:
    """Mark a journaled request ``unknown`` before it is sent again; ``False``: it moved since.

    Only from ``sending`` or ``unknown``: an entry accepted, ended or rejected since it was
    read is not resent (a rejected one's caller was told "surely not accepted").

    The mark is what lets the process that first sent it explain a 409 (`_explain_409`).
    It is written before the resend: a store that fails here means the outcome stays
    unknown (this entry may have been sent before), never "nothing was sent".
    """
    reply = yield Blocking(
        functools.partial(
            store._record_operation,
            referencia,
            "unknown",
            durable=False,
            only_from=frozenset({"sending", "unknown"}),
        )
    )
    if reply.error is not None:
        raise _Resume(referencia, reply.error, attempts=0) from reply.error
    return bool(reply.value)


def _operation(store: StoreBase, referencia: str) -> Flow[Operation | None]:
    reply = yield Blocking(functools.partial(store.operation, referencia))
    return cast("Operation | None", reply.get())


# --- the flows -----------------------------------------------------------------------------


def create(store: StoreBase, call: Call[T]) -> Flow[T]:
    """``create`` on a client with a store: journal, send, record (see the module doc).

    Raises:
        ValidationError: The referencia is journaled for another request; nothing was sent.
        StoreError: The journal could not be written, and the store proved that nothing was
            (a write that may have been applied is an ``OutcomeUnknownError``); nothing was
            sent.
        OutcomeUnknownError: As ``create`` without a store; also for a referencia journaled as
            accepted whose answer was never read (nothing is sent then), a journal write
            that may have been applied, and a 409 the journal explains.
    """
    referencia = _referencia(call)
    operation, created = yield from _begin(store, call)
    if created:
        return (yield from _send(store, call, resend=False))
    for _ in range(3):
        outcome = yield from _existing(store, call, operation)
        if not isinstance(outcome, _Again):
            return outcome
        # Another process changed the entry between our read and our write: decide again.
        reply = yield Blocking(functools.partial(store.operation, referencia))
        if reply.error is not None:
            raise OutcomeUnknownError(referencia, reply.error, attempts=0) from reply.error
        if reply.value is None:  # purged meanwhile
            break
        operation = reply.value
    cause = SmartPOSError(message("outcomes.changed_concurrently", referencia=referencia))
    raise OutcomeUnknownError(referencia, cause, attempts=0)


@attrs.frozen(slots=True)
class _Again:
    """The journal entry changed under us: read it again and decide again."""


def _saved_result(operation: Operation) -> Any:
    """The result the journaled answer gives, as a call returns it; None: no answer kept."""
    from .webhooks._outcomes import result_from_answer

    if operation.answer is None:
        return None
    return result_from_answer(operation.kind, operation.answer, operation.referencia)


def _existing(store: StoreBase, call: Call[T], operation: Operation) -> Flow[T | _Again]:
    """``create`` of a referencia the journal already holds."""
    from .webhooks._outcomes import request_matches

    referencia = _referencia(call)
    assert call.body is not None
    sale = None if call.sale is None else call.sale.sale_id
    if operation.sale != sale or not request_matches(operation, call.method, call.path, call.body):
        raise _different_request(referencia, operation)
    if operation.state in ("accepted", "final"):
        saved = _saved_result(operation)
        if saved is None:
            raise _accepted_without_answer(operation)
        logger.info("smartpos: referencia=%s was accepted already: nothing sent", referencia)
        return cast("T", saved)
    if operation.state == "rejected" and operation.sale is not None and operation.kind == "payment":
        # A first send again would be a new charge of the sale outside its rules (paid once,
        # one open attempt, the terminal's hold): another attempt may have paid it since.
        raise _refused_attempt(referencia, operation.sale)
    if operation.state == "rejected":
        # Surely not accepted, so sending it again is safe: a first send again. Journal it as
        # sending first (a crash meanwhile leaves it listed by operations(final=False), and
        # another process's resend marks it unknown, which this send's answer then sees).
        reply = yield Blocking(functools.partial(store._restart_operation, referencia))
        if reply.error is not None and _may_be_applied(reply.error):
            raise _unconfirmed(referencia, reply.error) from reply.error
        if not reply.get():
            return _Again()
        return (yield from _send(store, call, resend=False))
    # sending / unknown: the earlier send may have arrived; resend its exact bytes. Not an
    # abandoned attempt: if the earlier send never arrived, the resend is a new charge on a
    # terminal the cashier gave up (and the sale no longer holds).
    if operation.abandoned is not None and operation.sale is not None:
        raise ValidationError(
            "REFERENCIA_DUPLICADA",
            message("sale.attempt_abandoned", referencia=referencia, sale=operation.sale),
            campo="referencia",
        )
    if not (yield from _mark_resending(store, referencia)):
        return _Again()
    journaled = attrs.evolve(call, body=operation.body)
    return (yield from _send(store, journaled, resend=True))


def create_and_wait(
    store: StoreBase | None,
    call: Call[T],
    *,
    timeout: object,
    what: str,
    on_result: Callable[[T], object] | None = None,
) -> Flow[Event]:
    """``create``, then wait for the final event of its referencia.

    An unknown outcome of the create (``OutcomeUnknownError``) keeps waiting: the operation may
    have been accepted; nothing is ever sent under a new referencia.

    Raises:
        ConfigurationError: No store; nothing was sent.
        OutcomePendingError: No final event within ``timeout`` seconds.
        ValidationError, APIError, TransportError: As ``create``: surely not accepted.
    """
    journal = _require_store(store, what)
    seconds = _check_timeout(timeout)
    referencia = _referencia(call)
    unknown: OutcomeUnknownError | None = None
    try:
        result = yield from create(journal, call)
    except _Resume:
        raise
    except OutcomeUnknownError as exc:
        unknown = exc
    else:
        if on_result is not None:
            on_result(result)
    return (yield from _wait(referencia, seconds, unknown))


def _wait(referencia: str, seconds: float, unknown: OutcomeUnknownError | None) -> Flow[Event]:
    """Wait for the outcome; whatever keeps it from coming is `OutcomePendingError`.

    The request may have been accepted, so a store failure never escapes as such: the waiter
    retries the store until the deadline, and a wait that ends while the store is failing
    carries the `StoreError` as ``last_error`` (store failures never hide a charge).
    """
    reply = yield Wait(referencia, seconds)
    if reply.error is None and reply.value is not None:
        return cast("Event", reply.value)
    if isinstance(reply.error, OperationRejectedError):
        raise reply.error
    last_error: BaseException | None = reply.error
    if last_error is None and unknown is not None:
        last_error = unknown.last_error
    error = OutcomePendingError(
        referencia,
        timeout=seconds,
        last_error=last_error,
        attempts=0 if unknown is None else unknown.attempts,
    )
    raise error from (reply.error or unknown)


def _expect(event: Event, *types: type[Any], what: str) -> Any:
    if not isinstance(event, types):  # pragma: no cover - the journal's rules forbid it
        raise TypeError(f"{what} ended with an unexpected {type(event).__name__}")
    return event


def payment_and_wait(
    store: StoreBase | None, call: Call[Any], *, timeout: object
) -> Flow[PagamentoAprovado | PagamentoRecusado]:
    """``payments.create_and_wait``: ``pagamento.aprovado`` or ``pagamento.recusado``."""
    from .webhooks import PagamentoAprovado, PagamentoRecusado

    what = "payments.create_and_wait"
    event = yield from create_and_wait(store, call, timeout=timeout, what=what)
    if call.sale is not None and store is not None:
        # A cashier may have given the attempt up while we waited: its approval is a late one.
        reply = yield Blocking(functools.partial(store.operation, _referencia(call)))
        operation = reply.value if reply.error is None else None
        if operation is not None and operation.abandoned is not None:
            raise AttemptAbandonedError(
                operation.referencia, sale_id=call.sale.sale_id, event=event
            )
    return cast(
        "PagamentoAprovado | PagamentoRecusado",
        _expect(event, PagamentoAprovado, PagamentoRecusado, what=what),
    )


def print_and_wait(
    store: StoreBase | None, call: Call[Any], *, timeout: object
) -> Flow[ImpressaoConcluida | ImpressaoFalhou]:
    """``print_jobs.create_and_wait``: ``impressao.concluida`` or ``impressao.falhou``."""
    from .webhooks import ImpressaoConcluida, ImpressaoFalhou

    what = "print_jobs.create_and_wait"
    event = yield from create_and_wait(store, call, timeout=timeout, what=what)
    return cast(
        "ImpressaoConcluida | ImpressaoFalhou",
        _expect(event, ImpressaoConcluida, ImpressaoFalhou, what=what),
    )


def qrcode_and_wait(
    store: StoreBase | None,
    call: Call[QRCode],
    *,
    timeout: object,
    show: Callable[[QRCode], object] | None = None,
) -> Flow[SmartposIdentificado]:
    """``qrcodes.create_and_wait``: ``smartpos.identificado`` (the terminal read it).

    ``show`` gets the QR code before the wait (a caller must draw it for a terminal to read
    it); it is not called when the journal had the QR code's answer unknown.
    """
    from .webhooks import SmartposIdentificado

    what = "qrcodes.create_and_wait"
    if show is not None and not callable(show):
        raise ValidationError(
            "CAMPO_INVALIDO", message("outcomes.show_not_callable", type=type(show).__name__)
        )
    event = yield from create_and_wait(store, call, timeout=timeout, what=what, on_result=show)
    return cast("SmartposIdentificado", _expect(event, SmartposIdentificado, what=what))


def wait(store: StoreBase | None, referencia: object, *, timeout: object) -> Flow[Event]:
    """``client.wait``: the final event of ``referencia``, journaled or not.

    Raises:
        ConfigurationError: No store.
        ValidationError: A bad referencia or timeout.
        OutcomePendingError: No final event within ``timeout`` seconds.
    """
    _require_store(store, "wait")
    ref = _check_referencia(referencia)
    seconds = _check_timeout(timeout)
    return (yield from _wait(ref, seconds, None))


def reconcile(store: StoreBase | None, referencia: object) -> Flow[Operation]:
    """``client.reconcile``: resend a journaled request whose answer is unknown, byte for byte.

    ``sending`` and ``unknown`` operations are resent with their journaled bytes (so the same
    referencia): a 2xx or a 409 ``REFERENCIA_DUPLICADA`` makes them ``accepted``; an answer
    that judges the bytes makes them ``rejected``. ``accepted``, ``final`` and ``rejected``
    operations are returned as they are, nothing sent: there is nothing to resolve; so is an
    abandoned attempt of a sale (its late approval is the sale's pendência).

    Raises:
        ConfigurationError: No store; nothing was sent.
        ValidationError: The journal holds no such referencia; nothing was sent.
        OutcomeUnknownError: The resend did not settle it either (the network, a 5xx): it
            stays ``unknown``; reconcile again later.
    """
    journal = _require_store(store, "reconcile")
    ref = _check_referencia(referencia)
    operation = yield from _operation(journal, ref)
    if operation is None:
        raise ValidationError(
            "CAMPO_INVALIDO",
            message("outcomes.not_journaled", referencia=ref),
            campo="referencia",
        )
    if operation.state not in ("sending", "unknown") or operation.abandoned is not None:
        # An abandoned attempt is never resent: if its first send never arrived, the resend
        # would be a new charge on a terminal the cashier gave up.
        return operation
    if not (yield from _mark_resending(journal, ref)):
        # Accepted (or ended) meanwhile, by another process: nothing to resend.
        settled = yield from _operation(journal, ref)
        return settled if settled is not None else operation
    call = journaled_call(
        kind=operation.kind,
        method=operation.method,
        path=operation.path,
        body=operation.body,
        referencia=ref,
    )
    reply = yield Send(call, True)
    state: RecordedState = "accepted"
    if reply.error is None:
        yield from _record(journal, ref, "accepted", reply.value)
    else:
        state = state_after(call, reply.error)
        yield from _record(journal, ref, state)
        if state == "unknown":
            reply.get()
    # The resend is done: a store failing now must not hide what it settled.
    after = yield Blocking(functools.partial(journal.operation, ref))
    if after.error is None and after.value is not None:
        return cast("Operation", after.value)
    return attrs.evolve(operation, state=state)


# --- sales ---------------------------------------------------------------------------------


def check_sale(store: StoreBase | None, call: Call[Any]) -> None:
    """A charge of a sale needs a store (its attempts are journaled there).

    Raises:
        ConfigurationError: ``sale=`` on a client without a store; nothing was sent.
    """
    if call.sale is not None and store is None:
        raise ConfigurationError(message("sale.needs_store"))


def _sale_key(sale_id: object) -> str:
    if (
        not isinstance(sale_id, str)
        or not sale_id.strip()
        or len(sale_id) > 100
        or not sale_id.isprintable()
    ):
        raise ValidationError("CAMPO_INVALIDO", message("argument.sale", max=100), campo="sale")
    return sale_id


def _short_text(value: object, campo: str, *, required: bool) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        raise ValidationError(
            "CAMPO_INVALIDO", message("argument.motivo", campo=campo, max=200), campo=campo
        )
    return value


def abandon(
    store: StoreBase | None, sale_id: object, *, motivo: object, operador: object
) -> Flow[Sale]:
    """``client.abandon``: give up the sale's open attempt; nothing is sent.

    Raises:
        ConfigurationError: No store.
        ValidationError: A bad sale key, ``motivo`` or ``operador``, or a sale the store
            does not know.
    """
    journal = _require_store(store, "client.abandon")
    key = _sale_key(sale_id)
    why = _short_text(motivo, "motivo", required=True)
    who = _short_text(operador, "operador", required=False)
    assert why is not None
    reply = yield Blocking(functools.partial(journal._abandon, key, motivo=why, operador=who))
    sale = cast("Sale", reply.get())
    logger.info("smartpos: sale=%s abandoned its open attempt, if any: nothing sent", key)
    return sale


def compensate(store: StoreBase | None, config: Any, sale_id: object) -> Flow[list[Operation]]:
    """``client.compensate``: refund each late approval of the sale, once.

    A late approval is the approval of an attempt a cashier abandoned. Its compensation is
    ``refunds.create_for(event, referencia=referencia_for(f"compensacao:{referencia}"))``,
    journaled under the sale; a compensation the journal holds already (this or another
    process) is never sent again, unless the service surely did not take it (``rejected``:
    sending it again is a first send of that referencia, never a second refund).

    Raises:
        ConfigurationError: No store.
        ValidationError: A bad sale key, or a sale the store does not know.
    """
    from ._calls import refund_for_call
    from .webhooks._events import PagamentoAprovado
    from .webhooks._journal import _unknown_sale
    from .webhooks._sales import SaleTerms, compensation_referencia

    journal = _require_store(store, "client.compensate")
    key = _sale_key(sale_id)
    sale = (yield Blocking(functools.partial(journal.sale, key))).get()
    if sale is None:
        raise _unknown_sale(key)
    found: list[Operation] = []
    for attempt in sale.attempts:
        event = attempt.event
        if attempt.abandoned is None or not isinstance(event, PagamentoAprovado):
            continue
        referencia = compensation_referencia(attempt.referencia)
        call = refund_for_call(config, event, valor_centavos=None, referencia=referencia)
        call = attrs.evolve(call, sale=SaleTerms(sale_id=key, attempt=False))
        operation, created = yield from _begin(journal, call)
        # A refused compensation (surely not accepted: a 4xx, a send that never left) is sent
        # again under its referencia, a first send; any other journaled one never is.
        again = not created and operation.state == "rejected"
        if created or again:
            try:
                if again:
                    yield from _existing(journal, call, operation)
                else:
                    yield from _send(journal, call, resend=False)
            except SmartPOSError as exc:
                # The journal says what became of it (rejected, unknown): returned below.
                logger.warning(
                    "smartpos: the compensation refund referencia=%s of sale=%s failed: %s: %s",
                    referencia,
                    key,
                    type(exc).__name__,
                    exc,
                )
        else:
            logger.info(
                "smartpos: compensation referencia=%s of sale=%s is journaled already: not sent",
                referencia,
                key,
            )
        now = (yield Blocking(functools.partial(journal.operation, referencia))).get()
        found.append(now if now is not None else operation)
        if now is not None and now.state in ("accepted", "final"):
            yield from _store_compensation_accepted(journal, now, key, attempt.referencia, event)
    return found


def _store_compensation_accepted(
    journal: StoreBase, refund: Operation, sale_id: str, original: str, approval: Any
) -> Flow[None]:
    """Store the SDK's own event of an accepted compensation (``COMPENSATION_ACCEPTED``).

    The service sends no refund events: this one lets a worker with ``on_sale`` apply the
    ``compensated`` effect at once, in its transaction. Stored once (a fixed id); a store
    failure is logged, never raised: the refund was sent, and the effect then waits for the
    next event of the sale.
    """
    from .webhooks._effects import compensation_accepted
    from .webhooks._events import PagamentoRecusado, parse_event

    if isinstance(refund.event, PagamentoRecusado):
        return
    raw = compensation_accepted(
        refund.referencia,
        sale_id,
        original,
        getattr(approval.dados, "valor_centavos", None),
        journal._now(),
    )
    reply = yield Blocking(functools.partial(journal.put, parse_event(raw)))
    if reply.error is not None:
        logger.warning(
            "smartpos: could not store the compensation event of referencia=%s (%s: %s); "
            "on_sale's compensated effect waits for the next event of sale=%s",
            refund.referencia,
            type(reply.error).__name__,
            reply.error,
            sale_id,
        )
