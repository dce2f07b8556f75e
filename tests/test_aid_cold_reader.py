"""The player aid read cold: a table that never saw the YAML sets up and plays a first game from it alone.

Each test is a question a first-time reader asked of the aid of a small game written from the docs alone
(tests/cases/games/siege-row.yaml: a deck-builder where players are put out and the last one in wins), with the
answer the aid must give. The aid's content is read from `aid_view` (no browser: cheap)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulecraft.loader import load_ruleset
from rulecraft.tools.print.aid import aid_view

GAMES = Path(__file__).parent / "cases" / "games"


@pytest.fixture(scope="module")
def siege():
    return aid_view(load_ruleset(str(GAMES / "siege-row.yaml")).ruleset)


def _flow(view) -> list[str]:
    return [line for _d, _t, lines in view.flow for line in lines]


def test_a_question_label_keeps_what_the_answer_leads_to(siege):
    """'Is only one player still in?' alone leaves the reader asking 'and then?': the aid says what a yes does."""
    assert "Is only one player still in? Then each player who is not out wins the game and the game ends" \
        in _flow(siege), _flow(siege)
    turn = _flow(siege)
    strikes = next(line for line in turn if line.startswith("Do you have strikes?"))
    assert strikes.startswith("Do you have strikes? Then "), strikes
    assert "lose a wall for each strike" in strikes, strikes


def test_how_to_win_says_a_win_the_order_of_play_declares(siege):
    """The last player in wins at once: a `win` in a step (not only in a trigger) is said under How to win."""
    assert siege.win[0] == "Is only one player still in? Then each player who is not out wins.", siege.win
    assert siege.win[1].startswith("Otherwise, when the game ends"), siege.win


def test_the_set_up_counts_cards_for_each_number_of_players(siege):
    """7 Coppers a player: the Copper pile holds 14, 21 or 28 of them, never '28' for every game."""
    assert "These cards start in the Copper pile: Copper (14 for 2 players, 21 for 3, 28 for 4)." in siege.setup, \
        siege.setup


def test_a_start_value_the_set_up_steps_replace_is_not_said(siege):
    """'Each player's walls start at 0' and then 'builds 12 walls': the reader believes the first. A value the
    start sequence sets before play begins is said with the value it is set to (session 18: 'what does each player
    start with?' is a set-up question)."""
    assert [x for x in siege.setup if "walls start at" in x] == ["Each player's walls start at 12."], siege.setup


def test_a_prompt_does_not_say_a_counter_twice(siege):
    """'Buy a card? (your Coins coins)' reads 'Buy a card? (your Coins)'."""
    said = " ".join(text for _n, text in siege.decisions)
    assert "Coins coins" not in said and "(your Coins)" in said, said


def test_every_place_the_aid_names_is_in_its_words_box(siege):
    """'the market row', 'their draw pile', 'your discard pile': titled places met in lower case are defined."""
    defined = {t for t, _d in siege.words}
    for term in ("Market row", "Draw pile", "Discard pile", "Play area"):
        assert term in defined, (term, defined)
    assert dict(siege.words)["Market row"] == "The cards for sale, face up."


def test_the_set_up_says_who_plays_first(siege):
    """'For each player in turn from the first player': the reader asks who that is. The set-up says."""
    assert "Choose a first player; play goes clockwise from them." in siege.setup, siege.setup


def test_a_short_sequence_the_order_of_play_calls_is_said_where_it_is_called(siege):
    """'then a keep falls' names a sequence the aid shows nowhere: its one rule is said in place."""
    strikes = next(line for line in _flow(siege) if line.startswith("Do you have strikes?"))
    assert strikes.endswith("then a keep falls (have their walls fallen? Then they are out of the game)"), strikes


def test_a_card_class_the_aid_names_is_defined(siege):
    """'unless they reveal a reaction': which cards are reactions? The Words box names them."""
    assert dict(siege.words)["Reaction"] == "A kind of card: Shield.", siege.words


def test_a_pile_that_refills_says_so_where_it_is_defined(siege):
    """'What do I do when my draw pile runs out?': the Words box says it, whatever a label of a draw leaves out."""
    assert dict(siege.words)["Draw pile"].endswith("When it runs out, shuffle your Discard pile to make a new one."), \
        siege.words


def _tutorial_auction(tmp_path) -> Path:
    """docs/tutorial.md's finished auction game (the second my-auction.yaml), as a reader of the tutorial writes it."""
    text = (Path(__file__).parent.parent / "docs" / "tutorial.md").read_text(encoding="utf-8")
    block = text.split("# file: my-auction.yaml\n")[2].split("```")[0]
    path = tmp_path / "my-auction.yaml"
    path.write_text(block, encoding="utf-8")
    return path


def test_a_labelled_auction_says_what_winning_it_does(tmp_path):
    """'Raise or pass, going left from the opener' alone: who gets the lot, who pays? The designer's label, then
    what the auction's own steps do when it ends."""
    view = aid_view(load_ruleset(str(_tutorial_auction(tmp_path))).ruleset)
    bidding = dict(view.decisions)["Bidding"]
    assert bidding.startswith("Raise or pass, going left from the opener; a pass is final"), bidding
    assert "When it ends: if there is a winner, take the highest bid from the winner's coins" in bidding, bidding
    assert "otherwise move the top card of the lot for sale to the Lots nobody bought" in bidding, bidding


def test_a_variable_the_aid_names_is_defined_by_what_it_is_set_to(tmp_path):
    """'the opener' is met in the order of play and never said: the Words box says who it is, from its changes."""
    view = aid_view(load_ruleset(str(_tutorial_auction(tmp_path))).ruleset)
    assert dict(view.words)["Opener"] == "First the first player, then the next player in turn.", view.words
    assert "Choose a first player; play goes clockwise from them." in view.setup, view.setup


def test_a_record_named_for_a_person_reads_as_that_person():
    """last-bid's loser is a dropped bid (its player, its bid): 'the lives of the loser's player' reads 'the loser's
    lives'; a record not named for a person keeps its player ('the play's player')."""
    from rulecraft.dsl.parser import parse_expression, plain_locator
    from rulecraft.tools.words import Words

    rs = load_ruleset(str(GAMES / "last-bid.yaml")).ruleset
    w = Words(rs, detail="players")
    assert w.expr(parse_expression("loser.player.lives", plain_locator())) == "the loser's lives"
    assert w.expr(parse_expression("loser.player", plain_locator())) == "the loser"
    assert w.expr(parse_expression("[d.player for d in sale.dropped]", plain_locator())) != ""


@pytest.mark.skipif(__import__("rulecraft.tools.print.htmlpdf", fromlist=["find_chromium"]).find_chromium() is None,
                    reason="headless Chromium is not installed")
def test_an_aid_that_spills_a_few_lines_is_printed_on_one_page():
    """Siege Row's aid ran two lines onto a second page (a Words entry cut across the page); printed more compactly,
    it is one page, at 9 pt or more."""
    from rulecraft.tools.print.aid import build_aid
    from rulecraft.tools.print.pdfmeasure import measure_pdf

    pdf, pages = build_aid(load_ruleset(str(GAMES / "siege-row.yaml")).ruleset)
    m = measure_pdf(pdf)
    assert pages == m.pages == 1 and m.smallest_pt >= 9.0, m.summary()


def test_a_function_the_aid_names_is_defined_by_its_doc():
    """Hearts: 'Pick three cards to pass to the player's receiver': who is that? The function's doc says."""
    view = aid_view(load_ruleset("hearts").ruleset)
    assert dict(view.words).get("Receiver") == "Whom a player passes to this hand.", view.words


def test_the_actions_a_turn_calls_are_said_in_the_order_of_play():
    """Bluff's turn ends 'Then play the action': what income, tax, steal and coup do was nowhere in the aid. A short
    action the order of play calls is shown in it (and left to the sheets when the aid would not fit two pages)."""
    flow = {title: lines for _d, title, lines in aid_view(load_ruleset("bluff").ruleset).flow}
    said = " ".join(flow["The action"])
    for rule in ("take 1 coin", "take 3 coins", "take up to 2 coins from the target", "pay 7 coins"):
        assert rule in said, said


def test_a_pass_reads_as_nothing_chosen():
    """'If there is no chosen card, stop repeating' reads 'If no card was chosen, ...'."""
    from rulecraft.dsl.parser import parse_expression, plain_locator
    from rulecraft.tools.words import Words

    rs = load_ruleset(str(GAMES / "siege-row.yaml")).ruleset
    w = Words(rs, detail="players")
    assert w.expr(parse_expression("bought == none", plain_locator())) == "no card was chosen"
    assert w.expr(parse_expression("bought != none", plain_locator())) == "a card was chosen"


def test_pig_says_who_starts_and_the_highest_score():
    """Pig's order of play goes 'from the first': the set-up says to choose them; a kept score is 'the highest
    score', not 'the most score'."""
    view = aid_view(load_ruleset("pig").ruleset)
    assert "Choose a first player; play goes clockwise from them." in view.setup, view.setup
    assert "Otherwise, when the game ends, the player with the highest score wins." in view.win, view.win


# A racing game with dice (tests/cases/games/ridge-race.yaml), read cold: what may I choose, how does my Space change,
# when does the race end, and do the aid and the sheets say the same step the same way?

@pytest.fixture(scope="module")
def ridge():
    return load_ruleset(str(GAMES / "ridge-race.yaml")).ruleset


def test_a_choice_says_what_may_be_chosen(ridge):
    """'Move by which dice?' and nothing said what the answers were: the options the ruleset writes out are said,
    each by its title, one offered on a condition with it."""
    turn = dict(aid_view(ridge).decisions)["Turn"]
    assert "The choices: The higher die, The lower die or Both dice (spend a Boost) (if the player has Boosts)." \
        in turn, turn


def test_a_choice_whose_question_names_its_options_is_not_said_twice():
    """'Place a crate, or discard a card' already names both answers: no 'The choices: place or discard'."""
    turn = dict(aid_view(load_ruleset(str(GAMES / "harbor-lanes.yaml")).ruleset).decisions)["Turn"]
    assert "The choices" not in turn, turn


def test_a_kept_score_is_explained_by_every_rule_that_changes_it(ridge):
    """'How the Space is counted' told only of the adds, so a reader believed a Space never goes down: the Mud and
    the bump take from it. Said by the designer's labels, the words of the order of play."""
    explain = dict(aid_view(ridge).explain)["How the Space is counted"]
    for rule in ("Move your runner up that many spaces.", "Stopped on a Gust space? Move on 3 more spaces.",
                 "Stopped on a Mud space? Slide back 2 spaces.", "Every other runner on your space slides back 3"):
        assert rule in explain, explain


def test_how_to_win_says_when_the_game_ends(ridge):
    """'When the game ends, the highest Space wins': and when is that? The question that ends it is said first."""
    assert aid_view(ridge).win[:2] == ["Has a runner reached the finish space (30)? Then the game ends.",
                                      "Then the player with the highest Space wins."], aid_view(ridge).win


def test_a_dice_result_says_what_it_leads_to(ridge):
    """'Double | counts as Double' told nothing: the step that tests the result says what it does."""
    (double,) = aid_view(ridge).dice[0]["results"]
    assert double[2] == "leads to: Rolled a double? Take a Boost (you may hold 3)", double


def test_the_sheet_asks_the_question_the_aid_prints(ridge):
    """The aid reads 'Rolled a double? Take a Boost (you may hold 3)'; the sheet's diamond asked another question
    in its place ('The roll is a double and the player's Boosts are less than 3?'): the same words on both."""
    from rulecraft.graph import build_graph
    from rulecraft.tools.chart.flowchart import ChartOptions, chart_dot

    import re

    dot = " ".join(re.sub(r"<[^>]+>", " ", chart_dot(ridge, build_graph(ridge), "turn", ChartOptions())).split())
    assert "Rolled a double? Take" in dot and "Boosts are less than" not in dot, dot
    assert "choices: The higher die, The lower die or Both" in dot, dot


def test_a_loop_over_others_in_a_turn_never_reads_as_the_turn_player(ridge):
    """In the turn of `player`, 'for each q on your space: set q's Space' read 'Set the player's Space ...', the
    runner whose turn it is: a loop's player alone in its sentence reads 'the other player'."""
    from rulecraft.tools.words import Words

    w = Words(ridge, detail="players")
    bump = next(s for _seq, s in ridge.iter_steps() if s.label and s.label.startswith("Every other runner"))
    body = w.step(dict(bump.bodies)["do"][0], own_label=False)
    assert body.startswith("Set the other player's Space"), body


def test_a_stack_says_what_resolving_a_play_does():
    """Stack Duel's aid said 'The stack: Cast and answer.' and nothing of what a spell does when it resolves; the
    called sequence's rules are said, and a card's mark naming a player reads 'the player who cast the spell'."""
    view = aid_view(load_ruleset("stack-duel").ruleset)
    stack = dict(view.decisions)["The stack"]
    assert "the last played resolves first. Each resolves: move the spell to the Discard pile; if the spell is a " \
           "counter, move the stack to the Discard pile" in stack, stack
    assert view.win[0] == "The caster has 10 points or more? Then the caster wins.", view.win  # the sheets' words
    assert dict(view.explain)["How points are counted"] == "The spell's power scores for its caster.", view.explain


def test_the_set_up_says_what_a_small_deck_holds():
    """'You need 22 cards': which? A deck of a few kinds with no card texts is said kind by kind, with the numbers
    that tell them apart; a number the name says already ('Guard (1)') is not said again. And 'for each player,
    play a turn' starts from someone: the set-up says to choose them."""
    setup = aid_view(load_ruleset("stack-duel").ruleset).setup
    assert "The cards: Spark ×8 (power 1), Flame ×6 (power 2), Blaze ×3 (power 3) and Counter ×5 (power 0)." \
        in setup, setup
    assert "Choose a first player; play goes clockwise from them." in setup, setup  # 'for each player, play a turn'
    guard = aid_view(load_ruleset(str(GAMES / "last-guard.yaml")).ruleset).setup
    assert "The cards: Guard (1) ×5, Baron (3) ×2, Handmaid (4) ×2, Prince (5) ×2 and Princess (8)." in guard, guard


def test_a_card_mark_naming_a_player_reads_as_who_did_it():
    """`spell.cast_by` read 'the spell's cast by': a card's mark `X_by` is the player who X the card."""
    from rulecraft.dsl.parser import parse_expression, plain_locator
    from rulecraft.tools.words import Words

    w = Words(load_ruleset("stack-duel").ruleset, detail="players")
    assert w.expr(parse_expression("card.cast_by", plain_locator())) == "the player who cast the card"


def test_the_sheets_say_how_to_win_in_the_aid_s_words(ridge):
    """The sheets ended in 'end game' and said nowhere who wins, or on a tie: their title page says it, line for
    line as the aid does (one home for the words: a reader holding both never reads two rules)."""
    import re

    from rulecraft.tools.print.sheets import _win_rows

    said = [" ".join(re.sub(r"<[^>]+>", " ", row).split()) for row in _win_rows(ridge)]
    assert said[1] == "How to win", said
    assert [x.removeprefix("• ") for x in said[2:]] == aid_view(ridge).win, said


def test_how_to_win_goes_on_the_sheets_title_page_where_it_costs_no_page(ridge):
    """Ridge Race's sheets say How to win on their index page (its Set-up too would cut sheet 1 in two: left out);
    Siege Row's four lines of How to win would push sheet 1 off that page (3 pages -> 4, half of page 1 empty), so
    its sheets go without, as before."""
    import io
    import re

    from pypdf import PdfReader

    from pdftext import page_text
    from rulecraft.graph import build_graph
    from rulecraft.tools.print.sheets import build_sheets

    got = build_sheets(ridge, build_graph(ridge))
    first = " ".join(page_text(PdfReader(io.BytesIO(got.pdf)).pages[0]).split())
    assert "How to win" in first, first
    assert "Has a runner reached the finish space (30)? Then the game ends." in first, first
    assert "continued" not in " ".join(page_text(p) for p in PdfReader(io.BytesIO(got.pdf)).pages)  # none cut
    siege = load_ruleset(str(GAMES / "siege-row.yaml")).ruleset
    got = build_sheets(siege, build_graph(siege))
    first = " ".join(page_text(PdfReader(io.BytesIO(got.pdf)).pages[0]).split())
    assert got.pages <= 3, (got.pages, re.findall(r"How to win", first))  # never a page for four lines


def test_the_book_counts_a_counter_that_starts_from_a_parameter(ridge):
    """The book's 'What each player keeps count of' said 'Space.' alone: Boosts start at `=start_boosts`, a
    parameter's value, and were left out."""
    from rulecraft.tools.print.bookfront import tracks
    from rulecraft.tools.words import Words

    assert tracks(ridge, Words(ridge, detail="players")) == ["Space", "Boosts, 1 to start"]


def test_a_titled_row_named_outright_reads_by_its_title(ridge):
    """Sheet 2's box read 'Add the shift of the track for Gust to the player's Space': a row of a table with titles,
    named by its key, reads by its title ('the Gust shift'), as the aid's Track table names it."""
    from rulecraft.dsl.parser import parse_statements, plain_locator
    from rulecraft.tools.words import Words

    w = Words(ridge, detail="players")
    said = w.stmt(parse_statements("player.position += track['gust'].shift", plain_locator())[0])
    assert said == "Add the Gust shift to the player's Space", said


def test_a_deck_that_is_every_mix_of_a_kind_and_a_number_is_said_in_one_line():
    """Tide Clock's aid said 'You need 12 cards.' and nothing of which: its cards are silk, tea and spice, each worth
    1 to 4. A deck whose cards are every mix of a named property and a number, as many of each, is said that way;
    a numbered copy of each card (gallery sale's `n`, which no card's name tells) is not such a number."""
    tide = aid_view(load_ruleset(str(GAMES / "tide-clock.yaml")).ruleset)
    assert "The cards: silk, tea and spice, each with worth 1 to 4 (one card of each)." in tide.setup, tide.setup
    gallery = aid_view(load_ruleset(str(GAMES / "gallery-sale.yaml")).ruleset)
    assert not [x for x in gallery.setup if "each with" in x], gallery.setup
