"""QR code rendering: terminal half blocks, PNG and SVG, all decoded back into modules.

Each output is decoded into a matrix of dark/light modules and compared with segno's own matrix
for the value, so a rendering that merely "looks like" a QR code cannot pass.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import datetime as dt
import io
import re
import struct
import zlib
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
import segno

from smartpos import QRCode, _qr

VALUE = "SMARTPOS:QR:0f9e8d7c-5b4a-4f3e-9d2c-1b0a9f8e7d6c"
QR = QRCode(VALUE, "r", dt.datetime(2026, 8, 1, tzinfo=dt.timezone.utc))
Matrix = list[list[bool]]

BLOCKS = {
    "\u2588": (True, True),
    "\u2580": (True, False),
    "\u2584": (False, True),
    " ": (False, False),
}


def segno_matrix(value: str, border: int) -> Matrix:
    """The modules as segno computes them (error correction M, no micro QR), True is dark."""
    code = segno.make(value, error="m", micro=False)
    return [[bool(m) for m in row] for row in code.matrix_iter(scale=1, border=border)]


def decode_half_blocks(text: str) -> Matrix:
    """Turn half-block text back into rows of modules (two rows per line)."""
    rows: Matrix = []
    for line in text.rstrip("\n").split("\n"):
        pairs = [BLOCKS[ch] for ch in line]
        rows.append([top for top, _ in pairs])
        rows.append([bottom for _, bottom in pairs])
    return rows


def decode_png(data: bytes) -> Matrix:
    """A minimal PNG reader for 1-bit grayscale images: True where a pixel is black."""
    assert b"\x89PNG\r\n\x1a\n" == data[:8]
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, chunk = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        assert (
            zlib.crc32(kind + chunk)
            == struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])[0]
        )
        if kind == b"IHDR":
            header = chunk
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert (1, 0, 0) == (depth, color, interlace), "expected 1-bit grayscale, not interlaced"
    raw = zlib.decompress(idat)
    stride = (width + 7) // 8
    rows: Matrix = []
    previous = bytearray(stride)
    for y in range(height):
        line = raw[y * (stride + 1) : (y + 1) * (stride + 1)]
        kind, scan = line[0], bytearray(line[1:])
        for i in range(stride):
            left = scan[i - 1] if i else 0
            up, up_left = previous[i], previous[i - 1] if i else 0
            if kind == 1:
                scan[i] = (scan[i] + left) & 0xFF
            elif kind == 2:
                scan[i] = (scan[i] + up) & 0xFF
            elif kind == 3:
                scan[i] = (scan[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else up_left
                scan[i] = (scan[i] + pred) & 0xFF
            else:
                assert kind == 0
        rows.append([not (scan[x // 8] >> (7 - x % 8)) & 1 for x in range(width)])
        previous = scan
    return rows


def sample(pixels: Matrix, scale: int) -> Matrix:
    """One pixel from the middle of each module of a scaled image."""
    size = len(pixels) // scale
    return [
        [pixels[r * scale + scale // 2][c * scale + scale // 2] for c in range(size)]
        for r in range(size)
    ]


def decode_svg(text: str) -> tuple[Matrix, int, int]:
    """Read segno's SVG: its size and the horizontal dark runs of its path, as modules."""
    root = ElementTree.fromstring(text)
    assert "{http://www.w3.org/2000/svg}svg" == root.tag
    width, height = int(root.attrib["width"]), int(root.attrib["height"])
    (path,) = root.iter("{http://www.w3.org/2000/svg}path")
    scale = int(re.fullmatch(r"scale\((\d+)\)", path.attrib["transform"]).group(1))  # type: ignore[union-attr]
    size = width // scale
    modules = [[False] * size for _ in range(size)]
    x = y = 0.0
    for command, args in re.findall(r"([MmHhVv])([-\d.\s]+)", path.attrib["d"]):
        numbers = [float(n) for n in args.split()]
        if command == "M":
            x, y = numbers
        elif command == "m":
            x, y = x + numbers[0], y + numbers[1]
        elif command == "h":
            for column in range(int(x), int(x + numbers[0])):
                modules[int(y)][column] = True
            x += numbers[0]
        else:
            raise AssertionError(f"unexpected path command {command}")
    return modules, width, height


# --- terminal ------------------------------------------------------------------------------


def test_matrix_is_segnos() -> None:
    """_qr.matrix is segno's matrix for the value (error correction M)."""
    assert segno_matrix(VALUE, 0) == _qr.matrix(VALUE)
    assert segno_matrix(VALUE, 3) == _qr.matrix(VALUE, border=3)


@pytest.mark.parametrize("border", [0, 1, 2, 4])
def test_to_terminal_inverted_draws_dark_modules(border: int) -> None:
    """to_terminal(invert=True) draws the dark modules as blocks, two rows per line."""
    expected = _qr.matrix(VALUE, border=border)

    rows = decode_half_blocks(QR.to_terminal(border=border, invert=True))

    if len(expected) % 2:
        assert [False] * len(expected[0]) == rows.pop()  # padding row of an odd size
    assert expected == rows


def test_to_terminal_default_draws_light_modules() -> None:
    """By default the light modules are drawn: the code reads dark-on-light on a dark terminal."""
    expected = [[not m for m in row] for row in _qr.matrix(VALUE, border=2)]

    text = QR.to_terminal()
    rows = decode_half_blocks(text)

    assert text.endswith("\n")
    assert (len(expected) + 1) // 2 == text.count("\n")
    assert expected == rows[: len(expected)]


# --- images --------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [1, 3, 8])
def test_save_png_to_a_path(tmp_path: Path, scale: int) -> None:
    """save("x.png") writes a PNG whose pixels are the modules, with a 4-module quiet zone."""
    target = tmp_path / "qr.png"

    QR.save(target, scale=scale)

    pixels = decode_png(target.read_bytes())
    assert segno_matrix(VALUE, 4) == sample(pixels, scale)


def test_save_png_to_a_file_object() -> None:
    """save(file, kind="png") writes the same PNG to a binary file object."""
    buffer = io.BytesIO()

    QR.save(buffer, kind="png", scale=2)

    assert segno_matrix(VALUE, 4) == sample(decode_png(buffer.getvalue()), 2)


def test_save_svg(tmp_path: Path) -> None:
    """save("x.SVG") writes an SVG whose path draws exactly the dark modules."""
    target = tmp_path / "qr.SVG"

    QR.save(str(target), scale=5)

    modules, width, height = decode_svg(target.read_text(encoding="utf-8"))
    expected = segno_matrix(VALUE, 4)
    assert (len(expected) * 5, len(expected) * 5) == (width, height)
    assert expected == modules


@pytest.mark.parametrize(
    ("target", "kind", "message"),
    [
        ("qr.jpg", None, "cannot tell the image kind of 'qr.jpg': use .png or .svg"),
        ("qr", None, "cannot tell the image kind of 'qr': use .png or .svg"),
        ("qr.png", "gif", "unsupported QR image kind 'gif': use 'png' or 'svg'"),
        (io.BytesIO(), None, "kind='png' or kind='svg' is required when saving to a file object"),
    ],
)
def test_save_refuses_unknown_kinds(target: object, kind: str | None, message: str) -> None:
    """save() raises ValueError for a kind it cannot tell or does not support."""
    with pytest.raises(ValueError) as info:
        QR.save(target, kind=kind)  # type: ignore[arg-type]

    assert message == str(info.value)


def test_to_terminal_ascii_only() -> None:
    """ascii_only draws one text line per row, "##" per drawn module, light modules by default."""
    expected = _qr.matrix(VALUE, border=2)

    text = _qr.to_terminal(VALUE, ascii_only=True)

    rows = [[line[i : i + 2] == "##" for i in range(0, len(line), 2)] for line in text.splitlines()]
    assert set(text) <= {"#", " ", "\n"}
    assert [[not m for m in row] for row in expected] == rows


def test_to_terminal_colour() -> None:
    """colour=True wraps every line in black-on-white ANSI codes and draws the dark modules."""
    text = _qr.to_terminal(VALUE, colour=True, border=1)

    lines = text.splitlines()
    assert all(line.startswith("\x1b[30;107m") and line.endswith("\x1b[0m") for line in lines)
    inner = "\n".join(line[len("\x1b[30;107m") : -len("\x1b[0m")] for line in lines)
    rows = decode_half_blocks(inner)
    expected = _qr.matrix(VALUE, border=1)
    assert expected == rows[: len(expected)]


def test_save_with_border_and_upper_case_kind() -> None:
    """save() takes a border and a kind in any case."""
    buffer = io.BytesIO()

    _qr.save(VALUE, buffer, kind="PNG", scale=1, border=0)

    assert segno_matrix(VALUE, 0) == decode_png(buffer.getvalue())


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: _qr.matrix(""), "a QR code needs a non-empty str to encode"),
        (lambda: _qr.matrix(VALUE, border=-1), "border must be an int >= 0, not -1"),
        (lambda: _qr.to_terminal(VALUE, border=True), "border must be an int >= 0, not True"),
        (
            lambda: _qr.save(VALUE, io.BytesIO(), kind="svg", scale=0),
            "scale must be an int >= 1, not 0",
        ),
    ],
)
def test_bad_content_or_sizes(call: Any, message: str) -> None:
    """Empty content and negative or non-int sizes raise ValueError saying which."""
    with pytest.raises(ValueError) as info:
        call()

    assert message == str(info.value)


# --- web pages: SVG text and data: URIs ----------------------------------------------------


def decode_web_svg(text: str) -> tuple[Matrix, int, str]:
    """Read the web SVG: its modules (from the stroked path), its width and its background."""
    root = ElementTree.fromstring(text)
    assert "{http://www.w3.org/2000/svg}svg" == root.tag
    width = int(root.attrib["width"])
    groups = list(root.iter("{http://www.w3.org/2000/svg}g"))  # none at scale 1
    transform = groups[0].attrib["transform"] if groups else "scale(1)"
    scale = int(re.fullmatch(r"scale\((\d+)\)", transform).group(1))  # type: ignore[union-attr]
    background, path = root.iter("{http://www.w3.org/2000/svg}path")
    assert "#000" == path.attrib["stroke"]
    size = width // scale
    modules = [[False] * size for _ in range(size)]
    x = y = 0.0
    for command, args in re.findall(r"([MmHhVv])([-\d.\s]+)", path.attrib["d"]):
        numbers = [float(n) for n in args.split()]
        if command == "M":
            x, y = numbers
        elif command == "m":
            x, y = x + numbers[0], y + numbers[1]
        elif command == "h":
            for column in range(int(x), int(x + numbers[0])):
                modules[int(y)][column] = True
            x += numbers[0]
        else:
            raise AssertionError(f"unexpected path command {command}")
    return modules, width, background.attrib["fill"]


@pytest.mark.parametrize(("scale", "border"), [(1, 4), (6, 4), (3, 0)])
def test_to_svg_draws_the_modules_on_white(scale: int, border: int) -> None:
    """to_svg() is a standalone SVG (xmlns, no XML declaration): black modules on opaque white."""
    text = QR.to_svg(scale=scale, border=border)

    modules, width, background = decode_web_svg(text)
    expected = segno_matrix(VALUE, border)
    assert text.startswith("<svg xmlns=")
    assert (expected, len(expected) * scale, "#fff") == (modules, width, background)


def test_to_svg_title() -> None:
    """A title becomes the SVG's accessible name."""
    root = ElementTree.fromstring(QR.to_svg(title="Pair the terminal"))

    (title,) = root.iter("{http://www.w3.org/2000/svg}title")
    assert "Pair the terminal" == title.text


def test_to_data_uri_svg() -> None:
    """The default data: URI is the same SVG, URL-encoded, for <img src>."""
    from urllib.parse import unquote

    uri = QR.to_data_uri(scale=2)

    prefix = "data:image/svg+xml;charset=utf-8,"
    assert uri.startswith(prefix)
    assert segno_matrix(VALUE, 4) == decode_web_svg(unquote(uri[len(prefix) :]))[0]


@pytest.mark.parametrize("kind", ["png", "PNG"])
def test_to_data_uri_png(kind: str) -> None:
    """kind="png" gives a base64 PNG whose pixels are the modules."""
    import base64

    uri = QR.to_data_uri(kind, scale=3, border=2)

    prefix = "data:image/png;base64,"
    assert uri.startswith(prefix)
    pixels = decode_png(base64.b64decode(uri[len(prefix) :]))
    assert segno_matrix(VALUE, 2) == sample(pixels, 3)


def test_to_data_uri_scans_with_a_real_decoder() -> None:
    """The PNG data: URI decodes back to the QR value with zxing-cpp."""
    import base64

    zxingcpp = pytest.importorskip("zxingcpp")
    image_module = pytest.importorskip("PIL.Image")

    data = base64.b64decode(QR.to_data_uri("png").split(",", 1)[1])
    image = image_module.open(io.BytesIO(data))

    assert [VALUE] == [result.text for result in zxingcpp.read_barcodes(image)]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: QR.to_data_uri("gif"), "unsupported QR image kind 'gif': use 'png' or 'svg'"),
        (lambda: QR.to_data_uri(None), "unsupported QR image kind None: use 'png' or 'svg'"),
        (lambda: QR.to_data_uri("png", scale=0), "scale must be an int >= 1, not 0"),
        (lambda: QR.to_svg(border=-1), "border must be an int >= 0, not -1"),
        (lambda: QR.to_svg(title=3), "title must be a str or None, not int"),
        (lambda: _qr.to_svg(""), "a QR code needs a non-empty str to encode"),
    ],
)
def test_web_renderings_refuse_bad_options(call: Any, message: str) -> None:
    """Unknown kinds and bad sizes raise ValueError saying which."""
    with pytest.raises(ValueError) as info:
        call()

    assert message == str(info.value)
