"""``smartpos sandbox --sign/--secret/--webhook-header/--webhook-attempts/--webhook-backoff`` and
``smartpos trigger --sign``: what they post is verified by the receivers a partner configures.

Refusals of the options run in process; serving runs as a real process (it serves until a
signal), stopped by its PID, delivering to a recording endpoint on 127.0.0.1.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import base64
import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from cli_helpers import Starter, cli_env, run_cli

import smartpos
from smartpos import webhooks
from smartpos.testing import Sandbox
from smartpos.testing._headless import Settings

WHSEC = "whsec_" + base64.b64encode(b"cli-signing-secret-24byte").decode()
MANIFEST = "ts:{timestamp};request-id:{header:x-request-id};{body}"


class Endpoint:
    """Records each POST's headers and body; answers the scripted statuses first, then 200."""

    def __init__(self, statuses: list[int] | None = None) -> None:
        self.statuses = list(statuses or [])
        self.requests: list[tuple[dict[str, str], bytes]] = []
        self.arrived = threading.Condition()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                with outer.arrived:
                    outer.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
                    status = outer.statuses.pop(0) if outer.statuses else 200
                    outer.arrived.notify_all()
                self.send_response(status)
                self.send_header("content-length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def wait_for(self, count: int, timeout: float = 15.0) -> None:
        """Wait until ``count`` requests arrived."""
        with self.arrived:
            assert self.arrived.wait_for(lambda: len(self.requests) >= count, timeout)

    def close(self) -> None:
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    """A recording endpoint on 127.0.0.1 that answers 200."""
    server = Endpoint()
    yield server
    server.close()


@pytest.fixture
def live() -> Iterator[tuple[Sandbox, str]]:
    """A fresh sandbox served on 127.0.0.1, and its base URL."""
    with Sandbox() as sandbox, sandbox.serve() as base_url:
        yield sandbox, base_url


def verify_standard(body: bytes, headers: dict[str, str]) -> None:
    """Standard Webhooks' verifier, on a clock at the delivery's own timestamp."""
    stamp = int(headers["webhook-timestamp"])
    webhooks.StandardWebhooksVerifier(WHSEC, clock=lambda: stamp).verify(body, headers)


# ------------------------------------------------------------------------------- serving


@pytest.mark.slow
def test_the_served_sandbox_signs_adds_the_header_and_retries_as_told(
    background: Starter,
) -> None:
    """--sign/--secret/--webhook-header/--webhook-attempts/--webhook-backoff, all at once: a
    refused first attempt is retried with the same id, both attempts signed and verified; the
    secret and the header's value are never printed."""
    endpoint = Endpoint([500])
    try:
        proc = background(
            "sandbox", "--port", "0", "--json", "--webhook", endpoint.url,
            "--sign", "standard-webhooks", "--secret", WHSEC,
            "--webhook-header", "x-webhook-secret: hidden-value",
            "--webhook-attempts", "3", "--webhook-backoff", "0.2",
        )  # fmt: skip
        ready = json.loads(proc.wait_for(r"^\{").string)
        assert ("standard-webhooks", ["x-webhook-secret"], 3, 0.2) == (
            ready["webhook_signing"],
            ready["webhook_headers"],
            ready["webhook_attempts"],
            ready["webhook_backoff"],
        )
        with smartpos.Client(api_key=Sandbox.API_KEY, base_url=ready["base_url"]) as client:
            client.payments.create(
                documento_cliente=Sandbox.DOCUMENTO,
                smartpos_id=Sandbox.SMARTPOS_ID,
                valor_centavos=990,
            )
        endpoint.wait_for(2)
        proc.wait_for(r'"attempt":2')
        assert 0 == proc.stop()
    finally:
        endpoint.close()
    (first, body), (second, again) = endpoint.requests
    assert body == again
    assert first["webhook-id"] == second["webhook-id"] == json.loads(body)["id"]
    for headers in (first, second):
        verify_standard(body, headers)
        assert "hidden-value" == headers["x-webhook-secret"]
    printed = proc.output + proc.stderr
    assert "hidden-value" not in printed
    assert WHSEC not in printed


@pytest.mark.slow
def test_the_ready_lines_say_how_deliveries_are_signed_and_retried(background: Starter) -> None:
    """Text mode: the scheme, the header names (never values) and the schedule."""
    env = cli_env(SMARTPOS_SANDBOX_SECRET="change-me")
    proc = background(
        "sandbox", "--port", "0", "--sign", "shared-secret",
        "--webhook-header", "x-tenant: shop-1", env=env,
    )  # fmt: skip
    proc.wait_for("Ctrl-C to stop")
    assert 0 == proc.stop()
    assert "signing           shared-secret, 1 key(s)" in proc.output
    assert "headers           x-tenant (values not shown)" in proc.output
    assert "retries           8 attempts, the first retry after 5 s, each wait doubled" in (
        proc.output
    )
    assert "shop-1" not in proc.output
    assert "change-me" not in proc.output


# ------------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("args", "env", "said"),
    [
        (["--secret", "x"], {}, "--secret and --sign-option need --sign SCHEME"),
        (["--sign", "stripe"], {}, "--sign stripe needs --secret (or SMARTPOS_SANDBOX_SECRET)"),
        (["--sign", "hmac-manifest", "--secret", "x"], {}, "needs the option template"),
        (["--sign", "stripe", "--secret", "x", "--sign-option", "nope"], {}, "NAME=VALUE"),
        (["--sign", "nope", "--secret", "x"], {}, "invalid choice: 'nope'"),
        (["--webhook-header", "no colon"], {}, "'Name: value'"),
        (["--webhook-header", "bad name: x"], {}, "is not a header name"),
        (["--webhook-attempts", "0"], {}, "expected a number >= 1"),
        (["--webhook-backoff", "-1"], {}, "expected seconds > 0"),
        ([], {"SMARTPOS_SANDBOX_WEBHOOK_HEADERS": "x-a: b"}, "SMARTPOS_SANDBOX_WEBHOOK_HEADERS"),
        ([], {"SMARTPOS_SANDBOX_WEBHOOK_ATTEMPTS": "0"}, "SMARTPOS_SANDBOX_WEBHOOK_ATTEMPTS"),
        ([], {"SMARTPOS_SANDBOX_WEBHOOK_BACKOFF": "soon"}, "SMARTPOS_SANDBOX_WEBHOOK_BACKOFF"),
        ([], {"SMARTPOS_SANDBOX_SECRET": "x"}, "--secret and --sign-option need --sign"),
        ([], {"SMARTPOS_SANDBOX_SIGN": "nope", "SMARTPOS_SANDBOX_SECRET": "x"}, "nope"),
    ],
)
def test_a_bad_signing_or_schedule_is_exit_2_before_serving(
    args: list[str], env: dict[str, str], said: str
) -> None:
    """Each mistake is a usage error that names what to fix; nothing is served."""
    result = run_cli("sandbox", "--port", "0", *args, env=cli_env(**env))
    assert 2 == result.returncode, result.stdout
    assert said in result.stderr
    assert "serving" not in result.stdout


def test_the_refusals_speak_portuguese() -> None:
    """SMARTPOS_LANG=pt_BR: the same refusal in Portuguese."""
    from smartpos import _messages

    _messages.reset()  # the language is read once per process
    try:
        result = run_cli("sandbox", "--sign", "stripe", env=cli_env(SMARTPOS_LANG="pt_BR"))
    finally:
        _messages.reset()
    assert 2 == result.returncode
    assert "--sign stripe precisa de --secret (ou SMARTPOS_SANDBOX_SECRET)" in result.stderr


def test_settings_read_signing_and_the_schedule_from_the_environment() -> None:
    """A container configures it all with SMARTPOS_SANDBOX_* variables; options win."""
    environ = {
        "SMARTPOS_SANDBOX_SIGN": "hmac-manifest",
        "SMARTPOS_SANDBOX_SECRET": "s3cret",
        "SMARTPOS_SANDBOX_SIGN_OPTIONS": json.dumps({"template": MANIFEST}),
        "SMARTPOS_SANDBOX_WEBHOOK_HEADERS": '{"X-Request-Id": "r-1"}',
        "SMARTPOS_SANDBOX_WEBHOOK_ATTEMPTS": "5",
        "SMARTPOS_SANDBOX_WEBHOOK_BACKOFF": "0.5",
    }
    settings = Settings.from_environment(environ, webhook_attempts=2)
    assert ("hmac-manifest", ("s3cret",), {"x-request-id": "r-1"}, 2, 0.5) == (
        settings.sign,
        settings.secret,
        settings.webhook_headers,
        settings.webhook_attempts,
        settings.webhook_backoff,
    )
    signing = settings.signing()
    assert signing is not None
    assert {"template": MANIFEST} == signing.options
    assert "s3cret" not in repr(settings)
    assert "r-1" not in repr(settings)
    assert None is Settings.from_environment({}).signing()


# ------------------------------------------------------------------------------- trigger


def test_trigger_signs_a_standalone_sample(endpoint: Endpoint) -> None:
    """--no-sandbox --sign standard-webhooks: the sample carries verifiable signature headers."""
    result = run_cli(
        "trigger", "pagamento.aprovado", "--to", endpoint.url, "--no-sandbox",
        "--sign", "standard-webhooks", "--secret", WHSEC, "--json",
    )  # fmt: skip
    assert 0 == result.returncode, result.stderr
    [(headers, body)] = endpoint.requests
    verify_standard(body, headers)
    assert json.loads(result.stdout)["id"] == headers["webhook-id"]


def test_trigger_through_a_sandbox_has_it_sign_that_delivery(
    live: tuple[Sandbox, str], endpoint: Endpoint
) -> None:
    """Through a sandbox, the sandbox signs the one delivery as told; -H is signed too."""
    _, base_url = live
    made = run_cli(
        "trigger", "impressao.concluida", "--sandbox", base_url, "--to", endpoint.url,
        "--sign", "hmac-manifest", "--secret", "s3cret", "--sign-option", f"template={MANIFEST}",
        "-H", "X-Request-Id: r-7", "--json",
    )  # fmt: skip
    assert 0 == made.returncode, made.stderr
    assert base_url == json.loads(made.stdout)["sandbox"]
    [(headers, body)] = endpoint.requests
    stamp = int(headers["x-signature"].split(",")[0].removeprefix("ts="))
    verifier = webhooks.HmacManifestVerifier("s3cret", template=MANIFEST, clock=lambda: stamp)
    verifier.verify(body, headers)
    again = run_cli(
        "trigger", "impressao.concluida", "--sandbox", base_url, "--to", endpoint.url,
        "--resend", json.loads(made.stdout)["id"], "--sign", "standard-webhooks",
        "--secret", WHSEC,
    )  # fmt: skip
    assert 0 == again.returncode, again.stderr
    resent_headers, resent_body = endpoint.requests[1]
    assert resent_body == body
    verify_standard(resent_body, resent_headers)


def test_trigger_reads_the_secret_from_the_environment(endpoint: Endpoint) -> None:
    """--sign shared-secret with SMARTPOS_SANDBOX_SECRET: the header carries it."""
    env = cli_env(SMARTPOS_SANDBOX_SECRET="from-env")
    result = run_cli(
        "trigger", "impressao.falhou", "--to", endpoint.url, "--no-sandbox",
        "--sign", "shared-secret", env=env,
    )  # fmt: skip
    assert 0 == result.returncode, result.stderr
    [(headers, _)] = endpoint.requests
    assert "from-env" == headers["x-webhook-secret"]
    assert "from-env" not in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--secret", "x"], "--secret and --sign-option need --sign SCHEME"),
        (["--sign", "token"], "--sign token needs --secret"),
        (["--sign", "hmac-manifest", "--secret", "x"], "needs the option template"),
        (
            ["--sign", "hmac-manifest", "--secret", "x", "--sign-option", f"template={MANIFEST}"],
            "x-request-id",
        ),
    ],
)
def test_trigger_refuses_a_signing_it_cannot_make(
    args: list[str], said: str, endpoint: Endpoint
) -> None:
    """Exit 2, nothing posted; a manifest field the sample lacks is named."""
    result = run_cli("trigger", "pagamento.aprovado", "--to", endpoint.url, "--no-sandbox", *args)
    assert 2 == result.returncode, result.stdout
    assert said in result.stderr
    assert [] == endpoint.requests


def test_the_help_lists_the_schemes_from_the_one_list() -> None:
    """--sign's choices are smartpos._signatures.SCHEMES, in the help of both commands."""
    from smartpos._signatures import SCHEMES

    for command in ("sandbox", "trigger"):
        result = run_cli(command, "--help")
        assert 0 == result.returncode
        help_text = re.sub(r"-\s+", "-", " ".join(result.stdout.split()))  # wrapped at "-"
        assert ", ".join(SCHEMES) in help_text
