"""Helpers of the outcome tests: a transport that records the exact bytes sent, client calls."""

from __future__ import annotations

import inspect
import json
import threading
import uuid
from collections.abc import Callable
from typing import Any

import httpx

from client_cases import SDK, in_the_tests_loop
from smartpos.testing import Sandbox

__all__ = [
    "PAYMENT",
    "Recording",
    "envelope",
    "on_client",
    "payment_kwargs",
]


def payment_kwargs(**extra: Any) -> dict[str, Any]:
    """The arguments of a payment on the sandbox's own customer and terminal."""
    return {
        "documento_cliente": Sandbox.DOCUMENTO,
        "valor_centavos": 1990,
        "smartpos_id": Sandbox.SMARTPOS_ID,
        **extra,
    }


PAYMENT = payment_kwargs()


class Recording(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """Records every request's method, path and exact body, then passes it on.

    ``before`` runs first with the request (e.g. to look into the journal at that moment).
    """

    def __init__(self, inner: Any, before: Callable[[httpx.Request], None] | None = None) -> None:
        self.inner = inner
        self.before = before
        self.sent: list[tuple[str, str, bytes]] = []
        self._lock = threading.Lock()

    def _record(self, request: httpx.Request) -> None:
        with self._lock:
            self.sent.append((request.method, request.url.path, request.content))
        if self.before is not None:
            self.before(request)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self._record(request)
        response: httpx.Response = self.inner.handle_request(request)
        return response

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        self._record(request)
        response: httpx.Response = await self.inner.handle_async_request(request)
        return response

    def bodies(self, referencia: str) -> list[bytes]:
        """The bodies sent under ``referencia``."""
        with self._lock:
            return [
                body
                for _, _, body in self.sent
                if body and json.loads(body).get("referencia") == referencia
            ]


async def on_client(sdk: SDK, method: str, /, *args: Any, **kwargs: Any) -> Any:
    """Run ``client.<method>(...)`` (``wait``, ``reconcile``), awaited for the async client."""
    with in_the_tests_loop():
        result = getattr(sdk.client, method)(*args, **kwargs)
    if inspect.isawaitable(result):
        result = await result
    return result


def envelope(tipo: str, referencia: str, **dados: Any) -> dict[str, Any]:
    """An event envelope as the service would send it, for the sandbox's customer."""
    body = {
        "referencia": referencia,
        "documentoCliente": Sandbox.DOCUMENTO,
        "status": {
            "pagamento.aprovado": "aprovado",
            "pagamento.recusado": "recusado",
            "impressao.concluida": "concluida",
            "impressao.falhou": "falhou",
        }.get(tipo, "ok"),
        **dados,
    }
    return {
        "id": str(uuid.uuid4()),
        "tipo": tipo,
        "criadoEm": "2026-05-01T12:00:00-03:00",
        "dados": body,
    }
