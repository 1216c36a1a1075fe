"""The sandbox's own CPF/CNPJ check digits, checked against python-stdnum."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from stdnum.br import cnpj as stdnum_cnpj
from stdnum.br import cpf as stdnum_cpf

from smartpos.testing._documents import is_valid_documento, mask_documento, normalize_documento


@pytest.mark.parametrize(
    ("value", "normalized"),
    [
        ("52998224725", "52998224725"),
        ("529.982.247-25", "52998224725"),
        ("123.456.789-09", "12345678909"),
        ("12ABC34501DE35", "12ABC34501DE35"),
        ("12.ABC.345/01DE-35", "12ABC34501DE35"),
        ("12.abc.345/01de-35", "12ABC34501DE35"),
        ("11.222.333/0001-81", "11222333000181"),
        (" 529 982 247 25 ", "52998224725"),
    ],
)
def test_valid_documents_are_normalized(value: str, normalized: str) -> None:
    """Valid CPFs and CNPJs (alphanumeric, masked) normalize to digits and upper-case letters."""
    assert normalize_documento(value) == normalized


@pytest.mark.parametrize(
    "value",
    [
        "52998224724",
        "11111111111",
        "00000000000000",
        "AAAAAAAAAAAAAA",
        "12ABC34501DE36",
        "12ABC34501DEA5",
        "1234567890",
        "",
        "529_982_247_25",
        "5299822472５",
    ],
)
def test_invalid_documents_are_refused(value: str) -> None:
    """Wrong check digits, repeated characters, bad lengths and odd characters are invalid."""
    assert not is_valid_documento(value)


@given(st.from_regex(r"[0-9]{11}", fullmatch=True))
def test_cpf_agrees_with_stdnum(value: str) -> None:
    """For any 11 digits not all equal, the CPF check agrees with python-stdnum."""
    expected = stdnum_cpf.is_valid(value) and len(set(value)) > 1
    assert is_valid_documento(value) == expected


@given(st.from_regex(r"[0-9A-Z]{12}[0-9]{2}", fullmatch=True))
def test_cnpj_agrees_with_stdnum(value: str) -> None:
    """For any 14-character CNPJ shape, the check agrees with python-stdnum."""
    expected = stdnum_cnpj.is_valid(value) and len(set(value)) > 1
    assert is_valid_documento(value) == expected


@given(st.from_regex(r"[0-9]{9}", fullmatch=True))
def test_cpf_check_digits_agree_with_stdnum_for_every_suffix(body: str) -> None:
    """For 9 digits, the 100 possible check-digit pairs are judged as python-stdnum does."""
    for suffix in range(100):
        value = f"{body}{suffix:02d}"
        expected = stdnum_cpf.is_valid(value) and len(set(value)) > 1
        assert is_valid_documento(value) == expected, value


@given(st.from_regex(r"[0-9A-Z]{12}", fullmatch=True))
def test_cnpj_check_digits_agree_with_stdnum_for_every_suffix(body: str) -> None:
    """For 12 characters, the 100 possible check-digit pairs are judged as python-stdnum does."""
    for suffix in range(100):
        value = f"{body}{suffix:02d}"
        expected = stdnum_cnpj.is_valid(value) and len(set(value)) > 1
        assert is_valid_documento(value) == expected, value


@pytest.mark.parametrize(
    ("value", "masked"),
    [
        ("52998224725", "529.***.***-25"),
        ("529.982.247-25", "529.***.***-25"),
        ("12ABC34501DE35", "12A.***.***/****-35"),
        ("oops", "***"),
    ],
)
def test_mask(value: str, masked: str) -> None:
    """Masking keeps only the first 3 and last 2 characters."""
    assert mask_documento(value) == masked
