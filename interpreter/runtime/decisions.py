"""Decisions a game waits for: who decides, what kind, the legal choices, and their checks.

A choice travels as plain JSON ("wire form"): an option index for `one`, a sorted list of
indices for `subset`, a whole number for `number`, true/false for `yesno`. Logs store the
wire form, so a replay never depends on how a value prints.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from ..model import secrecy
from ..values import Card
from .story import label


class IllegalChoice(ValueError):
    """A choice that the pending decision does not allow; the game state is unchanged."""


class Decision:
    """A decision the game waits for. Built for every choice a game asks, so it is made cheaply: the fields that
    keep their usual value are class attributes, a prompt nobody reads yet is worked out when first read (see
    `lazy_prompt`), and whole-number options (a bid: the pass, then every amount from `low`) are told by their
    count and first amount; `options` builds their list only for whoever reads it."""

    min = 0
    max = 0
    default: Any = None  # in wire form, or None
    node = ""  # the step path that asks
    purpose = "choose"  # choose, sealed, stack, reroll
    optional = False  # a 'number' that may also be passed (answered with None)
    labels: Sequence = ()  # the name a person sees for each option ('display:'), or empty
    _secret: Optional[bool] = False  # see `secret`
    # its legal answers are worked out from something some other seat cannot see (model/secrecy.py): a forced
    # answer then reads to the others as any answer would; `hides_cards`: from the cards of such a zone
    hidden = False
    hides_cards = False
    _secret_of: Any = None  # the game whose cards decide `secret`, when first read (see `lazy_secret`)
    # how it was asked (machine/deciding.py's plan) when the others read other words than its decider (a prompt or
    # a display name that reads something hidden), else None
    public_of: Any = None
    # how many decisions the game had taken when this one was asked: part of the game state, so a bot that
    # draws its choice from (seed, seat, number) chooses the same again after an undo, a resume or a replay
    number = 0
    count = 0  # how many options ('one', 'subset'): len(options), without building them
    low: Optional[int] = None  # options told by shape: the pass (option 0), then low, low + 1, ... (count - 1 of them)
    _options: Optional[list] = None
    _prompt: Optional[str] = None
    _prompt_of: Any = None  # (compiled prompt, game): the prompt to work out when first read
    # how the step that asked goes on with the answer (machine/asking.py), called by Game.apply as
    # resume(game, frame, decision, answer); None: the step runs again and finds the answer in a local (a
    # decision restored from a save). `held`: what that step worked out before asking, kept for the answer
    resume: Any = None
    held: Any = None
    target: Any = None  # a re-roll ('reroll'): the total the roll is made against, for what the roller is shown

    def __init__(self, player: int, kind: str, prompt: str, options: Optional[list] = None, min: int = 0,
                 max: int = 0, default: Any = None, node: str = "", purpose: str = "choose", optional: bool = False,
                 labels: Optional[list] = None, secret: bool = False, number: int = 0):
        self.player = player
        self.kind = kind
        self._prompt = prompt
        if options is not None:
            self.options = options
        if min:
            self.min = min
        if max:
            self.max = max
        if default is not None:
            self.default = default
        if node:
            self.node = node
        if purpose != "choose":
            self.purpose = purpose
        if optional:
            self.optional = optional
        if labels:
            self.labels = labels
        if secret:
            self.secret = secret
        if number:
            self.number = number

    @property
    def prompt(self) -> str:
        p = self._prompt
        if p is None:
            fn, game = self._prompt_of
            p = self._prompt = fn(game)
            self._prompt_of = None
        return p

    @prompt.setter
    def prompt(self, text: str) -> None:
        self._prompt, self._prompt_of = text, None

    def lazy_prompt(self, fn: Any, game: Any) -> None:
        """The prompt is `fn(game)`, worked out when first read. Only for a prompt that draws no chance, and read
        while this decision is pending (the game's state is then as it was when it was asked)."""
        self._prompt, self._prompt_of = None, (fn, game)

    @property
    def secret(self) -> Optional[bool]:
        """The answer is the decider's own: others are told that it was made, not what. None: not said yet (the
        step that asks looks whether the options hide cards)."""
        s = self._secret
        if s is None and self._secret_of is not None:
            s = self._secret = self.kind in ("one", "subset") and hidden_from_others(self._secret_of, self)
            self._secret_of = None
        return s

    @secret.setter
    def secret(self, value: Optional[bool]) -> None:
        self._secret, self._secret_of = value, None

    def lazy_secret(self, game: Any) -> None:
        """Whether the options hide cards from others is looked at in `game` when `secret` is first read: only while
        this decision is pending (the cards are then where they were when it was asked), as for `lazy_prompt`."""
        self._secret, self._secret_of = None, game

    @property
    def options(self) -> list:
        o = self._options
        if o is None:
            low = self.low
            o = self._options = [] if low is None else [None, *range(low, low + self.count - 1)]
        return o

    @options.setter
    def options(self, values: list) -> None:
        self._options = values
        self.count = len(values)
        self.low = None

    def amounts_from(self, low: int, count: int) -> None:
        """Options by shape: the pass, then the whole numbers from `low` (`count` options in all, the pass too)."""
        self.low = low
        self.count = count
        self._options = None

    def __repr__(self) -> str:
        return (f"Decision(player={self.player}, kind={self.kind!r}, prompt={self.prompt!r}, "
                f"options={self.options!r}, min={self.min}, max={self.max}, purpose={self.purpose!r})")

    def describe_option(self, i: int) -> str:
        return self.labels[i] if self.labels else label(self.options[i])

    def label_of(self, value: Any) -> str:
        """How a chosen value reads: its option's display name where the decision gives them."""
        if self.labels:
            if self.kind == "one" and value in self.options:
                return self.labels[self.options.index(value)]
            if self.kind == "subset" and isinstance(value, list):
                return ", ".join(self.labels[self.options.index(v)] for v in value if v in self.options) or "nothing"
        return label(value)

    def legal(self, wire: Any) -> Optional[str]:
        """None if the wire-form choice is legal, else what is wrong with it."""
        if wire.__class__ is int and self.kind == "one" and 0 <= wire < self.count:  # the usual answer
            return None
        if self.kind == "yesno":
            return None if isinstance(wire, bool) else "answer true or false"
        if self.kind == "number":
            if wire is None and self.optional:
                return None
            if isinstance(wire, bool) or not isinstance(wire, int):
                return "answer a whole number"
            if not self.min <= wire <= self.max:
                return f"answer a number from {self.min} to {self.max}"
            return None
        n = self.count
        if self.kind == "one":
            if isinstance(wire, bool) or not isinstance(wire, int) or not 0 <= wire < n:
                return f"answer an option number from 0 to {n - 1}" if n else "there is nothing to choose"
            return None
        if not isinstance(wire, list) or any(isinstance(i, bool) or not isinstance(i, int) for i in wire):
            return "answer a list of option numbers"
        if len(set(wire)) != len(wire):
            return "an option can be chosen only once"
        if any(not 0 <= i < n for i in wire):
            return f"option numbers run from 0 to {n - 1}"
        if not self.min <= len(wire) <= self.max:
            if self.min == self.max:
                return f"choose {self.min} option{'s' if self.min != 1 else ''}"
            return f"choose from {self.min} to {self.max} options"
        return None

    def value(self, wire: Any) -> Any:
        """The game value a legal wire-form choice stands for."""
        if self.kind == "one":
            low = self.low
            if low is not None:
                return None if wire == 0 else low + wire - 1
            return self._options[wire]
        if self.kind == "subset":
            return [self.options[i] for i in sorted(wire)]
        return wire

    def wire_of(self, value: Any) -> Any:
        """The wire form of a value (a default), or None when it is not one of the choices."""
        kind = self.kind
        if kind == "yesno" or kind == "number":
            return value
        if kind == "one":
            low = self.low
            if low is not None:
                if value is None:
                    return 0
                return value - low + 1 if value.__class__ is int and low <= value < low + self.count - 1 else None
            try:
                return self.options.index(value)
            except ValueError:
                return None
        if isinstance(value, list):
            return sorted(self.options.index(v) for v in value if v in self.options)
        return None

    def forced(self) -> Any:
        """The wire choice when only one is legal, else NOT_FORCED."""
        kind = self.kind
        if kind == "one":
            return 0 if self.count == 1 else NOT_FORCED
        if kind == "number":
            if self.min == self.max and not self.optional:
                return self.min
            if self.optional and self.min > self.max:
                return None  # nothing to choose but the pass
        elif kind == "subset":
            n = self.count
            if not n or self.max == 0:
                return []
            if self.min == n:
                return list(range(n))
        return NOT_FORCED

    def all_choices(self, limit: int = 10_000) -> list:
        """Every legal wire-form choice (subsets only up to `limit`), for bots and tests."""
        from itertools import combinations

        if self.kind == "yesno":
            return [True, False]
        if self.kind == "number":
            return list(range(self.min, self.max + 1)) + ([None] if self.optional else [])
        if self.kind == "one":
            return list(range(self.count))
        out: list = []
        for k in range(self.min, self.max + 1):
            for combo in combinations(range(len(self.options)), k):
                out.append(list(combo))
                if len(out) >= limit:
                    return out
        return out

    def to_json(self) -> dict:
        return {
            "player": self.player, "kind": self.kind, "prompt": self.prompt,
            "options": [self.describe_option(i) for i in range(self.count)], "min": self.min, "max": self.max,
            "default": self.default, "node": self.node, "purpose": self.purpose, "optional": self.optional,
            "secret": self.secret,
        }


NOT_FORCED = object()


def hidden_from_others(g, d: Decision) -> bool:
    """Whether the answer is the decider's secret (model/secrecy.py): some option is a card another seat cannot see
    where it lies; or, with no card to choose from (none, or only the pass), the options are worked out from the
    cards of a zone some seat cannot see, as they would have been secret had there been some."""
    if d.low is not None:  # whole numbers
        return False
    opts = d.options
    if Card not in map(type, opts):  # options of numbers, players, texts: nothing to hide (a scan in C)
        return d.hides_cards and all(o is None for o in opts)
    return secrecy.hidden_from_others(g, d.player, opts)


def amounts(d: Decision) -> Optional[list[int]]:
    """The amounts of a 'one' decision whose options are distinct whole numbers (and perhaps the pass): a bid, a
    count, which a person types as the number itself rather than by its place in a list; None otherwise."""
    if d.kind != "one" or d.labels:
        return None
    nums = [o for o in d.options if o is not None]
    if not nums or any(type(o) is not int for o in nums) or len(set(nums)) != len(nums):
        return None
    return nums


def say_amounts(d: Decision, nums: list[int]) -> str:
    """How to answer an amount decision: 'Type an amount from 8 to 18, or pass.'"""
    lo, hi = min(nums), max(nums)
    if lo == hi:
        text = f"Type {lo}"
    elif len(nums) == hi - lo + 1:
        text = f"Type an amount from {lo} to {hi}"
    elif len(nums) <= 12:
        ordered = sorted(nums)
        text = "Type " + ", ".join(map(str, ordered[:-1])) + f" or {ordered[-1]}"
    else:
        text = f"Type one of the amounts from {lo} to {hi}"
    return text + (", or pass" if None in d.options else "") + "."


def how_to_answer(d: Decision) -> str:
    """How a person answers `d` at a terminal, in one sentence."""
    nums = amounts(d)
    if nums is not None:
        return say_amounts(d, nums)
    if d.kind == "subset":
        count = f"{d.min}" if d.min == d.max else f"{d.min} to {d.max}"
        many = "number" if d.max == 1 else "numbers"
        every = ", 'all' for every one" if d.max >= len(d.options) > 1 else ""
        return f"Enter {count} option {many}" + (" separated by spaces" if d.max > 1 else "") + every + \
            (", or press Enter to pass." if d.min == 0 else ".")
    if d.kind == "number":
        return f"Enter a number from {d.min} to {d.max}" + (", or 'pass'" if d.optional else "") + "."
    if d.kind == "yesno":
        return "Answer y or n."
    return f"Enter a number from 1 to {len(d.options)}" + (", or 'pass'" if None in d.options else "") + "."
