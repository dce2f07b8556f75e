"""The chart is what runs, for every construct case (tests/cases/constructs): as test_chart_truth.py checks the
bundled rulesets (the same machinery, tests/chart_trace.py), GAMES games of each case are traced and then played with
coverage, seed by seed: every move the interpreter makes is an edge of the graph, every coverage count the visits the
trace shows. A file of its own so that under `--dist loadfile` the cases and the bundled rulesets run side by side.

Most cases are small: many play the same path through their rules whatever the seed (40 seeds gave one path in
about half the cases). So in the suite a case stops once QUIET seeds in a row have made no move not made before (at
most GAMES), as the bundled rulesets do (chart_trace.check_games, by_moves: a move is a step from one node to the
next, how a frame started and where it stopped, an error; every check of a game is one of its moves, and the counts
are added up move by move). Measured over 1,000 seeds of every case (traced, each move counted by the seed that first
made it): the 86 cases make 1,140 moves, all but five by seed 15; those five, a second way through an auction, first came
at seeds 97 (auction_open), 116 (auction_once_around) and 124 (auction_sealed), and no case went more than 123 seeds
in a row without a new move (auction_sealed, from seed 1 to 124), so QUIET = 150 checks every one of them in 13,383
games (200 played 17,683). Stopping on a new path instead played 22,455 of the 80 cases then: a case with a stack or
a loop takes a new path (one more pass, another value) until seed 800 or later, all of its moves made by seed 3.
RULECRAFT_TRUTH_GAMES=N plays N games of every case, without stopping early."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from chart_trace import check_games, construct_cases

GAMES = int(os.environ.get("RULECRAFT_TRUTH_GAMES", 1000))
QUIET = None if "RULECRAFT_TRUTH_GAMES" in os.environ else 150  # seeds in a row with no new move: the case is done


@pytest.mark.parametrize("ref", [pytest.param(path, id=Path(path).parent.name) for path in construct_cases()])
def test_every_move_is_an_edge_and_every_count_is_a_visit(ref):
    check_games(ref, GAMES, QUIET, by_moves=True)
