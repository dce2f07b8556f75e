"""The writer's methods for each kind of step: actions, assignments, jumps, loops and their iterations."""

from __future__ import annotations

from typing import Any, Callable, Optional

from ...dsl import ast as A
from ...model import ruleset as M


class BlockSteps:
    """Writes the steps of a stretch; Writer (blockwriter.py) supplies emit, const, value, count and exit."""

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
        self.exit(first)  # a decision, a sealed bid, a stack (a call, without the programs): the loop runs it
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
            self.emit(f"_s = {self.const(st.fn)}(ctx)")
            self.emit("if _s is not None:")
            self.emit(f"    return _signal_exit(ctx, f, {self.const(ins)}, {pc}, {i}, _s, n)")
            if self.triggers:
                self.emit("if ctx._events:")
                self.emit(f"    if _fire(ctx, f, {pc}, {i + 1}, n):")
                self.emit("        return _AGAIN")
        return True

    def call(self, pc: int) -> bool:
        """A CALL step run here, as handlers.h_call runs it (a call too deep is left to it, which reports it), and
        its callee through blockcode._call; then the function leaves (AGAIN)."""
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
        # the loop goes on from the frames as the call left them: after a return, at this frame's next position
        # (whose own function runs the rest: written here too, the steps after each call would be compiled twice)
        self.emit("return _AGAIN")
        return False

    def assign(self, how: str, where: str, name: str, value: Callable, sign: int = 0, op: str = "",
               span: Any = None) -> None:
        """A statement that sets a local or a game variable (`let`, `set`, `+=`, `-=`), as the closure of
        statements._fast_assign does it: the old value read first, whole numbers added here, the rest (and every
        error) by assign._augmented."""
        d = "_L" if where == "locals" else "ctx.vars"
        key = self.const(name)
        if how == "set":
            v = self.value(value)
            self.emit(f"{d}[{key}] = {v}")
            return
        self.emit(f"_o = _L.get({key})" if where == "locals" else f"_o = ctx.vars[{key}]")
        self.emit(f"_i = {self.value(value)}")
        self.emit(f"_w = _o {'+' if sign > 0 else '-'} _i if type(_o) is int and type(_i) is int else None")
        self.emit("if _w is not None and -_MAXI <= _w <= _MAXI:")
        self.emit(f"    {d}[{key}] = _w")
        self.emit("else:")
        self.emit(f"    {d}[{key}] = _augmented(_o, _i, {self.const(sign)}, {self.const(op)}, ctx, {self.const(span)})")

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


def _blocks(s: M.Step) -> tuple:
    if isinstance(s, M.ConstructStep):  # an auction or response window: the plain steps it was expanded to
        return (s.run,)
    if isinstance(s, M.IfStep):
        return (s.then, s.other)
    if isinstance(s, (M.LoopStep, M.ForEachStep)):
        return (s.body,)
    return ()
