"""``smartpos sandbox``: serve the simulator of the service on a loopback address."""

from __future__ import annotations

import argparse
import threading

from smartpos._signals import stop_on_signals

from ._output import EXIT_OK, EXIT_USAGE, CommandError, Output

__all__ = ["run"]


def run(args: argparse.Namespace, out: Output) -> int:
    """Serve the sandbox until Ctrl-C or SIGTERM.

    Args:
        args: ``host``, ``port``, ``webhook``, ``seed``.
        out: The output.

    Returns:
        0 after a clean stop.

    Raises:
        CommandError: Not a loopback address, a port in use, or a bad webhook URL.
    """
    from smartpos.testing import Sandbox

    stop = threading.Event()
    sandbox = Sandbox(seed=args.seed)
    if args.webhook:
        try:
            sandbox.set_webhook(args.webhook)
        except (ValueError, TypeError) as exc:
            sandbox.close()
            raise CommandError(
                f"--webhook: {exc}",
                hint="give a loopback http URL, e.g. --webhook http://127.0.0.1:8766/",
                code=EXIT_USAGE,
            ) from exc
    try:
        server = sandbox.serve(args.host, args.port)
        with stop_on_signals(stop), sandbox, server as base_url:
            if out.json:
                out.data(
                    {
                        "base_url": base_url,
                        "api_key": Sandbox.API_KEY,
                        "documento_cliente": Sandbox.DOCUMENTO,
                        "smartpos_id": Sandbox.SMARTPOS_ID,
                        "webhook": args.webhook,
                    }
                )
            out.line(f"smartpos sandbox serving at {out.style(base_url, 'bold')}")
            out.fields(
                {
                    "x-api-key": f"{Sandbox.API_KEY}  (the sandbox's public test key)",
                    "documentoCliente": Sandbox.DOCUMENTO,
                    "smartposId": Sandbox.SMARTPOS_ID,
                    "webhook": args.webhook or "events recorded in the sandbox only",
                }
            )
            out.line("Use it from another terminal:")
            out.line(f"  export SMARTPOS_BASE_URL={base_url} SMARTPOS_API_KEY={Sandbox.API_KEY}")
            out.line(f"  smartpos pay {Sandbox.DOCUMENTO} 1990 --smartpos-id {Sandbox.SMARTPOS_ID}")
            out.line("Ctrl-C to stop.")
            while not stop.wait(0.2):
                pass
    except OSError as exc:
        raise CommandError(
            f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}",
            hint="pick another port with --port (0 picks a free one).",
        ) from exc
    except (ValueError, TypeError) as exc:
        raise CommandError(str(exc), hint="use a loopback address such as 127.0.0.1.") from exc
    out.line("sandbox stopped.")
    return EXIT_OK
