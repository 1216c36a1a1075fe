"""The fast read path (``_fastread``) against the plain cattrs path, on every webhook fixture.

``parse_event`` reads through the generated functions; the cattrs converter they replace is the
reference. On each fixture, and on the fixture with one value changed or removed anywhere, both
paths must build the same object, field by field with types (``raw`` included), or both refuse.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smartpos import _wire
from smartpos.webhooks import parse_event
from smartpos.webhooks._events import _BY_TIPO, UnknownEvent

FIXTURES = sorted((Path(__file__).parent / "webhooks" / "fixtures").glob("*.json"))


def fixture(path: Path) -> dict[str, Any]:
    """A fixture's parsed JSON."""
    data: dict[str, Any] = json.loads(path.read_bytes())
    return data


def event_class(data: Mapping[str, Any]) -> type[Any]:
    """The class parse_event picks for a body."""
    tipo = data.get("tipo")
    return _BY_TIPO.get(tipo, UnknownEvent) if type(tipo) is str else UnknownEvent


def shape(value: Any) -> Any:
    """Every field of an attrs object (eq=False ones too), with the type of every value."""
    if attrs.has(type(value)):
        return (
            type(value).__name__,
            {f.name: shape(getattr(value, f.name)) for f in attrs.fields(type(value))},
        )
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [shape(v) for v in value])
    if isinstance(value, Mapping):
        return ("mapping", {k: shape(v) for k, v in value.items()})
    return (type(value).__name__, value, getattr(value, "tzinfo", None))


def plain_cattrs(data: Any, cls: type[Any]) -> Any:
    """The reference: the cattrs converter the fast path stands in for."""
    return _wire._converter(False).structure(data, cls)


def outcome(read: Any, data: Any) -> tuple[str, Any]:
    """('ok', shape of the result) or ('refused', None)."""
    try:
        return "ok", shape(read(data))
    except Exception:
        return "refused", None


def test_every_kind_has_a_fixture() -> None:
    """The fixtures cover every event class parse_event knows, and an unknown tipo."""
    assert {cls.__name__ for cls in _BY_TIPO.values()} | {"UnknownEvent"} == {
        event_class(fixture(path)).__name__ for path in FIXTURES
    }


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_reads_the_same_through_both_paths(path: Path) -> None:
    """parse_event, the generated function alone and plain cattrs build identical events."""
    data = fixture(path)
    cls = event_class(data)

    reference = plain_cattrs(data, cls)
    fast = _wire._fast_fn(cls)(data)

    assert shape(reference) == shape(fast)
    assert shape(reference) == shape(parse_event(path.read_bytes()))
    assert fast.raw is data
    assert reference.raw is data


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path and list index of a JSON document."""
    out: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            out.append((*prefix, key))
            out.extend(_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out.append((*prefix, index))
            out.extend(_paths(item, (*prefix, index)))
    return out


def _changed(data: Any, where: tuple[Any, ...], new: Any) -> Any:
    """A deep copy of ``data`` with the value at ``where`` replaced (or removed: ``_GONE``)."""
    copy = json.loads(json.dumps(data))
    parent = copy
    for step in where[:-1]:
        parent = parent[step]
    if new is _GONE:
        del parent[where[-1]]
    else:
        parent[where[-1]] = new
    return copy


_GONE = object()
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(-2, 2)
    | st.text(max_size=4)
    | st.sampled_from(["2026-05-04T13:45:12Z", "2026-05-04", "52998224725", "1.5"]),
    lambda children: (
        st.lists(children, max_size=2) | st.dictionaries(st.text(max_size=3), children, max_size=2)
    ),
    max_leaves=4,
)


@settings(max_examples=600, deadline=None)
@given(st.data())
def test_changed_fixtures_read_the_same_or_fail_on_both_paths(data: st.DataObject) -> None:
    """One value changed or removed anywhere in a fixture: both paths agree on the outcome."""
    body = fixture(data.draw(st.sampled_from(FIXTURES), label="fixture"))
    where = data.draw(st.sampled_from(_paths(body)), label="where")
    new = data.draw(st.one_of(st.just(_GONE), json_values), label="new value")
    changed = _changed(body, where, new)
    cls = event_class(body)

    assert outcome(lambda d: plain_cattrs(d, cls), changed) == outcome(_wire._fast_fn(cls), changed)
