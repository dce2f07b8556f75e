"""The Dune Treachery Card auction (rulesets/dune/dune-bidding.yaml): it validates, plays to the
end, matches the hand-written baseline, and keeps hand counts public.

The rules themselves are pinned one by one by tests/scenarios/dune/*.yaml (1.04.01 to
1.04.10); this file covers what a scenario cannot: many random games, the players' views
(1.04.10), a human's time limit (1.04.06.04) and the command line.
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest

from conftest import play_seeded

from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.tools.table.session import person

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from dune_baseline import play_phase  # noqa: E402

RULESET = "dune-bidding"


def _load(**overrides):
    loaded = load_ruleset(RULESET, overrides={k: str(v) for k, v in overrides.items()})
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    return loaded.ruleset


def _play(rs, players, seed, check=True):
    return play_seeded(rs, seed, players, views=True, check_conservation=check)


def _zone(g, name, key=None):
    return [c.id for ref, cards in g.zones.items() if ref.zone == name and ref.key == key for c in cards]


def test_validates_without_any_diagnostic():
    loaded = load_ruleset(RULESET)
    assert loaded.ok
    assert [f"{d.code} {d.message}" for d in loaded.diagnostics] == []
    rs = loaded.ruleset
    assert rs.title == "Dune: Treachery Card bidding"
    assert (rs.players.min, rs.players.max) == (2, 6)
    assert rs.zones["hand"].visibility == "owner"


SETTINGS = [
    {},
    {"starting_cards": 3},
    {"after_a_pass": "out_for_this_card", "to_the_right": "clockwise"},
    {"first_player": "random", "winner": "most_cards_bought", "return_order": "last_dealt_on_top"},
    {"starting_cards": 2, "hand_limit": 3, "starting_spice": 3, "short_deck": "no_bidding",
     "weapon_cards": 2, "defense_cards": 2, "special_cards": 1, "worthless_cards": 1},
]


@pytest.mark.parametrize("settings", SETTINGS, ids=[",".join(f"{k}={v}" for k, v in s.items()) or "defaults" for s in SETTINGS])
def test_fifty_random_games_end_with_every_card_and_all_spice_accounted_for(settings):
    rs = _load(**settings)
    spice0 = settings.get("starting_spice", 10)
    limit = settings.get("hand_limit", 4)
    start_hand = settings.get("starting_cards", 1)
    for seed in range(50):
        players = 2 + seed % 5
        g = _play(rs, players, seed)  # check_conservation: every card in one zone after every step
        assert g.over and g.pending is None
        spice = [pv["spice"] for pv in g.pvars]
        assert sum(spice) + g.vars["bank"] == spice0 * players, seed
        assert all(s >= 0 for s in spice), seed
        for p in g.players:
            hand = _zone(g, "hand", p.seat)
            assert len(hand) == start_hand + g.pvars[p.seat]["bought"] or len(hand) < start_hand, seed
            if start_hand < limit:
                assert len(hand) <= limit, seed
        assert _zone(g, "row") == [] and _zone(g, "block") == [], seed
        if settings.get("winner", "nobody") == "nobody":
            assert g.winners == [], seed
        else:
            assert g.winners, seed


@pytest.mark.parametrize("settings", SETTINGS[:4], ids=["defaults", "full-hands", "final-pass-clockwise", "random-first"])
def test_engine_and_baseline_play_the_same_games(settings):
    rs = _load(**settings)
    for seed in range(30):
        players = 2 + seed % 5
        g = _play(rs, players, seed, check=False)
        base = play_phase(seed, players, **settings)
        engine = {
            "hands": [_zone(g, "hand", s) for s in range(players)],
            "spice": [pv["spice"] for pv in g.pvars],
            "bought": [pv["bought"] for pv in g.pvars],
            "bank": g.vars["bank"],
            "deck": _zone(g, "treachery_deck"),
            "decisions": g.decisions,
            "winners": g.winners,
        }
        assert engine == base, f"seed {seed}, {players} players"


def _first_bid(players=3, seed=1, **settings):
    g = Game(_load(**settings), players, seed)
    d = g.pending
    assert d is not None and d.kind == "one"
    return g, d


def test_opening_bid_is_a_pass_or_one_to_the_spice_held():
    """1.04.06.01 and 1.04.06.03: the opener passes or bids from 1 up to the spice held."""
    g, d = _first_bid(starting_spice=7)
    assert d.options == [None, 1, 2, 3, 4, 5, 6, 7]
    assert d.player == 0  # the First Player, seat one by default


def test_a_raise_must_beat_the_top_bid():
    g, d = _first_bid(players=3, seed=1)
    g.apply(3)  # P1 opens with 3
    d = g.pending
    assert d.player == 2  # to the right of P1 (counterclockwise): P3
    assert d.options == [None] + list(range(4, 11))


def test_decision_default_is_a_pass():
    """1.04.06.04: a bid not made in time is a pass: the decision's default."""
    _, d = _first_bid()
    assert d.value(d.default) is None


def test_a_human_who_runs_out_of_time_passes():
    """1.04.06.04 with the engine's human agent: no answer within --time-limit takes the default."""
    g, d = _first_bid()
    r, w = os.pipe()
    try:
        with os.fdopen(r, "rb", buffering=0) as stdin:
            out = io.StringIO()
            human = person(d.player, out, stdin, 0.05)
            wire = human.choose(d, g.view(d.player))
    finally:
        os.close(w)
    assert d.value(wire) is None
    assert "time is up" in out.getvalue()
    g.apply(wire)
    assert any(line.startswith("P1: Bid for card 1") and line.endswith("-> pass") for line in g.narrative)


def test_hand_counts_are_public_and_cards_private():
    """1.04.10: every player sees how many cards the others hold, never which; the owner sees them."""
    g, d = _first_bid(players=3, starting_cards=2)
    view = g.view(0)
    assert view["zones"]["hand[0]"] and isinstance(view["zones"]["hand[0]"], list)
    for seat in (1, 2):
        assert view["zones"][f"hand[{seat}]"] == {"count": 2}
    assert view["zones"]["row"] == {"count": 2}  # face down
    assert view["zones"]["block"] == {"count": 1}
    assert "count" in view["zones"]["treachery_deck"]


def test_play_narrates_a_readable_auction(capsys):
    from rulecraft.tools.cli.main import main

    assert main(["play", RULESET, "--seed", "1"]) == 0
    out = capsys.readouterr().out
    for text in ("P1 declares 1 Treachery Card", "The dealer lays 6 Treachery Cards face down",
                 "Card 1 of 6 is up for bid; P1 opens the bidding", "pays", "to the Spice Bank",
                 "The Bidding Phase is over", "Winner: nobody"):
        assert text in out, text
    assert "weapon" not in out and "special" not in out  # the cards stay face down in the story


def test_card_count_expression(tmp_path):
    path = tmp_path / "count-expr.yaml"
    path.write_text(
        "ruleset: count-expr\ntitle: Count expression\nplayers: {min: 2, max: 2, default: 2}\n"
        "parameters:\n  n: {default: 3, min: 1, max: 9}\n"
        "cards:\n  - {id: x, name: X, classes: [k], count: \"=n\"}\n"
        "zones:\n  deck: {visibility: hidden, initial: all}\n"
        "start: game\nsequences:\n  game:\n    kind: game\n    steps: [\"log 'deck {count(deck)}'\"]\n",
        encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ok
    assert len(loaded.ruleset.cards) == 3


def test_number_decision_with_a_pass(tmp_path):
    path = tmp_path / "number-optional.yaml"
    path.write_text(
        "ruleset: number-optional\ntitle: Number with a pass\nplayers: {min: 2, max: 2, default: 2}\n"
        "start: game\nsequences:\n  game:\n    kind: game\n    steps:\n"
        "      - choose: {player: \"players[0]\", kind: number, min: 1, max: 3, optional: true,"
        " prompt: Bid or pass, as: bid, default: \"none\"}\n",
        encoding="utf-8")
    loaded = load_ruleset(str(path))
    if loaded.diagnostics:  # fixed by refusing the combination
        return
    g = Game(loaded.ruleset, 2, 1)
    d = g.pending
    assert d is not None and d.legal(None) is None and None in d.all_choices()  # the pass is offered
    from rulecraft.agents.human import _fallback

    assert _fallback(d) is None  # a human whose time runs out passes
    g.apply(None)
    assert g.over
