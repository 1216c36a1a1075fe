"""The documentation site: it builds strictly, its links hold, its code runs, llms.txt is right.

Code blocks. Every fenced block of README.md, CHANGELOG.md and docs/**/*.md is either run by the
test suite or marked as a fragment on purpose, with an HTML comment on the line before its fence
(invisible on the site and on code hosts)::

    <!-- fragment: why it cannot run as it is -->
    ```python
    client.payments.create(...)
    ```

The blocks that run (``RUNNERS`` names the test that runs each kind):

- ``console`` blocks whose ``$`` lines all run ``smartpos``: tests/cli/test_cli_docs.py runs
  every such line against a sandbox;
- the ``python`` blocks of ``docs/*/testing.md``: each is a pytest module,
  tests/testing/test_sandbox_docs.py runs them;
- the README's sandbox quickstart (the first ``python`` block with ``Sandbox()``): test_readme;
- a ``python`` block that is an example program of ``examples/`` (verbatim, or included with
  ``--8<-- "examples/NAME.py"``): the test that runs that example;
- every other ``python`` block: run here, each as a script in a fresh interpreter
  (``test_python_block_runs``);
- the ``console`` blocks of ``docs/*/django*.md`` whose lines all run ``python manage.py``:
  tests/integrations/test_django_docs_commands.py runs them against examples/django_shop;
- the ``console`` block of ``docs/*/django-testing.md`` that runs the example shop's tests
  (``python -m pytest tests``): tests/integrations/test_django_shop_tests.py runs those lines.

The ``python`` blocks of the docstrings in src/smartpos (the API reference shows them) run
here too, and the docstrings hold no Sphinx role and no bare ``>>>`` example: they are Markdown.
A fragment in Python must still parse. Site build: ``mkdocs build --strict`` with no warning,
then every link of the built HTML (the cross-language ones included) and every anchor is
checked, as are llms.txt and the pages' Markdown copies.
"""

from __future__ import annotations

import ast
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
LANGUAGES = ("pt-BR", "en")

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
FRAGMENT = re.compile(r"^\s*<!--\s*fragment(?:\s*:\s*(?P<why>.*?))?\s*-->\s*$")
SNIPPET = re.compile(r'^--8<--\s+"(?P<path>[^"]+)"\s*$')

#: The test that runs each kind of block (see the module docstring).
RUNNERS = {
    "cli": "tests/cli/test_cli_docs.py",
    "testing": "tests/testing/test_sandbox_docs.py",
    "readme": "tests/test_readme.py",
    "here": "tests/test_docs_site.py",
    "manage.py": "tests/integrations/test_django_docs_commands.py",
    "shop-tests": "tests/integrations/test_django_shop_tests.py",
}
#: The test that runs each program of examples/.
EXAMPLE_RUNNERS = {
    "celery_app.py": "tests/integrations/test_celery.py",
    "checkout_async.py": "tests/cli/test_cli_examples.py",
    "fastapi_app.py": "tests/integrations/test_fastapi.py",
    "flask_app.py": "tests/integrations/test_flask.py",
    "otel_sandbox.py": "tests/integrations/test_otel.py",
    "quickstart.py": "tests/cli/test_cli_examples.py",
    "webhook_flask.py": "tests/webhooks/test_examples.py",
    "webhook_starlette.py": "tests/webhooks/test_examples.py",
}
#: The test that runs each project of examples/ (a folder): every file of it the docs include.
EXAMPLE_PROJECTS = {
    "django_shop": "tests/integrations/test_django.py",
}


#: A Sphinx role of the Python domain (``:class:`Sandbox```): Markdown docstrings write a
#: cross-reference (``[`Sandbox`][smartpos.testing.Sandbox]``) or inline code instead.
SPHINX_ROLE = re.compile(r":(?:py:)?(class|func|meth|attr|mod|exc|data|obj|const):`(~?)([^`]+)`")
SRC = REPO / "src" / "smartpos"

URL_HOST = re.compile(r"\b[a-z][a-z0-9+.-]*://(?:[^@/\s\"']*@)?(\[[^\]]*\]|[^:/\s\"'?#]+)")


def _local(host: str) -> bool:
    """A host a doc block may reach while it runs: loopback, or one that cannot resolve."""
    return host in ("localhost", "[::1]") or host.startswith("127.") or host.endswith(".invalid")


@dataclass(frozen=True)
class Block:
    """A fenced code block of a Markdown file."""

    path: str
    line: int
    language: str
    body: str
    fragment: bool

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


def markdown_files() -> list[Path]:
    """The Markdown files whose code blocks are checked."""
    pages = sorted(p for p in DOCS.rglob("*.md") if "hooks" not in p.relative_to(DOCS).parts)
    return [REPO / "README.md", REPO / "CHANGELOG.md", *pages]


def code_blocks(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, with their fragment marker."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        indent, fence = opening.group("indent"), opening.group("fence")
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        end = index + 1
        while end < len(lines) and not closing.match(lines[end]):
            end += 1
        before = [line for line in lines[:index] if line.strip()]
        body = "\n".join(line.removeprefix(indent) for line in lines[index + 1 : end])
        info = opening.group("info").strip().strip("{}").strip().lstrip(".")
        blocks.append(
            Block(
                path=str(path.relative_to(REPO)),
                line=index + 1,
                language=info.split()[0] if info else "",
                body=body + "\n" if body else "",
                fragment=bool(before and FRAGMENT.match(before[-1])),
            )
        )
        index = end + 1
    return blocks


BLOCKS = [block for path in markdown_files() for block in code_blocks(path)]


def _is_smartpos_line(command: str) -> bool:
    stages = [stage.split() for stage in command.split("|")]
    return all(
        stage[:1] in (["smartpos"], ["echo"])
        or stage[:3] == ["python", "-m", "smartpos.testing"]
        # The environment the CLI test's world sets for every line anyway.
        or (stage[:1] == ["export"] and all(w.startswith("SMARTPOS_") for w in stage[1:]))
        for stage in stages
    )


def _example_program(body: str) -> str | None:
    """The examples/ file a block shows, verbatim or included, or None."""
    if match := SNIPPET.match(body.strip()):
        name = match.group("path").removeprefix("examples/")
        return name if match.group("path").startswith("examples/") else None
    for example in sorted((REPO / "examples").glob("*.py")):
        text = example.read_text(encoding="utf-8")
        if body.strip() and body.strip() in text and len(body) > len(text) / 2:
            return example.name
    return None


def shell_commands(block: Block) -> list[list[str]]:
    """A prompt-less ``console`` block's commands: each line's words, its comment left out."""
    return [
        words for line in block.body.splitlines() if (words := shlex.split(line, comments=True))
    ]


#: ``python -m pytest tests``, as the example shop's developers run its tests, with the
#: variables of its settings before it.
_SHOP_TESTS = re.compile(r"(?:(?:DJANGO_DB|SHOP_POSTGRES_[A-Z]+)=\S+ )*python -m pytest tests")


def _django_runner(block: Block) -> str | None:
    """The runner of a prompt-less ``console`` block of the Django guides, or None."""
    if not re.fullmatch(r"docs/[^/]+/django(?:-testing)?\.md", block.path):
        return None
    commands = shell_commands(block)
    if commands and all(words[:2] == ["python", "manage.py"] for words in commands):
        return RUNNERS["manage.py"]
    if commands and all(_SHOP_TESTS.fullmatch(shlex.join(words)) for words in commands):
        return RUNNERS["shop-tests"]
    return None


def runner(block: Block) -> str | None:
    """The test file that runs the block, or None when nothing does."""
    if block.fragment:
        return None
    if block.language == "console":
        commands = [line[2:] for line in block.body.splitlines() if line.startswith("$ ")]
        if commands and all(_is_smartpos_line(c) for c in commands):
            return RUNNERS["cli"]
        return None if commands else _django_runner(block)
    if block.language != "python":
        return None
    if re.fullmatch(r"docs/[^/]+/testing\.md", block.path):
        return RUNNERS["testing"]
    if block.path == "README.md":
        first = next(b for b in BLOCKS if b.path == "README.md" and "Sandbox()" in b.body)
        return RUNNERS["readme"] if block == first else None
    if (name := _example_program(block.body)) is not None:
        project, _, inside = name.partition("/")
        if inside and (REPO / "examples" / name).is_file():
            return EXAMPLE_PROJECTS.get(project)
        return EXAMPLE_RUNNERS.get(name)
    return RUNNERS["here"]


# ------------------------------------------------------------------------------ code blocks


def test_the_blocks_are_found() -> None:
    """The parser finds the blocks of every page, fragments and runnable ones alike."""
    paths = {block.path for block in BLOCKS}
    assert {"README.md", "docs/en/testing.md", "docs/en/cli.md", "docs/pt-BR/index.md"} <= paths
    assert any(block.fragment for block in BLOCKS)
    assert {runner(block) for block in BLOCKS} >= set(RUNNERS.values())


def test_every_block_runs_or_is_a_fragment() -> None:
    """No code block is left unchecked by accident: mark it ``<!-- fragment -->`` or make it run."""
    unchecked = [
        f"{block} ({block.language or 'no language'})"
        for block in BLOCKS
        if not block.fragment and runner(block) is None
    ]
    assert unchecked == [], (
        "these code blocks are neither run by a test nor marked as fragments "
        "(put '<!-- fragment: why -->' on the line before the fence, or make them run): "
        + ", ".join(unchecked)
    )


def test_the_runners_run_what_they_are_said_to() -> None:
    """Each runner named above exists and reads the files this module says it runs."""
    for path in RUNNERS.values():
        assert (REPO / path).is_file(), path
    assert "rglob" in (REPO / RUNNERS["cli"]).read_text(encoding="utf-8")
    assert '"*/testing.md"' in (REPO / RUNNERS["testing"]).read_text(encoding="utf-8")
    assert "README.md" in (REPO / RUNNERS["readme"]).read_text(encoding="utf-8")
    for kind in ("manage.py", "shop-tests"):
        assert f'RUNNERS["{kind}"]' in (REPO / RUNNERS[kind]).read_text(encoding="utf-8")


def test_every_example_is_run_by_a_test() -> None:
    """Every program of examples/ has a test that runs it (so the docs may show it as run)."""
    examples = sorted(p.name for p in (REPO / "examples").glob("*.py"))
    assert examples == sorted(EXAMPLE_RUNNERS)
    for name, test in EXAMPLE_RUNNERS.items():
        assert Path(name).stem in (REPO / test).read_text(encoding="utf-8"), (name, test)
    projects = sorted(
        p.name
        for p in (REPO / "examples").iterdir()
        if p.is_dir() and not p.name.startswith(("_", "."))
    )
    assert projects == sorted(EXAMPLE_PROJECTS)
    for name, test in EXAMPLE_PROJECTS.items():
        assert name in (REPO / test).read_text(encoding="utf-8"), (name, test)


@pytest.mark.parametrize(
    "block", [b for b in BLOCKS if b.fragment and b.language == "python"], ids=str
)
def test_python_fragment_parses(block: Block) -> None:
    """A Python fragment cannot run alone, but it is still valid Python."""
    ast.parse(block.body, filename=str(block))


@pytest.mark.parametrize("block", [b for b in BLOCKS if runner(b) == RUNNERS["here"]], ids=str)
def test_python_block_runs(block: Block, tmp_path: Path) -> None:
    """A Python block that no other test runs runs here, as a script, with warnings as errors.

    A block that names a host other than a loopback or ``.invalid`` one is not run at all: it
    needs a server this machine does not have (and tests only ever talk to loopback), so it is
    a fragment to be marked.
    """
    hosts = {h for h in URL_HOST.findall(block.body) if not _local(h)}
    assert not hosts, f"{block} names {sorted(hosts)}: mark it <!-- fragment: why -->"
    result = subprocess.run(
        [sys.executable, "-W", "error", "-c", block.body],
        cwd=tmp_path,
        env={**os.environ, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, f"{block}:\n{result.stdout}{result.stderr}"


def _docstring_blocks() -> list[Block]:
    """The fenced ``python`` blocks of the docstrings of src/smartpos (shown on the site)."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if not isinstance(body, list) or not body or not isinstance(node, ast.AST):
                continue
            first = body[0]
            if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)):
                continue
            if not isinstance(first.value.value, str):
                continue
            doc = ast.get_docstring(node) or ""  # type: ignore[arg-type]
            opening = first.lineno
            for match in re.finditer(r"^```python\n(.*?)^```$", doc, re.MULTILINE | re.DOTALL):
                line = opening + doc[: match.start()].count("\n")
                relative = str(path.relative_to(REPO))
                found.append(Block(relative, line, "python", match.group(1), fragment=False))
    return found


DOCSTRING_BLOCKS = _docstring_blocks()


def test_the_docstring_examples_are_found() -> None:
    """The examples of smartpos.testing's and RemoteSandbox's docstrings are fenced blocks."""
    paths = {block.path for block in DOCSTRING_BLOCKS}
    assert {"src/smartpos/testing/__init__.py", "src/smartpos/testing/_remote.py"} <= paths


@pytest.mark.parametrize("block", DOCSTRING_BLOCKS, ids=str)
def test_docstring_python_block_runs(block: Block, tmp_path: Path) -> None:
    """A ``python`` block of a docstring runs as a script, with warnings as errors."""
    hosts = {h for h in URL_HOST.findall(block.body) if not _local(h)}
    assert not hosts, f"{block} names {sorted(hosts)}"
    result = subprocess.run(
        [sys.executable, "-W", "error", "-c", block.body],
        cwd=tmp_path,
        env={**os.environ, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, f"{block}:\n{result.stdout}{result.stderr}"


def test_no_docstring_has_a_bare_doctest() -> None:
    """Markdown shows bare ``>>>`` lines as a quote: examples are fenced blocks that run."""
    bare = [
        f"{path.relative_to(REPO)}:{number}"
        for path in sorted(SRC.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if line.lstrip().startswith(">>>")
    ]
    assert bare == []


def test_no_sphinx_role_remains_in_the_source() -> None:
    """Docstrings are Markdown: a Sphinx role would show as ``:class:`` text on the site."""
    roles = [
        f"{path.relative_to(REPO)}:{number}: {match.group(0)}"
        for path in sorted(SRC.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for match in SPHINX_ROLE.finditer(line)
    ]
    assert roles == []
    assert SPHINX_ROLE.search("see :class:`~smartpos.OutcomeUnknownError`")
    assert SPHINX_ROLE.search("see :meth:`Sandbox.serve`")


#: What only the project's authors have (their own notes, the service's spec, the shared folder
#: beside the repository): a user who follows such a citation finds nothing, so the docs state
#: the rule instead.
OUTSIDE = re.compile(
    r"(?<![\w-])(?:API|STYLE|service-spec)\.md\b|\bservice-spec\b|(?:\.\./|/work/)shared\b"
)
#: A Markdown file named in prose (``stores.md``, ``docs/en/testing.md#anchor``).
MD_FILE = re.compile(r"(?<![\w.-])([\w-]+(?:\.[\w-]+)*\.md)\b")


def _prose() -> list[tuple[str, str]]:
    """What users read: README.md, docs/**/*.md and the docstrings of src/smartpos."""
    texts = [
        (str(path.relative_to(REPO)), path.read_text(encoding="utf-8"))
        for path in [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]
    ]
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        documented = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
        for node in ast.walk(tree):
            if isinstance(node, documented) and (doc := ast.get_docstring(node)):
                line = getattr(node, "lineno", 1)
                texts.append((f"{path.relative_to(REPO)}:{line}", doc))
    return texts


def outside_citations(text: str, known: set[str]) -> list[str]:
    """The files ``text`` cites that are not in the repository."""
    found = [match.group(0) for match in OUTSIDE.finditer(text)]
    # A page's Markdown copy on the site is "index.html.md": a URL, not a file.
    found += [name for name in MD_FILE.findall(text) if name not in known and ".html." not in name]
    return list(dict.fromkeys(found))


def test_no_doc_cites_a_file_outside_the_repository() -> None:
    """The docs, the README and the docstrings cite only files a user has: no API.md, STYLE.md,
    service-spec.md or ../shared/ (the authors' own), no Markdown file the repository lacks."""
    known = {p.name for p in REPO.rglob("*.md") if not {".git", "site"} & set(p.parts)}
    cited = [
        f"{where}: {name}" for where, text in _prose() for name in outside_citations(text, known)
    ]
    assert [] == cited
    assert ["API.md", "../shared", "nowhere.md"] == outside_citations(
        "see API.md, ../shared/x and nowhere.md, but stores.md is here", known
    )


def test_no_portuguese_page_sends_to_a_portuguese_page_as_english() -> None:
    """A link of docs/pt-BR/ followed by "(em inglês)" points at a page that exists in Portuguese:
    the note is stale (every page has both languages)."""
    stale = [
        f"{path.relative_to(REPO)}: {match.group(0)!r}"
        for path in sorted((DOCS / "pt-BR").rglob("*.md"))
        for match in re.finditer(
            r"\]\((?P<page>[\w./-]+\.md)(?:#[\w-]*)?\)[\s,]*\(?em inglês",
            path.read_text(encoding="utf-8"),
        )
        if (path.parent / match.group("page")).is_file()
    ]
    assert [] == stale


def test_a_block_that_names_a_remote_host_is_never_run() -> None:
    """The guard above: the stores' examples name hosts that only a fragment may name."""
    assert URL_HOST.findall('webhooks.RedisStore("redis://inbox.internal:6379/0")') == [
        "inbox.internal"
    ]
    assert URL_HOST.findall('dsn = "postgresql://inbox@db.internal/shop"') == ["db.internal"]
    assert all(_local(h) for h in ("127.0.0.1", "localhost", "sandbox.invalid", "[::1]"))
    assert not _local("db.internal")


# ------------------------------------------------------------------------------- languages


def _pages(language: str) -> set[str]:
    root = DOCS / language
    return {p.relative_to(root).as_posix() for p in root.rglob("*.md")}


def test_every_portuguese_page_has_an_english_one() -> None:
    """No page exists in Portuguese only: English holds every page, pt-BR is filled in."""
    assert _pages("pt-BR")
    assert _pages("pt-BR") <= _pages("en")


def test_both_languages_have_the_same_pages() -> None:
    """docs/pt-BR/ and docs/en/ hold the same pages: a page is written in both or in neither."""
    assert _pages("pt-BR") == _pages("en")


# ---------------------------------------------------------------------------------- README


def test_the_readme_links_resolve() -> None:
    """Every relative link of README.md names a file or folder of the repository."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    relative = [t for t in targets if not urlsplit(t).scheme and not t.startswith("#")]
    assert "docs/en/quickstart.md" in relative
    missing = [t for t in relative if not (REPO / t.partition("#")[0]).exists()]
    assert missing == []


def test_the_readme_install_commands_work_today() -> None:
    """The README installs from a checkout or a Git URL (marked placeholder), not from PyPI."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    install = text.split("## Install", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^\$ (pip install .*?)(?:\s+#.*)?$", install, re.MULTILINE)
    assert commands[0] == "pip install ."
    assert all(c != "pip install smartpos" for c in commands)
    assert all("git+https://<repository URL>" in c for c in commands[1:])
    assert "placeholder" in install


# ------------------------------------------------------------------------------------ site


def _tools_or_skip() -> None:
    """The docs group installed, or a skip outside CI (in CI a missing tool is a failure)."""
    try:
        import material  # noqa: F401
        import mkdocs  # noqa: F401
        import mkdocs_static_i18n  # noqa: F401
        import mkdocstrings_handlers.python  # noqa: F401
    except ImportError as exc:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"the docs tools are not installed (pip install --group docs -e .): {exc}")


@dataclass(frozen=True)
class Site:
    """A strict build of the site."""

    root: Path
    log: str


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """``mkdocs build --strict`` of the repository's mkdocs.yml, into a temporary folder."""
    _tools_or_skip()
    root = tmp_path_factory.mktemp("site")
    env = {k: v for k, v in os.environ.items() if k != "SMARTPOS_SITE_URL"}
    config = ["--config-file", str(REPO / "mkdocs.yml"), "--site-dir", str(root)]
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--clean", *config],
        cwd=tmp_path_factory.getbasetemp(),
        env={**env, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=600,
        check=False,
    )
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-6000:]
    return Site(root, log)


def test_the_site_builds_without_a_warning(site: Site) -> None:
    """The strict build passed and logged no warning or error at all."""
    problems = [line for line in site.log.splitlines() if re.match(r"(WARNING|ERROR)\b", line)]
    assert problems == []
    assert (site.root / "index.html").is_file()
    assert (site.root / "en" / "index.html").is_file()


class _Links(HTMLParser):
    """The ids and the links of an HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.lang = ""
        self.alternates: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag == "html":
            self.lang = values.get("lang", "")
        for name in ("id", "name") if tag != "meta" else ():
            if values.get(name):
                self.ids.add(values[name])
        for name in ("href", "src"):
            if values.get(name) and tag in ("a", "link", "img", "script", "iframe", "source"):
                self.links.append(values[name])
        if tag == "a" and values.get("hreflang"):
            self.alternates[values["hreflang"]] = values["href"]


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def _target(page: Path, link: str, root: Path) -> tuple[Path, str] | None:
    """The file and fragment an internal link points to (None for external links)."""
    parts = urlsplit(link)
    if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:", "data:")):
        return None
    path = unquote(parts.path)
    target = page if not path else (page.parent / path).resolve()
    if path.startswith("/"):
        target = (root / path.lstrip("/")).resolve()
    if target.is_dir():
        target = target / "index.html"
    return target, unquote(parts.fragment)


def test_every_internal_link_and_anchor_of_the_site_resolves(site: Site) -> None:
    """Every link of every built page (cross-language ones too) hits a file, and its anchor."""
    pages = sorted(site.root.rglob("*.html"))
    parsed = {page: _parse(page) for page in pages}
    assert len(pages) >= 14
    broken = []
    for page, links in parsed.items():
        for link in links.links:
            found = _target(page, link, site.root)
            if found is None:
                continue
            target, fragment = found
            where = f"{page.relative_to(site.root)}: {link}"
            if not target.resolve().is_relative_to(site.root.resolve()) or not target.is_file():
                broken.append(where)
            elif fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else _parse(target).ids
                if fragment not in ids:
                    broken.append(where + " (no such anchor)")
    assert broken == []


def test_the_portuguese_home_links_the_portuguese_pages(site: Site) -> None:
    """pt-BR is the root; its home page links every guide page in Portuguese (all are
    translated), never an English one, through site addresses."""
    home = _parse(site.root / "index.html")
    assert home.lang == "pt"  # Material writes pt-BR's language as "pt"
    assert _parse(site.root / "en" / "index.html").lang == "en"
    assert "quickstart/" in home.links  # a translated page: the Portuguese one
    assert "client/#erros-e-os-tres-resultados" in home.links  # a Portuguese anchor
    assert not any(link.startswith("en/client/") for link in home.links)
    assert [] == [link for link in home.links if link.startswith("en/") and link != "en/"]
    for page in ("quickstart/", "client/", "webhooks/", "stores/", "testing/", "cli/"):
        assert page in {link.partition("#")[0] for link in home.links}, page
        assert (site.root / page / "index.html").is_file(), page


def test_every_page_has_a_language_switch(site: Site) -> None:
    """Each page offers Português (the root) and English; an English page's switch goes home."""
    for page in (site.root / "index.html", site.root / "en" / "quickstart" / "index.html"):
        alternates = _parse(page).alternates
        assert set(alternates) == {"pt-BR", "en"}, page
        for link in alternates.values():
            found = _target(page, link, site.root)
            assert found is not None
            assert found[0].is_file(), (page, link)


@pytest.mark.parametrize("module", ["smartpos", "smartpos.webhooks", "smartpos.testing"])
def test_the_api_reference_has_every_public_name(site: Site, module: str) -> None:
    """Every name of the module's ``__all__`` has its entry (an anchor) in the reference.

    Dunder names (``__version__``) get no entry of their own; the page's text names them.
    """
    import importlib

    page = site.root / "en" / "reference" / module.rpartition(".")[2] / "index.html"
    parsed = _parse(page)
    names = importlib.import_module(module).__all__
    missing = [
        name for name in names if not name.startswith("__") and f"{module}.{name}" not in parsed.ids
    ]
    assert missing == []
    text = page.read_text(encoding="utf-8")
    assert [name for name in names if name.startswith("__") and name not in text] == []


def test_no_sphinx_role_shows_on_the_site(site: Site) -> None:
    """The docstrings' cross-references are links, never ``:class:`` or ``[x][y]`` text."""
    shown = {
        str(page.relative_to(site.root)): SPHINX_ROLE.findall(page.read_text(encoding="utf-8"))
        + re.findall(r"\]\[smartpos[\w.]*\]", page.read_text(encoding="utf-8"))
        for page in (site.root / "en" / "reference").rglob("*.html")
    }
    assert len(shown) == 3
    assert {page: found for page, found in shown.items() if found} == {}
    html = (site.root / "en" / "reference" / "testing" / "index.html").read_text(encoding="utf-8")
    assert 'href="#smartpos.testing.Sandbox"' in html  # a cross-reference that became a link
    copy = site.root / "en" / "reference" / "testing" / "index.html.md"
    assert "][smartpos." not in copy.read_text(encoding="utf-8")  # only its title in the copy


def test_the_changelog_is_on_the_site(site: Site) -> None:
    """The changelog page holds CHANGELOG.md, included when the site is built."""
    html = (site.root / "en" / "changelog" / "index.html").read_text(encoding="utf-8")
    assert 'id="unreleased"' in html
    assert "Keep a Changelog" in html


# ----------------------------------------------------------------------- llms.txt and copies


def _html_pages(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("index.html") if p.parent != root / "404")


def test_every_page_has_a_markdown_copy_beside_it(site: Site) -> None:
    """``<page>/index.html`` has ``<page>/index.html.md``: the page's Markdown, standing alone."""
    pages = _html_pages(site.root)
    copies = {page: Path(str(page) + ".md") for page in pages}
    assert [p for p, copy in copies.items() if not copy.is_file()] == []
    for copy in copies.values():
        text = copy.read_text(encoding="utf-8")
        assert text.startswith("# "), copy
        assert "--8<--" not in text, copy
        assert "\n::: " not in text, copy
        assert not [line for line in text.splitlines() if FRAGMENT.match(line)], copy
    quickstart = (site.root / "en" / "quickstart" / "index.html.md").read_text(encoding="utf-8")
    assert "from smartpos.testing import Sandbox" in quickstart
    reference = site.root / "en" / "reference" / "smartpos" / "index.html.md"
    assert "## `smartpos.Client` (class)" in reference.read_text(encoding="utf-8")
    changelog = site.root / "en" / "changelog" / "index.html.md"
    assert "## [Unreleased]" in changelog.read_text(encoding="utf-8")


def test_the_markdown_copies_link_to_each_other(site: Site) -> None:
    """A relative link of a Markdown copy points to a file of the site (another copy)."""
    broken = []
    for copy in site.root.rglob("*.html.md"):
        text = copy.read_text(encoding="utf-8")
        for link in re.findall(r"(?<!!)\[[^\]\n]*\]\(([^)\s]+)\)", text):
            found = _target(copy, link, site.root)
            if found is not None and not found[0].is_file():
                broken.append(f"{copy.relative_to(site.root)}: {link}")
    assert broken == []


def test_llms_txt_lists_every_page_in_the_llmstxt_format(site: Site) -> None:
    """llms.txt: an H1, a summary quote, then H2 sections of ``- [title](copy): note`` lines."""
    text = (site.root / "llms.txt").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == "# smartpos"
    assert lines[2].startswith("> ")
    assert not [line for line in lines[1:] if line.startswith("# ")]
    sections = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert sections[:2] == ["Guide", "API reference"]
    assert sections[-1] == "Optional"
    body = text[text.index("\n## ") :]
    items = re.findall(r"^- \[([^\]]+)\]\(([^)]+)\)(?:: (.+))?$", body, re.MULTILINE)
    listed = {url for _title, url, _note in items}
    assert len(listed) == len(items)
    copies = {
        str(p.relative_to(site.root)).replace(os.sep, "/") for p in site.root.rglob("*.html.md")
    }
    assert listed == copies
    assert all(note for _title, _url, note in items)
    assert ("Quickstart", "en/quickstart/index.html.md") in {(t, u) for t, u, _n in items}


# ------------------------------------------------------------------------- the site's hooks


@pytest.fixture(scope="module")
def hooks() -> object:
    """docs/hooks/ as importable modules (MkDocs loads them by path)."""
    pytest.importorskip("griffe")
    pytest.importorskip("mkdocs")
    import importlib

    sys.path.insert(0, str(DOCS / "hooks"))
    try:
        modules = {
            name: importlib.import_module(name) for name in ("cross_language_links", "llms_txt")
        }
    finally:
        sys.path.remove(str(DOCS / "hooks"))
    return type("Hooks", (), modules)


def test_a_page_address_follows_its_language(hooks: object) -> None:
    """The default language is served at the root, the others under their locale."""
    site_path = hooks.cross_language_links.site_path  # type: ignore[attr-defined]
    assert site_path("pt-BR/index.md", "pt-BR") == ""
    assert site_path("pt-BR/client.md", "pt-BR") == "client/"
    assert site_path("en/index.md", "pt-BR") == "en/"
    assert site_path("en/reference/testing.md", "pt-BR") == "en/reference/testing/"


def test_a_link_to_another_language_becomes_a_site_address(hooks: object) -> None:
    """``../../en/x.md#a`` from a pt-BR page is rewritten; same-language, missing ones are not."""
    rewrite = hooks.cross_language_links.rewrite  # type: ignore[attr-defined]
    text = (
        "[a](../../en/client.md#retries) [b](y.md) [c](../../en/nope.md)\n"
        "```\n[d](../../en/client.md)\n```\n"
    )
    out, missing = rewrite(text, "pt-BR/guia/x.md", "guia/x/", ["pt-BR", "en"], "pt-BR", DOCS)
    assert out.splitlines()[0] == "[a](../../en/client/#retries) [b](y.md) [c](../../en/nope.md)"
    assert "[d](../../en/client.md)" in out  # code is left alone
    assert missing == ["../../en/nope.md"]


def test_a_cross_reference_keeps_its_title_in_a_markdown_copy(hooks: object) -> None:
    """``[`title`][identifier]`` is a link on the site; a Markdown copy keeps the title only."""
    plain = hooks.llms_txt.plain_crossrefs  # type: ignore[attr-defined]
    text = "See [`Sandbox`][smartpos.testing.Sandbox], [the worker][smartpos.webhooks.Worker].\n"
    assert plain(text) == "See `Sandbox`, the worker.\n"
    link = "[a link](https://example.invalid/) and `[x][y z]`"
    assert plain(link) == link
