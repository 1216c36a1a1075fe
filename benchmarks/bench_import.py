"""Import time and memory in fresh interpreters: smartpos vs httpx, same run.

Figures (median of interleaved runs, each a new interpreter):
- ``import smartpos`` / ``import httpx``: goal at most 1.5x (stripe ~2x, openai ~6.7x);
- ``import smartpos`` + building a ``Client`` / ``import httpx``: goal at most 1.5x;
  and the same against ``import httpx`` + building an ``httpx.Client``, for reference;
- RSS after each import (``ru_maxrss``), as a ratio to httpx's.

    python benchmarks/bench_import.py [--quick]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from _common import median, report

SNIPPETS = {
    "pass": "pass",
    "httpx": "import httpx",
    "smartpos": "import smartpos",
    "httpx+client": "import httpx; httpx.Client()",
    "smartpos+client": (
        "import smartpos; smartpos.Client(api_key='k', base_url='https://api.example.invalid')"
    ),
}
RSS = "import resource, sys; {0}; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"


def wall(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def rss(code: str) -> int:
    out = subprocess.run(
        [sys.executable, "-c", RSS.format(code)], check=True, capture_output=True, text=True
    )
    return int(out.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny run that proves it works")
    args = parser.parse_args()
    runs = 3 if args.quick else 25

    print(f"bench_import: fresh interpreters, {runs} interleaved runs each, median")
    times: dict[str, list[float]] = {name: [] for name in SNIPPETS}
    for code in SNIPPETS.values():  # warm the file cache
        wall(code)
    for _ in range(runs):
        for name, code in SNIPPETS.items():
            times[name].append(wall(code))
    m = {name: median(values) for name, values in times.items()}
    for name in SNIPPETS:
        report(f"wall time: {name}", m[name] * 1000, " ms")
    report("import smartpos / import httpx", m["smartpos"] / m["httpx"], goal="<= 1.5x")
    report(
        "import smartpos + Client() / import httpx",
        m["smartpos+client"] / m["httpx"],
        goal="<= 1.5x",
    )
    report(
        "import smartpos + Client() / import httpx + httpx.Client()",
        m["smartpos+client"] / m["httpx+client"],
    )
    net = (m["smartpos"] - m["pass"]) / (m["httpx"] - m["pass"])
    report("same, net of interpreter start: smartpos / httpx", net)
    rss_httpx = rss("import httpx")
    rss_smartpos = rss("import smartpos")
    report("RSS after import smartpos / after import httpx", rss_smartpos / rss_httpx)
    report("RSS after import smartpos", rss_smartpos / 1024, " MiB")


if __name__ == "__main__":
    main()
