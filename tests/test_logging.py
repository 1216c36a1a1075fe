"""Logging: silent by default, one line per attempt, never the key, a body or a whole document."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap

import httpx
import pytest
from pytest_httpx import HTTPXMock

import smartpos
from client_cases import ACCEPTANCE_JSON, API_KEY, BASE_URL, CPF, REF, SDK
from smartpos import _logging


def smartpos_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "smartpos"]


def test_logger_has_a_null_handler() -> None:
    """The smartpos logger has a NullHandler: an application without logging sees nothing."""
    logger = logging.getLogger("smartpos")

    assert any(isinstance(h, logging.NullHandler) for h in logger.handlers)


@pytest.mark.asyncio
async def test_a_call_logs_one_line_per_attempt(
    sdk: SDK, httpx_mock: HTTPXMock, caplog: pytest.LogCaptureFixture
) -> None:
    """The referencia is logged before the first send; then each attempt logs method, path,
    status, attempt, elapsed, request id; never the key or the body."""
    caplog.set_level(logging.INFO, logger="smartpos")
    httpx_mock.add_response(status_code=503)
    httpx_mock.add_response(
        status_code=202, json=ACCEPTANCE_JSON, headers={"x-request-id": "req-7"}
    )

    await sdk.call(
        "payments",
        "create",
        documento_cliente=CPF,
        valor_centavos=1590,
        smartpos_id="SP-1",
        referencia=REF,
    )

    sending, first, second = smartpos_lines(caplog)
    assert f"POST /v1/payments sending referencia={REF}" == sending
    assert first.startswith("POST /v1/payments -> 503 attempt=1 elapsed_ms=")
    assert first.endswith(" request_id=-")
    assert second.startswith("POST /v1/payments -> 202 attempt=2 elapsed_ms=")
    assert second.endswith(" request_id=req-7")
    assert ["INFO", "WARNING", "INFO"] == [
        r.levelname for r in caplog.records if r.name == "smartpos"
    ]
    for text in (API_KEY, CPF, "valorCentavos", "1590"):
        assert text not in caplog.text


@pytest.mark.asyncio
async def test_terminals_list_logs_a_masked_document(
    sdk: SDK, httpx_mock: HTTPXMock, caplog: pytest.LogCaptureFixture
) -> None:
    """The document in the listing's path is masked in the SDK's log lines."""
    caplog.set_level(logging.INFO, logger="smartpos")
    httpx_mock.add_response(json=[])

    await sdk.call("terminals", "list", documento_cliente=CPF)

    (line,) = smartpos_lines(caplog)
    assert line.startswith("GET /v1/customers/123.***.***-09/smartpos -> 200 attempt=1 elapsed_ms=")
    assert CPF not in "\n".join(smartpos_lines(caplog))


@pytest.mark.asyncio
async def test_failures_and_unknown_outcomes_are_warnings(
    sdk: SDK, httpx_mock: HTTPXMock, caplog: pytest.LogCaptureFixture
) -> None:
    """A network failure logs the exception's name; an unknown outcome logs its referencia."""
    caplog.set_level(logging.INFO, logger="smartpos")
    httpx_mock.add_exception(httpx.ReadTimeout("timed out"), is_reusable=True)

    with pytest.raises(smartpos.OutcomeUnknownError):
        await sdk.call(
            "payments",
            "create",
            documento_cliente=CPF,
            valor_centavos=1,
            smartpos_id="S",
            referencia=REF,
        )

    sending, *lines = smartpos_lines(caplog)
    assert f"POST /v1/payments sending referencia={REF}" == sending
    assert [f"POST /v1/payments -> ReadTimeout attempt={n} elapsed_ms=" for n in (1, 2, 3)] == [
        line[: line.index("elapsed_ms=") + len("elapsed_ms=")] for line in lines[:3]
    ]
    assert (
        f"smartpos: outcome unknown for POST /v1/payments referencia={REF} after 3 attempt(s)"
        == lines[3]
    )
    assert ["INFO"] + ["WARNING"] * 4 == [
        r.levelname for r in caplog.records if r.name == "smartpos"
    ]
    assert API_KEY not in caplog.text


@pytest.mark.asyncio
async def test_nothing_logged_below_warning_by_default(
    sdk: SDK, httpx_mock: HTTPXMock, caplog: pytest.LogCaptureFixture
) -> None:
    """Without configuration (root at WARNING), a successful call logs nothing."""
    caplog.set_level(logging.WARNING)
    httpx_mock.add_response(json=[])

    await sdk.call("terminals", "list", documento_cliente=CPF)

    assert [] == smartpos_lines(caplog)


SCRIPT = textwrap.dedent(
    """
    import httpx, logging, smartpos, sys

    def handler(request):
        return httpx.Response(200, json=[], headers={"x-request-id": "sub-1"})

    with smartpos.Client(
        api_key=sys.argv[1], base_url="http://h", transport=httpx.MockTransport(handler)
    ) as client:
        client.terminals.list(documento_cliente="123.456.789-09")
    print(logging.getLevelName(logging.getLogger("smartpos").level))
    """
)


def run(level: str | None) -> subprocess.CompletedProcess[str]:
    """Run SCRIPT in a fresh interpreter with SMARTPOS_LOG set to ``level`` (or unset)."""
    env = {k: v for k, v in os.environ.items() if k not in ("SMARTPOS_LOG", "SMARTPOS_API_KEY")}
    if level is not None:
        env["SMARTPOS_LOG"] = level
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, API_KEY],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("level", "name"), [("debug", "DEBUG"), ("INFO", "INFO"), (" info ", "INFO")]
)
def test_smartpos_log_env_adds_a_stderr_handler(level: str, name: str) -> None:
    """SMARTPOS_LOG=debug|info makes the SDK log its lines to stderr, still without the key."""
    result = run(level)

    assert name == result.stdout.strip()
    (line,) = [line for line in result.stderr.splitlines() if " smartpos " in line]
    assert (
        " smartpos INFO GET /v1/customers/123.***.***-09/smartpos -> 200 attempt=1 elapsed_ms="
        in line
    )
    assert line.endswith(" request_id=sub-1")
    assert API_KEY not in result.stderr
    assert "12345678909" not in result.stderr


@pytest.mark.parametrize("level", [None, "", "verbose", "warning"])
def test_without_smartpos_log_stderr_stays_silent(level: str | None) -> None:
    """Without SMARTPOS_LOG (or with a value it does not know) nothing is written to stderr."""
    result = run(level)

    assert ("NOTSET", "") == (result.stdout.strip(), result.stderr)


@pytest.mark.asyncio
async def test_httpx_own_log_line_masks_the_document_of_the_listing(
    sdk: SDK, httpx_mock: HTTPXMock, caplog: pytest.LogCaptureFixture
) -> None:
    """httpx (httpx2 too) logs every URL at INFO; the document in the listing path is masked."""
    caplog.set_level(logging.INFO)
    httpx_mock.add_response(json=[{"smartposId": "SP-1"}])

    await sdk.call("terminals", "list", documento_cliente=CPF)

    lines = [r.getMessage() for r in caplog.records if r.name in ("httpx", "httpx2")]
    assert 1 == len(lines)
    assert "/v1/customers/123.***.***-09/smartpos" in lines[0]
    assert CPF not in caplog.text


@pytest.mark.parametrize("flavour", [smartpos.Client, smartpos.AsyncClient])
@pytest.mark.parametrize(("value", "level"), [("info", logging.INFO), ("DEBUG", logging.DEBUG)])
def test_smartpos_log_attaches_one_stderr_handler(
    monkeypatch: pytest.MonkeyPatch,
    flavour: type[smartpos.Client | smartpos.AsyncClient],
    value: str,
    level: int,
) -> None:
    """SMARTPOS_LOG is read once, when the first client is built, and adds one handler.

    The tests above check the output in a fresh interpreter; this in-process check resets
    the once-only flag and restores the logger afterwards.
    """
    logger = logging.getLogger("smartpos")
    handlers, old_level = list(logger.handlers), logger.level
    monkeypatch.setattr(_logging, "_log_configured", False)
    monkeypatch.setenv("SMARTPOS_LOG", value)
    try:
        flavour(api_key=API_KEY, base_url=BASE_URL)
        flavour(api_key=API_KEY, base_url=BASE_URL)  # a second client adds nothing

        added = [h for h in logger.handlers if h not in handlers]
        assert 1 == len(added)
        assert isinstance(added[0], logging.StreamHandler)
        assert level == logger.level
    finally:
        logger.handlers[:] = handlers
        logger.setLevel(old_level)
