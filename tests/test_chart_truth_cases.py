"""The chart is what runs, for every construct case (tests/cases/constructs): as test_chart_truth.py checks the
bundled rulesets (the same machinery, tests/chart_trace.py), GAMES games of each case are traced and then played with
coverage, seed by seed: every move the interpreter makes is an edge of the graph, every coverage count the visits the
trace shows. A file of its own so that under `--dist loadfile` the cases and the bundled rulesets run side by side."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from chart_trace import check_games, construct_cases

GAMES = int(os.environ.get("RULECRAFT_TRUTH_GAMES", 1000))


@pytest.mark.parametrize("ref", [pytest.param(path, id=Path(path).parent.name) for path in construct_cases()])
def test_every_move_is_an_edge_and_every_count_is_a_visit(ref):
    check_games(ref, GAMES)
