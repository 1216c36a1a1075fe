"""The converter: camelCase names, strict types of known keys, extra keys kept, no nulls sent."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

import attrs
import pytest

import smartpos
from smartpos import _wire

UTC = dt.timezone.utc


@attrs.frozen
class Inner:
    """A nested wire object for the tests."""

    quantidade_itens: int


@attrs.frozen
class Sample:
    """A wire object with one field of every primitive the SDK reads."""

    numero: int
    texto: str
    ligado: bool | None = None
    fator: float | None = None
    quando: dt.datetime | None = None
    interno: Inner | None = None
    lista: list[Inner] = attrs.field(factory=list)
    irregular: str | None = attrs.field(default=None, metadata={"wire": "IRREGULARName"})
    raw: Mapping[str, Any] = attrs.field(factory=dict, eq=False)


ACCEPTANCE = {
    "referencia": "r",
    "status": "processando",
    "mensagem": "ok",
    "targets": [{"smartposId": "SP-1", "status": "enviado"}],
}


# --- names ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "wire"),
    [
        ("documento_cliente", "documentoCliente"),
        ("valor_centavos", "valorCentavos"),
        ("smartpos_id", "smartposId"),
        ("qr_code", "qrCode"),
        ("expires_at", "expiresAt"),
        ("referencia", "referencia"),
        ("codigo_autorizacao", "codigoAutorizacao"),
    ],
)
def test_camel(name: str, wire: str) -> None:
    """snake_case field names become the spec's camelCase keys."""
    assert wire == _wire.camel(name)


def test_explicit_wire_name() -> None:
    """A field's metadata "wire" overrides the camelCase rule, both ways."""
    fields = attrs.fields_dict(Sample)

    value = _wire.structure({"numero": 1, "texto": "t", "IRREGULARName": "x"}, Sample)

    assert ("IRREGULARName", "quantidadeItens") == (
        _wire.wire_name(fields["irregular"]),
        _wire.wire_name(attrs.fields_dict(Inner)["quantidade_itens"]),
    )
    assert "x" == value.irregular
    assert {"numero": 1, "texto": "t", "lista": [], "IRREGULARName": "x"} == _wire.unstructure(
        value
    )


# --- strict reading ------------------------------------------------------------------------


def test_structure_reads_every_primitive() -> None:
    """Known keys are read with their types; nested objects and lists are structured too."""
    data = {
        "numero": 5,
        "texto": "t",
        "ligado": False,
        "fator": 2,
        "quando": "2026-07-01T12:00:00Z",
        "interno": {"quantidadeItens": 3},
        "lista": [{"quantidadeItens": 1}, {"quantidadeItens": 2}],
    }

    value = _wire.structure(data, Sample)

    assert (
        Sample(
            numero=5,
            texto="t",
            ligado=False,
            fator=2.0,
            quando=dt.datetime(2026, 7, 1, 12, tzinfo=UTC),
            interno=Inner(3),
            lista=[Inner(1), Inner(2)],
        )
        == value
    )
    assert isinstance(value.fator, float)
    assert data == value.raw


@pytest.mark.parametrize(
    ("data", "path", "problem"),
    [
        ({"numero": 5.7, "texto": "t"}, "$.numero", "expected an integer"),
        ({"numero": 5.0, "texto": "t"}, "$.numero", "expected an integer"),
        ({"numero": "5", "texto": "t"}, "$.numero", "expected an integer"),
        ({"numero": True, "texto": "t"}, "$.numero", "expected an integer"),
        ({"numero": None, "texto": "t"}, "$.numero", "expected an integer"),
        ({"texto": "t"}, "$.numero", "required field is missing"),
        ({"numero": 1, "texto": 5}, "$.texto", "expected a string"),
        ({"numero": 1, "texto": "t", "ligado": 1}, "$.ligado", "expected a boolean"),
        ({"numero": 1, "texto": "t", "ligado": "true"}, "$.ligado", "expected a boolean"),
        ({"numero": 1, "texto": "t", "fator": "1.5"}, "$.fator", "expected a number"),
        ({"numero": 1, "texto": "t", "fator": True}, "$.fator", "expected a number"),
        (
            {"numero": 1, "texto": "t", "quando": 1751371200},
            "$.quando",
            "expected an ISO 8601 date-time string",
        ),
        (
            {"numero": 1, "texto": "t", "quando": "ontem"},
            "$.quando",
            "expected an ISO 8601 date-time",
        ),
        ({"numero": 1, "texto": "t", "interno": []}, "$.interno", "expected an object"),
        (
            {"numero": 1, "texto": "t", "interno": {"quantidadeItens": 1.5}},
            "$.interno.quantidadeItens",
            "expected an integer",
        ),
        ({"numero": 1, "texto": "t", "lista": {}}, "$.lista", "expected an array"),
        (
            {
                "numero": 1,
                "texto": "t",
                "lista": [{"quantidadeItens": 1}, {"quantidadeItens": "2"}],
            },
            "$.lista[1].quantidadeItens",
            "expected an integer",
        ),
        (
            {"numero": 1, "texto": "t", "lista": [{"quantidadeItens": 1}, 7]},
            "$.lista[1]",
            "expected an object",
        ),
        ([], "$", "expected an object"),
        ("texto", "$", "expected an object"),
    ],
)
def test_strict_types_with_json_path(data: Any, path: str, problem: str) -> None:
    """A known key of a wrong type is a WireError naming its JSON path; 5.7, "5", True: no int."""
    with pytest.raises(_wire.WireError) as info:
        _wire.structure(data, Sample)

    assert (path, problem, f"{path}: {problem}") == (
        info.value.path,
        info.value.problem,
        str(info.value),
    )
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("targets", "path", "problem"),
    [
        ([{"smartposId": "SP-1", "status": 5}], "$.targets[0].status", "expected a string"),
        ([{"smartposId": "SP-1"}], "$.targets[0].status", "required field is missing"),
        (
            [{"smartposId": "a", "status": "b"}, {"smartposId": None, "status": "c"}],
            "$.targets[1].smartposId",
            "expected a string",
        ),
        ("SP-1", "$.targets", "expected an array"),
    ],
)
def test_acceptance_errors_name_the_path(targets: Any, path: str, problem: str) -> None:
    """Errors inside an Acceptance's targets name the exact element and key."""
    with pytest.raises(_wire.WireError) as info:
        _wire.structure({**ACCEPTANCE, "targets": targets}, smartpos.Acceptance)

    assert f"{path}: {problem}" == str(info.value)


def test_extra_keys_are_kept_in_raw() -> None:
    """Unknown keys are ignored by the typed fields and kept, with everything else, in raw."""
    data = {
        **ACCEPTANCE,
        "novo": {"a": [1, 2]},
        "targets": [{"smartposId": "S", "status": "enviado", "x": 1}],
    }

    acceptance = _wire.structure(data, smartpos.Acceptance)

    assert data is acceptance.raw
    assert [smartpos.Target("S", "enviado")] == acceptance.targets
    assert acceptance.smartpos_id is None


def test_optional_null_reads_as_none() -> None:
    """null for an optional key reads as None."""
    acceptance = _wire.structure({**ACCEPTANCE, "smartposId": None}, smartpos.Acceptance)

    assert acceptance.smartpos_id is None


def test_structure_of_a_list_type() -> None:
    """structure() also reads generic types such as list[Target]."""
    assert [smartpos.Target("A", "enviado")] == _wire.structure(
        [{"smartposId": "A", "status": "enviado"}], list[smartpos.Target]
    )


# --- dates ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-07-01T12:00:00Z", dt.datetime(2026, 7, 1, 12, tzinfo=UTC)),
        ("2026-07-01T12:00:00", dt.datetime(2026, 7, 1, 12, tzinfo=UTC)),
        ("2026-07-01T09:00:00-03:00", dt.datetime(2026, 7, 1, 12, tzinfo=UTC)),
        ("2026-07-01T24:00:00Z", dt.datetime(2026, 7, 2, 0, tzinfo=UTC)),  # dateutil fallback
        ("2026-07", dt.datetime(2026, 7, 1, tzinfo=UTC)),  # dateutil fallback, no offset
    ],
)
def test_parse_datetime(value: str, expected: dt.datetime) -> None:
    """ISO 8601 date-times parse to aware datetimes; no offset means UTC."""
    parsed = _wire.parse_datetime(value)

    assert expected == parsed
    assert parsed.tzinfo is not None


@pytest.mark.parametrize("value", ["2026-13-01T00:00:00Z", "soon", ""])
def test_parse_datetime_refuses_non_dates(value: str) -> None:
    """Text that is not an ISO 8601 date-time raises ValueError."""
    with pytest.raises(ValueError, match="expected an ISO 8601 date-time"):
        _wire.parse_datetime(value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1785598200, dt.datetime(2026, 8, 1, 15, 30, tzinfo=UTC)),
        (1785598200.5, dt.datetime(2026, 8, 1, 15, 30, 0, 500000, tzinfo=UTC)),
        (1785598200000, dt.datetime(2026, 8, 1, 15, 30, tzinfo=UTC)),  # milliseconds
        ("1785598200", dt.datetime(2026, 8, 1, 15, 30, tzinfo=UTC)),
        ("2026-08-01T15:30:00Z", dt.datetime(2026, 8, 1, 15, 30, tzinfo=UTC)),
        (0, dt.datetime(1970, 1, 1, tzinfo=UTC)),
    ],
)
def test_parse_unix_timestamp(value: Any, expected: dt.datetime) -> None:
    """expiresAt reads Unix seconds (or milliseconds, or their text) as an aware UTC datetime."""
    parsed = _wire.parse_unix_timestamp(value)

    assert expected == parsed
    assert dt.timedelta(0) == parsed.utcoffset()


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (True, TypeError),
        (None, TypeError),
        ([], TypeError),
        (1e300, ValueError),
        (float("nan"), ValueError),
    ],
)
def test_parse_unix_timestamp_refuses(value: Any, error: type[Exception]) -> None:
    """Booleans, nulls and out-of-range numbers are not timestamps."""
    with pytest.raises(error):
        _wire.parse_unix_timestamp(value)


# --- writing -------------------------------------------------------------------------------


def test_unstructure_never_sends_nulls() -> None:
    """Absent optional fields are omitted, at every level, never sent as null."""
    assert {"numero": 1, "texto": "t", "lista": [{"quantidadeItens": 2}]} == _wire.unstructure(
        Sample(numero=1, texto="t", lista=[Inner(2)])
    )
    assert {"identificacao": "Mesa 1", "itens": [{}, {"descricao": "d"}]} == _wire.unstructure(
        smartpos.Comanda(
            "Mesa 1", itens=[smartpos.ItemComanda(), smartpos.ItemComanda(descricao="d")]
        )
    )


@pytest.mark.parametrize(
    ("comprovante", "expected"),
    [
        (smartpos.Comprovante(), {}),
        (smartpos.Comprovante(imprimir_cliente=True), {"imprimir": {"cliente": True}}),
        (smartpos.Comprovante(imprimir_loja=False), {"imprimir": {"loja": False}}),
        (smartpos.Comprovante(visualizar_loja=True), {"visualizar": {"loja": True}}),
        (
            smartpos.Comprovante(True, False, False, True),
            {
                "imprimir": {"cliente": True, "loja": False},
                "visualizar": {"cliente": False, "loja": True},
            },
        ),
    ],
)
def test_comprovante_nested_shape(
    comprovante: smartpos.Comprovante, expected: dict[str, Any]
) -> None:
    """Comprovante is written as the spec's nested imprimir/visualizar objects, False kept."""
    assert expected == _wire.unstructure(comprovante)


def test_pagamento_original_wire_names() -> None:
    """PagamentoOriginal is written with the spec's four camelCase keys."""
    assert {
        "codigoAutorizacao": "A",
        "numeroTransacao": "N",
        "dadosFinalizacao": "F",
        "tipoPagamento": "T",
    } == _wire.unstructure(smartpos.PagamentoOriginal("A", "N", "F", "T"))


def test_results_round_trip_without_raw_and_http() -> None:
    """Writing a result omits raw and http, giving back the wire keys."""
    acceptance = _wire.structure(ACCEPTANCE, smartpos.Acceptance)

    assert ACCEPTANCE == _wire.unstructure(acceptance)


@attrs.frozen
class WithObject:
    """A wire object with a free-form JSON object field (as UnknownEvent.dados)."""

    dados: Mapping[str, Any]
    ligado: bool = False


def test_free_form_object_field() -> None:
    """A Mapping[str, Any] field keeps the JSON object as received and refuses anything else."""
    dados = {"a": [1, {"b": None}]}

    value = _wire.structure({"dados": dados, "ligado": True}, WithObject)
    with pytest.raises(_wire.WireError) as info:
        _wire.structure({"dados": [], "ligado": True}, WithObject)

    assert dados is value.dados
    assert "$.dados: expected an object" == str(info.value)


@attrs.frozen
class Ambiguous:
    """A wire object with a union the converter does not support."""

    valor: int | str


def test_unsupported_union_is_a_programming_error() -> None:
    """A field typed as a union of two wire types is refused when its reader is built."""
    with pytest.raises(TypeError, match="unsupported union on the wire"):
        _wire.structure({"valor": 1}, Ambiguous)


@attrs.frozen(cache_hash=True)
class Hashed:
    """Cached hash: built through __init__ rather than slot setters."""

    numero: int


@attrs.frozen
class PostInit:
    """A post-init hook: built through __init__."""

    numero: int
    qualquer: Any | None = None

    def __attrs_post_init__(self) -> None:
        if self.numero == 13:
            raise ValueError("unlucky")


@attrs.frozen(kw_only=True)
class Validated:
    """A validator and keyword-only fields: built through __init__."""

    numero: int = attrs.field(validator=attrs.validators.gt(0))
    texto: str = "x"


@pytest.mark.parametrize(
    ("cls", "data", "expected"),
    [
        (Hashed, {"numero": 1}, Hashed(1)),
        (PostInit, {"numero": 2, "qualquer": [1]}, PostInit(2, [1])),
        (PostInit, {"numero": 2}, PostInit(2)),
        (Validated, {"numero": 3}, Validated(numero=3)),
        (Validated, {"numero": 3, "texto": "y"}, Validated(numero=3, texto="y")),
    ],
)
def test_classes_built_through_init(cls: type[Any], data: dict[str, Any], expected: Any) -> None:
    """Classes with hooks, validators, cached hashes or keyword-only fields are read correctly."""
    assert expected == _wire.structure(data, cls)


@pytest.mark.parametrize(
    ("cls", "data", "message"),
    [
        (PostInit, {"numero": 13}, "$: invalid value (unlucky)"),
        (Validated, {"numero": 0}, "$: invalid value ('numero' must be > 0: 0)"),
        (Hashed, {"numero": "1"}, "$.numero: expected an integer"),
    ],
)
def test_init_failures_are_wire_errors(cls: type[Any], data: dict[str, Any], message: str) -> None:
    """A validator or hook refusing a value is a WireError too, never a bare exception."""
    with pytest.raises(_wire.WireError) as info:
        _wire.structure(data, cls)

    assert message == str(info.value)


def test_detailed_reader_accepts_the_valid_parts() -> None:
    """When one key is wrong, the others (a bool, a list) are still read fine by the error path."""
    data = {"numero": "x", "texto": "t", "ligado": True, "lista": [{"quantidadeItens": 1}]}

    with pytest.raises(_wire.WireError) as info:
        _wire.structure(data, Sample)

    assert "$.numero: expected an integer" == str(info.value)


@attrs.frozen
class Child:
    """A nested object that keeps its raw JSON."""

    numero: int
    livre: Any = None
    raw: Mapping[str, Any] = attrs.field(factory=dict, eq=False)


@attrs.frozen
class Parent:
    """A list of raw-keeping children, a float, an Any and a field the wire never fills."""

    filhos: list[Child]
    fator: float = 0.0
    qualquer: Any | None = None
    opcional: bool | None = None
    calculado: int = attrs.field(init=False, default=7)

    def __attrs_post_init__(self) -> None:
        pass


def test_nested_raw_and_init_false_fields() -> None:
    """Children keep their own raw; an init=False field keeps its default."""
    data = {"filhos": [{"numero": 1, "livre": {"x": [1]}, "extra": True}], "fator": 1}

    parent = _wire.structure(data, Parent)

    assert (Parent([Child(1, {"x": [1]})], 1.0), 7) == (parent, parent.calculado)
    assert data["filhos"][0] is parent.filhos[0].raw


def test_error_path_reads_the_valid_parts_of_every_type() -> None:
    """The detailed reader goes past valid children, floats, Any and nulls to the wrong element."""
    data = {
        "filhos": [{"numero": 1}, {"numero": 2, "livre": "x"}, {"numero": "3"}],
        "fator": 2.5,
        "qualquer": [None],
        "opcional": None,
    }

    with pytest.raises(_wire.WireError) as info:
        _wire.structure(data, Parent)

    assert "$.filhos[2].numero: expected an integer" == str(info.value)


def test_comanda_items_read_as_a_tuple() -> None:
    """A variadic tuple field (Comanda.itens) reads from a JSON array."""
    comanda = _wire.structure(
        {"identificacao": "Mesa 1", "itens": [{"titulo": "a"}, {}]}, smartpos.Comanda
    )

    assert (smartpos.ItemComanda(titulo="a"), smartpos.ItemComanda()) == comanda.itens
