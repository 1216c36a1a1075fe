"""``smartpos events list|show|requeue|resend``: look into an inbox, requeue, replay.

The inbox is any store (``--store``: an SQLite file or ``sqlite:///PATH``, ``redis://...``,
``postgresql://...``; ``--namespace`` for a RedisStore prefix or a PostgresStore table), opened
by the command's one opener (`smartpos.cli._store.open_store`); an SQLite file is checked
read-only first, so a wrong path is never modified. Each action goes through the store's own
``list``, ``get`` and ``requeue`` (``resend`` posts a stored envelope to one's own endpoint).
Times are printed with their UTC offset. What is printed, text or ``--json``, has
``documentoCliente`` masked; ``--json`` records name their store (a file's absolute path, a URL
without its password), so ``smartpos refund --event -`` can read the full envelope back from it.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from smartpos._messages import message

from ._output import EXIT_ERROR, EXIT_OK, CommandError, Output, mask_documents
from ._store import check_inbox, local_time, open_store, store_name

if TYPE_CHECKING:
    from smartpos.webhooks import StoreBase, StoredEvent

__all__ = ["check_inbox", "list_events", "open_inbox", "record_data", "run"]


@contextlib.contextmanager
def open_inbox(spec: str, namespace: str | None = None) -> Iterator[StoreBase]:
    """Open an existing inbox: an SQLite file, or a ``redis://`` or ``postgresql://`` URL.

    An SQLite file is checked read-only first (`check_inbox`): a wrong path is never modified.

    Args:
        spec: The store, as ``--store`` names it.
        namespace: The RedisStore prefix or the PostgresStore table.

    Yields:
        The store, closed afterwards.

    Raises:
        CommandError: The store is missing, not an inbox, or cannot be opened.
    """
    with open_store(spec, namespace=namespace) as (store, _):
        yield store


def list_events(
    spec: str, *, state: str | None, limit: int, namespace: str | None = None
) -> list[StoredEvent]:
    """Return the events of an inbox, oldest first (claim order), read-only.

    Args:
        spec: The store, as ``--store`` names it.
        state: Only events in this state (pending, claimed, done, dead), or all.
        limit: At most this many.
        namespace: The RedisStore prefix or the PostgresStore table.

    Returns:
        The stored records.

    Raises:
        CommandError: The store is missing or not an inbox.
    """
    from smartpos.webhooks import EventState

    with open_inbox(spec, namespace) as store:
        return store.list(state=None if state is None else EventState(state), limit=limit)


def record_data(record: StoredEvent, store: str, namespace: str | None = None) -> dict[str, Any]:
    """Return a stored record as JSON-ready data, the envelope under ``raw``, document masked.

    ``store`` (the inbox file's absolute path, or the URL without its password), ``namespace``
    and ``id`` let ``smartpos refund --event -`` read the full envelope back from the inbox: the
    printed one has ``documentoCliente`` masked, like everything the command prints.

    Args:
        record: The stored event.
        store: The store it was read from (`smartpos.cli._store.store_name`).
        namespace: Its ``--namespace`` (a RedisStore prefix, a PostgresStore table), if any.

    Returns:
        Its fields (times as ISO 8601, with their UTC offset).
    """
    return {
        "id": record.id,
        "tipo": record.tipo,
        "state": record.state.value,
        "attempts": record.attempts,
        "criado_em": record.criado_em,
        "received_at": record.received_at,
        "available_at": record.available_at,
        "done_at": record.done_at,
        "owner": record.owner,
        "lease_expires_at": record.lease_expires_at,
        "last_error": record.last_error,
        "store": store,
        "namespace": namespace,
        "raw": mask_documents(dict(record.raw)),
    }


_STATE_STYLE = {"pending": "yellow", "claimed": "cyan", "done": "green", "dead": "red"}


def _state(out: Output, state: str) -> str:
    return out.style(state.ljust(7), _STATE_STYLE.get(state, "bold"))


def _namespace(args: argparse.Namespace) -> str | None:
    return getattr(args, "namespace", None)


def _list(args: argparse.Namespace, out: Output) -> int:
    from smartpos.webhooks import EventState

    state = None if args.state is None else EventState(args.state)
    with open_store(args.store, namespace=_namespace(args)) as (store, name):
        records = store.list(state=state, limit=args.limit)
    if out.json:
        out.data([record_data(r, store_name(args.store), _namespace(args)) for r in records])
        return EXIT_OK
    if not records:
        out.line(
            message("cli.events_none_in_state", state=args.state, store=name)
            if args.state
            else message("cli.events_none", store=name)
        )
        return EXIT_OK
    for record in records:
        received = local_time(record.received_at)
        out.line(
            f"{_state(out, record.state.value)}  {received}  {out.tipo(record.tipo).ljust(21)}"
            f"  {record.id}  {message('cli.events_attempts', attempts=record.attempts)}"
        )
        if record.last_error:
            out.line("         " + message("cli.events_last_error", error=record.last_error))
    out.line(message("cli.events_count", count=len(records), store=name))
    return EXIT_OK


def _show(args: argparse.Namespace, out: Output) -> int:
    import json

    with open_store(args.store, namespace=_namespace(args)) as (store, name):
        record = store.get(args.event_id)
    if record is None:
        raise CommandError(
            message("cli.events_no_event", event_id=args.event_id, store=name),
            hint=message("cli.events_list_hint"),
        )
    if out.json:
        out.data(record_data(record, store_name(args.store), _namespace(args)))
        return EXIT_OK
    out.event(record.raw)
    values: dict[str, object] = {
        message("cli.label.state"): _state(out, record.state.value).rstrip(),
        message("cli.label.attempts"): record.attempts,
        message("cli.label.received"): local_time(record.received_at),
    }
    if record.criado_em is not None:
        values["criadoEm"] = record.criado_em.isoformat()
    if record.done_at is not None:
        values[message("cli.label.done")] = local_time(record.done_at)
    if record.available_at is not None:
        values[message("cli.label.next_attempt")] = local_time(record.available_at)
    if record.owner:
        values[message("cli.label.claimed_by")] = record.owner
    if record.last_error:
        values[message("cli.label.last_error")] = record.last_error
    out.fields(values)
    out.line(message("cli.events_envelope"))
    for line in json.dumps(mask_documents(record.raw), ensure_ascii=False, indent=2).splitlines():
        out.line("    " + line)
    return EXIT_OK


def _requeue(args: argparse.Namespace, out: Output) -> int:
    with open_store(args.store, namespace=_namespace(args)) as (store, name):
        done = store.requeue(args.event_id)
        record = store.get(args.event_id)
    if out.json:
        out.data(
            {
                "id": args.event_id,
                "requeued": done,
                "state": record.state.value if record else None,
            }
        )
    if done:
        out.line(message("cli.events_requeued", event_id=args.event_id))
        return EXIT_OK
    if record is None:
        text = message("cli.events_no_event", event_id=args.event_id, store=name)
        hint = message("cli.events_list_hint")
    else:
        text = message("cli.events_not_requeued", event_id=args.event_id, state=record.state.value)
        hint = message("cli.events_not_requeued_hint")
    out.error(text, hint=hint)
    return EXIT_ERROR


def _resend(args: argparse.Namespace, out: Output) -> int:
    """POST a stored envelope, as received, to ``--to``; the inbox is not changed."""
    import json

    import httpx

    from smartpos._version import __version__

    from ._samples import check_to
    from ._signing import parse_headers

    check_to(args.to)
    headers = {
        "content-type": "application/json",
        "user-agent": f"smartpos-cli/{__version__} (events resend)",
        **parse_headers(args.header),
    }
    with open_store(args.store, namespace=_namespace(args)) as (store, name):
        record = store.get(args.event_id)
    if record is None:
        raise CommandError(
            message("cli.events_no_event", event_id=args.event_id, store=name),
            hint=message("cli.events_list_hint"),
        )
    body = json.dumps(dict(record.raw), ensure_ascii=False, separators=(",", ":")).encode()
    try:
        with httpx.Client(timeout=args.timeout, trust_env=False) as client:
            response = client.post(args.to, content=body, headers=headers)
    except httpx.HTTPError as exc:
        raise CommandError(
            message("cli.deliver_failed", url=args.to, error=f"{type(exc).__name__}: {exc}"),
            hint=message("cli.deliver_failed_endpoint_hint"),
        ) from exc
    ok = response.is_success
    if out.json:
        try:
            answer: object = response.json()
        except ValueError:
            answer = response.text[:500]
        out.data(
            {
                "id": record.id,
                "tipo": record.tipo,
                "to": args.to,
                "status_code": response.status_code,
                "response": answer,
            }
        )
    else:
        out.event(record.raw, prefix=message("cli.events_replayed"))
        status = f"{response.status_code} {response.reason_phrase}"
        shown = response.text[:500]
        out.line(f"  -> {out.style(status, 'bold', 'green' if ok else 'red')}  {shown}")
    if not ok:
        out.error(
            message("cli.endpoint_answered", url=args.to, status=response.status_code),
            hint=message("cli.endpoint_answered_hint"),
        )
        return EXIT_ERROR
    return EXIT_OK


def run(args: argparse.Namespace, out: Output) -> int:
    """Dispatch ``smartpos events ACTION``.

    Args:
        args: ``action``, ``store`` and the action's options.
        out: The output.

    Returns:
        The exit status.
    """
    actions = {"list": _list, "show": _show, "requeue": _requeue, "resend": _resend}
    return actions[args.action](args, out)
