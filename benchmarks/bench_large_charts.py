"""Benchmark of the drawing verbs on a large generated ruleset: render, book and sheets.

    python benchmarks/bench_large_charts.py [--lines 20000] [--runs 1] [--verbs render,json,book,sheets]

Writes a large valid ruleset with gen_large_ruleset.py (20,000 lines: about 260 sequences and
5,000 steps), then times each command as a user runs it, as a new process:
  render   rulecraft render FILE --format dot -o OUT.dot   (every sequence, no Graphviz)
  json     rulecraft render FILE --format json -o OUT.json (the sequence graph as data)
  book     rulecraft book FILE -o OUT.html                 (Graphviz for every chart)
  sheets   rulecraft sheets FILE -o OUT.pdf                (Graphviz for every chart)
and prints the median (min, max) wall time of --runs runs each and the CPU time of the last run
(user + system, the command and its Graphviz processes: a fairer figure than wall time on a
shared machine), with the machine's load.

Before the sequence graph answered its queries from an index (issue 14, item 6), every
`graph.out(node)` scanned every edge and every chart walked every step of the ruleset, so the
work grew with the square of the ruleset: render took 45 s at 20,000 lines (see
docs/performance.md for the figures before and after).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bench_validate import machine  # noqa: E402  (one description of the machine for every benchmark)

COMMANDS = {
    "render": ["render", "{file}", "--format", "dot", "-o", "{out}/large.dot"],
    "json": ["render", "{file}", "--format", "json", "-o", "{out}/large.json"],
    "book": ["book", "{file}", "-o", "{out}/large.html"],
    "sheets": ["sheets", "{file}", "-o", "{out}/large.pdf"],
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=20_000)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--verbs", default="render,json,book,sheets")
    args = ap.parse_args(argv)

    exe = shutil.which("rulecraft") or os.path.join(os.path.dirname(sys.executable), "rulecraft")
    m = machine()
    print(f"machine: {m['cpu']}, {m['cores']}, Python {m['python']}")
    with tempfile.TemporaryDirectory() as out:
        file = os.path.join(out, "large.yaml")
        subprocess.run([sys.executable, os.path.join(HERE, "gen_large_ruleset.py"), "--lines", str(args.lines),
                        "-o", file], check=True)
        print(f"ruleset: {args.lines:,} lines requested ({sum(1 for _ in open(file, encoding='utf-8')):,} written)")
        for verb in args.verbs.split(","):
            cmd = [exe] + [a.format(file=file, out=out) for a in COMMANDS[verb]]
            samples = []
            cpu = 0.0
            for _ in range(args.runs):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                t = time.perf_counter()
                done = subprocess.run(cmd, capture_output=True, text=True)
                samples.append(time.perf_counter() - t)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                if done.returncode != 0:
                    print(f"{verb}: exit {done.returncode}: {done.stderr.strip()[:300]}")
                    break
            print(f"{verb:7s} median {statistics.median(samples):6.2f} s (min {min(samples):.2f}, max {max(samples):.2f})"
                  f"  cpu {cpu:6.2f} s  load {os.getloadavg()[0]:.1f}   {' '.join(cmd[1:])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
