"""``WebhookReceiver``: check, store durably, answer at once; processing happens later.

The service wants a 2xx within 1 to 2 seconds and delivers again when it does not get one, so
the receiver does the least that makes an event safe and nothing more, in this order:

1. the body size (413 when too large);
2. the verifier (401): before anything reads the body, so a forged request cannot claim, and
   so suppress, a real event id;
3. the envelope (400 ``EVENTO_INVALIDO`` only for a body that cannot be an event at all: not
   a JSON object, or no non-empty string ``id`` and ``tipo``);
4. ``store.put``: 200 for a new event and for a duplicate (the service must stop
   redelivering), 200 for a conflicting body (logged; the first one is kept), 503 when the
   store failed so that the service delivers again.

An event whose ``dados`` does not fit the typed schema is still stored and answered 200: the
mismatch surfaces in the worker (``Claim.event`` raises ``InvalidEventError``), where it is
dead-lettered and can be requeued after an upgrade. It is never lost to a strict parser.

``receive`` is the synchronous, framework-free core; ``asgi_app()`` and ``wsgi_app()`` wrap
it (the ASGI app batches concurrent deliveries into one store transaction).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Final, Protocol

import attrs

from ._events import Envelope, Event, InvalidEventError, _as_object, parse_envelope, parse_event
from ._store import EventLike, PutResult, Store
from ._verify import VerificationError, Verifier

if TYPE_CHECKING:
    from ._adapters import ASGIApp, WSGIApp

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "Admitted",
    "HeadersLike",
    "Receipt",
    "WebhookReceiver",
    "error_body",
]

#: Largest body accepted by default; events of the spec are well under 2 KiB.
DEFAULT_MAX_BODY_BYTES: Final = 256 * 1024

_logger = logging.getLogger("smartpos.webhooks")


class HeadersLike(Protocol):
    """Request headers: a mapping, or anything with ``items()`` (werkzeug's ``Headers``)."""

    def items(self) -> Iterable[tuple[str, str]]:
        """Header name and value pairs."""
        ...


_ANSWERS: Final = {
    PutResult.NEW: b'{"recebido":true,"duplicado":false}',
    PutResult.DUPLICATE: b'{"recebido":true,"duplicado":true}',
    PutResult.CONFLICT: b'{"recebido":true,"duplicado":true,"conflito":true}',
}


def error_body(codigo: str, mensagem: str) -> bytes:
    """Return the short JSON error answer, in the service's own ``erro`` shape."""
    return json.dumps(
        {"erro": {"codigo": codigo, "mensagem": mensagem}}, ensure_ascii=False
    ).encode("utf-8")


@attrs.frozen(slots=True, kw_only=True)
class Receipt:
    """What the receiver did with one delivery, and what to answer.

    Attributes:
        status_code: The HTTP status to answer (200, 400, 401, 413 or 503).
        body: A short JSON body to answer with (``application/json``).
        duplicate: ``True`` when the id was already stored (``DUPLICATE`` or ``CONFLICT``).
        event: The typed event; ``None`` when the body was rejected, and also when it was
            stored but its ``dados`` does not fit the typed schema (see ``error``).
        envelope: The envelope that was stored; ``None`` when the body was rejected.
        put_result: What ``store.put`` answered; ``None`` when it was not called or failed.
        error: Why the body was rejected or the store failed; for a stored event whose
            ``dados`` does not fit the schema (status 200), the ``InvalidEventError`` text.
    """

    status_code: int
    body: bytes = attrs.field(repr=False)
    duplicate: bool = False
    event: Event | None = None
    envelope: Envelope | None = attrs.field(default=None, repr=False)
    put_result: PutResult | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        """``True`` for a 2xx answer: the event is stored (now or before)."""
        return 200 <= self.status_code < 300


@attrs.frozen(slots=True)
class Admitted:
    """A delivery that passed every check and is ready for ``store.put`` (adapters' use)."""

    envelope: Envelope
    event: Event | None
    schema_error: str | None

    @property
    def stored(self) -> EventLike:
        """What to hand to the store: the typed event when it parsed, else the envelope."""
        return self.event if self.event is not None else self.envelope


class WebhookReceiver:
    """Receive webhook deliveries: verify, store durably, and say what to answer.

    Args:
        store: Where events are kept until a worker processes them
            (``SQLiteStore``, ``MemoryStore``, ``RedisStore``, ``PostgresStore``).
        verifier: Checks each delivery's authenticity first; ``None`` accepts all (only
            behind something else that checks, or in development).
        max_body_bytes: Larger bodies are answered 413 without being read further.

    Raises:
        ValueError: ``max_body_bytes`` is not a positive int, or ``verifier`` has no
            ``verify`` method.
    """

    def __init__(
        self,
        store: Store,
        *,
        verifier: Verifier | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    ) -> None:
        if isinstance(max_body_bytes, bool) or not isinstance(max_body_bytes, int):
            raise ValueError(f"max_body_bytes must be an int, not {max_body_bytes!r}")
        if max_body_bytes < 1:
            raise ValueError(f"max_body_bytes must be >= 1, not {max_body_bytes!r}")
        if verifier is not None and not callable(getattr(verifier, "verify", None)):
            raise ValueError("verifier must have a verify(body, headers) method")
        self._store = store
        self._verifier = verifier
        self._max_body_bytes = max_body_bytes

    def __repr__(self) -> str:
        return (
            f"WebhookReceiver({self._store!r}, verifier={self._verifier!r}, "
            f"max_body_bytes={self._max_body_bytes})"
        )

    @property
    def store(self) -> Store:
        """The store events are put into."""
        return self._store

    @property
    def max_body_bytes(self) -> int:
        """Largest body accepted."""
        return self._max_body_bytes

    def receive(
        self,
        body: bytes | bytearray | memoryview | str,
        headers: Mapping[str, str] | HeadersLike | None = None,
    ) -> Receipt:
        """Check, store and answer one delivery.

        Args:
            body: The request body exactly as received (a str is UTF-8 encoded).
            headers: The request headers, names in any case: a mapping, or anything with
                ``items()`` such as Flask's ``request.headers``.

        Returns:
            The receipt; answer ``receipt.body`` with ``receipt.status_code``. Never raises
            for a bad delivery or a failed store: those are status codes.
        """
        admitted = self.admit(body, headers)
        if isinstance(admitted, Receipt):
            return admitted
        try:
            result = self._store.put(admitted.stored)
        except Exception as exc:  # noqa: BLE001 - any store failure must become a 503
            return self.store_failed(admitted, exc)
        return self.stored(admitted, result)

    # The steps, so the adapters can run the store call elsewhere (a thread, a batch).

    def admit(
        self,
        body: bytes | bytearray | memoryview | str,
        headers: Mapping[str, str] | HeadersLike | None = None,
        *,
        lower_case: bool = False,
    ) -> Receipt | Admitted:
        """Run every check before the store: a rejection ``Receipt`` or an ``Admitted``.

        Args:
            body: The request body.
            headers: The request headers.
            lower_case: The header names are already lower-case (ASGI, WSGI adapters).
        """
        if isinstance(body, str):
            body = body.encode("utf-8")
        elif type(body) is not bytes:
            body = bytes(body)
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
            data = _as_object(body)
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
                envelope.id,
                envelope.tipo,
            )
        elif _logger.isEnabledFor(logging.INFO):
            _logger.info(
                "webhook event %s (%s) received: %s", envelope.id, envelope.tipo, result.value
            )
        if admitted.schema_error is not None and result is PutResult.NEW:
            _logger.warning(
                "webhook event %s (%s) stored, but its dados does not fit the schema (%s); "
                "a worker will dead-letter it",
                envelope.id,
                envelope.tipo,
                admitted.schema_error,
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
            "webhook event %s (%s) NOT stored, answered 503 so it is delivered again: %s",
            envelope.id,
            envelope.tipo,
            type(exc).__name__,
            exc_info=exc,
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
        _logger.warning("webhook delivery refused with %d %s: %s", status_code, codigo, mensagem)
        return Receipt(status_code=status_code, body=error_body(codigo, mensagem), error=mensagem)

    # Adapters.

    def asgi_app(self) -> ASGIApp:
        """Return a pure ASGI 3 application serving this receiver (POST only).

        Stores run in a worker thread, and deliveries that arrive while a commit is in flight
        are stored together in the next one (``store.put_many``); each request is answered
        only after its own event is durably stored.
        """
        from ._adapters import AsgiReceiver

        return AsgiReceiver(self)

    def wsgi_app(self) -> WSGIApp:
        """Return a PEP 3333 WSGI application serving this receiver (POST only)."""
        from ._adapters import WsgiReceiver

        return WsgiReceiver(self)
