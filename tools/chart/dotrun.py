"""Running Graphviz: DOT text in, SVG/PNG/PDF bytes out (the one impure step after the pure renderers)."""

from __future__ import annotations

import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from typing import Sequence


class DotError(RuntimeError):
    """Graphviz is missing or failed; the message says which and what to do."""


def _tool(engine: str) -> str:
    path = shutil.which(engine)
    if path is None:
        raise DotError(f"Graphviz's '{engine}' command is not installed (Debian/Ubuntu: apt-get install graphviz; "
                       "macOS: brew install graphviz); '--format dot' writes the DOT source without it")
    return path


def run_dot(source: str, fmt: str, engine: str = "dot", extra: Sequence[str] = ()) -> bytes:
    """Lay out and draw one DOT graph; `fmt` is a Graphviz output format (svg, png, pdf)."""
    exe = _tool(engine)
    args = [*extra] if any(a.startswith("-T") for a in extra) else [f"-T{fmt}", *extra]
    try:
        done = subprocess.run([exe, *args], input=source.encode("utf-8"), capture_output=True,
                              timeout=300)
    except subprocess.TimeoutExpired:
        raise DotError(f"Graphviz ({engine}) took more than 5 minutes on one chart") from None
    if done.returncode != 0 or not done.stdout:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise DotError(f"Graphviz ({engine}) failed: " + (err[-1] if err else f"exit code {done.returncode}"))
    return done.stdout


def run_dot_layout(source: str, fmt: str = "pdf") -> tuple[bytes, float, dict[str, tuple[float, float, float, float]]]:
    """Like `run_dot`, with the layout too: the factor Graphviz shrank the drawing by to honour the
    graph's `size`, and each node's box (x0, y0, x1, y1 in points, before that shrinking)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="rulecraft-dot-") as tmp:
        plain = os.path.join(tmp, "layout.plain")
        data = run_dot(source, fmt, "dot", ("-Tplain", "-o", plain, f"-T{fmt}"))
        scale, boxes = 1.0, {}
        try:
            with open(plain, encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    f = line.split()
                    if f and f[0] == "graph" and len(f) > 1:
                        scale = float(f[1])
                    elif f and f[0] == "node" and len(f) > 5:
                        x, y, w, h = (float(v) * 72 for v in f[2:6])
                        boxes[f[1].strip('"')] = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
        except (OSError, ValueError):
            pass
    return data, scale, boxes


def run_many(jobs: Sequence[tuple], workers: int | None = None, fn=None) -> list:
    """Several `run_dot(*job)` (or `fn(*job)`) at once; Graphviz runs as separate processes, so threads suffice."""
    if not jobs:
        return []
    fn = fn or run_dot
    workers = workers or min(len(jobs), max(2, (os.cpu_count() or 2) * 2))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda job: fn(*job), jobs))
