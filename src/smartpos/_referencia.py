"""The referencia rule (spec 2.6): one operational attempt, a UUID from the first character.

Some acquirers read only the first 10 characters of a referencia, so those must be random.
``uuid4`` gives 36 random bits in its first 10 characters; ``uuid1`` and ``uuid7`` start with a
timestamp and would collide there. A suffix after the UUID is allowed (``<uuid>-<suffix>``);
a prefix before it, or a plain counter, is not.
"""

from __future__ import annotations

import re
import uuid

from ._errors import ValidationError

__all__ = ["is_valid_referencia", "new_referencia"]

_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_REFERENCIA = re.compile(_UUID + r"(?:-[0-9A-Za-z_.:-]+)?")
_SUFFIX = re.compile(r"[0-9A-Za-z_.:-]+")


def new_referencia(suffix: str | None = None) -> str:
    """Return a new referencia: ``"<uuid4>"`` or ``"<uuid4>-<suffix>"``.

    Args:
        suffix: Optional text after the UUID (letters, digits, ``_ . : -``), for example an
            order number to make the value easier to read in reports.

    Raises:
        ValidationError: ``suffix`` is empty or has other characters (also a ValueError).
    """
    value = str(uuid.uuid4())
    if suffix is None:
        return value
    if not isinstance(suffix, str) or not _SUFFIX.fullmatch(suffix):
        raise ValidationError(
            "CAMPO_INVALIDO",
            "referencia suffix must be non-empty and use only letters, digits, '_', '.', ':' "
            f"or '-'; got {suffix!r}",
            campo="referencia",
        )
    return f"{value}-{suffix}"


def is_valid_referencia(value: object) -> bool:
    """Tell whether ``value`` is a UUID from its first character, optionally ``-suffix``."""
    return isinstance(value, str) and _REFERENCIA.fullmatch(value) is not None
