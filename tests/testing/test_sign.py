"""smartpos.testing.sign: the headers of a signed delivery, for every scheme, and its errors.

Whether the headers verify (with the SDK's verifiers, the standardwebhooks package and the
providers' documented vectors) is tested in tests/webhooks/test_verify_*.py.
"""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import base64
import hashlib
import hmac
import time

import pytest

from smartpos import ConfigurationError
from smartpos.testing import sign

SECRET = "whsec_" + base64.b64encode(b"testing-sign-secret-24by").decode()
KEY = base64.b64decode(SECRET.removeprefix("whsec_"))


def test_standard_webhooks_headers_by_default() -> None:
    """Three lower-case headers; the id is the body's own, the timestamp now, in seconds."""
    body = b'{"id":"evt-42","tipo":"pagamento.aprovado"}'
    before = int(time.time())
    headers = sign(body, secret=SECRET)
    after = int(time.time())
    assert ["webhook-id", "webhook-signature", "webhook-timestamp"] == sorted(headers)
    assert "evt-42" == headers["webhook-id"]
    assert before <= int(headers["webhook-timestamp"]) <= after
    content = f"evt-42.{headers['webhook-timestamp']}.".encode() + body
    expected = base64.b64encode(hmac.new(KEY, content, "sha256").digest()).decode()
    assert f"v1,{expected}" == headers["webhook-signature"]


def test_a_retry_signs_the_same_id_and_a_body_without_one_gets_a_stable_id() -> None:
    """The default webhook-id depends on the body only: the same on every attempt."""
    odd = b'{"id":"has.a.dot"}'
    assert sign(odd, secret=SECRET)["webhook-id"] == sign(odd, secret=SECRET)["webhook-id"]
    assert "." not in sign(odd, secret=SECRET)["webhook-id"]
    assert sign(b"[]", secret=SECRET)["webhook-id"].startswith("msg_")


@pytest.mark.parametrize("msg_id", ["a.b", "", "has space", "line\nbreak", "é", "x" * 257])
def test_an_unusable_msg_id_is_refused(msg_id: str) -> None:
    """A "." could shift the signed fields; a header cannot hold control characters."""
    with pytest.raises(ValueError, match="msg_id must be"):
        sign(b"{}", secret=SECRET, msg_id=msg_id)


def test_a_str_body_is_utf8_and_rotation_writes_one_signature_per_key() -> None:
    """str bodies are UTF-8; two secrets give two v1 signatures, in order."""
    other = "whsec_" + base64.b64encode(b"y" * 24).decode()
    text = '{"id":"evt-ç"}'
    by_str = sign(text, secret=[SECRET, other], msg_id="m", timestamp=1_700_000_000)
    by_bytes = sign(text.encode(), secret=[SECRET, other], msg_id="m", timestamp=1_700_000_000)
    assert by_str == by_bytes
    assert 2 == len(by_str["webhook-signature"].split())


def test_extra_headers_are_returned_and_signed_by_a_manifest() -> None:
    """headers= are part of the result; a manifest's {header:...} reads them."""
    headers = sign(
        b"{}",
        secret="k",
        scheme="hmac-manifest",
        template="{header:x-request-id}:{body}",
        headers={"X-Request-Id": "req-9", "content-type": "application/json"},
    )
    assert "req-9" == headers["x-request-id"]
    assert "application/json" == headers["content-type"]
    expected = hmac.new(b"k", b"req-9:{}", "sha256").hexdigest()
    assert headers["x-signature"].endswith(f",v1={expected}")


def test_a_manifest_field_nobody_provides_is_a_value_error() -> None:
    """A {header:...} not in headers=, or a {json:...} the body lacks, cannot be signed."""
    with pytest.raises(ValueError, match="x-request-id header the signature covers is missing"):
        sign(b"{}", secret="k", scheme="hmac-manifest", template="{header:x-request-id}")
    with pytest.raises(ValueError, match="pass it in headers="):
        sign(b"{}", secret="k", scheme="hmac-manifest", template="{json:data.id}")


def test_headers_holding_one_value_use_the_first_secret() -> None:
    """hmac, token and shared-secret carry one value: the first key's."""
    assert {"x-webhook-secret": "one"} == sign(b"", secret=["one", "two"], scheme="shared-secret")
    digest = hashlib.sha256(b"one-{}").hexdigest()
    assert {"x-authenticity-token": digest} == sign(b"{}", secret=["one", "two"], scheme="token")


@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        ({"scheme": "nope"}, ConfigurationError, "unknown signature scheme 'nope'"),
        (
            {"scheme": "stripe", "template": "{body}"},
            ConfigurationError,
            "takes no option template",
        ),
        ({"header": "x"}, ConfigurationError, "standard-webhooks scheme takes no option header"),
        ({"scheme": "hmac-manifest"}, ConfigurationError, "needs the option template"),
        ({"secret": "whpk_" + base64.b64encode(bytes(32)).decode()}, ConfigurationError, "public"),
        ({"secret": ""}, ConfigurationError, "key #1"),
        ({"timestamp": "now"}, TypeError, "seconds since the epoch"),
        ({"timestamp": -1}, ValueError, "finite seconds >= 0"),
        ({"timestamp": float("nan")}, ValueError, "finite seconds >= 0"),
    ],
)
def test_bad_arguments(kwargs: dict[str, object], error: type[Exception], text: str) -> None:
    """Each bad argument is refused with a message naming it (never a key)."""
    arguments: dict[str, object] = {"secret": SECRET, **kwargs}
    with pytest.raises(error, match=text) as info:
        sign(b"{}", **arguments)  # type: ignore[arg-type]
    assert KEY.decode() not in str(info.value)


def test_a_body_that_is_neither_bytes_nor_str_is_a_type_error() -> None:
    """A dict is not a body: the signature covers exact bytes."""
    with pytest.raises(TypeError, match="body must be bytes"):
        sign({"id": "x"}, secret=SECRET)  # type: ignore[arg-type]
