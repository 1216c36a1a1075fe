#!/usr/bin/env bash
# The main job: installs smartpos into .venv and runs the complete demo flow (pair, pay,
# wait for pagamento.aprovado, print, refund) against the embedded simulator.
#
#   bash scripts/demo.sh            # sync client
#   bash scripts/demo.sh --async    # the same flow on AsyncClient
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e .
exec .venv/bin/smartpos demo "$@"
