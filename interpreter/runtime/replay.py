"""Replaying a game log: re-run the game from its seed and decisions and check every record.

A log may come from a stranger, so replay trusts nothing in it: every record is checked
before use (a decision's number `n` included), and every way it can be wrong is a verdict
with a line, never an exception. The ruleset a log names is opened without being given
only when it is one of the ruleset's own places (`ruleset_place`): a bundled name, or a
`.yaml`/`.yml` file that lies in the log's folder, the current folder or the bundled
rulesets' folder (or below them), symlinks resolved. Anything else needs `--ruleset` (see docs/security.md).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

from .. import __version__
from .gamelog import MAX_LOG_BYTES, _plain, alike, header_problem, layout_hashed, ruleset_fingerprint
from .state_io import state_hash


@dataclass
class ReplayReport:
    ok: bool
    message: str
    line: Optional[int] = None
    decisions: int = 0
    complete: bool = False
    game: Any = None
    warnings: list[str] = field(default_factory=list)
    unfinished: bool = False  # every record replays identically, but the log stops before the end


def loggable_ruleset(ref: str) -> bool:
    """Whether a ruleset reference read from a file names a bundled ruleset or a .yaml/.yml file."""
    from ..bundled import bundled_rulesets

    if ref.endswith((".yaml", ".yml")):
        return True
    return any(b.name == ref for b in bundled_rulesets())


def _inside(path: str, folder: str) -> bool:
    folder = os.path.realpath(folder)
    return os.path.commonpath([path, folder]) == folder


def ruleset_place(ref: str, log_path: str) -> tuple[Optional[str], Optional[str]]:
    """(what to load, None) for the ruleset a log names, or (None, why not).

    A bundled name is loaded as such. A file is looked for as written (from the current
    folder), then next to the log; it is opened only when it ends in .yaml/.yml and its real
    path (symlinks resolved) lies inside the log's folder, the current folder or the folder
    of the bundled rulesets. A stranger's
    log cannot make replay read `/etc/...yaml`, `~/.ssh/...` or `../../private.yaml`.
    """
    from ..bundled import bundled_root, bundled_rulesets

    if any(b.name == ref for b in bundled_rulesets()):
        return ref, None
    if not ref.endswith((".yaml", ".yml")):
        return None, (f"the log names its ruleset '{ref}', which is neither a bundled ruleset nor a .yaml file; "
                      "give the ruleset with --ruleset")
    log_folder = os.path.dirname(os.path.abspath(log_path))
    beside = os.path.join(log_folder, ref)
    chosen = ref if os.path.isabs(ref) or os.path.exists(ref) or not os.path.isfile(beside) else beside
    real = os.path.realpath(chosen)
    if not any(_inside(real, place) for place in (log_folder, os.getcwd(), bundled_root())):
        return None, (f"the log names the ruleset file '{ref}', which is outside the log's folder, the current "
                      "folder and the bundled rulesets; replay opens it only when you name it: give --ruleset FILE")
    return chosen, None


def _not_a_ruleset(ref: str) -> Optional[str]:
    """Why the file a log names is no ruleset (None for a bundled name or a ruleset)."""
    from ..bundled import bundled_rulesets
    from ..loader.variants import not_a_ruleset_file
    from ..loader.yaml_source import DEFAULT_LIMITS

    if any(b.name == ref for b in bundled_rulesets()) or not os.path.lexists(ref):
        return None  # (a missing file: the loader says so)
    return not_a_ruleset_file(ref, DEFAULT_LIMITS)


def read_records(path: str) -> tuple[_Records, Optional[int], Optional[ReplayReport]]:
    """The records of a JSON-lines file: ([(line, record)], line cut short or None, failure or None).

    The records are read one at a time, twice: once to find the first line that is no record (so the verdict
    names it, whatever comes before), then as replay walks them. A log of millions of tiny records (50 MB of
    `{"type":"x"}`: 3.8 million dicts, past 1 GB held at once, session 17) never lives whole in memory.
    """
    from ..files import InputError, read_regular

    try:  # a regular file only: a FIFO would block, a device never end
        raw = read_regular(path, MAX_LOG_BYTES, "game log")
    except InputError as exc:
        return _Records(""), None, ReplayReport(False, exc.message)
    if b"\x00" in raw:
        return _Records(""), None, ReplayReport(False, f"{path} is not a game log (binary data)",
                                      raw[: raw.index(b"\x00")].count(b"\n") + 1)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        at = raw[: exc.start].count(b"\n") + 1
        return _Records(""), None, ReplayReport(False, f"line {at} is not UTF-8 text: this is not a game log", at)
    del raw
    records = _Records(text)
    for _ in records:
        pass  # the first pass: each record is dropped as soon as it is read
    return records, records.cut_at, records.failure


# where str.splitlines ends a line (a log's lines are read as they always were, one at a time)
_LINE_END = re.compile(r"\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")


def _lines(text: str) -> Iterator[str]:
    start = 0
    for m in _LINE_END.finditer(text):
        yield text[start:m.start()]
        start = m.end()
    if start < len(text):
        yield text[start:]


class _Records:
    """A log's (line, record) pairs, parsed as they are walked; `cut_at`, `failure` and `last` (the line of the last
    record) are known once a walk has ended."""

    def __init__(self, text: str):
        self.text = text
        self.cut_at: Optional[int] = None
        self.failure: Optional[ReplayReport] = None
        self.last: Optional[int] = None

    def __iter__(self) -> Iterator[tuple[int, dict]]:
        lines, i, seen = _lines(self.text), 0, False
        line = next(lines, None)
        while line is not None:
            i += 1
            after = next(lines, None)
            if line.strip():
                try:
                    rec = json.loads(line)
                except ValueError as exc:
                    if after is None and seen:
                        self.cut_at = i  # the last line was cut short: use what came before it
                        return
                    msg = exc.msg if isinstance(exc, json.JSONDecodeError) else "a number with too many digits"
                    self.failure = ReplayReport(False, f"line {i} is not JSON: {msg}", i)  # never Python's advice
                    return
                except RecursionError:
                    self.failure = ReplayReport(False, f"line {i} is nested too deeply to be a record", i)
                    return
                if not isinstance(rec, dict) or not isinstance(rec.get("type"), str):
                    self.failure = ReplayReport(False, f"line {i} is not a game log record", i)
                    return
                seen, self.last = True, i
                yield i, rec
            line = after


def replay(path: str, max_steps: int = 5_000_000, ruleset: Optional[str] = None) -> ReplayReport:
    """Re-run a logged game and check it against every record; the first mismatch is reported.

    `ruleset` (a path or bundled name) replaces the ruleset the log names.
    """
    from ..diagnostics import RuleError
    from ..loader import load_ruleset
    from .decisions import IllegalChoice
    from .game import Game, GameError

    records, cut_at, failure = read_records(path)
    if failure is not None:
        return failure
    walk = iter(records)
    hline, header = next(walk, (1, {}))
    if header.get("type") != "header":
        return ReplayReport(False, "the first line is not a game log header", hline)
    problem = header_problem(header)
    if problem:
        return ReplayReport(False, problem, hline)
    ref = ruleset or header["ruleset"]
    if ruleset is None:
        place, why = ruleset_place(ref, path)
        if place is None:
            return ReplayReport(False, why or "", hline)
        ref = place
        refused = _not_a_ruleset(ref)
        if refused:  # a credentials file, a key: said without quoting a line or a key of it, as for extends:
            return ReplayReport(False, f"cannot load the ruleset '{ref}' of this log (E504: the file is not a ruleset "
                                       f"({refused}); its content is not shown)", hline)
    loaded = load_ruleset(ref, overrides=header.get("overrides") or {})
    if not loaded.ok or loaded.ruleset is None:
        first = next((d for d in loaded.diagnostics if d.is_error), None)
        why = f"{first.code}: {first.message}" if first else "unknown problem"
        if first is not None and first.code == "E316":  # the header's overrides: no '--set' was typed
            why = f"E316: its settings do not suit it: {first.message.removeprefix('--set ')}"
        return ReplayReport(False, f"cannot load the ruleset '{ref}' of this log ({why})", hline)
    rs = loaded.ruleset
    report = ReplayReport(True, "")
    if header.get("name") not in (None, rs.name):
        return ReplayReport(False, f"the log is of ruleset '{header.get('name')}', but '{ref}' is '{rs.name}'", hline)
    if header.get("fingerprint") and header["fingerprint"] != ruleset_fingerprint(rs):
        report.warnings.append(OLDER_RULESET)
    if header.get("rulecraft") not in (None, __version__):
        report.warnings.append(f"the log was written by rulecraft {header.get('rulecraft')}, this is {__version__}")
    names = header["players"]
    try:
        game = Game(rs, len(names), header["seed"], names=names, max_steps=max_steps)
    except (GameError, RuleError) as exc:
        return ReplayReport(False, f"the game cannot start: {exc}", hline)
    report.game = game
    layout = layout_hashed(header)  # a format 1 log: its hashes include the place of the asking step
    for i, rec in walk:
        kind = rec.get("type")
        if kind == "decision":
            if game.over:
                return _fail(report, "the game was already over, but the log has more decisions", i)
            if "n" in rec and not alike(rec["n"], report.decisions + 1):
                return _fail(report, f"the log numbers this decision {_short(rec['n'])}, but it is decision "
                                     f"{report.decisions + 1} of the game (a decision was deleted, repeated or moved)", i)
            d = game.pending
            if d is None:  # (a game not over waits for a decision)
                return _fail(report, "the game asks nothing, but the log has a decision", i)
            if rec.get("player") is not None and not alike(rec.get("player"), d.player):
                return _fail(report, f"the log says player {rec.get('player')!r} decides, the game asks "
                                     f"player {d.player} ({d.prompt})", i)
            if "chance" in rec and not alike(rec["chance"], game.chance):
                return _fail(report, f"chance differs: the log has {_short(rec['chance'])}, the game has "
                                     f"{_short(game.chance)}", i)
            if "choice" not in rec:
                return _fail(report, "the decision has no choice", i)
            try:
                game.apply(rec["choice"])
            except IllegalChoice as exc:
                return _fail(report, f"choice {_short(rec['choice'])} is not legal here: {exc}", i)
            except RuleError as exc:
                return _fail(report, f"the game stopped with an error: {exc.message}", i)
            report.decisions += 1
            if "hash" in rec and rec["hash"] != state_hash(game, layout):
                return _fail(report, f"the game state differs from the log after decision {report.decisions}", i)
        elif kind == "end":
            if not game.over:
                return _fail(report, "the log ends the game, but the game still waits for a decision", i)
            if not alike(rec.get("winners"), game.winners):
                return _fail(report, f"winners differ: log {_short(rec.get('winners'))}, game {game.winners}", i)
            if "scores" in rec and not alike(rec["scores"], _plain(game.scores)):
                return _fail(report, f"scores differ: log {_short(rec['scores'])}, game {_short(_plain(game.scores))}", i)
            if "decisions" in rec and not alike(rec["decisions"], game.decisions):
                return _fail(report, f"the log says {_short(rec['decisions'])} decisions, the game took {game.decisions}", i)
            if rec.get("hash") and rec["hash"] != state_hash(game, layout):
                return _fail(report, "the final state differs from the log", i)
            if report.complete:
                return _fail(report, "the log ends the game twice", i)
            report.complete = True
        elif kind == "header":
            return _fail(report, "a second header: two logs were joined", i)
        else:
            return _fail(report, f"unknown record type {_short(kind)}", i)
    if not report.complete:
        how = f"is cut short at line {cut_at}" if cut_at else "has no end record"
        report.message = (f"the log {how}: the game is unfinished; its {report.decisions} decisions "
                          "replay identically up to there")
        report.ok = False
        report.unfinished = True
        report.line = cut_at or records.last or hline
        return report
    report.message = f"replayed {report.decisions} decisions: identical"
    return report


def _short(value: Any, limit: int = 80) -> str:
    """A value as the log has it, cut to a readable length (a stranger's log may hold anything)."""
    text = json.dumps(value, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


OLDER_RULESET = "the ruleset's files changed since this game was played"


def _fail(report: ReplayReport, message: str, line: int) -> ReplayReport:
    report.ok = False
    if OLDER_RULESET in report.warnings:  # the likely reason, said first
        name = report.game.rs.name if report.game is not None else "of this log"
        message = (f"this log was made with an older version of the ruleset '{name}' "
                   f"(its files changed since), so it cannot be replayed: {message}")
    report.message = message
    report.line = line
    return report
