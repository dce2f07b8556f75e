"""A person at a terminal: the decision is shown, a line is read and turned into an answer; bad input asks again,
saying why.

The agent is given, when built, its `presenter` (what the person sees of the decision: the table in the game's
words) and its `reader` (their typed text to an answer, in their own terms: options counted from 1, a bid as its
amount), both from the tools (`rulecraft.tools.table.session.person` builds one). Besides an answer the person may
type `?` or `help` (the `helper` says the rule of the step), `undo` (HumanUndo: the caller takes back their last
decision) or `quit` (HumanQuit)."""

from __future__ import annotations

import select
import sys
from typing import IO, Any, Optional

from ..runtime.decisions import Decision
from .base import AgentError

MAX_LINE = 1000
MAX_DROPPED = 1 << 20  # bytes of one over-long line dropped before the input is taken for no person's typing


class HumanQuit(Exception):
    """The person ended input (EOF, Ctrl-C or 'quit'): the game stops, its log stays as written. `asked` is true
    when they typed 'quit' (the game is then saved for them to go on later)."""

    def __init__(self, asked: bool = False):
        super().__init__()
        self.asked = asked


class HumanUndo(Exception):
    """The person asked to take back their last decision."""


HELP_WORDS = ("?", "help", "h")


class HumanAgent:
    name = "human"
    needs_game = True  # the presenter shows the table from the game, for this seat only
    shown = None  # the decision whose view is on the screen when 'undo' was asked (not shown again if refused)

    def __init__(self, seat: int, stdin: IO[bytes] | None = None, stdout: IO[str] | None = None,
                 time_limit: Optional[float] = None, *, presenter: Any = None, reader: Any = None,
                 helper: Any = None, words: Any = None):
        self.seat = seat
        self.stdin = stdin if stdin is not None else sys.stdin.buffer
        self.out = stdout if stdout is not None else sys.stdout
        self.time_limit = time_limit
        self.presenter = presenter  # presenter(game, seat, decision, view) writes what the person sees
        self.reader = reader  # reader(decision, text) -> wire; ValueError saying why, in the person's terms
        self.helper = helper  # helper(game, decision) -> text: the rule of the step and the legal answers
        # words(game, decision, text) -> (wire,) for a word of the table's own (e.g. 'pass until'), None for other
        # text; it may raise ValueError to say why the word does not fit here
        self.words = words

    # ------------------------------------------------------------------ showing
    def show(self, d: Decision, view: dict, game: Any = None) -> None:
        if self.presenter is None or self.reader is None:
            raise AgentError("a person plays at the table ('rulecraft play'), which shows them the game")
        self.presenter(game, self.seat, d, view)
        if self.time_limit:
            self.out.write(f"({self.time_limit:g} seconds, then the default is taken)\n")
        self.out.flush()

    # ------------------------------------------------------------------ reading
    def _readline(self) -> Optional[str]:
        """A line of input, None when the time limit passed; raises HumanQuit at end of input."""
        if self.time_limit:
            try:
                ready, _, _ = select.select([self.stdin], [], [], self.time_limit)
            except (OSError, ValueError, TypeError):
                ready = [self.stdin]
            if not ready:
                return None
        try:
            raw = self.stdin.readline(MAX_LINE + 1)
        except KeyboardInterrupt:
            raise HumanQuit() from None
        if not raw:
            raise HumanQuit()
        if len(raw) > MAX_LINE:
            dropped = 0
            while raw and not raw.endswith(b"\n"):  # drop the rest of an over-long line
                dropped += len(raw)
                if dropped > MAX_DROPPED:  # no line at all (`< /dev/zero`): read for ever, nothing said
                    raise HumanQuit()
                raw = self.stdin.readline(MAX_LINE + 1)
            raise ValueError(f"that line is too long (over {MAX_LINE} characters)")
        try:
            return raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise ValueError("that is not readable text (UTF-8)") from None

    def choose(self, d: Decision, view: dict, game: Any = None) -> Any:
        if self.shown is d:  # asked again after a refused 'undo': the view on the screen is still true
            self.shown = None
        else:
            self.show(d, view, game)
        while True:
            self.out.write("> ")
            self.out.flush()
            try:
                text = self._readline()
                if text is None:
                    self.out.write("\ntime is up: the default is taken\n")
                    return d.default if d.default is not None and d.legal(d.default) is None else _fallback(d)
                word = text.lower()
                if word in HELP_WORDS:
                    self.out.write((self.helper(game, d) if self.helper is not None and game is not None
                                    else "Answer as asked above.") + "\n")
                    continue
                if word == "undo":
                    self.shown = d
                    raise HumanUndo()
                if word == "quit":
                    raise HumanQuit(asked=True)
                own = self.words(game, d, word) if self.words is not None else None
                if own is not None:
                    return own[0]
                return self.reader(d, text)
            except ValueError as exc:
                self.out.write(f"{exc}; try again\n")


def _fallback(d: Decision) -> Any:
    """The choice taken when time runs out and the ruleset names no default: pass or the least."""
    if d.kind == "yesno":
        return False
    if d.kind == "number":
        return None if d.optional else d.min
    if d.kind == "one":
        return len(d.options) - 1 if d.options and d.options[-1] is None else 0
    return list(range(d.min))
