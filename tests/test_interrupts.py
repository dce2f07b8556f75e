"""Faults from outside: a person pressing Ctrl-C, and a game killed outright (SIGKILL).

  - Ctrl-C while `rulecraft play pig --agent human` waits at its prompt (a real terminal, a pty):
    exit 130, no traceback, the log replays with --partial and the save resumes;
  - SIGKILL in the middle of a long game (`play dml --log F --save S`, polled until decisions
    are on disk): the log replays to its last decision and the save resumes to the very end
    the game would have had, and the continued log then replays complete.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_fork import run_cli

CLI = [sys.executable, "-m", "rulecraft.tools.cli.main"]

pty = pytest.importorskip("pty")


def _decisions(log: Path) -> int:
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return 0
    return sum(1 for line in text.splitlines() if line.startswith('{"type":"decision"') and line.endswith("}"))


def _read_until(fd: int, token: bytes, deadline: float, seen: bytearray) -> None:
    while token not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"no {token!r} in time; the terminal showed:\n{seen.decode(errors='replace')[-2000:]}"
        ready, _, _ = select.select([fd], [], [], min(left, 0.5))
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the child closed the terminal
                chunk = b""
            assert chunk, f"the terminal closed before {token!r}:\n{seen.decode(errors='replace')[-2000:]}"
            seen.extend(chunk)


def test_ctrl_c_at_the_prompt_exits_130_and_keeps_the_log_and_the_save(tmp_path):
    log, save = tmp_path / "game.log", tmp_path / "game.save"
    master, slave = pty.openpty()
    proc = subprocess.Popen([*CLI, "play", "pig", "--agent", "human", "--seed", "4", "--log", str(log),
                             "--save", str(save)], stdin=slave, stdout=slave, stderr=subprocess.PIPE, cwd=tmp_path)
    os.close(slave)
    seen = bytearray()
    try:
        deadline = time.monotonic() + 30
        for answer in (b"y\n", b"n\n", b"y\n"):  # three answers, then Ctrl-C at the fourth prompt
            _read_until(master, b"\n> ", deadline, seen)
            del seen[:]
            os.write(master, answer)
        _read_until(master, b"\n> ", deadline, seen)
        time.sleep(0.1)  # it is now blocked reading the terminal
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=30)
        err = proc.stderr.read().decode(errors="replace")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    assert code == 130, err
    assert "Traceback" not in err
    assert _decisions(log) >= 3
    again = run_cli(["replay", str(log), "--partial"], timeout=60)  # what follows is not about the process: forked
    assert again.returncode == 0, again.stdout + again.stderr
    assert "replay identically" in again.stdout
    saved = json.loads(save.read_text().splitlines()[0])
    assert saved["decisions"] == _decisions(log)
    done = run_cli(["play", "pig", "--resume", str(save), "--agent", "random", "--log", str(log), "--quiet"], timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    final = run_cli(["replay", str(log)], timeout=60)
    assert final.returncode == 0 and "identical" in final.stdout, final.stdout


def _uninterrupted(name: str, seed: int) -> str:
    """The result line of `play NAME --seed SEED --quiet`, played here without a break."""
    from conftest import play_seeded
    from rulecraft.loader import load_ruleset

    g = play_seeded(load_ruleset(name).ruleset, seed, views=True)
    winners = ", ".join(g.players[s].name for s in g.winners) or "nobody"
    scores = f" scores {g.scores}" if g.scores is not None else ""
    return f"winner: {winners}{scores} ({g.decisions} decisions)"


SLOW_BOT = """\
import time
from rulecraft.agents.base import RandomAgent


class SlowRandom(RandomAgent):
    \"\"\"The random bot, taking its time: makes a game long enough to be killed in the middle.\"\"\"

    def choose(self, decision, view):
        time.sleep(0.01)
        return super().choose(decision, view)
"""


def test_a_killed_game_keeps_a_log_that_replays_and_a_save_that_resumes_to_the_end(tmp_path):
    (tmp_path / "slowbot.py").write_text(SLOW_BOT, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    log, save = tmp_path / "game.log", tmp_path / "game.save"
    proc = subprocess.Popen([*CLI, "play", "dml", "--seed", "3", "--agent", "python:slowbot:SlowRandom", "--log",
                             str(log), "--save", str(save), "--quiet"], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while _decisions(log) < 30:
            assert proc.poll() is None, f"the game ended before it could be killed: {proc.communicate()}"
            assert time.monotonic() < deadline, "no decisions logged in time"
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    logged = _decisions(log)
    partial = subprocess.run([*CLI, "replay", str(log), "--partial"], capture_output=True, text=True, timeout=60)
    assert partial.returncode == 0, partial.stdout + partial.stderr
    assert f"its {logged} decisions replay identically" in partial.stdout, partial.stdout

    saved = json.loads(save.read_text().splitlines()[0])
    assert saved["decisions"] in (logged - 1, logged)  # killed between writing the log line and the save, or not
    resumed = subprocess.run([*CLI, "play", "dml", "--resume", str(save), "--agent", "random", "--log", str(log),
                              "--quiet"], capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    whole = _uninterrupted("dml", 3)
    assert resumed.stdout.splitlines()[-1] == whole, "the resumed game ended differently"
    final = subprocess.run([*CLI, "replay", str(log)], capture_output=True, text=True, timeout=60)
    assert final.returncode == 0 and "identical" in final.stdout, final.stdout
    assert not list(tmp_path.glob(".game.save.*.tmp")) or saved  # a kill may leave a temporary file, never a bad save


def test_a_ctrl_c_that_comes_out_as_another_error_ends_as_interrupted(monkeypatch, capsys):
    """CPython turns a KeyboardInterrupt that lands inside `from X import Y` into "TypeError: expected a message
    argument"; CI saw it as exit 3, "internal error" (session 19). A verb here meets Ctrl-C and fails with that
    error: the command ends as interrupted (130), with no internal-error line. An error with no Ctrl-C is still 3."""
    from rulecraft.tools.cli import main as cli

    def mangled(args) -> int:
        try:
            os.kill(os.getpid(), signal.SIGINT)
            sum(range(100_000))  # Python runs the handler here
        except KeyboardInterrupt:
            raise TypeError("expected a message argument") from None
        return 0

    def broken(args) -> int:
        raise TypeError("a real fault")

    for run, code in ((mangled, 130), (broken, 3)):
        monkeypatch.setattr(cli, "VERBS", tuple(v._replace(run=run) if v.name == "list" else v for v in cli.VERBS))
        assert cli.main(["list"]) == code
        err = capsys.readouterr().err
        assert ("internal error" in err) == (code == 3), err
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back
