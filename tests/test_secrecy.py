"""Secrets the rules hide stay hidden (docs/secrecy.md): what each seat reads of the story, on tiny rulesets.

One rule decides what a seat may see (rulecraft.model.secrecy): where cards lie, and what a value is computed
from. Each case below is a leak the table had, fixed in general and shown on a ruleset made for it:

- a decision with one legal answer, forced by something hidden, reads to the others as any answer would
  (its own seat still reads "(the only choice)"); one forced by what everyone sees says so to all;
- a choice of nothing from a hidden hand is told as any choice would be, not left out;
- a response window whose `may:` reads a hidden hand asks everyone in turn, and the others read the same
  decline from those who may not respond as from those who chose not to;
- a bidder whose money is hidden is asked even when they cannot afford a bid (the pass the only answer), and
  nobody is said to be short;
- a sealed auction nobody can bid in says no empty "Revealed:" line;
- cards bid from a hand onto an open pile are an open choice: the others read which;
- who takes part worked out from a hidden hand (an auction's `may_bid`, a sealed step's `in:`, an `if` before a
  decision) is never told by who is asked: everyone is asked, those left out with their decline as the only
  answer, read as any decline;
- a prompt's `{field}` or an option's `display:` name that reads a hidden hand is read by the decider only;
- "Points now" is shown to a seat for a player whose score reads nothing that seat cannot see, decided from
  the score's expression, not by dealing the hidden cards again.
"""

from __future__ import annotations

import textwrap

from rulecraft.loader import load_ruleset
from rulecraft.model.secrecy import score_seen, secrets_of, sight_of
from rulecraft.runtime.game import Game
from rulecraft.runtime.story import line_text


def _load(tmp_path, text: str, name: str = "tiny.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    return loaded.ruleset


def _play(rs, answers: list, players: int = 3, seed: int = 1) -> Game:
    """A game answered from `answers` (wire form, in order), then the first option until it ends."""
    g = Game(rs, players, seed)
    todo = list(answers)
    while not g.over:
        d = g.pending
        g.apply(todo.pop(0) if todo else d.all_choices(1)[0] if d.kind != "number" else d.min)
    return g


def _read(g: Game, seat: int) -> list[str]:
    """The story as the person at `seat` reads it."""
    return [t for t in (line_text(line, {seat}) for line in g.narrative) if t is not None]


HEADER = """
    ruleset: tiny-secrets
    title: Secrets
    players: {min: 2, max: 3, default: 3}
"""

FORCED = HEADER + """
    cards:
      - {id: crown, name: Crown, classes: [gem], attributes: {seat: 0, worth: 5}}
      - {id: ring, name: Ring, classes: [gem], attributes: {seat: 1, worth: 2}}
      - {id: opal, name: Opal, classes: [gem], attributes: {seat: 1, worth: 3}}
      - {id: stone, name: Stone, classes: [rock], attributes: {seat: 2, worth: 0}}
    zones:
      deck: {visibility: hidden, initial: all}
      hand: {per: player, visibility: owner}
      table: {visibility: open}
    start: game
    sequences:
      game:
        kind: game
        steps:
          - for_each: p
            in: players
            do: ["move [c for c in deck if c.seat == p.seat] to p.hand"]
          - for_each: p
            in: players
            do:
              - choose: {player: p, kind: one, options: "[c for c in p.hand if c is gem]", optional: true,
                         prompt: "Show a gem", as: shown}
              - choose: {player: p, kind: one, options: "['go on']", prompt: "Ready"}
              - choose: {player: p, kind: subset, options: "[c for c in p.hand if c is rock]", prompt: "Drop rocks",
                         as: dropped}
    scoring:
      score: "sum([c.worth for c in p.hand])"
"""


def test_a_choice_forced_by_a_hidden_hand_reads_to_the_others_as_any_choice(tmp_path):
    rs = _load(tmp_path, FORCED)
    g = _play(rs, [])
    # P3 holds no gem: "Show a gem" has the pass as its only answer, which P3 alone is told
    assert "P3: Show a gem -> pass (the only choice)" in _read(g, 2)
    for seat in (0, 1):
        mine = _read(g, seat)
        assert "P3: Show a gem (chosen in secret)" in mine  # as P1 and P2, who had gems to show, read theirs
        assert not any("P3: Show a gem" in line and "only choice" in line for line in mine)
    assert "P1: Show a gem (chosen in secret)" in _read(g, 1)  # P1 chose among gems: the same words
    # a choice forced by what everyone sees says so to everyone
    assert all("P1: Ready -> go on (the only choice)" in _read(g, s) for s in range(3))


def test_a_choice_of_nothing_from_a_hidden_hand_is_told(tmp_path):
    """P1 and P2 hold no rock: their "Drop rocks" is told as P3's (who holds one) is, not left out."""
    rs = _load(tmp_path, FORCED)
    g = _play(rs, [])
    for seat in range(3):
        mine = _read(g, seat)
        for who in ("P1", "P2", "P3"):
            assert sum(line.startswith(f"{who}: Drop rocks") for line in mine) == 1, (seat, who, mine)
    assert "P1: Drop rocks -> nothing (the only choice)" in _read(g, 0)
    assert "P1: Drop rocks (chosen in secret)" in _read(g, 1)


RESPOND = HEADER + """
    cards:
      - {id: shield, name: Shield, classes: [shield], attributes: {seat: 1}}
      - {id: pebble, name: Pebble, classes: [rock], attributes: {seat: 2}}
    zones:
      deck: {visibility: hidden, initial: all}
      hand: {per: player, visibility: owner}
    player_variables: {blocked: 0}
    start: game
    sequences:
      game:
        kind: game
        steps:
          - for_each: p
            in: players
            do: ["move [c for c in deck if c.seat == p.seat] to p.hand"]
          - respond:
              from: "players[0]"
              each: q
              may: "count([c for c in q.hand if c is shield]) > 0"
              choose: {kind: yesno, prompt: "Raise a shield?"}
              until: each
              do: ["q.blocked += 1"]
    scoring:
      score: "p.blocked"
"""


def test_a_response_window_on_a_hidden_hand_asks_everyone_alike(tmp_path):
    rs = _load(tmp_path, RESPOND)
    assert secrets_of(rs)  # (the ruleset's secrets are worked out once)
    g = _play(rs, [False])  # P2, who holds the shield, declines
    for seat in range(3):
        mine = _read(g, seat)
        asked = [line for line in mine if "Raise a shield?" in line]
        # P2 (holds the shield, declines) and P3 (holds none) read alike to P1
        assert [line.split(" (the only")[0] for line in asked] == ["P2: Raise a shield? -> no",
                                                                     "P3: Raise a shield? -> no"], (seat, asked)
    assert "P3: Raise a shield? -> no (the only choice)" in _read(g, 2)
    assert "P3: Raise a shield? -> no" in _read(g, 0)
    assert g.decisions == 1  # only P2 had a choice to make: the game itself is as before


AUCTION = HEADER + """
    cards:
      - {id: lamp, name: Lamp}
    zones:
      lots: {visibility: open, initial: all}
      won: {per: player, visibility: open}
    player_variables:
      coins: {initial: 0, visibility: owner}
    start: game
    sequences:
      game:
        kind: game
        steps:
          - "set players[0].coins = 5; set players[1].coins = 0; set players[2].coins = 3"
          - auction:
              form: FORM
              from: "players[0]"
              limit: "bidder.coins"
              prompt: "Bid for the lamp"
              on_end:
                - if: "auction.winner != none"
                  then: ["auction.winner.coins -= auction.price", "move lots to auction.winner.won"]
    scoring:
      score: "count(p.won)"
"""


def test_a_bidder_whose_money_is_hidden_is_asked_and_passes_as_anyone(tmp_path):
    for form in ("open", "once_around"):
        rs = _load(tmp_path, AUCTION.replace("FORM", form), f"{form}.yaml")
        g = _play(rs, [])
        for seat in (0, 2):
            mine = _read(g, seat)
            assert not any("cannot bid enough" in line for line in mine), (form, mine)
            assert "P2: Bid for the lamp -> pass" in mine, (form, mine)  # as any pass reads
        assert "P2: Bid for the lamp -> pass (the only choice)" in _read(g, 1)


def test_a_bidder_whose_money_is_public_is_still_said_to_be_short(tmp_path):
    rs = _load(tmp_path, AUCTION.replace("FORM", "open").replace("visibility: owner", "visibility: public"))
    g = _play(rs, [])
    assert "P2 cannot bid enough and passes" in g.narrative  # nothing hidden: the engine's words stay


def test_a_sealed_auction_of_hidden_money_asks_everyone_and_says_no_empty_reveal(tmp_path):
    rs = _load(tmp_path, AUCTION.replace("FORM", "sealed"))
    g = _play(rs, [])
    assert not any(line.startswith("Revealed:") and line.strip() == "Revealed:" for line in g.narrative)
    revealed = [line for line in g.narrative if line.startswith("Revealed:")]
    assert revealed and "P2: pass" in revealed[0], g.narrative  # P2 (no coins) bid as anyone may: a pass
    broke = _load(tmp_path, AUCTION.replace("FORM", "sealed").replace("coins = 5", "coins = 0")
                  .replace("players[2].coins = 3", "players[2].coins = 0").replace("visibility: owner",
                                                                                   "visibility: public"), "broke.yaml")
    g = _play(broke, [])
    assert not any(line.strip() in ("Revealed:", "Revealed: ") for line in g.narrative), g.narrative


BIDS = HEADER + """
    cards:
      - {id: a, name: Ace, attributes: {seat: 0}}
      - {id: b, name: Bee, attributes: {seat: 0}}
      - {id: c, name: Cat, attributes: {seat: 1}}
      - {id: d, name: Dog, attributes: {seat: 2}}
    zones:
      deck: {visibility: hidden, initial: all}
      hand: {per: player, visibility: owner}
      bids: {visibility: open}
    start: game
    sequences:
      game:
        kind: game
        steps:
          - for_each: p
            in: players
            do: ["move [c for c in deck if c.seat == p.seat] to p.hand"]
          - choose: {player: "players[0]", kind: subset, min: 1, options: "cards(players[0].hand)",
                     prompt: "Bid cards", as: bid}
          - "move bid to bids"
          - choose: {player: "players[1]", kind: one, options: "cards(players[1].hand)", prompt: "Keep a card",
                     as: kept}
          - choose: {player: "players[2]", kind: one, options: "cards(players[2].hand)", prompt: "Lay a card",
                     as: laid}
          - call: lay
            with: {card: laid}
      lay:
        params: [card]
        steps:
          - "move card to bids"
    scoring:
      score: "count(p.hand)"
"""


def test_cards_bid_onto_an_open_pile_are_an_open_choice(tmp_path):
    rs = _load(tmp_path, BIDS)
    g = _play(rs, [[0, 1]])
    assert "P1: Bid cards -> Ace, Bee" in _read(g, 1)  # laid face up at once: everyone reads which
    assert "P2: Keep a card (chosen in secret)" in _read(g, 0)  # kept in the hand: still the decider's own
    assert "P3: Lay a card -> Dog (the only choice)" in _read(g, 2)  # laid face up by the sequence it is given to
    assert "P3: Lay a card -> Dog" in _read(g, 0)


def test_points_now_are_shown_only_where_the_score_reads_nothing_hidden(tmp_path):
    from rulecraft.tools.table.scores import points_seen

    rs = _load(tmp_path, FORCED)
    # the score reads the player's own hand: their own seat sees it, no other seat does, whatever the cards are
    assert [score_seen(rs, 0, q) for q in range(3)] == [True, False, False]
    g = Game(rs, 3, 1)
    assert set(points_seen(g, 0)) == {0} and set(points_seen(g, 2)) == {2}
    public = _load(tmp_path, FORCED.replace("sum([c.worth for c in p.hand])", "count(p.hand) + 1"), "public.yaml")
    assert all(score_seen(public, s, q) for s in range(3) for q in range(3))  # how many cards: seen by all
    hidden = _load(tmp_path, FORCED.replace("sum([c.worth for c in p.hand])", "count([c for c in deck if c is gem])"),
                   "deck.yaml")
    assert not any(score_seen(hidden, s, q) for s in range(3) for q in range(3))  # the deck's cards: by nobody
    assert sight_of(hidden, hidden.scoring.score, 0) == (False, ("the cards of 'deck' (hidden)",))  # and why
    assert sight_of(rs, rs.scoring.score, 1, {"p": 1}) == (True, ())


def test_a_view_value_worked_out_from_hidden_cards_is_not_shown(tmp_path):
    from rulecraft.tools.table.seatview import seat_view

    view = """
    view:
      values:
        - {title: Gems in the deck, value: "count([c for c in deck if c is gem])"}
        - {title: Cards in the deck, value: "count(deck)"}
    """
    rs = _load(tmp_path, FORCED + view, "view.yaml")
    g = Game(rs, 3, 1)
    titles = [row.title for row in seat_view(g, 0).now]
    assert titles == ["Cards in the deck"]  # how many cards: everyone's; which: nobody's


def test_options_kept_under_a_local_name_are_judged_by_what_the_name_was_given(tmp_path):
    """`let gems = [...p.hand...]` then `options: gems`: the name carries where its value came from."""
    old = '- choose: {player: p, kind: one, options: "[c for c in p.hand if c is gem]", optional: true,'
    new = '- "let gems = [c for c in p.hand if c is gem]"\n              - choose: {player: p, kind: one, ' \
          'options: "gems", optional: true,'
    text = FORCED.replace(old, new)
    assert text != FORCED
    g = _play(_load(tmp_path, text), [])
    assert "P3: Show a gem -> pass (the only choice)" in _read(g, 2)
    assert "P3: Show a gem (chosen in secret)" in _read(g, 0)


def test_reading_functions_that_call_each_other_many_times_is_bounded(tmp_path):
    """Forty functions each calling the next twice: read once per function, not 2**40 times."""
    funcs = "\n".join(f'      f{i}: {{params: [p], value: "f{i + 1}(p) + f{i + 1}(p)"}}' for i in range(40))
    text = FORCED.replace('      score: "sum([c.worth for c in p.hand])"', '      score: "f0(p)"') + \
        "    functions:\n" + funcs + '\n      f40: {params: [p], value: "count(p.hand)"}\n'
    rs = _load(tmp_path, text, "chain.yaml")
    assert all(score_seen(rs, s, q) for s in range(3) for q in range(3))  # how many cards: everyone sees


MAY_BID = HEADER + """
    cards:
      - {id: key1, name: Key, classes: [key], attributes: {seat: 0}}
      - {id: key2, name: Key, classes: [key], attributes: {seat: 2}}
      - {id: rock, name: Rock, classes: [rock], attributes: {seat: 1}}
      - {id: lamp, name: Lamp, classes: [lot], attributes: {seat: 9}}
    zones:
      deck: {visibility: hidden, initial: all}
      hand: {per: player, visibility: owner}
      lots: {visibility: open}
      won: {per: player, visibility: open}
    player_variables:
      coins: {initial: 4}
    start: game
    sequences:
      game:
        kind: game
        steps:
          - for_each: p
            in: players
            do: ["move [c for c in deck if c.seat == p.seat] to p.hand"]
          - "move deck to lots"
          - auction:
              form: FORM
              from: "players[0]"
              may_bid: "count([c for c in bidder.hand if c is key]) > 0"
              limit: "bidder.coins"
              prompt: "Bid for the lamp"
              on_end:
                - if: "auction.winner != none"
                  then: ["auction.winner.coins -= auction.price", "move lots to auction.winner.won"]
    scoring:
      score: "count(p.won)"
"""


def test_an_auction_whose_may_bid_reads_a_hidden_hand_asks_every_bidder(tmp_path):
    """P2 holds no key, so may not bid: they are asked all the same, the pass their only answer, and the others
    read it as any pass; nobody is said to be left out."""
    for form in ("open", "once_around"):
        rs = _load(tmp_path, MAY_BID.replace("FORM", form), f"{form}.yaml")
        g = _play(rs, [0])  # P1 passes: P3 (a key) may still bid
        for seat in (0, 2):
            mine = _read(g, seat)
            assert "P2: Bid for the lamp -> pass" in mine, (form, mine)
            assert not any("may not bid" in line for line in mine), (form, mine)
        assert "P2: Bid for the lamp -> pass (the only choice)" in _read(g, 1)
        assert g.decisions == 2, form  # P2's pass is forced: only P1 and P3 chose, as before
    rs = _load(tmp_path, MAY_BID.replace("FORM", "sealed"), "sealed.yaml")
    g = _play(rs, [])
    assert [line for line in g.narrative if line.startswith("Revealed:")] == ["Revealed: P1: pass, P2: pass, P3: pass"]
    # with who may bid seen by all (money, not cards), the one left out is still said to be
    public = _load(tmp_path, MAY_BID.replace("FORM", "open").replace(
        "count([c for c in bidder.hand if c is key]) > 0", "bidder != players[1]"), "public.yaml")
    assert "Out of this auction (may not bid): P2" in _play(public, []).narrative


SEALED_IN = HEADER + """
    cards:
      - {id: key1, name: Key, classes: [key], attributes: {seat: 0}}
      - {id: key2, name: Key, classes: [key], attributes: {seat: 2}}
      - {id: rock, name: Rock, classes: [rock], attributes: {seat: 1}}
    zones:
      deck: {visibility: hidden, initial: all}
      hand: {per: player, visibility: owner}
    start: game
    sequences:
      game:
        kind: game
        steps:
          - for_each: p
            in: players
            do: ["move [c for c in deck if c.seat == p.seat] to p.hand"]
          - sealed:
              each: p
              in: "[q for q in players if count([c for c in q.hand if c is key]) > 0]"
              choose: {kind: subset, options: "[c for c in p.hand if c is key]", prompt: "Lay keys"}
              as: laid
          - sealed:
              each: p
              in: "[q for q in players if count([c for c in q.hand if c is key]) > 0]"
              choose: {kind: yesno, prompt: "Knock?"}
              as: knocks
    scoring:
      score: "count(p.hand)"
"""


def test_a_sealed_step_whose_in_reads_a_hidden_hand_asks_everyone(tmp_path):
    """P2 holds no key: the sealed steps ask P2 too (their decline the only answer) and reveal it with the rest;
    before the reveal the others read that P2 has answered, as of every bidder, and never that it was forced; P2
    reads its forced answer (a table asks it of P2 as any answer: tests/test_secrecy_seats.py), each bidder their
    own (session 18: a bidder read nothing of their own bid until the reveal)."""
    rs = _load(tmp_path, SEALED_IN)
    g = _play(rs, [])
    lays = ["P1: Lay keys -> nothing", "P2: Lay keys -> nothing (the only choice)", "P3: Lay keys -> nothing"]
    knocks = ["P1: Knock? -> yes", "P2: Knock? -> no (the only choice)", "P3: Knock? -> yes"]
    for seat in range(3):
        mine = _read(g, seat)
        told = [[line if i == seat else f"P{i + 1} has answered" for i, line in enumerate(said)] for said in (lays, knocks)]
        assert [line for line in mine if not line.startswith(("Scores", "Winner"))] == [
            *told[0], "Revealed: P1: nothing, P2: nothing, P3: nothing", *told[1],
            "Revealed: P1: yes, P2: no, P3: yes"], (seat, mine)
    assert g.decisions == 4  # P2's declines are forced: P1 and P3 chose twice each, as before


PROMPTS = HEADER + """
    cards:
      - {id: key1, name: Key, classes: [key], attributes: {seat: 0}}
      - {id: key2, name: Key, classes: [key], attributes: {seat: 0}}
      - {id: rock, name: Rock, classes: [rock], attributes: {seat: 1}}
    zones:
      deck: {visibility: hidden, initial: all}
      hand: {per: player, visibility: owner}
    start: game
    sequences:
      game:
        kind: game
        steps:
          - for_each: p
            in: players
            do: ["move [c for c in deck if c.seat == p.seat] to p.hand"]
          - for_each: p
            in: players
            do:
              - choose: {player: p, kind: yesno, prompt: "{p}, with {count([c for c in p.hand if c is key])} keys: knock?"}
              - choose: {player: p, kind: one, options: "['a', 'b']", prompt: "Pick",
                         display: "'{option} (keys: {count([c for c in p.hand if c is key])})'"}
    scoring:
      score: "count(p.hand)"
"""


def test_a_prompt_or_display_name_that_reads_a_hidden_hand_is_not_shown_to_the_others(tmp_path):
    """The decider reads the prompt and the option's name in full; the others read the prompt with the field that
    reads the hand left out, and the option by its own name."""
    rs = _load(tmp_path, PROMPTS)
    g = _play(rs, [])
    assert _read(g, 0)[:2] == ["P1: P1, with 2 keys: knock? -> yes", "P1: Pick -> a (keys: 2)"]
    for seat in (1, 2):
        assert _read(g, seat)[:2] == ["P1: P1, with … keys: knock? -> yes", "P1: Pick -> a"], seat


SKIPPED = HEADER + """
    cards:
      - {id: gold1, name: Gold, classes: [treasure], attributes: {seat: 0}}
      - {id: gold2, name: Gold, classes: [treasure], attributes: {seat: 2}}
      - {id: rock, name: Rock, classes: [rock], attributes: {seat: 1}}
    zones:
      deck: {visibility: hidden, initial: all}
      hand: {per: player, visibility: owner}
      play: {per: player, visibility: open}
    start: game
    sequences:
      game:
        kind: game
        steps:
          - for_each: p
            in: players
            do: ["move [c for c in deck if c.seat == p.seat] to p.hand"]
          - for_each: p
            in: players
            do:
              - if: "count([c for c in p.hand if c is treasure]) > 0"
                then:
                  - choose: {player: p, kind: subset, options: "[c for c in p.hand if c is treasure]",
                             prompt: "Play Treasures", as: played}
                  - "move played to p.play"
              - if: "count([c for c in p.hand if c is rock]) > 0"
                then:
                  - choose: {player: p, kind: yesno, prompt: "Throw a rock?"}
    scoring:
      score: "count(p.play)"
"""


def test_a_decision_an_if_skips_for_a_hidden_reason_reads_as_a_decline(tmp_path):
    """P2 holds no Treasure, P1 and P3 no rock: the `if` that would skip their decision has them decline at once
    instead, so the others read the same line as from one who could play and did not."""
    rs = _load(tmp_path, SKIPPED)
    g = _play(rs, [[], False, []])  # P1 plays no Treasure, P2 throws no rock, P3 plays no Treasure
    for seat in range(3):  # (a rock is thrown only for a hidden reason: whether, the others read in secret)
        rock = ["P1: Throw a rock? (chosen in secret)", "P2: Throw a rock? (chosen in secret)",
                "P3: Throw a rock? (chosen in secret)"]
        rock[seat] = f"P{seat + 1}: Throw a rock? -> no"
        mine = [line.split(" (the only")[0] for line in _read(g, seat)]
        assert mine[:6] == ["P1: Play Treasures -> nothing", rock[0], "P2: Play Treasures -> nothing", rock[1],
                            "P3: Play Treasures -> nothing", rock[2]], (seat, mine)
    assert "P2: Play Treasures -> nothing (the only choice)" in _read(g, 1)
    assert "P2: Play Treasures -> nothing" in _read(g, 0)
    assert g.decisions == 3  # the declines are forced: the game asks what it asked before
