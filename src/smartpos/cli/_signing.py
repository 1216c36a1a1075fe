"""The delivery options the command shares: ``-H``/``--webhook-header`` headers, and
``--sign``/``--secret``/``--sign-option``, which ``smartpos sandbox`` and ``smartpos trigger``
both take.

Light on purpose (no sandbox, no webhook kit at import): ``smartpos.testing.WebhookSigning`` is
imported only when a signing is built.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any, Final

from smartpos._messages import message

from ._output import CommandError

__all__ = ["make_signing", "parse_headers", "parse_sign_options", "signing_of"]

_SECRET_VARIABLE: Final = "SMARTPOS_SANDBOX_SECRET"  # noqa: S105 - its name, not a secret
"""Where ``--secret`` is read from when not given (``ps`` does not show it)."""
_SIGN_OPTIONS_VARIABLE: Final = "SMARTPOS_SANDBOX_SIGN_OPTIONS"
"""Where ``--sign-option`` values are read from when none is given (a JSON object)."""


def parse_headers(values: list[str]) -> dict[str, str]:
    """Read ``-H 'Name: value'`` options.

    Raises:
        CommandError: A value without a colon (exit 2).
    """
    headers: dict[str, str] = {}
    for value in values:
        name, sep, content = value.partition(":")
        if not sep or not name.strip():
            raise CommandError(
                message("cli.bad_header", value=value), hint=message("cli.bad_header_hint"), code=2
            )
        headers[name.strip()] = content.strip()
    return headers


def parse_sign_options(values: Sequence[str]) -> dict[str, str]:
    """Read ``--sign-option NAME=VALUE`` options.

    Raises:
        CommandError: A value without ``=`` (exit 2).
    """
    options: dict[str, str] = {}
    for value in values:
        name, sep, content = value.partition("=")
        if not sep or not name.strip():
            raise CommandError(
                message("cli.bad_sign_option", value=value),
                hint=message("cli.bad_sign_option_hint"),
                code=2,
            )
        options[name.strip()] = content
    return options


def make_signing(scheme: str | None, keys: Sequence[str], options: Mapping[str, Any]) -> Any:
    """The ``WebhookSigning`` of ``--sign``, ``--secret`` and ``--sign-option``, or ``None``.

    Raises:
        CommandError: One without the other, or a configuration the scheme refuses (exit 2,
            in the user's language; the secret is never shown).
    """
    if scheme is None:
        if keys or options:
            raise CommandError(message("cli.secret_needs_sign"), code=2)
        return None
    if not keys:
        raise CommandError(message("cli.sign_needs_secret", scheme=scheme), code=2)
    from smartpos._errors import ConfigurationError
    from smartpos.testing import WebhookSigning

    try:
        return WebhookSigning(scheme, keys[0] if len(keys) == 1 else tuple(keys), **options)
    except (ConfigurationError, TypeError) as exc:
        raise CommandError(
            message("cli.sign_refused", scheme=scheme, error=exc),
            hint=message("cli.sign_refused_hint"),
            code=2,
        ) from None


def signing_of(args: argparse.Namespace) -> Any:
    """``trigger``'s signing: its options, else the environment's secret and options.

    Raises:
        CommandError: As `make_signing`, or a variable that is not a JSON object (exit 2).
    """
    keys = list(args.secret or [])
    if not keys and os.environ.get(_SECRET_VARIABLE, "").strip() and args.sign:
        keys = [os.environ[_SECRET_VARIABLE].strip()]
    options: dict[str, Any] = parse_sign_options(args.sign_option)
    if not options and args.sign and os.environ.get(_SIGN_OPTIONS_VARIABLE, "").strip():
        try:
            read = json.loads(os.environ[_SIGN_OPTIONS_VARIABLE])
        except ValueError:
            read = None
        if not isinstance(read, dict):
            raise CommandError(
                message("cli.sign_refused", scheme=args.sign, error=_SIGN_OPTIONS_VARIABLE),
                hint=message("cli.sign_refused_hint"),
                code=2,
            )
        options = read
    return make_signing(args.sign, keys, options)
