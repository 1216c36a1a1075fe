"""``python -m smartpos.testing``: serve the sandbox headless, for any language and for containers.

Prints the base URL and the default world, then one line per request and per delivery attempt
(``--quiet`` for none, ``--json`` for one JSON object per line), until Ctrl-C or SIGTERM. Every
option can come from the environment instead (``SMARTPOS_SANDBOX_HOST``, ``_PORT``, ``_WEBHOOK``,
``_SEED``, ``_LOG``, ``_CONTROL_KEY``, ``_LOG_LIMIT``, ``_SIGN``, ``_SECRET``, ``_SIGN_OPTIONS``,
``_WEBHOOK_HEADERS``, ``_WEBHOOK_ATTEMPTS``, ``_WEBHOOK_BACKOFF``): a container needs no
command line.
``smartpos sandbox`` runs the same thing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from collections.abc import Sequence

from smartpos._signals import stop_on_signals
from smartpos._signatures import SCHEMES

from ._delivery import describe_schedule
from ._headless import (
    ENVIRONMENT,
    Follower,
    Settings,
    describe,
    entry_data,
    remote_warning,
    serving,
)
from ._records import LogEntry
from ._sandbox import Sandbox

__all__ = ["main"]

#: The option of each setting whose name differs from it.
_FLAGS = {"sign_options": "sign_option", "webhook_headers": "webhook_header"}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m smartpos.testing",
        description=(
            "Serve the smartpos sandbox (a simulator of the whole service, with its control "
            "API under /_sandbox/v1/) until Ctrl-C or SIGTERM."
        ),
        epilog="environment: "
        + ", ".join(
            f"{v} (--{_FLAGS.get(k, k).replace('_', '-')})"
            for k, v in ENVIRONMENT.items()
            if k != "log"
        )
        + f", {ENVIRONMENT['log']} (text, json or quiet)",
    )
    parser.add_argument("--host", help="address to bind (127.0.0.1; 0.0.0.0 in a container)")
    parser.add_argument("--port", type=int, help="port, 0 for any free one (8765)")
    parser.add_argument("--webhook", help="URL that receives the webhook events")
    parser.add_argument("--seed", type=int, help="seed for reproducible ids")
    parser.add_argument(
        "--control-key",
        metavar="KEY",
        help="require this key (header X-Sandbox-Control-Key) on the control API; prefer the "
        "environment variable, which other users of the machine cannot see",
    )
    parser.add_argument(
        "--log-limit",
        type=int,
        metavar="N",
        help="keep the last N log entries, requests and deliveries (10000)",
    )
    parser.add_argument(
        "--sign",
        metavar="SCHEME",
        choices=SCHEMES,
        help=f"sign every delivery under this scheme ({', '.join(SCHEMES)}), with --secret",
    )
    parser.add_argument(
        "--secret",
        action="append",
        metavar="SECRET",
        help="the key material --sign signs with (repeatable; prefer the environment variable)",
    )
    parser.add_argument(
        "--sign-option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an option of the scheme, e.g. header=x-signature (repeatable)",
    )
    parser.add_argument(
        "--webhook-header",
        action="append",
        default=[],
        metavar="'NAME: VALUE'",
        help="a header every delivery carries, e.g. 'x-webhook-secret: ...' (repeatable)",
    )
    parser.add_argument(
        "--webhook-attempts",
        type=int,
        metavar="N",
        help="attempts per delivery, the first included (8)",
    )
    parser.add_argument(
        "--webhook-backoff",
        type=float,
        metavar="SECONDS",
        help="seconds before the first retry, doubled on each retry (5; 0.05 for tests)",
    )
    style = parser.add_mutually_exclusive_group()
    style.add_argument(
        "--quiet", dest="log", action="store_const", const="quiet", help="no live log"
    )
    style.add_argument(
        "--json", dest="log", action="store_const", const="json", help="log as JSON lines"
    )
    return parser


def _pairs(values: Sequence[str], separator: str, form: str) -> dict[str, str] | None:
    """``NAME=VALUE`` or ``NAME: VALUE`` options as a dict (``None``: none given).

    Raises:
        ValueError: One without the separator (its value is not shown: it may be a secret).
    """
    pairs: dict[str, str] = {}
    for value in values:
        name, sep, content = value.partition(separator)
        if not sep or not name.strip():
            raise ValueError(f"write {form}")
        pairs[name.strip()] = content.strip() if separator == ":" else content
    return pairs or None


def _print_entry(style: str, entry: LogEntry) -> None:
    if style == "json":
        print(json.dumps(entry_data(entry), ensure_ascii=False), flush=True)
    elif style == "text":
        print(describe(entry)[0], flush=True)


def main(argv: Sequence[str] | None = None, *, stop: threading.Event | None = None) -> int:
    """Run the sandbox server until interrupted.

    Args:
        argv: Command-line arguments (``sys.argv[1:]`` when ``None``).
        stop: Set it to stop the server (for embedding and tests); Ctrl-C and SIGTERM also do.

    Returns:
        The exit status: 0 after a clean stop, 1 when the address cannot be bound, 2 for bad
        arguments or environment variables.
    """
    args = _parser().parse_args(argv)
    stop = stop or threading.Event()
    try:
        settings = Settings.from_environment(
            os.environ,
            host=args.host,
            port=args.port,
            webhook=args.webhook,
            seed=args.seed,
            log=args.log,
            control_key=args.control_key,
            log_limit=args.log_limit,
            sign=args.sign,
            secret=args.secret,
            sign_options=_pairs(args.sign_option, "=", "--sign-option NAME=VALUE"),
            webhook_headers=_pairs(args.webhook_header, ":", "--webhook-header 'NAME: VALUE'"),
            webhook_attempts=args.webhook_attempts,
            webhook_backoff=args.webhook_backoff,
        )
        settings.signing()  # a bad one is refused now, naming the option
    except (ValueError, TypeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if settings.remote:
        print("warning: " + remote_warning(settings), file=sys.stderr, flush=True)

    try:
        with stop_on_signals(stop), serving(settings) as (sandbox, base_url):
            if settings.log == "json":
                ready = {
                    "base_url": base_url,
                    "api_key": Sandbox.API_KEY,
                    "documento_cliente": Sandbox.DOCUMENTO,
                    "smartpos_id": Sandbox.SMARTPOS_ID,
                    "webhook": settings.webhook,
                    "webhook_signing": settings.sign,
                    "webhook_headers": sorted(settings.webhook_headers),
                    "webhook_attempts": settings.webhook_attempts,
                    "webhook_backoff": settings.webhook_backoff,
                }
                print(json.dumps(ready), flush=True)
            else:
                schedule = describe_schedule(settings.webhook_attempts, settings.webhook_backoff)
                print(f"smartpos sandbox serving at {base_url}", flush=True)
                print(f"  x-api-key:        {Sandbox.API_KEY}", flush=True)
                print(f"  documentoCliente: {Sandbox.DOCUMENTO}", flush=True)
                print(f"  smartposId:       {Sandbox.SMARTPOS_ID}", flush=True)
                print(f"  signing:          {settings.sign or 'none'}", flush=True)
                if settings.webhook_headers:
                    # Names only: a header's value may be a secret.
                    names = ", ".join(sorted(settings.webhook_headers))
                    print(f"  headers:          {names}", flush=True)
                print(f"  retries:          {schedule}", flush=True)
                print("Ctrl-C to stop.", flush=True)
            with Follower(sandbox, lambda entry: _print_entry(settings.log, entry)):
                while not stop.wait(0.5):
                    pass
    except ValueError as exc:  # a webhook URL the sandbox cannot deliver to
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # the port is taken, or the address cannot be bound
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print('{"stopped": true}' if settings.log == "json" else "stopped.", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
