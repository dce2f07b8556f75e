"""Did-you-mean hints at scale: a ruleset with N declared variables and N steps that each name an unknown one.

    python benchmarks/bench_hints.py [--names 1000 4000] [--repeat 3]

Each unknown name gets an E301 with a hint; before issue 14 every hint compared the name with every declared
name by difflib (1,000 names: 90 s, 4,000: over 300 s on the audit's machine), now difflib compares a short
list that rapidfuzz picks (diagnostics.did_you_mean). Prints, for each N, the median and best of the repeats
of `load_ruleset` (in-process, the first load untimed), and the same ruleset with the names spelt right.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_validate import machine  # noqa: E402
from rulecraft.loader import load_ruleset  # noqa: E402

HEAD = """ruleset: hints
title: Hints
players: {min: 2, max: 2}
variables:
  t: 0
%s
sequences:
  game:
    kind: stage
    steps:
%s
start: game
"""


def ruleset(n: int, typo: bool) -> str:
    names = [f"counter_{i:05d}" for i in range(n)]
    used = [f"conuter_{i:05d}" if typo else name for i, name in enumerate(names)]
    return HEAD % ("\n".join(f"  {v}: 0" for v in names), "\n".join(f'      - "set t = {u}"' for u in used))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--names", type=int, nargs="+", default=[1000, 4000])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.names:
            for typo in (True, False):
                path = os.path.join(tmp, f"hints-{n}-{typo}.yaml")
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(ruleset(n, typo))
                load_ruleset(path)
                times = []
                for _ in range(args.repeat):
                    t = time.perf_counter()
                    result = load_ruleset(path)
                    times.append(time.perf_counter() - t)
                errors = sum(d.is_error for d in result.diagnostics)
                print(f"{n} names, {'unknown' if typo else 'known'}: {statistics.median(times):.2f} s median "
                      f"({min(times):.2f} best), {errors} errors")


if __name__ == "__main__":
    main()
