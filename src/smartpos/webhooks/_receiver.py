"""``WebhookReceiver``: check, store durably, answer at once; processing happens later.

The service wants a 2xx within 1 to 2 seconds and delivers again when it does not get one, so
the receiver does the least that makes an event safe and nothing more, in this order:

1. the body size (413 when too large);
2. the verifier (401): before anything reads the body, so a forged request cannot claim, and
   so suppress, a real event id;
3. the envelope (400 ``EVENTO_INVALIDO`` only for a body that cannot be an event at all: not
   a JSON object, or no ``id`` and ``tipo`` a store can hold: non-empty strings of at most
   256 characters without control characters or lone surrogates);
4. ``store.put``: 200 for a new event and for a duplicate (the service must stop
   redelivering), 200 for a conflicting body (logged; the first one is kept), 503 when the
   store failed, or did not answer within ``store_timeout``, so that the service delivers
   again.

Admission costs time linear in the body whatever its shape (see ``decode_json``), so no body
can hold up the answers to the others. A body with a UTF-8 byte order mark, or in cp1252 /
Latin-1, is read rather than refused; a lone surrogate escape (``"\\ud800"``) in a string is
stored as it came, escaped; a ``criadoEm`` that cannot be expressed in UTC is stored as no
``criadoEm`` (the worker then dead-letters the event): one odd event never costs an approval,
and never fails the events stored with it.

An event whose ``dados`` does not fit the typed schema is still stored and answered 200: the
mismatch surfaces in the worker (``Claim.event`` raises ``InvalidEventError``), where it is
dead-lettered and can be requeued after an upgrade. It is never lost to a strict parser.

``receive`` is the synchronous, framework-free core; ``asgi_app()`` and ``wsgi_app()`` wrap
it (the ASGI app batches concurrent deliveries into one store transaction).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from typing import Any, Final

from smartpos import _telemetry
from smartpos._errors import ConfigurationError
from smartpos._messages import message

from ._adapters import ASGIApp, AsgiReceiver, WSGIApp, WsgiReceiver
from ._events import (
    Envelope,
    InvalidEventError,
    _as_object,
    escape_lone_surrogates,
    parse_envelope,
    parse_event,
)
from ._logsafe import configure_logging, loggable
from ._receipt import Admitted, HeadersLike, Receipt, error_body, takes_timeout
from ._seconds import check_seconds
from ._store_errors import StoreError
from ._store_interface import PutResult, Store
from ._verify import VerificationError, Verifier

# Admitted, HeadersLike, Receipt, error_body and takes_timeout live in the leaf ``_receipt``
# (so that ``_adapters`` need not import this module); they stay importable from here.
__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_STORE_TIMEOUT",
    "Admitted",
    "HeadersLike",
    "Receipt",
    "WebhookReceiver",
    "error_body",
    "takes_timeout",
]

#: Largest body accepted by default; events of the spec are well under 2 KiB.
DEFAULT_MAX_BODY_BYTES: Final = 256 * 1024
#: Seconds a delivery may wait for the store before it is answered 503. The service wants an
#: answer within 1 to 2 seconds; this leaves room for the network and the server around it.
DEFAULT_STORE_TIMEOUT: Final = 1.0

_logger = logging.getLogger("smartpos.webhooks")


_ANSWERS: Final = {
    PutResult.NEW: b'{"recebido":true,"duplicado":false}',
    PutResult.DUPLICATE: b'{"recebido":true,"duplicado":true}',
    PutResult.CONFLICT: b'{"recebido":true,"duplicado":true,"conflito":true}',
}


class WebhookReceiver:
    """Receive webhook deliveries: verify, store durably, and say what to answer.

    Args:
        store: Where events are kept until a worker processes them
            (``SQLiteStore``, ``MemoryStore``, ``RedisStore``, ``PostgresStore``).
        verifier: Checks each delivery's authenticity first; ``None`` accepts all (only
            behind something else that checks, or in development).
        max_body_bytes: Larger bodies are answered 413 without being read further.
        store_timeout: Seconds a delivery may wait for the store (a locked SQLite file, a
            slow server) before it is answered 503, so that the service delivers it again
            instead of giving up on an answer that comes too late. Passed to the store's
            ``put`` as ``timeout=`` (a store whose ``put`` takes no ``timeout`` is called
            without it); under ASGI it also bounds the wait behind another commit. ``None``
            leaves the waits to the store's own settings.

    Raises:
        ConfigurationError: ``max_body_bytes`` is not a positive int, ``store_timeout`` is not
            a positive number of seconds or ``None``, or ``verifier`` has no ``verify`` method.
    """

    def __init__(
        self,
        store: Store,
        *,
        verifier: Verifier | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        store_timeout: float | None = DEFAULT_STORE_TIMEOUT,
    ) -> None:
        if isinstance(max_body_bytes, bool) or not isinstance(max_body_bytes, int):
            raise ConfigurationError(message("webhooks.max_body_bytes_type", value=max_body_bytes))
        if max_body_bytes < 1:
            raise ConfigurationError(message("webhooks.max_body_bytes_range", value=max_body_bytes))
        if store_timeout is not None:
            store_timeout = check_seconds(
                "store_timeout", store_timeout, positive=True, option=True, or_none=True
            )
        if verifier is not None and not callable(getattr(verifier, "verify", None)):
            raise ConfigurationError(message("webhooks.verifier"))
        configure_logging()
        self._store = store
        self._verifier = verifier
        self._max_body_bytes = max_body_bytes
        self._store_timeout = store_timeout
        # Only the built-in stores are known to take timeout=; a hand-written one may not.
        self._put_options: dict[str, float] = (
            {"timeout": self._store_timeout}
            if self._store_timeout is not None and takes_timeout(getattr(store, "put", None))
            else {}
        )

    def __repr__(self) -> str:
        return (
            f"WebhookReceiver({self._store!r}, verifier={self._verifier!r}, "
            f"max_body_bytes={self._max_body_bytes}, store_timeout={self._store_timeout})"
        )

    @property
    def store(self) -> Store:
        """The store events are put into."""
        return self._store

    @property
    def max_body_bytes(self) -> int:
        """Largest body accepted."""
        return self._max_body_bytes

    @property
    def store_timeout(self) -> float | None:
        """Seconds a delivery may wait for the store before it is answered 503."""
        return self._store_timeout

    def receive(
        self,
        body: bytes | bytearray | memoryview | str | Mapping[str, Any],
        headers: Mapping[str, str] | HeadersLike | None = None,
    ) -> Receipt:
        """Check, store and answer one delivery.

        Args:
            body: The request body exactly as received (a str is UTF-8 encoded), or the JSON
                object a framework already parsed from it (Flask's ``request.json``), which
                is admitted as its JSON text would be. A signature verifier needs the raw
                bytes: pass those when you verify signatures.
            headers: The request headers, names in any case: a mapping, or anything with
                ``items()`` such as Flask's ``request.headers``.

        Returns:
            The receipt; answer ``receipt.body`` with ``receipt.status_code``. Never raises
            for a bad delivery or a failed store: those are status codes.

        Raises:
            TypeError: ``body`` is none of the above (``None`` included: Flask's
                ``request.json`` is ``None`` when the content type is not JSON; pass
                ``request.get_data()`` instead).
        """
        observer = _telemetry.observer
        if observer is None:
            return self._receive(body, headers)
        started = time.time_ns()
        receipt = self._receive(body, headers)
        _telemetry.guarded(observer.received, receipt, started)
        return receipt

    def _receive(
        self,
        body: bytes | bytearray | memoryview | str | Mapping[str, Any],
        headers: Mapping[str, str] | HeadersLike | None,
    ) -> Receipt:
        admitted = self.admit(body, headers)
        if isinstance(admitted, Receipt):
            return admitted
        try:
            result = self._store.put(admitted.stored, **self._put_options)
        except Exception as exc:  # noqa: BLE001 - any store failure must become a 503
            return self.store_failed(admitted, exc)
        return self.stored(admitted, result)

    # The steps, so the adapters can run the store call elsewhere (a thread, a batch).

    def admit(
        self,
        body: bytes | bytearray | memoryview | str | Mapping[str, Any],
        headers: Mapping[str, str] | HeadersLike | None = None,
        *,
        lower_case: bool = False,
    ) -> Receipt | Admitted:
        """Run every check before the store: a rejection ``Receipt`` or an ``Admitted``.

        Args:
            body: The request body, or a parsed JSON object (see ``receive``).
            headers: The request headers.
            lower_case: The header names are already lower-case (ASGI, WSGI adapters).

        Raises:
            TypeError: ``body`` is not bytes, str or a mapping.
        """
        if type(body) is not bytes:
            converted = _body_bytes(body)
            if isinstance(converted, str):
                return self._reject(400, "EVENTO_INVALIDO", converted)
            body = converted
        if len(body) > self._max_body_bytes:
            return self._reject(
                413,
                "CORPO_MUITO_GRANDE",
                f"the body has more than {self._max_body_bytes} bytes",
            )
        if self._verifier is not None:
            if headers is None:
                lowered: Mapping[str, str] = {}
            elif lower_case and isinstance(headers, Mapping):
                lowered = headers
            else:
                lowered = {str(k).lower(): v for k, v in headers.items()}
            try:
                self._verifier.verify(body, lowered)
            except VerificationError as exc:
                return self._reject(401, "NAO_AUTORIZADO", str(exc))
            except Exception as exc:
                # A broken verifier (a bug, a secret store that is down) is not the sender's
                # fault: answer 503 so that the service delivers the event again later.
                _logger.exception("webhook verifier failed; answered 503")
                return self._reject(503, "VERIFICACAO_INDISPONIVEL", type(exc).__name__)
        try:
            data = _as_object(body, lenient=True)
        except InvalidEventError as exc:
            return self._reject(400, "EVENTO_INVALIDO", str(exc))
        try:
            event = parse_event(data)
        except InvalidEventError as exc:
            # Not a typed event: still stored when it has an envelope (the worker will
            # dead-letter it); refused only when it cannot be an event at all.
            try:
                envelope = parse_envelope(data)
            except InvalidEventError as refused:
                return self._reject(400, "EVENTO_INVALIDO", str(refused))
            return Admitted(envelope, None, str(exc))
        return Admitted(Envelope(event.id, event.tipo, event.criado_em, data), event, None)

    def stored(self, admitted: Admitted, result: PutResult) -> Receipt:
        """The receipt for an event the store answered ``result`` for."""
        envelope = admitted.envelope
        if result is PutResult.CONFLICT:
            _logger.warning(
                "webhook event %s (%s) redelivered with a different body: answered 200, "
                "the first one is kept",
                loggable(envelope.id),
                loggable(envelope.tipo),
            )
        elif _logger.isEnabledFor(logging.INFO):
            _logger.info(
                "webhook event %s (%s) received: %s",
                loggable(envelope.id),
                loggable(envelope.tipo),
                result.value,
            )
        if admitted.schema_error is not None and result is PutResult.NEW:
            _logger.warning(
                "webhook event %s (%s) stored, but its dados does not fit the schema (%s); "
                "a worker will dead-letter it",
                loggable(envelope.id),
                loggable(envelope.tipo),
                loggable(admitted.schema_error, 200),
            )
        return Receipt(
            status_code=200,
            body=_ANSWERS[result],
            duplicate=result is not PutResult.NEW,
            event=admitted.event,
            envelope=envelope,
            put_result=result,
            error=admitted.schema_error,
        )

    def store_failed(self, admitted: Admitted, exc: BaseException) -> Receipt:
        """The receipt when ``store.put`` raised: 503, so the service delivers again."""
        envelope = admitted.envelope
        _logger.error(
            "webhook event %s (%s) NOT stored, answered 503 so it is delivered again: %s: %s",
            loggable(envelope.id),
            loggable(envelope.tipo),
            type(exc).__name__,
            loggable(exc, 200),
            # A StoreError says all there is to say; anything else is a bug worth its trace.
            exc_info=None if isinstance(exc, StoreError) else exc,
        )
        return Receipt(
            status_code=503,
            body=error_body(
                "ARMAZENAMENTO_INDISPONIVEL", "the event could not be stored; deliver it again"
            ),
            event=admitted.event,
            envelope=envelope,
            error=f"store failed: {type(exc).__name__}",
        )

    def _reject(self, status_code: int, codigo: str, mensagem: str) -> Receipt:
        _logger.warning(
            "webhook delivery refused with %d %s: %s", status_code, codigo, loggable(mensagem, 200)
        )
        return Receipt(status_code=status_code, body=error_body(codigo, mensagem), error=mensagem)

    # Adapters.

    def asgi_app(self) -> ASGIApp:
        """Return a pure ASGI 3 application serving this receiver (POST only).

        Stores run in a worker thread, and deliveries that arrive while a commit is in flight
        are stored together in the next one (``store.put_many``); each request is answered
        only after its own event is durably stored.
        """
        return AsgiReceiver(self)

    def wsgi_app(self) -> WSGIApp:
        """Return a PEP 3333 WSGI application serving this receiver (POST only)."""
        return WsgiReceiver(self)


def _body_bytes(body: object) -> bytes | str:
    """The bytes to admit for a body that is not ``bytes``, or why it is refused (a 400).

    Raises:
        TypeError: ``body`` is not bytes-like, str or a mapping.
    """
    if isinstance(body, (bytearray, memoryview)):
        return bytes(body)
    if isinstance(body, str):
        text = body
    elif isinstance(body, Mapping):
        # A framework's parsed JSON: admitted exactly as its JSON text would be (size,
        # verifier, depth, NaN), so both forms of one delivery get the same answer.
        try:
            text = json.dumps(body, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        except (TypeError, ValueError, RecursionError) as exc:
            return f"$: the parsed body is not a JSON object: {exc}"
    elif isinstance(body, bytes):
        return body
    else:
        raise TypeError(
            "receive() takes the body as bytes, str or a parsed JSON object (a mapping), not "
            f"{type(body).__name__}; with Flask, pass request.get_data() (request.json is "
            "None when the Content-Type is not JSON)"
        )
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates can only sit inside JSON strings: their escapes say the same.
        return escape_lone_surrogates(text)
