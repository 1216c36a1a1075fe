"""The server of bench_sse.py: FastAPI's status routes under uvicorn on an SQLite inbox.

python benchmarks/_sse_server.py PORT INBOX_PATH
"""

from __future__ import annotations

import sys

import uvicorn
from fastapi import FastAPI

from smartpos import webhooks
from smartpos.integrations.fastapi import SmartPOS


def main() -> None:
    port, path = int(sys.argv[1]), sys.argv[2]
    smartpos_app = SmartPOS(store=webhooks.SQLiteStore(path))
    app = FastAPI(lifespan=smartpos_app.lifespan)
    app.include_router(
        smartpos_app.status_router(authorize=lambda request, key: True), prefix="/caixa"
    )
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", backlog=4096)


if __name__ == "__main__":
    main()
