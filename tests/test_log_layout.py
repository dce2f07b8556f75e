"""Logs and saves survive harmless edits; replay checks decision numbers and where a log's ruleset lies.

Issue 14, item 12 (and the simulate printing of item 13).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from gamerecord import record_game
from rulecraft.runtime.replay import replay
from rulecraft.runtime.savegame import read_save, restore
from rulecraft.loader import load_ruleset
from rulecraft.tools.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
DML = ROOT / "rulesets" / "dml"


def _with_comment(path: Path) -> None:
    """One comment line (and a blank one) at the top: every step moves down two lines."""
    path.write_text("# a comment a designer added\n\n" + path.read_text(encoding="utf-8"), encoding="utf-8")


def test_a_comment_line_keeps_logs_and_saves_valid(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copytree(DML, tmp_path / "dml")
    ref = "dml/dml-2016.yaml"
    record_game(ref, ref, 4, "full.log", "full.save")
    record_game(ref, ref, 4, "mid.log", "mid.save", stop_after=25)  # a save that waits for decision 26
    assert json.loads(Path("mid.save").read_text().splitlines()[-1])["state"]["pending"] is not None
    for f in ("dml.yaml", "dml-2016.yaml"):  # the variant and the file it extends
        _with_comment(tmp_path / "dml" / f)
    report = replay("full.log")
    assert report.ok and report.complete, report.message
    assert any("changed" in w for w in report.warnings)  # the files changed: said, not refused
    partial = replay("mid.log")
    assert partial.unfinished and partial.decisions == 25, partial.message
    game, records = restore(read_save("mid.save"), load_ruleset(ref).ruleset)
    assert len(records) == 25 and not game.over


def test_a_renumbered_decision_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ref = str(ROOT / "rulesets" / "examples" / "pig.yaml")
    record_game(ref, ref, 5, "g.log", "g.save")
    lines = Path("g.log").read_text().splitlines()
    rec = json.loads(lines[3])
    rec["n"] = 7
    lines[3] = json.dumps(rec)
    Path("g.log").write_text("\n".join(lines) + "\n")
    report = replay("g.log")
    assert not report.ok and report.line == 4 and "numbers this decision 7" in report.message


def _log_naming(folder: Path, ruleset_ref: str) -> Path:
    from rulecraft.inputs import forget_inputs

    forget_inputs()  # a new command, as main() starts each: the log the last replay read is no longer an input
    ref = str(ROOT / "rulesets" / "examples" / "pig.yaml")
    record_game(ref, ruleset_ref, 5, str(folder / "g.log"), str(folder / "g.save"))
    return folder / "g.log"


def test_replay_opens_a_named_ruleset_only_in_its_own_places(tmp_path, monkeypatch, capsys):
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    work.mkdir()
    elsewhere.mkdir()
    shutil.copy(ROOT / "rulesets" / "examples" / "pig.yaml", elsewhere / "pig.yaml")
    shutil.copy(ROOT / "rulesets" / "examples" / "pig.yaml", work / "pig.yaml")
    monkeypatch.chdir(work)
    # outside the log's folder and the current folder: refused, whether absolute or climbing out
    for named in (str(elsewhere / "pig.yaml"), "../elsewhere/pig.yaml"):
        report = replay(str(_log_naming(work, named)))
        assert not report.ok and "outside the log's folder" in report.message and report.line == 1
    # a symlink inside the folder that leads out is judged by where it leads
    (work / "link.yaml").symlink_to(elsewhere / "pig.yaml")
    assert "outside" in replay(str(_log_naming(work, "link.yaml"))).message
    # named by the user: fine
    assert main(["replay", str(work / "g.log"), "--ruleset", str(elsewhere / "pig.yaml"), "--quiet"]) == 0
    # beside the log, in the current folder, or bundled: opened
    for named in ("pig.yaml", str(work / "pig.yaml"), "pig"):
        report = replay(str(_log_naming(work, named)))
        assert report.ok, (named, report.message)
    # a log elsewhere naming a file beside it
    report = replay(str(_log_naming(elsewhere, "pig.yaml")))
    assert report.ok, report.message


ERRORING = """\
ruleset: always-fails
title: Always fails
players: {min: 2, max: 2, default: 2}
start: game
variables:
  x: 0
sequences:
  game:
    kind: stage
    steps:
      - "set x = players[5]"
"""


def test_simulate_with_every_game_in_error_prints_only_the_errors(tmp_path, capsys):
    path = tmp_path / "fails.yaml"
    path.write_text(ERRORING)
    assert main(["simulate", str(path), "--games", "3", "--workers", "1"]) == 1
    out = capsys.readouterr().out
    assert "ERRORS in 3 games" in out and "win rate" not in out and "0.0%" not in out, out


def test_a_format_1_log_still_replays_with_its_own_hashes(monkeypatch):
    """Logs written before format 2 hashed the asking step's line:column; they replay with that hash."""
    cases = ROOT / "tests" / "cases"
    log = cases / "logs" / "001-valid-complete" / "game.log"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert records[0]["format"] == 1 and any("hash" in r for r in records[1:-1])
    monkeypatch.chdir(cases)
    report = replay("logs/001-valid-complete/game.log")
    assert report.ok and report.complete, report.message
