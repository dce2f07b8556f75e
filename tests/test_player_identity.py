"""One Player object per seat and name (values.Player): equal by identity, hashed by Python, in every copy of a game."""

from __future__ import annotations

import copy
import pickle
import sys

from rulecraft.agents.base import RandomAgent
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.runtime.state_io import from_json, to_json
from rulecraft.values import Player


def _players_in(value, out: list) -> list:
    """Every Player inside a value of a game's state (lists, dicts and their keys)."""
    if isinstance(value, Player):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _players_in(v, out)
    elif isinstance(value, dict):
        for k, v in value.items():
            _players_in(k, out)
            _players_in(v, out)
    return out


def _state_players(g: Game) -> list:
    return _players_in([g.vars, g.pvars, [f.locals for f in g.frames]], [])


def test_a_player_made_again_copied_or_pickled_is_the_same_object():
    p = Player(2, "Ann")
    assert Player(2, "Ann") is p
    assert copy.copy(p) is p and copy.deepcopy([p])[0] is p and pickle.loads(pickle.dumps(p)) is p
    assert Player(2, "Bo") is not Player(2, "Ann")  # another game's player of that seat
    assert Game(load_ruleset("pig").ruleset, 2, 0, names=["Ann", "Cy"]).players == [Player(0, "Ann"), Player(1, "Cy")]


def test_comparing_and_hashing_players_runs_no_python_code():
    """`x in L` of players and a dict keyed by players (a sealed step's answers) call no Python function."""
    p, q, r = Player(0, "P1"), Player(1, "P2"), Player(2, "P3")
    calls: list = []
    sys.setprofile(lambda frame, event, arg: calls.append(frame.f_code.co_name) if event == "call" else None)
    try:
        found = r in [p, q, r], p in [q, r], {p: 1, q: 2}[q], len({p, q, r, p})
    finally:
        sys.setprofile(None)
    assert found == (True, False, 2, 3)
    assert calls == []


def test_a_saved_copied_or_pickled_game_holds_its_own_players():
    """Players in the state of a game restored from a save or copied (a bot's look-ahead), or in values pickled (as a
    worker of `simulate` sends them), are that game's own objects: equality by identity finds them."""
    rs = load_ruleset("sealed-auction").ruleset
    for names in (None, ["Ann", "Bo", "Cy"]):
        g = Game(rs, 3, 4, names=names, start=False)
        g.play([RandomAgent(s, 4) for s in range(3)], decisions=5)
        assert _state_players(g), "the auction holds players in its state mid-game"
        for other in (from_json(rs, to_json(g)), g.copy()):
            assert all(p is other.players[p.seat] for p in _state_players(other))
            assert other.players == g.players
        assert all(p is g.players[p.seat] for p in pickle.loads(pickle.dumps(_state_players(g))))
