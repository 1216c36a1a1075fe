"""parse_event and parse_envelope: golden events, every field, every error, and fuzzing."""

from __future__ import annotations

import copy
import datetime as dt
import json
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import smartpos
from smartpos import webhooks
from smartpos.webhooks import (
    Autorizacao,
    DadosImpressao,
    DadosPagamento,
    DadosSmartposIdentificado,
    Envelope,
    ImpressaoConcluida,
    ImpressaoFalhou,
    InvalidEventError,
    PagamentoAprovado,
    PagamentoRecusado,
    ResultadoSmartPOS,
    SmartposIdentificado,
    UnknownEvent,
    parse_envelope,
    parse_event,
)
from smartpos.webhooks._events import MAX_DEPTH

FIXTURES = Path(__file__).parent / "fixtures"
UTC = dt.timezone.utc
KINDS: list[tuple[str, Any, type[Any]]] = [
    ("smartpos.identificado", SmartposIdentificado, DadosSmartposIdentificado),
    ("pagamento.aprovado", PagamentoAprovado, DadosPagamento),
    ("pagamento.recusado", PagamentoRecusado, DadosPagamento),
    ("impressao.concluida", ImpressaoConcluida, DadosImpressao),
    ("impressao.falhou", ImpressaoFalhou, DadosImpressao),
]

# Wire key -> attribute, written by hand from spec section 6 (never derived from the SDK's
# converter, so that a wrong wire name cannot be mirrored on both sides).
RESULTADO_KEYS = {
    "executado": "executado",
    "codigoStatus": "codigo_status",
    "mensagemOperador": "mensagem_operador",
}
AUTORIZACAO_KEYS = {
    "codigo": "codigo",
    "numeroTransacao": "numero_transacao",
    "dadosFinalizacao": "dados_finalizacao",
    "tipoPagamento": "tipo_pagamento",
}
DADOS_KEYS: dict[type[Any], dict[str, str]] = {
    DadosSmartposIdentificado: {
        "qrCodeId": "qr_code_id",
        "referencia": "referencia",
        "documentoCliente": "documento_cliente",
        "smartposId": "smartpos_id",
        "numeroSerieTerminal": "numero_serie_terminal",
        "adquirente": "adquirente",
    },
    DadosPagamento: {
        "referencia": "referencia",
        "documentoCliente": "documento_cliente",
        "status": "status",
        "valorCentavos": "valor_centavos",
        "valorFormatado": "valor_formatado",
        "formaPagamento": "forma_pagamento",
        "parcelas": "parcelas",
        "smartposId": "smartpos_id",
        "autorizacao": "autorizacao",
        "resultadoSmartPOS": "resultado_smartpos",
    },
    DadosImpressao: {
        "referencia": "referencia",
        "documentoCliente": "documento_cliente",
        "status": "status",
        "smartposId": "smartpos_id",
        "resultadoSmartPOS": "resultado_smartpos",
    },
}
SUB_KEYS = {"autorizacao": AUTORIZACAO_KEYS, "resultadoSmartPOS": RESULTADO_KEYS}
REQUIRED = {
    DadosSmartposIdentificado: {"qrCodeId", "referencia", "documentoCliente", "smartposId"},
    DadosPagamento: {"referencia", "documentoCliente", "status"},
    DadosImpressao: {"referencia", "documentoCliente", "status"},
}


def fixture(name: str) -> bytes:
    """The exact bytes of a golden event."""
    return (FIXTURES / f"{name}.json").read_bytes()


def fixture_json(name: str) -> dict[str, Any]:
    """A golden event as a fresh dict."""
    data: dict[str, Any] = json.loads(fixture(name))
    return data


def minimal(tipo: str = "pagamento.aprovado", **dados: Any) -> dict[str, Any]:
    """A valid event of ``tipo`` with only the required dados fields (plus ``dados``)."""
    base: dict[str, Any] = {"referencia": "r-1", "documentoCliente": "52998224725", "status": "s"}
    if tipo == "smartpos.identificado":
        base = {
            "qrCodeId": "qr",
            "referencia": "r-1",
            "documentoCliente": "52998224725",
            "smartposId": "SP-1",
        }
    base.update(dados)
    return {"id": "evt-1", "tipo": tipo, "criadoEm": "2026-05-04T13:45:12Z", "dados": base}


def body(data: Any) -> bytes:
    """JSON bytes of ``data``."""
    return json.dumps(data).encode()


def error_of(value: Any) -> str:
    """The message of the InvalidEventError that parse_event raises for ``value``."""
    with pytest.raises(InvalidEventError) as info:
        parse_event(value)
    return str(info.value)


# --- golden events --------------------------------------------------------------------------


@pytest.mark.parametrize(("tipo", "event_cls", "dados_cls"), KINDS)
def test_golden_event_fields_key_by_key(
    tipo: str, event_cls: type[Any], dados_cls: type[Any]
) -> None:
    """Every key of a golden event lands on the right typed attribute with the same value."""
    raw = fixture_json(tipo)
    event = parse_event(fixture(tipo))

    assert type(event) is event_cls
    assert tipo == event_cls.TIPO
    assert (event.id, event.tipo) == (raw["id"], raw["tipo"])
    assert type(event.dados) is dados_cls
    keys = DADOS_KEYS[dados_cls]
    assert set(raw["dados"]) == set(keys)  # the fixture carries every field of the spec
    for key, value in raw["dados"].items():
        actual = getattr(event.dados, keys[key])
        if key in SUB_KEYS:
            assert set(value) == set(SUB_KEYS[key])
            for sub_key, sub_value in value.items():
                assert getattr(actual, SUB_KEYS[key][sub_key]) == sub_value, (key, sub_key)
        else:
            assert actual == value, key


@pytest.mark.parametrize("dados_cls", list(DADOS_KEYS))
def test_every_dados_attribute_is_a_spec_field(dados_cls: type[Any]) -> None:
    """The typed dados classes have exactly the fields of spec section 6, nothing more."""
    assert {f.name for f in attrs.fields(dados_cls)} == set(DADOS_KEYS[dados_cls].values())


def test_sub_objects_have_exactly_the_spec_fields() -> None:
    """Autorizacao and ResultadoSmartPOS have exactly the spec's sub-fields."""
    assert {f.name for f in attrs.fields(Autorizacao)} == set(AUTORIZACAO_KEYS.values())
    assert {f.name for f in attrs.fields(ResultadoSmartPOS)} == set(RESULTADO_KEYS.values())


def test_golden_criado_em_values() -> None:
    """criadoEm of the golden events: Z, negative offset, +00:00, naive, fraction + offset."""
    expected = {
        "smartpos.identificado": dt.datetime(2026, 5, 4, 13, 40, 2, 118000, tzinfo=UTC),
        "pagamento.aprovado": dt.datetime(2026, 5, 4, 16, 45, 12, 345000, tzinfo=UTC),
        "pagamento.recusado": dt.datetime(2026, 5, 4, 13, 46, tzinfo=UTC),
        "impressao.concluida": dt.datetime(2026, 5, 4, 13, 47, 30, tzinfo=UTC),
        "impressao.falhou": dt.datetime(2026, 5, 4, 12, 18, 5, 500000, tzinfo=UTC),
    }
    for tipo, when in expected.items():
        criado_em = parse_event(fixture(tipo)).criado_em
        assert criado_em == when, tipo
        assert criado_em.tzinfo is not None, tipo


def test_offset_is_kept_not_converted() -> None:
    """A criadoEm with an offset keeps that offset (same instant, original wall time)."""
    event = parse_event(fixture("pagamento.aprovado"))
    assert event.criado_em.utcoffset() == dt.timedelta(hours=-3)
    assert event.criado_em.hour == 13


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-05-04T13:45:12Z", dt.datetime(2026, 5, 4, 13, 45, 12, tzinfo=UTC)),
        ("2026-05-04T13:45:12.123456Z", dt.datetime(2026, 5, 4, 13, 45, 12, 123456, tzinfo=UTC)),
        ("2026-05-04T10:45:12-03:00", dt.datetime(2026, 5, 4, 13, 45, 12, tzinfo=UTC)),
        ("2026-05-04T13:45:12", dt.datetime(2026, 5, 4, 13, 45, 12, tzinfo=UTC)),
        ("2026-05-04T13:45:12.5", dt.datetime(2026, 5, 4, 13, 45, 12, 500000, tzinfo=UTC)),
        ("20260504T134512Z", dt.datetime(2026, 5, 4, 13, 45, 12, tzinfo=UTC)),
    ],
)
def test_criado_em_forms(text: str, expected: dt.datetime) -> None:
    """Z, offsets, naive (read as UTC) and basic ISO 8601 forms all give aware datetimes."""
    event = parse_event({**minimal(), "criadoEm": text})
    assert event.criado_em == expected
    assert event.criado_em.utcoffset() is not None


def test_naive_criado_em_is_utc() -> None:
    """A criadoEm without an offset is read as UTC, not as local time."""
    event = parse_event({**minimal(), "criadoEm": "2026-05-04T13:45:12"})
    assert event.criado_em.tzinfo is UTC


# --- optional fields, raw, repr ------------------------------------------------------------


@pytest.mark.parametrize(("tipo", "event_cls", "dados_cls"), KINDS)
def test_optional_fields_absent_are_none(
    tipo: str, event_cls: type[Any], dados_cls: type[Any]
) -> None:
    """With only the required dados fields, every optional attribute is None."""
    event = parse_event(minimal(tipo))
    assert type(event) is event_cls
    for key, name in DADOS_KEYS[dados_cls].items():
        if key not in REQUIRED[dados_cls]:
            assert getattr(event.dados, name) is None, name


def test_optional_fields_null_are_none() -> None:
    """An optional field sent as JSON null reads as None."""
    event = parse_event(minimal(valorCentavos=None, autorizacao=None, resultadoSmartPOS=None))
    assert isinstance(event, PagamentoAprovado)
    assert event.dados.valor_centavos is None
    assert event.dados.autorizacao is None
    assert event.dados.resultado_smartpos is None


def test_empty_sub_objects_have_all_none_fields() -> None:
    """Empty autorizacao and resultadoSmartPOS objects give sub-objects of Nones."""
    event = parse_event(minimal(autorizacao={}, resultadoSmartPOS={}))
    assert isinstance(event, PagamentoAprovado)
    assert event.dados.autorizacao == Autorizacao()
    assert event.dados.resultado_smartpos == ResultadoSmartPOS()


def test_extra_keys_are_allowed_and_kept_in_raw() -> None:
    """Unknown keys anywhere are ignored by the typed fields and kept in raw."""
    data = minimal(novo={"x": 1}, autorizacao={"codigo": "A", "extra": [1]})
    data["versao"] = 2
    event = parse_event(data)
    assert isinstance(event, PagamentoAprovado)
    assert event.dados.autorizacao == Autorizacao(codigo="A")
    assert event.raw["versao"] == 2
    assert event.raw["dados"]["novo"] == {"x": 1}


def test_raw_is_the_parsed_json() -> None:
    """raw equals the JSON as received, for bytes, str and mapping input."""
    raw = fixture_json("pagamento.aprovado")
    assert parse_event(fixture("pagamento.aprovado")).raw == raw
    assert parse_event(fixture("pagamento.aprovado").decode()).raw == raw
    assert parse_event(raw).raw is raw


@pytest.mark.parametrize("wrap", [bytes, bytearray, memoryview, lambda b: b.decode()])
def test_input_kinds(wrap: Any) -> None:
    """bytes, bytearray, memoryview and str bodies parse the same."""
    expected = parse_event(fixture("smartpos.identificado"))
    assert parse_event(wrap(fixture("smartpos.identificado"))) == expected


def test_repr_masks_documento_and_hides_raw() -> None:
    """The repr masks the CPF/CNPJ (LGPD) and leaves raw out."""
    for tipo in ("pagamento.aprovado", "pagamento.recusado", "smartpos.identificado"):
        event = parse_event(fixture(tipo))
        text = repr(event)
        documento = fixture_json(tipo)["dados"]["documentoCliente"]
        assert documento not in text
        assert "raw=" not in text
    assert "529.***.***-25" in repr(parse_event(fixture("pagamento.aprovado")))
    assert "12.***.***/****-35" in repr(parse_event(fixture("pagamento.recusado")))


def test_unknown_event_repr_hides_dados() -> None:
    """An UnknownEvent's dados (which may hold a document) is not in its repr."""
    text = repr(parse_event(fixture("unknown")))
    assert "52998224725" not in text
    assert "x-teste.evento-futuro" in text


def test_equality_ignores_raw() -> None:
    """Two events with the same typed fields are equal even when raw differs."""
    one = parse_event(minimal())
    other = parse_event({**minimal(), "extra": True})
    assert one == other
    assert one.raw != other.raw


def test_events_are_frozen() -> None:
    """Events and their dados cannot be changed."""
    event = parse_event(fixture("pagamento.aprovado"))
    assert isinstance(event, PagamentoAprovado)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        event.id = "other"  # type: ignore[misc]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        event.dados.status = "x"  # type: ignore[misc]


def test_status_strings_stay_str() -> None:
    """Statuses the spec leaves open (refusals, print failures) are kept as given."""
    falhou = parse_event(fixture("impressao.falhou"))
    recusado = parse_event(minimal("pagamento.recusado", status="cancelado_operador"))
    assert isinstance(falhou, ImpressaoFalhou)
    assert isinstance(recusado, PagamentoRecusado)
    assert (falhou.dados.status, recusado.dados.status) == ("sem_papel", "cancelado_operador")


def test_events_can_be_built_by_hand() -> None:
    """An event class can be constructed directly (handler tests), raw defaulting to {}."""
    dados = DadosPagamento(referencia="r", documento_cliente="52998224725", status="aprovado")
    event = PagamentoAprovado("e", "pagamento.aprovado", dt.datetime(2026, 1, 1, tzinfo=UTC), dados)
    assert event.raw == {}
    assert event.dados.autorizacao is None


# --- unknown events -------------------------------------------------------------------------


def test_unknown_tipo_is_kept() -> None:
    """Any other tipo gives an UnknownEvent with the envelope typed and dados as received."""
    raw = fixture_json("unknown")
    event = parse_event(fixture("unknown"))
    assert type(event) is UnknownEvent
    assert event.tipo == "x-teste.evento-futuro"
    assert event.id == raw["id"]
    assert event.criado_em == dt.datetime(2026, 5, 4, 13, 49, tzinfo=UTC)
    assert event.dados == raw["dados"]
    assert event.raw == raw


def test_unknown_event_envelope_still_validated() -> None:
    """An UnknownEvent still needs string id/tipo, a date-time criadoEm and an object dados."""
    good = fixture_json("unknown")
    assert error_of({**good, "dados": [1]}) == "$.dados: expected an object"
    assert error_of({**good, "criadoEm": "ontem"}) == "$.criadoEm: expected an ISO 8601 date-time"
    assert error_of({**good, "id": 7}) == "$.id: expected a string"
    without = {k: v for k, v in good.items() if k != "dados"}
    assert error_of(without) == "$.dados: required field is missing"


def test_known_tipo_names_are_the_spec_names() -> None:
    """Each class's TIPO is the exact tipo of spec section 6."""
    assert [cls.TIPO for _, cls, _ in KINDS] == [tipo for tipo, _, _ in KINDS]
    assert UnknownEvent.TIPO is None


# --- errors ---------------------------------------------------------------------------------


def test_a_trailing_comma_is_invalid_json() -> None:
    """A trailing comma is refused as invalid JSON (the decoder's wording varies by Python)."""
    assert error_of(b'{"id": "a",}').startswith("$: invalid JSON: ")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (b"", "$: invalid JSON: Expecting value (line 1 column 1)"),
        (b"not json", "$: invalid JSON: Expecting value (line 1 column 1)"),
        (
            b'{"id": "a" "tipo": "x"}',
            "$: invalid JSON: Expecting ',' delimiter (line 1 column 12)",
        ),
        (b"{} x", "$: invalid JSON: Extra data (line 1 column 4)"),
        (b' \n{"a": 1} [', "$: invalid JSON: Extra data (line 2 column 10)"),
        (b"{}]", "$: invalid JSON: Extra data (line 1 column 3)"),
        (b"  ", "$: invalid JSON: Expecting value (line 1 column 3)"),
        (b" {}\r\n", "$.id: required field is missing"),
        (b"{}\t \n", "$.id: required field is missing"),
        (b"\xff\xfe{}", "$: invalid UTF-8 at byte 0"),
        (b'{"id": "\xc3"}', "$: invalid UTF-8 at byte 8"),
        (b"[]", "$: expected an object"),
        (b'"text"', "$: expected an object"),
        (b"null", "$: expected an object"),
        (b"42", "$: expected an object"),
        (b'{"a": NaN}', "$: invalid JSON: NaN is not valid JSON"),
        (b'{"a": -Infinity}', "$: invalid JSON: -Infinity is not valid JSON"),
        (b'{"a": 1e999}', "$: invalid JSON: number 1e999 is too large"),
        (b"[" * 100_000, f"$: nested deeper than {MAX_DEPTH} levels"),
        (b'{"a":' * 100_000, f"$: nested deeper than {MAX_DEPTH} levels"),
        (None, "$: expected a JSON object as bytes, str or a mapping"),
        (12, "$: expected a JSON object as bytes, str or a mapping"),
    ],
)
def test_bodies_that_are_not_events(value: Any, message: str) -> None:
    """Non-JSON, invalid UTF-8, non-objects, NaN/Infinity and absurd nesting: exact messages."""
    assert error_of(value) == message


def test_huge_integer_literal_is_an_invalid_event() -> None:
    """An integer literal too long to convert is refused, not a ValueError leak."""
    message = error_of(b'{"a": ' + b"9" * 10_000 + b"}")
    assert message.startswith("$: invalid JSON: ")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"id": None}, "$.id: expected a string"),
        ({"id": ""}, "$.id: expected a non-empty string"),
        ({"tipo": 5}, "$.tipo: expected a string"),
        ({"criadoEm": 1714830312}, "$.criadoEm: expected an ISO 8601 date-time string"),
        ({"criadoEm": "2026-13-45T99:00:00Z"}, "$.criadoEm: expected an ISO 8601 date-time"),
        ({"dados": "x"}, "$.dados: expected an object"),
    ],
)
def test_envelope_errors(change: dict[str, Any], message: str) -> None:
    """Wrong envelope fields are refused with their JSON path."""
    assert error_of({**minimal(), **change}) == message


@pytest.mark.parametrize("key", ["id", "tipo", "criadoEm", "dados"])
def test_missing_envelope_field(key: str) -> None:
    """Each envelope field of spec 2.9 is required."""
    data = minimal()
    del data[key]
    assert error_of(data) == f"$.{key}: required field is missing"


@pytest.mark.parametrize(
    ("dados", "message"),
    [
        ({"valorCentavos": "15990"}, "$.dados.valorCentavos: expected an integer"),
        ({"valorCentavos": 159.9}, "$.dados.valorCentavos: expected an integer"),
        ({"valorCentavos": True}, "$.dados.valorCentavos: expected an integer"),
        ({"parcelas": 3.0}, "$.dados.parcelas: expected an integer"),
        ({"status": None}, "$.dados.status: expected a string"),
        ({"documentoCliente": 52998224725}, "$.dados.documentoCliente: expected a string"),
        ({"autorizacao": []}, "$.dados.autorizacao: expected an object"),
        ({"autorizacao": {"codigo": 1}}, "$.dados.autorizacao.codigo: expected a string"),
        (
            {"resultadoSmartPOS": {"executado": "true"}},
            "$.dados.resultadoSmartPOS.executado: expected a boolean",
        ),
        (
            {"resultadoSmartPOS": {"executado": 1}},
            "$.dados.resultadoSmartPOS.executado: expected a boolean",
        ),
    ],
)
def test_wrong_types_of_known_fields(dados: dict[str, Any], message: str) -> None:
    """A known field of the wrong type names its JSON path; no coercion happens."""
    assert error_of(body(minimal(**dados))) == message


def test_missing_required_dados_field() -> None:
    """A required dados field that is absent names its path."""
    data = minimal("smartpos.identificado")
    del data["dados"]["smartposId"]
    assert error_of(data) == "$.dados.smartposId: required field is missing"


def test_invalid_event_error_is_smartpos_and_value_error() -> None:
    """InvalidEventError is a SmartPOSError and a ValueError, with path and problem, picklable."""
    with pytest.raises(InvalidEventError) as info:
        parse_event(minimal(valorCentavos="1"))
    exc = info.value
    assert isinstance(exc, smartpos.SmartPOSError)
    assert isinstance(exc, ValueError)
    assert (exc.path, exc.problem) == ("$.dados.valorCentavos", "expected an integer")
    again = pickle.loads(pickle.dumps(exc))
    assert (type(again), str(again)) == (InvalidEventError, str(exc))


def test_error_message_holds_no_document() -> None:
    """Error messages name paths and problems, never the values (documents stay out)."""
    message = error_of(minimal(documentoCliente=["52998224725"]))
    assert "52998224725" not in message


def test_nesting_up_to_the_limit_is_accepted() -> None:
    """An extra key nested MAX_DEPTH - 1 levels inside the event is accepted."""
    inner: Any = 1
    for _ in range(MAX_DEPTH - 1):
        inner = [inner]
    event = parse_event(body({**minimal(), "extra": inner}))
    assert event.raw["extra"] == inner
    too_deep = body({**minimal(), "extra": [inner]})
    assert error_of(too_deep) == f"$: nested deeper than {MAX_DEPTH} levels"


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    """Many brackets inside strings, or many shallow arrays, are not nesting."""
    event = parse_event(body({**minimal(), "s": "[{" * 500, "many": [[1]] * 500}))
    assert len(event.raw["many"]) == 500


# --- parse_envelope -------------------------------------------------------------------------


def test_envelope_of_a_valid_event() -> None:
    """parse_envelope reads id, tipo, criado_em and keeps raw."""
    envelope = parse_envelope(fixture("pagamento.aprovado"))
    assert envelope == Envelope(
        "evt_01J0PAGAMENTOAPROV0001",
        "pagamento.aprovado",
        dt.datetime(2026, 5, 4, 16, 45, 12, 345000, tzinfo=UTC),
        {},
    )
    assert envelope.raw == fixture_json("pagamento.aprovado")


@pytest.mark.parametrize(
    "change",
    [
        {"criadoEm": "ontem"},
        {"criadoEm": None},
        {"dados": "not an object"},
        {"dados": {"valorCentavos": "x"}},
    ],
)
def test_envelope_is_lenient_about_the_rest(change: dict[str, Any]) -> None:
    """A bad criadoEm gives criado_em None; a bad dados is not the envelope's business."""
    data = {**minimal(), **change}
    envelope = parse_envelope(data)
    assert (envelope.id, envelope.tipo) == ("evt-1", "pagamento.aprovado")
    if "criadoEm" in change:
        assert envelope.criado_em is None
    with pytest.raises(InvalidEventError):
        parse_event(data)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (b"[]", "$: expected an object"),
        (b"{}", "$.id: required field is missing"),
        (b'{"id": 1, "tipo": "x"}', "$.id: expected a string"),
        (b'{"id": "a"}', "$.tipo: required field is missing"),
        (b'{"id": "a", "tipo": ""}', "$.tipo: expected a non-empty string"),
        (
            b"{",
            "$: invalid JSON: Expecting property name enclosed in double quotes (line 1 column 2)",
        ),
    ],
)
def test_envelope_refuses_what_cannot_be_an_event(value: bytes, message: str) -> None:
    """No object or no non-empty string id and tipo: refused with the path."""
    with pytest.raises(InvalidEventError) as info:
        parse_envelope(value)
    assert str(info.value) == message


# --- fuzzing --------------------------------------------------------------------------------


def _json_containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    # A named function: Hypothesis inspects extend's source to check that it recurses, and a
    # multi-line lambda's source is not always found (a spurious deprecation warning).
    return st.lists(children, max_size=4) | st.dictionaries(
        st.text(max_size=8), children, max_size=4
    )


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    _json_containers,
    max_leaves=20,
)

EVENT_CLASSES = (
    SmartposIdentificado,
    PagamentoAprovado,
    PagamentoRecusado,
    ImpressaoConcluida,
    ImpressaoFalhou,
    UnknownEvent,
)


def outcome(value: Any) -> Any:
    """parse_event's result, or the InvalidEventError; anything else fails the test."""
    try:
        result: Any = parse_event(value)
    except InvalidEventError as exc:
        result = exc
    if isinstance(result, InvalidEventError):
        assert str(result).startswith("$")
    else:
        assert isinstance(result, EVENT_CLASSES)
        assert result.criado_em.tzinfo is not None
    return result


FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.binary(max_size=300))
def test_fuzz_arbitrary_bytes(data: bytes) -> None:
    """Arbitrary bytes give an event or InvalidEventError, nothing else."""
    outcome(data)


@FUZZ
@given(json_values)
def test_fuzz_arbitrary_json_values(value: Any) -> None:
    """Any JSON value, as bytes, as str and as a parsed value, gives only the two outcomes."""
    text = json.dumps(value)
    outcome(text.encode())
    outcome(text)
    outcome(value)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*path, index))
    return found


@st.composite
def mutated_events(draw: st.DrawFn) -> Any:
    """A golden event with one value replaced, one key deleted, or one key added."""
    name = draw(st.sampled_from([tipo for tipo, _, _ in KINDS] + ["unknown"]))
    data = copy.deepcopy(fixture_json(name))
    path = draw(st.sampled_from(_paths(data)))
    action = draw(st.sampled_from(["replace", "delete", "add"]))
    if not path:
        return draw(json_values) if action == "replace" else data
    parent = data
    for step in path[:-1]:
        parent = parent[step]
    if action == "replace":
        parent[path[-1]] = draw(json_values)
    elif action == "delete" and isinstance(parent, dict):
        del parent[path[-1]]
    elif isinstance(parent, dict):
        parent[draw(st.text(max_size=12))] = draw(json_values)
    if draw(st.booleans()):
        data["tipo"] = draw(st.sampled_from([tipo for tipo, _, _ in KINDS] + ["x", ""]))
    return data


@FUZZ
@given(mutated_events())
def test_fuzz_mutated_valid_events(data: Any) -> None:
    """Golden events with a mutation give an event or InvalidEventError, in every input form."""
    result = outcome(data)
    assert type(outcome(json.dumps(data).encode())) is type(result)


@FUZZ
@given(mutated_events(), st.integers(min_value=0, max_value=400), st.binary(max_size=4))
def test_fuzz_byte_level_mutations(data: Any, position: int, noise: bytes) -> None:
    """Golden event bytes with bytes spliced in give only the two outcomes."""
    raw = json.dumps(data).encode()
    position %= len(raw) + 1
    outcome(raw[:position] + noise + raw[position + len(noise) :])


def test_import_needs_no_optional_backend() -> None:
    """import smartpos.webhooks loads neither redis nor psycopg; RedisStore loads on use."""
    code = (
        "import sys, smartpos.webhooks as w\n"
        "assert 'redis' not in sys.modules and 'psycopg' not in sys.modules\n"
        "assert 'RedisStore' in dir(w) and 'PostgresStore' in w.__all__\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_unknown_attribute_is_an_attribute_error() -> None:
    """A name the package does not have raises AttributeError, as for any module."""
    with pytest.raises(AttributeError, match="NoSuchStore"):
        webhooks.NoSuchStore  # noqa: B018


def test_exported_names() -> None:
    """smartpos.webhooks exports exactly its documented names, all importable."""
    for name in webhooks.__all__:
        if name not in ("RedisStore", "PostgresStore"):
            assert getattr(webhooks, name) is not None, name
    assert sorted(webhooks.__all__) == webhooks.__dir__()
    assert {"parse_event", "parse_envelope", "Event", "Envelope", "WebhookReceiver"} <= set(
        webhooks.__all__
    )
