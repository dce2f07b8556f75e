"""`Game.play`: a game whose bots answer where each decision is asked plays the games a loop of `Game.apply` plays,
seed for seed (the same state, steps, decisions, story and coverage, on both engines); an agent's error and an
illegal answer come out of `play` with the decision still pending; the step budget stops both at the same step;
and a decision restored from a saved state goes on as the one it was saved from (every decision has one way
to go on: its resume)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulecraft.agents.base import FirstAgent, RandomAgent, answer
from rulecraft.agents.greedy import GreedyAgent
from rulecraft.diagnostics import RuleError
from rulecraft.loader import load_ruleset
from rulecraft.runtime.decisions import IllegalChoice
from rulecraft.runtime.game import Game
from rulecraft.runtime.machine.answers import pick_of
from rulecraft.runtime.machine.interpreter import run
from rulecraft.runtime.state_io import clone, from_json, state_hash, to_json

CONSTRUCTS = Path(__file__).parent / "cases" / "constructs"

# a sealed bid, a re-roll, a stack and a yes or no in one loop
ASKS = """
ruleset: asks
title: Every way a game asks
players: {min: 2, max: 3, default: 3}
cards:
  - {id: a1, name: A1, classes: [spell]}
  - {id: a2, name: A2, classes: [spell]}
  - {id: a3, name: A3, classes: [spell]}
  - {id: a4, name: A4, classes: [spell]}
  - {id: a5, name: A5, classes: [spell]}
  - {id: a6, name: A6, classes: [spell]}
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per: player, visibility: owner}
  pile: {visibility: open}
  discard: {visibility: open}
player_variables: {score: 0}
dice:
  pair:
    count: 2
    sides: 6
    results:
      - {name: low, when: "total < 7", reroll: optional}
start: game
sequences:
  game:
    kind: game
    steps:
      - "shuffle deck"
      - for_each: p
        in: players
        do: ["draw 2 from deck to p.hand"]
      - loop: rounds
        do:
          - sealed:
              each: p
              in: players
              choose: {kind: number, min: 0, max: 3, prompt: "Bid"}
              as: bids
          - for_each: p
            in: players
            do:
              - "roll pair by p as r"
              - "p.score += r.total + bids[p]"
          - label: Play a card onto the pile
            stack:
              zone: pile
              each: p
              in: "seat_order(players[0])"
              play: {options: "[c for c in p.hand]", max: 1, prompt: "Play a card"}
              resolve: ["move card to discard", "log '{card} resolves'"]
          - choose: {player: "players[0]", kind: yesno, prompt: "Again?", as: again}
          - if: "not again or empty(deck)"
            then: ["break rounds"]
          - for_each: p
            in: players
            do: ["draw 1 from deck to p.hand"]
scoring:
  score: "p.score"
"""


@pytest.fixture(scope="module")
def asks(tmp_path_factory):
    path = tmp_path_factory.mktemp("asks") / "asks.yaml"
    path.write_text(ASKS, encoding="utf-8")
    return _load(str(path))


def _load(ref: str):
    loaded = load_ruleset(ref)
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    return loaded.ruleset


def _shown(g: Game, error: RuleError | None) -> tuple:
    end = (error.message, str(error.span), error.code) if error else (state_hash(g), g.winners, repr(g.scores))
    return end, g.steps, g.decisions, [str(line) for line in g.narrative], dict(g.coverage or {})


def by_apply(rs, seed: int, agent=RandomAgent, views: bool = False, **options) -> tuple:
    """The loop a caller writes: Game.apply with each seat's answer, the game returning in between."""
    g = Game(rs, None, seed, start=False, **options)
    try:
        g._setup()  # as Game() starts a game, keeping the game to look at after an error
        g.push(rs.start, {})
        run(g)
        agents = [agent(p.seat, seed) for p in g.players]
        while not g.over:
            d = g.pending
            g.apply(answer(agents[d.player], d, g.view(d.player) if views else None, g))
    except RuleError as exc:
        return _shown(g, exc)
    return _shown(g, None)


def by_play(rs, seed: int, agent=RandomAgent, views: bool = False, **options) -> tuple:
    g = Game(rs, None, seed, start=False, **options)
    try:
        g.play([agent(p.seat, seed) for p in g.players], views=views)
    except RuleError as exc:
        return _shown(g, exc)
    return _shown(g, None)


OPTIONS = [{}, {"story": False}, {"coverage": True}, {"check_conservation": True},
           {"engine": "reference", "coverage": True}]


@pytest.mark.parametrize("name", ["pig", "sealed-auction", "stack-duel", "reference", "dune-bidding"])
def test_bundled_games_play_the_same(name):
    rs = _load(name)
    for seed, options in enumerate(OPTIONS[:3] if name == "dune-bidding" else OPTIONS):
        assert by_play(rs, seed, **options) == by_apply(rs, seed, **options), (seed, options)


def test_construct_cases_play_the_same():
    cases = sorted(p for p in CONSTRUCTS.glob("*/ruleset.yaml")
                   if p.parent.name.startswith(("choose", "sealed", "stack", "dice", "auction", "respond", "error")))
    assert len(cases) > 15
    for i, path in enumerate(cases):
        rs = _load(str(path))
        options = OPTIONS[i % len(OPTIONS)]
        assert by_play(rs, i, max_steps=20_000, **options) == by_apply(rs, i, max_steps=20_000, **options), path.parent.name


def test_every_way_of_asking_plays_the_same(asks):
    for seed, options in enumerate(OPTIONS * 2):
        assert by_play(asks, seed, **options) == by_apply(asks, seed, **options), (seed, options)


def test_agents_that_read_the_view_or_search_play_the_same(asks):
    """An agent given its seat's view, and a search bot (needs_game: asked between two runs, with the game)."""
    assert by_play(asks, 3, FirstAgent, views=True) == by_apply(asks, 3, FirstAgent, views=True)
    small = lambda seat, seed: GreedyAgent(seat, seed, rollouts=1, depth=4)  # noqa: E731
    pig = _load("pig")
    assert by_play(pig, 2, small) == by_apply(pig, 2, small)


def test_the_step_budget_stops_both_at_the_same_step(asks):
    """Steps and decisions (a decision counts 64 steps of the budget) run out at the same step, on both engines."""
    stopped = 0
    for engine in ("compiled", "reference"):
        for max_steps in range(40, 700, 23):
            apply_end = by_apply(asks, 1, max_steps=max_steps, engine=engine)
            assert by_play(asks, 1, max_steps=max_steps, engine=engine) == apply_end, (engine, max_steps)
            stopped += apply_end[0][2] == "R002"
    assert stopped > 20


class _Failing:
    """Answers at random, and fails at its seat's third decision."""

    def __init__(self, seat: int, seed: int, wrong=None):
        self.random = RandomAgent(seat, seed)
        self.asked = 0
        self.wrong = wrong

    def choose(self, d, view):
        self.asked += 1
        if self.asked == 3:
            if self.wrong is None:
                raise KeyError("the bot's own mistake")
            return self.wrong
        return self.random.choose(d, view)


def test_an_agents_error_comes_out_of_play_with_the_decision_pending(asks):
    g = Game(asks, None, 5, start=False)
    agents = [_Failing(p.seat, 5) for p in g.players]
    with pytest.raises(KeyError, match="own mistake"):  # the agent's error itself, not a rules error
        g.play(agents)
    d, taken = g.pending, g.decisions
    assert d is not None and g.bots is None
    # the game goes on from there as a game that never met the error
    g.apply(RandomAgent(d.player, 5).choose(d, None))
    assert g.decisions == taken + 1


def test_an_illegal_answer_is_refused_as_apply_refuses_it(asks):
    g = Game(asks, None, 5, start=False)
    with pytest.raises(IllegalChoice):
        g.play([_Failing(p.seat, 5, wrong=[99]) for p in g.players])
    before = (state_hash(g), g.decisions, g.steps)
    with pytest.raises(IllegalChoice):
        g.apply([99])  # the same decision is still pending, the game unchanged
    assert (state_hash(g), g.decisions, g.steps) == before


class _PickFailing:
    """A bot with a pick (answers.pick_of: asked without a Decision) that fails, or answers `wrong`, at the game's
    decision numbered `at`; its choose answers as its pick."""

    def __init__(self, seat: int, seed: int, wrong=None, at: int = 3):
        self.random = RandomAgent(seat, seed)
        self.wrong = wrong
        self.at = at

    def choose(self, d, view):
        return self.pick(d.kind, d.count if d.kind == "one" else 2, d.number)

    def pick(self, kind, count, number):
        if number == self.at:
            if self.wrong is None:
                raise KeyError("the bot's own mistake")
            return self.wrong
        return self.random.pick(kind, count, number)


# pig asks yes or no (questions.decide); the auction's sealed bids are amounts asked in turn (decision_steps.bids),
# decision 4 the second bidder of the second lot
@pytest.mark.parametrize("name,players,at", [("pig", 2, 3), ("sealed-auction", 3, 4)])
def test_a_picks_error_or_wrong_answer_comes_out_of_play_as_its_chooses(name, players, at):
    rs = _load(name)
    straight = Game(rs, players, 5, story=False, start=False)
    straight.play([RandomAgent(p.seat, 5) for p in straight.players])
    for wrong, error in ((None, KeyError), ("yes", IllegalChoice), (-1, IllegalChoice)):
        g = Game(rs, players, 5, story=False, start=False)
        with pytest.raises(error):
            g.play([_PickFailing(p.seat, 5, wrong, at) for p in g.players])
        d = g.pending
        assert d is not None and d.number == at and g.decisions == at and g.bots is None
        g.apply(RandomAgent(d.player, 5).choose(d, None))  # and it goes on as the game that never met it
        g.play([RandomAgent(p.seat, 5) for p in g.players])
        assert (state_hash(g), g.steps, g.decisions) == (state_hash(straight), straight.steps, straight.decisions)


def test_a_pick_is_asked_only_where_it_stands_for_choose():
    class Slower(RandomAgent):  # changes how it chooses (a subclass of the random bot), not its pick
        def choose(self, d, view):
            return super().choose(d, view)

    assert pick_of(RandomAgent(0, 1)) is not None
    assert pick_of(Slower(0, 1)) is None and pick_of(FirstAgent(0, 1)) is None
    assert pick_of(GreedyAgent(0, 1)) is None


def test_play_stops_after_the_decisions_asked_and_goes_on(asks):
    straight = Game(asks, None, 7, start=False)
    straight.play([RandomAgent(p.seat, 7) for p in straight.players])
    g = Game(asks, None, 7, start=False)
    agents = [RandomAgent(p.seat, 7) for p in g.players]
    g.play(agents, decisions=5)
    assert g.decisions == 5 and g.pending is not None
    g.play(agents)
    assert (state_hash(g), g.steps, g.decisions) == (state_hash(straight), straight.steps, straight.decisions)


def test_a_restored_decision_goes_on_as_the_saved_one(asks):
    """At every decision (a sealed bid, a re-roll, a stack, a yes or no) the game is saved as JSON and restored: the
    restored decision has no function of its own, and goes on through the step that asked it."""
    for engine in ("compiled", "reference"):
        straight = Game(asks, None, 4, engine=engine)
        agents = [RandomAgent(p.seat, 4) for p in straight.players]
        purposes = set()
        while not straight.over:
            d = straight.pending
            purposes.add(d.purpose)
            wire = agents[d.player].choose(d, None)
            restored = from_json(asks, to_json(straight), engine=engine)
            assert restored.pending.resume is None
            restored.apply(wire)
            straight.apply(wire)
            assert (state_hash(restored), restored.steps) == (state_hash(straight), straight.steps)
        assert purposes == {"choose", "sealed", "stack", "reroll"}
        copy = clone(straight)
        assert state_hash(copy) == state_hash(straight)


def test_the_examples_of_agents_md_run_and_play_the_same_game():
    """docs/agents.md: its two examples (the loop of `apply`, and `Game.play`) run as written, and with the
    same seed and bots they play the same game."""
    import re

    text = (Path(__file__).parent.parent / "docs" / "agents.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "Game(load_ruleset(\"pig\")" in b
              or "game.play(" in b]
    assert len(blocks) == 2 and "game.play(" in blocks[1]
    ns: dict = {"print": lambda *a: None}
    exec(blocks[0], ns)  # noqa: S102 - the project's own documentation, run as a reader would
    exec(blocks[1], ns)  # (it reuses the first block's imports, as a reader of the page does)
    played = ns["game"]
    assert played.over and played.decisions > 0
    g = Game(load_ruleset("pig").ruleset, players=2, seed=7)
    agents = [RandomAgent(seat, 7) for seat in range(2)]
    while not g.over:
        d = g.pending
        g.apply(agents[d.player].choose(d, None))
    assert (g.winners, g.scores, g.decisions) == (played.winners, played.scores, played.decisions)
