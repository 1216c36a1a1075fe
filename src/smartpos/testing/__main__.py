"""``python -m smartpos.testing``: serve the sandbox on loopback for tools in any language.

Prints the base URL and the default world (API key, customer document, terminal), then serves
until Ctrl-C or SIGTERM. ``--webhook URL`` delivers events to a loopback URL as well.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType

from ._sandbox import Sandbox

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m smartpos.testing",
        description="Serve the smartpos sandbox (a simulator of the whole service) on loopback.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="loopback address (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="port, 0 for any free one (8765)")
    parser.add_argument("--webhook", help="loopback URL that receives the webhook events")
    parser.add_argument("--seed", type=int, help="seed for reproducible ids")
    return parser


def main(argv: Sequence[str] | None = None, *, stop: threading.Event | None = None) -> int:
    """Run the sandbox server until interrupted.

    Args:
        argv: Command-line arguments (``sys.argv[1:]`` when ``None``).
        stop: Set it to stop the server (for embedding and tests); Ctrl-C and SIGTERM also do.

    Returns:
        The exit status: 0 after a clean stop, 1 when the address cannot be bound, 2 for bad
        arguments.
    """
    args = _parser().parse_args(argv)
    stop = stop or threading.Event()
    try:
        sandbox = Sandbox(seed=args.seed)
        if args.webhook:
            sandbox.set_webhook(args.webhook)
        server = sandbox.serve(args.host, args.port)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    def _stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGTERM, signal.SIGINT):
            previous[signum] = signal.signal(signum, _stop)
    try:
        with sandbox, server as base_url:
            print(f"smartpos sandbox serving at {base_url}", flush=True)
            print(f"  x-api-key:        {Sandbox.API_KEY}", flush=True)
            print(f"  documentoCliente: {Sandbox.DOCUMENTO}", flush=True)
            print(f"  smartposId:       {Sandbox.SMARTPOS_ID}", flush=True)
            print("Ctrl-C to stop.", flush=True)
            while not stop.wait(0.5):
                pass
    except OSError as exc:  # the port is taken, or the address cannot be bound
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    print("stopped.", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
