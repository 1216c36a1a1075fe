#!/usr/bin/env bash
# Regenerates the screenshots of "A tela do caixa" / "The cashier's screen" from the browser
# tests (headless Chromium driving the example Django shop; sudo bash .ci/install-servers.sh
# installs it), and copies the ones the docs show into docs/{pt-BR,en}/img/caixa/.
#
#   bash scripts/docs_screenshots.sh
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-.venvs/3.13/bin/python}
shots=$(mktemp -d)
trap 'rm -rf "$shots"' EXIT
SMARTPOS_SCREENSHOTS="$shots" PYTHONPATH="$PWD/src" "$python" -m pytest -q -p no:cacheprovider \
  tests/browser/test_checkout.py -k "django and not http"
for name in \
  pairing_shows_the_qr_code_until_the_terminal_reads_it-1-qrcode \
  charge_shows_waiting_then_approved-2-waiting \
  charge_shows_waiting_then_approved-3-approved \
  refusal_shows_the_message_and_allows_a_new_attempt-1-refused \
  abandon_frees_the_sale_and_a_late_approval_is_a_pendencia-2-late-approval; do
  short=${name##*-[0-9]-}
  for lang in pt-BR en; do
    cp "$shots/django-$name.png" "docs/$lang/img/caixa/$short.png"
  done
done
echo "docs/*/img/caixa/: $(ls docs/pt-BR/img/caixa | tr '\n' ' ')"
