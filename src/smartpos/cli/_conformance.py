"""``smartpos conformance``: run the conformance kit against a running system, in any language.

``smartpos conformance run --control URL --webhook URL --charge URL --status URL`` drives a
served sandbox (``smartpos sandbox``, the system's base URL) through its control API and the
system through the URLs of the kit's HTTP contract (``smartpos.testing.conformance._http``);
``smartpos conformance list`` shows the scenarios. Exit status of ``run``: 0 every scenario
passed (or is not applicable), 1 a scenario failed or could not run, 2 usage.
"""

from __future__ import annotations

import argparse
from typing import Any

from smartpos._messages import message

from ._output import EXIT_ERROR, EXIT_OK, CommandError, Output

__all__ = ["add_parser", "run"]


def _header(value: str) -> tuple[str, str]:
    name, sep, text = value.partition(":")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(message("conformance.cli.header", value=value))
    return name.strip(), text.strip()


def add_parser(sub: Any, *, formatter: type[argparse.HelpFormatter]) -> argparse.ArgumentParser:
    """Add ``conformance`` and its actions (``list``, ``run``) to the command's subparsers."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "conformance",
        help=message("conformance.cli.command"),
        description=message("conformance.cli.about"),
        formatter_class=formatter,
    )
    parser.set_defaults(handler="_conformance:run", action=None)
    actions = parser.add_subparsers(metavar="ACTION")
    listing = actions.add_parser(
        "list", help=message("conformance.cli.list"), formatter_class=formatter
    )
    listing.set_defaults(action="list")
    listing.add_argument("--json", action="store_true", help=message("cli.help.json"))
    run = actions.add_parser(
        "run",
        help=message("conformance.cli.run"),
        description=message("conformance.cli.run_about"),
        formatter_class=formatter,
    )
    run.set_defaults(action="run")
    run.add_argument("--json", action="store_true", help=message("cli.help.json"))
    run.add_argument(
        "--control", required=True, metavar="URL", help=message("conformance.cli.control")
    )
    run.add_argument("--control-key", metavar="KEY", help=message("conformance.cli.control_key"))
    run.add_argument(
        "--webhook", required=True, metavar="URL", help=message("conformance.cli.webhook")
    )
    run.add_argument(
        "--webhook-header",
        action="append",
        default=[],
        type=_header,
        metavar="NAME:VALUE",
        help=message("conformance.cli.webhook_header"),
    )
    run.add_argument(
        "--charge", required=True, metavar="URL", help=message("conformance.cli.charge")
    )
    run.add_argument(
        "--status", required=True, metavar="URL", help=message("conformance.cli.status")
    )
    run.add_argument("--abandon", metavar="URL", help=message("conformance.cli.abandon"))
    run.add_argument("--refund", metavar="URL", help=message("conformance.cli.refund"))
    run.add_argument("--settle", metavar="URL", help=message("conformance.cli.settle"))
    run.add_argument(
        "--settle-seconds",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help=message("conformance.cli.settle_seconds"),
    )
    run.add_argument(
        "--scenario", action="append", metavar="NAME", help=message("conformance.cli.scenario")
    )
    return parser


def run(args: argparse.Namespace, out: Output) -> int:
    """Run ``conformance list`` or ``conformance run``."""
    from smartpos._messages import current_language
    from smartpos.testing.conformance import HttpAdapter, run_remote, scenarios

    lang = current_language()
    if args.action == "list" or args.action is None:
        for scenario in scenarios():
            out.line(f"{scenario.name:<24} {scenario.title.get(lang, scenario.title['en'])}")
        out.data(
            [
                {
                    "name": s.name,
                    "version": s.version,
                    "title": dict(s.title),
                    "needs": list(s.needs),
                }
                for s in scenarios()
            ]
        )
        return EXIT_OK
    known = {s.name for s in scenarios()}
    unknown = [name for name in args.scenario or () if name not in known]
    if unknown:
        raise CommandError(
            message(
                "conformance.cli.unknown_scenario",
                names=", ".join(unknown),
                known=", ".join(sorted(known)),
            ),
            code=2,
        )
    from smartpos.testing import RemoteSandbox

    adapter = HttpAdapter(
        webhook=args.webhook,
        charge=args.charge,
        status=args.status,
        abandon=args.abandon,
        refund=args.refund,
        settle=args.settle,
        settle_seconds=args.settle_seconds,
        webhook_headers=dict(args.webhook_header),
    )
    with adapter, RemoteSandbox(args.control, control_key=args.control_key) as sandbox:
        results = run_remote(sandbox, adapter, names=args.scenario, lang=lang)
    counts = {
        outcome: sum(1 for r in results if r.outcome == outcome)
        for outcome in ("passed", "failed", "not-applicable", "error")
    }
    for result in results:
        mark = {"passed": "ok", "failed": "FAIL", "not-applicable": "n/a", "error": "ERROR"}[
            result.outcome
        ]
        out.line(f"{mark:<6}{result.scenario.name}")
        for violation in result.violations:
            out.line(f"      [{violation.invariant}] {violation.message}")
        if result.missing:
            out.line("      " + message("conformance.report.missing", operation=result.missing))
        if result.error:
            out.line(f"      {result.error}")
    summary = message(
        "conformance.report.summary",
        passed=counts["passed"],
        failed=counts["failed"],
        not_applicable=counts["not-applicable"],
        errors=counts["error"],
        total=len(results),
    )
    out.line(summary)
    out.data({"summary": counts, "results": [r.to_json() for r in results]})
    return EXIT_ERROR if counts["failed"] or counts["error"] else EXIT_OK
