"""A person plays DML at a real terminal (a pseudo-terminal driven by pexpect): they see the target and their cards
by name, are told why an answer is refused, ask for help, take back a decision, quit and resume."""

from __future__ import annotations

import os
import sys

import pytest

pexpect = pytest.importorskip("pexpect", reason="pexpect drives the terminal (pip install 'rulecraft[test]')")

ESC = "\x1b["


def spawn(args: list[str], cwd) -> "pexpect.spawn":
    env = dict(os.environ, NO_COLOR="1", COLUMNS="120", LINES="50", TERM="xterm")
    child = pexpect.spawn(sys.executable, ["-m", "rulecraft.tools.cli.main", "play", *args], cwd=str(cwd), env=env,
                          encoding="utf-8", dimensions=(50, 120), timeout=60)
    return child


def test_a_person_plays_dml_at_a_terminal(tmp_path):
    child = spawn(["dml", "--agent", "human", "--seed", "5", "--pace", "0"], tmp_path)
    # seed 5: P1's first decision is whether to lay a card to seize P4's spice, target 10
    child.expect("Iron King")  # their own Merchant King by name, in the players' table
    child.expect("Target value")
    child.expect("10")
    child.expect("Lay a card face down to seize spice")
    child.expect("2 of diamonds")  # their own cards by name among the choices
    child.expect("> ")
    screen = child.before
    assert ESC in screen  # laid out for a terminal (rich), not the plain listing of a pipe
    assert "treasury[0]" not in screen and "piles[" not in screen  # no engine ids
    child.sendline("9")
    child.expect("answer an option number from 1 to 3; try again")
    child.sendline("?")
    child.expect("Asked: Lay a card face down")
    child.expect("Pick one: 1\\) 2 of diamonds, 2\\) 3 of clubs, 3\\) pass")
    child.sendline("3")
    child.expect("Revealed: ")
    child.expect("Lay a card face down to seize slaves")
    child.expect("> ")
    child.sendline("undo")  # the sealed choices were shown since: taking back would let P1 act on them
    child.expect("Cannot take back your last decision: the sealed choices were revealed since.")
    child.expect("> ")
    child.sendline("quit")
    child.expect("--resume dml-seed5.save")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    again = spawn(["dml", "--resume", "dml-seed5.save", "--pace", "0"], tmp_path)
    again.expect("resumed after")
    again.expect("Lay a card face down to seize slaves")  # the same decision, the same game
    again.expect("> ")
    again.sendline("quit")
    again.expect(pexpect.EOF)
    again.close()
    assert again.exitstatus == 130


AUCTION = os.path.join(os.path.dirname(__file__), "cases", "table", "auction.yaml")
SECRETS = os.path.join(os.path.dirname(__file__), "cases", "constructs", "secrets", "ruleset.yaml")


def test_bids_typed_as_amounts_and_undo_inside_an_auction_at_a_terminal(tmp_path):
    child = spawn([AUCTION, "--agent", "human", "--agent", "random", "--seed", "4", "--pace", "0", "--log", "a.log"],
                  tmp_path)
    child.expect("Type an amount from 2 to 20, or pass")
    child.expect("> ")
    child.sendline("5")
    child.expect("P1: Bid for the lot \\(top 0\\) -> 5")
    child.expect("P3 pays 20")
    child.expect("> ")
    child.sendline("undo")
    child.expect("Taken back: your decision 1; you decide again.")
    child.expect("> ")
    child.sendline("5")
    child.expect("P3 pays 20")  # the same bid, the same answers from the bots
    child.expect("> ")
    child.sendline("pass")
    child.expect("> ")
    child.sendline("p")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_the_hand_off_clears_the_screen(tmp_path):
    child = spawn([SECRETS, "--agent", "human", "--agent", "human", "--seed", "5", "--pace", "0"], tmp_path)
    child.expect("Pass the terminal to P1")
    assert "\x1b[2J" in child.before and "?[2J" not in child.before  # a real clear, not its text
    child.sendline("")
    child.expect("> ")
    child.sendline("1")
    child.expect("P1: when you have read this, press Enter")  # P1 was told which gem they put back
    child.sendline("")
    child.expect("Pass the terminal to P2")
    assert "\x1b[2J\x1b[3J" in child.before and "?[2J" not in child.before  # the scroll-back too
    child.sendline("")
    child.expect("> ")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
