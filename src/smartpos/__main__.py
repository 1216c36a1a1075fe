"""``python -m smartpos``: the same as the ``smartpos`` command."""

from __future__ import annotations

import sys

from smartpos.cli import main

__all__: list[str] = []

if __name__ == "__main__":
    sys.exit(main())
