"""A person at the terminal: bad input asks again, end of input stops cleanly, the log stays."""

import io
import json
import os

import pytest

from cli_fork import run_cli

from rulecraft.agents.human import HumanQuit
from rulecraft.loader import load_ruleset
from rulecraft.runtime.decisions import Decision
from rulecraft.runtime.game import Game
from rulecraft.tools.table.session import person


def agent(text: bytes, time_limit=None):
    out = io.StringIO()
    return person(0, out, io.BytesIO(text), time_limit), out


VIEW = {"players": ["Ann", "Bob"], "zones": {"deck": {"count": 3}, "hand[0]": ["7h"]}, "player_variables": [{"coins": 3}, {}]}


def one(n=3):
    return Decision(0, "one", "Pick", options=[f"opt{i}" for i in range(n)])


def test_menu_numbers_from_one_and_shows_the_view():
    a, out = agent(b"2\n")
    assert a.choose(one(), VIEW) == 1
    text = out.getvalue()
    assert "1) opt0" in text and "3) opt2" in text
    assert "hand[0]: 7h" in text and "deck: 3 cards" in text and "coins 3" in text


@pytest.mark.parametrize("bad", [b"\n", b"0\n", b"9\n", b"abc\n", b"1 2\n", b"\xff\xfe\n", b"x" * 5000 + b"\n"])
def test_bad_input_asks_again(bad):
    a, out = agent(bad + b"3\n")
    assert a.choose(one(), VIEW) == 2
    assert "try again" in out.getvalue()


def test_subset_number_and_yesno():
    a, _ = agent(b"1 3\n")
    d = Decision(0, "subset", "Some", options=["a", "b", "c"], min=0, max=3)
    assert a.choose(d, VIEW) == [0, 2]
    a, _ = agent(b"42\n7\n")
    assert a.choose(Decision(0, "number", "N", min=1, max=10), VIEW) == 7
    a, _ = agent(b"maybe\ny\n")
    assert a.choose(Decision(0, "yesno", "Q", options=[True, False]), VIEW) is True


def test_end_of_input_raises_humanquit():
    a, _ = agent(b"")
    with pytest.raises(HumanQuit):
        a.choose(one(), VIEW)


def test_time_limit_takes_the_default():
    r, w = os.pipe()  # a pipe that never gets input
    try:
        a = person(0, io.StringIO(), os.fdopen(r, "rb"), 0.05)
        d = one()
        d.default = 2
        assert a.choose(d, VIEW) == 2
    finally:
        os.close(w)


def test_eof_in_a_played_game_exits_130_and_keeps_the_log(tmp_path):
    log = tmp_path / "g.log"
    # answer two questions, then end input
    proc = run_cli(["play", "pig", "--agent", "human", "--agent", "first", "--seed", "3", "--log", str(log)],
                   input=b"y\ny\n", timeout=60, text=False)  # forked: tests/cli_fork.py
    assert proc.returncode == 130, proc.stderr.decode()
    assert b"Traceback" not in proc.stderr
    records = [json.loads(l) for l in log.read_text().splitlines()]
    assert records[0]["type"] == "header"
    assert sum(r["type"] == "decision" for r in records) >= 2
    again = run_cli(["replay", str(log), "--partial"], timeout=60, text=False)
    assert again.returncode == 0, again.stdout.decode()


def test_human_sees_only_their_own_view():
    rs = load_ruleset("dml").ruleset
    g = Game(rs, 4, 1)
    view = g.view(g.pending.player)
    me = g.pending.player
    for slot, shown in view["zones"].items():
        if slot.startswith("treasury[") and slot != f"treasury[{me}]":
            assert isinstance(shown, dict) and set(shown) == {"count"}
    assert isinstance(view["zones"]["event_deck"], dict)


def test_the_bot_in_docs_agents_plays(tmp_path, monkeypatch):
    """docs/agents.md: its example bot loads through python:MODULE:CLASS and plays a game."""
    import re
    from pathlib import Path

    from rulecraft.tools.table.play import play

    text = (Path(__file__).parent.parent / "docs" / "agents.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    (tmp_path / "greedy_bot.py").write_text(blocks[0])
    monkeypatch.syspath_prepend(str(tmp_path))
    out = io.StringIO()
    assert play("dml", 4, ["python:greedy_bot:GreedyBot", "random"], 3, None, {}, quiet=True, out=out) == 0
    assert "winner:" in out.getvalue()
    import runpy

    (tmp_path / "drive.py").write_text(blocks[1])
    namespace = runpy.run_path(str(tmp_path / "drive.py"))  # the driving-from-Python example
    assert namespace["game"].over


def test_a_bid_is_typed_as_an_amount_and_a_huge_limit_lists_nothing():
    bid = Decision(0, "one", "Bid", options=[None] + list(range(8, 100_000)))
    a, out = agent(b"3\n8\n")
    assert bid.options[a.choose(bid, VIEW)] == 8  # typing 8 bids 8, not the 8th option
    text = out.getvalue()
    assert "Type an amount from 8 to 99999, or pass." in text
    assert "3 is not an amount you can choose here" in text
    assert len(text.splitlines()) < 20  # no line per amount
    for word in (b"pass\n", b"p\n"):
        a, _ = agent(word)
        assert bid.options[a.choose(bid, VIEW)] is None


def test_set_wording_says_how_many_and_an_empty_answer_only_where_it_is_legal():
    a, out = agent(b"\n1 2 3\n")
    d = Decision(0, "subset", "Pass three", options=["a", "b", "c", "d"], min=3, max=3)
    assert a.choose(d, VIEW) == [0, 1, 2]
    text = out.getvalue()
    assert "Enter 3 option numbers separated by spaces." in text and "3 to 3" not in text and "empty" not in text
    a, out = agent(b"\n")
    assert a.choose(Decision(0, "subset", "Any", options=["a", "b"], min=0, max=2), VIEW) == []
    assert "or press Enter to pass." in out.getvalue() and "nothing for none" not in out.getvalue()
    a, _ = agent(b"pass\n")
    assert a.choose(Decision(0, "subset", "Any", options=["a", "b"], min=0, max=2), VIEW) == []


def test_pass_is_typed_at_an_optional_card_choice_as_at_a_bid():
    """An optional choice of things (a card to play, a target) takes 'pass' or 'p' for its pass; a choice without a
    pass still asks for an option number."""
    play = Decision(0, "one", "Play a card?", options=["7h", "9s", None])
    for word in (b"pass\n", b"p\n", b"PASS\n"):
        a, _ = agent(word)
        assert play.options[a.choose(play, VIEW)] is None
    a, out = agent(b"pass\n2\n")
    assert a.choose(one(), VIEW) == 1
    assert "enter one option number from 1 to 3, or an option's name; try again" in out.getvalue()
    a, _ = agent(b"1\n")  # a number is the option's number, even where an option's name is a number
    assert a.choose(Decision(0, "one", "Pick", options=["3", "2", "1"]), VIEW) == 0


def test_an_option_is_typed_by_its_name_too():
    """'Coin 4' typed at a menu whose option 3 is Coin 4 (case and spaces aside) takes it; a name no option has is
    asked again, saying how to answer one option."""
    d = Decision(0, "one", "Lay a card", options=["Coin 3", "Coin 4", None])
    a, out = agent(b"coin 5\n  COIN 4 \n")
    assert a.choose(d, VIEW) == 1
    assert "enter one option number from 1 to 3, or an option's name; try again" in out.getvalue()


def test_all_takes_every_option_where_the_decision_allows_that_many():
    a, out = agent(b"all\n")
    d = Decision(0, "subset", "Play which?", options=["a", "b", "c", "d"], min=0, max=4)
    assert a.choose(d, VIEW) == [0, 1, 2, 3]
    assert "'all' for every one" in out.getvalue()
    a, out = agent(b"all\n1 2\n")  # at most 2 of 4: 'all' is refused with the reason, and asked again
    d = Decision(0, "subset", "Keep two", options=["a", "b", "c", "d"], min=2, max=2)
    assert a.choose(d, VIEW) == [0, 1]
    assert "at most 2 of the 4" in out.getvalue() and "'all'" not in out.getvalue().split("at most")[0]


def test_a_pass_where_there_is_none_is_told_so():
    """An amount with no pass (the first bidder must open) read 'type an amount from 17 to 20' to a person who typed
    'pass', which did not say why; now 'you cannot pass here' first (s16-lang's mill-row at the terminal)."""
    bid = Decision(0, "one", "Open the bidding", options=[17, 18, 19, 20])
    a, out = agent(b"pass\n18\n")
    assert bid.options[a.choose(bid, VIEW)] == 18
    assert "you cannot pass here: type an amount from 17 to 20" in out.getvalue()
    count = Decision(0, "number", "How many?", min=1, max=4)
    a, out = agent(b"pass\n2\n")
    assert a.choose(count, VIEW) == 2
    assert "you cannot pass here: enter a whole number from 1 to 4" in out.getvalue()
