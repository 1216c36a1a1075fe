"""``smartpos listen``: a local webhook receiver that stores events and prints each one.

Like ``stripe listen``, but the receiver is the SDK's own
[`WebhookReceiver`][smartpos.webhooks.WebhookReceiver] on an inbox (``--store``: an SQLite file by
default, or a ``redis://`` or ``postgresql://`` URL): what it prints is
exactly what a partner's production receiver would decide (stored, duplicate, conflicting body,
rejected). Events stay pending in the inbox for the partner's worker; ``--forward-to`` also posts
every delivery, as received, to another URL.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import queue
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from smartpos._messages import message
from smartpos._signals import stop_on_signals

from ._http import Delivery, serve_receiver
from ._output import EXIT_OK, EXIT_USAGE, CommandError, Output, mask_documents

if TYPE_CHECKING:
    import httpx

__all__ = ["Forwarder", "check_forward_url", "delivery_data", "print_delivery", "run"]

# Headers that describe one hop and must not be copied to the next one.
_HOP_BY_HOP: Final = frozenset(
    {"host", "content-length", "connection", "transfer-encoding", "keep-alive", "upgrade"}
)


def _now() -> str:
    return _dt.datetime.now().strftime("%H:%M:%S")


def delivery_data(delivery: Delivery) -> dict[str, Any]:
    """Return a delivery as one JSON-ready record (for ``--json``).

    Args:
        delivery: The answered delivery.

    Returns:
        ``status_code``, ``duplicate``, ``conflict``, ``id``, ``tipo``, ``error``, ``event``
        (the envelope, ``documentoCliente`` masked).
    """
    from smartpos.webhooks import PutResult

    receipt = delivery.receipt
    envelope = receipt.envelope
    return {
        "received_at": _dt.datetime.now(_dt.timezone.utc),
        "status_code": receipt.status_code,
        "duplicate": receipt.duplicate,
        "conflict": receipt.put_result is PutResult.CONFLICT,
        "id": envelope.id if envelope else None,
        "tipo": envelope.tipo if envelope else None,
        "error": receipt.error,
        "event": mask_documents(dict(envelope.raw)) if envelope else None,
    }


def print_delivery(out: Output, delivery: Delivery) -> None:
    """Print one delivery readably: its event, marked DUPLICATE when the id was stored before.

    Args:
        out: The output.
        delivery: The answered delivery.
    """
    from smartpos.webhooks import PutResult

    if out.json:
        out.data(delivery_data(delivery))
        return
    receipt = delivery.receipt
    envelope = receipt.envelope
    status = f"{receipt.status_code}"
    status = out.style(status, "green" if receipt.ok else "red")
    if envelope is None:
        out.line(f"{_now()}  {status}  " + message("cli.listen_rejected", error=receipt.error))
        return
    note: str | None = None
    note_style = "yellow"
    if receipt.put_result is PutResult.CONFLICT:
        note = message("cli.listen_conflict")
        note_style = "red"
    elif receipt.duplicate:
        note = message("cli.listen_duplicate")
    elif not receipt.ok:
        note = message("cli.listen_not_stored", error=receipt.error)
        note_style = "red"
    elif receipt.error:
        note = message("cli.listen_schema", error=receipt.error)
    out.event(envelope.raw, prefix=f"{_now()}  {status}  ", note=note, note_style=note_style)


class Forwarder:
    """Posts deliveries, in arrival order, to another URL from a background thread.

    The receiver answers first; forwarding never delays the answer to the sender.

    Args:
        url: Where to post.
        out: Where to report each forward.
        timeout: Seconds to wait for the forward target.
    """

    def __init__(self, url: str, out: Output, *, timeout: float = 5.0) -> None:
        import httpx

        self.url = url
        self._out = out
        self._client: httpx.Client = httpx.Client(timeout=timeout, trust_env=False)
        self._queue: queue.Queue[Delivery | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="smartpos-forward", daemon=True)
        self._thread.start()

    def put(self, delivery: Delivery) -> None:
        """Queue a delivery for forwarding."""
        self._queue.put(delivery)

    def close(self, timeout: float = 5.0) -> None:
        """Forward what is queued (waiting at most ``timeout`` seconds), then stop."""
        self._queue.put(None)
        self._thread.join(timeout)
        self._client.close()

    def _run(self) -> None:
        import httpx

        while (delivery := self._queue.get()) is not None:
            headers = {k: v for k, v in delivery.headers.items() if k.lower() not in _HOP_BY_HOP}
            try:
                response = self._client.post(self.url, content=delivery.body, headers=headers)
            except httpx.HTTPError as exc:
                self._report(None, f"{type(exc).__name__}: {exc}")
            else:
                self._report(response.status_code, None)

    def _report(self, status: int | None, error: str | None) -> None:
        out = self._out
        if out.json:
            out.data({"forwarded_to": self.url, "status_code": status, "error": error})
        elif status is not None:
            ok = 200 <= status < 300
            shown = out.style(str(status), "green" if ok else "red")
            out.line(message("cli.listen_forwarded", url=self.url, status=shown))
        else:
            shown = out.style(str(error), "red")
            out.line(message("cli.listen_forward_failed", url=self.url, error=shown))


def check_forward_url(url: str) -> None:
    """Refuse, before the receiver starts, a ``--forward-to`` that no delivery could reach.

    Args:
        url: The ``--forward-to`` value.

    Raises:
        CommandError: Not an absolute http(s) URL with a host (a usage error, exit 2).
    """
    import httpx

    hint = message("cli.listen_forward_hint")
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        raise CommandError(
            message("cli.listen_forward_not_url", url=url, error=exc), hint=hint, code=EXIT_USAGE
        ) from exc
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise CommandError(
            message("cli.listen_forward_no_host", url=url),
            hint=hint,
            code=EXIT_USAGE,
        )


def run(args: argparse.Namespace, out: Output) -> int:
    """Serve the receiver until Ctrl-C or SIGTERM, printing every delivery.

    Args:
        args: ``host``, ``port``, ``store``, ``namespace``, ``forward_to``.
        out: The output.

    Returns:
        0 after a clean stop.

    Raises:
        CommandError: A bad ``--forward-to`` URL (exit 2, before anything starts), the inbox
            cannot be opened or the address cannot be bound.
    """
    from smartpos.webhooks import WebhookReceiver

    from ._store import open_store

    if args.forward_to is not None:
        check_forward_url(args.forward_to)
    counts = {"deliveries": 0, "new": 0, "duplicates": 0, "rejected": 0}
    counts_lock = threading.Lock()
    forwarder = Forwarder(args.forward_to, out) if args.forward_to else None

    def on_delivery(delivery: Delivery) -> None:
        receipt = delivery.receipt
        with counts_lock:
            counts["deliveries"] += 1
            if not receipt.ok:
                counts["rejected"] += 1
            elif receipt.duplicate:
                counts["duplicates"] += 1
            else:
                counts["new"] += 1
        print_delivery(out, delivery)
        if forwarder is not None:
            forwarder.put(delivery)

    stop = threading.Event()
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(stop_on_signals(stop))
            store, name = stack.enter_context(
                open_store(args.store, namespace=getattr(args, "namespace", None), create=True)
            )
            receiver = WebhookReceiver(store)
            try:
                url = stack.enter_context(
                    serve_receiver(receiver, args.host, args.port, on_delivery)
                )
            except OSError as exc:
                raise CommandError(
                    message(
                        "cli.cannot_listen",
                        host=args.host,
                        port=args.port,
                        error=exc.strerror or exc,
                    ),
                    hint=message("cli.cannot_listen_hint"),
                ) from exc
            _ready(out, url, name, args.forward_to)
            while not stop.wait(0.2):
                pass
    finally:
        if forwarder is not None:
            forwarder.close()
    _stopped(out, counts)
    return EXIT_OK


def _ready(out: Output, url: str, store: str, forward_to: str | None) -> None:
    if out.json:
        out.data({"listening": url, "store": store, "forward_to": forward_to})
        return
    out.line(message("cli.listen_ready", url=out.style(url, "bold"), store=store))
    if forward_to:
        out.line(message("cli.listen_forwarding", url=forward_to))
    out.line(message("cli.listen_point_sandbox", url=url))
    out.line(message("cli.listen_send_sample", url=url))
    out.line(message("cli.ctrl_c"))


def _stopped(out: Output, counts: Mapping[str, int]) -> None:
    if out.json:
        out.data({"stopped": True, **counts})
        return
    out.line(
        message(
            "cli.listen_stopped",
            deliveries=counts["deliveries"],
            new=counts["new"],
            duplicates=counts["duplicates"],
            rejected=counts["rejected"],
        )
    )
