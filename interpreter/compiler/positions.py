"""Where each step of a sequence lies among its program's instructions: what a stretch written from a position is
inside of (the steps, blocks and loops around it), so the writer (steps.py) can start there."""

from __future__ import annotations

from typing import Any, Optional

from ..model import ruleset as M
from ..runtime.machine.program import Program
from .running import _Cannot


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
            own = dict(self.pcs(s))
            if isinstance(s, M.ConstructStep):
                inner = self._find(s, "run", s.run, pc)
            elif isinstance(s, M.IfStep):
                if own.get(pc) == "JUMP":  # the end of the 'then' block, before the jump over 'else'
                    return [here, (s, "then", s.then, len(s.then))]
                inner = self._find(s, "then", s.then, pc) or self._find(s, "else", s.other, pc)
            elif isinstance(s, (M.LoopStep, M.ForEachStep)):
                op = own.get(pc)
                if op == "FOREACH_NEXT":
                    return [here, (s, "head", s.body, 0)]
                if op in ("JUMP", "JUMP_IF_FALSE"):  # the back jump, or the test of an 'until' loop
                    return [here, (s, "body", s.body, len(s.body))]
                inner = self._find(s, "body", s.body, pc)
            else:
                raise _Cannot("inside a step that is not a block")
            if inner is None:
                raise _Cannot("a position between instructions")
            return [here] + inner
        return None


def _blocks(s: M.Step) -> tuple:
    if isinstance(s, M.ConstructStep):  # an auction or response window: the plain steps it was expanded to
        return (s.run,)
    if isinstance(s, M.IfStep):
        return (s.then, s.other)
    if isinstance(s, (M.LoopStep, M.ForEachStep)):
        return (s.body,)
    return ()
