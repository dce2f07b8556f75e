"""The story for a referee: `play --seat N` tells it exactly as seat N reads it (public lines and that seat's own,
for a game of bots too), `--story-json` writes it as records with their audience, and the command printed to go
on with a stopped game works as printed (a search bot at the table, a log to continue)."""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import sys
from pathlib import Path

import pytest

from cli_fork import run_cli

from rulecraft.tools.table.play import play
from rulecraft.tools.table.storyout import read_story

SECRETS = Path(__file__).parent / "cases" / "constructs" / "secrets" / "ruleset.yaml"
WHISPER = Path(__file__).parent / "cases" / "games" / "whisper-pass.yaml"


def run(ref: str, seed: int, **kw) -> tuple[int, list[str]]:
    out = io.StringIO()
    code = play(ref, None, [], seed, None, {}, out=out, **kw)
    return code, out.getvalue().splitlines()


def full_story(tmp_path, ref: str, seed: int) -> list[dict]:
    path = tmp_path / f"story-{seed}.jsonl"
    code, _ = run(ref, seed, story_path=str(path), quiet=True)
    assert code == 0
    return read_story(path.read_text())


def as_read_by(records: list[dict], seat: int) -> list[str]:
    """What seat `seat` (from 1) reads, made from the JSON story alone."""
    out = []
    for r in records:
        text = r["private"] if r["seats"] and seat in r["seats"] else r["public"]
        if text is not None:
            out.append(text)
    return out


@pytest.mark.parametrize("ref,seed", [("hearts", 1), (str(SECRETS), 3), (str(SECRETS), 7)])
def test_the_seat_story_is_the_public_lines_and_that_seats_own(tmp_path, ref, seed):
    records = full_story(tmp_path, ref, seed)
    private = [r for r in records if r["seats"]]
    assert private, "the game tells something privately: the test would prove nothing"
    players = max(s for r in private for s in r["seats"])
    for seat in range(1, players + 1):
        code, lines = run(ref, seed, seat=seat - 1)
        assert code == 0
        assert lines[1:] == as_read_by(records, seat)  # after the table's opening line, exactly the seat's story
        others = {r["private"] for r in private if seat not in r["seats"]}
        assert not others & set(lines), f"seat {seat} reads another seat's line"


def test_the_json_story_round_trips_with_each_records_audience(tmp_path):
    records = full_story(tmp_path, str(SECRETS), 3)
    assert [r["n"] for r in records] == list(range(1, len(records) + 1))
    for r in records:
        assert json.loads(json.dumps(r)) == r
        if r["seats"] is None:  # a line for everyone
            assert r["private"] is None and r["public"] and r["names"] is None
        else:
            assert r["names"] == [f"P{s}" for s in r["seats"]] and r["private"]
    tells = [r for r in records if r["kind"] == "tell"]
    assert len(tells) == 2 and all(r["private"].startswith(f"To P{r['seats'][0]} only:") and r["public"] is None
                                   for r in tells)
    secret = [r for r in records if r["public"] and r["public"].endswith("(chosen in secret)")]
    assert secret and all(r["private"] and r["seats"] for r in secret)
    assert {r["kind"] for r in records} >= {"event", "tell", "reveal"}
    assert records[0]["decision"] == 1 and records[0]["step"].endswith("ruleset.yaml:30:15")  # its decision, its step
    # the whole story read from the records is the story a game of bots tells
    code, lines = run(str(SECRETS), 3)
    assert lines[1:] == [r["private"] or r["public"] for r in records]
    # with --seat, the records are that seat's story: nothing for another seat, not even whom a line was for
    path = tmp_path / "seat2.jsonl"
    assert run(str(SECRETS), 3, seat=1, story_path=str(path), quiet=True)[0] == 0
    mine = read_story(path.read_text())
    assert all(r["seats"] in (None, [2]) for r in mine)
    assert [r["private"] or r["public"] for r in mine] == as_read_by(records, 2)


def cli(args: list[str], answers: str = "", cwd=None):
    """`rulecraft play ARGS` with `answers` piped in, as a child forked from a process with the engine imported
    (tests/cli_fork.py): what it prints and its exit code, as bytes."""
    return run_cli(["play", *args], input=answers, cwd=cwd, timeout=120, text=False)


def test_seat_and_story_json_on_the_command_line(tmp_path):
    proc = cli([str(SECRETS), "--seed", "3", "--seat", "2", "--story-json", "-"])
    assert proc.returncode == 0, proc.stderr.decode()
    records = read_story(proc.stdout.decode())  # the records on standard output, the story in words on stderr
    assert records and all(r["seats"] in (None, [2]) for r in records)
    assert "To P2 only" in proc.stderr.decode() and "To P1 only" not in proc.stderr.decode()
    bad = cli([str(SECRETS), "--seat", "3"])
    assert bad.returncode == 2 and "the game has 2 players" in bad.stderr.decode()
    bad = cli([str(SECRETS), "--agent", "human", "--seat", "2"])
    assert bad.returncode == 2 and "a person plays seat 1" in bad.stderr.decode()
    bad = cli([str(SECRETS), "--log", "-", "--story-json", "-"])
    assert bad.returncode == 2
    help_text = run_cli(["play", "--help"]).stdout
    assert "--seat N" in help_text and "--story-json FILE" in help_text


def test_the_printed_resume_command_works_as_printed(tmp_path):
    proc = cli([str(SECRETS), "--agent", "human", "--agent", "greedy", "--seed", "4", "--log", "game.log"],
               "2\nquit\n", cwd=tmp_path)
    assert proc.returncode == 130, proc.stderr.decode()
    command = re.search(r"go on with: (.+)", proc.stdout.decode()).group(1)
    words = shlex.split(command)
    assert words[:2] == ["rulecraft", "play"] and "--agent" in words and "greedy" in words
    assert words[words.index("--log") + 1] == "game.log"  # the log goes on
    again = cli(words[2:], "1\nn\n", cwd=tmp_path)
    assert again.returncode == 0, again.stderr.decode()
    assert "resumed after 2 decisions" in again.stdout.decode()
    check = run_cli(["replay", "game.log", "--ruleset", str(SECRETS)], cwd=tmp_path)
    assert check.returncode == 0 and "winner" in check.stdout, check.stdout + check.stderr


def test_an_undo_is_a_record_of_the_json_story(tmp_path):
    auction = Path(__file__).parent / "cases" / "table" / "auction.yaml"
    proc = cli([str(auction), "--agent", "human", "--agent", "random", "--seed", "4", "--story-json", "s.jsonl"],
               "5\nundo\n5\n" + "p\n" * 12, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    assert "Taken back: your decision 1" in proc.stdout.decode()
    records = read_story((tmp_path / "s.jsonl").read_text())
    back = [i for i, r in enumerate(records) if r["kind"] == "taken back"]
    assert len(back) == 1 and records[back[0]]["decision"] == 0  # the game is again as before the first decision
    before, after = records[:back[0]], records[back[0] + 1:]
    assert before[0]["public"] == after[0]["public"] == "P1: Bid for the lot (top 0) -> 5"
    assert after[0]["decision"] == 1


@pytest.mark.parametrize("flag", ["--story-json", "--log"])
def test_what_every_seat_did_is_not_written_to_the_terminal_people_play_at(tmp_path, flag):
    # the JSON story holds every seat's private lines, the log every answer: written to the screen the people
    # share (standard output, a terminal), each would read the others' secrets (a bot's sealed bid, a tell)
    pexpect = pytest.importorskip("pexpect", reason="pexpect gives the game a terminal")
    env = dict(os.environ, NO_COLOR="1", TERM="xterm")
    child = pexpect.spawn(sys.executable, ["-m", "rulecraft.tools.cli.main", "play", str(WHISPER), "--agent", "human",
                                           "--agent", "random", "--seed", "3", flag, "-"],
                          cwd=str(tmp_path), env=env, encoding="utf-8", dimensions=(40, 120), timeout=60)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2, child.before
    assert "write it to a file" in child.before and "Pass the terminal" not in child.before
    assert not list(tmp_path.iterdir())


LANTERN = Path(__file__).parent / "cases" / "games" / "lantern-watch.yaml"


def test_a_seats_json_story_counts_an_answer_forced_in_secret_as_a_decision(tmp_path):
    # Lantern Watch, seed 3, told as P1 reads it: the night's questions are answered by the shade and the seer
    # alone, the others' passes forced by roles P1 cannot see and read by P1 as chosen. Each record's decision and
    # step must not tell which answers were chosen: they followed the last decision taken, so a forced pass shared
    # the number and the step of the answer before it, and the seer's look alone had a number and step of its own
    path = tmp_path / "p1.jsonl"
    code, _ = run(str(LANTERN), 3, seat=0, story_path=str(path), quiet=True)
    assert code == 0
    records = read_story(path.read_text())
    for prompt in ("Whom do the shades visit tonight?", "Look at whose role?"):
        night = [r for r in records if r["public"] and r["public"].startswith(("P2: " + prompt, "P3: " + prompt,
                                                                                "P4: " + prompt, "P5: " + prompt))]
        assert len(night) >= 4
        numbers = [r["decision"] for r in night]
        assert numbers == sorted(set(numbers)), numbers  # each its own decision, as P1 reads it
        assert len({r["step"] for r in night}) == 1, [r["step"] for r in night]  # all asked at the same step
