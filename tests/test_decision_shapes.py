"""Decisions made cheaply: options told by shape (a bid's pass and amounts), prompts worked out when read.

What a person, a bot, a save or a log sees must be what the full list and the prompt worked out at once would
give: these tests compare the two, and games with and without the story. Counts and values only: no timing.
"""

from __future__ import annotations

import pytest

from rulecraft.agents.base import RandomAgent
from rulecraft.diagnostics import RuleError
from rulecraft.loader import load_ruleset
from rulecraft.runtime.decisions import Decision
from rulecraft.runtime.game import Game
from rulecraft.runtime.state_io import from_json, state_hash, to_json


def _pending_bids(name: str, players, seeds=range(6)):
    rs = load_ruleset(name).ruleset
    for seed in seeds:
        g = Game(rs, players, seed, story=False)
        agents = [RandomAgent(p.seat, seed) for p in g.players]
        while not g.over:
            yield g, g.pending
            g.apply(agents[g.pending.player].choose(g.pending, None))


@pytest.mark.parametrize("name,players", [("sealed-auction", None), ("dune-bidding", 6)])
def test_amount_options_read_as_the_full_list(name, players):
    shaped = 0
    for _g, d in _pending_bids(name, players):
        if d.low is None:
            continue
        shaped += 1
        listed = Decision(d.player, d.kind, "", options=[None] + list(range(d.low, d.low + d.count - 1)))
        assert d.options == listed.options and d.count == len(d.options)
        for w in range(-1, d.count + 1):
            assert d.legal(w) == listed.legal(w)
            if listed.legal(w) is None:
                assert d.value(w) == listed.value(w)
        for v in (None, d.low, d.low + d.count - 2, d.low - 1, d.low + d.count - 1, "x"):
            assert d.wire_of(v) == listed.wire_of(v)
        assert d.default == 0 and d.secret is False
    assert shaped > 10


def test_amount_options_save_and_restore():
    for g, d in _pending_bids("sealed-auction", None, range(2)):
        if d.low is not None:
            data = to_json(g)
            assert data["pending"]["options"] == [None] + list(range(d.low, d.low + d.count - 1))
            back = from_json(g.rs, data, story=False)
            assert state_hash(back) == state_hash(g) and back.pending.options == d.options
            return
    pytest.fail("no bid was asked")


@pytest.mark.parametrize("name,players", [("sealed-auction", None), ("dune-bidding", 6), ("dml", 4)])
def test_prompts_read_later_are_the_prompts_of_the_story(name, players):
    """Without the story a prompt is worked out when read: the same text as a game with the story shows."""
    rs = load_ruleset(name).ruleset
    for seed in range(2):
        told, quiet = Game(rs, players, seed), Game(rs, players, seed, story=False)
        agents = [RandomAgent(p.seat, seed) for p in told.players]
        while not told.over:
            assert quiet.pending.prompt == told.pending.prompt
            wire = agents[told.pending.player].choose(told.pending, None)
            told.apply(wire)
            quiet.apply(wire)
        assert quiet.over and state_hash(quiet) == state_hash(told)


def test_decision_made_by_hand_keeps_its_fields():
    d = Decision(1, "one", "Pick", options=["a", "b", None], default=2, purpose="stack", labels=["A", "B", "pass"])
    assert (d.player, d.kind, d.prompt, d.options, d.count, d.default, d.purpose, d.labels) == \
        (1, "one", "Pick", ["a", "b", None], 3, 2, "stack", ["A", "B", "pass"])
    assert d.value(1) == "b" and d.forced() is not None and d.all_choices() == [0, 1, 2]
    d.options = ["x"]
    assert d.count == 1 and d.forced() == 0


def test_the_askings_of_one_step_share_its_form_and_a_decision_by_hand_has_its_own():
    """What every asking of a step shares (its place, purpose, step) is one Form made at its first asking; a
    decision built by hand, or restored from a save, gets a Form of its own, so setting its step or a re-roll's
    target touches no other decision."""
    rs = load_ruleset("sealed-auction").ruleset
    g = Game(rs, 3, 0, story=False)
    forms, steps = set(), set()
    agents = [RandomAgent(p.seat, 0) for p in g.players]
    while not g.over:
        d = g.pending
        forms.add(id(d.form))
        steps.add(id(d.step))
        assert d.purpose == "sealed" and d.node.endswith(str(d.step.decision.span).rsplit("/", 1)[-1])
        g.apply(agents[d.player].choose(d, None))
    assert len(forms) <= 2 and len(steps) == 1  # (one plan before its functions are written, one after)
    a, b = Decision(0, "yesno", "Again?", [True, False], purpose="reroll"), Decision(1, "one", "Pick", ["x", "y"])
    a.target, a.step = 7, "s"
    assert (a.target, a.step, a.purpose, b.target, b.step, b.purpose) == (7, "s", "reroll", None, None, "choose")
    g, agents = Game(rs, 3, 1, story=False), [RandomAgent(p.seat, 1) for p in g.players]
    g.apply(agents[g.pending.player].choose(g.pending, None))
    restored = from_json(rs, to_json(g))  # (its decision built with keywords, as a save made before is restored)
    assert restored.pending.form is not g.pending.form and restored.pending.step is g.pending.step
    assert (restored.pending.node, restored.pending.number) == (g.pending.node, g.pending.number)
    while not g.over:
        wire = agents[g.pending.player].choose(g.pending, None)
        g.apply(wire)
        restored.apply(wire)
    assert restored.over and state_hash(restored) == state_hash(g)


def test_a_limit_that_is_not_a_number_is_reported_as_before(tmp_path):
    p = tmp_path / "r.yaml"
    p.write_text("ruleset: r\ntitle: R\nplayers: {min: 2, max: 2, default: 2}\nplayer_variables: {coins: 2.5}\n"
                 "start: game\nsequences:\n  game:\n    kind: game\n    steps:\n"
                 "      - auction: {form: sealed, limit: \"bidder.coins\", as: sale}\n")
    loaded = load_ruleset(str(p))
    assert loaded.ok, loaded.diagnostics
    with pytest.raises(RuleError, match="range"):
        Game(loaded.ruleset, 2, 0, story=False)


def test_a_random_bot_draws_a_one_choice_as_its_generator_would():
    from rulecraft.agents.base import below_at, decision_rng

    for base in (0, 17, 2**63 + 5, 2**64 - 1):
        for number in (0, 1, 7, 10**6):
            d = Decision(0, "one", "", options=list(range(3)))
            d.number = number
            for n in (1, 2, 3, 13, 100, 2**40 + 3):
                assert below_at(base, number, n) == decision_rng(base, d).below(n)


def test_a_random_bot_chooses_one_option_as_its_generator_would():
    """RandomAgent.choose writes the draw out (its first value taken when surely below the rejection limit): the
    same choice as the per-decision generator, for counts where the generator must draw again too."""
    from rulecraft.agents.base import decision_rng

    for seed, seat in ((0, 0), (3, 1), (10**6, 5)):
        agent = RandomAgent(seat, seed)
        for number in (0, 1, 7, 10**6):
            d = Decision(seat, "one", "", options=[0])
            d.number = number
            for n in (1, 2, 3, 13, 100, 2**40 + 3, 2**63 + 1, 2**64 - 1, 2**64):
                d.count = n
                assert agent.choose(d, None) == decision_rng(agent.base, d).below(n)


def _traced(rs, players, seed, resume: bool):
    g = Game(rs, players, seed, coverage=True)
    agents = [RandomAgent(p.seat, seed) for p in g.players]
    trace, resumed = [], 0
    while not g.over:
        d = g.pending
        resumed += d.resume is not None
        if not resume:
            d.resume = None  # as a decision restored from a save: the step that asked runs again with the answer
        trace.append((d.player, d.prompt, d.to_json()["options"], d.default, d.secret, state_hash(g), g.steps))
        g.apply(agents[d.player].choose(d, None))
    return trace, g.narrative, state_hash(g), g.steps, dict(g.coverage), resumed


@pytest.mark.parametrize("name,players", [("sealed-auction", None), ("stack-duel", None), ("dune-bidding", 6),
                                          ("dml", 4), ("bluff", None)])
def test_an_answer_goes_on_in_the_step_that_asked_as_the_step_run_again(name, players):
    """Game.apply hands the answer to the step that asked (Decision.resume) instead of running it again: the same
    game (decisions, story, state, steps, coverage) as a decision restored from a save, which runs it again."""
    rs = load_ruleset(name).ruleset
    resumed = 0
    for seed in range(3):
        on, off = _traced(rs, players, seed, True), _traced(rs, players, seed, False)
        assert on[:5] == off[:5]
        resumed += on[5]
    assert resumed > 0


def _authored_bids(monkeypatch, shaped: bool, seeds=range(6)):
    from rulecraft.loader import choices

    if not shaped:
        monkeypatch.setattr(choices, "_amounts", lambda options, comp: None)
    rs = load_ruleset("tests/cases/_rulesets/dune-bidding-loops.yaml").ruleset
    trace, told = [], 0
    for seed in seeds:
        for story in (True, False):
            g = Game(rs, 6, seed, story=story)
            agents = [RandomAgent(p.seat, seed) for p in g.players]
            while not g.over:
                d = g.pending
                told += d.low is not None
                trace.append((d.prompt, d.to_json()["options"], d.default, d.secret, state_hash(g), g.steps, g.work))
                g.apply(agents[d.player].choose(d, None))
            trace.append((g.narrative, state_hash(g), g.steps, g.work))
    return trace, told


def test_authored_options_of_amounts_are_counted_as_an_auctions_are(monkeypatch):
    """`options: "[none] + (low..high)"` written by an author is told by shape as an auction's bid is: the same
    decisions, story, state, steps and work as the options built in full."""
    counted, told = _authored_bids(monkeypatch, True)
    listed, none = _authored_bids(monkeypatch, False)
    assert told > 100 and none == 0
    assert counted == listed


@pytest.mark.parametrize("name,players", [("hearts", None), ("stack-duel", None), ("dml", 4), ("bluff", None)])
def test_whether_options_hide_cards_is_looked_at_when_read(name, players):
    """A decision whose spec does not say `secret` looks whether its options hide cards when `secret` is first read
    (the story, a save, a seat's view), while it is pending: the value looked at then, and the same with the story."""
    from rulecraft.runtime.decisions import hidden_from_others

    rs = load_ruleset(name).ruleset
    lazy = 0
    for seed in range(2):
        told, quiet = Game(rs, players, seed), Game(rs, players, seed, story=False)
        agents = [RandomAgent(p.seat, seed) for p in told.players]
        while not quiet.over:
            d = quiet.pending
            if d._secret is None and d.game is not None:  # (looked at when read)
                lazy += 1
                assert d.secret == (d.kind in ("one", "subset") and hidden_from_others(quiet, d))
            assert d.secret == told.pending.secret
            wire = agents[d.player].choose(d, None)
            told.apply(wire)
            quiet.apply(wire)
        assert state_hash(quiet) == state_hash(told)
    assert lazy > 0



def test_a_decision_calls_its_expressions_without_the_whole_expression_dispatch():
    """A decision's plan (machine/plans.py) holds the functions its asking calls: in a reference game the
    closures, in a compiled game (once the spec is hot) the functions written of them; the games are the same."""
    from rulecraft.runtime.machine import plans

    rs = load_ruleset("sealed-auction").ruleset
    ends: dict = {}
    for engine in ("reference", "compiled"):
        for seed in range(3):
            g = Game(rs, None, seed, story=False, engine=engine, start=False)
            g.play([RandomAgent(p.seat, seed) for p in g.players], views=False)
            ends.setdefault(engine, []).append((g.scores, g.winners, g.decisions, g.steps))
    assert ends["reference"] == ends["compiled"]
    spec = next(ins.arg.decision for prog in g.programs.values() for ins in prog.code if ins.op == "SEALED")
    high = spec.amounts[1].fn
    assert plans._REFERENCE[id(spec)].high is high.closure
    assert plans._COMPILED[id(spec)].high is g.written(high) is not high
    assert plans._COMPILED[id(spec)].low_fixed == 1  # (min_bid: 1: never called)
