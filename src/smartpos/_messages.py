"""The SDK's own messages, in English (the default) or Brazilian Portuguese.

Every message of an exception the SDK raises on purpose has a stable key in
``_message_catalog``, with one ``str.format`` template per language. `message` picks the
language:

1. the ``lang=`` a caller passes (a client's option, while that client is built);
2. else the language made active for a client's calls (`speaking`: the client's
   ``lang=`` option, during its argument checks and its sends);
3. else the ``SMARTPOS_LANG`` environment variable, read once per process (``pt_BR``,
   ``pt-BR`` or ``pt``: Portuguese; anything else, or nothing: English); `reset`
   reads it again.

A message is wholly in one language: its fields are identifiers and values (``campo``
names, codes, referencias, type names), which stay as they are. The service's own words (an
``APIError``'s ``mensagem`` and ``acao``) are already Portuguese and are quoted as they came.
Log lines are not messages: they stay in English for operators' log pipelines.

The catalog is a module of its own, imported on the first message, i.e. when an error is
raised: ``import smartpos`` and a successful call never load it.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any, Final, ParamSpec, TypeVar

__all__ = [
    "ENGLISH",
    "LANGUAGES",
    "PORTUGUESE",
    "current_language",
    "env_language",
    "in_language",
    "language_of",
    "message",
    "reset",
    "speaking",
]

ENGLISH: Final = "en"
PORTUGUESE: Final = "pt_BR"
#: Every language of the catalog; English first (the default).
LANGUAGES: Final = (ENGLISH, PORTUGUESE)
#: The environment variable that sets the language of a process.
ENV_VAR: Final = "SMARTPOS_LANG"

P = ParamSpec("P")
R = TypeVar("R")

# The language of the client whose call is running (None: the process's language). A
# ContextVar, so that threads and asyncio tasks each see their own client's.
_active: ContextVar[str | None] = ContextVar("smartpos_lang", default=None)
_env: str | None = None


def language_of(value: object) -> str | None:
    """The language a setting names, or ``None`` for a setting that names none.

    ``pt_BR``, ``pt-BR``, ``pt`` (any case, also with an encoding such as ``pt_BR.UTF-8``)
    are Portuguese; ``en``, ``en_US``, ``en-GB``... are English.
    """
    if not isinstance(value, str):
        return None
    name = value.strip().split(".", 1)[0].split("@", 1)[0].replace("-", "_").lower()
    if name in ("pt", "pt_br"):
        return PORTUGUESE
    if name == "en" or name.startswith("en_"):
        return ENGLISH
    return None


def env_language() -> str:
    """The language of ``SMARTPOS_LANG``: read once, then cached (see `reset`)."""
    global _env
    if _env is None:
        _env = language_of(os.environ.get(ENV_VAR)) or ENGLISH
    return _env


def reset() -> None:
    """Forget the cached ``SMARTPOS_LANG``: the next message reads the environment again."""
    global _env
    _env = None


def current_language() -> str:
    """The language a message built now is in: the running client's, else the process's."""
    return _active.get() or env_language()


def message(key: str, /, *, lang: str | None = None, **fields: object) -> str:
    """The message ``key`` in ``lang`` (default: `current_language`), formatted.

    Raises:
        KeyError: ``key`` is not in the catalog (a bug of the SDK, caught by its tests).
    """
    from ._message_catalog import CATALOG

    return CATALOG[key][lang or current_language()].format(**fields)


@contextlib.contextmanager
def in_language(lang: str | None) -> Iterator[None]:
    """Build the messages of the block in ``lang`` (``None``: the process's language)."""
    if lang is None:
        yield
        return
    token = _active.set(lang)
    try:
        yield
    finally:
        _active.reset(token)


def speaking(lang_of: Callable[[Any], str | None]) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a function so that its messages are in the language of its first argument.

    ``lang_of(first_argument)`` gives the language (a client's ``Config.lang``); ``None``
    leaves the process's language, at the cost of one call: no context variable is touched.
    """

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(function)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            lang = lang_of(args[0])
            if lang is None:
                return function(*args, **kwargs)
            token = _active.set(lang)
            try:
                return function(*args, **kwargs)
            finally:
                _active.reset(token)

        return wrapper

    return decorate
