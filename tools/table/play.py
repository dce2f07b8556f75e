"""`rulecraft play` and `rulecraft replay`: drive a game with agents, write and check its log and its save."""

from __future__ import annotations

import os
import sys
from typing import Optional, Sequence

from rulecraft.agents import AgentError, make_agent
from rulecraft.agents.base import answer
from rulecraft.agents.human import HumanQuit, HumanUndo
from rulecraft.diagnostics import UNPRINTABLE, RuleError, render_text
from rulecraft.loader import load_ruleset
from rulecraft.runtime.decisions import IllegalChoice
from rulecraft.runtime.game import Game, GameError
from rulecraft.files import OutputError
from rulecraft.runtime.gamelog import GameLogWriter, LogMismatch, end_record, log_header
from rulecraft.runtime.replay import replay
from rulecraft.runtime.savegame import SaveError, SaveWriter, read_save, restore
from rulecraft.runtime.story import line_text

from rulecraft.model.ruleset import ViewDef

from rulecraft.tools.table.keeping import RESUMABLE_KINDS, quit_save, resume_command, withheld
from rulecraft.tools.table.session import Table, discard_typed_ahead, person
from rulecraft.tools.table.storyout import JsonStory, where_people_read
from rulecraft.tools.table.undo import Taken, take_back


class _Printable:
    """A text stream that shows control characters as '?': names and texts from a stranger's ruleset,
    log or save (player names, prompts, card names) must not drive the terminal with escape sequences."""

    _MAP = UNPRINTABLE  # and the bidirectional controls that reorder a line, and U+2028/U+2029 that break it
    ONE_LINE = {**UNPRINTABLE, 0x0A: "?"}  # a line quoting a stranger's log or save: its line breaks forged lines

    def __init__(self, stream):
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(text.translate(self._MAP))

    def flush(self) -> None:
        self.stream.flush()

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


def _err(text: str) -> None:
    """An error line on stderr; it may quote a stranger's file, so control characters and line breaks are '?'."""
    print(text.translate(_Printable.ONE_LINE), file=sys.stderr)


def _same_file(a: Optional[str], b: Optional[str]) -> bool:
    return bool(a and b) and os.path.realpath(a) == os.path.realpath(b)  # type: ignore[arg-type]


def play(ref: str, players: Optional[int], agent_kinds: Sequence[str], seed: int, log_path: Optional[str],
         overrides: dict, quiet: bool = False, names: Optional[list[str]] = None, time_limit: Optional[float] = None,
         check: bool = False, max_steps: int = 5_000_000, out=None, save_path: Optional[str] = None,
         resume_path: Optional[str] = None, pace: Optional[float] = None, seat: Optional[int] = None,
         story_path: Optional[str] = None) -> int:
    """Play one game; with `save_path` the state is saved after every decision, `resume_path` goes on with a save.

    `seat` (from 0): the story is told as that seat reads it (`--seat`); `story_path`: the story is written there
    as JSON records too (`--story-json`, tools.table.storyout), as that seat reads it when one is given.

    A resumed game takes its players, seed and --set values from the save (and, when no
    --agent is given, its agents if they are random, first or human); it keeps saving to the
    file it came from unless `save_path` names another.
    """
    if log_path == "-" and story_path == "-":
        print("rulecraft play: --log - and --story-json - cannot both be standard output", file=sys.stderr)
        return 2
    if "-" in (log_path, story_path) and out is None:
        out = sys.stderr  # `--log -`, `--story-json -`: that is standard output; what happens goes to standard error
    out = _Printable(out or sys.stdout)
    saved = None
    if resume_path:
        if players is not None or names or overrides:
            print("rulecraft play: --players, --names and --set come from the saved game; leave them out with --resume",
                  file=sys.stderr)
            return 2
        try:
            saved = read_save(resume_path)
        except SaveError as exc:
            return _save_failed(resume_path, exc)
        overrides = saved.overrides
        save_path = save_path or resume_path
    if save_path and os.path.exists(save_path) and not os.path.isfile(save_path):
        # a save replaces its file whole: never a device such as /dev/null, nor a folder
        print(f"rulecraft play: --save {save_path}: it exists and is not a plain file", file=sys.stderr)
        return 2
    from rulecraft.files import output_problem

    for target in (log_path, save_path, story_path):  # a folder, or one that does not exist: said before the game
        problem = output_problem(target) if target and target != resume_path else None
        if problem:
            _err(f"rulecraft play: {problem}")
            return 1
    if _same_file(log_path, save_path) or _same_file(log_path, resume_path):
        print("rulecraft play: the log and the save must be different files", file=sys.stderr)
        return 2
    if any(_same_file(story_path, other) for other in (log_path, save_path, resume_path)):
        print("rulecraft play: the JSON story must go to a file of its own, not the log's or the save's",
              file=sys.stderr)
        return 2
    loaded = load_ruleset(ref, overrides=overrides)
    if not loaded.ok:
        unsuited = [d.message.removeprefix("--set ") for d in loaded.diagnostics if d.code == "E316"]
        if saved is not None and unsuited:  # the save's own settings: its fault, not a --set never typed
            return _save_failed(resume_path, SaveError("E316: its settings do not suit the ruleset: "
                                                       + "; ".join(unsuited), 1))
        print(render_text(loaded.diagnostics, loaded.sources), file=out)
        return 1
    rs = loaded.ruleset
    if saved is not None:
        names = list(saved.header["players"])
        n, seed = len(names), saved.header["seed"]
        if not agent_kinds:
            agent_kinds = saved.agents or ["random"]
            if not all(k in RESUMABLE_KINDS for k in agent_kinds):
                _err(f"rulecraft play: the saved game was played by {', '.join(agent_kinds)}; a save file cannot "
                     "choose agents that read files or run code: give them again with --agent")
                return 2
    else:
        n = players if players is not None else rs.players.default
        if not rs.players.min <= n <= rs.players.max:  # a usage error: said before anything is printed
            _err(f"rulecraft play: {rs.title} is for {rs.players.min} to {rs.players.max} players, not {n}")
            return 2
        if names and len(names) > n:
            _err(f"rulecraft play: {len(names)} names for {n} players: give at most one name per seat")
            return 2
    kinds = list(agent_kinds) or ["random"]
    kinds += [kinds[-1] if kinds[-1] != "human" else "random"] * (n - len(kinds))
    try:
        shared: dict = {}
        # a person's agent is built below, given the table that shows them the game
        agents: list = [None if k == "human" else make_agent(k, seat, seed, shared) for seat, k in enumerate(kinds[:n])]
    except AgentError as exc:
        print(f"rulecraft play: {exc}", file=sys.stderr)
        return 2
    people = {s for s, k in enumerate(kinds[:n]) if k == "human"}
    if seat is not None and not 0 <= seat < n:
        _err(f"rulecraft play: --seat {seat + 1}: the game has {n} players (seats 1 to {n})")
        return 2
    if seat is not None and people - {seat}:
        _err(f"rulecraft play: --seat {seat + 1}: a person plays seat {min(people - {seat}) + 1}, and the table "
             "shows each person their own story; give --seat for a game of bots, or for the one person's seat")
        return 2
    for flag, target in (("--log", log_path), ("--story-json", story_path)):
        if people and where_people_read(target):  # each would read every seat's doings where they play
            _err(f"rulecraft play: {flag} {target}: with a person at the table it would show them what other seats "
                 "did in secret (every answer, every private line) where they read the game: write it to a file")
            return 2
    terminal = bool(people) and _is_terminal(out)
    table = Table(people, out, terminal=terminal, pace=0.6 if pace is None else pace,
                  read_line=lambda: agents[min(people)]._readline(),
                  discard=lambda: discard_typed_ahead(agents[min(people)].stdin), reader=seat)
    say = table.listener if not quiet else None
    # with people at the table the story is told in rounds and turns (a header as each starts)
    headers = (rs.view or ViewDef()).headers if people and not quiet else ()
    for who in people:
        agents[who] = person(who, out, time_limit=time_limit, table=table)
    writer = saver = game = story = None
    history: list[Taken] = []  # every decision so far: what 'undo' makes the game again from
    marks: list[int] = []  # the story's length before each decision a resumed game re-plays
    try:
        if saved is not None:
            try:
                game, records = restore(saved, rs, max_steps=max_steps, check_conservation=check,
                                        before=_fast_forward(agents, kinds, marks))
            except SaveError as exc:
                return _save_failed(resume_path, exc)
            for w in saved.warnings:
                _err(f"warning: {w}")
            if story_path:
                story = JsonStory(story_path, names, seat, say)
                say = story.listener
            game.listener, game.headers = say, headers
            if not quiet:  # the table's own line, not the game's story
                table.listener(f"{rs.title}: resumed after {len(records)} decision{'' if len(records) == 1 else 's'}; {n} players "
                               f"({', '.join(kinds[:n])}), seed {seed}")
            if log_path:
                header = log_header(ref, game, overrides, saved.agents)
                try:
                    writer = GameLogWriter.resume(log_path, header, records, end_record(game) if game.over else None)
                except LogMismatch as exc:
                    where = f"{log_path}:{exc.line}" if exc.line else log_path
                    _err(f"rulecraft play: {where}: cannot go on with this log: {exc}; give another --log")
                    return 1
            taken = saved.decisions
            history = [Taken(r["player"], r["choice"], list(r.get("chance", ())), told)
                       for r, told in zip(records, marks)]
        else:
            if story_path:
                story = JsonStory(story_path, _names_of(names, n), seat, say)
                say = story.listener
            if not quiet:
                table.listener(f"{rs.title}: {n} players ({', '.join(kinds[:n])}), seed {seed}")
            game = Game(rs, n, seed, names=names, listener=say, check_conservation=check, max_steps=max_steps,
                        headers=headers)
            if log_path:
                writer = GameLogWriter(log_path, ref, game, overrides, kinds[:n])
            taken = []
        if save_path:
            saver = SaveWriter(save_path, ref, game, overrides, kinds[:n], decisions=taken)
            saver.write(game)
        already_over = game.over
        while not game.over:
            d = game.pending
            chance = list(game.chance)
            try:  # a standing 'pass until' of a person is answered by the table (tools.table.passing)
                auto = table.passing.answer(game, d) if d.player in people else None
                wire = auto[0] if auto is not None else answer(agents[d.player], d, game.view(d.player), game)
            except HumanUndo:
                table.passing.cancel(d.player)
                before = game
                game, writer, saver = _undo(game, d.player, people, history, out, writer, saver,
                                            (ref, overrides, kinds[:n], log_path, agents),
                                            dict(check_conservation=check, max_steps=max_steps))
                if story is not None and game is not before:
                    story.taken_back(game.decisions)
                continue
            told = len(game.narrative)
            if story is not None:
                story.asked(game.decisions + 1, d.node)
            try:
                game.apply(wire)
            except IllegalChoice as exc:
                print(f"rulecraft play: {game.players[d.player]}'s agent ({kinds[d.player]}) made an illegal choice "
                      f"{wire!r}: {exc}", file=sys.stderr)
                return 1
            history.append(Taken(d.player, wire, chance, told))
            if writer:
                writer.decision(game, d.player, wire, chance)
            if saver:
                saver.record(d.player, wire)
                saver.write(game)
        if writer:
            writer.end(game)
        if people and not quiet:
            try:
                table.final(game)
            except HumanQuit:  # input ended at a last hand-off: the game is over and its log complete all the same
                pass
        if quiet or already_over:
            winners = ", ".join(game.players[s].name for s in game.winners) or "nobody"
            scores = f" scores {game.scores}" if game.scores is not None else ""
            print(f"winner: {winners}{scores} ({game.decisions} decisions)", file=out)
        return 0
    except HumanQuit as stop:
        kept = [f"the log so far is in {log_path}"] if log_path else []
        code = 130
        if stop.asked and not save_path and people and game is not None and not game.over:
            save_path, problem = quit_save(ref, game, overrides, kinds[:n], history)
            if problem:  # the save beside them cannot be written: one line, and the game kept elsewhere
                _err(f"rulecraft play: {problem}")
                code = 1
        if save_path:
            kept.append(f"go on with: {resume_command(ref, save_path, kinds[:n], log_path)}")
        print("\ngame stopped" + ("; " + "; ".join(kept) if kept else ""), file=out)
        return code
    except AgentError as exc:
        print(f"rulecraft play: {exc}", file=sys.stderr)
        return 1
    except (RuleError, GameError) as exc:
        err = exc if isinstance(exc, RuleError) else exc.rule_error
        if err is not None:
            full = render_text([err.diagnostic()], loaded.sources)
            print(render_text([withheld(err.diagnostic(), full, log_path)], loaded.sources) if people else full,
                  file=out)  # (people: the screen they share)
        else:
            print(f"rulecraft play: {exc}", file=sys.stderr)
        return 1
    except OutputError as exc:  # the log or the save (a full disk, a folder...; exit 1), or an input (exit 2): said once
        _err(f"rulecraft play: {exc.message}")
        if saver is not None and saver.written is not None and exc.exit_code == 1:  # where the game is kept
            _err(f"rulecraft play: {save_path} holds the game up to decision {saver.written} (its last save that "
                 f"was written); make room, then go on with: {resume_command(ref, save_path, kinds[:n], log_path)}")
        return exc.exit_code
    finally:
        if writer:
            writer.close()
        if story is not None:
            story.close()


def _names_of(names: Optional[list[str]], n: int) -> list[str]:
    """The players' names as the game will give them (P1, P2, ... where none is given)."""
    return [names[i] if names and i < len(names) else f"P{i + 1}" for i in range(n)]


def _is_terminal(out) -> bool:
    stream = getattr(out, "stream", out)
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _undo(game, seat: int, people: set, history: list, out, writer, saver, names: tuple, kwargs: dict):
    """Take back the person's last decision (tools.table.undo): the log and the save are cut back to match.
    Only when they are the only person at the table (with others, taking back would replay what they decided
    after it), and only when the log is a file that can be cut."""
    from rulecraft.files import OutputError, target_kind

    ref, overrides, kinds, log_path, agents = names
    if len(people) != 1:
        print("Nothing to take back: undo works when you are the only person at the table.", file=out)
        return game, writer, saver
    try:
        cuttable = log_path is None or target_kind(log_path) in ("file", "new")
    except OutputError:
        cuttable = False
    if not cuttable:
        print(f"Cannot take back your last decision: the log goes to {log_path}, which cannot be cut back.", file=out)
        return game, writer, saver
    again, records, said = take_back(game, seat, history, **kwargs)
    print(said, file=out)
    if again is None:
        return game, writer, saver
    _rewind_scripts(agents, kinds, history)
    if writer is not None:
        writer.close()
        writer = GameLogWriter.rewrite(log_path, writer.header or log_header(ref, again, overrides, kinds), records)
    if saver is not None:
        saver = SaveWriter(saver.path, ref, again, overrides, kinds, decisions=[(t.player, t.wire) for t in history])
        saver.write(again)
    return again, writer, saver


def _rewind_scripts(agents: list, kinds: list[str], history: list) -> None:
    """A scripted agent reads its file as one stream: after an undo it goes on from the answers it gave to the
    decisions that remain. (The other bots need nothing: their choices depend on the game only.)"""
    for a, k in zip(agents, kinds):
        if k.startswith("script:"):
            seats = {s for s, kk in enumerate(kinds) if kk == k}
            a.used = sum(1 for t in history if t.player in seats)


def _fast_forward(agents: list, kinds: list[str], marks: list):
    """Ask the scripted agents the re-played decisions again, so they go on where they were in their files.

    Their answers are dropped; only their position moves. `marks` gets the length of the story before each
    decision. The other bots need nothing: each choice of theirs is
    a function of the game, their seed and their seat. Humans are not asked.
    """
    again = [a if k.startswith("script:") else None for a, k in zip(agents, kinds)]

    def before(game, d, wire) -> None:
        marks.append(len(game.narrative))  # where the story was as each decision was taken (what undo checks)
        a = again[d.player] if 0 <= d.player < len(again) else None
        if a is not None:
            try:
                answer(a, d, game.view(d.player), game)
            except AgentError:  # a script that ran dry: it will say so when it is asked for real
                again[d.player] = None

    return before


def _save_failed(path: Optional[str], exc: SaveError) -> int:
    where = f"{path}:{exc.line}" if exc.line else f"{path}"
    _err(f"rulecraft play: {where}: cannot resume: {exc.message}")
    return 1


def replay_log(path: str, partial_ok: bool = False, quiet: bool = False, out=None, ruleset: Optional[str] = None,
               seat: Optional[int] = None, story: bool = False) -> int:
    """Replay the log at `path` and say whether it replays identically. `story`: print the game's story first, every
    seat's lines (a referee's view); `seat` (from 0): as that seat read it in the game (`replay --seat N`), the public
    lines and its own, exactly what `play --seat N` told (story.Line.for_seats decides it, as for the table)."""
    out = _Printable(out or sys.stdout)
    report = replay(path, ruleset=ruleset)
    g = report.game
    if seat is not None and g is not None and not 0 <= seat < len(g.players):
        _err(f"rulecraft replay: --seat {seat + 1}: the game of this log has {len(g.players)} players "
             f"(seats 1 to {len(g.players)})")
        return 2
    for w in report.warnings:
        print(f"warning: {w}".translate(_Printable.ONE_LINE), file=out)
    if (story or seat is not None) and g is not None:
        for line in g.narrative:
            text = line_text(line, None if seat is None else (seat,))
            if text is not None:
                print(text, file=out)
    if not quiet and g is not None and report.ok and report.complete:
        winners = ", ".join(g.players[s].name for s in g.winners) or "nobody"
        print(f"winner: {winners}" + (f", scores {g.scores}" if g.scores is not None else ""), file=out)
    where = f"{path}:{report.line}: " if report.line else f"{path}: "
    if report.ok:
        print(f"{path}: {report.message}".translate(_Printable.ONE_LINE), file=out)
        return 0
    print(f"{where}{report.message}".translate(_Printable.ONE_LINE), file=out)
    if report.unfinished and partial_ok:
        return 0
    return 1
