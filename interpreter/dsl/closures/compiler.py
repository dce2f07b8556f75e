"""Compile AST nodes once, at load time, into closures `fn(ctx)`; names are resolved here.

`ctx` is the running game (see `runtime.game.Game`): it offers `locals`, `vars`, `players`
and a few primitive operations (zone_cards, move, draw, roll, ...). Statements return None
to go on, or a control `Signal` (break, continue, end, call, suspend) for the interpreter.
What is wrong with an expression is decided in checking.py; what runs is made here (operators
and collections in the mixins of operators.py and lists.py). These closures are the reference engine; the
compiler (rulecraft.compiler) writes Python source of the same expressions from what `expr` notes on them.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator, Optional

from ...diagnostics import Diagnostic, Span, did_you_mean, error
from ...values import CARD_FIELDS, PLAYER_FIELDS, Card, Player, ZoneRef
from .. import ast as A
from ..builtins import REGISTRY
from ..checking import (Problem, attribute_problem, binds_items, builtin_call_problem, modifier_problem, name_problem,
                        user_call_problems)
from .lists import ListsMixin
from .operators import OperatorsMixin
from .whole import noted
from ..guards import CALL_COST, bounded, charge, failing as _fail, text_in
from ..ops import _MISSING, RANKINGS, index, make_getattr, run_with_params, text_of, unset_error
from ..scope import _RUNTIME_PLAYER_COUNT, _RUNTIME_PLAYERS, Fn, FunctionDef, Scope

_text = text_of


class Compiler(ListsMixin, OperatorsMixin):
    """Turns AST into closures for one scope, collecting diagnostics instead of stopping."""

    def __init__(self, scope: Scope, diagnostics: list[Diagnostic]) -> None:
        self.scope = scope
        self.diagnostics = diagnostics

    def report(self, code: str, message: str, span: Span, hint: str | None = None) -> None:
        self.diagnostics.append(error(code, message, span, hint))

    def sub_compiler(self, scope: Scope) -> "Compiler":
        """A compiler of expressions for an inner scope (a comprehension's, a function body's), same diagnostics."""
        return Compiler(scope, self.diagnostics)

    def check(self, problems: Iterable[Optional[Problem]]) -> bool:
        """Report the problems a check found (None entries are skipped); True when there were some."""
        found = False
        for problem in problems:
            if problem is not None:
                self.report(*problem)
                found = True
        return found

    # ---------------------------------------------------------------- expressions
    def expr(self, node: A.Expr) -> tuple[Fn, str]:
        """The closure of `node` and its coarse type. The closure of a whole expression (one not inside another)
        is a function that runs it, or in a game of the compiled engine what the compiler writes of it (whole.py)."""
        made = _STATE.made
        if made is None:  # a whole expression
            _STATE.made = _INSIDE
            try:
                fn, t = self._expr(node)
            finally:
                _STATE.made = None
            return noted(node, fn, self.scope), t
        result = self._expr(node)
        if made is not _INSIDE:  # the compiler (compiler/expressions.py) compiles the expression again to learn what each node becomes
            made[id(node)] = (node, result)
        return result

    def _expr(self, node: A.Expr) -> tuple[Fn, str]:
        method = getattr(self, "_e_" + type(node).__name__)
        try:
            return method(node)
        except RecursionError:
            self.report("E104", "the expression is nested too deeply", node.span)
            return _fail("expression too deep", node.span), "any"

    def _e_Num(self, n: A.Num) -> tuple[Fn, str]:
        v = n.value
        return (lambda ctx: v), "number"

    def _e_Const(self, n: A.Const) -> tuple[Fn, str]:
        v = n.value
        return (lambda ctx: v), ("bool" if isinstance(v, bool) else "none")

    def _e_Str(self, n: A.Str) -> tuple[Fn, str]:
        if n.is_plain:
            text = "".join(n.parts)  # type: ignore[arg-type]  # is_plain: every part is a text
            return (lambda ctx: text), "str"
        pieces: list[str | Fn] = []
        for part in n.parts:
            if isinstance(part, str):
                pieces.append(part)
            else:
                pieces.append(self.expr(part)[0])

        span = n.span

        def fn(ctx):
            text = "".join(p if isinstance(p, str) else text_in(p(ctx), ctx) for p in pieces)
            return text if len(text) < 16 else bounded(text, ctx, span)  # long texts cost budget

        return fn, "str"

    def _e_Name(self, n: A.Name) -> tuple[Fn, str]:
        name = n.id
        if name in self.scope.locals:
            ltype = self.scope.local_types.get(name, "any")

            def fn(ctx):
                try:
                    return ctx.locals[name]
                except KeyError:
                    raise unset_error(name, n.span) from None

            fn.local = (name, n.span)  # type: ignore[attr-defined]  # what a stretch of steps reads inline
            return fn, ltype
        sym = self.scope.symbols.get(name)
        problem = name_problem(name, sym, self.scope, n.span)
        if problem is not None:
            self.report(*problem)
            return _fail(problem.message, n.span), "any"
        assert sym is not None  # name_problem reports an unknown name
        mark_used(name)
        if sym.kind == "var":
            return (lambda ctx: ctx.vars[name]), sym.type
        if sym.kind == "const" and sym.value is _RUNTIME_PLAYERS:
            return (lambda ctx: ctx.players), "list"
        if sym.kind == "const" and sym.value is _RUNTIME_PLAYER_COUNT:
            return (lambda ctx: len(ctx.players)), "number"
        value = sym.value
        return (lambda ctx: value), sym.type

    def _e_Attr(self, n: A.Attr) -> tuple[Fn, str]:
        obj_fn, obj_type = self.expr(n.obj)
        name = n.name
        sc = self.scope
        problem = attribute_problem(name, obj_type, sc, n.name_span)
        if problem is not None:
            self.report(*problem)
            return _fail(problem.message, n.span), "any"
        if name in sc.player_zones:
            mark_used(name)
        getter = make_getattr(name, sc)
        span = n.span

        fast = _fast_attr(name, sc, obj_fn, self._local(n.obj), getter, span)
        fn = fast if fast is not None else (lambda ctx: getter(obj_fn(ctx), ctx, span))

        if name in sc.player_zones and obj_type in ("player", "any") and name not in sc.player_vars:
            return fn, "zone"
        if obj_type == "zone":
            return fn, {"size": "number", "top": "card", "bottom": "card", "cards": "list", "owner": "player",
                        "empty": "bool"}.get(name, "any")
        if obj_type == "roll":
            return fn, {"total": "number", "faces": "list", "doubles": "bool", "success": "bool", "dice": "text"}.get(name, "any")
        return fn, "any"

    def _e_Index(self, n: A.Index) -> tuple[Fn, str]:
        obj_fn, obj_type = self.expr(n.obj)
        key_fn, _ = self.expr(n.key)
        span = n.span
        if obj_type == "text":  # a roll's `dice`, the text '2d6': its faces are the dice rolled
            self.report("E303", "a roll's 'dice' is the text of its dice ('2d6'), not the dice rolled", span,
                        "the numbers rolled are the roll's 'faces': ROLL.faces[0] is the first die")
        rtype = {"family": "zone", "table": "row", "list": "any"}.get(obj_type, "any")

        def fn(ctx):
            return index(obj_fn(ctx), key_fn(ctx), ctx, span)

        return fn, rtype

    def _e_Call(self, n: A.Call) -> tuple[Fn, str]:
        if n.func in self.scope.functions:
            return self._user_call(n, self.scope.functions[n.func])
        if n.func in RANKINGS and (n.kwargs or n.func != "sorted" or binds_items(n)):
            return self._ranking(n)
        b = REGISTRY.get(n.func)
        if b is None:
            named = n.func in self.scope.locals or n.func in self.scope.symbols
            self.report("E302", f"unknown function '{n.func}'", n.func_span,
                        f"'{n.func}' is a name, not a function (after 'tell {n.func}', a message in parentheses "
                        f"reads as a call: leave the parentheses out)" if named else
                        did_you_mean(n.func, set(REGISTRY) | set(self.scope.functions)))
            return _fail(f"unknown function '{n.func}'", n.span), "any"
        problem = builtin_call_problem(n, b)
        if problem is not None:
            self.report(*problem)
            return _fail(problem.message, n.span), "any"
        self.check([modifier_problem(n, self.scope)])
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

    def _user_call(self, n: A.Call, fd: FunctionDef) -> tuple[Fn, str]:
        mark_used(fd.name)
        problems, fatal = user_call_problems(n, fd)
        self.check(problems)
        if fatal:
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
            inner = self.sub_compiler(self.scope.with_locals(set(fd.params)))
            fd.fn = inner.expr(fd.body)[0]
        finally:
            fd.compiling = False
            _STATE.made = outer
        return fd.fn

    def _local(self, node: A.Expr) -> Optional[str]:
        """The name, when `node` is a local name (read inline by the fast paths; a missing one falls back)."""
        return node.id if isinstance(node, A.Name) and node.id in self.scope.locals else None


# (see `record`), a table of what each node became, by id(node): (node, (closure, type)); each entry holds its
# node, so no id is reused while the table lives.
_INSIDE = object()


class _CompileState(threading.local):
    made: Any = None  # per thread: a game may make its hot expressions while another thread loads a ruleset
    used: Any = None  # while a ruleset loads (see `recording`): the game names its expressions read


_STATE = _CompileState()


@contextmanager
def recording() -> Iterator[set[str]]:
    """Collect the game names (parameters, options, zones, tables, functions, ...) that the expressions compiled
    inside read, so that a ruleset can be told which of its declarations nothing uses."""
    saved, _STATE.used = _STATE.used, set()
    try:
        yield _STATE.used
    finally:
        _STATE.used = saved


def mark_used(name: str) -> None:
    used = _STATE.used
    if used is not None:
        used.add(name)


def record(node: A.Expr, scope: Scope) -> dict[int, tuple[A.Expr, tuple[Fn, str]]]:
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


def record_parts(nodes: Iterable[object], scope: Scope) -> dict[int, tuple[A.Expr, tuple[Fn, str]]]:
    """`record` of each of a statement's expressions, in one table (compiler/statements.py writes the statement)."""
    saved, _STATE.made = _STATE.made, {}
    try:
        table = _STATE.made
        compiler = Compiler(scope, [])
        for node in nodes:
            if isinstance(node, A.Expr):
                compiler.expr(node)
        return table
    finally:
        _STATE.made = saved


def _fast_attr(name: str, scope: Scope, obj_fn: Fn, local: Optional[str], getter: Callable[[Any, Any, Span], Any],
               span: Span) -> Optional[Fn]:
    """A faster `obj.name` for a card attribute, a player variable or a player's zone, with a local object read
    inline; anything else (another kind of object, a missing local) goes through the generic getter: the same."""
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
            fn.player_var = (local, name)  # type: ignore[attr-defined]  # what decision_steps.bids reads as this does
        return fn
    if name in scope.player_zones:
        refs: dict[int, ZoneRef] = {}  # zone refs never change: one per seat, shared

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
