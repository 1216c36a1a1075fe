"""The one home of the wire's names: every JSON key the SDK reads or writes comes from here.

Every attrs class of the SDK is read from and written to JSON through this module: results
and events are read (`structure`), request bodies are written (`unstructure`),
and `path` gives the wire name of a field, for ``ValidationError.campo`` and messages.
A field's wire name is its snake_case name in camelCase (``documento_cliente`` ->
``documentoCliente``) unless the field declares an irregular one with
``metadata={"wire": "resultadoSmartPOS"}``; a dotted one (``"imprimir.cliente"``) writes the
field into a nested object.

Reading is lenient about *extra* keys (the service will grow) and strict about the *types* of
the keys it knows: cattrs' defaults would turn ``5.7`` into ``5`` and ``"5"`` into ``5``; here
they are errors. ``bool`` is not an ``int``. Writing never sends nulls.

Reading has two paths with the same rules. The fast path, a plain function generated per class
by ``_fastread`` (which is told the wire names from here), serves every successful read: it is
why ``parse_event`` costs little more than ``json.loads``. cattrs serves the rest: the fast
path delegates to it the types it has no rule for, and on any failure the detailed cattrs
converter re-reads the input to say *where* it was wrong as a JSON path
(``$.dados.valorCentavos: expected an integer``). The tests hold the two paths to the same
results.

Writing needs no cattrs (so a payment never imports it): a small writer per class.
"""

from __future__ import annotations

import datetime as _dt
import enum
import functools
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import attrs

from . import _fastread

if typing.TYPE_CHECKING:
    import cattrs

__all__ = [
    "ERROR_FIELDS",
    "ERROR_OBJECT",
    "LISTING_KEYS",
    "WireError",
    "camel",
    "parse_datetime",
    "parse_unix_timestamp",
    "path",
    "structure",
    "unstructure",
    "wire_name",
]

T = TypeVar("T")
UTC = _dt.timezone.utc


class WireError(ValueError):
    """JSON that does not fit a wire class; ``path`` says where (``$.dados.parcelas``)."""

    def __init__(self, path: str, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}")


def camel(name: str) -> str:
    """Return the camelCase form of a snake_case field name."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def wire_name(field: attrs.Attribute[Any]) -> str:
    """Return the JSON key of an attrs field (dotted when it is written into a nested object)."""
    explicit = field.metadata.get("wire")
    return explicit if explicit is not None else camel(field.name)


def path(cls: type[Any], *steps: str | int) -> str:
    """Return the wire path of a field of ``cls``, as ``ValidationError.campo`` names it.

    Steps are field names, walked through nested attrs classes, and list indexes:
    ``path(PaymentRequest, "comanda", "itens", 0, "titulo")`` is ``comanda.itens[0].titulo``.
    """
    text = ""
    owner: Any = cls
    previous: str | int | None = None
    for step in steps:
        if previous is not None:
            owner = _step_type(owner, previous)
        if isinstance(step, int):
            text += f"[{step}]"
        else:
            name = wire_name(attrs.fields_dict(owner)[step])
            text = f"{text}.{name}" if text else name
        previous = step
    return text


@functools.cache
def _hints(cls: type[Any]) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _step_type(owner: Any, step: str | int) -> Any:
    """The type reached from ``owner`` by one step of `path`, ``X | None`` unwrapped."""
    tp = typing.get_args(owner)[0] if isinstance(step, int) else _hints(owner)[step]
    inner = _fastread.optional_inner(tp)
    return tp if inner is None else inner


# --- shapes read key by key ------------------------------------------------------------------
#
# An error answer is read key by key, each one optional and of any type (the HTTP status alone
# still gives the exception's class), and so is the listing of terminals, whose shape the spec
# leaves open: these are their keys.

#: The object of an error answer that holds its fields (spec 5): ``{"erro": {...}}``.
ERROR_OBJECT = "erro"
#: The keys of that object, by the name of the exception attribute each one fills.
ERROR_FIELDS = {"codigo": "codigo", "mensagem": "mensagem", "acao": "acao", "campo": "campo"}
#: Keys a listing may hold its list of terminals under, most likely first.
LISTING_KEYS = ("smartpos", "terminais", "terminals", "items", "data", "results")


# --- strict primitives -------------------------------------------------------------------


def _int(value: Any, _: Any) -> int:
    if type(value) is int:
        return value
    raise TypeError("expected an integer")


def _str(value: Any, _: Any) -> str:
    if type(value) is str:
        return value
    raise TypeError("expected a string")


def _bool(value: Any, _: Any) -> bool:
    if value is True or value is False:
        return value
    raise TypeError("expected a boolean")


def _float(value: Any, _: Any) -> float:
    if type(value) is float or type(value) is int:
        return float(value)
    raise TypeError("expected a number")


def _any(value: Any, _: Any) -> Any:
    return value


def _is_object(tp: Any) -> bool:
    return typing.get_origin(tp) in (Mapping, typing.Mapping) and typing.get_args(tp) == (str, Any)


def _object(value: Any, _: Any) -> Mapping[str, Any]:
    # A JSON object kept as received (UnknownEvent.dados): checked, not copied.
    if isinstance(value, Mapping):
        return value
    raise TypeError("expected an object")


def parse_datetime(value: Any) -> _dt.datetime:
    """Read an ISO 8601 date-time; one without a UTC offset is read as UTC."""
    if type(value) is not str:
        raise TypeError("expected an ISO 8601 date-time string")
    try:
        parsed = _dt.datetime.fromisoformat(value)
    except ValueError:
        # 3.10's fromisoformat rejects "Z" and other valid ISO 8601 forms.
        from dateutil.parser import isoparse

        try:
            parsed = isoparse(value)
        except (ValueError, OverflowError):
            raise ValueError("expected an ISO 8601 date-time") from None
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    return parsed


def parse_unix_timestamp(value: Any) -> _dt.datetime:
    """Read a Unix timestamp in seconds (milliseconds are recognised by their size)."""
    if type(value) is str:
        # Tolerated: a service that sends the timestamp as an ISO string or digits.
        if value.isdigit():
            value = int(value)
        else:
            return parse_datetime(value)
    if type(value) is not int and type(value) is not float:
        raise TypeError("expected a Unix timestamp")
    seconds = float(value)
    if seconds > 1e11:  # a timestamp in milliseconds
        seconds /= 1000.0
    try:
        return _dt.datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        raise ValueError("expected a Unix timestamp within range") from None


def _datetime(value: Any, _: Any) -> _dt.datetime:
    return parse_datetime(value)


# --- containers ----------------------------------------------------------------------------


def _is_sequence(tp: Any) -> bool:
    origin = typing.get_origin(tp)
    return origin in (list, tuple) and (origin is list or _is_variadic_tuple(tp))


def _is_variadic_tuple(tp: Any) -> bool:
    args = typing.get_args(tp)
    return len(args) == 2 and args[1] is Ellipsis


def _is_union(tp: Any) -> bool:
    return typing.get_origin(tp) in (typing.Union, types.UnionType)


def _union_factory(conv: cattrs.Converter, detailed: bool) -> Callable[[Any], Any]:
    def factory(tp: Any) -> Any:
        args = typing.get_args(tp)
        others = [a for a in args if a is not type(None)]
        if len(others) != 1:
            raise TypeError(f"unsupported union on the wire: {tp!r}")
        inner = conv.get_structure_hook(others[0])
        target = others[0]

        def hook(value: Any, _: Any) -> Any:
            if value is None:
                return None
            return inner(value, target)

        return hook

    return factory


def _sequence_factory(conv: cattrs.Converter, detailed: bool) -> Callable[[Any], Any]:
    def factory(tp: Any) -> Any:
        origin = typing.get_origin(tp)
        (elem,) = typing.get_args(tp)[:1]
        elem_hook = conv.get_structure_hook(elem)
        make = tuple if origin is tuple else list

        def hook(value: Any, _: Any) -> Any:
            if type(value) is not list:
                raise TypeError("expected an array")
            if not detailed:
                return make([elem_hook(item, elem) for item in value])
            out = []
            errors: list[Exception] = []
            for index, item in enumerate(value):
                try:
                    out.append(elem_hook(item, elem))
                except Exception as exc:  # noqa: BLE001, PERF203 - collected, re-raised below
                    notes = [*getattr(exc, "__notes__", []), _IndexNote(index)]
                    setattr(exc, "__notes__", notes)  # noqa: B010 - add_note is 3.11+
                    errors.append(exc)
            if errors:
                from cattrs.errors import IterableValidationError

                raise IterableValidationError("invalid array", errors, tp)
            return make(out)

        return hook

    return factory


class _IndexNote(str):
    index: int  # type: ignore[assignment]  # shadows str.index on purpose: cattrs' name

    def __new__(cls, index: int) -> _IndexNote:
        note = super().__new__(cls, f"at index {index}")
        note.index = index
        return note


# --- attrs classes -------------------------------------------------------------------------


def _check_readable(cls: type[Any]) -> None:
    for field in attrs.fields(cls):
        if "." in wire_name(field):
            raise TypeError(
                f"{cls.__qualname__} cannot be read from JSON: the nested wire name "
                f"{wire_name(field)!r} of {field.name} is for writing only"
            )


def _field_hook(hook: Callable[[Any], Any]) -> Callable[[Any, Any], Any]:
    return lambda value, _: hook(value)


def _attrs_factory(conv: cattrs.Converter, detailed: bool) -> Callable[[Any], Any]:
    from cattrs.gen import make_dict_structure_fn, override

    def factory(cls: type[Any]) -> Any:
        _check_readable(cls)
        overrides: dict[str, Any] = {}
        has_raw = False
        for field in attrs.fields(cls):
            if field.name == "raw" or field.metadata.get("wire_skip"):
                overrides[field.name] = override(omit=True)
                has_raw = has_raw or field.name == "raw"
                continue
            hook = field.metadata.get("wire_hook")
            overrides[field.name] = override(
                rename=wire_name(field),
                struct_hook=_field_hook(hook) if hook is not None else None,
            )
        base = make_dict_structure_fn(
            cls,
            conv,
            _cattrs_forbid_extra_keys=False,
            _cattrs_detailed_validation=detailed,
            **overrides,
        )

        if has_raw:

            def hook(value: Any, _: Any) -> Any:
                if not isinstance(value, Mapping):
                    raise TypeError("expected an object")
                # A second construction keeps the object frozen: this path only runs where
                # the fast one delegated or failed, never on a successful event read.
                return attrs.evolve(base(value, cls), raw=value)

        else:

            def hook(value: Any, _: Any) -> Any:
                if not isinstance(value, Mapping):
                    raise TypeError("expected an object")
                return base(value, cls)

        return hook

    return factory


def _make_converter(detailed: bool) -> cattrs.Converter:
    import cattrs

    conv = cattrs.Converter(detailed_validation=detailed, forbid_extra_keys=False)
    conv.register_structure_hook(int, _int)
    conv.register_structure_hook(str, _str)
    conv.register_structure_hook(bool, _bool)
    conv.register_structure_hook(float, _float)
    conv.register_structure_hook(_dt.datetime, _datetime)
    conv.register_structure_hook_func(lambda t: t is Any, _any)
    conv.register_structure_hook_func(_is_object, _object)
    conv.register_structure_hook_factory(_is_union, _union_factory(conv, detailed))
    conv.register_structure_hook_factory(_is_sequence, _sequence_factory(conv, detailed))
    conv.register_structure_hook_factory(attrs.has, _attrs_factory(conv, detailed))
    return conv


# cattrs costs ~20 ms to import and more to set up: the converters are built on first use, so
# `import smartpos` stays cheap and a payment (which only writes) never pays it.
_converters: dict[bool, cattrs.Converter] = {}


def _converter(detailed: bool) -> cattrs.Converter:
    conv = _converters.get(detailed)
    if conv is None:
        conv = _make_converter(detailed)
        _converters[detailed] = conv
    return conv


# --- writing -------------------------------------------------------------------------------

_writers: dict[type[Any], Callable[[Any], dict[str, Any]]] = {}
_PLAIN = frozenset({str, int, bool, float})


def unstructure(obj: Any) -> Any:
    """Write an attrs instance as JSON-ready data (camelCase keys, no nulls).

    An absent optional field is omitted, never sent as null, and so is a nested object with
    nothing in it (a ``Comprovante()`` without preferences). Enums are written as their values,
    tuples as lists.
    """
    if type(obj) in _PLAIN:
        return obj
    if isinstance(obj, enum.Enum):
        return obj.value
    cls = type(obj)
    if attrs.has(cls):
        writer = _writers.get(cls)
        if writer is None:
            writer = _writers[cls] = _writer(cls)
        return writer(obj)
    if isinstance(obj, (list, tuple)):
        return [unstructure(item) for item in obj]
    if isinstance(obj, Mapping):
        return {key: unstructure(item) for key, item in obj.items()}
    return obj


def _writer(cls: type[Any]) -> Callable[[Any], dict[str, Any]]:
    # (attribute, key, the groups of a dotted key or None): flat keys cost no loop.
    fields = [
        (field.name, name.rpartition(".")[2], tuple(name.split(".")[:-1]) or None)
        for field in attrs.fields(cls)
        if field.name != "raw" and not field.metadata.get("wire_skip")
        for name in [wire_name(field)]
    ]

    def write(obj: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, key, groups in fields:
            value = getattr(obj, name)
            if value is None:
                continue
            if type(value) in _PLAIN:
                pass
            elif isinstance(value, enum.Enum):
                value = value.value
            else:
                written = unstructure(value)
                if written == {} and attrs.has(type(value)):
                    continue
                value = written
            if groups is None:
                out[key] = value
            else:
                target = out
                for group in groups:
                    target = target.setdefault(group, {})
                target[key] = value
        return out

    return write


# --- reading: the fast path first, cattrs when it fails -------------------------------------

_fast_fns: dict[Any, Callable[..., Any]] = {}


def _fast_fn(cls: Any) -> Callable[..., Any]:
    """Return (and cache) the fast structure function of ``cls`` (see ``_fastread``)."""
    fn = _fast_fns.get(cls)
    if fn is not None:
        return fn
    if isinstance(cls, type) and attrs.has(cls):
        _check_readable(cls)
        fn = _fastread.generate(cls, _FAST_RULES)
    else:
        hook = _converter(False).get_structure_hook(cls)

        def fn(data: Any, given: Any = None) -> Any:
            return hook(data, cls)

    _fast_fns[cls] = fn
    return fn


_FAST_RULES = _fastread.Rules(
    key=wire_name,
    nested=_fast_fn,
    delegate=lambda tp: _converter(False).get_structure_hook(tp),
    parse_datetime=parse_datetime,
)


def structure(data: Any, cls: type[T], given: Mapping[str, Any] | None = None) -> T:
    """Read ``data`` (parsed JSON) as ``cls``; raise `WireError` naming the JSON path.

    Args:
        data: The parsed JSON.
        cls: The class to build.
        given: Values of fields that are not on the wire (``wire_skip``) by name, such as a
            result's ``{"http": ...}``: the object is built complete, never patched afterwards.
    """
    fn = _fast_fns.get(cls)
    if fn is None:
        fn = _fast_fn(cls)
    try:
        return fn(data, given)  # type: ignore[no-any-return]
    except Exception:  # noqa: BLE001, S110 - any failure is re-run below to find where it is
        pass
    try:
        result: Any = _converter(True).structure(data, cls)
    except Exception as exc:  # noqa: BLE001
        where, problem = _first_problem(exc, cls, "$")
        raise WireError(where, problem) from None
    # The fast function failed where the detailed converter did not (a bug of the former).
    return attrs.evolve(result, **given) if given else result  # type: ignore[no-any-return]  # pragma: no cover


def _note_of(exc: BaseException) -> Any:
    for note in getattr(exc, "__notes__", ()):
        if hasattr(note, "name") or isinstance(note, _IndexNote):
            return note
    return None


def _first_problem(exc: BaseException, cls: Any, path: str) -> tuple[str, str]:
    """Walk cattrs' exception groups down to the first leaf; return its path and problem."""
    from cattrs.errors import ClassValidationError, IterableValidationError

    if isinstance(exc, ClassValidationError):
        target = exc.cl
        for sub in exc.exceptions:
            note = _note_of(sub)
            name = getattr(note, "name", None)
            key = name
            if name is not None and attrs.has(target):
                fields = attrs.fields_dict(target)
                if name in fields:
                    key = wire_name(fields[name])
                    return _first_problem(sub, fields[name].type, f"{path}.{key}")
            return _first_problem(sub, None, f"{path}.{key}" if key else path)
    if isinstance(exc, IterableValidationError):
        for sub in exc.exceptions:
            note = _note_of(sub)
            index = getattr(note, "index", None)
            return _first_problem(sub, None, f"{path}[{index}]" if index is not None else path)
    if isinstance(exc, KeyError):
        return path, "required field is missing"
    message = str(exc) or type(exc).__name__
    if isinstance(exc, (TypeError, ValueError)) and message.startswith("expected"):
        return path, message
    return path, f"invalid value ({message})"
