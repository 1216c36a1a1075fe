"""The sandbox's own errors: a sandbox method used wrongly (not an answer of the service)."""

from __future__ import annotations

__all__ = ["QRCodeExpiredError", "SandboxError"]


class SandboxError(Exception):
    """A sandbox method was used wrongly (unknown terminal, referencia, QR code...)."""


class QRCodeExpiredError(SandboxError):
    """The QR code's ``expiresAt`` has passed: a terminal can no longer pair with it."""
