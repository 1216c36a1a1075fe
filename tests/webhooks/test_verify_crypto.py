"""The optional ``cryptography`` package: imported only by the public-key schemes, and a clear
``ConfigurationError`` naming ``smartpos[crypto]`` where it is missing."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import base64
import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

from smartpos import ConfigurationError
from smartpos.testing import sign
from smartpos.webhooks import (
    Ed25519SignatureVerifier,
    RsaSignatureVerifier,
    StandardWebhooksVerifier,
    make_verifier,
)

PUBLIC = "whpk_" + base64.b64encode(bytes(32)).decode()
INSTALL = 'pip install "smartpos[crypto]"'


@pytest.fixture
def without_cryptography(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hide cryptography as if it were not installed: every import of it fails."""
    for name in [n for n in sys.modules if n == "cryptography" or n.startswith("cryptography.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "cryptography", None)


@pytest.mark.usefixtures("without_cryptography")
@pytest.mark.parametrize(
    ("build", "who"),
    [
        (lambda: Ed25519SignatureVerifier(bytes(32)), "Ed25519SignatureVerifier"),
        (lambda: RsaSignatureVerifier("-----BEGIN PUBLIC KEY-----"), "RsaSignatureVerifier"),
        (lambda: StandardWebhooksVerifier(PUBLIC), "Ed25519SignatureVerifier"),
        (lambda: make_verifier("rsa", "k"), "RsaSignatureVerifier"),
        (lambda: sign(b"{}", secret=bytes(32), scheme="ed25519"), "smartpos.testing.sign"),
    ],
)
def test_public_key_schemes_name_the_extra_without_cryptography(
    build: Callable[[], Any], who: str
) -> None:
    """Building one of them without the package says which extra to install."""
    with pytest.raises(ConfigurationError) as info:
        build()
    assert f"{who} needs the cryptography package, which is not installed: {INSTALL}" == str(
        info.value
    )


@pytest.mark.usefixtures("without_cryptography")
def test_hmac_schemes_work_without_cryptography() -> None:
    """Standard Webhooks v1, and every HMAC scheme, need nothing beyond the standard library."""
    secret = "whsec_" + base64.b64encode(b"twenty-four-byte-secret!").decode()
    body = b'{"id":"evt-1"}'
    StandardWebhooksVerifier(secret).verify(body, sign(body, secret=secret))
    for scheme in ("stripe", "token", "hmac", "shared-secret"):
        make_verifier(scheme, "k").verify(body, sign(body, secret="k", scheme=scheme))


def test_nothing_imports_cryptography_until_a_public_key_scheme_is_built() -> None:
    """In a fresh interpreter: smartpos, its webhooks and testing namespaces, sign() and an
    HMAC verifier leave cryptography unimported; an ed25519 verifier imports it."""
    code = (
        "import json, sys, base64\n"
        "import smartpos, smartpos.webhooks as w, smartpos.testing as t\n"
        "secret = 'whsec_' + base64.b64encode(b'twenty-four-byte-secret!').decode()\n"
        "w.StandardWebhooksVerifier(secret).verify(b'{}', t.sign(b'{}', secret=secret))\n"
        "w.make_verifier('stripe', 'k')\n"
        "before = 'cryptography' in sys.modules\n"
        "w.Ed25519SignatureVerifier(bytes(32))\n"
        "print(json.dumps([before, 'cryptography' in sys.modules]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert [False, True] == json.loads(result.stdout)
