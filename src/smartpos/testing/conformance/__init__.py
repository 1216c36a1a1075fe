"""The conformance kit: the hard cases of payments, run against the partner's own code.

A partner subclasses `Adapter` (``charge``, ``status``, optionally ``abandon`` and ``refund``,
and ``webhook``) and assigns ``test_conformance = pytest_scenarios(Shop)`` in a test module.

Each scenario is a versioned JSON transcript shipped in this package (`scenarios`): the kit
asks the partner's system to charge a sale, the sandbox answers and delivers events under a
scripted fault, and the invariants (`INVARIANTS`) are checked from what the sandbox saw and from
the system's own status of the sale. ``smartpos conformance run`` does the same over HTTP for a
system in any language. See ``docs/en/conformance.md``.
"""

from ._adapter import Adapter, NotSupported, SaleStatus
from ._http import HttpAdapter, run_remote
from ._pytest import pytest_scenarios
from ._runner import ScenarioResult, Violation, run_scenario
from ._scenario import FORMAT, INVARIANTS, Scenario, load_scenario, scenarios

__all__ = [
    "FORMAT",
    "INVARIANTS",
    "Adapter",
    "HttpAdapter",
    "NotSupported",
    "SaleStatus",
    "Scenario",
    "ScenarioResult",
    "Violation",
    "load_scenario",
    "pytest_scenarios",
    "run_remote",
    "run_scenario",
    "scenarios",
]
