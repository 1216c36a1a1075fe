"""smartpos in Flask: a webhook blueprint, an app-factory friendly extension, a worker command.

Install with ``pip install "smartpos[flask]"``::

    from smartpos.integrations.flask import SmartPOS

    smartpos_ext = SmartPOS(handler=handle_event)     # module level, no app yet

    def create_app() -> Flask:
        app = Flask(__name__)
        app.config["SMARTPOS_STORE"] = "sqlite:////var/lib/shop/smartpos-inbox.sqlite3"
        app.config["SMARTPOS_WEBHOOK_SECRET"] = os.environ["SMARTPOS_WEBHOOK_SECRET"]
        smartpos_ext.init_app(app)         # POST /webhooks/smartpos, `flask smartpos worker`
        return app

    @app.post("/charge")
    def charge():
        accepted = smartpos_ext.client.payments.create(...)   # the app's shared Client

Configuration keys (``app.config``): ``SMARTPOS_API_KEY``, ``SMARTPOS_BASE_URL`` (default: the
environment variables of the same names), ``SMARTPOS_CLIENT_OPTIONS``, ``SMARTPOS_STORE``
(required: a path, ``sqlite:///``, ``redis://``, ``postgresql://``), ``SMARTPOS_STORE_OPTIONS``,
``SMARTPOS_WEBHOOK_SECRET``, ``SMARTPOS_WEBHOOK_SECRET_HEADER``, ``SMARTPOS_WEBHOOK_VERIFIER``,
``SMARTPOS_WEBHOOK_SCHEME`` (a signature scheme ``SMARTPOS_WEBHOOK_SECRET`` is the key material
of: ``standard-webhooks``, ``stripe``, ``hmac-manifest``, ``token``, ``ed25519``, ``rsa``,
``hmac``; default a shared secret in ``SMARTPOS_WEBHOOK_SECRET_HEADER``),
``SMARTPOS_WEBHOOK_SCHEME_OPTIONS`` (that scheme's options), ``SMARTPOS_RECEIVER_OPTIONS``,
``SMARTPOS_WEBHOOK_URL`` (default ``/webhooks/smartpos``),
``SMARTPOS_HANDLER`` (a dotted path, when ``SmartPOS(handler=...)`` is not given) and
``SMARTPOS_WORKER_OPTIONS``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any, Final

try:
    import click
    from flask import Blueprint, Flask, Response, current_app, request
    from werkzeug.exceptions import ClientDisconnected
    from werkzeug.utils import import_string
except ImportError as exc:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(
        "smartpos.integrations.flask needs Flask: pip install 'smartpos[flask]'"
    ) from exc

import smartpos
from smartpos._errors import ConfigurationError
from smartpos._messages import message
from smartpos.webhooks import Event, Receipt, Store, WebhookReceiver, Worker, open_store

from ._receive import (
    DEFAULT_SECRET_HEADER,
    build_receiver,
    check_length,
    declared_too_large,
    response_headers,
)

__all__ = ["DEFAULT_WEBHOOK_URL", "SmartPOS"]

#: Where the webhook view is mounted unless ``SMARTPOS_WEBHOOK_URL`` says otherwise.
DEFAULT_WEBHOOK_URL: Final = "/webhooks/smartpos"

_CONFIG_KEYS: Final = (
    "SMARTPOS_API_KEY",
    "SMARTPOS_BASE_URL",
    "SMARTPOS_CLIENT_OPTIONS",
    "SMARTPOS_STORE",
    "SMARTPOS_STORE_OPTIONS",
    "SMARTPOS_WEBHOOK_SECRET",
    "SMARTPOS_WEBHOOK_SECRET_HEADER",
    "SMARTPOS_WEBHOOK_VERIFIER",
    "SMARTPOS_WEBHOOK_SCHEME",
    "SMARTPOS_WEBHOOK_SCHEME_OPTIONS",
    "SMARTPOS_RECEIVER_OPTIONS",
    "SMARTPOS_WEBHOOK_URL",
    "SMARTPOS_HANDLER",
    "SMARTPOS_WORKER_OPTIONS",
)


class _AppState:
    """What one app builds from its config, on first use, once."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        self.config = config
        self.lock = threading.Lock()
        self.store: Store | None = None
        self.owns_store = False
        self.receiver: WebhookReceiver | None = None
        self.client: smartpos.Client | None = None

    def get_store(self) -> Store:
        with self.lock:
            if self.store is None:
                setting = self.config.get("SMARTPOS_STORE")
                if not setting:
                    raise ConfigurationError(message("integrations.flask_no_store"))
                self.store = open_store(setting, self.config.get("SMARTPOS_STORE_OPTIONS"))
                self.owns_store = self.store is not setting
            return self.store

    def get_receiver(self) -> WebhookReceiver:
        store = self.get_store()
        with self.lock:
            if self.receiver is None:
                config = self.config
                self.receiver = build_receiver(
                    store,
                    secret=config.get("SMARTPOS_WEBHOOK_SECRET") or None,
                    secret_header=config.get("SMARTPOS_WEBHOOK_SECRET_HEADER")
                    or DEFAULT_SECRET_HEADER,
                    verifier=config.get("SMARTPOS_WEBHOOK_VERIFIER"),
                    scheme=config.get("SMARTPOS_WEBHOOK_SCHEME") or None,
                    scheme_options=config.get("SMARTPOS_WEBHOOK_SCHEME_OPTIONS"),
                    options=config.get("SMARTPOS_RECEIVER_OPTIONS"),
                )
            return self.receiver

    def get_client(self) -> smartpos.Client:
        with self.lock:
            if self.client is None:
                config = self.config
                self.client = smartpos.Client(
                    api_key=config.get("SMARTPOS_API_KEY"),
                    base_url=config.get("SMARTPOS_BASE_URL"),
                    **dict(config.get("SMARTPOS_CLIENT_OPTIONS") or {}),
                )
            return self.client

    def close(self) -> None:
        with self.lock:
            client, self.client = self.client, None
            store = self.store if self.owns_store else None
            self.store = self.receiver = None
        if client is not None:
            client.close()
        if store is not None:
            store.close()


def _read_body(limit: int) -> bytes | Receipt:
    declared = request.headers.get("Content-Length")
    refused = declared_too_large(declared, limit)
    if refused is not None:
        return refused
    stream = request.stream
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        try:
            chunk = stream.read(min(64 * 1024, limit + 1 - size))
        except ClientDisconnected:  # the input ended before Content-Length: cut short
            break
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    body = b"".join(chunks)
    return check_length(body, declared, limit) or body


def _state() -> _AppState:
    state = current_app.extensions.get("smartpos")
    if not isinstance(state, _AppState):
        raise RuntimeError("SmartPOS is not set up on this app: call smartpos_ext.init_app(app)")
    return state


def _webhook() -> Response:
    receiver = _state().get_receiver()
    read = _read_body(receiver.max_body_bytes)
    receipt = read if isinstance(read, Receipt) else receiver.receive(read, request.headers)
    return Response(receipt.body, status=receipt.status_code, headers=response_headers(receipt))


class SmartPOS:
    """The Flask extension: ``SmartPOS(app)``, or ``SmartPOS()`` then ``init_app(app)``.

    ``init_app`` registers a blueprint named ``smartpos`` with the webhook view at
    ``SMARTPOS_WEBHOOK_URL`` (CSRF-exempt when Flask-WTF's ``CSRFProtect`` is set up first),
    and the command ``flask smartpos worker``. Nothing connects anywhere until a request or a
    command needs it; the store and the client are built once per app and closed by
    `close`.

    Args:
        app: An app to set up now (otherwise call `init_app` in the factory).
        handler: What ``flask smartpos worker`` calls with each event; default: the dotted
            path in ``SMARTPOS_HANDLER``.
    """

    def __init__(
        self, app: Flask | None = None, *, handler: Callable[[Event], object] | None = None
    ) -> None:
        self._handler = handler
        if app is not None:
            self.init_app(app)

    def init_app(self, app: Flask) -> None:
        """Set up ``app``: config defaults, the webhook blueprint, the worker command.

        Raises:
            smartpos.ConfigurationError: A ``SMARTPOS_*`` config key that means nothing here
                (a typo such as ``SMARTPOS_WEBHOOK_SECRETS`` must not turn verification off).
        """
        unknown = sorted(
            k for k in app.config if k.startswith("SMARTPOS_") and k not in _CONFIG_KEYS
        )
        if unknown:
            raise ConfigurationError(
                message("integrations.flask_unknown_keys", unknown=unknown, keys=list(_CONFIG_KEYS))
            )
        app.config.setdefault("SMARTPOS_WEBHOOK_URL", DEFAULT_WEBHOOK_URL)
        app.config.setdefault("SMARTPOS_WEBHOOK_SECRET_HEADER", DEFAULT_SECRET_HEADER)
        app.extensions["smartpos"] = _AppState(app.config)
        blueprint = Blueprint("smartpos", __name__, cli_group="smartpos")
        blueprint.add_url_rule(
            app.config["SMARTPOS_WEBHOOK_URL"], "webhook", _webhook, methods=["POST"]
        )
        blueprint.cli.command("worker")(self._worker_command())
        csrf = app.extensions.get("csrf")
        if csrf is not None and hasattr(csrf, "exempt"):
            csrf.exempt(blueprint)
        app.register_blueprint(blueprint)

    @property
    def client(self) -> smartpos.Client:
        """The current app's shared ``smartpos.Client`` (inside a request or app context)."""
        return _state().get_client()

    @property
    def store(self) -> Store:
        """The current app's webhook inbox."""
        return _state().get_store()

    @property
    def receiver(self) -> WebhookReceiver:
        """The current app's ``WebhookReceiver``."""
        return _state().get_receiver()

    def status_blueprint(
        self,
        *,
        authorize: Callable[[Any, str], bool] | None,
        name: str = "smartpos_status",
        max_wait: float = 25.0,
        heartbeat: float = 15.0,
    ) -> Blueprint:
        """The cashier's screen: status routes to register behind your own authentication.

        ``app.register_blueprint(ext.status_blueprint(authorize=may_see), url_prefix="/caixa")``
        serves ``GET /caixa/sales/<sale_id>``, ``GET /caixa/operations/<referencia>`` (JSON,
        ``?wait=N`` long poll, or Server-Sent Events) and ``GET /caixa/smartpos-checkout.js``.
        A stream holds a thread of the server while open: run a threaded server (gunicorn
        ``--threads``, ``gthread`` or ``gevent`` workers).

        Args:
            authorize: ``authorize(request, key) -> bool``: whether this request may see
                this sale (``key``: its id) or operation (its referencia). Required.
            name: The blueprint's name.
            max_wait: The longest ``?wait=N`` (seconds).
            heartbeat: Seconds between the comments an idle stream sends so that proxies
                keep it open (every stream of the process beats at the same instants).

        Under gunicorn, the worker's SIGTERM/SIGINT ends every open stream first, so that a
        graceful shutdown does not wait for the browsers (they reconnect elsewhere).

        Raises:
            smartpos.ConfigurationError: No ``authorize`` callable, or ``max_wait`` /
                ``heartbeat`` out of range.
        """
        from ._status_web import flask_blueprint

        blueprint: Blueprint = flask_blueprint(
            lambda: _state().get_store(),
            authorize,
            name=name,
            max_wait=max_wait,
            heartbeat=heartbeat,
        )
        return blueprint

    def close(self, app: Flask) -> None:
        """Close the client and the store ``app`` built (tests, shutdown hooks)."""
        state = app.extensions.get("smartpos")
        if isinstance(state, _AppState):
            state.close()

    def _handler_for(self, config: Mapping[str, Any]) -> Callable[[Event], object]:
        if self._handler is not None:
            return self._handler
        path = config.get("SMARTPOS_HANDLER")
        if not path:
            raise click.UsageError(
                "no handler: SmartPOS(handler=handle_event), or "
                "app.config['SMARTPOS_HANDLER'] = 'yourapp.module.handle_event'"
            )
        handler: Callable[[Event], object] = import_string(path)
        return handler

    def _worker_command(self) -> Callable[..., None]:
        @click.option("--once", is_flag=True, help="Process what is ready now, then exit.")
        def worker(once: bool) -> None:
            """Process the smartpos webhook inbox (until SIGTERM, or --once)."""
            state = _state()
            handler = self._handler_for(state.config)
            options = dict(state.config.get("SMARTPOS_WORKER_OPTIONS") or {})
            run = Worker(state.get_store(), handler, install_signal_handlers=not once, **options)
            if once:
                processed = 0
                while (count := run.run_once()) > 0:
                    processed += count
                click.echo(f"smartpos worker: {processed} event(s) processed")
                return
            click.echo(f"smartpos worker {run.owner}: processing {state.get_store()!r}")
            run.run()

        return worker
