"""The writer of one generated function for a stretch of steps: its source, where each step lies, the function.

The steps themselves are written by BlockSteps (blocksteps.py); see blocks.py for when a function is made.
"""

from __future__ import annotations

import itertools
import re
from typing import Any, Callable, Optional

from ...dsl.codegen import safesource
from ...dsl.codegen.hotcode import generated_source
from ...model import ruleset as M
from . import handlers
from .program import Program
from .blockcode import _HELPERS, _STOPS, MADE_NAMES, SOURCE_NAMES, _Cannot
from .blocksteps import BlockSteps, _blocks

MIN_STEPS = 3  # a stretch of fewer steps (and no loop) is left to the loop, which runs it as fast
_MADE = itertools.count(1)
# An expression whose generated source is longer is called (it has a function of its own), not copied in: the
# call costs little beside what it does, and a copy is parsed and compiled again with every stretch it is in (dml,
# instructions per game after 5 warm-up games: copied whole 70.0 M; over 1,000 characters called 67.5 M, over
# 400 67.1 M, over 200 67.1 M, always called 67.1 M)
INLINE_MAX = 400
_NAMES = re.compile(r"\b_[kv][0-9]+\b")  # the constants and locals of a function codegen wrote


class Writer(BlockSteps):
    def __init__(self, prog: Program, coverage: bool, triggers: bool, dry: bool = False,
                 programs: Optional[dict] = None):
        self.dry = dry  # only find out what the function would hold (function() returns whether it loops or calls)
        self.prog = prog
        self.programs = programs  # the game's programs: its CALL steps are run here (none: they are stops)
        self.calls = 0  # CALL steps written
        self.code = prog.code
        self.coverage = coverage
        self.triggers = triggers  # the ruleset has triggers: check for events after each statement
        self.ns: dict[str, Any] = dict(_HELPERS)
        self.ns["_foreach_init"] = handlers.h_foreach_init
        self.consts: dict[int, str] = {}
        self.lines: list[str] = []
        self.depth = 1
        self.loops: list[tuple[int, int, Optional[str], str]] = []  # open loops: (end pc, continue pc, key, mode)
        self.flags = 0
        self.exprs = 0
        self.counted = 0  # steps written (each counted where it runs)
        self.looped = False  # a loop was written
        self.first: dict[int, list[tuple[int, str]]] = {}  # id(step) -> its own instructions, (pc, op)
        for pc, ins in enumerate(self.code):
            if ins.op != "RETURN" or pc != len(self.code) - 1:
                self.first.setdefault(id(ins.step), []).append((pc, ins.op))
        self.ranges: dict[int, tuple[int, int]] = {}
        self._measure(prog.sequence.steps)

    # -------------------------------------------------------- source
    def const(self, value: Any) -> str:
        name = self.consts.get(id(value))
        if name is None or self.ns[name] is not value:
            name = f"_k{len(self.ns)}"
            self.ns[name] = value
            self.consts[id(value)] = name
        return name

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def value(self, fn: Callable) -> str:
        """Write the code of an expression here; the result is a name holding its value, or a call of it.

        An expression codegen writes (dsl/codegen/) is copied in, its constants and locals renamed to names of
        this function: no call, and it reads the locals from `_L`, which is the frame's (ctx.locals). Its
        source holds no ruleset text, so neither does this one."""
        got = None if self.dry else generated_source(fn)
        if got is None:
            return f"{self.const(fn)}(ctx)"
        src, ns = got
        if len(src) > INLINE_MAX:
            return f"{self.const(fn)}(ctx)"
        lines = src.split("\n")
        if not lines[0].startswith("def ") or not lines[-1] == "" or not lines[-2].startswith("    return "):
            return f"{self.const(fn)}(ctx)"  # not the shape codegen.function writes
        self.exprs += 1
        mine = f"_x{self.exprs}_"

        def rename(m: re.Match) -> str:
            name = m.group(0)
            return self.const(ns[name]) if name[1] == "k" else mine + name[2:]

        pad = "    " * (self.depth - 1)
        for line in lines[1:-2]:
            if line.strip() == "_L = ctx.locals":
                continue  # the function's _L is the frame's locals, which ctx.locals is while it runs
            self.lines.append(pad + _NAMES.sub(rename, line))
        return _NAMES.sub(rename, lines[-2][len("    return "):])

    def indent(self) -> None:
        self.depth += 1

    def dedent(self, mark: int) -> None:
        if len(self.lines) == mark:
            self.emit("pass")
        self.depth -= 1

    # -------------------------------------------------------- where each step lies
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

    # -------------------------------------------------------- the function
    def function(self, pc: int) -> Callable:
        op = self.code[pc].op
        if op in _STOPS and (op != "CALL" or self.programs is None):
            raise _Cannot("a stop")
        path = self.path_to(pc)
        # No path from one loop top to the next (or to a stop) runs an instruction twice, so a function that
        # stays this far from the step budget at each loop top cannot pass it; nearer, the loop takes over
        # and stops the game at the very step it would stop it at anyway.
        self.emit("n = ctx.steps")
        self.emit(f"lim = ctx.max_steps - {len(self.code) + 1}")
        self.emit("if n > lim:")
        self.emit("    return _False")
        self.emit("_L = f.locals")
        if self.coverage:
            self.emit("_C = ctx.coverage")
        self.emit("pc = " + str(pc))
        self.emit("try:")
        self.indent()
        mark = len(self.lines)
        self.continuation(path, 0)
        self.ret()  # the end of the sequence
        if self.counted < MIN_STEPS and not self.looped and not self.calls:
            raise _Cannot("too few steps to gain anything: the call would cost more than the loop")
        if self.dry:
            return self.looped or op == "CALL" or (pc == 0 and self.programs is not None)  # made early (blocks.entry)
        self.dedent(mark)
        self.emit("except _BaseException:")
        self.emit("    f.pc = pc")
        if self.calls:  # raised inside a callee, whose function wrote the steps it counted (never fewer than n)
            self.emit("    if ctx.steps < n:")
            self.emit("        ctx.steps = n")
        else:
            self.emit("    ctx.steps = n")
        self.emit("    raise")
        src = "\n".join(["def _entry(ctx, f):", *self.lines, ""])
        # checked (raises: the loop runs it on anything else) and compiled, or made before; a name of its own, for
        # profilers
        code = safesource.compiled(src, SOURCE_NAMES, MADE_NAMES, f"<rulecraft steps {next(_MADE)}>", numbers=True)
        ns = self.ns
        exec(code, ns)
        fn = ns.pop("_entry")
        fn.source = src
        return fn

    def continuation(self, path, k: int) -> None:
        owner, role, steps, i = path[k]
        if k == len(path) - 1:
            self.block(steps[i:])
            return
        s = steps[i]
        inner = path[k + 1]
        if isinstance(s, M.ConstructStep):
            self.continuation(path, k + 1)
        elif isinstance(s, M.IfStep):
            self.continuation(path, k + 1)
            if inner[1] == "then" and s.other:
                self.count(self.pcs(s)[1][0], pure=True)  # the jump over the 'else' block
        elif inner[1] == "head":  # a for_each loop at its next item: the loop as usual, without its start
            self.loop(s, None)
        else:
            self.loop(s, lambda: self.continuation(path, k + 1))
        self.block(steps[i + 1:])

    def block(self, steps) -> bool:
        """Write steps one after the other; False when the function always leaves before their end."""
        for s in steps:
            if not self.step(s):
                return False  # what follows cannot run: the function has left
        return True

    def count(self, pc: int, pure: bool = False) -> None:
        """One step run (as the loop counts it: g.steps, and the coverage of its node). The count is kept in
        `n`, and written to ctx.steps unless the step is `pure` (a jump): the work guard (guards.charge) of
        whatever the step evaluates reads ctx.steps, and must see the count the loop would have."""
        self.counted += 1
        self.emit("n += 1" if pure else "ctx.steps = n = n + 1")
        if self.coverage:  # what the instruction loop counts for it (program.py, _VISITS)
            ins = self.code[pc]
            if ins.cov is not None:
                self.emit(f"_C[{self.const(ins.cov)}] += {ins.w}")
            for node in ins.also:
                self.emit(f"_C[{self.const(node)}] += 1")

    def ret(self) -> None:
        """The sequence's RETURN, run here as the loop runs it (blockcode._ret); the loop runs it when the budget
        is near."""
        last = len(self.code) - 1
        ins = self.code[last]
        if ins.cov is not None or ins.also:  # pragma: no cover - a RETURN counts nothing (program.py, _VISITS)
            self.exit(last)
            return
        self.counted += 1  # a step too
        self.emit(f"return _ret(ctx, f, n, {last})")

    def exit(self, pc: int) -> None:
        self.emit("ctx.steps = n")
        self.emit(f"f.pc = {pc}")
        self.emit("return _True")
