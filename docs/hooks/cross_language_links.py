"""Links from a page of one language to a page of another, as the built site needs them.

The pages link to each other with relative ``.md`` paths, which also work when the files are
read on a code host: ``[Quickstart](../en/quickstart.md)`` from ``docs/pt-BR/index.md``. MkDocs
builds each language apart (mkdocs-static-i18n), so a page of another language is not among the
files of the build and MkDocs would report the link as broken. This hook rewrites such a link
to the other page's address on the site, relative to the page (``en/quickstart/`` from the site's
root), after checking that the file exists; a missing one is a warning, which fails a strict
build. The built HTML's links, these included, are checked again by tests/test_docs_site.py.
"""

from __future__ import annotations

import logging
import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.utils import get_relative_url

__all__ = ["on_page_markdown", "rewrite", "site_path"]

log = logging.getLogger("mkdocs.hooks.cross_language_links")

_LINK = re.compile(r"(?<!!)\[(?P<text>[^\]\n]*)\]\((?P<target>[^)\s]+)(?P<title>\s+\"[^\"]*\")?\)")
_FENCE = re.compile(r"^\s*(```|~~~)")


def site_path(src_uri: str, default_language: str) -> str:
    """The address of a page on the built site: ``en/cli.md`` -> ``en/cli/``."""
    language, _, rest = src_uri.partition("/")
    path = rest if language == default_language else src_uri
    stem = path[: -len(".md")]
    if stem == "index" or stem.endswith("/index"):
        return stem[: -len("index")]
    return stem + "/"


def rewrite(
    markdown: str,
    src_uri: str,
    page_url: str,
    languages: list[str],
    default_language: str,
    docs_dir: Path,
) -> tuple[str, list[str]]:
    """Rewrite the cross-language links of one page; return it and the targets that are missing.

    Args:
        markdown: The page's Markdown.
        src_uri: The page's path under the docs directory (``pt-BR/index.md``).
        page_url: The page's address on the site (``""`` for the root).
        languages: The locales, which are also the top folders of the docs directory.
        default_language: The locale served at the site's root.
        docs_dir: The docs directory, to check that a target exists.
    """
    page_language = src_uri.partition("/")[0]
    missing: list[str] = []

    def link(match: re.Match[str]) -> str:
        target = match.group("target")
        if "://" in target or target.startswith(("#", "/", "mailto:")):
            return match.group(0)
        path, hash_, anchor = target.partition("#")
        if not path.endswith(".md"):
            return match.group(0)
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(src_uri), path))
        language = resolved.partition("/")[0]
        if language not in languages or language == page_language:
            return match.group(0)
        if not (docs_dir / resolved).is_file():
            missing.append(target)
            return match.group(0)
        url = get_relative_url(site_path(resolved, default_language), page_url or ".")
        if url == ".":
            url = "./"
        elif not url.endswith("/"):
            url += "/"
        return f"[{match.group('text')}]({url}{hash_}{anchor}{match.group('title') or ''})"

    out: list[str] = []
    in_fence = False
    for line in markdown.splitlines(keepends=True):
        if _FENCE.match(line):
            in_fence = not in_fence
        out.append(line if in_fence else _LINK.sub(link, line))
    return "".join(out), missing


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """MkDocs event: rewrite the page's links to pages of another language."""
    i18n = config.plugins.get("i18n")
    if i18n is None:
        return markdown
    languages = [language.locale for language in i18n.config.languages]
    default = next(language.locale for language in i18n.config.languages if language.default)
    text, missing = rewrite(
        markdown, page.file.src_uri, page.url, languages, default, Path(config.docs_dir)
    )
    for target in missing:
        log.warning("Doc file '%s' links to '%s', which does not exist.", page.file.src_uri, target)
    return text
