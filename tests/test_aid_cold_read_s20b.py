"""The leftovers of session 20's cold read (test_aid_cold_read_s20), each asked of the one renderer in general: a
prompt that names a thing and then fills in its value (ember-ring), a decision whose consequences the order of play
says whole (ember-ring's turn, said twice, once cut), a local named by a past participle (mill-row's 'made'), a list
of seats indexed by a loop's number ('ring[i]'), a place a label names by its id (dune's 'the row'). Read from the
words and the aid's view (no browser, no fonts)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rulecraft.loader import load_ruleset, load_text
from rulecraft.model import ruleset as M
from rulecraft.tools.print.aid import aid_view
from rulecraft.tools.words import Words
from rulecraft.tools.words.naming import participle_reading
from rulecraft.tools.words.text import shown_once

sys.path.insert(0, str(Path(__file__).parent))
from test_aid_cold_read_s20 import _HEAD, _TURNS, _view  # noqa: E402  (the tiny ruleset those tests ask)

GAMES = Path(__file__).parent / "cases" / "games"


@pytest.fixture(scope="module")
def ember():
    return aid_view(load_ruleset(str(GAMES / "ember-ring.yaml")).ruleset)


def test_a_prompt_that_names_the_thing_it_fills_in_says_the_value_is_shown(ember):
    """ember-ring: 'Play a card (the fire is at the fire's heat)': on paper no value is filled in; the heat is shown."""
    lines = [x for _d, _t, lines in ember.flow for x in lines]
    assert "The player: Play a card (the fire's heat is shown)" in lines, lines
    assert shown_once("Bid (your coins are at your coins' total)") == "Bid (your coins' total is shown)"
    for kept in ("Play a card (the fire is at 3)", "Roll again? (the turn total is shown)",
                 "Play (the fire is at the player's heat)"):  # (another's value is no repeat)
        assert shown_once(kept) == kept


def test_a_choice_the_order_of_play_says_whole_is_not_said_again_cut(ember):
    """ember-ring: 'How it is decided' repeated the turn and ended 'and more: see the sheets' while the same page says
    the turn whole: what a choice leads to is left to the order of play, which it names."""
    decided = dict(ember.decisions)["A turn"]
    assert "see the sheets" not in decided and "Is it a Coal" not in decided, decided
    assert decided.endswith("What it leads to: see “A turn” under Order of play."), decided


def test_a_local_named_by_a_past_participle_reads_by_what_it_counts():
    """mill-row: 'Add the made to the player's Flour': a participle names no thing; the flour made does. dml-2016's
    `lost` (half a hand, rounded up) keeps the words it had: its value counts no plain thing (a try that read such
    names by their value made it 'Half ... is half ...')."""
    rs = load_ruleset(str(GAMES / "mill-row.yaml")).ruleset
    w = Words(rs, detail="players")
    step = next(s for q in rs.sequences.values() for s in M.walk_steps(q.steps)
                if not any(b for _n, b in s.bodies) and "let made" in str(vars(s)))
    said = w.step(step, own_label=False)
    assert said.startswith("Add the flour made to the player's Flour"), said
    rs = load_ruleset("dml-2016").ruleset
    assert participle_reading(Words(rs, detail="players"), "lost") == ""


def test_an_index_into_a_ring_of_seats_reads_as_a_person_says_it():
    """quiet-contract without its labels: 'the ring for the one', 'the one after the ring for the one in the ring':
    a loop over the numbers 0 to the number of players minus 1 that only indexes a list of players is a loop over
    the players in that ring, and `ring[(i + 1) % player_count]` the next player in it."""
    body = _TURNS.replace('      - "draw 3 from supply to row"\n', """      - "draw 3 from supply to row"
      - "let ring = shuffled(players)"
      - for_each: i
        in: "0..player_count - 1"
        do: ["set ring[i].coins = ring[(i + 1) % player_count].coins; tell (ring[i]) 'You follow {ring[(i + 1) % player_count]}'"]
""")
    lines = next(lines for _d, title, lines in _view(body).flow if title == "Game")
    line = next(x for x in lines if "ring" in x)
    assert line.startswith("For each player in the ring: set the Coins of the player in the ring to the Coins of the "
                           "next player in the ring (after the last, the first)"), line
    assert "for the one" not in line and "You follow the next player in the ring" in line, line
    # a number that is read as a number too (here: told) keeps its own words
    other = body.replace("'You follow {ring[(i + 1) % player_count]}'", "'You are number {i}'")
    line = next(x for x in next(lines for _d, t, lines in _view(other).flow if t == "Game") if "ring" in x)
    assert line.startswith("For each number from 0"), line


def test_a_place_a_label_names_by_its_id_is_in_the_words_box():
    """dune: 'until the row is empty': what is the row? A place whose title says what it is in more than a name is
    defined under the word the labels use; a title that is only another name ('Draw pile' for `deck`) and a common
    word of card games add no term (an earlier try put 'Deck: Draw pile.' in twenty aids)."""
    words = dict(aid_view(load_ruleset("dune-bidding").ruleset).words)
    assert words.get("Row") == "Cards dealt face down for bidding (first dealt at the bottom).", words
    assert "Cards dealt face down for bidding" not in words, words  # (one entry for the place, under the word used)
    head = _HEAD.replace("  row: {visibility: open, title: Row}",
                         "  row: {visibility: open, title: Cards laid out for sale this round}")
    loaded = load_text("tiny.yaml", head + _TURNS)
    assert dict(aid_view(loaded.ruleset).words).get("Row") == "Cards laid out for sale this round.", \
        aid_view(loaded.ruleset).words
    loaded = load_text("tiny.yaml", head.replace("title: Cards laid out for sale this round", "title: Sale row")
                       + _TURNS)
    assert "Row" not in dict(aid_view(loaded.ruleset).words)
    loaded = load_text("tiny.yaml", _HEAD.replace("  supply: {visibility: hidden, initial: all, title: Supply}",
                                                  "  supply: {visibility: hidden, initial: all, title: The pile the "
                                                  "cards come from}") + _TURNS)
    assert "Supply" not in dict(aid_view(loaded.ruleset).words)



_SECRET = _TURNS.replace('      - "draw 3 from supply to row"\n', """      - "draw 3 from supply to row"
      - choose:
          player: "players[0]"
          kind: one
          options: "['high', 'low']"
          prompt: "Name the way in secret"
          secret: true
          as: named
      - "set round = 0; let way = named"
""").replace("""        then: ["win players_in(); end game"]
""", """        then: ["win players_in(); end game"]
      - "log 'The way was {way}.'"
""")


def test_a_secret_pick_says_when_it_is_told():
    """quiet-trump: 'Name trumps in secret': when do the others learn them? A secret pick that a later step tells
    everyone (its value, or a value set from it, read in the step's message) says the moment with it, on the aid and
    the sheets alike (one renderer); a pick no step tells says nothing more."""
    lines = next(lines for _d, title, lines in _view(_SECRET).flow if title == "Game")
    assert "The first player: Name the way in secret (told to everyone at the end of the game)" in lines, lines
    quiet = load_ruleset(str(GAMES / "quiet-trump.yaml")).ruleset
    lines = [x for _d, _t, lines in aid_view(quiet).flow for x in lines]
    assert "The caller: Name trumps in secret (told to everyone at the end of the game)" in lines, lines
    untold = _SECRET.replace("      - \"log 'The way was {way}.'\"\n", "")
    lines = next(lines for _d, title, lines in _view(untold).flow if title == "Game")
    assert "The first player: Name the way in secret" in lines, lines


def test_a_hidden_place_says_when_its_cards_are_turned_up():
    """lantern-watch: 'Role: Each player has their own, seen by its owner only.': when do the others see a role? A
    place not open to all whose cards one titled sequence moves to an open place says when, in the Words box; where
    two sequences move them (palace-notes' notes, discarded by a card too) the moment is not one and nothing is
    said."""
    watch = aid_view(load_ruleset(str(GAMES / "lantern-watch.yaml")).ruleset)
    assert dict(watch.words).get("Role") == "Each player has their own, seen by its owner only. Its cards go face " \
                                            "up to the Roles turned up when a player is out.", watch.words
    notes = aid_view(load_ruleset(str(GAMES / "palace-notes.yaml")).ruleset)
    assert not any("face up to" in d for _t, d in notes.words), notes.words
