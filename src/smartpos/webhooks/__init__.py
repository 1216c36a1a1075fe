"""Webhook events: parse them, store them once, process them later, never lose one.

::

    from smartpos import webhooks

    store = webhooks.SQLiteStore("inbox.db")           # or webhooks.open_store(url)
    verifier = webhooks.StandardWebhooksVerifier(secret)   # or make_verifier(scheme, secret)
    receiver = webhooks.WebhookReceiver(store, verifier=verifier)   # .asgi_app(), .wsgi_app()
    worker = webhooks.Worker(store, handle)             # handle(event) in your own code
    worker = webhooks.Worker(store, on_sale=mark_paid)  # once per sale, in the ack's transaction
    event = webhooks.parse_event(body)                  # strict, typed

``RedisStore`` and ``PostgresStore`` are imported on first use, so ``import smartpos.webhooks``
never needs the optional ``redis`` or ``psycopg`` packages.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._effects import SaleEffect
from ._events import (
    Autorizacao,
    DadosImpressao,
    DadosPagamento,
    DadosSmartposIdentificado,
    Envelope,
    Event,
    ImpressaoConcluida,
    ImpressaoFalhou,
    InvalidEventError,
    PagamentoAprovado,
    PagamentoRecusado,
    ResultadoSmartPOS,
    SmartposIdentificado,
    UnknownEvent,
    parse_envelope,
    parse_event,
)
from ._memory import MemoryStore
from ._open import open_store
from ._outcomes import Abandon, Operation
from ._receiver import Receipt, WebhookReceiver
from ._sales import Pendencia, Sale
from ._schemes import (
    Ed25519SignatureVerifier,
    HmacManifestVerifier,
    RsaSignatureVerifier,
    StandardWebhooksVerifier,
    StripeStyleVerifier,
    TokenDigestVerifier,
    make_verifier,
)
from ._sqlite import SQLiteStore
from ._store import StoreBase
from ._store_errors import StoreError, StoreFullError
from ._store_interface import Claim, EventState, PutResult, Store, StoredEvent
from ._verify import HmacSignatureVerifier, SharedSecretVerifier, VerificationError, Verifier
from ._worker import AsyncWorker, Worker

if TYPE_CHECKING:
    from ._postgres import MigrationRequiredError, PostgresStore
    from ._redis import RedisStore

__all__ = [
    "Abandon",
    "AsyncWorker",
    "Autorizacao",
    "Claim",
    "DadosImpressao",
    "DadosPagamento",
    "DadosSmartposIdentificado",
    "Ed25519SignatureVerifier",
    "Envelope",
    "Event",
    "EventState",
    "HmacManifestVerifier",
    "HmacSignatureVerifier",
    "ImpressaoConcluida",
    "ImpressaoFalhou",
    "InvalidEventError",
    "MemoryStore",
    "MigrationRequiredError",
    "Operation",
    "PagamentoAprovado",
    "PagamentoRecusado",
    "Pendencia",
    "PostgresStore",
    "PutResult",
    "Receipt",
    "RedisStore",
    "ResultadoSmartPOS",
    "RsaSignatureVerifier",
    "SQLiteStore",
    "Sale",
    "SaleEffect",
    "SharedSecretVerifier",
    "SmartposIdentificado",
    "StandardWebhooksVerifier",
    "Store",
    "StoreBase",
    "StoreError",
    "StoreFullError",
    "StoredEvent",
    "StripeStyleVerifier",
    "TokenDigestVerifier",
    "UnknownEvent",
    "VerificationError",
    "Verifier",
    "WebhookReceiver",
    "Worker",
    "make_verifier",
    "open_store",
    "parse_envelope",
    "parse_event",
]

# Optional backends: name -> module, imported on first attribute access.
_LAZY = {
    "RedisStore": "._redis",
    "PostgresStore": "._postgres",
    "MigrationRequiredError": "._postgres",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
