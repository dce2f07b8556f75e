"""The writer of the function of a stretch of steps: its source, what the kinds of step share (counting a step,
leaving the function, assignments, a break or continue, the open loops) and the function. Each step is written by
its kind (`StepKind.stretch`; the core kinds' in loader/kinds/: `do`, `if`, the loops, `call`, `choose` and
`sealed`). Where each step lies: positions.py; when a function is made: stretches.py."""

from __future__ import annotations

import itertools
from typing import Any, Callable, Optional

from ..dsl import ast as A
from ..model import ruleset as M
from ..runtime.machine.program import Program
from . import safesource
from .expressions import copied, written
from .positions import place, positions_of, stretch_of
from .statements import assignment
from .running import _HELPERS, _STOPS, MADE_NAMES, SOURCE_NAMES, _Cannot

MIN_STEPS = 3  # a stretch of fewer steps (and no loop) is left to the loop, which runs it as fast
_MADE = itertools.count(1)
# An expression whose source is longer is called, not copied in: a copy is compiled again with every stretch it is in
# (dml, instructions per game: copied whole 70.0 M; over 1,000 characters called 67.5 M, over 400 or 200 67.1 M;
# session 18, 5 games after 5: 34.89 M at 400, 34.76 M at 1,000, 35.31 M at 2,500. An auction's reckoning, a let
# each of a few hundred characters, is called at 400 and copied in at 1,000: 29 calls fewer a sealed-auction game;
# session 19: its top bid, 1,021 characters, copied in at 1,100: 6 calls fewer, the longest bundled game 33.08-33.13 M -> 33.11 M)
INLINE_MAX = 1_100
# Inside a loop of the stretch the same copy runs at every pass, and a call costs more than its compiling once:
# an expression there is copied in up to this size (Dune's bidding: three conditions a bidder's turn, called before)
LOOP_INLINE_MAX = 1_200


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
        self.gone = False  # the function has left for good (a kind's `resume` ended it): nothing after is written
        self.where = positions_of(prog)
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
        fixed = getattr(fn, "constant", None)  # a value written in the rules (closures/whole.py): named, not called
        if fixed is not None:
            return self.const(fixed[0])
        local = getattr(fn, "local", None)  # a local's value (closures/compiler.py): read here, as its closure reads it
        if local is not None:
            self.exprs += 1
            out = f"_x{self.exprs}_1"
            self.emit("try:")
            self.emit(f"    {out} = _L[{self.const(local[0])}]")
            self.emit("except KeyError:")
            self.emit(f"    raise _unset({self.const(local[0])}, {self.const(local[1])}) from None")
            return out
        got = None if self.dry else written(fn)
        if got is None:
            return f"{self.const(fn)}(ctx)"
        if len(got[0]) > (LOOP_INLINE_MAX if self.loops else INLINE_MAX):
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
            self.emit("_C = ctx.counts")
            self.emit("_R = ctx.reached")
        self.emit("try:")
        self.indent()
        mark = len(self.lines)
        self.emit(f"pc = {pc}")
        self.continuation(path, 0)
        if not self.gone:
            self.ret()  # the end of the sequence
        if self.counted < MIN_STEPS and not self.looped and not self.calls:
            raise _Cannot("too few steps to gain anything: the call would cost more than the loop")
        if self.dry:
            return self.looped or op == "CALL" or (pc == 0 and self.programs is not None)  # made early (stretches.entry)
        self.dedent(mark)
        # the steps counted and where each starts, written only where something reads them (positions.place); an error
        # finds both in the table of lines (running._raised: raised in a callee or an answer, which wrote the steps
        # it counted, never fewer than these)
        body, where = place(self.lines[mark:], self.ns, pc)
        for i in safesource.joined_tries(body):  # (an error in the statement joined to its `try:` finds its step)
            where[i] = where[i + 1]
        table = [(pc, 0)] * (mark + 2) + where  # (by line number: the def is line 1, self.lines[0] line 2)
        keep = "_True" if self.calls or self.asked else "_False"
        self.lines[mark:] = body
        self.emit("except _BaseException:")
        self.emit(f"    _raised(ctx, f, n, {self.const(tuple(table))}, {keep})")
        self.emit("    raise")
        src = "\n".join(["def _entry(ctx, f):", *self.lines, ""])
        # checked (raises: the loop runs it on anything else) and compiled, or made before; a name of its own, for
        # profilers
        code = safesource.compiled(src, SOURCE_NAMES, MADE_NAMES, f"<rulecraft steps {next(_MADE)}>", numbers=True)
        ns = self.ns
        exec(code, ns)
        fn = ns.pop("_entry")
        fn.source = src
        fn.where = table
        return fn

    def continuation(self, path, k: int) -> bool:
        """The stretch from where `path[k]` says (the steps around it, from the outermost in) to the sequence's end:
        the rest of each step it starts inside, written by its kind (`Stretch.resume`), then the steps after it;
        whether play goes on after them (False: the function always leaves in them, or a `resume` ended it)."""
        owner, role, steps, i = path[k]
        if k == len(path) - 1:
            return self.block(steps[i:])
        s = steps[i]
        how = stretch_of(s)
        assert how is not None  # (positions.py finds a path only into steps with blocks)
        how.resume(self, s, path, k)
        if self.gone:
            return False
        return self.block(steps[i + 1:])

    def block(self, steps) -> bool:
        """Write steps one after the other; False when the function always leaves before their end."""
        return all(self.step(s) for s in steps)  # (stops at the first that leaves: what follows cannot run)

    def count(self, pc: int, pure: bool = False) -> None:
        """One step run (as the loop counts it: g.steps, and the coverage of its node). The count is kept in
        `n`, added up along straight paths and written to ctx.steps where something reads it (positions.place): the work
        guard (guards.charge) of whatever the step evaluates reads ctx.steps, and sees the count the loop would
        have. (`pure`, a jump's, is counted the same way.)"""
        self.counted += 1
        self.emit("n += 1")
        if self.coverage:  # what the instruction loop counts for it (program.py, _VISITS)
            ins = self.code[pc]
            if ins.ci >= 0:
                self.covered(ins.ci, ins.w)
            for i in ins.alsoi:
                self.covered(i, 1)

    def covered(self, i: int, w: int) -> None:
        """Count `w` for node number `i` in a game that counts its coverage, as program.count does: by number, a node
        whose count is 0 noted as reached (program.covered)."""
        if i >= 0:
            self.emit(f"_cv = _C[{i}]")  # (read once: 12 bytecodes, 14 with the test and a `+=`)
            self.emit("if not _cv:")
            self.emit(f"    _R.append({i})")
            self.emit(f"_C[{i}] = _cv + {w}")

    def ret(self) -> None:
        """The sequence's RETURN, run here as the loop runs it (steps.StepWriter.ret), or by the loop near the budget."""
        last = len(self.code) - 1
        ins = self.code[last]
        if ins.cov is not None or ins.also:  # pragma: no cover - a RETURN counts nothing (program.py, _VISITS)
            self.exit(last)
            return
        self.counted += 1  # a step too
        # as handlers.h_return runs it, without a call (f's modifiers lapse, its 'after' triggers start: pop_frame),
        # with the budget spent the loop runs it (and stops the game there); AGAIN: the loop goes on in the frame
        # below, at the position its call left it
        for line in ("if n >= ctx.max_steps:", "    ctx.steps = n", f"    f.pc = {last}", "    return _True",
                     "n += 1", "ctx.steps = n", "if f.mods or f.deferred:", "    _pop_frame(ctx)", "    return _AGAIN",
                     "frames = ctx.frames", "frames.pop()", "if frames:", "    ctx.locals = frames[-1].locals",
                     "return _AGAIN"):
            self.emit(line)

    def run(self, pc: int) -> None:
        """An instruction of a step's own, counted and run by its handler as the loop runs it (running._asks): the
        function leaves when it waits (a decision pending) or triggers fired; near the budget the loop goes on."""
        self.emit(f"pc = {pc}")
        self.count(pc)
        for line in (f"if _asks(ctx, f, {self.const(self.code[pc])}, {pc}):", "    return _AGAIN", "n = ctx.steps",
                     "if n > lim:", "    return _True"):
            self.emit(line)

    def top(self, pc: int) -> None:
        """The top of a Python loop: near the step budget the instruction loop takes over, at `pc`."""
        self.emit("if n > lim:")
        self.depth += 1
        self.exit(pc)
        self.depth -= 1

    def cannot(self, why: str) -> None:
        """No stretch starts here (a kind's `resume` says so)."""
        raise _Cannot(why)

    def exit(self, pc: int) -> None:
        self.emit("ctx.steps = n")
        self.emit(f"f.pc = {pc}")
        self.emit("return _True")

    def comes_back(self, seq: str) -> bool:
        """Whether a call of `seq` run by this function can come back at once (`running._call`): not when the callee,
        or a sequence it calls, holds a step that only the instruction loop runs (a kind without a `stretch`); worked
        out once per program. The code after such a call would be written twice: here, and in the function of the position after
        the call, where the loop goes on when the callee returns."""
        return _comes_back(self.programs or {}, seq, set())

    # -------------------------------------------------------- steps; False when the step always leaves
    def step(self, s: M.Step) -> bool:
        """The step's code, as its kind writes it (`StepKind.stretch`; the core kinds': loader/kinds/); a step whose
        kind has none is a stop: the function leaves there and the instruction loop runs it."""
        how = stretch_of(s)
        if how is None:
            return self.stop(s)
        return how.write(self, s)

    def stop(self, s: M.Step) -> bool:
        """The function leaves at the step (a stack, a kind the compiler does not write): the loop runs it."""
        self.exit(self.pcs(s)[0][0])
        return False

    def first(self, s: M.Step) -> int:
        """The position of the step's first own instruction."""
        return self.pcs(s)[0][0]

    def nested(self, head: str, steps) -> bool:
        """`head` (an `if ...:`) with `steps` written under it; whether play goes on after them."""
        self.emit(head)
        self.indent()
        mark = len(self.lines)
        goes_on = self.block(steps)
        self.dedent(mark)
        return goes_on

    def assign(self, how: str, where: str, name: str, value: Callable, sign: int = 0, op: str = "",
               span: Any = None) -> None:
        """A statement that sets a local or a game variable (`let`, `set`, `+=`, `-=`): statements.assignment."""
        fixed = getattr(value, "constant", None)
        whole = fixed is not None and type(fixed[0]) is int
        for line in assignment(how, "_L" if where == "locals" else "ctx.vars", self.const(name), self.value(value),
                               sign, (self.const(sign), self.const(op), self.const(span)), whole):
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


def _comes_back(programs: dict, seq: str, seen: set) -> bool:
    prog = programs.get(seq)
    if prog is None:
        return False
    got = prog.__dict__.get("comes_back")
    if got is not None:
        return got
    if seq in seen:  # (a sequence calling itself, which a call too deep stops: decided where it started)
        return True
    seen.add(seq)
    got = _written(programs, prog.sequence.steps, seen)
    if len(seen) == 1:  # (a cycle's members decided from its first: only that one is kept)
        prog.comes_back = got  # type: ignore[attr-defined]  # (a plain class: it takes the attribute)
    seen.discard(seq)
    return got


def _written(programs: dict, steps, seen: set) -> bool:
    """Whether every one of `steps` (and the steps inside them, and the sequences they call) is written by its kind:
    none is a stop (StepWriter.stop)."""
    for s in steps:
        how = stretch_of(s)
        if how is None:
            return False
        if isinstance(s, M.CallStep) and not _comes_back(programs, s.sequence, seen):
            return False
        if not all(_written(programs, block, seen) for _role, block in how.blocks(s)):
            return False
    return True
