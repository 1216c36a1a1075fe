"""``smartpos events list|show|requeue|resend``: look into an SQLite inbox, requeue, replay.

Each action goes through [`SQLiteStore`][smartpos.webhooks.SQLiteStore]'s own ``list``, ``get`` and
``requeue`` (``resend`` posts a stored envelope to one's own endpoint), after checking through
a read-only connection that the file holds an inbox table: opening a store on any other SQLite
file would create one in it. What is printed, text or
``--json``, has ``documentoCliente`` masked; ``--json`` records carry the inbox's path, so
``smartpos refund --event -`` can read the full envelope back from it.
"""

from __future__ import annotations

import argparse
import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._output import EXIT_ERROR, EXIT_OK, CommandError, Output, mask_documents

if TYPE_CHECKING:
    from smartpos.webhooks import SQLiteStore, StoredEvent

__all__ = ["check_inbox", "list_events", "open_inbox", "record_data", "run"]


def _existing(path: str) -> Path:
    file = Path(path)
    if not file.is_file():
        raise CommandError(
            f"no inbox at {path}",
            hint="pass the inbox file with --store PATH or SMARTPOS_INBOX (smartpos listen "
            "writes smartpos-inbox.db in its directory by default).",
        )
    return file


def check_inbox(path: str) -> None:
    """Check, read-only, that ``path`` is an existing SQLite inbox file.

    Opening a store on any other SQLite file would create the inbox table in it: commands
    that only read call this first, so that a wrong path never modifies a file.

    Args:
        path: The SQLite inbox file.

    Raises:
        CommandError: The file is missing or not an inbox.
    """
    file = _existing(path)
    try:
        conn = sqlite3.connect(f"{file.resolve().as_uri()}?mode=ro", uri=True, timeout=5.0)
    except sqlite3.Error as exc:
        raise CommandError(f"cannot open {path}: {exc}") from exc
    try:
        # The table named in docs/en/stores.md; SQLiteStore would create it in any other file.
        conn.execute("SELECT seq FROM smartpos_inbox LIMIT 0")
    except sqlite3.Error as exc:
        raise CommandError(
            f"{path} is not a smartpos inbox: {exc}", hint="pass the right file with --store."
        ) from exc
    finally:
        conn.close()


@contextlib.contextmanager
def open_inbox(path: str) -> Iterator[SQLiteStore]:
    """Open an existing inbox file as an [`SQLiteStore`][smartpos.webhooks.SQLiteStore].

    The file is checked read-only first (`check_inbox`): a wrong path is never modified.

    Args:
        path: The SQLite inbox file.

    Yields:
        The store, closed afterwards.

    Raises:
        CommandError: The file is missing or the store cannot open it.
    """
    from smartpos.webhooks import SQLiteStore, StoreError

    check_inbox(path)
    try:
        store = SQLiteStore(path)
    except StoreError as exc:
        raise CommandError(str(exc), hint="is it an inbox file written by smartpos?") from exc
    with store:
        yield store


def list_events(path: str, *, state: str | None, limit: int) -> list[StoredEvent]:
    """Return the events of an inbox file, oldest first (claim order), read-only.

    Args:
        path: The SQLite inbox file.
        state: Only events in this state (pending, claimed, done, dead), or all.
        limit: At most this many.

    Returns:
        The stored records.

    Raises:
        CommandError: The file is missing or not an inbox.
    """
    from smartpos.webhooks import EventState

    with open_inbox(path) as store:
        return store.list(state=None if state is None else EventState(state), limit=limit)


def record_data(record: StoredEvent, store: str) -> dict[str, Any]:
    """Return a stored record as JSON-ready data, the envelope under ``raw``, document masked.

    ``store`` (the inbox file's absolute path) and ``id`` let ``smartpos refund --event -``
    read the full envelope back from the inbox: the printed one has ``documentoCliente``
    masked, like everything the command prints.

    Args:
        record: The stored event.
        store: The inbox file it was read from.

    Returns:
        Its fields (times as ISO 8601).
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
        "store": str(Path(store).resolve()),
        "raw": mask_documents(dict(record.raw)),
    }


_STATE_STYLE = {"pending": "yellow", "claimed": "cyan", "done": "green", "dead": "red"}


def _state(out: Output, state: str) -> str:
    return out.style(state.ljust(7), _STATE_STYLE.get(state, "bold"))


def _list(args: argparse.Namespace, out: Output) -> int:
    records = list_events(args.store, state=args.state, limit=args.limit)
    if out.json:
        out.data([record_data(r, args.store) for r in records])
        return EXIT_OK
    if not records:
        out.line(f"no {args.state + ' ' if args.state else ''}events in {args.store}")
        return EXIT_OK
    for record in records:
        received = record.received_at.astimezone().strftime("%Y-%m-%d %H:%M:%S")
        out.line(
            f"{_state(out, record.state.value)}  {received}  {out.tipo(record.tipo).ljust(21)}"
            f"  {record.id}  attempts {record.attempts}"
        )
        if record.last_error:
            out.line(f"         last error: {record.last_error}")
    out.line(f"{len(records)} event(s) in {args.store}")
    return EXIT_OK


def _show(args: argparse.Namespace, out: Output) -> int:
    import json

    with open_inbox(args.store) as store:
        record = store.get(args.event_id)
    if record is None:
        raise CommandError(
            f"no event {args.event_id} in {args.store}",
            hint="list the ids with 'smartpos events list'.",
        )
    if out.json:
        out.data(record_data(record, args.store))
        return EXIT_OK
    out.event(record.raw)
    values: dict[str, object] = {
        "state": _state(out, record.state.value).rstrip(),
        "attempts": record.attempts,
        "received": record.received_at.isoformat(),
    }
    if record.criado_em is not None:
        values["criadoEm"] = record.criado_em.isoformat()
    if record.done_at is not None:
        values["done"] = record.done_at.isoformat()
    if record.available_at is not None:
        values["next attempt"] = record.available_at.isoformat()
    if record.owner:
        values["claimed by"] = record.owner
    if record.last_error:
        values["last error"] = record.last_error
    out.fields(values)
    out.line("  envelope (document masked):")
    for line in json.dumps(mask_documents(record.raw), ensure_ascii=False, indent=2).splitlines():
        out.line("    " + line)
    return EXIT_OK


def _requeue(args: argparse.Namespace, out: Output) -> int:
    with open_inbox(args.store) as store:
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
        out.line(f"requeued {args.event_id}: pending again, attempts reset to 0.")
        return EXIT_OK
    if record is None:
        message = f"no event {args.event_id} in {args.store}"
        hint = "list the ids with 'smartpos events list'."
    else:
        message = f"event {args.event_id} is {record.state.value}: only dead or done events"
        message += " can be requeued"
        hint = "a pending or claimed event is still going to be processed; wait for it."
    out.error(message, hint=hint)
    return EXIT_ERROR


def _resend(args: argparse.Namespace, out: Output) -> int:
    """POST a stored envelope, as received, to ``--to``; the inbox is not changed."""
    import json

    import httpx

    from smartpos._version import __version__

    from ._samples import check_to, parse_headers

    check_to(args.to)
    headers = {
        "content-type": "application/json",
        "user-agent": f"smartpos-cli/{__version__} (events resend)",
        **parse_headers(args.header),
    }
    with open_inbox(args.store) as store:
        record = store.get(args.event_id)
    if record is None:
        raise CommandError(
            f"no event {args.event_id} in {args.store}",
            hint="list the ids with 'smartpos events list'.",
        )
    body = json.dumps(dict(record.raw), ensure_ascii=False, separators=(",", ":")).encode()
    try:
        with httpx.Client(timeout=args.timeout, trust_env=False) as client:
            response = client.post(args.to, content=body, headers=headers)
    except httpx.HTTPError as exc:
        raise CommandError(
            f"could not deliver to {args.to}: {type(exc).__name__}: {exc}",
            hint="is your endpoint running at that URL?",
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
        out.event(record.raw, prefix="replayed ")
        status = f"{response.status_code} {response.reason_phrase}"
        shown = response.text[:500]
        out.line(f"  -> {out.style(status, 'bold', 'green' if ok else 'red')}  {shown}")
    if not ok:
        out.error(
            f"{args.to} answered HTTP {response.status_code}",
            hint="a webhook endpoint answers 2xx once the event is stored.",
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
