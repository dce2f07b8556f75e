"""The aid read cold in session 19 (honour-road, quiet-contract, stall-day, quiet-trump): each test is a question a
first-time reader could not answer from the aid, asked of a tiny ruleset written for it, with the words the aid must
now print (read from `aid_view`: no browser, no fonts)."""

from __future__ import annotations

from rulecraft.loader import load_text
from rulecraft.tools.print.aid import aid_view

_HEAD = """
ruleset: tiny
title: Tiny
players: {min: 2, max: 3, default: 2}
"""


def _view(body: str):
    loaded = load_text("tiny.yaml", _HEAD + body)
    assert loaded.ruleset is not None, loaded.diagnostics
    return aid_view(loaded.ruleset)


_SHOP = """
cards:
  - {id: guard, name: Guard, classes: [hero], count: 2, attributes: {cost: 3}, doc: "1 power."}
  - {id: squire, name: Squire, classes: [hero], count: 2, attributes: {cost: 1}, doc: "1 rune."}
  - {id: ogre, name: Ogre, classes: [beast], count: 2, attributes: {cost: 4}, doc: "Worth 2 honour."}
zones:
  row: {visibility: open, initial: all, title: Row}
  mine: {per: player, visibility: open, title: Kept}
player_variables:
  runes: {initial: 5, title: Runes}
  power: {initial: 5, title: Power}
start: game
sequences:
  game:
    kind: game
    steps:
      - "let p = players[0]"
      - label: Take a card from the row
        repeat_choice:
          chooser: p
          options: "row.cards"
          prompt: "Take which?"
          as: got
          do:
            - label: Is it a beast? Beat it with power; else buy it with runes
              if: "got is beast"
              then: ["p.power -= got.cost; move got to p.mine"]
              else: ["p.runes -= got.cost; move got to p.mine"]
      - "end game"
scoring:
  score: "count(p.mine)"
"""


def test_a_price_says_what_it_is_paid_in():
    """'Cost 3': 3 what? The value the buy takes it from names it ('Cost 3 runes', 'Cost 1 rune'); a card class
    a condition pays in another value is paid in that one (honour-road: heroes in runes, monsters in power)."""
    powers = dict(_view(_SHOP).powers)
    assert powers["Guard"] == "Cost 3 runes. 1 power.", powers
    assert powers["Squire"] == "Cost 1 rune. 1 rune.", powers
    assert powers["Ogre"] == "Cost 4 power. Worth 2 honour.", powers


def test_a_choice_says_what_its_labelled_block_does():
    """'Take a card from the row': and then? A choice whose block asks the designer's question says it after its
    label; one whose block only does what its label says (cinder-guild's buy) is not said twice."""
    line = next(x for _d, _t, lines in _view(_SHOP).flow for x in lines if x.startswith("Take a card"))
    assert line.startswith("Take a card from the row: is it a beast? Beat it with power, else buy it with runes"), line
    plain = _SHOP.replace("Is it a beast? Beat it with power; else buy it with runes", "Pay for it")
    line = next(x for _d, _t, lines in _view(plain).flow for x in lines if x.startswith("Take a card"))
    assert line == "Take a card from the row", line


def test_a_designer_s_win_keeps_how_ties_are_broken():
    """stall-day's 'How to win' was the designer's sentence alone: what if two players tie? The tie-break and what
    a tie still left does are said after it, as without it; the score's own rules are explained too."""
    view = _view(_SHOP.replace('score: "count(p.mine)"', 'score: "kept(p)"\n  tie_break: ["p.runes"]')
                 + "functions:\n  kept: {params: [p], value: \"count(p.mine)\", doc: One point a card kept.}\n"
                 + "aid:\n  win: Keep the most cards.\n")
    assert view.win == ["Keep the most cards.", "A tie goes to the player with the most Runes.",
                        "If still tied, the tied players share the win."], view.win
    assert [doc for _name, doc in view.explain] == ["One point a card kept."], view.explain
    said = _view(_SHOP + "aid:\n  win: Keep the most cards; a tie is shared.\n").win
    assert said == ["Keep the most cards; a tie is shared."], said  # (the designer said it)


_SALE = """
cards:
  - {id: lot, name: Lot, count: 3}
zones:
  lots: {visibility: open, initial: all, title: Lots}
  won: {per: player, visibility: open, title: Won}
player_variables:
  coins: {initial: 9, title: Coins}
start: game
sequences:
  game:
    kind: game
    steps:
      - for_each: p
        in: players
        do:
          - label: The others bid for the top lot
            auction:
              form: open
              seller: p
              MAYBID
              limit: "bidder.coins"
              lot: "lots.top"
              to: "sale.winner.won"
              pay: coins
              as: sale
      - "end game"
"""


def test_an_auction_says_whether_its_auctioneer_may_bid():
    """'Can the auctioneer bid?': the engine lets a seller bid unless `may_bid` keeps them out; the aid says which."""
    bidding = dict(_view(_SALE.replace("              MAYBID\n", "")).decisions)["Bidding"]
    assert "The player may bid too." in bidding, bidding
    bidding = dict(_view(_SALE.replace("MAYBID", 'may_bid: "bidder != p"')).decisions)["Bidding"]
    assert "The player does not bid." in bidding and "may bid too" not in bidding, bidding


def test_a_deck_of_one_class_with_texts_says_what_it_holds():
    """stall-day: 'You need 30 cards.': which? A deck that is every mix of a trade and a rent, each card with its
    own text, is said as a grid, as a deck without texts is."""
    setup = _view("""
cards:
  - for: {trade: [baker, smith, weaver], rent: [1, 2, 3]}
    id: "{trade}_{rent}"
    name: "{trade} stall ({rent})"
    classes: [stall]
    count: 2
    doc: Worth {rent}.
zones:
  deck: {visibility: hidden, initial: all, title: Deck}
  mine: {per: player, visibility: open, title: Bought}
start: game
sequences:
  game:
    kind: game
    steps: ["shuffle deck", "end game"]
scoring:
  score: "sum([c.rent for c in p.mine])"
""").setup
    assert "The cards: baker, smith and weaver, each with rent 1 to 3 (2 cards of each)." in setup, setup


_TRUMPS = """
cards:
  - for: {suit: [red, blue], rank: 1..4}
    id: "{suit}_{rank}"
    name: "{rank} of {suit}"
    attributes: {rank: "=rank"}
zones:
  deck: {visibility: hidden, initial: all, title: Deck}
  hand: {per: player, visibility: owner, title: Hand}
  pit: {visibility: open, title: Pit}
start: game
sequences:
  game:
    kind: game
    steps:
      - "shuffle deck"
      - for_each: p
        in: players
        do: ["draw 3 from deck to p.hand"]
      - "let caller = players[0]"
      - label: The caller looks at the top card alone
        do: "show deck.top to caller"
      - label: The caller buries a card
        choose: {player: caller, kind: one, options: "[c for c in caller.hand]", prompt: "Bury which?", as: gone}
      - "move gone to pit"
      - label: Everyone else buries a card too
        for_each: p
        in: "[q for q in players if q != caller]"
        do: ["move p.hand.top to pit"]
      - label: The caller takes the top card
        do: "draw from deck to caller.hand"
      - label: The caller shows their hand
        do: "show caller.hand to players"
      - label: The caller passes a card to the left
        do: "move caller.hand.top to next_player(caller).hand"
      - label: The caller buries the top card
        do: "move deck.top to pit"
      - "end game"
scoring:
  score: "count(p.hand)"
"""


def test_a_name_a_step_gives_a_player_is_defined():
    """quiet-trump: 'Who is the caller?': `let caller = players[0]` and no page said it."""
    assert dict(_view(_TRUMPS).words).get("Caller") == "The first player.", _view(_TRUMPS).words


def test_a_short_order_of_play_is_not_cut_on_a_page_with_room():
    """quiet-trump: 'How many cards do I get?': the deal was one of three steps cut ('…and 3 more steps: see the
    sheets') from an order of play that filled half a page. A sequence of a dozen lines or fewer, in an order of
    play short enough in all, is said whole."""
    lines = next(lines for _d, _t, lines in _view(_TRUMPS).flow)
    assert len(lines) > 8 and not any("more steps" in x for x in lines), lines
    assert "For each player: draw 3 cards from the Deck to the player's Hand" in lines, lines


def test_an_index_that_goes_round_the_table_reads_as_a_table_says_it():
    """stall-day's 'today's first bidder' was `players[(day - 1) % player_count]`, said nowhere (too long, code-like:
    'the players for the remainder of the day minus 1 divided by ...'); quiet-contract's `ring[(i + 1) % ...]` too."""
    from rulecraft.dsl.parser import parse_expression, plain_locator
    from rulecraft.tools.words import Words

    loaded = load_text("tiny.yaml", _HEAD + _SALE.replace("              MAYBID\n", "") + "variables:\n  day: 0\n")
    w = Words(loaded.ruleset, detail="players")
    said = w.expr(parse_expression("players[(day - 1) % player_count]", plain_locator()))
    assert said == "the first player when the day is 1, the next when it is 2, and so on round the table", said
    said = w.expr(parse_expression("ring[(i + 1) % player_count]", plain_locator()))
    assert said.startswith("the one after ") and said.endswith(" (after the last, the first)"), said


def test_a_label_that_names_the_first_bidder_is_told_who_that_is():
    """'in turn from today's first bidder': who is that? The auction's `from:` is said after the label."""
    body = _SALE.replace("              MAYBID\n", "").replace("seller: p", 'from: "players[(day - 1) % player_count]"')
    body = body.replace("The others bid for the top lot", "Everyone bids once, from today's first bidder")
    body = body.replace("form: open", "form: once_around") + "variables:\n  day: 1\n"
    bidding = dict(_view(body).decisions)["Bidding"]
    assert "The first bidder is the first player when the day is 1, the next when it is 2, and so on round the " \
           "table." in bidding, bidding


def test_a_titled_count_a_tie_break_reads_is_defined():
    """honour-road: 'A tie goes to the player with the fewest Turns.': what are Turns? A titled count with no doc
    that the steps only add 1 to says where it goes up; one whose step names it already ('Add 1 to ...') does not."""
    body = _SHOP.replace('score: "count(p.mine)"', 'score: "count(p.mine)"\n  tie_break: [{fewest: "p.turns"}]')
    body = body.replace("  power: {initial: 5, title: Power}\n",
                        "  power: {initial: 5, title: Power}\n  turns: {initial: 0, title: Turns}\n")
    body = body.replace('      - "end game"', '      - label: Tidy up\n        do: "p.turns += 1"\n      - "end game"')
    words = dict(_view(body).words)
    assert words.get("Turns") == "Each player's count; it goes up by 1 at “Tidy up”.", words
    words = dict(_view(body.replace("label: Tidy up\n        do:", "do:")).words)
    assert "Turns" not in words, words


def test_who_leads_the_first_trick_is_defined_when_a_let_names_the_leader():
    """quiet-trump: 'Who leads the first trick?': `let caller = players[0]` then `set leader = caller`; the trick
    said 'the player who leads' and the Words box defined no Leader (a name given by `let` was never a player)."""
    body = """
cards:
  - for: {suit: [red, blue], rank: 1..4}
    id: "{suit}_{rank}"
    name: "{rank} of {suit}"
    attributes: {rank: "=rank"}
card_order:
  rank: ascending
zones:
  deck: {visibility: hidden, initial: all, title: Deck}
  hand: {per: player, visibility: owner, title: Hand}
  table: {visibility: open, title: Trick}
  won: {per: player, visibility: count, title: Tricks won}
variables:
  leader: {initial: none}
start: game
sequences:
  game:
    kind: game
    steps:
      - "shuffle deck"
      - for_each: p
        in: players
        do: ["draw 3 from deck to p.hand"]
      - "let caller = players[0]"
      - "set leader = caller"
      - for_each: n
        in: "1..3"
        do:
          - trick: {leader: leader, table: table, prompt: "Play a card", to: "trick.winner.won", as: trick}
scoring:
  score: "count(p.won)"
"""
    words = dict(_view(body).words)
    assert words.get("Leader") == "The caller. Then whoever takes a trick leads the next.", words
    assert words.get("Caller") == "The first player.", words
