"""Turn a hot expression into the Python source of one function, so a run costs one call instead of one per node.

The closures of compiler.py stay the reference: every diagnostic, type and name was settled there when the
ruleset loaded, and this module only changes how an expression runs. Each node is written as a few lines
that put its value into a fresh local, in the order the closures evaluate, with the same guards and errors;
a node written nowhere here runs its own closure, called from the generated code (a fallback).

Security: rulesets come from strangers, so none of their text ever enters the source. Every value the
code needs (numbers, texts, names as strings, spans, getters, built-ins, fallback closures) is bound in the
function's namespace under a name made here (_k0, _k1, ...); locals are _v0, _v1, ...; the rest of the source is
Python syntax and the helper names of `_HELPERS`, all written in this module. tests/test_codegen.py checks it.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from types import FunctionType
from typing import Any, Callable

from ...values import CARD_FIELDS, PLAYER_FIELDS, Card, Player, ZoneRef
from .. import ast as A
from ..builtins import REGISTRY, as_list
from ..ops import (
    _MISSING, _NUMBER_TYPES, MAX_RANGE, compare_error, compute_error, container_error, index, make_getattr,
    member_error, negate_error, range_error, rank, run_with_params, text_of, unset_error, RANKINGS,
)
from ..checking import binds_items
from ..scope import RUNTIME_PLAYER_COUNT, RUNTIME_PLAYERS, FunctionDef, Scope
from ..guards import (
    _CONTAINERS, CALL_COST, COPY_SHIFT, MAX_INT, MAX_VALUES, bounded, charge, compared, nested, scalar, scanned,
)
from ...diagnostics import RuleError
from . import safesource

STRICT = False  # tests set it: a failure to generate is raised instead of falling back to the closure
MAX_NODES = 2_000  # a bigger expression keeps its closures (its source would take long to compile)
MAX_INLINE = 2  # ruleset functions written inline in their caller, at most this deep (deeper ones are called)

_HELPERS: dict[str, Any] = {
    "__builtins__": {},  # nothing but what is listed here
    "type": type, "len": len, "isinstance": isinstance, "list": list, "dict": dict, "map": map, "range": range,
    "str": str, "int": int, "float": float, "bool": bool,
    "KeyError": KeyError, "TypeError": TypeError, "ZeroDivisionError": ZeroDivisionError,
    "_RuleError": RuleError, "_charge": charge, "_bounded": bounded, "_nested": nested, "_as_list": as_list,
    "_scanned": scanned, "_compared": compared,
    "_index": index, "_text": text_of, "_join": "".join, "_ZoneRef": ZoneRef, "_Card": Card, "_Player": Player,
    "_CONTAINERS": _CONTAINERS, "_NUMBERS": _NUMBER_TYPES, "_INT_FLOAT": (int, float), "_MAXI": MAX_INT,
    "_MAXR": MAX_RANGE, "_MAX_VALUES": MAX_VALUES, "_COPY_SHIFT": COPY_SHIFT, "_MISSING": _MISSING,
    "_SHORT": 16, "_FEW": 11, "_ONE": 1, "_ZERO": 0, "_ZERO_DIV": "division by zero",
    "_SEQUENCES": (list, tuple, set, frozenset, dict, str),
    "_unset": unset_error, "_compute_error": compute_error, "_compare_error": compare_error,
    "_negate_error": negate_error, "_member_error": member_error, "_container_error": container_error,
    "_range_error": range_error,
}

# Every name generated source may hold (checked before each compile, see safesource.py): the helpers above,
# the function's own names, and the attributes and methods of the engine's objects that the code reads.
SOURCE_NAMES = frozenset(_HELPERS) | {"ctx", "_L", "_saved", "_expression", "_function", "locals", "vars", "players",
                                      "pvars", "seat", "attrs", "classes", "append", "get", "pop", "zone_cards",
                                      "isdisjoint"}
MADE_NAMES = re.compile(r"_[kv][0-9]+")  # the namespace's constants and the function's locals

# The Python operators of the language's operators: the source gets these texts, never the ruleset's.
_ARITH = {"+": "+", "-": "-", "*": "*", "/": "/", "//": "//", "%": "%"}
_EQUALITY = {"==": "==", "!=": "!="}
_ORDERED = {"<": "<", "<=": "<=", ">": ">", ">=": ">="}


class Unsupported(Exception):
    """The node is left to its closure."""


def generate(node: A.Expr, scope: Scope, closure: Callable, target: FunctionType, recompile: Callable) -> FunctionType:
    """Give `target` (a function of hotcode.lazy, with a namespace of its own) code computing `node` as its
    closure does, or code calling the closure when the node cannot be generated; returns `target`.

    `scope` is the scope the expression was compiled in (its local names as they were then); `recompile(node,
    scope)` compiles a node again as at load and returns what each of its nodes became (compiler.record)."""
    try:
        Generator(scope, recompile(node, scope), recompile).function(node, target)
    except Exception:  # RecursionError on a deep tree, SyntaxError past Python's nesting limits, ...
        if STRICT:
            raise
        target.__globals__["_closure"] = closure
        target.__code__ = _call_closure.__code__
    # _warm and _state stay in the namespace: another thread may have entered the function while it still had
    # the code of hotcode._trampoline, and will look them up (hotcode._warm then runs the new code)
    return target


def _call_closure(ctx):
    return _closure(ctx)  # noqa: F821 - a name of the target's namespace, see generate


def generated_function(fd: FunctionDef, scope: Scope, recompile: Callable) -> Callable:
    """fn(ctx, *args) computing a ruleset function's body with its parameters bound, made once per function.

    `scope` is the caller's: the body's differs only by its local names, the parameters (a function keeps no
    scope of its own, which would make a reference cycle: scope -> functions -> function -> scope)."""
    if fd.generated is None:
        if fd.name in _GENERATING:  # cannot happen in a ruleset that loads (E321), but never loop
            raise Unsupported("a function that calls itself")
        _GENERATING.add(fd.name)
        try:
            inner = scope.with_locals(fd.params)
            fd.generated = Generator(inner, recompile(fd.body, inner), recompile).ruleset_function(fd)
        except Exception:
            if STRICT:
                raise
            fd.generated = _closure_function(fd)
        finally:
            _GENERATING.discard(fd.name)
    return fd.generated


_GENERATING: set = set()


def _closure_function(fd: FunctionDef) -> Callable:
    """A ruleset function run by its closure: parameters in ctx.locals, as compiler._user_call does."""
    body, params = fd.fn, fd.params
    return lambda ctx, *values: run_with_params(ctx, params, values, body)


class Generator:
    """Writes one Python function for one expression; a method per kind of node, as in Compiler."""

    def __init__(self, scope: Scope, made: dict, recompile: Callable):
        self.scope = scope
        self.made = made  # compiler.record: what each node became, (node, (closure, type)) by id(node)
        self.recompile = recompile
        self.locals = set(scope.locals)  # the ruleset's local names in the current scope
        self.bound: dict[str, str] = {}  # local names held in Python locals here -> those locals
        self.ns = dict(_HELPERS)
        self.lines: list[str] = []
        self.depth = 1
        self.temps = 0
        self.fallbacks = 0  # closures called from the source: they read locals from ctx.locals
        self.reads_locals = False  # the source reads ctx.locals (as _L)
        self.nodes = 0
        self.inlining = 0  # how many ruleset functions deep this is written inline
        self.inlined_names: frozenset = frozenset()

    # ------------------------------------------------------------ writing
    def const(self, value: Any) -> str:
        name = f"_k{len(self.ns)}"
        self.ns[name] = value
        return name

    def temp(self) -> str:
        self.temps += 1
        return f"_v{self.temps}"

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

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

    def build(self, name: str, params: str, prologue: list[str], body_end: str, ns: dict | None = None) -> Callable:
        """The function `name` of the source written, run in namespace `ns` (a fresh one by default)."""
        src = "\n".join([f"def {name}({params}):", *prologue, *self.lines, body_end, ""])
        safesource.check(src, SOURCE_NAMES, MADE_NAMES)  # raises (the closure runs instead) on anything else
        code = compile(src, "<rulecraft expr>", "exec")
        if ns is None:
            ns = {}
        ns.update(self.ns)
        exec(code, ns)
        fn = ns.pop(name)
        fn.source = src  # for tests and for reading what was made
        return fn

    # ------------------------------------------------------------ whole functions
    def function(self, node: A.Expr, target: FunctionType) -> None:
        """Write `node` as the code of `target`, whose namespace (its globals) gets the generated names."""
        result = self.expr(node)
        prologue = ["    _L = ctx.locals"] if self.reads_locals else []
        fn = self.build("_expression", "ctx", prologue, f"    return {result}", target.__globals__)
        target.__code__ = fn.__code__
        target.source = fn.source

    def ruleset_function(self, fd: FunctionDef) -> Callable:
        """The body with its parameters as Python arguments. ctx.locals is set to them only when a closure inside
        may read it, as compiler._user_call always does (nothing else reads it while an expression runs)."""
        args = []
        for p in fd.params:
            args.append(self.temp())
            self.bound[p] = args[-1]
        result = self.expr(fd.body)
        if not self.fallbacks and not self.reads_locals:
            return self.build("_function", ", ".join(["ctx", *args]), [], f"    return {result}")
        keys = [self.const(p) for p in fd.params]
        body = self.lines
        self.lines = ["    _saved = ctx.locals",
                      "    ctx.locals = _L = {" + ", ".join(f"{k}: {a}" for k, a in zip(keys, args)) + "}",
                      "    try:"]
        self.lines += ["    " + line for line in body]
        self.lines += [f"        return {result}", "    finally:", "        ctx.locals = _saved"]
        return self.build("_function", ", ".join(["ctx", *args]), [], "")

    # ------------------------------------------------------------ nodes
    def expr(self, node: A.Expr) -> str:
        """Write `node`; the result is a name (a local or a constant) that holds its value."""
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise Unsupported("too big")
        entry = self.made.get(id(node))
        if entry is None or entry[0] is not node:
            raise Unsupported("a node the compiler did not see")  # the node around it keeps its closure
        closure = entry[1][0]
        if getattr(closure, "failed", False):
            return self.fallback(closure)
        method = getattr(self, "_g_" + type(node).__name__, None)
        if method is None:
            return self.fallback(closure)
        mark = len(self.lines), self.temps, self.fallbacks, self.reads_locals
        try:
            return method(node)
        except Unsupported:
            # forget what this node began to write; its closure does it all
            del self.lines[mark[0]:]
            self.temps, self.fallbacks, self.reads_locals = mark[1], mark[2], mark[3]
            return self.fallback(closure)

    def fallback(self, closure: Callable) -> str:
        self.fallbacks += 1
        out = self.temp()
        self.emit(f"{out} = {self.const(closure)}(ctx)")
        return out

    def type_of(self, node: A.Expr) -> str:
        return self.made[id(node)][1][1]

    def _g_Num(self, n: A.Num) -> str:
        return self.const(n.value)

    def _g_Const(self, n: A.Const) -> str:
        return self.const(n.value)  # a name even for true/false/none: Python warns of 'None[0]' written as such

    def _g_Str(self, n: A.Str) -> str:
        if n.is_plain:
            return self.const("".join(n.parts))  # type: ignore[arg-type]
        pieces = []
        for part in n.parts:
            if isinstance(part, str):
                pieces.append(self.const(part))
                continue
            v = self.expr(part)
            t = self.temp()
            # as a value reads (text_of), before the next part runs; a whole number is its digits
            self.emit(f"{t} = {v} if type({v}) is str else str({v}) if type({v}) is int else _text({v})")
            pieces.append(t)
        out = self.temp()
        self.emit(f"{out} = _join(({', '.join(pieces)},))")
        size = self.temp()
        self.emit(f"{size} = len({out})")
        with self.block(f"if {size} >= _SHORT:"):  # as guards.bounded does for a text: long texts cost budget
            span = self.const(n.span)
            with self.block(f"if {size} > _MAX_VALUES:"):
                self.emit(f"_bounded({out}, ctx, {span})")  # raises
            self.emit(f"_charge(ctx, {size} >> _COPY_SHIFT, {span})")
        return out

    def _g_Name(self, n: A.Name) -> str:
        name = n.id
        if name in self.locals:
            if name in self.bound:
                return self.bound[name]
            self.reads_locals = True
            out = self.temp()
            with self.block("try:"):
                self.emit(f"{out} = _L[{self.const(name)}]")
            with self.block("except KeyError:"):
                self.emit(f"raise _unset({self.const(name)}, {self.const(n.span)}) from None")
            return out
        sym = self.scope.symbols[name]
        out = self.temp()
        if sym.kind == "var":
            self.emit(f"{out} = ctx.vars[{self.const(name)}]")
        elif sym is RUNTIME_PLAYERS or (sym.kind == "const" and sym.value is RUNTIME_PLAYERS.value):
            self.emit(f"{out} = ctx.players")
        elif sym is RUNTIME_PLAYER_COUNT or (sym.kind == "const" and sym.value is RUNTIME_PLAYER_COUNT.value):
            self.emit(f"{out} = len(ctx.players)")
        elif sym.kind in ("player_zone", "sequence", "modifier", "event", "dice"):
            raise Unsupported("not a value")  # the compiler reported it; its closure raises
        else:
            return self.const(sym.value)
        return out

    def _g_Attr(self, n: A.Attr) -> str:
        """As compiler._fast_attr: a player's variable or zone and a card's attribute read inline, the rest by the
        generic getter (which also raises the errors)."""
        obj = self.expr(n.obj)
        name, sc = n.name, self.scope
        get = f"{self.const(make_getattr(name, sc))}({obj}, ctx, {self.const(n.span)})"
        key = self.const(name)
        out = self.temp()
        if name in sc.marks or name in CARD_FIELDS or name in PLAYER_FIELDS:
            self.emit(f"{out} = {get}")
        elif name in sc.player_vars:
            self.emit(f"{out} = ctx.pvars[{obj}.seat][{key}] if type({obj}) is _Player else {get}")
        elif name in sc.player_zones:
            refs = self.const({})  # zone refs are interned: one per seat, kept at hand
            with self.block(f"if type({obj}) is _Player:"):
                self.emit(f"{out} = {refs}.get({obj}.seat)")
                with self.block(f"if {out} is None:"):
                    self.emit(f"{out} = {refs}[{obj}.seat] = _ZoneRef({key}, {obj}.seat)")
            with self.block("else:"):
                self.emit(f"{out} = {get}")
        elif name in sc.card_attrs:
            self.emit(f"{out} = {obj}.attrs[{key}] if type({obj}) is _Card and {key} in {obj}.attrs else {get}")
        else:
            self.emit(f"{out} = {get}")
        return out

    def _g_Index(self, n: A.Index) -> str:
        obj = self.expr(n.obj)
        key = self.expr(n.key)
        out = self.temp()
        # a list with a whole number inside it is read inline; everything else (and every error) by index()
        self.emit(f"{out} = {obj}[{key}] if type({obj}) is list and type({key}) is int and "
                  f"-len({obj}) <= {key} < len({obj}) else _index({obj}, {key}, ctx, {self.const(n.span)})")
        return out

    def _g_Call(self, n: A.Call) -> str:
        fd = self.scope.functions.get(n.func)
        if fd is not None:
            return self._user_call(n, fd)
        if n.func in RANKINGS and (n.kwargs or n.func != "sorted" or binds_items(n)):
            return self._ranking(n)
        b = REGISTRY[n.func]
        names = [kw.name for kw in n.kwargs]
        if len(set(names)) != len(names):
            raise Unsupported("a named argument given twice")  # the closure keeps the last one: leave it that way
        args = [self.expr(a) for a in n.args]
        kwargs = [(self.const(kw.name), self.expr(kw.value)) for kw in n.kwargs]
        impl, span = self.const(b.fn), self.const(n.span)
        out = self.temp()
        if kwargs:
            named = "**{" + ", ".join(f"{k}: {v}" for k, v in kwargs) + "}"
            self.emit(f"{out} = {impl}(ctx, {', '.join([span, *args, named])})")
        elif b.fn in _SIZES and len(args) == 1:  # count() and empty() of a list or a zone, read inline
            a = args[0]
            size = (f"len({a}) if type({a}) is list else len(ctx.zone_cards({a})) if type({a}) is _ZoneRef "
                    f"else {impl}(ctx, {span}, {a})")
            self.emit(f"{out} = {size}" if b.fn is _COUNT else
                      f"{out} = len({a}) == _ZERO if type({a}) is list else len(ctx.zone_cards({a})) == _ZERO "
                      f"if type({a}) is _ZoneRef else {impl}(ctx, {span}, {a})")
        else:
            self.emit(f"{out} = {impl}(ctx, {', '.join([span, *args])})")
        return out

    def _user_call(self, n: A.Call, fd: FunctionDef) -> str:
        """As compiler._user_call: the call is charged first, the arguments run in order, then the body (made
        into a function of its own, with the parameters as Python arguments)."""
        if n.kwargs or len(n.args) != len(fd.params) or fd.fn is None or getattr(fd.fn, "failed", False):
            raise Unsupported("a call the compiler refused")
        cost = 1 if len(fd.params) in (1, 2) else CALL_COST  # what the closures charge, arity by arity
        self.emit(f"_charge(ctx, {self.const(cost)}, {self.const(n.span)})")
        args = [self.expr(a) for a in n.args]
        inline = self._inline(fd, args)
        if inline is not None:
            return inline
        out = self.temp()
        self.emit(f"{out} = {self.const(generated_function(fd, self.scope, self.recompile))}({', '.join(['ctx', *args])})")
        return out

    def _inline(self, fd: FunctionDef, args: list[str]) -> str | None:
        """The body of a ruleset function written here, its parameters bound to the arguments' locals, when it
        needs nothing from ctx.locals (no closure falls back inside it): what its generated function would run,
        without the call. Two levels deep at most; None leaves the call as it is."""
        if self.inlining >= MAX_INLINE or fd.name in self.inlined_names:
            return None
        inner = self.scope.with_locals(fd.params)
        try:
            sub = Generator(inner, self.recompile(fd.body, inner), self.recompile)
        except Exception:  # noqa: BLE001 - the call stays a call
            return None
        sub.ns, sub.temps, sub.nodes, sub.depth = self.ns, self.temps, self.nodes, self.depth
        sub.bound = dict(zip(fd.params, args))
        sub.inlining = self.inlining + 1
        sub.inlined_names = self.inlined_names | {fd.name}
        try:
            result = sub.expr(fd.body)
        except Unsupported:
            return None
        if sub.fallbacks or sub.reads_locals:
            return None  # the function would bind its parameters in ctx.locals for those: leave it a call
        self.lines.extend(sub.lines)
        self.temps, self.nodes = sub.temps, sub.nodes
        return result

    def _ranking(self, n: A.Call) -> str:
        """As compile_lists.ListsMixin._ranking: the items, then each item's key with the item's name bound (a Python
        local, also written to ctx.locals when a closure inside reads it there), then the order of the keys."""
        binding = n.args[0]
        got = self.expr(binding.right)
        span = self.const(binding.right.span)
        items, keys, item = self.temp(), self.temp(), self.temp()
        self.emit(f"{items} = list(ctx.zone_cards({got})) if type({got}) is _ZoneRef else list(_as_list(ctx, {got}, {span}))")
        self.emit(f"_charge(ctx, len({items}), {span})")
        self.emit(f"{keys} = []")
        by = next(kw.value for kw in n.kwargs if kw.name == "by")
        self._loop_over(binding.left.id, items, item, lambda: self.emit(f"{keys}.append({self.expr(by)})"))
        desc = next((kw.value for kw in n.kwargs if kw.name == "descending"), None)
        flag = self.expr(desc) if desc is not None else self.const(False)
        out = self.temp()
        self.emit(f"{out} = {self.const(rank)}({self.const(n.func)}, {items}, {keys}, {flag}, {self.const(n.span)})")
        return out

    def _loop_over(self, var: str, items: str, item: str, write_body: Callable) -> None:
        """Write `for item in items:` with the ruleset's name `var` bound to the item while `write_body()` writes the
        body; the name is also put in ctx.locals (and the old value back after) when a closure inside reads it."""
        saved_bound, saved_locals = dict(self.bound), set(self.locals)
        self.bound[var] = item
        self.locals.add(var)
        fallbacks = self.fallbacks
        body: list[str] = []
        try:
            with self.apart(body):
                write_body()
        finally:
            self.bound, self.locals = saved_bound, saved_locals
        if self.fallbacks == fallbacks:
            with self.block(f"for {item} in {items}:"):
                self.splice(body)
            return
        self.reads_locals = True
        key, saved = self.const(var), self.temp()
        self.emit(f"{saved} = _L.get({key}, _MISSING)")
        with self.block("try:"):
            with self.block(f"for {item} in {items}:"):
                self.emit(f"_L[{key}] = {item}")
                self.splice(body)
        with self.block("finally:"):
            with self.block(f"if {saved} is _MISSING:"):
                self.emit(f"_L.pop({key}, None)")
            with self.block("else:"):
                self.emit(f"_L[{key}] = {saved}")

    def _g_ListLit(self, n: A.ListLit) -> str:
        items = [self.expr(i) for i in n.items]
        out = self.temp()
        self.emit(f"{out} = [{', '.join(items)}]")
        if not all(scalar(i, REGISTRY, self.scope.functions) for i in n.items):  # whatever the types say
            self.emit(f"_nested({out}, {self.const(n.span)})")
        return out

    def _g_Comprehension(self, n: A.Comprehension) -> str:
        """As compile_lists.ListsMixin._e_Comprehension. The variable is a Python local; it is also written to ctx.locals (and
        the old value put back after) only when a closure inside the loop may read it there."""
        got = self.expr(n.iterable)
        span = self.const(n.iterable.span)
        items, out, item = self.temp(), self.temp(), self.temp()
        # a zone's own card list is read in place (expressions never move cards); a list is its own list
        self.emit(f"{items} = {got} if type({got}) is list else ctx.zone_cards({got}) if type({got}) is _ZoneRef "
                  f"else _as_list(ctx, {got}, {span})")
        self.emit(f"_charge(ctx, len({items}), {span})")
        self.emit(f"{out} = []")

        var = n.var

        def body() -> None:
            if n.condition is not None:
                self.test(n.condition, "continue")
            value = item if isinstance(n.element, A.Name) and n.element.id == var else self.expr(n.element)
            self.emit(f"{out}.append({value})")

        self._loop_over(var, items, item, body)
        same = isinstance(n.element, A.Name) and n.element.id == var
        if not same and not scalar(n.element, REGISTRY, self.scope.functions):  # as the closure: whatever the types say
            self.emit(f"_nested({out}, {span})")
        return out

    def test(self, node: A.Expr, otherwise: str) -> None:
        """Write `otherwise` (a jump) to run when `node` is false; 'a and b' as one test after another."""
        if isinstance(node, A.BinOp) and node.op == "and" and self._plain(node):
            self.test(node.left, otherwise)
            self.test(node.right, otherwise)
            return
        v = self.expr(node)
        with self.block(f"if not {v}:"):
            self.emit(otherwise)

    def _plain(self, node: A.Expr) -> bool:
        """The node is written here (not left to a failing closure), so its parts can be written one by one."""
        entry = self.made.get(id(node))
        return entry is not None and entry[0] is node and not getattr(entry[1][0], "failed", False)

    def _g_Unary(self, n: A.Unary) -> str:
        v = self.expr(n.operand)
        out = self.temp()
        if n.op == "not":
            self.emit(f"{out} = not {v}")
            return out
        with self.block(f"if isinstance({v}, bool) or not isinstance({v}, _INT_FLOAT):"):
            self.emit(f"raise _negate_error({v}, {self.const(n.span)})")
        self.emit(f"{out} = -{v}")
        return out

    def _g_BinOp(self, n: A.BinOp) -> str:
        if n.op in ("and", "or"):
            out = self.temp()
            self.emit(f"{out} = {self.expr(n.left)}")
            with self.block(f"if {out}:" if n.op == "and" else f"if not {out}:"):
                self.emit(f"{out} = {self.expr(n.right)}")
            return out
        py = _ARITH.get(n.op)
        if py is None:
            raise Unsupported(n.op)
        a = self.expr(n.left)
        b = self.expr(n.right)
        op, span = self.const(n.op), self.const(n.span)
        out, t = self.temp(), self.temp()
        if n.op != "+":  # Python would repeat a text or list ('ab' * 10**9) or format one ('%9999999d' % 1)
            with self.block(f"if type({a}) not in _NUMBERS or type({b}) not in _NUMBERS:"):
                self.emit(f"raise _compute_error({a}, {op}, {b}, {span})")
        with self.block("try:"):
            self.emit(f"{out} = {a} {py} {b}")
        with self.block("except ZeroDivisionError:"):
            self.emit(f"raise _RuleError(_ZERO_DIV, {span}) from None")
        with self.block("except TypeError:"):
            self.emit(f"raise _compute_error({a}, {op}, {b}, {span}) from None")
        self.emit(f"{t} = type({out})")
        # a runaway number, or a text or list that may be too long, goes through the guard (a short flat list
        # would pass it untouched: guards.bounded charges nothing under _SHORT values, and nested() finds no list
        # and at most 10 texts, which cannot pass MAX_CHARS)
        with self.block(f"if {t} is not float and ({t} is not int or not -_MAXI <= {out} <= _MAXI) and not "
                        f"({t} is list and len({out}) < _FEW and _CONTAINERS.isdisjoint(map(type, {out}))):"):
            self.emit(f"{out} = _bounded({out}, ctx, {span})")
        return out

    def _g_Compare(self, n: A.Compare) -> str:
        out = self.temp()
        if n.op in ("in", "not in"):
            container = self.expr(n.right)  # the container runs first, as in the closure
            item = self.expr(n.left)
            span = self.const(n.span)
            with self.block(f"if isinstance({container}, _ZoneRef):"):
                cards = self.temp()
                self.emit(f"{cards} = ctx.zone_cards({container})")
                with self.block(f"if len({cards}) >= _SHORT:"):  # a scan costs budget by its length
                    self.emit(f"_scanned(ctx, len({cards}), {span})")
                self.emit(f"{out} = {item} in {cards}")
            with self.block(f"elif isinstance({container}, _SEQUENCES):"):
                with self.block(f"if type({container}) is list and len({container}) >= _SHORT:"):
                    self.emit(f"_scanned(ctx, len({container}), {span})")
                with self.block("try:"):
                    self.emit(f"{out} = {item} in {container}")
                with self.block("except TypeError:"):
                    self.emit(f"raise _member_error({item}, {container}, {span}) from None")
            with self.block("else:"):
                self.emit(f"raise _container_error({container}, {span})")
            if n.op == "not in":
                self.emit(f"{out} = not {out}")
            return out
        a = self.expr(n.left)
        b = self.expr(n.right)
        if n.op in _EQUALITY:
            if _is_none(n.left) or _is_none(n.right):
                # no value of the language equals none but none itself (a player's or a zone family's __eq__
                # says False): 'is' gives the same answer without calling them
                self.emit(f"{out} = {a} {'is' if n.op == '==' else 'is not'} {b}")
                return out
            with self.block(f"if type({a}) is list or type({a}) is dict:"):  # compared value by value: charged
                self.emit(f"_compared(ctx, {a}, {b}, {self.const(n.span)})")
            self.emit(f"{out} = {a} {_EQUALITY[n.op]} {b}")
            return out
        py = _ORDERED.get(n.op)
        if py is None:
            raise Unsupported(n.op)
        with self.block(f"if type({a}) is list:"):
            self.emit(f"_compared(ctx, {a}, {b}, {self.const(n.span)})")
        with self.block("try:"):
            self.emit(f"{out} = {a} {py} {b}")
        with self.block("except TypeError:"):
            self.emit(f"raise _compare_error({a}, {self.const(n.op)}, {b}, {self.const(n.span)}) from None")
        return out

    def _g_IsClass(self, n: A.IsClass) -> str:
        v = self.expr(n.obj)
        out = self.temp()
        cls = self.const(n.cls)
        self.emit(f"{out} = isinstance({v}, _Card) and {cls} in {v}.classes")
        if n.negate:
            self.emit(f"{out} = not {out}")
        return out

    def _g_Ternary(self, n: A.Ternary) -> str:
        out = self.temp()
        cond = self.expr(n.cond)  # the condition runs first
        with self.block(f"if {cond}:"):
            self.emit(f"{out} = {self.expr(n.then)}")
        with self.block("else:"):
            self.emit(f"{out} = {self.expr(n.other)}")
        return out

    def _g_Range(self, n: A.Range) -> str:
        a = self.expr(n.low)
        b = self.expr(n.high)
        span = self.const(n.span)
        with self.block(f"if not isinstance({a}, int) or not isinstance({b}, int) or isinstance({a}, bool) "
                        f"or isinstance({b}, bool) or {b} - {a} >= _MAXR:"):
            self.emit(f"raise _range_error({a}, {b}, {span})")
        out = self.temp()
        self.emit(f"{out} = list(range({a}, {b} + _ONE))")
        return out


def _is_none(node: A.Expr) -> bool:
    return isinstance(node, A.Const) and node.value is None


_COUNT = REGISTRY["count"].fn
_SIZES = (_COUNT, REGISTRY["empty"].fn)
