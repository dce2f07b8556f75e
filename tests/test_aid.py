"""The player aid, measured from its PDF: every bundled ruleset's fits two pages, with nothing under 9 pt and no code."""

from __future__ import annotations

import pytest
from pypdf import PdfReader
import io
from pathlib import Path

from rulecraft.bundled import bundled_rulesets
from rulecraft.loader import load_ruleset
from rulecraft.tools.print.aid import aid_html, aid_view, build_aid
from rulecraft.tools.cli.main import main
from rulecraft.tools.print.htmlpdf import find_chromium
from rulecraft.tools.print.pdfmeasure import measure_pdf
from pdftext import page_text

GAMES = Path(__file__).parent / "cases" / "games"

needs_chromium = pytest.mark.skipif(find_chromium() is None, reason="headless Chromium is not installed")
NAMES = [b.name for b in bundled_rulesets()]


@pytest.fixture(scope="module")
def printer():
    """One headless Chromium for the module's aids: starting it costs more than printing one (the aid is printed
    by the same `build_aid`, one browser for its tries, as `rulecraft aid` prints it)."""
    from rulecraft.tools.print.htmlpdf import Printer

    with Printer() as browser:
        yield browser


@needs_chromium
@pytest.mark.parametrize("name", NAMES)
def test_aid_fits_two_pages_at_9_pt_without_code(name, printer):
    loaded = load_ruleset(name)
    pdf, pages = build_aid(loaded.ruleset, "letter" if name == "dune-bidding" else "a4", printer)
    m = measure_pdf(pdf)
    assert pages == m.pages and 1 <= pages <= 2, m.summary()
    assert m.smallest_pt >= 9.0 and m.code_share == 0, m.summary()
    text = "".join(page_text(p) for p in PdfReader(io.BytesIO(pdf)).pages)
    assert "How to win" in text or "Order of play" in text
    assert "['" not in text and "{" not in text and "_" not in text  # no reprs, placeholders or ids


def test_dml_aid_has_the_tables_the_dice_and_how_to_win():
    view = aid_view(load_ruleset("dml").ruleset)
    assert [t["title"] for t in view.tables] == ["Wheel of Profit"]
    # the dice's named results are said where the roll is decided, so no second table of them
    roll = dict(view.decisions)["4. Roll"]
    assert view.dice == [] and all(name in roll for name in ("Woot! Woot!", "Wyvern Eyes", "Dabo"))
    assert len(view.win) == 1 and "Monopoly" in view.win[0] and "victory points" in view.win[0]
    assert "Over 12?" in dict(view.decisions)["1. Declare"]  # the key numbers are given where the rule says them
    html = aid_html(view)
    assert "Wheel of Profit" in html and "declaration_limit" not in html


def test_dml_aid_teaches_like_a_hand_made_one():
    """The turn in play order, how a purchase resolves (declare, seize, bid, the roll: equal or over),
    scoring with an example, the suits' Resources, and the powers of at least 7 of the 9 special cards."""
    rs = load_ruleset("dml").ruleset
    view = aid_view(rs)
    assert [line.split(":")[0] for line in view.turn][:2] == ["Event Phase", "Character Power Phase"]
    names = [n for n, _t in view.decisions]
    assert names[:4] == ["1. Declare", "2. Seize", "3. Bid", "4. Roll"]
    roll = dict(view.decisions)["4. Roll"]
    assert "two dice" in roll and "equal to or over the target" in roll
    assert "{" not in " ".join(t for _n, t in view.decisions)  # {declaration_limit} was filled: 12
    assert "12 or less" in dict(view.decisions)["1. Declare"]
    assert any("Example" in line for line in view.scoring)
    key = dict(view.key)
    assert "Iron" in key["♠ Spades"] and "Spice" in key["♦ Diamonds"]
    cards = [t for _sid, t in ((s, q) for s, q in rs.tables["suits"].rows.items() for q in (q["jack"], q["queen"]))]
    powers = dict(view.powers)
    named = [c for c in cards + ["Thief"] if any(name.startswith(c) for name in powers)]
    assert len(named) >= 7 and all(len(effect) > 20 for effect in powers.values())
    # no contradiction: Tax Relief's shift is the parameter's value wherever it is said
    shift = str(rs.parameters["market_shift"].value)
    assert f"worth {shift} less" in key["♦ Diamonds"]
    assert f"worth {shift} more" in key["♣ Clubs"]


def test_a_variant_changes_the_numbers_its_aid_prints(tmp_path):
    """Labels and aid prose embed ruleset values: a variant's aid prints its own."""
    path = tmp_path / "dml-13.yaml"
    path.write_text("ruleset: dml-13\nextends: dml\nparameters:\n  declaration_limit: {default: 13}\n",
                    encoding="utf-8")
    view = aid_view(load_ruleset(str(path)).ruleset)
    assert "13 or less" in dict(view.decisions)["1. Declare"]


def test_an_aid_section_chooses_what_is_shown(tmp_path):
    src = (load_ruleset("pig").ruleset.file)
    text = open(src, encoding="utf-8").read() + (
        "\naid:\n  flow: [turn]\n  numbers: []\n  tables: []\n  win: First to the target wins at once.\n"
        "  notes: [Say 'hold' out loud.]\n")
    path = tmp_path / "pig-aid.yaml"
    path.write_text(text, encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ruleset is not None, loaded.diagnostics
    view = aid_view(loaded.ruleset)
    assert [t for _d, t, _w in view.flow] == [loaded.ruleset.sequences["turn"].title]
    assert view.numbers == [] and view.tables == [] and view.win == ["First to the target wins at once.",
                                                                          "If tied, the tied players share the win."]
    assert view.notes == ["Say 'hold' out loud."]


def test_aid_usage_errors(tmp_path, capsys):
    assert main(["aid", "pig", "-o", str(tmp_path / "aid.html")]) == 2
    assert "FILE.pdf" in capsys.readouterr().err


def test_aid_without_chromium_refuses_with_a_hint(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RULECRAFT_CHROMIUM", "no-such-browser-here")
    assert main(["aid", "pig", "-o", str(tmp_path / "aid.pdf")]) == 2
    assert "apt-get install chromium" in capsys.readouterr().err
    assert not (tmp_path / "aid.pdf").exists()


def test_aid_order_of_play_says_a_block_two_levels_down():
    """Pot Luck's bust pays a chip inside an 'if' inside the rolling loop: the aid says it, as a side condition."""
    from rulecraft.tools.print.aid import aid_view

    rs = load_ruleset(str(Path(__file__).parent / "cases/games/pot-luck.yaml")).ruleset
    lines = [line for _d, _t, what in aid_view(rs).flow for line in what]
    rolling = next(line for line in lines if line.startswith("Keep rolling"))
    assert "if the roll is a bust, take 1 from the player's chips and add 1 to the pot (if the player has chips), " \
           "then the turn ends" in rolling
    # inside a sentence a question is quoted, with who is asked
    assert rolling.endswith("the player is asked “You have your run this turn. Roll again?”; if the player answers no, "
                            "stop rolling")


def test_aid_says_what_an_unlabelled_question_leads_to():
    """'How it is decided' gives an unlabelled question with what its answer leads to, not the question alone."""
    from rulecraft.tools.print.aid import aid_view

    rs = load_ruleset(str(Path(__file__).parent / "cases/games/pot-luck.yaml")).ruleset
    assert dict(aid_view(rs).decisions)["Turn"] == \
        "The player is asked “You have your run this turn. Roll again?” If the player answers no, stop rolling."


def test_generated_decisions_name_windows_by_their_act_and_say_every_choice_of_a_sequence():
    """A response window is headed by what its question offers ('Challenge …?' -> Challenging), not 'Answering';
    a sequence with two choices in turn (keep-five: which dice again, then which box) says both, and a follow-up
    asked only on one answer (harbor-lanes' 'Which crate?') is not said again."""
    from rulecraft.tools.print.aidrules import decision_lines
    from rulecraft.tools.words import Words

    def decisions(name):
        rs = load_ruleset(str(GAMES / f"{name}.yaml")).ruleset
        return dict(decision_lines(rs, Words(rs, detail="players")))

    masks = decisions("masks")
    assert "Challenging" in masks and "Answering" not in masks
    assert "Taking" in decisions("falling-price")
    turn = decisions("keep-five")["A turn"]
    assert "Dice to roll again" in turn and "Score your Dice in which box?" in turn
    assert turn.count("The player:") == 1  # who is asked is said once
    harbor = decisions("harbor-lanes")["Turn"]
    assert "Which crate?" not in harbor and harbor.count("Discard which card?") == 1


def test_a_kept_score_no_function_counts_is_explained_by_the_steps_that_add_to_it():
    """trump-call adds to p.points in an if/else of plain steps: the aid says that rule under How to win."""
    rs = load_ruleset(str(GAMES / "trump-call.yaml")).ruleset
    explain = dict(aid_view(rs).explain)
    assert explain["How Points are counted"] == ("If the player's Tricks are their Call: add 10 plus the player's Call "
                                                 "to their Points; otherwise add the player's Tricks to their Points.")
    assert not [k for k in dict(aid_view(load_ruleset("dune-bidding").ruleset).explain) if k.startswith("How")]


def test_every_bundled_aid_sets_the_table_up_and_defines_its_places():
    """A first game from the aid alone: a set-up section, and every titled place the aid names defined in its
    Words box (the zone's doc, else how many there are and who sees them)."""
    from rulecraft.bundled import bundled_rulesets
    from rulecraft.tools.print.aid import _texts
    from rulecraft.tools.print.aidwords import _forms, _zone_name

    for b in bundled_rulesets():
        rs = load_ruleset(b.name).ruleset
        view = aid_view(rs)
        assert view.setup, b.name
        said = "\n".join(_texts(view))
        defined = {t for t, _d in view.words}
        for z in rs.zones.values():
            name = _zone_name(z)
            if z.title and not z.title.endswith("(setup)") and any(f" {f} " in f" {said} " for f in _forms(name)):
                assert name.lower() in {t.lower() for t in defined}, (b.name, name)
        assert all(d.endswith((".", "!", "?")) and "_" not in d for _t, d in view.words), b.name


def test_dml_aid_gives_the_amounts_and_the_terms():
    """How much an Emblem lowers a target, what a primary and a secondary bid do, and the terms a reader met
    undefined (Court, Treasury, Hoard, Nest, Exile, Carnival of Coin)."""
    view = aid_view(load_ruleset("dml").ruleset)
    decided = dict(view.decisions)
    assert "less 1 for each of your Jack and Guild House Emblems" in decided["1. Declare"]
    assert "2 for each Queen Emblem" in decided["1. Declare"]
    assert "the target drops by its number" in decided["3. Bid"]
    assert "cancels its number of the seizer's bids" in decided["3. Bid"]
    assert "7 or more" in decided["Black Market"]
    words = dict(view.words)
    for term in ("Court", "Treasury", "Dragon's Hoard", "Dragon's Nest", "Exile", "Carnival of Coin", "Event Deck"):
        assert term in words, term
    assert view.turn_heading == "A round, in order"
    turn = " ".join(view.turn)
    assert "one Market Action" in turn and "then one Black Market Action" in turn  # two attempts, said apart


def test_dml_aid_and_sheets_agree():
    """The contradictions a reader found between the aid and the sheets, each now said the same way."""
    from rulecraft.loader import load_ruleset as load

    rs = load("dml").ruleset
    view = aid_view(rs)
    decided, powers = dict(view.decisions), dict(view.powers)
    turn = " ".join(view.turn)
    steps = {f"{q}.{s.id}": s for q, seq in rs.sequences.items() for s in seq.steps}
    # a drawn 10 goes to the Hoard (sheet: 'anything else to the Hoard') and the Round is a Carnival of Coin
    assert "Any other card goes to the Dragon's Hoard and the Round is a Carnival of Coin" in turn
    # Wyvern Eyes calls a Dragon Siege, on the aid as on the sheets
    assert "Dragon Siege" in decided["4. Roll"] and "wyvern_siege" in {t.id for t in rs.triggers}
    # 'may take' on both: the sheets' choices are optional
    assert powers["Supreme Confisfactor (J♥)"].startswith("You may look")
    assert steps["power_confisfactor.pick_market"].decision.optional
    assert powers["Pampered Heiress (Q♥)"].startswith("You may take")
    assert powers["Archduchess of Avarice (Q♦)"].startswith("You may take")
    # the Tithe: the giver picks (the house rule's default), on the aid as the sheets print it
    assert rs.options["tithe_pick"].value == "giver" and "of their choice" in powers["Tithe Embezzeler (J♦)"]
    # the Thief's roll: the default target, 'or more'
    assert rs.options["thief_roll"].value == "at_least" and "7 or more" in powers["Thief (Joker)"]


def test_dml_sheets_draw_the_house_rules_as_set():
    """A house rule's default is what the game does: the sheets draw the Tithe's giver picking (not the random
    card of the other choice), the Dragon Siege's Eggs going back, and the title page names the other choices
    only as 'House rule: …'."""
    from rulecraft.tools.chart.sheetplan import plan_sheets
    from rulecraft.tools.print.sheets import _house_rule_rows
    from rulecraft.tools.words.bookkeeping import players_graph

    loaded = load_ruleset("dml")
    rs = loaded.ruleset
    g = players_graph(rs, loaded.graph)
    tithe = [n.step for n in g.nodes.values() if n.sequence == "power_embezzeler" and n.step is not None]
    texts = [getattr(s, "label", "") + " ".join(st.text for st in getattr(s, "stmts", ())) for s in tithe]
    assert any("move given to player.treasury" in t for t in texts)
    assert not any("random(q.treasury)" in t for t in texts)  # the other choice is not drawn
    assert not any(isinstance(s, type(rs.sequences["dragon_siege"].steps[0])) and s.path == "dragon_siege/1"
                   for s in (n.step for n in g.nodes.values()))  # the condition on siege_effect is not drawn
    rows = " ".join(_house_rule_rows(rs, plan_sheets(rs, g)))
    assert "Tithe pick: drawn as giver. House rule: random." in rows
    assert "Dragon Siege effect: drawn as eggs to nest. House rule: nothing." in rows


def test_a_browser_that_times_out_is_told_in_our_words(tmp_path, monkeypatch):
    # a stand-in for Chromium that complains of D-Bus on its error output and never answers: the message says what
    # happened and what to try; Chromium's line is kept for a debug log only
    from rulecraft.tools.print.htmlpdf import Printer, PrintError

    fake = tmp_path / "chromium"
    fake.write_text("#!/bin/sh\necho '[1:1:ERROR:bus.cc(407)] Failed to connect to the bus: no D-Bus here' >&2\n"
                    "exec sleep 30\n")
    fake.chmod(0o755)
    monkeypatch.setenv("RULECRAFT_CHROMIUM", str(fake))
    with pytest.raises(PrintError) as caught, Printer(timeout=0.5) as browser:
        browser.print("<p>x</p>")
    said = str(caught.value)
    assert said.startswith("Chromium did not finish printing the page within 0.5 seconds")
    assert "RULECRAFT_CHROMIUM" in said and "d-bus" not in said.lower() and "bus.cc" not in said and "ERROR" not in said
    assert "Failed to connect to the bus" in caught.value.detail


def test_the_set_up_says_where_the_cards_a_zone_starts_with_go():
    """A zone whose `initial:` picks some cards (the coins to the bank, the prizes to their pile): the set-up says
    which cards start where, as it does for `initial: all`; a first game could not be laid out without it."""
    from rulecraft.tools.print.setup.starts import starting_lines
    from rulecraft.tools.words import Words

    rs = load_ruleset(str(GAMES / "last-bid.yaml")).ruleset
    lines = starting_lines(rs, Words(rs, detail="players"))
    assert "The coin cards (20) start in the Coin bank." in lines, lines
    assert "The prize cards (8) start in the Prizes to come." in lines, lines


def test_the_set_up_says_how_many_cards_each_player_count_needs():
    # a card group's count reads player_count: the ruleset holds the largest game's copies, and the aid said
    # 'You need 5 cards' for every game; each player count's own number is what a table lays out
    from rulecraft.tools.print.setup.starts import starting_lines
    from rulecraft.tools.words import Words

    rs = load_ruleset(str(Path(__file__).parent / "cases" / "constructs" / "card_counts" / "ruleset.yaml")).ruleset
    assert starting_lines(rs, Words(rs, detail="players"))[0] == "You need 3 cards for 2 players, 5 for 3 or 4."
    dml = load_ruleset("dml").ruleset
    assert starting_lines(dml, Words(dml, detail="players"))[0] == "You need 54 cards and two six-sided dice."
