"""Money helpers: reais in every form users hold them to centavos, exactly, and back."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

import smartpos
from smartpos import ValidationError, format_reais, to_centavos, to_reais

CENTAVOS = st.integers(min_value=0, max_value=10**17)
SIGNED = st.integers(min_value=-(10**17), max_value=10**17)


@pytest.mark.parametrize(
    ("valor", "expected"),
    [
        ("19,90", 1990),
        ("19,9", 1990),
        ("0,01", 1),
        ("19", 1900),
        ("1234", 123400),
        ("R$ 1.234,56", 123456),
        ("R$1.234,56", 123456),
        ("R$\u00a01.234,56", 123456),  # what locale formatting writes
        ("  r$ 19,90 ", 1990),
        ("1.234.567,89", 123456789),
        ("1.234.567", 123456700),  # two groups: only thousands separators
        ("19.90", 1990),  # str(Decimal): a decimal point
        ("19.9", 1990),
        ("1234.5", 123450),
        (Decimal("19.90"), 1990),
        (Decimal("19.900"), 1990),  # a Decimal's trailing zeros are exact
        (Decimal("1E+2"), 10000),
        (Decimal("0"), 0),
        (19, 1900),
        (0, 0),
    ],
)
def test_to_centavos_reads_every_form_exactly(valor: str | Decimal | int, expected: int) -> None:
    """Brazilian strings, R$ amounts, decimal-point strings, Decimals and whole reais."""
    assert expected == to_centavos(valor)


@pytest.mark.parametrize(
    ("valor", "expected"),
    [("-19,90", -1990), ("-R$ 19,90", -1990), ("R$ -19,90", -1990), (Decimal("-0.05"), -5)],
)
def test_negative_amounts_only_when_allowed(valor: str | Decimal, expected: int) -> None:
    """A negative amount is refused by default and read with allow_negative=True."""
    assert expected == to_centavos(valor, allow_negative=True)
    with pytest.raises(ValidationError, match=r"is negative; .*allow_negative=True"):
        to_centavos(valor)


@pytest.mark.parametrize(
    ("valor", "message"),
    [
        (19.9, "is a float, which cannot hold most amounts exactly"),
        (True, "is a bool, not an amount"),
        (None, "NoneType is not an amount"),
        ("19,901", "has more than 2 decimal places; centavos are whole: round it first"),
        ("19,900", "has more than 2 decimal places"),  # 19.9 in Brazil, 19900 in English
        ("19.9999", "has more than 2 decimal places"),
        ("19.999", "is ambiguous"),
        (Decimal("19.999"), "has more than 2 decimal places"),
        ("1.234", "is ambiguous: write '1.234,00'"),
        ("abc", "is not an amount in reais; pass a str such as '19,90'"),
        ("", "holds no amount"),
        ("R$", "holds no amount"),
        ("19,", "is not an amount in reais"),
        ("1,2,3", "is not an amount in reais"),
        ("12.34.56", "is not an amount in reais"),
        ("1E5", "is not an amount in reais"),
        ("\uff11\uff19", "is not an amount in reais"),  # full-width digits
        (Decimal("NaN"), "is not a finite amount"),
        (Decimal("Infinity"), "is not a finite amount"),
        (Decimal("1E+30"), "is too large"),
        (10**30, "is too large"),
    ],
)
def test_to_centavos_refuses_with_what_to_do(valor: object, message: str) -> None:
    """Floats, extra decimals, ambiguity and garbage: a ValidationError that says what to do."""
    with pytest.raises(ValidationError) as info:
        to_centavos(valor)  # type: ignore[arg-type]

    assert message in str(info.value)
    assert ("VALOR_INVALIDO", "valorCentavos") == (info.value.codigo, info.value.campo)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("centavos", "expected"),
    [
        (1990, "R$ 19,90"),
        (123456, "R$ 1.234,56"),
        (5, "R$ 0,05"),
        (0, "R$ 0,00"),
        (100000000, "R$ 1.000.000,00"),
        (-1990, "-R$ 19,90"),
    ],
)
def test_format_reais(centavos: int, expected: str) -> None:
    """Centavos are written with R$, dots for thousands and a comma before the centavos."""
    assert expected == format_reais(centavos)
    assert expected.replace("R$ ", "") == format_reais(centavos, symbol=False)


@pytest.mark.parametrize("valor", [19.9, True, "1990", Decimal("19.90")])
def test_format_reais_and_to_reais_take_only_ints(valor: object) -> None:
    """Formatting a non-int is a TypeError that points at to_centavos."""
    for function in (format_reais, to_reais):
        with pytest.raises(TypeError, match=r"must be an int of centavos.*to_centavos"):
            function(valor)  # type: ignore[arg-type]


def test_to_reais() -> None:
    """Centavos become a two-place Decimal of reais."""
    assert (Decimal("19.90"), "19.90") == (to_reais(1990), str(to_reais(1990)))
    assert Decimal("-0.05") == to_reais(-5)


def test_exported_from_smartpos() -> None:
    """The helpers are public names of the package."""
    assert {"to_centavos", "to_reais", "format_reais"} <= set(smartpos.__all__)


@given(CENTAVOS)
def test_round_trip_through_format_reais(centavos: int) -> None:
    """Every string format_reais writes reads back to the same centavos, with or without R$."""
    assert centavos == to_centavos(format_reais(centavos))
    assert centavos == to_centavos(format_reais(centavos, symbol=False))


@given(SIGNED)
def test_round_trip_signed(centavos: int) -> None:
    """Negative amounts round-trip too when allowed."""
    assert centavos == to_centavos(format_reais(centavos), allow_negative=True)
    assert centavos == to_centavos(to_reais(centavos), allow_negative=True)


@given(CENTAVOS)
def test_round_trip_through_decimal_and_its_str(centavos: int) -> None:
    """to_reais gives a Decimal, and its str (a decimal point), that read back exactly."""
    reais = to_reais(centavos)
    assert centavos == to_centavos(reais)
    assert centavos == to_centavos(str(reais))


@given(st.integers(min_value=0, max_value=10**12), st.integers(min_value=0, max_value=99))
def test_brazilian_strings_built_by_hand(reais: int, centavos: int) -> None:
    """'<reais>,<cc>' with and without thousands dots gives reais * 100 + cc."""
    grouped = f"{reais:,}".replace(",", ".")
    expected = reais * 100 + centavos
    assert expected == to_centavos(f"{reais},{centavos:02d}")
    assert expected == to_centavos(f"R$ {grouped},{centavos:02d}")


@given(st.decimals(allow_nan=False, allow_infinity=False, places=3, max_value=10**9, min_value=0))
def test_decimals_with_a_third_place_are_refused_unless_zero(value: Decimal) -> None:
    """A Decimal is accepted exactly when it is a whole number of centavos."""
    whole = value == value.quantize(Decimal("0.01"))
    if whole:
        assert int(value * 100) == to_centavos(value)
    else:
        with pytest.raises(ValidationError, match="more than 2 decimal places"):
            to_centavos(value)


@given(st.text(max_size=30))
def test_any_text_is_an_amount_or_a_validation_error(text: str) -> None:
    """Arbitrary text never raises anything but ValidationError, and never gives a float."""
    try:
        result = to_centavos(text, allow_negative=True)
    except ValidationError:
        return
    assert type(result) is int
