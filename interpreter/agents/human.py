"""A person at a terminal: numbered menus over that player's view; bad input asks again, saying why.

What the person is shown is up to a `presenter` (the command line gives one that shows the table in the game's
words); without one a plain listing of the view is printed. Besides an answer the person may type `?` or `help`
(the `helper` says the rule of the step), `undo` (HumanUndo: the caller takes back their last decision) or `quit`
(HumanQuit)."""

from __future__ import annotations

import re
import select
import sys
from typing import IO, Any, Optional

from ..runtime.decisions import Decision, amounts, how_to_answer, say_amounts

MAX_LINE = 1000


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
    presenter = None  # presenter(game, seat, decision) writes what the person sees
    helper = None  # helper(game, decision) -> text: the rule of the step in words and the legal answers
    shown = None  # the decision whose view is on the screen when 'undo' was asked (not shown again if refused)
    # words(game, decision, text) -> (wire,) for a word of the table's own (e.g. 'pass until'), None for other text;
    # it may raise ValueError to say why the word does not fit here
    words = None

    def __init__(self, seat: int, stdin: IO[bytes] | None = None, stdout: IO[str] | None = None,
                 time_limit: Optional[float] = None):
        self.seat = seat
        self.stdin = stdin if stdin is not None else sys.stdin.buffer
        self.out = stdout if stdout is not None else sys.stdout
        self.time_limit = time_limit

    # ------------------------------------------------------------------ showing
    def show(self, d: Decision, view: dict, game: Any = None) -> None:
        if self.presenter is not None and game is not None:
            self.presenter(game, self.seat, d)
            if self.time_limit:
                self.out.write(f"({self.time_limit:g} seconds, then the default is taken)\n")
            self.out.flush()
            return
        w = self.out.write
        me = view["players"][self.seat]
        w(f"\n--- {me}, your decision ---\n")
        for slot, cards in view["zones"].items():
            if isinstance(cards, list):
                if cards:
                    w(f"  {slot}: {', '.join(cards)}\n")
            elif cards.get("count"):
                top = f", top {cards['top']}" if cards.get("top") else ""
                w(f"  {slot}: {cards['count']} cards{top}\n")
        mine = view["player_variables"][self.seat] if view["player_variables"] else {}
        if mine:
            w("  you: " + ", ".join(f"{k} {v}" for k, v in mine.items()) + "\n")
        w(f"{d.prompt or 'Choose'}\n")
        if d.kind in ("one", "subset") and amounts(d) is None:
            for i in range(len(d.options)):
                text = getattr(d.options[i], "text", "") if not d.labels else ""  # a card says what it does
                w(f"  {i + 1}) {d.describe_option(i)}{f' – {text}' if text else ''}\n")
        w(how_to_answer(d) + "\n")
        if self.time_limit:
            w(f"({self.time_limit:g} seconds, then the default is taken)\n")
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
            while raw and not raw.endswith(b"\n"):  # drop the rest of an over-long line
                raw = self.stdin.readline(MAX_LINE + 1)
            raise ValueError(f"that line is too long (over {MAX_LINE} characters)")
        try:
            return raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise ValueError("that is not readable text (UTF-8)") from None

    def parse(self, d: Decision, text: str) -> Any:
        if d.kind == "yesno":
            t = text.lower()
            if t in ("y", "yes", "1", "true"):
                return True
            if t in ("n", "no", "0", "false"):
                return False
            raise ValueError("answer y or n")
        if d.kind == "number":
            if d.optional and text.lower() in ("", "p", "pass"):
                return None
            try:
                return _whole(text)
            except ValueError:
                raise ValueError(f"enter a whole number from {d.min} to {d.max}") from None
        nums = amounts(d)
        if nums is not None:  # a bid or a count: the amount itself is typed
            return _amount(d, nums, text)
        if d.kind == "subset" and d.min == 0 and text.lower() in ("p", "pass"):
            return []  # as said: Enter (an empty line) or 'pass' takes none
        if d.kind == "one" and text.lower() in ("p", "pass") and None in d.options:
            return d.options.index(None)  # an optional choice (a card, a target): its pass, as for a bid
        if d.kind == "subset" and text.lower() in ("a", "all"):
            if d.max < len(d.options):
                raise ValueError(f"you may pick at most {d.max} of the {len(d.options)}")
            return list(range(len(d.options)))
        parts = text.replace(",", " ").split()
        try:
            nums = [_whole(p) - 1 for p in parts]
        except ValueError:
            raise ValueError("enter option numbers") from None
        if d.kind == "one":
            if len(nums) != 1:
                raise ValueError(f"enter one option number from 1 to {len(d.options)}")
            return nums[0]
        return sorted(nums)

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
                wire = self.parse(d, text)
                problem = d.legal(wire)
                if problem:  # the decision counts options from 0; a person counts them from 1
                    n = len(d.options)
                    raise ValueError(problem.replace(f"option numbers run from 0 to {n - 1}", f"option numbers run from 1 to {n}")
                                     .replace(f"an option number from 0 to {n - 1}", f"an option number from 1 to {n}"))
                return wire
            except ValueError as exc:
                self.out.write(f"{exc}; try again\n")


_WHOLE = re.compile(r"[+-]?[0-9]{1,18}")


def _whole(text: str) -> int:
    """A whole number typed in the digits 0-9 (a digit of another script, '١' or '３', is asked again, as
    docs/reliability.md says; Python's int() took it: issue 38)."""
    if _WHOLE.fullmatch(text) is None:
        raise ValueError(text)
    return int(text)


def _amount(d: Decision, nums: list[int], text: str) -> int:
    """The option a typed amount stands for (or the pass)."""
    if text.lower() in ("p", "pass") and None in d.options:
        return d.options.index(None)
    try:
        n = _whole(text)
    except ValueError:
        raise ValueError(say_amounts(d, nums)[:-1].replace("Type", "type", 1)) from None
    if n not in nums:
        raise ValueError(f"{n} is not an amount you can choose here: " + say_amounts(d, nums)[:-1].replace("Type", "type", 1))
    return d.options.index(n)


def _fallback(d: Decision) -> Any:
    """The choice taken when time runs out and the ruleset names no default: pass or the least."""
    if d.kind == "yesno":
        return False
    if d.kind == "number":
        return None if d.optional else d.min
    if d.kind == "one":
        return len(d.options) - 1 if d.options and d.options[-1] is None else 0
    return list(range(d.min))
