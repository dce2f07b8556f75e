"""Compile AST nodes once, at load time, into closures `fn(ctx)`; names are resolved here.

`ctx` is the running game (see `runtime.game.Game`): it offers `locals`, `vars`, `players`
and a few primitive operations (zone_cards, move, draw, roll, ...). Statements return None
to go on, or a control `Signal` (break, continue, end, call, suspend) for the interpreter.
"""

from __future__ import annotations

import operator
import os
import threading
import weakref
from dataclasses import dataclass, field
from types import FunctionType
from typing import Any, Callable, Optional

from ..diagnostics import Diagnostic, Span, did_you_mean, error
from ..values import CARD_FIELDS, PLAYER_FIELDS, ROLL_FIELDS, ZONE_FIELDS, Card, FamilyRef, Player, Roll, ZoneRef
from . import ast as A
from .builtins import REGISTRY, as_list, describe
from .guards import _CONTAINERS, CALL_COST, MAX_INT, MAY_HOLD_CONTAINERS, bounded, charge, nested
from ..diagnostics import RuleError

Fn = Callable[[Any], Any]


# ------------------------------------------------------------------ signals
class Signal:
    __slots__ = ()


@dataclass(frozen=True)
class BreakSignal(Signal):
    loop: Optional[str]
    span: Span


@dataclass(frozen=True)
class ContinueSignal(Signal):
    loop: Optional[str]
    span: Span


@dataclass(frozen=True)
class EndSignal(Signal):
    kind: str
    span: Span


@dataclass(frozen=True)
class CallSignal(Signal):
    sequence: str
    args: dict
    span: Span


class SuspendSignal(Signal):
    """The statement waits for a decision; it runs again once the decision is applied."""


SUSPEND = SuspendSignal()


# ------------------------------------------------------------------ scope
@dataclass(frozen=True)
class Symbol:
    kind: str  # var, param, option, zone, family, table, dice, modifier, event, sequence, const
    value: Any = None
    type: str = "any"
    detail: Any = None  # for a family: 'dynamic' or the keys


_KIND_WORDS = {"var": "variable", "const": "constant", "player_zone": "zone per player", "family": "zone family"}


def kind_word(sym: Symbol) -> str:
    """What a symbol is, in the words a ruleset author uses: 'a parameter', 'an option', ..."""
    word = sym.detail if sym.kind == "const" and isinstance(sym.detail, str) else _KIND_WORDS.get(sym.kind, sym.kind)
    return ("an " if word[:1] in "aeiou" else "a ") + word


@dataclass
class Scope:
    """What names mean: game-wide symbols, plus the local names of one sequence."""

    symbols: dict[str, Symbol]
    player_vars: set[str]
    player_zones: set[str]
    card_attrs: set[str]
    card_classes: set[str]
    table_columns: set[str]
    marks: dict[str, Any]  # card variables and their defaults
    dice: dict[str, Any]
    locals: set[str] = field(default_factory=set)
    functions: dict[str, "FunctionDef"] = field(default_factory=dict)
    metrics: dict[str, str] = field(default_factory=dict)  # metric id -> its kind (tally, per_player, per_game)

    def with_locals(self, names) -> "Scope":
        return Scope(self.symbols, self.player_vars, self.player_zones, self.card_attrs, self.card_classes,
                     self.table_columns, self.marks, self.dice, set(names), self.functions, self.metrics)

    def all_attributes(self) -> set[str]:
        return (self.player_vars | self.player_zones | self.card_attrs | self.table_columns | set(self.marks)
                | set(CARD_FIELDS) | set(PLAYER_FIELDS) | set(ZONE_FIELDS) | set(ROLL_FIELDS))

    def visible_names(self) -> set[str]:
        return set(self.symbols) | self.locals


@dataclass
class FunctionDef:
    """A ruleset's own function: a named expression with parameters, compiled once on first use."""

    name: str
    params: tuple[str, ...]
    body: Any  # the AST of the expression, or None when it failed to parse
    span: Span
    fn: Optional[Fn] = None
    compiling: bool = False
    generated: Optional[Callable] = None  # fn(ctx, *args), made by codegen on the first hot call


_BINOPS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
}
_COMPARE = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
_ORDERED = {"<", "<=", ">", ">="}
_NUMBER_TYPES = (int, float, bool)
_ZONE_TYPES = {"zone", "any"}


def _fail(message: str, span: Span) -> Fn:
    def fn(ctx):
        raise RuleError(message, span)

    fn.failed = True  # type: ignore[attr-defined]  # codegen leaves such a node to its closure
    return fn


# The run-time errors of expressions, shared by the closures and the generated code (codegen.py) so both say the same.
def unset_error(name: str, span: Span) -> RuleError:
    return RuleError(f"'{name}' is used before it has a value", span,
                     "give it a value first (let, 'as', a loop or a parameter of the sequence)")


def compute_error(a: Any, op: str, b: Any, span: Span) -> RuleError:
    return RuleError(f"cannot compute {describe(a)} {op} {describe(b)}", span)


def compare_error(a: Any, op: str, b: Any, span: Span) -> RuleError:
    return RuleError(f"cannot compare {describe(a)} {op} {describe(b)}", span)


def negate_error(v: Any, span: Span) -> RuleError:
    return RuleError(f"cannot negate {describe(v)}", span)


def member_error(item: Any, container: Any, span: Span) -> RuleError:
    return RuleError(f"cannot look for {describe(item)} in {describe(container)}", span)


def container_error(container: Any, span: Span) -> RuleError:
    return RuleError(f"'in' needs a list, a zone or text on its right, got {describe(container)}", span)


def range_error(a: Any, b: Any, span: Span) -> RuleError:
    if not isinstance(a, int) or not isinstance(b, int) or isinstance(a, bool) or isinstance(b, bool):
        return RuleError(f"a range needs whole numbers, got {describe(a)}..{describe(b)}", span)
    return RuleError(f"the range {a}..{b} has more than {MAX_RANGE:,} numbers", span,
                     "a game never needs that many; check the bounds")


def run_with_params(ctx, params: tuple, values, body: Fn) -> Any:
    """A ruleset function's body evaluated with its parameters as the locals; the caller's locals come back after."""
    saved = ctx.locals
    ctx.locals = dict(zip(params, values))
    try:
        return body(ctx)
    finally:
        ctx.locals = saved


class Compiler:
    """Turns AST into closures for one scope, collecting diagnostics instead of stopping."""

    def __init__(self, scope: Scope, diagnostics: list[Diagnostic]):
        self.scope = scope
        self.diagnostics = diagnostics

    def report(self, code: str, message: str, span: Span, hint: str | None = None) -> None:
        self.diagnostics.append(error(code, message, span, hint))

    # ---------------------------------------------------------------- expressions
    def expr(self, node: A.Expr) -> tuple[Fn, str]:
        """The closure of `node` and its coarse type. The closure of a whole expression (one not inside another)
        is wrapped so that it is turned into Python source once it is hot (see `_lazy` and codegen.py)."""
        made = _STATE.made
        if made is None:  # a whole expression
            _STATE.made = _INSIDE
            try:
                fn, t = self._expr(node)
            finally:
                _STATE.made = None
            return _lazy(node, fn, self.scope), t
        result = self._expr(node)
        if made is not _INSIDE:  # codegen compiles the expression again to learn what each node becomes
            made[id(node)] = (node, result)
        return result

    def _expr(self, node: A.Expr) -> tuple[Fn, str]:
        method = getattr(self, "_e_" + type(node).__name__)
        try:
            return method(node)
        except RecursionError:
            self.report("E104", "the expression is nested too deeply", node.span)
            return _fail("expression too deep", node.span), "any"

    def _e_Num(self, n: A.Num):
        v = n.value
        return (lambda ctx: v), "number"

    def _e_Const(self, n: A.Const):
        v = n.value
        return (lambda ctx: v), ("bool" if isinstance(v, bool) else "none")

    def _e_Str(self, n: A.Str):
        if n.is_plain:
            text = "".join(n.parts)  # type: ignore[arg-type]
            return (lambda ctx: text), "str"
        pieces: list = []
        for part in n.parts:
            if isinstance(part, str):
                pieces.append(part)
            else:
                pieces.append(self.expr(part)[0])

        span = n.span

        def fn(ctx):
            text = "".join(p if isinstance(p, str) else _text(p(ctx)) for p in pieces)
            return text if len(text) < 16 else bounded(text, ctx, span)  # long texts cost budget

        return fn, "str"

    def _e_Name(self, n: A.Name):
        name = n.id
        if name in self.scope.locals:
            def fn(ctx):
                try:
                    return ctx.locals[name]
                except KeyError:
                    raise unset_error(name, n.span) from None

            return fn, "any"
        sym = self.scope.symbols.get(name)
        if sym is None:
            self.report("E301", f"unknown name '{name}'", n.span, did_you_mean(name, self.scope.visible_names()))
            return _fail(f"unknown name '{name}'", n.span), "any"
        if sym.kind == "var":
            return (lambda ctx: ctx.vars[name]), sym.type
        if sym.kind == "const" and sym.value is _RUNTIME_PLAYERS:
            return (lambda ctx: ctx.players), "list"
        if sym.kind == "const" and sym.value is _RUNTIME_PLAYER_COUNT:
            return (lambda ctx: len(ctx.players)), "number"
        if sym.kind == "player_zone":
            self.report("E306", f"'{name}' is one zone per player, so it needs a player", n.span,
                        f"say whose it is, e.g. p.{name}")
            return _fail(f"'{name}' needs a player", n.span), "any"
        if sym.kind in ("sequence", "modifier", "event", "dice"):
            self.report("E306", f"'{name}' is a {sym.kind}, not a value", n.span,
                        {"sequence": "run it with 'call " + name + "'",
                         "modifier": f"read it with modifier('{name}', p)",
                         "event": f"raise it with 'emit {name}'",
                         "dice": f"roll it with 'roll {name} as r'"}[sym.kind])
            return _fail(f"'{name}' is not a value", n.span), "any"
        value = sym.value
        return (lambda ctx: value), sym.type

    def _e_Attr(self, n: A.Attr):
        obj_fn, obj_type = self.expr(n.obj)
        name = n.name
        sc = self.scope
        if name not in sc.all_attributes():
            self.report("E305", f"unknown attribute '{name}'", n.name_span, did_you_mean(name, sc.all_attributes()))
            return _fail(f"unknown attribute '{name}'", n.span), "any"
        allowed = {
            "player": sc.player_vars | sc.player_zones | set(PLAYER_FIELDS),
            "card": sc.card_attrs | set(sc.marks) | set(CARD_FIELDS),
            "zone": set(ZONE_FIELDS),
            "roll": set(ROLL_FIELDS),
            "row": sc.table_columns,
        }.get(obj_type)
        if allowed is not None and name not in allowed:
            self.report("E303", f"a {obj_type} has no attribute '{name}'", n.name_span, did_you_mean(name, allowed))
            return _fail(f"a {obj_type} has no attribute '{name}'", n.span), "any"
        getter = make_getattr(name, sc)
        span = n.span

        def fn(ctx):
            return getter(obj_fn(ctx), ctx, span)

        fast = _fast_attr(name, sc, obj_fn, self._local(n.obj), getter, span)
        if fast is not None:
            fn = fast

        if name in sc.player_zones and obj_type in ("player", "any") and name not in sc.player_vars:
            return fn, "zone"
        if obj_type == "zone":
            return fn, {"size": "number", "top": "card", "bottom": "card", "cards": "list", "owner": "player",
                        "empty": "bool"}.get(name, "any")
        if obj_type == "roll":
            return fn, {"total": "number", "faces": "list", "doubles": "bool", "success": "bool"}.get(name, "any")
        return fn, "any"

    def _e_Index(self, n: A.Index):
        obj_fn, obj_type = self.expr(n.obj)
        key_fn, _ = self.expr(n.key)
        span = n.span
        rtype = {"family": "zone", "table": "row", "list": "any"}.get(obj_type, "any")

        def fn(ctx):
            return index(obj_fn(ctx), key_fn(ctx), ctx, span)

        return fn, rtype

    def _e_Call(self, n: A.Call):
        if n.func in self.scope.functions:
            return self._user_call(n, self.scope.functions[n.func])
        b = REGISTRY.get(n.func)
        if b is None:
            self.report("E302", f"unknown function '{n.func}'", n.func_span,
                        did_you_mean(n.func, set(REGISTRY) | set(self.scope.functions)))
            return _fail(f"unknown function '{n.func}'", n.span), "any"
        nargs = len(n.args)
        if nargs < b.min_args or (b.max_args >= 0 and nargs > b.max_args):
            want = str(b.min_args) if b.min_args == b.max_args else (
                f"{b.min_args} or more" if b.max_args < 0 else f"{b.min_args} to {b.max_args}")
            self.report("E304", f"{n.func}() takes {want} argument{'s' if want != '1' else ''}, given {nargs}", n.span,
                        f"e.g. {b.example}")
            return _fail("wrong number of arguments", n.span), "any"
        for kw in n.kwargs:
            if kw.name not in b.kwargs:
                hint = (f"it accepts: {', '.join(b.kwargs)}" if b.kwargs else f"{n.func}() takes no named arguments")
                self.report("E304", f"{n.func}() has no argument named '{kw.name}'", kw.span, hint)
                return _fail("unknown argument", n.span), "any"
        if n.func == "modifier" and n.args and isinstance(n.args[0], A.Str) and n.args[0].is_plain:
            mname = "".join(n.args[0].parts)  # type: ignore[arg-type]
            sym = self.scope.symbols.get(mname)
            if sym is None or sym.kind != "modifier":
                mods = [k for k, s in self.scope.symbols.items() if s.kind == "modifier"]
                self.report("E301", f"unknown modifier '{mname}'", n.args[0].span, did_you_mean(mname, mods))
        arg_fns = [self.expr(a)[0] for a in n.args]
        kw_fns = {kw.name: self.expr(kw.value)[0] for kw in n.kwargs}
        impl = b.fn
        span = n.span
        if not kw_fns:
            if len(arg_fns) == 1:
                a0 = arg_fns[0]
                local = self._local(n.args[0])
                if local is not None:  # e.g. count(picked): the local read inline
                    def call_local(ctx):
                        try:
                            v = ctx.locals[local]
                        except KeyError:
                            v = a0(ctx)
                        return impl(ctx, span, v)

                    return call_local, b.returns
                return (lambda ctx: impl(ctx, span, a0(ctx))), b.returns
            return (lambda ctx: impl(ctx, span, *[f(ctx) for f in arg_fns])), b.returns
        return (lambda ctx: impl(ctx, span, *[f(ctx) for f in arg_fns], **{k: f(ctx) for k, f in kw_fns.items()})), b.returns

    def _user_call(self, n: A.Call, fd: FunctionDef):
        if n.kwargs:
            self.report("E304", f"{fd.name}() takes its arguments in order, not by name", n.kwargs[0].span)
        if len(n.args) != len(fd.params):
            self.report("E304", f"{fd.name}() takes {len(fd.params)} argument{'s' if len(fd.params) != 1 else ''}"
                        f" ({', '.join(fd.params)}), given {len(n.args)}", n.span)
            return _fail("wrong number of arguments", n.span), "any"
        body = self.function_body(fd, n.span)
        arg_fns = [self.expr(a)[0] for a in n.args]
        params = fd.params

        span = n.span

        def fn(ctx):
            charge(ctx, CALL_COST, span)  # functions cannot recurse, but a chain of them can still double the work
            return run_with_params(ctx, params, [a(ctx) for a in arg_fns], body)

        if len(params) == 1:  # the common arities, without building a list and a zip (same order of work)
            (p0,), (a0,) = params, arg_fns

            def fn(ctx):
                charge(ctx, 1, span)
                local = {p0: a0(ctx)}
                saved = ctx.locals
                ctx.locals = local
                try:
                    return body(ctx)
                finally:
                    ctx.locals = saved
        elif len(params) == 2:
            (p0, p1), (a0, a1) = params, arg_fns

            def fn(ctx):
                charge(ctx, 1, span)
                v0 = a0(ctx)
                local = {p0: v0, p1: a1(ctx)}
                saved = ctx.locals
                ctx.locals = local
                try:
                    return body(ctx)
                finally:
                    ctx.locals = saved

        return fn, "any"

    def function_body(self, fd: FunctionDef, use_span: Span) -> Fn:
        """The compiled body of a ruleset function (compiled once; a function may not call itself)."""
        if fd.fn is not None:
            return fd.fn
        if fd.compiling or fd.body is None:
            if fd.compiling:
                self.report("E321", f"function '{fd.name}' calls itself (directly or through another function)",
                            use_span, "functions are named expressions: they cannot recurse")
            return _fail(f"function '{fd.name}' cannot be evaluated", use_span)
        fd.compiling = True
        outer, _STATE.made = _STATE.made, _INSIDE  # the body is part of its callers' expressions, never one of its own
        try:
            inner = Compiler(self.scope.with_locals(set(fd.params)), self.diagnostics)
            fd.fn = inner.expr(fd.body)[0]
        finally:
            fd.compiling = False
            _STATE.made = outer
        return fd.fn

    def _e_ListLit(self, n: A.ListLit):
        compiled = [self.expr(i) for i in n.items]
        fns = [f for f, _ in compiled]
        if not any(t in MAY_HOLD_CONTAINERS for _, t in compiled):
            return (lambda ctx: [f(ctx) for f in fns]), "list"
        span = n.span

        def fn(ctx):
            out = [f(ctx) for f in fns]
            if not _CONTAINERS.isdisjoint(map(type, out)):
                nested(out, span)  # a list of lists: bound what it expands to
            return out

        return fn, "list"

    def _e_Comprehension(self, n: A.Comprehension):
        iter_fn, _ = self.expr(n.iterable)
        inner = Compiler(self.scope.with_locals(self.scope.locals | {n.var}), self.diagnostics)
        elem_fn, elem_type = inner.expr(n.element)
        flat = elem_type not in MAY_HOLD_CONTAINERS
        cond_fn = inner.expr(n.condition)[0] if n.condition is not None else None
        var = n.var
        span = n.iterable.span

        same = isinstance(n.element, A.Name) and n.element.id == var  # [c for c in ... if ...]: keep the item itself
        # A condition 'c is CLASS and ...' is tested item by item without calls for its leading class tests (they
        # cannot fail or have effects), then its other parts in order, stopping at the first false one, as 'and' does.
        parts = _and_parts(n.condition) if n.condition is not None else []
        classes = []
        while parts and isinstance(parts[0], A.IsClass) and isinstance(parts[0].obj, A.Name) and parts[0].obj.id == var:
            classes.append((parts[0].cls, parts[0].negate))
            parts = parts[1:]
        if classes:
            tests = tuple(inner.expr(p)[0] for p in parts)
            wanted = tuple(c for c, neg in classes if not neg)
            unwanted = tuple(c for c, neg in classes if neg)

            def keep(item, ctx):
                if type(item) is not Card:
                    return not wanted  # a non-card has no class: 'is' fails, 'is not' holds
                cls = item.classes
                for c in wanted:
                    if c not in cls:
                        return False
                for c in unwanted:
                    if c in cls:
                        return False
                return True
        else:
            keep = tests = None
        only = classes[0][0] if len(classes) == 1 and not classes[0][1] else None

        def fn(ctx):
            got = iter_fn(ctx)
            # a zone's own card list is read in place: expressions never move cards
            items = ctx.zone_cards(got) if type(got) is ZoneRef else as_list(ctx, got, span)
            charge(ctx, len(items), span)
            loc = ctx.locals
            saved = loc.get(var, _MISSING)
            out = []
            append = out.append
            try:
                if cond_fn is None:
                    for item in items:
                        loc[var] = item
                        append(item if same else elem_fn(ctx))
                elif only is not None and same and not tests:  # [c for c in Z if c is CLASS]: no names to bind
                    out = [item for item in items if type(item) is Card and only in item.classes]
                elif only is not None:  # the usual 'c is CLASS and ...': the class test inline
                    for item in items:
                        if type(item) is not Card or only not in item.classes:
                            continue
                        loc[var] = item
                        for test in tests:
                            if not test(ctx):
                                break
                        else:
                            append(item if same else elem_fn(ctx))
                elif keep is not None:
                    for item in items:
                        if not keep(item, ctx):
                            continue
                        loc[var] = item
                        for test in tests:
                            if not test(ctx):
                                break
                        else:
                            append(item if same else elem_fn(ctx))
                else:
                    for item in items:
                        loc[var] = item
                        if cond_fn(ctx):
                            append(item if same else elem_fn(ctx))
            finally:
                if saved is _MISSING:
                    loc.pop(var, None)
                else:
                    loc[var] = saved
            if not flat and not _CONTAINERS.isdisjoint(map(type, out)):
                nested(out, span)
            return out

        return fn, "list"

    def _e_Unary(self, n: A.Unary):
        f, t = self.expr(n.operand)
        if n.op == "not":
            return (lambda ctx: not f(ctx)), "bool"
        span = n.span
        self._want_number(t, n.operand.span)

        def neg(ctx):
            v = f(ctx)
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise negate_error(v, span)
            return -v

        return neg, "number"

    def _e_BinOp(self, n: A.BinOp):
        lf, lt = self.expr(n.left)
        rf, rt = self.expr(n.right)
        if n.op == "and":
            return (lambda ctx: lf(ctx) and rf(ctx)), "bool"
        if n.op == "or":
            return (lambda ctx: lf(ctx) or rf(ctx)), "any"
        op = _BINOPS[n.op]
        span = n.span
        numeric = n.op != "+"
        if numeric:
            self._want_number(lt, n.left.span)
            self._want_number(rt, n.right.span)

        def fn(ctx):
            a, b = lf(ctx), rf(ctx)
            if numeric and (type(a) not in _NUMBER_TYPES or type(b) not in _NUMBER_TYPES):
                # Python would repeat a text or list ('ab' * 10**9) or format one ('%9999999d' % 1)
                raise compute_error(a, n.op, b, span)
            try:
                r = op(a, b)
            except ZeroDivisionError:
                raise RuleError("division by zero", span) from None
            except TypeError:
                raise compute_error(a, n.op, b, span) from None
            t = type(r)
            if t is float or (t is int and -MAX_INT <= r <= MAX_INT):
                return r
            return bounded(r, ctx, span)  # a runaway number, or a text or list that may be too long

        rtype = "number" if lt == rt == "number" else ("list" if "list" in (lt, rt) else
                                                        "str" if "str" in (lt, rt) else "any")
        return fn, rtype

    def _want_number(self, t: str, span: Span) -> None:
        if t not in ("number", "any"):
            self.report("E303", f"expected a number here, this is a {t}", span)

    def _e_Compare(self, n: A.Compare):
        lf, lt = self.expr(n.left)
        rf, rt = self.expr(n.right)
        span = n.span
        if n.op in ("in", "not in"):
            neg = n.op == "not in"

            def member(ctx):
                container = rf(ctx)
                item = lf(ctx)
                if isinstance(container, ZoneRef):
                    found = item in ctx.zone_cards(container)
                elif isinstance(container, (list, tuple, set, frozenset, dict, str)):
                    try:
                        found = item in container
                    except TypeError:
                        raise member_error(item, container, span) from None
                else:
                    raise container_error(container, span)
                return not found if neg else found

            return member, "bool"
        op = _COMPARE[n.op]
        if n.op in _ORDERED:
            for t, s in ((lt, n.left.span), (rt, n.right.span)):
                if t in ("player", "zone", "bool", "list", "row", "roll"):
                    self.report("E303", f"'{n.op}' compares numbers, this is a {t}", s)

            def ordered(ctx):
                a, b = lf(ctx), rf(ctx)
                try:
                    return op(a, b)
                except TypeError:
                    raise compare_error(a, n.op, b, span) from None

            return ordered, "bool"
        const = _constant(n.right)
        if const is not _MISSING and type(const) in (str, int):  # e.g. act == 'buy': one call fewer
            if n.op == "==":
                return (lambda ctx: lf(ctx) == const), "bool"
            return (lambda ctx: lf(ctx) != const), "bool"
        local = self._local(n.right)
        if local is not None:  # e.g. c.type == t: the local read inline
            neq = n.op == "!="

            def eq_local(ctx):
                a = lf(ctx)
                try:
                    b = ctx.locals[local]
                except KeyError:
                    b = rf(ctx)
                return a != b if neq else a == b

            return eq_local, "bool"
        return (lambda ctx: op(lf(ctx), rf(ctx))), "bool"

    def _e_IsClass(self, n: A.IsClass):
        f, t = self.expr(n.obj)
        cls = n.cls
        if cls not in self.scope.card_classes:
            self.report("E307", f"no card has the class '{cls}'", n.cls_span,
                        did_you_mean(cls, self.scope.card_classes) or "classes are listed under each card group's 'classes'")
        if t not in ("card", "any", "none"):
            self.report("E303", f"'is' tests the class of a card, this is a {t}", n.obj.span)
        negate = n.negate

        def fn(ctx):
            v = f(ctx)
            found = isinstance(v, Card) and cls in v.classes
            return not found if negate else found

        local = self._local(n.obj)
        if local is not None and not negate:
            def fn(ctx):  # noqa: F811 - the same test with the local read inline
                try:
                    v = ctx.locals[local]
                except KeyError:
                    v = f(ctx)
                return type(v) is Card and cls in v.classes

        return fn, "bool"

    def _local(self, node: A.Expr) -> Optional[str]:
        """The name, when `node` is a local name (read inline by the fast paths; a missing one falls back)."""
        return node.id if isinstance(node, A.Name) and node.id in self.scope.locals else None

    def _e_Ternary(self, n: A.Ternary):
        tf, tt = self.expr(n.then)
        cf, _ = self.expr(n.cond)
        of, ot = self.expr(n.other)
        return (lambda ctx: tf(ctx) if cf(ctx) else of(ctx)), (tt if tt == ot else "any")

    def _e_Range(self, n: A.Range):
        lf, lt = self.expr(n.low)
        hf, ht = self.expr(n.high)
        self._want_number(lt, n.low.span)
        self._want_number(ht, n.high.span)
        span = n.span

        def fn(ctx):
            a, b = lf(ctx), hf(ctx)
            if not isinstance(a, int) or not isinstance(b, int) or isinstance(a, bool) or isinstance(b, bool):
                raise range_error(a, b, span)
            if b - a >= MAX_RANGE:
                raise range_error(a, b, span)
            return list(range(a, b + 1))

        return fn, "list"


# None between expressions; _INSIDE while one is compiled at load. When codegen compiles an expression again
# (see `record`), a table of what each node became, by id(node): (node, (closure, type)); each entry holds its
# node, so no id is reused while the table lives.
_INSIDE = object()


class _CompileState(threading.local):
    made: Any = None  # per thread: a game may make its hot expressions while another thread loads a ruleset


_STATE = _CompileState()


def record(node: A.Expr, scope: "Scope") -> dict:
    """Compile `node` again, as at load, and return the table of what each of its nodes became.

    Codegen needs the closures (to fall back on) and coarse types of the nodes; keeping them from load time for
    every expression would slow loading, and only hot expressions are ever generated."""
    saved, _STATE.made = _STATE.made, {}
    try:
        table = _STATE.made
        Compiler(scope, []).expr(node)  # the diagnostics were given at load
        return table
    finally:
        _STATE.made = saved

CODEGEN = os.environ.get("RULECRAFT_CODEGEN", "1") != "0"  # RULECRAFT_CODEGEN=0: closures only (tests compare both)
HOT = 16  # the call that turns an expression into Python source (about 0.15 ms); the calls before run the closure
_SIMPLE = (A.Num, A.Const, A.Name)  # one closure call already: nothing to gain


def _trampoline(ctx):
    """The code of an expression's function until codegen gives it its own (names resolve in its namespace)."""
    return _warm(ctx, _state)  # noqa: F821 - names of the function's own namespace, see _lazy


def _lazy(node: A.Expr, closure: Fn, scope: "Scope") -> Fn:
    """A function that runs `closure` until it is hot, then the Python source codegen makes of `node`.

    Generating at load time would slow every validation, and most expressions of a ruleset run rarely or never;
    an expression evaluated while the ruleset loads (LoadTimeContext) keeps its closure. The function is made
    with a namespace of its own, so codegen can give it the generated code in place (`__code__`): whoever
    holds it then runs the generated code with no call in between. A few small objects per expression, and no
    reference cycle (which would keep a loaded ruleset alive until the garbage collector's next full pass): the
    state reaches the function by a weak reference.
    """
    if not CODEGEN or isinstance(node, _SIMPLE) or (isinstance(node, A.Str) and node.is_plain):
        return closure
    state = [0, closure, node, _names_only(scope), None]  # calls so far, closure, node, scope, the function
    run = FunctionType(_trampoline.__code__, {"__builtins__": _NO_BUILTINS, "_warm": _warm, "_state": state},
                       "expression")
    state[4] = weakref.ref(run)
    return run


_NO_BUILTINS: dict = {}


def _warm(ctx, state: list):
    """One call of an expression not yet generated: its closure runs, or, at the HOT-th call, codegen."""
    if isinstance(ctx, LoadTimeContext):
        return state[1](ctx)
    state[0] += 1
    if state[0] < HOT:
        return state[1](ctx)
    target = state[4]()  # alive: its caller holds it
    _generate(state, target)
    return target(ctx)


def _generate(state: list, target: Fn) -> None:
    """Give `target` its generated code (or code that runs the closure), once.

    One generation at a time in the whole process: games in several threads may share a ruleset, and two
    threads generating the same expression would write their constants into the same namespace (and codegen's
    note of the functions being generated is shared). The first thread generates; a thread that waited finds
    the node gone and runs what was made."""
    from .codegen import generate  # imported here: codegen imports this module

    with _GENERATE_LOCK:
        node = state[2]
        if node is not None:
            generate(node, state[3], state[1], target)
            state[2] = state[3] = None  # the node and scope are not needed any more


_GENERATE_LOCK = threading.RLock()


def generated_source(fn: Fn) -> Optional[tuple[str, dict]]:
    """The Python source codegen made of a compiled expression (made now if it was not yet) and the namespace
    its names live in; None for an expression that runs a closure (a simple one, or one codegen left alone).
    runtime/blocks.py writes it inline into the function of a stretch of steps."""
    ns = getattr(fn, "__globals__", None)
    state = ns.get("_state") if isinstance(ns, dict) and ns.get("_warm") is _warm else None
    if not isinstance(state, list) or len(state) != 5 or state[4]() is not fn:
        return None
    _generate(state, fn)
    src = getattr(fn, "source", None)
    return None if src is None else (src, ns)


def _names_only(scope: "Scope") -> "Scope":
    """The scope as codegen needs it: without its dice (whose compiled expressions hold the scope, so keeping
    it would make a reference cycle), its local names as they are now. One per scope, made once."""
    view = scope.__dict__.get("_names_only")
    if view is None or len(view.locals) != len(scope.locals):
        view = scope._names_only = Scope(scope.symbols, scope.player_vars, scope.player_zones, scope.card_attrs,
                                         scope.card_classes, scope.table_columns, scope.marks, {},
                                         frozenset(scope.locals), scope.functions, scope.metrics)
    return view


class LoadTimeContext:
    """The context of expressions evaluated while a ruleset loads (card attributes, zone contents).

    Only names and pure functions work there; anything that needs a running game (zones'
    cards, chance, the running sequences) is refused with a diagnostic.
    """

    steps = work = 0  # the budget of the work guards (guards.charge)
    max_steps = 5_000_000

    def __init__(self, locals_: Optional[dict] = None):
        self.locals = locals_ if locals_ is not None else {}
        self.vars: dict = {}
        self.marks: dict = {}
        self.players: list = []

    def __getattr__(self, name: str):
        raise RuleError("this needs a running game, but it is computed while the ruleset loads", None,
                        "card attributes and zone contents may use parameters, options, tables and plain values",
                        "E315")


MAX_RANGE = 100_000  # a range is built as a list: bound it so a typo cannot eat the memory
_MISSING = object()
_RUNTIME_PLAYERS = object()
_RUNTIME_PLAYER_COUNT = object()
RUNTIME_PLAYERS = Symbol("const", _RUNTIME_PLAYERS, "list")
RUNTIME_PLAYER_COUNT = Symbol("const", _RUNTIME_PLAYER_COUNT, "number")


def text_of(v: Any) -> str:
    """A value as a designer reads it: true/false/none, lists as 'a, b, c'."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return ", ".join(text_of(x) for x in v)
    return str(v)


_text = text_of


def index(obj: Any, key: Any, ctx, span: Span) -> Any:
    """obj[key] for every kind of value that can be indexed."""
    if isinstance(obj, FamilyRef):
        return ctx.family_member(obj.zone, key, span)
    if isinstance(obj, dict):
        if key in obj:
            return obj[key]
        if isinstance(obj, _TABLE_TYPES):
            raise RuleError(f"the table has no row {describe(key)}", span)
        return None
    if isinstance(obj, (list, tuple)):
        if isinstance(key, bool) or not isinstance(key, int):
            raise RuleError(f"a list is indexed by a whole number, got {describe(key)}", span)
        if -len(obj) <= key < len(obj):
            return obj[key]
        raise RuleError(f"position {key} is outside a list of {len(obj)}", span)
    if isinstance(obj, ZoneRef):
        cards = ctx.zone_cards(obj)
        if isinstance(key, int) and -len(cards) <= key < len(cards):
            return cards[key]
        raise RuleError(f"position {describe(key)} is outside the zone {obj.slot} of {len(cards)} cards", span)
    raise RuleError(f"{describe(obj)} cannot be indexed", span)


from ..values import Row  # noqa: E402

_TABLE_TYPES = (Row,)


def _and_parts(node: A.Expr) -> list:
    """The operands of a chain 'a and b and c', left to right (one operand for anything else)."""
    if isinstance(node, A.BinOp) and node.op == "and":
        return _and_parts(node.left) + _and_parts(node.right)
    return [node]


def _constant(node: A.Expr) -> Any:
    """The value of a literal number or plain text, else _MISSING."""
    if isinstance(node, A.Num):
        return node.value
    if isinstance(node, A.Str) and node.is_plain:
        return "".join(node.parts)  # type: ignore[arg-type]
    return _MISSING


def _fast_attr(name: str, scope: Scope, obj_fn: Fn, local: Optional[str], getter, span: Span) -> Optional[Fn]:
    """A faster `obj.name` for a card attribute, a player variable or a player's zone, with a local object read
    inline; anything else (another kind of object, a missing local) goes through the generic getter, so
    results and errors are the same."""
    if name in scope.marks or name in CARD_FIELDS or name in PLAYER_FIELDS:
        return None
    if name in scope.player_vars:
        if local is None:
            def fn(ctx):
                o = obj_fn(ctx)
                if type(o) is Player:
                    return ctx.pvars[o.seat][name]
                return getter(o, ctx, span)
        else:
            def fn(ctx):
                try:
                    o = ctx.locals[local]
                except KeyError:
                    o = obj_fn(ctx)  # raises the error of a local used before it has a value
                if type(o) is Player:
                    return ctx.pvars[o.seat][name]
                return getter(o, ctx, span)
        return fn
    if name in scope.player_zones:
        refs: dict = {}  # zone refs never change: one per seat, shared

        def fn(ctx):
            o = ctx.locals.get(local, _MISSING) if local is not None else _MISSING
            if o is _MISSING:
                o = obj_fn(ctx)
            if type(o) is Player:
                ref = refs.get(o.seat)
                if ref is None:
                    ref = refs[o.seat] = ZoneRef(name, o.seat)
                return ref
            return getter(o, ctx, span)
        return fn
    if name in scope.card_attrs:
        if local is None:
            def fn(ctx):
                o = obj_fn(ctx)
                if type(o) is Card:
                    attrs = o.attrs
                    if name in attrs:
                        return attrs[name]
                return getter(o, ctx, span)
        else:
            def fn(ctx):
                try:
                    o = ctx.locals[local]
                except KeyError:
                    o = obj_fn(ctx)
                if type(o) is Card:
                    attrs = o.attrs
                    if name in attrs:
                        return attrs[name]
                return getter(o, ctx, span)
        return fn
    return None


def make_getattr(name: str, scope: Scope) -> Callable[[Any, Any, Span], Any]:
    """A fast getter of attribute `name` that dispatches on the kind of object at run time."""
    is_pvar = name in scope.player_vars
    is_pzone = name in scope.player_zones
    is_mark = name in scope.marks
    mark_default = scope.marks.get(name)

    def get(obj, ctx, span):
        t = type(obj)
        if t is Card:
            if is_mark:
                marks = ctx.marks.get(obj.id)
                if marks is not None and name in marks:
                    return marks[name]
                return mark_default
            attrs = obj.attrs
            if name in attrs:
                return attrs[name]
            if name == "id":
                return obj.id
            if name == "name":
                return obj.name
            if name == "classes":
                return sorted(obj.classes)
            if name == "zone":
                return ctx.zone_of(obj)
            if name == "owner":
                return ctx.zone_owner(ctx.zone_of(obj))
            return None  # an attribute other cards have
        if t is Player:
            if is_pvar:
                return ctx.pvars[obj.seat][name]
            if is_pzone:
                return ZoneRef(name, obj.seat)
            if name == "seat":
                return obj.seat
            if name == "name":
                return obj.name
        elif t is ZoneRef:
            cards = ctx.zone_cards(obj)
            if name in ("size",):
                return len(cards)
            if name == "empty":
                return not cards
            if name == "top":
                return cards[-1] if cards else None
            if name == "bottom":
                return cards[0] if cards else None
            if name == "cards":
                return list(cards)
            if name == "owner":
                return ctx.zone_owner(obj)
            if name == "key":
                return obj.key
        elif t is Roll:
            if name in ROLL_FIELDS:
                v = getattr(obj, name)
                return list(v) if name == "faces" else v
        elif isinstance(obj, dict):
            if name in obj:
                return obj[name]
        elif obj is None:
            raise RuleError(f"cannot read '.{name}' of none", span, "check that the value was set before this step")
        raise RuleError(f"{describe(obj)} has no attribute '{name}'", span)

    return get
