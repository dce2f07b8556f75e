"""Running Graphviz: DOT text in, SVG/PNG/PDF bytes out (the one impure step after the pure renderers)."""

from __future__ import annotations

import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from typing import Sequence


class DotError(RuntimeError):
    """Graphviz is missing or failed; the message says which and what to do."""


# What one command gives Graphviz, at most: its time grows faster than the chart (a sequence of 20,000 steps took
# minutes, 3,000 sequences 3,000 charts). DML's largest chart is 16 KB of DOT and all its 34 charts 290 KB.
MAX_CHART = 1_000_000  # bytes of DOT in one chart (some 3,000 boxes)
MAX_CHARTS = 500  # charts in one command
MAX_TOTAL = 8_000_000  # bytes of DOT in all the charts of one command


def check_size(sources: Sequence[str]) -> None:
    """DotError, before Graphviz starts, when the charts are more than a command draws."""
    sizes = [len(s) for s in sources]
    if sizes and max(sizes) > MAX_CHART:
        raise DotError(f"a chart is too big to draw: {max(sizes):,} characters of DOT, over the limit of {MAX_CHART:,} "
                       "(some 3,000 boxes); 'rulecraft render --format dot' writes the source without drawing it")
    if len(sizes) > MAX_CHARTS or sum(sizes) > MAX_TOTAL:
        raise DotError(f"too many charts to draw at once: {len(sizes):,} charts of {sum(sizes):,} characters of DOT "
                       f"(at most {MAX_CHARTS} charts, {MAX_TOTAL:,} characters); 'rulecraft render --format dot' writes the source")


def _tool(engine: str) -> str:
    path = shutil.which(engine)
    if path is None:
        raise DotError(f"Graphviz's '{engine}' command is not installed (Debian/Ubuntu: apt-get install graphviz; "
                       "macOS: brew install graphviz); '--format dot' writes the DOT source without it")
    return path


def run_dot(source: str, fmt: str, engine: str = "dot", extra: Sequence[str] = ()) -> bytes:
    """Lay out and draw one DOT graph; `fmt` is a Graphviz output format (svg, png, pdf)."""
    check_size([source])
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


def run_dot_layout(source: str, fmt: str = "pdf", graph_attrs: Sequence[str] = ()) \
        -> tuple[bytes, float, dict[str, tuple[float, float, float, float]]]:
    """Like `run_dot`, with the layout too: the factor Graphviz shrank the drawing by to honour the
    graph's `size`, and each node's box (x0, y0, x1, y1 in points, before that shrinking). `graph_attrs`
    ('margin=0') override the graph's own on the command line."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="rulecraft-dot-") as tmp:
        plain = os.path.join(tmp, "layout.plain")
        data = run_dot(source, fmt, "dot", (*(f"-G{a}" for a in graph_attrs), "-Tplain", "-o", plain, f"-T{fmt}"))
        return (data, *_read_plain(plain))


def _read_plain(path: str) -> tuple[float, dict]:
    scale, boxes = 1.0, {}
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                f = line.split()
                if f and f[0] == "graph" and len(f) > 1:
                    scale = float(f[1])
                elif f and f[0] == "node" and len(f) > 5:
                    x, y, w, h = (float(v) * 72 for v in f[2:6])
                    boxes[f[1].strip('"')] = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
    except (OSError, ValueError):
        pass
    return scale, boxes


def run_layouts(sources: Sequence[str], fmt: str = "pdf", graph_attrs: Sequence[str] = (),
                workers: int | None = None) -> list:
    """`run_dot_layout` of many graphs, in a few Graphviz processes (one per worker, each given its share of the
    graphs as files): starting `dot` costs more than laying out a chart, so one process per chart would spend
    most of its time starting. A graph a batch fails on is run alone, for its own error message."""
    import tempfile

    if not sources:
        return []
    check_size(sources)
    exe = _tool("dot")
    workers = max(1, min(len(sources), workers or (os.cpu_count() or 2)))
    with tempfile.TemporaryDirectory(prefix="rulecraft-dot-") as tmp:
        files = []
        for i, src in enumerate(sources):
            path = os.path.join(tmp, f"g{i}.gv")
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(src)
            files.append(path)
        chunks = [files[i::workers] for i in range(workers)]
        args = [*(f"-G{a}" for a in graph_attrs), "-Tplain", f"-T{fmt}", "-O"]

        def batch(chunk):
            try:
                subprocess.run([exe, *args, *chunk], capture_output=True, timeout=300)
            except subprocess.TimeoutExpired:
                raise DotError("Graphviz (dot) took more than 5 minutes on a batch of charts") from None

        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(batch, chunks))
        out = []
        for path, src in zip(files, sources):
            try:
                with open(f"{path}.{fmt}", "rb") as fh:
                    data = fh.read()
            except OSError:
                data = b""
            out.append((data, *_read_plain(f"{path}.plain")) if data else run_dot_layout(src, fmt, graph_attrs))
        return out


def run_many(jobs: Sequence[tuple], workers: int | None = None, fn=None) -> list:
    """Several `run_dot(*job)` (or `fn(*job)`) at once; Graphviz runs as separate processes, so threads suffice."""
    if not jobs:
        return []
    if fn is None:
        check_size([job[0] for job in jobs])
    fn = fn or run_dot
    workers = workers or min(len(jobs), max(2, (os.cpu_count() or 2) * 2))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda job: fn(*job), jobs))
