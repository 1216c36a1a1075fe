"""Reading answers: a 2xx body into its result, an error answer into its exception."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import attrs
import httpx

from . import _httpcompat, _wire
from ._errors import APIError, ResponseError, error_class
from ._messages import message
from ._models import Acceptance, HTTPInfo, JSONAnswer, QRCode, Refund, Terminal

if TYPE_CHECKING:
    from ._calls import Call

__all__ = [
    "error_from_response",
    "read_acceptance",
    "read_json",
    "read_qrcode",
    "read_refund",
    "read_terminals",
    "read_tolerant",
    "request_id_of",
]

T = TypeVar("T")

_REQUEST_ID_HEADERS = ("x-request-id", "request-id", "x-correlation-id", "x-amzn-requestid")


def _json_body(response: httpx.Response, call: Call[Any], *, allow_empty: bool = False) -> Any:
    content = response.content
    if not content and allow_empty:
        return {}
    try:
        return json.loads(content)
    except (ValueError, RecursionError):  # RecursionError: JSON nested too deep
        content_type = response.headers.get("content-type")
        raise ResponseError(
            message(
                "response.not_json" if content_type is not None else "response.not_json_no_type",
                where=f"{call.method} {call.log_path or call.path}",
                status=response.status_code,
                content_type=content_type,
                size=len(content),
            ),
            response=response,
            referencia=call.referencia,
        ) from None


def _structured(
    data: Any, cls: type[T], response: httpx.Response, call: Call[Any], http: HTTPInfo
) -> T:
    try:
        return _wire.structure(data, cls, {"http": http})
    except _wire.WireError as exc:
        raise ResponseError(
            message(
                "response.unreadable",
                where=f"{call.method} {call.log_path or call.path}",
                status=response.status_code,
                problem=exc,
            ),
            response=response,
            referencia=call.referencia,
        ) from None


def _check_echo(echoed: object, response: httpx.Response, call: Call[Any]) -> None:
    # The answer names the operation it is about. Another referencia means it is not the
    # answer to this request (a proxy or cache mixing answers, a service bug): the SDK cannot
    # tell whether *this* request was accepted.
    if echoed != call.referencia:
        raise ResponseError(
            message(
                "response.other_referencia",
                where=f"{call.method} {call.log_path or call.path}",
                status=response.status_code,
                echoed=str(echoed)[:60],
                sent=call.referencia,
            ),
            response=response,
            referencia=call.referencia,
        )


def read_acceptance(response: httpx.Response, call: Call[Any], http: HTTPInfo) -> Acceptance:
    """Read the 202 of an operation on a terminal; it must name the referencia sent."""
    result = _structured(_json_body(response, call), Acceptance, response, call, http)
    _check_echo(result.referencia, response, call)
    return result


def read_qrcode(response: httpx.Response, call: Call[Any], http: HTTPInfo) -> QRCode:
    """Read the 201 of ``POST /qrcode``; it must name the referencia sent."""
    result = _structured(_json_body(response, call), QRCode, response, call, http)
    _check_echo(result.referencia, response, call)
    return result


# The refund answer and the listing are read key by key: their shapes are not specified, and
# a key of an unexpected type is ignored rather than refused.
_REFUND_REFERENCIA = _wire.path(Refund, "referencia")
_SMARTPOS_ID = _wire.path(Terminal, "smartpos_id")

_R = TypeVar("_R")


def read_tolerant(cls: type[_R], data: Mapping[str, Any], **known: Any) -> _R:
    """Build a record the spec does not describe, keeping whatever it can read.

    Each optional ``str`` field of ``cls`` takes its wire key's value when that is a string,
    and ``None`` otherwise (never an error: the service's shape may grow or differ); every
    key stays readable in ``raw``. ``known`` sets fields the caller already knows (the
    referencia sent, the HTTP metadata). One reader for the refund answer, the terminal
    listing and any status record to come.
    """
    values: dict[str, Any] = {}
    for field in attrs.fields(cls):  # type: ignore[arg-type]
        if field.name in known or field.name in ("raw", "http"):
            continue
        value = data.get(_wire.path(cls, field.name))
        values[field.name] = value if isinstance(value, str) else None
    return cls(**values, **known, raw=data)  # type: ignore[call-arg]


def read_refund(response: httpx.Response, call: Call[Any], http: HTTPInfo) -> Refund:
    """Read the answer of ``POST /v1/refunds``, whose shape the spec leaves open."""
    data = _json_body(response, call, allow_empty=True)
    if not isinstance(data, Mapping):
        raise ResponseError(
            message("response.refund_not_an_object", status=response.status_code),
            response=response,
            referencia=call.referencia,
        )
    assert call.referencia is not None
    referencia = data.get(_REFUND_REFERENCIA)
    # The refund answer is not specified: a missing or non-string referencia is tolerated, a
    # string that names another referencia is not.
    if isinstance(referencia, str) and referencia:
        _check_echo(referencia, response, call)
    return read_tolerant(Refund, data, referencia=call.referencia, http=http)


def read_json(response: httpx.Response, call: Call[Any], http: HTTPInfo) -> JSONAnswer:
    """Read the answer of ``client.request``: its JSON as parsed (``None`` for an empty body)."""
    value = _json_body(response, call) if response.content else None
    return JSONAnswer(value, http)


def read_terminals(response: httpx.Response, call: Call[Any], http: HTTPInfo) -> list[Terminal]:
    """Read the listing of a customer's terminals, whose shape the spec leaves open."""
    data = _json_body(response, call)
    items: Any = None
    if isinstance(data, list):
        items = data
    elif isinstance(data, Mapping):
        # The listing's shape is not specified: take the known key, else the only list.
        for key in _wire.LISTING_KEYS:
            if isinstance(data.get(key), list):
                items = data[key]
                break
        else:
            lists = [v for v in data.values() if isinstance(v, list)]
            if len(lists) == 1:
                items = lists[0]
            elif not lists and isinstance(data.get(_SMARTPOS_ID), str):
                items = [data]
    if items is None or not all(isinstance(item, Mapping) for item in items):
        raise ResponseError(
            message("response.no_terminals", path=call.log_path, status=response.status_code),
            response=response,
        )
    return [read_tolerant(Terminal, item) for item in items]


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
    fields: dict[str, str | None] = dict.fromkeys(_wire.ERROR_FIELDS)
    try:
        content = response.content
    except _httpcompat.classes("ResponseNotRead"):
        # A user's response hook raised and httpx closed the response unread: its status
        # still gives the HTTP class.
        content = b""
    try:
        data = json.loads(content) if content else None
    except (ValueError, RecursionError):  # RecursionError: JSON nested too deep
        data = None
    erro = data.get(_wire.ERROR_OBJECT) if isinstance(data, Mapping) else None
    if isinstance(erro, Mapping):
        for name, key in _wire.ERROR_FIELDS.items():
            value = erro.get(key)
            if isinstance(value, str) and value:
                fields[name] = value
    cls = error_class(response.status_code, fields["codigo"])
    return cls(
        response.status_code,
        response=response,
        request_id=request_id_of(response.headers),
        **fields,
    )
