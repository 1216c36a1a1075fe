"""The public names of smartpos.testing, and __all__ in every one of its modules."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import smartpos.testing


def test_exported_names_exist() -> None:
    """Each name smartpos.testing exports exists (which ones: tests/public_api.txt)."""
    for name in smartpos.testing.__all__:
        assert getattr(smartpos.testing, name) is not None


def test_every_module_declares_all() -> None:
    """Every module of smartpos.testing has an __all__ naming only what it defines."""
    for info in pkgutil.iter_modules(smartpos.testing.__path__, "smartpos.testing."):
        module = importlib.import_module(info.name)
        assert isinstance(module.__all__, list), info.name
        for name in module.__all__:
            assert hasattr(module, name), (info.name, name)


def test_the_simulator_does_not_import_the_sdk_it_checks() -> None:
    """No sandbox module imports the SDK's wire converter, models, core or clients."""
    forbidden = (
        "_wire",
        "_fastread",
        "_models",
        "_core",
        "_calls",
        "_arguments",
        "_requests",
        "_responses",
        "_client",
        "_sync_client",
        "_async_client",
    )
    for info in pkgutil.iter_modules(smartpos.testing.__path__, "smartpos.testing."):
        module = importlib.import_module(info.name)
        source = Path(module.__file__ or "").read_text(encoding="utf-8")
        for name in forbidden:
            assert f"smartpos.{name}" not in source, (info.name, name)
            assert f"from ..{name}" not in source, (info.name, name)
            assert f"from .. import {name}" not in source, (info.name, name)


def test_the_pytest_plugin_loads_without_the_sandbox() -> None:
    """Loading the pytest11 plugin (paid by every pytest run) imports no sandbox and no httpx."""
    code = (
        "import json, sys; import smartpos.testing._pytest_plugin; "
        "print(json.dumps(sorted(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    loaded = set(json.loads(out))
    testing = {m for m in loaded if m.startswith("smartpos.testing.")}
    assert (set(), {"smartpos.testing._pytest_plugin"}) == (
        {"httpx", "smartpos._sync_client", "smartpos._async_client"} & loaded,
        testing,
    )


def test_names_load_on_first_use() -> None:
    """Every name of smartpos.testing.__all__ loads on first use, and dir() lists it."""
    code = (
        "import smartpos.testing as t; "
        "assert all(getattr(t, n) is not None for n in t.__all__); "
        "assert set(t.__all__) <= set(dir(t)); "
        "print('ok')"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert "ok" == out.strip()
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        smartpos.testing.Nope  # noqa: B018
