"""What to send: the `Call` of each endpoint, built from the caller's checked arguments.

A builder has ``_arguments`` check the arguments (refusing locally, with the service's
``codigo`` and ``campo``, what the service would refuse) and build the request record, and
returns a `Call`: method, path, the record written by ``_wire`` as compact JSON, and the
reader of the answer. `build_request` turns a call into the one ``httpx.Request`` every
attempt sends.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import attrs
import httpx

from . import _arguments, _wire
from ._config import Config, timeout_of
from ._documents import mask_documento
from ._errors import ValidationError
from ._logging import mask_path
from ._messages import message, speaking
from ._models import Acceptance, HTTPInfo, JSONAnswer, QRCode, Refund, Terminal
from ._requests import RefundRequest
from ._responses import read_acceptance, read_json, read_qrcode, read_refund, read_terminals

if TYPE_CHECKING:
    from ._params import PaymentParams, PrintJobParams, QRCodeParams, RefundParams
    from .webhooks import PagamentoAprovado
    from .webhooks._sales import SaleTerms

__all__ = [
    "OWN_REQUEST",
    "Call",
    "build_request",
    "journaled_call",
    "payment_call",
    "print_call",
    "qrcode_call",
    "refund_call",
    "refund_for_call",
    "request_call",
    "terminals_call",
    "timed",
]

T = TypeVar("T")


@attrs.frozen(slots=True, kw_only=True)
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
    operation: str = ""
    """The client method that made it, such as ``"payments.create"`` (telemetry names)."""
    timeout: httpx.Timeout | None = attrs.field(default=None, repr=False)
    """This call's own timeout (a per-call ``timeout=``); None: the client's."""
    sale: SaleTerms | None = None
    """The sale this call journals under (a payment attempt, or a compensation refund)."""
    repeatable: bool = True
    """Safe to send again after an attempt that may have reached the service. False only for
    a ``client.request`` that may change something and carries no referencia: it is retried
    only when no byte can have reached the service."""


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
    if config.headers:
        # The caller's extra headers first: the SDK's own (the key among them) always win.
        extra = {name: value for name, value in config.headers if name.lower() not in headers}
        headers = {**extra, **headers}
    extensions = {"timeout": (call.timeout or config.timeout).as_dict()}
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


def _body(request: object) -> bytes:
    """The request record as compact UTF-8 JSON, exactly the bytes every attempt sends."""
    data = _wire.unstructure(request)
    try:
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        campo = _unencodable(data) or "body"
        raise ValidationError(
            "CAMPO_INVALIDO",
            message("call.unencodable", campo=campo),
            campo=campo,
        ) from None


def _json_bytes(data: object) -> bytes:
    """The caller's own JSON (``client.request``) as compact UTF-8: sent as given, no renaming."""
    try:
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        return text.encode("utf-8")
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValidationError(
            "CAMPO_INVALIDO",
            message("request.json", cause=f"{type(exc).__name__}: {exc}"),
            campo="json",
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


def timed(config: Config, call: Call[T], timeout: object) -> Call[T]:
    """``call`` with its own timeout (a resource method's ``timeout=``); None: the client's.

    Raises:
        ValidationError: not positive finite seconds nor an ``httpx.Timeout``; nothing sent.
    """
    if timeout is None:
        return call
    checked = timeout_of(timeout)
    if checked is None:
        raise ValidationError(
            "CAMPO_INVALIDO", message("config.timeout", lang=config.lang), campo="timeout"
        )
    return attrs.evolve(call, timeout=checked)


# --- builders ------------------------------------------------------------------------------

#: A builder's refusals are in the language of its client: ``config.lang``, its first argument.
_in_client_language = speaking(attrgetter("lang"))


@_in_client_language
def qrcode_call(config: Config, params: QRCodeParams) -> Call[QRCode]:
    """Validate and build ``POST /qrcode``."""
    request = _arguments.qrcode_request(config, params)
    return Call(
        method="POST",
        path="/qrcode",
        operation="qrcodes.create",
        parse=read_qrcode,
        body=_body(request),
        referencia=request.referencia,
        referencia_supplied=params.get("referencia") is not None,
    )


@_in_client_language
def payment_call(config: Config, params: PaymentParams) -> Call[Acceptance]:
    """Validate and build ``POST /v1/payments``."""
    request = _arguments.payment_request(config, params)
    return Call(
        sale=_arguments.sale_terms(config, params, request),
        method="POST",
        path="/v1/payments",
        operation="payments.create",
        parse=read_acceptance,
        body=_body(request),
        referencia=request.referencia,
        starts_operation=True,
        referencia_supplied=params.get("referencia") is not None,
    )


@_in_client_language
def refund_call(config: Config, params: RefundParams) -> Call[Refund]:
    """Validate and build ``POST /v1/refunds``."""
    request = _arguments.refund_request(config, params)
    supplied = params.get("referencia") is not None
    return _refund(request, "refunds.create", referencia_supplied=supplied)


@_in_client_language
def refund_for_call(
    config: Config,
    evento: PagamentoAprovado,
    *,
    valor_centavos: int | None,
    referencia: str | None,
) -> Call[Refund]:
    """Build the refund of an approved payment from its ``pagamento.aprovado`` event."""
    request = _arguments.refund_request_for(
        config, evento, valor_centavos=valor_centavos, referencia=referencia
    )
    return _refund(request, "refunds.create_for", referencia_supplied=referencia is not None)


def _refund(request: RefundRequest, operation: str, *, referencia_supplied: bool) -> Call[Refund]:
    return Call(
        method="POST",
        path="/v1/refunds",
        operation=operation,
        parse=read_refund,
        body=_body(request),
        referencia=request.referencia,
        starts_operation=True,
        referencia_supplied=referencia_supplied,
    )


@_in_client_language
def print_call(config: Config, params: PrintJobParams) -> Call[Acceptance]:
    """Validate and build ``POST /v1/print-jobs``; the content is Base64-encoded."""
    request = _arguments.print_job_request(config, params)
    return Call(
        method="POST",
        path="/v1/print-jobs",
        operation="print_jobs.create",
        parse=read_acceptance,
        body=_body(request),
        referencia=request.referencia,
        starts_operation=True,
        referencia_supplied=params.get("referencia") is not None,
    )


@_in_client_language
def terminals_call(config: Config, *, documento_cliente: str) -> Call[list[Terminal]]:
    """Validate and build ``GET /v1/customers/{documentoCliente}/smartpos``."""
    doc = _arguments.documento(documento_cliente)
    return Call(
        method="GET",
        path=f"/v1/customers/{doc}/smartpos",
        operation="terminals.list",
        parse=read_terminals,
        log_path=f"/v1/customers/{mask_documento(doc)}/smartpos",
    )


#: Methods ``client.request`` sends; only GET and HEAD are repeated after a doubt.
REQUEST_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"})
_SAFE_METHODS = frozenset({"GET", "HEAD"})


@_in_client_language
def request_call(
    config: Config,
    method: str,
    path: str,
    *,
    data: object = None,
    params: Mapping[str, Any] | None = None,
) -> Call[JSONAnswer]:
    """Validate and build a ``client.request`` of an endpoint the SDK has no method for.

    A POST whose JSON object carries a ``referencia`` starts an operation: every retry
    resends the same bytes and any doubt is an unknown outcome, as for a payment. Any other
    call that changes something (POST, PUT, PATCH, DELETE) is retried only when nothing can
    have reached the service.

    Raises:
        ValidationError: a bad method, path, params, JSON or referencia; nothing was sent.
    """
    if not isinstance(method, str) or method.upper() not in REQUEST_METHODS:
        raise ValidationError(
            "CAMPO_INVALIDO",
            message("request.method", value=method, allowed=", ".join(sorted(REQUEST_METHODS))),
            campo="method",
        )
    method = method.upper()
    if (
        not isinstance(path, str)
        or not path.startswith("/")
        or path.startswith("//")
        or any(c in path for c in "?#\\")
        or not path.isprintable()
        or " " in path
    ):
        raise ValidationError("CAMPO_INVALIDO", message("request.path"), campo="path")
    query = ""
    if params is not None:
        if not isinstance(params, Mapping):
            raise ValidationError("CAMPO_INVALIDO", message("request.params"), campo="params")
        query = str(httpx.QueryParams({str(k): v for k, v in params.items()}))
    body = None if data is None else _json_bytes(data)
    referencia = data.get("referencia") if isinstance(data, Mapping) else None
    starts = method == "POST" and referencia is not None
    if starts:
        referencia = _arguments._referencia(config, referencia)
    return Call(
        method=method,
        path=f"{path}?{query}" if query else path,
        log_path=mask_path(path),
        operation="request",
        parse=read_json,
        body=body,
        referencia=referencia if starts else None,
        starts_operation=starts,
        referencia_supplied=starts,
        repeatable=starts or method in _SAFE_METHODS,
    )


_READERS: dict[str, Callable[[httpx.Response, Call[Any], HTTPInfo], Any]] = {
    "request": read_json,
    "payment": read_acceptance,
    "print_job": read_acceptance,
    "refund": read_refund,
    "qrcode": read_qrcode,
}


def journaled_call(
    *, kind: str, method: str, path: str, body: bytes, referencia: str
) -> Call[Acceptance | Refund | QRCode | JSONAnswer]:
    """Rebuild the call of a journaled request, to resend its exact bytes (``reconcile``).

    Args:
        kind: The operation's kind (``"payment"``, ``"refund"``, ``"print_job"``, ``"qrcode"``,
            ``"request"``).
        method: The journaled HTTP method.
        path: The journaled path.
        body: The journaled body, sent as is.
        referencia: The operation's referencia (the answer must echo it).

    Raises:
        ValueError: An unknown kind.
    """
    reader = _READERS.get(kind)
    if reader is None:
        raise ValueError(f"no operation of kind {kind!r} can be resent")
    return Call(
        method=method,
        path=path,
        parse=reader,
        body=body,
        referencia=referencia,
        starts_operation=kind != "qrcode",
        referencia_supplied=True,
        operation="request" if kind == "request" else "",
    )
