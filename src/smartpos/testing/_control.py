"""The sandbox's own endpoints under ``/_sandbox/``, for tools in other languages (no API key).

``GET /_sandbox/events``; ``POST /_sandbox/scan`` with ``qrCode`` and ``smartposId``;
``POST /_sandbox/operator-start`` with ``referencia`` and optional ``smartposId``. They drive
what a test in Python does with :class:`~smartpos.testing.Sandbox` methods. New control
endpoints go here, as one more route.
"""

from __future__ import annotations

from typing import Any

from . import _rules
from ._errors import QRCodeExpiredError, SandboxError
from ._outbox import Outbox
from ._protocol import Request, Response, error_response, json_response
from ._rules import Reject
from ._terminals import Terminals

__all__ = ["Control"]

_ROUTES = {
    "/_sandbox/events": "GET",
    "/_sandbox/scan": "POST",
    "/_sandbox/operator-start": "POST",
}


class Control:
    """The ``/_sandbox/`` endpoints.

    Args:
        terminals: The terminals (pairing, the operator queue).
        outbox: The events delivered so far.
    """

    def __init__(self, terminals: Terminals, outbox: Outbox) -> None:
        self._terminals = terminals
        self._outbox = outbox

    def handle(self, request: Request) -> Response:
        """Answer a request to a ``/_sandbox/`` path.

        Args:
            request: The request.

        Returns:
            The answer; a misuse (unknown QR code, no such card) is a 400 ``SANDBOX`` error,
            an expired QR code a 409 ``QR_CODE_EXPIRADO``.
        """
        path, method = request.path, request.method
        if path not in _ROUTES:
            return error_response(Reject("RECURSO_NAO_ENCONTRADO"))
        if method != _ROUTES[path]:
            return error_response(Reject("METODO_NAO_PERMITIDO", headers={"allow": _ROUTES[path]}))
        if path == "/_sandbox/events":
            return json_response(200, {"events": self._outbox.events})
        try:
            data = _rules.decode_json(request.body)
            smartpos_id = data.get("smartposId")
            envelope: dict[str, Any] | None
            if path == "/_sandbox/scan":
                envelope = self._terminals.scan(str(data.get("qrCode")), str(smartpos_id))
            else:
                envelope = self._terminals.operator_start(
                    str(data.get("referencia")),
                    None if smartpos_id is None else str(smartpos_id),
                    None,
                )
        except Reject as reject:
            return json_response(reject.status, reject.body())
        except SandboxError as exc:
            codigo = "QR_CODE_EXPIRADO" if isinstance(exc, QRCodeExpiredError) else "SANDBOX"
            erro = {"codigo": codigo, "mensagem": str(exc), "acao": "Veja docs/en/testing.md."}
            return json_response(409 if codigo == "QR_CODE_EXPIRADO" else 400, {"erro": erro})
        return json_response(200, {"event": envelope})
