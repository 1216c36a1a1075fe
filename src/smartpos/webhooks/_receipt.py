"""What a delivery comes to: the ``Receipt`` answered, and what the front-ends share.

A leaf of the receiver's modules: ``_receiver`` (the framework-free ``WebhookReceiver``) and
``_adapters`` (its ASGI and WSGI applications) both import it, and it imports neither, so the
two never import each other in a circle. The adapters see the receiver only through
`ReceiverSteps`.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

import attrs

from ._events import Envelope, Event
from ._store_interface import EventLike, PutResult, Store

__all__ = [
    "Admitted",
    "HeadersLike",
    "Receipt",
    "ReceiverSteps",
    "error_body",
    "takes_timeout",
]


class HeadersLike(Protocol):
    """Request headers: a mapping, or anything with ``items()`` (werkzeug's ``Headers``)."""

    def items(self) -> Iterable[tuple[str, str]]:
        """Header name and value pairs."""
        ...


def error_body(codigo: str, mensagem: str) -> bytes:
    """Return the short JSON error answer, in the service's own ``erro`` shape."""
    return json.dumps(
        {"erro": {"codigo": codigo, "mensagem": mensagem}}, ensure_ascii=False
    ).encode("utf-8")


def takes_timeout(method: Callable[..., Any] | None) -> bool:
    """Whether a store method accepts ``timeout=`` (every built-in store; maybe not yours)."""
    if method is None:
        return False
    try:
        parameters = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(
        p.kind is inspect.Parameter.VAR_KEYWORD
        or (p.name == "timeout" and p.kind is not inspect.Parameter.POSITIONAL_ONLY)
        for p in parameters
    )


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


class ReceiverSteps(Protocol):
    """What the ASGI and WSGI adapters use of a ``WebhookReceiver``: its settings and steps.

    ``receive`` is the whole of one delivery; ``admit``, ``stored`` and ``store_failed`` are
    its steps, for an adapter that runs the store call elsewhere (a thread, a batch).
    """

    @property
    def store(self) -> Store:
        """The store events are put into."""
        ...

    @property
    def max_body_bytes(self) -> int:
        """Largest body accepted."""
        ...

    @property
    def store_timeout(self) -> float | None:
        """Seconds a delivery may wait for the store before it is answered 503."""
        ...

    def receive(
        self,
        body: bytes | bytearray | memoryview | str | Mapping[str, Any],
        headers: Mapping[str, str] | HeadersLike | None = None,
    ) -> Receipt:
        """Check, store and answer one delivery."""
        ...

    def admit(
        self,
        body: bytes | bytearray | memoryview | str | Mapping[str, Any],
        headers: Mapping[str, str] | HeadersLike | None = None,
        *,
        lower_case: bool = False,
    ) -> Receipt | Admitted:
        """Run every check before the store: a rejection ``Receipt`` or an ``Admitted``."""
        ...

    def stored(self, admitted: Admitted, result: PutResult) -> Receipt:
        """The receipt for an event the store answered ``result`` for."""
        ...

    def store_failed(self, admitted: Admitted, exc: BaseException) -> Receipt:
        """The receipt when ``store.put`` raised: 503, so the service delivers again."""
        ...
