"""How generated source is written: the names it may hold, lines at a depth, constants bound by name, compiling.

Security (see expressions.py): every value the code needs is bound in the function's namespace under a
name made here (_k0, _k1, ...); locals are _v0, _v1, ...; `build` checks the source (safesource) before
compiling it.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from operator import attrgetter
from typing import Any, Callable

from ..values import ROLL_FIELDS, Card, Player, Roll, Row, ZoneRef
from ..dsl.builtins import as_list, numbers
from ..dsl.ops import (
    _MISSING, _NUMBER_TYPES, MAX_RANGE, compare_error, compute_error, index, member, member_error,
    negate_error, range_error, text_of, unset_error,
)
from ..dsl.scope import Scope
from ..dsl.guards import (
    _CONTAINERS, COPY_SHIFT, MAX_INT, MAX_VALUES, bounded, charge, compared, nested, number, record_scanned, scanned,
    text_in,
)
from ..diagnostics import RuleError
from . import safesource
from .folding import Folder, cards_known, read_at_once

FEW = 11  # a list of fewer values, none a list or a record, passes guards.bounded and guards.nested untouched
MAX_NODES = 2_000  # a bigger expression keeps its closures (its source would take long to compile)


class Over(Exception):
    """The work a function charging ahead has charged passed the budget (see Writer.source): it is run again by its
    closure, which stops where the budget says."""


_HELPERS: dict[str, Any] = {
    "__builtins__": {},  # nothing but what is listed here
    "type": type, "len": len, "abs": abs, "_SEAT": attrgetter("seat"), "isinstance": isinstance, "list": list, "dict": dict, "map": map, "range": range,
    "str": str, "int": int, "float": float, "bool": bool,
    "KeyError": KeyError, "TypeError": TypeError, "AttributeError": AttributeError, "ZeroDivisionError": ZeroDivisionError,
    "_RuleError": RuleError, "_charge": charge, "_bounded": bounded, "_nested": nested, "_as_list": as_list,
    "_record_scanned": record_scanned,
    "_scanned": scanned, "_compared": compared,
    "_index": index, "_text": text_of, "_text_in": text_in, "_join": "".join, "_ZoneRef": ZoneRef, "_Card": Card, "_Player": Player,
    "_Roll": Roll, "_Row": Row, "_RECORDS": frozenset((dict, Row)),
    "_CONTAINERS": _CONTAINERS, "_LIST_DICT": frozenset((list, dict)), "_NUMBERS": _NUMBER_TYPES, "_INT_FLOAT": (int, float), "_MAXI": MAX_INT,
    "_MAXR": MAX_RANGE, "_NO_BUDGET": float("inf"), "_MAX_VALUES": MAX_VALUES, "_COPY_SHIFT": COPY_SHIFT, "_MISSING": _MISSING,
    "_SHORT": 16, "_FEW": FEW, "_ONE": 1, "_ZERO": 0, "_ZERO_DIV": "division by zero",
    "_unset": unset_error, "_compute_error": compute_error, "_compare_error": compare_error,
    "_negate_error": negate_error, "_member_error": member_error, "_member": member,
    "_range_error": range_error, "_Over": Over, "_BaseException": BaseException,
    "_total": sum, "_numbers": numbers, "_number": number, "_PLAIN": frozenset((int, float)),
}

# Every name generated source may hold (checked before each compile, see safesource.py): the helpers above,
# the function's own names, and the attributes and methods of the engine's objects that the code reads.
SOURCE_NAMES = frozenset(_HELPERS) | {"ctx", "_L", "_saved", "_expression", "_function", "locals", "vars", "players",
                                      "pvars", "seat", "attrs", "classes", "append", "get", "pop", "zone_cards", "zones", "issuperset",
                                      "isdisjoint", "work", "steps", "max_steps", "_cw", "_d", "_left", "_w0", "_room",
                                      "AttributeError", "zone_owner", "_player_zones", "key", "zone", "_families", "family_zones", "modifiers", "modifier_total",
                                      "extend", "move", "draw", "set_mark", "add_modifier", "remove_modifier",
                                      "shuffle", "roll", "tally", "family_member",
                                      *ROLL_FIELDS}
MADE_NAMES = re.compile(r"_[kv][0-9]+")  # the namespace's constants and the function's locals

_OVER = "ctx.steps + _cw > ctx.max_steps"  # the test of a charge, until the budget left is worked out once (build)
_LOOPED = 8  # a charge in a loop runs about this often
_AHEAD = 2  # a function that charges more often than this charges ahead (see Writer.source)
_CHARGE = "#charge "  # a charge's line until `source` writes it out: "#charge UNITS<tab>SPAN"
_CHECK = "#check"  # where a function that charges ahead looks at its work so far (Writer.check_budget)
_UNKNOWN = object()  # (Writer.listed: a value not fixed at load)


class Unsupported(Exception):
    """The node is left to its closure."""


class Writer:
    """Writes the lines of one Python function; the node writers (operators.py, calls.py) build on it."""

    def __init__(self, scope: Scope, made: dict, recompile: Callable):
        self.scope = scope
        self.made = made  # compiler.record: what each node became, (node, (closure, type)) by id(node)
        self.recompile = recompile
        self.locals = set(scope.locals)  # the ruleset's local names in the current scope
        self.bound: dict[str, str] = {}  # local names held in Python locals here -> those locals
        # a loop's item -> the local of a flag that is true when the item is a card (the loop's items are a zone's,
        # decided once before it: zones hold only cards); the flags read are noted, the others are never written
        self.cards: dict[str, str] = {}
        self.flags_read: set[str] = set()
        self.people: set[str] = set()  # locals that hold a player (a loop's item over the game's players)
        self.zone_refs: set[str] = set()  # locals that hold a zone ref (a player's zone of such a player)
        self.zone_lists: set[str] = set()  # locals that hold a list of zone refs only (a fixed family's zones)
        self.ns = dict(_HELPERS)
        self.lines: list[str] = []
        self.depth = 1
        self.temps = 0
        self.fallbacks = 0  # closures called from the source: they read locals from ctx.locals
        self.reads_locals = False  # the source reads ctx.locals (as _L)
        self.nodes = 0
        self.known: dict = {}  # what facts.py found of this tree's nodes (by id; the nodes kept with it)
        self.charged = 0  # how often the charges written run, roughly (one in a loop counts _LOOPED)
        self.looping = 0  # how many loops deep the lines being written are
        self.folder = Folder(scope)  # the parts of the expression fixed at load (shared with functions written inline)
        self.inlining = 0  # how many ruleset functions deep this is written inline
        self.inlined_names: frozenset = frozenset()
        self.zone_flag: str | None = None  # the flag of the last loop written over a zone's cards, if read (calls.py)
        # a part of an expression the same in every pass of the loops around it, worked out at its first pass only
        # (expressions.Generator._kept): the locals whose value changes from pass to pass, the kept values' locals
        # to be set to _MISSING before the outermost loop, and whether such a part is being written now
        self.varying: set[str] = set()
        self.kept: list[str] = []
        self.kept_end: tuple = ()  # where the lines of the last part kept end (Generator.keep_lines)
        # the blocks open where the line being written stands (a token each), and the calls worked out already on the
        # way there that give the same value again (Generator.same_call: key -> (local, the blocks open at it))
        self.path: tuple = ()
        self.memo: dict = {}
        self.keeping = False

    def const(self, value: Any) -> str:
        name = f"_k{len(self.ns)}"
        self.ns[name] = value
        return name

    def temp(self) -> str:
        self.temps += 1
        return f"_v{self.temps}"

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def charge(self, units: str, span: str) -> None:
        """guards.charge(ctx, units, span) written out (by `source`, which writes it one of two ways, see there): noted
        here as a line of its own."""
        self.charged += _LOOPED if self.looping else 1
        self.emit(f"{_CHARGE}{units}\t{span}")

    def _charged(self, pad: str, units: str, span: str, left: str | None, ahead: bool) -> list[str]:
        """A charge's lines: ahead (`ahead`, see `source`), the units added to the work of this run (a local);
        else the work added and the budget checked here, without a call (guards.charge raises the error when over,
        or does it all for a context without these fields)."""
        if ahead:
            return [f"{pad}_d += {units}"]
        over = _OVER if left is None else f"_cw > {left}"
        return [pad + line for line in ("try:", f"    ctx.work = _cw = ctx.work + ({units})", f"    if {over}:",
                                        f"        _charge(ctx, _ZERO, {span})", "except AttributeError:",
                                        f"    _charge(ctx, {units}, {span})")]

    def check_budget(self) -> None:
        """Where a function that charges ahead (see `source`) looks at the work of this run so far: after each loop, and
        before each pass of a loop with a loop inside (no loop runs more than MAX_VALUES times)."""
        self.emit(_CHECK)

    def scanned(self, length: str, span: str) -> None:
        """A scan of `length` values charged as builtins._scan charges it: nothing under _SHORT values."""
        with self.block(f"if {length} >= _SHORT:"):
            self.emit(f"_scanned(ctx, {length}, {span})")

    def nested(self, out: str, span: str, short: bool = False) -> None:
        """guards.nested(out) written out for the common case: a list of fewer than 11 values none of which is a list
        or a record passes it untouched (see OperatorNodes._bound_test), so only other lists call it (`short`: so)."""
        test = f"not _CONTAINERS.isdisjoint(map(type, {out}))"
        with self.block(f"if {test}:" if short else f"if len({out}) >= _FEW or {test}:"):
            self.emit(f"_nested({out}, {span})")

    def zone_list(self, ref: str, out: str) -> None:
        """Write `out = ctx.zone_cards(ref)` for `ref` known to be a zone ref, without the call: the game's own list
        of the zone's cards read from its table (zones are never taken away, so only a ref of another table misses
        it, and zone_cards raises its error)."""
        with self.block("try:"):
            self.emit(f"{out} = ctx.zones[{ref}]")
        with self.block("except KeyError:"):
            self.emit(f"{out} = ctx.zone_cards({ref})")

    def listed(self, got: str, out: str, otherwise: str, known: Any = _UNKNOWN) -> None:
        """Write `out = got` when it is a list, its cards (the zone's own list, see zone_list) when it is a zone ref,
        else `otherwise`; `known` is its value when fixed at load (the test is then made here)."""
        if got in self.zone_refs:  # a zone ref, whatever it names
            self.zone_list(got, out)
            return
        if known is not _UNKNOWN:
            if type(known) is ZoneRef:
                self.zone_list(got, out)
            else:
                self.emit(f"{out} = {got} if type({got}) is list else {otherwise}")
            return
        with self.block(f"if type({got}) is list:"):
            self.emit(f"{out} = {got}")
        with self.block(f"elif type({got}) is _ZoneRef:"):
            self.zone_list(got, out)
        with self.block("else:"):
            self.emit(f"{out} = {otherwise}")

    def block(self, header: str) -> "_Block":
        """`with self.block(header):` writes `header` and the lines written inside one level deeper."""
        self.emit(header)
        self.depth += 1
        self.path += (object(),)
        return _Block(self)

    @contextmanager
    def apart(self, out: list):
        """Write into `out`, at depth 0, instead of into the function (spliced in later, see `splice`)."""
        saved = self.lines, self.depth, self.path
        self.lines, self.depth, self.path = out, 0, self.path + (object(),)
        try:
            yield
        finally:
            self.lines, self.depth, self.path = saved

    def splice(self, lines: list) -> None:
        pad = "    " * self.depth
        self.lines.extend(pad + line for line in lines)

    def source(self, name: str, params: str, prologue: list[str], body_end: str, check: bool = True,
               again: str | None = None) -> str:
        """The source of the function `name`, checked (safesource.check raises on anything the writer never writes)
        unless `check` is false (it is checked when compiled).

        A function that charges work more than once (or in a loop) works out the budget left once, first: the
        game's steps and budget do not change while an expression runs, so each charge compares its total with
        that (a context without them has no budget, as guards.charge says).

        One that charges more often than that, given `again` (the call of the reference's closure of the same
        expression, which must draw nothing by chance: see Generator.function_source), charges ahead: each charge
        only adds its units to a local, and the budget is looked at once, at the end (or when an error leaves it,
        and after each loop, see check_budget). The work charged only ever grows, so when the total is within the
        budget no charge on the way could have passed it, in this code or in the closures', and the work is added to
        the game's at once. When it is not, the game's work is put back as it was and the closure runs the
        expression again from the start: it charges as it goes and stops with the error the budget gives, at the
        same place (nothing else an expression does changes the game; what the functions it calls charged to the
        game's work themselves is in the total, and put back too)."""
        ahead = again is not None and self.charged > _AHEAD
        left = self.temp() if self.charged > 1 and not ahead else None
        lines = []
        for line in self.lines:
            code = line.lstrip() if "#" in line else ""  # (a marker's line only: no other line holds a `#`)
            if code[:1] != "#":
                lines.append(line)
            elif code.startswith(_CHARGE):
                units, span = code[len(_CHARGE):].split("\t")
                lines += self._charged(line[:len(line) - len(code)], units, span, left, ahead)
            elif ahead:  # _CHECK
                lines += [line.replace(_CHECK, "if _d > _room:"), line.replace(_CHECK, "    raise _Over")]
        lines = cards_known(read_at_once(lines, "\n".join([*prologue, *lines, body_end])))
        if ahead:
            result = body_end.strip()
            assert result.startswith("return ")
            looks = any(line.lstrip().startswith("if _d > _room:") for line in lines)
            prologue = ["    try:", "        _w0 = ctx.work", "        _left = ctx.max_steps - ctx.steps",
                        "    except AttributeError:", f"        return {again}",
                        *(["    _room = _left - _w0"] if looks else []), "    _d = _ZERO", *prologue, "    try:"]
            lines = ["    " + line for line in lines]
            lines += ["        _cw = ctx.work + _d", "        if _cw <= _left:", "            ctx.work = _cw",
                      f"            {result}", "    except _BaseException:", "        _cw = ctx.work + _d",
                      "        if _cw <= _left:", "            ctx.work = _cw", "            raise",
                      "    ctx.work = _w0"]
            body_end = f"    return {again}"
        elif left is not None:
            prologue = ["    try:", f"        {left} = ctx.max_steps - ctx.steps", "    except AttributeError:",
                        f"        {left} = _NO_BUDGET", *prologue]
        src = "\n".join([f"def {name}({params}):", *prologue, *lines, body_end, ""])
        if check:
            safesource.check(src, SOURCE_NAMES, MADE_NAMES)
        return src

    def build(self, name: str, params: str, prologue: list[str], body_end: str, ns: dict | None = None) -> Callable:
        """The function `name` of the source written (`source`), run in namespace `ns` (a fresh one by default)."""
        return compiled_function(self.source(name, params, prologue, body_end, check=False), name, self.ns, ns)


class _Block:
    """What Writer.block gives: the depth back as it was when the `with` ends, however it ends (a class, not a
    contextlib generator: a writer opens some twenty blocks per expression)."""

    __slots__ = ("writer",)

    def __init__(self, writer: Writer) -> None:
        self.writer = writer

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:  # (an error goes on)
        self.writer.depth -= 1
        self.writer.path = self.writer.path[:-1]


def by_flag(body: list[str], flag: str) -> tuple[list[str], list[str]] | None:
    """The lines of a loop's body (at depth 0) written once for items known to be cards (`flag`, see Writer.cards, is
    true) and once for the other case, each without the tests of the flag: a pass over a zone's cards then reads each
    attribute or class at once (`X = A if FLAG else B` gives `X = A` and `X = B`; `if not FLAG and C:` is dropped
    from the first, `if C:` in the second). None when the body holds a loop (its copies would multiply) or reads
    the flag some other way."""
    if any(line.lstrip().startswith("for ") for line in body):
        return None
    choice = f" if {flag} else "
    guard = f"if not {flag} and "
    cards: list[str] = []
    other: list[str] = []
    skip = -1  # the depth of a test that never holds for cards: its lines are left out of theirs
    for line in body:
        code = line.lstrip()
        pad = len(line) - len(code)
        if skip >= 0:
            if pad > skip:
                other.append(line)
                continue
            if pad == skip and code.startswith(("else", "elif")):
                return None
            skip = -1
        at = line.find(choice)
        head = _target(line, pad) if at >= 0 else 0
        at = line.find(choice, head) if head else -1
        if at >= 0:  # `X = A if FLAG else B`
            cards.append(line[:at])
            other.append(line[:head] + line[at + len(choice):])
        elif code.startswith(guard):
            skip = pad
            cards.append(line[:pad] + "pass")
            other.append(line[:pad] + "if " + code[len(guard):])
        elif names(line, flag):
            return None
        else:
            cards.append(line)
            other.append(line)
    return cards, other


def _target(line: str, pad: int) -> int:
    """Where the value of the assignment `line` starts (after `X = `, its first word and ` = `), or 0 when it is not
    one of that shape."""
    at = line.find(" ", pad)
    return at + 3 if at > pad and line.startswith(" = ", at) else 0


def names(line: str, name: str) -> bool:
    """`line` holds the word `name` (no letter, digit or `_` right before or after it), as a pattern of the name
    between word boundaries finds it, without a pattern compiled for each name (as costly as a hundred searches)."""
    at = line.find(name)
    while at >= 0:
        end = at + len(name)
        if (at == 0 or not _in_word(line[at - 1])) and (end == len(line) or not _in_word(line[end])):
            return True
        at = line.find(name, at + 1)
    return False


def _in_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def compiled_function(src: str, name: str, consts: dict, ns: dict | None = None) -> Callable:
    """The function `name` that the checked source `src` defines, run in `ns` (a fresh one by default) with the
    helpers and constants of `consts` (compiled once per source, see safesource.compiled)."""
    code = safesource.compiled(src, SOURCE_NAMES, MADE_NAMES, "<rulecraft expr>")
    if ns is None:
        ns = {}
    ns.update(consts)
    exec(code, ns)
    fn = ns.pop(name)
    fn.source = src  # for tests and for reading what was made
    return fn
