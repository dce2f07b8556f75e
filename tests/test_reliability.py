"""Saved games (`play --save` / `--resume`), the log a resumed game continues, and input at the terminal.

The corpus (test_log_save_corpus.py) holds the damaged and tampered files; these are the
behaviours around them: what is written when, what a resumed game does with its agents and
its log, which command lines are refused, and a person's odd input.
"""

from __future__ import annotations

import io
import json
import os
import stat
from pathlib import Path

import pytest

from rulecraft.agents.human import HumanQuit
from rulecraft.runtime.decisions import Decision
from rulecraft.runtime.replay import replay
from rulecraft.runtime.savegame import read_save
from rulecraft.tools.cli.main import main
from rulecraft.tools.table.play import play
from rulecraft.tools.table.session import person

STOP_AFTER = """\
from rulecraft.agents import AgentError
from rulecraft.agents.base import RandomAgent

class StopAfter(RandomAgent):
    \"\"\"The random bot, which gives up at its {n}th decision (a game that stops in the middle).\"\"\"
    asked = 0

    def choose(self, decision, view):
        type(self).asked += 1
        if type(self).asked > {n}:
            raise AgentError("stopped on purpose")
        return super().choose(decision, view)
"""


@pytest.fixture
def stop_after(tmp_path, monkeypatch):
    def make(n: int) -> str:
        name = f"stopper{n}"
        (tmp_path / f"{name}.py").write_text(STOP_AFTER.format(n=n), encoding="utf-8")
        monkeypatch.syspath_prepend(str(tmp_path))
        return f"python:{name}:StopAfter"
    return make


def _result(capsys) -> str:
    return capsys.readouterr().out.strip().splitlines()[-1]


def _lines(path: Path) -> list[dict]:
    return [json.loads(l) for l in path.read_text().splitlines()]


def test_save_after_every_decision_and_at_the_end(tmp_path, capsys):
    save = tmp_path / "g.save"
    assert play("pig", None, [], 5, None, {}, quiet=True, save_path=str(save)) == 0
    recs = _lines(save)
    assert recs[0]["type"] == "save" and recs[-1]["type"] == "state" and recs[-1]["state"]["over"]
    assert recs[0]["decisions"] == len(recs) - 2 == recs[-1]["state"]["decisions"]
    assert not [p for p in tmp_path.iterdir() if p.name != "g.save"], "a temporary file was left behind"
    assert stat.S_IMODE(save.stat().st_mode) & 0o077 == 0, "a save is private to its owner"


def test_a_stopped_game_resumes_to_the_same_end_as_an_unbroken_one(tmp_path, capsys, stop_after):
    assert play("pig", None, [], 7, None, {}, quiet=True) == 0
    unbroken = _result(capsys)
    save, log = tmp_path / "g.save", tmp_path / "g.log"
    assert play("pig", None, [stop_after(15), "random"], 7, str(log), {}, quiet=True, save_path=str(save)) == 1
    assert "stopped on purpose" in capsys.readouterr().err
    assert read_save(str(save)).header["decisions"] > 0
    assert play("pig", None, ["random"], 1, str(log), {}, quiet=True, resume_path=str(save)) == 0
    assert _result(capsys) == unbroken  # the random bots went on where they were
    report = replay(str(log))
    assert report.ok and report.complete, report.message


def test_the_log_of_a_game_killed_between_its_log_line_and_its_save_is_mended(tmp_path, capsys, stop_after):
    save, log = tmp_path / "g.save", tmp_path / "g.log"
    assert play("pig", None, [stop_after(10), "random"], 3, str(log), {}, quiet=True, save_path=str(save)) == 1
    lines = log.read_text().splitlines()
    saved = read_save(str(save))
    # one decision more in the log than in the save, and half a line after it
    extra = dict(json.loads(lines[-1]), n=len(saved.decisions) + 1)
    log.write_text("\n".join(lines + [json.dumps(extra)]) + "\n" + lines[-1][:20])
    assert play("pig", None, [], 1, str(log), {}, quiet=True, resume_path=str(save)) == 2  # a python: bot is not
    assert "give them again with --agent" in capsys.readouterr().err  # taken from the file
    assert play("pig", None, ["random"], 1, str(log), {}, quiet=True, resume_path=str(save)) == 0
    report = replay(str(log))
    assert report.ok and report.complete, report.message


def test_resume_with_a_new_log_writes_the_whole_game(tmp_path, capsys, stop_after):
    save = tmp_path / "g.save"
    assert play("pig", None, [stop_after(12), "random"], 2, None, {}, quiet=True, save_path=str(save)) == 1
    log = tmp_path / "new.log"
    assert play("pig", None, ["random"], 1, str(log), {}, quiet=True, resume_path=str(save)) == 0
    report = replay(str(log))
    assert report.ok and report.complete and report.decisions == _lines(save)[0]["decisions"], report.message


def test_resume_refuses_the_log_of_another_game(tmp_path, capsys, stop_after):
    save, other = tmp_path / "g.save", tmp_path / "other.log"
    assert play("pig", None, [stop_after(5), "random"], 2, None, {}, quiet=True, save_path=str(save)) == 1
    assert play("pig", None, [], 9, str(other), {}, quiet=True) == 0
    before = other.read_bytes()
    capsys.readouterr()
    assert play("pig", None, ["random"], 1, str(other), {}, quiet=True, resume_path=str(save)) == 1
    assert "log of another game" in capsys.readouterr().err
    assert other.read_bytes() == before


def test_resuming_a_finished_game_tells_its_result(tmp_path, capsys):
    save, log = tmp_path / "g.save", tmp_path / "g.log"
    assert play("pig", None, [], 4, str(log), {}, quiet=True, save_path=str(save)) == 0
    first = _result(capsys)
    before = log.read_bytes()
    assert play("pig", None, [], 1, str(log), {}, resume_path=str(save)) == 0
    assert _result(capsys) == first
    assert log.read_bytes() == before, "a complete log is left as it is"


@pytest.mark.parametrize("argv,words", [
    (["--resume", "S", "--players", "3"], "come from the saved game"),
    (["--resume", "S", "--set", "target_score=20"], "come from the saved game"),
    (["--resume", "S", "--names", "A,B"], "come from the saved game"),
    (["--save", "L", "--log", "L"], "each output needs its own file"),
    (["--resume", "S", "--log", "S"], "different files"),
    (["--save", "."], "not a plain file"),
])
def test_command_lines_that_make_no_sense_are_usage_errors(tmp_path, monkeypatch, capsys, argv, words):
    monkeypatch.chdir(tmp_path)
    assert play("pig", None, [], 1, None, {}, quiet=True, save_path="S") == 0
    capsys.readouterr()
    assert main(["play", "pig", *argv]) == 2
    assert words in capsys.readouterr().err


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
def test_a_save_never_replaces_a_device(capsys):
    assert main(["play", "pig", "--save", "/dev/null"]) == 2
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes anywhere")
def test_a_save_that_cannot_be_written_is_an_error_not_a_traceback(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        assert main(["play", "pig", "--save", str(ro / "g.save"), "--quiet"]) == 1
        assert "cannot write" in capsys.readouterr().err
    finally:
        ro.chmod(0o700)


def test_a_missing_save_is_an_error(tmp_path, capsys):
    assert main(["play", "pig", "--resume", str(tmp_path / "nope.save")]) == 1
    assert "cannot resume" in capsys.readouterr().err


def test_play_and_replay_never_print_control_characters(tmp_path, capsys):
    log = tmp_path / "g.log"
    assert main(["play", "pig", "--names", "A\x1b[2J,B\x07", "--log", str(log)]) == 2  # refused at the command line
    assert "control character" in capsys.readouterr().err
    from rulecraft.tools.table.play import play

    # names given through the library (or a log made so) are shown through the filter: '?' for a control character
    assert play("pig", None, [], 1, str(log), {}, names=["A\x1b[2J", "B\x07"]) == 0
    assert main(["replay", str(log)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "A?[2J" in out


def test_a_ruleset_text_with_an_escape_sequence_is_refused(tmp_path):
    from rulecraft.loader import load_ruleset

    path = tmp_path / "esc.yaml"
    path.write_text('ruleset: esc\ntitle: "Esc\\e]0;owned\\a"\n', encoding="utf-8")
    result = load_ruleset(str(path))
    assert [(d.code, d.span.line) for d in result.diagnostics if d.is_error] == [("E003", 2)]


# ------------------------------------------------------------------------------------------
# a person at the terminal: odd input asks again, the end of input or Ctrl-C ends cleanly

VIEW = {"players": ["Ann", "Bob"], "zones": {}, "player_variables": [{}, {}]}


class _Interrupting(io.BytesIO):
    def readline(self, *a):
        raise KeyboardInterrupt


@pytest.mark.parametrize("stdin", [_Interrupting(), io.BytesIO(b""), io.BytesIO(b"x" * 50_000)])
def test_ctrl_c_or_the_end_of_input_ends_the_game_cleanly(stdin):
    agent = person(0, io.StringIO(), stdin)
    with pytest.raises(HumanQuit):
        agent.choose(Decision(0, "yesno", "Again?", options=[True, False]), VIEW)


@pytest.mark.parametrize("bad", [b" \t \n", b"\x1b[2J\n", b"1" * 999 + b"\n", b"-1\n", b"1e3\n", b"\xc3\x28\n",
                                 b"\xed\xa0\x80\n", b"3.5\n", b"\x00\n", "\u0663\u0663\n".encode()])
def test_odd_numbers_ask_again(bad):
    out = io.StringIO()
    agent = person(0, out, io.BytesIO(bad + b"4\n"))
    assert agent.choose(Decision(0, "number", "How many?", min=0, max=5), VIEW) == 4
    assert "try again" in out.getvalue()


def test_a_log_whose_last_record_lost_its_newline_is_continued(tmp_path, capsys, stop_after):
    """Found by fuzzing: the kept part was cut one byte too long, which padded the log with a NUL."""
    save, log = tmp_path / "g.save", tmp_path / "g.log"
    assert play("pig", None, [stop_after(8), "random"], 6, str(log), {}, quiet=True, save_path=str(save)) == 1
    log.write_bytes(log.read_bytes().rstrip(b"\n"))
    assert play("pig", None, ["random"], 1, str(log), {}, quiet=True, resume_path=str(save)) == 0
    assert b"\x00" not in log.read_bytes()
    report = replay(str(log))
    assert report.ok and report.complete, report.message


def test_a_save_whose_settings_were_edited_names_the_save_not_a_set_never_typed(tmp_path, capsys, stop_after):
    # the save's overrides are refused as the save's fault (FILE:1: cannot resume), not as '--set', which
    # the person never typed; the file is left as it was
    save = tmp_path / "g.save"
    assert play("pig", None, [stop_after(3), "random"], 1, None, {}, quiet=True, save_path=str(save)) == 1
    recs = _lines(save)
    recs[0]["overrides"] = {"target_score": "lots"}
    save.write_text("".join(json.dumps(r) + "\n" for r in recs))
    before = save.read_bytes()
    capsys.readouterr()
    assert main(["play", "pig", "--resume", str(save), "--quiet"]) == 1
    out = capsys.readouterr()
    assert f"{save}:1: cannot resume" in out.err and "target_score" in out.err
    assert "--set" not in out.err + out.out
    assert save.read_bytes() == before


def test_a_log_whose_settings_were_edited_names_its_settings_not_a_set(tmp_path):
    """replay of a log whose header's overrides the ruleset refuses: 'its settings', not a '--set' nobody typed."""
    log = tmp_path / "g.log"
    assert play("pig", None, ["random"], 1, str(log), {}, quiet=True) == 0
    recs = _lines(log)
    recs[0]["overrides"] = {"target_score": "lots"}
    log.write_text("".join(json.dumps(r) + "\n" for r in recs))
    report = replay(str(log))
    assert not report.ok and "its settings" in report.message and "target_score" in report.message, report.message
    assert "--set" not in report.message


def test_a_save_whose_agents_were_edited_into_a_text_says_who_plays_on(tmp_path, capsys, stop_after):
    # 'agents' edited from a list into one text: the seats go on with random bots, and the person is told so
    save = tmp_path / "g.save"
    assert play("pig", None, [stop_after(3), "random"], 1, None, {}, quiet=True, save_path=str(save)) == 1
    recs = _lines(save)
    recs[0]["agents"] = "python:evil:Bot"
    save.write_text("".join(json.dumps(r) + "\n" for r in recs))
    assert read_save(str(save)).agents == []
    capsys.readouterr()
    assert main(["play", "pig", "--resume", str(save), "--quiet"]) == 0
    assert "not a list of agent names" in capsys.readouterr().err
