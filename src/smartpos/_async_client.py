"""AsyncClient and its resources: I/O only, every decision is in ``_core``.

This file is the source of ``_sync_client.py``, which ``scripts/unasync.py`` generates from it
(CI checks that the two match): edit here, then run ``python scripts/unasync.py``.
"""

from __future__ import annotations

import builtins
import copy
from collections.abc import Awaitable, Callable, Mapping
from os import PathLike
from types import TracebackType
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, cast

import httpx

from . import (
    _calls,
    _config,
    _core,
    _httpcompat,
    _logging,
    _outcome_calls,
    _params,
    _raw,
    _transports,
)
from ._errors import ConfigurationError
from ._messages import in_language, message
from ._models import (
    Acceptance,
    QRCode,
    Refund,
    Terminal,
)
from ._params import PaymentParams, PrintJobParams, QRCodeParams, RefundParams
from ._raw import RawResponse

if TYPE_CHECKING:
    import httpx2
    from typing_extensions import Unpack

    from .webhooks import (
        Event,
        ImpressaoConcluida,
        ImpressaoFalhou,
        Operation,
        PagamentoAprovado,
        PagamentoRecusado,
        Sale,
        SmartposIdentificado,
        StoreBase,
    )

__all__ = [
    "AsyncClient",
    "AsyncPayments",
    "AsyncPaymentsWithRawResponse",
    "AsyncPrintJobs",
    "AsyncPrintJobsWithRawResponse",
    "AsyncQRCodes",
    "AsyncQRCodesWithRawResponse",
    "AsyncRefunds",
    "AsyncRefundsWithRawResponse",
    "AsyncTerminals",
    "AsyncTerminalsWithRawResponse",
]

T = TypeVar("T")
P = ParamSpec("P")


class AsyncClient:
    """Client of the Terminal Payment, Refund and Print Integration Service.

    Every operation is asynchronous on the service's side too: a successful answer only means
    *accepted*. A sale is final only when the ``pagamento.aprovado`` event reaches your webhook.

    Args:
        api_key: The integration key of the partner portal. Default: env ``SMARTPOS_API_KEY``.
        base_url: The service's base address. Default: env ``SMARTPOS_BASE_URL``.
        timeout: Seconds, or an ``httpx.Timeout``. Default: 5 s to connect, 30 s otherwise.
        max_retries: Retries after a network failure, 429 or 5xx; 0 disables them. A retry
            always resends the same referencia, so it can never charge twice.
        retry_backoff: Base of the exponential backoff with jitter, in seconds; 0 retries at
            once without waiting, ``Retry-After`` included (for tests).
        http_client: An ``httpx.AsyncClient`` you own (proxies, mTLS, event hooks), or an
            ``httpx2.AsyncClient``; it is used as given and never closed by this client. Its
            default headers are sent and its event hooks run; the SDK puts one response hook
            in front of yours, which reads the body of the SDK's own responses only, so that
            a ``raise_for_status`` hook still gives the right ``APIError``.
        transport: An httpx (or httpx2) transport, e.g.
            ``smartpos.testing.Sandbox().transport()``; the client is built with its library.
        strict_referencia: Refuse a referencia that is not a UUID version 4 or 5 from its
            first character (spec 2.6). Turn off only for a legacy system that cannot change
            its references.
        store: A webhooks store (``smartpos.webhooks.SQLiteStore``, ``RedisStore``...): the
            one your ``WebhookReceiver`` writes events into, possibly from another process
            or host. With it, every payment, refund, print job and QR code is journaled
            before it is sent, ``create`` of a referencia already journaled never sends a
            second request, and ``create_and_wait``, ``wait`` and ``reconcile`` work. Or
            its URL or path, opened by ``smartpos.webhooks.open_store``: a file path or
            ``sqlite:///inbox.sqlite3``, ``redis://host:6379/0``,
            ``postgresql://user@host/db`` or ``memory:``; the client then owns that store
            and closes it in ``close()``.
        lang: The language of the SDK's own messages (errors it raises): ``"pt_BR"`` or
            ``"en"``. Default: env ``SMARTPOS_LANG`` (``pt_BR`` for Portuguese), else English.
            The service's own ``mensagem``/``acao`` are Portuguese either way; logs stay English.
        terminal_hold: Seconds an ``imediato`` attempt of a sale (``sale=``) holds its
            terminal at most, journaled with the attempt: another sale's ``imediato`` charge
            to that terminal is refused (``TerminalBusyError``) until the attempt's final
            event, its abandon, or this long after it was sent. 0: no hold.
        pending_after: Seconds after which an attempt of a sale still without outcome is a
            ``no_outcome`` pendência (``store.sale(...).pendencias``), journaled with it.

    Raises:
        ConfigurationError: no API key or base URL, a key that cannot be an HTTP header value,
            a base URL with a query or a fragment, a transport of the other flavour, or a bad
            option. The message never holds the key.
    """

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        timeout: float | httpx.Timeout | httpx2.Timeout | None = None,
        max_retries: int = 2,
        retry_backoff: float = 0.5,
        http_client: httpx.AsyncClient | httpx2.AsyncClient | None = None,
        transport: httpx.AsyncBaseTransport | httpx2.AsyncBaseTransport | None = None,
        strict_referencia: bool = True,
        store: StoreBase | str | PathLike[str] | None = None,
        lang: str | None = None,
        terminal_hold: float = 300.0,
        pending_after: float = 600.0,
    ) -> None:
        _logging.set_up()
        self._config = _config.Config.create(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            retry_backoff=retry_backoff,
            strict_referencia=strict_referencia,
            lang=lang,
            terminal_hold=terminal_hold,
            pending_after=pending_after,
        )
        if http_client is not None:
            if transport is not None:
                raise ConfigurationError(
                    message("client.http_client_and_transport", lang=self._config.lang)
                )
            if not _httpcompat.is_client(http_client, asynchronous=True):
                raise ConfigurationError(
                    message(
                        "client.http_client_type",
                        lang=self._config.lang,
                        expected="httpx.AsyncClient/httpx2.AsyncClient",
                        type=type(http_client).__name__,
                    )
                )
            if timeout is None:
                self._config = self._config.with_timeout(http_client.timeout)
            # httpx2's client has httpx's API: one type for both below.
            self._http = cast("httpx.AsyncClient", http_client)
            _transports.read_before_hooks(self._http)
            self._owns_http = False
            # The user's client builds each request: its defaults are merged in.
            self._builder: httpx.AsyncClient | None = self._http
        else:
            library = _httpcompat.library_of(transport)
            self._http = library.AsyncClient(
                timeout=_httpcompat.timeout_for(library, self._config.timeout),
                **_transports.client_options(transport, asynchronous=True, lang=self._config.lang),
            )
            self._owns_http = True
            # An httpx2 client cannot send a request of httpx's: it builds its own.
            self._builder = None if library is httpx else self._http
        self._store = _outcome_calls.check_store(store)
        # Opened here from its URL or path: nobody else holds it, so close() closes it.
        self._owns_store = isinstance(store, (str, PathLike))
        self._closed = False
        self._attach_resources()

    def _attach_resources(self) -> None:
        self.qrcodes = AsyncQRCodes(self)
        self.payments = AsyncPayments(self)
        self.refunds = AsyncRefunds(self)
        self.print_jobs = AsyncPrintJobs(self)
        self.terminals = AsyncTerminals(self)

    def with_options(
        self,
        *,
        timeout: float | httpx.Timeout | httpx2.Timeout | None = None,
        max_retries: int | None = None,
        headers: Mapping[str, str] | None = None,
        terminal_hold: float | None = None,
        pending_after: float | None = None,
    ) -> AsyncClient:
        """Return a client with these options changed, sharing this one's connections.

        The new client uses the same connection pool (the same ``httpx`` client), the same
        store and every other setting of this one. Closing it closes neither: the client
        that owns them (this one, unless they were passed in) closes them, after which the
        derived one's calls raise ``ClientClosedError``, as they do when derived from a closed
        client. No connection is opened, so deriving one per request is cheap:
        ``client.with_options(timeout=2).terminals.list(...)``.

        Args:
            timeout: Seconds, or an ``httpx.Timeout``, for every request of the new client.
                ``None``: this client's.
            max_retries: Retries of the new client; 0 disables them. ``None``: this client's.
            headers: Headers added to every request (to the ones this client adds, a name
                set again replaces its value). ``Authorization``, ``Proxy-Authorization``,
                ``X-Api-Key`` and the body's framing (``Content-Length``,
                ``Transfer-Encoding``, ``Host``) are refused; the SDK's own headers (``Accept``,
                ``User-Agent``, ``Content-Type``) win over a header of the same name.
            terminal_hold: Seconds an ``imediato`` attempt of a sale holds its terminal at
                most (0: no hold). ``None``: this client's.
            pending_after: Seconds after which an attempt of a sale without outcome is a
                ``no_outcome`` pendência. ``None``: this client's.

        Returns:
            A new client of the same class.

        Raises:
            ConfigurationError: a bad timeout, max_retries or header; the message never
                holds a header's value.
        """
        config = self._config.with_options(
            timeout=timeout,
            max_retries=max_retries,
            headers=headers,
            terminal_hold=terminal_hold,
            pending_after=pending_after,
        )
        derived = copy.copy(self)
        derived._config = config
        # Borrowed: the pool and the store stay this client's to close.
        derived._owns_http = False
        derived._owns_store = False
        derived._attach_resources()
        return derived

    async def request(
        self,
        method: str,
        path: str,
        *,
        json: object = None,
        params: Mapping[str, Any] | None = None,
        timeout: float | httpx.Timeout | None = None,
    ) -> Any:
        """Call an endpoint the SDK has no method for yet: ``{method} {base_url}{path}``.

        The same key, headers, retries, backoff and error classification as every resource
        method. A POST whose ``json`` object carries a ``"referencia"`` starts an operation,
        as a payment does: every retry resends the same bytes, any doubt about whether the
        service took it is an ``OutcomeUnknownError`` with that referencia, and a client with
        a store journals it before the send (operation kind ``"request"``: ``reconcile``
        resends it, ``wait`` takes the first final event with its referencia). GET and HEAD
        are retried freely; any other call (PUT, PATCH, DELETE, a POST without referencia)
        only when nothing can have reached the service.

        For the status, headers and bytes of the answer, use ``with_raw_response`` on a
        resource method, or an ``http_client`` event hook.

        Args:
            method: ``GET``, ``HEAD``, ``POST``, ``PUT``, ``PATCH`` or ``DELETE``.
            path: Appended to the base URL, such as ``"/v1/new-endpoint"``; no query.
            json: The JSON body, sent as given (names are not converted to camelCase).
            params: The query parameters.
            timeout: Seconds, or an ``httpx.Timeout``, for this call only.

        Returns:
            The answer's JSON as parsed (``dict``, ``list``...), or ``None`` for an empty body.

        Raises:
            ValidationError: a bad method, path, params, json, referencia or timeout; nothing
                was sent.
            APIError: the service refused it (the same exception classes as the resources).
            TransportError: nothing reached the service, or a call without referencia failed.
            OutcomeUnknownError: a POST with a referencia may have been accepted.
        """
        call = _calls.request_call(self._config, method, path, data=json, params=params)
        call = _calls.timed(self._config, call, timeout)
        if call.starts_operation and self._store is not None:
            answer = await self._start(call)
        else:
            answer = await self._execute(call)
        return answer.value

    def __repr__(self) -> str:
        return f"<{type(self).__name__} base_url={_logging.redact_url(self._config.base_url)!r}>"

    @property
    def base_url(self) -> str:
        """The service's base address this client calls."""
        return self._config.base_url

    async def wait(self, referencia: str, *, timeout: float) -> Event:
        """Wait for the final event of ``referencia`` in the client's store.

        It wakes soon after the event is stored, by any process or host sharing the store.
        A referencia the journal does not hold (another system started it) gets the first
        stored event with that ``dados.referencia`` whose ``tipo`` ends some operation.

        Args:
            referencia: The operation's referencia (``Acceptance.referencia``,
                ``OutcomeUnknownError.referencia``, ``Operation.referencia``).
            timeout: Seconds to wait at most.

        Returns:
            The final event: ``PagamentoAprovado``, ``PagamentoRecusado``,
            ``ImpressaoConcluida``, ``ImpressaoFalhou``, ``SmartposIdentificado``, or a
            refund's event.

        Raises:
            ConfigurationError: the client has no store.
            ValidationError: a bad referencia or timeout.
            OutcomePendingError: no final event within ``timeout``: wait again later; never
                charge again with a new referencia. A store that fails during the wait is
                retried until the deadline; its error is then ``last_error``.
            OperationRejectedError: the journal holds the operation as rejected: no event
                will come, nothing was charged.
        """
        flow = _outcome_calls.wait(self._store, referencia, timeout=timeout)
        return await self._run(flow, _text(referencia), "client.wait")

    async def reconcile(self, referencia: str) -> Operation:
        """Resolve an operation whose answer is unknown, without a second charge.

        The journaled request is sent again byte for byte, so with the same referencia: a
        2xx means accepted now, a 409 ``REFERENCIA_DUPLICADA`` means the earlier send reached
        the service; either way the operation is ``accepted`` and its event says the rest
        (``wait``). Only ``sending`` and ``unknown`` operations are sent; ``accepted``,
        ``final`` and ``rejected`` ones are returned as they are.

        Args:
            referencia: A journaled referencia (``store.operations()`` lists those waiting).

        Returns:
            The operation as the journal holds it now.

        Raises:
            ConfigurationError: the client has no store; nothing was sent.
            ValidationError: the journal holds no such referencia; nothing was sent.
            OutcomeUnknownError: the resend did not settle it either (the network failed, a
                5xx): it stays ``unknown``; reconcile again later. Also a store that failed
                before the resend (``last_error``): nothing was sent; reconcile again later.
            StoreError: the store failed before anything was read; nothing was sent.
        """
        flow = _outcome_calls.reconcile(self._store, referencia)
        return await self._run(flow, _text(referencia), "client.reconcile")

    async def abandon(self, sale_id: str, *, motivo: str, operador: str | None = None) -> Sale:
        """Give up the open attempt of a sale: the cashier stops waiting for it.

        Nothing is sent (the service has no cancel, and the terminal may still run it). The
        attempt is marked abandoned with who, why and when; the sale is open for a new
        attempt and the terminal free at once. If the terminal approves it anyway, that
        approval is never counted: it is a ``late_approval`` pendência, which
        ``compensate`` refunds. A sale without an open attempt is returned unchanged.

        Args:
            sale_id: The sale's key (``sale=`` of ``payments.create``).
            motivo: Why, in the cashier's words (at most 200 characters).
            operador: Who, or ``None`` (at most 200 characters).

        Returns:
            The sale as it stands now.

        Raises:
            ConfigurationError: the client has no store.
            ValidationError: a bad ``sale_id``, ``motivo`` or ``operador``, or a sale the
                store does not know; nothing was recorded.
            StoreError: the store failed.
        """
        flow = _outcome_calls.abandon(self._store, sale_id, motivo=motivo, operador=operador)
        return await self._run(flow, None, "client.abandon")

    async def compensate(self, sale_id: str) -> builtins.list[Operation]:
        """Refund every late approval of a sale (an approval of an abandoned attempt), once.

        Each is refunded in full with ``refunds.create_for(event,
        referencia=smartpos.referencia_for(f"compensacao:{referencia}"))`` (the late
        attempt's referencia), journaled under the sale. A compensation the journal holds
        already (this or another process) is never sent again: running this twice, or from
        several processes at once, sends one refund per late approval. The one exception is
        a compensation the service surely did not take (``rejected``: a 4xx, a send that
        never left), which is sent again under the same referencia: a first send.

        Args:
            sale_id: The sale's key.

        Returns:
            The compensation refunds' operations, started now or found, in attempt order.
            Only an ``accepted`` (or ``final``) refund takes its late approval off the
            pendências: one refused (``rejected``), unknown (``unknown``) or journaled by a
            process that died before sending it (``sending``) stays a pendência; settle an
            unknown or unsent one with ``client.reconcile(operation.referencia)`` (the same
            bytes, never a second refund).

        Raises:
            ConfigurationError: the client has no store.
            ValidationError: a bad ``sale_id``, or a sale the store does not know.
            StoreError: the store failed.
        """
        flow = _outcome_calls.compensate(self._store, self._config, sale_id)
        return await self._run(flow, None, "client.compensate")

    async def _start(self, call: _calls.Call[T]) -> T:
        """Send an operation: journaled before it is sent when the client has a store."""
        if self._store is None:
            _outcome_calls.check_sale(self._store, call)
            return await self._execute(call)
        flow = _outcome_calls.create(self._store, call)
        return await self._run(flow, call.referencia, call.operation or call.path)

    async def _run(
        self, flow: _outcome_calls.Flow[T], referencia: str | None = None, what: str = ""
    ) -> T:
        """Drive a flow of ``_outcome_calls``: do each step it yields, send back the reply.

        ``referencia`` and ``what`` name the operation in the note an interruption carries.
        """
        reply: Any = None
        # The flow's own refusals (a sale's rules in the store...) speak the client's language.
        with in_language(self._config.lang):
            try:
                while True:
                    step = flow.send(reply)
                    try:
                        if isinstance(step, _outcome_calls.Send):
                            value = await self._execute(step.call, resend=step.resend)
                        elif isinstance(step, _outcome_calls.Wait):
                            value = await self._wait_for(step)
                        else:
                            value = await _blocking(self._store, step.function)
                    except Exception as exc:  # noqa: BLE001 - the flow decides what it means
                        reply = _outcome_calls.Reply(error=exc)
                    else:
                        reply = _outcome_calls.Reply(value)
            except StopIteration as stop:
                result: T = stop.value
                return result
            except BaseException as exc:
                _outcome_calls.interrupted(exc, referencia, what)
                raise
            finally:
                flow.close()

    async def _wait_for(self, step: _outcome_calls.Wait) -> Event | None:
        from .webhooks._listener import AsyncOutcomeWaiter

        assert self._store is not None
        return await AsyncOutcomeWaiter(self._store).wait(step.referencia, step.timeout)

    async def _execute(self, call: _calls.Call[T], *, resend: bool = False) -> T:
        attempts = _core.Attempts(self._config, call, http_client=self._builder, resend=resend)
        request = attempts.request
        try:
            while True:
                attempts.sending(closed=self._closed or self._http.is_closed)
                step: T | _core.Retry
                try:
                    response = await self._http.send(request)
                except Exception as exc:  # noqa: BLE001 - the core classifies anything
                    step = attempts.failed(exc)
                else:
                    step = attempts.answered(response)
                if not isinstance(step, _core.Retry):
                    return step
                if step.delay > 0:
                    await _sleep(step.delay)
        except BaseException as exc:
            # Cancellation, Ctrl-C: they propagate, carrying the referencia as a note.
            attempts.interrupted(exc)
            raise

    async def close(self) -> None:
        """Close the HTTP connections this client opened (not an ``http_client`` you passed).

        A store the client opened from its URL or path is closed too (not a store you passed).
        A closed client sends nothing more: its calls raise ``ClientClosedError``.
        """
        self._closed = True
        if self._owns_http:
            await self._http.aclose()
        if self._owns_store and self._store is not None:
            self._owns_store = False
            await _blocking(self._store, self._store.close)

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


async def _blocking(store: object, function: Callable[[], T]) -> T:
    # A store call blocks (a file, a socket): a worker thread keeps the event loop free.
    from .webhooks._threads import run_store_call

    return await run_store_call(store, function)


async def _sleep(seconds: float) -> None:
    # anyio works under asyncio and trio alike, as httpx does; imported here because
    # `import smartpos` must stay cheap and only a retry ever sleeps.
    import anyio

    await anyio.sleep(seconds)


def _raw_method(method: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[RawResponse[T]]]:
    """Type a method of a raw resource (``raw=True``) as what it returns: a ``RawResponse``."""
    return cast("Callable[P, Awaitable[RawResponse[T]]]", method)


class _AsyncResource:
    __slots__ = ("_client", "_raw")

    def __init__(self, client: AsyncClient, *, raw: bool = False) -> None:
        self._client = client
        self._raw = raw

    async def _send(self, call: _calls.Call[T], timeout: object, *, journaled: bool = True) -> T:
        """Send ``call`` with its own ``timeout``; a ``RawResponse`` of it on a raw resource."""
        client = self._client
        call = _calls.timed(client._config, call, timeout)
        capture = _raw.Capture(call) if self._raw else None
        if capture is not None:
            call = capture.call
        result = await (client._start(call) if journaled else client._execute(call))
        if capture is None:
            return result
        # with_raw_response types it as RawResponse[T] (``_raw_method``).
        return cast("T", capture.raw(result))

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


class AsyncQRCodes(_AsyncResource):
    """QR codes that pair a customer's terminal."""

    @property
    def with_raw_response(self) -> AsyncQRCodesWithRawResponse:
        """The same methods, returning a ``RawResponse``: status, headers, body, ``parse()``."""
        return AsyncQRCodesWithRawResponse(self)

    @_params.takes(QRCodeParams)
    async def create(
        self,
        *,
        timeout: float | httpx.Timeout | None = None,
        **params: Unpack[QRCodeParams],
    ) -> QRCode:
        """Create a QR code that pairs a terminal with the customer: ``POST /qrcode``.

        Show it on screen (``QRCode.to_terminal()``, ``QRCode.save("qr.png")``). When the
        terminal reads it, the ``smartpos.identificado`` event carries the terminal's
        ``smartposId``: save it and link it to the customer.

        Args:
            documento_cliente: The customer's CPF or CNPJ, masked or not.
            referencia: Echoed back; default a new ``smartpos.new_referencia()``.
            timeout: Seconds, or an ``httpx.Timeout``, for this call's HTTP request only;
                default: the client's.

        Returns:
            The QR code value, its referencia and its ``expires_at``.

        Raises:
            ValidationError: a bad argument; nothing was sent.
            APIError: the service refused it.
            TransportError: the network failed (safe to call again).
        """
        call = _calls.qrcode_call(self._client._config, params)
        return await self._send(call, timeout)

    @_params.takes(QRCodeParams)
    async def create_and_wait(
        self,
        *,
        show: Callable[[QRCode], object] | None = None,
        timeout: float = 120.0,
        request_timeout: float | httpx.Timeout | None = None,
        **params: Unpack[QRCodeParams],
    ) -> SmartposIdentificado:
        """Create a pairing QR code and wait until a terminal reads it: ``POST /qrcode``.

        Needs a client with a store. ``show`` gets the QR code as soon as it exists, before
        the wait: draw it there (``qr.to_terminal()``, ``qr.save("qr.png")``).

        Args:
            documento_cliente: The customer's CPF or CNPJ, masked or not.
            referencia: Echoed back; default a new ``smartpos.new_referencia()``.
            show: Called with the ``QRCode`` once it is created, before the wait.
            timeout: Seconds to wait for ``smartpos.identificado`` once the QR code exists.
            request_timeout: Seconds, or an ``httpx.Timeout``, for the HTTP request only
                (``timeout`` is the wait's); default: the client's.

        Returns:
            The ``smartpos.identificado`` event: save ``dados.smartpos_id`` for the customer.

        Raises:
            ConfigurationError: the client has no store; nothing was sent.
            ValidationError: a bad argument; nothing was sent.
            APIError: the service refused it.
            TransportError: the network failed.
            OutcomePendingError: no terminal read it within ``timeout``.
        """
        call = _calls.qrcode_call(self._client._config, params)
        call = _calls.timed(self._client._config, call, request_timeout)
        flow = _outcome_calls.qrcode_and_wait(self._client._store, call, timeout=timeout, show=show)
        return await self._client._run(flow, call.referencia, f"{call.operation}_and_wait")


class AsyncPayments(_AsyncResource):
    """Payments on a terminal."""

    @property
    def with_raw_response(self) -> AsyncPaymentsWithRawResponse:
        """The same methods, returning a ``RawResponse``: status, headers, body, ``parse()``."""
        return AsyncPaymentsWithRawResponse(self)

    @_params.takes(PaymentParams)
    async def create(
        self,
        *,
        timeout: float | httpx.Timeout | None = None,
        **params: Unpack[PaymentParams],
    ) -> Acceptance:
        """Ask a terminal for a payment: ``POST /v1/payments``.

        The answer only means *accepted*. Finalize the sale when ``pagamento.aprovado`` with
        this ``referencia`` reaches your webhook; ``pagamento.recusado`` means do not.

        A call you cancel or interrupt (a task timeout, Ctrl-C) may already have reached the
        service: treat it as an unknown outcome. The exception that propagates carries the
        referencia in a note (``exc.__notes__``; on ``asyncio.wait_for``, on its ``__cause__``)
        and the referencia is logged before the first send; better still, pass your own
        ``referencia`` (saved with the sale) so that you know which event to wait for.

        Args:
            documento_cliente: The customer's CPF or CNPJ, masked or not.
            valor_centavos: The amount in cents, a positive ``int``.
            smartpos_id: The terminal that charges; required in ``imediato`` mode.
            referencia: One per attempt; default a new ``smartpos.new_referencia()``.
            forma_pagamento: ``credito``, ``debito``, ``pix`` or ``voucher``; default: the
                terminal's own flow.
            parcelas: Installments (credito only); 1 or omitted for a single payment.
            parcelamento: ``estabelecimento`` or ``administradora``; required for credito
                with ``parcelas > 1``.
            modo_execucao: ``imediato`` (charge now) or ``manual`` (a card in the operator's
                queue, which needs ``comanda``).
            comanda: The manual-queue card.
            comprovante: Receipt printing and preview preferences.
            sale: Your own key of the sale this charge pays (a tab, an order; at most 100
                characters): one open attempt per sale, paid once, across processes. Needs a
                client with a store.
            total_centavos: The sale's total, for a sale paid by several charges (a split bill);
                default: this charge's ``valor_centavos``. Fixed by the sale's first attempt.
            timeout: Seconds, or an ``httpx.Timeout``, for this call's HTTP request only;
                default: the client's.

        Returns:
            The acceptance: ``referencia``, ``status`` (``processando``) and ``targets``.

        Raises:
            ValidationError: a bad argument; nothing was sent.
            ReferenciaDuplicadaError: the referencia you passed was used before: this call
                started nothing, but the earlier request under it may have; wait for its
                event before charging again.
            APIError: the service refused it; fix it and retry with a new referencia.
            TransportError: nothing reached the service; retry with a new referencia.
            OutcomeUnknownError: the service may have accepted it; do not charge again, wait
                for the event carrying ``error.referencia``.
        """
        call = _calls.payment_call(self._client._config, params)
        return await self._send(call, timeout)

    @_params.takes(PaymentParams)
    async def create_and_wait(
        self,
        *,
        timeout: float = 120.0,
        request_timeout: float | httpx.Timeout | None = None,
        **params: Unpack[PaymentParams],
    ) -> PagamentoAprovado | PagamentoRecusado:
        """Ask a terminal for a payment and wait for its outcome: ``POST /v1/payments``.

        Needs a client with a store (the one your ``WebhookReceiver`` writes into, in this
        process or another). The request is journaled before it is sent; the outcome is the
        first stored ``pagamento.aprovado`` or ``pagamento.recusado`` with this referencia
        that agrees with the request (customer, amount, terminal): a forged or misrouted
        event never ends the sale.

        If the answer to the request is unknown (``OutcomeUnknownError`` from ``create``) this
        keeps waiting for the event: the payment may have been accepted. It never sends a
        second request under a new referencia.

        Args:
            documento_cliente: The customer's CPF or CNPJ, masked or not.
            valor_centavos: The amount in cents, a positive ``int``.
            smartpos_id: The terminal that charges; required in ``imediato`` mode.
            referencia: One per attempt; default a new ``smartpos.new_referencia()``.
            forma_pagamento: ``credito``, ``debito``, ``pix`` or ``voucher``; default: the
                terminal's own flow.
            parcelas: Installments (credito only); 1 or omitted for a single payment.
            parcelamento: ``estabelecimento`` or ``administradora``; required for credito
                with ``parcelas > 1``.
            modo_execucao: ``imediato`` (charge now) or ``manual`` (a card in the operator's
                queue, which needs ``comanda``).
            comanda: The manual-queue card.
            comprovante: Receipt printing and preview preferences.
            sale: Your own key of the sale this charge pays (a tab, an order; at most 100
                characters): one open attempt per sale, paid once, across processes. Needs a
                client with a store.
            total_centavos: The sale's total, for a sale paid by several charges (a split bill);
                default: this charge's ``valor_centavos``. Fixed by the sale's first attempt.
            timeout: Seconds to wait for the event once the service answered.
            request_timeout: Seconds, or an ``httpx.Timeout``, for the HTTP request only
                (``timeout`` is the wait's); default: the client's.

        Returns:
            ``PagamentoAprovado`` (finalize the sale; keep ``dados.autorizacao`` for a refund)
            or ``PagamentoRecusado`` (do not finalize; a new attempt needs a new referencia).

        Raises:
            ConfigurationError: the client has no store; nothing was sent.
            ValidationError: a bad argument, or a referencia journaled for another request;
                nothing was sent.
            APIError: the service refused it; fix it and retry with a new referencia.
            TransportError: nothing reached the service; retry with a new referencia.
            OutcomePendingError: no outcome within ``timeout``: do not charge again; wait
                again later with ``client.wait(error.referencia, timeout=...)``.
            OutcomeUnknownError: the store failed before the send and the journal write
                could not be confirmed: resume with ``referencia=error.referencia``.
            StoreError: the store proved nothing was journaled; nothing was sent.
        """
        call = _calls.payment_call(self._client._config, params)
        call = _calls.timed(self._client._config, call, request_timeout)
        flow = _outcome_calls.payment_and_wait(self._client._store, call, timeout=timeout)
        return await self._client._run(flow, call.referencia, f"{call.operation}_and_wait")


class AsyncRefunds(_AsyncResource):
    """Refunds of approved payments."""

    @property
    def with_raw_response(self) -> AsyncRefundsWithRawResponse:
        """The same methods, returning a ``RawResponse``: status, headers, body, ``parse()``."""
        return AsyncRefundsWithRawResponse(self)

    @_params.takes(RefundParams)
    async def create(
        self,
        *,
        timeout: float | httpx.Timeout | None = None,
        **params: Unpack[RefundParams],
    ) -> Refund:
        """Refund an approved payment on the terminal that charged it: ``POST /v1/refunds``.

        Args:
            documento_cliente: The customer of the original payment.
            smartpos_id: The terminal that executed the original payment.
            valor_centavos: The amount to refund in cents (total or partial).
            pagamento_original: The authorization data of the ``pagamento.aprovado`` event.
            referencia: The refund's own referencia; default a new one.
            timeout: Seconds, or an ``httpx.Timeout``, for this call's HTTP request only;
                default: the client's.

        Returns:
            The service's answer; its fields are not specified, see ``Refund.raw``.

        Raises:
            ValidationError: a bad argument; nothing was sent.
            APIError: the service refused it.
            TransportError: nothing reached the service; retry with a new referencia.
            OutcomeUnknownError: the service may have accepted it; do not refund again.
        """
        call = _calls.refund_call(self._client._config, params)
        return await self._send(call, timeout)

    async def create_for(
        self,
        evento: PagamentoAprovado,
        *,
        valor_centavos: int | None = None,
        referencia: str | None = None,
        timeout: float | httpx.Timeout | None = None,
    ) -> Refund:
        """Refund the payment of a ``pagamento.aprovado`` event: ``POST /v1/refunds``.

        The customer, the terminal and ``pagamento_original`` come from the event. In a
        webhook handler (which may run twice), derive the referencia from the event, so that
        a second run cannot start a second refund:
        ``referencia=smartpos.referencia_for(f"estorno:{evento.id}")``.

        Args:
            evento: The ``PagamentoAprovado`` event of the payment.
            valor_centavos: The amount to refund; default the approved amount (a total refund);
                never more than the event's approved amount.
            referencia: The refund's own referencia; default a new one. Its first 10
                characters must differ (ignoring case) from the payment's referencia.
            timeout: Seconds, or an ``httpx.Timeout``, for this call's HTTP request only;
                default: the client's.

        Returns:
            The service's answer; see ``Refund.raw``.

        Raises:
            ValidationError: the event lacks the data a refund needs, or a bad argument.
            ReferenciaDuplicadaError: the referencia you passed was used before (a handler
                that already ran): that earlier refund request stands; do not refund again.
            APIError: the service refused it.
            TransportError: nothing reached the service; retry with a new referencia.
            OutcomeUnknownError: the service may have accepted it; do not refund again.
        """
        call = _calls.refund_for_call(
            self._client._config, evento, valor_centavos=valor_centavos, referencia=referencia
        )
        return await self._send(call, timeout)


class AsyncPrintJobs(_AsyncResource):
    """Printing on a terminal."""

    @property
    def with_raw_response(self) -> AsyncPrintJobsWithRawResponse:
        """The same methods, returning a ``RawResponse``: status, headers, body, ``parse()``."""
        return AsyncPrintJobsWithRawResponse(self)

    @_params.takes(PrintJobParams)
    async def create(
        self,
        *,
        timeout: float | httpx.Timeout | None = None,
        **params: Unpack[PrintJobParams],
    ) -> Acceptance:
        """Print on a terminal: ``POST /v1/print-jobs``.

        ``impressao.concluida`` or ``impressao.falhou`` reports the outcome. Printing never
        changes the financial state of a sale.

        Args:
            documento_cliente: The customer linked to the terminal.
            smartpos_id: The terminal that prints.
            conteudo: What to print: bytes, or a str (UTF-8 encoded). The SDK Base64-encodes it.
            referencia: One per print job; default a new one.
            timeout: Seconds, or an ``httpx.Timeout``, for this call's HTTP request only;
                default: the client's.

        Returns:
            The acceptance, with ``referencia`` and ``targets``.

        Raises:
            ValidationError: a bad argument; nothing was sent.
            APIError: the service refused it.
            TransportError: nothing reached the service; retry with a new referencia.
            OutcomeUnknownError: the service may have accepted it; wait for the event.
        """
        call = _calls.print_call(self._client._config, params)
        return await self._send(call, timeout)

    @_params.takes(PrintJobParams)
    async def create_and_wait(
        self,
        *,
        timeout: float = 120.0,
        request_timeout: float | httpx.Timeout | None = None,
        **params: Unpack[PrintJobParams],
    ) -> ImpressaoConcluida | ImpressaoFalhou:
        """Print on a terminal and wait for the outcome: ``POST /v1/print-jobs``.

        Needs a client with a store. An unknown answer keeps waiting for the event (the job
        may have been accepted); nothing is sent again under a new referencia.

        Args:
            documento_cliente: The customer linked to the terminal.
            smartpos_id: The terminal that prints.
            conteudo: What to print: bytes, or a str (UTF-8 encoded). The SDK Base64-encodes it.
            referencia: One per print job; default a new one.
            timeout: Seconds to wait for the event once the service answered.
            request_timeout: Seconds, or an ``httpx.Timeout``, for the HTTP request only
                (``timeout`` is the wait's); default: the client's.

        Returns:
            ``ImpressaoConcluida`` or ``ImpressaoFalhou``; neither changes a sale.

        Raises:
            ConfigurationError: the client has no store; nothing was sent.
            ValidationError: a bad argument; nothing was sent.
            APIError: the service refused it.
            TransportError: nothing reached the service; retry with a new referencia.
            OutcomePendingError: no outcome within ``timeout``; wait again later.
        """
        call = _calls.print_call(self._client._config, params)
        call = _calls.timed(self._client._config, call, request_timeout)
        flow = _outcome_calls.print_and_wait(self._client._store, call, timeout=timeout)
        return await self._client._run(flow, call.referencia, f"{call.operation}_and_wait")


class AsyncTerminals(_AsyncResource):
    """The customer's terminals."""

    @property
    def with_raw_response(self) -> AsyncTerminalsWithRawResponse:
        """The same methods, returning a ``RawResponse``: status, headers, body, ``parse()``."""
        return AsyncTerminalsWithRawResponse(self)

    async def list(
        self, *, documento_cliente: str, timeout: float | httpx.Timeout | None = None
    ) -> builtins.list[Terminal]:
        """List the customer's terminals: ``GET /v1/customers/{documentoCliente}/smartpos``.

        Args:
            documento_cliente: The customer's CPF or CNPJ, masked or not.
            timeout: Seconds, or an ``httpx.Timeout``, for this call's HTTP request only;
                default: the client's.

        Returns:
            The terminals; the listing's fields are not specified, see ``Terminal.raw``.

        Raises:
            ValidationError: a bad document; nothing was sent.
            APIError: the service refused it.
            TransportError: the network failed (safe to call again).
        """
        call = _calls.terminals_call(self._client._config, documento_cliente=documento_cliente)
        return await self._send(call, timeout, journaled=False)


class _AsyncRawResource:
    """What every ``with_raw_response`` view shares: a ``RawResponse`` per method, its name."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


class AsyncQRCodesWithRawResponse(_AsyncRawResource):
    """``client.qrcodes.with_raw_response``: ``create`` returning a ``RawResponse``.

    Each takes the plain method's arguments and raises its exceptions; ``.parse()`` of what it
    returns is the plain method's result.
    """

    __slots__ = ("create",)

    def __init__(self, resource: AsyncQRCodes) -> None:
        raw = AsyncQRCodes(resource._client, raw=True)
        self.create = _raw_method(raw.create)


class AsyncPaymentsWithRawResponse(_AsyncRawResource):
    """``client.payments.with_raw_response``: ``create`` returning a ``RawResponse``.

    Each takes the plain method's arguments and raises its exceptions; ``.parse()`` of what it
    returns is the plain method's result.
    """

    __slots__ = ("create",)

    def __init__(self, resource: AsyncPayments) -> None:
        raw = AsyncPayments(resource._client, raw=True)
        self.create = _raw_method(raw.create)


class AsyncRefundsWithRawResponse(_AsyncRawResource):
    """``client.refunds.with_raw_response``: ``create``, ``create_for`` returning a ``RawResponse``.

    Each takes the plain method's arguments and raises its exceptions; ``.parse()`` of what it
    returns is the plain method's result.
    """

    __slots__ = ("create", "create_for")

    def __init__(self, resource: AsyncRefunds) -> None:
        raw = AsyncRefunds(resource._client, raw=True)
        self.create = _raw_method(raw.create)
        self.create_for = _raw_method(raw.create_for)


class AsyncPrintJobsWithRawResponse(_AsyncRawResource):
    """``client.print_jobs.with_raw_response``: ``create`` returning a ``RawResponse``.

    Each takes the plain method's arguments and raises its exceptions; ``.parse()`` of what it
    returns is the plain method's result.
    """

    __slots__ = ("create",)

    def __init__(self, resource: AsyncPrintJobs) -> None:
        raw = AsyncPrintJobs(resource._client, raw=True)
        self.create = _raw_method(raw.create)


class AsyncTerminalsWithRawResponse(_AsyncRawResource):
    """``client.terminals.with_raw_response``: ``list`` returning a ``RawResponse``.

    Each takes the plain method's arguments and raises its exceptions; ``.parse()`` of what it
    returns is the plain method's result.
    """

    __slots__ = ("list",)

    def __init__(self, resource: AsyncTerminals) -> None:
        raw = AsyncTerminals(resource._client, raw=True)
        self.list = _raw_method(raw.list)
