"""Where each step of a sequence lies among its program's instructions: what a stretch written from a position is
inside of (the steps, blocks and loops around it), so the writer (steps.py) can start there. What a step holds, and
where it can be started inside, its kind says (`StepKind.stretch`: `blocks` and `at`)."""

from __future__ import annotations

from typing import Any, Optional

from ..model import ruleset as M
from ..model.kinds import Stretch, of_step
from ..runtime.machine.program import Program
from .running import _Cannot

# a construct (an auction, a response window): the plain steps it was expanded to, written as any steps are
EXPANSION = Stretch(write=lambda w, s: w.block(s.run), blocks=lambda s: (("run", s.run),))


def stretch_of(s: M.Step) -> Optional[Stretch]:
    """How the step is written into a stretch (its kind's `stretch`); None: it is a stop, the loop runs it."""
    kind = of_step(s)
    if kind is not None and kind.stretch is not None:
        return kind.stretch
    return EXPANSION if isinstance(s, M.ConstructStep) else None


def positions_of(prog: Program) -> "Positions":
    """The positions of a program's steps, worked out once per program (they depend on its instructions alone);
    raises _Cannot, every time, for a program no stretch can start in."""
    got = prog.__dict__.get("positions")
    if got is None:
        try:
            got = Positions(prog)
        except _Cannot:
            got = False
        prog.positions = got  # type: ignore[attr-defined]  # (a plain class: it takes the attribute)
    if got is False:
        raise _Cannot("a step without instructions")
    return got


class Positions:
    def __init__(self, prog: Program):
        self.prog = prog
        self.code = prog.code
        self.first: dict[int, list[tuple[int, str]]] = {}  # id(step) -> its own instructions, (pc, op)
        for pc, ins in enumerate(self.code):
            if ins.op != "RETURN" or pc != len(self.code) - 1:
                self.first.setdefault(id(ins.step), []).append((pc, ins.op))
        self.ranges: dict[int, tuple[int, int]] = {}  # id(step) -> its first and last position
        self._measure(prog.sequence.steps)

    def pcs(self, step: M.Step) -> list[tuple[int, str]]:
        return self.first.get(id(step), [])

    def _measure(self, steps) -> Optional[tuple[int, int]]:
        """Record the first and last position of each step (its own instructions and those of its blocks)."""
        lo = hi = None
        for s in steps:
            own = [pc for pc, _ in self.pcs(s)]
            for block in _blocks(s):
                r = self._measure(block)
                if r is not None:
                    own += list(r)
            if not own:
                raise _Cannot("a step without instructions")
            r = self.ranges[id(s)] = (min(own), max(own))
            lo = r[0] if lo is None else min(lo, r[0])
            hi = r[1] if hi is None else max(hi, r[1])
        return None if lo is None else (lo, hi)

    def path_to(self, pc: int) -> list[tuple[Any, str, tuple, int]]:
        """Where `pc` lies: (owner step, role, block, index) from the sequence's own steps inwards."""
        steps = self.prog.sequence.steps
        if pc == len(self.code) - 1:
            return [(None, "seq", steps, len(steps))]
        path = self._find(None, "seq", steps, pc)
        if path is None:
            raise _Cannot("no step starts here")
        return path

    def _find(self, owner, role: str, steps, pc: int):
        for i, s in enumerate(steps):
            lo, hi = self.ranges[id(s)]
            if pc == lo:
                return [(owner, role, steps, i)]
            if not lo < pc <= hi:
                continue
            here = (owner, role, steps, i)
            how = stretch_of(s)
            if how is None or not how.blocks(s):
                raise _Cannot("inside a step that is not a block")
            at = how.at(s, dict(self.pcs(s)).get(pc, ""))
            if at is not None:  # one of its own instructions inside it (the jump over an 'else', a loop's test)
                return [here, (s, *at)]
            inner = None
            for role_in, block in how.blocks(s):
                inner = self._find(s, role_in, block, pc)
                if inner:
                    break
            if inner is None:
                raise _Cannot("a position between instructions")
            return [here] + inner
        return None


def _blocks(s: M.Step) -> tuple:
    how = stretch_of(s)
    return () if how is None else tuple(block for _role, block in how.blocks(s))
