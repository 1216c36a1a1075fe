"""Fixtures of the browser tests (see ``checkout_shop``)."""

from __future__ import annotations

from checkout_shop import shop

__all__ = ["shop"]
