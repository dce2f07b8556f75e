"""What generated stretches of steps may hold: the helpers their code calls, the names allowed in their source.

Shared by stretches.py (which decides when to write a function) and the writer (steps.py).
"""

from __future__ import annotations

import re
import sys
from types import FunctionType
from typing import Optional

from .expressions import _HELPERS as _EXPRESSION_HELPERS, SOURCE_NAMES as _EXPRESSION_NAMES
from ..dsl.closures.assign import _augmented
from ..dsl.ops import bind_result
from ..runtime.machine import handlers
from ..runtime.decisions import MISSING
from ..runtime.machine.decision_steps import sealed, waits
from ..runtime.machine.questions import decide
from ..runtime.machine.program import _NONE, Frame

# What a function returns: False when it declines (near the step budget) and True when it stopped at an
# instruction of its own frame that the loop runs next (nothing else changed); AGAIN when a signal or a trigger
# changed more (frames, a decision, the end of the game), so the loop looks at the game again first.
AGAIN = 2

# The instructions a function does not start at (a call without the game's programs, a decision, the end; a stack's
# own instructions after its first: the function runs its stack from the start)
_STOPS = {"CALL", "CHOOSE", "SEALED", "RETURN", "STACK_OFFER", "STACK_ONPLAY_NEXT", "STACK_RESOLVE_NEXT",
          "STACK_RESOLVED"}


class _Cannot(Exception):
    """This position is not a place to start a generated function from."""


# ---------------------------------------------------------------- helpers the generated code calls
def _signal_exit(g, f, ins, pc: int, i: int, sig, n: int) -> int:
    """Statement i of the step at pc returned a signal the function does not handle: the loop's own code does."""
    g.steps = n
    f.pc = pc
    f.sub = i
    handlers._signal(g, f, ins, i, sig)
    return AGAIN


def _fire(g, f, pc: int, i: int, n: int) -> int:
    """Statement i - 1 of the step at pc raised events: fire their triggers now, as h_exec does. True when a
    trigger started a sequence: the function stops and the step goes on (from statement i) after it."""
    g.steps = n
    f.pc = pc
    f.sub = i
    if handlers.fire(g):
        return AGAIN
    f.sub = 0
    return 0


def _asks(g, f, ins, pc: int) -> bool:
    """The instruction at pc (a decision, a sealed step, a stack's), which a function counted, run as the loop runs it
    (its handler, then the triggers of any events): False when every answer came at once (bound, the position moved
    on) and the function goes on; True when it leaves (a decision is pending at pc, or triggers fired: the loop
    looks again)."""
    f.pc = pc
    ins.handler(g, f, ins)
    if f.pc == pc:
        return True
    if g._events:  # (a sealed step's reveal, with triggers on it)
        handlers.fire(g)
        return True
    return False


def _raised(g, f, n: int, where: tuple, keep: bool) -> None:
    """An error leaves a function at the line the traceback names in the function's own frame: `where` (its table,
    positions.place) gives the step that line belongs to and the steps counted on the way that n does not hold yet. The
    frame is left at that step, as the loop leaves it when an instruction raises, and the steps counted are the
    loop's (`keep`: not fewer than a callee or an answer wrote itself)."""
    tb = sys.exc_info()[2]
    line = tb.tb_lineno if tb is not None else None
    pc, ahead = where[line] if line is not None and 0 <= line < len(where) else where[0]
    f.pc = pc
    n += ahead
    if not keep or g.steps < n:
        g.steps = n


# ---------------------------------------------------------------- what a line of a function may read or change
# (the lines as positions.place reads them: a header and its block, what a line calls, counts or reads)
_CALL = re.compile(r"([A-Za-z_][\w.]*)\(")
_SAFE_CALLS = frozenset(("type", "len", "abs", "isinstance", "map", "_L.get", "_L.pop", "_ZoneRef",
                         "_CONTAINERS.isdisjoint", "_R.append", "_signal_exit", "_fire", "_waits",
                         "_fired"))  # (_signal_exit and _fire are given the count: they write it themselves; _waits and
# _fired, after a decision asked by the code itself, read it as the decision left it: loader/kinds/decide.write_choose)
_ERRORS = re.compile(r"raise (_unset|_compare_error|_member_error|_compute_error|_RuleError|_k\d+)\(")
_COUNTS = frozenset(("n += 1", "ctx.steps = n = n + 1"))
_AT = re.compile(r"pc = (\d+)$")
_N = re.compile(r"n(?<![\w.]n)\b(?: \+ (\d+))?")  # `n` read (and a number added to it; the letter first: it is
# looked for at once, not tried at every place of a line)
_COMPOUND = ("if ", "elif ", "else:", "while ", "for ", "try:", "except", "finally:", "def ", "with ")
# helpers that never change a frame's locals (they read values, charge work, build errors)
_KEEPS_LOCALS = frozenset(("type", "len", "abs", "isinstance", "map", "_L.get", "_ZoneRef", "_CONTAINERS.isdisjoint", "_R.append",
                           "_scanned", "_member", "_bounded", "_augmented", "_nested", "_compared", "_charge", "_index",
                           "_text", "_text_in", "_number",
                           "_record_scanned", "_decide"))  # (a decision's expressions read locals, and its answer is bound by the line after)
_STEPS = re.compile(r"ctx\.steps(?! = )")  # ctx.steps read


def reads_count(line: str, ns: dict) -> bool:
    """Whether `line` may read ctx.steps: it names it, or calls anything but Python's own pure built-ins, the generic
    getter (ops.make_getattr's: it reads, never charges) and the helpers given the count, or raises an error it builds
    with anything but an error's constructor."""
    if "ctx.steps" in line and _STEPS.search(line):  # (the text first: some ten times faster than the pattern alone)
        return True
    m = _ERRORS.match(line) if line.startswith("raise ") else None
    if m is not None:
        name = m.group(1)
        return name.startswith("_k") and not getattr(ns.get(name), "__name__", "").endswith("_error")
    if "(" not in line:
        return False
    for name in _CALL.findall(line):
        if name in _SAFE_CALLS or name.endswith(".append") and name.startswith("_x"):
            continue
        if name.startswith("_k") and getattr(ns.get(name), "__qualname__", "") == "make_getattr.<locals>.get":
            continue
        return True
    return False


def keeps_locals(line: str, ns: dict) -> bool:
    """Whether `line` surely changes no local of the frame through a call (its own stores aside): it calls only
    helpers that do not, the generic getter, or a log that is told only (the story's: it reads)."""
    if "(" not in line:
        return True
    for name in _CALL.findall(line):
        if name in _KEEPS_LOCALS or name.endswith(".append") and name.startswith("_x"):
            continue
        if name.endswith(".isdisjoint") and type(ns.get(name[:-11])) is frozenset:  # (a set of classes, constant)
            continue
        got = ns.get(name) if name.startswith("_k") else None
        if getattr(got, "__qualname__", "") == "make_getattr.<locals>.get" or getattr(got, "told", False):
            continue
        return False
    return True


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
        got = seen.get(t)
        if got is None:
            got = seen[t] = (reads_count(t, ns), t in _COUNTS or _N.search(t) is not None or
                             (t.startswith("pc = ") and _AT.match(t) is not None))
        node.calls = node.reads = got[0]
        node.counts = got[1]
        if node.body is not None:
            inner = _marked(node.body, ns, seen)
            node.counts |= inner[0]
            node.calls |= inner[1]
        counts |= node.counts
        calls |= node.calls
    return counts, calls


# A call run inline nests two Python calls (the caller's function, _call) around the callee's function: below this
# many frames only, so that a game never comes nearer to Python's recursion limit than by a few dozen calls (deeper
# frames are run by the loop, as before)
INLINE_FRAMES = 12


_new_frame = Frame.__new__


def _call(g, f, pc: int, seq: str, kind: str, args: dict, entries: list) -> bool:
    """The CALL step before `pc`, which a function runs itself (it counted the step, worked out the arguments and
    made sure the call is not too deep): the callee's frame is pushed as Game.push pushes it and the caller's
    position moved on to `pc`, as h_call leaves them; then the callee runs at once through its own generated
    function, if it has one (which returns from it at its end: steps.StepWriter.ret). Whatever happened then, the frames are
    as the loop would have left them.

    False when the callee came back (returned at once) and the loop would go on in f at `pc` with nothing else to
    do first (no decision, no events, not over): the caller's function may go on there itself. True: the caller's
    function leaves (AGAIN) and the loop goes on from the frames as they are.

    Nothing here raises but the callee: the caller's function then leaves the callee's count of steps as it is."""
    frames = g.frames
    if g.headers or g.lapsing:  # a table that shows the start of rounds and turns, or a modifier that may lapse as
        # a sequence starts ('until next turn'): Game.push does it
        g.push(seq, args, True)
        cf = frames[-1]
    else:
        g.frame_counter = fid = g.frame_counter + 1
        # Frame's __init__ done here: called through the type (type_call, then a Python call from C) it cost about
        # 40% more than these stores (some 300 calls a game of the longest bundled ruleset)
        cf = _new_frame(Frame)
        cf.seq = seq
        cf.kind = kind
        cf.pc = 0
        cf.sub = 0
        cf.locals = args
        cf.id = fid
        cf.deferred = _NONE
        cf.mods = False
        frames.append(cf)
        g.locals = args
    f.pc = pc
    if g._events or len(frames) > INLINE_FRAMES:
        return True
    e = entries[0]
    if e.__class__ is not FunctionType:
        return True
    e(g, cf)
    # the loop's checks before it runs f's next position (interpreter.run): f on top again (nothing else can have
    # moved it while it waited under the callee), nothing pending, not over, no events
    # (and above the halt depth: f ran, so it was above it, and the depth is set only before a game runs: scenario.py)
    if g.pending is None and not g.over and not g._events and frames and frames[-1] is f:
        return False
    return True


_HELPERS = {**_EXPRESSION_HELPERS, "__builtins__": {}, "len": len, "_signal_exit": _signal_exit, "_fire": _fire,
            "_augmented": _augmented, "_BaseException": BaseException,
            "_True": True, "_False": False, "_AGAIN": AGAIN, "_call": _call, "_pop_frame": handlers.pop_frame,
            "_bind_result": bind_result,
            "_told_each": handlers.told_each, "_asks": _asks, "_raised": _raised, "_seal": sealed,
            "_decide": decide, "_MISSING": MISSING, "_waits": waits, "_fired": handlers.fire}


# Every name a function's source may hold (checked before each compile, see safesource.py): the helpers, the
# names an expression's source holds, and this writer's own locals and the attributes of games and frames it reads.
SOURCE_NAMES = frozenset(_HELPERS) | _EXPRESSION_NAMES | {
    "f", "n", "pc", "lim", "_C", "_R", "_cv", "_s", "_o", "_i", "_w", "_cw", "work", "_entry", "steps", "max_steps",
    "counts", "reached", "append", "_events", "sub", "_a", "_ans", "frames", "max_depth", "mods", "deferred", "story"}
MADE_NAMES = re.compile(r"_[kr][0-9]+|_x[0-9]+_[0-9]+")  # constants, first-pass flags, renamed expression locals
