"""The pytest plugin (entry point ``pytest11``): sandbox and client fixtures for integrators.

``smartpos_sandbox`` is a fresh :class:`~smartpos.testing.Sandbox`; ``smartpos_client`` and
``smartpos_async_client`` are clients bound to it through its transport, with retries
immediate (``retry_backoff=0``).

Every pytest run in an environment that has smartpos installed loads this module, so it imports
only pytest: the sandbox, httpx and the clients are imported inside the fixtures, when a test
uses them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    import smartpos

    from ._sandbox import Sandbox

__all__ = ["smartpos_async_client", "smartpos_client", "smartpos_sandbox"]

_BASE_URL = "http://sandbox.invalid"


@pytest.fixture
def smartpos_sandbox() -> Iterator[Sandbox]:
    """A fresh sandbox with the default world, closed after the test.

    Yields:
        The sandbox.
    """
    from ._sandbox import Sandbox

    with Sandbox() as sandbox:
        yield sandbox


@pytest.fixture
def smartpos_client(smartpos_sandbox: Sandbox) -> Iterator[smartpos.Client]:
    """A ``smartpos.Client`` bound to ``smartpos_sandbox`` with the default partner's key.

    Yields:
        The client, closed after the test.
    """
    import smartpos

    with smartpos.Client(
        api_key=smartpos_sandbox.API_KEY,
        base_url=_BASE_URL,
        transport=smartpos_sandbox.transport(),
        retry_backoff=0,
    ) as client:
        yield client


@pytest.fixture
def smartpos_async_client(smartpos_sandbox: Sandbox) -> smartpos.AsyncClient:
    """A ``smartpos.AsyncClient`` bound to ``smartpos_sandbox`` (a sync fixture: no plugin needed).

    The sandbox transport holds no connection, so the client needs no closing; use it inside
    ``async with`` to close it anyway.

    Returns:
        The client.
    """
    import smartpos

    return smartpos.AsyncClient(
        api_key=smartpos_sandbox.API_KEY,
        base_url=_BASE_URL,
        transport=smartpos_sandbox.transport(),
        retry_backoff=0,
    )
