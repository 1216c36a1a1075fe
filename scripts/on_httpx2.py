"""Run pytest with httpx2 standing in for httpx everywhere: smartpos, the tests, pytest-httpx.

``httpx2.alias_httpx()`` makes ``import httpx`` load httpx2 (and httpcore2), so the whole
client suite runs on httpx2 only: what an application that calls ``alias_httpx()`` at start-up
gets. ``tests/test_httpx2.py`` covers the other case, httpx and httpx2 side by side.

    python scripts/on_httpx2.py tests/test_clients.py tests/test_retries.py ...

Arguments go to pytest. httpx2 must be installed (Python 3.11 or later).
"""

from __future__ import annotations

import sys

import httpx2

# Before anything imports httpx: pytest's plugins (pytest-httpx, smartpos's own) are loaded by
# pytest.main below.
httpx2.alias_httpx()

import pytest  # noqa: E402

if __name__ == "__main__":
    # alias_httpx() imported anyio (httpx2's dependency) before pytest could register it for
    # assertion rewriting: that warning says nothing about the tests.
    sys.exit(pytest.main(["-W", "ignore::pytest.PytestAssertRewriteWarning", *sys.argv[1:]]))
