"""``smartpos operations [list|reconcile|wait]``: the outcome journal of a store, from a shell.

- ``smartpos operations`` lists the operations still waiting for an outcome (``sending``,
  ``accepted``, ``unknown``), oldest first: what a process reconciles after a crash;
  ``--all`` lists every operation with its outcome and anomalies.
- ``smartpos operations reconcile REFERENCIA`` resends a journaled request whose answer is
  unknown, byte for byte with the same referencia (``Client.reconcile``): never a new charge.
- ``smartpos operations wait REFERENCIA`` waits for the final event of a referencia.

The store is an SQLite inbox file or ``sqlite:///PATH`` (``--store``, default
``SMARTPOS_INBOX`` or ``smartpos-inbox.db``, as ``smartpos events``), or a ``redis://`` or
``postgresql://`` URL (``--namespace``: the RedisStore prefix or the PostgresStore table),
opened by the command's one opener (``smartpos.cli._store``). Exit status 3 means the
outcome is still unknown or pending: never retry with a new referencia.

Building the parser imports only ``argparse``; the store and the client load when the command
runs.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from smartpos._messages import message
from smartpos._records import mask_documents, operation_data

from ._convert import positive_int as _positive_int
from ._convert import seconds as _seconds
from ._convert import store_default
from ._output import EXIT_ERROR, EXIT_OK, EXIT_UNKNOWN, CommandError, Output
from ._store import local_time

if TYPE_CHECKING:
    from smartpos.webhooks import Operation, StoreBase

__all__ = ["add_parser", "open_store", "operation_data", "print_operation", "run", "store_parents"]

_WAIT_DEFAULT: Final = 60.0
_STATE_STYLE: Final = {
    "sending": "yellow",
    "unknown": "yellow",
    "accepted": "cyan",
    "final": "green",
    "rejected": "red",
}


def store_parents() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """The ``--json`` and ``--store``/``--namespace`` parents of a command with actions.

    The options are on the command and on its actions, with default=SUPPRESS: given before
    or after the action, a value is kept (argparse lets an action's default overwrite a value
    given to the command). The handler reads them with ``getattr(args, name, default)``.

    Returns:
        The ``--json`` parent and the store parent.
    """
    json_parent = argparse.ArgumentParser(add_help=False)
    json_parent.add_argument(
        "--json",
        action="store_true",
        default=argparse.SUPPRESS,
        help=message("cli.help.json"),
    )
    store = argparse.ArgumentParser(add_help=False)
    store.add_argument(
        "--store",
        "--inbox",
        dest="store",
        metavar="STORE",
        default=argparse.SUPPRESS,
        help=message("cli.help.store"),
    )
    store.add_argument(
        "--namespace",
        metavar="NAME",
        default=argparse.SUPPRESS,
        help=message("cli.help.namespace"),
    )
    return json_parent, store


def add_parser(
    sub: Any,
    *,
    service: argparse.ArgumentParser,
    formatter: type[argparse.HelpFormatter],
) -> argparse.ArgumentParser:
    """Add ``operations`` and its actions to the command's subparsers.

    Args:
        sub: The root parser's subparsers.
        service: The parent parser with the service options (for ``reconcile``).
        formatter: The help formatter of the other commands.

    Returns:
        The ``operations`` parser.
    """
    json_parent, store = store_parents()
    listing = argparse.ArgumentParser(add_help=False)
    listing.add_argument(
        "--all",
        action="store_true",
        default=argparse.SUPPRESS,
        help=message("cli.help.operations.all"),
    )
    listing.add_argument(
        "--limit",
        type=_positive_int,
        metavar="N",
        default=argparse.SUPPRESS,
        help=message("cli.help.at_most_n"),
    )
    operations: argparse.ArgumentParser = sub.add_parser(
        "operations",
        help=message("cli.command.operations"),
        description=message("cli.about.operations"),
        epilog=(
            message("cli.examples")
            + "\n  smartpos operations\n  smartpos operations --all --json --store inbox.sqlite3\n"
            + message("cli.epilog.operations")
        ),
        parents=[json_parent, store, listing],
        formatter_class=formatter,
    )
    operations.set_defaults(handler="_operations:run", action="list")
    actions = operations.add_subparsers(
        title=message("cli.title.actions"), metavar="ACTION", dest="action"
    )
    actions.add_parser(
        "list",
        help=message("cli.command.operations_list"),
        description=message("cli.about.operations_list"),
        parents=[json_parent, store, listing],
        formatter_class=formatter,
    )
    reconcile = actions.add_parser(
        "reconcile",
        help=message("cli.command.operations_reconcile"),
        description=message("cli.about.operations_reconcile"),
        epilog=message("cli.epilog.operations_reconcile"),
        parents=[json_parent, store, service],
        formatter_class=formatter,
    )
    reconcile.set_defaults(terminal_op=True)
    reconcile.add_argument("referencia", metavar="REFERENCIA")
    wait = actions.add_parser(
        "wait",
        help=message("cli.command.operations_wait"),
        description=message("cli.about.operations_wait"),
        epilog=message("cli.epilog.operations_wait"),
        parents=[json_parent, store],
        formatter_class=formatter,
    )
    wait.add_argument("referencia", metavar="REFERENCIA")
    wait.add_argument(
        "--timeout",
        dest="wait_timeout",
        type=_seconds,
        default=_WAIT_DEFAULT,
        metavar="SECONDS",
        help=message("cli.help.operations_wait.timeout", seconds=f"{_WAIT_DEFAULT:g}"),
    )
    return operations


# --- the store ------------------------------------------------------------------------------


def _store_spec(args: argparse.Namespace) -> str:
    spec = getattr(args, "store", None) or store_default()
    return str(spec)


@contextlib.contextmanager
def open_store(args: argparse.Namespace) -> Iterator[tuple[StoreBase, str]]:
    """Open the store ``--store`` names (`smartpos.cli._store.open_store`), and close it after.

    Yields:
        The store and how to name it in messages (a URL without its password).

    Raises:
        CommandError: The file is not an inbox, or the store cannot be opened.
    """
    from ._store import open_store as open_spec

    with open_spec(_store_spec(args), namespace=getattr(args, "namespace", None)) as opened:
        yield opened


# --- output ---------------------------------------------------------------------------------


def _state(out: Output, state: str) -> str:
    return out.style(state.ljust(8), _STATE_STYLE.get(state, "bold"))


def print_operation(out: Output, operation: Operation) -> None:
    created = local_time(operation.created_at)
    line = f"{_state(out, operation.state)}  {operation.kind:<9}  {operation.referencia}  {created}"
    if operation.event is not None:
        line += f"  {out.tipo(operation.event.tipo)}"
    out.line(line)
    for anomaly in operation.anomalies:
        out.line(
            "          "
            + message(
                "cli.operations_anomaly",
                reason=anomaly.reason,
                tipo=anomaly.tipo,
                event_id=anomaly.id,
                detail=anomaly.detail,
            )
        )


# --- actions --------------------------------------------------------------------------------


def _list(args: argparse.Namespace, out: Output) -> int:
    every = bool(getattr(args, "all", False))
    with open_store(args) as (store, name):
        operations = store.operations(final=every, limit=getattr(args, "limit", 100))
    if out.json:
        out.data([operation_data(o) for o in operations])
        return EXIT_OK
    if not operations:
        key = "cli.operations_none_journaled" if every else "cli.operations_none_waiting"
        out.line(message(key, store=name))
        return EXIT_OK
    for operation in operations:
        print_operation(out, operation)
    if every:
        out.line(message("cli.operations_count", count=len(operations), store=name))
        return EXIT_OK
    out.line(message("cli.operations_waiting", count=len(operations), store=name))
    out.line(message("cli.operations_settle"))
    return EXIT_OK


def _reconcile(args: argparse.Namespace, out: Output) -> int:
    from smartpos import Client, ValidationError

    with (
        open_store(args) as (store, name),
        Client(
            api_key=args.api_key,
            base_url=args.base_url,
            timeout=args.timeout,
            max_retries=max(0, args.max_retries),
            store=store,
        ) as client,
    ):
        try:
            operation = client.reconcile(args.referencia)
        except ValidationError as exc:
            if exc.campo != "referencia":
                raise
            raise CommandError(
                message("cli.operations_no_operation", referencia=args.referencia, store=name),
                hint=message("cli.operations_no_operation_hint"),
            ) from exc
    if out.json:
        out.data(operation_data(operation))
    else:
        print_operation(out, operation)
        keys = {
            "accepted": "cli.operations_accepted",
            "final": "cli.operations_final",
            "rejected": "cli.operations_rejected",
        }
        key = keys.get(operation.state)
        out.line(operation.state if key is None else message(key, referencia=operation.referencia))
    return EXIT_ERROR if operation.state == "rejected" else EXIT_OK


def _wait(args: argparse.Namespace, out: Output) -> int:
    from smartpos.webhooks._listener import OutcomeWaiter

    referencia = str(args.referencia)
    if not referencia.strip():
        raise CommandError(message("cli.operations_empty_referencia"))
    from smartpos import OperationRejectedError
    from smartpos.webhooks import StoreError

    failure = ""
    with open_store(args) as (store, name):
        try:
            event = OutcomeWaiter(store).wait(referencia, args.wait_timeout)
        except OperationRejectedError as exc:
            raise CommandError(
                message("cli.operations_wait_rejected", referencia=referencia, store=name),
                hint=message("cli.operations_wait_rejected_hint"),
            ) from exc
        except StoreError as exc:  # failing until the deadline: still pending, never "failed"
            event, failure = None, str(exc)
        operation = store.operation(referencia) if event is not None else None
    if event is None:
        fields = {"referencia": referencia, "store": name, "seconds": f"{args.wait_timeout:g}"}
        raise CommandError(
            message("cli.operations_wait_store_failed", error=failure, **fields)
            if failure
            else message("cli.operations_wait_pending", **fields),
            hint=message("cli.operations_wait_pending_hint", referencia=referencia),
            code=EXIT_UNKNOWN,
        )
    if out.json:
        out.data(
            {
                "referencia": referencia,
                "event": mask_documents(dict(event.raw)),
                "operation": None if operation is None else operation_data(operation),
            }
        )
        return EXIT_OK
    out.event(event.raw)
    return EXIT_OK


def run(args: argparse.Namespace, out: Output) -> int:
    """Dispatch ``smartpos operations [ACTION]``.

    Args:
        args: ``action`` (``list`` by default), the store options and the action's.
        out: The output.

    Returns:
        The exit status.
    """
    actions = {"list": _list, "reconcile": _reconcile, "wait": _wait}
    return actions[args.action or "list"](args, out)
