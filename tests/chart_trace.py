"""The machinery of the chart-truth tests (test_chart_truth.py, test_chart_truth_cases.py): a game traced
instruction by instruction as the graph nodes it passes, the check that each move is an edge of the graph, and
the check of a ruleset's games: traced, then played as `rulecraft simulate --coverage` plays them, seed by seed."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import yaml

from rulecraft.agents.base import RandomAgent
from rulecraft.diagnostics import RuleError
from rulecraft.graph import build_graph
from rulecraft.loader import load_ruleset
from rulecraft.model import ruleset as M
from rulecraft.model.kinds import KINDS
from rulecraft.runtime.machine import interpreter
from rulecraft.runtime.game import Game, GameError
from rulecraft.runtime.machine.program import compile_program
from rulecraft.tools.simulate.runs import play_one

CASES = Path(__file__).resolve().parent / "cases" / "constructs"
MAX_STEPS = 200_000  # a bundled game: far more than any needs
CASE_STEPS = 20_000  # a construct case without a budget of its own in its expected.yaml

_LOADED: dict = {}


def load(ref: str):
    if ref not in _LOADED:
        loaded = load_ruleset(ref)
        _LOADED[ref] = loaded.ruleset if loaded.ok else None
    return _LOADED[ref]


def construct_cases() -> list[str]:
    """The ruleset.yaml of every construct case that loads."""
    out = []
    for case in sorted(CASES.iterdir()):
        expected = case / "expected.yaml"
        if (case / "ruleset.yaml").is_file() and "load_error" not in expected.read_text(encoding="utf-8"):
            out.append(str(case / "ruleset.yaml"))
    return out


class Trace:
    """What one game ran: per frame (by its id), the nodes in order, consecutive repeats merged."""

    def __init__(self, rs):
        self.reset()
        # compiled once and kept for every game of the ruleset (as Game keeps its programs): with generated
        # functions off, nothing in them changes as a game runs
        self.programs = compile_program(rs)
        for prog in self.programs.values():
            prog.entries = prog.entries_cov = [False] * len(prog.code)  # no generated functions: every step passes
            prog.waited = set()
            for ins in prog.code:
                ins.handler = self.recorder(interpreter.handler_for(ins), ins)

    def reset(self) -> None:
        """Ready for the next game: nothing recorded."""
        self.frames: dict[int, list[str]] = {}
        self.seq_of: dict[int, str] = {}
        self.started_by: dict[int, str | None] = {}
        self.last: tuple[int, str] | None = None

    def recorder(self, handler, ins):
        if ins.op == "RETURN":
            node = None
        elif ins.op == "JUMP" and isinstance(ins.step, M.IfStep):
            node = ""  # the jump over an 'else': not a place of its own
        else:
            node = ins.step.path
        loops = sorted(ins.also, key=len, reverse=True)  # the 'until' loops this instruction enters, innermost first

        def run(g, f, ins_):
            here = node if node is not None else f"{f.seq}/end"
            nodes = self.frames.get(f.id)
            if nodes is None:
                nodes = self.frames[f.id] = [f"{f.seq}/start"]
                self.seq_of[f.id] = f.seq
                self.started_by[f.id] = self.last[1] if self.last else None
            # an 'until' loop has no instruction of its own where play enters it: its body's first one stands for
            # it. Play enters it there unless it comes back from the loop's own test (the next pass); a loop
            # around it that also starts here is entered too unless that one is passing again.
            entered = []
            for loop in loops if nodes[-1] != here else ():
                if nodes[-1] == loop:
                    break
                entered.append(loop)
            for loop in reversed(entered):
                nodes.append(loop)
            if here and nodes[-1] != here:
                nodes.append(here)
            if here:
                self.last = (f.id, here)
            return handler(g, f, ins_)

        return run

    def visits(self, graph) -> Counter:
        """Visits per step node: arrivals, except a loop's, a stack's or a construct's own next pass (from its body)."""
        out: Counter = Counter()
        for nodes in self.frames.values():
            for prev, node in zip(nodes, nodes[1:]):
                kind = graph.nodes[node].kind
                if kind in ("start", "end"):
                    continue
                # a loop's, a stack's or a construct's (every registered step kind) own next pass
                if (kind in ("loop", "foreach", "stack") or kind in KINDS) and prev.startswith(node + "."):
                    continue
                out[node] += 1
        return out


def traced_game(rs, seed: int, max_steps: int = MAX_STEPS, trace: Trace | None = None) -> tuple[Trace, Game, str | None]:
    """One game traced (by `trace`, reset, if given: a Trace of the same ruleset)."""
    if trace is None:
        trace = Trace(rs)
    trace.reset()
    g = Game(rs, None, seed, coverage=True, start=False, story=False, max_steps=max_steps)
    g.programs = trace.programs
    error = None
    try:
        g._setup()
        g.push(rs.start, {})
        interpreter.run(g)
        agents = [RandomAgent(seat, seed) for seat in range(len(g.players))]
        while not g.over:
            d = g.pending
            g.apply(agents[d.player].choose(d, None))
    except (RuleError, GameError) as exc:
        error = str(exc)
    return trace, g, error


def _moves(trace: Trace, error: str | None) -> set:
    """The moves one traced game made: each step from a node to the next, each frame's start (what started it) and
    its last node, and the error it stopped with."""
    out: set = {("error", error)}
    for fid, nodes in trace.frames.items():
        out.update(zip(nodes, nodes[1:]))
        out.add((trace.seq_of[fid], trace.started_by[fid], nodes[-1]))
    return out


def check_game(rs, graph, trace: Trace, error: str | None) -> list[str]:
    problems = []
    edges = {(e.src, e.dst) for e in graph.edges if e.kind not in ("call", "trigger")}
    calls = {(e.src, e.dst) for e in graph.edges if e.kind == "call"}
    triggered = {e.dst for e in graph.edges if e.kind == "trigger"}
    ends = {e.src for e in graph.edges if e.kind == "end"}
    for fid, nodes in trace.frames.items():
        seq = trace.seq_of[fid]
        for a, b in zip(nodes, nodes[1:]):
            if (a, b) not in edges:
                problems.append(f"{a} -> {b} is not an edge of the graph")
        start = f"{seq}/start"
        by = trace.started_by[fid]
        if by is None:
            if seq != rs.start:
                problems.append(f"{seq} started first, not {rs.start}")
        elif (by, start) not in calls and start not in triggered:
            problems.append(f"{seq} was started by {by}, which has no call edge to it and no trigger runs it")
        last = nodes[-1]
        if last != f"{seq}/end" and error is None:
            step = graph.nodes[last]
            if last not in ends and not any(src == last for src, _dst in calls) and not (rs.triggers and step.kind == "action"):
                problems.append(f"{seq} stopped at {last}, which has no edge to an end, no call and fires nothing")
    return problems


def check_games(ref: str, games: int, quiet: int | None = None, by_moves: bool = False) -> int:
    """Seeds 1..games of `ref` (a bundled name or a construct case's ruleset.yaml), each traced and then played with
    coverage: every move an edge, every count the visits the trace shows. With `quiet`, it stops once that many
    seeds in a row have taken no path through the rules (the nodes of every frame, and an error) not taken before:
    a small case often plays one path whatever the seed, and a seed that repeats a path repeats its checks. With
    `by_moves`, what counts as new is a move instead of a whole path (a move from one node to the next, how a frame
    started and where it stopped, an error): a bundled game's path differs nearly every seed (how many rounds, who
    bids), but the moves it can make are few and all taken early. Returns the number of games played."""
    rs = load(ref)
    assert rs is not None, f"{ref} does not load"
    graph = build_graph(rs)
    problems: set[str] = set()
    wrong_counts = []
    steps = MAX_STEPS
    if ref.endswith(".yaml"):  # a construct case: its own step budget, if it sets one
        expected = yaml.safe_load((Path(ref).parent / "expected.yaml").read_text(encoding="utf-8")) or {}
        steps = int(expected.get("max_steps", CASE_STEPS))
    paths: set = set()
    last_new = 0
    trace = Trace(rs)
    for seed in range(1, games + 1):
        if quiet is not None and seed - last_new > quiet:
            return seed - 1
        trace, g, error = traced_game(rs, seed, steps, trace)
        if by_moves:
            seen_now = _moves(trace, error)
            if not seen_now <= paths:
                paths |= seen_now
                last_new = seed
        else:
            path = (error, tuple((trace.seq_of[f], tuple(nodes)) for f, nodes in sorted(trace.frames.items())))
            if path not in paths:
                paths.add(path)
                last_new = seed
        problems.update(check_game(rs, graph, trace, error))
        played = play_one(rs, seed, None, ["random"], False, True, steps)
        if error is None and "error" not in played:
            counted = Counter({k: v for k, v in played["coverage"].items() if v})
            seen = trace.visits(graph)
            if counted != seen:
                diff = {k: (counted.get(k, 0), seen.get(k, 0)) for k in set(counted) | set(seen)
                        if counted.get(k, 0) != seen.get(k, 0)}
                wrong_counts.append((seed, dict(sorted(diff.items())[:5])))
        else:
            assert ("error" in played) == (error is not None), (seed, error, played.get("error"))
        if len(problems) > 20 or len(wrong_counts) > 3:
            break
    assert not problems, sorted(problems)[:20]
    assert not wrong_counts, f"coverage (file) vs visits (trace), per node: {wrong_counts}"
    return games
