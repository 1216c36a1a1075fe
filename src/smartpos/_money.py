"""Amounts in reais to and from whole centavos, without a float anywhere.

The service takes ``valorCentavos``, an integer (spec 2.1). What a point of sale holds is a
price typed by a person (``"19,90"``), shown by a screen (``"R$ 1.234,56"``) or kept by the ORM
(``Decimal("19.90")``). [`to_centavos`][smartpos.to_centavos] turns any of those into the integer
exactly, and refuses what could be read two ways or would have to be rounded, since a centavo lost
or gained is a wrong charge. [`format_reais`][smartpos.format_reais] writes centavos back the
Brazilian way.

Floats are refused: ``0.1 + 0.2`` is not ``0.3`` in binary, and ``int(19.90 * 100)`` is 1989.
"""

from __future__ import annotations

import decimal
import re
from decimal import Decimal
from typing import Final, cast

from ._errors import ValidationError

__all__ = ["format_reais", "to_centavos", "to_reais"]

_CODIGO: Final = "VALOR_INVALIDO"
_CAMPO: Final = "valorCentavos"

# "R$", spaces (also the no-break spaces that locale formatting puts after R$), then digits.
_SPACES: Final = " \t\u00a0\u202f"
# Brazilian: thousands with dots in groups of three, decimals after a comma.
_BRAZILIAN: Final = re.compile(r"(?:\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d+))?", re.ASCII)
# Digits with a decimal point (what str(Decimal) and most programs write): "19.90", "1234.5".
_POINT: Final = re.compile(r"\d+\.(\d+)", re.ASCII)
_ONE_DOT_THREE_DIGITS: Final = re.compile(r"\d{1,3}\.\d{3}", re.ASCII)
# Far beyond any sale; keeps a Decimal("1E+999999") from building a million-digit int.
_MAX_DIGITS: Final = 20
# Enough precision for any amount below that: scaling by 100 never rounds.
_EXACT: Final = decimal.Context(prec=64, traps=[decimal.Inexact, decimal.InvalidOperation])


def _refuse(key: str, **fields: str) -> ValidationError:
    # Imported on the error path only: `import smartpos` does not load the messages.
    from ._messages import message

    return ValidationError(_CODIGO, message(key, **fields), campo=_CAMPO)


def _check_sign(centavos: int, shown: str, allow_negative: bool) -> int:
    if centavos < 0 and not allow_negative:
        raise _refuse("money.negative", shown=shown)
    return centavos


def _too_many_places(shown: str) -> ValidationError:
    return _refuse("money.too_many_places", shown=shown)


def _from_decimal(value: Decimal, shown: str, allow_negative: bool) -> int:
    if not value.is_finite():
        raise _refuse("money.not_finite", shown=shown)
    if value.adjusted() >= _MAX_DIGITS:
        raise _refuse("money.too_large", shown=shown)
    scaled = value.scaleb(2, context=_EXACT)
    if scaled != scaled.to_integral_value(context=_EXACT):
        raise _too_many_places(shown)
    return _check_sign(int(scaled), shown, allow_negative)


def _digits(text: str, shown: str) -> Decimal:
    """The amount of an unsigned Brazilian or decimal-point string, exactly."""
    if _BRAZILIAN.fullmatch(text) is not None:
        whole, _, fraction = text.partition(",")
        if not fraction and _ONE_DOT_THREE_DIGITS.fullmatch(whole):
            # "1.234": one thousand two hundred and thirty-four in Brazil, 1.234 elsewhere.
            raise _refuse("money.ambiguous", shown=shown)
    else:
        match = _POINT.fullmatch(text)
        if match is None:
            raise _refuse("money.not_an_amount", shown=shown)
        whole, fraction = text.split(".")
    if len(fraction) > 2:
        # Strings come from people and screens: "19,900" is 19.9 in Brazil and 19900 in
        # English, so even zeros past the second place are refused.
        raise _too_many_places(shown)
    return Decimal(f"{whole.replace('.', '')}.{fraction or '0'}")


def _from_str(value: str, allow_negative: bool) -> int:
    shown = repr(value)
    text = value.strip(_SPACES)
    negative = False
    if text.startswith(("-", "\u2212")):
        negative, text = True, text[1:].lstrip(_SPACES)
    if text[:2].upper() == "R$":
        text = text[2:].lstrip(_SPACES)
        if not negative and text.startswith(("-", "\u2212")):
            negative, text = True, text[1:].lstrip(_SPACES)
    if not text:
        raise _refuse("money.empty", shown=shown)
    amount = _digits(text, shown)
    return _from_decimal(-amount if negative else amount, shown, allow_negative)


def to_centavos(
    valor: str | Decimal | int,
    *,
    allow_negative: bool = False,
) -> int:
    """Return an amount in reais as whole centavos, exactly: the ``valor_centavos`` to send.

    ::

        to_centavos("19,90")          # 1990
        to_centavos("R$ 1.234,56")    # 123456
        to_centavos(Decimal("19.90")) # 1990
        to_centavos("19.90")          # 1990: a decimal point, as str(Decimal) writes it
        to_centavos(19)               # 1900: an int is whole reais

    Args:
        valor: A str in the Brazilian form (``"19,90"``, ``"1.234,56"``, with or without
            ``"R$"``), a str with a decimal point (``"19.90"``), a ``Decimal``, or an
            ``int`` of whole reais. Centavos you already have go straight to
            ``valor_centavos``: do not pass them here.
        allow_negative: Accept a negative amount (a balance, a difference); charges and
            refunds are positive, so negatives are refused by default.

    Returns:
        The amount in centavos.

    Raises:
        ValidationError: (a ``ValueError``, ``codigo`` ``VALOR_INVALIDO``) a ``float`` (it
            cannot hold 19.90 exactly), a ``bool``, more than 2 decimal places, a negative
            amount without ``allow_negative``, ``NaN`` or infinity, text that is not an
            amount, or an ambiguous one such as ``"1.234"`` (a thousand reais in Brazil, one
            real elsewhere).
    """
    given = cast(object, valor)  # the annotation excludes float; untyped callers may not
    if isinstance(given, float):
        raise _refuse("money.float", shown=repr(given))
    if isinstance(valor, bool):
        raise _refuse("money.bool", shown=repr(valor))
    if isinstance(valor, int):
        if abs(valor) >= 10**_MAX_DIGITS:
            raise _refuse("money.too_large", shown=repr(valor))
        return _check_sign(valor * 100, repr(valor), allow_negative)
    if isinstance(valor, Decimal):
        return _from_decimal(valor, repr(valor), allow_negative)
    if isinstance(valor, str):
        return _from_str(valor, allow_negative)
    raise _refuse("money.type", type=type(given).__name__)


def to_reais(valor_centavos: int) -> Decimal:
    """Return whole centavos as a ``Decimal`` of reais with two places: ``1990 -> 19.90``.

    Raises:
        TypeError: ``valor_centavos`` is not an ``int`` (a ``bool`` or a ``float`` included).
    """
    _check_int(valor_centavos)
    return Decimal(f"{valor_centavos}E-2")  # exact: no context, no rounding


def format_reais(valor_centavos: int, *, symbol: bool = True) -> str:
    """Write whole centavos the Brazilian way: ``1990 -> "R$ 19,90"``.

    Thousands are grouped with dots (``123456 -> "R$ 1.234,56"``), the sign goes before the
    symbol (``-1990 -> "-R$ 19,90"``), and the space after ``R$`` is a plain one.
    [`to_centavos`][smartpos.to_centavos] reads every string this returns back to the same integer.

    Args:
        valor_centavos: The amount in centavos (``PagamentoAprovado.dados.valor_centavos``).
        symbol: Start with ``"R$ "``; ``False`` gives ``"19,90"``.

    Raises:
        TypeError: ``valor_centavos`` is not an ``int`` (a ``bool`` or a ``float`` included).
    """
    _check_int(valor_centavos)
    sign = "-" if valor_centavos < 0 else ""
    reais, centavos = divmod(abs(valor_centavos), 100)
    grouped = f"{reais:,}".replace(",", ".")
    prefix = "R$ " if symbol else ""
    return f"{sign}{prefix}{grouped},{centavos:02d}"


def _check_int(value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        from ._messages import message

        raise TypeError(message("money.not_int", type=type(value).__name__))
