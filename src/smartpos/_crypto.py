"""ed25519 and RSA through the optional ``cryptography`` package (``smartpos[crypto]``).

This module is imported only when a public-key verifier is built or a public-key scheme signs,
and it imports ``cryptography`` itself only inside its functions: without the package, every
function raises one ``ConfigurationError`` naming the extra to install, and nothing else of
smartpos needs it.

Keys are taken in the forms providers publish them: PEM text (``-----BEGIN PUBLIC KEY-----``),
DER bytes, Base64 of either (Woovi publishes its RSA key as Base64 of the PEM), and for ed25519
also the 32 raw bytes, their Base64 or hex, and Standard Webhooks' ``whpk_`` / ``whsk_`` forms.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Final

from smartpos._errors import ConfigurationError
from smartpos._messages import message

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey, RSAPublicKey

__all__ = [
    "RSA_HASHES",
    "RSA_PADDINGS",
    "ed25519_sign",
    "ed25519_verify",
    "library",
    "load_ed25519_private",
    "load_ed25519_public",
    "load_rsa_private",
    "load_rsa_public",
    "rsa_hash",
    "rsa_padding",
    "rsa_sign",
    "rsa_verify",
]

#: The RSA paddings a verifier takes: PKCS #1 v1.5 (the common one) and PSS.
RSA_PADDINGS: Final = ("pkcs1v15", "pss")
#: The digests an RSA signature may use.
RSA_HASHES: Final = ("sha256", "sha384", "sha512")


def library(what: str) -> SimpleNamespace:
    """The parts of ``cryptography`` used here, or ``ConfigurationError`` naming the extra.

    Args:
        what: Who needs it, for the message (``Ed25519SignatureVerifier``).
    """
    try:
        import cryptography  # noqa: F401 - first, so that hiding the package hides it all
        from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ed25519, padding, rsa
    except ImportError:
        raise ConfigurationError(message("webhooks.crypto_missing", what=what)) from None
    return SimpleNamespace(
        InvalidSignature=InvalidSignature,
        UnsupportedAlgorithm=UnsupportedAlgorithm,
        hashes=hashes,
        serialization=serialization,
        ed25519=ed25519,
        padding=padding,
        rsa=rsa,
    )


def _candidates(key: object) -> list[bytes]:
    """The byte strings a key may be: bytes as given; PEM text; what other text decodes to
    (Base64, then hex: a hex string is also valid Base64, of the wrong length)."""
    if isinstance(key, bytes):
        return [key]
    if not isinstance(key, str):
        return []
    text = key.strip()
    for prefix in ("whpk_", "whsk_"):
        text = text.removeprefix(prefix)
    if text.startswith("-----"):
        return [text.encode("utf-8")]
    out = []
    compact = "".join(text.split())
    with contextlib.suppress(binascii.Error, ValueError):
        out.append(base64.b64decode(compact + "=" * (-len(compact) % 4), validate=True))
    with contextlib.suppress(ValueError):
        out.append(bytes.fromhex(compact))
    return out


def _load(
    key: object,
    *,
    index: int,
    kind: str,
    what: str,
    private: bool,
    check: type[Any],
    raw: Any = None,
    raw_lengths: tuple[int, ...] = (),
) -> Any:
    lib = library(what)
    serialization = lib.serialization
    for candidate in _candidates(key):
        loaders: list[Any] = []
        if candidate.lstrip().startswith(b"-----"):
            loaders.append(
                (lambda d: serialization.load_pem_private_key(d, password=None))
                if private
                else serialization.load_pem_public_key
            )
        else:
            if len(candidate) in raw_lengths:
                loaders.append(lambda d: raw(d[:32]))
            loaders.append(
                (lambda d: serialization.load_der_private_key(d, password=None))
                if private
                else serialization.load_der_public_key
            )
        for loader in loaders:
            try:
                loaded = loader(candidate)
            except (ValueError, TypeError, lib.UnsupportedAlgorithm):
                continue
            if isinstance(loaded, check):
                return loaded
    name = "webhooks.private_key" if private else "webhooks.public_key"
    raise ConfigurationError(message(name, index=index, kind=kind))


def load_ed25519_public(key: object, *, index: int = 1) -> Ed25519PublicKey:
    """An ed25519 public key from PEM, DER, 32 raw bytes, their Base64 or hex, or ``whpk_``.

    Raises:
        ConfigurationError: ``cryptography`` is missing, or the key is none of these (the
            message numbers it from 1 and never shows it).
    """
    lib = library("Ed25519SignatureVerifier")
    result: Ed25519PublicKey = _load(
        key,
        index=index,
        kind="ed25519",
        what="Ed25519SignatureVerifier",
        private=False,
        check=lib.ed25519.Ed25519PublicKey,
        raw=lib.ed25519.Ed25519PublicKey.from_public_bytes,
        raw_lengths=(32,),
    )
    return result


def load_ed25519_private(key: object, *, index: int = 1) -> Ed25519PrivateKey:
    """An ed25519 private key from PEM, DER, the 32-byte seed, its Base64 or hex, or
    ``whsk_`` (a 64-byte libsodium key is its seed followed by the public key)."""
    lib = library("smartpos.testing.sign")
    result: Ed25519PrivateKey = _load(
        key,
        index=index,
        kind="ed25519",
        what="smartpos.testing.sign",
        private=True,
        check=lib.ed25519.Ed25519PrivateKey,
        raw=lib.ed25519.Ed25519PrivateKey.from_private_bytes,
        raw_lengths=(32, 64),
    )
    return result


def load_rsa_public(key: object, *, index: int = 1) -> RSAPublicKey:
    """An RSA public key from PEM, DER, or Base64 of either."""
    lib = library("RsaSignatureVerifier")
    result: RSAPublicKey = _load(
        key,
        index=index,
        kind="RSA",
        what="RsaSignatureVerifier",
        private=False,
        check=lib.rsa.RSAPublicKey,
    )
    return result


def load_rsa_private(key: object, *, index: int = 1) -> RSAPrivateKey:
    """An RSA private key from PEM, DER, or Base64 of either (unencrypted)."""
    lib = library("smartpos.testing.sign")
    result: RSAPrivateKey = _load(
        key,
        index=index,
        kind="RSA",
        what="smartpos.testing.sign",
        private=True,
        check=lib.rsa.RSAPrivateKey,
    )
    return result


def ed25519_verify(key: Ed25519PublicKey, signature: bytes, data: bytes) -> bool:
    """Whether ``signature`` is ``key``'s signature of ``data``."""
    lib = library("Ed25519SignatureVerifier")
    try:
        key.verify(signature, data)
    except (lib.InvalidSignature, ValueError):
        return False
    return True


def ed25519_sign(key: Ed25519PrivateKey, data: bytes) -> bytes:
    """``key``'s signature of ``data``."""
    return key.sign(data)


def rsa_padding(name: object) -> str:
    """A padding name of `RSA_PADDINGS`, or ``ConfigurationError``."""
    if name not in RSA_PADDINGS:
        raise ConfigurationError(
            message("webhooks.choice", name="padding", choices=", ".join(RSA_PADDINGS), value=name)
        )
    return str(name)


def rsa_hash(name: object) -> str:
    """A digest name of `RSA_HASHES`, or ``ConfigurationError``."""
    if name not in RSA_HASHES:
        raise ConfigurationError(
            message("webhooks.choice", name="algorithm", choices=", ".join(RSA_HASHES), value=name)
        )
    return str(name)


def _rsa_arguments(padding_name: str, hash_name: str) -> tuple[Any, Any]:
    lib = library("RsaSignatureVerifier")
    algorithm = {"sha256": lib.hashes.SHA256, "sha384": lib.hashes.SHA384}.get(
        hash_name, lib.hashes.SHA512
    )()
    if padding_name == "pss":
        pad = lib.padding.PSS(
            mgf=lib.padding.MGF1(algorithm), salt_length=lib.padding.PSS.DIGEST_LENGTH
        )
    else:
        pad = lib.padding.PKCS1v15()
    return pad, algorithm


def rsa_verify(
    key: RSAPublicKey, signature: bytes, data: bytes, padding_name: str, hash_name: str
) -> bool:
    """Whether ``signature`` is ``key``'s signature of ``data`` with that padding and digest.

    PSS signatures are accepted with any salt length (``PSS.AUTO``), as senders differ.
    """
    lib = library("RsaSignatureVerifier")
    pad, algorithm = _rsa_arguments(padding_name, hash_name)
    if padding_name == "pss":
        pad = lib.padding.PSS(mgf=lib.padding.MGF1(algorithm), salt_length=lib.padding.PSS.AUTO)
    try:
        key.verify(signature, data, pad, algorithm)
    except (lib.InvalidSignature, ValueError):
        return False
    return True


def rsa_sign(key: RSAPrivateKey, data: bytes, padding_name: str, hash_name: str) -> bytes:
    """``key``'s signature of ``data`` with that padding and digest."""
    pad, algorithm = _rsa_arguments(padding_name, hash_name)
    return key.sign(data, pad, algorithm)
