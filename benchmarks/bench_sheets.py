"""Benchmark of the printable sequence sheets: how long the full DML sheets PDF takes.

    python benchmarks/bench_sheets.py [--ruleset dml] [--runs 5] [--paper a4]

Prints the median (and min, max) of --runs runs of
  - the command as a user runs it: `rulecraft sheets RULESET -o FILE.pdf` as a new process
    (Python start-up, loading and checking the ruleset, every Graphviz run, assembling the PDF);
  - `build_sheets` in-process, the ruleset already loaded (the charts, text blocks and legend
    drawn by Graphviz in parallel, then placed on the pages with pypdf);
and the number of pages, the file size and the machine.

Target (from the issue): the full DML sheets PDF in <= 5 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bench_validate import machine  # noqa: E402  (one description of the machine for every benchmark)

TARGET_S = 5.0


def _summary(samples: list[float]) -> str:
    return f"median {statistics.median(samples):.2f} s (min {min(samples):.2f}, max {max(samples):.2f})"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ruleset", default="dml")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--paper", choices=("a4", "letter"), default="a4")
    args = ap.parse_args(argv)

    from rulecraft.loader import load_ruleset
    from rulecraft.tools.print.sheets import build_sheets

    exe = shutil.which("rulecraft") or os.path.join(os.path.dirname(sys.executable), "rulecraft")
    m = machine()
    print(f"machine: {m['cpu']}, {m['cores']}, Python {m['python']}")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "sheets.pdf")
        cmd = [exe, "sheets", args.ruleset, "-o", out, "--paper", args.paper]
        subprocess.run(cmd, check=True, capture_output=True)  # warm the file cache and Lark's grammar cache
        wall = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            wall.append(time.perf_counter() - t0)
        size = os.path.getsize(out)

    loaded = load_ruleset(args.ruleset)
    build_sheets(loaded.ruleset, loaded.graph, args.paper)  # warm-up
    inproc = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        result = build_sheets(loaded.ruleset, loaded.graph, args.paper)
        inproc.append(time.perf_counter() - t0)

    print(f"ruleset {args.ruleset}: {result.pages} pages, "
          f"{size / 1e6:.2f} MB, smallest chart scale {min(result.scales):.2f}")
    print(f"`rulecraft sheets` as a new process, {args.runs} runs: {_summary(wall)}")
    print(f"build_sheets in-process (ruleset loaded), {args.runs} runs: {_summary(inproc)}")
    verdict = "meets" if statistics.median(wall) <= TARGET_S else "MISSES"
    print(f"target <= {TARGET_S:g} s for the command: {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
