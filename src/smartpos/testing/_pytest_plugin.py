"""The pytest plugin (entry point ``pytest11``): sandbox and client fixtures for integrators.

``smartpos_sandbox`` is a fresh [`Sandbox`][smartpos.testing.Sandbox] with the tests' fast
webhook retry schedule (``webhook_attempts=4, webhook_backoff=0.05``: 0.35 s in all, where a
sandbox's default waits minutes, as a real sender does); ``smartpos_sandbox_url``
serves it over HTTP on 127.0.0.1 (for code that takes a base URL, or runs in a subprocess);
``smartpos_client`` and ``smartpos_async_client`` are clients bound to it through its transport,
with retries immediate (``retry_backoff=0``).

Markers script the sandbox before the test runs, in the sandbox's vocabulary (words or
objects), from the module, class and function, in that order:

- ``@pytest.mark.smartpos_payments(*outcomes, times=1, smartpos_id=None)``
- ``@pytest.mark.smartpos_prints(*outcomes, times=1, smartpos_id=None)``
- ``@pytest.mark.smartpos_fault(endpoint, fault, times=1)`` (``endpoint`` ``"webhook"`` too)
- ``@pytest.mark.smartpos_sandbox(**options)``: ``Sandbox(...)``'s options (``seed``,
  ``webhook_headers``, ``webhook_attempts``...)
- ``@pytest.mark.smartpos_webhook_signing(scheme, secret, **options)``: every delivery signed,
  as ``Sandbox(webhook_signing=WebhookSigning(scheme, secret, **options))``

Every pytest run in an environment that has smartpos installed loads this module, so it imports
only pytest: the sandbox, httpx and the clients are imported inside the fixtures, when a test
uses them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    import smartpos

    from ._sandbox import Sandbox

__all__ = [
    "MARKERS",
    "pytest_configure",
    "smartpos_async_client",
    "smartpos_client",
    "smartpos_sandbox",
    "smartpos_sandbox_url",
]

_BASE_URL = "http://sandbox.invalid"

MARKERS = {
    "smartpos_payments": "smartpos_payments(*outcomes, times=1, smartpos_id=None): script "
    "what the next payments of smartpos_sandbox do ('recusar', 'silencio', 'atraso 5', "
    "'segurar aprovar', 'contradicao recusar', Refuse(...)).",
    "smartpos_prints": "smartpos_prints(*outcomes, times=1, smartpos_id=None): script what "
    "the next print jobs of smartpos_sandbox do ('falhar', PrintFail(...)).",
    "smartpos_fault": "smartpos_fault(endpoint, fault, times=1): a fault for the next requests "
    "to an endpoint of smartpos_sandbox ('payments', 'drop'); endpoint 'webhook' for deliveries.",
    "smartpos_sandbox": "smartpos_sandbox(**options): Sandbox(...) options of smartpos_sandbox "
    "(seed, qr_code_ttl, webhook_headers, webhook_attempts...).",
    "smartpos_webhook_signing": "smartpos_webhook_signing(scheme, secret, **options): "
    "smartpos_sandbox signs every delivery so (the schemes and options of "
    "smartpos.testing.sign).",
}
"""The markers this plugin registers, with their help line."""


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers, so ``--strict-markers`` accepts them.

    Args:
        config: pytest's configuration.
    """
    for help_line in MARKERS.values():
        config.addinivalue_line("markers", help_line)


def _markers(request: pytest.FixtureRequest, name: str) -> list[pytest.Mark]:
    """The markers ``name`` of the test, outermost (module) first."""
    return list(reversed(list(request.node.iter_markers(name))))


def _script(sandbox: Sandbox, request: pytest.FixtureRequest) -> None:
    for mark in _markers(request, "smartpos_payments"):
        sandbox.script_payments(*mark.args, **mark.kwargs)
    for mark in _markers(request, "smartpos_prints"):
        sandbox.script_prints(*mark.args, **mark.kwargs)
    for mark in _markers(request, "smartpos_fault"):
        _fault(sandbox, *mark.args, **mark.kwargs)


def _fault(sandbox: Sandbox, endpoint: str, fault: Any, times: int = 1) -> None:
    if endpoint != "webhook":
        sandbox.fail_next(endpoint, fault, times=times)
    elif str(fault) == "timeout":
        sandbox.slow_webhook(times=times)
    else:
        sandbox.fail_webhook(times=times, status_code=int(fault))


@pytest.fixture
def smartpos_sandbox(request: pytest.FixtureRequest) -> Iterator[Sandbox]:
    """A fresh sandbox with the default world, scripted by the test's markers, closed after it.

    Its deliveries are retried on the fast schedule (``webhook_attempts=4``,
    ``webhook_backoff=0.05``) unless ``smartpos_sandbox(...)`` says otherwise.

    Yields:
        The sandbox.
    """
    from ._delivery import FAST_ATTEMPTS, FAST_BACKOFF
    from ._sandbox import Sandbox
    from ._signing import WebhookSigning

    options: dict[str, Any] = {"webhook_attempts": FAST_ATTEMPTS, "webhook_backoff": FAST_BACKOFF}
    for mark in _markers(request, "smartpos_webhook_signing"):
        options["webhook_signing"] = WebhookSigning(*mark.args, **mark.kwargs)
    for mark in _markers(request, "smartpos_sandbox"):
        options.update(mark.kwargs)
    with Sandbox(**options) as sandbox:
        _script(sandbox, request)
        yield sandbox


@pytest.fixture
def smartpos_sandbox_url(smartpos_sandbox: Sandbox) -> Iterator[str]:
    """``smartpos_sandbox`` served over real HTTP on 127.0.0.1 during the test.

    For code under test that takes a base URL or runs in another process; its control API
    (``/_sandbox/v1/``, ``smartpos.testing.RemoteSandbox``) is served too.

    Yields:
        The base URL, e.g. ``"http://127.0.0.1:54321"``.
    """
    with smartpos_sandbox.serve() as base_url:
        yield base_url


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
