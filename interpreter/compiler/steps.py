"""The writer of the function of a stretch of steps: its source, each kind of step (actions, assignments, calls,
jumps, loops) and the function. Where each step lies: positions.py; when a function is made: stretches.py."""

from __future__ import annotations

import itertools
from typing import Any, Callable, Optional

from ..dsl import ast as A
from ..model import ruleset as M
from ..runtime.machine.program import Program
from . import safesource
from .expressions import copied, written
from .positions import Positions
from .statements import assignment
from .running import _HELPERS, _STOPS, MADE_NAMES, SOURCE_NAMES, _Cannot

MIN_STEPS = 3  # a stretch of fewer steps (and no loop) is left to the loop, which runs it as fast
_MADE = itertools.count(1)
# An expression whose source is longer is called, not copied in: a copy is compiled again with every stretch it is in
# (dml, instructions per game: copied whole 70.0 M; over 1,000 characters called 67.5 M, over 400 or 200 67.1 M)
INLINE_MAX = 400


class StepWriter:
    def __init__(self, prog: Program, coverage: bool, triggers: bool, dry: bool = False,
                 programs: Optional[dict] = None):
        self.dry = dry  # only find out what the function would hold (function() returns whether it loops or calls)
        self.prog = prog
        self.programs = programs  # the game's programs: its CALL steps are run here (none: they are stops)
        self.calls = 0  # CALL steps written
        self.asked = 0  # decision and sealed steps written
        self.code = prog.code
        self.coverage = coverage
        self.triggers = triggers  # the ruleset has triggers: check for events after each statement
        self.ns: dict[str, Any] = dict(_HELPERS)
        self.consts: dict[int, str] = {}
        self.lines: list[str] = []
        self.depth = 1
        self.loops: list[tuple[int, int, Optional[str], str]] = []  # open loops: (end pc, continue pc, key, mode)
        self.flags = 0
        self.exprs = 0
        self.counted = 0  # steps written (each counted where it runs)
        self.looped = False  # a loop was written
        self.where = Positions(prog)
        self.pcs, self.ranges = self.where.pcs, self.where.ranges

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
        """Write the code of an expression here (expressions.copied: its source copied in, its names renamed to this
        function's); the result is a name holding its value, or a call of its function or its closure."""
        got = None if self.dry else written(fn)
        if got is None:
            return f"{self.const(fn)}(ctx)"
        if len(got[0]) > INLINE_MAX:
            return f"{self.const(got[2])}(ctx)"
        self.exprs += 1
        copy = copied(got, self.const, f"_x{self.exprs}_", "    " * (self.depth - 1))
        if copy is None:
            return f"{self.const(got[2])}(ctx)"
        self.lines += copy[0]
        return copy[1]

    def indent(self) -> None:
        self.depth += 1

    def dedent(self, mark: int) -> None:
        if len(self.lines) == mark:
            self.emit("pass")
        self.depth -= 1

    # -------------------------------------------------------- the function
    def function(self, pc: int) -> Callable:
        op = self.code[pc].op
        if op in _STOPS and (op != "CALL" or self.programs is None):
            raise _Cannot("a stop")
        path = self.where.path_to(pc)
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
            return self.looped or op == "CALL" or (pc == 0 and self.programs is not None)  # made early (stretches.entry)
        self.dedent(mark)
        self.emit("except _BaseException:")
        self.emit("    f.pc = pc")
        if self.calls or self.asked:  # raised in a callee or an answer, which wrote the steps it counted (never fewer)
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
        return all(self.step(s) for s in steps)  # (stops at the first that leaves: what follows cannot run)

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
        """The sequence's RETURN, run here as the loop runs it (running._ret), or by the loop near the budget."""
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

    # -------------------------------------------------------- steps; False when the step always leaves
    def step(self, s: M.Step) -> bool:
        if isinstance(s, M.ConstructStep):
            return self.block(s.run)
        own = self.pcs(s)
        first = own[0][0]
        if isinstance(s, M.ActionStep):
            return self.action(s, first)
        if isinstance(s, M.IfStep):
            self.emit(f"pc = {first}")
            self.count(first)
            self.emit(f"if {self.value(s.cond.fn)}:")
            self.indent()
            mark = len(self.lines)
            then_goes_on = self.block(s.then)
            if s.other and then_goes_on:
                self.count(own[1][0], pure=True)
            self.dedent(mark)
            if s.other:
                self.emit("else:")
                self.indent()
                mark = len(self.lines)
                self.block(s.other)
                self.dedent(mark)
            return True
        if isinstance(s, (M.LoopStep, M.ForEachStep)):
            self.loop(s, None, start=True)
            return True
        if isinstance(s, M.CallStep) and self.programs is not None:
            return self.call(first)
        if isinstance(s, (M.ChooseStep, M.SealedStep)):
            return self.asks(first)
        self.exit(first)  # a stack (a call, without the programs): the loop runs it
        return False

    def action(self, s: M.ActionStep, pc: int) -> bool:
        ins = self.code[pc]
        self.emit(f"pc = {pc}")
        self.count(pc)
        for i, st in enumerate(s.stmts):
            if isinstance(st.ast, (A.Break, A.Continue)) and self.jump(ins, st.ast):
                return False
            shape = getattr(st.fn, "inline", None)
            if shape is not None:
                self.assign(*shape)  # returns nothing and raises no event: no checks after it
                continue
            signal = self.value(st.fn)  # a statement the compiler writes (compiler/statements.py) or its closure
            if signal != "None":
                self.emit(f"_s = {signal}")
                self.emit("if _s is not None:")
                self.emit(f"    return _signal_exit(ctx, f, {self.const(ins)}, {pc}, {i}, _s, n)")
            if self.triggers:
                self.emit("if ctx._events:")
                self.emit(f"    if _fire(ctx, f, {pc}, {i + 1}, n):")
                self.emit("        return _AGAIN")
        return True

    def call(self, pc: int) -> bool:
        """A CALL step run here, as handlers.h_call runs it (a call too deep is left to it, which reports it), and
        its callee through running._call; then the function leaves (AGAIN)."""
        ins = self.code[pc]
        seq, args = ins.arg
        callee = self.programs[seq]
        self.calls += 1
        self.emit("if len(ctx.frames) >= ctx.max_depth:")  # too deep: the loop's CALL reports it at this step
        self.depth += 1
        self.exit(pc)
        self.depth -= 1
        self.emit(f"pc = {pc}")
        self.count(pc)
        if not args:
            self.emit("_a = {}")
        for i, (k, e) in enumerate(args):  # the arguments one after the other, as h_call works them out
            self.emit(f"_a = {{{self.const(k)}: {self.value(e.fn)}}}" if i == 0 else
                      f"_a[{self.const(k)}] = {self.value(e.fn)}")
        if ins.extra is not None:  # call: SEQ with as: NAME
            self.emit(f"_bind_result(ctx, _a, {self.const(ins.extra)})")
        entries = callee.entries_cov if self.coverage else callee.entries
        self.emit(f"pc = {pc + 1}")
        self.emit(f"_call(ctx, f, pc, {self.const(seq)}, {self.const(callee.sequence.kind)}, _a, "
                  f"{self.const(entries)})")
        self.emit("return _AGAIN")  # the loop goes on from the frames as the call left them (after a return, at
        # this frame's next position, whose own function runs the rest: else it would be compiled twice)
        return False

    def asks(self, pc: int) -> bool:
        """A decision or sealed step, run as the loop runs it (running._asks): answered at once (forced, or by bots in
        Game.play), the function goes on (`n` read back: the answers count; near the budget the loop goes on)."""
        self.asked += 1
        self.emit(f"pc = {pc}")
        self.count(pc)
        for line in (f"if _asks(ctx, f, {self.const(self.code[pc])}, {pc}):", "    return _AGAIN", "n = ctx.steps",
                     "if n > lim:", "    return _True"):
            self.emit(line)
        return True

    def assign(self, how: str, where: str, name: str, value: Callable, sign: int = 0, op: str = "",
               span: Any = None) -> None:
        """A statement that sets a local or a game variable (`let`, `set`, `+=`, `-=`): statements.assignment."""
        for line in assignment(how, "_L" if where == "locals" else "ctx.vars", self.const(name), self.value(value),
                               sign, (self.const(sign), self.const(op), self.const(span))):
            self.emit(line)

    def jump(self, ins, node) -> bool:
        """Write a break or continue that leaves the innermost Python loop; False when it is not that one."""
        target = ins.loops.get(node.loop)
        if target is None or not self.loops:
            return False
        end_pc, cont_pc, key, inner = target
        top = self.loops[-1]
        if inner or top[0] != end_pc:
            return False
        if isinstance(node, A.Break):
            if key:
                self.emit(f"_L.pop({self.const(key)}, None)")
            self.emit("break")
            return True
        if top[3] == "until":  # 'continue' goes to the test, which a Python continue would skip
            return False
        if top[3] in ("while", "forever"):  # by the jump back, as the loop's code does (its count, its coverage)
            self.count(top[0] - 1, pure=True)
        self.emit("continue")
        return True

    def loop(self, s, first_pass: Optional[Callable[[], None]], start: bool = False) -> None:
        """A loop step as a Python `while`. `first_pass` writes the rest of an iteration already under way
        (the function starts inside the body); `start` also writes what runs once before the loop."""
        own = self.pcs(s)
        pcs = dict((op, pc) for pc, op in own)
        if isinstance(s, M.ForEachStep):
            init, head, back, mode = pcs["FOREACH_INIT"], pcs["FOREACH_NEXT"], pcs["JUMP"], "each"
            key = self.code[init].extra
            if start:
                self.emit(f"pc = {init}")
                self.count(init)
                self.emit(f"_foreach_init(ctx, f, {self.const(self.code[init])})")
            end_pc = self.code[head].target
        else:
            mode = s.mode
            key = None
            if mode == "until":
                test = pcs["JUMP_IF_FALSE"]
                head = self.ranges[id(s)][0]  # the first step of the body (or the test, if there is none)
                end_pc = test + 1
            else:
                head = own[0][0]
                back = pcs["JUMP"]
                end_pc = back + 1
        cont_pc = test if mode == "until" else head
        self.loops.append((end_pc, cont_pc, key, mode))
        self.looped = True
        flag = None
        if first_pass is not None:
            self.flags += 1
            flag = f"_r{self.flags}"
            self.emit(f"{flag} = _True")
        self.emit("while _True:")
        self.indent()
        mark = len(self.lines)
        if flag is not None:
            self.emit(f"if {flag}:")
            self.indent()
            self.emit(f"{flag} = _False")
            m2 = len(self.lines)
            first_pass()
            self.dedent(m2)
            self.emit("else:")
            self.indent()
            m3 = len(self.lines)
        goes_on = self.iteration(s, mode, head, key)
        if flag is not None:
            self.dedent(m3)
        if goes_on or flag is not None:
            self.tail(s, mode, test if mode == "until" else back)
        self.dedent(mark)
        self.loops.pop()

    def iteration(self, s, mode: str, head: int, key: Optional[str]) -> bool:
        """The top of an iteration (the budget check, the loop's own test) and the whole body."""
        self.emit("if n > lim:")
        self.depth += 1
        self.exit(head)  # near the step budget: the loop takes over at the top of this iteration
        self.depth -= 1
        if mode == "each":
            self.emit(f"pc = {head}")
            self.count(head, pure=True)
            self.emit(f"_it = _L[{self.const(key)}]")
            self.emit("if _it[1] >= len(_it[0]):")
            self.emit(f"    del _L[{self.const(key)}]")
            self.emit("    break")
            self.emit(f"_L[{self.const(s.var)}] = _it[0][_it[1]]")
            self.emit("_it[1] += 1")
        elif mode == "forever":
            self.count(head, pure=True)
        elif mode == "while":
            self.emit(f"pc = {head}")
            self.count(head)
            self.emit(f"if not {self.value(s.cond.fn)}:")
            self.emit("    break")
        return self.block(s.body)

    def tail(self, s, mode: str, pc: int) -> None:
        """The end of an iteration: the jump back, or the test of an 'until' loop."""
        if mode == "until":
            self.emit(f"pc = {pc}")
            self.count(pc)
            self.emit(f"if {self.value(s.cond.fn)}:")
            self.emit("    break")
            if self.coverage:  # it repeats: a pass, not a new visit of the loop (handlers.h_until_test)
                self.emit(f"_C[{self.const(s.path)}] -= 1")
        else:
            self.count(pc, pure=True)
