"""``smartpos sandbox``: serve the simulator with a live log, and drive a running one.

``smartpos sandbox`` serves (the same program as ``python -m smartpos.testing``: options or
``SMARTPOS_SANDBOX_*`` variables) and prints one line per request and per delivery attempt;
``--sign SCHEME --secret ...`` signs its deliveries, ``--webhook-header`` adds fixed headers,
``--webhook-attempts`` / ``--webhook-backoff`` set the retry schedule.
The actions talk to a running sandbox's control API through
[`RemoteSandbox`][smartpos.testing.RemoteSandbox]: ``scan``, ``next``, ``fault``, ``resend``,
``held`` and ``release`` (the events ``segurar`` holds back per attempt), ``log``, ``operator
start|cancel`` (manual mode's operator). ``--control-key`` (or
``SMARTPOS_SANDBOX_CONTROL_KEY``) is the key a sandbox served with one requires. Outcome and
fault words are the sandbox's one vocabulary (``smartpos.testing._vocabulary``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from smartpos._messages import message
from smartpos._signals import stop_on_signals

from ._output import EXIT_ERROR, EXIT_OK, EXIT_USAGE, CommandError, Output

if TYPE_CHECKING:
    from smartpos.testing import LogEntry, RemoteSandbox
    from smartpos.testing._headless import Settings

__all__ = ["DEFAULT_URL", "print_entry", "remote", "run", "sandbox_url"]

DEFAULT_URL: Final = "http://127.0.0.1:8765"
"""Where the actions look for a sandbox when no ``--url`` or variable says otherwise."""


def sandbox_url(given: str | None) -> str:
    """The running sandbox's base URL: ``--url``, ``SMARTPOS_SANDBOX_URL``, ``SMARTPOS_BASE_URL``.

    Args:
        given: The ``--url`` option.

    Returns:
        The URL, `DEFAULT_URL` when nothing says otherwise.
    """
    return (
        given
        or os.environ.get("SMARTPOS_SANDBOX_URL")
        or os.environ.get("SMARTPOS_BASE_URL")
        or DEFAULT_URL
    )


@contextlib.contextmanager
def remote(url: str, control_key: str | None = None) -> Iterator[RemoteSandbox]:
    """A `RemoteSandbox` whose failures become the command's errors.

    Args:
        url: The sandbox's base URL.
        control_key: The sandbox's control key (default: env ``SMARTPOS_SANDBOX_CONTROL_KEY``).

    Yields:
        The remote sandbox.

    Raises:
        CommandError: No sandbox answers there (exit 1), a bad argument (exit 2), a misuse
            the sandbox refused (exit 1).
    """
    import httpx

    from smartpos.testing import RemoteSandbox, SandboxError
    from smartpos.testing._remote import CONTROL_KEY_VARIABLE

    try:
        with RemoteSandbox(url, control_key=control_key) as sandbox:
            yield sandbox
    except httpx.HTTPError as exc:
        raise CommandError(
            message("cli.sandbox_none_error", url=url, error=f"{type(exc).__name__}: {exc}"),
            hint=message("cli.sandbox_none_hint"),
        ) from exc
    except ValueError as exc:
        raise CommandError(
            str(exc), hint=message("cli.see_help", command="smartpos sandbox"), code=EXIT_USAGE
        ) from exc
    except SandboxError as exc:
        said = str(exc)
        if said.startswith("RECURSO_NAO_ENCONTRADO"):
            raise CommandError(
                message("cli.sandbox_no_control_api", url=url),
                hint=message("cli.sandbox_point_hint"),
            ) from exc
        if said.startswith("CHAVE_CONTROLE_INVALIDA"):
            raise CommandError(
                message("cli.control_key", url=url),
                hint=message("cli.control_key_hint", variable=CONTROL_KEY_VARIABLE),
            ) from exc
        raise CommandError(said) from exc
    except TimeoutError as exc:
        raise CommandError(str(exc)) from exc


# ---------------------------------------------------------------------------------- serving


def print_entry(out: Output, entry: LogEntry) -> None:
    """Print one log entry: a readable line, or a JSON object in JSON mode.

    Args:
        out: The output.
        entry: A request or a delivery attempt of the sandbox.
    """
    from smartpos.testing._headless import describe, entry_data

    if out.json:
        out.data(entry_data(entry))
        return
    line, ok = describe(entry)
    when, _, rest = line.partition("  ")
    out.line(f"{out.style(when, 'dim')}  {out.style(rest, 'green' if ok else 'red')}")


def _serve(args: argparse.Namespace, out: Output) -> int:
    from smartpos.testing._headless import Follower, Settings, remote_warning, serving

    from ._signing import make_signing, parse_headers, parse_sign_options

    try:
        settings = Settings.from_environment(
            os.environ,
            host=args.host,
            port=args.port,
            webhook=args.webhook,
            seed=args.seed,
            log="quiet" if args.quiet else None,
            control_key=args.control_key,
            log_limit=args.log_limit,
            sign=args.sign,
            secret=args.secret or None,
            sign_options=parse_sign_options(args.sign_option) or None,
            webhook_headers=parse_headers(args.webhook_header) or None,
            webhook_attempts=args.webhook_attempts,
            webhook_backoff=args.webhook_backoff,
        )
    except (ValueError, TypeError) as exc:
        raise CommandError(str(exc), code=EXIT_USAGE) from exc
    signing = make_signing(settings.sign, settings.secret, settings.sign_options)
    if settings.remote:
        out.warn(remote_warning(settings))
    stop = threading.Event()
    try:
        with stop_on_signals(stop), serving(settings) as (sandbox, base_url):
            _ready(out, base_url, settings, signing)
            quiet = settings.log == "quiet"
            on_entry = (lambda entry: None) if quiet else (lambda entry: print_entry(out, entry))
            with Follower(sandbox, on_entry):
                while not stop.wait(0.2):
                    pass
    except OSError as exc:
        raise CommandError(
            message(
                "cli.cannot_listen",
                host=settings.host,
                port=settings.port,
                error=exc.strerror or exc,
            ),
            hint=message("cli.cannot_listen_hint"),
        ) from exc
    except ValueError as exc:
        raise CommandError(
            f"--webhook: {exc}",
            hint=message("cli.sandbox_webhook_hint"),
            code=EXIT_USAGE,
        ) from exc
    if out.json:
        out.data({"stopped": True})
    out.line(message("cli.sandbox_stopped"))
    return EXIT_OK


def _ready(out: Output, base_url: str, settings: Settings, signing: Any) -> None:
    from smartpos.testing import Sandbox

    webhook, keyed = settings.webhook, settings.control_key is not None
    headers = sorted(settings.webhook_headers)
    if out.json:
        out.data(
            {
                "base_url": base_url,
                "api_key": Sandbox.API_KEY,
                "documento_cliente": Sandbox.DOCUMENTO,
                "smartpos_id": Sandbox.SMARTPOS_ID,
                "webhook": webhook,
                "control_key_required": keyed,
                # Names only: a header's value, like the secret, is never printed.
                "webhook_signing": None if signing is None else signing.scheme,
                "webhook_headers": headers,
                "webhook_attempts": settings.webhook_attempts,
                "webhook_backoff": settings.webhook_backoff,
            }
        )
        return
    if signing is None:
        signed = message("cli.sandbox_not_signed")
    else:
        keys = 1 if isinstance(signing.secret, (str, bytes)) else len(signing.secret)
        signed = message("cli.sandbox_signed", scheme=signing.scheme, keys=keys)
    out.line(message("cli.sandbox_serving", url=out.style(base_url, "bold")))
    out.fields(
        {
            "x-api-key": message("cli.sandbox_public_key", key=Sandbox.API_KEY),
            "documentoCliente": Sandbox.DOCUMENTO,
            "smartposId": Sandbox.SMARTPOS_ID,
            "webhook": webhook or message("cli.sandbox_no_webhook"),
            # The key itself is never printed: whoever started the sandbox has it.
            message("cli.label.control_api"): message(
                "cli.sandbox_key_required" if keyed else "cli.sandbox_no_key"
            ),
            message("cli.label.signing"): signed,
            **(
                {
                    message("cli.label.headers"): message(
                        "cli.sandbox_headers", names=", ".join(headers)
                    )
                }
                if headers
                else {}
            ),
            message("cli.label.retries"): message(
                "cli.sandbox_schedule",
                attempts=settings.webhook_attempts,
                backoff=f"{settings.webhook_backoff:g}",
            ),
        }
    )
    out.line(message("cli.sandbox_use_it"))
    out.line(f"  export SMARTPOS_BASE_URL={base_url} SMARTPOS_API_KEY={Sandbox.API_KEY}")
    out.line(f"  smartpos pay {Sandbox.DOCUMENTO} 1990 --smartpos-id {Sandbox.SMARTPOS_ID}")
    out.line(message("cli.sandbox_next_refused"))
    out.line(message("cli.ctrl_c"))


# ---------------------------------------------------------------------------------- actions


def _scan(args: argparse.Namespace, out: Output, sandbox: RemoteSandbox) -> int:
    event = sandbox.scan(args.qr_code, args.smartpos_id)
    if out.json:
        from ._output import mask_documents

        out.data({"event": mask_documents(event)})
    else:
        out.event(event, prefix=message("cli.sandbox_scanned"))
    return EXIT_OK


def _outcome(args: argparse.Namespace) -> Any:
    """The outcome the words and options of ``next`` describe."""
    import attrs

    from smartpos.testing._vocabulary import outcome_from_text

    outcome = outcome_from_text(args.kind, args.outcome)
    options = {
        name: value
        for name, value in (
            ("mensagem_operador", args.mensagem),
            ("status", args.status),
            ("codigo_status", args.codigo_status),
        )
        if value is not None
    }
    if not options:
        return outcome
    chain: list[Any] = [outcome]
    while getattr(chain[-1], "then", None) is not None:
        chain.append(chain[-1].then)
    base = chain[-1]
    wanted = set(options)
    accepted = {f.name for f in attrs.fields(type(base))}
    if hasattr(base, "then") or not wanted <= accepted:
        flags = ", ".join("--" + n.replace("_", "-").replace("-operador", "") for n in wanted)
        raise CommandError(
            message("cli.next_option_misplaced", flags=flags, words=" ".join(args.outcome)),
            hint=message("cli.next_option_misplaced_hint"),
            code=EXIT_USAGE,
        )
    rebuilt: Any = attrs.evolve(base, **options)
    for wrapper in reversed(chain[:-1]):
        rebuilt = attrs.evolve(wrapper, then=rebuilt)
    return rebuilt


def _next(args: argparse.Namespace, out: Output, sandbox: RemoteSandbox) -> int:
    from smartpos.testing._vocabulary import outcome_to_json

    try:
        outcome = _outcome(args)
    except (ValueError, TypeError) as exc:
        hint = message("cli.see_help", command="smartpos sandbox next")
        raise CommandError(str(exc), hint=hint, code=2) from exc
    if args.always:
        if args.times != 1:
            raise CommandError(message("cli.next_always_times"), code=EXIT_USAGE)
        key = "payments" if args.kind == "payment" else "prints"
        sandbox.set_outcomes(smartpos_id=args.smartpos_id, **{key: outcome})
        said = "cli.next_always_on" if args.smartpos_id else "cli.next_always_any"
    else:
        script = sandbox.script_payments if args.kind == "payment" else sandbox.script_prints
        script(outcome, times=args.times, smartpos_id=args.smartpos_id)
        if args.times > 1:
            said = "cli.next_many_on" if args.smartpos_id else "cli.next_many_any"
        else:
            said = "cli.next_one_on" if args.smartpos_id else "cli.next_one_any"
    words = " ".join(args.outcome)
    if out.json:
        out.data(
            {
                "kind": args.kind,
                "outcome": outcome_to_json(outcome),
                "times": None if args.always else args.times,
                "always": args.always,
                "smartpos_id": args.smartpos_id,
            }
        )
    shown = out.style(words, "bold")
    out.line(
        message(said, kind=args.kind, times=args.times, terminal=args.smartpos_id, words=shown)
    )
    return EXIT_OK


def _fault(args: argparse.Namespace, out: Output, sandbox: RemoteSandbox) -> int:
    from smartpos.testing._vocabulary import (
        WebhookFault,
        endpoint_name,
        fault_from_text,
        fault_to_json,
    )

    if args.clear:
        if args.endpoint or args.fault:
            raise CommandError(message("cli.fault_clear_alone"), code=EXIT_USAGE)
        sandbox.clear_faults()
        out.data({"cleared": True})
        out.line(message("cli.fault_cleared"))
        return EXIT_OK
    if not args.endpoint or not args.fault:
        raise CommandError(
            message("cli.fault_missing"),
            hint=message("cli.fault_missing_hint"),
            code=EXIT_USAGE,
        )
    words = list(args.fault)
    if args.retry_after is not None:
        words.append(str(args.retry_after))
    if args.after_accept:
        words.append("after-accept")
    if args.before_accept:
        words.append("before-accept")
    try:
        endpoint = endpoint_name(args.endpoint)
        fault = fault_from_text(endpoint, " ".join(words))
    except ValueError as exc:
        hint = message("cli.see_help", command="smartpos sandbox fault")
        raise CommandError(str(exc), hint=hint, code=2) from exc
    given = fault_to_json(fault)
    if endpoint == "webhook":
        status = given["fault"]
        if status == "timeout":
            sandbox.slow_webhook(times=args.times)
        else:
            sandbox.fail_webhook(times=args.times, status_code=int(status))
    else:
        assert not isinstance(fault, WebhookFault)
        sandbox.fail_next(endpoint, fault, times=args.times)
    if out.json:
        out.data({"endpoint": endpoint, "fault": given, "times": args.times})
    many = args.times > 1
    if endpoint == "webhook":
        said = "cli.fault_webhook_many" if many else "cli.fault_webhook_one"
    elif endpoint == "*":
        said = "cli.fault_any_many" if many else "cli.fault_any_one"
    else:
        said = "cli.fault_endpoint_many" if many else "cli.fault_endpoint_one"
    shown = out.style(" ".join(words), "bold")
    out.line(message(said, times=args.times, endpoint=endpoint, words=shown))
    return EXIT_OK


def _resend(args: argparse.Namespace, out: Output, sandbox: RemoteSandbox) -> int:
    import urllib.parse

    from smartpos.testing import DeliveryAttempt
    from smartpos.testing._codec import from_json

    # The route answers this resend's own attempts: the sandbox keeps only the newest
    # deliveries (--log-limit), so counting them before and after would not tell.
    path = f"/events/{urllib.parse.quote(args.event_id, safe='')}/resend"
    answer = sandbox.call("POST", path, {"to": args.to})
    attempts = [from_json(DeliveryAttempt, d) for d in answer["deliveries"]]
    if out.json:
        from smartpos.testing._codec import to_json

        out.data({"id": args.event_id, "to": args.to, "deliveries": to_json(attempts)})
    if args.to:
        out.line(message("cli.sandbox_resent_to", event_id=args.event_id, url=args.to))
    else:
        out.line(message("cli.sandbox_resent", event_id=args.event_id))
    for attempt in attempts:
        status = attempt.status_code if attempt.status_code is not None else ""
        result = (
            f"{status} ok".strip() if attempt.ok else message("cli.failed", error=attempt.error)
        )
        colour = "green" if attempt.ok else "red"
        out.line(f"  -> {attempt.target}: {out.style(result, colour)}")
    failed = attempts and not attempts[-1].ok
    return EXIT_ERROR if failed else EXIT_OK


def _held(args: argparse.Namespace, out: Output, sandbox: RemoteSandbox) -> int:
    """List the events held back per referencia (the outcome word ``segurar``)."""
    from ._output import mask_documents

    held = sandbox.held_by_referencia
    if out.json:
        out.data({"held": mask_documents(held)})
        return EXIT_OK
    if not held:
        out.line(message("cli.held_none"))
    for referencia, events in held.items():
        for event in events:
            out.event(event, prefix=message("cli.held_event", referencia=referencia))
    return EXIT_OK


def _release(args: argparse.Namespace, out: Output, sandbox: RemoteSandbox) -> int:
    """Deliver the events held back for one referencia."""
    from ._output import mask_documents

    referencia = args.referencia
    # Asked first, so that "nothing held" is told in the user's language with what to do;
    # the sandbox's own refusal still covers one released by someone else meanwhile.
    if referencia not in sandbox.held_by_referencia:
        raise CommandError(
            message("cli.release_nothing_held", referencia=referencia),
            hint=message("cli.release_nothing_held_hint"),
        )
    events = sandbox.release(referencia)
    if out.json:
        out.data({"referencia": referencia, "events": mask_documents(events)})
        return EXIT_OK
    for event in events:
        out.event(event, prefix=message("cli.released_event", referencia=referencia))
    return EXIT_OK


def _log(args: argparse.Namespace, out: Output, sandbox: RemoteSandbox) -> int:
    from smartpos.testing._headless import Follower

    if not args.follow:
        for entry in sandbox.log(args.since):
            print_entry(out, entry)
        return EXIT_OK
    stop = threading.Event()
    with (
        stop_on_signals(stop),
        Follower(sandbox, lambda entry: print_entry(out, entry), since=args.since),
    ):
        while not stop.wait(0.2):
            pass
    return EXIT_OK


def _operator(args: argparse.Namespace, out: Output, sandbox: RemoteSandbox) -> int:
    """Start or cancel a queued manual-mode card, the oldest one without REFERENCIA."""

    from ._output import mask_documents

    referencia = args.referencia
    if referencia is None:
        queue = sandbox.manual_queue()
        if not queue:
            raise CommandError(
                message("cli.operator_empty"),
                hint=message(
                    "cli.operator_empty_hint",
                    command="smartpos pay DOC VALOR --smartpos-id ID --manual --comanda LABEL",
                ),
            )
        referencia = queue[0].referencia
    if args.operator_action == "start":
        event = sandbox.operator_start(referencia, smartpos_id=args.smartpos_id)
    else:
        event = sandbox.operator_cancel(referencia, mensagem_operador=args.mensagem)
    if out.json:
        out.data(
            {
                "action": args.operator_action,
                "referencia": referencia,
                "event": None if event is None else mask_documents(event),
            }
        )
        return EXIT_OK
    if event is None:
        out.line(message("cli.operator_silence", referencia=referencia))
    else:
        key = (
            "cli.operator_started" if args.operator_action == "start" else "cli.operator_cancelled"
        )
        out.event(event, prefix=message(key, referencia=referencia))
    return EXIT_OK


_ACTIONS = {
    "scan": _scan,
    "next": _next,
    "fault": _fault,
    "resend": _resend,
    "held": _held,
    "release": _release,
    "log": _log,
    "operator": _operator,
}


def run(args: argparse.Namespace, out: Output) -> int:
    """Serve the sandbox (no action), or run an action against a running one.

    Args:
        args: The parsed command line.
        out: The output.

    Returns:
        The exit status.

    Raises:
        CommandError: What went wrong, with what to do.
    """
    if args.action is None:
        return _serve(args, out)
    url = sandbox_url(args.url)
    with remote(url, getattr(args, "control_key", None)) as sandbox:
        return _ACTIONS[args.action](args, out, sandbox)
