"""Ranking, results, display names and table cells worked out at load (issue 15, items 3 to 5), beyond the
construct cases: what a decision shows to agents and people, what a save keeps, and the errors of bad input."""

from __future__ import annotations

from pathlib import Path

from rulecraft.diagnostics import render_text
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.runtime.state_io import from_json, to_json

CASES = Path(__file__).resolve().parent / "cases" / "constructs"


def _load(path: Path):
    result = load_ruleset(str(path))
    assert result.ok, render_text(result.diagnostics, result.sources)
    return result.ruleset


def test_a_decision_gives_agents_and_people_the_display_names():
    rs = _load(CASES / "display_names" / "ruleset.yaml")
    g = Game(rs, 2, 1)
    d = g.pending
    assert d.options == ["income", "foreign_aid", "coup"]  # the values stay the engine's
    assert d.to_json()["options"] == ["Income", "Foreign Aid", "Coup (7 coins)"]
    assert [d.describe_option(i) for i in range(3)] == ["Income", "Foreign Aid", "Coup (7 coins)"]
    saved = from_json(rs, to_json(g))  # a save keeps the names the pending decision shows
    assert saved.pending.labels == d.labels
    g.apply(1)
    assert "P1: Your action -> Foreign Aid" in g.narrative


def test_a_game_without_display_names_saves_as_before():
    rs = _load(CASES / "choose_one" / "ruleset.yaml")
    g = Game(rs, 2, 1)
    assert g.pending is not None and "labels" not in to_json(g)["pending"]


def _ruleset(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "r.yaml"
    path.write_text("ruleset: r\ntitle: R\nplayers: {min: 2, max: 2, default: 2}\nstart: game\n" + body,
                    encoding="utf-8")
    return path


def test_table_cells_are_worked_out_when_the_ruleset_loads(tmp_path: Path):
    path = _ruleset(tmp_path, """parameters: {cost: {default: 3, min: 1, max: 9, doc: A cost.}}
tables:
  t: {keys: [a, b], columns: [x], rows: {a: ["=cost * 2"], b: {x: "=cost + 1"}}}
sequences:
  game: {kind: game, steps: ["log '{t[\\"a\\"].x} {t[\\"b\\"].x}'"]}
""")
    rs = _load(path)
    assert rs.tables["t"].rows["a"]["x"] == 6 and rs.tables["t"].rows["b"]["x"] == 4
    g = Game(rs, 2, 1)
    assert g.narrative[0] == "6 4"


def test_a_table_cell_that_needs_a_game_is_refused(tmp_path: Path):
    path = _ruleset(tmp_path, """zones: {deck: {}}
tables:
  t: {keys: [a], columns: [x], rows: {a: ["=deck.size"]}}
sequences:
  game: {kind: game, steps: ["pass"]}
""")
    result = load_ruleset(str(path))
    errors = [d for d in result.diagnostics if d.is_error]
    assert not result.ok and [d.code for d in errors] == ["E301"] and "'deck'" in errors[0].message


def test_a_card_range_that_gives_nothing_is_refused(tmp_path: Path):
    path = _ruleset(tmp_path, """parameters: {top: {default: 4, min: 1, max: 9, doc: The highest value.}}
cards:
  - {for: {value: 5..1}, id: "a{value}"}
  - {for: {value: "=1..top"}, id: "b{value}"}
zones: {deck: {initial: all}}
sequences:
  game: {kind: game, steps: ["pass"]}
""")
    result = load_ruleset(str(path))
    errors = [d for d in result.diagnostics if d.is_error]
    assert [d.code for d in errors] == ["E204"] and "5..1" in errors[0].message
    path.write_text(path.read_text().replace("5..1", "1..5"))
    rs = _load(path)
    assert [c.id for c in rs.cards] == ["a1", "a2", "a3", "a4", "a5", "b1", "b2", "b3", "b4"]
