"""The sandbox's own request and answer types: plain data, no httpx, no sockets.

Drivers (the httpx transport, the HTTP server) turn what they receive into a `Request`
and what they get back into bytes on the wire or an exception: a `Response`, or a
`NoResponse` when a fault means that nothing is answered.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from typing import Any, Literal

import attrs

from ._rules import Reject

__all__ = [
    "NoResponse",
    "Request",
    "Response",
    "encode_json",
    "error_response",
    "json_response",
    "try_json",
]


@attrs.frozen
class Request:
    """One HTTP request as the service sees it.

    Attributes:
        method: The HTTP method, upper-case.
        path: The URL path, percent-decoded.
        headers: Header names in lower case; repeated headers joined by ``", "``.
        body: The raw body.
        query: The raw query string, without ``?`` (only the control API reads it).
    """

    method: str
    path: str
    headers: Mapping[str, str]
    body: bytes
    query: str = ""


@attrs.frozen
class Response:
    """One HTTP answer.

    Attributes:
        status: The status code.
        headers: Header names in lower case, in the order they are sent (no ``content-length``:
            the driver adds it).
        body: The raw body.
    """

    status: int
    headers: Mapping[str, str]
    body: bytes


@attrs.frozen
class NoResponse:
    """No answer is sent: a fault refused the connection, dropped it, or keeps it silent.

    Attributes:
        reason: ``"refused"`` (before anything), ``"dropped"`` or ``"timeout"`` (after the
            request was processed).
        hold: For ``"timeout"``, seconds a real server keeps the connection silent.
    """

    reason: Literal["refused", "dropped", "timeout"]
    hold: float = 0.0


def encode_json(data: Mapping[str, Any]) -> bytes:
    """Return the exact bytes the sandbox sends for a JSON object (compact UTF-8).

    Args:
        data: The object (an answer body or an event envelope).

    Returns:
        The encoded body.
    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    # A lone surrogate (from a request's "\\ud800", echoed or logged) cannot be UTF-8: written
    # back as the same JSON escape, so that encoding never fails.
    return text.encode("utf-8", "backslashreplace")


def json_response(
    status: int, body: Mapping[str, Any], headers: Mapping[str, str] | None = None
) -> Response:
    """Return a JSON answer with the service's ``content-type`` and a fresh ``x-request-id``.

    Args:
        status: The status code.
        body: The JSON object.
        headers: Extra headers (``allow``, ``retry-after``).

    Returns:
        The answer.
    """
    all_headers = {
        "content-type": "application/json; charset=utf-8",
        "x-request-id": str(uuid.uuid4()),
        **(headers or {}),
    }
    return Response(status, all_headers, encode_json(body))


def error_response(reject: Reject) -> Response:
    """Return the spec's error answer for ``reject`` (its status, ``erro`` body and headers).

    Args:
        reject: The error.

    Returns:
        The answer.
    """
    return json_response(reject.status, reject.body(), reject.headers)


def try_json(content: bytes) -> Any:
    """Decode a body for the request log: the JSON value, or ``None`` when it is not JSON.

    Args:
        content: The raw body.

    Returns:
        The decoded value or ``None``.
    """
    if not content:
        return None
    try:
        return json.loads(content)
    except (ValueError, RecursionError):
        return None
