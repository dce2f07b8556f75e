"""Benchmark of the language server: re-checking a ruleset after an edit, as an editor meets it.

    python benchmarks/bench_lsp.py [--file rulesets/dml/dml.yaml] [--edits 20]

Starts `rulecraft lsp` as its own process, speaks LSP to it over stdio (the tests' client,
tests/lsp_client.py), opens the file, then sends --edits whole-text changes that alternate a
misspelled zone name and its fix (edits inside a line, the common case). Each is timed from the didChange sent to the diagnostics
received (time.perf_counter), so it includes the framing, the full validator on the whole
text (schema, variants, build with the rules language, checks) and the reply. Also times
(wall clock, and CPU time of this process, which other processes on the machine do not stretch)
`load_text` in-process, which is the validator's share, and `load_text` after a line is added
at the top of the file, which moves every rules-language string (their remembered parses
are keyed by place, so none applies: the worst case of an edit). Prints median, min and max of each.
Target (issue 18): re-checking dml.yaml after an edit within 300 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))

from bench_validate import machine  # noqa: E402
from lsp_client import LspClient  # noqa: E402
from rulecraft.loader import load_text  # noqa: E402

TARGET_MS = 300


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--file", default=str(HERE.parent / "rulesets" / "dml" / "dml.yaml"))
    ap.add_argument("--edits", type=int, default=20)
    args = ap.parse_args()
    path = Path(args.file).resolve()
    text = path.read_text(encoding="utf-8")
    zone = "hoard"
    broken = text.replace(f"to {zone}", f"to {zone}x", 1)
    if broken == text:
        broken = text + "\n# an edit\n"

    inproc, cpu = [], []
    load_text(str(path), text)  # warm-up: grammar and caches
    for i in range(args.edits):
        t0, c0 = time.perf_counter(), time.process_time()
        load_text(str(path), broken if i % 2 == 0 else text)
        inproc.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)

    shifted = []  # a line added at the top moves every string: nothing remembered applies
    for i in range(max(3, args.edits // 4)):
        load_text(str(path), text)
        t0 = time.perf_counter()
        load_text(str(path), f"# edit {i}\n" + text)
        shifted.append((time.perf_counter() - t0) * 1000)

    client = LspClient([sys.executable, "-c", "import sys; from rulecraft.tools.cli.main import main; sys.exit(main(['lsp']))"])
    client.initialize(path.parent)
    uri = client.open(path, text)
    client.wait_diagnostics(uri)
    served = []
    for i in range(args.edits):
        t0 = time.perf_counter()
        client.change(uri, broken if i % 2 == 0 else text, i + 2)
        client.wait_diagnostics(uri)
        served.append((time.perf_counter() - t0) * 1000)
    client.close()

    def row(name: str, xs: list[float]) -> str:
        return f"  {name:<34} median {statistics.median(xs):6.0f} ms   min {min(xs):6.0f}   max {max(xs):6.0f}"

    print(f"file: {os.path.relpath(path)} ({text.count(chr(10))} lines), {args.edits} edits")
    print(row("load_text in-process", inproc))
    print(row("load_text in-process, CPU time", cpu))
    print(row("didChange -> diagnostics (server)", served))
    print(row("load_text, a line added at the top", shifted))
    print(f"target: <= {TARGET_MS} ms after an edit: {'met' if statistics.median(served) <= TARGET_MS else 'NOT met'} (median)")
    print("machine: " + ", ".join(f"{k} {v}" for k, v in machine().items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
