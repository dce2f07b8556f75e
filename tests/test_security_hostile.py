"""The hostile corpus (issue 25), from test_security.py so that it runs beside the rest under `--dist loadfile`: each
case a folder of files and a case.yaml giving the command, the exit code, the line it must say and what it must never
say; each run as a person runs it, in a child process with a memory cap, never timed (docs/security.md). The child is
forked from a process that has the command line imported (tests/cli_fork.py): its own process, folder, stdin, exit
code and cap, without paying Python's start and the imports 108 times."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cli_fork import run_cli

ROOT = Path(__file__).resolve().parents[1]

HOSTILE = ROOT / "tests" / "cases" / "hostile"
HOSTILE_CASES = sorted(p.name for p in HOSTILE.iterdir() if (p / "case.yaml").is_file() and not p.name.startswith("lsp-"))
# (the lsp-* cases speak to the language server: tests/test_lsp.py::test_the_hostile_corpus_of_the_language_server)
HOSTILE_MEMORY = 1 << 30  # bytes of address space a case's command may use (RLIMIT_AS), as the 1 GiB


def _make_specials(folder: Path, make: dict) -> None:
    """What a case cannot keep in git: FIFOs, links, folders, big files."""
    for name in make.get("fifo", []):
        os.mkfifo(folder / name)
    for name, target in make.get("link", {}).items():
        (folder / name).symlink_to(target)
    for name, target in make.get("hardlink", {}).items():
        os.link(folder / target, folder / name)
    for name in make.get("folder", []):
        (folder / name).mkdir()
    for name, (piece, times) in make.get("repeat", {}).items():
        (folder / name).write_text(piece * times, encoding="utf-8")
    for name, (piece, times, tail) in make.get("append", {}).items():  # a case's file with a long piece after it
        with open(folder / name, "a", encoding="utf-8") as fh:
            fh.write(piece * times + tail)


@pytest.mark.parametrize("name", HOSTILE_CASES)
def test_the_hostile_corpus(tmp_path, name):
    import shutil
    import yaml

    case = yaml.safe_load((HOSTILE / name / "case.yaml").read_text(encoding="utf-8"))
    folder = tmp_path / name
    shutil.copytree(HOSTILE / name, folder, ignore=shutil.ignore_patterns("case.yaml"))
    for target, bundled in case.get("bundled", {}).items():
        shutil.copy(next((ROOT / "rulesets").rglob(f"{bundled}.yaml")), folder / target)
    _make_specials(folder, case.get("make", {}))
    before = {f: (folder / f).read_bytes() for f in case.get("unchanged", [])}
    # the time-out only keeps a regression from hanging the run; the memory cap and the exit code are the assertions
    proc = run_cli(case["run"], cwd=folder, timeout=600, memory=HOSTILE_MEMORY,
                   input=case.get("stdin", ""), env={**os.environ, "COLUMNS": "200"})  # what a person types
    out = proc.stdout + proc.stderr
    assert proc.returncode == case["exit"], f"{case['what']}: exit {proc.returncode}\n{out[-3000:]}"
    assert case["says"] in out, f"{case['what']}:\n{out[-3000:]}"
    assert "Traceback" not in out and "MemoryError" not in out and "internal error" not in out
    for secret in case.get("never", []):
        assert secret not in out, f"{case['what']}: the output quotes {secret!r}"
    if case["exit"] == 2:
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr  # one line
    assert len(out) <= case.get("max_output", 1 << 20), f"{case['what']}: {len(out):,} characters of output"
    for f, data in before.items():
        assert (folder / f).read_bytes() == data, f"{f} was written over"
