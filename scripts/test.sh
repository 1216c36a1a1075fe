#!/usr/bin/env bash
# The whole test suite, on a fresh clone: installs what it needs into .venvs/<version>, then
# runs ruff, mypy --strict, pyright on the typing checks, the unasync check, pytest on the
# oldest and the newest supported Python (tests/test_docs_site.py builds the documentation
# site with `mkdocs build --strict` and checks it), the client suite once more on httpx2
# (newest), the release check (sdist and wheel built and installed in clean venvs:
# scripts/release_check.py), tests/integrations/test_django*.py once more on Django 4.2 (the
# oldest the django extra accepts; the main venvs get the newest), and the benchmarks in
# quick mode (they prove the scripts work; timings are never judged here).
#
#   bash scripts/test.sh                          # everything
#   SMARTPOS_TEST_PYTHONS="3.12" bash scripts/test.sh   # other interpreters
#   bash scripts/test.sh -k payments              # extra arguments go to pytest
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHONS=${SMARTPOS_TEST_PYTHONS:-"3.10 3.13"}
COVERAGE_FLOOR=93

find_python() {
  local version=$1 candidate
  for candidate in "$HOME"/.pyenv/versions/"$version".*/bin/python"$version" \
                   "$(command -v "python$version" 2>/dev/null || true)"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
      echo "$candidate"
      return 0
    fi
  done
  return 1
}

# mysqlclient (the test group's MariaDB/MySQL driver) has no Linux wheel: pip builds it against
# the MariaDB client library, found through pkg-config.
if ! pkg-config --exists libmariadb 2>/dev/null && ! pkg-config --exists mysqlclient 2>/dev/null; then
  echo "scripts/test.sh: mysqlclient cannot be built here (no libmariadb-dev, pkg-config or compiler):" >&2
  echo "  sudo bash .ci/install-servers.sh" >&2
  exit 1
fi

venvs=()
for version in $PYTHONS; do
  if ! python=$(find_python "$version"); then
    echo "scripts/test.sh: Python $version not found (install it, or set SMARTPOS_TEST_PYTHONS)" >&2
    exit 1
  fi
  venv=".venvs/$version"
  if [ ! -x "$venv/bin/python" ]; then
    echo "== creating $venv with $python"
    "$python" -m venv "$venv"
  fi
  echo "== installing smartpos and its test, lint, docs and release tools into $venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -U "pip>=25.1"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -e . \
    --group test --group lint --group docs --group release
  venvs+=("$venv")
done

newest=${venvs[${#venvs[@]}-1]}
echo "== lint and types ($newest)"
"$newest/bin/ruff" check .
"$newest/bin/ruff" format --check .
"$newest/bin/python" scripts/unasync.py --check
"$newest/bin/python" scripts/public_api.py --check
"$newest/bin/mypy" --strict
"$newest/bin/mypy" --strict tests/typing
# The integration examples, type-checked as a user's app would be.
"$newest/bin/mypy" --strict examples/fastapi_app.py examples/flask_app.py examples/celery_app.py
(cd examples/django_shop && "../../$newest/bin/mypy" --strict manage.py shop)
"$newest/bin/pyright" --pythonpath "$newest/bin/python" tests/typing

for venv in "${venvs[@]}"; do
  echo "== pytest ($venv: $("$venv/bin/python" --version))"
  if [ "$venv" = "$newest" ]; then
    # Branch coverage on the newest Python; the floor only ever rises.
    rm -f .coverage .coverage.*
    "$venv/bin/python" -m coverage run -m pytest -q "$@"
    "$venv/bin/python" -m coverage combine -q
    "$venv/bin/python" -m coverage report --fail-under="$COVERAGE_FLOOR" | tail -n 3
  else
    "$venv/bin/python" -m pytest -q "$@"
  fi
done

# The main venvs get the newest Django each Python takes (6.x on the newest); the django
# extra promises >=4.2, so the Django tests run once more on the oldest Python with 4.2 LTS.
# Cheap: one extra venv, reused, and one test file.
oldest=${venvs[0]}
django42=".venvs/django4.2"
echo "== Django 4.2: tests/integrations/test_django*.py ($django42)"
if [ ! -x "$django42/bin/python" ]; then
  "$oldest/bin/python" -m venv "$django42"
fi
"$django42/bin/python" -m pip install -q --disable-pip-version-check -U "pip>=25.1"
"$django42/bin/python" -m pip install -q --disable-pip-version-check -e . --group test \
  "django>=4.2,<4.3"
"$django42/bin/python" -c 'import django; assert django.VERSION[:2] == (4, 2), django.VERSION'
"$django42/bin/python" -m pytest -q -p no:cacheprovider tests/integrations/test_django*.py

if "$newest/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  # httpx2 needs Python 3.11: the client suite again, with httpx2 standing in for httpx.
  echo "== client suite on httpx2 ($newest)"
  "$newest/bin/python" scripts/on_httpx2.py -q \
    tests/test_clients.py tests/test_retries.py tests/test_hardening_money.py \
    tests/test_hardening_config.py tests/test_core.py tests/test_errors.py tests/test_logging.py \
    tests/test_safety.py tests/test_parity.py tests/test_real_server.py \
    tests/testing/test_sandbox_client.py tests/testing/test_sandbox_faults.py
fi

echo "== release check: build, twine check, clean installs ($newest)"
"$newest/bin/python" scripts/release_check.py ${SMARTPOS_TEST_PYTHONS:+--pythons $SMARTPOS_TEST_PYTHONS}

echo "== benchmarks, quick mode ($newest)"
"$newest/bin/python" benchmarks/run_all.py --quick
