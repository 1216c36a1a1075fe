"""QR codes a person can scan: what is drawn and saved decodes back to the encoded value.

Two independent checks. The terminal drawing is parsed back into modules and compared with
segno's matrix (always). Images, and the terminal drawing rendered as an image, are decoded by
a real QR reader, zxing-cpp (``pip install zxing-cpp pillow``), when it is installed.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import cli_env, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from smartpos import _qr
from smartpos.testing import Sandbox

SANDBOX_VALUE = "smartpos:qr:v1:6b0e0bfd-14cf-4fea-8c2d-629985232e3d"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_HALF = {
    "\u2588": (True, True),
    "\u2580": (True, False),
    "\u2584": (False, True),
    " ": (False, False),
}


def parse_drawing(text: str, *, ascii_only: bool = False) -> list[list[bool]]:
    """Turn a terminal drawing back into rows of 'drawn' flags (one flag per module)."""
    lines = [_ANSI.sub("", line) for line in text.splitlines()]
    if ascii_only:
        return [[line[i : i + 2] == "##" for i in range(0, len(line), 2)] for line in lines]
    rows: list[list[bool]] = []
    for line in lines:
        pairs = [_HALF[ch] for ch in line]
        rows.append([top for top, _ in pairs])
        rows.append([bottom for _, bottom in pairs])
    return rows


def dark_modules(text: str, *, draws_dark: bool, ascii_only: bool = False) -> list[list[bool]]:
    """The dark modules of a drawing, whichever polarity it was drawn in."""
    drawn = parse_drawing(text, ascii_only=ascii_only)
    return [[flag == draws_dark for flag in row] for row in drawn]


def decode(image: Any) -> list[str]:
    """Decode every QR code in a PIL image with zxing-cpp."""
    zxingcpp = pytest.importorskip("zxingcpp")
    return [result.text for result in zxingcpp.read_barcodes(image)]


def image_of(modules: list[list[bool]], scale: int = 6) -> Any:
    """Render modules (True = dark) as a black-on-white PIL image."""
    image_module = pytest.importorskip("PIL.Image")
    height, width = len(modules), len(modules[0])
    image = image_module.new("L", (width * scale, height * scale), 255)
    pixels = image.load()
    for y, row in enumerate(modules):
        for x, dark in enumerate(row):
            if dark:
                for dy in range(scale):
                    for dx in range(scale):
                        pixels[x * scale + dx, y * scale + dy] = 0
    return image


@pytest.mark.parametrize(
    ("options", "draws_dark"),
    [
        ({}, False),
        ({"invert": True}, True),
        ({"colour": True}, True),
        ({"colour": True, "invert": True}, True),
    ],
)
def test_half_block_drawing_matches_segno_matrix(
    options: dict[str, bool], draws_dark: bool
) -> None:
    """Every module of the half-block drawing matches segno's matrix, in every polarity."""
    border = 2
    text = _qr.to_terminal(SANDBOX_VALUE, border=border, **options)
    expected = _qr.matrix(SANDBOX_VALUE, border=border)
    parsed = dark_modules(text, draws_dark=draws_dark)
    # An odd number of rows is padded with one light row at the bottom.
    assert parsed[: len(expected)] == expected
    assert all(not dark for row in parsed[len(expected) :] for dark in row)


def test_ascii_drawing_matches_segno_matrix() -> None:
    """The ``##`` fallback draws one text line per row, module for module."""
    text = _qr.to_terminal(SANDBOX_VALUE, border=1, ascii_only=True)
    expected = _qr.matrix(SANDBOX_VALUE, border=1)
    assert dark_modules(text, draws_dark=False, ascii_only=True) == expected


def test_colour_drawing_sets_black_on_white_per_line() -> None:
    """With colour, every line sets black on white and resets, so any theme reads it right."""
    lines = _qr.to_terminal(SANDBOX_VALUE, colour=True).splitlines()
    assert all(line.startswith("\x1b[30;107m") and line.endswith("\x1b[0m") for line in lines)


def test_matrix_has_a_quiet_zone_and_finder_patterns() -> None:
    """The matrix is square, bordered by light modules, with a finder pattern in the corner."""
    matrix = _qr.matrix(SANDBOX_VALUE, border=4)
    size = len(matrix)
    assert all(len(row) == size for row in matrix)
    assert not any(matrix[0])
    assert not any(row[0] for row in matrix)
    assert matrix[4][4:11] == [True] * 7


@settings(max_examples=40, deadline=None)
@given(st.text(min_size=1, max_size=120))
def test_any_text_draws_its_own_matrix(content: str) -> None:
    """For any text, the terminal drawing parses back to segno's matrix of that text."""
    text = _qr.to_terminal(content, border=0)
    expected = _qr.matrix(content, border=0)
    assert dark_modules(text, draws_dark=False)[: len(expected)] == expected


def test_png_decodes_back_to_the_value() -> None:
    """A saved PNG read by a real QR decoder gives back exactly the encoded value."""
    pil = pytest.importorskip("PIL.Image")
    buffer = io.BytesIO()
    _qr.save(SANDBOX_VALUE, buffer, kind="png", scale=4)
    buffer.seek(0)
    assert decode(pil.open(buffer)) == [SANDBOX_VALUE]


@settings(max_examples=15, deadline=None)
@given(
    st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=80)
)
def test_png_round_trip_any_text(content: str) -> None:
    """Random printable ASCII (what qrCode values are made of) round-trips through a PNG."""
    pil = pytest.importorskip("PIL.Image")
    buffer = io.BytesIO()
    _qr.save(content, buffer, kind="png", scale=3)
    buffer.seek(0)
    assert decode(pil.open(buffer)) == [content]


@pytest.mark.parametrize("options", [{}, {"invert": True}, {"ascii_only": True}])
def test_terminal_drawing_scans(options: dict[str, bool]) -> None:
    """The terminal drawing, rendered as pixels the way a screen shows it, scans."""
    text = _qr.to_terminal(SANDBOX_VALUE, **options)
    draws_dark = options.get("invert", False)
    modules = dark_modules(text, draws_dark=draws_dark, ascii_only=options.get("ascii_only", False))
    assert decode(image_of(modules)) == [SANDBOX_VALUE]


def test_svg_has_the_matrix_size(tmp_path: Path) -> None:
    """A saved SVG is an SVG of (modules + 2 x border) x scale units per side."""
    target = tmp_path / "qr.svg"
    _qr.save(SANDBOX_VALUE, target, scale=5)
    svg = target.read_text()
    side = (len(_qr.matrix(SANDBOX_VALUE)) + 8) * 5
    assert svg.startswith(("<?xml", "<svg"))
    assert f'width="{side}"' in svg
    assert f'height="{side}"' in svg


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: _qr.save(SANDBOX_VALUE, "qr.jpg"), "use .png or .svg"),
        (lambda: _qr.save(SANDBOX_VALUE, io.BytesIO()), "kind='png' or kind='svg'"),
        (lambda: _qr.save(SANDBOX_VALUE, io.BytesIO(), kind="gif"), "unsupported"),
        (lambda: _qr.save(SANDBOX_VALUE, io.BytesIO(), kind="png", scale=0), "scale"),
        (lambda: _qr.to_terminal(SANDBOX_VALUE, border=-1), "border"),
        (lambda: _qr.matrix(""), "non-empty"),
    ],
)
def test_bad_arguments_are_refused(call: Any, message: str) -> None:
    """Unknown image kinds, bad sizes and empty content raise ValueError with a clear message."""
    with pytest.raises(ValueError, match=re.escape(message)):
        call()


def test_qrcode_model_uses_the_same_rendering() -> None:
    """``QRCode.to_terminal()``/``save()`` render with this module's defaults."""
    import datetime as dt

    from smartpos import QRCode

    qr = QRCode(SANDBOX_VALUE, "r", dt.datetime(2030, 1, 1, tzinfo=dt.timezone.utc))
    assert qr.to_terminal() == _qr.to_terminal(SANDBOX_VALUE)
    buffer, expected = io.BytesIO(), io.BytesIO()
    qr.save(buffer, kind="png")
    _qr.save(SANDBOX_VALUE, expected, kind="png")
    assert buffer.getvalue() == expected.getvalue()


@pytest.mark.slow
def test_cli_png_decodes_to_the_printed_value(tmp_path: Path) -> None:
    """End to end: ``smartpos qrcode --png`` saves an image that scans as the printed qrCode."""
    pil = pytest.importorskip("PIL.Image")
    pytest.importorskip("zxingcpp")
    png = tmp_path / "qr.png"
    with Sandbox() as sandbox, sandbox.serve() as base_url:
        result = run_cli(
            "qrcode",
            Sandbox.DOCUMENTO,
            "--png",
            str(png),
            "--json",
            "--api-key",
            Sandbox.API_KEY,
            "--base-url",
            base_url,
        )
    assert result.returncode == 0, result.stderr
    value = json.loads(result.stdout)["qr_code"]
    assert decode(pil.open(png)) == [value]


@pytest.mark.slow
def test_cli_drawing_scans() -> None:
    """End to end: the QR code ``smartpos qrcode`` draws in the terminal scans as its value."""
    with Sandbox() as sandbox, sandbox.serve() as base_url:
        result = subprocess.run(
            [sys.executable, "-m", "smartpos", "qrcode", Sandbox.DOCUMENTO],
            env=cli_env(SMARTPOS_API_KEY=Sandbox.API_KEY, SMARTPOS_BASE_URL=base_url),
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=60,
            check=False,
        )
    assert result.returncode == 0, result.stderr
    value = re.search(r"qrCode\s+(\S+)", result.stdout)
    assert value is not None
    drawing = "\n".join(
        line[2:] for line in result.stdout.splitlines() if set(line[2:]) <= set(_HALF) and line[2:]
    )
    modules = dark_modules(drawing, draws_dark=False)
    assert modules[: len(_qr.matrix(value.group(1), border=2))] == _qr.matrix(
        value.group(1), border=2
    )
    assert decode(image_of(modules)) == [value.group(1)]
