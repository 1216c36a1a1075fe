"""The referencia rule (spec 2.6): a UUID from the first character, an optional -suffix."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

import smartpos
from smartpos import is_valid_referencia, new_referencia

SUFFIX_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-"
suffixes = st.text(alphabet=SUFFIX_ALPHABET, min_size=1, max_size=40)
REF = "3f1c2b7e-9a4d-4c8e-b1f2-6d7e8f9a0b1c"


def test_new_referencia_is_a_uuid4() -> None:
    """new_referencia() is the canonical text of a random (version 4) UUID."""
    value = new_referencia()

    parsed = uuid.UUID(value)
    assert (str(parsed), 4, uuid.RFC_4122) == (value, parsed.version, parsed.variant)
    assert is_valid_referencia(value) is True


def test_first_ten_characters_vary() -> None:
    """The first 10 characters (all that some acquirers read) differ between referencias."""
    prefixes = {new_referencia()[:10] for _ in range(1000)}

    # 36 random bits: a collision among 1000 values has a probability below 1e-5.
    assert 1000 == len(prefixes)


@given(suffixes)
def test_suffix_round_trip(suffix: str) -> None:
    """new_referencia(suffix) is <uuid4>-<suffix>, valid, with the suffix intact."""
    value = new_referencia(suffix)

    assert (value[:36], "-", suffix) == (str(uuid.UUID(value[:36])), value[36], value[37:])
    assert 4 == uuid.UUID(value[:36]).version
    assert is_valid_referencia(value) is True


@pytest.mark.parametrize("suffix", ["", "pedido 42", "ação", "a/b", "x\n", "#1"])
def test_invalid_suffix_is_refused(suffix: str) -> None:
    """A suffix that is empty or has other characters raises ValidationError (a ValueError)."""
    with pytest.raises(smartpos.ValidationError) as info:
        new_referencia(suffix)

    assert ("CAMPO_INVALIDO", "referencia") == (info.value.codigo, info.value.campo)
    assert isinstance(info.value, ValueError)


def test_non_str_suffix_is_refused() -> None:
    """A suffix that is not a str raises ValidationError."""
    with pytest.raises(smartpos.ValidationError):
        new_referencia(42)  # type: ignore[arg-type]


@given(st.one_of(st.uuids(version=4), st.uuids(version=5)), st.one_of(st.none(), suffixes))
def test_any_uuid_first_value_is_valid(value: uuid.UUID, suffix: str | None) -> None:
    """Any UUID version 4 or 5 in canonical form, any case, optionally -suffix, is valid."""
    text = str(value) if suffix is None else f"{value}-{suffix}"

    assert is_valid_referencia(text) is True
    assert is_valid_referencia(text.upper()) is True


@given(
    st.text(min_size=1, max_size=27), st.uuids(), st.one_of(st.just(""), suffixes.map("-".__add__))
)
def test_prefix_before_the_uuid_is_refused(prefix: str, value: uuid.UUID, suffix: str) -> None:
    """Anything before the UUID (up to 27 characters, so the UUID cannot realign) is refused."""
    assert is_valid_referencia(f"{prefix}{value}{suffix}") is False


@pytest.mark.parametrize(
    "value",
    [
        "PEDIDO-42",
        "42",
        "",
        "PED-" + REF,
        " " + REF,
        REF + " ",
        REF + "-",
        REF + "abc",
        REF.replace("-", ""),
        "{" + REF + "}",
        "urn:uuid:" + REF,
        REF[:35],
        REF[:7] + REF[8:],  # one hex digit lost before the first dash
        "g" + REF[1:],
        None,
        42,
        uuid.UUID(REF),
    ],
)
def test_not_uuid_first_values_are_refused(value: object) -> None:
    """Counters, prefixes, other UUID spellings, and non-strings are not valid referencias."""
    assert is_valid_referencia(value) is False
