"""The cashier's screen in Django: the status endpoints, behind your own authorization.

::

    from smartpos.integrations.django.status_urls import status_urls

    def may_see(request, key):          # key: a sale id, or an operation's referencia
        return request.user.is_authenticated and request.user.has_perm("shop.checkout")

    urlpatterns = [
        path("caixa/smartpos/", include(status_urls(authorize=may_see))),
    ]

Routes: ``sales/<sale_id>``, ``operations/<referencia>`` (JSON, ``?wait=N`` long poll or
Server-Sent Events) and ``smartpos-checkout.js``; the store is ``SMARTPOS["STORE"]``. Under an
ASGI server pass ``asgi=True``: the views are ``async`` and a stream holds no thread.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.urls import URLPattern, path

from smartpos.integrations._status import (
    CHECKOUT_JS,
    HEARTBEAT,
    JS_HEADERS,
    MAX_WAIT,
    Key,
    check_authorize,
    end_streams_at_shutdown,
    plan_for,
)
from smartpos.integrations._status import checkout_js as _checkout_js
from smartpos.integrations._status_web import asgi_answer, wsgi_answer

from ._state import get_store

__all__ = ["status_urls"]


def _response(status: int, headers: dict[str, str], body: Any) -> HttpResponse:
    response: HttpResponse
    if isinstance(body, bytes):
        response = HttpResponse(body, status=status)
    else:
        response = StreamingHttpResponse(body, status=status)  # type: ignore[assignment]
    for name, value in headers.items():
        response[name] = value
    return response


def _arguments(request: HttpRequest) -> dict[str, Any]:
    return {
        "accept": request.headers.get("Accept"),
        "wait": request.GET.get("wait"),
        "last_event_id": request.headers.get("Last-Event-ID"),
        "since": request.GET.get("since"),
    }


def status_urls(
    *,
    authorize: object,
    asgi: bool = False,
    max_wait: float = MAX_WAIT,
    heartbeat: float = HEARTBEAT,
) -> list[URLPattern]:
    """The status URL patterns, for ``include(...)`` under a prefix of yours.

    Args:
        authorize: ``authorize(request, key) -> bool``: whether this request may see this
            sale (``key``: its id) or operation (``key``: its referencia). Required. With
            ``asgi=True`` it may be ``async``.
        asgi: ``async`` views (uvicorn, daphne): streams hold no thread.
        max_wait: The longest ``?wait=N`` (seconds).
        heartbeat: Seconds between the comments an idle stream sends so that proxies keep it
            open (every stream of the process beats at the same instants).

    The server's SIGTERM/SIGINT (gunicorn's worker, uvicorn) ends every open stream first,
    so that a graceful shutdown does not wait for the browsers (they reconnect elsewhere).

    Raises:
        smartpos.ConfigurationError: No ``authorize`` callable, or ``max_wait`` /
            ``heartbeat`` out of range.
    """
    checked = check_authorize(authorize)
    plan = plan_for(max_wait=max_wait, heartbeat=heartbeat)
    end_streams_at_shutdown()

    def sync_view(request: HttpRequest, key: Key) -> HttpResponse:
        status, headers, body = wsgi_answer(
            get_store(), checked, request, key, plan=plan, **_arguments(request)
        )
        return _response(status, headers, body)

    async def async_view(request: HttpRequest, key: Key) -> HttpResponse:
        from asgiref.sync import sync_to_async

        store = await sync_to_async(get_store)()
        status, headers, body = await asgi_answer(
            store, checked, request, key, plan=plan, **_arguments(request)
        )
        return _response(status, headers, body)

    def script(request: HttpRequest) -> HttpResponse:
        return _response(200, dict(JS_HEADERS), _checkout_js())

    if asgi:

        async def sale(request: HttpRequest, sale_id: str) -> HttpResponse:
            return await async_view(request, ("sale", sale_id))

        async def operation(request: HttpRequest, referencia: str) -> HttpResponse:
            return await async_view(request, ("operation", referencia))

        views: tuple[Any, Any] = (sale, operation)
    else:

        def sync_sale(request: HttpRequest, sale_id: str) -> HttpResponse:
            return sync_view(request, ("sale", sale_id))

        def sync_operation(request: HttpRequest, referencia: str) -> HttpResponse:
            return sync_view(request, ("operation", referencia))

        views = (sync_sale, sync_operation)
    return [
        path("sales/<str:sale_id>", views[0], name="smartpos-sale-status"),
        path("operations/<str:referencia>", views[1], name="smartpos-operation-status"),
        path(CHECKOUT_JS, script, name="smartpos-checkout-js"),
    ]
