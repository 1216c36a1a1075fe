"""The fast path of reading JSON: one plain structure function generated per attrs class.

cattrs' generated hooks still dispatch through the converter for every field; on events this
cost ~9 µs per body, more than ``json.loads`` itself. ``_wire`` reads successful inputs through
one plain function per class instead, generated here from the class's fields and the same
rules (strict primitives, optional = ``X | None``, ``wire_hook``, ``wire_skip``, ``raw``).

This module knows no wire name and no converter: ``_wire`` hands it the key of each field, the
fast function of a nested class and a cattrs hook for any type it has no rule for
(`Rules`). A generated function raises on any input it does not accept; ``_wire`` then
re-reads the input with its detailed cattrs converter, which alone words the error. The tests
hold the two paths to the same results (``tests/test_wire_generated.py``, and on every
webhook fixture ``tests/test_wire_fast_path.py``).
"""

from __future__ import annotations

import datetime as _dt
import itertools
import linecache
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

import attrs

__all__ = ["Rules", "generate", "optional_inner"]

_FACTORY: type[Any] = type(attrs.Factory(list))
_MISSING = object()


@attrs.frozen(slots=True, kw_only=True)
class Rules:
    """What a generated function needs from ``_wire``."""

    key: Callable[[attrs.Attribute[Any]], str]
    """The JSON key of a field."""
    nested: Callable[[type[Any]], Callable[..., Any]]
    """The fast function of a nested attrs class."""
    delegate: Callable[[Any], Callable[[Any, Any], Any]]
    """The (fast) cattrs structure hook of a type with no rule here: unions, lists, ..."""
    parse_datetime: Callable[[Any], _dt.datetime]
    """The reader of a ``datetime`` field."""


class _Invalid(Exception):
    """Raised by generated functions; ``_wire`` then finds where with the detailed converter."""


def _fail() -> typing.NoReturn:
    raise _Invalid


_SERIAL = itertools.count(1)


def _register_source(cls: type[Any], source: str) -> str:
    """Give generated code a unique file name and its lines to ``linecache`` (as attrs does).

    A traceback through a generated function then shows its source lines, and a debugger can
    step through them; the name says which class it structures.
    """
    name = f"{cls.__module__}.{cls.__qualname__}-{next(_SERIAL)}"
    filename = f"<smartpos._fastread structure {name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return filename


def optional_inner(tp: Any) -> Any:
    """``X`` for ``X | None`` (or ``Optional[X]``); ``None`` for any other type."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        others = [a for a in args if a is not type(None)]
        if len(others) == 1 and len(args) == 2:
            return others[0]
    return None


def _value_code(tp: Any, var: str, ns: dict[str, Any], n: int, rules: Rules) -> list[str]:
    """Lines that check (and convert) ``var``, already known not to be ``None``/missing."""
    if tp is str:
        return [f"if type({var}) is not str: _fail()"]
    if tp is int:
        return [f"if type({var}) is not int: _fail()"]
    if tp is bool:
        return [f"if {var} is not True and {var} is not False: _fail()"]
    if tp is float:
        return [
            f"if type({var}) is int: {var} = float({var})",
            f"elif type({var}) is not float: _fail()",
        ]
    if tp is _dt.datetime:
        return [f"{var} = _parse_datetime({var})"]
    if tp is Any:
        return []
    if isinstance(tp, type) and attrs.has(tp):
        ns[f"_sub{n}"] = rules.nested(tp)
        return [f"{var} = _sub{n}({var})"]
    ns[f"_hook{n}"] = rules.delegate(tp)
    ns[f"_type{n}"] = tp
    return [f"{var} = _hook{n}({var}, _type{n})"]


def _direct_setters(cls: type[Any]) -> dict[str, Any] | None:
    """Slot setters when an instance can be built without ``__init__`` (same result, faster).

    Only for slotted classes whose ``__init__`` does nothing but assign: no validators, no
    converters, no pre/post-init hooks, no cached hash, no ``Factory(takes_self=True)``.
    """
    if "__slots__" not in cls.__dict__ or any(
        hasattr(cls, hook)
        for hook in ("__attrs_pre_init__", "__attrs_post_init__", "__attrs_init_subclass__")
    ):
        return None
    setters: dict[str, Any] = {}
    for field in attrs.fields(cls):
        default: Any = field.default
        if (
            field.validator is not None
            or field.converter is not None
            or (isinstance(default, _FACTORY) and default.takes_self)
        ):
            return None
        descriptor: Any = getattr(cls, field.name, None)
        if type(descriptor).__name__ != "member_descriptor":
            return None
        setters[field.name] = descriptor.__set__
    slots = [slot for klass in cls.__mro__ for slot in klass.__dict__.get("__slots__", ())]
    if any("cached_hash" in slot for slot in slots):
        return None
    return setters


def _default_code(field: attrs.Attribute[Any], ns: dict[str, Any], n: int) -> str:
    """An expression for the field's default; ``_fail()`` when it has none."""
    default: Any = field.default
    if default is attrs.NOTHING:
        return "_fail()"
    if isinstance(default, _FACTORY):
        ns[f"_factory{n}"] = default.factory
        return f"_factory{n}()"
    ns[f"_default{n}"] = default
    return f"_default{n}"


def generate(cls: type[Any], rules: Rules) -> Callable[..., Any]:
    """Generate the fast structure function of the attrs class ``cls``.

    The function takes the parsed JSON and, optionally, a mapping of values for the fields
    that are not on the wire (``wire_skip``); it returns the instance, or raises on any input
    it does not accept.
    """
    hints = typing.get_type_hints(cls)
    setters = _direct_setters(cls)
    ns: dict[str, Any] = {
        "_cls": cls,
        "_new": object.__new__,
        "_Mapping": Mapping,
        "_MISSING": _MISSING,
        "_fail": _fail,
        "_parse_datetime": rules.parse_datetime,
    }
    lines = [
        "def structure(d, given=None):",
        "    if type(d) is not dict and not isinstance(d, _Mapping): _fail()",
        "    g = d.get",
    ]
    values: list[tuple[attrs.Attribute[Any], str]] = []
    for n, field in enumerate(attrs.fields(cls)):
        var = f"v{n}"
        if field.name == "raw":
            lines.append(f"    {var} = d")
        elif not field.init:
            if setters is None:
                continue  # __init__ fills it in
            lines.append(f"    {var} = {_default_code(field, ns, n)}")
        elif field.metadata.get("wire_skip"):
            # Not on the wire: the value given by the caller (a result's http) or the default.
            lines.append(f"    {var} = given.get({field.name!r}, _MISSING) if given else _MISSING")
            lines.append(f"    if {var} is _MISSING: {var} = {_default_code(field, ns, n)}")
        else:
            tp = hints.get(field.name, Any)
            hook = field.metadata.get("wire_hook")
            inner = None if hook is not None else optional_inner(tp)
            if hook is not None:
                ns[f"_fieldhook{n}"] = hook
                check = [f"{var} = _fieldhook{n}({var})"]
            else:
                check = _value_code(tp if inner is None else inner, var, ns, n, rules)
            key = rules.key(field)
            if field.default is attrs.NOTHING and inner is None and check:
                # Required: a missing key reads as None, which every check refuses.
                lines.append(f"    {var} = g({key!r})")
                lines.extend("    " + line for line in check)
            elif field.default is None and inner is not None:
                lines.append(f"    {var} = g({key!r})")
                if check:
                    lines.append(f"    if {var} is not None:")
                    lines.extend("        " + line for line in check)
            else:
                lines.append(f"    {var} = g({key!r}, _MISSING)")
                default = _default_code(field, ns, n)
                lines.append(f"    if {var} is _MISSING: {var} = {default}")
                if check:
                    test = f"elif {var} is not None:" if inner is not None else "else:"
                    lines.append("    " + test)
                    lines.extend("        " + line for line in check)
        values.append((field, var))
    if setters is not None:
        lines.append("    o = _new(_cls)")
        for field, var in values:
            ns[f"_set_{field.name}"] = setters[field.name]
            lines.append(f"    _set_{field.name}(o, {var})")
        lines.append("    return o")
    else:
        args = [var for field, var in values if not field.kw_only]
        args += [f"{field.alias}={var}" for field, var in values if field.kw_only]
        lines.append(f"    return _cls({', '.join(args)})")
    source = "\n".join(lines) + "\n"
    filename = _register_source(cls, source)
    exec(compile(source, filename, "exec"), ns)  # noqa: S102
    fn: Callable[..., Any] = ns["structure"]
    fn.__doc__ = source  # inspectable: print(smartpos._wire._fast_fn(cls).__doc__)
    return fn
