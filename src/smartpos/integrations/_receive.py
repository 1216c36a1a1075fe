"""What every framework's webhook endpoint shares: reading the body, the async store path.

A framework gives the body and headers; these helpers refuse a body that is too large or cut
short exactly as the receiver's own ASGI and WSGI apps do, and store admitted events:

- from synchronous code with ``WebhookReceiver.receive`` (one ``store.put``);
- from an event loop through `AsyncReceive`: the checks run on the loop (they cost time
  linear in the body), the store call runs in a worker thread, and deliveries that arrive
  while a commit is in flight are stored together by the next one (the receiver's own group
  commit), so a burst of webhooks never blocks the loop or pays one fsync per event.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Mapping, Sequence
from typing import Any, Final

from smartpos._errors import ConfigurationError
from smartpos._messages import message
from smartpos.webhooks import (
    Receipt,
    SharedSecretVerifier,
    Store,
    Verifier,
    WebhookReceiver,
    make_verifier,
)
from smartpos.webhooks._adapters import GroupCommit
from smartpos.webhooks._open import option_problem
from smartpos.webhooks._receiver import HeadersLike, error_body

__all__ = [
    "DEFAULT_SECRET_HEADER",
    "AsyncReceive",
    "build_receiver",
    "build_verifier",
    "check_length",
    "declared_too_large",
    "response_headers",
]

#: The header a ``SharedSecretVerifier`` reads by default.
DEFAULT_SECRET_HEADER: Final = "x-webhook-secret"  # noqa: S105 - a header name


def build_verifier(
    *,
    secret: str | bytes | Sequence[str | bytes] | None = None,
    secret_header: str = DEFAULT_SECRET_HEADER,
    verifier: Verifier | None = None,
    scheme: str | None = None,
    scheme_options: Mapping[str, Any] | None = None,
) -> Verifier | None:
    """The verifier the settings every integration takes describe (``None``: no check).

    Args:
        secret: The key material: deliveries must carry it in ``secret_header`` (the
            ``shared-secret`` scheme, the default), or, with ``scheme``, the secret(s) or
            public key(s) of that scheme (several while rotating).
        secret_header: The header of the shared secret. For another scheme the header is a
            scheme option (``scheme_options={"header": ...}``).
        verifier: A ``Verifier`` of your own; neither ``secret`` nor ``scheme`` with it.
        scheme: A signature scheme of ``smartpos.webhooks.make_verifier``
            (``"standard-webhooks"``, ``"stripe"``, ``"hmac-manifest"``, ...).
        scheme_options: The scheme's options (``template``, ``header``, ``tolerance``...).

    Raises:
        ConfigurationError: Conflicting settings, a scheme without its key material, or what
            the scheme's verifier refuses. Secrets never appear in the message.
    """
    if verifier is not None and (secret is not None or scheme is not None):
        raise ConfigurationError(message("integrations.secret_and_verifier"))
    if scheme is None:
        if scheme_options:
            raise ConfigurationError(message("integrations.scheme_options_alone"))
        if secret is None:
            return verifier
        try:
            return SharedSecretVerifier(secret_header, secret=secret)
        except ValueError as exc:
            raise ConfigurationError(message("integrations.bad_secret", problem=exc)) from None
    if not isinstance(scheme, str):
        raise ConfigurationError(message("integrations.scheme_type"))
    if secret is None:
        raise ConfigurationError(message("integrations.scheme_no_secret", scheme=scheme))
    options = dict(scheme_options or {})
    if scheme == "shared-secret":
        options.setdefault("header", secret_header)
    elif secret_header.strip().lower() != DEFAULT_SECRET_HEADER:
        raise ConfigurationError(message("integrations.scheme_secret_header", scheme=scheme))
    try:
        return make_verifier(scheme, secret, **options)
    except ConfigurationError as exc:
        raise ConfigurationError(message("integrations.bad_scheme", problem=exc)) from None


def build_receiver(
    store: Store,
    *,
    secret: str | bytes | Sequence[str | bytes] | None = None,
    secret_header: str = DEFAULT_SECRET_HEADER,
    verifier: Verifier | None = None,
    scheme: str | None = None,
    scheme_options: Mapping[str, Any] | None = None,
    options: Mapping[str, Any] | None = None,
) -> WebhookReceiver:
    """A ``WebhookReceiver`` from the settings every integration takes.

    Args:
        store: The inbox.
        secret: Deliveries must carry it (or one of several, while rotating) in
            ``secret_header``; with ``scheme``, the key material of that scheme; ``None``
            with no ``verifier``: no check (development only).
        secret_header: The header that carries the shared secret.
        verifier: A ``Verifier`` of your own; not with ``secret`` nor ``scheme``.
        scheme: A signature scheme name (see `build_verifier`).
        scheme_options: The scheme's options.
        options: More ``WebhookReceiver`` arguments (``max_body_bytes``, ``store_timeout``).

    Raises:
        ConfigurationError: Conflicting or unusable verification settings, or options the
            receiver does not take. Secrets never appear in the message.
    """
    verifier = build_verifier(
        secret=secret,
        secret_header=secret_header,
        verifier=verifier,
        scheme=scheme,
        scheme_options=scheme_options,
    )
    kwargs = dict(options or {})
    try:
        return WebhookReceiver(store, verifier=verifier, **kwargs)
    except (TypeError, ValueError) as exc:
        problem = option_problem(exc, WebhookReceiver, kwargs)
        raise ConfigurationError(
            message("integrations.bad_receiver_options", problem=problem)
        ) from None


def _too_large(limit: int) -> Receipt:
    message = f"the body has more than {limit} bytes"
    return Receipt(status_code=413, body=error_body("CORPO_MUITO_GRANDE", message), error=message)


def declared_too_large(content_length: str | None, limit: int) -> Receipt | None:
    """The 413 answer when ``Content-Length`` already says the body is over ``limit``."""
    too_large = (
        content_length is not None
        and content_length.strip().isdigit()
        and int(content_length) > limit
    )
    return _too_large(limit) if too_large else None


def check_length(body: bytes, content_length: str | None, limit: int) -> Receipt | None:
    """The answer refusing a body read in full: 413 over ``limit``, 400 when cut short.

    Args:
        body: What was read: at most ``limit + 1`` bytes, so that "too large" shows.
        content_length: The ``Content-Length`` header, if any.
        limit: The receiver's ``max_body_bytes``.
    """
    if len(body) > limit:
        return _too_large(limit)
    if content_length is not None and content_length.strip().isdigit():
        declared = int(content_length)
        if len(body) < declared:
            # The sender went away: half an event is no event, and it will deliver again.
            message = f"the body is incomplete: {len(body)} of {declared} bytes arrived"
            return Receipt(
                status_code=400, body=error_body("CORPO_INCOMPLETO", message), error=message
            )
    return None


def response_headers(receipt: Receipt) -> dict[str, str]:
    """The headers of the answer: JSON, and ``Retry-After`` with a 503."""
    headers = {"Content-Type": "application/json"}
    if receipt.status_code == 503:
        headers["Retry-After"] = "1"
    return headers


class AsyncReceive:
    """Receive deliveries from an event loop without blocking it (see the module docstring).

    One per receiver, shared by every request; it keeps one group commit per event loop, so
    it also serves a framework that runs each request on a loop of its own.
    """

    def __init__(self, receiver: WebhookReceiver) -> None:
        self.receiver = receiver
        self._commits: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, GroupCommit] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()

    def _commit(self) -> GroupCommit:
        loop = asyncio.get_running_loop()
        with self._lock:
            commit = self._commits.get(loop)
            if commit is None:
                receiver = self.receiver
                commit = GroupCommit(receiver.store, timeout=receiver.store_timeout)
                self._commits[loop] = commit
            return commit

    async def __call__(
        self,
        body: bytes,
        headers: Mapping[str, str] | HeadersLike | None = None,
    ) -> Receipt:
        """Check and store one delivery; the receipt says what to answer. Never raises for
        a bad delivery or a failed store (those are status codes)."""
        receiver = self.receiver
        admitted = receiver.admit(body, headers)
        if isinstance(admitted, Receipt):
            return admitted
        try:
            result = await self._commit().put(admitted.stored)
        except Exception as exc:  # noqa: BLE001 - any store failure must become a 503
            return receiver.store_failed(admitted, exc)
        return receiver.stored(admitted, result)

    async def drain(self) -> None:
        """Wait for the commits of this loop still in flight (at shutdown)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            commit = self._commits.get(loop)
        if commit is not None:
            await commit.drain()
