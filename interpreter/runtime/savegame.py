"""Saved games: the state after every decision, written atomically, and resuming it safely.

A save file is JSON lines, like a log: line 1 a header (what game: save format, ruleset and
its fingerprint, players, seed, overrides, agents, number of decisions), then one line per
decision taken so far, then the state (`state_io.to_json`) with its hash. It is rewritten
whole after every decision through a temporary file and `os.replace`, so a killed game leaves
either the previous save or the new one, never half of one.

Resuming trusts nothing in the file: it re-plays the saved decisions from the seed and
checks that they lead to exactly the saved state. A damaged or edited file, one of another
ruleset, of a changed ruleset or of another save format is refused with the line at fault
(`SaveError`), instead of going on with a game that never happened. The game that goes on
is the re-played one, so it continues exactly as the saved game would have.
"""

from __future__ import annotations

import json
import os
import time
from array import array
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from .. import __version__
from .gamelog import decision_record, header_problem, names_problem, log_header, recorded_ref, ruleset_fingerprint
from .state_io import FORMAT as STATE_FORMAT
from .state_io import hash_of, state_hash, to_json

SAVE_FORMAT = 2  # 2: the state hash leaves out the place of the asking step (see state_io.hash_of)
READ_SAVE_FORMATS = (1, 2)  # a format 1 save is still resumed, checked with the hash it was written with
MAX_SAVE_BYTES = 50_000_000


class SaveError(Exception):
    """A saved game cannot be resumed; `line` is the line of the file at fault, when there is one."""

    def __init__(self, message: str, line: Optional[int] = None):
        super().__init__(message)
        self.message = message
        self.line = line


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def atomic_write(path: str, text: str, sync: bool = True) -> None:
    """Replace `path` by `text` all at once, through the engine's one writer (`rulecraft.files`).

    A private temporary file beside it, then a rename: a killed process leaves the old save or
    the new one. `sync` also flushes the new file to the disk first, so that a power cut
    cannot leave the new name on empty data. Failures are `OutputError`s with a message.
    """
    from ..files import replace_file

    replace_file(path, text, sync=sync, private=True)  # it holds every hidden card: its owner only


class SaveWriter:
    """Keeps a game's save file up to date: `write(game)` after every decision (written when `due`).

    Every write replaces the file whole; it is also synced to the disk when the last sync is
    more than SYNC_EVERY seconds old: always at a person's pace, twice a second for bots (a sync
    costs about 10 ms, four times a whole decision of a bot game).
    """

    SYNC_EVERY = 0.5
    BATCH = 32  # a run of bots' decisions is written every (decisions so far) / BATCH of them, and each second
    WRITE_EVERY = 1.0

    def __init__(self, path: str, ruleset_ref: str, game, overrides: dict | None = None,
                 agents: list[str] | None = None, decisions: Optional[list[tuple[int, Any]]] = None):
        from ..claims import claim

        claim(path, self)  # one process at a time writes a game's save (rulecraft.claims)
        self.path = path
        head = log_header(recorded_ref(ruleset_ref, path), game, overrides, agents)
        head.update(type="save", format=SAVE_FORMAT)
        self.header = head
        self.synced = float("-inf")
        self.lines: list[str] = []
        self.written: Optional[int] = None  # the decisions the file on disk holds (its last write that succeeded)
        self.people = {i for i, kind in enumerate(head.get("agents") or ()) if kind == "human"}
        self.last: Optional[int] = None  # the player of the last decision recorded
        self.tried = float("-inf")  # when the file was last written
        for player, wire in decisions or ():
            self.record(player, wire)

    def record(self, player: int, wire: Any) -> None:
        self.last = player
        n = len(self.lines) + 1
        self.lines.append(_dumps({"type": "decision", "n": n, "player": player, "choice": wire}))

    def due(self, game) -> bool:
        """Whether the file must be written now: always for a person's decision, the one before a person is asked,
        the end, the first write and at least once a second; a run of bots' decisions in batches that grow with the
        game (the file is replaced whole, so a write a decision cost the square of the game: a stranger's ruleset
        whose bots decide for ever wrote 180 GB). A kill in a run of bots' decisions loses a few of them, which the
        same bots take again when the game is resumed (their choices are a function of the game and the seat)."""
        n, written = len(self.lines), self.written
        pending = None if game.over else game.pending
        return (written is None or game.over or self.last in self.people or pending is None
                or pending.player in self.people or n - written >= max(1, n // self.BATCH)
                or time.monotonic() - self.tried >= self.WRITE_EVERY)

    def write(self, game) -> None:
        if not self.due(game):
            return
        self.tried = time.monotonic()
        head = dict(self.header, decisions=len(self.lines))
        data = portable(to_json(game), game.rs.file)
        state = {"type": "state", "format": STATE_FORMAT, "hash": hash_of(data), "state": data}
        now = time.monotonic()
        sync = now - self.synced >= self.SYNC_EVERY
        atomic_write(self.path, "\n".join([_dumps(head), *self.lines, _dumps(state)]) + "\n", sync)
        self.written = len(self.lines)
        if sync:
            self.synced = now


def portable(data: dict, ruleset_file: str) -> dict:
    """`to_json` data with the place of the asking step relative to the ruleset's folder ('pig.yaml:74:15').

    A save sent to a friend must not show the sender's folders. The place is left out of the state's
    hash (format 2) or hashed as line and column only (format 1), so a save with a relative place and an
    older one with an absolute place both resume.
    """
    pending = data.get("pending")
    if not (isinstance(pending, dict) and isinstance(pending.get("node"), str)) or pending["node"].count(":") < 2:
        return data
    file, line, col = pending["node"].rsplit(":", 2)
    try:
        here = os.path.relpath(os.path.abspath(file), os.path.dirname(os.path.abspath(ruleset_file or file)))
    except ValueError:  # another drive (Windows)
        here = os.path.basename(file)
    return dict(data, pending=dict(pending, node=f"{here}:{line}:{col}"))


@dataclass
class SavedGame:
    """A save file read and checked for shape (not yet against a ruleset)."""

    path: str
    header: dict
    decisions: list[tuple[int, Any]]  # (seat, wire-form choice), in order
    decision_lines: Sequence[int]  # the line of each decision in the file
    state: dict
    state_hash: str
    state_line: int
    warnings: list[str] = field(default_factory=list)

    @property
    def overrides(self) -> dict:
        return dict(self.header.get("overrides") or {})

    @property
    def agents(self) -> list[str]:
        agents = self.header.get("agents")
        return [a for a in agents if isinstance(a, str)] if isinstance(agents, list) else []


def read_save(path: str) -> SavedGame:
    """Read a save file; every way it can be malformed is a SaveError with its line."""
    from ..files import InputError, read_regular

    try:  # a regular file only: a FIFO or a device is refused, it would block or never end
        raw = read_regular(path, MAX_SAVE_BYTES, "saved game", goes_on=True)
    except InputError as exc:
        raise SaveError(exc.message.replace(f"{path} ", "it ", 1) if exc.message.startswith(path) else exc.message) from None
    if not raw.strip():
        raise SaveError("the file is empty: not a saved game", 1)
    if b"\x00" in raw:
        raise SaveError("the file holds binary data: not a saved game", raw[: raw.index(b"\x00")].count(b"\n") + 1)
    # The bytes are held once (at most 50 MB); a line is decoded and parsed when it is read, never all the lines of
    # the file as texts and a list at once (a save of 880,000 decisions peaked at 311 MB, session 17)
    bom = 3 if raw.startswith(b"\xef\xbb\xbf") else 0
    starts = _line_starts(raw, bom)
    n_lines = len(starts) - 1

    def record(i: int) -> dict:
        line = raw[starts[i - 1]:starts[i]].rstrip(b"\n")
        try:
            rec = json.loads(line.decode("utf-8"))
        except UnicodeDecodeError:
            raise SaveError("the file is not UTF-8 text: not a saved game", i) from None
        except ValueError as exc:
            msg = exc.msg if isinstance(exc, json.JSONDecodeError) else "a number with too many digits"  # never Python's advice
            raise SaveError(f"line {i} is not JSON ({msg}): the file is damaged or not a saved game", i) from None
        except RecursionError:
            raise SaveError(f"line {i} is nested too deeply: the file is damaged or not a saved game", i) from None
        if not isinstance(rec, dict):
            raise SaveError(f"line {i} is not a record of a saved game", i)
        return rec

    header = record(1)
    kind = header.get("type")
    if kind == "header":
        raise SaveError("this is a game log, not a saved game: replay it with 'rulecraft replay'", 1)
    if kind != "save":
        raise SaveError("the first line is not the header of a saved game", 1)
    fmt = header.get("format")
    if fmt not in READ_SAVE_FORMATS or isinstance(fmt, bool):
        raise SaveError(f"the game was saved in save format {fmt!r} (by rulecraft {header.get('rulecraft', '?')}); "
                        f"this rulecraft ({__version__}) reads save formats "
                        f"{' and '.join(map(str, READ_SAVE_FORMATS))}", 1)
    problem = header_problem(_as_log_header(header))
    problem = problem or names_problem(header["players"])  # the rule --names follows (issue 38)
    if problem:
        raise SaveError(problem, 1)
    count = header.get("decisions")
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise SaveError("the header does not say how many decisions were taken", 1)
    if n_lines < count + 2:
        raise SaveError(f"the file is cut short: the header promises {count} decisions and a state, "
                        f"it ends at line {n_lines}", max(n_lines, 1))
    if n_lines > count + 2:
        raise SaveError(f"the file goes on after the state (line {count + 2}): it is damaged or was edited", count + 3)
    decisions = []
    for i in range(2, count + 2):
        rec = record(i)
        if rec.get("type") != "decision" or rec.get("n") != i - 1 or "choice" not in rec:
            raise SaveError(f"line {i} is not decision {i - 1} of the saved game", i)
        player = rec.get("player")
        if not isinstance(player, int) or isinstance(player, bool):
            raise SaveError(f"line {i}: the decision names no player", i)
        decisions.append((player, rec["choice"]))
    sline = count + 2
    st = record(sline)
    if st.get("type") != "state" or not isinstance(st.get("state"), dict) or not isinstance(st.get("hash"), str):
        raise SaveError(f"line {sline} is not the saved state", sline)
    if st.get("format") != STATE_FORMAT or st["state"].get("format") != STATE_FORMAT:
        raise SaveError(f"the state is in state format {st.get('format')!r}; this rulecraft reads {STATE_FORMAT}", sline)
    saved = SavedGame(path, header, decisions, range(2, count + 2), st["state"], st["hash"], sline)
    if header.get("rulecraft") != __version__:
        saved.warnings.append(f"the game was saved by rulecraft {header.get('rulecraft')}, this is {__version__}")
    agents = header.get("agents")
    if agents is not None and not (isinstance(agents, list) and all(isinstance(a, str) for a in agents)):
        saved.warnings.append("its 'agents' is not a list of agent names: the seats without a person are played "
                              "by random bots (give others with --agent)")
    return saved


def _line_starts(raw: bytes, start: int) -> array:
    """Where each line of `raw` starts, from `start`, and where the last one ends (a line ends at a newline; one
    after the last line ends no further line), in an array of 8-byte offsets."""
    starts, at = array("q", [start]), start
    while True:
        nl = raw.find(b"\n", at)
        if nl < 0:
            break
        at = nl + 1
        starts.append(at)
    if starts[-1] != len(raw):
        starts.append(len(raw))
    return starts


def _as_log_header(header: dict) -> dict:
    """The save header checked with the log header's rules (same fields)."""
    from .gamelog import LOG_FORMAT

    return dict(header, format=LOG_FORMAT)


Observer = Callable[[Any, Any, Any], None]  # (game, pending decision, wire) before each re-played decision


def restore(saved: SavedGame, ruleset, *, max_steps: int = 5_000_000, check_conservation: bool = False,
            before: Optional[Observer] = None) -> tuple[Any, list[dict]]:
    """The saved game, re-played from its seed and decisions and checked against the saved state.

    Returns the game (waiting for its next decision, or over) and the log records of the
    decisions re-played (as `play --log` writes them). `before(game, decision, wire)` is called
    before each decision is applied, e.g. to bring bots back to where they were.
    """
    from ..diagnostics import RuleError
    from .decisions import IllegalChoice
    from .game import Game, GameError

    h = saved.header
    if h.get("name") != ruleset.name:
        raise SaveError(f"the game was saved with the ruleset '{h.get('name')}', not '{ruleset.name}'", 1)
    changed = bool(h.get("fingerprint")) and h["fingerprint"] != ruleset_fingerprint(ruleset)
    if changed:
        saved.warnings.append("the ruleset's files changed since the game was saved")
    names = h["players"]
    try:
        game = Game(ruleset, len(names), h["seed"], names=names, max_steps=max_steps,
                    check_conservation=check_conservation)
    except (GameError, RuleError) as exc:
        raise SaveError(f"the saved game cannot start: {exc}", 1) from None
    records = []
    for n, ((player, wire), line) in enumerate(zip(saved.decisions, saved.decision_lines), 1):
        d = game.pending
        if d is None:
            raise SaveError(f"decision {n}: the game was already over", line)
        if player != d.player:
            raise SaveError(f"decision {n}: the file says player {player} decides, the game asks player {d.player}"
                            + _changed(changed), line)
        chance = list(game.chance)
        if before is not None:
            before(game, d, wire)
        try:
            game.apply(wire)
        except IllegalChoice as exc:
            raise SaveError(f"decision {n}: the choice {_short(wire)} is not legal here ({exc})" + _changed(changed),
                            line) from None
        except RuleError as exc:
            raise SaveError(f"decision {n}: the game stopped with an error: {exc.message}", line) from None
        records.append(decision_record(game, n, player, wire, chance))
    layout = h.get("format") == 1  # a format 1 save hashed the place of the asking step
    if hash_of(saved.state, layout) != saved.state_hash:
        raise SaveError("the saved state does not match its hash: the file was edited or damaged", saved.state_line)
    if state_hash(game, layout) != saved.state_hash:
        raise SaveError("the saved decisions do not lead to the saved state" + (_changed(changed) or
                        ": the file was edited or damaged"), saved.state_line)
    return game, records


def _changed(changed: bool) -> str:
    return ": the ruleset changed since the game was saved" if changed else ""


def _short(value: Any, limit: int = 60) -> str:
    text = _dumps(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
