"""A first table's questions, asked of the aid of games written from the docs (tests/cases/games): each test is one
question the aid alone left unanswered, with the answer it must give, read from `aid_view` (no browser: cheap)."""

from __future__ import annotations

from pathlib import Path

from test_aid_agrees_with_sheets import _boxes  # each box of a sequence's chart with its small print

from rulecraft.graph import build_graph
from rulecraft.loader import load_ruleset, load_text
from rulecraft.tools.print.aid import ITEMS, aid_view

GAMES = Path(__file__).parent / "cases" / "games"


def _lines(view, title):
    return next(lines for _d, t, lines in view.flow if t == title)


def test_a_long_sequence_never_cuts_the_rule_that_costs_a_life():
    """'How do I lose?': last-light's hand had to be shortened to fit, as the aid said seven steps and '…and 2 more
    steps: see the sheets', and the two cut were the lives lost and who is out. Bookkeeping goes first; a rule
    that changes the score, puts a player out or ends the game stays. (Six steps more: a hand of a dozen lines
    or fewer is said whole on a page with room for it.)"""
    path = GAMES / "last-light.yaml"
    text = path.read_text(encoding="utf-8")
    extra = "".join(f"      - label: Everyone looks at their cards ({i})\n        do: \"pass\"\n" for i in range(6))
    anchor = "      - label: \"Play the hand out, trick after trick"
    assert anchor in text
    rs = load_text(str(path), text.replace(anchor, extra + anchor)).ruleset
    hand = _lines(aid_view(rs), "A hand")
    assert len(hand) <= ITEMS, hand
    assert any("loses a life" in x for x in hand), hand
    assert not any(x.startswith("Set Leader") for x in hand), hand  # a value set: the first to go


def test_a_sequence_s_parameter_and_a_labelled_card_are_words_of_the_box():
    """'Who is the auctioneer? What is the lot?': gavel-hall's aid said 'from the auctioneer's left' and 'the highest
    bid takes the lot' and its Words box defined neither (a parameter of the sale, a card its first step names)."""
    words = dict(aid_view(load_ruleset(str(GAMES / "gavel-hall.yaml")).ruleset).words)
    assert words.get("Auctioneer") == "The player whose turn it is, in Selling a lot.", words
    assert words.get("Lot") == "The card drawn in “Turn up the top lot” (from the Lot deck).", words


def test_a_label_that_hides_the_action_is_followed_by_what_the_step_does():
    """'What does stepping onto the ice mean?': ice-floe's turn said 'Step onto the ice' and nowhere that it is
    drawing a card from the floe; a label that shares no word with what its step does is followed by it."""
    rs = load_ruleset(str(GAMES / "ice-floe.yaml")).ruleset
    turn = _lines(aid_view(rs), "A turn")
    assert "Step onto the ice: draw a card from the floe to the player's Hand" in turn, turn
    boxes = dict(_boxes(rs, build_graph(rs), "turn"))  # the sheet says it under the step's box, in the same words
    assert boxes["3"] == ["step onto the ice", "draw a card from the floe to the player's hand"], boxes["3"]


def test_a_row_the_steps_keep_topped_up_says_so_in_the_words_box():
    """'When I buy from the market row, what fills the gap?': cinder-guild's refill was in a label inside the
    labelled buy loop, which the aid says by its own label; the Words box said only 'The action cards for sale'."""
    words = dict(aid_view(load_ruleset(str(GAMES / "cinder-guild.yaml")).ruleset).words)
    assert words["Market row"] == "The action cards for sale, face up. It is topped up to 4 cards from the Market deck.", \
        words["Market row"]


def test_a_count_that_starts_at_nothing_goes_without_saying():
    """'Each player's actions start at 0. ... buys ... coins ... turns taken starts at 0': four lines of cinder-guild's
    set-up a first table skipped as noise (every count starts at nothing; a game's own counters were already left
    unsaid from 0). A start above nothing is still said (gavel-hall's coins)."""
    cinder = aid_view(load_ruleset(str(GAMES / "cinder-guild.yaml")).ruleset).setup
    assert not [x for x in cinder if x.endswith(" at 0.")], cinder
    assert "Each player's coins start at 20." in aid_view(load_ruleset(str(GAMES / "gavel-hall.yaml")).ruleset).setup


def test_a_start_the_set_up_says_is_not_said_again_in_the_order_of_play():
    """gavel-hall's game read 'Shuffle the lots ...; each player takes 20 coins', then 'For each player: set the
    player's Coins to 20' (an unlabelled step setting what the Set-up already says: 'Each player's coins start at 20')."""
    view = aid_view(load_ruleset(str(GAMES / "gavel-hall.yaml")).ruleset)
    assert "Each player's coins start at 20." in view.setup
    assert not [x for x in _lines(view, "The game") if "Coins to 20" in x], _lines(view, "The game")


def test_what_a_card_costs_is_on_its_row():
    """'What does a Bellows cost?': cinder-guild's card table said what each card does and never its price (the
    number the buy takes from your coins as the card goes to your discard pile)."""
    powers = dict(aid_view(load_ruleset(str(GAMES / "cinder-guild.yaml")).ruleset).powers)
    assert powers["Bellows"] == "Cost 4 coins. +2 Cards, +1 Action.", powers["Bellows"]
    assert not any(t.startswith("Hits") for t in dict(aid_view(load_ruleset(
        str(GAMES / "banner-fall.yaml")).ruleset).powers).values())  # a card's damage is taken from another: no price
    honour = dict(aid_view(load_ruleset(str(GAMES / "honour-road.yaml")).ruleset).powers)
    assert honour["Cultist"] == "Defeat for 2 power: 1 honour.", honour["Cultist"]  # its text says its price


def test_a_clause_said_again_at_once_says_how_many_times():
    """cinder-guild's Echo read 'then go on to playing an action card, then go on to playing an action card' (two
    calls of one sequence, one clause each): said once, 'twice'."""
    decided = dict(aid_view(load_ruleset(str(GAMES / "cinder-guild.yaml")).ruleset).decisions)["Playing an action card"]
    assert decided.endswith("then go on to playing an action card twice."), decided
