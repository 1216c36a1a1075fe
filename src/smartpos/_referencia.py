"""The referencia rule (spec 2.6): one operational attempt, a UUID from the first character.

Some acquirers read only the first 10 characters of a referencia, so those must differ between
attempts. ``uuid4`` gives 36 random bits in its first 10 characters and ``uuid5`` 36 bits of a
SHA-1 hash; time-ordered UUIDs (versions 1, 6 and 7) start with a timestamp, so two made within
seconds share those characters, and the nil UUID is the same every time. The strict check
therefore accepts versions 4 and 5 of the RFC 4122 variant only. A suffix after the UUID is
allowed (``<uuid>-<suffix>``); a prefix before it, or a plain counter, is not.
"""

from __future__ import annotations

import hashlib
import re
import uuid

from ._errors import ValidationError

__all__ = [
    "REFERENCIA_NAMESPACE",
    "is_valid_referencia",
    "new_referencia",
    "referencia_for",
    "same_first_characters",
]

# The version digit (4 or 5) and the RFC 4122 variant digit (8, 9, a, b) are part of the pattern:
# a regex match is all a hot path pays, no uuid.UUID object is built.
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[45][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}"
_REFERENCIA = re.compile(_UUID + r"(?:-[0-9A-Za-z_.:-]+)?")
_SUFFIX = re.compile(r"[0-9A-Za-z_.:-]+")

#: The namespace of ``referencia_for``: ``uuid5(NAMESPACE_URL,
#: "https://pypi.org/project/smartpos/#referencia_for")``. Fixed forever: changing it would
#: give every key a new referencia, and work that runs again could then start a second refund.
REFERENCIA_NAMESPACE = uuid.UUID("116709e4-cd2c-5243-875f-7619aad98280")

#: How many leading characters some acquirers compare (spec 2.6).
FIRST_CHARACTERS = 10


def _with_suffix(value: str, suffix: object) -> str:
    if suffix is None:
        return value
    if not isinstance(suffix, str) or not _SUFFIX.fullmatch(suffix):
        # Imported on the error path only: `import smartpos` does not load the messages.
        from ._messages import message

        raise ValidationError(
            "CAMPO_INVALIDO",
            message("referencia.suffix", suffix=suffix),
            campo="referencia",
        )
    return f"{value}-{suffix}"


def new_referencia(suffix: str | None = None) -> str:
    """Return a new referencia: ``"<uuid4>"`` or ``"<uuid4>-<suffix>"``.

    Args:
        suffix: Optional text after the UUID (letters, digits, ``_ . : -``), for example an
            order number to make the value easier to read in reports.

    Raises:
        ValidationError: ``suffix`` is empty or has other characters (also a ValueError).
    """
    return _with_suffix(str(uuid.uuid4()), suffix)


def referencia_for(key: str, suffix: str | None = None) -> str:
    """Return the referencia of ``key``: the same key always gives the same referencia.

    For work that may run twice — a webhook handler runs at least once — derive the referencia
    from what identifies the work, so that the second run sends the *same* referencia and the
    service refuses it as a duplicate instead of starting a second refund::

        client.refunds.create_for(
            evento, referencia=smartpos.referencia_for(f"estorno:{evento.id}")
        )

    The value is a UUID version 5 of ``key`` (UTF-8) in the fixed namespace
    `REFERENCIA_NAMESPACE`, so its first 10 characters come from a hash, as the referencia
    rule asks. Use a key no other operation uses (prefix it with what the work does).

    Args:
        key: What identifies the work; a non-empty string.
        suffix: Optional text after the UUID, as in [`new_referencia`][smartpos.new_referencia].

    Returns:
        ``"<uuid5>"`` or ``"<uuid5>-<suffix>"``.

    Raises:
        ValidationError: ``key`` is not a non-empty string, or a bad ``suffix`` (also a
            ValueError).
    """
    if not isinstance(key, str) or not key:
        from ._messages import message

        raise ValidationError(
            "CAMPO_INVALIDO",
            message("referencia.key_empty")
            if isinstance(key, str)
            else message("referencia.key_type", type=type(key).__name__),
            campo="referencia",
        )
    # uuid.uuid5 with "surrogatepass": a key holding a lone surrogate still has one referencia.
    digest = hashlib.sha1(
        REFERENCIA_NAMESPACE.bytes + key.encode("utf-8", "surrogatepass"), usedforsecurity=False
    ).digest()
    value = str(uuid.UUID(bytes=digest[:16], version=5))
    return _with_suffix(value, suffix)


def is_valid_referencia(value: object) -> bool:
    """Tell whether ``value`` starts with a UUID version 4 or 5, optionally ``-suffix``.

    Time-ordered UUIDs (versions 1, 6, 7), the nil UUID and every other version are refused:
    their first 10 characters, all that some acquirers read, can repeat between attempts.
    """
    return isinstance(value, str) and _REFERENCIA.fullmatch(value) is not None


def same_first_characters(a: str, b: str) -> bool:
    """Tell whether two referencias share their first 10 characters, ignoring case."""
    return a[:FIRST_CHARACTERS].lower() == b[:FIRST_CHARACTERS].lower()
