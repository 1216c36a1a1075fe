"""QR code rendering with segno (pure Python, no dependencies): terminal, PNG and SVG."""

from __future__ import annotations

from pathlib import Path
from typing import IO, Any

__all__ = ["matrix", "save", "to_terminal"]

# Upper half, lower half, both, neither: two rows of modules per line of text.
_BLOCKS = {(True, True): "\u2588", (True, False): "\u2580", (False, True): "\u2584"}


def _make(content: str) -> Any:
    import segno

    # Error correction M: survives glare and a scratched screen, still small.
    return segno.make(content, error="m", micro=False)


def matrix(content: str, *, border: int = 0) -> list[list[bool]]:
    """Return the QR code's modules as rows of booleans (``True`` is dark)."""
    return [[bool(m) for m in row] for row in _make(content).matrix_iter(scale=1, border=border)]


def to_terminal(content: str, *, border: int = 2, invert: bool = False) -> str:
    """Draw the QR code with half blocks: each text line holds two rows of modules.

    The dark modules are drawn as blocks on the terminal's background, so on a dark terminal
    a phone sees the light/dark swapped; most readers accept it, ``invert=True`` fixes it.
    """
    rows = matrix(content, border=border)
    if not invert:
        # Blocks are drawn light on a dark terminal: draw the light modules so the code reads
        # dark-on-light as printed QR codes do.
        rows = [[not m for m in row] for row in rows]
    if len(rows) % 2:
        rows.append([False] * len(rows[0]))
    lines = []
    for top, bottom in zip(rows[::2], rows[1::2], strict=True):
        lines.append("".join(_BLOCKS.get((t, b), " ") for t, b in zip(top, bottom, strict=True)))
    return "\n".join(lines) + "\n"


def save(content: str, target: str | Path | IO[bytes], *, kind: str | None, scale: int) -> None:
    """Write the QR code to ``target`` as PNG or SVG."""
    if kind is None:
        if isinstance(target, (str, Path)):
            suffix = Path(target).suffix.lower().lstrip(".")
            if suffix not in ("png", "svg"):
                raise ValueError(f"cannot tell the image kind of {str(target)!r}: use .png or .svg")
            kind = suffix
        else:
            raise ValueError("kind='png' or kind='svg' is required when saving to a file object")
    if kind not in ("png", "svg"):
        raise ValueError(f"unsupported QR image kind {kind!r}: use 'png' or 'svg'")
    _make(content).save(target, kind=kind, scale=scale, border=4)
