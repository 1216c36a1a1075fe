"""A served sandbox run as a program: settings from options and the environment, and its live log.

``python -m smartpos.testing`` and ``smartpos sandbox`` both run a sandbox this way, so that a
container, a CI job or a developer's terminal gets the same thing:

- `Settings`: host, port, webhook URL, seed, log style, control key, log limit, how
  deliveries are signed (scheme, secret, options), their fixed headers and retry schedule,
  each from an option or else from an environment variable (`ENVIRONMENT`), for containers
  configured by variables;
- `serving`: the sandbox and its HTTP server, beyond loopback only when asked
  (`REMOTE_WARNING` says what that means);
- `Follower`: a thread that hands every new [`LogEntry`][smartpos.testing.LogEntry] (a request, a
  delivery attempt) to a callback, and `describe` / `entry_data`, which render one
  as a line of text or as JSON, documents masked.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Literal

import attrs

from smartpos._errors import ConfigurationError
from smartpos._signatures import SCHEMES

from ._codec import to_json
from ._delivery import (
    DEFAULT_ATTEMPTS,
    DEFAULT_BACKOFF,
    DeliveryAttempt,
    check_headers,
    check_schedule,
    is_loopback_host,
)
from ._documents import mask_documento
from ._records import LogEntry, RecordedRequest
from ._sandbox import Sandbox
from ._signing import WebhookSigning
from ._world import DEFAULT_LOG_LIMIT

__all__ = [
    "DEFAULT_PORT",
    "ENVIRONMENT",
    "REMOTE_WARNING",
    "REMOTE_WARNING_KEYED",
    "Follower",
    "LogStyle",
    "Settings",
    "describe",
    "entry_data",
    "mask_data",
    "remote_warning",
    "serving",
]

DEFAULT_PORT = 8765
"""The port of a served sandbox unless told otherwise."""


ENVIRONMENT = {
    "host": "SMARTPOS_SANDBOX_HOST",
    "port": "SMARTPOS_SANDBOX_PORT",
    "webhook": "SMARTPOS_SANDBOX_WEBHOOK",
    "seed": "SMARTPOS_SANDBOX_SEED",
    "log": "SMARTPOS_SANDBOX_LOG",
    "control_key": "SMARTPOS_SANDBOX_CONTROL_KEY",
    "log_limit": "SMARTPOS_SANDBOX_LOG_LIMIT",
    "sign": "SMARTPOS_SANDBOX_SIGN",
    "secret": "SMARTPOS_SANDBOX_SECRET",
    "sign_options": "SMARTPOS_SANDBOX_SIGN_OPTIONS",
    "webhook_headers": "SMARTPOS_SANDBOX_WEBHOOK_HEADERS",
    "webhook_attempts": "SMARTPOS_SANDBOX_WEBHOOK_ATTEMPTS",
    "webhook_backoff": "SMARTPOS_SANDBOX_WEBHOOK_BACKOFF",
}
"""The environment variable of each setting (an option given on the command line wins)."""

REMOTE_WARNING = (
    "serving on {host}, beyond this machine's loopback: anyone who can reach this port "
    "can use the sandbox and drive it through its control API, which has no key (give it one: "
    "--control-key or SMARTPOS_SANDBOX_CONTROL_KEY). Do this only inside a private network, "
    "such as a docker-compose project's."
)
"""Printed when the host is not a loopback address and the control API has no key."""

REMOTE_WARNING_KEYED = (
    "serving on {host}, beyond this machine's loopback: anyone who can reach this port "
    "can use the sandbox (its control API requires the key). Do this only inside a private "
    "network, such as a docker-compose project's."
)
"""Printed when the host is not a loopback address and the control API requires a key."""


def remote_warning(settings: Settings) -> str:
    """The warning of a sandbox served beyond loopback: `REMOTE_WARNING` or the keyed one."""
    text = REMOTE_WARNING if settings.control_key is None else REMOTE_WARNING_KEYED
    return text.format(host=settings.host)


LogStyle = Literal["text", "json", "quiet"]
"""How the live log is printed: a readable line, one JSON object per line, or not at all."""

_STYLES: tuple[LogStyle, ...] = ("text", "json", "quiet")


@attrs.frozen
class Settings:
    """What a served sandbox needs.

    Attributes:
        host: The address to bind.
        port: The port, 0 for a free one.
        webhook: A URL that receives every event, or ``None`` (recorded only).
        seed: Seed for reproducible ids and authorization data.
        log: The live log's style.
        control_key: The key the control API requires (``None``: none); never printed.
        log_limit: The most log entries, request and delivery records kept, each.
        sign: The scheme deliveries are signed with (``None``: not signed).
        secret: Its key material, one or several (rotation); never printed.
        sign_options: The scheme's options (``template``, ``header``...).
        webhook_headers: Fixed headers of every delivery; their values are never printed.
        webhook_attempts: Attempts per delivery.
        webhook_backoff: Seconds before the first retry, doubled on each retry.
    """

    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    webhook: str | None = None
    seed: int | None = None
    log: LogStyle = "text"
    control_key: str | None = attrs.field(default=None, repr=False)
    log_limit: int = DEFAULT_LOG_LIMIT
    sign: str | None = None
    secret: tuple[str, ...] = attrs.field(default=(), repr=False)
    sign_options: Mapping[str, str] = attrs.field(factory=dict)
    webhook_headers: Mapping[str, str] = attrs.field(factory=dict, repr=False)
    webhook_attempts: int = DEFAULT_ATTEMPTS
    webhook_backoff: float = DEFAULT_BACKOFF

    def signing(self) -> WebhookSigning | None:
        """The `WebhookSigning` these settings describe, or ``None``.

        Raises:
            ValueError: A scheme without a secret or the reverse, an unknown scheme, or a
                configuration the scheme refuses (a ``ConfigurationError``, named by option).
        """
        if self.sign is None and not self.secret:
            return None
        if self.sign is None:
            raise ValueError("--secret (SMARTPOS_SANDBOX_SECRET) needs --sign SCHEME")
        if self.sign not in SCHEMES:
            raise ValueError(f"--sign must be one of {', '.join(SCHEMES)}, not {self.sign!r}")
        if not self.secret:
            raise ValueError(
                f"--sign {self.sign} needs --secret (or SMARTPOS_SANDBOX_SECRET): the key "
                "material deliveries are signed with"
            )
        secret: str | tuple[str, ...] = self.secret[0] if len(self.secret) == 1 else self.secret
        try:
            return WebhookSigning(self.sign, secret, **self.sign_options)
        except ConfigurationError as exc:
            raise ValueError(f"--sign {self.sign}: {exc}") from None

    @property
    def remote(self) -> bool:
        """Whether the host is beyond loopback (a container's ``0.0.0.0``)."""
        return not is_loopback_host(self.host)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str], **given: Any) -> Settings:
        """Build settings: each given value, else its environment variable, else the default.

        Args:
            environ: The environment (``os.environ``).
            **given: Values from the command line; ``None`` means "not given".

        Returns:
            The settings.

        Raises:
            ValueError: A variable that cannot be read; the message names it.
        """
        values: dict[str, Any] = {}
        for name, variable in ENVIRONMENT.items():
            value = given.get(name)
            if value is None and environ.get(variable, "").strip():
                value = _read(name, variable, environ[variable].strip())
            if value is not None:
                values[name] = value
        if isinstance(values.get("secret"), str):
            values["secret"] = (values["secret"],)
        elif "secret" in values:
            values["secret"] = tuple(values["secret"])
        check_schedule(
            values.get("webhook_attempts", DEFAULT_ATTEMPTS),
            values.get("webhook_backoff", DEFAULT_BACKOFF),
        )
        if "webhook_headers" in values:
            values["webhook_headers"] = check_headers(values["webhook_headers"])
        return cls(**values)


def _read(name: str, variable: str, text: str) -> Any:
    if name in ("sign_options", "webhook_headers"):
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            # The value is not shown: headers may carry a secret.
            raise ValueError(f"{variable} must be a JSON object of texts")
        return value
    if name == "webhook_backoff":
        try:
            seconds = float(text)
        except ValueError:
            seconds = -1.0
        if not 0 <= seconds < float("inf"):
            raise ValueError(f"{variable} must be seconds >= 0, not {text!r}")
        return seconds
    if name in ("port", "seed", "log_limit", "webhook_attempts"):
        try:
            number = int(text)
        except ValueError:
            raise ValueError(f"{variable} must be a whole number, not {text!r}") from None
        if name == "port" and not 0 <= number <= 65535:
            raise ValueError(f"{variable} must be a port (0 to 65535), not {text!r}")
        if name in ("log_limit", "webhook_attempts") and number < 1:
            raise ValueError(f"{variable} must be a whole number >= 1, not {text!r}")
        return number
    if name == "log" and text not in _STYLES:
        raise ValueError(f"{variable} must be one of {', '.join(_STYLES)}, not {text!r}")
    return text


@contextlib.contextmanager
def serving(settings: Settings) -> Iterator[tuple[Sandbox, str]]:
    """Create the sandbox and serve it while the block runs.

    Beyond loopback (``settings.remote``), webhook URLs beyond loopback are accepted too: the
    application it delivers to is another service of the same network.

    Args:
        settings: What to serve.

    Yields:
        The sandbox and its base URL.

    Raises:
        ValueError: A webhook URL the sandbox cannot deliver to.
        OSError: The address cannot be bound.
    """
    with Sandbox(
        seed=settings.seed,
        allow_remote_webhooks=settings.remote,
        control_key=settings.control_key,
        log_limit=settings.log_limit,
        webhook_signing=settings.signing(),
        webhook_headers=settings.webhook_headers,
        webhook_attempts=settings.webhook_attempts,
        webhook_backoff=settings.webhook_backoff,
    ) as sandbox:
        if settings.webhook:
            sandbox.set_webhook(settings.webhook)
        server = sandbox.serve(settings.host, settings.port, allow_remote=settings.remote)
        with server as base_url:
            yield sandbox, base_url


class Follower:
    """Hands every new log entry of a sandbox to a callback, from a thread, until stopped.

    Args:
        sandbox: The sandbox (or a [`RemoteSandbox`][smartpos.testing.RemoteSandbox]).
        on_entry: Called with each entry, in order.
        since: Start after this entry number (0: from the first).
        poll: Seconds each wait for a new entry lasts (bounds the reaction to `stop`).
    """

    def __init__(
        self,
        sandbox: Any,
        on_entry: Callable[[LogEntry], None],
        *,
        since: int = 0,
        poll: float = 0.5,
    ) -> None:
        self._sandbox = sandbox
        self._on_entry = on_entry
        self._since = since
        self._poll = poll
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="smartpos-sandbox-log", daemon=True)

    def __enter__(self) -> Follower:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Hand over what is already logged, then stop the thread."""
        self._stop.set()
        self._thread.join(timeout=self._poll + 5.0)
        self.drain()

    def drain(self) -> None:
        """Hand over every entry not handed yet (on the caller's thread)."""
        for entry in self._sandbox.log(self._since):
            self._since = entry.seq
            self._on_entry(entry)

    def _run(self) -> None:
        while not self._stop.is_set():
            for entry in self._sandbox.log(self._since, wait=self._poll):
                if self._stop.is_set():
                    return
                self._since = entry.seq
                self._on_entry(entry)


_CUSTOMER_PATH = re.compile(r"(/v1/customers/)([^/?#]+)(/smartpos)")


def mask_data(value: Any) -> Any:
    """Return JSON-like data with every ``documentoCliente`` masked, at any depth.

    Args:
        value: Dicts, lists and scalars.

    Returns:
        The same shape, documents masked.
    """
    if isinstance(value, Mapping):
        return {
            k: mask_documento(v) if k == "documentoCliente" and isinstance(v, str) else mask_data(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [mask_data(v) for v in value]
    return value


def _path(path: str) -> str:
    return _CUSTOMER_PATH.sub(lambda m: m[1] + mask_documento(m[2]) + m[3], path)


def entry_data(entry: LogEntry) -> dict[str, Any]:
    """Return one log entry as JSON (``seq``, ``at`` in ISO 8601, ``kind`` and its record).

    Documents are masked; the request log never holds an API key.

    Args:
        entry: The entry.

    Returns:
        The JSON-ready object.
    """
    data: dict[str, Any] = mask_data(to_json(entry))
    data["at"] = dt.datetime.fromtimestamp(entry.at, dt.timezone.utc).isoformat()
    if isinstance(entry.record, RecordedRequest):
        data["request"]["path"] = _path(entry.record.path)
    return data


def describe(entry: LogEntry) -> tuple[str, bool]:
    """Describe one log entry in a line of text, and whether it went well.

    Args:
        entry: The entry.

    Returns:
        The line (local time first) and ``True`` for a 2xx/3xx answer or a delivery that
        worked.
    """
    when = dt.datetime.fromtimestamp(entry.at).strftime("%H:%M:%S")
    record = entry.record
    if isinstance(record, DeliveryAttempt):
        result = f"{record.status_code}" if record.status_code else ""
        if not record.ok:
            result = f"FAILED {record.error or ''}".strip()
        attempt = f"  attempt {record.attempt}" if record.attempt > 1 else ""
        line = (
            f"{when}  -> {record.tipo}  id {record.event_id}  to {record.target}  "
            f"{result or 'ok'}{attempt}"
        )
        return line.rstrip(), record.ok
    status = "no answer" if record.status_code is None else str(record.status_code)
    parts = [f"{when}  {record.method} {_path(record.path)}  {status}"]
    body = record.json if isinstance(record.json, Mapping) else {}
    for key in ("referencia", "valorCentavos", "smartposId", "kind", "endpoint", "tipo"):
        value = body.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            parts.append(f"{key} {value}")
    if record.fault:
        parts.append(f"fault {record.fault}")
    ok = record.status_code is not None and record.status_code < 400
    return "  ".join(parts), ok
