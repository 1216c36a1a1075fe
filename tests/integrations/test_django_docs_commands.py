"""The ``python manage.py`` lines of the Django guides (docs/*/django.md), run as written in the
example shop's folder (examples/django_shop) on a fresh SQLite database (``DJANGO_DB``, read by
the shop's settings), each expected to exit 0.

One change to the lines: ``smartpos_copy --from`` reads ``/var/lib/shop/smartpos-inbox.sqlite3``
in the guide (a project's own inbox); here that path is a temporary ``SQLiteStore`` holding one
event. ``smartpos_worker`` runs until SIGTERM, as the guide says: it is stopped with SIGTERM
once it has processed an event (so its signal handlers are in place), and must exit 0.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("django")

from framework_helpers import EXAMPLES
from store_contract import make_event

from smartpos import webhooks
from test_docs_site import BLOCKS, RUNNERS, Block, runner, shell_commands

SHOP = EXAMPLES / "django_shop"
#: The inbox the guide copies from, replaced by a temporary one.
GUIDE_INBOX = "/var/lib/shop/smartpos-inbox.sqlite3"
EVENT_ID = "ev-docs-1"

GUIDE_BLOCKS = [block for block in BLOCKS if runner(block) == RUNNERS["manage.py"]]

pytestmark = pytest.mark.slow


def shop_env(database: Path) -> dict[str, str]:
    """The environment of a shop's manage.py on ``database``: the settings' own variables."""
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SHOP_", "SMARTPOS_"))
    }
    return {
        **clean,
        "DJANGO_DB": str(database),
        "SMARTPOS_WEBHOOK_SECRET": "docs-secret",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def argv(words: list[str], inbox: Path) -> list[str]:
    """A guide's command as this test runs it: this interpreter, the temporary inbox."""
    return [
        sys.executable if i == 0 and word == "python" else word.replace(GUIDE_INBOX, str(inbox))
        for i, word in enumerate(words)
    ]


def run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=SHOP, env=env, capture_output=True, text=True, timeout=180, check=False
    )


def event_states(database: Path) -> dict[str, str]:
    """The shop database's smartpos events and their states (read on a connection of its own)."""
    with contextlib.closing(sqlite3.connect(database, timeout=30)) as conn:
        return dict(conn.execute("SELECT event_id, state FROM smartpos_event").fetchall())


def run_worker_until_sigterm(command: list[str], env: dict[str, str], database: Path) -> None:
    """Start the worker, wait until it processed the waiting event, SIGTERM it: exit 0."""
    worker = subprocess.Popen(
        command,
        cwd=SHOP,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while event_states(database).get(EVENT_ID) != "done":
            assert worker.poll() is None, worker.communicate()
            assert time.monotonic() < deadline, "the worker did not process the event"
            time.sleep(0.1)
        worker.send_signal(signal.SIGTERM)
        out, err = worker.communicate(timeout=60)
    finally:
        if worker.poll() is None:  # pragma: no cover - a hung worker fails the test
            worker.kill()
            worker.communicate()
    assert 0 == worker.returncode, out + err
    assert "processing DjangoStore(using='default')" in out


def test_the_guides_blocks_are_found() -> None:
    """Each guide, in each language, has its manage.py blocks run here."""
    paths = sorted(block.path for block in GUIDE_BLOCKS)
    assert ["docs/en/django.md"] * 2 + ["docs/pt-BR/django.md"] * 2 == paths
    commands = {" ".join(words[2:3]) for block in GUIDE_BLOCKS for words in shell_commands(block)}
    assert {"migrate", "smartpos_worker", "smartpos_copy"} == commands


@pytest.mark.parametrize("block", GUIDE_BLOCKS, ids=str)
def test_the_guides_manage_py_lines_exit_0(block: Block, tmp_path: Path) -> None:
    """Each line of the block, in order, on a fresh database; the worker until SIGTERM."""
    database = tmp_path / "shop.sqlite3"
    inbox = tmp_path / "smartpos-inbox.sqlite3"
    with webhooks.SQLiteStore(inbox) as source:
        source.put(make_event(EVENT_ID))
    env = shop_env(database)

    for words in shell_commands(block):
        command = argv(words, inbox)
        if words[2] == "smartpos_worker":
            # An event waiting for it (copied with the guide's other command).
            seed = run(argv(["python", "manage.py", "smartpos_copy", "--from",
                             f"sqlite:///{GUIDE_INBOX}"], inbox), env)  # fmt: skip
            assert 0 == seed.returncode, seed.stdout + seed.stderr
            run_worker_until_sigterm(command, env, database)
            continue
        done = run(command, env)
        assert 0 == done.returncode, f"{' '.join(words)}:\n{done.stdout}{done.stderr}"
        if "--dry-run" in words:
            assert {} == event_states(database), done.stdout
        elif words[2] == "smartpos_copy":
            assert {EVENT_ID: "pending"} == event_states(database), done.stdout
