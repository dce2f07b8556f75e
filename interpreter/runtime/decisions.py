"""Decisions a game waits for: who decides, what kind, the legal choices, and their checks.

A choice travels as plain JSON ("wire form"): an option index for `one`, a sorted list of
indices for `subset`, a whole number for `number`, true/false for `yesno`. Logs store the
wire form, so a replay never depends on how a value prints.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, NamedTuple, Optional, Sequence

from ..model import secrecy
from ..values import Card
from .story import label


MISSING = object()  # no answer: the decision is pending (machine/questions.py), or no answer is forced (`forced`)


class IllegalChoice(ValueError):
    """A choice that the pending decision does not allow; the game state is unchanged. `problem`: what is wrong
    with it as data (None when no decision is pending)."""

    def __init__(self, message: str, problem: Optional[Problem] = None):
        super().__init__(message)
        self.problem = problem


class Problem(NamedTuple):
    """What is wrong with an answer, as data: `what` and the bounds it names, in wire terms (option numbers from
    0). `what` is one of: yesno (not true or false), whole (not a whole number), range (a number outside
    low..high), nothing (no option to choose), option (not an option number from low to high), list (not a list
    of option numbers), twice (an option chosen twice), options (option numbers outside low..high), count (not
    from low to high options). str() says it in wire terms, for a bot, a script or a replayed log; the table says
    it in a person's terms (tools/words/seat/answers.py)."""

    what: str
    low: int = 0
    high: int = 0

    def __str__(self) -> str:
        what, low, high = self
        if what == "count":
            return f"choose {low} option{'s' if low != 1 else ''}" if low == high else \
                f"choose from {low} to {high} options"
        return _WIRE_WORDS[what].format(low=low, high=high)


_INTS = frozenset((int,))  # the type of every option number of the usual answer to a subset

_WIRE_WORDS = {
    "yesno": "answer true or false", "whole": "answer a whole number", "range": "answer a number from {low} to {high}",
    "nothing": "there is nothing to choose", "option": "answer an option number from {low} to {high}",
    "list": "answer a list of option numbers", "twice": "an option can be chosen only once",
    "options": "option numbers run from {low} to {high}",
}


class Form:
    """How a decision is asked, shared by every asking of one step's decision (machine/plans.py's plan makes one
    for each step that asks it): the step (a choose, sealed or stack step; None for a re-roll, which no step of its
    own asks: `?` at the table finds the rule to explain through it), its decision's place as text
    (file:line:column, which saves and logs keep), the purpose (choose, sealed, stack, reroll), what the others may
    read of it, the function of a prompt worked out when first read, and a re-roll's target. A decision built by
    hand (a save restored, a re-roll, a test) gets one of its own, made of its keywords."""

    __slots__ = ("step", "node", "purpose", "hidden", "hides_cards", "public_of", "prompt", "target")

    def __init__(self, step: Any = None, node: str = "", purpose: str = "choose", hidden: bool = False,
                 hides_cards: bool = False, public_of: Any = None, prompt: Any = None, target: Any = None):
        self.step = step
        self.node = node
        self.purpose = purpose
        # its legal answers are worked out from something some other seat cannot see (model/secrecy.py): a forced
        # answer then reads to the others as any answer would; `hides_cards`: from the cards of such a zone
        self.hidden = hidden
        self.hides_cards = hides_cards
        # how it was asked (machine/plans.py's plan) when the others read other words than its decider (a prompt
        # or a display name that reads something hidden), else None
        self.public_of = public_of
        self.prompt = prompt  # the prompt's function, called with the game (`Decision.game`) when first read
        self.target = target  # a re-roll: the total the roll is made against, for what the roller is shown


class Decision:
    """A decision the game waits for. Built for every choice a game asks, so it is made cheaply (slots, one plain
    constructor, what every asking of its step shares kept once in its `form`): a prompt nobody reads yet is
    worked out when first read (`form.prompt` of `game`), and whole-number options (a bid: the pass, then every
    amount from `low`) are told by their count and first amount; `options` builds their list only for whoever
    reads it. `step`, `node`, `purpose`, `hidden`, `hides_cards`, `public_of` and `target` are read from the form
    (see Form); a decision built by hand gives them as keywords."""

    __slots__ = ("player", "kind", "number", "count", "low", "_options", "_prompt", "default", "min", "max",
                 "optional", "labels", "_secret", "game", "form", "resume", "held")

    def __init__(self, player: int, kind: str, prompt: Optional[str] = "", options: Optional[list] = None,
                 min: int = 0, max: int = 0, default: Any = None, form: Optional[Form] = None, number: int = 0,
                 low: Optional[int] = None, count: int = 0, secret: Optional[bool] = False, game: Any = None,
                 node: str = "", purpose: str = "choose", optional: bool = False, labels: Optional[Sequence] = None,
                 step: Any = None, hidden: bool = False, hides_cards: bool = False, public_of: Any = None):
        self.player = player
        self.kind = kind  # one, subset, number, yesno
        # how many decisions the game had taken when this one was asked: part of the game state, so a bot that
        # draws its choice from (seed, seat, number) chooses the same again after an undo, a resume or a replay
        self.number = number
        self._options: Any  # the list of options, or None until `options` builds it (a shape: `low`, yes or no)
        if options is not None:
            self._options, self.count, self.low = options, len(options), None
        else:  # options by shape (`low`: the pass, then low, low + 1, ...: `count` in all; a yes or no), or none yet
            self._options, self.count, self.low = None, count, low
        self._prompt = prompt  # None: worked out when first read (`form.prompt` of `game`)
        self.default = default  # in wire form, or None
        self.min = min
        self.max = max
        self.optional = optional  # a 'number' that may also be passed (answered with None)
        self.labels = labels or ()  # the name a person sees for each option ('display:'), or empty
        self._secret = secret  # see `secret`
        self.game = game  # the game it was asked in: what a prompt or `secret` worked out when first read reads
        self.form = Form(step, node, purpose, hidden, hides_cards, public_of) if form is None else form
        # how the step that asked goes on with the answer (machine/decision_steps.py), called by Game.apply as
        # resume(game, frame, decision, answer); None: the step runs again and finds the answer in a local (a
        # decision restored from a save). `held`: what that step worked out before asking, kept for the answer
        self.resume = None
        self.held = None

    # what every asking of the step shares, read from (and, for a decision restored or a re-roll, written to) its form
    step = property(attrgetter("form.step"), lambda self, step: setattr(self.form, "step", step))
    node = property(attrgetter("form.node"))
    purpose = property(attrgetter("form.purpose"))
    hidden = property(attrgetter("form.hidden"))
    hides_cards = property(attrgetter("form.hides_cards"))
    public_of = property(attrgetter("form.public_of"))
    target = property(attrgetter("form.target"), lambda self, value: setattr(self.form, "target", value))

    @property
    def prompt(self) -> str:
        p = self._prompt
        if p is None:
            p = self._prompt = self.form.prompt(self.game)
        return p

    @prompt.setter
    def prompt(self, text: str) -> None:
        self._prompt = text

    @property
    def secret(self) -> Optional[bool]:
        """The answer is the decider's own: others are told that it was made, not what. None: not said yet (the
        step that asks looks whether the options hide cards, in `game`, when this is first read: while the
        decision is pending, the cards are where they were when it was asked)."""
        s = self._secret
        if s is None and self.game is not None:
            s = self._secret = self.kind in ("one", "subset") and hidden_from_others(self.game, self)
        return s

    @secret.setter
    def secret(self, value: Optional[bool]) -> None:
        self._secret = value

    @property
    def options(self) -> list:
        o = self._options
        if o is None:
            low = self.low
            o = self._options = ([True, False] if self.kind == "yesno" else []) if low is None else \
                [None, *range(low, low + self.count - 1)]
        return o

    @options.setter
    def options(self, values: list) -> None:
        self._options = values
        self.count = len(values)
        self.low = None

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

    def legal(self, wire: Any) -> Optional[Problem]:
        """None if the wire-form choice is legal, else what is wrong with it (a Problem: data, in wire terms).
        The one check of an answer: Game.apply (through `take`), the bots and the table's reader all ask it."""
        kind = self.kind
        if kind == "subset":  # (first: a subset's answer is never a usual one, Decision.take)
            n = self.count
            if not isinstance(wire, list) or (not _INTS.issuperset(map(type, wire))  # (the usual list: checked in C)
                                              and any(isinstance(i, bool) or not isinstance(i, int) for i in wire)):
                return Problem("list", 0, n - 1)
            if len(set(wire)) != len(wire):
                return Problem("twice")
            if wire and (min(wire) < 0 or max(wire) >= n):
                return Problem("options", 0, n - 1)
            if not self.min <= len(wire) <= self.max:
                return Problem("count", self.min, self.max)
            return None
        if wire.__class__ is int and kind == "one" and 0 <= wire < self.count:  # the usual answer
            return None
        if kind == "yesno":
            return None if isinstance(wire, bool) else Problem("yesno")
        if kind == "number":
            if wire is None and self.optional:
                return None
            if isinstance(wire, bool) or not isinstance(wire, int):
                return Problem("whole", self.min, self.max)
            return None if self.min <= wire <= self.max else Problem("range", self.min, self.max)
        n = self.count  # (a 'one')
        if isinstance(wire, bool) or not isinstance(wire, int) or not 0 <= wire < n:
            return Problem("option", 0, n - 1) if n else Problem("nothing")
        return None

    def value(self, wire: Any) -> Any:
        """The game value a legal wire-form choice stands for."""
        if self.kind == "one":
            low = self.low
            if low is not None:
                return None if wire == 0 else low + wire - 1
            return self._options[wire]
        if self.kind == "subset":
            options = self._options
            if options is None:  # (a list, as a subset's always is: read without the property's call from C)
                options = self.options
            return [options[i] for i in sorted(wire)]
        return wire

    def take(self, wire: Any) -> Any:
        """The game value of a wire-form choice, checked (`legal`); IllegalChoice, saying why, if it is not one."""
        value = usual(self.kind, self.count, self.low, self._options, wire)  # the usual answers, at once
        if value is not MISSING:
            return value
        problem = self.legal(wire)
        if problem is not None:
            raise IllegalChoice(str(problem), problem)
        return self.value(wire)

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
        """The wire choice when only one is legal, else MISSING."""
        kind = self.kind
        if kind == "one":
            return 0 if self.count == 1 else MISSING
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
        return MISSING

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


def usual(kind: str, count: int, low: Optional[int], options: Optional[list], wire: Any) -> Any:
    """The game value of a usual answer (an option number of a 'one' decision of `count` options, told by their
    list or from `low` by shape; true or false for a 'yesno'), or MISSING for any other wire, which
    `Decision.legal` then checks. The first part of the one check of an answer: `Decision.take` asks it, and a bot's
    pick answered without a Decision (machine/questions.decide and bids) runs the same lines written out (a call fewer
    on a simulation's busiest path; tests/test_bot_pick.py compares the two ways through whole games)."""
    if wire.__class__ is int and kind == "one" and 0 <= wire < count:
        return options[wire] if low is None else None if wire == 0 else low + wire - 1  # type: ignore[index]
    if wire.__class__ is bool and kind == "yesno":
        return wire
    return MISSING


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
