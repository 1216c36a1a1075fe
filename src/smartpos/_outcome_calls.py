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

A journal write that fails *after* the send never hides the service's answer: it is logged and
the answer (or the send's error) is what the caller gets; the entry stays ``sending``, which
``operations(final=False)`` lists and `reconcile` settles. For the same reason an
``accepted`` or ``unknown`` record need not survive a power cut (only a crash of the process):
it is written without waiting for the disk, while the entry written before the send and a
``rejected`` record (whose resend would be a first send) are durable.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar, cast

import attrs
import httpx

from ._calls import Call, journaled_call
from ._errors import (
    APIError,
    ClientClosedError,
    ConfigurationError,
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
    "check_store",
    "create",
    "create_and_wait",
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
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, (int, float))
        or not math.isfinite(timeout)
        or timeout <= 0
    ):
        raise ValidationError("CAMPO_INVALIDO", message("outcomes.timeout", value=timeout))
    return float(timeout)


def _check_referencia(referencia: object) -> str:
    if not isinstance(referencia, str):
        raise ValidationError(
            "CAMPO_INVALIDO",
            message("argument.not_a_string", campo="referencia", type=type(referencia).__name__),
            campo="referencia",
        )
    if not referencia.strip():
        raise ValidationError(
            "CAMPO_OBRIGATORIO",
            message("argument.required", campo="referencia"),
            campo="referencia",
        )
    return referencia


def _kind(call: Call[Any]) -> str:
    from .webhooks._outcomes import kind_of_path

    return kind_of_path(call.path)


def _referencia(call: Call[Any]) -> str:
    assert call.referencia is not None, "every operation has a referencia"
    return call.referencia


# --- decisions -----------------------------------------------------------------------------


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


def _accepted_without_answer(operation: Operation) -> OutcomeUnknownError:
    # A resend answered 409 REFERENCIA_DUPLICADA: accepted, but the acceptance was never read.
    cause = SmartPOSError(
        f"the journal holds referencia {operation.referencia} as {operation.state} without the "
        "service's answer (an earlier send arrived; a resend was answered 409 "
        "REFERENCIA_DUPLICADA); nothing was sent"
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
    yield from _record(store, referencia, state_after(call, reply.error))
    return cast("T", reply.get())


def _operation(store: StoreBase, referencia: str) -> Flow[Operation | None]:
    reply = yield Blocking(functools.partial(store.operation, referencia))
    return cast("Operation | None", reply.get())


# --- the flows -----------------------------------------------------------------------------


def create(store: StoreBase, call: Call[T]) -> Flow[T]:
    """``create`` on a client with a store: journal, send, record (see the module doc).

    Raises:
        ValidationError: The referencia is journaled for another request; nothing was sent.
        StoreError: The journal could not be written; nothing was sent.
        OutcomeUnknownError: As ``create`` without a store; also for a referencia journaled as
            accepted whose answer was never read (nothing is sent then).
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
    )
    operation, created = (yield Blocking(begin)).get()
    if created:
        return (yield from _send(store, call, resend=False))
    for _ in range(3):
        outcome = yield from _existing(store, call, operation)
        if not isinstance(outcome, _Again):
            return outcome
        # Another process changed the entry between our read and our write: decide again.
        again = yield from _operation(store, referencia)
        if again is None:  # purged meanwhile
            break
        operation = again
    cause = SmartPOSError(
        f"the journal entry of referencia {referencia} changed under concurrent creates of "
        "it; nothing more was sent"
    )
    raise OutcomeUnknownError(referencia, cause, attempts=0)


@attrs.frozen(slots=True)
class _Again:
    """The journal entry changed under us: read it again and decide again."""


def _existing(store: StoreBase, call: Call[T], operation: Operation) -> Flow[T | _Again]:
    """``create`` of a referencia the journal already holds."""
    from .webhooks._outcomes import request_matches

    referencia = _referencia(call)
    assert call.body is not None
    if not request_matches(operation, call.method, call.path, call.body):
        raise _different_request(referencia, operation)
    if operation.state in ("accepted", "final"):
        saved = operation.result
        if saved is None:
            raise _accepted_without_answer(operation)
        logger.info("smartpos: referencia=%s was accepted already: nothing sent", referencia)
        return cast("T", saved)
    if operation.state == "rejected":
        # Surely not accepted, so sending it again is safe; journal it as unknown first, so
        # that a crash during this send leaves it listed by operations(final=False).
        reply = yield Blocking(functools.partial(store._record_operation, referencia, "unknown"))
        if not reply.get():
            return _Again()
        return (yield from _send(store, call, resend=False))
    # sending / unknown: the earlier send may have arrived; resend its exact bytes.
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
    except OutcomeUnknownError as exc:
        unknown = exc
    else:
        if on_result is not None:
            on_result(result)
    event = (yield Wait(referencia, seconds)).get()
    if event is None:
        error = OutcomePendingError(
            referencia,
            timeout=seconds,
            last_error=None if unknown is None else unknown.last_error,
            attempts=0 if unknown is None else unknown.attempts,
        )
        if unknown is not None:
            raise error from unknown
        raise error
    return cast("Event", event)


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
    event = (yield Wait(ref, seconds)).get()
    if event is None:
        raise OutcomePendingError(ref, timeout=seconds)
    return cast("Event", event)


def reconcile(store: StoreBase | None, referencia: object) -> Flow[Operation]:
    """``client.reconcile``: resend a journaled request whose answer is unknown, byte for byte.

    ``sending`` and ``unknown`` operations are resent with their journaled bytes (so the same
    referencia): a 2xx or a 409 ``REFERENCIA_DUPLICADA`` makes them ``accepted``; an answer
    that judges the bytes makes them ``rejected``. ``accepted``, ``final`` and ``rejected``
    operations are returned as they are, nothing sent: there is nothing to resolve.

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
    if operation.state not in ("sending", "unknown"):
        return operation
    call = journaled_call(
        kind=operation.kind,
        method=operation.method,
        path=operation.path,
        body=operation.body,
        referencia=ref,
    )
    reply = yield Send(call, True)
    if reply.error is None:
        yield from _record(journal, ref, "accepted", reply.value)
    else:
        state = state_after(call, reply.error)
        yield from _record(journal, ref, state)
        if state == "unknown":
            reply.get()
    settled = yield from _operation(journal, ref)
    return settled if settled is not None else operation
