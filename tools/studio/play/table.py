"""One game played in the browser, on the server: the engine's game, its bots, its log and its save, and what
each seat is sent of it. Synchronous: the hub (tools.studio.play.hub) calls it on a worker thread, one call at
a time per game.

A game lives in a folder of its own (`.rulecraft/games/ID/` under the studio's folder): `game.json` (the
ruleset, the seats' kinds, the seat tokens: written readable by its owner only), `game.save` and `game.log`
(the terminal's save and log formats, through the one writer), so `rulecraft replay game.log` replays it and
the studio goes on with it after a restart (`PlayTable.load`).

What a seat is sent is the seat view (tools.table.seatview) and the story lines as that seat reads them
(`story.line_text`): nothing else of the game is ever put in a frame. A spectator is seat -1, a seat no player
holds: the engine's one rule (model/secrecy.py) shows it what is public.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from typing import Any, Optional

from rulecraft.agents import AgentError, make_agent
from rulecraft.agents.base import answer
from rulecraft.diagnostics import RuleError
from rulecraft.files import InputError, OutputError, read_regular
from rulecraft.loader import load_ruleset
from rulecraft.runtime.decisions import IllegalChoice
from rulecraft.runtime.game import Game, GameError
from rulecraft.runtime.gamelog import GameLogWriter, end_record, log_header
from rulecraft.runtime.savegame import SaveError, SaveWriter, read_save, restore
from rulecraft.runtime.story import Line, forced_in_secret, line_text

from rulecraft.tools.studio.play.gamefolder import BOTS, MAX_META, PERSON, checked, kept_copy, plain_files, write_meta
from rulecraft.tools.table.notices import Notices
from rulecraft.tools.table.passing import PassUntil, offered
from rulecraft.tools.table.seatview import seat_view
from rulecraft.tools.table.undo import Taken, refused_at_once, take_back

log = logging.getLogger("rulecraft.studio")
SPECTATOR = -1
MAX_STEPS = 5_000_000


class Refusal(Exception):
    """An answer or a request the game refuses, with the sentence the seat is told. A game that cannot start for a
    rule gone wrong has no seats yet: the studio's page that asked for it is also given `at`, where the rule is
    written ({file, line, col}: the page puts the cursor there), and `said`, what the rule's error says (values of
    the game: shown on that page only when asked, as the host may play a seat)."""

    def __init__(self, message: str, at: Optional[dict] = None, said: Optional[str] = None):
        super().__init__(message)
        self.at, self.said = at, said


class Held:
    """A seat's answer the rules took at once, as the only one, which the others read as chosen (no gem in a
    hidden hand: the pass; story.forced_in_secret): the table asks it all the same, as any decision of that seat,
    so whom it asks, when, and how many decisions it says were taken tell the others nothing. Until it is answered
    every seat is sent the game as it stood then (`then`, a copy made as the rules took it) and the story up to it
    (`at`, the line's index); a person answers its one answer, a bot takes it at its pace."""

    def __init__(self, seat: int, at: int, then: Game, decision):
        self.seat, self.at, self.then, self.decision = seat, at, then, decision


def _stopped(exc: Exception, what: str = "the game stopped", seats: bool = True) -> str:
    """What the seats are told of a ruleset gone wrong: where and its code. Its message may name what they cannot
    see (the card a rule read from a hidden hand): that is the host's, in the studio's output (log). Not `seats`:
    where and the code alone (the studio's page shows the message beside it, when asked)."""
    rule = exc if isinstance(exc, RuleError) else getattr(exc, "rule_error", None)
    span = getattr(rule, "span", None)
    where = f" at {os.path.basename(span.file)}:{span.line}:{span.col}" if span is not None else ""
    code = f" ({rule.code})" if rule is not None else ""
    said = "; what it says is in the studio's output (it may name what a seat cannot see)" if seats else ""
    return f"{what}: a rule of the ruleset went wrong{where}{code}{said}"


def _where(exc: Exception) -> Optional[dict]:
    """Where the rule that went wrong is written ({file, line, col}), for the studio's page; None when unknown."""
    rule = exc if isinstance(exc, RuleError) else getattr(exc, "rule_error", None)
    span = getattr(rule, "span", None)
    return {"file": span.file, "line": span.line, "col": span.col} if span is not None and span.file else None


def _cannot_start(exc: Exception) -> Refusal:
    """A game that cannot start for a rule gone wrong: where and the code, and for the studio's page that asked for
    it where the rule is written and what its error says (it was in the studio's terminal only)."""
    return Refusal(_stopped(exc, "the game cannot start", seats=False), _where(exc), _said(exc))


def _said(exc: Exception) -> str:
    """What the rule's error says, with its hint: the host's (it may name a card of a hand)."""
    rule = exc if isinstance(exc, RuleError) else getattr(exc, "rule_error", None)
    return (getattr(rule, "message", None) or str(exc)) + (f" (hint: {rule.hint})" if getattr(rule, "hint", None) else "")


def _held_lines(game: Game) -> int:
    """How many forced answers the game's story holds that a table asks as decisions (each counts as one)."""
    return sum(1 for line in game.narrative if forced_in_secret(line) is not None)


class PlayTable:
    def __init__(self, home: str, meta: dict, game, history: list[Taken], writer: GameLogWriter):
        self.home, self.meta, self.game, self.history, self.writer = home, meta, game, history, writer
        kinds = meta["kinds"]
        self.people = {s for s, k in enumerate(kinds) if k == PERSON}
        self.bots = {s: make_agent(k, s, meta["seed"], {}) for s, k in enumerate(kinds) if k != PERSON}
        self.held: list[Held] = []  # forced answers still to be asked, in the story's order
        self.asked_held = _held_lines(game)  # those asked so far (the decisions a seat is told of count them)
        self._watch(game)
        if not game.begun:  # a new game, made with start=False: started now that the table watches it
            try:
                game._begin()
            except (GameError, RuleError) as exc:  # dealing read a hidden card, say: told as in play (_stopped)
                log.warning("game %s could not start, an error of the ruleset: %s", meta["id"], exc)
                raise _cannot_start(exc) from None
            except ValueError as exc:
                raise Refusal(f"the game cannot start: {exc}") from None
        self.saver = SaveWriter(self.path("game.save"), meta["ruleset"], game, meta["overrides"], kinds,
                                decisions=[(t.player, t.wire) for t in history])
        self.saver.write(game)
        # every seat's frame says whom the table waits for: with another person at the table, no standing pass of
        # a question read from something hidden (passing.offered)
        self.passing = PassUntil(watched=len(self.people) > 1)
        self.notices = Notices()
        self.said: dict[int, list[str]] = {}  # what the table told a seat (undo's answer), for its next frame
        self.refused: tuple = (None, "")  # (where the game was, what was said) of the last undo refused
        self._stories: tuple = (None, {})  # (the game, seat -> (game story read to, the seat's story)): `story`
        self.problem: Optional[str] = None  # why the game stopped, when the ruleset went wrong
        self.problem_at: Optional[dict] = None  # where that rule is written (the studio's list of games: Go to)
        self.problem_said = ""  # what its error says: the studio's page only, when asked (the host may play a seat)

    def _watch(self, game: Game) -> None:
        """Hold every forced answer the others read as chosen (Held), as the rules take it."""
        def heard(line: str) -> None:
            seat = forced_in_secret(line)
            if seat is not None:
                self.held.append(Held(seat, len(game.narrative) - 1, game.copy(story=False), line.forced))
        game.listener = heard

    def decisions(self) -> int:
        """The decisions taken, as the seats are told (an answer names it): the game's, and the forced answers asked
        as decisions (Held)."""
        return self.asked_held + (self.held[0].then.decisions if self.held else self.game.decisions)

    # ------------------------------------------------------------------ making and finding games
    @classmethod
    def new(cls, home: str, game_id: str, ruleset: str, kinds: list[str], seed: int, overrides: dict,
            tokens: dict, after: Optional[str] = None) -> "PlayTable":
        loaded = load_ruleset(ruleset, overrides=overrides)
        if not loaded.ok:
            said = loaded.diagnostics[0].message  # an option from the page's form: no '--set' was typed
            raise Refusal(f"the game cannot start: {said.removeprefix('--set ')}")
        rs = loaded.ruleset
        if not rs.players.min <= len(kinds) <= rs.players.max:
            raise Refusal(f"{rs.title} is for {rs.players.min} to {rs.players.max} players, not {len(kinds)}")
        for k in kinds:
            if k != PERSON and k not in BOTS:
                raise Refusal(f"a seat is a person or one of the bots {', '.join(BOTS)}, not '{str(k)[:40]}'")
        try:  # started once the table watches it (its first forced answers are held too)
            game = Game(rs, len(kinds), seed, max_steps=MAX_STEPS, start=False)
        except (GameError, ValueError) as exc:
            raise Refusal(f"the game cannot start: {exc}") from None
        try:  # a full disk: said, and no half-made game left behind
            os.makedirs(home, mode=0o700, exist_ok=True)
            ruleset = kept_copy(home, ruleset)
            meta = {"id": game_id, "ruleset": ruleset, "title": rs.title, "kinds": list(kinds), "seed": seed,
                    "overrides": dict(overrides), "tokens": tokens, **({"after": after} if after else {})}
            write_meta(home, meta)
            table = cls(home, meta, game, [], None)
            table.writer = GameLogWriter(os.path.join(home, "game.log"), ruleset, game, overrides, list(kinds))
            return table
        except (OutputError, OSError) as exc:
            shutil.rmtree(home, ignore_errors=True)
            raise Refusal(f"the game cannot start: {getattr(exc, 'message', None) or exc}") from None
        except Refusal:
            shutil.rmtree(home, ignore_errors=True)
            raise

    @classmethod
    def load(cls, home: str, root: str) -> "PlayTable":
        """The game kept in `home`, made again from its save (the studio restarted); the log goes on. `root` is the
        studio's folder: its games may have come with it from someone else, so game.json is checked (`checked`)
        and every file of the game must be a plain file (`plain_files`)."""
        plain_files(home)
        try:
            meta = checked(json.loads(read_regular(os.path.join(home, "game.json"), MAX_META, "game file",
                                                    goes_on=True)), home, root)
        except (InputError, ValueError) as exc:  # json's errors are ValueErrors
            raise SaveError(f"game.json: {str(exc)[:200]}") from None
        saved = read_save(os.path.join(home, "game.save"))
        loaded = load_ruleset(meta["ruleset"], overrides=meta["overrides"])
        if not loaded.ok:
            raise SaveError("its ruleset has errors now")
        meta["title"] = loaded.ruleset.title  # the ruleset's, checked as it loads: never a text of game.json's
        marks: list[int] = []
        game, records = restore(saved, loaded.ruleset, max_steps=MAX_STEPS,
                                before=lambda g, d, w: marks.append(len(g.narrative)))
        if len(game.players) != len(meta["kinds"]):
            raise SaveError(f"game.json names {len(meta['kinds'])} seats, its save {len(game.players)} players")
        header = log_header(meta["ruleset"], game, meta["overrides"], meta["kinds"])
        writer = GameLogWriter.resume(os.path.join(home, "game.log"), header, records,
                                      end_record(game) if game.over else None)
        history = [Taken(r["player"], r["choice"], list(r.get("chance", ())), told) for r, told in zip(records, marks)]
        return cls(home, meta, game, history, writer)

    def path(self, name: str) -> str:
        return os.path.join(self.home, name)

    # ------------------------------------------------------------------ the game goes on
    def waiting_for(self) -> Optional[int]:
        """The seat asked now, or None when the game is over."""
        if self.held:
            return self.held[0].seat
        return None if self.game.over else self.game.pending.player

    def step(self) -> bool:
        """One decision that needs no person: a bot's, or a person's standing 'pass until'. False when a person
        is asked (or the game is over)."""
        game = self.game
        if self.held:  # a bot takes its forced answer as it takes any (Held); a person answers it
            if self.held[0].seat in self.people:
                return False
            self._answer_held()
            return True
        if game.over:
            return False
        d = game.pending
        if d.player in self.people:
            auto = self.passing.answer(game, d)
            if auto is None:
                return False
            self._apply(d, auto[0])
            return True
        try:
            wire = answer(self.bots[d.player], d, game.view(d.player), game)
        except AgentError as exc:
            raise Refusal(f"the bot of seat {d.player + 1} failed: {exc}") from None
        self._apply(d, wire)
        return True

    def decide(self, seat: int, number: Any, wire: Any) -> None:
        """A person's answer to the decision numbered `number` (the count of decisions before it, as their frame
        said): refused unless that decision is the one asked now, and asked of them."""
        d = self._asked(seat, number)
        if self.held:
            problem = d.legal(wire)
            if problem is not None:
                raise Refusal(f"not a legal answer: {problem}")
            self._answer_held()
            return
        self._apply(d, wire)

    def _question(self):
        """The decision asked now: a forced answer still held (Held), else the game's pending one (None when over)."""
        if self.held:
            return self.held[0].decision
        return None if self.game.over else self.game.pending

    def _answer_held(self) -> None:
        self.held.pop(0)
        self.asked_held += 1

    def _asked(self, seat: int, number: Any):
        """The decision asked of `seat` now, numbered `number`: the pending one, or a forced answer held (Held)."""
        d = self._question()
        if d is None:
            raise Refusal("the game is over")
        if d.player != seat:
            raise Refusal("it is not your turn to decide")
        if number != self.decisions():
            raise Refusal("that question was already answered: your screen is brought up to date")
        return d

    def _apply(self, d, wire: Any) -> None:
        game = self.game
        chance, told = list(game.chance), len(game.narrative)
        try:
            game.apply(wire)
        except IllegalChoice as exc:
            raise Refusal(f"not a legal answer: {exc}") from None
        except (GameError, RuleError) as exc:  # the ruleset went wrong: said to every seat, the game waits
            self.problem, self.problem_at, self.problem_said = _stopped(exc), _where(exc), _said(exc)
            log.warning("game %s stopped with an error of the ruleset: %s", self.meta["id"], exc)
            raise Refusal(self.problem) from None
        except (TypeError, ValueError, KeyError, IndexError) as exc:
            raise Refusal(f"not an answer to this question ({type(exc).__name__})") from None
        self.history.append(Taken(d.player, wire, chance, told))
        self.saver.record(d.player, wire)
        try:
            self.writer.decision(game, d.player, wire, chance)
            self.saver.write(game)  # every decision so far: the next write that succeeds catches up
            if game.over:
                self.writer.end(game)
        except OutputError as exc:  # a full disk: the game goes on in memory, and every person is told
            for seat in self.people:
                self.said.setdefault(seat, []).append(f"The game could not be saved ({exc.message}): make room, "
                                                      "or a restart of the studio goes back to the last save.")

    def pass_until(self, seat: int, number: Any) -> None:
        d = self._asked(seat, number)
        if self.held:
            raise Refusal("this question cannot be passed until something changes: answer it")
        try:
            wire = self.passing.word(self.game, d, "pass until")
        except ValueError as exc:
            raise Refusal(str(exc)) from None
        self._apply(d, wire[0])

    def can_undo(self, seat: int, at_once: bool = True) -> bool:
        """A person alone at the table; `at_once`: nothing since refuses it (pig offered Undo, always refused) as told."""
        told, upto = (self.held[0].then, self.held[0].at) if self.held else (self.game, None)  # (Held: as told)
        return (self.people == {seat} and not told.over and any(t.player == seat for t in self.history) and not
                (at_once and refused_at_once(told, self.game.narrative[:upto], seat, self.history)))

    def undo(self, seat: int) -> str:
        if not self.can_undo(seat, at_once=False):  # (else take_back says why: dice were rolled since...)
            return "Nothing to take back: undo works when you are the only person at the table."
        self.passing.cancel(seat)
        where = (id(self.game), self.game.decisions, seat)  # a refusal stands while the game is where it was: a seat
        if self.refused[0] == where:  # that sends undo again and again does not have the game played again each time
            return self.refused[1]
        told = self.game
        if self.held:  # taken back from the game as the seats were told it: up to the first forced answer still asked
            told = self.held[0].then.copy()
            told.narrative = list(self.game.narrative[:self.held[0].at])
        again, records, said = take_back(told, seat, self.history, max_steps=MAX_STEPS)
        self.refused = (where if again is None else None, said)
        if again is not None:
            self.game = again
            self.held, self.asked_held = [], _held_lines(again)
            self._watch(again)
            self.writer.close()
            self.writer = GameLogWriter.rewrite(self.path("game.log"), self.writer.header, records)
            self.saver = SaveWriter(self.saver.path, self.meta["ruleset"], again, self.meta["overrides"],
                                    self.meta["kinds"], decisions=[(t.player, t.wire) for t in self.history])
            self.saver.write(again)
        return said

    def help(self, seat: int) -> str:
        """The rule of the step that asks, in players' words (tools/words), for the seat asked."""
        from rulecraft.tools.words.seat.answers import what_is_asked
        from rulecraft.tools.words.seat.help import help_at_table, step_asking

        game = self.game
        d = self._question()
        if d is None or d.player != seat:
            raise Refusal("help is about the question you are asked, and you are asked none now")
        lines = help_at_table(game.rs, step_asking(game.rs, d.step), d)
        lines.append(f"Asked: {what_is_asked(d, game.rs)}")
        return "\n".join(lines)

    # ------------------------------------------------------------------ what a seat is sent
    def story_end(self) -> int:
        """How much of the game's story the seats are sent: all of it, or up to a forced answer still asked (Held)."""
        return self.held[0].at if self.held else len(self.game.narrative)

    def story(self, seat: int, start: int = 0) -> list[dict]:
        """The story as `seat` reads it, from its line `start`: numbered in the seat's own story (`n`), never in the
        game's, so a line told to another seat alone leaves no gap (a gap after "P4: Look at whose role? (chosen in
        secret)" told the others that P4 had looked). Made once per seat and game, grown as the story is told."""
        end = self.story_end()
        if self._stories[0] is not self.game:  # a new game (an undo made it again): its stories afresh
            self._stories = (self.game, {})
        done, lines = self._stories[1].get(seat, (0, []))
        if done > end:  # (never expected: the story told is only ever held back to a forced answer still asked)
            done, lines = 0, []
        seats = () if seat == SPECTATOR else (seat,)
        for line in self.game.narrative[done:end]:
            text = line_text(line, seats)
            if text is not None:
                kind = line.kind if isinstance(line, Line) else "event"
                mine = isinstance(line, Line) and line.only is not None and seat in line.only
                lines.append({"n": len(lines), "kind": kind, "text": text, "private": mine})
        self._stories[1][seat] = (end, lines)
        return [dict(x) for x in lines[start:]]

    def frame(self, seat: int, start: int) -> dict:
        """The state message for `seat`: its view, the story since `start`, what it may do."""
        held = self.held[0] if self.held else None
        game = held.then if held is not None else self.game  # while a forced answer is asked: the game as it stood
        d = self._question()
        asked = d is not None and d.player == seat
        notices = self.notices.since(game, seat) if seat != SPECTATOR else []
        news = self.passing.news(seat) if asked and held is None else None
        notices = ([news] if news else []) + self.said.pop(seat, []) + notices
        view = seat_view(game, seat, d if asked else None, notices)
        whole = self.story(seat)  # (`start` and `storyEnd` count this seat's own lines)
        start = start if start <= len(whole) else 0  # a story cut back (an undo): sent whole again
        story = whole[start:]
        return {"type": "state", "game": self.meta["id"], "seat": None if seat == SPECTATOR else seat,
                "decisions": self.decisions(), "view": view.to_json(),
                "asked": None if d is None else d.player,
                "undo": seat != SPECTATOR and self.can_undo(seat),
                "passUntil": asked and held is None and offered(d, self.passing.watched),
                "problem": self.problem, "storyFrom": start, "story": story, "storyEnd": len(whole)}

    def close(self) -> None:
        self.writer.close()
