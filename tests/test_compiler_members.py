"""A player looked for in a list (compiler/operators._in_list): by seat among the items' seats, without a call of
Player.__eq__ for each other player, and the same answers as the reference engine's `in` for a list of players, a
list holding other values (numbers, texts, none) and a list of one."""

from __future__ import annotations

import pytest

from rulecraft.compiler import expressions, stretches
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft import values

RULES = """ruleset: members
title: Members
players: {min: 4, max: 4, default: 4}
variables: {found: 0, mixed: 0, single: 0}
start: game
sequences:
  game:
    kind: game
    steps:
      - do: "let xs = [q for q in players if q.seat != 2]; let ys = [1, 'a', players[1], none]; let zs = [players[3]]"
      - for_each: p
        in: players
        do: ["found += 1 if p in xs else 0"]
      - for_each: p
        in: players
        do: ["mixed += 1 if p in ys else 0; single += 1 if p not in zs else 0"]
      - do: "win []"
"""


def _load(tmp_path_factory, text: str):
    path = tmp_path_factory.mktemp("members") / "members.yaml"
    path.write_text(text)
    loaded = load_ruleset(str(path))
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    return loaded.ruleset


@pytest.fixture(scope="module")
def ruleset(tmp_path_factory):
    return _load(tmp_path_factory, RULES)


@pytest.fixture(scope="module")
def players_only(tmp_path_factory):  # (only the list of players looked in)
    return _load(tmp_path_factory, RULES.replace("""      - for_each: p
        in: players
        do: ["mixed""", """      - for_each: p
        in: "[]"
        do: ["mixed"""))


@pytest.mark.parametrize("engine", ["compiled", "reference"])
def test_a_player_in_a_list_gives_the_same_answers_on_both_engines(ruleset, engine, monkeypatch):
    monkeypatch.setattr(stretches, "HOT", 0)
    monkeypatch.setattr(stretches, "STRICT", True)
    monkeypatch.setattr(expressions, "STRICT", True)
    g = Game(ruleset, None, 1, engine=engine, story=False)
    assert g.over
    assert (g.vars["found"], g.vars["mixed"], g.vars["single"]) == (3, 1, 3)


def test_a_player_in_a_list_of_players_is_found_by_seat_without_player_eq(players_only, monkeypatch):
    monkeypatch.setattr(stretches, "HOT", 0)
    monkeypatch.setattr(stretches, "STRICT", True)
    monkeypatch.setattr(expressions, "STRICT", True)
    calls = []
    eq = values.Player.__eq__

    def counted(self, other):
        calls.append(1)
        return eq(self, other)

    monkeypatch.setattr(values.Player, "__eq__", counted)
    g = Game(players_only, None, 1, engine="compiled", story=False)
    assert (g.vars["found"], g.vars["mixed"]) == (3, 0)
    assert calls == []  # (Python's `in` compared each player with the others of the list: 6 calls)


def test_a_try_of_one_statement_is_joined_to_it_and_no_other_line_moves():
    from rulecraft.compiler.safesource import joined_tries

    lines = ["def f(_L):", "    try:", "        x = _L[k]", "    except KeyError:", "        raise E", "    try:",
             "        if x:", "            y = 1", "    except TypeError:", "        pass", "    try:", "        a = 1",
             "        b = 2", "    finally:", "        pass", "    return x"]
    before = list(lines)
    assert joined_tries(lines) == [1] and lines == before  # (found, not rewritten)
    assert joined_tries(lines, rewrite=True) == [1]
    assert lines[1:3] == ["    try: x = _L[k]", ""] and lines[3:] == before[3:] and len(lines) == len(before)
    ns: dict = {}
    exec("\n".join(lines), {"k": "k", "E": KeyError}, ns)  # (still Python)
    assert ns["f"]({"k": 3}) == 3
