"""What the webhooks modules share about logging: safe text, and the ``SMARTPOS_LOG`` switch.

Event ids, ``tipo`` values and error texts come from the sender (or from a handler's
exception about the sender's data): a newline in one of them, logged raw, writes a line that
looks like the SDK's own, and a 3 KB id floods the log. Every webhooks log line passes such
text through `loggable`, which escapes it like ``repr`` and cuts it.
"""

from __future__ import annotations

from typing import Final

__all__ = ["MAX_LOGGED_CHARS", "configure_logging", "loggable"]

#: Characters of one sender-controlled value kept in a log line.
MAX_LOGGED_CHARS: Final = 80


def loggable(value: object, limit: int = MAX_LOGGED_CHARS) -> str:
    """Return ``value`` as text that is safe in one log line: quoted, escaped and bounded.

    The text is cut to ``limit`` characters (an ellipsis marks the cut) and shown like
    ``repr``: quoted, with newlines, control characters, line separators and lone
    surrogates escaped (``'evt\\nFORGED'``), so it can never start a line of its own.

    Args:
        value: A str, or anything whose ``str()`` is to be shown.
        limit: Most characters of ``value`` kept.
    """
    text = value if type(value) is str else str(value)
    if len(text) <= limit:
        return repr(text)
    shown = repr(text[:limit])
    return f"{shown[:-1]}…{shown[-1]}"


def configure_logging() -> None:
    """Honour ``SMARTPOS_LOG`` in a process that only receives webhooks or runs a worker.

    The clients switch it on when they are built; a receiver, a worker or a store calls this
    so that ``SMARTPOS_LOG=info`` works wherever smartpos is used. Imported late: the switch
    lives beside the clients' code, which this package does not otherwise need.
    """
    from smartpos._logging import configure_logging_from_env

    configure_logging_from_env()
