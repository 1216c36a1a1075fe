"""Client and AsyncClient have the same resources, methods and signatures.

The sync client is generated from the async one by ``scripts/unasync.py``; a test runs its
``--check`` so a hand edit of ``_sync_client.py`` (or a forgotten regeneration) fails here too.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import inspect
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

import smartpos

ROOT = Path(__file__).resolve().parent.parent
TRANSPORT = httpx.MockTransport(lambda request: httpx.Response(500))


@pytest.fixture
def sync_client() -> Iterator[smartpos.Client]:
    with smartpos.Client(api_key="k", base_url="http://h", transport=TRANSPORT) as client:
        yield client


@pytest_asyncio.fixture
async def async_client() -> Any:
    async with smartpos.AsyncClient(
        api_key="k", base_url="http://h", transport=TRANSPORT
    ) as client:
        yield client


def resources(client: object) -> dict[str, object]:
    """The client's resource namespaces: its public attributes that are not methods or data."""
    return {
        name: value
        for name, value in vars(client).items()
        if not name.startswith("_") and not callable(value)
    }


def public_methods(obj: object) -> dict[str, Any]:
    return {
        name: getattr(obj, name)
        for name in dir(obj)
        if not name.startswith("_") and callable(getattr(obj, name))
    }


def describe(signature: inspect.Signature) -> list[tuple[str, str, str, str]]:
    """Parameters as (name, kind, default, annotation) strings, then the return annotation."""
    rows = [
        (p.name, p.kind.name, repr(p.default), str(p.annotation))
        for p in signature.parameters.values()
    ]
    rows.append(("return", "", "", str(signature.return_annotation)))
    return rows


def test_same_resources_methods_and_signatures(
    sync_client: smartpos.Client, async_client: smartpos.AsyncClient
) -> None:
    """Every resource of both clients has the same method names and identical signatures."""
    sync_resources, async_resources = resources(sync_client), resources(async_client)

    assert ["payments", "print_jobs", "qrcodes", "refunds", "terminals"] == sorted(sync_resources)
    assert sorted(sync_resources) == sorted(async_resources)
    for name, resource in sync_resources.items():
        sync_methods = public_methods(resource)
        async_methods = public_methods(async_resources[name])
        assert sorted(sync_methods) == sorted(async_methods), name
        for method, function in sync_methods.items():
            coroutine = async_methods[method]
            assert describe(inspect.signature(function)) == describe(
                inspect.signature(coroutine)
            ), f"{name}.{method}"
            assert inspect.iscoroutinefunction(coroutine), f"{name}.{method}"
            assert not inspect.iscoroutinefunction(function), f"{name}.{method}"
            assert (function.__doc__ or "x") == (coroutine.__doc__ or "y"), f"{name}.{method}"


def test_raw_response_twins_match(
    sync_client: smartpos.Client, async_client: smartpos.AsyncClient
) -> None:
    """Each resource's with_raw_response has the same methods, with the same signatures as
    the plain methods of the same name, in both clients."""
    for name, resource in resources(sync_client).items():
        sync_raw = resource.with_raw_response  # type: ignore[attr-defined]
        async_raw = getattr(async_client, name).with_raw_response
        sync_methods, async_methods = public_methods(sync_raw), public_methods(async_raw)

        assert sorted(sync_methods) == sorted(async_methods), name
        assert sync_methods, name
        for method, function in sync_methods.items():
            plain = inspect.signature(getattr(resource, method))
            assert describe(plain) == describe(inspect.signature(function)), f"{name}.{method}"
            assert describe(inspect.signature(function)) == describe(
                inspect.signature(async_methods[method])
            ), f"{name}.{method}"
            assert inspect.iscoroutinefunction(async_methods[method]), f"{name}.{method}"


def test_every_resource_argument_is_keyword_only() -> None:
    """All arguments of resource methods are keyword-only (create_for's event aside)."""
    with smartpos.Client(api_key="k", base_url="http://h", transport=TRANSPORT) as client:
        for name, resource in resources(client).items():
            for method, function in public_methods(resource).items():
                for parameter in inspect.signature(function).parameters.values():
                    if (name, method, parameter.name) == ("refunds", "create_for", "evento"):
                        continue
                    assert inspect.Parameter.KEYWORD_ONLY == parameter.kind, (
                        f"{name}.{method}({parameter.name})"
                    )


def _unasync(text: str) -> str:
    """The sync spelling of the async names in a signature."""
    return re.sub(r"Async(\w)", r"\1", text).replace("AsyncBaseTransport", "BaseTransport")


def test_constructor_and_client_methods_match() -> None:
    """The constructors match up to the httpx sync/async types, and both have close()."""
    sync_init = describe(inspect.signature(smartpos.Client.__init__))
    async_init = describe(inspect.signature(smartpos.AsyncClient.__init__))

    assert sync_init == [tuple(_unasync(part) for part in row) for row in async_init]
    assert sorted(public_methods(smartpos.Client)) == sorted(public_methods(smartpos.AsyncClient))
    methods = ["abandon", "compensate", "reconcile", "request", "wait", "with_options"]
    assert sorted(["base_url", "close", *methods]) == sorted(
        n for n in dir(smartpos.Client) if not n.startswith("_")
    )
    for name in methods:
        async_signature = describe(inspect.signature(getattr(smartpos.AsyncClient, name)))
        assert describe(inspect.signature(getattr(smartpos.Client, name))) == [
            tuple(_unasync(part) for part in row) for row in async_signature
        ], name
        if name != "with_options":
            assert inspect.iscoroutinefunction(getattr(smartpos.AsyncClient, name)), name
    assert inspect.iscoroutinefunction(smartpos.AsyncClient.close)
    assert hasattr(smartpos.Client, "__enter__")
    assert hasattr(smartpos.AsyncClient, "__aenter__")


def test_sync_client_is_generated_from_the_async_one() -> None:
    """scripts/unasync.py --check passes: _sync_client.py is exactly what the script generates."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "unasync.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )

    assert (0, "src/smartpos/_sync_client.py is up to date\n") == (result.returncode, result.stdout)
