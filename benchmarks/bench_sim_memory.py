"""Peak memory of `rulecraft simulate`: the parent process and its largest worker, at a given number of games.

    python benchmarks/bench_sim_memory.py [--ruleset pig] [--games 2000 20000] [--workers 2] [--json]

Each run is `rulecraft simulate RULESET --games N --workers W --seed 1` started as a new
process under this script (with `--json` also `--json FILE --csv FILE` into a temporary folder),
so that getrusage(RUSAGE_CHILDREN) of a fresh helper process is the peak resident size of the
largest process it waited for. The parent's own peak is read by the run itself
(`RULECRAFT_MAXRSS_FILE`: the run writes getrusage(RUSAGE_SELF).ru_maxrss there at exit), and
the workers' by getrusage(RUSAGE_CHILDREN) in the same place (the largest worker).
Figures are in docs/simulation.md.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

_CHILD = r"""
import atexit, os, resource, sys
from rulecraft.tools.cli.main import main

def _report():
    with open(os.environ["RULECRAFT_MAXRSS_FILE"], "w") as fh:
        fh.write(f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss} "
                 f"{resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}")

code = main(sys.argv[1:])
_report()
sys.exit(code)
"""


def run(ruleset: str, games: int, workers: int, files: bool) -> tuple[float, int, int, int]:
    """(seconds, exit code, parent peak KiB, largest worker peak KiB)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "rss")
        cmd = [sys.executable, "-c", _CHILD, "simulate", ruleset, "--games", str(games), "--workers", str(workers),
               "--seed", "1"]
        if files:
            cmd += ["--json", os.path.join(tmp, "r.json"), "--csv", os.path.join(tmp, "r.csv")]
        t0 = time.perf_counter()
        done = subprocess.run(cmd, stdout=subprocess.DEVNULL, env={**os.environ, "RULECRAFT_MAXRSS_FILE": out})
        seconds = time.perf_counter() - t0
        parent, workers_peak = (int(x) for x in open(out).read().split())
    return seconds, done.returncode, parent, workers_peak


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="pig")
    ap.add_argument("--games", type=int, nargs="+", default=[2000, 20000])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", action="store_true", help="also write --json and --csv files")
    args = ap.parse_args()
    print(f"rulecraft simulate {args.ruleset} --workers {args.workers}{' --json F --csv F' if args.json else ''}")
    print(f"{'games':>8} {'seconds':>8} {'exit':>4} {'parent MiB':>11} {'worker MiB':>11}")
    for n in args.games:
        s, code, parent, worker = run(args.ruleset, n, args.workers, args.json)
        print(f"{n:>8} {s:>8.1f} {code:>4} {parent / 1024:>11.1f} {worker / 1024:>11.1f}", flush=True)


if __name__ == "__main__":
    main()
