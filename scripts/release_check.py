"""The release check: build the distributions and prove that what a user installs works.

Run by scripts/test.sh (so by CI), and by hand before a release (docs/en/release.md):

    python scripts/release_check.py              # Python 3.10, 3.13, and 3.14 where installed
    python scripts/release_check.py --pythons 3.12 --keep /tmp/release

Needs ``build`` and ``twine`` in the running interpreter (``pip install --group release``) and
the package index for the clean venvs' dependencies. Steps, each one fatal:

1. ``python -m build``: the sdist, then the wheel built from the sdist (so a missing file in the
   sdist fails here), into a temporary folder, never ``dist/`` of the checkout;
2. ``twine check --strict`` on both;
3. the version comes from one place: the files' names, the wheel's metadata and
   ``src/smartpos/_version.py`` agree;
4. the sdist holds the tests, the docs, the examples and the site's sources, and no build or
   cache residue; the wheel holds the package with ``py.typed`` and the ``smartpos`` command;
5. for each Python: a clean venv outside the checkout, the wheel installed, then
   ``smartpos --help``, ``smartpos --version``, ``smartpos demo`` and an import of every public
   module and of every name of their ``__all__``;
6. the README's install from a checkout, ``pip install ".[redis,postgres]"``, in one more clean
   venv on the newest Python: ``smartpos --version``, and now every name imports, the stores
   of the extras included (in the wheel's venvs, without extras, only those may fail, and only
   for want of ``redis`` or ``psycopg``).
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from email.parser import Parser
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_PYTHONS = ("3.10", "3.13", "3.14")
REQUIRED_PYTHONS = ("3.10", "3.13")
PUBLIC_MODULES = ("smartpos", "smartpos.webhooks", "smartpos.testing", "smartpos.cli")

#: What the sdist must hold (paths under its top folder).
SDIST_REQUIRED = (
    "pyproject.toml",
    "README.md",
    "CHANGELOG.md",
    "LICENSE",
    "mkdocs.yml",
    "src/smartpos/__init__.py",
    "src/smartpos/py.typed",
    "tests/conftest.py",
    "tests/test_docs_site.py",
    "docs/en/index.md",
    "docs/en/quickstart.md",
    "docs/pt-BR/index.md",
    "docs/hooks/llms_txt.py",
    "examples/quickstart.py",
)
#: What it must not hold.
SDIST_FORBIDDEN = re.compile(
    r"(^|/)(\.venvs?|\.git|__pycache__|\.mypy_cache|\.ruff_cache|\.pytest_cache|\.hypothesis"
    r"|site|dist|build|htmlcov)(/|$)|\.pyc$|(^|/)\.coverage"
)

#: The third-party modules of the extras (smartpos[redis], smartpos[postgres]).
EXTRA_MODULES = ("redis", "psycopg", "psycopg_pool")

# Imports every public module and every name of its __all__. Without the extras installed, a
# name may fail only for want of an extra's module (webhooks.RedisStore, PostgresStore).
IMPORT_EVERYTHING = """
import importlib, sys
extras_installed, extra_modules = sys.argv[1] == "extras", sys.argv[2].split(",")
for name in sys.argv[3:]:
    module = importlib.import_module(name)
    need_extra = []
    for attr in module.__all__:
        try:
            getattr(module, attr)
        except ModuleNotFoundError as exc:
            if extras_installed or exc.name.partition(".")[0] not in extra_modules:
                raise
            need_extra.append(attr)
    note = f" ({', '.join(need_extra)}: with an extra)" if need_extra else ""
    print(f"{name}: {len(module.__all__)} names{note}")
"""


def step(message: str) -> None:
    print(f"-- {message}", flush=True)


def fail(message: str) -> None:
    print(f"release check FAILED: {message}", file=sys.stderr, flush=True)
    raise SystemExit(1)


def run(*argv: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    """Run a command; its output is returned, and printed when it fails."""
    result = subprocess.run(
        [str(a) for a in argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=900,
        check=False,
    )
    if result.returncode != 0:
        print(result.stdout[-6000:], result.stderr[-6000:], sep="\n", file=sys.stderr)
        fail(f"exit {result.returncode}: {' '.join(str(a) for a in argv)}")
    return result.stdout


def find_python(version: str) -> str | None:
    """The interpreter for a version: pyenv's, else ``pythonX.Y`` on the PATH."""
    pattern = os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python{version}")
    for candidate in sorted(glob.glob(pattern), reverse=True):
        if os.access(candidate, os.X_OK):
            return candidate
    return shutil.which(f"python{version}")


def source_version() -> str:
    text = (REPO / "src" / "smartpos" / "_version.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__ = "([^"]+)"$', text, re.MULTILINE)
    if not match:
        fail('src/smartpos/_version.py has no __version__ = "..." line')
    assert match is not None
    return match.group(1)


def build(out: Path) -> tuple[Path, Path]:
    step("python -m build (sdist, then the wheel from the sdist)")
    run(sys.executable, "-m", "build", "--outdir", out, REPO)
    sdists, wheels = sorted(out.glob("*.tar.gz")), sorted(out.glob("*.whl"))
    if len(sdists) != 1 or len(wheels) != 1:
        fail(f"expected one sdist and one wheel, got {sorted(p.name for p in out.iterdir())}")
    return sdists[0], wheels[0]


def check_metadata(sdist: Path, wheel: Path, version: str) -> None:
    step("twine check --strict")
    run(sys.executable, "-m", "twine", "check", "--strict", sdist, wheel)
    step(f"one version everywhere: {version}")
    if sdist.name != f"smartpos-{version}.tar.gz":
        fail(f"the sdist is {sdist.name}, the source says {version}")
    if not wheel.name.startswith(f"smartpos-{version}-"):
        fail(f"the wheel is {wheel.name}, the source says {version}")
    with zipfile.ZipFile(wheel) as archive:
        metadata = Parser().parsestr(
            archive.read(f"smartpos-{version}.dist-info/METADATA").decode()
        )
    if metadata["Version"] != version:
        fail(f"the wheel's metadata says {metadata['Version']}, the source says {version}")


def check_contents(sdist: Path, wheel: Path) -> None:
    step("the sdist holds the tests, the docs and the examples; the wheel the package")
    with tarfile.open(sdist) as archive:
        names = [name.partition("/")[2] for name in archive.getnames()]
    missing = [name for name in SDIST_REQUIRED if name not in names]
    if missing:
        fail(f"the sdist lacks {missing}")
    residue = [name for name in names if SDIST_FORBIDDEN.search(name)]
    if residue:
        fail(f"the sdist holds build or cache residue: {residue[:10]}")
    tests = [n for n in names if n.startswith("tests/") and n.endswith(".py")]
    docs = [n for n in names if n.startswith("docs/") and n.endswith(".md")]
    print(f"   sdist: {len(names)} files, {len(tests)} test modules, {len(docs)} doc pages")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        scripts = archive.read(entry_points).decode()
    for required in ("smartpos/__init__.py", "smartpos/py.typed", "smartpos/cli/__init__.py"):
        if required not in names:
            fail(f"the wheel lacks {required}")
    if any(n.startswith(("tests/", "docs/")) for n in names):
        fail("the wheel holds tests or docs")
    if "smartpos = smartpos.cli:main" not in scripts:
        fail("the wheel has no smartpos command")


def venv(python: str, where: Path) -> Path:
    run(python, "-m", "venv", where)
    return where / ("Scripts" if os.name == "nt" else "bin")


def try_installed(bin_dir: Path, cwd: Path, version: str) -> None:
    """The installed package works from a folder that is not the checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SMARTPOS_", "PYTHON"))}
    env["NO_COLOR"] = "1"
    smartpos = bin_dir / "smartpos"
    if "demo" not in run(smartpos, "--help", cwd=cwd, env=env):
        fail("smartpos --help does not list demo")
    shown = run(smartpos, "--version", cwd=cwd, env=env).strip()
    if shown != f"smartpos {version}":
        fail(f"smartpos --version says {shown!r}, expected 'smartpos {version}'")
    demo = run(smartpos, "demo", cwd=cwd, env=env)
    if "pagamento.aprovado" not in demo:
        fail("smartpos demo did not show pagamento.aprovado")
    imported(bin_dir, cwd, env, extras=False)
    count = run(
        bin_dir / "python",
        "-c",
        "from smartpos.testing.conformance import scenarios; print(len(scenarios()))",
        cwd=cwd,
        env=env,
    )
    if int(count.strip()) < 18:
        fail(f"the wheel ships {count.strip()} conformance scenarios (JSON), expected 18 or more")
    where = run(bin_dir / "python", "-c", "import smartpos; print(smartpos.__file__)", cwd=cwd)
    if Path(where.strip()).resolve().is_relative_to(REPO):
        fail(f"smartpos was imported from the checkout ({where.strip()}), not the venv")


def imported(bin_dir: Path, cwd: Path, env: dict[str, str], *, extras: bool) -> None:
    """Every public module and every name of its ``__all__`` imports."""
    flag = "extras" if extras else "base"
    extra_modules = ",".join(EXTRA_MODULES)
    out = run(
        bin_dir / "python",
        "-c",
        IMPORT_EVERYTHING,
        flag,
        extra_modules,
        *PUBLIC_MODULES,
        cwd=cwd,
        env=env,
    )
    print("   " + out.strip().replace("\n", "; "))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pythons", nargs="+", help="versions (default: 3.10 3.13 [3.14])")
    parser.add_argument("--keep", type=Path, help="build and install here, and keep it")
    args = parser.parse_args(argv)

    requested = args.pythons or DEFAULT_PYTHONS
    pythons: dict[str, str] = {}
    for version in requested:
        found = find_python(version)
        if found:
            pythons[version] = found
        elif args.pythons or version in REQUIRED_PYTHONS:
            fail(f"Python {version} not found (pyenv or python{version} on the PATH)")
        else:
            print(f"   Python {version} not installed here: skipped")

    work = args.keep or Path(tempfile.mkdtemp(prefix="smartpos-release-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        version = source_version()
        sdist, wheel = build(work / "dist")
        check_metadata(sdist, wheel, version)
        check_contents(sdist, wheel)
        outside = work / "elsewhere"
        outside.mkdir(exist_ok=True)
        for number, python in pythons.items():
            step(f"the wheel in a clean venv on Python {number}")
            bin_dir = venv(python, work / f"venv-{number}")
            run(
                bin_dir / "python",
                "-m",
                "pip",
                "install",
                "-q",
                "--disable-pip-version-check",
                wheel,
            )
            try_installed(bin_dir, outside, version)
        newest = list(pythons.values())[-1]
        step('the README\'s install from a checkout, extras too: pip install ".[redis,postgres]"')
        bin_dir = venv(newest, work / "venv-checkout")
        run(
            bin_dir / "python",
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            ".[redis,postgres]",
            cwd=REPO,
        )
        shown = run(bin_dir / "smartpos", "--version", cwd=outside).strip()
        if shown != f"smartpos {version}":
            fail(f"after pip install ., smartpos --version says {shown!r}")
        imported(bin_dir, outside, dict(os.environ), extras=True)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    print(f"release check passed: smartpos {version}, Python {', '.join(pythons)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
