"""Running Graphviz: DOT text in, SVG/PNG/PDF bytes out (the one impure step after the pure renderers)."""

from __future__ import annotations

import os
import re
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
# What one Graphviz process may spend, whatever its DOT's size: 500 `if`s in a loop, half of them a `continue`
# (316 KB of DOT, 20 KB of ruleset) were still being laid out by Graphviz after 10 minutes, in 430 MB (the back
# edges span every rank: 252,527 nodes to place). Processor time is the work it did (a busy machine does not shorten it); DML's largest
# chart takes 0.01 s of processor, 1 MB of DOT of 1,200 questions about 1.3 s.
MAX_CPU_SECONDS = 60
MAX_MEMORY = 1 << 30  # bytes of address space
WALL_SECONDS = 600  # the last resort, for a process that waits rather than works
# What Graphviz will place, told from the DOT's shape before it runs (`placed`): its boxes, and a bend for every rank
# an arrow crosses. 500 `if`s in a loop: 126,518 (past 60 s of processor); 200 of them 20,618 (29 s and unfinished);
# 100 of them 5,318 (4.8 s); 1,200 `if`s in a row 3,618 (about 1.3 s); the largest chart of a bundled ruleset 64.
MAX_PLACED = 20_000
_EDGE = re.compile(r'^\s*("(?:[^"\\]|\\.)*"|[\w.]+)(?::\w+)?\s*->\s*("(?:[^"\\]|\\.)*"|[\w.]+)(?::\w+)?\s*(\[.*\])?\s*;?\s*$',
                   re.M)
_FREE = re.compile(r'\bconstraint\s*=\s*"?false"?', re.I)


def check_size(sources: Sequence[str]) -> None:
    """DotError, before Graphviz starts, when the charts are more than a command draws."""
    sizes = [len(s) for s in sources]
    if sizes and max(sizes) > MAX_CHART:
        raise DotError(f"a chart is too big to draw: {max(sizes):,} characters of DOT, over the limit of {MAX_CHART:,} "
                       "(some 3,000 boxes); 'rulecraft render --format dot' writes the source without drawing it")
    if len(sizes) > MAX_CHARTS or sum(sizes) > MAX_TOTAL:
        raise DotError(f"too many charts to draw at once: {len(sizes):,} charts of {sum(sizes):,} characters of DOT "
                       f"(at most {MAX_CHARTS} charts, {MAX_TOTAL:,} characters); 'rulecraft render --format dot' writes the source")


    for source in sources:
        many = placed(source)
        if many > MAX_PLACED:
            raise DotError(f"a chart too tangled to lay out: about {many:,} boxes and bends of arrows for Graphviz to "
                           f"place (arrows back over long runs of steps), over the limit of {MAX_PLACED:,}: draw one "
                           "sequence at a time (--sequence), split a long sequence into sequences it calls, or write "
                           "the DOT with '--format dot'")


def placed(source: str) -> int:
    """About how many things Graphviz's dot will place for `source`: its nodes, and a virtual node for every rank an
    edge crosses past its first, ranked as dot ranks (cycles broken by reversing the edges a depth-first search
    finds going back; each node as low as its longest path of constraining edges allows). Linear in the DOT."""
    edges, free = [], []
    for m in _EDGE.finditer(source):
        (free if m.group(3) and _FREE.search(m.group(3)) else edges).append((m.group(1), m.group(2)))
    nodes: dict[str, None] = {}
    out: dict[str, list[str]] = {}
    for t, h in edges + free:
        nodes.setdefault(t)
        nodes.setdefault(h)
    for t, h in edges:
        out.setdefault(t, []).append(h)
    state: dict[str, int] = {}  # 1 on the search's path, 2 done
    succ: dict[str, list[str]] = {}
    for root in nodes:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(out.get(root, ())))]
        while stack:
            n, heads = stack[-1]
            h = next(heads, None)
            if h is None:
                state[n] = 2
                stack.pop()
            elif state.get(h) == 1:  # an edge back: reversed
                if h != n:
                    succ.setdefault(h, []).append(n)
            else:
                succ.setdefault(n, []).append(h)
                if h not in state:
                    state[h] = 1
                    stack.append((h, iter(out.get(h, ()))))
    below = dict.fromkeys(nodes, 0)
    for heads in succ.values():
        for h in heads:
            below[h] += 1
    rank = dict.fromkeys(nodes, 0)
    todo = [n for n, d in below.items() if d == 0]
    while todo:
        n = todo.pop()
        for h in succ.get(n, ()):
            rank[h] = max(rank[h], rank[n] + 1)
            below[h] -= 1
            if not below[h]:
                todo.append(h)
    return len(nodes) + sum(max(abs(rank[h] - rank[t]) - 1, 0) for t, h in edges + free)


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
    code, out, err = graphviz([exe, *args], source.encode("utf-8"))
    if code != 0 or not out:
        lines = err.decode("utf-8", "replace").strip().splitlines()
        raise DotError(f"Graphviz ({engine}) failed: " + (lines[-1] if lines else f"exit code {code}"))
    return out


def graphviz(argv: Sequence[str], data: bytes | None = None) -> tuple[int, bytes, bytes]:
    """Run a Graphviz command within MAX_CPU_SECONDS of processor and MAX_MEMORY: (exit code, output, errors).
    DotError, in words, when it went past them (security.md, section 18)."""
    import resource
    import signal

    proc = subprocess.Popen(argv, stdin=subprocess.PIPE if data is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:  # set from outside: a preexec_fn is not safe in a process with threads (the studio)
        resource.prlimit(proc.pid, resource.RLIMIT_CPU, (MAX_CPU_SECONDS, MAX_CPU_SECONDS + 5))
        resource.prlimit(proc.pid, resource.RLIMIT_AS, (MAX_MEMORY, MAX_MEMORY))
    except (AttributeError, OSError, ValueError):
        pass  # not Linux, or it is already gone: the wall-clock bound below still holds
    try:
        out, err = proc.communicate(data, timeout=WALL_SECONDS)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise DotError(f"Graphviz took more than {WALL_SECONDS // 60} minutes on a chart") from None
    if proc.returncode in (-signal.SIGXCPU, -signal.SIGKILL) or (proc.returncode != 0 and _out_of_memory(err)):
        raise DotError(f"Graphviz gave up on a chart too tangled to lay out within {MAX_CPU_SECONDS} s of processor "
                       f"and {MAX_MEMORY >> 20} MB (many arrows back over long runs of steps): draw one sequence at a time "
                       "(--sequence), split a long sequence into sequences it calls, or write the DOT with '--format dot'")
    return proc.returncode, out, err


def _out_of_memory(err: bytes) -> bool:
    text = err.decode("utf-8", "replace").lower()
    return "out of memory" in text or "cannot allocate" in text or "memory allocation" in text


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
                code = graphviz([exe, *args, *chunk])[0]
            except DotError:  # past its bounds: each of its charts is run alone below, within the bounds on its own
                code = -1
            if code != 0:  # and when it failed (a full disk, RLIMIT_FSIZE's signal): what it left may be cut short
                for path in chunk:
                    for done in (f"{path}.{fmt}", f"{path}.plain"):
                        if os.path.exists(done):
                            os.remove(done)

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
