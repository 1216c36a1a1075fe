"""What every integration shares: lazy framework imports, extras, and the store setting."""

# STYLE.md section 5 asks for `expected == actual` (the attrs style), which SIM300 calls Yoda.

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from framework_helpers import ROOT

from smartpos import ConfigurationError, webhooks
from smartpos.integrations import STORE_SCHEMES, open_store
from smartpos.webhooks._open import sqlite_path

FRAMEWORKS = ("django", "fastapi", "starlette", "flask", "werkzeug", "celery", "kombu", "pydantic")


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    """Run code in a fresh interpreter of this environment."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )


def test_importing_smartpos_imports_no_framework() -> None:
    """import smartpos (and its webhooks, testing and integrations packages) loads no framework."""
    code = (
        "import sys, smartpos, smartpos.webhooks, smartpos.integrations\n"
        "smartpos.to_centavos('1,00')\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {FRAMEWORKS!r}))"
    )

    result = run_python(code)

    assert (0, "[]") == (result.returncode, result.stdout.strip()), result.stderr


@pytest.mark.parametrize(
    ("module", "framework", "extra"),
    [
        ("django", "django", "django"),
        ("fastapi", "fastapi", "fastapi"),
        ("flask", "flask", "flask"),
        ("celery", "celery", "celery"),
    ],
)
def test_a_missing_framework_names_its_extra(module: str, framework: str, extra: str) -> None:
    """Importing an integration without its framework says which extra to install."""
    code = f"import sys; sys.modules[{framework!r}] = None\nimport smartpos.integrations.{module}"

    result = run_python(code)

    assert 0 != result.returncode
    assert f"pip install 'smartpos[{extra}]'" in result.stderr


def test_extras_and_dependency_groups_declare_the_frameworks() -> None:
    """pyproject.toml has one extra per integration, and the test and lint groups install them."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # the test group installs tomli there
        import tomli as tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extras = project["project"]["optional-dependencies"]
    groups = project["dependency-groups"]

    assert {"django", "fastapi", "flask", "celery"} <= set(extras)
    for group in ("test", "lint"):
        names = " ".join(groups[group])
        assert all(name in names for name in ("django", "fastapi", "flask", "celery")), group


def test_py_typed_covers_the_integrations() -> None:
    """The integrations ship inside the typed package (one py.typed at its root)."""
    import smartpos.integrations

    package = Path(smartpos.integrations.__file__).parent
    assert (package.parent / "py.typed").is_file()
    assert (package / "django" / "management" / "commands" / "smartpos_worker.py").is_file()


# --- open_store ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ("inbox.sqlite3", Path("inbox.sqlite3")),
        ("sqlite:///inbox.sqlite3", Path("inbox.sqlite3")),
        ("sqlite:///data/inbox.sqlite3", Path("data/inbox.sqlite3")),
        ("sqlite:////var/lib/inbox.sqlite3", Path("/var/lib/inbox.sqlite3")),
        (Path("/tmp/x.db"), Path("/tmp/x.db")),
    ],
)
def test_sqlite_settings(setting: str | Path, expected: Path) -> None:
    """Plain paths and sqlite:/// URLs (three slashes, a fourth for an absolute path)."""
    assert expected == sqlite_path(setting)


def test_open_store_builds_each_kind(tmp_path: Path, redis_server: object) -> None:
    """A path, an sqlite URL, memory:// and redis:// give the matching stores."""
    url = getattr(redis_server, "url")  # noqa: B009 - the fixture's RedisServer
    built = [
        open_store(tmp_path / "a.sqlite3"),
        open_store(f"sqlite:///{tmp_path}/b.sqlite3", {"max_attempts": 3}),
        open_store("memory://"),
        open_store(url, {"prefix": "integrations"}),
    ]
    kinds = [type(store).__name__ for store in built]
    existing = webhooks.MemoryStore()

    assert ["SQLiteStore", "SQLiteStore", "MemoryStore", "RedisStore"] == kinds
    assert 3 == built[1].max_attempts  # type: ignore[attr-defined]
    assert existing is open_store(existing)
    for store in built:
        store.close()


@pytest.mark.parametrize(
    ("setting", "options", "message"),
    [
        ("", None, "the store setting is empty"),
        ("mongodb://u:secret@h/db", None, "scheme 'mongodb' is not supported"),
        ("sqlite://host/x.db", None, "an SQLite store URL is 'sqlite:///relative"),
        ("sqlite:///x.db?mode=ro", None, "(no host, query or fragment)"),
        (42, None, "must be a URL, a path or a store, not int"),
        ("memory://", {"nope": 1}, "bad store options for a memory store"),
    ],
)
def test_open_store_refuses_with_what_to_do(
    setting: object, options: dict[str, int] | None, message: str
) -> None:
    """Bad settings raise ConfigurationError that says what is expected, never the URL."""
    with pytest.raises(ConfigurationError) as info:
        open_store(setting, options)  # type: ignore[arg-type]

    assert message in str(info.value)
    assert "secret" not in str(info.value)


def test_store_schemes_are_listed() -> None:
    """STORE_SCHEMES names every scheme open_store takes."""
    assert {"sqlite", "redis", "rediss", "postgresql", "memory"} <= set(STORE_SCHEMES)


# --- docs/{en,pt-BR}/integrations.md ---------------------------------------------------------

# Both languages' pages: the translation documents the same keys and check ids.
DOC_PAGES = [ROOT / "docs" / lang / "integrations.md" for lang in ("en", "pt-BR")]


@pytest.fixture(params=DOC_PAGES, ids=lambda page: page.parent.name)
def doc(request: pytest.FixtureRequest) -> str:
    """The text of one language's integrations page."""
    page: Path = request.param
    return page.read_text(encoding="utf-8")


def test_every_python_block_of_the_recipes_parses(doc: str) -> None:
    """The copy-paste recipes are valid Python."""
    import ast
    import re

    blocks = re.findall(r"```python\n(.*?)```", doc, re.DOTALL)

    assert len(blocks) >= 6
    for block in blocks:
        ast.parse(block)


def test_the_recipes_list_every_setting_and_check(doc: str) -> None:
    """Every SMARTPOS key, Flask config key and check id of the code is in the docs."""
    import re

    pytest.importorskip("django")
    pytest.importorskip("flask")
    from smartpos.integrations import flask as flask_integration
    from smartpos.integrations.django import checks, conf

    check_ids = set(re.findall(r"smartpos\.[EW]\d{3}", Path(checks.__file__).read_text()))

    assert [] == [key for key in conf.KEYS if f"`{key}`" not in doc]
    assert [] == [k for k in flask_integration._CONFIG_KEYS if f"`{k}`" not in doc]
    assert len(check_ids) >= 10
    assert [] == sorted(i for i in check_ids if f"`{i.split('.')[1]}`" not in doc and i not in doc)


def test_the_readme_lists_the_integrations_guide() -> None:
    """The README's documentation list links docs/en/integrations.md."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "- [docs/en/integrations.md](docs/en/integrations.md)" in readme


# --- verification settings shared by every integration ---------------------------------------

WHSEC = "whsec_aW50ZWdyYXRpb24tc2NoZW1lLXNlY3JldA=="


def test_build_verifier_keeps_the_shared_secret_default() -> None:
    """A secret alone is the x-webhook-secret header (or its configured header), as before."""
    from smartpos.integrations._receive import build_verifier

    default = build_verifier(secret="s")
    renamed = build_verifier(secret="s", secret_header="X-Partner")
    assert isinstance(default, webhooks.SharedSecretVerifier)
    assert "x-webhook-secret" == default.header
    assert isinstance(renamed, webhooks.SharedSecretVerifier)
    assert "x-partner" == renamed.header
    assert None is build_verifier()


def test_build_verifier_names_a_scheme_from_settings() -> None:
    """scheme + secret + options build that scheme's verifier, which verifies sign()'s headers."""
    from smartpos.integrations._receive import build_verifier
    from smartpos.testing import sign

    body = b'{"id":"evt-1"}'
    standard = build_verifier(scheme="standard-webhooks", secret=WHSEC)
    assert isinstance(standard, webhooks.StandardWebhooksVerifier)
    standard.verify(body, sign(body, secret=WHSEC))
    template = "{header:x-request-id}.{timestamp}.{body}"
    manifest = build_verifier(
        scheme="hmac-manifest", secret=["old", "new"], scheme_options={"template": template}
    )
    headers = sign(
        body, secret="new", scheme="hmac-manifest", template=template,
        headers={"x-request-id": "r-1"},
    )  # fmt: skip
    assert manifest is not None
    manifest.verify(body, headers)
    shared = build_verifier(scheme="shared-secret", secret="s", secret_header="x-partner")
    assert isinstance(shared, webhooks.SharedSecretVerifier)
    assert "x-partner" == shared.header


@pytest.mark.parametrize(
    ("settings", "text"),
    [
        ({"scheme": "stripe"}, "needs its key material"),
        ({"scheme": "nope", "secret": "s"}, "unknown signature scheme 'nope'"),
        ({"scheme": 3, "secret": "s"}, "must be a str"),
        ({"scheme": "hmac-manifest", "secret": "s"}, "needs the option template"),
        ({"scheme": "stripe", "secret": "s", "scheme_options": {"nope": 1}}, "nope"),
        ({"scheme": "stripe", "secret": "s", "secret_header": "x-sig"}, "scheme options"),
        ({"scheme_options": {"tolerance": 1}, "secret": "s"}, "without a scheme"),
        ({"scheme": "stripe", "secret": "s", "verifier": object()}, "not both"),
        ({"secret": "s", "verifier": object()}, "not both"),
    ],
)
def test_build_verifier_refuses_conflicting_or_unusable_settings(
    settings: dict[str, object], text: str
) -> None:
    """Each misconfiguration is a ConfigurationError that says what to change."""
    from smartpos.integrations._receive import build_verifier

    with pytest.raises(ConfigurationError, match=text):
        build_verifier(**settings)  # type: ignore[arg-type]
