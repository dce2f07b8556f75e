"""`rulecraft test SCENARIO...`: one line per scenario, a count, and the exit codes (0 all pass, 1 a failure, 2 usage)."""

from __future__ import annotations

from pathlib import Path

from rulecraft.tools.cli.main import main

PIG = Path(__file__).parent / "scenarios" / "pig"

GOOD = """\
ruleset: pig
run: turn
with: {player: "players[0]"}
dice: [6, 5]
choices: [true, false]
expect:
  values:
    "players[0].score": %d
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_every_scenario_passes_one_line_each(tmp_path, capsys):
    a = _write(tmp_path, "a.yaml", GOOD % 11)
    b = _write(tmp_path, "b.yaml", "xfail: a known problem\n" + GOOD % 12)  # fails, as its xfail says
    assert main(["test", str(a), str(b)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [f"PASS  {a}", f"XFAIL {b}: a known problem", "2 passed, 0 failed"]


def test_a_failure_names_its_first_problem_and_exits_1(tmp_path, capsys):
    bad = _write(tmp_path, "bad.yaml", GOOD % 12)
    stale = _write(tmp_path, "stale.yaml", "xfail: fixed since\n" + GOOD % 11)
    broken = _write(tmp_path, "broken.yaml", "ruleset: [\n")
    assert main(["test", str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"FAIL  {bad}: players[0].score: expected 12, got 11"
    assert out[1].startswith(f"ERROR {broken}: not a YAML file")
    assert out[2] == f"XPASS {stale}: marked xfail but passes: remove its 'xfail' key"
    assert out[3] == "0 passed, 3 failed"


def test_verbose_shows_the_story_of_a_failure(tmp_path, capsys):
    bad = _write(tmp_path, "bad.yaml", GOOD % 12)
    assert main(["test", "-v", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "      | P1 banks 11 for 11" in out


def test_usage_errors_exit_2(tmp_path, capsys):
    assert main(["test", str(tmp_path / "missing.yaml")]) == 2
    assert "no such scenario file or folder" in capsys.readouterr().err
    assert main(["test", str(tmp_path)]) == 2  # a folder with no scenario
    assert "no scenario files" in capsys.readouterr().err


def test_a_ruleset_is_no_scenario(tmp_path, capsys):
    """A designer's folder holds the ruleset beside its scenarios: `test FOLDER` runs the scenarios and passes the
    ruleset over; a ruleset named on its own is an ERROR that says what it is (it read 'no ruleset file or
    bundled ruleset named ID', the ruleset's own id taken for a scenario's `ruleset:`)."""
    rules = _write(tmp_path, "my-pig.yaml", "ruleset: my-pig\nextends: pig\ntitle: My pig\n")
    good = _write(tmp_path, "bank.yaml", GOOD % 11)
    assert main(["test", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines() == [f"PASS  {good}", "1 passed, 0 failed"]
    assert main(["test", str(rules)]) == 1
    out = capsys.readouterr().out
    assert f"ERROR {rules}: a ruleset, not a scenario" in out, out


LAST_BID = """\
# last-bid: the lowest card laid costs a life; the highest takes the prize (cards answered by their ids)
ruleset: %s
players: 3
rest: bank
zones:
  prizes: [prize_3#1]
  "hand[0]": ["coin_5#1", "coin_1#1", "coin_1#2"]
  "hand[1]": ["coin_2#1", "coin_2#2", "coin_2#3"]
  "hand[2]": ["coin_3#1", "coin_3#2", "coin_3#3"]
run: round
choices: [%s, "coin_2#1", "coin_3#1", null, null, null]
expect:
  zones:
    "won[0]": ["prize_3#1"]
  values:
    "players[1].lives": 1
"""


def test_a_card_is_answered_by_its_id_as_the_docs_say(tmp_path, capsys):
    """docs/testing.md: 'An answer is the value itself (... a card id ...)'; a card id was refused ('answer an
    option number'), and the refusal listed the options by name only, with a pass as 'None'."""
    game = Path(__file__).parent / "cases" / "games" / "last-bid.yaml"
    good = _write(tmp_path, "good.yaml", LAST_BID % (game, '"coin_5#1"'))
    assert main(["test", str(good)]) == 0, capsys.readouterr().out
    capsys.readouterr()
    bad = _write(tmp_path, "bad.yaml", LAST_BID % (game, '"coin_4#1"'))  # not in the hand
    assert main(["test", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "Coin 5 (coin_5#1)" in out and "'pass'" in out and "None" not in out, out
