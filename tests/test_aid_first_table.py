"""A first table's questions, asked of the print of two games the printers had not met, written from the docs alone
(tests/cases/games/crown-bid.yaml: tricks with an auction for the trump; tests/cases/games/ladder-climb.yaml: a
climbing game where you beat the top card or pass). Each test is one question a table asked of the aid (how do I
set up, what does this word mean, whose turn is next, when does it end, who wins, what may I do now) with the
answer the aid must give, read from `aid_view` and the words (no browser: cheap)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulecraft.loader import load_ruleset
from rulecraft.tools.print.aid import aid_view

GAMES = Path(__file__).parent / "cases" / "games"


@pytest.fixture(scope="module")
def crown():
    return aid_view(load_ruleset(str(GAMES / "crown-bid.yaml")).ruleset)


@pytest.fixture(scope="module")
def ladder():
    return aid_view(load_ruleset(str(GAMES / "ladder-climb.yaml")).ruleset)


def test_how_points_are_counted_says_what_a_no_does_too(crown):
    """'How do points get scored?': How Points are counted said the caller's bid and stopped; that the others score
    2 each when the caller falls short was only in the order of play. A labelled question's no is said too."""
    counted = dict(crown.explain)["How Points are counted"]
    assert counted == ("Did the caller take at least their bid? Then add the bid to the caller's Points; otherwise, "
                       "for each player who is not the caller, add 2 to the player's Points."), counted


def test_who_wins_and_when_it_ends_when_play_declares_the_winner_after_its_loop(ladder):
    """'Who wins? When does it end?': the aid had no How to win at all: the game names its winner in a step of its
    own after the turns ('The player whose hand is empty wins'), no condition around it, no scoring."""
    assert ladder.win == ["The game ends when any player's Hand is empty.", "Then the player whose hand is empty wins."]


def test_a_player_kept_in_a_value_is_defined_by_who_that_is(ladder):
    """'Who is the last player to play?': the Words box said 'First the first player, then the player.' ('then the
    player' names nobody: it is the turn's own player, the one who has just played)."""
    assert dict(ladder.words)["Last player to play"] == "First the first player, then the player whose turn it is."


def _lines(view, title):
    return next(lines for _d, t, lines in view.flow if t == title)


def test_a_loop_whose_step_already_says_each_player_says_it_once(crown):
    """'For each player: deal 6 cards to each player': the label inside the loop says whom already."""
    assert "Deal 6 cards to each player" in _lines(crown, "Hand"), _lines(crown, "Hand")


def test_a_label_inside_a_line_keeps_its_own_clauses_apart(crown):
    """'play a trick: follow suit if you can and the highest trump ... takes it' read as one condition: a designer's
    label inside a line had its '; ' turned into 'and'."""
    line = next(x for x in _lines(crown, "Hand") if "play a trick" in x)
    assert "follow suit if you can and the highest" not in line, line
    assert "follow suit if you can — the highest trump, else the highest card of the suit led, takes it" in line, line


def test_the_set_up_says_what_the_plain_cards_are_beside_the_special_ones(ladder):
    """'What cards are there? Which beats which?': 'You need 36 step and 4 ladder cards', and the step cards' colours
    and values were nowhere (a deck with a special card's text was not said at all). A class of cards that is every
    mix of a property and a number is said so, beside the special cards the aid lists."""
    assert "The step cards: red, green, blue and yellow, each with value 1 to 9 (one card of each)." in ladder.setup, \
        ladder.setup
    assert ladder.setup[0] == "You need 36 step and 4 ladder cards.", ladder.setup


def test_who_leads_the_next_trick_is_said_where_the_label_leaves_it_out(crown):
    """'Who leads the next trick?': the trick's label said how a trick is won and nothing of who leads next, on the
    aid and on the sheet; the rule's own words say it ('the winner leads next')."""
    from rulecraft.graph import build_graph
    from rulecraft.tools.chart.flowchart import ChartOptions, _Chart

    assert dict(crown.decisions)["A trick"].endswith("The winner leads next."), dict(crown.decisions)["A trick"]
    rs = load_ruleset(str(GAMES / "crown-bid.yaml")).ruleset
    graph = build_graph(rs)
    chart = _Chart(rs, graph, "hand", ChartOptions())
    rows = next(chart.body_rows(n) for n in graph.sequences["hand"] if graph.nodes[n].kind == "trick")
    assert any("The winner leads next" in r for r in rows), rows


def test_a_label_that_asks_and_answers_still_says_what_a_no_does(ladder):
    """'What must I beat now?': 'a Ladder? Clear the pile and lead again' said the yes; that any other card sets the
    value to beat (the no) was on the sheet only."""
    line = next(x for x in _lines(ladder, "Turn") if "Ladder?" in x)
    assert line.endswith("a Ladder? Clear the pile and lead again; otherwise, set the value to beat to the card's value"), line


def test_the_lowest_bid_is_said(crown):
    """'What may I bid?': the bidding said once around the table, and nowhere that a bid starts at 2 (the aid, and
    the small print under the auction's box)."""
    assert "Bids start at 2." in dict(crown.decisions)["Bidding"], dict(crown.decisions)["Bidding"]


def test_the_set_up_is_the_same_in_every_process():
    """cinder-guild's set-up read 'The market cards (42) ...' in one run and 'The action cards (42) ...' in the next:
    the class was taken from a set, whose order changes with the process's hash seed."""
    import os
    import subprocess
    import sys

    code = ("from rulecraft.loader import load_ruleset; from rulecraft.tools.print.aid import aid_view; "
            f"v = aid_view(load_ruleset({str(GAMES / 'cinder-guild.yaml')!r}).ruleset); print(v.setup, v.words)")
    said = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout for seed in (1, 2, 3)}
    assert len(said) == 1, said


def test_a_label_filled_with_1_reads_in_the_singular():
    """dune-bidding's set-up read 'Each player draws 1 Treachery Cards.': its label says '{starting_cards} Treachery
    Cards' and the number is 1 by default. A noun right after a value filled in as 1 is said in the singular."""
    from rulecraft.tools.words import Words

    rs = load_ruleset("dune-bidding").ruleset
    assert "Each player draws 1 Treachery Card." in aid_view(rs).setup, aid_view(rs).setup
    w = Words(rs, detail="players")
    assert w.label("Hold at most {hand_limit} cards") == "Hold at most 4 cards"  # (a number not 1: as written)


def test_the_caller_is_defined(crown):
    """'Who is the caller?': the Words box defined the dealer and not the caller, set to the bidding's winner, or to
    the dealer when nobody bids (the then and the else of one condition: not 'first ..., then ...')."""
    assert dict(crown.words).get("Caller") == "The winner, otherwise the dealer.", crown.words


def test_an_if_whose_yes_players_do_not_read_says_its_no_as_a_condition(tmp_path):
    """'What happens when I roll a 6?': an `if` whose `then` only tells the table something (a log) read 'if the
    roll's total is 6, otherwise add 1 to the player's score', a line that seemed cut short; now 'if the roll's
    total is not 6, add 1 ...' (found by s16-lang's games)."""
    path = tmp_path / "six.yaml"
    path.write_text("""
ruleset: six
title: Six
players: {min: 2, max: 2, default: 2}
player_variables:
  score: 0
start: game
sequences:
  game:
    kind: stage
    steps:
      - for_each: p
        in: players
        do:
          - "roll 1d6 as r"
          - if: "r.total == 6"
            then: ["log 'A six for {p}!'"]
            else: ["p.score += 1"]
      - "win [q for q in players if q.score == max([x.score for x in players])]"
""")
    flow = " ".join(" ".join(steps) for _d, _t, steps in aid_view(load_ruleset(str(path)).ruleset).flow)
    assert "if the roll's total is not 6, add 1 to the player's score" in flow, flow
    assert "otherwise" not in flow, flow
