"""Python bytecodes and calls a game, by function (and by line in generated code): a sys.settrace opcode counter.

    python benchmarks/bench_bytecodes.py [GAME ...] [--games 30] [--warmup 60] [--top 25] [--lines 0]

GAME is one of benchmarks/baselines.py's (pig, sealed-auction, dune-bidding) or any bundled ruleset (played
with its default players). The engine's games are played as benchmarks/ratio.py plays them (no story, one
RandomAgent per seat, answering in the running code), `--warmup` games first (seeds 0..: code written, caches
filled), then `--games` games from seed 1000 under `sys.settrace` with `frame.f_trace_opcodes`: every bytecode
executed is counted against its code object (a generated function's by its name, `<generated>`), and every
Python call too. The count is deterministic, so a change of a few bytecodes a game shows, which CPU time on a
shared machine does not. The hand-written baseline of the game (when there is one) is counted the same way.

Bytecodes are not time: a call costs more than a load. Session 17 found CPU time follows them more closely than
machine instructions (docs/performance.md).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from baselines import GAMES  # noqa: E402
from bench_games import play_seeds  # noqa: E402
from rulecraft.loader import load_ruleset  # noqa: E402


_GENERATED: dict = {}
_LINED: set = set()  # functions of the engine counted by line too (--function)


def _where(code) -> str:
    name = code.co_filename
    if name.startswith("<"):  # generated code: each function apart, numbered in the order first seen
        return f"{name}:{code.co_qualname}#{_GENERATED.setdefault(code, len(_GENERATED) + 1)}"
    for mark in ("/interpreter/", "/benchmarks/"):
        if mark in name:
            name = name.split(mark, 1)[1]
            break
    else:
        if not name.startswith("<"):
            name = os.path.basename(name)
    return f"{name}:{code.co_qualname}"


def count(play, lines: bool = False) -> tuple[Counter, Counter, Counter]:
    """Run play() under the counter: (bytecodes by function, calls by function, bytecodes by generated line)."""
    ops: Counter = Counter()
    calls: Counter = Counter()
    by_line: Counter = Counter()

    def local(frame, event, arg):
        if event == "opcode":
            code = frame.f_code
            ops[code] += 1
            if lines and (code.co_filename.startswith("<") or code.co_qualname in _LINED):
                by_line[(code, frame.f_lineno)] += 1
        return local

    def glob(frame, event, arg):
        if event == "call":
            frame.f_trace_opcodes = True
            calls[frame.f_code] += 1
            return local
        return None

    sys.settrace(glob)
    try:
        play()
    finally:
        sys.settrace(None)
    return ops, calls, by_line


def _source_line(code, lineno: int) -> str:
    text = _SOURCES.get(code, "").splitlines()
    return text[lineno - 1].strip() if lineno is not None and 0 < lineno <= len(text) else ""


_SOURCES: dict = {}


def _collect_sources() -> None:
    """The generated functions' sources, by their code objects, from the objects alive (their attribute `source`)."""
    import gc

    for obj in gc.get_objects():
        code = getattr(obj, "__code__", None) if callable(obj) else None
        src = getattr(obj, "source", None) if code is not None else None
        if isinstance(src, str):
            _SOURCES[code] = src


def show(code, by_line: Counter, games: int) -> None:
    """A generated function's source, each line with its bytecodes a game."""
    print(f"  ----- {_where(code)}")
    for i, line in enumerate(_SOURCES.get(code, "").splitlines(), 1):
        print(f"  {by_line[(code, i)] / games:8.1f} {i:3d} {line}")


def show_file(code, by_line: Counter, games: int) -> None:
    """A function of the engine, each line with its bytecodes a game."""
    import inspect

    print(f"  ----- {_where(code)}")
    lines, first = inspect.getsourcelines(code)
    for i, line in enumerate(lines, first):
        print(f"  {by_line[(code, i)] / games:8.1f} {i:4d} {line.rstrip()}")


def report(label: str, games: int, ops: Counter, calls: Counter, by_line: Counter, top: int, nlines: int,
           shown: int = 0) -> None:
    total = sum(ops.values())
    ncalls = sum(calls.values())
    print(f"{label}: {total / games:,.0f} bytecodes a game, {ncalls / games:,.1f} Python calls a game ({games} games)")
    merged: Counter = Counter()
    merged_calls: Counter = Counter()
    for code, n in ops.items():
        merged[_where(code)] += n
    for code, n in calls.items():
        merged_calls[_where(code)] += n
    for name, n in merged.most_common(top):
        print(f"  {n / games:9,.1f}  {merged_calls[name] / games:6,.1f} calls  {name}")
    if nlines:
        _collect_sources()
        print(f"  generated code by line (top {nlines}):")
        for (code, lineno), n in by_line.most_common(nlines):
            print(f"  {n / games:9,.1f}  {_where(code)}:{lineno}  {_source_line(code, lineno)[:100]}")
        generated = Counter({code: n for code, n in ops.items() if code.co_filename.startswith("<")})
        for code, _ in generated.most_common(shown):
            show(code, by_line, games)
        for code in ops:
            if code.co_qualname in _LINED:
                show_file(code, by_line, games)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", default=["sealed-auction"], metavar="GAME")
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=60)
    ap.add_argument("--top", type=int, default=25, help="functions listed")
    ap.add_argument("--lines", type=int, default=0, help="lines of generated code listed")
    ap.add_argument("--show", type=int, default=0, help="generated functions shown whole, line by line (with --lines)")
    ap.add_argument("--function", action="append", default=[], help="a function of the engine (its qualified name) "
                    "shown line by line (with --lines)")
    ap.add_argument("--no-baseline", action="store_true")
    args = ap.parse_args(argv)
    _LINED.update(args.function)
    for name in args.names:
        pair = GAMES.get(name)
        loaded = load_ruleset(pair.ruleset if pair else name)
        if not loaded.ok:
            print(f"{name}: does not load")
            return 2
        rs = loaded.ruleset
        players = pair.players if pair else None
        play_seeds(rs, range(args.warmup), players)
        seeds = range(1000, 1000 + args.games)
        ops, calls, by_line = count(lambda rs=rs, seeds=seeds, players=players: play_seeds(rs, seeds, players),
                                    bool(args.lines))
        report(f"{name} engine", args.games, ops, calls, by_line, args.top, args.lines, args.show)
        if pair and not args.no_baseline:
            for seed in range(5):
                pair.baseline(seed, pair.players)
            ops, calls, _ = count(lambda pair=pair, seeds=seeds: [pair.baseline(s, pair.players) for s in seeds])
            report(f"{name} hand-written", args.games, ops, calls, Counter(), 5, 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
