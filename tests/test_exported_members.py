"""Every module declares ``__all__``, and every exported name exists and comes from smartpos.

Which names are public is checked against the reviewed snapshot: tests/test_public_api.py.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import importlib
import pkgutil

import pytest

import smartpos
import smartpos.testing

#: Modules that need an optional dependency (an extra); skipped when it is not installed.
OPTIONAL_MODULES = {"_redis", "_postgres", "otel"}


def test_every_exported_name_exists() -> None:
    """Every name in __all__ is an attribute of the package."""
    assert [] == [name for name in smartpos.__all__ if not hasattr(smartpos, name)]


def test_public_objects_say_they_are_from_smartpos() -> None:
    """Exported classes and functions are defined in the smartpos package."""
    for name in smartpos.__all__:
        value = getattr(smartpos, name)
        module = getattr(value, "__module__", "smartpos")
        assert "smartpos" == module.split(".")[0], name


def _modules() -> list[str]:
    return sorted(
        info.name
        for info in pkgutil.walk_packages(smartpos.__path__, "smartpos.")
        # __main__ modules are scripts: importing one would run it.
        if info.name.rsplit(".", 1)[-1] != "__main__"
    )


def _checked_with_the_simulator() -> set[str]:
    """The modules whose __all__ tests/testing/test_sandbox_exports.py checks.

    smartpos.testing's own modules are checked there, next to the simulator's other checks;
    checking them here too ran that test twice.
    """
    return {
        info.name for info in pkgutil.iter_modules(smartpos.testing.__path__, "smartpos.testing.")
    }


#: Modules Django imports only inside a configured project (models, admin registrations).
_NEEDS_A_DJANGO_PROJECT = frozenset(
    {"smartpos.integrations.django.admin", "smartpos.integrations.django.models"}
)


def _check_in_a_django_project(name: str) -> None:
    """Import ``name`` in a fresh interpreter set up with the example shop's settings."""
    import subprocess
    import sys
    from pathlib import Path

    pytest.importorskip("django")
    shop = Path(__file__).resolve().parents[1] / "examples" / "django_shop"
    code = (
        "import importlib, os, sys; import django; "
        f"sys.path.insert(0, {str(shop)!r}); "
        "os.environ['DJANGO_SETTINGS_MODULE'] = 'shop.settings'; "
        "os.environ['DJANGO_DB'] = ':memory:'; django.setup(); "
        f"m = importlib.import_module({name!r}); e = getattr(m, '__all__', None); "
        "assert isinstance(e, (list, tuple)), 'no __all__'; "
        "missing = [n for n in e if not hasattr(m, n)]; assert not missing, missing"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert 0 == done.returncode, done.stderr[-2000:]


@pytest.mark.parametrize("name", sorted(set(_modules()) - _checked_with_the_simulator()))
def test_every_module_declares_all(name: str) -> None:
    """Every module under smartpos declares __all__, and every name in it exists.

    smartpos.testing's own modules are left to tests/testing/test_sandbox_exports.py.
    """
    if name in _NEEDS_A_DJANGO_PROJECT:
        _check_in_a_django_project(name)
        return
    try:
        module = importlib.import_module(name)
    except ImportError:
        if name.rsplit(".", 1)[-1] in OPTIONAL_MODULES:
            pytest.skip(f"{name} needs an optional dependency that is not installed")
        raise

    exported = getattr(module, "__all__", None)
    assert isinstance(exported, (list, tuple)), f"{name} has no __all__"
    assert [] == [n for n in exported if not hasattr(module, n)]


def test_walk_finds_the_core_modules() -> None:
    """The module walk above covers the core modules (it cannot pass on an empty list)."""
    assert {
        "smartpos._core",
        "smartpos._async_client",
        "smartpos._sync_client",
        "smartpos._models",
        "smartpos._wire",
        "smartpos._errors",
        "smartpos._documents",
        "smartpos._referencia",
        "smartpos._qr",
        "smartpos.webhooks",
        "smartpos.testing",
    } <= set(_modules())
