"""``smartpos sales [list|show|abandon|compensate|report]``: the sales of a store, from a shell.

- ``smartpos sales`` (``list``) lists the sales, oldest first; ``--attention`` only those with
  pendências (what an operator reviews before closing the till), ``--state`` one state.
- ``smartpos sales show SALE``: its attempts (amount, terminal, who abandoned one, why and
  when), its counted approvals, its pendências and its compensation refunds.
- ``smartpos sales abandon SALE --motivo TEXT``: the cashier gives up the open attempt. Nothing
  is sent, so no API key is needed: the command runs ``client.abandon``'s own flow
  (`smartpos._outcome_calls.abandon`: its argument checks, then the store) without a client.
- ``smartpos sales compensate SALE``: ``client.compensate``, which refunds each late approval
  once; it sends, so it takes the service options (``--api-key``, ``--base-url``...).
- ``smartpos sales report [--date YYYY-MM-DD]``: the till close of the sales created that day,
  per terminal (``smartposId``) and per ``formaPagamento``.

The day of ``report`` is the host's local day, the clock every time the command prints is
shown in (with its UTC offset), and the report names its bounds. Exit statuses: 0; 1 an error
(a sale the store does not know, a compensation the service refused); 3 a compensation whose
outcome is unknown (reconcile it, never a new referencia); 4 (`EXIT_ATTENTION`) ``report``
found pendências: the report is printed, and a human decides before the till closes.

The store is any ``--store`` (`smartpos.cli._store`), as ``smartpos operations`` takes it.
What is printed, text or ``--json``, has the customer's document masked. Building the parser
imports only ``argparse``; the store and the client load when the command runs.
"""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeVar

from smartpos._messages import message
from smartpos._records import (
    Terms,
    attempt_terms,
    compensated_attempts,
    compensation_of,
    operation_data,
    pendencia_data,
    pendencias_data,
    sale_data,
)

from ._convert import day as _day
from ._convert import positive_int as _positive_int
from ._convert import store_default
from ._operations import open_store, print_operation, store_parents
from ._output import (
    EXIT_ATTENTION,
    EXIT_ERROR,
    EXIT_OK,
    EXIT_UNKNOWN,
    CommandError,
    Output,
    format_centavos,
)
from ._store import local_time, store_name

if TYPE_CHECKING:
    from smartpos._outcome_calls import Flow
    from smartpos.webhooks import Operation, Pendencia, Sale, StoreBase

__all__ = [
    "SALE_STATES",
    "add_parser",
    "attempt_terms",
    "run",
    "sale_data",
    "till_close",
]

T = TypeVar("T")

SALE_STATES: Final = ("open", "in_progress", "paid")
"""The ``--state`` choices: `smartpos.webhooks._sales.SALE_STATES` (a test compares them), written
out so that building the parser does not import the webhook kit."""
_STATE_STYLE: Final = {"open": "yellow", "in_progress": "cyan", "paid": "green"}
_OP_STYLE: Final = {
    "sending": "yellow",
    "unknown": "yellow",
    "accepted": "cyan",
    "final": "green",
    "rejected": "red",
}
#: The states of a refund whose outcome is not known yet.
_UNSETTLED: Final = frozenset({"sending", "unknown"})
#: The states of a compensation refund that compensates (`smartpos.webhooks._sales.build_sale`).
_COMPENSATED: Final = frozenset({"accepted", "final"})
#: The most sales of earlier days with pendências a till close names.
_EARLIER: Final = 100
#: Sale rows read at a time while ``report`` looks for the day's sales.
_PAGE: Final = 500


def add_parser(
    sub: Any,
    *,
    service: argparse.ArgumentParser,
    formatter: type[argparse.HelpFormatter],
) -> argparse.ArgumentParser:
    """Add ``sales`` and its actions to the command's subparsers.

    Args:
        sub: The root parser's subparsers.
        service: The parent parser with the service options (for ``compensate``).
        formatter: The help formatter of the other commands.

    Returns:
        The ``sales`` parser.
    """
    json_parent, store = store_parents()
    listing = argparse.ArgumentParser(add_help=False)
    listing.add_argument(
        "--attention",
        action="store_true",
        default=argparse.SUPPRESS,
        help=message("cli.help.sales.attention"),
    )
    listing.add_argument(
        "--state",
        choices=SALE_STATES,
        default=argparse.SUPPRESS,
        help=message("cli.help.sales.state"),
    )
    listing.add_argument(
        "--limit",
        type=_positive_int,
        metavar="N",
        default=argparse.SUPPRESS,
        help=message("cli.help.at_most_n"),
    )
    sales: argparse.ArgumentParser = sub.add_parser(
        "sales",
        help=message("cli.command.sales"),
        description=message("cli.about.sales"),
        epilog=(
            message("cli.examples") + "\n"
            "  smartpos sales --attention\n"
            "  smartpos sales show mesa-12 --json\n"
            "  smartpos sales abandon mesa-12 --motivo 'cliente pagou em dinheiro'"
            " --operador 'caixa 1'\n"
            "  smartpos sales compensate mesa-12\n"
            "  smartpos sales report --date 2026-11-26\n"
        ),
        parents=[json_parent, store, listing],
        formatter_class=formatter,
    )
    sales.set_defaults(handler="_sales:run", action="list")
    actions = sales.add_subparsers(
        title=message("cli.title.actions"), metavar="ACTION", dest="action"
    )
    actions.add_parser(
        "list",
        help=message("cli.command.sales_list"),
        description=message("cli.about.sales_list"),
        epilog=message("cli.example") + "\n  smartpos sales list --state in_progress --json",
        parents=[json_parent, store, listing],
        formatter_class=formatter,
    )
    show = actions.add_parser(
        "show",
        help=message("cli.command.sales_show"),
        description=message("cli.about.sales_show"),
        parents=[json_parent, store],
        formatter_class=formatter,
    )
    show.add_argument("sale", metavar="SALE", help=message("cli.help.sales.sale"))
    abandon = actions.add_parser(
        "abandon",
        help=message("cli.command.sales_abandon"),
        description=message("cli.about.sales_abandon"),
        parents=[json_parent, store],
        formatter_class=formatter,
    )
    abandon.add_argument("sale", metavar="SALE", help=message("cli.help.sales.sale"))
    abandon.add_argument(
        "--motivo", required=True, metavar="TEXT", help=message("cli.help.sales_abandon.motivo")
    )
    abandon.add_argument(
        "--operador", metavar="NAME", help=message("cli.help.sales_abandon.operador")
    )
    compensate = actions.add_parser(
        "compensate",
        help=message("cli.command.sales_compensate"),
        description=message("cli.about.sales_compensate"),
        epilog=message("cli.epilog.sales_compensate"),
        parents=[json_parent, store, service],
        formatter_class=formatter,
    )
    compensate.set_defaults(terminal_op=True)
    compensate.add_argument("sale", metavar="SALE", help=message("cli.help.sales.sale"))
    report = actions.add_parser(
        "report",
        help=message("cli.command.sales_report"),
        description=message("cli.about.sales_report"),
        epilog=message("cli.epilog.sales_report"),
        parents=[json_parent, store],
        formatter_class=formatter,
    )
    report.add_argument(
        "--date",
        type=_day,
        metavar="YYYY-MM-DD",
        help=message("cli.help.sales_report.date"),
    )
    return sales


# --- what a sale's journal holds, as the command shows it -----------------------------------


# --- text -----------------------------------------------------------------------------------


def _state(out: Output, state: str) -> str:
    return out.style(state.ljust(11), _STATE_STYLE.get(state, "bold"))


def _op_state(out: Output, state: str) -> str:
    return out.style(state.ljust(8), _OP_STYLE.get(state, "bold"))


def _reasons(pendencias: Iterable[Pendencia]) -> str:
    return ", ".join(dict.fromkeys(p.reason for p in pendencias))


def _print_line(out: Output, sale: Sale) -> None:
    paid = f"{format_centavos(sale.approved_centavos)}/{format_centavos(sale.total_centavos)}"
    out.line(
        f"{_state(out, sale.state)}  {sale.sale_id}  {paid}  {local_time(sale.created_at)}  "
        + message("cli.events_attempts", attempts=len(sale.attempts))
    )
    if sale.pendencias:
        out.line(
            " " * 13
            + out.style(
                message(
                    "cli.sales_pendencias",
                    count=len(sale.pendencias),
                    reasons=_reasons(sale.pendencias),
                ),
                "yellow",
            )
        )


def _print_pendencia(
    out: Output, found: Mapping[str, Any], prefix: str = "", suffix: str = ""
) -> None:
    """One pendência (`pendencia_data`), with its event or its compensation."""
    line = prefix + message(
        "cli.sales_pendencia",
        reason=out.style(found["reason"], "bold", "yellow"),
        referencia=found["referencia"],
        since=local_time(dt.datetime.fromisoformat(found["since"])),
    )
    if found["event"] is not None:
        line += f"  {out.tipo(found['event']['tipo'])}  id {found['event']['id']}"
    compensation = found["compensation"]
    if compensation is not None:
        line += "  " + message("cli.sales_pendencia_compensation", **compensation)
    out.line("  " + line + suffix)


def _print_sale(out: Output, sale: Sale) -> None:
    out.line(
        out.style(message("cli.sales_sale", sale=sale.sale_id), "bold")
        + "  "
        + _state(out, sale.state).rstrip()
    )
    out.fields(
        {
            message("cli.label.total"): format_centavos(sale.total_centavos),
            message("cli.label.approved"): format_centavos(sale.approved_centavos),
            message("cli.label.remaining"): format_centavos(sale.remaining_centavos),
            message("cli.label.created"): local_time(sale.created_at),
            message("cli.label.updated"): local_time(sale.updated_at),
        }
    )
    out.line(message("cli.sales_attempts", count=len(sale.attempts)))
    for op in sale.attempts:
        terms = attempt_terms(op)
        valor = format_centavos(terms.valor_centavos)
        line = (
            f"  {_op_state(out, op.state)}  {op.referencia}  {valor}"
            f"  {terms.smartpos_id or '-'}  {local_time(op.created_at)}"
        )
        if op.event is not None:
            line += f"  {out.tipo(op.event.tipo)}"
        out.line(line)
        if op.abandoned is not None:
            out.line(
                "      "
                + out.style(
                    message(
                        "cli.sales_abandoned_by",
                        operador=op.abandoned.operador or "?",
                        at=local_time(op.abandoned.at),
                        motivo=op.abandoned.motivo,
                    ),
                    "yellow",
                )
            )
        for anomaly in op.anomalies:
            out.line(
                "      "
                + message(
                    "cli.operations_anomaly",
                    reason=anomaly.reason,
                    tipo=anomaly.tipo,
                    event_id=anomaly.id,
                    detail=anomaly.detail,
                )
            )
    if sale.approvals:
        out.line(message("cli.sales_approvals", count=len(sale.approvals)))
        for event in sale.approvals:
            out.event(event.raw, prefix="  ")
    if sale.compensations:
        late = compensated_attempts(sale)
        out.line(message("cli.sales_compensations", count=len(sale.compensations)))
        for op in sale.compensations:
            out.line(f"  {_op_state(out, op.state)}  {op.referencia}  {local_time(op.created_at)}")
            if op.referencia in late:
                out.line("      " + _compensates(late[op.referencia]))
    if sale.pendencias:
        out.line(
            out.style(
                message("cli.sales_pendencias_heading", count=len(sale.pendencias)),
                "bold",
                "yellow",
            )
        )
        pendencias = pendencias_data(sale)
        for found in pendencias:
            _print_pendencia(out, found)
        _print_what_to_do(out, pendencias, sale.sale_id)


def _print_what_to_do(out: Output, pendencias: Sequence[Mapping[str, Any]], sale: str) -> None:
    """What to do about each kind of pendência shown (`pendencia_data`), one line per kind."""
    reasons = {found["reason"] for found in pendencias}
    lost = [
        found["compensation"]["referencia"]
        for found in pendencias
        if found["compensation"] is not None and found["compensation"]["state"] in _UNSETTLED
    ]
    late = sum(1 for found in pendencias if found["reason"] == "late_approval")
    if late > len(lost):
        out.line("  " + message("cli.sales_todo_late_approval", sale=sale))
    if lost:
        out.line("  " + message("cli.sales_todo_compensation_unknown", referencias=", ".join(lost)))
    if "no_outcome" in reasons:
        out.line("  " + message("cli.sales_todo_no_outcome"))
    others = sorted(reasons - {"late_approval", "no_outcome"})
    if others:
        out.line("  " + message("cli.sales_todo_event", reasons=", ".join(others)))


def _compensates(attempt: Operation) -> str:
    valor = format_centavos(attempt_terms(attempt).valor_centavos)
    return message("cli.sales_compensates", referencia=attempt.referencia, valor=valor)


def _no_sale(sale_id: str, store: str) -> CommandError:
    return CommandError(
        message("cli.sales_no_sale", sale=sale_id, store=store),
        hint=message("cli.sales_no_sale_hint"),
    )


# --- actions --------------------------------------------------------------------------------


def _list(args: argparse.Namespace, out: Output) -> int:
    state = getattr(args, "state", None)
    attention = True if getattr(args, "attention", False) else None
    with open_store(args) as (store, name):
        sales = store.sales(state=state, attention=attention, limit=getattr(args, "limit", 100))
    if out.json:
        out.data([sale_data(s) for s in sales])
        return EXIT_OK
    if not sales:
        if attention:
            out.line(message("cli.sales_none_attention", store=name))
        elif state:
            out.line(message("cli.sales_none_in_state", state=state, store=name))
        else:
            out.line(message("cli.sales_none", store=name))
        return EXIT_OK
    for sale in sales:
        _print_line(out, sale)
    out.line(message("cli.sales_count", count=len(sales), store=name))
    if any(sale.pendencias for sale in sales):
        out.line(message("cli.sales_review"))
    return EXIT_OK


def _show(args: argparse.Namespace, out: Output) -> int:
    with open_store(args) as (store, name):
        sale = store.sale(args.sale)
    if sale is None:
        raise _no_sale(args.sale, name)
    if out.json:
        out.data(sale_data(sale))
    else:
        _print_sale(out, sale)
    return EXIT_OK


def _drive(flow: Flow[T]) -> T:
    """Run a flow of `smartpos._outcome_calls` that only calls the store, as a client's
    ``_run`` does: each ``Blocking`` step is called, its value or exception sent back."""
    from smartpos._outcome_calls import Blocking, Reply

    reply: Any = None
    try:
        while True:
            step = flow.send(reply)
            assert isinstance(step, Blocking), step  # abandon never sends nor waits
            try:
                reply = Reply(step.function())
            except Exception as exc:  # noqa: BLE001 - the flow decides what it means
                reply = Reply(error=exc)
    except StopIteration as stop:
        result: T = stop.value
        return result
    finally:
        flow.close()


def _abandon(args: argparse.Namespace, out: Output) -> int:
    from smartpos import ValidationError
    from smartpos._outcome_calls import abandon

    with open_store(args) as (store, name):
        before = store.sale(args.sale)
        try:
            sale = _drive(abandon(store, args.sale, motivo=args.motivo, operador=args.operador))
        except ValidationError as exc:
            if exc.campo != "sale":
                raise
            raise _no_sale(args.sale, name) from exc
    earlier = set() if before is None else {o.referencia for o in before.attempts if o.abandoned}
    given_up = [o.referencia for o in sale.attempts if o.abandoned and o.referencia not in earlier]
    if out.json:
        out.data({"sale": sale_data(sale), "abandoned": given_up})
        return EXIT_OK
    if not given_up:
        out.line(message("cli.sales_nothing_to_abandon", sale=sale.sale_id, state=sale.state))
        return EXIT_OK
    for referencia in given_up:
        out.line(message("cli.sales_abandoned", referencia=referencia, state=sale.state))
    out.line(message("cli.sales_late_approval_hint", sale=sale.sale_id))
    return EXIT_OK


def _compensate(args: argparse.Namespace, out: Output) -> int:
    from smartpos import Client, ValidationError
    from smartpos.webhooks import StoreError

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
            operations = client.compensate(args.sale)
        except ValidationError as exc:
            if exc.campo != "sale":
                raise
            raise _no_sale(args.sale, name) from exc
        try:
            sale = store.sale(args.sale)
        except StoreError:  # the refunds are sent: what they became is still printed below
            sale = None
    late = {} if sale is None else compensated_attempts(sale)
    pendencias = [] if sale is None else pendencias_data(sale)
    if out.json:
        out.data(
            {
                "sale_id": args.sale,
                "compensations": [
                    {
                        **operation_data(op),
                        "compensates": late[op.referencia].referencia
                        if op.referencia in late
                        else None,
                    }
                    for op in operations
                ],
                "pendencias": pendencias,
            }
        )
    else:
        if not operations:
            out.line(message("cli.sales_no_late_approval", sale=args.sale))
        for op in operations:
            print_operation(out, op)
            if op.referencia in late:
                out.line("          " + _compensates(late[op.referencia]))
    unknown = [op.referencia for op in operations if op.state in _UNSETTLED]
    rejected = [op.referencia for op in operations if op.state == "rejected"]
    if unknown:
        out.error(
            message("cli.sales_compensation_unknown", referencias=", ".join(unknown)),
            hint=message("cli.sales_compensation_unknown_hint", referencia=unknown[0]),
        )
        return EXIT_UNKNOWN
    if rejected:
        out.error(
            message("cli.sales_compensation_rejected", referencias=", ".join(rejected)),
            hint=message("cli.sales_compensation_rejected_hint", sale=args.sale),
        )
        return EXIT_ERROR
    if operations:
        out.line(message("cli.sales_compensated", count=len(operations)))
    if pendencias:
        out.line(message("cli.sales_pendencias_left", count=len(pendencias), sale=args.sale))
    return EXIT_OK


# --- the till close -------------------------------------------------------------------------

#: The columns of a till close's tables, in order (the keys of a tally).
_TALLY: Final = (
    "approved_count",
    "approved_centavos",
    "refused_count",
    "compensated_count",
    "compensated_centavos",
    "pendencias",
)


def _day_bounds(day: dt.date) -> tuple[dt.datetime, dt.datetime]:
    """Local midnight to the next local midnight (23 or 25 hours on a daylight-saving day)."""
    start = dt.datetime.combine(day, dt.time()).astimezone()
    end = dt.datetime.combine(day + dt.timedelta(days=1), dt.time()).astimezone()
    return start, end


def sales_created(store: StoreBase, start: dt.datetime, end: dt.datetime) -> list[Sale]:
    """The sales created from ``start`` to before ``end``, oldest first.

    The store's sale rows (key, total, creation time: no events) are read a page at a time,
    and only the day's sales are computed: a till close reads the events of its own day.

    Args:
        store: The store.
        start: The first instant (aware).
        end: The instant after the last (aware).

    Returns:
        The sales.
    """
    first, after_last = start.timestamp(), end.timestamp()
    found: list[Sale] = []
    after = 0
    while True:
        rows = store._sale_list(after=after, limit=_PAGE)
        for row in rows:
            if first <= row.created_at < after_last:
                sale = store.sale(row.sale_id)
                if sale is not None:
                    found.append(sale)
        if len(rows) < _PAGE:
            return found
        after = rows[-1].seq


def till_close(
    sales: Sequence[Sale],
    *,
    day: dt.date,
    start: dt.datetime,
    end: dt.datetime,
    earlier: Sequence[str] = (),
) -> dict[str, Any]:
    """The till close of a day's sales, per terminal and per payment method (no I/O).

    Counted approvals (count and sum), refusals, compensation refunds the service accepted
    (count and the sum of the late approvals they refund) and the open pendências, each under
    the terminal and the ``formaPagamento`` of its attempt (``None`` when unknown: a manual
    charge with no outcome yet). A late approval whose compensation is refused or unknown is
    still a pendência, with its compensation's referencia and state.

    Args:
        sales: The sales created that day.
        day: The day.
        start: Its first instant.
        end: The instant after its last.
        earlier: The keys of sales created before the day that still have pendências.

    Returns:
        JSON-ready data: ``date``, ``from``, ``to``, ``sales`` (counts by state, total and
        remaining centavos), ``by_terminal``, ``by_forma``, ``totals``, ``pendencias`` (each
        with its ``sale_id``, terminal, method and amount; documents masked), ``attention``
        (pendências of the day remain) and ``earlier_attention`` (``earlier``).
    """
    from smartpos.webhooks._events import PagamentoAprovado, PagamentoRecusado

    terminals: dict[str | None, dict[str, int]] = {}
    formas: dict[str | None, dict[str, int]] = {}
    totals = dict.fromkeys(_TALLY, 0)
    pendencias: list[dict[str, Any]] = []

    def add(terms: Terms, column: str, centavos: int | None = None) -> None:
        for tally in (
            terminals.setdefault(terms.smartpos_id, dict.fromkeys(_TALLY, 0)),
            formas.setdefault(terms.forma_pagamento, dict.fromkeys(_TALLY, 0)),
            totals,
        ):
            tally[column] += 1
            if centavos is not None:
                tally[column.replace("_count", "_centavos")] += centavos

    unknown = Terms(0, None, None)
    for sale in sales:
        by_referencia = {op.referencia: op for op in sale.attempts}
        for op in sale.attempts:
            if isinstance(op.event, PagamentoAprovado) and op.abandoned is None:
                terms = attempt_terms(op)
                add(terms, "approved_count", terms.valor_centavos)
            elif isinstance(op.event, PagamentoRecusado):
                add(attempt_terms(op), "refused_count")
        compensation = compensation_of(sale)
        for pendencia in sale.pendencias:
            attempt = by_referencia.get(pendencia.referencia)
            terms = unknown if attempt is None else attempt_terms(attempt)
            add(terms, "pendencias")
            pendencias.append(
                {
                    "sale_id": sale.sale_id,
                    **pendencia_data(pendencia, compensation.get(pendencia.referencia)),
                    "smartpos_id": terms.smartpos_id,
                    "forma_pagamento": terms.forma_pagamento,
                    "valor_centavos": terms.valor_centavos,
                }
            )
        late = compensated_attempts(sale)
        for refund in sale.compensations:
            # Only an accepted refund compensates (the sale's rule): a refused or unknown one
            # leaves its late approval a pendência, counted above.
            if refund.state in _COMPENSATED:
                attempt = late.get(refund.referencia)
                terms = unknown if attempt is None else attempt_terms(attempt)
                add(terms, "compensated_count", terms.valor_centavos)

    def ordered(groups: dict[str | None, dict[str, int]], key: str) -> list[dict[str, Any]]:
        names = sorted(groups, key=lambda name: (name is None, name or ""))
        return [{key: name, **groups[name]} for name in names]

    counts = {state: sum(1 for s in sales if s.state == state) for state in SALE_STATES}
    return {
        "date": day.isoformat(),
        "from": start.isoformat(timespec="seconds"),
        "to": end.isoformat(timespec="seconds"),
        "sales": {
            "count": len(sales),
            **counts,
            "total_centavos": sum(s.total_centavos for s in sales),
            "remaining_centavos": sum(s.remaining_centavos for s in sales),
        },
        "by_terminal": ordered(terminals, "smartpos_id"),
        "by_forma": ordered(formas, "forma_pagamento"),
        "totals": totals,
        "pendencias": pendencias,
        "attention": bool(pendencias),
        "earlier_attention": list(earlier),
    }


def _print_table(
    out: Output,
    heading: str,
    key: str,
    rows: Sequence[Mapping[str, Any]],
    totals: Mapping[str, int],
) -> None:
    header = [
        heading,
        message("cli.sales_column_approved"),
        message("cli.sales_column_refused"),
        message("cli.sales_column_compensated"),
        message("cli.sales_column_pendencias"),
    ]

    def cells(name: str, tally: Mapping[str, int]) -> list[str]:
        return [
            name,
            f"{tally['approved_count']}  {format_centavos(tally['approved_centavos'])}",
            str(tally["refused_count"]),
            f"{tally['compensated_count']}  {format_centavos(tally['compensated_centavos'])}",
            str(tally["pendencias"]),
        ]

    table = [header]
    table += [cells(row[key] or "-", row) for row in rows]
    table.append(cells(message("cli.sales_all"), totals))
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    for number, line in enumerate(table):
        text = "  ".join(
            cell.ljust(width) for cell, width in zip(line, widths, strict=True)
        ).rstrip()
        out.line(out.style(text, "dim") if number == 0 else text)


def _print_report(out: Output, report: Mapping[str, Any], store: str) -> None:
    counted = report["sales"]
    out.line(
        out.style(
            message(
                "cli.sales_report_title",
                date=report["date"],
                start=report["from"],
                end=report["to"],
                store=store,
            ),
            "bold",
        )
    )
    if not counted["count"]:
        out.line(message("cli.sales_report_none", date=report["date"]))
    else:
        out.line(
            message(
                "cli.sales_report_sales",
                count=counted["count"],
                paid=counted["paid"],
                open=counted["open"],
                in_progress=counted["in_progress"],
                total=format_centavos(counted["total_centavos"]),
                remaining=format_centavos(counted["remaining_centavos"]),
            )
        )
        out.line()
        _print_table(out, "smartposId", "smartpos_id", report["by_terminal"], report["totals"])
        out.line()
        _print_table(out, "formaPagamento", "forma_pagamento", report["by_forma"], report["totals"])
        out.line()
    pendencias = report["pendencias"]
    earlier = report["earlier_attention"]
    if earlier:
        out.line(message("cli.sales_report_earlier", count=len(earlier), sales=", ".join(earlier)))
    if not pendencias:
        out.line(out.style(message("cli.sales_report_clean"), "green"))
        return
    out.line(
        out.style(message("cli.sales_report_pendencias", count=len(pendencias)), "bold", "yellow")
    )
    for found in pendencias:
        where = [found["smartpos_id"] or "-", found["forma_pagamento"] or "-"]
        if found["valor_centavos"]:
            where.append(format_centavos(found["valor_centavos"]))
        if found["documento_cliente"]:
            where.append(found["documento_cliente"])
        where_text = "  " + "  ".join(where)
        _print_pendencia(out, {**found, "event": None}, f"{found['sale_id']}  ", where_text)
    _print_what_to_do(out, pendencias, "SALE")


def _report(args: argparse.Namespace, out: Output) -> int:
    day = args.date or dt.date.today()
    start, end = _day_bounds(day)
    with open_store(args) as (store, name):
        sales = sales_created(store, start, end)
        # Not the day's, so not its exit status; but money still owed is worth a line.
        earlier = [
            sale.sale_id
            for sale in store.sales(attention=True, limit=_EARLIER)
            if sale.created_at < start
        ]
    report = till_close(sales, day=day, start=start, end=end, earlier=earlier)
    if out.json:
        spec = getattr(args, "store", None) or store_default()
        out.data({**report, "store": store_name(str(spec))})
    else:
        _print_report(out, report, name)
    return EXIT_ATTENTION if report["attention"] else EXIT_OK


def run(args: argparse.Namespace, out: Output) -> int:
    """Dispatch ``smartpos sales [ACTION]``.

    Args:
        args: ``action`` (``list`` by default), the store options and the action's.
        out: The output.

    Returns:
        The exit status.
    """
    actions = {
        "list": _list,
        "show": _show,
        "abandon": _abandon,
        "compensate": _compensate,
        "report": _report,
    }
    return actions[args.action or "list"](args, out)
