"""What a game of the compiled engine calls, as a simulation plays it (no story, bots answering in the running code):
the Python functions a few busy steps go through, read with sys.setprofile (names of functions and their callers,
never times). Each test names calls the written code saves."""

from __future__ import annotations

import sys
from functools import cache

from rulecraft.agents.base import RandomAgent
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game


@cache
def _calls(name: str, players: int) -> frozenset:
    """(function, its caller) of one game, after enough games for every stretch to be written."""
    rs = load_ruleset(name).ruleset
    for seed in range(30):
        g = Game(rs, players, seed, story=False, start=False)
        g.play([RandomAgent(p.seat, seed) for p in g.players], views=False)
    called: set = set()
    g = Game(rs, players, 99, story=False, start=False)
    sys.setprofile(lambda frame, event, arg: called.add((frame.f_code.co_name, frame.f_back.f_code.co_name))
                   if event == "call" else None)
    try:
        g.play([RandomAgent(p.seat, 99) for p in g.players], views=False)
    finally:
        sys.setprofile(None)
    assert g.over
    return frozenset(called)


def _names(name: str, players: int) -> set:
    return {f for f, _ in _calls(name, players)}


def test_written_code_asks_a_sealed_step_itself():
    """A stretch's code calls the sealed step itself (decision_steps.sealed, `_seal` in the code), not
    compiler/running._asks and the step's handler: two Python calls fewer a sealed step; its bids are asked in turn
    by decision_steps.bids."""
    names = _names("sealed-auction", 3)
    assert {"sealed", "bids"} <= names and not names & {"_asks", "h_sealed", "decide"}


def test_a_compiled_game_works_out_the_lists_of_its_loops_in_the_written_code():
    """A for_each's list, worked out as the loop starts, is worked out in the written code itself (loader/kinds/loops.py:
    its expression's code copied in, or its written function called), not by handlers.h_foreach_init nor by the
    whole-expression dispatch; and a seat order round the usual way asks no direction. Pig's rounds:
    seat_order(first) at each. The auction's loop over those who cannot bid only tells the story: without one, its
    passes are counted (handlers.told_each)."""
    calls = _calls("pig", 2)
    names = {f for f, _ in calls}
    assert "seat_order" in names and not names & {"direction", "h_foreach_init"}
    assert not {caller for f, caller in calls if f in ("expression", "as_list")} & {"_entry", "h_foreach_init"}
    assert ("told_each", "_entry") in _calls("sealed-auction", 3)


def test_a_log_is_not_called_without_the_story():
    """A `log` whose text draws no chance does nothing without the story: the written code calls it only when the
    story is told (loader/kinds/action.py), so a simulation calls none (pig, the auction and Dune's bidding all log)."""
    for name, players in (("pig", 2), ("sealed-auction", 3), ("dune-bidding", 6)):
        calls = _calls(name, players)
        assert not {caller for f, caller in calls if f == "fn"} & {"_entry"}, name  # (closures/statements.py's fn)
        assert not {f for f, _ in calls} & {"h_exec", "h_choose"}, name  # (every step in written code)
