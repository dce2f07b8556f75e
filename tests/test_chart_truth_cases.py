"""The chart is what runs, for every construct case (tests/cases/constructs): as test_chart_truth.py checks the
bundled rulesets (the same machinery, tests/chart_trace.py), GAMES games of each case are traced and then played with
coverage, seed by seed: every move the interpreter makes is an edge of the graph, every coverage count the visits the
trace shows. A file of its own so that under `--dist loadfile` the cases and the bundled rulesets run side by side.

Most cases are small: many play the same path through their rules whatever the seed (40 seeds gave one path in
about half the cases). So in the suite a case stops once QUIET seeds in a row have taken no path not taken before
(at most GAMES); every path seen is checked, and a seed that repeats a path would repeat its checks.
RULECRAFT_TRUTH_GAMES=N plays N games of every case, without stopping early."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from chart_trace import check_games, construct_cases

GAMES = int(os.environ.get("RULECRAFT_TRUTH_GAMES", 1000))
QUIET = None if "RULECRAFT_TRUTH_GAMES" in os.environ else 200  # seeds in a row with no new path: the case is done


@pytest.mark.parametrize("ref", [pytest.param(path, id=Path(path).parent.name) for path in construct_cases()])
def test_every_move_is_an_edge_and_every_count_is_a_visit(ref):
    check_games(ref, GAMES, QUIET)
