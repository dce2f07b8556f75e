"""The bad-input corpus of game logs and saved games: tests/cases/logs/ and tests/cases/saves/.

Each folder holds one file (`game.log` or `game.save`) and `expected.yaml`:

    # what the case shows, in one line
    verdict: "chance differs"     # a piece of the message
    exit: 1                       # the exit code of `rulecraft replay` / `rulecraft play --resume`
    line: 6                       # the line of the file the message names (null: none)
    partial: true                 # optional (logs): replay with --partial
    ruleset: "../../_rulesets/x.yaml"  # optional: --ruleset for a log, the RULESET of `play` for a save
    agents: ["random"]            # optional (saves): --agent values
    warning: "files changed"      # optional: a warning that must be printed

The files were written by tests/cases/make_log_save_cases.py from seeded games of the frozen
rulesets in tests/cases/_rulesets/. Whatever the file holds, the command gives a verdict and
an exit code, never a traceback.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
import yaml

import rulecraft.tools.table.play as play_module
from rulecraft.tools.table.play import play, replay_log

CASES = Path(__file__).resolve().parent / "cases"
LOGS = sorted(p.name for p in (CASES / "logs").iterdir() if p.is_dir())
SAVES = sorted(p.name for p in (CASES / "saves").iterdir() if p.is_dir())
PIG = "../../_rulesets/pig.yaml"
KEYS = {"verdict", "exit", "line", "partial", "ruleset", "agents", "warning"}


def _expected(case: Path) -> dict:
    first = (case / "expected.yaml").read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# ") and len(first) > 10, f"{case.name}: expected.yaml starts with a one-line comment"
    data = yaml.safe_load((case / "expected.yaml").read_text(encoding="utf-8"))
    assert {"verdict", "exit", "line"} <= set(data) <= KEYS, f"{case.name}: {data}"
    return data


def test_corpus_is_big_enough():
    assert len(LOGS) >= 50 and len(SAVES) >= 30 and len(LOGS) + len(SAVES) >= 80, (len(LOGS), len(SAVES))


@pytest.mark.parametrize("name", LOGS, ids=LOGS)
def test_log_case(name, monkeypatch, capsys):
    case = CASES / "logs" / name
    exp = _expected(case)
    seen = []

    def spy(path, **kw):
        report = real(path, **kw)
        seen.append(report)
        return report

    real = play_module.replay
    monkeypatch.setattr(play_module, "replay", spy)
    # from the corpus folder: a log's ruleset (../../_rulesets/...) lies inside the current folder, one of
    # the places replay opens a ruleset a log names without being told (docs/security.md)
    monkeypatch.chdir(CASES)
    given = exp.get("ruleset")
    code = replay_log(f"logs/{name}/game.log", partial_ok=exp.get("partial", False),
                      ruleset=os.path.normpath(f"logs/{name}/{given}") if given and given.endswith(".yaml") else given)
    out = capsys.readouterr()
    report = seen[0]
    shown = f"exit {code}, line {report.line}: {report.message}\n{out.out}{out.err}"
    assert code == exp["exit"], shown
    assert exp["verdict"] in report.message, shown
    assert report.line == exp["line"], shown
    if report.line is not None:
        assert f"game.log:{report.line}: " in out.out, shown  # the CLI names the line
    if "warning" in exp:
        assert any(exp["warning"] in w for w in report.warnings), report.warnings
    assert "Traceback" not in out.out + out.err


@pytest.mark.parametrize("name", SAVES, ids=SAVES)
def test_save_case(name, tmp_path, monkeypatch, capsys):
    case = CASES / "saves" / name
    exp = _expected(case)
    work = tmp_path / "saves" / name
    shutil.copytree(case, work)  # resuming rewrites the save: work on a copy
    shutil.copytree(CASES / "_rulesets", tmp_path / "_rulesets")
    monkeypatch.chdir(work)
    before = (work / "game.save").read_bytes()
    code = play(exp.get("ruleset", PIG), None, exp.get("agents", []), 1, None, {}, quiet=True, resume_path="game.save")
    out = capsys.readouterr()
    text = out.out + out.err
    shown = f"exit {code}:\n{text}"
    assert code == exp["exit"], shown
    assert exp["verdict"] in text, shown
    lines = re.findall(r"game\.save:(\d+): ", out.err)
    assert (int(lines[0]) if lines else None) == exp["line"], shown
    if "warning" in exp:
        assert re.search(r"warning: .*" + re.escape(exp["warning"]), out.err), shown
    if code != 0:
        assert (work / "game.save").read_bytes() == before, "a refused save must be left as it was"
    assert "Traceback" not in text
