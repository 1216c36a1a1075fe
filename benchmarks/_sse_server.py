"""The servers of bench_sse.py, each under uvicorn on 127.0.0.1.

python benchmarks/_sse_server.py PORT INBOX_PATH   # FastAPI's status routes on an SQLite inbox
python benchmarks/_sse_server.py PORT --floor      # a bare ASGI app holding SSE streams

The floor is what any Server-Sent Events server must do to hold a stream open behind a
proxy: answer the headers and one message, then a heartbeat comment every 15 s (the same
period as smartpos's), each stream with its own ``asyncio.sleep``. No store, no framework.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import uvicorn

HEARTBEAT = 15.0
_STATE = json.dumps({"type": "sale", "status": "approved", "attempts": [{"status": "approved"}]})


async def floor(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """A bare ASGI SSE endpoint (any path)."""
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-store")],
        }
    )
    first = f"retry: 2000\nid: 1\nevent: state\ndata: {_STATE}\n\n".encode()
    await send({"type": "http.response.body", "body": first, "more_body": True})
    while True:
        await asyncio.sleep(HEARTBEAT)
        await send({"type": "http.response.body", "body": b": keepalive\n\n", "more_body": True})


def main() -> None:
    port = int(sys.argv[1])
    if sys.argv[2] == "--floor":
        # A bare app does not end its streams at shutdown: uvicorn cancels them after 1 s.
        uvicorn.run(
            floor,
            host="127.0.0.1",
            port=port,
            log_level="warning",
            backlog=4096,
            timeout_graceful_shutdown=1,
        )
        return
    from fastapi import FastAPI

    from smartpos import webhooks
    from smartpos.integrations.fastapi import SmartPOS

    smartpos_app = SmartPOS(store=webhooks.SQLiteStore(sys.argv[2]))
    app = FastAPI(lifespan=smartpos_app.lifespan)
    app.include_router(
        smartpos_app.status_router(authorize=lambda request, key: True, heartbeat=HEARTBEAT),
        prefix="/caixa",
    )
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", backlog=4096)


if __name__ == "__main__":
    main()
