"""A small seeded random generator (SplitMix64) whose whole state is one integer.

Python's `random` keeps 625 words of state and its algorithms may change between
versions; a game state must copy cheaply, serialise to JSON and replay identically.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

from ..diagnostics import RuleError, Span
from ..dsl.builtins import describe
from ..dsl.guards import charge
from ..dsl.ops import SUSPEND
from ..dsl.tabletop import PICK_STEPS
from ..model.gates import ByResult, may_fire
from ..values import Player, Roll
from .decisions import Decision

if TYPE_CHECKING:
    from .machine.program import Frame

_MASK = (1 << 64) - 1


# The seeds a game may be given, on the command line as in a log or a save: what a 64-bit generator holds (a
# negative seed from -2**63 counts as its two's complement). A seed outside was played but its log never replayed.
SEED_MIN, SEED_END = -(2**63), 2**64


class SplitMix:
    __slots__ = ("state",)

    def __init__(self, seed: int = 0):
        self.state = seed & _MASK

    def next64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform whole number from 0 to n - 1 (rejection sampling: no modulo bias)."""
        if n <= 0:
            raise ValueError("below() needs n > 0")
        while True:
            # next64, written out: this is the generator's busiest path (every shuffle, die and bot choice)
            z = self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
            x = z ^ (z >> 31)
            # the rejection limit is _MASK - (_MASK + 1) % n, never below _MASK - n + 1: a draw up to _MASK - n
            # is kept without working it out (almost every draw)
            if x <= _MASK - n or x <= _MASK - (_MASK + 1) % n:
                return x % n

    def shuffle(self, items: list) -> None:
        """Fisher-Yates, each swap drawn as below(i + 1) draws it (written out: no call per card)."""
        state = self.state
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            while True:
                z = state = (state + 0x9E3779B97F4A7C15) & _MASK
                z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
                x = z ^ (z >> 31)
                if x <= _MASK - n or x <= _MASK - (_MASK + 1) % n:  # (as below)
                    break
            j = x % n
            items[i], items[j] = items[j], items[i]
        self.state = state


def fixed_faces(item, name: str, count: int, sides: int):
    """The faces a scenario fixes for the next roll (`dice:`), checked against the dice rolled.

    `item` is a whole number (one die), a list of faces, or {dice: NAME, faces: [...]}.
    Returns the faces as a tuple, or a text saying why they do not fit this roll."""
    want = item.get("dice") if isinstance(item, dict) else None
    faces = item.get("faces") if isinstance(item, dict) else item
    faces = [faces] if isinstance(faces, int) and not isinstance(faces, bool) else faces
    if want is not None and str(want) != name:
        return f"the scenario fixes a roll of '{want}' next, but the game rolls '{name}'"
    if not isinstance(faces, list) or len(faces) != count or \
            not all(isinstance(f, int) and not isinstance(f, bool) and 1 <= f <= sides for f in faces):
        return (f"the scenario fixes the next roll ({name}, {count}d{sides}) as {faces!r}: "
                f"give {count} face{'s' if count != 1 else ''} from 1 to {sides}")
    return tuple(faces)


_MISSING = object()
_new_roll = object.__new__  # (the usual roll makes its Roll without a call of Roll.__init__)
ANSWER = "__answer"  # the local a suspended step finds its answer in (handlers.reroll_on leaves it there)


class Dice:
    """Rolling dice, a part of the board (board.Board is a Dice): the faces from the generator, or a scenario's fixed
    ones, the named result, an optional re-roll asked of the roller, the story's line and the 'rolled' event."""

    __slots__ = ()  # the game's state lives in Game's slots (game.py)

    rng: SplitMix
    fixed_dice: Optional[list]
    frames: list[Frame]
    locals: dict
    chance: list
    pending: Optional[Decision]
    decisions: int
    story: bool
    triggers: dict
    compiled: bool
    _events: list
    say: Callable[..., None]
    gates: dict
    rolled: ByResult  # the gates of 'rolled' by named result, the dice whose named results all need doubles
    work: int  # (the work charged, and the steps' budget: guards.charge)
    steps: int
    max_steps: int

    def roll(self, spec: Any, roller: Any, against: Any, span: Span) -> Any:
        frame = self.frames[-1]
        held = frame.locals
        if ANSWER in held or "__roll" in held:  # an answer to a re-roll question, or a roll waiting for one
            answer = held.pop(ANSWER, _MISSING)
            partial = held.get("__roll")
        elif spec.__class__ is tuple and spec[1] == 1 and against is None and not self.fixed_dice and not self.story:
            # the usual roll of a simulation: one die written as NdS (no named results, no re-roll), nothing to win,
            # no story; its draw (SplitMix.below) and its Roll (Roll.__init__ of one face) written out, the same
            # result, the same event: no Python call (pig rolls 58 times a game)
            sides = spec[2]
            rng = self.rng
            while True:
                z = rng.state = (rng.state + 0x9E3779B97F4A7C15) & _MASK
                z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
                x = z ^ (z >> 31)
                if x <= _MASK - sides or x <= _MASK - (_MASK + 1) % sides:  # (as below)
                    break
            face = 1 + x % sides
            name = spec[0]
            self.chance.append(["roll", name, [face]])
            r = _new_roll(Roll)
            r.by, r.dice, r.faces, r.total, r.result, r.success, r.doubles, r.target = \
                None, name, (face,), face, None, None, False, None
            gate = self.rolled[None]  # (as below)
            if gate is None or gate:
                fields = {"roll": r, "player": roller}
                if gate is None or may_fire(gate, fields):
                    self._events.append(("rolled", fields))
            return r
        else:  # (the usual roll: two look-ups, not a pop and a get and another pop)
            answer, partial = _MISSING, None
        if spec.__class__ is tuple:
            (name, count, sides), results, seen = spec, (), "open"
        else:
            name, count, sides, results, seen = spec.id, spec.count, spec.sides, spec.results, spec.visibility
        if partial is None or answer is True:
            if self.fixed_dice:  # a scenario's fixed results (`dice:`), in order, before the generator's
                faces = fixed_faces(self.fixed_dice.pop(0), name, count, sides)
                if isinstance(faces, str):
                    raise RuleError(faces, span)
                self.chance.append(["roll", name, list(faces)])
            elif count == 1:
                face = 1 + self.rng.below(sides)
                faces = (face,)
                self.chance.append(["roll", name, [face]])
            else:  # the log keeps every face until the next decision: a die costs what a pick does (session 19)
                # guards.charge's count, without its call (work is a slot of Game's, as the state this class reads)
                self.work = work = self.work + count * PICK_STEPS  # type: ignore[misc]
                if self.steps + work > self.max_steps:
                    charge(self, 0, span)  # (its error)
                rng, shown = self.rng, []
                state = rng.state
                for _ in range(count):  # (below(sides) for each die, written out as in shuffle: no call a die)
                    while sides > 0:
                        z = state = (state + 0x9E3779B97F4A7C15) & _MASK
                        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
                        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
                        x = z ^ (z >> 31)
                        if x <= _MASK - sides or x <= _MASK - (_MASK + 1) % sides:  # (as below)
                            break
                    else:
                        rng.below(sides)  # (its error)
                    shown.append(1 + x % sides)
                rng.state = state
                faces = tuple(shown)
                self.chance.append(["roll", name, shown])
        else:
            faces = tuple(partial)
        named = None
        total = sum(faces)
        doubles = len(faces) > 1 and len(set(faces)) == 1
        if results and (doubles or name not in self.rolled.doubles_only):  # (no doubles: none of them can be named)
            saved = self.locals
            self.locals = {"faces": list(faces), "total": total, "doubles": doubles}
            compiled = self.compiled
            try:
                for r in results:  # the first whose condition holds (in a compiled game by its written function, as
                    when = r.when  # handlers.fire calls a trigger's condition)
                    if when is not None and (getattr(when.fn, "hot", when.fn) if compiled else when.fn)(self):
                        named = r
                        break
            finally:
                self.locals = saved
        if named is not None and named.reroll == "optional" and answer is not False and isinstance(roller, Player):
            frame.locals["__roll"] = list(faces)
            shown = "+".join(map(str, faces))
            self._told(seen, roller, f"{roller} rolls {name}", f": {shown}={sum(faces)} {_exclaim(named.shown())}")
            self.pending = asked = Decision(roller.seat, "yesno", f"rolled {shown} ({named.shown()}): roll again?",
                                            [True, False], default=False, node=str(span), purpose="reroll",
                                            number=self.decisions)
            asked.target = against
            return SUSPEND
        if partial is not None:
            del held["__roll"]
        outcome = None if named is None else named.outcome
        success: Optional[bool] = None
        if outcome is None and against is None:
            pass  # (the usual roll: nothing to win or lose)
        elif outcome == "success":
            success = True
        elif outcome == "failure":
            success = False
        elif against is not None:
            if against.__class__ is not int and (isinstance(against, bool) or not isinstance(against, (int, float))):
                raise RuleError(f"a roll is made against a number, got {describe(against)}", span)
            success = total >= against
        r = _new_roll(Roll)  # (Roll.__init__ written out, as above: no call of Python code from C)
        r.by = roller.seat if seen != "open" and isinstance(roller, Player) else None
        r.dice, r.faces, r.total, r.result, r.success, r.target, r.doubles = \
            name, faces, total, named.name if named else None, success, against, doubles
        if self.story:  # the line is worked out only when someone reads the story
            who = f"{roller} rolls" if isinstance(roller, Player) else "Roll"
            vs = "" if success is None else f"{f' against {against}' if against is not None else ''}: {'success' if success else 'failure'}"
            told = f"{'+'.join(map(str, faces))}={sum(faces)}" + (f" {_exclaim(named.shown())}" if named is not None else "")
            self._told(seen, roller, f"{who} {name}", f": {told}{vs}")
        gate = self.rolled[r.result]  # (as _emit, by the named result: model/gates.ByResult)
        if gate is None or gate:
            fields = {"roll": r, "player": roller}
            if gate is None or may_fire(gate, fields):
                self._events.append(("rolled", fields))
        return r

    def _told(self, seen: str, roller: Any, rolled: str, faces: str) -> None:
        """The story's line of a roll: its faces to everyone, or (dice declared `visibility: roller` or `hidden`) to
        the roller alone or to nobody, the others reading that the dice were rolled ('P1 rolls cup in secret')."""
        if seen == "open":
            self.say(rolled + faces)
        else:
            only = (roller.seat,) if seen == "roller" and isinstance(roller, Player) else ()
            self.say(rolled + faces, only=only, public=rolled + " in secret")


def _exclaim(title: str) -> str:
    """A named dice result as the story tells it: 'Doubles!', 'Snake Eyes!' (not 'Snake Eyes!!')."""
    return title if title.endswith("!") else title + "!"
