"""Integrations with the frameworks partner systems are written in; each one is an extra.

- ``smartpos.integrations.django`` (``pip install "smartpos[django]"``): settings, webhook
  views, system checks, the ``smartpos_worker`` command, clients built once per process;
- ``smartpos.integrations.fastapi`` (``smartpos[fastapi]``): an ``APIRouter`` that shows in
  the app's OpenAPI, a dependency that yields the shared ``AsyncClient``, a worker in the
  lifespan;
- ``smartpos.integrations.flask`` (``smartpos[flask]``): a blueprint and ``SmartPOS(app)``;
- ``smartpos.integrations.celery`` (``smartpos[celery]``): claimed events processed on a Celery
  pool while the inbox stays the source of truth.

Importing ``smartpos`` or this package never imports a framework: each module above imports
its own framework when it is imported, and says which extra to install when it is missing.

`open_store` (the one opener of ``smartpos.webhooks``, re-exported here) turns the store
setting every integration takes (a URL or a path) into a webhook inbox.
"""

from __future__ import annotations

from smartpos.webhooks._open import STORE_SCHEMES, open_store

__all__ = ["STORE_SCHEMES", "open_store"]
