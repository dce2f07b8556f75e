"""The chart is what runs: every move the interpreter makes is an edge of the sequence graph, and the coverage
counts are the visits the trace shows.

For every bundled ruleset (and, in test_chart_truth_cases.py, every construct case of tests/cases/constructs),
games with random bots are played twice with the same seed (the machinery is tests/chart_trace.py):
- traced: every instruction the interpreter runs is recorded, per frame, as the graph node it belongs to
  (generated functions off, so each instruction passes the recorder). Within a frame, each move from one node
  to another must be an edge of the graph; a frame must start at its sequence's start, be started by a node
  with a call edge to it (or by a trigger that runs it), and end at its sequence's end, at a step with an
  `end ...` edge, or where an `end` or the game's end unwound it;
- as `rulecraft simulate --coverage` plays (generated functions on): its coverage counts must equal the visits
  the trace shows, game by game: a node counts once each time play arrives at it, except that a loop (or a
  stack, an auction or a response window) does not count again when play comes back to it from its own body (or
  the steps written inside it) for the next pass.

Up to GAMES games of each small ruleset run in the suite (the construct cases, in a file of their own, run on another
worker under `--dist loadfile`), but a ruleset stops once QUIET seeds in a row have made no move not made before (a
move: from one node to the next, how a frame started and where it stopped, an error; chart_trace.check_games). A
bundled game's path differs nearly every seed, but its moves are few and come early: over 1,000 seeds, the last new
move of a small ruleset came at seed 1 (pig, dune-bidding), 2 (sealed-auction), 12 (stack-duel), 19 (reference) or
43 (bluff), and none went more than 40 seeds in a row without one (bluff, from seed 3 to 43), so QUIET = 60 plays
61-103 games of each (100 played 101-143) and checks every move the 1,000 made. DML, its variants and
Hearts are long games (about 40 ms each, traced and played), so the suite plays at most DML_GAMES of them and stops
one once LONG_QUIET seeds in a row have made no new move. Over 100 seeds (traced, moves counted by the seed that
first made them) Hearts made its last new move at seed 24 (52 moves), dml-2016 at 41; with LONG_QUIET = 30 the six
play 354 games instead of 600 and check 2,009 of the 2,015 moves the 100 seeds make: the six left are rare (first
made at seeds 54-94), and four of them (dml-classic's event branch, dml-smackdown's discarded thief) are made early
by another DML ruleset, the same nodes. `pytest -m slow tests/test_chart_truth.py` plays the full 1,000 of each,
without stopping early (RULECRAFT_TRUTH_GAMES=N plays N of every ruleset, without stopping early).
"""

from __future__ import annotations

import os
from collections import Counter

import pytest

from chart_trace import CASES, MAX_STEPS, check_games, load as _load
from rulecraft.bundled import bundled_rulesets
from rulecraft.graph import build_graph
from rulecraft.tools.simulate.runs import play_one

GAMES = int(os.environ.get("RULECRAFT_TRUTH_GAMES", 1000))
DML_GAMES = int(os.environ.get("RULECRAFT_TRUTH_GAMES", 100))
QUIET = None if "RULECRAFT_TRUTH_GAMES" in os.environ else 60  # seeds in a row with no new move: the ruleset is done
LONG_QUIET = None if QUIET is None else 30  # the same for a long game (DML, its variants, Hearts): see above
LONG = {"dml", "dml-classic", "dml-2016", "dml-mayhem", "dml-smackdown", "hearts"}  # long games: DML_GAMES in the suite


def _refs() -> list:
    out = []
    for b in bundled_rulesets():
        marks = [pytest.mark.slow] if b.name in LONG and GAMES > DML_GAMES else []
        out.append(pytest.param(b.name, min(GAMES, DML_GAMES) if b.name in LONG else GAMES, False, id=b.name))
        if marks:
            out.append(pytest.param(b.name, GAMES, True, id=f"{b.name}-full", marks=marks))
    return out


@pytest.mark.parametrize("ref,games,slow", _refs())
def test_every_move_is_an_edge_and_every_count_is_a_visit(ref, games, slow, request):
    if slow and "slow" not in (request.config.getoption("-m") or ""):
        pytest.skip("the full 1,000 games of a long ruleset: run with -m slow")
    check_games(ref, games, None if slow else LONG_QUIET if ref in LONG else QUIET, by_moves=True)


def test_a_decision_asked_once_counts_once_and_a_loop_once_per_entry():
    """The figures the issue found inflated: 10 games, a decision asked 10 times shows 10, a 3-pass loop 10 (its
    body 30), an 'if' once per visit."""
    rs = _load(str(CASES / "continue" / "ruleset.yaml"))
    cov: Counter = Counter()
    for seed in range(10):
        cov.update(play_one(rs, seed, None, ["random"], False, True, MAX_STEPS)["coverage"])
    assert cov["game/1"] == 10  # the outer for_each: entered once a game
    assert cov["game/1.do.1"] == 20  # the inner one: once per seat
    assert cov["game/2"] == 10 and cov["game/2.do.1"] == 50  # 'while n < 5': entered once, 5 passes
    assert cov["game/3"] == 10 and cov["game/3.do.1"] == 30  # 'repeat ... until m >= 3': 3 passes
    assert cov["game/3.do.2"] == 30 and cov["game/3.do.2.then.1"] == 20  # the if, and its 'continue' twice


def test_continue_is_drawn_back_to_its_loop():
    graph = build_graph(_load(str(CASES / "continue" / "ruleset.yaml")))
    out = {(e.src, e.dst, e.label) for e in graph.edges}
    assert ("game/1.do.1.do.1.then.1", "game/1.do.1", "continue") in out  # the innermost loop
    assert ("game/1.do.1.do.2.then.1", "game/1", "continue seats") in out  # a named outer loop
    assert not any(e.src == "game/1.do.1.do.1.then.1" and e.dst == "game/1.do.1.do.2" for e in graph.edges)


def test_simulate_counts_a_decision_once_per_time_it_is_asked():
    """pig's 'roll again?' is asked at every decision of a game: its count is the number of decisions."""
    rs = _load("pig")
    graph = build_graph(rs)
    (ask,) = [n for n, node in graph.nodes.items() if node.kind == "decision"]
    cov: Counter = Counter()
    decisions = 0
    for seed in range(1, 11):
        played = play_one(rs, seed, None, ["random"], False, True, MAX_STEPS)
        cov.update(played["coverage"])
        decisions += played["decisions"]
    assert decisions > 10 and cov[ask] == decisions
