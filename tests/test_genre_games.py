"""Eleven games written from docs/format.md and docs/language.md alone, two of each kind; the first three, one of each kind the language must say without
a loop of the designer's own (tests/cases/games/): an auction game of several lots a round sold by a falling price
with one purse for the game (tide-clock: `auction: {form: descending}`), a last-player-standing game with players put
out in the middle of a round and passed over afterwards (ember-ring: `turns:`, `players_in()`), and a deck-builder with
a market row refilled from a supply deck, buying and trashing one card at a time and a draw pile made again from the
discard pile (lantern-guild: `repeat_choice:`, `refill:`).

The next three push where those did not (s15): an auction hall where the auctioneer passes round the table and each
lot is sold by its own rule — open with final passes, sealed at the second price, a pair with a reserve, a bribe that
every bidder pays (gavel-hall: `seller:`, `paid_to: seller`, `price: second`, `all_pay: true`); two teams with hit
points, players knocked out in another's turn or their own and their hand taken by whoever struck, the last team
standing winning (banner-fall: `turns:` with `until:`, `attack:` with `filter:`); a deck-builder with chained actions,
a card played twice, attacks that give junk or hit only those holding many cards, and a card that reveals until it
finds two treasures, the deck made again on the way (cinder-guild: `draw_until:`, `attack:` with `filter:`,
`turns:` with `until_round:`); and an auction game of elimination played in rounds, a spring sold once around each
round, the players who cannot drink put out and their springs given to the one with most water (dry-well: `rounds:`).

The last four (s16) are shapes none of those has: a bag-builder where each player draws tokens from their bag until
they stop or their kettle boils over (kettle-brew: `draw_until:` with `chooser:`); a market row whose lots are put up
one at a time by the players in turn, the one who puts a lot up opening the bidding, buyers done for the round
(mill-row: `auction:` with `must_open:`, `turns:` with players out until the end of the round); a game of lives where
a player out has their hand shuffled back into the deck and an Overload makes the next player take two turns
(fuse-box: `turns:` with `again:`); and an auction game in two halves, deeds bought in open auctions where each player
who drops out takes the cheapest deed and pays half their bid, then sold all at once by sealed plays, the best deed
taking the biggest cheque (deed-day: `on_drop:`, `last_takes:`, `sealed:` and `sorted(..., by:)`).

Each is played by random bots on both engines, which must tell the same game; then what each game is about is
checked in its story and its end: the price falls, nobody out plays again, a buy never exceeds the buys.
(tests/test_engines.py plays them too, with every other test game.)
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from conftest import play_seeded
from designer_cases import GAMES, both_engines, yaml_keys

from rulecraft.loader import load_ruleset
from rulecraft.values import ZoneRef

NAMES = ("tide-clock", "ember-ring", "lantern-guild", "gavel-hall", "banner-fall", "cinder-guild", "dry-well",
         "kettle-brew", "mill-row", "fuse-box", "deed-day")
LOOP_KEYS = {"while", "loop", "repeat"}


def _games(name: str, seeds=range(2), players: int = 3) -> list:
    return both_engines(name, seeds, players)


@pytest.mark.parametrize("name", NAMES)
def test_the_game_has_no_loop_of_its_own(name):
    """No while, loop, repeat or break: the constructs say what those games used to write by hand."""
    text = (GAMES / f"{name}.yaml").read_text(encoding="utf-8")
    assert not yaml_keys(yaml.safe_load(text)) & LOOP_KEYS
    assert not re.search(r"\bbreak\b", text)


def test_tide_clock_the_price_falls_until_a_merchant_takes_the_cargo():
    for g in _games("tide-clock", players=4):
        asked = [(m.group(1), int(m.group(2))) for m in
                 (re.fullmatch(r"P\d+: Take (.+) for (\d+)\? -> (?:yes|no)", line) for line in g.narrative) if m]
        assert asked
        by_lot: dict = {}
        for lot, price in asked:
            by_lot.setdefault(lot, []).append(price)
        assert all(prices == sorted(prices, reverse=True) for prices in by_lot.values())  # never rises
        assert any(len(set(prices)) > 1 for prices in by_lot.values())  # some cargo fell in price
        assert all(v >= 0 for v in (g.pvars[s]["coins"] for s in range(4)))
        bought = sum(1 for line in g.narrative if re.fullmatch(r"P\d+ buys it for \d+", line))
        assert bought + len(g.zones[ZoneRef("sunk")]) == 12  # every cargo is bought or sinks (3 a round, 4 rounds)


def test_ember_ring_a_player_out_is_passed_over_and_the_last_in_wins():
    outs = 0
    for g in _games("ember-ring", seeds=range(3), players=4):
        story = g.narrative
        for i, line in enumerate(story):
            m = re.fullmatch(r"(P\d+) is out", line)
            if m:
                outs += 1
                assert not any(later.startswith(f"{m.group(1)}: ") for later in story[i + 1:])  # never asked again
        in_at_end = [s for s in range(4) if story.count(f"P{s + 1} is out") == 0]
        assert g.winners and set(g.winners) <= set(in_at_end)  # only a player still in wins
    assert outs >= 3  # players went out, in the middle of rounds


def test_lantern_guild_buys_trashes_and_reshuffles():
    for g in _games("lantern-guild"):
        story = g.narrative
        assert any("shuffles their discard pile to make a new draw pile" in line for line in story)
        assert any(re.fullmatch(r"P\d+: Trash a card\? -> (?!pass).+", line) for line in story)
        assert any(re.fullmatch(r"P\d+: Buy a card\? \(\d+ coins\) -> (?!pass).+", line) for line in story)
        row, supply = len(g.zones[ZoneRef("row")]), len(g.zones[ZoneRef("supply")])
        assert row == 5 or supply == 0  # the row is refilled to its size while the supply deck lasts


def test_gavel_hall_each_lot_is_sold_by_its_rule():
    """Sealed lots: a bribe is paid by every bidder at their bid (its winner at the top bid), a Vickrey lot's winner
    pays the second-highest bid; nobody goes below 0 coins, and every lot is won or discarded."""
    second_price = bribes = 0
    for g in _games("gavel-hall", players=4):
        story = g.narrative
        for i, line in enumerate(story[:-1]):
            won = re.fullmatch(r"P\d+ wins the auction for (\d+)(?:, paid to (?:P\d+|the bank))?", story[i + 1])
            if not line.startswith("Revealed: ") or won is None:
                continue
            bids = sorted((int(b) for b in re.findall(r"P\d+: (\d+)", line)), reverse=True) + [0]
            price = int(won.group(1))
            paid = []  # the lines right after the result that say who else pays
            for later in story[i + 2:]:
                m = re.fullmatch(r"P\d+ pays their bid of (\d+)(?: to (?:P\d+|the bank))? too", later)
                if m is None:
                    break
                paid.append(int(m.group(1)))
            assert price in (bids[0], bids[1])
            if paid:  # a bribe: the winner paid the top bid, every other bidder their own
                bribes += 1
                assert price == bids[0] and sorted(paid, reverse=True) == [b for b in bids[1:] if b]
            second_price += price < bids[0]
        assert all(g.pvars[s]["coins"] >= 0 for s in range(4))
        assert sum(len(g.zones[ZoneRef("won", s)]) for s in range(4)) + len(g.zones[ZoneRef("gone")]) == 20
    assert second_price and bribes


def test_banner_fall_the_last_team_standing_wins_and_the_fallen_are_passed_over():
    """A fallen player never plays again and their hand went elsewhere, some fall in another player's turn, a Volley
    asks only the enemies, and the winners are one whole team, its fallen too."""
    in_another_turn = 0
    for g in _games("banner-fall", seeds=range(3), players=4):
        story = g.narrative
        turn_of = None
        for i, line in enumerate(story):
            m = re.fullmatch(r"P(\d+): Play a card -> (.+)", line)
            if m:
                turn_of, played = int(m.group(1)) - 1, m.group(2)
            asked = re.fullmatch(r"P(\d+): Show a Parry against the Volley\? -> .+", line)
            if asked:
                assert played == "Volley" and (int(asked.group(1)) - 1) % 2 != turn_of % 2
            m = re.fullmatch(r"P(\d+) falls", line)
            if m:
                seat = int(m.group(1)) - 1
                in_another_turn += seat != turn_of
                assert not any(later.startswith(f"P{seat + 1}: ") for later in story[i + 1:])
                assert len(g.zones[ZoneRef("hand", seat)]) == 0
        teams = {s % 2 for s in g.winners}
        assert len(teams) == 1 and set(g.winners) == {s for s in range(4) if s % 2 in teams}
    assert in_another_turn >= 2


def test_dry_well_a_player_who_runs_dry_is_out_of_every_later_auction():
    """A player who runs dry is never asked to bid again, holds no spring (they went to another player), and only a
    player still in wins; the rounds stop once one player is left."""
    dry = 0
    for g in _games("dry-well", seeds=range(3), players=4):
        story = g.narrative
        for i, line in enumerate(story):
            m = re.fullmatch(r"P(\d+) runs dry", line)
            if m:
                dry += 1
                assert not any(later.startswith(f"P{m.group(1)}: ") for later in story[i + 1:])
                assert len(g.zones[ZoneRef("owned", int(m.group(1)) - 1)]) == 0
        out = {int(m.group(1)) - 1 for line in story for m in [re.fullmatch(r"P(\d+) runs dry", line)] if m}
        assert g.winners and not set(g.winners) & out
    assert dry >= 3


def test_cinder_guild_prospects_until_two_treasures_and_refills_on_the_way():
    """A Prospector leaves nothing revealed: the treasures go to the hand, the rest to the discard pile; the piles and
    the row end as the end rule says; a Rake asks only those holding 5 or more cards."""
    prospected = 0
    for g in _games("cinder-guild", seeds=range(5)):
        story = g.narrative
        prospected += sum(1 for line in story if re.fullmatch(r"P\d+: Play an action card\? .+ -> Prospector", line))
        assert all(len(g.zones[ZoneRef("reveal", s)]) == 0 for s in range(3))
        assert any("shuffles their discard pile to make a new draw pile" in line for line in story)
        empty = sum(1 for k in ("ember", "flame", "blaze", "hearth", "beacon", "ash")
                    if not g.zones[ZoneRef("supply", k)])
        assert empty >= 2 or not g.zones[ZoneRef("supply", "beacon")] or g.vars["round"] > 30 or \
            not (g.zones[ZoneRef("row")] or g.zones[ZoneRef("market")])
    assert prospected


def test_kettle_brew_a_player_draws_until_they_stop_or_the_kettle_boils_over():
    """Nobody is asked to draw again once their kettle holds more ash than the limit; a "no" ends that player's
    drawing for the round (their next question starts a new kettle, at 0 ash); some kettle boils over (random bots
    seldom push so far: seed 4 does once, seeds 0 to 3 never)."""
    boiled = 0
    for g in _games("kettle-brew", seeds=(0, 1, 4)):
        asked = [(m.group(1), int(m.group(2)), m.group(3)) for m in
                 (re.fullmatch(r"(P\d+): Draw another token\? \((\d+) ash of 5\) -> (yes|no)", line)
                  for line in g.narrative) if m]
        assert asked and all(ash <= 5 for _who, ash, _said in asked)
        for (who, _ash, said), (nxt, ash, _) in zip(asked, asked[1:]):
            if said == "no" and nxt == who:
                assert ash == 0
        boiled += sum(1 for line in g.narrative if line.endswith("kettle boils over: no points this round"))
    assert boiled


def test_mill_row_who_puts_a_mill_up_opens_the_bidding():
    """The player who puts a mill up is asked first and bids (no pass), at the mill's price or more."""
    opened = 0
    for g in _games("mill-row", players=4):
        story = g.narrative
        for i, line in enumerate(story):
            m = re.fullmatch(r"(P\d+): Put a mill up for auction\? .* -> Mill (\d+)", line)
            if m:
                bid = re.fullmatch(rf"{m.group(1)}: Bid for Mill {m.group(2)} \(.*; at least (\d+)\) -> (\d+)( \(the only choice\))?",
                                   story[i + 1])
                assert bid and int(bid.group(2)) >= int(bid.group(1)), story[i + 1]
                opened += 1
    assert opened


def test_fuse_box_a_player_out_is_passed_over_and_the_last_in_wins():
    """A player out of lives is never asked again and ends with no cards; the winner is the one player still in."""
    for g in _games("fuse-box", seeds=range(3), players=4):
        story = g.narrative
        out = [int(m.group(1)) - 1 for line in story for m in [re.fullmatch(r"P(\d+) is out", line)] if m]
        assert len(out) == 3
        for seat in out:
            i = story.index(f"P{seat + 1} is out")
            assert not any(later.startswith(f"P{seat + 1}: ") for later in story[i + 1:])
            assert len(g.zones[ZoneRef("hand", seat)]) == 0
        assert g.winners == [s for s in range(4) if s not in out]


def test_deed_day_each_round_gives_every_player_one_deed_and_then_one_cheque():
    """In each round of the first half every player ends with one deed more (who drops out takes one, the last one
    in takes the last); in the second half every deed is laid, each for one cheque."""
    for g in _games("deed-day", players=4):
        assert all(len(g.zones[ZoneRef("hand", s)]) == 0 and len(g.zones[ZoneRef("bank", s)]) == 5 for s in range(4))
        assert len(g.zones[ZoneRef("gone")]) == 20
        assert all(g.pvars[s]["coins"] >= 0 for s in range(4))


SKELETON = """
ruleset: docs-examples
title: The docs' examples of the new constructs
players: {min: 2, max: 3, default: 3}
parameters:
  last_round: {default: 3, min: 1, max: 9}
  boil_limit: {default: 2, min: 1, max: 9}
  opening_price: {default: 5, min: 1, max: 9}
  row_size: {default: 3, min: 1, max: 5}
card_defaults: {cost: 0, trash: 0, actions: 0, worth: 1, value: 1, ash: 0}
cards:
  - {id: act, name: Act, classes: [action], count: 18, attributes: {cost: 1, actions: 1}}
  - {id: ware, name: Ware, classes: [market, treasure], count: 12, attributes: {cost: 2, worth: 2, trash: 1, value: 2}}
zones:
  supply: {visibility: hidden, initial: all}
  row: {visibility: open}
  block: {visibility: open}
  quay: {visibility: open}
  trash: {visibility: open}
  hand: {per: player, visibility: owner}
  play: {per: player, visibility: open}
  discard: {per: player, visibility: open}
  box: {visibility: hidden}
  bought: {per: player, visibility: open}
  ships: {per: player, visibility: open}
  deck: {per: player, visibility: owner_contents, refill: discard}
  reveal: {per: player, visibility: open}
  bag: {per: player, visibility: owner_contents}
  kettle: {per: player, visibility: open}
variables: {opener: none, round: 0}
player_variables: {coins: 4, buys: 2, actions: 1, owed: 0}
start: game
sequences:
  game:
    kind: game
    steps:
      - "set opener = players[0]; draw 3 from supply to row; draw from supply to block"
      - "draw 2 from supply to quay"
      - for_each: p
        in: players
        do: ["draw 3 from supply to p.hand; move first([c for c in supply if c is action]) to p.hand; draw 2 from supply to p.deck; draw 2 from supply to p.bag"]
      - call: example
        with: {player: "players[0]"}
  example:
    params: [player]
    steps: []
  turn:
    kind: turn
    params: [player]
    steps:
      - choose: {player: player, kind: yesno, prompt: "Stay in?", as: stay}
      - if: "not stay"
        then: ["add modifier out to player until end of game"]
"""


def _doc_examples() -> list:
    """Every YAML example of docs/format.md and docs/language.md that uses a descending auction, a repeated choice or
    players_in(): each a list of steps."""
    out = []
    for doc in ("format.md", "language.md"):
        text = (Path(__file__).parent.parent / "docs" / doc).read_text(encoding="utf-8")
        for block in re.findall(r"```yaml\n(.*?)```", text, re.S):
            if any(word in block for word in ("repeat_choice:", "form: descending", "players_in()", "all_pay: true",
                                              "draw_until:", "must_open: true", "next_player(player).owed")):
                steps = yaml.safe_load(block)
                if isinstance(steps, list):
                    out.append(pytest.param(steps, id=f"{doc}-{len(out)}"))
    return out


@pytest.mark.parametrize("steps", _doc_examples())
def test_the_docs_examples_load_and_play_the_same_on_both_engines(steps, tmp_path):
    data = yaml.safe_load(SKELETON)
    data["sequences"]["example"]["steps"] = steps
    path = tmp_path / "examples.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ok and not [d for d in loaded.diagnostics if d.severity == "error"], \
        [d.message for d in loaded.diagnostics]
    games = [play_seeded(loaded.ruleset, 1, 3, engine=e) for e in ("reference", "compiled")]
    assert games[0].narrative == games[1].narrative and games[0].over
    assert any("->" in line or line.startswith("Revealed") or " reveals " in line  # players were asked, or cards shown
               for line in games[0].narrative)


HIDDEN_FILTER = """
ruleset: attack-filter-hidden
title: An attack whose filter reads a hidden hand
players: {min: 4, max: 4, default: 4}
cards:
  - {id: gem, name: Gem, classes: [gem], count: 2}
  - {id: shield, name: Shield, classes: [reaction], count: 2}
  - {id: coin, name: Coin, count: 4}
zones:
  box: {visibility: hidden, initial: all}
  hand: {per: player, visibility: owner}
  pile: {visibility: open}
start: game
sequences:
  game:
    kind: game
    steps:
      - label: Deal
        do: "move [c for c in box if c is gem] to players[1].hand; move [c for c in box if c is reaction] to players[2].hand; draw 2 from box to players[3].hand"
      - label: Each other player holding a Gem gives one up, unless they reveal a Shield
        attack:
          by: "players[0]"
          filter: "any([c is gem for c in target.hand])"
          reveal: "card is reaction"
          prompt: "Reveal a Shield?"
          do: ["move first([c for c in target.hand if c is gem]) to pile"]
      - "end game"
"""


def test_an_attack_filter_on_a_hidden_hand_asks_everyone_alike(tmp_path):
    """Who holds a Gem is hidden: every other player is asked alike (the story tells nobody who passed the filter),
    and only the Gem holder loses one."""
    path = tmp_path / "hidden.yaml"
    path.write_text(HIDDEN_FILTER, encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    for engine in ("reference", "compiled"):
        g = play_seeded(loaded.ruleset, 1, 4, engine=engine, agents=lambda seat, seed: _Pass(seat))
        asked = [line.split(":")[0] for line in g.narrative if "Reveal a Shield?" in line]
        assert asked == ["P2", "P3", "P4"], g.narrative
        assert [c.id for c in g.zones[ZoneRef("pile")]] == ["gem#1"] and len(g.zones[ZoneRef("hand", 1)]) == 1


class _Pass:
    """A seat that always declines (the first option: the pass)."""

    def __init__(self, seat):
        self.seat = seat

    def choose(self, decision, view):
        return 0


CHAIN = """
ruleset: attack-chain
title: An attack that knocks out a later player
players: {min: 4, max: 4, default: 4}
cards:
  - {id: shield, name: Shield, classes: [reaction], count: 3}
zones:
  box: {visibility: hidden, initial: all}
  hand: {per: player, visibility: owner}
player_variables: {hits: 0}
start: game
sequences:
  game:
    kind: game
    steps:
      - label: Deal a Shield to each other player
        do: "draw from box to players[1].hand; draw from box to players[2].hand; draw from box to players[3].hand"
      - label: Each other player is hit; the first one hit blows up the next player too, who is out
        attack:
          by: "players[0]"
          reveal: "card is reaction"
          prompt: "Reveal a Shield?"
          do: ["target.hits += 1; add modifier out to next_player(target) until end of game"]
      - "log 'hits: {[p.hits for p in players]}, in: {players_in()}'"
      - "end game"
"""


def test_a_player_put_out_during_an_attack_is_not_attacked_when_their_turn_comes(tmp_path):
    """P2 is hit and puts P3 out: P3 is neither asked nor hit; P4 still is (and puts P1 out)."""
    path = tmp_path / "chain.yaml"
    path.write_text(CHAIN, encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    for engine in ("reference", "compiled"):
        g = play_seeded(loaded.ruleset, 1, 4, engine=engine, agents=lambda seat, seed: _Pass(seat))
        assert [line.split(":")[0] for line in g.narrative if "Reveal a Shield?" in line] == ["P2", "P4"], g.narrative
        assert "hits: 0, 1, 0, 1, in: P2, P4" in g.narrative


@pytest.mark.parametrize("case, want", [
    ("auction_all_pay", "every other bidder pays their bid too"),
    ("attack_filter", "Each other player for whom the number of cards in the player attacked's hand is at least 3"),
    ("draw_until", "Draw cards one at a time from the deck to the reveal until"),
    ("turns_until_round", "or until the end of a round when the deck is empty"),
    ("rounds", "Rounds are played until one player is left"),
    ("turns_again", "; a player takes another turn while the player"),
    ("draw_until_stop", "until the first player chooses to stop (asked before every card), or no card is left"),
    ("auction_must_open", "the first bidder must open the bidding (no pass)"),
])
def test_the_new_settings_are_said_in_players_words(case, want):
    """What players read of each new setting, where no label says it (tools/words, detail 'players')."""
    from rulecraft.tools.words.core import Words

    rs = load_ruleset(str(GAMES.parent / "constructs" / case / "ruleset.yaml")).ruleset
    w = Words(rs, detail="players")
    said = [w.step(s, own_label=False) for s in rs.sequences["game"].steps if getattr(s, "construct", None)]
    assert any(want in text for text in said), said


def test_a_zone_family_whose_keys_have_titles_is_read_by_them():
    """`per: {moon: Moonstones, ...}` on a zone family: each zone reads by its key's title at the table and in the
    rules ('Market (Moonstones)'), and the keys stay what the rules write (supply['moon'])."""
    from rulecraft.runtime.story import game_label
    from rulecraft.tools.words.core import Words

    rs = load_ruleset(str(GAMES.parent / "constructs" / "zone_family_titles" / "ruleset.yaml")).ruleset
    g = play_seeded(rs, 1, 2)
    assert game_label(g, ZoneRef("supply", "moon")) == "Market (Moonstones)"
    assert game_label(g, ZoneRef("supply", "ash1")) == "Market (Ash tokens)"
    from rulecraft.dsl.parser import parse_expression, plain_locator

    said = Words(rs, detail="players").expr(parse_expression("supply['ash1']", plain_locator("x")))
    assert "Ash tokens" in said, said
