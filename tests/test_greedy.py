"""The greedy (one-ply Monte-Carlo) bot: the needs_game interface, its candidates, determinism, and that it plays better."""

from __future__ import annotations

import pytest

from rulecraft.agents import AgentError, make_agent
from rulecraft.agents.base import answer
from rulecraft.agents.greedy import GreedyAgent
from rulecraft.loader import load_ruleset
from rulecraft.runtime.decisions import Decision
from rulecraft.runtime.game import Game
from rulecraft.tools.simulate.runs import simulate


def test_kinds():
    g = make_agent("greedy:3:10", 1, 5)
    assert isinstance(g, GreedyAgent) and g.needs_game and (g.rollouts, g.depth) == (3, 10)
    for bad in ("greedy:x", "greedy:0", "greedy:1:2:3"):
        with pytest.raises(AgentError):
            make_agent(bad, 0, 0)


def test_candidates_are_capped_and_legal():
    agent = GreedyAgent(0, 1, max_choices=8)
    sub = Decision(0, "subset", "pick", options=list(range(12)), min=0, max=12)
    got = agent.candidates(sub)
    assert len(got) == 8 and len({tuple(c) for c in got}) == 8 and all(sub.legal(c) is None for c in got)
    num = Decision(0, "number", "bid", min=0, max=100)
    assert agent.candidates(num)[0] == 0 and agent.candidates(num)[-1] == 100 and len(agent.candidates(num)) == 8
    one = Decision(0, "one", "which", options=list("abcdefghijk"))
    assert len(agent.candidates(one)) == 8
    assert agent.candidates(Decision(0, "subset", "few", options=[1, 2], min=0, max=2)) == [[], [0], [1], [0, 1]]


def test_rollouts_leave_the_game_alone():
    rs = load_ruleset("pig").ruleset
    game = Game(rs, 2, 3)
    before = (game.rng.state, list(game.narrative), game.decisions)
    agent = GreedyAgent(game.pending.player, 3, rollouts=2, depth=5)
    wire = answer(agent, game.pending, None, game)
    assert game.pending.legal(wire) is None
    assert (game.rng.state, list(game.narrative), game.decisions) == before


def test_greedy_is_seeded_and_beats_random_at_pig():
    kinds = ["greedy:3:25", "random"]
    a = simulate("pig", 20, seed=1, workers=2, agents=kinds)
    b = simulate("pig", 4, seed=1, workers=1, agents=kinds)
    assert [r["winners"] for r in a.results[:4]] == [r["winners"] for r in b.results]
    rate, low, _high = a.win_rates()[0]
    assert rate > 0.6 and low > 0.4, a.win_rates()
