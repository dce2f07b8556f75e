"""Session 18: hostile input of kinds not tried before (docs/security.md, section 18). Each test failed before its fix."""

from __future__ import annotations

import os
import subprocess
import sys

RULECRAFT = os.path.join(os.path.dirname(sys.executable), "rulecraft")


def _run(cwd, *args: str, bound: float = 300) -> subprocess.CompletedProcess:
    try:
        return subprocess.run([RULECRAFT, *args], cwd=cwd, capture_output=True, text=True, timeout=bound)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"'rulecraft {' '.join(args)}' never ended (waited {bound:.0f} s)") from None


def test_a_matplotlibrc_in_the_folder_is_never_read_by_the_report(tmp_path):
    # matplotlib reads ./matplotlibrc as it is imported: a stranger's folder (a zip of a game) chooses how the report
    # is drawn. A FIFO there hung `simulate --report` for ever; `text.usetex: True` ended it in exit 3 (or, with TeX
    # installed, fed the ruleset's texts to TeX); a bad line was printed to the terminal with its escape sequences.
    fifo = tmp_path / "fifo"
    fifo.mkdir()
    os.mkfifo(fifo / "matplotlibrc")
    done = _run(fifo, "simulate", "pig", "--games", "3", "--report", "rep", bound=120)
    assert done.returncode == 0, done.stderr
    assert (fifo / "rep" / "index.html").is_file()
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "matplotlibrc").write_text("text.usetex: True\nbad\x1b]0;PWNED\x07key: 1\nlines.linewidth: \x1b[2Jzz\n")
    done = _run(bad, "simulate", "pig", "--games", "3", "--report", "rep")
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stderr + done.stdout and "matplotlibrc" not in done.stderr
    assert (bad / "rep" / "index.html").is_file()


def _tangle(ifs: int) -> str:
    """A loop of `ifs` questions, every other one going back to the loop's start: 20 KB of ruleset for 500, whose
    chart (316 KB of DOT, well within its limit) took Graphviz more than 10 minutes and 430 MB."""
    steps = "".join(f'          - if: "x == {i}"\n            then: ["{"continue" if i % 2 else "break"}"]\n'
                    for i in range(ifs))
    return ("ruleset: tangle\ntitle: Tangle\nplayers: {min: 2, max: 2}\nstart: game\nvariables:\n  x: 0\n"
            "sequences:\n  game:\n    kind: stage\n    title: The game\n    steps:\n"
            "      - loop: outer\n        do:\n" + steps)


def test_graphviz_is_bounded_in_processor_time_whatever_the_size_of_its_dot(tmp_path, monkeypatch):
    import pytest

    from rulecraft.tools.chart import dotrun

    path = tmp_path / "tangle.yaml"
    path.write_text(_tangle(500))
    done = _run(tmp_path, "render", "tangle.yaml", "--format", "dot", "-o", "tangle.dot", "--detail", "full")
    assert done.returncode == 0, done.stderr
    source = (tmp_path / "tangle.dot").read_text()
    dotrun.check_size([source])  # within the limit of its size: the size alone does not bound Graphviz's work
    monkeypatch.setattr(dotrun, "MAX_CPU_SECONDS", 1, raising=False)  # 60 in earnest: 1 keeps the test cheap
    with pytest.raises(dotrun.DotError, match="within 1 s of processor"):
        dotrun.run_dot(source, "svg")
    with pytest.raises(dotrun.DotError, match="within 1 s of processor"):
        dotrun.run_layouts([source, "digraph { a -> b }"], "pdf", workers=1)
