"""Run every benchmark script, one after the other; ``--quick`` for CI's smoke run.

Each script prints its figures as ratios against a baseline measured in the same run. This
runner exits non-zero only when a script crashes: CI proves the scripts work, it never judges
timings.

    python benchmarks/run_all.py [--quick]
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    extra = sys.argv[1:]
    failed = []
    start = time.monotonic()
    for script in sorted(HERE.glob("bench_*.py")):
        print(f"\n=== {script.name} {' '.join(extra)}", flush=True)
        code = subprocess.call([sys.executable, str(script), *extra], cwd=HERE.parent)
        if code != 0:
            failed.append(script.name)
    print(f"\nbenchmarks finished in {time.monotonic() - start:.0f} s", flush=True)
    if failed:
        print("FAILED: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
