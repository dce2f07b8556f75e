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


def _loaded_words(tmp_path, text: str) -> tuple:
    path = tmp_path / "game.yaml"
    path.write_text(text, encoding="utf-8")
    rs = load_ruleset(str(path)).ruleset
    return rs, Words(rs, detail="players")


_ROUNDS = """
ruleset: rounds-of-play
title: Rounds of play
players: {min: 2, max: 3, default: 2}
parameters:
  last_round: {default: 7, min: 1, max: 12}
variables:
  round: {initial: 0, title: Round}
player_variables:
  score: 0
start: game
sequences:
  game:
    kind: game
    steps:
      - STEP
scoring:
  score: "p.score"
"""


def test_rounds_counted_to_a_bound_say_how_many(tmp_path):
    """'Rounds are played until Round is more than 7': a loop until its counter passes a bound says how many rounds
    are played ('Play 7 rounds'), and turns counted in rounds say which round is the last."""
    rounds = """
      - rounds:
          round: round
          until: "UNTIL"
          do:
            - for_each: p
              in: players
              do: ["p.score += 1"]"""
    turns = """
      - turns:
          round: round
          until: "UNTIL"
          do: ["player.score += 1"]"""
    cases = [(rounds, "round > last_round", "Play 7 rounds"),
             (rounds, "round >= last_round", "Play 6 rounds"),
             (rounds, "round > last_round or any([q.score > 20 for q in players])",
              "Rounds are played until the 7th round is over or any player's score is more than 20"),
             (turns, "round > last_round", "Turns go clockwise from the first player until the 7th round is over")]
    for block, until, expected in cases:
        rs, w = _loaded_words(tmp_path, _ROUNDS.replace("\n      - STEP", block.replace("UNTIL", until)))
        assert w.step(rs.sequences["game"].steps[0], own_label=False) == expected, until


@pytest.fixture(scope="module")
def crown():
    rs = load_ruleset(str(GAMES / "crown-bid.yaml")).ruleset
    return rs, Words(rs, detail="players")


def test_a_value_set_to_a_pick_of_its_own_kind_says_whose_pick(crown):
    """'Set the trump suit to the suit' read in a circle: the pick named for what it is (`as: suit`) is said by who
    picked it where the value set already names that kind."""
    rs, w = crown
    step = next(s for _q, s in rs.iter_steps() if any("set trumps" in str(st.text) for st in getattr(s, "stmts", ())))
    assert w.step(step, own_label=False) == "Set the trump suit to the suit the caller chose; set the leader to the caller"


def test_an_auction_says_a_bid_must_beat_the_highest_bid(crown):
    """'What may I bid?': the aid said 'each bids once or passes' and never that a bid must beat the highest bid so
    far, the one number a bidder needs; a designer's label that says nothing of it gets it from the rule's words."""
    from rulecraft.tools.print.aid import aid_view

    rs, w = crown
    auction = next(s for _q, s in rs.iter_steps() if getattr(s, "construct", None) == "auction")
    assert w.step(auction, own_label=False) == ("Once-around auction, starting with the player after the dealer: each "
                                                "bids once, more than the highest bid so far, or passes; the highest bid "
                                                "wins; bids start at 2")
    bidding = dict(aid_view(rs).decisions)["Bidding"]
    assert "for how many tricks you will take. Each bids once, more than the highest bid so far, or passes. " \
           "Bids start at 2." in bidding, bidding


def test_a_value_the_aid_names_is_defined_by_what_sets_it(crown):
    """'What is the trump suit? The value to beat?': titled values with no doc were met in the aid and defined
    nowhere. The Words box says where each starts and what sets it, the trump of a trick what a trump does."""
    from rulecraft.tools.print.aid import aid_view

    assert dict(aid_view(crown[0]).words)["Trump suit"] == (
        "The suit the caller chose. In a trick, a trump (a card of this suit) beats every card of the other suits.")
    ladder = aid_view(load_ruleset(str(GAMES / "ladder-climb.yaml")).ruleset)
    assert dict(ladder.words)["Value to beat"] == \
        "It starts at 0; then it is set to the lead's value or the card's value, and back to 0.", ladder.words
    trump_call = aid_view(load_ruleset(str(GAMES / "trump-call.yaml")).ruleset)
    assert dict(trump_call.words)["Trump suit"].startswith("Turn up the next card; its suit is trumps this round. "), \
        trump_call.words


def test_a_draw_a_player_may_stop_is_a_decision():
    """'When do I stop drawing?': kettle-brew's draw into the kettle, which its player may stop before every token,
    was missing from How it is decided (a draw with a `chooser:` puts a question, as a choice does)."""
    from rulecraft.tools.print.aid import aid_view

    view = aid_view(load_ruleset(str(GAMES / "kettle-brew.yaml")).ruleset)
    assert dict(view.decisions)["Brew"].startswith(
        "Draw tokens from your bag into your kettle one at a time, until you stop or it boils over. "), view.decisions


_ZONE_LOG = """
ruleset: zone-log
title: Zone log
players: {min: 2, max: 2, default: 2}
cards:
  - {id: a, name: Acorn, count: 3}
zones:
  deck: {visibility: open, initial: all, title: Deck}
  hand: {per: player, visibility: open, title: Hand}
  piles: {per: [left, right], visibility: open, title: Pile}
start: game
sequences:
  game:
    kind: game
    steps:
      - "draw from deck to players[0].hand as c"
      - "log '{c} went to {zone_of(c)}; the {deck} has {deck.size}; {piles[\\"left\\"]}'"
      - "win players"
"""


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_a_zone_in_a_log_reads_by_its_title(tmp_path, engine):
    """'Acorn went to hand[0]': a zone written into a log's text read as the engine's key; it reads by its title,
    a player's own by whose it is, a family's by its key (both engines)."""
    from conftest import play_seeded

    path = tmp_path / "zone-log.yaml"
    path.write_text(_ZONE_LOG, encoding="utf-8")
    game = play_seeded(load_ruleset(str(path)).ruleset, 1, engine=engine)
    assert game.narrative[0] == "Acorn went to P1's Hand; the Deck has 2; Pile (left)", game.narrative


@pytest.fixture(scope="module")
def dry_well():
    from rulecraft.tools.print.aid import aid_view

    return aid_view(load_ruleset(str(GAMES / "dry-well.yaml")).ruleset)


def test_a_function_titled_the_x_of_something_is_a_term(dry_well):
    """'Everyone drinks the round's thirst': what is the thirst? The function titled 'the thirst of round {r}' has a
    doc that says; the Words box defines it."""
    assert dict(dry_well.words)["Thirst"] == "The water each player drinks in a round, 1 and 1 more every third round."


def test_a_labelled_auction_says_who_is_paid(dry_well):
    """'Do I pay my bid, and to whom?': the label 'sold ... for water' said nothing of paying."""
    assert dict(dry_well.decisions)["Bidding"].endswith("or passes. The winner pays the bank."), dry_well.decisions


def test_a_labelled_block_says_the_rule_that_puts_a_player_out(dry_well):
    """'What if I cannot drink?': 'Everyone still in drinks the round's thirst' was all the aid said; that a player
    who cannot is out, and who gets their springs, was on the sheets only."""
    line = next(x for _d, _t, lines in dry_well.flow for x in lines if x.startswith("Everyone still in drinks"))
    assert line.endswith(": can they drink? Then they drink; otherwise, they are out and their springs go to the "
                         "player with the most water still in"), line


def test_a_value_is_not_defined_by_arithmetic_or_as_yes_and_no():
    """'Dice bid: set to the raise divided by 10, rounded down' (a number the rules pack) and 'Last round: it starts at
    no; then it is set to yes' define nothing for a reader, nor 'Price: then it is set to 9' of a price that falls
    by 1 each time round: such values are left to their own names."""
    from rulecraft.tools.print.aid import aid_view

    cups = dict(aid_view(load_ruleset(str(GAMES / "under-cups.yaml")).ruleset).words)
    loom = dict(aid_view(load_ruleset(str(GAMES / "loom-and-dye.yaml")).ruleset).words)
    falling = dict(aid_view(load_ruleset(str(GAMES / "falling-price.yaml")).ruleset).words)  # ('price -= 1' too)
    assert "Dice bid" not in cups and "Last round" not in loom and "Price" not in falling, (cups, loom, falling)


def test_the_price_of_an_auction_won_at_the_highest_bid_is_the_highest_bid(crown):
    """'Set the bid to the price': a bid for tricks has no price a table knows; the auction's best bid is what it
    names (crown-bid's Words box: 'Bid: ... set to the highest bid or 2')."""
    from rulecraft.tools.print.aid import aid_view

    assert dict(aid_view(crown[0]).words)["Bid"] == "It starts at 0; then it is set to the highest bid or 2."
    rs = load_ruleset(str(GAMES / "tide-clock.yaml")).ruleset  # a falling price: the price it was taken at
    w = Words(rs, detail="players")
    name = next(dict(s.settings).get("as", "auction") for _q, s in rs.iter_steps() if getattr(s, "construct", "") == "auction")
    assert _said(w, f"{name}.price") == "the price"


def test_a_text_every_card_shares_is_said_with_the_deck(dry_well):
    """'What is a spring worth?': every card says 'Worth its number at the end', so no card is special and the aid
    listed none; the deck went unsaid ('You need 12 cards'). The deck is said, with the text they share."""
    assert "The cards: Spring 1 ×2 (worth 1), Spring 2 ×2 (worth 2), Spring 3 ×2 (worth 3), Spring 4 ×2 (worth 4), " \
           "Spring 5 ×2 (worth 5) and Spring 6 ×2 (worth 6). Every card: Worth its number at the end; sold for water." \
           in dry_well.setup, dry_well.setup


def test_the_leader_of_tricks_is_defined_with_who_leads_after_a_trick(crown):
    """'Who leads?': 'set the leader to the caller' and the leader was defined nowhere (a one-word term met in lower
    case); it is, with what the tricks do to it."""
    from rulecraft.tools.print.aid import aid_view

    assert dict(aid_view(crown[0]).words)["Leader"] == "The caller. Then whoever takes a trick leads the next."


def test_a_question_whose_yes_says_nothing_reads_if_not():
    """'Did the kettle boil over? Otherwise, score ...': 'otherwise' after a bare question answers nothing; when the
    yes only tells the table something, the no reads 'If not, ...'."""
    from rulecraft.tools.print.aid import aid_view

    flow = [x for _d, _t, lines in aid_view(load_ruleset(str(GAMES / "kettle-brew.yaml")).ruleset).flow for x in lines]
    assert "Did the kettle boil over? If not, score the kettle's coins in points, and 2 more for each Moonstone in it" \
        in flow, flow


def test_a_count_more_than_none_says_there_are_any(tmp_path):
    """'If the number of players still in is more than 0: the opener passes ...' (dry-well): a count compared with
    none is said as a person says it, 'if there are any players still in'."""
    w = Words(load_ruleset(str(GAMES / "dry-well.yaml")).ruleset, detail="players")
    assert _said(w, "count(players_in()) > 0") == "there are any players still in"
    assert _said(w, "count(players_in()) == 0") == "there are no players still in"


def test_a_draw_that_refills_a_row_says_up_to_how_many(tmp_path):
    """'Draw 4 minus the number of cards in the Market row cards from the Supply deck' (copper-works): a draw of N
    less what its destination holds fills the destination up to N."""
    from rulecraft.dsl.parser import parse_statements

    w = Words(load_ruleset(str(GAMES / "copper-works.yaml")).ruleset, detail="players")
    said = w.stmt(parse_statements("draw 4 - row.size from supply to row", plain_locator())[0])
    assert said == "Draw from the Supply deck to the Market row until it has 4 cards", said


def test_the_stakes_of_a_round_of_betting_are_not_named_as_the_pot(tmp_path):
    """'When it ends: add the pot to Pot' (ante-up): a round of betting's `pot` (the stakes bet in it) read as the
    game's own Pot; it reads 'the stakes'."""
    rs = load_ruleset(str(GAMES / "ante-up.yaml")).ruleset
    from rulecraft.tools.print.aid import aid_view

    assert dict(aid_view(rs).decisions)["Bidding"].endswith("When it ends: add the stakes to Pot."), \
        aid_view(rs).decisions


def test_a_copy_number_is_not_read_as_a_property():
    """'weapon, defense, special and worthless, each with copy 1 to 12' (dune): a card family's numbering reads as
    how many of each there are, numbered."""
    from rulecraft.tools.print.aid import aid_view

    setup = aid_view(load_ruleset("dune-bidding").ruleset).setup
    assert "The cards: weapon, defense, special and worthless, 12 of each, numbered 1 to 12." in " ".join(setup), setup


def test_a_clipped_local_name_reads_as_its_word():
    """'The player is the owner of the dest' (dml's Monopoly check): a parameter named by a clipped word reads as
    the word ('the destination')."""
    w = Words(load_ruleset("dml").ruleset, detail="players")
    assert _said(w, "owner(dest)") == "the owner of the destination"


def test_a_player_role_is_defined_without_naming_itself():
    """'Who is the opener?' (reserve-room): the Opener, met as 'the opener' in a step, was defined nowhere; ante-up's
    'Dealer: First the first player, then the player after Dealer' defined the dealer by the dealer."""
    from rulecraft.tools.print.aid import aid_view

    reserve = dict(aid_view(load_ruleset(str(GAMES / "reserve-room.yaml")).ruleset).words)
    ante = dict(aid_view(load_ruleset(str(GAMES / "ante-up.yaml")).ruleset).words)
    assert reserve.get("Opener") == "First the first player, then the next player in turn.", reserve
    assert ante.get("Dealer") == "First the first player, then the next player in turn.", ante


def test_a_tie_with_no_tie_break_is_not_still_tied():
    """'If still tied, the tied players share the win' (ante-up) after no tie-break: 'still' after nothing."""
    from rulecraft.tools.print.aid import aid_view

    win = aid_view(load_ruleset(str(GAMES / "ante-up.yaml")).ruleset).win
    assert win[-1] == "If tied, the tied players share the win.", win
    win = aid_view(load_ruleset(str(GAMES / "reserve-room.yaml")).ruleset).win
    assert win[-1] == "If still tied, the tied players share the win.", win


def test_a_labelled_round_of_betting_says_fold_call_or_raise():
    """'What may I do when it is my bet?' (ante-up): the label 'A round of betting from the dealer's left; every stake
    goes into the pot' never said fold, call or raise; the rule's words do."""
    from rulecraft.tools.print.aid import aid_view

    bidding = dict(aid_view(load_ruleset(str(GAMES / "ante-up.yaml")).ruleset).decisions)["Bidding"]
    assert "goes into the pot. Each in turn folds, calls or raises the top stake until all still in match it." \
        in bidding, bidding


def test_a_card_number_that_equals_another_is_said():
    """'What is a lot's reserve?' (reserve-room): each card's reserve is its value, and the set-up said the value
    only, so the number every bid starts at was nowhere on the aid."""
    from rulecraft.tools.print.aid import aid_view

    setup = " ".join(aid_view(load_ruleset(str(GAMES / "reserve-room.yaml")).ruleset).setup)
    assert "The cards: vase, clock and rug, each with value 3, 5, 7 and 9 (one card of each). A card's reserve is " \
           "its value." in setup, setup


def test_a_count_titled_as_things_to_do_says_the_player_has_them():
    """'another turn while the player's Steps to take in a row is more than 0' (ice-floe): a count titled by a plural
    noun and what follows it reads as things the player has."""
    w = Words(load_ruleset(str(GAMES / "ice-floe.yaml")).ruleset, detail="players")
    assert _said(w, "player.steps_owed > 0") == "the player has Steps to take in a row"


def test_each_of_a_kind_says_the_kind_once():
    """'For each player in the players still in' (ante-up's hand): a loop or a list over some of a kind names the
    kind once, 'for each player still in'."""
    w = Words(load_ruleset(str(GAMES / "ante-up.yaml")).ruleset, detail="players")
    rs = w.rs
    loops = [w.step(s, own_label=False) for _q, s in rs.iter_steps() if type(s).__name__ == "ForEachStep"]
    assert "For each player still in" in loops and not any(" in the players " in x for x in loops), loops
    assert _said(w, "[q.chips for q in players_in()]") == "the player's Chips for each player still in"


def test_a_question_put_to_a_player_is_quoted():
    """'The player: Throw a Rope to the next player?' (ice-floe): a question put to a player reads as one asked,
    'The player is asked “Throw a Rope to the next player?”', in the aid's order of play and How it is decided."""
    from rulecraft.tools.print.aid import aid_view

    view = aid_view(load_ruleset(str(GAMES / "ice-floe.yaml")).ruleset)
    flow = [x for _d, _t, lines in view.flow for x in lines]
    asked = "The player is asked “Throw a Rope to the next player?”"
    assert asked in flow, flow
    assert dict(view.decisions)["A turn"].startswith(asked), view.decisions


def test_a_draw_counted_in_cards_says_cards_once():
    """'Draw the card's cards cards from their Draw pile' (cinder-guild's action card): a count that already says
    what it counts is not followed by 'cards' again."""
    from rulecraft.dsl.parser import parse_statements

    w = Words(load_ruleset(str(GAMES / "cinder-guild.yaml")).ruleset, detail="players")
    said = w.stmt(parse_statements("draw card.cards from player.deck to player.hand", plain_locator())[0])
    assert "cards cards" not in said and said.startswith("Draw the card's cards from "), said


def test_a_score_names_its_player_once():
    """'points are a player's set points plus 5 times a player's full sets plus a player's coins' (bazaar-row): the
    player the score is counted for is 'a player' once, then 'their'; cards added up over several of their places
    are 'the cards in a player's Draw pile, their Hand ...', not 'the cards in the cards of ... plus the cards of ...'
    (cinder-guild)."""
    from rulecraft.tools.print.aid import aid_view

    bazaar = aid_view(load_ruleset(str(GAMES / "bazaar-row.yaml")).ruleset).win
    assert "points are a player's set points plus 5 times their full sets plus their coins divided by 4, rounded " \
           "down." in " ".join(bazaar), bazaar
    cinder = aid_view(load_ruleset(str(GAMES / "cinder-guild.yaml")).ruleset).win
    assert "points are the total points of the cards in a player's Draw pile, their Hand, their Play area and their " \
           "Discard pile." in " ".join(cinder), cinder


def test_a_test_of_one_thing_reads_as_said_of_it():
    """'1 if a player's is shade' (lantern-watch's score): a function `is_shade(p)` with no title reads 'the player
    is shade', a test of its one argument, not a thing the player owns."""
    w = Words(load_ruleset(str(GAMES / "lantern-watch.yaml")).ruleset, detail="players")
    assert _said(w, "1 if is_shade(p) else 0") == "1 if the player is shade, otherwise 0"


def test_a_score_set_before_play_is_a_start_not_how_it_is_counted():
    """'How Chips are counted: Set the player's Chips to 10' (ante-up): setting each player's chips before the first
    hand is what they start with, said in the set-up ('Each player's chips start at 10'), not a way chips are
    counted."""
    from rulecraft.tools.print.aid import aid_view

    view = aid_view(load_ruleset(str(GAMES / "ante-up.yaml")).ruleset)
    assert not any("Set the player's Chips to 10" in text for _h, text in view.explain), view.explain
    assert "Each player's chips start at 10." in view.setup, view.setup


_NUMBERED = """
ruleset: numbered
title: Numbered
players: {min: 2, max: 2, default: 2}
cards:
  - for: {kind: [sun, moon, star], NUM: [1, 2, 3]}
    id: "{kind}_{NUM}"
    name: "{kind} {NUM}"
zones:
  deck: {visibility: hidden, initial: "[c for c in cards if c.NUM <= 3]", title: Deck}
  hand: {per: player, visibility: owner, title: Hand}
player_variables:
  score: 0
start: game
sequences:
  game:
    kind: game
    steps:
      - for_each: p
        in: players
        do: ["draw from deck to p.hand as c", "SCORE"]
      - "end game"
scoring:
  score: "p.score"
"""


@pytest.mark.parametrize("num", ["serial", "stamp"])
def test_a_number_only_the_set_up_reads_numbers_copies(tmp_path, num):
    """'weapon ... each with copy 1 to 12' read the copy number as a property; it was known by its attribute's name
    (copy, serial, ...). A number of a deck's cards that no rule of play reads (the set-up's pick of the deck may)
    only tells copies apart, whatever its name; one a rule reads is a property of the card."""
    from rulecraft.tools.print.aid import aid_view

    def setup(score: str) -> str:
        path = tmp_path / f"{num}.yaml"
        path.write_text(_NUMBERED.replace("NUM", num).replace("SCORE", score), encoding="utf-8")
        return " ".join(aid_view(load_ruleset(str(path)).ruleset).setup)

    assert "The cards: sun, moon and star, 3 of each, numbered 1 to 3. All the cards start in the Deck." \
        in setup("p.score += 1"), setup("p.score += 1")  # (not '9 of the 9 cards start in the Deck')
    assert f"The cards: sun, moon and star, each with {num} 1 to 3 (one card of each)." in setup(f"p.score += c.{num}")


def test_a_labelled_round_of_turns_says_who_starts_and_an_auction_what_if_nobody_bids():
    """Cold read of gavel-hall (session 18): 'Who has the gavel first?' The label 'The gavel passes clockwise until
    the lots run out' hid that turns go from the first player, and the set-up never said to choose one. 'What if
    nobody bids?' The label of the open auction said nothing of it; its rule's words do."""
    from rulecraft.tools.print.aid import aid_view

    view = aid_view(load_ruleset(str(GAMES / "gavel-hall.yaml")).ruleset)
    assert view.setup[-1] == "Choose a first player; play goes clockwise from them.", view.setup
    assert dict(view.decisions)["Bidding"].startswith("Raise or pass from the auctioneer's left; a pass is final; the "
                                                      "last bidder left wins. The auctioneer may bid too. If nobody "
                                                      "bids, the auctioneer keeps it. The winner pays the auctioneer"), \
        view.decisions


def test_the_set_up_counts_each_card_a_pile_starts_with_and_words_define_their_own_terms():
    """Cold read of ice-floe (session 18): 'How many Ropes?' The set-up said 'These 22 cards start in the floe: Rope
    and Snow'; it says how many of each. 'What is the Melt-water?' The floe's definition names it ('When it runs out,
    shuffle the Melt-water'), and a term met only in the Words box was not defined there."""
    from rulecraft.tools.print.aid import aid_view

    view = aid_view(load_ruleset(str(GAMES / "ice-floe.yaml")).ruleset)
    assert "These 22 cards start in the floe: Rope ×6 and Snow ×16." in view.setup, view.setup
    assert "Melt-water" in dict(view.words), view.words


def test_a_choice_inside_a_said_mechanic_is_not_said_again_apart():
    """Cold read of cinder-guild (session 18): 'Playing an action card: The target: Discard a card. They discard it.'
    Who is the target? The Rake's attack, said under Attack ('Every other player holding 5 or more cards discards one
    of them'), asks that choice as its own part; it is not listed again as a choice of its own, without its attack."""
    from rulecraft.tools.print.aid import aid_view

    decisions = dict(aid_view(load_ruleset(str(GAMES / "cinder-guild.yaml")).ruleset).decisions)
    assert not any("The target" in text for text in decisions.values()), decisions
    assert decisions["Playing an action card"].startswith("The player is asked “Play which card twice?”"), decisions


def test_a_designer_s_set_up_follows_what_the_table_needs():
    """Cold read of dml (session 18): 'What do we need to play?' The designer's set-up begins 'Roll off ...' and
    'Take out the four Kings ...': the deck and the dice were on no line. What the table needs comes first, unless
    the designer's own lines say it."""
    from rulecraft.tools.print.aid import aid_view

    assert aid_view(load_ruleset("dml").ruleset).setup[:2] == [
        "You need 54 cards and two six-sided dice.",
        "Roll off for the Initiative Badge: everyone rolls two dice, the highest total takes it (Woot! Woot! takes it "
        "at once); tied players roll again."]


def test_a_pile_of_several_kinds_says_how_many_of_each_for_each_number_of_players():
    """Cold read of cinder-guild (session 18): 'How many Embers go in the box?' The set-up said 'These cards start
    in the box: Ember, Flame, ... (71 for 2 players, 88 for 3, 103 for 4)': the total, never each kind's count."""
    from rulecraft.tools.print.aid import aid_view

    setup = aid_view(load_ruleset(str(GAMES / "cinder-guild.yaml")).ruleset).setup
    assert "These cards start in the box (for 2/3/4 players): Ember ×26/33/40, Flame ×12, Blaze ×8, Hearth " \
           "×14/17/20, Beacon ×6/8/8 and Ash ×5/10/15." in setup, setup
