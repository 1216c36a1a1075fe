"""The one list of event kinds (``EVENT_KINDS``) and the lists kept on purpose beside it.

``smartpos.webhooks._events.EVENT_KINDS`` names every event kind the SDK knows: its class, the
operation kind it ends, whether it may end a refund. The outcome rules and the OpenAPI
description derive from it. A few layers keep their own list on purpose, and
`test_every_list_of_tipos_agrees_with_the_registry` compares each with it, failing with the
name of the list left behind and the tipo it misses (STYLE.md section 8):

- the CLI's ``TIPOS`` (the parser's choices: ``smartpos --help`` must not import the webhook
  kit), its samples and its colours;
- the sandbox's ``TRIGGER_TIPOS`` (the simulator speaks raw dicts from the spec and never
  imports the SDK's converter);
- the fixtures of ``tests/webhooks/fixtures/`` (one per kind);
- the ``Event`` type alias (a static union for type checkers).
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

from collections.abc import Callable, Collection
from pathlib import Path
from typing import get_args

from smartpos.cli import _output, _samples
from smartpos.testing import _service
from smartpos.webhooks import _events, _outcomes

FIXTURES = Path(__file__).parent / "webhooks" / "fixtures"
#: A tipo no spec will ever use.
FUTURE_TIPO = "x-teste.evento-futuro"

#: Every list of tipos kept outside the registry, by where it lives.
SIBLINGS: dict[str, Callable[[], Collection[str]]] = {
    "smartpos.cli._samples.TIPOS (the parser's choices)": lambda: _samples.TIPOS,
    "smartpos.cli._samples._SAMPLES (the standalone samples)": lambda: _samples._SAMPLES,
    "smartpos.cli._output._TIPO_STYLE (the colours)": lambda: _output._TIPO_STYLE,
    "smartpos.testing._service.TRIGGER_TIPOS (the sandbox's triggers)": (
        lambda: _service.TRIGGER_TIPOS
    ),
    "tests/webhooks/fixtures/<tipo>.json": lambda: [
        path.stem for path in FIXTURES.glob("*.json") if path.stem != "unknown"
    ],
    "smartpos.webhooks._events.Event (the type alias)": lambda: [
        cls.TIPO for cls in get_args(_events.Event) if cls is not _events.UnknownEvent
    ],
}


def stale_lists(registry: Collection[str]) -> list[str]:
    """Each sibling list that disagrees with ``registry``: its name and the tipos it misses."""
    problems = []
    for name, tipos_of in SIBLINGS.items():
        tipos = set(tipos_of())
        missing = sorted(set(registry) - tipos)
        extra = sorted(tipos - set(registry))
        if missing:
            problems.append(f"{name} misses {', '.join(missing)}")
        if extra:
            problems.append(f"{name} has {', '.join(extra)}, not in EVENT_KINDS")
    return problems


def test_every_list_of_tipos_agrees_with_the_registry() -> None:
    """Every list of tipos kept on purpose names exactly the kinds of ``EVENT_KINDS``."""
    problems = stale_lists(_events.EVENT_KINDS)
    assert [] == problems, "lists left behind:\n" + "\n".join(problems)


def test_a_new_kind_names_every_list_left_behind() -> None:
    """A kind added to the registry alone is reported in each sibling list, by name."""
    problems = stale_lists([*_events.EVENT_KINDS, FUTURE_TIPO])
    assert [f"{name} misses {FUTURE_TIPO}" for name in SIBLINGS] == problems


def test_the_registry_is_consistent() -> None:
    """Each kind is registered under its class's TIPO and ends a known operation kind."""
    for tipo, kind in _events.EVENT_KINDS.items():
        assert tipo == kind.cls.TIPO
        assert kind.ends is None or kind.ends in _outcomes.KINDS, tipo


def test_the_outcome_rules_derive_from_the_registry() -> None:
    """Each kind ends its own operation kind and, when marked so, a refund; nothing else."""
    for tipo, kind in _events.EVENT_KINDS.items():
        ended = {k for k in _outcomes.KINDS if k != "request" and _outcomes.is_final(k, tipo)}
        expected = {kind.ends} if kind.ends else set()
        assert expected | ({"refund"} if kind.ends_a_refund else set()) == ended, tipo
        assert (kind.ends is not None) == _outcomes.is_final("request", tipo), tipo


DOCS = Path(__file__).resolve().parent.parent / "docs"
#: The pages that list every event kind for users, in both languages.
PAGES_LISTING_KINDS = ("webhooks.md", "cli.md")


def test_the_pages_that_list_the_kinds_name_every_one() -> None:
    """A kind added to the registry is documented where users look for the kinds."""
    missing = [
        f"docs/{lang}/{page} misses {tipo}"
        for lang in ("en", "pt-BR")
        for page in PAGES_LISTING_KINDS
        for tipo in _events.EVENT_KINDS
        if tipo not in (DOCS / lang / page).read_text(encoding="utf-8")
    ]
    assert [] == missing
