"""smartpos in FastAPI (and Starlette): a webhook router in the OpenAPI, a client dependency,
a worker in the lifespan.

Install with ``pip install "smartpos[fastapi]"``::

    from typing import Annotated
    from fastapi import FastAPI
    from smartpos.integrations.fastapi import SmartPOS, SmartPOSClient

    smartpos_app = SmartPOS(
        store="sqlite:///smartpos-inbox.sqlite3",
        webhook_secret=os.environ["SMARTPOS_WEBHOOK_SECRET"],
        handler=handle_event,              # async def or def; runs in the lifespan's worker
    )
    app = FastAPI(lifespan=smartpos_app.lifespan)
    app.include_router(smartpos_app.router, prefix="/webhooks")   # POST /webhooks/smartpos

    @app.post("/charge")
    async def charge(client: SmartPOSClient) -> dict[str, str]:
        accepted = await client.payments.create(...)

The router's ``POST`` endpoint appears in ``/openapi.json`` with the envelope's schema and the
receiver's answers (200, 400, 401, 413, 503). It reads the raw body itself (the receiver needs
the exact bytes for a signature), refuses more than ``max_body_bytes`` while reading, and
stores events without blocking the event loop, batching concurrent deliveries into one commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Annotated, Any

try:
    from fastapi import APIRouter, Depends, FastAPI, Request, Response
    from pydantic import BaseModel, Field
except ImportError as exc:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(
        "smartpos.integrations.fastapi needs FastAPI: pip install 'smartpos[fastapi]'"
    ) from exc

import smartpos
from smartpos._messages import message
from smartpos.webhooks import AsyncWorker, Event, Receipt, Store, Verifier, WebhookReceiver, Worker
from smartpos.webhooks._open import StoreSetting, open_store
from smartpos.webhooks._worker import _is_async

from ._openapi import ENVELOPE_SCHEMA, RESPONSE_DESCRIPTIONS, WEBHOOK_DESCRIPTION
from ._receive import (
    DEFAULT_SECRET_HEADER,
    AsyncReceive,
    build_receiver,
    build_verifier,
    check_length,
    declared_too_large,
    response_headers,
)

__all__ = [
    "SmartPOS",
    "SmartPOSClient",
    "WebhookAnswer",
    "WebhookError",
    "WebhookErrorBody",
    "get_async_client",
]

Handler = Callable[[Event], object] | Callable[[Event], Awaitable[object]]


class WebhookAnswer(BaseModel):
    """The 200 answer: the event is stored (now or before)."""

    recebido: bool = Field(description="Always true: the event is stored.")
    duplicado: bool = Field(description="The id was already stored.")
    conflito: bool | None = Field(
        default=None, description="A redelivery whose body differed; the first one is kept."
    )


class WebhookErrorBody(BaseModel):
    """The ``erro`` object of a refusal, in the service's own shape."""

    codigo: str = Field(description="EVENTO_INVALIDO, NAO_AUTORIZADO, CORPO_MUITO_GRANDE, ...")
    mensagem: str


class WebhookError(BaseModel):
    """A refusal: the delivery was not stored."""

    erro: WebhookErrorBody


_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {
        "model": WebhookAnswer if status == 200 else WebhookError,
        "description": description,
    }
    for status, description in RESPONSE_DESCRIPTIONS.items()
}


class SmartPOS:
    """The smartpos pieces of one FastAPI application.

    Args:
        store: The webhook inbox: a path, ``sqlite:///``, ``redis://``, ``postgresql://``
            URL, or a store (see ``smartpos.integrations.open_store``).
        webhook_secret: Deliveries must carry it (or one of several while rotating) in
            ``webhook_secret_header``; ``None`` without a ``verifier``: no check
            (development only).
        webhook_secret_header: The header that carries the secret.
        webhook_scheme: The signature scheme ``webhook_secret`` is the key material of
            (``"standard-webhooks"``, ``"stripe"``, ``"hmac-manifest"``, ``"token"``,
            ``"ed25519"``, ``"rsa"``, ``"hmac"``); ``None``: a shared secret in
            ``webhook_secret_header``.
        webhook_scheme_options: That scheme's options (``template``, ``header``,
            ``tolerance``...; see ``smartpos.webhooks.make_verifier``).
        verifier: A ``Verifier`` of your own instead of the secret.
        handler: Called with each stored event by a worker the lifespan runs: an
            ``async def`` runs on the app's loop (``AsyncWorker``), a plain function in a
            thread (``Worker``). ``None``: run workers elsewhere (``Worker``, Celery).
        path: The webhook path inside the router.
        api_key: For the shared ``AsyncClient``; default: env ``SMARTPOS_API_KEY``.
        base_url: Default: env ``SMARTPOS_BASE_URL``.
        client_options: More ``AsyncClient`` arguments (``timeout``, ``max_retries``,
            ``transport`` in tests).
        store_options: More arguments of the store's constructor.
        receiver_options: More ``WebhookReceiver`` arguments (``max_body_bytes``).
        worker_options: More worker arguments (``lease``, ``batch``, ``poll_interval``).
        tags: OpenAPI tags of the webhook operation.

    Raises:
        smartpos.ConfigurationError: Both a secret and a verifier, an unusable signature
            scheme, an unknown store scheme, or an option the receiver refuses.
    """

    def __init__(
        self,
        *,
        store: StoreSetting,
        webhook_secret: str | bytes | Sequence[str | bytes] | None = None,
        webhook_secret_header: str = DEFAULT_SECRET_HEADER,
        webhook_scheme: str | None = None,
        webhook_scheme_options: Mapping[str, Any] | None = None,
        verifier: Verifier | None = None,
        handler: Handler | None = None,
        path: str = "/smartpos",
        api_key: str | None = None,
        base_url: str | None = None,
        client_options: Mapping[str, Any] | None = None,
        store_options: Mapping[str, Any] | None = None,
        receiver_options: Mapping[str, Any] | None = None,
        worker_options: Mapping[str, Any] | None = None,
        tags: Sequence[str] = ("smartpos",),
    ) -> None:
        if handler is not None and not callable(handler):
            raise smartpos.ConfigurationError(message("integrations.handler"))
        self._store_setting = store
        self._store_options = dict(store_options or {})
        # Built now, so that a bad scheme fails at import time, not at the first delivery.
        self._verifier = build_verifier(
            secret=webhook_secret,
            secret_header=webhook_secret_header,
            verifier=verifier,
            scheme=webhook_scheme,
            scheme_options=webhook_scheme_options,
        )
        self._receiver_options = dict(receiver_options or {})
        self._handler = handler
        self._worker_options = dict(worker_options or {})
        self._client_arguments: dict[str, Any] = {
            "api_key": api_key,
            "base_url": base_url,
            **dict(client_options or {}),
        }
        self._lock = threading.Lock()
        self._store: Store | None = None
        self._receive: AsyncReceive | None = None
        self._client: smartpos.AsyncClient | None = None
        # Fail at import time on a bad setting, not at the first delivery.
        self._check_settings()
        self.router = self._make_router(path, list(tags))

    def __repr__(self) -> str:
        return f"<SmartPOS store={self._store!r}>"

    def _check_settings(self) -> None:
        from smartpos.webhooks._open import store_scheme

        if isinstance(self._store_setting, str):
            store_scheme(self._store_setting)

    @property
    def store(self) -> Store:
        """The webhook inbox, opened on first use."""
        with self._lock:
            if self._store is None:
                self._store = open_store(self._store_setting, self._store_options)
            return self._store

    @property
    def receiver(self) -> WebhookReceiver:
        """The ``WebhookReceiver`` behind the router."""
        return self._async_receive().receiver

    def _async_receive(self) -> AsyncReceive:
        store = self.store
        with self._lock:
            if self._receive is None:
                receiver = build_receiver(
                    store, verifier=self._verifier, options=self._receiver_options
                )
                self._receive = AsyncReceive(receiver)
            return self._receive

    @property
    def client(self) -> smartpos.AsyncClient:
        """The shared ``AsyncClient`` (built on first use; the lifespan closes it)."""
        with self._lock:
            if self._client is None:
                self._client = smartpos.AsyncClient(**self._client_arguments)
            return self._client

    def _make_router(self, path: str, tags: list[str]) -> APIRouter:
        router = APIRouter(tags=list(tags))

        async def smartpos_webhook(request: Request) -> Response:
            receipt = await self.receive(request)
            return Response(
                content=receipt.body,
                status_code=receipt.status_code,
                headers=response_headers(receipt),
            )

        router.add_api_route(
            path,
            smartpos_webhook,
            methods=["POST"],
            name="smartpos_webhook",
            operation_id="smartpos_webhook",
            summary="Receive a smartpos webhook event",
            description=WEBHOOK_DESCRIPTION,
            response_class=Response,
            response_model=None,
            responses=_RESPONSES,
            openapi_extra={
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": ENVELOPE_SCHEMA}},
                }
            },
        )
        return router

    def status_router(
        self,
        *,
        authorize: Callable[[Request, str], bool | Awaitable[bool]] | None,
        tags: Sequence[str] = ("smartpos",),
        max_wait: float = 25.0,
        heartbeat: float = 15.0,
    ) -> APIRouter:
        """The cashier's screen: status routes to mount behind your own authentication.

        ``app.include_router(smartpos_app.status_router(authorize=may_see), prefix="/caixa")``
        serves ``GET /caixa/sales/{sale_id}``, ``GET /caixa/operations/{referencia}`` (JSON,
        ``?wait=N`` long poll, or Server-Sent Events with ``Accept: text/event-stream``) and
        ``GET /caixa/smartpos-checkout.js``.

        Args:
            authorize: ``authorize(request, key) -> bool`` (or ``async``): whether this
                request may see this sale (``key``: its id) or operation (its referencia).
                Required.
            tags: OpenAPI tags.
            max_wait: The longest ``?wait=N`` (seconds).
            heartbeat: Seconds between the comments an idle stream sends so that proxies
                keep it open (every stream of the process beats at the same instants).

        The server's SIGTERM/SIGINT ends every open stream before the server waits for open
        responses (the browsers reconnect to another instance).

        Raises:
            smartpos.ConfigurationError: No ``authorize`` callable, or ``max_wait`` /
                ``heartbeat`` out of range.
        """
        from ._status_web import fastapi_router

        router: APIRouter = fastapi_router(
            lambda: self.store,
            authorize,
            tags=list(tags),
            max_wait=max_wait,
            heartbeat=heartbeat,
        )
        return router

    def close_streams(self) -> None:
        """End every open status stream now (call it when the server starts shutting down:
        uvicorn waits for open responses before the lifespan's shutdown runs)."""
        from ._status import hub_for

        with self._lock:
            store = self._store
        if store is not None:
            hub_for(store).close()

    async def receive(self, request: Request) -> Receipt:
        """Read, check and store one delivery from a Starlette/FastAPI request.

        For a route of your own (``@app.post(...)``) that wants the receipt; the router's
        endpoint does exactly this.
        """
        receive = self._async_receive()
        limit = receive.receiver.max_body_bytes
        declared = request.headers.get("content-length")
        refused = declared_too_large(declared, limit)
        if refused is not None:
            return refused
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                break
        body = b"".join(chunks)
        refused = check_length(body, declared, limit)
        if refused is not None:
            return refused
        return await receive(body, request.headers)

    @contextlib.asynccontextmanager
    async def lifespan(self, app: FastAPI) -> AsyncIterator[None]:
        """``FastAPI(lifespan=smartpos_app.lifespan)``: start the worker, close at shutdown.

        With a lifespan of your own, nest it: ``async with smartpos_app.lifespan(app): ...``.
        At shutdown the worker finishes the event in hand and gives the rest back, pending
        commits are drained, and the client and the store (when opened here) are closed.
        """
        app.state.smartpos = self
        self._async_receive()  # open the store now: a bad one fails the start-up
        stop: Callable[[], None] | None = None
        task: asyncio.Future[Any] | None = None
        handler: Any = self._handler  # _is_async tells the two kinds apart at run time
        if handler is not None:
            if _is_async(handler):
                async_worker = AsyncWorker(self.store, handler, **self._worker_options)
                task = asyncio.ensure_future(async_worker.run())
                stop = async_worker.stop
            else:
                worker = Worker(self.store, handler, **self._worker_options)
                task = asyncio.ensure_future(asyncio.to_thread(worker.run))
                stop = worker.stop
        try:
            yield
        finally:
            self.close_streams()
            if stop is not None and task is not None:
                stop()
                await task
            await self._async_receive().drain()
            await self.aclose()

    async def aclose(self) -> None:
        """Close the shared client, and the store when it was opened from a URL or a path."""
        with self._lock:
            client, self._client = self._client, None
            store = self._store if self._store is not self._store_setting else None
            self._store = None
            self._receive = None
        if client is not None:
            await client.close()
        if store is not None:
            store.close()


def _smartpos_of(request: Request) -> SmartPOS:
    found = getattr(request.app.state, "smartpos", None)
    if not isinstance(found, SmartPOS):
        raise RuntimeError(
            "no SmartPOS on this app: create the app with FastAPI(lifespan=smartpos_app.lifespan)"
        )
    return found


async def get_async_client(request: Request) -> smartpos.AsyncClient:
    """The dependency behind `SmartPOSClient`: the app's shared ``AsyncClient``."""
    return _smartpos_of(request).client


SmartPOSClient = Annotated[smartpos.AsyncClient, Depends(get_async_client)]
"""A path operation parameter typed ``SmartPOSClient`` receives the shared ``AsyncClient``."""
