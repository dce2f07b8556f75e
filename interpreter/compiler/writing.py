"""How generated source is written: the names it may hold, lines at a depth, constants bound by name, compiling.

Security (see expressions.py): every value the code needs is bound in the function's namespace under a
name made here (_k0, _k1, ...); locals are _v0, _v1, ...; `build` checks the source (safesource) before
compiling it.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Any, Callable

from ..values import ROLL_FIELDS, Card, Player, Roll, Row, ZoneRef
from ..dsl.builtins import as_list
from ..dsl.ops import (
    _MISSING, _NUMBER_TYPES, MAX_RANGE, compare_error, compute_error, container_error, index, member_error,
    negate_error, range_error, text_of, unset_error,
)
from ..dsl.scope import Scope
from ..dsl.guards import _CONTAINERS, COPY_SHIFT, MAX_INT, MAX_VALUES, bounded, charge, compared, nested, scanned
from ..diagnostics import RuleError
from . import safesource
from .folding import Folder

FEW = 11  # a list of fewer values, none a list or a record, passes guards.bounded and guards.nested untouched

_HELPERS: dict[str, Any] = {
    "__builtins__": {},  # nothing but what is listed here
    "type": type, "len": len, "isinstance": isinstance, "list": list, "dict": dict, "map": map, "range": range,
    "str": str, "int": int, "float": float, "bool": bool,
    "KeyError": KeyError, "TypeError": TypeError, "AttributeError": AttributeError, "ZeroDivisionError": ZeroDivisionError,
    "_RuleError": RuleError, "_charge": charge, "_bounded": bounded, "_nested": nested, "_as_list": as_list,
    "_scanned": scanned, "_compared": compared,
    "_index": index, "_text": text_of, "_join": "".join, "_ZoneRef": ZoneRef, "_Card": Card, "_Player": Player,
    "_Roll": Roll, "_Row": Row, "_RECORDS": frozenset((dict, Row)),
    "_CONTAINERS": _CONTAINERS, "_LIST_DICT": frozenset((list, dict)), "_NUMBERS": _NUMBER_TYPES, "_INT_FLOAT": (int, float), "_MAXI": MAX_INT,
    "_MAXR": MAX_RANGE, "_NO_BUDGET": float("inf"), "_MAX_VALUES": MAX_VALUES, "_COPY_SHIFT": COPY_SHIFT, "_MISSING": _MISSING,
    "_SHORT": 16, "_FEW": FEW, "_ONE": 1, "_ZERO": 0, "_ZERO_DIV": "division by zero",
    "_SEQUENCES": (list, tuple, set, frozenset, dict, str),
    "_unset": unset_error, "_compute_error": compute_error, "_compare_error": compare_error,
    "_negate_error": negate_error, "_member_error": member_error, "_container_error": container_error,
    "_range_error": range_error,
}

# Every name generated source may hold (checked before each compile, see safesource.py): the helpers above,
# the function's own names, and the attributes and methods of the engine's objects that the code reads.
SOURCE_NAMES = frozenset(_HELPERS) | {"ctx", "_L", "_saved", "_expression", "_function", "locals", "vars", "players",
                                      "pvars", "seat", "attrs", "classes", "append", "get", "pop", "zone_cards",
                                      "isdisjoint", "work", "steps", "max_steps", "_cw", "AttributeError",
                                      "zone_owner", "move", "draw", "shuffle", "roll", "tally", "family_member",
                                      *ROLL_FIELDS}
MADE_NAMES = re.compile(r"_[kv][0-9]+")  # the namespace's constants and the function's locals

_OVER = "ctx.steps + _cw > ctx.max_steps"  # the test of a charge, until the budget left is worked out once (build)
_LOOPED = 8  # a charge in a loop runs about this often


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
        self.ns = dict(_HELPERS)
        self.lines: list[str] = []
        self.depth = 1
        self.temps = 0
        self.fallbacks = 0  # closures called from the source: they read locals from ctx.locals
        self.reads_locals = False  # the source reads ctx.locals (as _L)
        self.nodes = 0
        self.charged = 0  # how often the charges written run, roughly (one in a loop counts _LOOPED)
        self.looping = 0  # how many loops deep the lines being written are
        self.folder = Folder(scope)  # the parts of the expression fixed at load (shared with functions written inline)
        self.inlining = 0  # how many ruleset functions deep this is written inline
        self.inlined_names: frozenset = frozenset()
        self.zone_flag: str | None = None  # the flag of the last loop written over a zone's cards, if read (calls.py)

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
        """guards.charge(ctx, units, span) written out: the work added and the budget checked here, without a
        call (guards.charge raises the error when over, or does it all for a context without these fields)."""
        self.charged += _LOOPED if self.looping else 1
        self.emit("try:")
        self.emit(f"    ctx.work = _cw = ctx.work + ({units})")
        self.emit(f"    if {_OVER}:")
        self.emit(f"        _charge(ctx, _ZERO, {span})")
        self.emit("except AttributeError:")
        self.emit(f"    _charge(ctx, {units}, {span})")

    @contextmanager
    def block(self, header: str):
        self.emit(header)
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1

    @contextmanager
    def apart(self, out: list):
        """Write into `out`, at depth 0, instead of into the function (spliced in later, see `splice`)."""
        saved = self.lines, self.depth
        self.lines, self.depth = out, 0
        try:
            yield
        finally:
            self.lines, self.depth = saved

    def splice(self, lines: list) -> None:
        pad = "    " * self.depth
        self.lines.extend(pad + line for line in lines)

    def source(self, name: str, params: str, prologue: list[str], body_end: str, check: bool = True) -> str:
        """The source of the function `name`, checked (safesource.check raises on anything the writer never writes)
        unless `check` is false (it is checked when compiled).

        A function that charges work more than once (or in a loop) works out the budget left once, first: the
        game's steps and budget do not change while an expression runs, so each charge compares its total with
        that (a context without them has no budget, as guards.charge says)."""
        if self.charged > 1:
            left = self.temp()
            prologue = ["    try:", f"        {left} = ctx.max_steps - ctx.steps", "    except AttributeError:",
                        f"        {left} = _NO_BUDGET", *prologue]
            self.lines = [line.replace(_OVER, f"_cw > {left}") for line in self.lines]
        src = "\n".join([f"def {name}({params}):", *prologue, *self.lines, body_end, ""])
        if check:
            safesource.check(src, SOURCE_NAMES, MADE_NAMES)
        return src

    def build(self, name: str, params: str, prologue: list[str], body_end: str, ns: dict | None = None) -> Callable:
        """The function `name` of the source written (`source`), run in namespace `ns` (a fresh one by default)."""
        return compiled_function(self.source(name, params, prologue, body_end, check=False), name, self.ns, ns)


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
