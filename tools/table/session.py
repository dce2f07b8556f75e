"""People at the table: the story as they may read it, round and turn headers, a pause before the bots' moves,
hand-offs between people sharing one terminal, help in words, and taking back a decision.

`Table` is handed to a game as its listener and to each human agent as presenter and helper. What a person
reads of a line is decided by the line itself (`story.Line.for_seats`): a line for one player only reaches the
others as its public text, or not at all. With one person at the table they read their own secrets.

With two or more people at one terminal (hot seat), the terminal belongs to one person at a time:
- a hand-off clears the screen and the terminal's scroll-back (CLEAR) and discards the keys typed before it, so
  nothing of the previous person's screen stays and no key meant for it passes the pause;
- a line for the person who has the terminal is shown at once; a line for another person waits in the story
  and reaches them in the recap of their next hand-off (the public lines and theirs since they last had the
  terminal); at the end of the game every person but the one at the terminal gets one last hand-off (whether a
  line waits for them or not: who is handed it must not tell that one does);
- `undo` is not offered (taking back would replay what the others decided after it).
"""

from __future__ import annotations

import os
import time
from typing import Any, Optional

from rulecraft.agents.human import HumanAgent
from rulecraft.runtime.decisions import Decision
from rulecraft.runtime.game import Game
from rulecraft.runtime.story import Line, forced_in_secret, line_text

from rulecraft.tools.table.notices import Notices
from rulecraft.tools.table.passing import NO_PASS, WORDS, PassUntil, offered, pass_wire
from rulecraft.tools.table.seatview import seat_view
from rulecraft.tools.table.view import _t, choice_names, commands, decision_lines, render_end_plain, render_plain, \
    render_rich
from rulecraft.tools.words.seat.answers import amounts, how_to_answer, read_answer, what_is_asked

# home, clear the screen, then clear the scroll-back ('E3', as `clear` does: xterm, VTE, tmux, iTerm2, Windows
# Terminal). In this order: a terminal that keeps a cleared screen in its scroll-back (tmux's scroll-on-clear)
# has it cleared with the rest.
CLEAR = "\033[H\033[2J\033[3J"
MIN_COLUMNS, MAX_COLUMNS = 20, 1000  # the widths the table is drawn at, whatever COLUMNS says


def terminal_of(out):
    """The stream under `out` (play's filter, then standard error's map when the story goes there: cli.main), for
    the sequences the table writes on purpose (its clear screen, rich's colours), never a stranger's text."""
    raw = getattr(out, "stream", out)
    return getattr(raw, "unfiltered", raw)


class Table:
    def __init__(self, people: set[int], out, *, terminal: bool = False, pace: float = 0.0,
                 read_line=None, discard=None, reader: Optional[int] = None):
        self.people = set(people)
        self.out = out
        self.terminal = terminal  # colour, layout, pauses and a cleared screen only on a terminal
        self.pace = pace if terminal and people else 0.0
        self.read_line = read_line  # reads the Enter of a hand-off (a terminal only)
        self.discard = discard  # drops the keys typed ahead, before a hand-off's pause (a terminal only)
        self.reader = reader  # a game of bots told as this seat reads it (`play --seat`), None: in full
        self.told: list[str] = []  # the story so far (hot seat: what each person's recap is taken from)
        self.seen: dict[int, int] = {seat: 0 for seat in self.people}  # how much of it each person has read
        self.handed_at = 0  # the length of the story at the last hand-off
        self.at_terminal: Optional[int] = None  # the person who last had the terminal
        # forced answers of people away from the terminal that the others read as chosen: (seat, the line's index)
        self.unshown: list[tuple[int, int]] = []
        self.passing = PassUntil()  # standing passes ('pass until'): the table answers them (play.py asks it first)
        self.notices = Notices()  # what each person gained or lost since they last looked
        self.console = None
        if terminal:
            from rich.console import Console

            # rich writes its own escape sequences, so it gets the stream itself; the texts it is given are made
            # safe first (table._t)
            self.console = Console(file=terminal_of(out), highlight=False,
                                   no_color=bool(os.environ.get("NO_COLOR")))
            # a width a terminal can have: `COLUMNS=1000000000` (a stranger's `.envrc`) had rich draw the first panel
            # into 1 GB and on; `COLUMNS=0` at width 0
            self.console.width = max(MIN_COLUMNS, min(MAX_COLUMNS, self.console.width))

    @property
    def hot_seat(self) -> bool:
        """Two or more people share the terminal."""
        return len(self.people) > 1

    # ------------------------------------------------------------------ the story
    def listener(self, line: str) -> None:
        if self.hot_seat:
            self.told.append(line)
            seat = forced_in_secret(line)
            if seat in self.people and seat != self.at_terminal:
                self.unshown.append((seat, len(self.told)))
            if self.unshown:  # the person at the terminal reads no further before that one has had their turn
                return
        if isinstance(line, Line) and line.kind == "header":
            self._print_header(line)
            return
        if not self.people:  # a game of bots: the whole story, or what the seat of `--seat` reads of it
            text = line_text(line, None if self.reader is None else (self.reader,))
            if text is not None:
                self._print(text)
            return
        # one person reads what their seat may; in a hot seat, the person who has the terminal does (the others
        # read their own lines in their recap)
        seat = next(iter(self.people)) if not self.hot_seat else self.at_terminal
        text = line_text(line, () if seat is None else (seat,))
        if text is not None:
            self._paced(text)

    def _paced(self, text: str) -> None:
        if self.pace:
            self.out.flush()
            time.sleep(self.pace)
        self._print(text)

    def _print(self, text: str) -> None:
        print(text, file=self.out)

    def _print_header(self, line: Line) -> None:
        if self.console is not None:
            from rich.rule import Rule

            self.console.print(Rule(_t(line), style="bold blue" if line.level <= 1 else "blue"))
        else:
            bar = "=" if line.level <= 1 else "-"
            print(f"{bar * 3} {line} {bar * 3}", file=self.out)

    def _recap(self, seat: int, since: int, upto: Optional[int] = None) -> None:
        """The story since `since` (up to `upto`) as `seat` reads it: the public lines, and theirs."""
        lines = self.told[since:upto]
        if not lines:
            return
        self._print("Since you last had the terminal:" if since else "So far:")
        for line in lines:
            if isinstance(line, Line) and line.kind == "header":
                self._print_header(line)
                continue
            text = line_text(line, (seat,))
            if text is not None:
                self._print(text)

    def final(self, game: Game) -> None:
        """The end of a game with people at the table: in a hot seat, each person's last lines; then every
        player's score, part by part (`view: score_parts`)."""
        self._turns_of_their_own(game)
        since = self.handed_at  # the lines the last person's screen showed, for everyone again after the last words
        if self.hot_seat and self._last_words(game):
            self._print("The end of the game:")
            for line in self.told[since:]:
                text = line_text(line, ())
                if text is not None and not (isinstance(line, Line) and line.kind == "header"):
                    self._print(text)
        if not self.people:
            return
        seat = self.at_terminal if self.at_terminal is not None else min(self.people)
        view = seat_view(game, seat)  # the game is over: every pile revealed, and the score breakdown
        if self.console is not None:
            from rich.rule import Rule

            self.console.print(Rule("The end: everything revealed", style="bold blue"))
            self.console.print(render_rich(view, self.console.width))
            for text in render_end_plain(view)[len(render_plain(view)):]:
                self._print(text)
        else:
            for text in render_end_plain(view):
                self._print(text)

    def _last_words(self, game: Game) -> bool:
        """Hot seat, game over: a last hand-off to every person but the one at the terminal, so no private line is
        dropped. To every one of them, whether a line waits for them or not: a last hand-off only where one does would
        tell whoever watches that it was told (a `tell` the rules say for a reason the others cannot see). True when
        there was one (the screen was cleared since)."""
        waiting = sorted(self.people - {self.at_terminal})
        for seat in waiting:
            self._hand_off(game, seat)
            self._recap(seat, self.seen[seat])
            self.seen[seat] = len(self.told)
            self._pause("When you have read this, press Enter (the screen is cleared).")
        return bool(waiting)

    # ------------------------------------------------------------------ a person's turn to decide
    def presenter(self, game: Game, seat: int, d: Decision, view: Any = None) -> None:
        """What a person sees of decision `d` (the HumanAgent's presenter): the seat view drawn, and the words
        they may type besides an answer. (`view`, the game's plain view, is not needed: the seat view is.)"""
        self._turns_of_their_own(game)
        if self.hot_seat and self.at_terminal != seat:
            self._hand_off(game, seat)
            self._recap(seat, self.seen[seat])
        self.at_terminal = seat
        self.seen[seat] = len(self.told)  # all before is on their screen (the lines after it may flash by)
        view = seat_view(game, seat, d, self.notices.since(game, seat))
        news = self.passing.news(seat)
        if news:
            view.notices.insert(0, news)
        if self.console is not None:
            self.console.print(render_rich(view, self.console.width))
        else:
            for text in render_plain(view):
                self._print(text)
        passable = self._passable(d)
        if self.console is None:
            self._print(commands(undo=not self.hot_seat, pass_until=passable))
        else:
            self._print("(? help" + (", pass until" if passable else "") + ("" if self.hot_seat else ", undo") + ", quit)")

    def _turns_of_their_own(self, game: Game) -> None:
        """Hot seat: a person whose answer was forced while away from the terminal, by something the others cannot
        see (no gem in a hidden hand: the pass), which the others read as an answer that person chose, gets the
        terminal for it as for any answer, in the order of the story: handed it, shown the story up to that line,
        and a pause. Without it, who is handed the terminal would tell the others that the answer was forced."""
        read = None  # from where the person at the terminal has not read the story (None: they read it as told)
        while self.unshown:
            seat, upto = self.unshown[0]
            if read is not None:  # what came after the last one's answer, on their screen as after any answer
                self._tell_holder(read, upto - 1)
            if seat != self.at_terminal:
                self._hand_off(game, seat)  # (the person who had it read the story up to this line)
                self._recap(seat, self.seen[seat], upto)
                self.seen[seat] = max(self.seen[seat], upto)
                self._pause(f"{game.players[seat].name}: when you have read this, press Enter, then pass the "
                            "terminal on.")
            else:
                self._tell_holder(upto - 1, upto)
            self.unshown.pop(0)
            read = upto
        if read is not None:
            self._tell_holder(read, len(self.told))

    def _tell_holder(self, start: int, end: int) -> None:
        """The lines `start` to `end` of the story as the person at the terminal reads them."""
        for line in self.told[start:end]:
            if isinstance(line, Line) and line.kind == "header":
                self._print_header(line)
                continue
            text = line_text(line, (self.at_terminal,))
            if text is not None:
                self._print(text)

    def _passable(self, d: Decision) -> bool:
        """Whether `pass until` is offered for `d`. Not in a hot seat where its legal answers are worked out from
        something some seat cannot see (a hidden hand): the table would skip that person's hand-offs while the
        answers stay the same and hand them the terminal when they change, telling the others when their hand did."""
        return offered(d, self.hot_seat)

    def words(self, game: Game, d: Decision, text: str):
        """The table's own answers (HumanAgent.words): 'pass until' (tools.table.passing)."""
        if text in WORDS and pass_wire(d) is not NO_PASS and not self._passable(d):  # (in the table's words)
            raise ValueError("'pass until' is not taken here: with others at this terminal, skipping your turns "
                             "while your choices stay the same would tell them when your hidden cards change")
        return self.passing.word(game, d, text)

    def _hand_off(self, game: Game, seat: int) -> None:
        """Before a person's private view with others at the same terminal: the screen and its scroll-back
        cleared, the keys typed ahead dropped, and a wait for the Enter of the person who takes the terminal."""
        if self.at_terminal is not None:
            self._leave(game, self.at_terminal)
        self.at_terminal = seat
        self.handed_at = len(self.told)
        name = game.players[seat].name
        if self.terminal:
            self._clear()
            self._pause(f"Pass the terminal to {name}, then press Enter (others look away).")
        else:
            self._print(f"--- pass to {name} ---")

    def _leave(self, game: Game, seat: int) -> None:
        """The person at the terminal gives it up. A line told to them alone since their decision (a `tell`, news
        to them: not the echo of their own secret answer) is on the screen: they read it before the screen is
        cleared (a pause of theirs). The other lines since their decision may have flashed by: their next recap
        starts at their decision, unless they paused to read them."""
        mine = self._news(seat)
        if mine and self.terminal:
            self._pause(f"{game.players[seat].name}: when you have read this, press Enter, then pass the terminal on.")
        if mine or not self.terminal:  # read (or, with no screen to clear, left in the output for good)
            self.seen[seat] = max(self.seen[seat], self._shown())

    def _shown(self) -> int:
        """How much of the story the terminal has shown: all of it, or up to a forced answer whose person has not
        had their turn for it yet (`_turns_of_their_own`)."""
        return self.unshown[0][1] - 1 if self.unshown else len(self.told)

    def _news(self, seat: int) -> bool:
        """A line told to `seat` alone since they last read the story that is news to them: a `tell`, not the echo
        of a secret answer of their own (which they typed)."""
        return any(isinstance(line, Line) and line.only is not None and seat in line.only and line.kind != "event"
                   for line in self.told[self.seen[seat]:self._shown()])

    def _pause(self, text: str) -> None:
        """On a terminal: `text`, the keys typed before it dropped, a wait for Enter, and the screen cleared."""
        if not self.terminal:
            return
        if self.discard is not None:  # before the text: a key pressed once it shows is the person's answer to it
            self.discard()  # an Enter typed ahead at the previous screen must not pass the pause
        self.out.write(text + "\n")
        self.out.flush()
        if self.read_line is not None:
            self.read_line()
        self._clear()

    def _clear(self) -> None:
        # the clear sequence is the program's own, not ruleset text: it goes to the terminal itself, past the
        # filter that shows a stranger's control characters as '?'
        raw = terminal_of(self.out)
        self.out.flush()
        raw.write(CLEAR)
        raw.flush()

    def helper(self, game: Game, d: Decision) -> str:
        """The rule of the step that asks, in words, and the answers it takes."""
        from rulecraft.tools.words.seat.help import help_at_table, step_asking as asking

        lines = help_at_table(game.rs, asking(game.rs, d.step), d)  # the rule in players' words (tools/words)
        lines.append(f"Asked: {what_is_asked(d, game.rs)}")
        if amounts(d) is not None:
            lines.append(how_to_answer(d))
        elif d.kind in ("one", "subset"):
            names = choice_names(d, game)
            named = ", ".join(f"{i + 1}) {name}" for i, name in enumerate(names))
            lines.append(("Pick one: " if d.kind == "one" else f"Pick {d.min} to {d.max}: ") + named)
        elif d.kind == "number":
            lines.append(f"Any whole number from {d.min} to {d.max}" + (", or pass" if d.optional else ""))
        else:
            lines.append("y or n")
        lines.append(commands(undo=not self.hot_seat, pass_until=self._passable(d)))
        return "\n".join(lines)


def person(seat: int, out=None, stdin=None, time_limit: Optional[float] = None, table: Optional[Table] = None):
    """A person's agent for `seat`, given what it shows and how it reads when built: the table's presenter, help
    and own words (`table`), or without a table the decision drawn plainly from the seat's view on `out`; their
    typed answers read in their own terms (tools/words/seat/answers.py)."""
    if table is not None:
        return HumanAgent(seat, stdin, out, time_limit, presenter=table.presenter, reader=read_answer,
                          helper=table.helper, words=table.words)

    def plain(game, seat: int, d: Decision, view: dict) -> None:
        agent.out.write("".join(line + "\n" for line in decision_lines(d, view, seat, getattr(game, "rs", None))))

    agent = HumanAgent(seat, stdin, out, time_limit, presenter=plain, reader=read_answer)
    return agent


def discard_typed_ahead(stream) -> None:
    """Drop what was typed on a terminal and not read yet (termios' input flush); nothing for a pipe or a file.

    A terminal in its usual (canonical) mode hands a program one line per read, so the keys typed after the
    line last read are still the terminal's, not in the program's buffer: the flush reaches all of them."""
    try:
        fd = stream.fileno()
        if not os.isatty(fd):
            return
        import termios

        termios.tcflush(fd, termios.TCIFLUSH)
    except (AttributeError, ImportError, OSError, ValueError):  # not a terminal, or a system without termios
        pass
