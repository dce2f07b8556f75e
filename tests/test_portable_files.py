"""Nothing of a development machine travels: no tracked file holds an absolute path of one, and a save
or a log made in one folder holds no absolute path, so it still works (and shows nothing) elsewhere."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cli_fork import run_cli

from gamerecord import record_game

ROOT = Path(__file__).resolve().parents[1]
PIG = ROOT / "tests" / "cases" / "_rulesets" / "pig.yaml"

# an absolute path under a folder where a machine keeps its work or its users: /work/..., /home/NAME/...,
# /root/..., /tmp/..., /Users/NAME/... (not a URL's path, not ~/..., not part of a longer path or word)
MACHINE_PATH = re.compile(r"(?<![\w.~$/:-])/(?:work|root|tmp|home|Users)/[\w.-]+")
# placeholders the docs use on purpose, for a reader to replace with their own
PLACEHOLDERS = ("/home/you/", "/home/me/")
EXEMPT = {"tests/test_portable_files.py", "tests/test_book.py"}  # the pattern itself; a check that none is shown


def _tracked() -> list[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the tracked files are not known")
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [p for p in out.decode("utf-8", "replace").split("\0") if p]


def test_no_tracked_file_holds_an_absolute_path_of_a_development_machine():
    found = []
    for name in _tracked():
        path = ROOT / name
        if name in EXEMPT or not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue  # binary
        for n, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            for m in MACHINE_PATH.finditer(line):
                if not any(line.startswith(p, m.start()) for p in PLACEHOLDERS):
                    found.append(f"{name}:{n}: {m.group()}")
    assert not found, "absolute paths of a machine in tracked files:\n" + "\n".join(found[:40])


def test_the_pattern_finds_machine_paths_and_leaves_the_rest():
    hits = lambda s: [m.group() for m in MACHINE_PATH.finditer(s)]  # noqa: E731
    assert hits('"node":"/work/main/tests/pig.yaml:74:15"') == ["/work/main"]
    assert hits("see /home/alice/x and /root/.cache and /tmp/soak/r.json") == ["/home/alice", "/root/.cache", "/tmp/soak"]
    assert hits("https://example.org/work/x ~/work/x src/tmp/x a/home/b $HOME/work/x") == []


def _play_and_save(folder: Path, stop_after: int = 6) -> tuple[Path, Path]:
    folder.mkdir()
    ruleset = folder / "pig.yaml"
    shutil.copy(PIG, ruleset)
    log, save = folder / "g.log", folder / "g.save"
    g = record_game(str(ruleset), str(ruleset), 5, str(log), str(save), stop_after=stop_after)  # named absolutely
    assert not g.over and g.pending is not None  # a decision is pending: the save names the step that asks it
    return log, save


def test_a_save_and_a_log_moved_to_another_folder_hold_no_absolute_path_and_still_work(tmp_path: Path):
    log, save = _play_and_save(tmp_path / "made-here")
    moved = tmp_path / "moved-there"
    shutil.move(str(tmp_path / "made-here"), moved)
    for f in (moved / "g.save", moved / "g.log"):
        text = f.read_text(encoding="utf-8")
        assert str(tmp_path) not in text and "made-here" not in text, f.name
        assert not MACHINE_PATH.search(text) and '":"/' not in text, f.name
    assert '"node":"pig.yaml:' in (moved / "g.save").read_text(encoding="utf-8")
    done = run_cli(["replay", "g.log"], cwd=moved, timeout=120)  # forked: tests/cli_fork.py
    assert "its 6 decisions replay identically" in done.stdout + done.stderr  # found its ruleset beside it
    done = run_cli(["play", "pig.yaml", "--resume", "g.save", "--quiet"], cwd=moved, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_older_save_with_an_absolute_place_still_resumes(tmp_path: Path):
    from rulecraft.loader import load_ruleset
    from rulecraft.runtime.savegame import read_save, restore

    _, save = _play_and_save(tmp_path / "a")
    text = save.read_text(encoding="utf-8")
    old = text.replace('"node":"pig.yaml:', f'"node":"{tmp_path / "elsewhere" / "pig.yaml"}:')
    assert old != text
    save.write_text(old, encoding="utf-8")
    game, records = restore(read_save(str(save)), load_ruleset(str(tmp_path / "a" / "pig.yaml")).ruleset)
    assert len(records) == 6 and not game.over
