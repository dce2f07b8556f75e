"""Coverage files given to --coverage are read within the limits of logs and saves (issue 14, item 7)."""

from __future__ import annotations

import json
import os

import pytest

from cli_fork import run_cli

from rulecraft.tools.chart.coverage import MAX_COVERAGE_BYTES, CoverageError, read_coverage

BAD = {
    "deep": '{"counts": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "huge-integer": '{"counts": {"pig/1": ' + "9" * 5_000 + "}}",
    "past-2^63": '{"counts": {"pig/1": 9223372036854775808}}',
    "negative": '{"counts": {"pig/1": -1}}',
    "not-json": "counts: 1",
    "no-counts": '{"games": 3}',
    "bool": '{"counts": {"pig/1": true}}',
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_coverage_file_is_a_clear_error(tmp_path, name):
    path = tmp_path / f"{name}.json"
    path.write_text(BAD[name], encoding="utf-8")
    with pytest.raises(CoverageError, match="coverage file|not JSON|nested"):
        read_coverage(str(path))


def test_what_is_not_a_regular_file_is_refused_without_reading(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # reading it would block forever
    for path in (fifo, tmp_path):
        with pytest.raises(CoverageError, match="not a coverage file"):  # a FIFO, or a folder
            read_coverage(str(path))


def test_a_file_larger_than_a_log_may_be_is_refused(tmp_path):
    path = tmp_path / "big.json"
    with open(path, "wb") as fh:
        fh.truncate(MAX_COVERAGE_BYTES + 1)  # sparse: no disk used
    with pytest.raises(CoverageError, match="larger than"):
        read_coverage(str(path))


def test_a_good_file_reads(tmp_path):
    path = tmp_path / "cov.json"
    path.write_text(json.dumps({"ruleset": "pig", "games": 2, "counts": {"turn/1": 3}}), encoding="utf-8")
    cov = read_coverage(str(path))
    assert cov.count("turn/1") == 3 and cov.games == 2 and cov.ruleset == "pig"


@pytest.mark.parametrize("verb", ["render", "sheets"])
def test_the_command_exits_2_with_one_line(tmp_path, verb):
    path = tmp_path / "deep.json"
    path.write_text(BAD["deep"], encoding="utf-8")
    out = tmp_path / ("o.dot" if verb == "render" else "o.pdf")
    args = [verb, "pig", "-o", str(out), "--coverage", str(path)]
    if verb == "render":
        args += ["--format", "dot"]
    r = run_cli(args, timeout=60)  # forked: tests/cli_fork.py
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and "nested too deeply" in r.stderr
    assert not out.exists()
