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
import unicodedata
from typing import Any, Optional

from .. import __version__
from .rng import SEED_END, SEED_MIN
from .state_io import state_hash

CHECKPOINT_EVERY = 10
LOG_FORMAT = 2  # the layout of the records; a reader refuses a format it does not know
# format 1 hashed the place (line:column) of the step that asks a decision, so a comment added to the
# ruleset broke its logs; format 2 hashes the game only. Format 1 logs still replay, with that hash.
READ_FORMATS = (1, 2)
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


def recorded_ref(ruleset_ref: str, beside: str) -> str:
    """The ruleset as a log or a save names it: never an absolute path of the machine it was made on.

    A bundled name or a relative path is kept as given; an absolute path becomes relative to the
    folder of the log or save (`beside`), where replay looks for it (only the file's name when the
    log goes to standard output or the two are on different drives).
    """
    if not os.path.isabs(ruleset_ref):
        return ruleset_ref
    if beside in ("", "-"):
        return os.path.basename(ruleset_ref)
    try:
        return os.path.relpath(ruleset_ref, os.path.dirname(os.path.abspath(beside)))
    except ValueError:  # another drive (Windows)
        return os.path.basename(ruleset_ref)


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
    """Writes a game's records as they are made, each line at once, so a killed game keeps its log.

    The file goes through the engine's one writer (`rulecraft.files.open_stream`): a regular
    file is replaced by a fresh one, a device or FIFO is written into, `-` is standard output.
    A write that fails (a full disk) raises `OutputError` once; `close` is then quiet.
    """

    def __init__(self, path: str, ruleset_ref: str, game, overrides: dict | None = None,
                 agents: list[str] | None = None, *, _open: bool = True):
        from ..claims import claim
        from ..files import open_stream

        self.path = path
        self.count = 0
        self.complete = False  # the end record is already there (a resumed game that was over)
        self.header: dict = {}  # the header the file starts with (an undo writes the file again with it)
        if _open:
            claim(path, self)  # one process at a time writes a game's log (rulecraft.claims)
            self.fh: Any = open_stream(path)
            self.header = log_header(recorded_ref(ruleset_ref, path), game, overrides, agents)
            self._write(self.header)

    @classmethod
    def resume(cls, path: str, header: dict, records: list[dict], over_record: Optional[dict]) -> "GameLogWriter":
        """Go on with the log of a resumed game: keep what the file already holds of it, add what it lacks.

        `header` is the game's log header and `records` its decision records so far (as a fresh
        log would have them). A missing or empty file gets them all. An existing file must be
        this game's log: its records are compared with `records`; a line cut short by a kill,
        or a decision logged after the save was written, is dropped, and the missing ones are
        appended. The log then replays as if the game had never stopped.
        """
        from ..claims import claim
        from ..files import open_stream, target_kind

        w = cls(path, "", None, _open=False)
        claim(path, w)  # before anything of the file is read or cut back
        header = dict(header, ruleset=recorded_ref(header.get("ruleset") or "", path))
        w.header = header
        keep_bytes, kept, ended = 0, 0, False
        if target_kind(path) != "file":  # new, a device, a FIFO or standard output: the whole log again
            w.fh = open_stream(path)
            w._write(header)
        else:
            if os.path.getsize(path) > 0:
                keep_bytes, kept, ended = _matching_prefix(path, header, records, over_record)
            w.fh = _LogFile(path, keep_bytes)
            if keep_bytes == 0:
                w._write(header)
        for rec in records[kept:]:
            w._write(rec)
        w.count = len(records)
        if ended:
            w.complete = True
        return w

    @classmethod
    def rewrite(cls, path: str, header: dict, records: list[dict]) -> "GameLogWriter":
        """The log of a game whose last decisions were taken back (`undo`): the file is written again whole,
        with `header` and the decision `records` that remain, and goes on from there. Only a regular file (or
        a new one) can be cut back: the caller refuses an undo whose log is a device, a FIFO or standard output."""
        from ..claims import claim
        from ..files import open_stream

        w = cls(path, "", None, _open=False)
        claim(path, w)
        w.fh = open_stream(path, "".join(_line(r) for r in (header, *records)))  # whole or as it was (session 19)
        w.header = header
        w.count = len(records)
        return w

    def _write(self, record: dict) -> None:
        self.fh.write(_line(record))

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
        if fh is not None:
            fh.close()


class _LogFile:
    """An existing log of a resumed game, cut after `keep` bytes and added to in place (a newline first
    when its last kept record lacks one); it behaves as an OutputStream (OutputError, quiet close)."""

    def __init__(self, path: str, keep: int):
        from ..files import OutputError, OutputStream, os_error_text

        try:
            fd = os.open(path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            raise OutputError(path, os_error_text(path, exc)) from None
        self.stream = OutputStream(path, fd, True)
        try:
            last = os.pread(fd, 1, keep - 1) if keep else b"\n"
            os.ftruncate(fd, keep)
            os.lseek(fd, keep, os.SEEK_SET)
        except OSError as exc:
            self.stream.close()
            raise OutputError(path, os_error_text(path, exc)) from None
        if last != b"\n":
            self.write("\n")

    def write(self, text: str) -> None:
        self.stream.write(text)

    def close(self) -> None:
        self.stream.close()


def _matching_prefix(path: str, header: dict, records: list[dict], over_record: Optional[dict]) -> tuple[int, int, bool]:
    """(bytes to keep, decision records kept, end record kept) of an existing log of this game.

    What a kill can leave is dropped: a last line cut short, and one decision logged after
    the last save. Anything else that does not fit the saved game is refused, and the file
    is left as it is.
    """
    from ..files import InputError, read_regular

    try:
        raw = read_regular(path, MAX_LOG_BYTES, "game log", goes_on=True)
    except InputError as exc:
        raise LogMismatch(exc.message) from None
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
                if not alike(rec.get(key), header.get(key)):
                    raise LogMismatch(f"it is the log of another game (its {key} is {rec.get(key)!r}, "
                                      f"the saved game's is {header.get(key)!r})", 1)
        elif not line.strip():
            pass  # a blank line: replay skips it too
        elif not isinstance(rec, dict):
            raise LogMismatch(f"line {i} is not a log record", i)
        elif rec.get("type") == "decision" and kept < len(records):
            if not alike(rec, records[kept]):  # the same decision, chance and checkpoint, or another game
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


def alike(a: Any, b: Any) -> bool:
    """The same JSON value: Python's `==` takes true for 1 and 5.0 for 5 (an edited log was kept, then did not replay)."""
    try:
        return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (TypeError, ValueError, RecursionError):  # (not JSON: what Python says)
        return a == b


def _parse(line: bytes) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


def _plain(v):
    from .state_io import encode

    return encode(v)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


MAX_NAME = 40  # characters in a player's name


def names_problem(names: list) -> Optional[str]:
    """Why these player names cannot be used (from `--names` or a saved game), or None: each a printable line of at
    most 40 characters, none empty, no two alike (compared as NFKC, case and spaces aside), at most 64."""
    for n in names:
        if not isinstance(n, str) or not n.strip():
            return "a player name is empty: give one name per seat, A,B,..."
        if len(n) > MAX_NAME:
            return f"the name '{n[:37]}...' is longer than {MAX_NAME} characters"
        if not n.isprintable():
            return "a player name holds a control character (a new line, an escape, ...)"
    if len({" ".join(unicodedata.normalize("NFKC", n).casefold().split()) for n in names}) < len(names):
        return "two players have the same name: give each seat its own"  # (alike as printed: 'é' and 'e'+U+0301)
    if len(names) > 64:
        return f"{len(names)} names: a game has at most 64 players"
    return None


def header_problem(header: dict) -> Optional[str]:
    """What makes a header unusable, or None."""
    fmt = header.get("format", 1)  # the first logs had no format: they are format 1
    if fmt not in READ_FORMATS or isinstance(fmt, bool):
        return (f"the log is in format {fmt!r} (written by rulecraft {header.get('rulecraft', '?')}); "
                f"this rulecraft ({__version__}) reads formats {' and '.join(map(str, READ_FORMATS))}")
    if not isinstance(header.get("ruleset"), str) or not header["ruleset"]:
        return "the header names no ruleset"
    players = header.get("players")
    if not isinstance(players, list) or not 1 <= len(players) <= MAX_PLAYERS or \
            not all(isinstance(p, str) and len(p) <= 200 for p in players):
        return "the header's players are not a list of names"
    if not _is_int(header.get("seed")) or not SEED_MIN <= header["seed"] < SEED_END:
        return "the header's seed is not a whole number"
    overrides = header.get("overrides") or {}
    if not isinstance(overrides, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in overrides.items()):
        return "the header's overrides are not NAME: VALUE texts"
    if header.get("name") is not None and not isinstance(header.get("name"), str):
        return "the header's ruleset name is not a text"
    return None


def layout_hashed(header: dict) -> bool:
    """Whether the state hashes of this log (or save) include the place of the step that asks (format 1)."""
    return header.get("format", 1) == 1
