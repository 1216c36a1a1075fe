"""The sans-I/O core: every decision of the clients, and no networking at all.

Both clients drive the same pieces, and import them from here: a builder (``_calls``)
validates the caller's arguments and returns a `Call` (method, path, JSON body, how to
read the answer); `build_request` turns it into an ``httpx.Request``; an
`Attempts` object (this module) is told what happened to each send and answers with the
result (read by ``_responses``), an exception, or `Retry` (how long to wait before
sending the very same request again). ``Client`` and ``AsyncClient`` only send and sleep.

Where each piece lives:

- ``_config``: `Config`, the settings read from the arguments and the environment;
- ``_arguments``: the caller's arguments checked, into a request record of ``_requests``;
- ``_calls``: `Call`, `build_request` and one builder per endpoint (its body is
  the record, written by ``_wire``, the one module that knows the wire's names);
- ``_responses``: a 2xx body into its result, an error answer into its exception;
- this module: the retry and outcome state machine (`Attempts`).

Process-wide set-up is not here: logging in ``_logging``, the shared SSL context in
``_transports``. Each piece is imported from its own module: this one re-exports nothing.

Money safety is decided here. A retry always resends the same bytes, hence the same
referencia. For operations that start something on a terminal, any doubt about whether the
service accepted the request ends in [`OutcomeUnknownError`][smartpos.OutcomeUnknownError], never in
an error that invites a retry with a new referencia.
"""

from __future__ import annotations

import email.utils
import logging
import random
import time
from operator import attrgetter
from typing import Generic, TypeVar

import attrs
import httpx

from . import _httpcompat, _telemetry
from ._calls import Call, build_request
from ._config import Config
from ._errors import (
    APIError,
    ClientClosedError,
    OutcomeUnknownError,
    ResponseError,
    SmartPOSError,
    TimeoutError,
    TransportError,
)
from ._logging import logger
from ._messages import message, speaking
from ._models import HTTPInfo
from ._responses import error_from_response, request_id_of

__all__ = [
    "MAX_BACKOFF",
    "MAX_RETRY_AFTER",
    "RETRY_STATUSES",
    "Attempts",
    "Retry",
    "add_note",
    "note_interrupted",
    "parse_retry_after",
    "parse_retry_after_ms",
    "retry_after",
]

T = TypeVar("T")

#: The longest ``Retry-After`` the SDK honours; a longer one is capped.
MAX_RETRY_AFTER = 30.0
#: The longest backoff between two attempts.
MAX_BACKOFF = 8.0
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


@attrs.frozen(slots=True)
class Retry:
    """Send the same request again after ``delay`` seconds."""

    delay: float


# 400 codes that depend only on the request's content, never on the service's state.
_VERDICTS_ON_THE_REQUEST = frozenset(
    {
        "CAMPO_OBRIGATORIO",
        "CAMPO_INVALIDO",
        "VALOR_INVALIDO",
        "FORMA_PAGAMENTO_INVALIDA",
        "SMARTPOS_OBRIGATORIO_MODO_IMEDIATO",
        "COMANDA_OBRIGATORIA_MODO_MANUAL",
    }
)

# Raised before any byte reached the service: safe to retry, and never an unknown outcome.
# Names, not classes: httpx2's classes of the same names classify the same (``_httpcompat``).
_NOT_SENT = ("ConnectError", "ConnectTimeout", "PoolTimeout")
# Cannot succeed by retrying (bad URL scheme, a proxy refused, an invalid local request).
_FATAL = ("UnsupportedProtocol", "LocalProtocolError", "ProxyError")


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Read a ``Retry-After`` header (seconds or an HTTP date) as seconds to wait, or None."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if seconds != seconds:  # NaN
        return None
    return max(0.0, seconds)


def parse_retry_after_ms(value: str | None) -> float | None:
    """Read a ``retry-after-ms`` header (milliseconds, as OpenAI's and Anthropic's APIs send
    it) as seconds to wait, or None when absent or not a finite number >= 0."""
    if not value:
        return None
    try:
        milliseconds = float(value.strip())
    except ValueError:
        return None
    if not milliseconds >= 0 or milliseconds == float("inf"):  # NaN, negative, infinite
        return None
    return milliseconds / 1000


def retry_after(headers: httpx.Headers, now: float | None = None) -> float | None:
    """The wait a response asks for, capped at `MAX_RETRY_AFTER`; None when it asks none.

    ``retry-after-ms`` (finer) wins over ``Retry-After`` (seconds or an HTTP date) when both
    are readable; an unreadable one is ignored.
    """
    after = parse_retry_after_ms(headers.get("retry-after-ms"))
    if after is None:
        after = parse_retry_after(headers.get("retry-after"), now)
    return None if after is None else min(after, MAX_RETRY_AFTER)


#: Messages raised while a call is sent are in the language of its client (``lang=``).
_in_client_language = speaking(attrgetter("config.lang"))


class Attempts(Generic[T]):
    """Decide, after each send of one call, whether to return, raise or retry.

    Tell it what happened with `answered` (a response) or `failed` (*any*
    exception raised while sending or reading: an httpx error, an event loop that is gone, a
    user's hook that raised); it returns the result, raises the final exception, or returns a
    `Retry`. Whatever it raises is a [`SmartPOSError`][smartpos.SmartPOSError]: this is the one
    place where anything that can go wrong during a send is classified, for both clients.
    Cancellation and Ctrl-C are not classified but annotated (`interrupted`).
    """

    __slots__ = (
        "attempt",
        "call",
        "config",
        "maybe_sent",
        "observation",
        "request",
        "rng",
        "started",
        "status",
    )

    def __init__(
        self,
        config: Config,
        call: Call[T],
        *,
        rng: random.Random | None = None,
        http_client: httpx.Client | httpx.AsyncClient | None = None,
        resend: bool = False,
    ) -> None:
        self.config = config
        self.call = call
        #: The one request every attempt sends (same bytes, so the same referencia).
        self.request = build_request(config, call, http_client)
        self.attempt = 0
        # True once any attempt may have reached the service: from then on, a failure of
        # an operation on a terminal can only be an unknown outcome. A resend of a journaled
        # request (``resend``: ``reconcile``, or ``create`` of a referencia whose earlier
        # send has no known answer) starts with it: the earlier send may have arrived, so
        # only an answer that judges the bytes proves that nothing was accepted, and a 409
        # REFERENCIA_DUPLICADA says the earlier send arrived.
        self.maybe_sent = resend
        self.rng = rng or _rng
        self.started = 0.0
        #: The HTTP status of the current attempt's response (``None``: none yet, or none).
        self.status: int | None = None
        # Telemetry (``_telemetry``): one look at the observer per call, none when it is off.
        observer = _telemetry.observer
        self.observation = None if observer is None else _telemetry.guarded(observer.call, call)

    def sending(self, *, closed: bool = False) -> None:
        """Record that an attempt starts now.

        Args:
            closed: The HTTP client is closed: nothing can be sent.

        Raises:
            ClientClosedError: ``closed``; nothing was sent by this attempt (an
                [`OutcomeUnknownError`][smartpos.OutcomeUnknownError] when an earlier one may have
                reached the service).
        """
        if closed:
            error = self._closed()
            self._end(error)
            raise error
        if (
            self.attempt == 0
            and self.call.referencia is not None
            and logger.isEnabledFor(logging.INFO)
        ):
            # Before the first byte: whatever happens next (a crash, Ctrl-C), the log holds
            # the referencia whose event tells the outcome.
            logger.info(
                "%s %s sending referencia=%s",
                self.call.method,
                self.call.log_path or self.call.path,
                self.call.referencia,
            )
        self.attempt += 1
        self.started = time.perf_counter()
        self.status = None

    @_in_client_language
    def _closed(self) -> SmartPOSError:
        where = f"{self.call.method} {self.call.log_path or self.call.path}"
        error = ClientClosedError(message("call.closed", where=where))
        if self.call.starts_operation and self.maybe_sent:
            return self._unknown(error)
        return error

    def _retries_left(self) -> bool:
        return self.attempt <= self.config.max_retries

    def _may_repeat(self) -> bool:
        # A call that may change something without a referencia (``client.request``) is
        # sent again only when no earlier attempt can have reached the service.
        return self.call.repeatable or not self.maybe_sent

    def backoff(self) -> float:
        """Exponential backoff with jitter for the attempt that just failed."""
        base = self.config.retry_backoff
        if base <= 0:
            return 0.0
        delay = min(MAX_BACKOFF, base * (2 ** (self.attempt - 1)))
        return float(delay * (0.5 + self.rng.random() / 2))

    @_in_client_language
    def answered(self, response: httpx.Response) -> T | Retry:
        """Decide after a response (already read)."""
        try:
            step = self._answered(response)
        except BaseException as exc:
            self._end(exc)
            raise
        if self.observation is not None:
            self._observe(step)
        return step

    @_in_client_language
    def failed(self, exc: Exception) -> T | Retry:
        """Decide after any exception raised while sending or reading; raises when final.

        An ``httpx.HTTPStatusError`` (or httpx2's) comes from a response hook
        (``raise_for_status``) of a user's ``http_client``: its response is classified as if
        the hook had not raised.
        """
        if isinstance(exc, _httpcompat.classes("HTTPStatusError")):
            return self.answered(exc.response)
        try:
            step = self._failed(exc)
        except BaseException as error:
            self._end(error)
            raise
        if self.observation is not None:
            self._observe(step)
        return step

    @_in_client_language
    def interrupted(self, exc: BaseException) -> None:
        """Annotate an exception that interrupts the call: cancellation, Ctrl-C, exit.

        Those must propagate as they are, but an operation interrupted once sending started
        may have been accepted — even between attempts, as an upstream retry may deliver an
        attempt that failed here: the exception gets a note with the referencia (printed in
        its traceback; ``exc.__notes__``), and a warning is logged. Exceptions the SDK raised
        itself are left alone.
        """
        if isinstance(exc, Exception):
            # The SDK's own exceptions ended the call already; anything else failed around
            # the sends (outside this state machine) and ends it now.
            self._finish(exc)
            return
        self._end(exc)
        call = self.call
        if not (call.starts_operation and call.referencia and self.attempt):
            return
        where = f"{call.method} {call.log_path or call.path}"
        note_interrupted(
            exc, where=where, referencia=call.referencia, after=f" after {self.attempt} attempt(s)"
        )

    def _end(self, exc: BaseException) -> None:
        """The call ends in ``exc``: nothing more is sent."""
        self._forget_key()
        self._finish(exc)

    def _observe(self, step: T | Retry) -> None:
        assert self.observation is not None
        if isinstance(step, Retry):
            _telemetry.guarded(self.observation.retry, self.attempt, step.delay, self.status)
        else:
            self._finish(step)

    def _finish(self, result: object) -> None:
        """Tell the observer, once, how the call ended (a result, or an exception)."""
        observation = self.observation
        if observation is not None:
            self.observation = None
            outcome = _telemetry.outcome_of(self.call, self.attempt, result)
            error = result if isinstance(result, BaseException) else None
            _telemetry.guarded(observation.finished, outcome, self.attempt, self.status, error)

    def _forget_key(self) -> None:
        # The exception raised to the caller reaches this request (``exc.response.request``,
        # an httpx exception's ``.request``), and httpx's repr of headers hides only
        # Authorization: the key must not be printable from there. No attempt follows.
        if "x-api-key" in self.request.headers:
            self.request.headers["x-api-key"] = "[redacted]"

    def _answered(self, response: httpx.Response) -> T | Retry:
        elapsed = time.perf_counter() - self.started
        status = self.status = response.status_code
        request_id = request_id_of(response.headers)
        self._log(status, elapsed, request_id)
        if 200 <= status < 300:
            http = HTTPInfo(
                status_code=status,
                headers=response.headers,
                request_id=request_id,
                elapsed=elapsed,
                attempts=self.attempt,
            )
            try:
                return self.call.parse(response, self.call, http)
            except ResponseError as exc:
                # A 2xx means the service took the operation: an unreadable body, or one about
                # another referencia, must not look like a refusal that invites a new
                # referencia (a second charge).
                if self.call.starts_operation:
                    raise self._unknown(exc) from exc
                raise
            except Exception as exc:  # a body the readers did not foresee (or unread)
                unreadable = ResponseError(
                    message(
                        "response.unreadable_exception",
                        where=f"{self.call.method} {self.call.log_path or self.call.path}",
                        status=status,
                        type=type(exc).__name__,
                    ),
                    response=response,
                    referencia=self.call.referencia,
                )
                unreadable.__cause__ = exc
                if self.call.starts_operation:
                    raise self._unknown(unreadable) from unreadable
                raise unreadable from exc
        error = error_from_response(response)
        if status >= 500:
            # A 5xx may come after the service acted (a gateway timing out behind it).
            self.maybe_sent = True
        if status in RETRY_STATUSES and self._retries_left() and self._may_repeat():
            delay = self.backoff()
            if status in (429, 503) and self.config.retry_backoff > 0:
                after = retry_after(response.headers)
                if after is not None:
                    delay = after
            return Retry(delay)
        if self.call.starts_operation:
            if status == 409 and (
                self.attempt > 1 or self.maybe_sent or not self.call.referencia_supplied
            ):
                # REFERENCIA_DUPLICADA proves "not accepted" only when the referencia can have
                # been used by nobody but the caller before this call. On a retry it is most
                # likely this very call's earlier attempt; for a referencia the SDK generated,
                # only an upstream retry (a proxy, a service mesh) can have used it.
                raise self._unknown(error)
            if self.maybe_sent and self._ambiguous(error):
                raise self._unknown(error)
        raise error

    def _ambiguous(self, error: APIError) -> bool:
        # Once an earlier attempt of this very call may have reached the service, only an
        # answer that judges the request's *bytes* proves that nothing was accepted: the same
        # bytes were refused the first time too. 5xx and 429 say nothing about it; and
        # 401/403/404 or a customer "not found" can follow a state change (a rotated key, an
        # unlinked terminal) after the first attempt was accepted. Reporting any of those as
        # "rejected" would invite a second charge.
        return not (error.status_code == 400 and error.codigo in _VERDICTS_ON_THE_REQUEST)

    def _failed(self, exc: Exception) -> Retry:
        elapsed = time.perf_counter() - self.started
        self._log(None, elapsed, None, exc)
        # Only these prove that no byte left; anything else (an httpx read error, or a
        # RuntimeError of an event loop that is gone, raised after the request was written)
        # may have followed the send.
        if not isinstance(exc, _httpcompat.classes(*_NOT_SENT, *_FATAL)):
            self.maybe_sent = True
        if isinstance(exc, _httpcompat.classes(*_FATAL)) or not isinstance(
            exc, _httpcompat.classes("TransportError")
        ):
            raise self._final(exc)
        if self._retries_left() and self._may_repeat():
            return Retry(self.backoff())
        raise self._final(exc)

    def _final(self, exc: Exception) -> SmartPOSError:
        wrapped: TransportError
        where = f"{self.call.method} {self.call.log_path or self.call.path}"
        text = message("call.failed", where=where, attempts=self.attempt, cause=_describe(exc))
        # Any text may come from a user's hook or transport: keep the key out of it (a key
        # too short to be real would only garble the message).
        if len(self.config.api_key) >= 6:
            text = text.replace(self.config.api_key, "[redacted]")
        if isinstance(exc, _httpcompat.classes("TimeoutException")):
            wrapped = TimeoutError(text)
        else:
            wrapped = TransportError(text)
        wrapped.__cause__ = exc
        if self.call.starts_operation and self.maybe_sent:
            return self._unknown(wrapped)
        return wrapped

    def _unknown(self, last: BaseException) -> OutcomeUnknownError:
        assert self.call.referencia is not None
        logger.warning(
            "smartpos: outcome unknown for %s %s referencia=%s after %d attempt(s)",
            self.call.method,
            self.call.log_path or self.call.path,
            self.call.referencia,
            self.attempt,
        )
        error = OutcomeUnknownError(self.call.referencia, last, attempts=self.attempt)
        error.__cause__ = last
        return error

    def _log(
        self,
        status: int | None,
        elapsed: float,
        request_id: str | None,
        exc: BaseException | None = None,
    ) -> None:
        level = (
            logging.INFO
            if exc is None and status is not None and status < 400
            else (logging.WARNING)
        )
        if not logger.isEnabledFor(level):
            return
        logger.log(
            level,
            "%s %s -> %s attempt=%d elapsed_ms=%.1f request_id=%s",
            self.call.method,
            self.call.log_path or self.call.path,
            status if exc is None else type(exc).__name__,
            self.attempt,
            elapsed * 1000,
            request_id or "-",
        )


def _describe(exc: BaseException) -> str:
    """``Type: message`` of any exception, even one whose ``__str__`` fails; at most 300 chars."""
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - a broken __str__ of a user's exception
        text = "<unprintable>"
    if len(text) > 300:
        text = text[:300] + " (cut)"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def note_interrupted(exc: BaseException, *, where: str, referencia: str, after: str = "") -> None:
    """Give an exception that cut a call the referencia's note (once), and log it.

    The one annotation of every interruption: of a send (`Attempts.interrupted`) and of a
    journaled call's other steps (``_outcome_calls.interrupted``). A note naming the
    referencia already (the send's, inside a ``create_and_wait``) is not added twice.
    """
    notes = getattr(exc, "__notes__", None)
    if isinstance(notes, list) and any(referencia in str(note) for note in notes):
        return
    add_note(exc, message("call.interrupted", where=where, referencia=referencia))
    logger.warning(
        "smartpos: outcome unknown for %s referencia=%s: interrupted by %s%s",
        where,
        referencia,
        type(exc).__name__,
        after,
    )


def add_note(exc: BaseException, note: str) -> None:
    """``exc.add_note(note)``, also on Python 3.10 (``__notes__`` set by hand, not printed)."""
    add = getattr(exc, "add_note", None)
    if add is not None:
        add(note)
        return
    notes = getattr(exc, "__notes__", None)
    if not isinstance(notes, list):
        notes = []
        try:
            exc.__notes__ = notes  # type: ignore[attr-defined]
        except (AttributeError, TypeError):
            return
    notes.append(note)


_rng = random.Random()
