"""CPF and CNPJ check digits, written again for the sandbox on purpose.

The sandbox must not share code with the SDK it checks: a bug in one validator must show up as a
disagreement, not hide on both sides. Rules (Receita Federal):

- CPF: 11 digits; two mod-11 check digits with weights 10..2 and 11..2.
- CNPJ: 14 characters; the first 12 in ``[0-9A-Z]`` whose value is ``ord(c) - 48`` (the
  alphanumeric CNPJ), the last 2 numeric check digits with weights 5..2,9..2 and 6..2,9..2.
- Masks (``.``, ``-``, ``/``, spaces) are stripped first; one repeated character is refused.
"""

from __future__ import annotations

import re

__all__ = ["is_valid_documento", "mask_documento", "normalize_documento"]

_STRIP = re.compile(r"[.\-/ ]")
_CPF = re.compile(r"[0-9]{11}")
_CNPJ = re.compile(r"[0-9A-Z]{12}[0-9]{2}")
_CNPJ_WEIGHTS_1 = (5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2)
_CNPJ_WEIGHTS_2 = (6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2)


def _digit(values: list[int], weights: tuple[int, ...]) -> int:
    rest = sum(v * w for v, w in zip(values, weights, strict=True)) % 11
    return 0 if rest < 2 else 11 - rest


def _cpf_ok(doc: str) -> bool:
    values = [int(c) for c in doc]
    first = _digit(values[:9], tuple(range(10, 1, -1)))
    second = _digit(values[:10], tuple(range(11, 1, -1)))
    return values[9:] == [first, second]


def _cnpj_ok(doc: str) -> bool:
    values = [ord(c) - 48 for c in doc]
    first = _digit(values[:12], _CNPJ_WEIGHTS_1)
    second = _digit(values[:13], _CNPJ_WEIGHTS_2)
    return values[12:] == [first, second]


def normalize_documento(value: str) -> str | None:
    """Return a CPF/CNPJ without its mask, upper-cased, or ``None`` when it is not valid.

    Args:
        value: A CPF or CNPJ, masked (``123.456.789-09``, ``12.ABC.345/01DE-35``) or not.

    Returns:
        The 11 or 14 characters of a valid document, or ``None``.
    """
    doc = _STRIP.sub("", value).upper()
    if len(set(doc)) <= 1:
        return None
    if _CPF.fullmatch(doc):
        return doc if _cpf_ok(doc) else None
    if _CNPJ.fullmatch(doc):
        return doc if _cnpj_ok(doc) else None
    return None


def is_valid_documento(value: str) -> bool:
    """Tell whether ``value`` is a valid CPF or CNPJ (masked or not).

    Args:
        value: The document to check.

    Returns:
        ``True`` for a valid CPF or CNPJ, alphanumeric CNPJ included.
    """
    return normalize_documento(value) is not None


def mask_documento(value: str) -> str:
    """Mask a CPF/CNPJ for reprs and logs, keeping the first 3 and last 2 characters.

    Args:
        value: A document, normalized or not.

    Returns:
        ``529.***.***-25`` for a CPF, ``12A.***.***/****-35`` for a CNPJ, ``***`` otherwise.
    """
    doc = _STRIP.sub("", value).upper()
    if len(doc) == 11:
        return f"{doc[:3]}.***.***-{doc[-2:]}"
    if len(doc) == 14:
        return f"{doc[:3]}.***.***/****-{doc[-2:]}"
    return "***"
