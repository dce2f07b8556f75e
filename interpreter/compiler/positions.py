"""Where each step of a sequence lies among its program's instructions: what a stretch written from a position is
inside of (the steps, blocks and loops around it), so the writer (steps.py) can start there. What a step holds, and
where it can be started inside, its kind says (`StepKind.stretch`: `blocks` and `at`).

And `place`, the pass over a written function's lines before they are compiled. The writer says step by step what
the loop does: `pc = N` where a step starts (where an error is reported), `n += 1` for each step counted,
`ctx.steps = n` where it leaves (written as such, a tenth of a Dune bidding game's bytecodes). The pass keeps what
they mean and writes only what is read: no position (the `except` finds its line's step, and the steps counted that
n does not hold yet, in the function's table of lines: running._raised); counts added up along each straight path (n
brought up to date where the paths of an `if` meet, each branch adding what it counted beyond the least; before a
loop of steps, at its jump back, a `break` or `continue`; a line reading n reads `n + k`); `ctx.steps = n + k` (what
a call's work guard reads, guards.charge) just before a line that may read it, where it is not up to date already
(before a loop of an expression that calls, once). Lines of another shape than the writers' (a header ends with `:`,
its block one deeper; no count inside a `try` or `for`) raise `Unexpected`: the loop runs the stretch (tests raise)."""

from __future__ import annotations

import re
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


# ---------------------------------------------------------------- a written function's lines
_COUNTS = frozenset(("n += 1", "ctx.steps = n = n + 1"))
_AT = re.compile(r"pc = (\d+)$")
_N = re.compile(r"(?<![\w.])n\b(?: \+ (\d+))?")  # `n` read (and a number added to it)
_CALL = re.compile(r"([A-Za-z_][\w.]*)\(")
_SAFE_CALLS = frozenset(("type", "len", "isinstance", "map", "_L.get", "_L.pop", "_ZoneRef", "_CONTAINERS.isdisjoint",
                         "_signal_exit", "_fire"))  # (the last two are given the count: they write it themselves)
_RESETS = ("_asks(", "_choose(", "_seal(", "_call(")  # run steps of their own: `n = ctx.steps` reads them back
_ERRORS = re.compile(r"raise (_unset|_compare_error|_member_error|_compute_error|_RuleError|_k\d+)\(")
_STEPS = re.compile(r"ctx\.steps(?! = )")  # ctx.steps read
_COMPOUND = ("if ", "elif ", "else:", "while ", "for ", "try:", "except", "finally:", "def ", "with ")


class Unexpected(Exception):
    """The lines are not of a shape this pass knows."""


class _Line:
    __slots__ = ("text", "depth", "body", "reads", "counts", "calls")
    body: Optional[list]  # a header's block of lines

    def __init__(self, text: str, depth: int):
        self.text, self.depth, self.body = text, depth, None


def _tree(lines: list, ns: dict) -> list:
    """The lines as blocks under their headers, each marked (`_marked`)."""
    top: list = []
    open_: list = [(None, top)]  # the headers whose blocks are open: (depth, block)
    base = (len(lines[0]) - len(lines[0].lstrip())) // 4 if lines else 0
    for raw in lines:
        text = raw.lstrip()
        node = _Line(text, (len(raw) - len(text)) // 4)
        while len(open_) > 1 and open_[-1][0] >= node.depth:
            open_.pop()
        if (len(raw) - len(text)) % 4 or node.depth != (open_[-1][0] + 1 if len(open_) > 1 else base):
            raise Unexpected("a line out of its block")
        open_[-1][1].append(node)
        if text.startswith(_COMPOUND):
            if not text.endswith(":"):
                raise Unexpected("a compound statement on one line")
            node.body = []
            open_.append((node.depth, node.body))
    _marked(top, ns, {})
    return top


def _marked(nodes: list, ns: dict, seen: dict) -> tuple[bool, bool]:
    """Mark each line: whether it may read ctx.steps (`reads_count`), and whether it or a line under it counts a step,
    says where one starts or reads n (`counts`), or may read ctx.steps (`calls`); the same for all of `nodes`."""
    counts = calls = False
    for node in nodes:
        t = node.text
        node.reads = seen.get(t)
        if node.reads is None:
            node.reads = seen[t] = reads_count(t, ns)
        node.counts = t in _COUNTS or _AT.match(t) is not None or _N.search(t) is not None
        node.calls = node.reads
        if node.body is not None:
            inner = _marked(node.body, ns, seen)
            node.counts |= inner[0]
            node.calls |= inner[1]
        counts |= node.counts
        calls |= node.calls
    return counts, calls


def reads_count(line: str, ns: dict) -> bool:
    """Whether `line` may read ctx.steps: it names it, or calls anything but Python's own pure built-ins, the generic
    getter (ops.make_getattr's: it reads, never charges) and the helpers given the count, or raises an error it builds
    with anything but an error's constructor."""
    if _STEPS.search(line):
        return True
    m = _ERRORS.match(line)
    if m is not None:
        name = m.group(1)
        return name.startswith("_k") and not getattr(ns.get(name), "__name__", "").endswith("_error")
    for name in _CALL.findall(line):
        if name in _SAFE_CALLS or name.endswith(".append") and name.startswith("_x"):
            continue
        if name.startswith("_k") and getattr(ns.get(name), "__qualname__", "") == "make_getattr.<locals>.get":
            continue
        return True
    return False


def _plus(line: str, ahead: int) -> str:
    """`line` reading n + ahead wherever it reads n."""
    return _N.sub(lambda m: f"n + {ahead + int(m.group(1) or 0)}", line) if ahead else line


class Placing:
    """The pass over one function's lines (`place`)."""

    def __init__(self, ns: dict, pc: int):
        self.ns = ns
        self.out: list[str] = []
        self.where: list[tuple[int, int]] = []  # per line of `out`: its position and the steps counted, not in n
        self.last = (0, False, pc)  # the state of a line no path reaches (after a return)

    # the state on each path: (steps counted and not yet added to n, whether ctx.steps is n + those, the position)
    def put(self, depth: int, text: str, st: tuple, at: Optional[int] = None) -> None:
        self.out.insert(len(self.out) if at is None else at, "    " * depth + text)
        self.where.insert(len(self.where) if at is None else at, (st[2], st[0]))

    def write(self, depth: int, st: tuple) -> tuple:
        """ctx.steps brought up to date here."""
        self.put(depth, _plus("ctx.steps = n", st[0]), st)
        return (st[0], True, st[2])

    def block(self, nodes: list, st: Optional[tuple], loops: list) -> Optional[tuple]:
        """Place the lines of one block from state `st`; the state its end is reached with (None: no path does)."""
        i = 0
        while i < len(nodes):
            node = nodes[i]
            i += 1
            if st is None:  # (after a line that leaves: no path runs it)
                self.copy(node, self.last)
                continue
            self.last = st
            t = node.text
            c, w, pc = st
            if t in _COUNTS:
                st = (c + 1, False, pc)
            elif _AT.match(t):
                st = (c, w, int(t[5:]))
            elif node.body is None:
                st = self.simple(node, st, loops)
            elif t.startswith("if "):
                chain = [node]
                while i < len(nodes) and nodes[i].body is not None and nodes[i].text.startswith(("elif ", "else:")):
                    chain.append(nodes[i])
                    i += 1
                st = self.branches(chain, st, loops)
            elif t.startswith(("while ", "for ")):
                if i < len(nodes) and nodes[i].text == "else:":
                    raise Unexpected("a loop's else")
                st = self.loop(node, st, loops)
            elif t == "try:":
                chain = [node]
                while i < len(nodes) and nodes[i].text.startswith(("except", "else:", "finally:")):
                    chain.append(nodes[i])
                    i += 1
                st = self.attempt(chain, st, loops)
            elif t.startswith("def "):  # its lines run when it is called, where the count was written (a call)
                self.copy(node, st)
            else:
                raise Unexpected(f"a header out of place: {t.split()[0]}")
        return st

    def simple(self, node: _Line, st: tuple, loops: list) -> Optional[tuple]:
        t, d = node.text, node.depth
        c, w, pc = st
        if t == "n = ctx.steps":  # after a step that ran steps of its own (their count written back)
            self.put(d, t, st)
            return (0, True, pc)
        if t == "ctx.steps = n":
            return self.write(d, st)
        if t.startswith(("ctx.steps =", "n =", "n +=", "n -=")):
            raise Unexpected("the count set otherwise")
        if not w and node.reads:
            st = self.write(d, st)
        if t in ("break", "continue"):
            if not loops:
                raise Unexpected("a break outside a loop")
            if c > loops[-1]:  # (a loop of steps starts each pass with n up to date)
                self.put(d, f"n += {c - loops[-1]}", st)
            self.put(d, t, st)
            return None
        self.put(d, _plus(t, c), st)
        if t.startswith(("return", "raise")):
            return None
        if any(r in t for r in _RESETS):  # (ctx.steps moved on: read back by the next line)
            return (c, False, pc)
        return st

    def branches(self, chain: list, st: tuple, loops: list) -> Optional[tuple]:
        """An if/elif/else: each branch from the state its test leaves; where they meet, n brought to the least count
        not yet added among them (each branch adds the rest; no 'else' gets one that adds it)."""
        c, w, pc = st
        if not w and any(n.reads for n in chain):
            st = self.write(chain[0].depth, st)
        if any(r in n.text for n in chain for r in _RESETS):  # (ctx.steps moved on: read back after)
            st = (c, False, pc)
        ends: list[tuple[tuple, Optional[int], int]] = []
        for node in chain:
            self.put(node.depth, _plus(node.text, c), st)
            end = self.under(node, st, loops)
            if end is not None:
                ends.append((end, len(self.out), node.depth + 1))
        if chain[-1].text != "else:":
            ends.append((st, None, chain[0].depth + 1))
        if not ends:
            return None
        least = min(end[0] for end, _at, _d in ends)
        for end, at, d in reversed(ends):  # (from the last: an insert moves the places after it)
            if end[0] > least:
                if at is None:
                    self.put(d - 1, "else:", end)
                    self.put(d, f"n += {end[0] - least}", end)
                else:
                    self.put(d, f"n += {end[0] - least}", end, at)
        return (least, all(end[1] for end, _at, _d in ends), pc)

    def loop(self, node: _Line, st: tuple, loops: list) -> tuple:
        """A loop of steps (it counts, or reads n): n up to date before it and at each pass's end, ctx.steps not known
        to be. A loop of an expression: nothing counted in it; ctx.steps written once before it if it calls."""
        c, w, pc = st
        d = node.depth
        if node.counts:
            if not node.text.startswith("while "):
                raise Unexpected("steps counted in a for loop")
            if c:
                self.put(d, f"n += {c}", st)
            top = (0, False, pc)
            self.put(d, node.text, top)
            end = self.under(node, top, loops + [0])
            if end is not None and end[0]:
                self.put(d + 1, f"n += {end[0]}", end)
            return top
        if not w and node.calls:
            st = self.write(d, st)
        self.put(d, node.text, st)
        self.under(node, st, loops + [c])
        return st

    def attempt(self, chain: list, st: tuple, loops: list) -> Optional[tuple]:
        """try/except/else/finally of an expression (nothing counted in it): a handler starts from the state of the
        try (ctx.steps written inside it may not have been reached)."""
        if any(n.counts for n in chain):
            raise Unexpected("steps counted in a try")
        ends = []
        body_end: Optional[tuple] = None
        after: Optional[tuple] = None
        for node in chain:
            t = node.text
            self.put(node.depth, t, st)
            if t == "try:":
                body_end = end = self.under(node, st, loops)
            elif t == "else:":
                end, body_end = self.under(node, body_end, loops), None
            elif t == "finally:":
                after, end = self.under(node, st, loops), None
            else:
                end = self.under(node, st, loops)
            if end is not None and t != "try:":
                ends.append(end)
        if body_end is not None:
            ends.append(body_end)
        if chain[-1].text == "finally:":
            if after is None or not ends:
                return None
            return (st[0], after[1] or all(e[1] for e in ends), st[2])
        if not ends:
            return None
        return (st[0], all(e[1] for e in ends), st[2])

    def under(self, node: _Line, st: Optional[tuple], loops: list) -> Optional[tuple]:
        """The block under the header `node` from state `st` (`pass` when nothing is left of it), as `block`."""
        start = len(self.out)
        end = self.block(node.body or [], st, loops)
        if len(self.out) == start:
            self.put(node.depth + 1, "pass", st or self.last)
        return end

    def copy(self, node: _Line, st: tuple) -> None:
        self.put(node.depth, node.text, st)
        for inner in node.body or ():
            self.copy(inner, st)


def place(lines: list, ns: dict, pc: int) -> tuple[list, list]:
    """The lines of a function's body (inside its `try`) with positions, counts and writes of ctx.steps placed as
    the module says; and for each line its position and the steps counted on the way that n does not hold yet."""
    p = Placing(ns, pc)
    p.block(_tree(lines, ns), (0, False, pc), [])
    return p.out, p.where
