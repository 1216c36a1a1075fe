"""A minimal ASGI server answering every POST with a 202 acceptance (benchmarks only).

Runs under uvicorn in its own process so that its CPU is not counted in the client's
``time.process_time()``. Usage: ``python _acceptance_server.py PORT``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import uvicorn

__all__ = ["app"]


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
