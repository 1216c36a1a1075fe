"""The integrations' store setting: `smartpos.webhooks.open_store` and its helpers, re-exported.

The one opener lives in ``smartpos.webhooks._open``, so that a URL names the same store in a
``Client(store=...)``, the ``smartpos`` command and every integration.
"""

from __future__ import annotations

from smartpos.webhooks._open import (
    STORE_SCHEMES,
    StoreSetting,
    open_store,
    option_problem,
    sqlite_path,
    store_scheme,
)

__all__ = [
    "STORE_SCHEMES",
    "StoreSetting",
    "open_store",
    "option_problem",
    "sqlite_path",
    "store_scheme",
]
