"""The webhook views: CSRF-exempt, the raw body, the receiver's answers.

``webhook`` is a plain view for WSGI servers (gunicorn, uWSGI, ``runserver``);
``async_webhook`` is for ASGI servers (uvicorn, daphne, hypercorn), where it stores events
without blocking the event loop and batches concurrent deliveries into one commit. Both
answer exactly what ``WebhookReceiver`` decides: 200 for a new or duplicate event, 400 for a
body that cannot be an event, 401 for a failed verification, 405 for another method, 413 for
a body over ``max_body_bytes``, 503 (with ``Retry-After``) when the store failed, so that the
service delivers again. Processing happens later, in ``manage.py smartpos_worker``.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from smartpos.integrations._receive import check_length, declared_too_large, response_headers
from smartpos.webhooks import Receipt
from smartpos.webhooks._receiver import error_body

from ._state import get_async_receive, get_receiver

__all__ = ["async_webhook", "webhook"]

_NOT_ALLOWED = error_body("METODO_NAO_PERMITIDO", "only POST is accepted here")


def _read(request: HttpRequest, limit: int) -> bytes | Receipt:
    """The raw body, or the receipt refusing it (413 too large, 400 cut short)."""
    declared = request.META.get("CONTENT_LENGTH") or None
    refused = declared_too_large(declared, limit)
    if refused is not None:
        return refused
    # read() instead of request.body: at most limit + 1 bytes, whatever the body's size,
    # and without DATA_UPLOAD_MAX_MEMORY_SIZE's own error.
    body = request.read(limit + 1)
    return check_length(body, declared, limit) or body


def _respond(receipt: Receipt) -> HttpResponse:
    response = HttpResponse(receipt.body, status=receipt.status_code)
    for name, value in response_headers(receipt).items():
        response[name] = value
    return response


def _not_allowed() -> HttpResponse:
    response = HttpResponse(_NOT_ALLOWED, status=405, content_type="application/json")
    response["Allow"] = "POST"
    return response


class _EveryDatabase(frozenset[str]):
    """Holds every database alias: what ``transaction.non_atomic_requests`` records, for all."""

    def __contains__(self, alias: object) -> bool:
        return True


def _mark(view: object) -> None:
    # ATOMIC_REQUESTS would open a transaction on every database around a view that never
    # uses them (the inbox has its own connections), and refuses async views outright.
    view._non_atomic_requests = _EveryDatabase()  # type: ignore[attr-defined]


@csrf_exempt
def webhook(request: HttpRequest) -> HttpResponse:
    """Receive one delivery: store it durably, answer at once (``POST`` only).

    Route it at the webhook URL configured in the partner portal::

        path("webhooks/smartpos/", include("smartpos.integrations.django.urls"))
    """
    if request.method != "POST":
        return _not_allowed()
    receiver = get_receiver()
    read = _read(request, receiver.max_body_bytes)
    if isinstance(read, Receipt):
        return _respond(read)
    return _respond(receiver.receive(read, request.headers))


async def async_webhook(request: HttpRequest) -> HttpResponse:
    """``webhook`` for ASGI servers: the store call runs in a thread, commits are batched.

    Route it yourself::

        path("webhooks/smartpos/", async_webhook, name="smartpos-webhook")
    """
    if request.method != "POST":
        return _not_allowed()
    receive = get_async_receive()
    # Under ASGI Django has already spooled the body; reading it does not wait on the network.
    read = _read(request, receive.receiver.max_body_bytes)
    if isinstance(read, Receipt):
        return _respond(read)
    return _respond(await receive(read, request.headers))


_mark(webhook)
_mark(async_webhook)
# What csrf_exempt sets, set on the coroutine function itself: before Django 5.0 the decorator
# wraps it in a plain function, which Django then calls without awaiting (a 500 on 4.2).
async_webhook.csrf_exempt = True  # type: ignore[attr-defined]
