"""Words a first table read in the printed aid and found wanting (session 17): each test is one fault of the one
renderer (`rulecraft.tools.words`) as a table met it, with the words it must say now. Cheap: no browser."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulecraft.dsl.parser import parse_expression, plain_locator
from rulecraft.loader import load_ruleset
from rulecraft.tools.words import Words

GAMES = Path(__file__).parent / "cases" / "games"


@pytest.fixture(scope="module")
def pig_words():
    return Words(load_ruleset("pig").ruleset, detail="players")


def _said(w: Words, text: str) -> str:
    return w.expr(parse_expression(text, plain_locator()))


def test_a_sort_says_which_end_comes_first(pig_words):
    """'the players in order of the player's score' read the same for `descending: true` as without it: which
    comes first, the highest or the lowest, is the whole rule."""
    assert _said(pig_words, "sorted(q in players, by: q.score, descending: true)") \
        == "the players in order of their score, highest first"
    assert _said(pig_words, "sorted(q in players, by: q.score)") == "the players in order of their score, lowest first"
    assert _said(pig_words, "sorted(x in [3, 1, 2], by: x, descending: true)") == "3, 1 and 2, highest first"
    assert _said(pig_words, "sorted([3, 1, 2], descending: true)") == "3, 1 and 2, highest first"
