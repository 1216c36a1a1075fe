"""smartpos: drive smart POS payment terminals from Python, sync or asyncio.

Pair a terminal with a QR code, ask it for payments, refunds and print jobs, and receive the
results as webhook events. Test all of it without the service through
[`smartpos.testing.Sandbox`][smartpos.testing.Sandbox].
"""

from typing import TYPE_CHECKING, Any

from ._documents import is_valid_documento, mask_documento, normalize_documento
from ._errors import (
    APIError,
    ApiKeyInvalidaError,
    ApiKeyNaoInformadaError,
    AttemptAbandonedError,
    AuthenticationError,
    BadRequestError,
    CampoInvalidoError,
    CampoObrigatorioError,
    ClientClosedError,
    ClienteNaoAutorizadoError,
    ComandaObrigatoriaModoManualError,
    ConfigurationError,
    ConflictError,
    DocumentoClienteInvalidoError,
    ErroInternoError,
    FormaPagamentoInvalidaError,
    InternalServerError,
    NotFoundError,
    OperationRejectedError,
    OutcomePendingError,
    OutcomeUnknownError,
    PermissionDeniedError,
    RateLimitError,
    ReferenciaDuplicadaError,
    ResponseError,
    SaleInProgressError,
    SalePaidError,
    SmartPOSError,
    SmartposNaoEncontradoError,
    SmartposObrigatorioModoImediatoError,
    SyncClientInEventLoopWarning,
    TerminalBusyError,
    TimeoutError,
    TransportError,
    ValidationError,
    ValorInvalidoError,
    WebhookNaoConfiguradoError,
)
from ._models import (
    Acceptance,
    Comanda,
    Comprovante,
    FormaPagamento,
    HTTPInfo,
    ItemComanda,
    ModoExecucao,
    PagamentoOriginal,
    Parcelamento,
    QRCode,
    Refund,
    Target,
    Terminal,
)
from ._money import format_reais, to_centavos, to_reais
from ._params import PaymentParams, PrintJobParams, QRCodeParams, RefundParams
from ._referencia import is_valid_referencia, new_referencia, referencia_for
from ._version import __version__

if TYPE_CHECKING:
    from ._async_client import AsyncClient
    from ._raw import RawResponse
    from ._sync_client import Client

__all__ = [
    "APIError",
    "Acceptance",
    "ApiKeyInvalidaError",
    "ApiKeyNaoInformadaError",
    "AsyncClient",
    "AttemptAbandonedError",
    "AuthenticationError",
    "BadRequestError",
    "CampoInvalidoError",
    "CampoObrigatorioError",
    "Client",
    "ClientClosedError",
    "ClienteNaoAutorizadoError",
    "Comanda",
    "ComandaObrigatoriaModoManualError",
    "Comprovante",
    "ConfigurationError",
    "ConflictError",
    "DocumentoClienteInvalidoError",
    "ErroInternoError",
    "FormaPagamento",
    "FormaPagamentoInvalidaError",
    "HTTPInfo",
    "InternalServerError",
    "ItemComanda",
    "ModoExecucao",
    "NotFoundError",
    "OperationRejectedError",
    "OutcomePendingError",
    "OutcomeUnknownError",
    "PagamentoOriginal",
    "Parcelamento",
    "PaymentParams",
    "PermissionDeniedError",
    "PrintJobParams",
    "QRCode",
    "QRCodeParams",
    "RateLimitError",
    "RawResponse",
    "ReferenciaDuplicadaError",
    "Refund",
    "RefundParams",
    "ResponseError",
    "SaleInProgressError",
    "SalePaidError",
    "SmartPOSError",
    "SmartposNaoEncontradoError",
    "SmartposObrigatorioModoImediatoError",
    "SyncClientInEventLoopWarning",
    "Target",
    "Terminal",
    "TerminalBusyError",
    "TimeoutError",
    "TransportError",
    "ValidationError",
    "ValorInvalidoError",
    "WebhookNaoConfiguradoError",
    "__version__",
    "format_reais",
    "is_valid_documento",
    "is_valid_referencia",
    "mask_documento",
    "new_referencia",
    "normalize_documento",
    "referencia_for",
    "to_centavos",
    "to_reais",
]


# The clients and RawResponse import httpx (~110 ms): they load on first use, so that
# `import smartpos` for the models, errors, referencia and documents, or the `smartpos --help`
# command, stays fast.
_LAZY = {"Client": "._sync_client", "AsyncClient": "._async_client", "RawResponse": "._raw"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'smartpos' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
