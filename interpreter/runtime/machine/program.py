"""Flatten each sequence's step tree into a list of instructions with jumps.

Where a running game is can then be said with plain numbers (sequence, instruction,
statement), which is what makes a game state serialisable and cheap to copy. Every
instruction keeps the step it came from, for traces, coverage and error messages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, Optional

from ...diagnostics import Span
from ...model import ruleset as M
from ...model.kinds import of_step


@dataclass
class Instr:
    op: str
    step: M.Step
    arg: Any = None
    target: int = -1  # a jump target, where the op has one
    loops: dict = field(default_factory=dict)  # EXEC: loop name (or None) -> (break pc, continue pc, iterator key)
    extra: Any = None
    one: Any = None  # EXEC of exactly one statement: that statement (interpreter.run runs it without h_exec)
    # Coverage (docs/sheets.md, "What a count is"): running this adds `w` to the count of node `cov` (None: not
    # counted) and 1 to each node of `also` (the 'until' loops whose body starts here: each is entered, or passed
    # again, here; its test takes the pass back when it repeats). Not counted when the step is resumed.
    cov: Optional[str] = None
    w: int = 1
    also: tuple = ()
    until: Optional[str] = None  # the test of an 'until' loop: the loop's node, counted -1 when it repeats
    # the same nodes by their numbers in the ruleset's list of nodes (`number_nodes`): a game counts into a list
    ci: int = -1
    alsoi: tuple = ()
    untili: int = -1
    back: bool = False  # a JUMP back to an earlier instruction (a loop's top): the instruction loop's inner loop
    # stops there, so that the outer one finds the function of the loop's top (interpreter.run)

    @property
    def span(self) -> Span:
        return self.step.span


@dataclass
class Program:
    sequence: M.SequenceDef
    code: list[Instr]


_NONE: list = []  # a frame's deferred calls until it has one (never added to: handlers.fire gives a frame its own list)


class Frame:
    """A running sequence: where it is (instruction `pc`, statement `sub` of an EXEC step), its locals, its
    deferred 'after' triggers. `mods`: a modifier lasts until this frame ends (board.add_modifier sets it), so
    leaving the frame must look for modifiers that lapse (handlers.pop_frame); without it, none can. (compiler/running._call
    makes one without `__init__`, setting each of these itself.)"""

    __slots__ = ("seq", "pc", "sub", "locals", "id", "deferred", "kind", "mods")

    def __init__(self, seq: str, kind: str, locals_: dict, fid: int):
        self.seq = seq
        self.kind = kind
        self.pc = 0
        self.sub = 0
        self.locals = locals_
        self.id = fid
        self.deferred: list = _NONE  # (a list of its own once a call is deferred: handlers.fire)
        self.mods = False


def number_nodes(programs: dict) -> tuple:
    """The nodes the instructions of a ruleset's programs count, numbered (each instruction given the numbers of
    its nodes: `ci`, `alsoi`, `untili`): a game counts its coverage into a list by these numbers (`Game.counts`),
    and `Game.coverage` gives them back by name. Returns the names, by number."""
    index: dict = {}
    for prog in programs.values():
        for ins in prog.code:
            if ins.cov is not None:
                ins.ci = index.setdefault(ins.cov, len(index))
            ins.alsoi = tuple(index.setdefault(a, len(index)) for a in ins.also)
            if ins.until is not None:
                ins.untili = index.setdefault(ins.until, len(index))
    return tuple(index)


def covered(names: tuple, counts: list, reached: list) -> dict:
    """A game's coverage: how often each node of the sequence graph ran, the nodes in the order first reached.

    The running code counts into a list by node number (`counts`, specialised list stores: a dict keyed by the
    nodes' names, a `defaultdict`, cost a game of the longest bundled ruleset about 1.9 M instructions, some 2,100 counts) and notes a node's
    number in `reached` whenever it counts a node whose count is 0 (so at least when the node is first reached; again
    when a loop's count went back to 0). The first of each number in `reached` gives the order, as a dict's keys kept
    it; a node counted and brought back to 0 is listed with 0, as it was."""
    order = tuple(dict.fromkeys(reached))
    if len(order) < 2:  # (an itemgetter of one index gives the item, not a tuple)
        return {names[i]: counts[i] for i in order}
    get = itemgetter(*order)  # the names and the counts in one call each (map's calls of `__getitem__`: a fifth more)
    return dict(zip(get(names), get(counts)))


def count(g, i: int, w: int) -> None:
    """Count `w` for node number `i` of a game that counts its coverage (the instruction loop's own lines do the
    same inline)."""
    counts = g.counts
    if not counts[i]:
        g.reached.append(i)
    counts[i] += w


class _Loop:
    def __init__(self, name: Optional[str], iter_key: Optional[str]):
        self.name = name
        self.iter_key = iter_key
        self.breaks: list[Instr] = []  # filled with the break target at the end
        self.continue_pc = -1
        self.end_pc = -1


class Flattener:
    """One sequence's steps as instructions: each step's kind emits its own (`lower`) with what follows."""

    def __init__(self, seq: M.SequenceDef):
        self.seq = seq
        self.code: list[Instr] = []
        self.loops: list[_Loop] = []
        self.pending_exec: list[tuple[Instr, list[_Loop]]] = []
        self.counter = 0

    def emit(self, op: str, step: M.Step, arg: Any = None, extra: Any = None) -> Instr:
        ins = Instr(op, step, arg, extra=extra)
        self.code.append(ins)
        return ins

    def block(self, steps) -> None:
        for s in steps:
            self.step(s)

    def step(self, s: M.Step) -> None:
        """The step's instructions, as its kind lowers it (model/kinds.py; the kinds themselves: loader/kinds/)."""
        kind = of_step(s)
        if kind is None:  # pragma: no cover - every step the loader builds is of a registered kind
            raise TypeError(f"no registered step kind makes a {type(s).__name__}")
        kind.lower(self, s)

    # ---------------------------------------------------------------- what a kind's `lower` is given
    @property
    def here(self) -> int:
        """The place of the next instruction (a jump's target)."""
        return len(self.code)

    def statements(self, step: M.Step, stmts) -> Instr:
        """Run statements (an EXEC); a break or continue among them finds its loop when the loop closes."""
        ins = self.emit("EXEC", step, stmts)
        if len(stmts) == 1:
            ins.one = stmts[0]
        self.pending_exec.append((ins, list(self.loops)))
        return ins

    def key(self, what: str) -> str:
        """A name of the frame's own, unique in the sequence (a for_each's iterator, a stack's state)."""
        self.counter += 1
        return f"__{what}{self.counter}"

    def new_loop(self, name: Optional[str], iter_key: Optional[str] = None) -> _Loop:
        """A loop a break or continue may leave (`name`: 'loop: NAME', or None); its body goes in with `inside`."""
        return _Loop(name, iter_key)

    def inside(self, loop: _Loop, steps) -> None:
        """The steps of a loop's body: a break or continue in them leaves or repeats `loop`."""
        self.loops.append(loop)
        self.block(steps)
        self.loops.pop()

    def close(self, loop: _Loop) -> None:
        """The loop is whole (its `continue_pc` and `end_pc` set): each EXEC in it learns where a break and a continue go."""
        for ins, loops in self.pending_exec:
            if loop in loops:
                inner = loops[loops.index(loop) + 1:]
                entry = (loop.end_pc, loop.continue_pc, loop.iter_key,
                         tuple(l.iter_key for l in inner if l.iter_key))
                if loop.name is not None:
                    ins.loops.setdefault(loop.name, entry)
                if not inner:
                    ins.loops[None] = entry

    def finish(self) -> Program:
        self.emit("RETURN", self.seq.steps[-1] if self.seq.steps else _NO_STEP)
        for pc, ins in enumerate(self.code):
            if ins.op in _VISITS:
                ins.cov = ins.step.path
            ins.back = ins.op == "JUMP" and ins.target <= pc
        _one_visit_per_construct(self.code, _construct_paths(self.seq.steps))
        return Program(self.seq, self.code)


# The instructions that begin a visit of their step (each counts 1): an action, a call, a for_each's start, a
# decision, a sealed choice, a stack; an if's test too (the if marks it: a loop's test is a JUMP_IF_FALSE that
# counts nothing). A 'while' or 'repeat' loop counts +1 at its top and -1 at its jump back, an 'until' loop +1
# where its body starts and -1 when its test repeats: once per entry, as its body counts once per pass. A jump,
# a for_each's next item, a stack's offers and a return count nothing; nor does a step resumed after a call, a
# trigger or an answer (the instruction loop and Game.apply see to those).
_VISITS = frozenset({"EXEC", "CALL", "FOREACH_INIT", "CHOOSE", "SEALED", "STACK_BEGIN"})


def _construct_paths(steps) -> set:
    """The paths of the constructs (auctions, response windows) among `steps` and the steps inside them."""
    out = set()
    for s in steps:
        if isinstance(s, M.ConstructStep):
            out.add(s.path)
        for _name, body in s.bodies:
            out |= _construct_paths(body)
    return out


def _one_visit_per_construct(code: list, constructs: set) -> None:
    """A construct is one node of the chart: its first instruction (a bookkeeping step that no jump comes back to)
    counts the visit; the other steps of its expansion, loops included, count nothing for it. The steps the author
    wrote inside it keep paths of their own and count as usual."""
    seen: set = set()
    for ins in code:
        if ins.cov in constructs:
            if ins.cov in seen or ins.w != 1:
                ins.cov = None
            else:
                seen.add(ins.cov)
        if ins.until in constructs:
            ins.until = None
        if ins.also:
            ins.also = tuple(p for p in ins.also if p not in constructs)


_NO_STEP = M.ActionStep("end", "end", "", "", "", Span("<engine>", 1, 1), False, ())


def compile_program(rs: M.Ruleset) -> dict[str, Program]:
    out = {}
    for sid, seq in rs.sequences.items():
        f = Flattener(seq)
        f.block(seq.steps)
        out[sid] = f.finish()
    return out
