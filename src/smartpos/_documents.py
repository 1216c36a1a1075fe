"""CPF and CNPJ (numeric and the alphanumeric CNPJ in force since July 2026).

Strict and ASCII-only on purpose: a document is normalized by removing the usual mask
characters (``.``, ``-``, ``/``, spaces) and upper-casing letters; anything else is refused.

- CPF: 11 digits, two mod-11 check digits.
- CNPJ: 14 characters, the first 12 in ``[0-9A-Z]`` (a character's value is its ASCII code
  minus 48, so digits keep their value and ``A`` is 17), the last 2 numeric check digits.
  The official example ``12.ABC.345/01DE-35`` is valid.
- A document made of one repeated character (``111.111.111-11``) passes the arithmetic but is
  not a real document, so it is refused.
"""

from __future__ import annotations

__all__ = ["is_valid_documento", "mask_documento", "normalize_documento"]

_MASK = str.maketrans("", "", ".-/ ")
_DIGITS = frozenset("0123456789")
_ALNUM = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_CNPJ_W1 = (5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2)
_CNPJ_W2 = (6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2)


def _check_digit(values: list[int], weights: tuple[int, ...] | range) -> int:
    remainder = sum(v * w for v, w in zip(values, weights, strict=True)) % 11
    return 0 if remainder < 2 else 11 - remainder


def _valid_cpf(doc: str) -> bool:
    if len(doc) != 11 or not _DIGITS.issuperset(doc) or doc == doc[0] * 11:
        return False
    values = [ord(c) - 48 for c in doc]
    first = _check_digit(values[:9], range(10, 1, -1))
    second = _check_digit(values[:10], range(11, 1, -1))
    return values[9] == first and values[10] == second


def _valid_cnpj(doc: str) -> bool:
    if len(doc) != 14 or doc == doc[0] * 14:
        return False
    body, check = doc[:12], doc[12:]
    if not _ALNUM.issuperset(body) or not _DIGITS.issuperset(check):
        return False
    values = [ord(c) - 48 for c in body]
    first = _check_digit(values, _CNPJ_W1)
    second = _check_digit([*values, first], _CNPJ_W2)
    return check == f"{first}{second}"


def normalize_documento(value: str) -> str | None:
    """Return the document without its mask (digits and upper-case letters), or ``None``.

    ``None`` means the value is not a valid CPF or CNPJ.
    """
    if not isinstance(value, str) or not value.isascii():
        return None
    doc = value.translate(_MASK).upper()
    if len(doc) == 11:
        return doc if _valid_cpf(doc) else None
    if len(doc) == 14:
        return doc if _valid_cnpj(doc) else None
    return None


def is_valid_documento(value: str) -> bool:
    """Tell whether ``value`` (masked or not) is a valid CPF or CNPJ."""
    return normalize_documento(value) is not None


def mask_documento(value: object) -> str:
    """Mask a CPF/CNPJ for logs and reprs (LGPD): keep only the first 3 and last 2 characters.

    ``52998224725`` -> ``529.***.***-25``; ``12ABC34501DE35`` -> ``12.***.***/****-35``.
    Anything else is masked whole, keeping only its length class.
    """
    if not isinstance(value, str):
        return "***"
    doc = value.translate(_MASK).upper() if value.isascii() else value
    if len(doc) == 11:
        return f"{doc[:3]}.***.***-{doc[-2:]}"
    if len(doc) == 14:
        return f"{doc[:2]}.***.***/****-{doc[-2:]}"
    return "***"
