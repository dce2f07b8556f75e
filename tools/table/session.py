"""People at the table: the story as they may read it, round and turn headers, a pause before the bots' moves,
hand-offs between people sharing one terminal, help in words, and taking back a decision.

`Table` is handed to a game as its listener and to each human agent as presenter and helper. What a person
reads of a line is decided by the line itself (`story.Line.for_seats`): a line for one player only reaches the
others as its public text, or not at all. With one person at the table they read their own secrets; with two or
more, a private line is held back until its reader takes the terminal after a hand-off screen.
"""

from __future__ import annotations

import os
import time
from typing import Any, Optional

from rulecraft.runtime.decisions import Decision, amounts, how_to_answer
from rulecraft.runtime.game import Game
from rulecraft.runtime.story import Line

from rulecraft.tools.table.view import COMMANDS, _t, choice_names, render_plain, render_rich, seat_view

CLEAR = "\033[2J\033[H"


class Table:
    def __init__(self, people: set[int], out, *, terminal: bool = False, pace: float = 0.0,
                 read_line=None):
        self.people = set(people)
        self.out = out
        self.terminal = terminal  # colour, layout, pauses and a cleared screen only on a terminal
        self.pace = pace if terminal and people else 0.0
        self.read_line = read_line  # reads the Enter of a hand-off (a terminal only)
        self.held: dict[int, list[str]] = {seat: [] for seat in self.people}
        self.at_terminal: Optional[int] = None  # the person who last had the terminal
        self.console = None
        if terminal:
            from rich.console import Console

            # rich writes its own escape sequences, so it gets the stream itself; the texts it is given are made
            # safe first (table._t)
            self.console = Console(file=getattr(out, "stream", out), highlight=False,
                                   no_color=bool(os.environ.get("NO_COLOR")))

    # ------------------------------------------------------------------ the story
    def listener(self, line: str) -> None:
        if isinstance(line, Line) and line.kind == "header":
            self._print_header(line)
            return
        if not self.people:  # a game of bots: the whole story
            self._print(str(line))
            return
        if isinstance(line, Line) and line.only is not None:
            readers = line.only & self.people
            if len(self.people) > 1:  # several people share the terminal: hold it for its reader
                for seat in readers:
                    self.held[seat].append(str(line))
                if line.public is not None:
                    self._paced(line.public)
                return
            text = str(line) if readers else line.public
            if text is not None:
                self._paced(text)
            return
        self._paced(str(line))

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

    def final(self, game: Game) -> None:
        """The end of a game with people at the table: every player's score, part by part (`view: score_parts`)."""
        from rulecraft.tools.table.scores import breakdown

        rows = breakdown(game)
        if not any(parts for _n, parts, _t in rows) or not self.people:
            return
        self._print("Final scores:")
        for name, parts, total in rows:
            self._print(f"  {name}: {total}" + (f" ({'; '.join(f'{t} {v}' for t, v in parts)})" if parts else ""))

    # ------------------------------------------------------------------ a person's turn to decide
    def presenter(self, game: Game, seat: int, d: Decision) -> None:
        if len(self.people) > 1 and self.at_terminal != seat:
            self._hand_off(game, seat)
        self.at_terminal = seat
        for text in self.held.get(seat, []):
            self._print(text)
        self.held[seat] = []
        view = seat_view(game, seat, d)
        if self.console is not None:
            self.console.print(render_rich(view))
        else:
            for text in render_plain(view):
                self._print(text)
        self._print(COMMANDS if self.console is None else "(? help, undo, quit)")

    def _hand_off(self, game: Game, seat: int) -> None:
        """Before a person's private view with others at the same terminal: clear the screen and wait."""
        name = game.players[seat].name
        if self.terminal:
            # the clear sequence is the program's own, not ruleset text: it goes to the terminal itself, past the
            # filter that shows a stranger's control characters as '?'
            raw = getattr(self.out, "stream", self.out)
            self.out.flush()
            raw.write(CLEAR)
            self.out.write(f"Pass the terminal to {name}, then press Enter (others look away).\n")
            self.out.flush()
            if self.read_line is not None:
                self.read_line()
            raw.write(CLEAR)
            raw.flush()
        else:
            self._print(f"--- pass to {name} ---")

    def helper(self, game: Game, d: Decision) -> str:
        """The rule of the step that asks, in words, and the answers it takes."""
        from rulecraft.tools.words.help import rule_help, step_asking as asking

        lines = rule_help(game.rs, asking(game.rs, d.node))  # the rule in players' words (tools/words/help.py)
        lines.append(f"Asked: {d.prompt or 'choose'}")
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
        lines.append(COMMANDS)
        return "\n".join(lines)


def step_asking(rs, node: str):
    """The step whose decision is asked at `node` (the decision's place as text), or None."""
    def walk(steps):
        for s in steps:
            spec = getattr(s, "decision", None) or getattr(s, "play", None)
            if spec is not None and str(spec.span) == node:
                return s
            for _, body in s.bodies:
                found = walk(body)
                if found is not None:
                    return found
        return None

    for seq in rs.sequences.values():
        found = walk(seq.steps)
        if found is not None:
            return found
    return None
