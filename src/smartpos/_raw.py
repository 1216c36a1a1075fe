"""`RawResponse`: what ``.with_raw_response`` returns, and how a call's answer is captured.

Sans-I/O: `Capture` wraps a call's reader (``Call.parse``) so that the 2xx response the
reader parsed is kept beside the result. The reader still runs inside the call, exactly as
for the plain method: an unreadable answer is classified the same way (an unknown outcome
for an operation), and a client with a store journals the same result. ``parse()`` then
returns that result; nothing is parsed twice.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import attrs
import httpx

from ._models import HTTPInfo

if TYPE_CHECKING:
    from ._calls import Call

__all__ = ["Capture", "RawResponse"]

T = TypeVar("T")


@attrs.frozen(slots=True, kw_only=True)
class RawResponse(Generic[T]):
    """The HTTP response of a call made through ``.with_raw_response``, and its result.

    Error statuses raise exactly as the plain method does; a ``RawResponse`` is always the
    answer of a call that succeeded.

    Attributes:
        status_code: The HTTP status of the answer (202 for an acceptance).
        headers: The response headers (case-insensitive).
        request_id: The service's request id header, if any.
        elapsed: Seconds from sending the request to reading the whole response (last
            attempt); ``None`` when nothing was sent: a store's journal gave the answer of a
            referencia accepted before.
        content: The body as received; from the journal (``elapsed`` is ``None``), the
            journaled JSON written again.
        referencia: The call's referencia, when it carried one.
        attempts: How many times the request was sent (0: the journal answered).
    """

    status_code: int
    headers: Mapping[str, str] = attrs.field(repr=False)
    request_id: str | None = None
    elapsed: float | None = attrs.field(default=None, repr=False)
    content: bytes = attrs.field(default=b"", repr=False)
    referencia: str | None = None
    attempts: int = 1
    _result: T = attrs.field(alias="result", repr=False, eq=False)

    def parse(self) -> T:
        """The result the plain method returns (``Acceptance``, ``Refund``, ``QRCode``...).

        The body was read while the call ran (the same reading, and the same errors, as the
        plain method's): this returns that result and never raises.
        """
        return self._result

    def json(self) -> Any:
        """The body as parsed JSON (``None`` for an empty body)."""
        return json.loads(self.content) if self.content else None


class Capture(Generic[T]):
    """Keep the 2xx response a call's reader parsed, to build its `RawResponse`."""

    __slots__ = ("_http", "_response", "call")

    def __init__(self, call: Call[T]) -> None:
        self._response: httpx.Response | None = None
        self._http: HTTPInfo | None = None
        self.call: Call[T] = attrs.evolve(call, parse=self._reader(call.parse))

    def _reader(
        self, parse: Callable[[httpx.Response, Call[T], HTTPInfo], T]
    ) -> Callable[[httpx.Response, Call[T], HTTPInfo], T]:
        def read(response: httpx.Response, call: Call[T], http: HTTPInfo) -> T:
            result = parse(response, call, http)
            self._response, self._http = response, http
            return result

        return read

    def raw(self, result: T) -> RawResponse[T]:
        """The `RawResponse` of ``result``, the value the call returned."""
        response, http = self._response, self._http
        if response is not None and http is not None:
            return RawResponse(
                status_code=http.status_code,
                headers=response.headers,
                request_id=http.request_id,
                elapsed=http.elapsed,
                content=response.content,
                referencia=self.call.referencia,
                attempts=http.attempts,
                result=result,
            )
        # Nothing was read: the journal held the answer of this referencia already.
        saved = getattr(result, "http", None)
        body = getattr(result, "raw", None)
        content = b""
        if body is not None:
            content = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
        return RawResponse(
            status_code=saved.status_code if isinstance(saved, HTTPInfo) else 200,
            headers=httpx.Headers(dict(saved.headers) if isinstance(saved, HTTPInfo) else {}),
            request_id=saved.request_id if isinstance(saved, HTTPInfo) else None,
            elapsed=None,
            content=content,
            referencia=self.call.referencia,
            attempts=0,
            result=result,
        )
