"""The ``smartpos`` logger and the process-wide logging set-up; nothing here decides a call.

The SDK logs through one logger, ``smartpos``, silent by default (a ``NullHandler``).
``SMARTPOS_LOG=info|debug`` attaches a stderr handler once per process. httpx logs every URL
it requests at INFO: a filter on its logger masks the customer's document in the one path
that carries it, and the user and password of a base URL.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from urllib.parse import unquote

from . import _httpcompat
from ._documents import mask_documento

__all__ = [
    "configure_logging_from_env",
    "logger",
    "mask_documents_in_httpx_logs",
    "mask_path",
    "redact_url",
    "set_up",
]

logger = logging.getLogger("smartpos")
logger.addHandler(logging.NullHandler())

_log_configured = False


def configure_logging_from_env() -> None:
    """Attach a stderr handler to the ``smartpos`` logger when ``SMARTPOS_LOG`` asks for it."""
    global _log_configured
    if _log_configured:
        return
    _log_configured = True
    level = os.environ.get("SMARTPOS_LOG", "").strip().lower()
    if level not in ("info", "debug"):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG if level == "debug" else logging.INFO)


# The listing carries the customer's document in its URL path, and httpx logs every URL at
# INFO ("HTTP Request: GET .../v1/customers/52998224725/smartpos"). The filter masks the
# document of any customer path (the listing's, or one ``client.request`` calls) in httpx's
# records (LGPD), and a user:password of the base URL; every other record passes untouched.
_CUSTOMER_PATH = re.compile(r"(/v1/customers/)([^/?#]+)(?=[/?#]|$)")


def mask_path(path: str) -> str:
    """``path`` with the customer's document of a ``/v1/customers/{documento}`` path masked."""
    return _CUSTOMER_PATH.sub(lambda m: m[1] + mask_documento(unquote(m[2])), path)


class _MaskCustomerPath(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if not isinstance(args, tuple):
            return True
        url = _httpcompat.classes("URL")
        if any(isinstance(a, url) for a in args):
            record.args = tuple(
                redact_url(mask_path(str(a))) if isinstance(a, url) else a for a in args
            )
        return True


_httpx_filter_installed = False


def mask_documents_in_httpx_logs() -> None:
    """Put the masking filter on httpx's logger and httpx2's (once per process)."""
    global _httpx_filter_installed
    if not _httpx_filter_installed:
        _httpx_filter_installed = True
        for name in ("httpx", "httpx2"):
            logging.getLogger(name).addFilter(_MaskCustomerPath())


def set_up() -> None:
    """Everything a client needs from logging, done once per process (called by both clients)."""
    configure_logging_from_env()
    mask_documents_in_httpx_logs()


_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@]*@")


def redact_url(url: str) -> str:
    """Hide the user and password of a URL (``https://user:pw@host`` -> ``https://***@host``)."""
    return _USERINFO.sub(r"\1***@", url) if "@" in url else url
