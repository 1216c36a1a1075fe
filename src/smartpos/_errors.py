"""Everything the SDK raises on purpose.

::

    SmartPOSError                      base of everything the SDK raises on purpose
    ├── ConfigurationError             no api key / base url, bad options      (also ValueError)
    ├── ValidationError                rejected locally before sending         (also ValueError)
    │   ├── SaleInProgressError        a sale's attempt is open: wait for it or abandon it
    │   ├── SalePaidError              the sale is paid already
    │   └── TerminalBusyError          another sale's attempt holds the terminal
    ├── TransportError                 network failure; for operations on a terminal it means
    │   │                              nothing reached the service
    │   ├── TimeoutError               (also builtins.TimeoutError)
    │   └── ClientClosedError          the client was closed: nothing was sent
    ├── OutcomeUnknownError            the service may have accepted it: wait for the event,
    │   │                              never retry with a new referencia
    │   ├── AttemptAbandonedError      the attempt create_and_wait(sale=) waited for was given
    │   │                              up meanwhile: its approval is not counted
    │   └── OutcomePendingError        accepted (or may have been), but no final event came
    │                                  within the wait's timeout: wait again later
    ├── OperationRejectedError         a wait for an operation the service surely refused
    │                                  (journaled as rejected): no event will come
    ├── ResponseError                  a 2xx body the SDK cannot read (for operations on a
    │                                  terminal: the last_error of an OutcomeUnknownError)
    └── APIError                       the service answered an error
        ├── BadRequestError (400)
        │   ├── CampoObrigatorioError, CampoInvalidoError, DocumentoClienteInvalidoError,
        │   ├── ValorInvalidoError, FormaPagamentoInvalidaError,
        │   ├── SmartposObrigatorioModoImediatoError, ComandaObrigatoriaModoManualError,
        │   └── WebhookNaoConfiguradoError
        ├── AuthenticationError (401)  ApiKeyNaoInformadaError, ApiKeyInvalidaError
        ├── PermissionDeniedError (403) ClienteNaoAutorizadoError
        ├── NotFoundError (404)        SmartposNaoEncontradoError
        ├── ConflictError (409)        ReferenciaDuplicadaError
        ├── RateLimitError (429)
        └── InternalServerError (5xx)  ErroInternoError

Nothing else escapes a client call: whatever fails while a request is being sent or read is
classified into this tree (``_core.Attempts``). Messages say what happened and what to do. They
never contain the API key, and documents (CPF/CNPJ) are never copied into them.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    import httpx

__all__ = [
    "APIError",
    "ApiKeyInvalidaError",
    "ApiKeyNaoInformadaError",
    "AttemptAbandonedError",
    "AuthenticationError",
    "BadRequestError",
    "CampoInvalidoError",
    "CampoObrigatorioError",
    "ClientClosedError",
    "ClienteNaoAutorizadoError",
    "ComandaObrigatoriaModoManualError",
    "ConfigurationError",
    "ConflictError",
    "DocumentoClienteInvalidoError",
    "ErroInternoError",
    "FormaPagamentoInvalidaError",
    "InternalServerError",
    "NotFoundError",
    "OperationRejectedError",
    "OutcomePendingError",
    "OutcomeUnknownError",
    "PermissionDeniedError",
    "RateLimitError",
    "ReferenciaDuplicadaError",
    "ResponseError",
    "SaleInProgressError",
    "SalePaidError",
    "SmartPOSError",
    "SmartposNaoEncontradoError",
    "SmartposObrigatorioModoImediatoError",
    "SyncClientInEventLoopWarning",
    "TerminalBusyError",
    "TimeoutError",
    "TransportError",
    "ValidationError",
    "ValorInvalidoError",
    "WebhookNaoConfiguradoError",
]


class SmartPOSError(Exception):
    """Base of every exception the SDK raises on purpose."""


class ConfigurationError(SmartPOSError, ValueError):
    """An object cannot be built: a bad option, or a client without an API key or base URL."""


class ValidationError(SmartPOSError, ValueError):
    """A request was refused locally, before anything was sent.

    ``codigo`` is the code the service would have answered with (e.g. ``VALOR_INVALIDO``) and
    ``campo`` the wire name of the offending field (e.g. ``valorCentavos``).
    """

    def __init__(self, codigo: str, mensagem: str, *, campo: str | None = None) -> None:
        self.codigo = codigo
        self.mensagem = mensagem
        self.campo = campo
        where = f" (campo {campo})" if campo else ""
        super().__init__(f"{codigo}{where}: {mensagem}")

    def __reduce__(self) -> tuple[Any, ...]:
        # Exceptions cross process boundaries (multiprocessing, task queues): keep them
        # rebuildable from their own arguments, not from the formatted message.
        return (_rebuild, (type(self), (self.codigo, self.mensagem), {"campo": self.campo}))


class SaleInProgressError(ValidationError):
    """A charge of a sale while one of its attempts is still open; nothing was sent.

    Wait for that attempt's outcome (``client.wait(error.referencia, ...)``), or give it up
    (``client.abandon(sale_id, motivo=...)``) and charge again.

    Attributes:
        referencia: The open attempt's referencia.
        sale_id: The sale's key.
    """

    def __init__(self, referencia: str, *, sale_id: str) -> None:
        from ._messages import message

        self.referencia = referencia
        self.sale_id = sale_id
        text = message("error.sale_in_progress", sale=sale_id, referencia=referencia)
        super().__init__("VENDA_EM_ANDAMENTO", text, campo="sale")

    def __reduce__(self) -> tuple[Any, ...]:
        kw = {"sale_id": self.sale_id}
        return (_rebuild, (type(self), (self.referencia,), kw, str(self)))


class SalePaidError(ValidationError):
    """A charge of a sale that is paid already; nothing was sent.

    Attributes:
        sale: The ``Sale`` (``smartpos.webhooks.Sale``) as it stood.
        sale_id: Its key.
    """

    def __init__(self, sale: Any) -> None:
        from ._messages import message

        self.sale = sale
        self.sale_id: str = sale.sale_id
        text = message("error.sale_paid", sale=sale.sale_id, approved=sale.approved_centavos)
        super().__init__("VENDA_PAGA", text, campo="sale")

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), (self.sale,), {}, str(self)))


class TerminalBusyError(ValidationError):
    """An ``imediato`` charge of a sale to a terminal another open attempt holds; nothing sent.

    The hold ends with that attempt's final event, its abandon, or its ``terminal_hold``
    seconds after it was sent.

    Attributes:
        referencia: The attempt that holds the terminal.
        smartpos_id: The terminal.
    """

    def __init__(self, referencia: str, *, smartpos_id: str) -> None:
        from ._messages import message

        self.referencia = referencia
        self.smartpos_id = smartpos_id
        text = message("error.terminal_busy", smartpos_id=smartpos_id, referencia=referencia)
        super().__init__("TERMINAL_OCUPADO", text, campo="smartposId")

    def __reduce__(self) -> tuple[Any, ...]:
        kw = {"smartpos_id": self.smartpos_id}
        return (_rebuild, (type(self), (self.referencia,), kw, str(self)))


class TransportError(SmartPOSError):
    """The network failed.

    For ``payments.create``, ``refunds.create(_for)`` and ``print_jobs.create`` this means
    nothing reached the service (connection refused, connect or pool timeout): fix the cause
    and try again with a new referencia.
    """


class TimeoutError(TransportError, builtins.TimeoutError):
    """A timeout, before anything reached the service for operations on a terminal."""


class ClientClosedError(TransportError):
    """The client was closed (``close()``, or the ``http_client`` you passed was closed).

    Nothing was sent. It is a [`TransportError`][smartpos.TransportError] because it means the
    same for an operation: nothing reached the service. Build a new client.
    """


class OutcomeUnknownError(SmartPOSError):
    """The service may have accepted the operation, and the SDK cannot know.

    The request may have reached the service: no answer came after it was sent, the last
    answer was a 5xx, a 2xx echoed another referencia or could not be read, anything else
    failed after sending started, or a 409 REFERENCIA_DUPLICADA answered a retry of this very
    call (or a referencia the SDK generated, which only an upstream retry can have used).
    Never retry with a new referencia: that may charge twice. Wait for the webhook event for
    ``referencia`` (``pagamento.aprovado`` / ``pagamento.recusado`` / ``impressao.*``).
    """

    def __init__(self, referencia: str, last_error: BaseException, *, attempts: int) -> None:
        from ._messages import message  # on the error path only: `import smartpos` stays lean

        self.referencia = referencia
        self.last_error = last_error
        self.attempts = attempts
        super().__init__(
            message(
                "error.outcome_unknown",
                referencia=referencia,
                attempts=attempts,
                last=_short(last_error),
            )
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # Losing this exception on its way out of a worker process would hide the one
        # outcome that must never be retried with a new referencia. The message goes along:
        # rebuilt elsewhere, it would follow that process's language (SMARTPOS_LANG).
        return (
            _rebuild,
            (
                type(self),
                (self.referencia, self.last_error),
                {"attempts": self.attempts},
                str(self),
            ),
        )


class AttemptAbandonedError(OutcomeUnknownError):
    """The attempt ``create_and_wait(sale=...)`` waited for was abandoned meanwhile.

    A cashier gave it up (``client.abandon``) while this call waited. Its event, when one came,
    is ``event``; an approval of an abandoned attempt is never counted toward the sale: it is
    a ``late_approval`` pendência that ``client.compensate`` refunds. Do not finalize the sale
    on it; look at ``store.sale(sale_id)``.

    Attributes:
        event: The attempt's final event, or ``None``.
        sale_id: The sale's key.
    """

    def __init__(self, referencia: str, *, sale_id: str, event: Any = None) -> None:
        from ._messages import message

        self.sale_id = sale_id
        self.event = event
        reason = SmartPOSError(message("error.attempt_abandoned", sale=sale_id))
        super().__init__(referencia, reason, attempts=0)

    def __reduce__(self) -> tuple[Any, ...]:
        kw = {"sale_id": self.sale_id, "event": self.event}
        return (_rebuild, (type(self), (self.referencia,), kw, str(self)))


class OutcomePendingError(OutcomeUnknownError):
    """No final event came for ``referencia`` within a wait's timeout.

    Raised by ``create_and_wait`` and ``client.wait``. The operation was accepted, or may have
    been (``last_error`` is then what made its answer unknown; otherwise a
    ``builtins.TimeoutError`` describing the wait): never charge again with a new referencia.
    Wait again later, from any process that shares the store:
    ``client.wait(error.referencia, timeout=...)``.

    Attributes:
        timeout: The seconds the wait lasted.
    """

    def __init__(
        self,
        referencia: str,
        *,
        timeout: float,
        last_error: BaseException | None = None,
        attempts: int = 0,
    ) -> None:
        from ._messages import message  # on the error path only: `import smartpos` stays lean

        if last_error is None:
            waited = message("error.pending_timeout", timeout=f"{timeout:g}")
            last_error = builtins.TimeoutError(waited)
        self.timeout = timeout
        SmartPOSError.__init__(
            self,
            message(
                "error.outcome_pending",
                referencia=referencia,
                timeout=f"{timeout:g}",
                last=_short(last_error),
            ),
        )
        self.referencia = referencia
        self.last_error = last_error
        self.attempts = attempts

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            _rebuild,
            (
                type(self),
                (self.referencia,),
                {"timeout": self.timeout, "last_error": self.last_error, "attempts": self.attempts},
                str(self),  # the language it was raised in, as for OutcomeUnknownError
            ),
        )


class OperationRejectedError(SmartPOSError):
    """A wait for an operation that the service surely did not accept.

    Raised by ``client.wait`` (and ``create_and_wait`` when another process's send of the same
    referencia was refused) when the journal holds the operation as ``rejected``: the service
    refused the request (a 4xx on its own bytes) or it never left, so no event will ever end
    it. Nothing was charged: fix the request and send it again under a new referencia.

    Attributes:
        referencia: The operation's referencia.
    """

    def __init__(self, referencia: str) -> None:
        from ._messages import message  # on the error path only: `import smartpos` stays lean

        self.referencia = referencia
        super().__init__(message("error.operation_rejected", referencia=referencia))

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), (self.referencia,), {}, str(self)))


class SyncClientInEventLoopWarning(RuntimeWarning):
    """A ``Client`` call ran in a thread whose event loop is running (an async view, a task).

    The call blocks that loop, and every request and task it serves, until the service
    answers (or a retry's wait ends). Use ``AsyncClient`` there, or run the call in a
    thread (``asyncio.to_thread``, Django's ``sync_to_async``).
    """


class ResponseError(SmartPOSError):
    """The service answered 2xx with a body the SDK cannot read (not JSON, wrong shape).

    Raised as such by ``qrcodes.create`` and ``terminals.list``. For operations on a terminal
    a 2xx means the service took the request, so it comes as an
    [`OutcomeUnknownError`][smartpos.OutcomeUnknownError] whose ``last_error`` is this exception.
    """

    def __init__(
        self,
        message: str,
        *,
        response: httpx.Response | None = None,
        referencia: str | None = None,
    ) -> None:
        self.response = response
        self.referencia = referencia
        self.status_code = response.status_code if response is not None else None
        super().__init__(message)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), (str(self),), {"referencia": self.referencia}))


def _rebuild(
    cls: type[BaseException], args: tuple[Any, ...], kw: dict[str, Any], text: str | None = None
) -> Any:
    exc = cls(*args, **kw)
    if text is not None:
        exc.args = (text,)
    return exc


class APIError(SmartPOSError):
    """The service answered with an error status.

    Attributes mirror the error body ``{"erro": {"codigo", "mensagem", "acao", "campo"}}``;
    any of them is ``None`` when the body did not carry it (an HTML 502 page, an empty body).
    """

    status_code: int
    #: The ``erro.codigo`` this class stands for (set on the per-code subclasses).
    CODIGO: ClassVar[str | None] = None

    def __init__(
        self,
        status_code: int,
        *,
        codigo: str | None = None,
        mensagem: str | None = None,
        acao: str | None = None,
        campo: str | None = None,
        response: httpx.Response | None = None,
        request_id: str | None = None,
    ) -> None:
        from ._messages import current_language, message

        self.status_code = status_code
        self.codigo = codigo
        self.mensagem = mensagem
        self.acao = acao
        self.campo = campo
        self.response = response
        self.request_id = request_id
        parts = [f"HTTP {status_code}"]
        if codigo:
            parts.append(codigo)
        head = " ".join(parts)
        # The service's texts are sentences ("Loja inativa."): drop their final period, so that
        # what follows never makes "inativa.. What to do". The SDK's framing around them is in
        # one language, read once.
        lang = current_language()
        text = _without_final_period(mensagem) or _default_message(status_code, lang)
        if campo:
            text += f" (campo {campo})"
        if acao:
            text += message("error.what_to_do", lang=lang, acao=acao)
        if request_id:
            text += message("error.request_id", lang=lang, request_id=request_id)
        super().__init__(f"{head}: {text}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            _rebuild_api_error,
            (
                type(self),
                self.status_code,
                {
                    "codigo": self.codigo,
                    "mensagem": self.mensagem,
                    "acao": self.acao,
                    "campo": self.campo,
                    "request_id": self.request_id,
                },
                str(self),
            ),
        )


def _rebuild_api_error(
    cls: type[APIError], status_code: int, kw: dict[str, Any], text: str | None = None
) -> APIError:
    exc = cls(status_code, **kw)
    if text is not None:
        exc.args = (text,)  # the message in the language it was raised in
    return exc


def _without_final_period(text: str | None) -> str:
    return text.rstrip().rstrip(".").rstrip() if text else ""


def _default_message(status_code: int, lang: str) -> str:
    from ._messages import message

    if status_code >= 500:
        return message("error.service_failed", lang=lang)
    if status_code == 429:
        return message("error.too_many_requests", lang=lang)
    return message("error.refused", lang=lang)


def _short(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class BadRequestError(APIError):
    """HTTP 400: the request is wrong; fix it and retry with a new referencia."""


class AuthenticationError(APIError):
    """HTTP 401: the API key is missing, unknown, rotated or inactive."""


class PermissionDeniedError(APIError):
    """HTTP 403: the key does not authorize this customer."""


class NotFoundError(APIError):
    """HTTP 404: the terminal or resource does not exist for this customer."""


class ConflictError(APIError):
    """HTTP 409: the request conflicts with an earlier one."""


class RateLimitError(APIError):
    """HTTP 429: too many requests."""


class InternalServerError(APIError):
    """HTTP 5xx: the service failed."""


class CampoObrigatorioError(BadRequestError):
    """400 CAMPO_OBRIGATORIO: a required field is absent or empty."""

    CODIGO = "CAMPO_OBRIGATORIO"


class CampoInvalidoError(BadRequestError):
    """400 CAMPO_INVALIDO: a field has an invalid type, size or format (see ``campo``)."""

    CODIGO = "CAMPO_INVALIDO"


class DocumentoClienteInvalidoError(BadRequestError):
    """400 DOCUMENTO_CLIENTE_INVALIDO: not a valid CPF/CNPJ, or the customer is not found."""

    CODIGO = "DOCUMENTO_CLIENTE_INVALIDO"


class ValorInvalidoError(BadRequestError):
    """400 VALOR_INVALIDO: valorCentavos or parcelas is not a positive integer in range."""

    CODIGO = "VALOR_INVALIDO"


class FormaPagamentoInvalidaError(BadRequestError):
    """400 FORMA_PAGAMENTO_INVALIDA: formaPagamento, parcelas and parcelamento don't match."""

    CODIGO = "FORMA_PAGAMENTO_INVALIDA"


class SmartposObrigatorioModoImediatoError(BadRequestError):
    """400 SMARTPOS_OBRIGATORIO_MODO_IMEDIATO: imediato mode needs a smartposId."""

    CODIGO = "SMARTPOS_OBRIGATORIO_MODO_IMEDIATO"


class ComandaObrigatoriaModoManualError(BadRequestError):
    """400 COMANDA_OBRIGATORIA_MODO_MANUAL: manual mode needs a comanda."""

    CODIGO = "COMANDA_OBRIGATORIA_MODO_MANUAL"


class WebhookNaoConfiguradoError(BadRequestError):
    """400 WEBHOOK_NAO_CONFIGURADO: configure the webhook URL in the partner portal."""

    CODIGO = "WEBHOOK_NAO_CONFIGURADO"


class ApiKeyNaoInformadaError(AuthenticationError):
    """401 API_KEY_NAO_INFORMADA: the x-api-key header is missing."""

    CODIGO = "API_KEY_NAO_INFORMADA"


class ApiKeyInvalidaError(AuthenticationError):
    """401 API_KEY_INVALIDA: the key does not exist, was rotated or is inactive."""

    CODIGO = "API_KEY_INVALIDA"


class ClienteNaoAutorizadoError(PermissionDeniedError):
    """403 CLIENTE_NAO_AUTORIZADO: the customer does not belong to the key's partner."""

    CODIGO = "CLIENTE_NAO_AUTORIZADO"


class SmartposNaoEncontradoError(NotFoundError):
    """404 SMARTPOS_NAO_ENCONTRADO: the terminal is not linked to this customer."""

    CODIGO = "SMARTPOS_NAO_ENCONTRADO"


class ReferenciaDuplicadaError(ConflictError):
    """409 REFERENCIA_DUPLICADA: the referencia was used by an earlier request.

    Raised only for the first attempt of a referencia you supplied: this call started nothing.
    The earlier request that used the referencia may have (your own earlier run, a restarted
    job): wait for its event before starting the work again under a new referencia. On a
    retry, or for a referencia the SDK generated, a 409 is an
    [`OutcomeUnknownError`][smartpos.OutcomeUnknownError].
    """

    CODIGO = "REFERENCIA_DUPLICADA"


class ErroInternoError(InternalServerError):
    """500 ERRO_INTERNO: unexpected failure in the service."""

    CODIGO = "ERRO_INTERNO"


#: ``erro.codigo`` -> exception class.
ERROR_BY_CODIGO: dict[str, type[APIError]] = {
    cls.CODIGO: cls
    for cls in (
        CampoObrigatorioError,
        CampoInvalidoError,
        DocumentoClienteInvalidoError,
        ValorInvalidoError,
        FormaPagamentoInvalidaError,
        SmartposObrigatorioModoImediatoError,
        ComandaObrigatoriaModoManualError,
        WebhookNaoConfiguradoError,
        ApiKeyNaoInformadaError,
        ApiKeyInvalidaError,
        ClienteNaoAutorizadoError,
        SmartposNaoEncontradoError,
        ReferenciaDuplicadaError,
        ErroInternoError,
    )
    if cls.CODIGO is not None
}

#: HTTP status -> exception class, for bodies without a known ``codigo``.
ERROR_BY_STATUS: dict[int, type[APIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    429: RateLimitError,
}


def error_class(status_code: int, codigo: str | None) -> type[APIError]:
    """Pick the exception class: the ``codigo`` first, then the HTTP status, then APIError.

    A known ``codigo`` answered with an unexpected status still maps to its own class only
    when that class's HTTP family matches; otherwise the HTTP class wins, so ``status_code``
    and the class never contradict each other.
    """
    by_status = ERROR_BY_STATUS.get(status_code)
    if by_status is None and status_code >= 500:
        by_status = InternalServerError
    if codigo is not None:
        by_code = ERROR_BY_CODIGO.get(codigo)
        # A status without its own class (418, 422, a 3xx) never takes a codigo's class:
        # each of those stands for one HTTP status, which would then contradict status_code.
        if by_code is not None and by_status is not None and issubclass(by_code, by_status):
            return by_code
    return by_status or APIError
