"""QR code rendering with segno (pure Python, no dependencies): terminal text, PNG and SVG.

The QR code a terminal must read is shown by the partner's own screen (spec 2.8), so the
rendering has to scan on the first try:

- error correction level M or better (about 15 % of the symbol may be damaged: glare, a
  scratched screen) and never a Micro QR code, which terminal readers often do not support;
- a quiet zone (border) of 4 modules in images, as the standard asks, and 2 in a terminal,
  where the window's own margin adds to it;
- on a web page the code is drawn black on an opaque white square (the quiet zone included),
  so it still reads dark-on-light on a page with a dark theme or a coloured background;
- in a terminal the polarity must be dark-on-light. Block characters are drawn in the
  terminal's foreground colour, so on the usual light-on-dark terminal the *light* modules are
  drawn as blocks; ``invert=True`` is for dark-on-light terminals, and ``colour=True`` sets
  black on white explicitly with ANSI codes, which reads correctly on any theme.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, Any, Final, Literal

__all__ = ["ImageKind", "matrix", "save", "to_data_uri", "to_svg", "to_terminal"]

ImageKind = Literal["png", "svg"]
"""The image formats `save` writes."""

# (upper module drawn, lower module drawn) -> character: two rows of modules per text line.
_HALF_BLOCKS: Final = {
    (True, True): "\u2588",
    (True, False): "\u2580",
    (False, True): "\u2584",
    (False, False): " ",
}
_ASCII_BLOCKS: Final = {True: "##", False: "  "}
_BLACK_ON_WHITE: Final = "\x1b[30;107m"
_RESET: Final = "\x1b[0m"
_KINDS: Final = ("png", "svg")


def _make(content: str) -> Any:
    import segno

    if not isinstance(content, str) or not content:
        raise ValueError("a QR code needs a non-empty str to encode")
    # Error correction at least M (segno raises it when that fits in the same size): survives
    # glare and a scratched screen. Micro QR codes: many terminal readers do not support them.
    return segno.make(content, error="m", micro=False)


def _check_size(name: str, value: int, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, not {value!r}")


def matrix(content: str, *, border: int = 0) -> list[list[bool]]:
    """Return the QR code's modules as rows of booleans, ``True`` for a dark module.

    Args:
        content: The text to encode (``QRCode.qr_code``).
        border: Light modules added on every side (the quiet zone).

    Returns:
        A square matrix, one list per row.

    Raises:
        ValueError: Empty content or a negative border.
    """
    _check_size("border", border, 0)
    return [[bool(m) for m in row] for row in _make(content).matrix_iter(scale=1, border=border)]


def to_terminal(
    content: str,
    *,
    border: int = 2,
    invert: bool = False,
    colour: bool = False,
    ascii_only: bool = False,
) -> str:
    """Draw the QR code as text for a terminal, ending with a newline.

    By default each text line holds two rows of modules drawn with the half-block characters
    ``▀ ▄ █``, so the code stays square and small.

    Args:
        content: The text to encode (``QRCode.qr_code``).
        border: Quiet-zone width in modules.
        invert: Draw the dark modules as blocks, for terminals with a light background
            (ignored with ``colour``, whose polarity is always right).
        colour: Set black on white with ANSI escape codes on every line, so the code reads
            dark-on-light on any terminal theme. Only for terminals that show colour.
        ascii_only: Use ``##`` and spaces, one text line per row of modules, for output
            that cannot show the Unicode block characters (a legacy code page, a log file).

    Returns:
        The drawing, one ``\\n``-terminated line per text row.

    Raises:
        ValueError: Empty content or a negative border.
    """
    rows = matrix(content, border=border)
    # A block is drawn in the foreground colour: with explicit black-on-white (colour) or on a
    # light terminal (invert), blocks are the dark modules; on the usual dark terminal they
    # are the light ones, so the code still reads dark-on-light.
    draw_dark = colour or invert
    drawn = [[module == draw_dark for module in row] for row in rows]
    if ascii_only:
        lines = ["".join(_ASCII_BLOCKS[m] for m in row) for row in drawn]
    else:
        if len(drawn) % 2:
            drawn.append([not draw_dark] * len(drawn[0]))
        lines = [
            "".join(_HALF_BLOCKS[pair] for pair in zip(top, bottom, strict=True))
            for top, bottom in zip(drawn[::2], drawn[1::2], strict=True)
        ]
    if colour:
        lines = [f"{_BLACK_ON_WHITE}{line}{_RESET}" for line in lines]
    return "".join(line + "\n" for line in lines)


def _kind_of(target: str | Path | IO[bytes], kind: str | None) -> ImageKind:
    if kind is None:
        if not isinstance(target, (str, Path)):
            raise ValueError("kind='png' or kind='svg' is required when saving to a file object")
        kind = Path(target).suffix.lower().lstrip(".")
        if kind not in _KINDS:
            raise ValueError(f"cannot tell the image kind of {str(target)!r}: use .png or .svg")
    kind = kind.lower()
    if kind == "png":
        return "png"
    if kind == "svg":
        return "svg"
    raise ValueError(f"unsupported QR image kind {kind!r}: use 'png' or 'svg'")


def save(
    content: str,
    target: str | Path | IO[bytes],
    *,
    kind: str | None = None,
    scale: int = 8,
    border: int = 4,
) -> None:
    """Write the QR code as a PNG or SVG image.

    Args:
        content: The text to encode (``QRCode.qr_code``).
        target: A path ending in ``.png`` or ``.svg``, or a binary file object.
        kind: ``"png"`` or ``"svg"``; required for a file object, else read from the suffix.
        scale: Pixels (PNG) or user units (SVG) per module.
        border: Quiet-zone width in modules (the standard asks for 4).

    Raises:
        ValueError: An unknown image kind, empty content, or a bad scale or border.
        OSError: The file cannot be written.
    """
    image_kind = _kind_of(target, kind)
    _check_size("scale", scale, 1)
    _check_size("border", border, 0)
    _make(content).save(target, kind=image_kind, scale=scale, border=border)


def _svg_options(scale: int, border: int, title: str | None) -> dict[str, Any]:
    _check_size("scale", scale, 1)
    _check_size("border", border, 0)
    if title is not None and not isinstance(title, str):
        raise ValueError(f"title must be a str or None, not {type(title).__name__}")
    # Opaque white behind black modules: dark-on-light on any page theme.
    options: dict[str, Any] = {"scale": scale, "border": border, "dark": "#000", "light": "#fff"}
    if title:
        options["title"] = title
    return options


def to_svg(content: str, *, scale: int = 8, border: int = 4, title: str | None = None) -> str:
    """Return the QR code as a standalone SVG document (a str), ready to put in a page.

    The SVG has its ``xmlns`` and no XML declaration, so the same text works inline in HTML
    and saved as an ``.svg`` file; black modules on an opaque white square.

    Args:
        content: The text to encode (``QRCode.qr_code``).
        scale: User units (CSS pixels) per module.
        border: Quiet-zone width in modules (the standard asks for 4).
        title: An accessible name (an SVG ``<title>``), e.g. "QR code to pair the terminal".

    Raises:
        ValueError: Empty content, or a bad scale, border or title.
    """
    import io

    options = _svg_options(scale, border, title)
    buffer = io.BytesIO()
    _make(content).save(buffer, kind="svg", xmldecl=False, nl=False, **options)
    return buffer.getvalue().decode("utf-8")


def to_data_uri(
    content: str,
    *,
    kind: str = "svg",
    scale: int = 8,
    border: int = 4,
) -> str:
    """Return the QR code as a ``data:`` URI for an ``<img src=...>``: SVG or PNG.

    Args:
        content: The text to encode (``QRCode.qr_code``).
        kind: ``"svg"`` (``data:image/svg+xml``, small and sharp at any size) or ``"png"``
            (``data:image/png;base64``, for e-mail clients and PDFs that refuse SVG).
        scale: Pixels (PNG) or user units (SVG) per module.
        border: Quiet-zone width in modules.

    Raises:
        ValueError: An unknown kind, empty content, or a bad scale or border.
    """
    image_kind = _kind_of("", kind) if isinstance(kind, str) else None
    if image_kind is None:
        raise ValueError(f"unsupported QR image kind {kind!r}: use 'png' or 'svg'")
    code = _make(content)
    if image_kind == "png":
        _check_size("scale", scale, 1)
        _check_size("border", border, 0)
        return str(code.png_data_uri(scale=scale, border=border, dark="#000", light="#fff"))
    options = _svg_options(scale, border, None)
    return str(code.svg_data_uri(xmldecl=False, nl=False, **options))
