"""The generated fast structure functions of _wire agree with the cattrs converter they replace."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smartpos import _models, _wire
from smartpos.webhooks import _events


def _positive(instance: Any, attribute: Any, value: int) -> None:
    if value < 0:
        raise ValueError("negative")


@attrs.frozen(slots=True)
class Inner:
    """A nested class with a float and an Any."""

    ratio: float
    anything: Any = None


@attrs.frozen(slots=True)
class Shapes:
    """Every kind of field the generator has a rule for (or delegates)."""

    name: str
    count: int = attrs.field(validator=_positive)  # a validator: built through __init__
    flag: bool = True
    tags: tuple[str, ...] = ()
    items: list[Inner] = attrs.field(factory=list)
    when: dt.datetime | None = None
    inner: Inner | None = None
    maybe: str | None = attrs.field(default="x")
    extra: Mapping[str, Any] | None = None
    raw: Mapping[str, Any] = attrs.field(factory=dict, repr=False, eq=False)
    skipped: int | None = attrs.field(default=None, metadata={"wire_skip": True})
    computed: int = attrs.field(init=False, default=7)
    keyword: str = attrs.field(default="k", kw_only=True, metadata={"wire": "KW"})


@attrs.frozen(slots=True)
class Direct:
    """No validator: built straight into its slots, with defaults of every kind."""

    required_optional: str | None
    listed: list[int] = attrs.field(factory=list)
    number: int = 3
    skipped: str | None = attrs.field(default="s", metadata={"wire_skip": True})
    hooked: dt.datetime | None = attrs.field(
        default=None, metadata={"wire_hook": _wire.parse_unix_timestamp}
    )


CLASSES: list[type[Any]] = [
    Shapes,
    Direct,
    Inner,
    _models.Acceptance,
    _models.QRCode,
    _models.Refund,
    _models.Terminal,
    _events.PagamentoAprovado,
    _events.SmartposIdentificado,
    _events.ImpressaoFalhou,
    _events.UnknownEvent,
]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-2, 2) | st.text(max_size=3),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3)
    ),
    max_leaves=8,
)
KEYS = [
    "name", "count", "flag", "tags", "items", "when", "inner", "maybe", "extra", "skipped",
    "computed", "KW", "keyword", "ratio", "anything", "requiredOptional", "listed", "number",
    "hooked", "referencia", "status", "mensagem", "targets", "smartposId", "qrCode",
    "expiresAt", "id", "tipo", "criadoEm", "dados",
]  # fmt: skip
GOOD = {
    "count": 2,
    "when": "2026-01-01T00:00:00Z",
    "items": [{"ratio": 1}],
    "tags": ["a"],
    "hooked": 1_700_000_000,
    "expiresAt": 1_700_000_000,
    "criadoEm": "2026-01-01T00:00:00Z",
    "targets": [{"smartposId": "S", "status": "enviado"}],
}


def outcome(fn: Any, data: Any) -> tuple[str, Any]:
    """('ok', result) or ('error', None)."""
    try:
        return "ok", fn(data)
    except Exception:
        return "error", None


_DADOS = {"referencia": "r", "documentoCliente": "52998224725", "status": "s"}
VALID: dict[type[Any], dict[str, Any]] = {
    Shapes: {"name": "n", "count": 1, "items": [{"ratio": 1.5, "anything": [1]}], "tags": ["t"]},
    Direct: {"requiredOptional": "a", "listed": [1, 2], "hooked": 1_700_000_000},
    Inner: {"ratio": 1},
    _models.Acceptance: {
        "referencia": "r",
        "status": "processando",
        "mensagem": "m",
        "targets": [{"smartposId": "S", "status": "enviado"}],
    },
    _models.QRCode: {"qrCode": "q", "referencia": "r", "expiresAt": 1_700_000_000},
    _models.Refund: {"referencia": "r", "status": "ok"},
    _models.Terminal: {"smartposId": None},
    _events.PagamentoAprovado: {
        "id": "e",
        "tipo": "pagamento.aprovado",
        "criadoEm": "2026-01-01T00:00:00Z",
        "dados": {**_DADOS, "autorizacao": {"codigo": "A"}, "resultadoSmartPOS": {}},
    },
    _events.SmartposIdentificado: {
        "id": "e",
        "tipo": "smartpos.identificado",
        "criadoEm": "2026-01-01T00:00:00",
        "dados": {"qrCodeId": "q", "referencia": "r", "documentoCliente": "d", "smartposId": "s"},
    },
    _events.ImpressaoFalhou: {
        "id": "e",
        "tipo": "impressao.falhou",
        "criadoEm": "2026-01-01T00:00:00+01:00",
        "dados": _DADOS,
    },
    _events.UnknownEvent: {
        "id": "e",
        "tipo": "x",
        "criadoEm": "2026-01-01T00:00:00Z",
        "dados": {"a": [1]},
    },
}


@pytest.mark.parametrize("cls", CLASSES)
def test_valid_inputs_build_equal_objects(cls: type[Any]) -> None:
    """A valid input builds the same object through both paths."""
    data = VALID[cls]
    assert outcome(_wire._fast_fn(cls), data) == (
        "ok",
        _wire._converter(False).structure(data, cls),
    )


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(CLASSES),
    st.dictionaries(
        st.sampled_from(KEYS),
        st.one_of(json_values, st.sampled_from(list(GOOD.values()))),
        max_size=3,
    ),
    st.booleans(),
)
def test_generated_matches_cattrs(cls: type[Any], changes: dict[str, Any], drop: bool) -> None:
    """On valid inputs with random changes, both paths fail or build equal objects."""
    data = {**VALID[cls], **changes}
    if drop:
        for key in changes:
            data.pop(key, None)
    fast = outcome(_wire._fast_fn(cls), data)
    reference = outcome(lambda d: _wire._converter(False).structure(d, cls), data)
    assert fast[0] == reference[0]
    assert fast[1] == reference[1]
    if fast[0] == "ok" and "raw" in attrs.fields_dict(cls):
        assert fast[1].raw is data


def test_shapes_read_and_defaults() -> None:
    """A full read of Shapes, with defaults, wire_skip, init=False and kw_only honoured."""
    data = {"name": "n", "count": 1, "items": [{"ratio": 2}], "KW": "w", "skipped": 9}
    value = _wire.structure(data, Shapes)
    assert value == Shapes(name="n", count=1, items=[Inner(2.0)], keyword="w")
    assert (value.flag, value.maybe, value.skipped, value.computed) == (True, "x", None, 7)
    assert type(value.items[0].ratio) is float
    assert value.raw is data


def test_direct_build_fills_every_slot() -> None:
    """A class built without __init__ still has every attribute set, defaults included."""
    value = _wire.structure({"requiredOptional": None, "hooked": 1_700_000_000}, Direct)
    assert value == Direct(
        None, hooked=dt.datetime(2023, 11, 14, 22, 13, 20, tzinfo=dt.timezone.utc)
    )
    assert (value.listed, value.number, value.skipped) == ([], 3, "s")
    assert value.listed is not _wire.structure({"requiredOptional": "a"}, Direct).listed


def test_validator_still_runs() -> None:
    """A class with a validator is built through __init__, so the validator runs."""
    with pytest.raises(_wire.WireError) as info:
        _wire.structure({"name": "n", "count": -1}, Shapes)
    assert info.value.path == "$"


@pytest.mark.parametrize(
    ("data", "path", "problem"),
    [
        ({"count": 1}, "$.name", "required field is missing"),
        (
            {"name": "n", "count": 1, "items": [{"ratio": "x"}]},
            "$.items[0].ratio",
            "expected a number",
        ),
        ({"requiredOptional": 1}, "$.requiredOptional", "expected a string"),
    ],
)
def test_failures_keep_the_detailed_path(data: dict[str, Any], path: str, problem: str) -> None:
    """A failure of the generated function is explained by the detailed converter."""
    cls = Direct if "requiredOptional" in data else Shapes
    with pytest.raises(_wire.WireError) as info:
        _wire.structure(data, cls)
    assert (info.value.path, info.value.problem) == (path, problem)


def test_required_optional_must_be_present() -> None:
    """A required ``X | None`` field without a default still has to be sent (null is fine)."""
    with pytest.raises(_wire.WireError, match="required field is missing"):
        _wire.structure({}, Direct)
    assert _wire.structure({"requiredOptional": None}, Direct).required_optional is None


def test_generated_source_is_inspectable() -> None:
    """The generated function keeps its source as its docstring, for debugging."""
    source = _wire._fast_fn(_events.DadosPagamento).__doc__
    assert source is not None
    assert "g('valorCentavos')" in source
    assert "g('resultadoSmartPOS')" in source


@pytest.mark.parametrize(
    ("cls", "data"),
    [
        pytest.param(Shapes, {"name": "n", "count": 1}, id="built-through-init"),
        pytest.param(Direct, {"requiredOptional": "a"}, id="built-into-slots"),
    ],
)
def test_given_values_fill_the_fields_not_on_the_wire(cls: type[Any], data: dict[str, Any]) -> None:
    """structure(..., {field: value}) builds the object complete; the wire cannot set it."""
    given = _wire.structure(data, cls, {"skipped": 5})
    from_wire = _wire.structure({**data, "skipped": 5}, cls)

    assert (5, attrs.fields_dict(cls)["skipped"].default) == (given.skipped, from_wire.skipped)


def test_a_result_is_built_with_its_http_info() -> None:
    """A result read with {"http": ...} carries it from construction (nothing patched later)."""
    info = _models.HTTPInfo(status_code=202, headers={}, attempts=2)

    result = _wire.structure(VALID[_models.Acceptance], _models.Acceptance, {"http": info})

    assert (info, None) == (
        result.http,
        _wire.structure(VALID[_models.Acceptance], _models.Acceptance).http,
    )


def test_a_traceback_through_generated_code_shows_its_source_lines() -> None:
    """The generated source is in linecache (as attrs does): tracebacks show its lines."""
    import traceback

    from smartpos import _fastread

    structure = _wire._fast_fn(Shapes)
    assert structure.__code__.co_filename.startswith("<smartpos._fastread structure ")
    try:
        structure({"name": 5, "count": 1})  # a str field given an int: refused in the code
    except _fastread._Invalid as exc:
        text = "".join(traceback.format_exception(exc))
    else:  # pragma: no cover - the input is invalid
        raise AssertionError("an invalid input was accepted")
    assert structure.__code__.co_filename in text
    generated = [line.strip() for line in structure.__doc__.splitlines() if "_fail()" in line]
    assert any(line in text for line in generated), text
