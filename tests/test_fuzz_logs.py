"""Property tests: a mutated game log or saved game gets a verdict, never an exception.

Real files are the seeds: logs and saves of seeded games of the frozen rulesets in
tests/cases/_rulesets/. Hypothesis mutates them line by line and byte by byte (lines deleted,
doubled, swapped or cut; a value anywhere in a record replaced by another of any JSON type;
keys renamed; bytes flipped or inserted), then

  - `replay` must return a report (ok only for a complete, identical game) whose line lies
    in the file;
  - reading and resuming a save must either give a game or raise `SaveError`;
  - continuing a mutated log on resume must either work or raise `LogMismatch`.

Runs in a few seconds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gamerecord import record_game
from rulecraft.loader import load_ruleset
from rulecraft.runtime.gamelog import GameLogWriter, LogMismatch, end_record, log_header
from rulecraft.runtime.replay import ReplayReport, replay
from rulecraft.runtime.savegame import SaveError, read_save, restore

RULESETS = Path(__file__).resolve().parent / "cases" / "_rulesets"
FUZZ = settings(max_examples=120, deadline=None, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large])


def _play(name: str, seed: int, folder: Path, stop_after: int | None = None) -> tuple[Path, Path]:
    ref = str(RULESETS / f"{name}.yaml")
    log, save = folder / f"{name}-{seed}.log", folder / f"{name}-{seed}.save"
    record_game(ref, ref, seed, str(log), str(save), stop_after=stop_after)
    return log, save


@pytest.fixture(scope="module")
def seeds(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("fuzz_logs")
    out = {}
    for name, seed, stop in (("pig", 5, None), ("pig", 3, 12), ("sealed-auction", 2, None), ("sealed-auction", 4, 4)):
        log, save = _play(name, seed, folder, stop)
        out[(name, seed)] = (log.read_bytes(), save.read_bytes(), str(RULESETS / f"{name}.yaml"))
    return out


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=True, allow_infinity=True),
              st.text(max_size=8), st.sampled_from(["header", "decision", "end", "save", "state", "", "pig"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=6,
)


def _paths(v: Any, prefix=()) -> list[tuple]:
    out = [prefix]
    if isinstance(v, dict):
        for k, x in v.items():
            out.extend(_paths(x, prefix + (k,)))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            out.extend(_paths(x, prefix + (i,)))
    return out


def _set(v: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    parent = v
    for p in path[:-1]:
        parent = parent[p]
    parent[path[-1]] = new
    return v


@st.composite
def mutated(draw, data: bytes) -> bytes:
    """One to three mutations of a JSON-lines file."""
    lines = data.split(b"\n")
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["delete", "duplicate", "swap", "cut", "value", "rename", "flip", "insert",
                                     "value", "value"]))
        i = draw(st.integers(0, max(len(lines) - 1, 0)))
        if kind == "delete" and lines:
            del lines[i]
        elif kind == "duplicate" and lines:
            lines.insert(draw(st.integers(0, len(lines))), lines[i])
        elif kind == "swap" and lines:
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "cut":
            joined = b"\n".join(lines)
            lines = joined[: draw(st.integers(0, len(joined)))].split(b"\n")
        elif kind in ("value", "rename") and lines:
            try:
                rec = json.loads(lines[i])
            except ValueError:
                continue
            paths = _paths(rec)
            path = draw(st.sampled_from(paths))
            if kind == "value":
                rec = _set(rec, path, draw(json_values))
            elif path and isinstance(rec, dict) and len(path) == 1:
                rec[draw(st.sampled_from(["type", "seed", "choice", "player", "hash", "state", "n", "x"]))] = \
                    rec.pop(path[0])
            lines[i] = json.dumps(rec, separators=(",", ":")).encode()
        elif kind == "flip":
            joined = bytearray(b"\n".join(lines))
            if joined:
                at = draw(st.integers(0, len(joined) - 1))
                joined[at] = draw(st.integers(0, 255))
            lines = bytes(joined).split(b"\n")
        elif kind == "insert":
            lines.insert(i, draw(st.one_of(st.binary(max_size=20),
                                           json_values.map(lambda v: json.dumps(v).encode()))))
    return b"\n".join(lines)


@FUZZ
@given(data=st.data())
def test_mutated_logs_get_a_verdict(seeds, tmp_path_factory, data):
    key = data.draw(st.sampled_from(sorted(seeds)), label="game")
    log_bytes, _, _ = seeds[key]
    raw = data.draw(mutated(log_bytes), label="log")
    path = tmp_path_factory.mktemp("log") / "game.log"
    path.write_bytes(raw)
    report = replay(str(path), max_steps=200_000)  # any exception is the failure this test looks for
    assert isinstance(report, ReplayReport) and isinstance(report.message, str) and report.message
    if report.ok:
        assert report.complete and not report.unfinished
    if report.line is not None:
        assert 1 <= report.line <= max(raw.count(b"\n") + 1, 1), (report.line, report.message)


@FUZZ
@given(data=st.data())
def test_mutated_saves_resume_or_are_refused(seeds, tmp_path_factory, data):
    key = data.draw(st.sampled_from(sorted(seeds)), label="game")
    _, save_bytes, ref = seeds[key]
    raw = data.draw(mutated(save_bytes), label="save")
    path = tmp_path_factory.mktemp("save") / "game.save"
    path.write_bytes(raw)
    try:
        saved = read_save(str(path))
        loaded = load_ruleset(ref, overrides=saved.overrides)
        if not loaded.ok:
            return  # an override the ruleset does not have: `play` prints its diagnostics
        game, records = restore(saved, loaded.ruleset, max_steps=200_000)
    except SaveError as exc:
        assert exc.message
        if exc.line is not None:
            assert 1 <= exc.line <= max(raw.count(b"\n") + 1, 1), (exc.line, exc.message)
        return
    assert len(records) == len(saved.decisions) and game.decisions == len(saved.decisions)


@settings(FUZZ, max_examples=50)
@given(data=st.data())
def test_a_mutated_log_is_continued_or_refused_on_resume(seeds, tmp_path_factory, data):
    """`play --resume S --log L` with a damaged L: it is mended (cut lines dropped) or refused, never a crash."""
    key = data.draw(st.sampled_from([k for k in sorted(seeds) if k[1] in (3, 4)]), label="game")
    log_bytes, save_bytes, ref = seeds[key]
    folder = tmp_path_factory.mktemp("resume")
    (folder / "game.save").write_bytes(save_bytes)
    saved = read_save(str(folder / "game.save"))
    game, records = restore(saved, load_ruleset(ref).ruleset)
    log = folder / "game.log"
    log.write_bytes(data.draw(mutated(log_bytes), label="log"))
    try:
        w = GameLogWriter.resume(str(log), log_header(ref, game, {}, saved.agents), records,
                                 end_record(game) if game.over else None)
    except LogMismatch:
        return
    w.close()
    report = replay(str(log), ruleset=ref)  # the header kept may name the ruleset by another path
    assert report.unfinished and report.decisions == len(records), report.message
