"""The scenarios: versioned JSON transcripts shipped in the package, read and checked here.

A transcript (``scenarios/<name>.json``) holds ``format`` (the transcript format, `FORMAT`),
``name``, ``version`` (the scenario's own, raised when its steps change), ``title`` and
``models`` (``en`` and ``pt_BR``: what it models and the bug it catches), ``needs`` (the
optional adapter operations it uses: ``abandon``, ``refund``) and ``steps``, each an object
with an ``op`` of `OPS`. The runner (``_runner``) gives each op its meaning.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from importlib import resources
from typing import Any, Final

import attrs

__all__ = ["FORMAT", "INVARIANTS", "NEEDS", "OPS", "Scenario", "load_scenario", "scenarios"]

FORMAT: Final = 1
"""The transcript format this version of the kit reads."""

INVARIANTS: Final[tuple[str, ...]] = (
    "paid-once",
    "not-from-202",
    "same-referencia",
    "amount-agrees",
    "late-approval",
    "each-event-once",
    "no-money-from-print",
    "refund-once",
)
"""Every invariant the kit checks, by its stable name (the message catalog's keys use it)."""

OPS: Final[Mapping[str, tuple[str, ...]]] = {
    # op -> its required keys
    "script": ("outcomes",),
    "fault": ("endpoint", "fault"),
    "webhook-fault": ("fault", "times"),
    "terminal": ("smartposId",),
    "charge": ("sale", "valorCentavos"),
    "settle": (),
    "release": ("sale",),
    "abandon": ("sale",),
    "refund": ("sale",),
    "inject": ("kind", "sale"),
    "expect": ("invariant", "sale"),
    "expect-late-handled": ("sale",),
    "expect-refund": ("sale", "count", "valorCentavos"),
}
"""Every step the transcripts may use, with the keys each one requires."""

NEEDS: Final = ("abandon", "refund")
"""The adapter's optional operations a scenario may need."""

_INJECT_KINDS: Final = ("remint", "approval", "print", "unknown")


@attrs.frozen
class Scenario:
    """One named scenario of the kit.

    Attributes:
        name: Its stable name (the pytest id, the CLI's ``--scenario``).
        version: The scenario's version; raised when its steps or checks change.
        title: A short title per language (``en``, ``pt_BR``).
        models: What it models and the bug it catches, per language.
        needs: The optional adapter operations it uses (``abandon``, ``refund``).
        steps: The steps, as in the transcript.
    """

    name: str
    version: int
    title: Mapping[str, str] = attrs.field(repr=False)
    models: Mapping[str, str] = attrs.field(repr=False)
    needs: tuple[str, ...]
    steps: tuple[Mapping[str, Any], ...] = attrs.field(repr=False)

    @classmethod
    def from_json(cls, data: object) -> Scenario:
        """Read and check one transcript.

        Args:
            data: The parsed JSON object.

        Returns:
            The scenario.

        Raises:
            ValueError: Not a transcript of `FORMAT`, or a step the kit does not know.
        """
        if not isinstance(data, Mapping):
            raise ValueError("a scenario transcript is a JSON object")
        if data.get("format") != FORMAT:
            raise ValueError(
                f"scenario transcript format {data.get('format')!r}: this kit reads {FORMAT}"
            )
        name = data.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError("a scenario needs a non-empty 'name'")
        steps = data.get("steps")
        if not isinstance(steps, list) or not steps:
            raise ValueError(f"scenario {name!r}: 'steps' must be a non-empty list")
        for number, step in enumerate(steps, 1):
            _check_step(name, number, step)
        needs = tuple(data.get("needs", ()))
        unknown = [need for need in needs if need not in NEEDS]
        if unknown:
            raise ValueError(f"scenario {name!r}: unknown needs {unknown}; known: {NEEDS}")
        version = data.get("version")
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise ValueError(f"scenario {name!r}: 'version' must be a whole number >= 1")
        return cls(
            name=name,
            version=version,
            title=dict(data["title"]),
            models=dict(data["models"]),
            needs=needs,
            steps=tuple(dict(step) for step in steps),
        )


def _check_step(name: str, number: int, step: object) -> None:
    where = f"scenario {name!r}, step {number}"
    if not isinstance(step, Mapping):
        raise ValueError(f"{where}: a step is a JSON object")
    op = step.get("op")
    if not isinstance(op, str) or op not in OPS:
        raise ValueError(f"{where}: unknown op {op!r}; known: {', '.join(OPS)}")
    missing = [key for key in OPS[op] if key not in step]
    if missing:
        raise ValueError(f"{where}: op {op!r} needs {', '.join(missing)}")
    if op == "expect" and step["invariant"] not in INVARIANTS:
        raise ValueError(f"{where}: unknown invariant {step['invariant']!r}")
    if op == "inject" and step["kind"] not in _INJECT_KINDS:
        raise ValueError(f"{where}: unknown inject kind {step['kind']!r}")


@functools.cache
def _shipped() -> dict[str, Scenario]:
    folder = resources.files(__package__).joinpath("scenarios")
    found: dict[str, Scenario] = {}
    for entry in sorted(folder.iterdir(), key=lambda item: item.name):
        if entry.name.endswith(".json"):
            scenario = Scenario.from_json(json.loads(entry.read_text(encoding="utf-8")))
            found[scenario.name] = scenario
    return found


# The order a reader meets them in the docs: the simple path first, then the hard cases.
_ORDER: Final = (
    "approved-once",
    "refused-then-retried",
    "answer-lost",
    "conflict-on-retry",
    "duplicate-same-id",
    "duplicate-reminted-id",
    "out-of-order",
    "refusal-then-approval",
    "approval-then-refusal",
    "late-approval",
    "other-amount",
    "other-customer",
    "store-stall",
    "webhook-down",
    "split-bill",
    "refund",
    "print-on-payment",
    "unknown-tipo",
)


def scenarios() -> list[Scenario]:
    """Every scenario shipped with the kit, in the documentation's order.

    Returns:
        The scenarios (a new list; the scenarios themselves are immutable).
    """
    shipped = _shipped()
    ordered = [shipped[name] for name in _ORDER if name in shipped]
    return ordered + [s for name, s in shipped.items() if name not in _ORDER]


def load_scenario(name: str) -> Scenario:
    """Return one shipped scenario by name.

    Raises:
        KeyError: No scenario has that name (the message lists them).
    """
    shipped = _shipped()
    if name not in shipped:
        raise KeyError(f"no scenario {name!r}; known: {', '.join(s.name for s in scenarios())}")
    return shipped[name]
