"""The summary ``smartpos demo`` prints at the end: what happened, step by step, in numbers.

Kept apart from the demo's steps (``_demo.py``); it only reads the finished demo's record.
"""

from __future__ import annotations

import collections
import time
from typing import TYPE_CHECKING

from ._i18n import words
from ._output import CommandError, Output

if TYPE_CHECKING:
    from smartpos.webhooks import Store

    from ._demo import _Demo

__all__ = ["summary"]


def _inbox_states(store: Store, ids: list[str]) -> collections.Counter[str]:
    states: collections.Counter[str] = collections.Counter()
    for event_id in ids:
        record = store.get(event_id)
        states[record.state.value if record else "missing"] += 1
    return states


def summary(
    demo: _Demo, out: Output, *, store: Store, store_path: str, kept: bool, base_url: str
) -> None:
    seen = demo.seen
    duration = time.perf_counter() - demo.started
    with seen.changed:
        received = list(seen.received)
        # An inbox kept with --store may hold events of earlier runs: report this run's only.
        this_run = {event_id for event_id, _, _ in received}
        processed = [e for e in seen.processed if e.id in this_run]
        handled = {k: v for k, v in seen.handled.items() if k in this_run}
    duplicates = sum(1 for _, _, dup in received if dup)
    twice = [eid for eid, count in handled.items() if count != 1]
    states = _inbox_states(store, [e.id for e in processed])
    reconciled = demo.outcomes["reconciled"] or {}
    charged_once = reconciled.get("charges") == 1
    compensated = demo.outcomes["compensated"] or {}
    refunded_once = compensated.get("refunds") == 1
    ok = not twice and set(states) == {"done"} and charged_once and refunded_once
    client = "AsyncClient" if demo.args.use_async else "Client"
    if out.json:
        out.data(
            {
                "ok": ok,
                "client": client,
                "duration_seconds": round(duration, 3),
                "steps": demo.steps,
                "events": [
                    {
                        "id": e.id,
                        "tipo": e.tipo,
                        "referencia": getattr(e.dados, "referencia", None),
                        "processed": handled.get(e.id, 0),
                    }
                    for e in processed
                ],
                "deliveries": len(received),
                "duplicates": duplicates,
                "inbox": {"path": store_path if kept else None, "states": dict(states)},
                "referencias": demo.referencias,
                "outcomes": demo.outcomes,
            }
        )
    else:
        out.line()
        out.line(out.style(words("Summary"), "bold"))
        steps = "  ".join(f"{s['step']}) {s['seconds']:.2f}s" for s in demo.steps)
        by_tipo = collections.Counter(e.tipo for e in processed)
        out.fields(
            {
                words("steps"): steps,
                words("events"): ", ".join(f"{tipo} x{n}" for tipo, n in by_tipo.items()),
                words("deliveries"): words(
                    "{received} over HTTP, {duplicates} duplicate(s) answered 200 and not stored "
                    "again",
                    received=len(received),
                    duplicates=duplicates,
                ),
                words("outcomes"): words(
                    "approved x{approved}, refused x1 (retried with a new referencia), lost "
                    "answer x1 (reconciled: {state}, charged {charges}x)",
                    approved=len(demo.outcomes["approved"]),
                    state=reconciled.get("state", "?"),
                    charges=reconciled.get("charges", "?"),
                ),
                words("given-up sale"): words(
                    "late approval refunded {refunds}x (compensate run twice)",
                    refunds=compensated.get("refunds", "?"),
                ),
                "worker": words(
                    "{count} event(s), each processed exactly once (claim, handle, ack)",
                    count=len(handled),
                )
                if not twice
                else words("PROCESSED MORE THAN ONCE: {ids}", ids=", ".join(twice)),
                words("inbox"): ", ".join(f"{n} {state}" for state, n in states.items())
                + (f"  ({store_path})" if kept else words("  (temporary, deleted now)")),
                words("client"): words(
                    "smartpos.{client} against the sandbox at {url}", client=client, url=base_url
                ),
                words("duration"): f"{duration:.2f} s",
            }
        )
        if kept:
            out.line(
                words("Inspect the inbox: smartpos events list --store {path}", path=store_path)
            )
        out.line(
            out.style(words("Done."), "bold", "green")
            + words(
                " Next: docs/en/quickstart.md, or 'smartpos sandbox' + 'smartpos listen' to try "
                "your own code."
            )
        )
    if not charged_once:
        raise CommandError(
            words(
                "the reconciled payment was charged {charges} time(s), not once",
                charges=reconciled.get("charges"),
            ),
            hint=words("this is a bug; please report it with this output."),
        )
    if not refunded_once:
        raise CommandError(
            words(
                "the late approval was refunded {refunds} time(s), not once",
                refunds=compensated.get("refunds"),
            ),
            hint=words("this is a bug; please report it with this output."),
        )
    if not ok:
        raise CommandError(
            words("the inbox check failed: events processed more than once: {ids}", ids=twice)
            if twice
            else words("the inbox check failed: states {states}", states=dict(states)),
            hint=words("this is a bug; please report it with this output."),
        )
