"""A first game from the print, read cold: two games of kinds the printers had not met, written from the docs alone
(tests/cases/games/levee-watch.yaml: a cooperative game against a deck of events, three named levees whose water
rises; tests/cases/games/loom-and-dye.yaml: an engine-builder of set collection, a shared pool of threads, a market
row and end-game bonuses). Each test is a question a table that never saw the YAML asked of the aid or the sheets,
with the answer the print must give (read from `aid_view` and the words, no browser: cheap)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulecraft.dsl.parser import parse_statements, plain_locator
from rulecraft.loader import load_ruleset
from rulecraft.tools.print.aid import aid_view
from rulecraft.tools.words import Words

GAMES = Path(__file__).parent / "cases" / "games"


@pytest.fixture(scope="module")
def levee():
    return load_ruleset(str(GAMES / "levee-watch.yaml")).ruleset


@pytest.fixture(scope="module")
def loom():
    return load_ruleset(str(GAMES / "loom-and-dye.yaml")).ruleset


def _said(rs, text: str) -> str:
    return Words(rs, detail="players").stmt(parse_statements(text, plain_locator())[0])


def test_a_game_everyone_loses_or_wins_together_says_so(levee):
    """The sheets read 'Nothing wins the game' and 'The players wins the game': nobody wins, every player wins."""
    assert _said(levee, "win []") == "Nobody wins the game"
    assert _said(levee, "win players") == "Every player wins the game"


def test_how_to_win_is_the_rule_the_sheets_print(levee):
    """How to win read 'If any of Water for the levee is at least 5 for each levee in each levee, nobody wins.' while
    the sheet's diamond asks 'Has a levee's water reached 5? Then the levee breaks and everyone loses': a label that
    asks and says what a yes does is the whole rule, in both."""
    assert aid_view(levee).win == ["Has a levee's water reached 5? Then the levee breaks and everyone loses.",
                                   "Is the Event deck empty? Then the river falls and everyone wins."]


def test_the_set_up_says_where_the_game_s_own_counters_start(levee):
    """'How do I set up?': the Water stands at 1, 2 and 0 at the three levees and the pile holds 10 sandbags before the
    first card, and no page said so. A titled game counter that starts above nothing is said, each levee by title."""
    setup = aid_view(levee).setup
    assert "The Water starts at: Mill levee 1, Bridge levee 2 and Orchard levee 0." in setup, setup
    assert "The Sandbag pile starts at 10." in setup, setup


def test_the_set_up_says_what_kinds_of_card_the_deck_holds(levee):
    """'You need 18 cards.': which? Each card of one class, a few classes: their counts."""
    assert aid_view(levee).setup[0] == "You need 12 rain, 3 storm and 3 lull cards.", aid_view(levee).setup


def test_the_set_up_says_what_each_card_costs_and_scores(loom):
    """'What does a pattern cost, and what is it worth?': the grid line said colour and tier only; the price, the
    points and the colour it is paid in follow the tier or the colour, and are said so."""
    line = next(x for x in aid_view(loom).setup if x.startswith("The cards:"))
    assert line == ("The cards: red, blue and gold, each with tier 1 to 3 (2 cards of each). Tier 1, 2 and 3: price 2, "
                    "3 and 4, points 1, 3 and 5. Red, blue and gold: paid in Blue, Gold and Red."), line


def _flow(rs) -> list[str]:
    return [line for _d, _t, lines in aid_view(rs).flow for line in lines]


def test_a_turn_of_two_actions_says_two_times(levee):
    """'What can I do on my turn?': the aid read 'Repeat until the done is at least 2: the player is asked “Action the
    done of 2”'. A loop counted by a variable of its own is 'Do this 2 times', its question as first asked."""
    line = next(x for x in _flow(levee) if "Action" in x)
    assert line.startswith("Do this 2 times: the player is asked “Action 1 of 2”"), line


def test_a_line_cut_short_says_the_sheets_have_the_rest(levee):
    """'Hand a sandbag on' is among the choices and nothing said what it does: the line was cut at a clause, silently.
    A cut line says where the rest is; and where the turn's other lines are short, the line is not cut: what
    'Hand a sandbag on' does is in the aid too, not on the sheets only."""
    from rulecraft.tools.print.aidrules import clip

    assert clip("a; " * 200 + "b").endswith("; and more: see the sheets")
    line = next(x for x in _flow(levee) if "Action" in x)
    assert line.endswith("if the player chose “Hand a sandbag on”, the player is asked “Hand a sandbag to whom?”, "
                         "then take 1 from the player's Sandbags and add 1 to the chosen player's Sandbags"), line


def test_turns_in_a_game_nobody_leaves_do_not_wait_for_one_left(levee):
    """'When does it end?': the order of play said 'Turns go clockwise ..., skipping players out, until one is left'
    in a game where nobody is ever out and everyone wins or loses together. With no rule putting a player out, the
    turns go round until a rule of the turn ends the game; the sheet's box says the same."""
    import re

    from rulecraft.graph import build_graph
    from rulecraft.tools.chart.flowchart import ChartOptions, chart_dot

    assert "Turns go clockwise from the first player: a player's turn" in _flow(levee), _flow(levee)
    dot = " ".join(re.sub(r"<[^>]+>", " ", chart_dot(levee, build_graph(levee), "game", ChartOptions())).split())
    assert "Turns go clockwise from the first player" in dot and "one is left" not in dot, dot


def test_what_a_choice_leads_to_says_what_its_block_does(loom):
    """'If the player chose “Take one thread of each colour”, for each colour.': and what then? The block's heading is
    followed by its first step, two levels down."""
    from rulecraft.tools.print.aid import aid_view

    turn = dict(aid_view(loom).decisions)["Turn"]  # (said once, whole, in the order of play: s20b)
    assert "What it leads to: see “Turn” under Order of play." in turn, turn
    assert "If the player chose “Take one thread of each colour”: for each colour, take 1 from Thread pool for the " \
        "colour" in " ".join(_flow(loom)), _flow(loom)


def test_dml_s_badge_goes_the_way_the_aid_says():
    """DML's aid: 'the Initiative Badge passes counter-clockwise'; its End Phase sheet: 'passes to the next player',
    which a reader told 'play goes clockwise' reads the other way. The label says the way, and a `next_player` going
    counter-clockwise says so in words wherever no label does."""
    import re

    from rulecraft.dsl.parser import parse_expression
    from rulecraft.graph import build_graph
    from rulecraft.tools.chart.flowchart import ChartOptions, chart_dot

    dml = load_ruleset("dml").ruleset
    assert "the Initiative Badge passes counter-clockwise" in " ".join(aid_view(dml).turn), aid_view(dml).turn
    dot = " ".join(re.sub(r"<[^>]+>", " ", chart_dot(dml, build_graph(dml), "end_phase", ChartOptions())).split())
    assert "The Initiative Badge passes counter-clockwise" in dot, dot
    w = Words(dml, detail="players")
    assert w.expr(parse_expression("next_player(badge, dir: 'ccw')", plain_locator())).endswith("(counter-clockwise)")
    assert _said(dml, "set badge = next_player(badge, dir: 'ccw')") == \
        "The next player counter-clockwise becomes the holder of the Initiative Badge"


def test_how_to_win_says_when_the_last_round_comes(loom):
    """'When the game ends, the most points win': when is that? The rounds stop when the flag a labelled question
    sets is up ('Has anyone reached 12 points? Then this was the last round'), or the patterns run out."""
    assert aid_view(loom).win[:3] == [
        "Has anyone reached 12 points? Then this was the last round: the game ends after it.",
        "The game also ends when the Market row is empty and the Pattern deck is empty.",
        "Then the player with the most points wins: points are a player's points plus their patron bonus."], \
        aid_view(loom).win


def test_a_price_the_rules_work_out_is_defined(loom):
    """'Pay its price': does a woven pattern make the next one cheaper? The function titled "{c}'s price for {p}" has
    a doc that says so, and the Words box gives it as 'Price', the word the text uses."""
    assert dict(aid_view(loom).words).get("Price", "").endswith(
        "less one for each pattern of that colour the player has woven."), aid_view(loom).words


def test_help_at_a_repeated_choice_says_its_rule(loom):
    """'?' when asked 'Put back a thread (11 held)' stopped the table with an AttributeError (a repeated choice is a
    construct step, with no `decision` of its own): it says the rule, as at any choice."""
    from rulecraft.model import ruleset as M
    from rulecraft.tools.words.seat.help import help_at_table

    step = next(s for _seq, s in loom.iter_steps() if isinstance(s, M.ConstructStep) and s.construct == "repeat_choice")
    lines = help_at_table(loom, step, None)
    assert lines[0] == "Rule: Over 10 threads? Put threads back in the pool, one at a time, down to 10", lines


def test_the_book_names_no_untitled_start(levee):
    """The book opened 'Levee Watch is a game for 2 to 4 players (usually 3). Play starts with Game.': a sequence
    with no title of its own is no name a reader knows; the sentence goes."""
    import html
    import re

    from rulecraft.graph import build_graph
    from rulecraft.tools.print.book import render_html

    page = render_html(levee, build_graph(levee), {})
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<style.*?</style>", "", page, flags=re.S))).split())
    assert "is a game for 2 to 4 players (usually 3)." in text and "Play starts with" not in text, text[:300]
    stack = load_ruleset("stack-duel").ruleset  # titled ('The duel'): still said
    page = render_html(stack, build_graph(stack), {})
    assert "Play starts with" in page


def test_a_condition_not_drawn_leaves_no_yes_and_no_arrows():
    """DML's sheet 17: two arrows labelled 'yes' and 'no' from the start of 'Monopoly or Ultimate Victory' to the same
    box, and no question drawn (its branches only tell the story). One plain arrow."""
    from rulecraft.tools.chart.flowchart import ChartOptions, chart_dot

    from rulecraft.tools.words.bookkeeping import players_graph

    loaded = load_ruleset("dml")  # the graph the sheets and `render` draw: bookkeeping steps left out
    dot = chart_dot(loaded.ruleset, players_graph(loaded.ruleset, loaded.graph), "instant_victory", ChartOptions())
    arrows = [line for line in dot.splitlines() if '"instant_victory/start" ->' in line]
    assert len(arrows) == 1 and "xlabel" not in arrows[0], arrows


def test_dml_s_black_market_gives_the_extra_card_the_sheet_gives():
    """DML's sheet 16: 'A random card, and one more for each Slaves Emblem (Vantage)'; the aid's Black Market took one
    random card only."""
    black = dict(aid_view(load_ruleset("dml").ruleset).decisions)["Black Market"]
    assert "7 or more takes a random card from it, and one more for each of your Hearts (Slaves) Emblems." in black, \
        black


def test_the_sheets_name_an_untitled_sequence_as_the_book_does(loom):
    """Loom and Dye's sheet index and chart read 'game (game)' and 'Sheet 1 · game': an id. A sequence with no title
    reads as the book and the aid name it ('Game')."""
    import re

    from rulecraft.graph import build_graph
    from rulecraft.tools.chart.flowchart import ChartOptions, chart_dot
    from rulecraft.tools.chart.sheetplan import plan_sheets
    from rulecraft.tools.print.sheets import title_dot

    graph = build_graph(loom)
    index = " ".join(re.sub(r"<[^>]+>", " ", title_dot(loom, plan_sheets(loom, graph), {}, None, 7.0)).split())
    assert " Game (game)" in index and " game (game)" not in index, index
    chart = " ".join(re.sub(r"<[^>]+>", " ", chart_dot(loom, graph, "game", ChartOptions())).split())
    assert "label= Game game" in chart, chart[:400]


def test_an_option_offered_on_a_condition_says_it(levee, loom):
    """'Can I shore up a dry levee?': nothing said so, and Loom and Dye's moves read '(some only at times)'. A follow-up
    question whose options are filtered says which may be picked (aid, sheets and `?`); a condition over each key of a
    table reads 'any colour'; an option whose condition is too long to say is marked on its own."""
    import re

    from rulecraft.graph import build_graph
    from rulecraft.tools.chart.flowchart import ChartOptions, chart_dot

    only = "(a levee where Water for the levee is more than 0)"
    # (the order of play says the turn whole, the follow-up question with it; How it is decided points there: s20b)
    assert f"the player is asked “Shore up which levee?” {only}" in " ".join(_flow(levee)), _flow(levee)
    dot = " ".join(re.sub(r"<[^>]+>", " ", chart_dot(levee, build_graph(levee), "turn", ChartOptions())).split())
    assert "Shore up which levee?” " + only[1:-1] in dot, dot
    turn = dict(aid_view(loom).decisions)["Turn"]
    assert ("The choices: Take one thread of each colour, Take two threads of one colour (if Thread pool for any "
            "colour is at least 4) or Weave a pattern (only at times).") in turn, turn


def test_a_titled_count_for_each_row_is_defined(levee, loom):
    """'What is Water?': the aid reads 'Water for the levee' and its Words box never said. A titled value with no
    doc kept for each row of a table says what it is: whose, for which rows, where it starts."""
    assert dict(aid_view(levee).words).get("Water") == ("A number for each levee (Mill levee, Bridge levee and Orchard "
                                                         "levee), one for the whole table; it starts at 1, 2 and 0."), \
        aid_view(levee).words
    assert dict(aid_view(loom).words).get("Threads") == "Each player's own number for each colour (Red, Blue and Gold)."


def test_a_name_bound_to_a_chosen_player_or_row_reads_as_what_it_is(levee, loom):
    """The sheets read 'add 1 to the mate's Sandbags' and 'add 1 to Thread pool for the back': a designer's name for a
    player or a row chosen reads as what it is, where it names no role ('the target' stays)."""
    assert _said(levee, "mate.bags += 1") == "Add 1 to the chosen player's Sandbags"
    assert _said(loom, "pool[back] += 1") == "Add 1 to Thread pool for the chosen colour"
    bluff = load_ruleset("bluff").ruleset
    assert Words(bluff, detail="players").local("target") == "the target"


def test_a_table_column_the_cards_read_is_explained(loom):
    """The aid's Colours table: 'Red | Blue' under a heading 'Next', and nothing said what Next is. A column every
    card of a row reads as one of its attributes says which ('paid_in: =colours[colour].next')."""
    from rulecraft.tools.print.aid import aid_view

    colours = next(t for t in aid_view(loom).tables if t["title"] == "Colours")
    assert colours["doc"] == "Next: the colour a card of that colour is paid in.", colours


def test_a_column_named_for_an_attribute_that_ends_in_a_preposition_reads_as_a_clause(loom):
    """'Next: the paid in of a card of that colour.' read the designer's attribute name `paid_in` as a noun. An attribute
    that ends in a preposition ('paid in', 'kept on') is a clause: what a card is paid in; the colour it is, where
    the column's cells are the table's own rows."""
    from rulecraft.tools.print.aid import aid_view

    docs = " ".join(t["doc"] or "" for t in aid_view(loom).tables)
    assert "the paid in of" not in docs, docs
