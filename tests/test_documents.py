"""CPF and CNPJ (numeric and alphanumeric) validation, normalization and masking.

python-stdnum is the oracle of a differential test. Our validator is deliberately stricter: it
also refuses documents made of one repeated character (``111.111.111-11`` passes the check
digit arithmetic, and stdnum accepts it), and it is ASCII-only. The relation asserted on ASCII
input is therefore exactly::

    is_valid_documento(s)  ==  stdnum_valid(s) and not repeated(compact(s))
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st
from stdnum.br import cnpj as stdnum_cnpj
from stdnum.br import cpf as stdnum_cpf

from smartpos import is_valid_documento, mask_documento, normalize_documento

DIGITS = "0123456789"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def cpf_check_digits(body: str) -> str:
    """The two check digits of a 9-digit CPF body (mod 11, weights 10..2 then 11..2)."""
    values = [int(c) for c in body]
    d1 = (11 - sum(v * w for v, w in zip(values, range(10, 1, -1), strict=True)) % 11) % 11 % 10
    d2 = (
        (11 - sum(v * w for v, w in zip([*values, d1], range(11, 1, -1), strict=True)) % 11)
        % 11
        % 10
    )
    return f"{d1}{d2}"


def cnpj_check_digits(body: str) -> str:
    """The two check digits of a 12-character CNPJ body; a character is worth ASCII - 48."""
    values = [ord(c) - 48 for c in body.upper()]
    w1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]
    d1 = (11 - sum(v * w for v, w in zip(values, w1, strict=True)) % 11) % 11 % 10
    d2 = (11 - sum(v * w for v, w in zip([*values, d1], [6, *w1], strict=True)) % 11) % 11 % 10
    return f"{d1}{d2}"


def mask_cpf(doc: str) -> str:
    return f"{doc[:3]}.{doc[3:6]}.{doc[6:9]}-{doc[9:]}"


def mask_cnpj(doc: str) -> str:
    return f"{doc[:2]}.{doc[2:5]}.{doc[5:8]}/{doc[8:12]}-{doc[12:]}"


def repeated(doc: str) -> bool:
    return len(set(doc)) == 1


def compact(value: str) -> str:
    return value.replace(".", "").replace("-", "").replace("/", "").replace(" ", "").upper()


def stdnum_valid(value: str) -> bool:
    return bool(stdnum_cpf.is_valid(value) or stdnum_cnpj.is_valid(value))


cpf_bodies = st.text(alphabet=DIGITS, min_size=9, max_size=9)
cnpj_bodies = st.text(alphabet=DIGITS + UPPER + UPPER.lower(), min_size=12, max_size=12)
numeric_cnpj_bodies = st.text(alphabet=DIGITS, min_size=12, max_size=12)


@st.composite
def valid_cpfs(draw: st.DrawFn) -> str:
    body = draw(cpf_bodies)
    doc = body + cpf_check_digits(body)
    assume(not repeated(doc))
    return doc


@st.composite
def valid_cnpjs(draw: st.DrawFn) -> str:
    body = draw(st.one_of(cnpj_bodies, numeric_cnpj_bodies))
    doc = body + cnpj_check_digits(body)
    assume(not repeated(doc.upper()))
    return doc


@st.composite
def maybe_masked(draw: st.DrawFn, documents: st.SearchStrategy[str]) -> str:
    doc = draw(documents)
    if draw(st.booleans()):
        return mask_cpf(doc) if len(doc) == 11 else mask_cnpj(doc)
    return doc


# --- examples ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "normalized"),
    [
        ("123.456.789-09", "12345678909"),
        ("12345678909", "12345678909"),
        ("529.982.247-25", "52998224725"),
        ("11.222.333/0001-81", "11222333000181"),
        ("12.ABC.345/01DE-35", "12ABC34501DE35"),
        ("12.abc.345/01de-35", "12ABC34501DE35"),
        ("12aBc34501dE35", "12ABC34501DE35"),
        (" 123 456 789 09 ", "12345678909"),
    ],
)
def test_valid_documents(value: str, normalized: str) -> None:
    """Valid CPFs and CNPJs, masked or not, normalize to digits and upper-case letters."""
    assert normalized == normalize_documento(value)
    assert is_valid_documento(value) is True


@pytest.mark.parametrize(
    "value",
    [
        "111.111.111-11",
        "00000000000",
        "99999999999",
        "11111111111111",
        "AAAAAAAAAAAAAA",
        "123.456.789-00",
        "11.222.333/0001-80",
        "12.ABC.345/01DE-53",
        "12ABC34501DEA5",
        "١٢٣٤٥٦٧٨٩٠٩",  # Arabic-Indic digits
        "１２３４５６７８９０９",  # fullwidth digits
        "१२३४५६७८९०९",  # Devanagari digits
        "12ÁBC34501DE35",
        "",
        "123",
        "1234567890123456",
        "123_456_789_09",
        "12345678909\n",
    ],
)
def test_invalid_documents(value: str) -> None:
    """Wrong check digits, repeated characters, non-ASCII digits and odd sizes are refused."""
    assert normalize_documento(value) is None
    assert is_valid_documento(value) is False


@pytest.mark.parametrize("value", [None, 12345678909, b"12345678909", ["12345678909"]])
def test_non_strings_are_refused(value: object) -> None:
    """Anything but a str is not a document."""
    assert normalize_documento(value) is None  # type: ignore[arg-type]


def test_stdnum_accepts_repeated_digits_that_we_refuse() -> None:
    """The one documented difference with the oracle: repeated-digit documents."""
    assert (True, False) == (
        stdnum_cpf.is_valid("111.111.111-11"),
        is_valid_documento("111.111.111-11"),
    )


def test_stdnum_supports_the_alphanumeric_cnpj() -> None:
    """The installed python-stdnum knows the alphanumeric CNPJ (the differential test uses it)."""
    assert stdnum_cnpj.is_valid("12.ABC.345/01DE-35") is True


@pytest.mark.parametrize(
    ("value", "masked"),
    [
        ("52998224725", "529.***.***-25"),
        ("529.982.247-25", "529.***.***-25"),
        ("12ABC34501DE35", "12.***.***/****-35"),
        ("12.abc.345/01de-35", "12.***.***/****-35"),
        ("123", "***"),
        ("", "***"),
        (None, "***"),
        (52998224725, "***"),
    ],
)
def test_mask_documento(value: object, masked: str) -> None:
    """mask_documento keeps the first 3 (CPF) or 2 (CNPJ) and the last 2 characters only."""
    assert masked == mask_documento(value)


# --- properties ----------------------------------------------------------------------------


@given(maybe_masked(valid_cpfs()))
def test_generated_valid_cpfs_are_accepted(value: str) -> None:
    """Every CPF with correct check digits (not repeated) is accepted, masked or not."""
    assert compact(value) == normalize_documento(value)


@given(maybe_masked(valid_cnpjs()))
def test_generated_valid_cnpjs_are_accepted(value: str) -> None:
    """Every CNPJ with correct check digits, numeric or alphanumeric, any case, is accepted."""
    assert compact(value) == normalize_documento(value)


@given(st.one_of(valid_cpfs(), valid_cnpjs()), st.data())
def test_any_wrong_check_digit_is_refused(doc: str, data: st.DataObject) -> None:
    """Changing one check digit of a valid document makes it invalid."""
    position = data.draw(st.sampled_from([len(doc) - 2, len(doc) - 1]))
    wrong = data.draw(st.sampled_from([d for d in DIGITS if d != doc[position]]))

    assert normalize_documento(doc[:position] + wrong + doc[position + 1 :]) is None


ascii_candidates = st.one_of(
    st.text(alphabet=DIGITS, min_size=11, max_size=11),
    st.text(alphabet=DIGITS, min_size=14, max_size=14),
    st.builds(
        lambda body, check: body + check, cnpj_bodies, st.text(DIGITS, min_size=2, max_size=2)
    ),
    maybe_masked(valid_cpfs()),
    maybe_masked(valid_cnpjs()),
    st.sampled_from(DIGITS).map(lambda d: d * 11),
    st.sampled_from(DIGITS + UPPER).map(lambda d: d * 14),
    st.text(alphabet=DIGITS + "ABCXYZabcxyz.-/ _", max_size=20),
)


@given(ascii_candidates)
@example("111.111.111-11")
@example("00000000000000")
@example("12.ABC.345/01DE-35")
def test_differential_against_stdnum(value: str) -> None:
    """On ASCII input we accept exactly what python-stdnum accepts, minus repeated characters."""
    expected = stdnum_valid(value) and not repeated(compact(value))

    assert expected == is_valid_documento(value)


@given(st.one_of(valid_cpfs(), valid_cnpjs()), st.data())
def test_non_ascii_is_always_refused(doc: str, data: st.DataObject) -> None:
    """A valid document with any non-ASCII character inserted or substituted is refused."""
    char = data.draw(st.characters(min_codepoint=128, exclude_categories=["Cs"]))
    position = data.draw(st.integers(min_value=0, max_value=len(doc)))
    replace = data.draw(st.booleans())
    value = doc[:position] + char + doc[position + int(replace) :]

    assert normalize_documento(value) is None


@given(st.one_of(valid_cpfs(), valid_cnpjs()))
def test_mask_never_shows_the_middle(doc: str) -> None:
    """A masked document shows only its first 2-3 and last 2 characters."""
    masked = mask_documento(doc)
    keep = 3 if len(doc) == 11 else 2

    assert doc.upper()[:keep] == masked[:keep]
    assert doc[-2:] == masked[-2:]
    assert sum(c.isalnum() for c in masked) == keep + 2
