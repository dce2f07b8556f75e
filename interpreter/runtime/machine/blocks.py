"""Run the stretch of a sequence between two stops as one generated Python function.

The instruction loop (interpreter.run) pays for every step it dispatches: look the instruction up, count it,
pick its handler, move the position on. Most steps of a game are conditions, jumps and small statements
between two decisions, so a sequence spends most of its time in that dispatch. Here, the steps that follow
a position of a sequence (an *entry*) are written as the Python source of one function: an `if` step becomes
a Python `if`, a loop a Python `while`, a statement a call of its compiled closure, so those steps cost no
dispatch at all. Conditions, and assignments to locals and game variables, go further: the source codegen
made of their expressions is copied in (renamed to this function's names), so they cost no call either.

The function stops where the instruction loop has more to do than run a step: a decision, a call, a sealed
bid, a stack, the end of the sequence, a signal it does not handle itself, a trigger that interrupts. It then leaves the position (`f.pc`) on that instruction, exactly where the instruction loop
would be, and the loop goes on from there. A game's state is never anything else than what the loop keeps
(positions, statement indexes, locals): saves, copies and replays work as before.

Nothing a game shows changes: the same steps run in the same order, each is counted (`g.steps`) and covered
as the loop does it, events fire their triggers after each statement, the step budget stops a runaway loop
at the same step with the same error, and a run-time error names the same step (tests/test_blocks.py plays
every bundled ruleset both ways). A position it cannot start from (inside a stack step, a statement index
other than 0) is left to the loop. RULECRAFT_BLOCKS=0 turns it off.

When: generating a function costs 0.5-2 ms, and saves from a fraction of a microsecond (a few steps before
a call or a decision) to tens of microseconds (a loop of many steps) per visit. So a position whose stretch
holds a loop gets its function at its HOT-th visit, one without a loop at its STRAIGHT_VISITS-th: a single
game, a test or a scenario generates almost nothing, a long simulation generates its hot positions in its
first games and gains on every game after.

Security: as in dsl/codegen.py, no ruleset text enters the source. Closures, instructions, names and paths
are namespace constants (_k0, _k1, ...); the source is Python syntax written here.
"""

from __future__ import annotations

import itertools
import os
import re
from typing import Any, Callable, Optional

from ...dsl import ast as A
from ...dsl.codegen import safesource
from ...dsl.codegen.generator import _HELPERS as _EXPRESSION_HELPERS, SOURCE_NAMES as _EXPRESSION_NAMES
from ...dsl.codegen.hotcode import generated_source
from ...dsl.closures.assign import _augmented
from ...model import ruleset as M
from . import handlers
from .program import Program

ENABLED = os.environ.get("RULECRAFT_BLOCKS", "1") != "0"
HOT = 200  # visits of a position before its function is generated (tests set 0); see 'When' above
STRAIGHT_VISITS = 1_000  # the visits a stretch without a loop needs
MIN_STEPS = 3  # a stretch of fewer steps (and no loop) is left to the loop, which runs it as fast
NEVER = False  # an entry that cannot be generated: the instruction loop runs it
STRICT = False  # tests set it: a failure to generate (other than _Cannot) is raised instead of falling back
# What a function returns: False when it declines (near the step budget) and True when it stopped at an
# instruction of its own frame that the loop runs next (nothing else changed); AGAIN when a signal or a trigger
# changed more (frames, a decision, the end of the game), so the loop looks at the game again first.
AGAIN = 2

_STOPS = {"CALL", "CHOOSE", "SEALED", "RETURN", "STACK_BEGIN", "STACK_OFFER", "STACK_ONPLAY_NEXT",
          "STACK_RESOLVE_NEXT", "STACK_RESOLVED"}


def prepare(prog: Program) -> None:
    """Give a program its tables of entries: a visit count per position until the function is made."""
    prog.entries = [0] * len(prog.code)  # for games without coverage
    prog.entries_cov = [0] * len(prog.code)  # for games that count the steps run
    prog.waited = set()  # positions without a loop, already found so, that wait STRAIGHT_VISITS more visits


def entry(prog: Program, pc: int, coverage: bool, triggers: bool) -> Any:
    """What the instruction loop keeps for position `pc` of `prog` at its HOT-th visit: the generated function
    (made now), NEVER, or a visit count to start again from (a stretch without a loop waits STRAIGHT_VISITS
    more visits: it saves less per visit, so it must be visited more to pay for its making)."""
    try:
        waited = prog.waited
        if pc not in waited:
            looped = _Writer(prog, coverage, triggers, dry=True).function(pc)  # quick: no source compiled
            if not looped:
                waited.add(pc)
                return HOT - STRAIGHT_VISITS
        return _Writer(prog, coverage, triggers).function(pc)
    except _Cannot:
        return NEVER
    except Exception:  # as codegen.generate: Python's limits on nesting, an unsafe source (safesource), any bug
        if STRICT:
            raise
        return NEVER


class _Cannot(Exception):
    """This position is not a place to start a generated function from."""


# ---------------------------------------------------------------- helpers the generated code calls
def _signal_exit(g, f, ins, pc: int, i: int, sig, n: int) -> bool:
    """Statement i of the step at pc returned a signal the function does not handle: the loop's own code does."""
    g.steps = n
    f.pc = pc
    f.sub = i
    handlers._signal(g, f, ins, i, sig)
    return AGAIN


def _fire(g, f, pc: int, i: int, n: int) -> bool:
    """Statement i - 1 of the step at pc raised events: fire their triggers now, as h_exec does. True when a
    trigger started a sequence: the function stops and the step goes on (from statement i) after it."""
    g.steps = n
    f.pc = pc
    f.sub = i
    depth = len(g.frames)
    handlers.fire(g)
    if len(g.frames) != depth:
        return AGAIN
    f.sub = 0
    return 0


_HELPERS = {**_EXPRESSION_HELPERS, "__builtins__": {}, "len": len, "_signal_exit": _signal_exit, "_fire": _fire,
            "_augmented": _augmented, "_BaseException": BaseException,
            "_True": True, "_False": False, "_AGAIN": AGAIN}


# Every name a function's source may hold (checked before each compile, see dsl/safesource.py): the helpers, the
# names codegen's sources hold, and this writer's own locals and the attributes of games and frames it reads.
SOURCE_NAMES = frozenset(_HELPERS) | _EXPRESSION_NAMES | {
    "f", "n", "pc", "lim", "_C", "_s", "_it", "_o", "_i", "_w", "_cw", "work", "_entry", "steps", "max_steps",
    "coverage", "_events", "_foreach_init", "sub"}
MADE_NAMES = re.compile(r"_[kr][0-9]+|_x[0-9]+_[0-9]+")  # constants, first-pass flags, renamed expression locals

# ---------------------------------------------------------------- the writer
_MADE = itertools.count(1)
_CHARGE = re.compile(r"( *)_charge\(ctx, ([^,]+), ([^,()]+)\)")
_NAMES = re.compile(r"\b_[kv][0-9]+\b")  # the constants and locals of a function codegen wrote


class _Writer:
    def __init__(self, prog: Program, coverage: bool, triggers: bool, dry: bool = False):
        self.dry = dry  # only find out what the function would hold (function() returns whether it loops)
        self.prog = prog
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

        An expression codegen writes (dsl/codegen.py) is copied in, its constants and locals renamed to names of
        this function: no call, and it reads the locals from `_L`, which is the frame's (ctx.locals). Its
        source holds no ruleset text, so neither does this one."""
        got = None if self.dry else generated_source(fn)
        if got is None:
            return f"{self.const(fn)}(ctx)"
        src, ns = got
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
            line = _NAMES.sub(rename, line)
            charge = _CHARGE.fullmatch(line)
            if charge:  # guards.charge written out (ctx is a game here, which has `work`): it raises when over
                lead, units, span = charge.groups()
                self.lines += [f"{pad}{lead}ctx.work = _cw = ctx.work + ({units})",  # units may be `size >> shift`
                               f"{pad}{lead}if ctx.steps + _cw > ctx.max_steps:",
                               f"{pad}{lead}    _charge(ctx, 0, {span})"]
                continue
            self.lines.append(pad + line)
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
        if self.code[pc].op in _STOPS:
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
        self.exit(len(self.code) - 1)  # the end of the sequence: the loop's RETURN
        if self.counted < MIN_STEPS and not self.looped:
            raise _Cannot("too few steps to gain anything: the call would cost more than the loop")
        if self.dry:
            return self.looped
        self.dedent(mark)
        self.emit("except _BaseException:")
        self.emit("    f.pc = pc")
        self.emit("    ctx.steps = n")
        self.emit("    raise")
        src = "\n".join(["def _entry(ctx, f):", *self.lines, ""])
        safesource.check(src, SOURCE_NAMES, MADE_NAMES, numbers=True)  # raises (the loop runs it) on anything else
        code = compile(src, f"<rulecraft steps {next(_MADE)}>", "exec")  # a name of its own, for profilers
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
        self.exit(first)  # a decision, a call, a sealed bid, a stack: the loop runs it
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
