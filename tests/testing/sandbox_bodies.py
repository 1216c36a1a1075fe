"""Request body builders for the sandbox's tests, written from the spec (not from the SDK)."""

from __future__ import annotations

import uuid
from typing import Any

from smartpos.testing import Sandbox


class Bodies:
    """Builders of valid request bodies, written from the spec; overrides replace keys."""

    @staticmethod
    def ref() -> str:
        """Return a fresh UUID-first referencia."""
        return str(uuid.uuid4())

    @staticmethod
    def payment(**overrides: Any) -> dict[str, Any]:
        """Return a valid imediato payment on the default terminal."""
        body: dict[str, Any] = {
            "referencia": Bodies.ref(),
            "documentoCliente": Sandbox.DOCUMENTO,
            "smartposId": Sandbox.SMARTPOS_ID,
            "valorCentavos": 1234,
            "modoExecucao": "imediato",
        }
        body.update(overrides)
        return {k: v for k, v in body.items() if v is not ...}

    @staticmethod
    def manual(**overrides: Any) -> dict[str, Any]:
        """Return a valid manual payment for the default customer."""
        body = Bodies.payment(
            modoExecucao="manual", smartposId=..., comanda={"identificacao": "Mesa 7"}
        )
        body.update(overrides)
        return {k: v for k, v in body.items() if v is not ...}

    @staticmethod
    def print_job(**overrides: Any) -> dict[str, Any]:
        """Return a valid print job on the default terminal."""
        body: dict[str, Any] = {
            "referencia": Bodies.ref(),
            "documentoCliente": Sandbox.DOCUMENTO,
            "smartposId": Sandbox.SMARTPOS_ID,
            "conteudo": {"tipo": "base64", "base64": "T2zDoSwgbXVuZG8h"},
        }
        body.update(overrides)
        return {k: v for k, v in body.items() if v is not ...}

    @staticmethod
    def refund(event: dict[str, Any], **overrides: Any) -> dict[str, Any]:
        """Return a total refund of the payment approved by ``event``."""
        dados = event["dados"]
        autorizacao = dados["autorizacao"]
        body: dict[str, Any] = {
            "referencia": Bodies.ref(),
            "documentoCliente": dados["documentoCliente"],
            "smartposId": dados["smartposId"],
            "valorCentavos": dados["valorCentavos"],
            "pagamentoOriginal": {
                "codigoAutorizacao": autorizacao["codigo"],
                "numeroTransacao": autorizacao["numeroTransacao"],
                "dadosFinalizacao": autorizacao["dadosFinalizacao"],
                "tipoPagamento": autorizacao["tipoPagamento"],
            },
        }
        body.update(overrides)
        return {k: v for k, v in body.items() if v is not ...}
