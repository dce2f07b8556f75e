"""Game logs: one JSON object per line, written and flushed as the game goes, and their replay.

A log holds a header (log format, ruleset, its files' fingerprint, players, seed, overrides),
then one line per decision (who, the choice in wire form, the chance results since the
previous decision, and a state hash every few decisions), then the result. Replaying re-runs
the game from the seed and the decisions and reports the first line where it differs.

A log may come from a stranger, so replay trusts nothing in it: every record is checked
before use, the ruleset it names is only a bundled name or a `.yaml` file (or the one given
with `ruleset=`), and every way it can be wrong is a verdict with a line, never an exception.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import IO, Any, Optional

from .. import __version__
from .state_io import state_hash

CHECKPOINT_EVERY = 10
LOG_FORMAT = 1  # the layout of the records; a reader refuses a format it does not know
MAX_LOG_BYTES = 50_000_000
MAX_PLAYERS = 100


def ruleset_fingerprint(rs) -> str:
    h = hashlib.sha256()
    for path in rs.lineage:
        try:
            with open(path, "rb") as fh:
                h.update(fh.read())
        except OSError:
            h.update(path.encode())
    return h.hexdigest()[:16]


def log_header(ruleset_ref: str, game, overrides: dict | None, agents: list[str] | None) -> dict:
    return {
        "type": "header", "format": LOG_FORMAT, "rulecraft": __version__, "ruleset": ruleset_ref,
        "name": game.rs.name, "fingerprint": ruleset_fingerprint(game.rs), "players": [p.name for p in game.players],
        "seed": game.seed, "overrides": dict(overrides or {}), "agents": list(agents or []),
    }


def decision_record(game, n: int, player: int, wire: Any, chance: list) -> dict:
    """The log record of the n-th decision, just applied; `chance` is what chance gave before it was asked."""
    rec = {"type": "decision", "n": n, "player": player, "choice": wire}
    if chance:
        rec["chance"] = chance
    if n % CHECKPOINT_EVERY == 0:
        rec["hash"] = state_hash(game)
    return rec


def end_record(game) -> dict:
    return {"type": "end", "winners": game.winners, "scores": _plain(game.scores), "decisions": game.decisions,
            "hash": state_hash(game)}


def _line(record: dict) -> str:
    return json.dumps(record, separators=(",", ":")) + "\n"


class LogMismatch(Exception):
    """An existing log does not belong to the game being resumed (or disagrees with it at `line`)."""

    def __init__(self, message: str, line: Optional[int] = None):
        super().__init__(message)
        self.line = line


class GameLogWriter:
    """Appends a game's records to a file, flushing each line so a killed game keeps its log."""

    def __init__(self, path: str, ruleset_ref: str, game, overrides: dict | None = None,
                 agents: list[str] | None = None, *, _open: bool = True):
        self.path = path
        self.count = 0
        self.complete = False  # the end record is already there (a resumed game that was over)
        if _open:
            self.fh: IO[str] = open(path, "w", encoding="utf-8")
            self._write(log_header(ruleset_ref, game, overrides, agents))

    @classmethod
    def resume(cls, path: str, header: dict, records: list[dict], over_record: Optional[dict]) -> "GameLogWriter":
        """Go on with the log of a resumed game: keep what the file already holds of it, add what it lacks.

        `header` is the game's log header and `records` its decision records so far (as a fresh
        log would have them). A missing or empty file gets them all. An existing file must be
        this game's log: its records are compared with `records`; a line cut short by a kill,
        or a decision logged after the save was written, is dropped, and the missing ones are
        appended. The log then replays as if the game had never stopped.
        """
        w = cls(path, "", None, _open=False)
        keep_bytes, kept, ended = 0, 0, False
        if os.path.exists(path) and os.path.getsize(path) > 0:
            keep_bytes, kept, ended = _matching_prefix(path, header, records, over_record)
        w.fh = open(path, "a+", encoding="utf-8")
        w.fh.seek(keep_bytes)
        w.fh.truncate()
        if keep_bytes == 0:
            w._write(header)
        else:
            with open(path, "rb") as fh:
                fh.seek(keep_bytes - 1)
                if fh.read(1) != b"\n":
                    w.fh.write("\n")
        for rec in records[kept:]:
            w._write(rec)
        w.count = len(records)
        if ended:
            w.complete = True
        return w

    def _write(self, record: dict) -> None:
        self.fh.write(_line(record))
        self.fh.flush()

    def decision(self, game, player: int, wire: Any, chance: list) -> None:
        """Record a decision just applied; `chance` is what chance gave before it was asked."""
        self.count += 1
        self._write(decision_record(game, self.count, player, wire, chance))

    def end(self, game) -> None:
        if not self.complete:
            self._write(end_record(game))
            self.complete = True

    def close(self) -> None:
        fh = getattr(self, "fh", None)
        if fh is not None and not fh.closed:
            fh.close()


def _matching_prefix(path: str, header: dict, records: list[dict], over_record: Optional[dict]) -> tuple[int, int, bool]:
    """(bytes to keep, decision records kept, end record kept) of an existing log of this game.

    What a kill can leave is dropped: a last line cut short, and one decision logged after
    the last save. Anything else that does not fit the saved game is refused, and the file
    is left as it is.
    """
    with open(path, "rb") as fh:
        raw = fh.read(MAX_LOG_BYTES + 1)
    if len(raw) > MAX_LOG_BYTES:
        raise LogMismatch(f"the log is larger than {MAX_LOG_BYTES:,} bytes")
    pos, offset, kept, ended, extra = 0, 0, 0, False, 0  # pos: where the line starts; offset: what is kept
    for i, line in enumerate(raw.split(b"\n"), 1):
        cut = pos + len(line) >= len(raw)  # no newline after it: the last line, written in part
        pos += len(line) + 1
        rec = _parse(line)
        if cut and not isinstance(rec, dict):
            break  # cut short by a kill (or nothing after the last newline): drop it
        if i == 1:
            if not isinstance(rec, dict) or rec.get("type") != "header":
                raise LogMismatch("it is not a game log (its first line is no log header)", 1)
            if header_problem(rec):
                raise LogMismatch(f"its header is damaged: {header_problem(rec)}", 1)
            for key in ("format", "name", "seed", "players", "overrides"):
                if rec.get(key) != header.get(key):
                    raise LogMismatch(f"it is the log of another game (its {key} is {rec.get(key)!r}, "
                                      f"the saved game's is {header.get(key)!r})", 1)
        elif not line.strip():
            pass  # a blank line: replay skips it too
        elif not isinstance(rec, dict):
            raise LogMismatch(f"line {i} is not a log record", i)
        elif rec.get("type") == "decision" and kept < len(records):
            if rec != records[kept]:  # the same decision, chance and checkpoint, or another game
                raise LogMismatch(f"its decision {kept + 1} is not the saved game's decision {kept + 1}", i)
            kept += 1
        elif rec.get("type") == "decision":
            extra += 1  # logged after the last save; a kill leaves at most one
            if extra > 1:
                raise LogMismatch(f"it goes on past the saved game ({len(records)} decisions): it belongs to "
                                  "a later save", i)
            continue  # dropped (and so is all that follows): the resumed game decides it again
        elif rec.get("type") == "end" and over_record is not None and kept == len(records):
            ended = True
        elif rec.get("type") == "end":
            raise LogMismatch("it ends the game where the saved game goes on", i)
        else:
            raise LogMismatch(f"line {i} is not a record of this log", i)
        if not extra:
            offset = min(pos, len(raw))  # a last whole record without its newline: resume() adds it
    return offset, kept, ended


def _parse(line: bytes) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


def _plain(v):
    from .state_io import encode

    return encode(v)


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


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def header_problem(header: dict) -> Optional[str]:
    """What makes a header unusable, or None."""
    fmt = header.get("format", LOG_FORMAT)  # the first logs had no format: they are format 1
    if fmt != LOG_FORMAT:
        return (f"the log is in format {fmt!r} (written by rulecraft {header.get('rulecraft', '?')}); "
                f"this rulecraft ({__version__}) reads format {LOG_FORMAT}")
    if not isinstance(header.get("ruleset"), str) or not header["ruleset"]:
        return "the header names no ruleset"
    players = header.get("players")
    if not isinstance(players, list) or not 1 <= len(players) <= MAX_PLAYERS or \
            not all(isinstance(p, str) and len(p) <= 200 for p in players):
        return "the header's players are not a list of names"
    if not _is_int(header.get("seed")) or not -(2**63) <= header["seed"] < 2**64:
        return "the header's seed is not a whole number"
    overrides = header.get("overrides") or {}
    if not isinstance(overrides, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in overrides.items()):
        return "the header's overrides are not NAME: VALUE texts"
    if header.get("name") is not None and not isinstance(header.get("name"), str):
        return "the header's ruleset name is not a text"
    return None


def loggable_ruleset(ref: str) -> bool:
    """Whether a ruleset reference read from a file may be opened: a bundled name or a .yaml/.yml file.

    A log or save names its ruleset; a stranger's could name any file on the machine, and the
    diagnostics of loading it would show parts of it. Anything else must be given explicitly.
    """
    from ..bundled import bundled_rulesets

    if ref.endswith((".yaml", ".yml")):
        return True
    return any(b.name == ref for b in bundled_rulesets())


def read_records(path: str) -> tuple[list[tuple[int, dict]], Optional[int], Optional[ReplayReport]]:
    """The records of a JSON-lines file: ([(line, record)], line cut short or None, failure or None)."""
    try:
        size = os.path.getsize(path)
        if size > MAX_LOG_BYTES:
            return [], None, ReplayReport(False, f"{path} is larger than {MAX_LOG_BYTES:,} bytes: not a game log")
        with open(path, "rb") as fh:
            raw = fh.read(MAX_LOG_BYTES + 1)
    except OSError as exc:
        return [], None, ReplayReport(False, f"cannot read {path}: {exc.strerror or exc}")
    if b"\x00" in raw:
        return [], None, ReplayReport(False, f"{path} is not a game log (binary data)",
                                      raw[: raw.index(b"\x00")].count(b"\n") + 1)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        at = raw[: exc.start].count(b"\n") + 1
        return [], None, ReplayReport(False, f"line {at} is not UTF-8 text: this is not a game log", at)
    lines = text.splitlines()
    records: list[tuple[int, dict]] = []
    for i, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            rec = json.loads(text)
        except ValueError as exc:
            if i == len(lines) and records and not text.endswith(("\n", "\r")):
                return records, i, None  # the last line was cut short: use what came before it
            msg = exc.msg if isinstance(exc, json.JSONDecodeError) else "a number with too many digits"  # never Python's advice
            return records, None, ReplayReport(False, f"line {i} is not JSON: {msg}", i)
        except RecursionError:
            return records, None, ReplayReport(False, f"line {i} is nested too deeply to be a record", i)
        if not isinstance(rec, dict) or not isinstance(rec.get("type"), str):
            return records, None, ReplayReport(False, f"line {i} is not a game log record", i)
        records.append((i, rec))
    return records, None, None


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
    if not records or records[0][1].get("type") != "header":
        return ReplayReport(False, "the first line is not a game log header", records[0][0] if records else 1)
    hline, header = records[0]
    problem = header_problem(header)
    if problem:
        return ReplayReport(False, problem, hline)
    ref = ruleset or header["ruleset"]
    if ruleset is None:
        if not loggable_ruleset(ref):
            return ReplayReport(False, f"the log names its ruleset '{ref}', which is neither a bundled ruleset nor a "
                                       ".yaml file; give the ruleset with --ruleset", hline)
        beside = os.path.join(os.path.dirname(os.path.abspath(path)), ref)
        if not os.path.isabs(ref) and not os.path.exists(ref) and os.path.isfile(beside):
            ref = beside  # a relative path written where the game was played: try next to the log
    loaded = load_ruleset(ref, overrides=header.get("overrides") or {})
    if not loaded.ok:
        first = next((d for d in loaded.diagnostics if d.is_error), None)
        why = f"{first.code}: {first.message}" if first else "unknown problem"
        return ReplayReport(False, f"cannot load the ruleset '{ref}' of this log ({why})", hline)
    rs = loaded.ruleset
    report = ReplayReport(True, "")
    if header.get("name") not in (None, rs.name):
        return ReplayReport(False, f"the log is of ruleset '{header.get('name')}', but '{ref}' is '{rs.name}'", hline)
    if header.get("fingerprint") and header["fingerprint"] != ruleset_fingerprint(rs):
        report.warnings.append("the ruleset's files changed since this game was played")
    if header.get("rulecraft") not in (None, __version__):
        report.warnings.append(f"the log was written by rulecraft {header.get('rulecraft')}, this is {__version__}")
    names = header["players"]
    try:
        game = Game(rs, len(names), header["seed"], names=names, max_steps=max_steps)
    except (GameError, RuleError) as exc:
        return ReplayReport(False, f"the game cannot start: {exc}", hline)
    report.game = game
    for i, rec in records[1:]:
        kind = rec.get("type")
        if kind == "decision":
            if game.over:
                return _fail(report, "the game was already over, but the log has more decisions", i)
            d = game.pending
            if rec.get("player") is not None and rec.get("player") != d.player:
                return _fail(report, f"the log says player {rec.get('player')!r} decides, the game asks "
                                     f"player {d.player} ({d.prompt})", i)
            if "chance" in rec and rec["chance"] != game.chance:
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
            if "hash" in rec and rec["hash"] != state_hash(game):
                return _fail(report, f"the game state differs from the log after decision {report.decisions}", i)
        elif kind == "end":
            if not game.over:
                return _fail(report, "the log ends the game, but the game still waits for a decision", i)
            if rec.get("winners") != game.winners:
                return _fail(report, f"winners differ: log {_short(rec.get('winners'))}, game {game.winners}", i)
            if "scores" in rec and rec["scores"] != _plain(game.scores):
                return _fail(report, f"scores differ: log {_short(rec['scores'])}, game {_short(_plain(game.scores))}", i)
            if "decisions" in rec and rec["decisions"] != game.decisions:
                return _fail(report, f"the log says {_short(rec['decisions'])} decisions, the game took {game.decisions}", i)
            if rec.get("hash") and rec["hash"] != state_hash(game):
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
        report.line = cut_at or records[-1][0]
        return report
    report.message = f"replayed {report.decisions} decisions: identical"
    return report


def _short(value: Any, limit: int = 80) -> str:
    """A value as the log has it, cut to a readable length (a stranger's log may hold anything)."""
    text = json.dumps(value, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _fail(report: ReplayReport, message: str, line: int) -> ReplayReport:
    report.ok = False
    report.message = message
    report.line = line
    return report
