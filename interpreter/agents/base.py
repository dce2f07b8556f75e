"""The agent interface and the simple bots: random (seeded), first legal, scripted."""

from __future__ import annotations

import json
from typing import Any, Protocol

from ..runtime.decisions import Decision
from ..runtime.machine.answers import answer  # noqa: F401 - the one way an agent is asked; the tools import it here
from ..runtime.rng import SplitMix


class AgentError(Exception):
    """An agent cannot be built or cannot go on (e.g. its script ran out of choices)."""


class Agent(Protocol):
    """Write your own bot as a class with this method (and an optional `name`).

    `decision` is the pending `Decision` (player, kind, prompt, options, min, max,
    default); `view` is `Game.view(seat)`: what that player may see. Return the choice in
    wire form: an option index for 'one', a list of indices for 'subset', a whole number
    for 'number', True/False for 'yesno'. Load it with `--agent python:MODULE:CLASS`;
    the class is called with keyword arguments `seat` and `seed`.

    A bot that searches ahead may declare `needs_game = True`: it is then called as
    `choose(decision, view, game)` with the running `Game` itself, which it may copy
    (`game.copy()`) to try choices. Such a bot sees hidden state; see docs/agents.md.
    """

    name: str

    def choose(self, decision: Decision, view: dict) -> Any: ...


class RandomAgent:
    """Uniform over the legal choices; for a subset, a uniform size, then a uniform set of that size.

    Each choice is drawn from a generator seeded by (seed, seat, the decision's number), not from one stream
    used up over the game: the choice is a function of the game and the seat, so an undo followed by the same
    answer, a resume or a replay meets the same choices (docs/agents.md, "A fair bot")."""

    name = "random"
    # one stream for every choice (`on`); else `rng` is the generator of the last choice that made one, and none
    # is made with the agent (a game's agents are made for every game: a bot's pick needs no generator)
    fixed = False
    rng: SplitMix = SplitMix(0)  # (never drawn from: read only when `fixed`, and `on` sets its own)

    def __init__(self, seat: int = 0, seed: int = 0):
        self.base = (seed * 1_000_003 + seat * 7919 + 17) & _MASK
        self.start = (self.base + _STEP + _GOLDEN) & _MASK  # below_at's first sum, but for number * _STEP

    def choose(self, d: Decision, view: dict) -> Any:
        kind = d.kind
        if kind == "one" or kind == "yesno":
            return self.pick(kind, d.count if kind == "one" else 2, d.number)
        if kind == "subset":
            return self.pick_subset(d.min, d.max, d.count, d.number)
        rng = self.rng = self.rng if self.fixed else decision_rng(self.base, d)
        span = max(0, d.max - d.min + 1)  # (a number)
        k = rng.below(span + (1 if d.optional else 0))
        return None if k == span else d.min + k

    def pick(self, kind: str, count: int, number: int) -> Any:
        """`choose`'s answer to a 'one' decision of `count` options or a 'yesno' (`count` 2), the game's decision
        numbered `number`: it reads nothing else of the decision, so a game playing itself asks it without making
        one (machine/questions.decide)."""
        if self.fixed:  # one stream (`on`)
            pick = self.rng.below(count)
        else:
            # below_at(self.base, number, count) written out, without making a generator: the decision's seed, then
            # the generator's first draw, taken when it is surely below the rejection limit (x <= _MASK - count; else
            # below_at decides, drawing again as the generator would). A yes/no is below(2) == 0, as below.
            # (_MASK, _STEP and _GOLDEN written as numbers: constants, not names looked up at every pick)
            z = (self.start + number * 0xD1B54A32D192ED03) & 0xFFFFFFFFFFFFFFFF
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
            z = ((z ^ (z >> 31)) + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
            z ^= z >> 31
            pick = z % count if 0 < count and z <= 0xFFFFFFFFFFFFFFFF - count else below_at(self.base, number, count)
        return pick if kind == "one" else pick == 0

    def pick_subset(self, low: int, high: int, count: int, number: int) -> list:
        """`choose`'s answer to a 'subset' decision of `count` options, from `low` to `high` of them, the game's
        decision numbered `number`: a uniform size, then a uniform set of that size. It reads nothing else of the
        decision, so a game playing itself asks it without making one (machine/generic.bounded)."""
        rng = self.rng = self.rng if self.fixed else rng_at(self.base, number)
        size = low + rng.below(high - low + 1)
        if (size == 0 or size == count) and not self.fixed:  # none or all: the same set whatever the shuffle, and
            return list(range(size))  # this choice's generator is dropped after it (one stream, `on`, goes on)
        pool = list(range(count))
        rng.shuffle(pool)
        return sorted(pool[:size])

    @classmethod
    def on(cls, rng: SplitMix) -> "RandomAgent":
        """A random chooser that draws every choice from `rng` as one stream (a rollout's policy, a sampler)."""
        agent = cls()
        agent.rng, agent.fixed = rng, True
        return agent


_MASK = (1 << 64) - 1
_STEP = 0xD1B54A32D192ED03  # a decision number's step in the bot's seeds
_GOLDEN = 0x9E3779B97F4A7C15  # SplitMix's increment
_new = object.__new__


def decision_rng(base: int, d: Decision) -> SplitMix:
    """The generator of one bot's choice at decision `d`: from the bot's own seed and the decision's number."""
    return rng_at(base, d.number)


def rng_at(base: int, number: int) -> SplitMix:
    """The generator of one bot's choice at the decision numbered `number` (decision_rng)."""
    # SplitMix(SplitMix(seed).next64()), written out: one generator made per choice instead of two
    z = (base + (number + 1) * 0xD1B54A32D192ED03 + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    rng = _new(SplitMix)  # SplitMix(z ^ (z >> 31)) without a call of its __init__ from C (a state below 2**64 as it is)
    rng.state = z ^ (z >> 31)
    return rng


def below_at(base: int, number: int, n: int) -> int:
    """decision_rng(base, d).below(n) for the decision numbered `number`, written out (the same number)."""
    if n <= 0:
        raise ValueError("below() needs n > 0")
    z = (base + (number + 1) * 0xD1B54A32D192ED03 + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return SplitMix(z ^ (z >> 31)).below(n)  # the rare path (the common one is written out in choose)


class FirstAgent:
    """The default if it is legal (a pass for an optional number without another default), else the first
    legal choice: predictable, for tests."""

    name = "first"

    def __init__(self, seat: int = 0, seed: int = 0):
        pass

    def choose(self, d: Decision, view: dict) -> Any:
        if d.default is not None and d.legal(d.default) is None:
            return d.default
        if d.kind == "number" and d.optional:
            return None  # an optional number whose default is the pass (or none at all): pass, as a person's time-out
        if d.kind == "yesno":
            return False
        if d.kind == "number":
            return d.min
        if d.kind == "one":
            return 0
        return list(range(d.min))


class ScriptedAgent:
    """Choices read from a file: a JSON list, or one JSON value per line (shared by all seats)."""

    name = "script"

    def __init__(self, choices: list, source: str = "script"):
        self.choices = list(choices)
        self.source = source
        self.used = 0

    @classmethod
    def from_file(cls, path: str) -> "ScriptedAgent":
        """Read as every file given to read back is: a regular file only (a FIFO waited for ever), at most 10 MB;
        JSON nested too deeply to read (a RecursionError, exit 3) or a number too long is refused in one line."""
        from ..files import InputError, read_regular

        try:
            text = read_regular(path, 10_000_000, "script of choices").decode("utf-8")
        except InputError as exc:
            raise AgentError(str(exc)) from None
        except UnicodeDecodeError:
            raise AgentError(f"cannot read the script {path}: it is not UTF-8 text") from None
        try:
            data = _json(text)
            choices = data if isinstance(data, list) else [data]
        except json.JSONDecodeError:
            choices = []
            for i, line in enumerate(text.splitlines(), 1):
                line = line.split("#", 1)[0].strip()
                if not line:
                    continue
                try:
                    choices.append(_json(line))
                except json.JSONDecodeError:
                    raise AgentError(f"{path}:{i}: not a JSON value: {line[:60]!r}") from None
                except ValueError as exc:
                    raise AgentError(f"{path}:{i}: {exc}") from None
        except ValueError as exc:
            raise AgentError(f"{path}: {exc}") from None
        return cls(choices, path)

    def choose(self, d: Decision, view: dict) -> Any:
        if self.used >= len(self.choices):
            raise AgentError(f"{self.source}: ran out of choices after {self.used} (asked: {d.prompt})")
        c = self.choices[self.used]
        self.used += 1
        return c


def _json(text: str):
    """json.loads, with what Python itself cannot read said as a ValueError of our own words."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("the JSON is nested too deeply to be a script of choices") from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # e.g. a number of more than 4,300 digits
        raise ValueError("a number in it is too long") from None
