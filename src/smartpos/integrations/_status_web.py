"""The status endpoints in each framework: thin adapters over `_status` (see its docstring).

Every framework mounts the same three routes under the prefix the partner chooses, behind the
partner's own authentication and the ``authorize(request, key)`` callable it must give:

- ``GET sales/<sale_id>``: the sale;
- ``GET operations/<referencia>``: one operation (a payment, a QR code: the pairing stream);
- ``GET smartpos-checkout.js``: the browser helper.

JSON at once; JSON after the first change with ``?wait=N`` (≤ 25 s); Server-Sent Events with
``Accept: text/event-stream``. 403 when ``authorize`` says no (before the store is read: a
refused request learns nothing, not even whether the sale exists), 404 when the store knows
no such key, 503 when the store fails.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING, Any

from smartpos.webhooks._store_errors import StoreError

from ._status import (
    CHECKOUT_JS,
    FORBIDDEN,
    JS_HEADERS,
    JSON_HEADERS,
    SSE_HEADERS,
    Authorize,
    Key,
    StatusAnswer,
    _error,
    _Plan,
    check_authorize,
    checkout_js,
    decide,
    end_streams_at_shutdown,
    follow,
    follow_async,
    hub_for,
    plan_for,
)

if TYPE_CHECKING:
    from smartpos.webhooks import Store

__all__ = ["STORE_FAILED", "asgi_answer", "wsgi_answer"]

STORE_FAILED = _error(503, "ARMAZENAMENTO_INDISPONIVEL", "the store failed; try again")


def wsgi_answer(
    store: Store,
    authorize: Authorize,
    request: Any,
    key: Key,
    *,
    accept: str | None,
    wait: str | None,
    last_event_id: str | None,
    since: str | None,
    plan: _Plan,
) -> tuple[int, dict[str, str], Iterator[bytes] | bytes]:
    """One status request from a thread: status, headers and a body (bytes or chunks)."""
    if not authorize(request, key[1]):
        return 403, dict(JSON_HEADERS), FORBIDDEN
    answer = decide(
        accept=accept,
        wait=wait,
        last_event_id=last_event_id,
        since=since,
        max_wait=plan.max_wait,
    )
    if answer.status_code:
        return answer.status_code, dict(JSON_HEADERS), answer.body
    try:
        status, chunks = follow(hub_for(store), key, answer, plan=plan)
    except StoreError:
        return 503, {**JSON_HEADERS, "Retry-After": "1"}, STORE_FAILED
    if status == 200 and answer.stream:
        return status, dict(SSE_HEADERS), chunks
    return status, dict(JSON_HEADERS), b"".join(chunks)


async def asgi_answer(
    store: Store,
    authorize: Authorize,
    request: Any,
    key: Key,
    *,
    accept: str | None,
    wait: str | None,
    last_event_id: str | None,
    since: str | None,
    plan: _Plan,
) -> tuple[int, dict[str, str], AsyncIterator[bytes] | bytes]:
    """`wsgi_answer` on an event loop (``authorize`` may be ``async``)."""
    allowed = authorize(request, key[1])
    if inspect.isawaitable(allowed):
        allowed = await allowed
    if not allowed:
        return 403, dict(JSON_HEADERS), FORBIDDEN
    answer: StatusAnswer = decide(
        accept=accept,
        wait=wait,
        last_event_id=last_event_id,
        since=since,
        max_wait=plan.max_wait,
    )
    if answer.status_code:
        return answer.status_code, dict(JSON_HEADERS), answer.body
    try:
        status, chunks = await follow_async(hub_for(store), key, answer, plan=plan)
    except StoreError:
        return 503, {**JSON_HEADERS, "Retry-After": "1"}, STORE_FAILED
    if status == 200 and answer.stream:
        return status, dict(SSE_HEADERS), chunks
    return status, dict(JSON_HEADERS), b"".join([c async for c in chunks])


# --- FastAPI / Starlette -------------------------------------------------------------------


def fastapi_router(
    get_store: Callable[[], Store],
    authorize: object,
    *,
    tags: list[str],
    max_wait: object,
    heartbeat: object,
) -> Any:
    """An ``APIRouter`` with the status routes (see ``SmartPOS.status_router``)."""
    from fastapi import APIRouter, Request, Response
    from fastapi.responses import StreamingResponse

    checked = check_authorize(authorize)
    plan = plan_for(max_wait=max_wait, heartbeat=heartbeat)
    end_streams_at_shutdown()
    router = APIRouter(tags=list[Any](tags))

    async def answer(request: Request, key: Key) -> Response:
        status, headers, body = await asgi_answer(
            get_store(),
            checked,
            request,
            key,
            accept=request.headers.get("accept"),
            wait=request.query_params.get("wait"),
            last_event_id=request.headers.get("last-event-id"),
            since=request.query_params.get("since"),
            plan=plan,
        )
        if isinstance(body, bytes):
            return Response(body, status_code=status, headers=headers)
        return StreamingResponse(body, status_code=status, headers=headers)

    async def smartpos_sale_status(request: Request, sale_id: str) -> Response:
        return await answer(request, ("sale", sale_id))

    async def smartpos_operation_status(request: Request, referencia: str) -> Response:
        return await answer(request, ("operation", referencia))

    async def smartpos_checkout_js() -> Response:
        return Response(checkout_js(), headers=dict(JS_HEADERS))

    # Resolved here: with postponed annotations FastAPI would look these names up in this
    # module's globals, where the lazily imported ``Request`` is not.
    smartpos_sale_status.__annotations__ = {"request": Request, "sale_id": str, "return": Response}
    smartpos_operation_status.__annotations__ = {
        "request": Request,
        "referencia": str,
        "return": Response,
    }
    smartpos_checkout_js.__annotations__ = {"return": Response}
    for path, endpoint, summary in (
        ("/sales/{sale_id}", smartpos_sale_status, "A sale's state (JSON, long poll or SSE)"),
        (
            "/operations/{referencia}",
            smartpos_operation_status,
            "An operation's state: a payment, a QR code (JSON, long poll or SSE)",
        ),
        (f"/{CHECKOUT_JS}", smartpos_checkout_js, "The browser helper"),
    ):
        router.add_api_route(
            path,
            endpoint,
            methods=["GET"],
            name=endpoint.__name__,
            summary=summary,
            response_class=Response,
            response_model=None,
        )
    return router


# --- Flask ---------------------------------------------------------------------------------


def flask_blueprint(
    get_store: Callable[[], Store],
    authorize: object,
    *,
    name: str,
    max_wait: object,
    heartbeat: object,
) -> Any:
    """A ``Blueprint`` with the status routes (see ``SmartPOS.status_blueprint``)."""
    from flask import Blueprint, Response, request

    checked = check_authorize(authorize)
    plan = plan_for(max_wait=max_wait, heartbeat=heartbeat)
    end_streams_at_shutdown()
    blueprint = Blueprint(name, __name__)

    def answer(key: Key) -> Response:
        status, headers, body = wsgi_answer(
            get_store(),
            checked,
            request,
            key,
            accept=request.headers.get("Accept"),
            wait=request.args.get("wait"),
            last_event_id=request.headers.get("Last-Event-ID"),
            since=request.args.get("since"),
            plan=plan,
        )
        response = Response(body, status=status, headers=headers)
        if not isinstance(body, bytes):
            response.direct_passthrough = True
        return response

    def sale(sale_id: str) -> Response:
        return answer(("sale", sale_id))

    def operation(referencia: str) -> Response:
        return answer(("operation", referencia))

    def script() -> Response:
        return Response(checkout_js(), headers=dict(JS_HEADERS))

    blueprint.add_url_rule("/sales/<sale_id>", "sale", sale, methods=["GET"])
    blueprint.add_url_rule("/operations/<referencia>", "operation", operation, methods=["GET"])
    blueprint.add_url_rule(f"/{CHECKOUT_JS}", "checkout_js", script, methods=["GET"])
    return blueprint
