"""Admission costs time linear in the body, whatever its shape (no timing: the work is counted).

A crafted 39 KiB body once cost 4.7 s in the nesting check (a backtracking regular expression,
quadratic on an unterminated string of escaped quotes), and blocked the ASGI event loop. The
rule "no body of any shape costs more than linear time" is held here by counting, not timing:

1. the Python work of ``receiver.admit`` is the same sequence of calls for a body and for the
   same shape four times as long: nothing in Python walks the body byte by byte, or
   re-scans it per bracket or per quote;
2. every C-level pass over the body is a single call to a ``str``/``bytes`` primitive or to a
   regular expression that is one character class, which cannot backtrack: each costs one
   linear pass, about what ``json.loads`` itself pays to read the same bytes.

Together: a fixed number of linear passes, whatever the shape. The generated shapes are the
adversarial ones: deep brackets, runs of backslashes, escaped and unterminated quotes, mixed.
"""

from __future__ import annotations

import gc
import json
import re
import sys
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from smartpos.webhooks import InvalidEventError, MemoryStore, WebhookReceiver
from smartpos.webhooks._events import MAX_DEPTH, _too_deep, decode_json
from smartpos.webhooks._receiver import Admitted

# Pieces that once made the nesting check backtrack, or that a scanner may mishandle.
ATOMS = [
    "[",
    "]",
    "{",
    "}",
    '"',
    "\\",
    '\\"',
    "\\\\",
    '{"a":',
    '"a":[',
    "],",
    ":",
    ",",
    "x",
    "\\u00",
    "\\n",
    " ",
    "é",
    "\ud800",
]
# A regular expression that is one character class, optionally repeated: it cannot backtrack.
CHARACTER_CLASS = re.compile(r"\[(?:[^\]\\]|\\.)+\][+*]?")

ADMISSION = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def profile(call: Callable[[], object]) -> list[tuple[str, str]]:
    """Run ``call`` and return every function call it made, Python and C, in order.

    C calls of a regular expression are named by their pattern, so that the test can tell a
    character class from a backtracking one.
    """
    events: list[tuple[str, str]] = []

    def record(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            code = frame.f_code
            events.append(("call", getattr(code, "co_qualname", code.co_name)))
        elif event == "c_call":
            owner = getattr(arg, "__self__", None)
            if isinstance(owner, re.Pattern):
                events.append(("regex", str(owner.pattern)))
            else:
                events.append(("c_call", getattr(arg, "__qualname__", repr(arg))))

    previous = sys.getprofile()
    collecting = gc.isenabled()
    gc.disable()  # a collection would run its callbacks (Hypothesis has one) in the middle
    sys.setprofile(record)
    try:
        call()
    finally:
        sys.setprofile(previous)
        if collecting:
            gc.enable()
    return [e for e in events if e != ("c_call", "setprofile")]


def admit(receiver: WebhookReceiver, body: bytes | str) -> Callable[[], object]:
    """A call of ``receiver.admit(body)`` for ``profile``."""
    return lambda: receiver.admit(body)


@st.composite
def shapes(draw: st.DrawFn) -> tuple[str, str, str]:
    """An adversarial body shape: a prefix, a unit to repeat, and a suffix."""
    unit = "".join(draw(st.lists(st.sampled_from(ATOMS), min_size=1, max_size=8)))
    prefix = draw(st.sampled_from(["", "[" * (MAX_DEPTH + 6), '{"id":"e","tipo":"t","x":"']))
    suffix = draw(st.sampled_from(["", '"', "]" * 3, '"}']))
    return prefix, unit, suffix


def event_body(payload: Any) -> str:
    """A valid event whose dados carries ``payload``: admitted all the way to the store."""
    return json.dumps(
        {"id": "e", "tipo": "t", "criadoEm": "2026-05-04T13:45:12+00:00", "dados": {"p": payload}}
    )


@pytest.fixture(scope="module")
def receiver() -> Iterator[WebhookReceiver]:
    """A receiver whose admission is profiled (its store is never called by ``admit``)."""
    with MemoryStore() as store:
        yield WebhookReceiver(store)


def assert_linear(receiver: WebhookReceiver, small: bytes | str, large: bytes | str) -> None:
    """The same calls for both sizes, and no regular expression that could backtrack."""
    receiver.admit(small)  # warm caches (compiled patterns, lazy imports) before counting
    calls_small = profile(admit(receiver, small))
    calls_large = profile(admit(receiver, large))

    assert calls_large == calls_small
    regexes = [pattern for kind, pattern in calls_large if kind == "regex"]
    assert all(CHARACTER_CLASS.fullmatch(p) for p in regexes), regexes


@ADMISSION
@given(shape=shapes(), as_text=st.booleans())
@example(shape=("[" * (MAX_DEPTH + 1), '\\"', ""), as_text=False)  # the reported 39 KiB body
@example(shape=("", '"\\', ""), as_text=False)
@example(shape=("[" * (MAX_DEPTH + 1), "\\", '"'), as_text=True)
def test_admission_work_does_not_grow_with_the_body(
    receiver: WebhookReceiver, shape: tuple[str, str, str], as_text: bool
) -> None:
    """An adversarial body four times as long costs the same calls: only linear passes."""
    prefix, unit, suffix = shape

    def build(repeat: int) -> bytes | str:
        text = prefix + unit * repeat + suffix
        return text if as_text else text.encode("utf-8", "surrogatepass")

    assert_linear(receiver, build(400), build(1600))


@ADMISSION
@given(
    piece=st.text(alphabet='[]{}"\\\n\ud800éx', min_size=1, max_size=10),
    depth=st.integers(min_value=1, max_value=MAX_DEPTH - 4),  # the envelope adds 4 levels
)
def test_admitting_a_valid_event_does_not_grow_with_it(
    receiver: WebhookReceiver, piece: str, depth: int
) -> None:
    """A valid event full of escapes, brackets in strings and nested arrays costs the same
    calls at four times the size, all the way through the typed parser."""

    def build(repeat: int) -> str:
        nested: Any = piece * repeat
        for _ in range(depth):
            nested = [nested, [piece]]
        return event_body([nested, [[piece]] * repeat])

    small, large = build(100), build(400)
    assert len(large) < WebhookReceiver.__init__.__kwdefaults__["max_body_bytes"]
    assert_linear(receiver, small, large)
    assert isinstance(receiver.admit(large), Admitted)


def _depth(value: Any) -> int:
    """Nesting depth of a decoded JSON value, without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, level)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return deepest


json_with_tricky_strings = st.recursive(
    st.text(alphabet='[]{}"\\/\nab', max_size=6) | st.integers(),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(alphabet='[]{}"\\ab', max_size=4), children, max_size=3)
    ),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(value=json_with_tricky_strings, extra=st.integers(min_value=0, max_value=80))
def test_the_depth_check_agrees_with_the_decoded_value(value: Any, extra: int) -> None:
    """For valid JSON, the linear scan says "too deep" exactly when the value nests deeper
    than MAX_DEPTH: brackets and escaped quotes inside strings never count."""
    for _ in range(extra):
        value = [value, '\\"[{']
    text = json.dumps(value)

    assert _too_deep(text) is (_depth(value) > MAX_DEPTH)


def test_the_reported_body_is_refused_without_backtracking() -> None:
    """The 39 KiB body of the report (an unterminated string of escaped quotes after 65
    brackets) is refused as too deep by one pass of each primitive."""
    body = ("[" * (MAX_DEPTH + 1) + '"' + '\\"' * 20_000).encode()

    refused: list[InvalidEventError] = []

    def refuse() -> None:
        try:
            decode_json(body)
        except InvalidEventError as exc:
            refused.append(exc)

    calls = profile(refuse)

    assert [str(exc) for exc in refused] == [f"$: nested deeper than {MAX_DEPTH} levels"]
    assert [p for kind, p in calls if kind == "regex"] == [r"[^\[\]{}]+"]
    assert [name for kind, name in calls if kind == "c_call" and name.startswith("str.")] == [
        "str.count",
        "str.count",
        "str.replace",
        "str.replace",
        "str.split",
        "str.join",
    ]
