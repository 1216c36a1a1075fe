"""A minimal ASGI server answering every POST with a 202 acceptance (benchmarks only).

Runs under uvicorn in its own process so that its CPU is not counted in the client's
``time.process_time()``. Usage: ``python _acceptance_server.py PORT [DELAY_MS]``; ``DELAY_MS``
delays every answer, as the round trip to a remote service would.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import uvicorn

__all__ = ["app"]

_DELAY = float(sys.argv[2]) / 1000 if __name__ == "__main__" and len(sys.argv) > 2 else 0.0


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answer every request with the acceptance of section 2.7 echoing the referencia."""
    if scope["type"] != "http":
        return
    body = b""
    more = True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    if _DELAY:
        await asyncio.sleep(_DELAY)
    try:
        referencia = json.loads(body).get("referencia", "x") if body else "x"
    except ValueError:
        referencia = "x"
    payload = json.dumps(
        {
            "referencia": referencia,
            "status": "processando",
            "mensagem": "Pagamento enviado ao terminal",
            "smartposId": "SP-BENCH-1",
            "targets": [{"smartposId": "SP-BENCH-1", "status": "enviado"}],
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 202,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": payload})


if __name__ == "__main__":
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=int(sys.argv[1]),
        log_level="warning",
        access_log=False,
        backlog=2048,
    )
