"""The cashier's screen: the state of a sale, an operation or a QR code, for a browser.

What every framework's status endpoint shares (one core, thin adapters):

- **views** (pure): a ``Sale`` or an ``Operation`` turned into the public JSON a cashier's page
  shows. Documents are masked; of an approval only what a receipt prints (the authorization
  code, the transaction number, the card brand's payment type), never ``dadosFinalizacao``;
  of a refusal the terminal's message to the operator. See `sale_view` and `operation_view`.
- **change ids**: every view carries ``id``: ``<updated>.<digest>``, the hexadecimal
  milliseconds of its last journal write (never decreasing) and a digest of the view itself.
  Two processes reading the same store compute the same id, so a browser that reconnects to
  another worker with ``Last-Event-ID`` resumes exactly: the same id is not sent again, any
  other state is. Each message is the whole state (every attempt, outcome, pendência), so
  nothing is lost when intermediate states came and went while the browser was away.
- **the hub** (`StatusHub`, one per store and process): it watches the store's change listener
  (the one ``create_and_wait`` uses), which hears of every event stored and of every journal
  write (an operation journaled, accepted, unknown, rejected or settled, an attempt abandoned,
  a new attempt of a sale, a compensation), by any process, within milliseconds; it re-reads
  a followed sale or operation **once per change**, whatever the number of browsers following
  it, then wakes those browsers' streams. A change of a referencia it does not know yet is
  looked up once (a new attempt of a followed sale). Nothing runs while nothing changes,
  except a re-read every ``resync`` seconds of what is in flight (an open attempt, a QR code
  not read yet): a safety net only, for a notification a listener lost while its source
  reconnected, or a store without a change feed.
- **streams**: `follow` (threads: WSGI) and `follow_async` (an event loop: ASGI) give the
  chunks of a Server-Sent Events stream (``retry:``, ``id:``, heartbeat comments) or the one
  JSON answer of a long poll (``?wait=N``). A stream writes to its own socket only: a slow or
  vanished browser blocks nobody else. `StatusHub.close` ends every stream (at shutdown).
- **idle costs nothing per stream but its heartbeat**: heartbeats fall on one grid of the
  process's monotonic clock (every stream beats at the same instants: one wake-up of the
  event loop or of the threads per period, not one per stream at its own phase), and a
  stream's lifetime is spread over its last fifth (a thousand tabs opened together do not
  reconnect together).
- **shutdown**: servers (uvicorn, gunicorn's workers) wait for open responses before they run
  the application's shutdown, so a stream left open would hold the deploy until a timeout.
  `end_streams_at_shutdown` chains the SIGTERM/SIGINT handler the server installed: the
  signal first ends every stream of the process (the browser reconnects to another
  instance), then reaches the server as before.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import logging
import math
import random
import signal
import threading
import time
import weakref
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from importlib import resources
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias

import attrs

from smartpos._documents import mask_documento
from smartpos._errors import ConfigurationError
from smartpos._messages import message
from smartpos._models import QRCode
from smartpos.webhooks._events import (
    PagamentoAprovado,
    PagamentoRecusado,
    SmartposIdentificado,
)
from smartpos.webhooks._listener import _AsyncWaiter, _call_soon_threadsafe, _Waiter, listener_for
from smartpos.webhooks._sales import Sale, counted_valor

if TYPE_CHECKING:
    from smartpos.webhooks._events import Event
    from smartpos.webhooks._outcomes import Operation

__all__ = [
    "CHECKOUT_JS",
    "HEARTBEAT",
    "MAX_HEARTBEAT",
    "MAX_WAIT",
    "RESYNC",
    "RETRY_MS",
    "STREAM_LIFETIME",
    "Authorize",
    "Key",
    "StatusAnswer",
    "StatusHub",
    "change_id",
    "check_authorize",
    "checkout_js",
    "decide",
    "end_streams_at_shutdown",
    "follow",
    "follow_async",
    "hub_for",
    "operation_view",
    "plan_for",
    "sale_view",
    "sse_comment",
    "sse_end",
    "sse_message",
    "unstarted_sale_view",
]

_logger = logging.getLogger("smartpos.webhooks")

#: The longest ``?wait=N`` a long poll takes: under gunicorn's default 30 s worker timeout and
#: the usual 60 s of a proxy (nginx ``proxy_read_timeout``, an AWS ALB's idle timeout).
MAX_WAIT: Final = 25.0
#: Seconds between heartbeat comments of an idle stream (proxies close silent connections).
HEARTBEAT: Final = 15.0
#: The longest heartbeat period a mount accepts (under the 60 s of the usual proxies' idle
#: timeout is what works; above this, say, a forgotten ``* 1000``).
MAX_HEARTBEAT: Final = 120.0
#: What ``retry:`` tells the browser: milliseconds before it reconnects a closed stream.
RETRY_MS: Final = 2000
#: Seconds a stream stays open before the server ends it (the browser reconnects at once with
#: ``Last-Event-ID``): bounds what a forgotten tab holds, and a deploy waits no longer.
STREAM_LIFETIME: Final = 300.0
#: Seconds between re-reads of what is in flight: a safety net (see the module docstring).
RESYNC: Final = 60.0
# Referencias whose sale the hub looked up, kept so that their next writes cost no look-up.
_SALES_KNOWN = 4096
#: The file the integrations serve as ``smartpos-checkout.js``.
CHECKOUT_JS: Final = "smartpos-checkout.js"

Kind: TypeAlias = Literal["sale", "operation"]
Key: TypeAlias = tuple[Kind, str]
"""What a stream follows: ``("sale", sale_id)`` or ``("operation", referencia)``."""
Authorize: TypeAlias = Callable[[Any, str], Any]
"""``authorize(request, sale_id_or_referencia) -> bool`` (or an awaitable of it on ASGI)."""
View: TypeAlias = dict[str, Any]


def check_authorize(authorize: object) -> Authorize:
    """The mount-time check: status endpoints need an ``authorize`` callable.

    Raises:
        ConfigurationError: ``authorize`` is missing or not callable.
    """
    if authorize is None or not callable(authorize):
        raise ConfigurationError(message("integrations.status_authorize"))
    return authorize


# --- views (pure) --------------------------------------------------------------------------


def _iso(value: _dt.datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(_dt.timezone.utc).isoformat(timespec="milliseconds")


def _outcome(event: Event | None) -> dict[str, Any] | None:
    """What a cashier may see of an outcome: no ``dadosFinalizacao``, documents masked."""
    if event is None:
        return None
    out: dict[str, Any] = {"tipo": event.tipo, "criado_em": _iso(event.criado_em)}
    if isinstance(event, (PagamentoAprovado, PagamentoRecusado)):
        dados = event.dados
        out.update(
            status=dados.status,
            valor_centavos=dados.valor_centavos,
            valor_formatado=dados.valor_formatado,
            forma_pagamento=dados.forma_pagamento,
            parcelas=dados.parcelas,
            smartpos_id=dados.smartpos_id,
            documento_cliente=mask_documento(dados.documento_cliente),
        )
        autorizacao = dados.autorizacao
        out["autorizacao"] = (
            None
            if autorizacao is None
            else {
                "codigo": autorizacao.codigo,
                "numero_transacao": autorizacao.numero_transacao,
                "tipo_pagamento": autorizacao.tipo_pagamento,
            }
        )
        resultado = dados.resultado_smartpos
        out["mensagem"] = None if resultado is None else resultado.mensagem_operador
        out["codigo_status"] = None if resultado is None else resultado.codigo_status
    elif isinstance(event, SmartposIdentificado):
        dados_id = event.dados
        out.update(
            smartpos_id=dados_id.smartpos_id,
            numero_serie_terminal=dados_id.numero_serie_terminal,
            adquirente=dados_id.adquirente,
            documento_cliente=mask_documento(dados_id.documento_cliente),
        )
    return out


def _status(op: Operation, now: _dt.datetime) -> str:
    """What the screen shows for one operation (see the docs' table)."""
    event = op.event
    if isinstance(event, PagamentoAprovado):
        return "approved" if op.abandoned is None else "late_approval"
    if isinstance(event, PagamentoRecusado):
        return "refused"
    if isinstance(event, SmartposIdentificado):
        return "paired"
    if event is not None:
        return "final"
    if op.state == "rejected":
        return "rejected"
    if op.abandoned is not None:
        return "abandoned"
    if op.kind == "qrcode":
        qr = op.result
        if isinstance(qr, QRCode) and qr.expires_at <= now:
            return "expired"
    return {"sending": "sending", "accepted": "waiting", "unknown": "unknown"}.get(
        op.state, op.state
    )


def _attempt(op: Operation, now: _dt.datetime) -> dict[str, Any]:
    abandoned = op.abandoned
    view: dict[str, Any] = {
        "referencia": op.referencia,
        "kind": op.kind,
        "state": op.state,
        "status": _status(op, now),
        "created_at": _iso(op.created_at),
        "updated_at": _iso(op.updated_at),
        "abandoned": None
        if abandoned is None
        else {"at": _iso(abandoned.at), "motivo": abandoned.motivo},
        "outcome": _outcome(op.event),
    }
    if op.kind in ("payment", "refund"):
        view["valor_centavos"] = counted_valor(op)
    return view


def operation_view(op: Operation, *, now: _dt.datetime | None = None) -> View:
    """The public JSON of one journaled operation (a payment, a refund, a QR code...).

    Keys: ``type`` (``"operation"``), ``referencia``, ``kind``, ``state`` (the journal's),
    ``status`` (what to show: ``sending``, ``waiting``, ``unknown``, ``approved``,
    ``refused``, ``rejected``, ``abandoned``, ``late_approval``, ``paired``, ``expired``,
    ``final``), ``done`` (nothing more will change it), ``sale_id``, ``created_at``,
    ``updated_at``, ``abandoned`` (``at``, ``motivo``), ``outcome`` (the final event's
    public part), ``valor_centavos`` (payments, refunds); QR codes add ``qr_code``,
    ``qr_image`` (an SVG ``data:`` URI), ``expires_at``; and ``id`` (`change_id`).
    """
    now = now or _dt.datetime.now(_dt.timezone.utc)
    view: View = {"type": "operation", **_attempt(op, now), "sale_id": op.sale}
    if op.kind == "qrcode":
        qr = op.result
        if isinstance(qr, QRCode):
            view["qr_code"] = qr.qr_code
            view["qr_image"] = _qr_image(qr.qr_code)
            view["expires_at"] = _iso(qr.expires_at)
        else:
            view["qr_code"] = view["qr_image"] = view["expires_at"] = None
    status = view["status"]
    view["done"] = status in ("approved", "refused", "rejected", "paired", "expired", "final") or (
        status == "late_approval"
    )
    view["id"] = change_id(view, op.updated_at)
    return view


def _qr_image(content: str) -> str | None:
    from smartpos._qr import to_data_uri

    try:
        return to_data_uri(content, kind="svg", scale=6)
    except ValueError:
        return None


def sale_view(sale: Sale) -> View:
    """The public JSON of a sale.

    Keys: ``type`` (``"sale"``), ``sale_id``, ``state`` (``open``, ``in_progress``,
    ``paid``), ``status`` (what to show: ``open``, ``sending``, ``waiting``, ``unknown``,
    ``approved``, ``refused``, ``abandoned``), ``total_centavos``, ``approved_centavos``,
    ``remaining_centavos``, ``open_attempt`` (its referencia or ``None``), ``attempts`` (as in
    `operation_view`, oldest first), ``pendencias`` (``reason``, ``referencia``, ``since``),
    ``attention``, ``created_at``, ``updated_at``, ``done`` (always ``False``: a late approval
    may still come) and ``id`` (`change_id`).
    """
    now = _dt.datetime.now(_dt.timezone.utc)
    attempts = [_attempt(op, now) for op in sale.attempts]
    running = sale.open_attempt
    status: str
    if sale.state == "paid":
        status = "approved"
    elif running is not None:
        status = _status(running, now)
    elif attempts:
        status = attempts[-1]["status"]
        if status == "late_approval":  # abandoned, then approved: the pendência says so
            status = "abandoned"
        elif status not in ("refused", "abandoned", "rejected"):
            status = "open"
    else:
        status = "open"
    view: View = {
        "type": "sale",
        "sale_id": sale.sale_id,
        "state": sale.state,
        "status": status,
        "total_centavos": sale.total_centavos,
        "approved_centavos": sale.approved_centavos,
        "remaining_centavos": sale.remaining_centavos,
        "open_attempt": None if running is None else running.referencia,
        "attempts": attempts,
        "pendencias": [
            {"reason": p.reason, "referencia": p.referencia, "since": _iso(p.since)}
            for p in sale.pendencias
        ],
        "attention": sale.attention,
        "created_at": _iso(sale.created_at),
        "updated_at": _iso(sale.updated_at),
        "done": False,
    }
    view["id"] = change_id(view, sale.updated_at)
    return view


def unstarted_sale_view(sale_id: str) -> View:
    """The view of a sale the store does not know yet: no attempt was journaled (the order
    exists in the partner's system; ``authorize`` said so). ``total_centavos`` is ``None``."""
    view: View = {
        "type": "sale",
        "sale_id": sale_id,
        "state": "open",
        "status": "open",
        "total_centavos": None,
        "approved_centavos": 0,
        "remaining_centavos": None,
        "open_attempt": None,
        "attempts": [],
        "pendencias": [],
        "attention": False,
        "created_at": None,
        "updated_at": None,
        "done": False,
    }
    view["id"] = change_id(view, _dt.datetime.fromtimestamp(0, _dt.timezone.utc))
    return view


def change_id(view: Mapping[str, Any], updated_at: _dt.datetime) -> str:
    """``<updated>.<digest>``: the hex milliseconds of the last journal write, never
    decreasing, and the first 16 hex digits of the SHA-256 of the view (without ``id``)."""
    text = json.dumps(
        {k: v for k, v in view.items() if k != "id"},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{int(updated_at.timestamp() * 1000):x}.{digest}"


def _in_flight(view: View) -> bool:
    """Whether a view may change by a journal write alone (see `RESYNC`)."""
    if view["type"] == "sale":
        return view["open_attempt"] is not None
    return not view["done"] and view["status"] != "abandoned"


# --- Server-Sent Events (pure) -------------------------------------------------------------


def sse_message(view: Mapping[str, Any], *, retry: int | None = None) -> bytes:
    """One SSE message: ``retry:`` (first message only), ``id:``, ``event: state``, ``data:``."""
    data = json.dumps(view, separators=(",", ":"), ensure_ascii=False)
    head = f"retry: {retry}\n" if retry is not None else ""
    return f"{head}id: {view['id']}\nevent: state\ndata: {data}\n\n".encode()


def sse_comment(text: str = "keepalive") -> bytes:
    """A comment line: proxies see traffic, ``EventSource`` ignores it."""
    return f": {text}\n\n".encode()


def sse_end(reason: str) -> bytes:
    """The last message of a stream that will not change any more (``event: end``)."""
    return f"event: end\ndata: {json.dumps({'reason': reason})}\n\n".encode()


# --- requests (pure) -----------------------------------------------------------------------


@attrs.frozen(slots=True)
class StatusAnswer:
    """What an adapter does with a request, decided before any store call.

    Attributes:
        status_code: 0 to go on (stream or JSON), else the error's status (400).
        body: The error's JSON body.
        stream: Answer with Server-Sent Events.
        wait: Seconds of the long poll (0: answer at once).
        since: The change id the browser has (``Last-Event-ID``, ``?since=``), or ``None``.
    """

    status_code: int = 0
    body: bytes = b""
    stream: bool = False
    wait: float = 0.0
    since: str | None = None


def _error(status: int, codigo: str, mensagem: str) -> bytes:
    return json.dumps({"erro": {"codigo": codigo, "mensagem": mensagem}}).encode()


FORBIDDEN: Final = _error(403, "NAO_AUTORIZADO", "this request may not see this sale")
NOT_FOUND: Final = _error(404, "NAO_ENCONTRADO", "the store knows no such sale or operation")


def decide(
    *,
    accept: str | None,
    wait: str | None,
    last_event_id: str | None,
    since: str | None,
    max_wait: float = MAX_WAIT,
) -> StatusAnswer:
    """Parse what a status request asks: SSE or JSON, how long to wait, from which change.

    ``Accept: text/event-stream`` streams; otherwise JSON, at once or, with ``?wait=N``
    (0 < N ≤ ``max_wait``), at the first change after ``since`` (``?since=<id>``, or the
    state at the request) or after N seconds.
    """
    stream = accept is not None and "text/event-stream" in accept.lower()
    seconds = 0.0
    if wait is not None and wait != "":
        try:
            seconds = float(wait)
        except ValueError:
            seconds = -1.0
        if not (0 <= seconds <= max_wait) or seconds != seconds:  # NaN too
            text = f"wait must be a number of seconds from 0 to {max_wait:g}"
            return StatusAnswer(400, _error(400, "PARAMETRO_INVALIDO", text))
    mark = last_event_id if last_event_id else since
    return StatusAnswer(stream=stream, wait=seconds, since=mark or None)


def checkout_js() -> bytes:
    """The text of ``smartpos-checkout.js`` (served by the integrations)."""
    return (
        resources.files("smartpos.integrations")
        .joinpath("static")
        .joinpath(CHECKOUT_JS)
        .read_bytes()
    )


# --- the hub -------------------------------------------------------------------------------


class _Entry:
    """A followed key: its subscribers, its newest view and the generation it was read at."""

    __slots__ = ("generation", "referencias", "subscribers", "view")

    def __init__(self) -> None:
        self.subscribers: set[_Waiter] = set()
        self.view: View | None = None
        self.generation = -1
        self.referencias: frozenset[str] = frozenset()


class StatusHub:
    """Follows sales and operations of one store for this process's streams (SDK use).

    Use `hub_for` (one per store and process). A stream `subscribe`s with a waiter, reads its
    key once (`read`), then sleeps until woken and takes the newest view with `view`.

    Args:
        store: The store.
        resync: Seconds between re-reads of an in-flight key (see the module docstring);
            ``None``: never.
    """

    def __init__(self, store: Any, *, resync: float | None = RESYNC) -> None:
        self._store = store
        self._resync = resync
        self._lock = threading.Lock()
        self._work = threading.Condition(self._lock)
        self._entries: dict[Key, _Entry] = {}
        self._by_referencia: dict[str, set[Key]] = {}
        self._dirty: set[Key] = set()
        self._unknown: set[str] = set()
        self._generation = 0
        self._closed = False
        self._thread: threading.Thread | None = None
        self._unwatch: Callable[[], None] | None = None
        self._failing = False
        # Each looked-up referencia's sale (None: none); an entry's sale never changes.
        self._sale_of: dict[str, str | None] = {}
        self.reads = 0
        """Store reads by this hub's own thread (tests and benchmarks read it)."""

    @property
    def closed(self) -> bool:
        """Whether `close` was called, or the server is shutting down: streams end."""
        return self._closed or _ending.is_set()

    def streams(self) -> int:
        """How many streams (and long polls) are subscribed now."""
        with self._lock:
            return sum(len(e.subscribers) for e in self._entries.values())

    # subscribers' side

    def subscribe(self, key: Key, waiter: _Waiter) -> None:
        """Wake ``waiter`` whenever ``key``'s view may have changed."""
        with self._lock:
            self._entries.setdefault(key, _Entry()).subscribers.add(waiter)
            self._start_locked()

    def unsubscribe(self, key: Key, waiter: _Waiter) -> None:
        """Stop waking ``waiter``; forget ``key`` when nobody follows it any more."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return
            entry.subscribers.discard(waiter)
            if not entry.subscribers:
                del self._entries[key]
                self._index_locked(key, entry.referencias, frozenset())
                self._dirty.discard(key)

    def view(self, key: Key) -> View | None:
        """The newest view of a subscribed key."""
        with self._lock:
            entry = self._entries.get(key)
            return None if entry is None else entry.view

    def read(self, key: Key) -> View | None:
        """Read ``key`` from the store now (in the caller's thread) and keep it if newest.

        Raises:
            StoreError: The store failed.
        """
        with self._lock:
            self._generation += 1
            generation = self._generation
        view, referencias = self._load(key)
        self._keep(key, generation, view, referencias)
        return self.view(key) if self._subscribed(key) else view

    def close(self) -> None:
        """End every stream now (server shutdown); the hub is unusable afterwards."""
        with self._lock:
            self._closed = True
            waiters = [w for e in self._entries.values() for w in e.subscribers]
            unwatch, self._unwatch = self._unwatch, None
            self._work.notify_all()
        for waiter in waiters:
            waiter.wake()
        if unwatch is not None:
            unwatch()
        with _hubs_lock:
            if _hubs.get(self._store) is self:
                del _hubs[self._store]

    # internals

    def _subscribed(self, key: Key) -> bool:
        with self._lock:
            return key in self._entries

    def _load(self, key: Key) -> tuple[View | None, frozenset[str]]:
        kind, name = key
        if kind == "sale":
            sale = self._store.sale(name)
            if sale is None:
                return unstarted_sale_view(name), frozenset()
            refs = {op.referencia for op in sale.attempts}
            refs.update(op.referencia for op in sale.compensations)
            return sale_view(sale), frozenset(refs)
        op = self._store.operation(name)
        return (None if op is None else operation_view(op)), frozenset({name})

    def _keep(
        self, key: Key, generation: int, view: View | None, referencias: frozenset[str]
    ) -> None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or generation < entry.generation:
                return
            changed = entry.view is None or view is None or entry.view["id"] != view["id"]
            entry.generation = generation
            entry.view = view
            self._index_locked(key, entry.referencias, referencias)
            entry.referencias = referencias
            waiters = list(entry.subscribers) if changed else []
        for waiter in waiters:
            waiter.wake()

    def _index_locked(self, key: Key, old: frozenset[str], new: frozenset[str]) -> None:
        for referencia in old - new:
            keys = self._by_referencia.get(referencia)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del self._by_referencia[referencia]
        for referencia in new - old:
            self._by_referencia.setdefault(referencia, set()).add(key)
        if key[0] == "operation":  # followed before its journal entry exists
            self._by_referencia.setdefault(key[1], set()).add(key)

    def _changed(self, referencias: frozenset[str] | None) -> None:
        """The listener's callback (its source's thread): mark what to re-read, return."""
        with self._lock:
            if referencias is None:
                self._dirty.update(self._entries)
            else:
                for referencia in referencias:
                    keys = self._by_referencia.get(referencia)
                    if keys:
                        self._dirty.update(keys)
                    elif any(k[0] == "sale" for k in self._entries):
                        self._unknown.add(referencia)  # perhaps a new attempt of a sale
            if self._dirty or self._unknown:
                self._work.notify_all()

    def _start_locked(self) -> None:
        if self._closed or (self._thread is not None and self._thread.is_alive()):
            return
        if self._unwatch is None:
            self._unwatch = listener_for(self._store).watch(self._changed)
        self._thread = threading.Thread(target=self._run, name="smartpos-status-hub", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        next_resync = time.monotonic() + (self._resync or 0.0)
        while True:
            unwatch: Callable[[], None] | None = None
            with self._lock:
                while not (self._dirty or self._unknown):
                    if self._closed:
                        self._thread = None
                        return
                    if not self._entries:
                        self._work.wait(1.0)
                        if not (self._entries or self._dirty or self._unknown or self._closed):
                            # Nobody follows anything: stop watching until someone does.
                            unwatch, self._unwatch = self._unwatch, None
                            self._thread = None
                            break
                        continue
                    if self._resync is None:
                        self._work.wait()
                        continue
                    timeout = next_resync - time.monotonic()
                    if timeout > 0:
                        self._work.wait(timeout)
                        continue
                    self._dirty.update(
                        k for k, e in self._entries.items() if e.view and _in_flight(e.view)
                    )
                    next_resync = time.monotonic() + self._resync
                    if not self._dirty:
                        continue
                if self._thread is None:
                    dirty: set[Key] = set()
                    unknown: set[str] = set()
                else:
                    dirty, self._dirty = self._dirty, set()
                    unknown, self._unknown = self._unknown, set()
            if unwatch is not None or (not dirty and not unknown):
                if unwatch is not None:
                    unwatch()
                return
            if unknown:
                dirty.update(self._sales_of(unknown))
            for key in dirty:
                self._reread(key)

    def _sales_of(self, referencias: set[str]) -> set[Key]:
        """The followed sales that referencias the hub does not follow belong to (a new attempt
        of a sale, journaled by any process). Each journaled referencia is looked up once: its
        sale never changes, so its later writes are answered from memory."""
        found: set[Key] = set()
        for referencia in referencias:
            if referencia in self._sale_of:
                sale = self._sale_of[referencia]
            else:
                try:
                    entry = self._store._journal_get(referencia)
                except Exception as exc:  # noqa: BLE001 - a failed read: the resync catches up
                    _logger.warning(
                        "smartpos: a status look-up of a new referencia failed: %s", exc
                    )
                    continue
                self.reads += 1
                found_sale = getattr(entry, "sale", None)
                sale = found_sale if isinstance(found_sale, str) else None
                if entry is not None:  # not journaled yet (an event first): look again later
                    if len(self._sale_of) >= _SALES_KNOWN:
                        del self._sale_of[next(iter(self._sale_of))]
                    self._sale_of[referencia] = sale
            if sale is not None and self._subscribed(("sale", sale)):
                found.add(("sale", sale))
        return found

    def _reread(self, key: Key) -> None:
        with self._lock:
            if key not in self._entries:
                return
            self._generation += 1
            generation = self._generation
        try:
            view, referencias = self._load(key)
        except Exception as exc:  # noqa: BLE001 - keep the old view; try again soon
            if not self._failing:  # once per run of failures, not once per retry
                _logger.warning("smartpos: a status read of %s failed: %s", key[0], exc)
            self._failing = True
            with self._lock:
                self._dirty.add(key)
            time.sleep(0.2)
            return
        self._failing = False
        self.reads += 1
        self._keep(key, generation, view, referencias)


_hubs: weakref.WeakKeyDictionary[Any, StatusHub] = weakref.WeakKeyDictionary()
_hubs_lock = threading.Lock()


def hub_for(store: Any) -> StatusHub:
    """The status hub of ``store`` in this process (created on first use)."""
    with _hubs_lock:
        hub = _hubs.get(store)
        if hub is None or hub.closed:
            hub = StatusHub(store)
            _hubs[store] = hub
        return hub


# --- shutdown ------------------------------------------------------------------------------

# Set by the first shutdown signal (see `end_streams_at_shutdown`); never cleared: the process
# is on its way out, and every stream opened from now on answers its state once and ends.
_ending = threading.Event()
_SHUTDOWN_SIGNALS: Final = ("SIGTERM", "SIGINT")


def _end_every_stream() -> None:
    with _hubs_lock:
        hubs = list(_hubs.values())
    for hub in hubs:
        hub.close()


def _shutting_down() -> None:
    """From a signal handler: nothing here may take a lock the interrupted code could hold
    (a hub's), so the hubs are closed by a thread of their own."""
    if _ending.is_set():
        return
    _ending.set()
    threading.Thread(target=_end_every_stream, name="smartpos-status-shutdown", daemon=True).start()


def end_streams_at_shutdown() -> bool:
    """Chain the server's SIGTERM/SIGINT handlers: the signal first ends every stream.

    Called by every mount and by the first stream (a server installs its handlers before it
    imports the application: uvicorn's ``Server.handle_exit``, gunicorn's worker). Only from
    the main thread, and only over a handler written in Python by someone else: a default or
    ignored disposition, and Python's own ``KeyboardInterrupt`` handler, are left as they are
    (the process ends, and its streams with it). Idempotent.

    Returns:
        Whether a handler of this process now ends the streams.
    """
    if threading.current_thread() is not threading.main_thread():
        return False
    chained = False
    for name in _SHUTDOWN_SIGNALS:
        signum = getattr(signal, name, None)
        if signum is None:
            continue
        previous = signal.getsignal(signum)
        if getattr(previous, "_smartpos_ends_streams", False):
            chained = True
            continue
        if not callable(previous) or previous is signal.default_int_handler:
            continue
        signal.signal(signum, _chained(previous))
        chained = True
    return chained


def _chained(previous: Callable[[int, Any], Any]) -> Callable[[int, Any], Any]:
    def handler(signum: int, frame: Any) -> Any:
        _shutting_down()
        return previous(signum, frame)

    handler._smartpos_ends_streams = True  # type: ignore[attr-defined]
    handler.__wrapped__ = previous  # type: ignore[attr-defined]
    return handler


# --- streams -------------------------------------------------------------------------------


@attrs.frozen(slots=True)
class _Plan:
    """How one stream runs (the adapters' knobs)."""

    heartbeat: float = HEARTBEAT
    lifetime: float = STREAM_LIFETIME
    retry: int = RETRY_MS
    max_wait: float = MAX_WAIT


def _seconds_option(name: str, value: object, low: float, high: float) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not (low < value <= high)  # NaN fails too
    ):
        raise ConfigurationError(
            message(
                "integrations.status_option",
                name=name,
                value=value,
                low=f"{low:g}",
                high=f"{high:g}",
            )
        )
    return float(value)


def plan_for(*, max_wait: object = MAX_WAIT, heartbeat: object = HEARTBEAT) -> _Plan:
    """The mount-time check of the status endpoints' options (every framework's).

    Raises:
        ConfigurationError: ``max_wait`` is not in (0, 300] or ``heartbeat`` not in
            (0, `MAX_HEARTBEAT`] seconds.
    """
    return _Plan(
        heartbeat=_seconds_option("heartbeat", heartbeat, 0.0, MAX_HEARTBEAT),
        max_wait=_seconds_option("max_wait", max_wait, 0.0, STREAM_LIFETIME),
    )


def _next_beat(now: float, period: float) -> float:
    """The first instant of the process-wide heartbeat grid after ``now``."""
    return (math.floor(now / period) + 1.0) * period


class _Step:
    """The sans-I/O loop of one stream or long poll: what to send after each wake-up."""

    def __init__(self, answer: StatusAnswer, plan: _Plan, first: View) -> None:
        self.answer = answer
        self.plan = plan
        self.sent = answer.since
        now = time.monotonic()
        # A stream's lifetime is spread over its last fifth: tabs opened together (a store's
        # morning) do not all reconnect at the same instant. A long poll ends when it said.
        lifetime = plan.lifetime * random.uniform(0.8, 1.0)
        self.deadline = now + (lifetime if answer.stream else answer.wait)
        self.beat = _next_beat(now, plan.heartbeat)
        self.first = True
        if not answer.stream and answer.since is None:
            self.sent = first["id"]  # a long poll waits for a change after the request

    def chunks(self, view: View | None, closed: bool) -> tuple[list[bytes], bool]:
        """What to write now, and whether the stream is over."""
        out: list[bytes] = []
        now = time.monotonic()
        if view is not None and view["id"] != self.sent:
            self.sent = view["id"]
            if not self.answer.stream:
                return [json.dumps(view, separators=(",", ":")).encode()], True
            out.append(sse_message(view, retry=self.plan.retry if self.first else None))
            self.first = False
            self.beat = _next_beat(now, self.plan.heartbeat)
        elif self.answer.stream and self.first:
            out.append(f"retry: {self.plan.retry}\n\n".encode())
            self.first = False
        if self.answer.stream and view is not None and view["done"]:
            out.append(sse_end(view["status"]))
            return out, True
        if closed or now >= self.deadline:
            if not self.answer.stream and view is not None:
                out.append(json.dumps(view, separators=(",", ":")).encode())
            return out, True
        if self.answer.stream and now >= self.beat:
            out.append(sse_comment())
            self.beat = _next_beat(now, self.plan.heartbeat)
        return out, False

    def pause(self) -> float:
        now = time.monotonic()
        until = min(self.deadline, self.beat) if self.answer.stream else self.deadline
        return max(until - now, 0.0)


def follow(
    hub: StatusHub, key: Key, answer: StatusAnswer, *, plan: _Plan | None = None
) -> tuple[int, Iterator[bytes]]:
    """Run one request in threads: its status (200, 404) and its body's chunks.

    The first read happens here (a 404 is known before any byte is sent); the chunks block
    between changes, in the thread that writes them.

    Raises:
        StoreError: The first read failed.
    """
    end_streams_at_shutdown()
    waiter = _Waiter()
    hub.subscribe(key, waiter)
    try:
        first = hub.read(key)
    except BaseException:
        hub.unsubscribe(key, waiter)
        raise
    if first is None:
        hub.unsubscribe(key, waiter)
        return 404, iter([NOT_FOUND])
    step = _Step(answer, plan or _Plan(), first)

    def chunks() -> Iterator[bytes]:
        try:
            while True:
                waiter.clear()
                out, over = step.chunks(hub.view(key), hub.closed)
                yield from out
                if over:
                    return
                waiter.sleep(step.pause())
        finally:
            hub.unsubscribe(key, waiter)

    return 200, chunks()


async def follow_async(
    hub: StatusHub, key: Key, answer: StatusAnswer, *, plan: _Plan | None = None
) -> tuple[int, AsyncIterator[bytes]]:
    """`follow` for an event loop: never blocks it (the first read runs in a thread)."""
    from smartpos.webhooks._threads import run_store_call

    end_streams_at_shutdown()
    waiter = _AsyncWaiter(_call_soon_threadsafe())
    hub.subscribe(key, waiter)
    try:
        first = await run_store_call(hub._store, hub.read, key)
    except BaseException:
        hub.unsubscribe(key, waiter)
        raise
    if first is None:
        hub.unsubscribe(key, waiter)

        async def missing() -> AsyncIterator[bytes]:
            yield NOT_FOUND

        return 404, missing()
    step = _Step(answer, plan or _Plan(), first)

    async def chunks() -> AsyncIterator[bytes]:
        try:
            while True:
                waiter.clear()
                out, over = step.chunks(hub.view(key), hub.closed)
                for chunk in out:
                    yield chunk
                if over:
                    return
                await waiter.sleep_async(step.pause())
        finally:
            hub.unsubscribe(key, waiter)

    return 200, chunks()


SSE_HEADERS: Final[Mapping[str, str]] = {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-store",
    "X-Accel-Buffering": "no",  # nginx: do not buffer the stream
}
JSON_HEADERS: Final[Mapping[str, str]] = {
    "Content-Type": "application/json",
    "Cache-Control": "no-store",
}
JS_HEADERS: Final[Mapping[str, str]] = {
    "Content-Type": "text/javascript; charset=utf-8",
    "Cache-Control": "public, max-age=300",
}


def headers_for(status: int, answer: StatusAnswer) -> Mapping[str, str]:
    """The headers of an answer."""
    return SSE_HEADERS if status == 200 and answer.stream else JSON_HEADERS
