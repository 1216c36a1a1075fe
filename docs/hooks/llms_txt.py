"""``llms.txt`` at the site's root, and a Markdown copy of every page beside its HTML.

Coding assistants read Markdown better than HTML. Following llmstxt.org, every page of the site
is also published as Markdown at its address plus ``index.html.md`` (``en/quickstart/`` ->
``en/quickstart/index.html.md``), and ``llms.txt`` lists those copies, grouped in the sections
that ``extra.llms_txt.sections`` of mkdocs.yml names (globs of page paths; every page must be in
one, or the build warns).

A copy is the page's own Markdown, made to stand alone: included files (``--8<--``) are inlined,
the API reference's ``::: module`` lines become the module's public names with their signatures
and docstrings (a cross-reference ``[`title`][identifier]`` keeps its title), links to other
pages point to their copies, and the ``<!-- fragment -->`` markers of code blocks are dropped.
"""

from __future__ import annotations

import fnmatch
import functools
import logging
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import griffe
from cross_language_links import site_path
from mkdocs.plugins import event_priority
from mkdocs.utils import get_relative_url

__all__ = [
    "COPY_SUFFIX",
    "api_markdown",
    "llms_txt",
    "markdown_copy",
    "on_page_markdown",
    "on_post_build",
    "on_post_page",
    "on_pre_build",
    "plain_crossrefs",
]

log = logging.getLogger("mkdocs.hooks.llms_txt")

#: Appended to a page's HTML file name to name its Markdown copy (llmstxt.org's convention).
COPY_SUFFIX = ".md"

_SNIPPET = re.compile(r"^(?P<indent>[ \t]*)--8<--\s+\"(?P<path>[^\"]+)\"\s*$", re.MULTILINE)
_DIRECTIVE = re.compile(r"^:::[ \t]+(?P<path>[\w.]+)[ \t]*(?:\n[ \t]+\S.*)*$", re.MULTILINE)
# A cross-reference of a docstring, ``[`title`][smartpos.Name]``: mkdocs-autorefs makes it a
# link on the site; a Markdown copy keeps only its title.
_CROSSREF = re.compile(r"\[(?P<title>`[^`\n]+`|[^\]\n]+)\]\[(?P<identifier>[\w.]+)\]")
_FRAGMENT = re.compile(r"^<!--\s*fragment\b.*?-->[ \t]*\n", re.MULTILINE)
_LINK = re.compile(r"(?<!!)\[(?P<text>[^\]\n]*)\]\((?P<target>[^)\s]+)(?P<title>\s+\"[^\"]*\")?\)")
# What starts a block that is not prose: a heading, a list item, a quote, a table, HTML, an
# admonition, a directive, an included file.
_NOT_PROSE = re.compile(r"^(#|[-*+] |>|\||<|!!!|\?\?\?|:::|--8<--|\d+\. )")


@dataclass(frozen=True)
class Entry:
    """A page as llms.txt lists it."""

    src_uri: str
    title: str
    copy_url: str
    description: str


# Filled by each language's build (mkdocs-static-i18n runs one build per language in a
# process), written out once the last one is done.
_entries: dict[str, Entry] = {}
_copies: dict[str, str] = {}


# ------------------------------------------------------------------------ the Markdown copy


@functools.cache
def _package(path: str, src: str) -> griffe.Object:
    return griffe.load(path, search_paths=[src], docstring_parser="google")


def plain_crossrefs(text: str) -> str:
    """Replace every cross-reference ``[title][identifier]`` of a docstring by its title."""
    return _CROSSREF.sub(lambda match: match.group("title"), text)


def _docstring(obj: griffe.Object) -> str:
    return plain_crossrefs(obj.docstring.value).strip() if obj.docstring else ""


def _signature(obj: griffe.Object) -> str:
    try:
        signature = str(obj.signature())  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - a signature Griffe cannot write is left out, not fatal
        signature = ""
    return signature if signature.strip() else obj.name


def api_markdown(path: str, src: str, level: int = 2) -> str:
    """The public names of a module (its ``__all__``) as Markdown: signature and docstring."""
    module = _package(path, src)
    out = [_docstring(module), ""]
    for name in module.exports or ():
        member = module[str(name)]
        try:
            target = member.final_target if member.is_alias else member
        except (griffe.AliasResolutionError, griffe.CyclicAliasError):
            target = member
        kind = target.kind.value
        out += [f"{'#' * level} `{path}.{name}` ({kind})", ""]
        if kind in ("class", "function"):
            keyword = "class" if kind == "class" else "def"
            out += ["```python", f"{keyword} {_signature(target)}", "```", ""]
        elif kind == "attribute" and getattr(target, "value", None) is not None:
            out += ["```python", f"{name} = {target.value}", "```", ""]
        if doc := _docstring(target):
            out += [doc, ""]
        if kind != "class":
            continue
        for child in target.members.values():
            if child.name.startswith("_") or child.is_alias or not child.docstring:
                continue
            label = "property" if "property" in child.labels else child.kind.value
            out += [f"{'#' * (level + 1)} `{name}.{child.name}` ({label})", ""]
            if child.kind.value == "function" and label != "property":
                out += ["```python", f"def {_signature(child)}", "```", ""]
            out += [_docstring(child), ""]
    return "\n".join(out).strip() + "\n"


def markdown_copy(
    markdown: str,
    *,
    src_uri: str,
    page_url: str,
    site_path: Any,
    repo_root: Path,
    src: str,
) -> str:
    """The page's Markdown made to stand alone (see the module docstring).

    Args:
        markdown: The page's Markdown, after the other hooks.
        src_uri: The page's path under the docs directory.
        page_url: The page's address on the site.
        site_path: Gives the site address of a page from its path under the docs directory.
        repo_root: Where the ``--8<--`` paths start.
        src: Where the package's source is, for the API reference.
    """

    def snippet(match: re.Match[str]) -> str:
        text = (repo_root / match.group("path")).read_text(encoding="utf-8").rstrip("\n")
        indent = match.group("indent")
        return "\n".join(indent + line if line else line for line in text.splitlines())

    def directive(match: re.Match[str]) -> str:
        return api_markdown(match.group("path"), src) + "\n"

    here = page_url or "."

    def link(match: re.Match[str]) -> str:
        target = match.group("target")
        if "://" in target or target.startswith(("#", "/", "mailto:")):
            return match.group(0)
        path, hash_, anchor = target.partition("#")
        if path.endswith(".md"):
            resolved = posixpath.normpath(posixpath.join(posixpath.dirname(src_uri), path))
            address = site_path(resolved)
        elif path.endswith("/") or path in ("", "."):
            address = posixpath.normpath(posixpath.join(here, path)) + "/"
            address = "" if address in ("./", "/") else address
        else:
            return match.group(0)
        url = get_relative_url(address + "index.html" + COPY_SUFFIX, here)
        return f"[{match.group('text')}]({url}{hash_}{anchor}{match.group('title') or ''})"

    text = _SNIPPET.sub(snippet, markdown)
    text = _DIRECTIVE.sub(directive, text)
    text = _FRAGMENT.sub("", text)
    return _LINK.sub(link, text)


def _first_paragraph(markdown: str) -> str:
    """The first paragraph of prose: no heading, list, table, code block, HTML or directive."""
    in_fence = False
    paragraph: list[str] = []
    for line in markdown.splitlines():
        if re.match(r"^\s*(```|~~~)", line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if not line.strip():
            if paragraph:
                break
            continue
        if not paragraph and (_NOT_PROSE.match(line) or line[:1].isspace()):
            continue
        paragraph.append(line.strip())
    return " ".join(" ".join(paragraph).split())


def _description(page: Any, markdown: str) -> str:
    """The page's ``description`` front matter, or the first sentence of its first paragraph."""
    if description := page.meta.get("description"):
        return str(description).strip()
    text = _first_paragraph(markdown)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    sentence = re.match(r"(.+?[.!?])(\s|$)", text)
    return sentence.group(1) if sentence else text


# -------------------------------------------------------------------------------- the events


def _i18n(config: Any) -> Any:
    return config.plugins.get("i18n")


def _site_path(config: Any) -> Any:
    i18n = _i18n(config)
    default = (
        next(language.locale for language in i18n.config.languages if language.default)
        if i18n
        else ""
    )
    return lambda src_uri: site_path(src_uri, default)


def on_pre_build(config: Any) -> None:
    """MkDocs event: forget the pages of an earlier build (``mkdocs serve`` rebuilds)."""
    i18n = _i18n(config)
    if i18n is None or not i18n.building:
        _entries.clear()
        _copies.clear()


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """MkDocs event: make the page's Markdown copy and its llms.txt entry."""
    repo_root = Path(config.config_file_path).parent
    src = str(repo_root / "src")
    copy = markdown_copy(
        markdown,
        src_uri=page.file.src_uri,
        page_url=page.url,
        site_path=_site_path(config),
        repo_root=repo_root,
        src=src,
    )
    copy_url = (page.url or "") + ("index.html" if page.url.endswith("/") or not page.url else "")
    _copies[page.file.abs_dest_path] = copy
    _entries[page.file.src_uri] = Entry(
        src_uri=page.file.src_uri,
        title=page.title or page.file.name,
        copy_url=copy_url + COPY_SUFFIX,
        description=_description(page, copy),
    )
    return markdown


def on_post_page(output: str, page: Any, config: Any) -> str:
    """MkDocs event: write the page's Markdown copy beside its HTML."""
    copy = _copies.get(page.file.abs_dest_path)
    if copy is not None:
        path = Path(page.file.abs_dest_path + COPY_SUFFIX)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(copy, encoding="utf-8")
    return output


def llms_txt(
    entries: list[Entry], *, title: str, summary: str, details: str, sections: dict[str, list[str]]
) -> tuple[str, list[str]]:
    """The llms.txt text, and the pages that no section takes."""
    lines = [f"# {title}", "", f"> {' '.join(summary.split())}", ""]
    if details.strip():
        lines += [details.strip(), ""]
    placed: set[str] = set()
    for section, patterns in sections.items():
        chosen = []
        for pattern in patterns:
            for entry in entries:
                if entry.src_uri not in placed and fnmatch.fnmatch(entry.src_uri, pattern):
                    chosen.append(entry)
                    placed.add(entry.src_uri)
        if not chosen:
            continue
        lines += [f"## {section}", ""]
        for entry in chosen:
            note = f": {entry.description}" if entry.description else ""
            lines.append(f"- [{entry.title}]({entry.copy_url}){note}")
        lines.append("")
    return "\n".join(lines), sorted({e.src_uri for e in entries} - placed)


@event_priority(-200)  # after mkdocs-static-i18n (-100), which builds the other languages
def on_post_build(config: Any) -> None:
    """MkDocs event: write llms.txt once every language is built."""
    i18n = _i18n(config)
    if i18n is not None and i18n.building:
        return
    settings = config.extra.get("llms_txt", {})
    site_url = (config.site_url or "").rstrip("/")
    entries = [
        Entry(
            e.src_uri,
            e.title,
            f"{site_url}/{e.copy_url}" if site_url else e.copy_url,
            e.description,
        )
        for e in _entries.values()
    ]
    text, unplaced = llms_txt(
        entries,
        title=config.site_name,
        summary=settings.get("summary", config.site_description or ""),
        details=settings.get("details", ""),
        sections=settings.get("sections", {}),
    )
    for src_uri in unplaced:
        log.warning("llms.txt: the page '%s' is in no section of extra.llms_txt.sections", src_uri)
    (Path(config.site_dir) / "llms.txt").write_text(text, encoding="utf-8")
