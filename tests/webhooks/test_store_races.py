"""Processes racing on one SQLite file: puts, claims, and a worker killed with SIGKILL."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from races import StoreSpec, race_claims, race_killed_worker, race_puts

from smartpos.webhooks._sqlite import SQLiteStore

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals"),
]


@pytest.fixture(params=["FULL", "NORMAL"])
def spec(request: pytest.FixtureRequest, tmp_path: Path) -> StoreSpec:
    """A new SQLite file that each process opens on its own, in either synchronous mode."""
    return StoreSpec(SQLiteStore, (str(tmp_path / "inbox.db"),), {"synchronous": request.param})


def test_processes_putting_the_same_ids(spec: StoreSpec) -> None:
    """Four processes putting the same 200 ids at once get each id NEW exactly once."""
    race_puts(spec, processes=4, events=200)


def test_processes_claiming_at_once(spec: StoreSpec) -> None:
    """Four processes claiming and acking at once claim every event once and miss none."""
    race_claims(spec, processes=4, events=400)


def test_killed_worker_loses_its_claim(spec: StoreSpec) -> None:
    """After kill -9 of a worker holding a claim, the event returns and the late ack fails."""
    race_killed_worker(spec, lease=2.0)
