"""A `log` whose own text reads something some seat cannot see (docs/secrecy.md, "A log's own words").

A log is the rules' own words, told to every seat as written: a value they keep hidden, logged, is their reveal (40
logs in 20 rulesets of the project do so: a showdown, a cup lifted, 'Trumps were hearts'). Two kinds of field are not: a
card the rules keep under a name given cards some seat cannot see (`draw ... as got`, a decision's answer among a
hidden hand: `log '{p} draws {got}'`), and a value worked out from hidden cards (`{count(mine)}`), are read in full
only by the seats that see those cards when the log is told; every other seat reads '…' in its place, as the others read a prompt that reads a secret. Both engines.
"""

from __future__ import annotations

import re
import textwrap

import pytest

from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.runtime.story import line_text

RULES = """
    ruleset: tiny-logged-secrets
    title: Logged secrets
    players: {min: 3, max: 3, default: 3}
    cards:
      - for: {copy: [1, 2, 3, 4, 5, 6, 7, 8, 9]}
        id: "gem_{copy}"
        name: "Gem {copy}"
        classes: [gem]
    zones:
      bag: {visibility: hidden, initial: all}
      hand: {per: player, visibility: owner}
      pile: {visibility: open}
    variables:
      vault: {initial: 7, visibility: hidden}
    player_variables:
      purse: {initial: 3, visibility: owner}
    start: game
    sequences:
      game:
        kind: game
        steps:
          - "shuffle bag"
          - for_each: p
            in: players
            do:
              - "draw 1 from bag to p.hand as got"
              - "log '{p} draws {got} ({count(p.hand)} in hand)'"
              - "draw 1 from bag to p.hand"
              - "log '{p} keeps {p.purse} coins and the gems {cards(p.hand)} in {p.hand}'"
          - "log 'The vault holds {vault}; the bag {count(bag)} gems'"
          - "log 'P1 holds {cards(players[0].hand)}'"
          - "show players[1].hand to (players[0])"
          - for_each: p
            in: players
            do:
              - choose: {player: p, kind: one, options: "cards(p.hand)", prompt: "Keep which gem?", as: kept}
              - "log '{p} keeps {kept.name} in mind'"
          - for_each: p
            in: players
            do:
              - choose: {player: p, kind: subset, options: "[c for c in p.hand if c.name == 'Gem 1' or c.name == 'Gem 2']",
                         prompt: "Boast of which?", as: boast}
              - "log '{p} boasts of {boast}'"
          - for_each: p
            in: players
            do:
              - "draw 1 from p.hand to pile as laid"
              - "log '{p} lays {laid} face up'"
"""


def _game(tmp_path, engine: str, seed: int = 5) -> Game:
    path = tmp_path / "logged.yaml"
    path.write_text(textwrap.dedent(RULES), encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    g = Game(loaded.ruleset, 3, seed, engine=engine)
    while not g.over:
        g.apply(g.pending.all_choices(1)[0])
    return g


def _read(g: Game, seat: int) -> list[str]:
    return [t for t in (line_text(line, {seat}) for line in g.narrative) if t is not None]


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_a_log_naming_a_card_kept_under_a_name_is_read_in_full_by_those_who_see_the_card(tmp_path, engine):
    """Every seat read 'P2 draws Gem 4 (1 in hand)' and 'P2 keeps Gem 4 in mind': the log's text was told as written,
    the card drawn into P2's hidden hand, or chosen from it, with it. Now P2 reads it and the others read '…' in its
    place; a card laid face up before it is told is read by all. The rest of a log is told as written (the rules' words: a hidden variable
    logged is their reveal, as a cup lifted or 'Trumps were hearts' at the end), the bag's count too."""
    g = _game(tmp_path, engine)
    by_seat = [_read(g, seat) for seat in range(3)]
    spectator = [line_text(line, None) for line in g.narrative]
    for seat, name in enumerate(("P1", "P2", "P3")):
        first = next(t for t in spectator if t.startswith(f"{name} draws"))
        drawn = first.split(f"{name} draws ")[1].split(" (")[0]
        assert drawn.startswith("Gem")
        for other in range(3):
            assert (first if other == seat else f"{name} draws … (1 in hand)") in by_seat[other]
        # a decision's answer, kept in hand: P1 was shown P2's hand, and still does not read which gem P2 chose
        kept = next(t for t in spectator if t.startswith(f"{name} keeps Gem"))
        for other in range(3):
            assert (kept if other == seat else f"{name} keeps … in mind") in by_seat[other]
    for seat in range(3):
        assert "The vault holds 7; the bag 3 gems" in by_seat[seat]
        assert "P2 keeps 3 coins and the gems" in " ".join(by_seat[seat])  # (its cards to P2 alone: '…' to the others)
        laid = [t for t in by_seat[seat] if " lays " in t]
        assert len(laid) == 3 and all("lays Gem" in t for t in laid), laid  # face up before it is told
    assert sum(t.startswith("P2 draws Gem") for t in spectator) == 1  # a game of bots: every line in full


@pytest.mark.parametrize("seed", range(6))
def test_a_log_naming_no_card_of_a_hidden_choice_tells_the_others_nothing(tmp_path, seed):
    """'P2 boasts of ' (an empty list's text) was read by every seat, where P2 boasting of a gem read 'P2 boasts of
    …': the others learned that P2 held neither gem. A name kept for cards some seat cannot see that holds no card when the log is
    told is read in full by nobody: every seat reads '…' for it (the chooser too)."""
    g = _game(tmp_path, "compiled", seed)
    spectator = [line_text(line, None) for line in g.narrative]
    told = [t for t in spectator if " boasts of " in t]
    assert len(told) == 3
    for seat in range(3):
        mine = [t for t in _read(g, seat) if " boasts of " in t]
        for t, full in zip(mine, told):
            assert t == full if t.startswith(f"P{seat + 1} ") and not full.endswith(" of ") \
                else t.endswith(" boasts of …"), (seat, t, full)


COUNTED = """
    ruleset: tiny-counted-secrets
    title: Counted secrets
    players: {min: 3, max: 3, default: 3}
    cards:
      - for: {copy: [1, 2, 3, 4, 5, 6, 7, 8, 9]}
        id: "gem_{copy}"
        name: "Gem {copy}"
        classes: [gem]
    zones:
      bag: {visibility: hidden, initial: all}
      hand: {per: player, visibility: owner}
      pit: {visibility: hidden}
    start: game
    sequences:
      game:
        kind: game
        steps:
          - "shuffle bag"
          - for_each: p
            in: players
            do:
              - "draw 3 from bag to p.hand"
              - "let mine = [c for c in p.hand if c.copy > 4]"
              - "log '{p} holds {count(mine)} high gems of {count(p.hand)}, worth {sum([c.copy for c in p.hand])}'"
              - "let low = [c for c in p.hand if c.copy <= 4]"
              - "move low to pit"
              - "log '{p} drops {plural(count(low), \\"gem\\")} into the pit'"
"""


@pytest.mark.parametrize("engine", ["reference", "compiled"])
def test_a_number_worked_out_from_hidden_cards_is_read_by_those_who_see_them(tmp_path, engine):
    """Every seat read 'P2 holds 2 high gems of 3, worth 17': how many high gems P2's hidden hand held, and what it was
    worth, were told as written. Now the holder reads them and the others read '…' in their place; how many cards the
    hand holds is public (a hand's size is), and so is how many cards the rules then moved out of it into the pit
    (every seat saw them go)."""
    path = tmp_path / "counted.yaml"
    path.write_text(textwrap.dedent(COUNTED), encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    g = Game(loaded.ruleset, 3, 4, engine=engine)
    assert g.over
    spectator = [line_text(line, None) for line in g.narrative]
    for seat, name in enumerate(("P1", "P2", "P3")):
        holds = next(t for t in spectator if t.startswith(f"{name} holds"))
        drops = next(t for t in spectator if t.startswith(f"{name} drops"))
        assert re.fullmatch(rf"{name} holds \d high gems of 3, worth \d+", holds), holds
        for other in range(3):
            read = _read(g, other)
            assert (holds if other == seat else f"{name} holds … high gems of 3, worth …") in read
            assert drops in read  # the pit's count grew by that many, for every seat to see
