"""Game logs: one JSON object per line, written and flushed as the game goes, and their replay.

A log holds a header (ruleset, its files' fingerprint, players, seed, overrides), then one
line per decision (who, the choice in wire form, the chance results since the previous
decision, and a state hash every few decisions), then the result. Replaying re-runs the
game from the seed and the decisions and reports the first line where it differs.
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


def ruleset_fingerprint(rs) -> str:
    h = hashlib.sha256()
    for path in rs.lineage:
        try:
            with open(path, "rb") as fh:
                h.update(fh.read())
        except OSError:
            h.update(path.encode())
    return h.hexdigest()[:16]


class GameLogWriter:
    """Appends a game's records to a file, flushing each line so a killed game keeps its log."""

    def __init__(self, path: str, ruleset_ref: str, game, overrides: dict | None = None, agents: list[str] | None = None):
        self.path = path
        self.fh: IO[str] = open(path, "w", encoding="utf-8")
        self.count = 0
        self._write({
            "type": "header", "rulecraft": __version__, "ruleset": ruleset_ref, "name": game.rs.name,
            "fingerprint": ruleset_fingerprint(game.rs), "players": [p.name for p in game.players],
            "seed": game.seed, "overrides": overrides or {}, "agents": agents or [],
        })

    def _write(self, record: dict) -> None:
        self.fh.write(json.dumps(record, separators=(",", ":")) + "\n")
        self.fh.flush()

    def decision(self, game, player: int, wire: Any, chance: list) -> None:
        """Record a decision just applied; `chance` is what chance gave before it was asked."""
        self.count += 1
        rec = {"type": "decision", "n": self.count, "player": player, "choice": wire}
        if chance:
            rec["chance"] = chance
        if self.count % CHECKPOINT_EVERY == 0:
            rec["hash"] = state_hash(game)
        self._write(rec)

    def end(self, game) -> None:
        self._write({"type": "end", "winners": game.winners, "scores": _plain(game.scores),
                     "decisions": game.decisions, "hash": state_hash(game)})

    def close(self) -> None:
        if not self.fh.closed:
            self.fh.close()


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


def replay(path: str, max_steps: int = 5_000_000) -> ReplayReport:
    """Re-run a logged game and check it against every record; the first mismatch is reported."""
    from ..loader import load_ruleset
    from .decisions import IllegalChoice
    from .game import Game, GameError
    from ..diagnostics import RuleError

    try:
        with open(path, "rb") as fh:
            raw = fh.read(50_000_000)
    except OSError as exc:
        return ReplayReport(False, f"cannot read {path}: {exc.strerror or exc}")
    if b"\x00" in raw:
        return ReplayReport(False, f"{path} is not a game log (binary data)", 1)
    lines = raw.decode("utf-8", errors="replace").splitlines()
    records = []
    cut_at = None
    for i, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            rec = json.loads(text)
        except json.JSONDecodeError as exc:
            if i == len(lines) and records:
                cut_at = i  # the last line was cut short: replay what came before it
                break
            return ReplayReport(False, f"line {i} is not JSON: {exc.msg}", i)
        if not isinstance(rec, dict) or "type" not in rec:
            return ReplayReport(False, f"line {i} is not a game log record", i)
        records.append((i, rec))
    if not records or records[0][1].get("type") != "header":
        return ReplayReport(False, "the first line is not a game log header", 1)
    hline, header = records[0]
    try:
        ref = str(header["ruleset"])
        names = list(header["players"])
        seed = int(header["seed"])
        overrides = dict(header.get("overrides") or {})
    except (KeyError, TypeError, ValueError):
        return ReplayReport(False, "the header lacks ruleset, players or seed", hline)
    loaded = load_ruleset(ref, overrides=overrides)
    if not loaded.ok:
        first = loaded.diagnostics[0].message if loaded.diagnostics else "unknown problem"
        return ReplayReport(False, f"cannot load the ruleset '{ref}' of this log: {first}", hline)
    rs = loaded.ruleset
    report = ReplayReport(True, "")
    if header.get("name") not in (None, rs.name):
        return ReplayReport(False, f"the log is of ruleset '{header.get('name')}', but '{ref}' is '{rs.name}'", hline)
    if header.get("fingerprint") and header["fingerprint"] != ruleset_fingerprint(rs):
        report.warnings.append("the ruleset's files changed since this game was played")
    try:
        game = Game(rs, len(names), seed, names=names, max_steps=max_steps)
    except (GameError, RuleError) as exc:
        return ReplayReport(False, f"the game cannot start: {exc}", hline)
    report.game = game
    for i, rec in records[1:]:
        kind = rec.get("type")
        if kind == "decision":
            if game.over:
                return _fail(report, f"the game was already over, but the log has more decisions", i)
            d = game.pending
            if rec.get("player") is not None and rec.get("player") != d.player:
                return _fail(report, f"the log says player {rec.get('player')} decides, the game asks "
                                     f"player {d.player} ({d.prompt})", i)
            if "chance" in rec and rec["chance"] != game.chance:
                return _fail(report, f"chance differs: the log has {rec['chance']}, the game has {game.chance}", i)
            try:
                game.apply(rec.get("choice"))
            except IllegalChoice as exc:
                return _fail(report, f"choice {rec.get('choice')!r} is not legal here: {exc}", i)
            except RuleError as exc:
                return _fail(report, f"the game stopped with an error: {exc.message}", i)
            report.decisions += 1
            if "hash" in rec and rec["hash"] != state_hash(game):
                return _fail(report, f"the game state differs from the log after decision {rec.get('n')}", i)
        elif kind == "end":
            if not game.over:
                return _fail(report, f"the log ends the game, but the game still waits for a decision", i)
            if rec.get("winners") != game.winners:
                return _fail(report, f"winners differ: log {rec.get('winners')}, game {game.winners}", i)
            if rec.get("hash") and rec["hash"] != state_hash(game):
                return _fail(report, f"the final state differs from the log", i)
            report.complete = True
        else:
            return _fail(report, f"unknown record type {kind!r}", i)
    if not report.complete:
        how = f"is cut short at line {cut_at}" if cut_at else "has no end record"
        report.message = (f"the log {how}: the game is unfinished; its {report.decisions} decisions "
                          "replay identically up to there")
        report.ok = False
        report.line = cut_at or records[-1][0]
        return report
    report.message = f"replayed {report.decisions} decisions: identical"
    return report


def _fail(report: ReplayReport, message: str, line: int) -> ReplayReport:
    report.ok = False
    report.message = message
    report.line = line
    return report


def log_exists(path: str) -> bool:
    return os.path.exists(path)
