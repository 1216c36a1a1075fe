"""The pytest entry point: one test per scenario, parametrized, with the in-process sandbox."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ._runner import AdapterFactory, run_scenario
from ._scenario import Scenario, scenarios

__all__ = ["pytest_scenarios"]


def pytest_scenarios(
    adapter_factory: AdapterFactory,
    *,
    names: Iterable[str] | None = None,
    lang: str | None = None,
) -> Callable[[Scenario], None]:
    """Return a pytest test that runs every scenario against the partner's adapter.

    Assign it to a ``test_`` name in a test module; each scenario is one test whose id is the
    scenario's name, so a failure names it::

        from smartpos.testing.conformance import pytest_scenarios

        test_conformance = pytest_scenarios(make_adapter)  # make_adapter(sandbox) -> Adapter

    Args:
        adapter_factory: Called with a fresh [`Sandbox`][smartpos.testing.Sandbox] per scenario;
            returns the `Adapter` (or a context manager giving one).
        names: Only these scenarios (default: all).
        lang: The language of the failure messages (``None``: ``SMARTPOS_LANG``).

    Returns:
        The test function. A scenario that needs an operation the adapter does not support
        (``NotSupported``) is skipped with that reason; a failure lists each broken invariant
        with what to fix.
    """
    import pytest

    chosen = scenarios()
    if names is not None:
        wanted = set(names)
        chosen = [s for s in chosen if s.name in wanted]

    @pytest.mark.parametrize("conformance_scenario", chosen, ids=[s.name for s in chosen])
    def test_conformance(conformance_scenario: Scenario) -> None:
        result = run_scenario(conformance_scenario, adapter_factory, lang=lang)
        if result.outcome == "not-applicable":
            pytest.skip(result.explain())
        if not result.passed:
            pytest.fail(result.explain(), pytrace=False)

    test_conformance.__doc__ = "The smartpos conformance kit: one scenario per test."
    return test_conformance
