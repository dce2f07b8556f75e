"""`?` at the table explains: for every bundled ruleset, seeded games between random players, and at every kind
of decision they meet (each step that asks, and each purpose: a choice, a secret pick, a stack, a re-roll) the
help says a rule in words: never empty, never only the question again, never code."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
import yaml

from rulecraft.agents.base import RandomAgent
from rulecraft.bundled import bundled_rulesets
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.tools.words.seat.help import step_asking
from rulecraft.tools.words.seat.help import help_at_table
from rulecraft.tools.words.labels import code_like

HERE = Path(__file__).parent
FORBIDDEN = [(what, re.compile(rx)) for what, rx in
             yaml.safe_load((HERE / "cases" / "english" / "players-text.yaml").read_text(encoding="utf-8"))["forbidden"]]
SEEDS = (1, 2)
DECISIONS = 1500  # per game at most: enough to meet every kind; a game past it is left unfinished


def _plain(text: str) -> str:
    return re.sub(r"\W+", " ", (text or "").lower()).strip()


@functools.cache  # DML's is read by two tests: its games played once
def helps_met(name: str) -> dict:
    """The help shown at each kind of decision met in seeded games: (step path, purpose) -> (question, lines)."""
    rs = load_ruleset(name).ruleset
    seen: dict = {}
    for seed in SEEDS:
        n = rs.players.default
        agents = [RandomAgent(seat, seed) for seat in range(n)]
        g = Game(rs, n, seed, max_steps=400_000)
        for _ in range(DECISIONS):
            if g.over:
                break
            d = g.pending
            if (d.node, d.purpose) not in seen:
                seen[(d.node, d.purpose)] = (str(d.prompt or ""), help_at_table(rs, step_asking(rs, d.step), d))
            g.apply(agents[d.player].choose(d, g.view(d.player)))
    return seen


@pytest.mark.parametrize("name", [b.name for b in bundled_rulesets()])
def test_help_says_a_rule_at_every_kind_of_decision(name):
    seen = helps_met(name)
    assert seen, name
    for (node, purpose), (question, lines) in seen.items():
        where = f"{name} {purpose} at {node}: {question!r}"
        assert lines, f"no help {where}"
        rule = " ".join(line.split(": ", 1)[-1] for line in lines)
        assert _plain(rule) != _plain(question), f"the help only repeats the question {where}"
        assert not code_like(rule), (where, lines)
        bad = [what for what, rx in FORBIDDEN if rx.search(rule)]
        assert not bad, (where, bad, lines)


def test_help_gives_the_numbers_and_the_card_at_hand():
    """At DML's decisions the reader asked about: what a primary and a secondary bid do, the Black Market's 7, what
    the card being played as a Power does, the rule of a Dabo re-roll."""
    seen = helps_met("dml")
    said = {q: " ".join(lines) for q, lines in seen.values()}
    black = next(t for q, t in said.items() if q == "Choose a Black Market")
    assert "7 or more" in black
    bid = next(t for q, t in said.items() if q.startswith("Target "))
    assert "primary" in bid and "secondary" in bid and "cancels its number" in bid
    power = next((t for q, t in said.items() if "as a Power or as an Emblem" in q), None)
    assert power is None or re.search(r"\((?:[JQ][♠♣♥♦]|Joker)\): ", power)
    dabo = next(t for q, t in said.items() if "roll again" in q)
    assert "Dabo" in dabo and "double from 2 to 5" in dabo and "may be rolled again" in dabo
