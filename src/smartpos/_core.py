"""The sans-I/O core: every decision of the clients, and no networking at all.

Both clients drive the same pieces: a builder validates the caller's arguments and returns a
:class:`Call` (method, path, JSON body, how to read the answer); :func:`build_request` turns it
into an ``httpx.Request``; an :class:`Attempts` object is told what happened to each send and
answers with the result, an exception, or :class:`Retry` (how long to wait before sending the
very same request again). ``Client`` and ``AsyncClient`` only send and sleep.

Money safety is decided here. A retry always resends the same bytes, hence the same
referencia. For operations that start something on a terminal, any doubt about whether the
service accepted the request ends in :class:`~smartpos.OutcomeUnknownError`, never in an error
that invites a retry with a new referencia.
"""

from __future__ import annotations

import base64
import email.utils
import json
import logging
import os
import random
import re
import ssl
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar
from urllib.parse import unquote

import attrs
import httpx

from . import _wire
from ._documents import mask_documento, normalize_documento
from ._errors import (
    APIError,
    ClientClosedError,
    ConfigurationError,
    OutcomeUnknownError,
    ResponseError,
    SmartPOSError,
    TimeoutError,
    TransportError,
    ValidationError,
    error_class,
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
    Terminal,
)
from ._referencia import is_valid_referencia, new_referencia, same_first_characters
from ._version import __version__

if TYPE_CHECKING:
    from .webhooks import PagamentoAprovado

__all__ = [
    "DEFAULT_TIMEOUT",
    "OWN_REQUEST",
    "Attempts",
    "Call",
    "Config",
    "Retry",
    "add_note",
    "build_request",
    "error_from_response",
    "payment_call",
    "print_call",
    "qrcode_call",
    "redact_url",
    "refund_call",
    "refund_for_call",
    "terminals_call",
]

T = TypeVar("T")

logger = logging.getLogger("smartpos")
logger.addHandler(logging.NullHandler())

#: 5 s to connect, 30 s for everything else: an acceptance answer is quick, but a terminal's
#: gateway can be slow under load, and a read timeout on a payment is an unknown outcome.
DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=5.0)
#: The longest ``Retry-After`` the SDK honours; a longer one is capped.
MAX_RETRY_AFTER = 30.0
#: The longest backoff between two attempts.
MAX_BACKOFF = 8.0
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_REQUEST_ID_HEADERS = ("x-request-id", "request-id", "x-correlation-id", "x-amzn-requestid")
_USER_AGENT = f"smartpos-python/{__version__} httpx/{httpx.__version__}"

# --- configuration -------------------------------------------------------------------------

_ssl_lock = threading.Lock()
_ssl_context: ssl.SSLContext | None = None


def shared_ssl_context() -> ssl.SSLContext:
    """Return one SSL context for every client (building one costs about 30 ms)."""
    global _ssl_context
    if _ssl_context is None:
        with _ssl_lock:
            if _ssl_context is None:
                _ssl_context = httpx.create_ssl_context()
    return _ssl_context


_log_configured = False


def configure_logging_from_env() -> None:
    """Attach a stderr handler to the ``smartpos`` logger when ``SMARTPOS_LOG`` asks for it."""
    global _log_configured
    if _log_configured:
        return
    _log_configured = True
    level = os.environ.get("SMARTPOS_LOG", "").strip().lower()
    if level not in ("info", "debug"):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG if level == "debug" else logging.INFO)


# The listing carries the customer's document in its URL path, and httpx logs every URL at
# INFO ("HTTP Request: GET .../v1/customers/52998224725/smartpos"). The filter masks that
# one path in httpx's records (LGPD), and a user:password of the base URL; every other record
# passes untouched.
_CUSTOMER_PATH = re.compile(r"(/v1/customers/)([^/?#]+)(/smartpos)")


class _MaskCustomerPath(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and any(isinstance(a, httpx.URL) for a in args):
            record.args = tuple(
                redact_url(
                    _CUSTOMER_PATH.sub(
                        lambda m: m[1] + mask_documento(unquote(m[2])) + m[3], str(a)
                    )
                )
                if isinstance(a, httpx.URL)
                else a
                for a in args
            )
        return True


_httpx_filter_installed = False


def _mask_documents_in_httpx_logs() -> None:
    global _httpx_filter_installed
    if not _httpx_filter_installed:
        _httpx_filter_installed = True
        logging.getLogger("httpx").addFilter(_MaskCustomerPath())


def _redact(value: str) -> str:
    return "***" if value else ""


_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@]*@")


def redact_url(url: str) -> str:
    """Hide the user and password of a URL (``https://user:pw@host`` -> ``https://***@host``)."""
    return _USERINFO.sub(r"\1***@", url) if "@" in url else url


# Printable ASCII with no space at either end: what an HTTP header value can carry as is.
_HEADER_VALUE = re.compile(r"[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?")
_SWAPPED = (
    "; are api_key and base_url swapped? Client(api_key=..., base_url=...) takes the key first"
)


def _check_api_key(api_key: str) -> None:
    # Messages name the problem, never the value: a key must not reach a log or a traceback.
    if api_key != api_key.strip():
        raise ConfigurationError(
            "the API key has surrounding whitespace or a line break; copy it again"
        )
    if not _HEADER_VALUE.fullmatch(api_key):
        raise ConfigurationError(
            "the API key cannot be sent as an HTTP header value: it has a line break, another "
            "control character or a non-ASCII character; copy it again from the partner portal"
        )
    if api_key.lower().startswith(("http://", "https://")):
        raise ConfigurationError("the API key looks like a URL" + _SWAPPED)


def _check_base_url(base_url: str, api_key: str) -> None:
    # The value is never echoed: with swapped arguments it would be the API key.
    if base_url == api_key:
        raise ConfigurationError("base_url is the API key" + _SWAPPED)
    hint = "" if "://" in base_url else _SWAPPED
    try:
        url = httpx.URL(base_url)
    except (httpx.InvalidURL, TypeError):
        raise ConfigurationError(
            "base_url is not a valid URL; pass the service's address, such as "
            "https://host/api" + hint
        ) from None
    if url.scheme not in ("http", "https") or not url.host:
        raise ConfigurationError(
            "base_url must be an absolute http(s) URL such as https://host/api" + hint
        )
    if "?" in base_url or "#" in base_url:
        # The SDK appends endpoint paths to the base URL: after a query or a fragment they
        # would not be paths any more.
        raise ConfigurationError(
            "base_url must not have a query string or a fragment ('?' or '#'): pass only "
            "scheme, host and path, such as https://host/api"
        )


@attrs.frozen(slots=True)
class Config:
    """Everything a client was configured with; built once, shared by every call."""

    api_key: str = attrs.field(repr=_redact)
    base_url: str = attrs.field(repr=lambda url: repr(redact_url(url)))
    timeout: httpx.Timeout
    max_retries: int
    retry_backoff: float
    strict_referencia: bool = True
    user_agent: str = _USER_AGENT

    @classmethod
    def create(
        cls,
        *,
        api_key: str | None,
        base_url: str | None,
        timeout: float | httpx.Timeout | None,
        max_retries: int,
        retry_backoff: float,
        strict_referencia: bool,
    ) -> Config:
        """Read arguments, fall back on ``SMARTPOS_API_KEY``/``SMARTPOS_BASE_URL``, validate.

        Raises:
            ConfigurationError: a setting is missing or invalid (the message never holds the
                key, nor the base URL, which would be the key with swapped arguments).
        """
        configure_logging_from_env()
        _mask_documents_in_httpx_logs()
        if api_key is None:
            api_key = os.environ.get("SMARTPOS_API_KEY")
        if not api_key or not isinstance(api_key, str):
            raise ConfigurationError(
                "no API key: pass api_key=... or set the SMARTPOS_API_KEY environment variable "
                "(the integration key generated in the partner portal)"
            )
        _check_api_key(api_key)
        if base_url is None:
            base_url = os.environ.get("SMARTPOS_BASE_URL")
        if not base_url or not isinstance(base_url, str):
            raise ConfigurationError(
                "no base URL: pass base_url=... or set the SMARTPOS_BASE_URL environment variable"
            )
        _check_base_url(base_url, api_key)
        if timeout is None:
            timeout = DEFAULT_TIMEOUT
        elif not isinstance(timeout, httpx.Timeout):
            if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
                raise ConfigurationError(
                    "timeout must be a positive number of seconds or an httpx.Timeout"
                )
            timeout = httpx.Timeout(float(timeout))
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ConfigurationError("max_retries must be an integer >= 0 (0 disables retries)")
        if (
            isinstance(retry_backoff, bool)
            or not isinstance(retry_backoff, (int, float))
            or retry_backoff < 0
        ):
            raise ConfigurationError("retry_backoff must be a number of seconds >= 0")
        return cls(
            api_key=api_key,
            base_url=base_url.rstrip("/"),
            timeout=timeout,
            max_retries=max_retries,
            retry_backoff=float(retry_backoff),
            strict_referencia=bool(strict_referencia),
        )

    def with_timeout(self, timeout: httpx.Timeout) -> Config:
        """Return a copy that uses ``timeout`` (the one of a user's own httpx client)."""
        return attrs.evolve(self, timeout=timeout)


# --- calls ---------------------------------------------------------------------------------


@attrs.frozen(slots=True)
class Call(Generic[T]):
    """One API call, ready to send: what to send and how to read the answer."""

    method: str
    path: str
    parse: Callable[[httpx.Response, Call[T], HTTPInfo], T] = attrs.field(repr=False)
    body: bytes | None = attrs.field(default=None, repr=False)
    referencia: str | None = None
    starts_operation: bool = False
    """Starts something on a terminal (payment, refund, print): any doubt is an unknown outcome."""
    log_path: str | None = None
    """The path as logged, when ``path`` carries personal data."""
    referencia_supplied: bool = False
    """The caller chose the referencia: only then can a first-attempt 409 be the caller's own
    earlier request, and so prove that *this* call started nothing."""


#: Marks the SDK's own requests, so that the body reader added to a user's ``http_client``
#: (see ``_transports.read_before_hooks``) leaves every other request alone.
OWN_REQUEST = "smartpos"


def build_request(
    config: Config,
    call: Call[Any],
    http_client: httpx.Client | httpx.AsyncClient | None = None,
) -> httpx.Request:
    """Build the ``httpx.Request`` of a call; the same object is resent on every retry.

    With a user's ``http_client``, the client builds it: its default headers, cookies and
    query parameters are merged in (ours win for the headers the SDK sets). Building is pure
    in httpx: nothing is sent.
    """
    headers = {
        "x-api-key": config.api_key,
        "accept": "application/json",
        "user-agent": config.user_agent,
    }
    if call.body is not None:
        headers["content-type"] = "application/json"
    extensions = {"timeout": config.timeout.as_dict()}
    if http_client is not None:
        return http_client.build_request(
            call.method,
            config.base_url + call.path,
            headers=headers,
            content=call.body,
            extensions={**extensions, OWN_REQUEST: True},
        )
    return httpx.Request(
        call.method,
        config.base_url + call.path,
        headers=headers,
        content=call.body,
        extensions=extensions,
    )


def _dumps(body: Mapping[str, Any]) -> bytes:
    try:
        return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        campo = _unencodable(body) or "body"
        raise ValidationError(
            "CAMPO_INVALIDO",
            f"{campo} holds text that cannot be encoded as UTF-8 (a lone surrogate such as "
            "'\\ud800', often from bytes decoded with errors='surrogateescape'): fix the text",
            campo=campo,
        ) from None


def _unencodable(value: Any, path: str = "") -> str | None:
    """The wire path of the first string that UTF-8 cannot encode (only on the error path)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path
        return None
    if isinstance(value, Mapping):
        for key, item in value.items():
            found = _unencodable(item, f"{path}.{key}" if path else str(key))
            if found is not None:
                return found
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = _unencodable(item, f"{path}[{index}]")
            if found is not None:
                return found
    return None


# --- local validation ----------------------------------------------------------------------


def _missing(campo: str) -> ValidationError:
    return ValidationError(
        "CAMPO_OBRIGATORIO", f"{campo} is required and cannot be empty", campo=campo
    )


def _require_str(value: object, campo: str) -> str:
    if value is None or value == "":
        raise _missing(campo)
    if not isinstance(value, str):
        raise ValidationError(
            "CAMPO_INVALIDO", f"{campo} must be a string, not {type(value).__name__}", campo=campo
        )
    if not value.strip():
        raise _missing(campo)
    return value


def _optional_str(value: object, campo: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationError(
            "CAMPO_INVALIDO", f"{campo} must be a string, not {type(value).__name__}", campo=campo
        )
    return value


def _documento(value: object) -> str:
    raw = _require_str(value, "documentoCliente")
    doc = normalize_documento(raw)
    if doc is None:
        raise ValidationError(
            "DOCUMENTO_CLIENTE_INVALIDO",
            f"documentoCliente {mask_documento(raw)} is not a valid CPF (11 digits) or CNPJ "
            "(14 characters, numeric or alphanumeric): check the digits",
            campo="documentoCliente",
        )
    return doc


def _referencia(config: Config, value: object) -> str:
    if value is None:
        return new_referencia()
    ref = _require_str(value, "referencia")
    if config.strict_referencia and not is_valid_referencia(ref):
        raise ValidationError(
            "CAMPO_INVALIDO",
            f"referencia {ref[:60]!r} must start with a UUID version 4 or 5 at its first "
            "character (optionally followed by -suffix), because some acquirers read only its "
            "first 10 characters, which time-ordered UUIDs (versions 1, 6, 7) and the nil UUID "
            "repeat: use smartpos.new_referencia() or smartpos.referencia_for(key), or build "
            "the client with strict_referencia=False for a legacy system",
            campo="referencia",
        )
    return ref


#: What each positive integer field holds, for the message that refuses a bad value.
_POSITIVE_INT = {
    "valorCentavos": "a positive integer number of cents (1590 for R$ 15,90; never a float)",
    "parcelas": "a positive integer number of installments (never a float)",
}


def _positive_int(value: object, campo: str, *, required: bool) -> int | None:
    if value is None:
        if required:
            raise _missing(campo)
        return None
    # bool is an int in Python, and 5.0 or "5" are not integers on the wire.
    if type(value) is not int or value <= 0:
        what = _POSITIVE_INT.get(campo, "a positive integer")
        raise ValidationError(
            "VALOR_INVALIDO", f"{campo} must be {what}; got {value!r}", campo=campo
        )
    return value


_E = TypeVar("_E", FormaPagamento, Parcelamento, ModoExecucao)


def _enum(cls: type[_E], value: object, campo: str, codigo: str) -> _E | None:
    if value is None:
        return None
    member = cls.parse(value, campo)
    if member is None:
        allowed = ", ".join(m.value for m in cls)
        raise ValidationError(
            codigo, f"{campo} must be one of {allowed}; got {value!r}", campo=campo
        )
    return member  # type: ignore[return-value]


def _instance(value: object, cls: type[T], campo: str) -> T | None:
    if value is None or isinstance(value, cls):
        return value
    raise ValidationError(
        "CAMPO_INVALIDO",
        f"{campo} must be a smartpos.{cls.__name__}, not {type(value).__name__}",
        campo=campo,
    )


def _check_comanda(card: Comanda) -> None:
    # attrs classes do not check types: a list of str, or a number, would reach the wire.
    _optional_str(card.endereco, "comanda.endereco")
    itens = card.itens
    if not isinstance(itens, tuple):
        raise ValidationError(
            "CAMPO_INVALIDO",
            f"comanda.itens must be a sequence of smartpos.ItemComanda, not {type(itens).__name__}",
            campo="comanda.itens",
        )
    for index, item in enumerate(itens):
        campo = f"comanda.itens[{index}]"
        if not isinstance(item, ItemComanda):
            raise ValidationError(
                "CAMPO_INVALIDO",
                f"{campo} must be a smartpos.ItemComanda(titulo=..., descricao=...), not "
                f"{type(item).__name__}",
                campo=campo,
            )
        _optional_str(item.titulo, f"{campo}.titulo")
        _optional_str(item.descricao, f"{campo}.descricao")


def _check_comprovante(receipt: Comprovante) -> None:
    for field in attrs.fields(Comprovante):
        flag = getattr(receipt, field.name)
        if flag is not None and not isinstance(flag, bool):
            group, who = field.name.split("_")
            raise ValidationError(
                "CAMPO_INVALIDO",
                f"Comprovante.{field.name} must be True, False or None, not "
                f"{type(flag).__name__} {flag!r}",
                campo=f"comprovante.{group}.{who}",
            )


def _combination(
    forma: FormaPagamento | None, parcelas: int | None, parcelamento: Parcelamento | None
) -> None:
    installments = parcelas is not None and parcelas > 1
    if forma is not None and forma is not FormaPagamento.CREDITO and installments:
        raise ValidationError(
            "FORMA_PAGAMENTO_INVALIDA",
            f"{forma.value} does not take installments: send parcelas=1 or omit it",
            campo="parcelas",
        )
    if forma is FormaPagamento.CREDITO and installments and parcelamento is None:
        raise ValidationError(
            "FORMA_PAGAMENTO_INVALIDA",
            "credito with parcelas > 1 needs parcelamento (estabelecimento or administradora)",
            campo="parcelamento",
        )


# --- builders ------------------------------------------------------------------------------


def qrcode_call(config: Config, *, documento_cliente: str, referencia: str | None) -> Call[QRCode]:
    """Validate and build ``POST /qrcode``."""
    body = {
        "referencia": _referencia(config, referencia),
        "documentoCliente": _documento(documento_cliente),
    }
    return Call(
        "POST",
        "/qrcode",
        _parse_qrcode,
        _dumps(body),
        body["referencia"],
        referencia_supplied=referencia is not None,
    )


def payment_call(
    config: Config,
    *,
    documento_cliente: str,
    valor_centavos: int,
    smartpos_id: str | None,
    referencia: str | None,
    forma_pagamento: FormaPagamento | str | None,
    parcelas: int | None,
    parcelamento: Parcelamento | str | None,
    modo_execucao: ModoExecucao | str,
    comanda: Comanda | None,
    comprovante: Comprovante | None,
) -> Call[Acceptance]:
    """Validate and build ``POST /v1/payments``.

    The checks run in the order the service applies them, so that a request with several
    problems is refused locally with the code the service would have answered first:
    required fields, referencia, amounts, enumerated values, their combination, the
    mode's requirements, and last the document's check digits.
    """
    if isinstance(referencia, str) and not referencia.strip():
        raise _missing("referencia")
    if documento_cliente is None or documento_cliente == "":
        raise _missing("documentoCliente")
    if valor_centavos is None:
        raise _missing("valorCentavos")
    if modo_execucao is None or modo_execucao == "":
        raise _missing("modoExecucao")
    ref = _referencia(config, referencia)
    valor = _positive_int(valor_centavos, "valorCentavos", required=True)
    modo = _enum(ModoExecucao, modo_execucao, "modoExecucao", "CAMPO_INVALIDO")
    terminal = _optional_str(smartpos_id, "smartposId")
    n_parcelas = _positive_int(parcelas, "parcelas", required=False)
    forma = _enum(FormaPagamento, forma_pagamento, "formaPagamento", "FORMA_PAGAMENTO_INVALIDA")
    financing = _enum(Parcelamento, parcelamento, "parcelamento", "FORMA_PAGAMENTO_INVALIDA")
    _combination(forma, n_parcelas, financing)
    card = _instance(comanda, Comanda, "comanda")
    receipt = _instance(comprovante, Comprovante, "comprovante")
    if card is not None:
        _check_comanda(card)
    if receipt is not None:
        _check_comprovante(receipt)
    if modo is ModoExecucao.MANUAL and terminal and not terminal.strip():
        raise ValidationError(
            "CAMPO_INVALIDO",
            "smartposId is blank: pass the terminal's id, or omit smartpos_id to publish the "
            "card to the customer's terminals",
            campo="smartposId",
        )
    if modo is ModoExecucao.IMEDIATO and not (terminal and terminal.strip()):
        raise ValidationError(
            "SMARTPOS_OBRIGATORIO_MODO_IMEDIATO",
            "modoExecucao imediato needs smartpos_id (the terminal that charges); use "
            "modo_execucao='manual' with a comanda to queue the charge for an operator instead",
            campo="smartposId",
        )
    has_label = card is not None and isinstance(card.identificacao, str)
    if card is not None and not (has_label and card.identificacao.strip()):
        if modo is ModoExecucao.MANUAL:
            raise ValidationError(
                "COMANDA_OBRIGATORIA_MODO_MANUAL",
                "modoExecucao manual needs a comanda with identificacao (name, table, ticket)",
                campo="comanda.identificacao",
            )
        raise _missing("comanda.identificacao")
    if modo is ModoExecucao.MANUAL and card is None:
        raise ValidationError(
            "COMANDA_OBRIGATORIA_MODO_MANUAL",
            "modoExecucao manual needs comanda=smartpos.Comanda(identificacao=...) for the "
            "operator's queue",
            campo="comanda",
        )
    doc = _documento(documento_cliente)
    body: dict[str, Any] = {
        "referencia": ref,
        "documentoCliente": doc,
        "valorCentavos": valor,
        "modoExecucao": modo.value if modo is not None else ModoExecucao.IMEDIATO.value,
    }
    if terminal:
        body["smartposId"] = terminal
    if forma is not None:
        body["formaPagamento"] = forma.value
    if n_parcelas is not None:
        body["parcelas"] = n_parcelas
    if financing is not None:
        body["parcelamento"] = financing.value
    if card is not None:
        body["comanda"] = _wire.unstructure(card)
    if receipt is not None:
        wire_receipt = _wire.unstructure(receipt)
        if wire_receipt:
            body["comprovante"] = wire_receipt
    return Call(
        "POST",
        "/v1/payments",
        _parse_acceptance,
        _dumps(body),
        ref,
        True,
        referencia_supplied=referencia is not None,
    )


def refund_call(
    config: Config,
    *,
    documento_cliente: str,
    smartpos_id: str,
    valor_centavos: int,
    pagamento_original: PagamentoOriginal,
    referencia: str | None,
    payment_referencia: str | None = None,
) -> Call[Refund]:
    """Validate and build ``POST /v1/refunds``.

    ``payment_referencia`` is the refunded payment's referencia when it is known (``create_for``
    reads it from the event): the refund's must not share its first 10 characters.
    """
    if documento_cliente is None or documento_cliente == "":
        raise _missing("documentoCliente")
    terminal = _require_str(smartpos_id, "smartposId")
    valor = _positive_int(valor_centavos, "valorCentavos", required=True)
    if pagamento_original is None:
        raise _missing("pagamentoOriginal")
    original = _instance(pagamento_original, PagamentoOriginal, "pagamentoOriginal")
    assert original is not None
    for field in attrs.fields(PagamentoOriginal):
        _require_str(getattr(original, field.name), f"pagamentoOriginal.{_wire.wire_name(field)}")
    ref = _referencia(config, referencia)
    if payment_referencia is not None and same_first_characters(ref, payment_referencia):
        if referencia is not None:
            raise ValidationError(
                "CAMPO_INVALIDO",
                "a refund's referencia must not share its first 10 characters with the "
                "payment's (some acquirers read only those, and would take the refund for the "
                "payment): use smartpos.new_referencia() or smartpos.referencia_for(key)",
                campo="referencia",
            )
        while same_first_characters(ref, payment_referencia):  # 1 in 2**36: nearly never
            ref = new_referencia()
    doc = _documento(documento_cliente)
    body = {
        "referencia": ref,
        "documentoCliente": doc,
        "smartposId": terminal,
        "valorCentavos": valor,
        "pagamentoOriginal": _wire.unstructure(original),
    }
    return Call(
        "POST",
        "/v1/refunds",
        _parse_refund,
        _dumps(body),
        ref,
        True,
        referencia_supplied=referencia is not None,
    )


def refund_for_call(
    config: Config,
    evento: PagamentoAprovado,
    *,
    valor_centavos: int | None,
    referencia: str | None,
) -> Call[Refund]:
    """Build the refund of an approved payment from its ``pagamento.aprovado`` event."""
    dados = getattr(evento, "dados", None)
    if getattr(evento, "tipo", None) != "pagamento.aprovado" or dados is None:
        raise ValidationError(
            "CAMPO_INVALIDO",
            "refunds.create_for needs the PagamentoAprovado event of the payment "
            f"(tipo pagamento.aprovado); got {type(evento).__name__}",
            campo="pagamentoOriginal",
        )
    autorizacao = dados.autorizacao
    values = {}
    for name, attr, source in (
        ("codigo_autorizacao", "codigo", "codigo"),
        ("numero_transacao", "numero_transacao", "numeroTransacao"),
        ("dados_finalizacao", "dados_finalizacao", "dadosFinalizacao"),
        ("tipo_pagamento", "tipo_pagamento", "tipoPagamento"),
    ):
        value = getattr(autorizacao, attr, None) if autorizacao is not None else None
        if not value:
            raise ValidationError(
                "CAMPO_OBRIGATORIO",
                f"the event {evento.id} has no dados.autorizacao.{source}: it cannot be refunded "
                "through create_for; use refunds.create with the authorization data",
                campo=f"pagamentoOriginal.{_wire.camel(name)}",
            )
        values[name] = value
    if not dados.smartpos_id:
        raise ValidationError(
            "CAMPO_OBRIGATORIO",
            f"the event {evento.id} has no dados.smartposId: use refunds.create with the "
            "terminal that executed the payment",
            campo="smartposId",
        )
    approved = dados.valor_centavos
    if valor_centavos is None:
        valor_centavos = approved
        if valor_centavos is None:
            raise ValidationError(
                "CAMPO_OBRIGATORIO",
                f"the event {evento.id} has no dados.valorCentavos: pass valor_centavos",
                campo="valorCentavos",
            )
    elif type(valor_centavos) is int and type(approved) is int and 0 < approved < valor_centavos:
        raise ValidationError(
            "VALOR_INVALIDO",
            f"valorCentavos {valor_centavos} is more than the approved amount of the payment "
            f"({approved} cents): a refund cannot return more than was charged",
            campo="valorCentavos",
        )
    payment_referencia = dados.referencia if isinstance(dados.referencia, str) else None
    return refund_call(
        config,
        documento_cliente=dados.documento_cliente,
        smartpos_id=dados.smartpos_id,
        valor_centavos=valor_centavos,
        pagamento_original=PagamentoOriginal(**values),
        referencia=referencia,
        payment_referencia=payment_referencia,
    )


def print_call(
    config: Config,
    *,
    documento_cliente: str,
    smartpos_id: str,
    conteudo: bytes | str,
    referencia: str | None,
) -> Call[Acceptance]:
    """Validate and build ``POST /v1/print-jobs``; the content is Base64-encoded here."""
    if documento_cliente is None or documento_cliente == "":
        raise _missing("documentoCliente")
    terminal = _require_str(smartpos_id, "smartposId")
    if conteudo is None or (hasattr(conteudo, "__len__") and len(conteudo) == 0):
        raise _missing("conteudo.base64")
    if isinstance(conteudo, str):
        try:
            data = conteudo.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValidationError(
                "CAMPO_INVALIDO",
                f"conteudo holds a character UTF-8 cannot encode at position {exc.start} (a "
                "lone surrogate such as '\\ud800'): fix the text, or pass the bytes to print",
                campo="conteudo.base64",
            ) from None
    elif isinstance(conteudo, (bytes, bytearray, memoryview)):
        data = bytes(conteudo)
    else:
        raise ValidationError(
            "CAMPO_INVALIDO",
            f"conteudo must be bytes or str, not {type(conteudo).__name__}",
            campo="conteudo.base64",
        )
    ref = _referencia(config, referencia)
    doc = _documento(documento_cliente)
    body = {
        "referencia": ref,
        "documentoCliente": doc,
        "smartposId": terminal,
        "conteudo": {"tipo": "base64", "base64": base64.b64encode(data).decode("ascii")},
    }
    return Call(
        "POST",
        "/v1/print-jobs",
        _parse_acceptance,
        _dumps(body),
        ref,
        True,
        referencia_supplied=referencia is not None,
    )


def terminals_call(config: Config, *, documento_cliente: str) -> Call[list[Terminal]]:
    """Validate and build ``GET /v1/customers/{documentoCliente}/smartpos``."""
    doc = _documento(documento_cliente)
    return Call(
        "GET",
        f"/v1/customers/{doc}/smartpos",
        _parse_terminals,
        log_path=f"/v1/customers/{mask_documento(doc)}/smartpos",
    )


# --- reading answers -----------------------------------------------------------------------


def _json_body(response: httpx.Response, call: Call[Any], *, allow_empty: bool = False) -> Any:
    content = response.content
    if not content and allow_empty:
        return {}
    try:
        return json.loads(content)
    except (ValueError, RecursionError):  # RecursionError: JSON nested too deep
        raise ResponseError(
            f"{call.method} {call.log_path or call.path} answered {response.status_code} with a "
            f"body that is not JSON ({_content_type(response)}, {len(content)} bytes)",
            response=response,
            referencia=call.referencia,
        ) from None


def _content_type(response: httpx.Response) -> str:
    return str(response.headers.get("content-type", "no content-type"))


def _structured(data: Any, cls: type[T], response: httpx.Response, call: Call[Any]) -> T:
    try:
        return _wire.structure(data, cls)
    except _wire.WireError as exc:
        raise ResponseError(
            f"{call.method} {call.log_path or call.path} answered {response.status_code} with a "
            f"body the SDK cannot read: {exc}",
            response=response,
            referencia=call.referencia,
        ) from None


def _check_echo(echoed: object, response: httpx.Response, call: Call[Any]) -> None:
    # The answer names the operation it is about. Another referencia means it is not the
    # answer to this request (a proxy or cache mixing answers, a service bug): the SDK cannot
    # tell whether *this* request was accepted.
    if echoed != call.referencia:
        raise ResponseError(
            f"{call.method} {call.log_path or call.path} answered {response.status_code} for "
            f"referencia {str(echoed)[:60]!r}, not for the referencia sent, {call.referencia}",
            response=response,
            referencia=call.referencia,
        )


def _parse_acceptance(response: httpx.Response, call: Call[Any], http: HTTPInfo) -> Acceptance:
    result = _structured(_json_body(response, call), Acceptance, response, call)
    _check_echo(result.referencia, response, call)
    object.__setattr__(result, "http", http)
    return result


def _parse_qrcode(response: httpx.Response, call: Call[Any], http: HTTPInfo) -> QRCode:
    result = _structured(_json_body(response, call), QRCode, response, call)
    _check_echo(result.referencia, response, call)
    object.__setattr__(result, "http", http)
    return result


def _parse_refund(response: httpx.Response, call: Call[Any], http: HTTPInfo) -> Refund:
    data = _json_body(response, call, allow_empty=True)
    if not isinstance(data, Mapping):
        raise ResponseError(
            f"POST /v1/refunds answered {response.status_code} with JSON that is not an object",
            response=response,
            referencia=call.referencia,
        )
    assert call.referencia is not None
    referencia = data.get("referencia")
    # The refund answer is not specified: a missing or non-string referencia is tolerated, a
    # string that names another referencia is not.
    if isinstance(referencia, str) and referencia:
        _check_echo(referencia, response, call)
    status = data.get("status")
    mensagem = data.get("mensagem")
    return Refund(
        referencia=call.referencia,
        status=status if isinstance(status, str) else None,
        mensagem=mensagem if isinstance(mensagem, str) else None,
        raw=data,
        http=http,
    )


_LIST_KEYS = ("smartpos", "terminais", "terminals", "items", "data", "results")


def _parse_terminals(response: httpx.Response, call: Call[Any], http: HTTPInfo) -> list[Terminal]:
    data = _json_body(response, call)
    items: Any = None
    if isinstance(data, list):
        items = data
    elif isinstance(data, Mapping):
        # The listing's shape is not specified: take the known key, else the only list.
        for key in _LIST_KEYS:
            if isinstance(data.get(key), list):
                items = data[key]
                break
        else:
            lists = [v for v in data.values() if isinstance(v, list)]
            if len(lists) == 1:
                items = lists[0]
            elif not lists and isinstance(data.get("smartposId"), str):
                items = [data]
    if items is None or not all(isinstance(item, Mapping) for item in items):
        raise ResponseError(
            f"GET {call.log_path} answered {response.status_code} with a body that holds no "
            "list of terminals",
            response=response,
        )
    terminals = []
    for item in items:
        ident = item.get("smartposId")
        terminals.append(Terminal(smartpos_id=ident if isinstance(ident, str) else None, raw=item))
    return terminals


def request_id_of(headers: httpx.Headers) -> str | None:
    """Return the request id the service sent, if any."""
    for name in _REQUEST_ID_HEADERS:
        value = headers.get(name)
        if value:
            return str(value)
    return None


def error_from_response(response: httpx.Response) -> APIError:
    """Map an error response to its exception: the ``codigo`` first, then the HTTP status.

    An unknown ``codigo``, an HTML 502 page or an empty body still give the HTTP class.
    """
    fields: dict[str, str | None] = {"codigo": None, "mensagem": None, "acao": None, "campo": None}
    try:
        content = response.content
    except httpx.ResponseNotRead:
        # A user's response hook raised and httpx closed the response unread: its status
        # still gives the HTTP class.
        content = b""
    try:
        data = json.loads(content) if content else None
    except (ValueError, RecursionError):  # RecursionError: JSON nested too deep
        data = None
    erro = data.get("erro") if isinstance(data, Mapping) else None
    if isinstance(erro, Mapping):
        for key in fields:
            value = erro.get(key)
            if isinstance(value, str) and value:
                fields[key] = value
    cls = error_class(response.status_code, fields["codigo"])
    return cls(
        response.status_code,
        response=response,
        request_id=request_id_of(response.headers),
        **fields,
    )


# --- retries -------------------------------------------------------------------------------


@attrs.frozen(slots=True)
class Retry:
    """Send the same request again after ``delay`` seconds."""

    delay: float


# 400 codes that depend only on the request's content, never on the service's state.
_VERDICTS_ON_THE_REQUEST = frozenset(
    {
        "CAMPO_OBRIGATORIO",
        "CAMPO_INVALIDO",
        "VALOR_INVALIDO",
        "FORMA_PAGAMENTO_INVALIDA",
        "SMARTPOS_OBRIGATORIO_MODO_IMEDIATO",
        "COMANDA_OBRIGATORIA_MODO_MANUAL",
    }
)

# Raised before any byte reached the service: safe to retry, and never an unknown outcome.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
# Cannot succeed by retrying (bad URL scheme, a proxy refused, an invalid local request).
_FATAL = (httpx.UnsupportedProtocol, httpx.LocalProtocolError, httpx.ProxyError)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Read a ``Retry-After`` header (seconds or an HTTP date) as seconds to wait, or None."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    if seconds != seconds:  # NaN
        return None
    return max(0.0, seconds)


class Attempts(Generic[T]):
    """Decide, after each send of one call, whether to return, raise or retry.

    Tell it what happened with :meth:`answered` (a response) or :meth:`failed` (*any*
    exception raised while sending or reading: an httpx error, an event loop that is gone, a
    user's hook that raised); it returns the result, raises the final exception, or returns a
    :class:`Retry`. Whatever it raises is a :class:`~smartpos.SmartPOSError`: this is the one
    place where anything that can go wrong during a send is classified, for both clients.
    Cancellation and Ctrl-C are not classified but annotated (:meth:`interrupted`).
    """

    __slots__ = ("attempt", "call", "config", "maybe_sent", "request", "rng", "started")

    def __init__(
        self,
        config: Config,
        call: Call[T],
        *,
        rng: random.Random | None = None,
        http_client: httpx.Client | httpx.AsyncClient | None = None,
    ) -> None:
        self.config = config
        self.call = call
        #: The one request every attempt sends (same bytes, so the same referencia).
        self.request = build_request(config, call, http_client)
        self.attempt = 0
        # True once any attempt may have reached the service: from then on, a failure of
        # an operation on a terminal can only be an unknown outcome.
        self.maybe_sent = False
        self.rng = rng or _rng
        self.started = 0.0

    def sending(self, *, closed: bool = False) -> None:
        """Record that an attempt starts now.

        Args:
            closed: The HTTP client is closed: nothing can be sent.

        Raises:
            ClientClosedError: ``closed``; nothing was sent by this attempt (an
                :class:`~smartpos.OutcomeUnknownError` when an earlier one may have reached
                the service).
        """
        if closed:
            self._forget_key()
            raise self._closed()
        if (
            self.attempt == 0
            and self.call.referencia is not None
            and logger.isEnabledFor(logging.INFO)
        ):
            # Before the first byte: whatever happens next (a crash, Ctrl-C), the log holds
            # the referencia whose event tells the outcome.
            logger.info(
                "%s %s sending referencia=%s",
                self.call.method,
                self.call.log_path or self.call.path,
                self.call.referencia,
            )
        self.attempt += 1
        self.started = time.perf_counter()

    def _closed(self) -> SmartPOSError:
        where = f"{self.call.method} {self.call.log_path or self.call.path}"
        error = ClientClosedError(
            f"{where} was not sent: the client is closed (or the http_client it uses is); "
            "build a new client"
        )
        if self.call.starts_operation and self.maybe_sent:
            return self._unknown(error)
        return error

    def _retries_left(self) -> bool:
        return self.attempt <= self.config.max_retries

    def backoff(self) -> float:
        """Exponential backoff with jitter for the attempt that just failed."""
        base = self.config.retry_backoff
        if base <= 0:
            return 0.0
        delay = min(MAX_BACKOFF, base * (2 ** (self.attempt - 1)))
        return float(delay * (0.5 + self.rng.random() / 2))

    def answered(self, response: httpx.Response) -> T | Retry:
        """Decide after a response (already read)."""
        try:
            return self._answered(response)
        except BaseException:
            self._forget_key()
            raise

    def failed(self, exc: Exception) -> T | Retry:
        """Decide after any exception raised while sending or reading; raises when final.

        An ``httpx.HTTPStatusError`` comes from a response hook (``raise_for_status``) of a
        user's ``http_client``: its response is classified as if the hook had not raised.
        """
        if isinstance(exc, httpx.HTTPStatusError):
            return self.answered(exc.response)
        try:
            return self._failed(exc)
        except BaseException:
            self._forget_key()
            raise

    def interrupted(self, exc: BaseException) -> None:
        """Annotate an exception that interrupts the call: cancellation, Ctrl-C, exit.

        Those must propagate as they are, but an operation interrupted once sending started
        may have been accepted — even between attempts, as an upstream retry may deliver an
        attempt that failed here: the exception gets a note with the referencia (printed in
        its traceback; ``exc.__notes__``), and a warning is logged. Exceptions the SDK raised
        itself are left alone.
        """
        if isinstance(exc, Exception):
            return
        self._forget_key()
        call = self.call
        if not (call.starts_operation and call.referencia and self.attempt):
            return
        where = f"{call.method} {call.log_path or call.path}"
        add_note(
            exc,
            f"smartpos: {where} was interrupted after it may have reached the service: the "
            f"outcome of referencia {call.referencia} is unknown. Do not retry with a new "
            "referencia; wait for the webhook event carrying this referencia.",
        )
        logger.warning(
            "smartpos: outcome unknown for %s referencia=%s: interrupted by %s after %d attempt(s)",
            where,
            call.referencia,
            type(exc).__name__,
            self.attempt,
        )

    def _forget_key(self) -> None:
        # The exception raised to the caller reaches this request (``exc.response.request``,
        # an httpx exception's ``.request``), and httpx's repr of headers hides only
        # Authorization: the key must not be printable from there. No attempt follows.
        if "x-api-key" in self.request.headers:
            self.request.headers["x-api-key"] = "[redacted]"

    def _answered(self, response: httpx.Response) -> T | Retry:
        elapsed = time.perf_counter() - self.started
        status = response.status_code
        request_id = request_id_of(response.headers)
        self._log(status, elapsed, request_id)
        if 200 <= status < 300:
            http = HTTPInfo(status, response.headers, request_id, elapsed, self.attempt)
            try:
                return self.call.parse(response, self.call, http)
            except ResponseError as exc:
                # A 2xx means the service took the operation: an unreadable body, or one about
                # another referencia, must not look like a refusal that invites a new
                # referencia (a second charge).
                if self.call.starts_operation:
                    raise self._unknown(exc) from exc
                raise
            except Exception as exc:  # a body the readers did not foresee (or unread)
                unreadable = ResponseError(
                    f"{self.call.method} {self.call.log_path or self.call.path} answered "
                    f"{status} with a body the SDK cannot read ({type(exc).__name__})",
                    response=response,
                    referencia=self.call.referencia,
                )
                unreadable.__cause__ = exc
                if self.call.starts_operation:
                    raise self._unknown(unreadable) from unreadable
                raise unreadable from exc
        error = error_from_response(response)
        if status >= 500:
            # A 5xx may come after the service acted (a gateway timing out behind it).
            self.maybe_sent = True
        if status in RETRY_STATUSES and self._retries_left():
            delay = self.backoff()
            if status in (429, 503) and self.config.retry_backoff > 0:
                after = parse_retry_after(response.headers.get("retry-after"))
                if after is not None:
                    delay = min(after, MAX_RETRY_AFTER)
            return Retry(delay)
        if self.call.starts_operation:
            if status == 409 and (self.attempt > 1 or not self.call.referencia_supplied):
                # REFERENCIA_DUPLICADA proves "not accepted" only when the referencia can have
                # been used by nobody but the caller before this call. On a retry it is most
                # likely this very call's earlier attempt; for a referencia the SDK generated,
                # only an upstream retry (a proxy, a service mesh) can have used it.
                raise self._unknown(error)
            if self.maybe_sent and self._ambiguous(error):
                raise self._unknown(error)
        raise error

    def _ambiguous(self, error: APIError) -> bool:
        # Once an earlier attempt of this very call may have reached the service, only an
        # answer that judges the request's *bytes* proves that nothing was accepted: the same
        # bytes were refused the first time too. 5xx and 429 say nothing about it; and
        # 401/403/404 or a customer "not found" can follow a state change (a rotated key, an
        # unlinked terminal) after the first attempt was accepted. Reporting any of those as
        # "rejected" would invite a second charge.
        return not (error.status_code == 400 and error.codigo in _VERDICTS_ON_THE_REQUEST)

    def _failed(self, exc: Exception) -> Retry:
        elapsed = time.perf_counter() - self.started
        self._log(None, elapsed, None, exc)
        # Only these prove that no byte left; anything else (an httpx read error, or a
        # RuntimeError of an event loop that is gone, raised after the request was written)
        # may have followed the send.
        if not isinstance(exc, _NOT_SENT + _FATAL):
            self.maybe_sent = True
        if isinstance(exc, _FATAL) or not isinstance(exc, httpx.TransportError):
            raise self._final(exc)
        if self._retries_left():
            return Retry(self.backoff())
        raise self._final(exc)

    def _final(self, exc: Exception) -> SmartPOSError:
        wrapped: TransportError
        where = f"{self.call.method} {self.call.log_path or self.call.path}"
        text = f"{where} failed after {self.attempt} attempt(s): {_describe(exc)}"
        # Any text may come from a user's hook or transport: keep the key out of it (a key
        # too short to be real would only garble the message).
        if len(self.config.api_key) >= 6:
            text = text.replace(self.config.api_key, "[redacted]")
        if isinstance(exc, httpx.TimeoutException):
            wrapped = TimeoutError(text)
        else:
            wrapped = TransportError(text)
        wrapped.__cause__ = exc
        if self.call.starts_operation and self.maybe_sent:
            return self._unknown(wrapped)
        return wrapped

    def _unknown(self, last: BaseException) -> OutcomeUnknownError:
        assert self.call.referencia is not None
        logger.warning(
            "smartpos: outcome unknown for %s %s referencia=%s after %d attempt(s)",
            self.call.method,
            self.call.log_path or self.call.path,
            self.call.referencia,
            self.attempt,
        )
        error = OutcomeUnknownError(self.call.referencia, last, attempts=self.attempt)
        error.__cause__ = last
        return error

    def _log(
        self,
        status: int | None,
        elapsed: float,
        request_id: str | None,
        exc: BaseException | None = None,
    ) -> None:
        level = (
            logging.INFO
            if exc is None and status is not None and status < 400
            else (logging.WARNING)
        )
        if not logger.isEnabledFor(level):
            return
        logger.log(
            level,
            "%s %s -> %s attempt=%d elapsed_ms=%.1f request_id=%s",
            self.call.method,
            self.call.log_path or self.call.path,
            status if exc is None else type(exc).__name__,
            self.attempt,
            elapsed * 1000,
            request_id or "-",
        )


def _describe(exc: BaseException) -> str:
    """``Type: message`` of any exception, even one whose ``__str__`` fails; at most 300 chars."""
    try:
        text = str(exc)
    except Exception:  # noqa: BLE001 - a broken __str__ of a user's exception
        text = "<unprintable>"
    if len(text) > 300:
        text = text[:300] + " (cut)"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def add_note(exc: BaseException, note: str) -> None:
    """``exc.add_note(note)``, also on Python 3.10 (``__notes__`` set by hand, not printed)."""
    add = getattr(exc, "add_note", None)
    if add is not None:
        add(note)
        return
    notes = getattr(exc, "__notes__", None)
    if not isinstance(notes, list):
        notes = []
        try:
            exc.__notes__ = notes  # type: ignore[attr-defined]
        except (AttributeError, TypeError):
            return
    notes.append(note)


_rng = random.Random()
