"""The seat view (tools.table.seatview): one seat's view of a game as data and as JSON, holding nothing another
seat hides; what the terminal draws from it (turn order, empty piles, roll targets, card types); private
notices; 'pass until something changes'."""

from __future__ import annotations

import io
import json
from pathlib import Path

from cli_fork import run_cli
from rulecraft.agents.base import RandomAgent
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.tools.table.notices import Notices
from rulecraft.tools.table.passing import PassUntil, about
from rulecraft.tools.table.seatview import PROTOCOL, seat_view
from rulecraft.tools.table.session import person
from rulecraft.tools.table.view import render_plain
from rulecraft.values import ZoneRef

HERE = Path(__file__).parent


def strings(value) -> list[str]:
    """Every text in a JSON value, keys too, and each part of a text that lists names ('a, b; c')."""
    out: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            out.append(str(k))
            out += strings(v)
    elif isinstance(value, list):
        for v in value:
            out += strings(v)
    elif isinstance(value, str):
        out.append(value)
        out += [part.strip() for chunk in value.split(";") for part in chunk.replace(" and ", ", ").split(",")]
    return out


def hidden_from(game, seat: int) -> list:
    """The cards whose faces `seat` cannot see now, by the zones' declared visibility (not the model's code):
    every card of a hidden or counted pile, of another player's own zone, all but the top of a 'top' pile."""
    out = []
    for ref, cards in game.zones.items():
        vis = game.rs.zones[ref.zone].visibility
        if vis == "open" or vis == "owner" and ref.key == seat:
            continue
        out += cards[:-1] if vis == "top" else cards
    return out


def test_hearts_json_holds_no_other_hand():
    rs = load_ruleset("hearts").ruleset
    game = Game(rs, 4, 7)
    bots = [RandomAgent(s, 7) for s in range(4)]
    checked = hidden = 0
    while not game.over and game.decisions < 30:
        d = game.pending
        for seat in range(4):
            data = seat_view(game, seat, d).to_json()
            assert json.loads(json.dumps(data)) == data and data["protocol"] == PROTOCOL  # plain JSON
            texts = set(strings(data))
            for card in hidden_from(game, seat):
                hidden += 1
                assert card.id not in texts and card.name not in texts, (seat, card, game.decisions)
            mine = [c.name for ref, cards in game.zones.items() if ref.zone == "hand" and ref.key == seat
                    for c in cards]
            assert all(name in texts for name in mine)  # their own hand, by name
            assert (data["decision"] is not None) == (d.player == seat)  # only the seat asked gets the question
            checked += 1
        game.apply(bots[d.player].choose(d, game.view(d.player)))
    assert checked >= 120 and hidden > 30 * checked  # about three other hands of cards at every look
    # the cards carry their type and the ruleset's own words for them
    hand = seat_view(game, 0).players[0].rows[0]
    assert hand.cards and hand.cards[0].types == ["Playing card"] and "queen of spades 13" in hand.cards[0].text


def _sealed_game(p2_bid: int):
    """A sealed auction where P1 and P2 have bid (P2 `p2_bid`, as an option number) and P3 is asked."""
    game = Game(load_ruleset("sealed-auction").ruleset, 3, 2)
    assert game.pending.purpose == "sealed" and game.pending.player == 0
    game.apply(3)
    assert game.pending.player == 1
    game.apply(p2_bid)
    assert game.pending.player == 2
    return game


def test_a_sealed_bid_changes_nothing_the_others_see():
    """Two games that differ only in P2's secret bid look the same to P1 and to P3, decision and all."""
    low, high = _sealed_game(1), _sealed_game(6)
    for seat in (0, 2):
        a = seat_view(low, seat, low.pending).to_json()
        b = seat_view(high, seat, high.pending).to_json()
        assert a == b
    asked = seat_view(low, 2, low.pending).decision
    assert asked.kind == "amount" and asked.min == 1 and asked.max == 12 and asked.passable and asked.secret


_DML: dict = {}


def dml_moments() -> dict:
    """One game of dml (seed 3, random bots), kept at two moments: P1's re-roll of a roll with a target
    ('reroll'), and a question to play onto a stack that holds a card ('stack'): (game, decision) each."""
    if not _DML:
        game = Game(load_ruleset("dml").ruleset, 4, 3)
        bots = [RandomAgent(s, 3) for s in range(4)]
        while not game.over and len(_DML) < 2:
            d = game.pending
            moment = ("reroll" if d.player == 0 and d.purpose == "reroll" and d.target is not None else
                      "stack" if d.purpose == "stack" and game.zones[ZoneRef("power_stack")] else None)
            if moment and moment not in _DML:
                _ = d.prompt, d.secret  # worked out now, while the game is as it was asked
                _DML[moment] = (game.copy(), d)
            game.apply(bots[d.player].choose(d, game.view(d.player)))
    assert len(_DML) == 2
    return _DML


def test_the_terminal_shows_turn_order_empty_piles_and_the_roll_target():
    game, d = dml_moments()["reroll"]
    view = seat_view(game, 0, d)
    text = "\n".join(render_plain(view))
    order = ", ".join(game.players[s].name + (" (now)" if s == view.turn.now else "") for s in view.turn.order)
    assert f"Turn order (Action Phase): {order}" in text and "(now)" in order
    assert "Holder of the Initiative Badge: " in text
    empty = [z for z in view.table if getattr(z, "count", None) == 0]
    assert empty and all(f"  {z.title}: empty" in text for z in empty)  # an empty pile is shown, as empty
    assert all(z.cards == [] for z in empty if z.zone != "black_markets" and not z.zone.startswith("black_markets"))
    faces = game.frames[-1].locals["__roll"]
    assert f"Your roll: {faces[0]}+{faces[1]}={sum(faces)}" in text and f"it is made against {d.target}" in text
    assert view.to_json()["decision"]["roll"]["target"] == d.target


def test_card_options_are_cards_with_their_types():
    game, d = dml_moments()["stack"]
    view = seat_view(game, d.player, d)
    cards = [o for o in view.decision.options if o.kind == "card"]
    assert cards and all(o.card.types for o in cards)
    assert view.stack is not None and view.stack.title == "Character Power Stack"
    powers = [o.card for o in cards if o.card.text]  # an aid's power entry is the card's rules text
    assert all(c.name in ("Red Joker", "Black Joker") or c.text for c in powers)
    text = "\n".join(render_plain(view))
    on = ", ".join(f"{c.name} ({', '.join(c.types)})" for c in view.stack.cards)
    assert f"{cards[0].label} ({', '.join(cards[0].card.types)})" in text
    told = [o for o in cards if o.card.text]  # the menu says what each card does (format.md, "Cards": `doc:`)
    assert told and all(f"{o.label} ({', '.join(o.card.types)}) – {o.card.text}" in text for o in told)
    assert f"Character Power Stack: {on} (top last)" in text and view.stack.cards



def test_a_type_that_only_repeats_the_card_name_is_left_out():
    """Whisper Pass's stones are of the class 'stone': the menu said 'Stone (Stone)', a type that tells nothing."""
    from rulecraft.tools.table.view import card_view

    rs = load_ruleset(str(HERE / "cases" / "games" / "whisper-pass.yaml")).ruleset
    game = Game(rs, 2, 3)
    stone = next(c for c in rs.cards if c.name == "Stone")
    gem = next(c for c in rs.cards if c.name.startswith("Gem"))
    assert card_view(game, stone).types == []
    assert card_view(game, gem).types == ["Gem"]  # 'Gem 6 (Gem)': the kind is not the name, so it stays

NOTICES = """
ruleset: notice-test
title: Notices
players: {min: 2, max: 2, default: 2}
cards:
  - for: {n: [1, 2, 3, 4, 5, 6]}
    id: "gem{n}"
    name: "Gem {n}"
    doc: "A gem worth {n}."
zones:
  pile: {visibility: hidden, initial: all, title: Pile}
  hand: {per: player, visibility: owner, title: Hand}
  shelf: {per: player, visibility: open, title: Shelf}
  bag: {per: player, visibility: owner_contents, title: Bag}
start: game
sequences:
  game:
    kind: game
    steps:
      - choose: {player: "players[0]", kind: yesno, prompt: "Done?"}
"""


def test_notices_say_what_a_seat_gained_or_lost_and_no_more(tmp_path):
    path = tmp_path / "notices.yaml"
    path.write_text(NOTICES)
    rs = load_ruleset(str(path)).ruleset
    game = Game(rs, 2, 1)
    gem = {c.id: c for c in rs.cards}
    span = rs.span
    p1_hand, p1_shelf, p2_hand, p2_shelf = (ZoneRef(z, s) for s in (0, 1) for z in ("hand", "shelf"))
    game.move([gem["gem1"], gem["gem2"]], p1_hand, "top", span)
    game.move(gem["gem3"], p2_shelf, "top", span)
    game.move(gem["gem4"], p2_hand, "top", span)
    news = Notices()
    assert news.since(game, 0) == []  # the first look: nothing to compare with
    game.move(gem["gem1"], p2_shelf, "top", span)  # to another player, face up
    game.move(gem["gem2"], p2_hand, "top", span)  # to another player's hidden hand: where, not this seat's to know
    game.move(gem["gem3"], p1_shelf, "top", span)  # from P2's shelf, where P1 saw it
    game.move(gem["gem4"], p1_hand, "top", span)  # from P2's hidden hand: P1 never saw it there
    said = news.since(game, 0)
    assert said == ["Your Gem 1 went to P2's Shelf.", "Your Gem 2 left your Hand.", "You got Gem 3 from P2's Shelf."]
    assert news.since(game, 0) == []  # told once
    game.move(gem["gem3"], ZoneRef("bag", 0), "top", span)  # face down into P1's own bag, whose contents P1 knows
    assert news.since(game, 0) == ["Your Gem 3 went to your Bag."]  # (said 'left your Shelf': went where?)
    view = seat_view(game, 0, game.pending, said)
    assert view.to_json()["notices"] == said and "Since you last looked:" in render_plain(view)


def test_pass_until_something_changes_in_stack_duel():
    """A standing pass answers the same question while its options and its stack stay as they were."""
    rs = load_ruleset("stack-duel").ruleset
    passed = asked = 0
    for seed in range(3):
        game = Game(rs, 2, seed)
        bot = RandomAgent(1, seed)
        table = PassUntil()
        while not game.over and game.decisions < 400:
            d = game.pending
            if d.player == 0:
                kept = table.standing.get(0)
                got = table.answer(game, d)
                if got is not None:  # passed by the table: the same question, nothing in it changed
                    assert kept is not None and kept == (d.node, about(game, d)) and got == ([],)
                    passed += 1
                    game.apply(got[0])
                    continue
                if kept is not None and kept[0] == d.node:  # asked again: something in it changed
                    assert about(game, d) != kept[1]
                asked += 1
                game.apply(table.word(game, d, "pass until")[0])
                continue
            game.apply(bot.choose(d, game.view(d.player)))
    assert passed > 0 and asked > 0


def test_pass_until_at_the_table():
    """A person types 'pass until' once; the table passes for them and says so, and help names the words."""
    proc = run_cli(["play", "stack-duel", "--agent", "human", "--agent", "random", "--seed", "1", "--set", "max_rounds=6"],
                   input=b"?\npass until\n" + b"pass until\n" * 40, timeout=120, text=False)  # forked: tests/cli_fork.py
    text = proc.stdout.decode()
    assert proc.returncode == 0, proc.stderr.decode()
    assert "pass until (pass this question until something in it changes)" in text
    assert "The table passed for you" in text
    assert text.count("--- P1, your decision ---") < text.count("P1: Cast a spell")  # fewer asks than answers


def test_looking_never_changes_the_game():
    """A game whose every seat is shown its view at every decision (pass until asked too) is the same game, state
    for state, as one nobody looks at."""
    from rulecraft.runtime.state_io import state_hash

    rs = load_ruleset("stack-duel", overrides={"max_rounds": "6"}).ruleset
    seen, unseen = Game(rs, 3, 5), Game(rs, 3, 5)
    bots = [RandomAgent(s, 5) for s in range(3)]
    table = PassUntil()
    while not seen.over:
        d = seen.pending
        for seat in range(3):
            seat_view(seen, seat, d).to_json()
        table.answer(seen, d)
        wire = bots[d.player].choose(d, seen.view(d.player))
        seen.apply(wire)
        unseen.apply(wire)
        assert state_hash(seen) == state_hash(unseen)
    assert unseen.over and seen.decisions == unseen.decisions > 10


LABELLED_BID = """
ruleset: case-labelled-bid
title: A labelled auction without prompt
players: {min: 2, max: 2, default: 2}
player_variables: {coins: 3}
start: game
sequences:
  game:
    kind: game
    steps:
      - id: sell
        label: Bid for the lamp, or pass
        auction: {form: open, limit: "bidder.coins", as: sale}
scoring:
  score: "p.coins"
"""


def test_a_question_without_prompt_says_what_is_asked(tmp_path):
    # an auction's bids have no prompt: the heading is the bid and its amounts, not a bare 'Choose'
    rs = load_ruleset(str(HERE / "cases/constructs/auction_last_takes/ruleset.yaml")).ruleset
    game = Game(rs, 3, 1)
    for answer in (0, 0):  # the first auction (with its prompt): P1 and P2 pass, P3 takes it unasked
        assert seat_view(game, game.pending.player, game.pending).decision.prompt.startswith("Bid (top")
        game.apply(answer)
    d = game.pending
    assert d.prompt == "" and seat_view(game, d.player, d).decision.prompt == "Bid 1 to 4, or pass"
    assert "Bid 1 to 4, or pass" in render_plain(seat_view(game, d.player, d))
    # a person with no table at hand (`person(seat)`, drawn plainly from the view) is told the same
    out = io.StringIO()
    person(d.player, out, io.BytesIO(b"1\n")).choose(d, game.view(d.player), game)
    assert "Bid 1 to 4, or pass" in out.getvalue() and "\nChoose\n" not in out.getvalue()
    # one the designer labelled says its label
    path = tmp_path / "bid.yaml"
    path.write_text(LABELLED_BID)
    game = Game(load_ruleset(str(path)).ruleset, 2, 1)
    assert seat_view(game, game.pending.player, game.pending).decision.prompt == "Bid for the lamp, or pass"


def test_a_narrow_terminal_shows_each_player_as_a_block_not_a_squeezed_table():
    """At 50 columns the players' table of a game with many piles squeezed each column to two letters ('Pr', 'iz',
    'es' down the screen; the name cut to 'P…'): too narrow for its columns, it shows one block per player, each
    pile and value on its own line; wide enough, it stays a table."""
    from rich.console import Console

    from rulecraft.tools.table.view import render_rich

    game = Game(load_ruleset(str(Path(__file__).parent / "cases" / "games" / "last-bid.yaml")).ruleset, seed=3,
                players=4)
    view = seat_view(game, 0, game.pending)

    def shown(width: int) -> str:
        con = Console(width=width, record=True, file=io.StringIO(), color_system=None)
        con.print(render_rich(view, width))
        return con.export_text()

    narrow = shown(50)
    assert "P1 (you)" in narrow and "Prizes won" in narrow and "Discard pile" in narrow, narrow
    assert max(len(line) for line in narrow.splitlines()) <= 50
    wide = shown(160)
    assert any("Player" in line and "Prizes won" in line for line in wide.splitlines()), wide


def test_a_holder_the_table_shows_is_said_once():
    """'Opening bidder: P1' twice on each screen of curio-market's auction, above the table and in it: a public
    value naming a player, shown among the table's values, is not said again above it."""
    rs = load_ruleset(str(HERE / "cases" / "games" / "curio-market.yaml")).ruleset
    game = Game(rs, 4, 2)
    d = game.pending
    lines = render_plain(seat_view(game, d.player, d))
    assert sum(1 for x in lines if x.strip() == "Opening bidder: P1") == 1, lines
