"""Integrations with the frameworks and tools around smartpos, each behind its own extra.

Nothing here is imported by ``import smartpos``; import the one you use, e.g.
``from smartpos.integrations import otel`` (``pip install "smartpos[otel]"``).
"""

from __future__ import annotations

__all__: list[str] = []
