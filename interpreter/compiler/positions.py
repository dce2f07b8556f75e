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
(before a loop of an expression that calls, once); a local read again (`try: X = _L[K]`, its unset check) from the
name that read or stored it on every path there, when no call that may set a local, no store of it or of that name
and no loop lies between (Dune: the bidder, read five times a bidder's turn). Lines of another shape than the writers' (a header ends with `:`,
its block one deeper; no count inside a `try` or `for`) raise `Unexpected`: the loop runs the stretch (tests raise)."""

from __future__ import annotations

import re
from typing import Any, Optional

from ..model import ruleset as M
from ..model.kinds import Stretch, of_step
from ..runtime.machine.program import Program
from .running import _AT, _COUNTS, _N, Unexpected, _Cannot, _Line, _tree, keeps_locals

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
_READ = re.compile(r"(\w+) = _L\[(_k\d+)\]")  # a local read (`try:` around it: its unset check)
_GET = re.compile(r"(\w+) = _L\.get\((_k\d+)\)")
_STORE = re.compile(r"_L\[(_k\d+)\] = (\w+)")
_AUG = re.compile(r"([\w\[\]]+) (?:[-+*/%&|^]|//|\*\*|<<|>>)= ")
_RESET = re.compile(r"_(?:asks|decide|seal|call)\(")  # run steps of their own: `n = ctx.steps` reads them back


def _plus(line: str, ahead: int) -> str:
    """`line` reading n + ahead wherever it reads n."""
    return _N.sub(lambda m: f"n + {ahead + int(m.group(1) or 0)}", line) if ahead else line


class Placing:
    """The pass over one function's lines (`place`)."""

    def __init__(self, ns: dict, pc: int):
        self.ns = ns
        self.out: list[str] = []
        self.where: list[tuple[int, int]] = []  # per line of `out`: its position and the steps counted, not in n
        self.kept: dict[str, bool] = {}
        self.last = (0, False, pc, {})  # the state of a line no path reaches (after a return)

    # the state on each path: (steps counted and not yet added to n, whether ctx.steps is n + those, the position,
    # the frame's locals whose values Python names hold: {local: name}, never changed in place)
    def put(self, depth: int, text: str, st: tuple, at: Optional[int] = None) -> None:
        if at is None:
            self.out.append("    " * depth + text)
            self.where.append((st[2], st[0]))
        else:
            self.out.insert(at, "    " * depth + text)
            self.where.insert(at, (st[2], st[0]))

    def keeps(self, line: str) -> bool:
        """running.keeps_locals, once per text."""
        if line not in self.kept:
            self.kept[line] = keeps_locals(line, self.ns)
        return self.kept[line]

    def write(self, depth: int, st: tuple) -> tuple:
        """ctx.steps brought up to date here."""
        self.put(depth, _plus("ctx.steps = n", st[0]), st)
        return (st[0], True, st[2], st[3])

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
            c, w, pc, av = st
            if t in _COUNTS:
                st = (c + 1, False, pc, av)
            elif t.startswith("pc = ") and _AT.match(t):
                st = (c, w, int(t[5:]), av)
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
                got = self.read(chain, st)
                st = got if got is not None else self.attempt(chain, st, loops)
            elif t.startswith("def "):  # its lines run when it is called, where the count was written (a call)
                self.copy(node, st)
            else:
                raise Unexpected(f"a header out of place: {t.split()[0]}")
        return st

    def simple(self, node: _Line, st: tuple, loops: list) -> Optional[tuple]:
        t, d = node.text, node.depth
        c, w, pc, av = st
        if t == "n = ctx.steps":  # after a step that ran steps of its own (their count written back)
            self.put(d, t, st)
            return (0, True, pc, av)
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
        m = (_GET.fullmatch(t) or _READ.fullmatch(t)) if " = _L" in t else None  # (the text first: faster)
        if m is not None and self.ns.get(m.group(2)) in av:  # a local a name holds: read from that name
            t = f"{m.group(1)} = {av[self.ns[m.group(2)]]}"
        self.put(d, _plus(t, c) if node.counts else t, st)  # (a line that counts nothing reads n or not at all)
        if t.startswith(("return", "raise")):
            return None
        # (ctx.steps moved on after a call that runs steps of its own: read back by the next line)
        return (c, st[1] and not (node.reads and _RESET.search(t)), pc, self.stores(t, av))

    def stores(self, t: str, av: dict) -> dict:
        """The locals names hold after line `t`: none after a call that may change a local; without those it
        stores in a local or in a name; with the local it stores from a name, or reads into one."""
        if ":=" in t or not self.keeps(t):
            av = {}
        targets = t.split(" = ")[:-1] + ([m.group(1)] if (m := _AUG.match(t)) else []) + \
            ([t[4:]] if t.startswith("del ") else [])
        if not targets:
            return av
        av = dict(av)
        for one in (one for target in targets for one in target.split(", ")):
            if one.startswith("_L[_k") and one.endswith("]") and one[5:-1].isdecimal():  # (`_L[_kN]`)
                av.pop(self.ns.get(one[3:-1]), None)
            elif one.isidentifier():
                av = {k: v for k, v in av.items() if v != one}
        m = _STORE.fullmatch(t) if t.startswith("_L[") else None
        if m is not None:
            av[self.ns.get(m.group(1))] = m.group(2)
        m = _READ.fullmatch(t) if " = _L[" in t else None  # (not a `.get`, which gives None for a local unset)
        if m is not None and self.ns.get(m.group(2)) not in av:
            av[self.ns.get(m.group(2))] = m.group(1)
        return av

    def read(self, chain: list, st: tuple) -> Optional[tuple]:
        """A local read with its unset check (`try: X = _L[K]`, `except KeyError: raise _unset(...)`) of a local that a
        name holds on every path here: `X = NAME` instead (None: not such a read)."""
        if len(chain) != 2 or chain[1].text != "except KeyError:" or len(chain[0].body or ()) != 1 or \
                len(chain[1].body or ()) != 1 or not (chain[1].body or [None])[0].text.startswith("raise _unset("):
            return None
        m = _READ.fullmatch((chain[0].body or [None])[0].text)
        held = None if m is None else st[3].get(self.ns.get(m.group(2)))
        if m is None or held is None:
            return None
        line = f"{m.group(1)} = {held}"
        self.put(chain[0].depth, line, st)
        return (st[0], st[1], st[2], self.stores(line, st[3]))

    def branches(self, chain: list, st: tuple, loops: list) -> Optional[tuple]:
        """An if/elif/else: each branch from the state its test leaves; where they meet, n brought to the least count
        not yet added among them (each branch adds the rest; no 'else' gets one that adds it)."""
        c, w, pc, av = st
        reading = [n.text for n in chain if n.reads]
        if reading:
            if not w:
                st = self.write(chain[0].depth, st)
            if any(_RESET.search(t) for t in reading):  # (ctx.steps moved on: read back after)
                st = (c, False, pc, av)
            if not all(self.keeps(t) for t in reading):
                st = (st[0], st[1], pc, {})
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
        return (least, all(end[1] for end, _at, _d in ends), pc, _common([end[3] for end, _at, _d in ends]))

    def loop(self, node: _Line, st: tuple, loops: list) -> tuple:
        """A loop of steps (it counts, or reads n): n up to date before it and at each pass's end, ctx.steps not known
        to be. A loop of an expression: nothing counted in it; ctx.steps written once before it if it calls."""
        c, w, pc, _av = st
        d = node.depth
        if node.counts:
            if not node.text.startswith("while "):
                raise Unexpected("steps counted in a for loop")
            if c:
                self.put(d, f"n += {c}", st)
            top = (0, False, pc, {})
            self.put(d, node.text, top)
            end = self.under(node, top, loops + [0])
            if end is not None and end[0]:
                self.put(d + 1, f"n += {end[0]}", end)
            return top
        if not w and node.calls:
            st = self.write(d, st)
        st = (c, st[1], pc, {})  # (a name may change from pass to pass)
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
                after, end = self.under(node, st[:3] + ({},), loops), None
            else:  # (the locals that names held before the try and that no line of it may have changed)
                end = self.under(node, st[:3] + (self.through(chain[0], st[3]),), loops)
            if end is not None and t != "try:":
                ends.append(end)
        if body_end is not None:
            ends.append(body_end)
        if chain[-1].text == "finally:":
            if after is None or not ends:
                return None
            return (st[0], after[1] or all(e[1] for e in ends), st[2], after[3])
        if not ends:
            return None
        return (st[0], all(e[1] for e in ends), st[2], _common([e[3] for e in ends]))

    def through(self, node: _Line, av: dict) -> dict:
        """The locals names hold (`av`, {local: name}) that hold at every line of node's block, whichever line an
        error leaves it at: each line's changes taken away as `stores` takes them (none left after a loop, a name
        an `except` binds, or a call that may change a local)."""
        for inner in node.body or ():
            if not av:
                break
            t = inner.text
            if inner.body is not None and (t.startswith(("for ", "while ", "with ", "def ")) or " as " in t):
                return {}
            av = _common([av, self.stores(t, av)])
            if inner.body is not None:
                av = self.through(inner, av)
        return av

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


def _common(held: list) -> dict:
    """The locals each of `held` holds in the same name."""
    return {k: v for k, v in held[0].items() if all(h.get(k) == v for h in held[1:])}


def place(lines: list, ns: dict, pc: int) -> tuple[list, list]:
    """The lines of a function's body (inside its `try`) with positions, counts and writes of ctx.steps placed as
    the module says; and for each line its position and the steps counted on the way that n does not hold yet."""
    p = Placing(ns, pc)
    p.block(_tree(lines, ns), (0, False, pc, {}), [])
    return p.out, p.where
