"""Assignments compiled to closures: 'let', '=', '+=' and '-=' on locals, variables, player variables and records.

A local, a game variable and a player variable each get one closure that reads, checks and writes in place
(whole numbers that stay in range added there, everything else by `_augmented`); card marks and records go
through a reader and a writer. The compiled engine writes the first two kinds inline (their `inline` shape).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional

from ...diagnostics import RuleError, Span, did_you_mean
from ...values import Card, Player
from .. import ast as A
from ..builtins import describe
from ..checking import Problem, augment_problem
from ..guards import MAX_INT, bounded, nested, scanned
from ..scope import Fn, Scope, kind_word
from .whole import statement_noted


def _augmented(old: Any, inc: Any, sign: int, op: str, ctx: Any, span: Span) -> Any:
    """The new value of `old += inc` (sign 1) or `old -= inc` (sign -1): a number, or a list grown or shrunk."""
    if old is None:
        old = 0
    if isinstance(old, list):
        if sign > 0:
            return bounded(old + inc if isinstance(inc, list) else old + [inc], ctx, span)
        if len(old) >= 16:  # a scan costs budget by its length
            scanned(ctx, len(old), span)
        return [x for x in old if x != inc]
    if isinstance(inc, bool) or not isinstance(inc, (int, float)) or isinstance(old, bool) or not isinstance(old, (int, float)):
        raise RuleError(f"cannot compute {describe(old)} {op} {describe(inc)}", span)
    return bounded(old + sign * inc, ctx, span)


def _inlined(fn: Fn, shape: tuple) -> Fn:
    """`fn`, noted with the shape the compiler (compiler/steps.py) writes instead of calling it."""
    fn.inline = shape  # type: ignore[attr-defined]  # a function takes attributes, a Callable type has none
    return fn


class AssignStatements:
    """The assignment statements of StatementCompiler (statements.py)."""

    # what StatementCompiler (a Compiler, compiler.py) gives these methods
    scope: Scope
    expr: Callable[[A.Expr], tuple[Fn, str]]
    check: Callable[[Iterable[Optional[Problem]]], bool]
    report: Callable[..., None]

    def _s_Let(self, n: A.Let) -> Fn:
        value = self.expr(n.value)[0]
        name = n.name

        def fn(ctx):
            ctx.locals[name] = value(ctx)

        return _inlined(fn, ("set", "locals", name, value))

    def _s_Assign(self, n: A.Assign) -> Fn:
        value, value_type = self.expr(n.value)
        self.check(augment_problem(n.op, value_type, n.value, self.scope))
        op, span = n.op, n.span
        sign = 1 if op == "+=" else -1
        target = n.target
        if isinstance(target, A.Name):
            name = target.id
            if name not in self.scope.locals:
                sym = self.scope.symbols.get(name)
                if sym is None:
                    self.report("E301", f"unknown variable '{name}'", target.span,
                                did_you_mean(name, self.scope.visible_names)
                                or "declare it under 'variables:', or use 'let' for a local value")
                    return lambda ctx: None
                if sym.kind != "var":
                    self.report("E308", f"'{name}' is {kind_word(sym)} and cannot be changed", target.span,
                                "only variables, player variables and card marks can be set")
                    return lambda ctx: None
            return self._assign_in_place(target, value, op, sign, span)
        elif isinstance(target, A.Attr):
            obj = self.expr(target.obj)[0]
            attr = target.name
            if attr in self.scope.player_vars:  # (noted: the compiler writes it into a stretch, compiler/statements.py)
                return statement_noted(n, self._assign_in_place(target, value, op, sign, span, obj), self.scope)
            if attr == "out" and attr not in self.scope.marks:  # (a player is out by the built-in modifier 'out')
                self.report("E308", "'out' is read, not set: a player is out while the modifier 'out' is on them",
                            target.name_span, "write 'add modifier out to PLAYER until end of game' (and 'remove "
                            "modifier out from PLAYER' to bring them back)")
                return lambda ctx: None
            if attr in self.scope.card_attrs or attr in ("id", "name", "classes", "zone", "owner", "seat"):
                self.report("E308", f"'{attr}' is fixed and cannot be set", target.name_span,
                            "card attributes never change; set a mark with a new name (e.g. 'set card.bonus = 2')")
                return lambda ctx: None
            elif attr not in self.scope.marks:
                self.report("E305", f"unknown player or card variable '{attr}'", target.name_span,
                            did_you_mean(attr, self.scope.player_vars | set(self.scope.marks))
                            or "declare it under 'player_variables:' or 'card_variables:'")
                return lambda ctx: None
            else:
                default = self.scope.marks[attr]

                def read(ctx):
                    c = obj(ctx)
                    if not isinstance(c, Card):
                        raise RuleError(f"'{attr}' is a card variable, but this is {describe(c)}", span)
                    return ctx.marks.get(c.id, {}).get(attr, default)

                def write(ctx, v):
                    c = obj(ctx)
                    if not isinstance(c, Card):
                        raise RuleError(f"'{attr}' is a card variable, but this is {describe(c)}", span)
                    ctx.set_mark(c, attr, v)
        else:
            assert isinstance(target, A.Index)
            obj = self.expr(target.obj)[0]
            key = self.expr(target.key)[0]

            def read(ctx):
                d = obj(ctx)
                return d.get(key(ctx)) if isinstance(d, dict) else None

            def write(ctx, v):
                d = obj(ctx)
                if not isinstance(d, dict) or type(d) is not dict:
                    raise RuleError(f"only a record of choices can be set by key, this is {describe(d)}", span)
                d[key(ctx)] = v
                nested(d, span)  # a record set into itself, or grown without end

        if op == "=":
            def set_in(ctx):
                write(ctx, value(ctx))
            # (a card variable's: noted, the compiler writes it into a stretch, compiler/statements.py)
            return statement_noted(n, set_in, self.scope, mark=True) if isinstance(target, A.Attr) else set_in

        def aug(ctx):
            old, inc = read(ctx), value(ctx)
            write(ctx, _augmented(old, inc, sign, op, ctx, span))

        return aug

    def _assign_in_place(self, target: A.Name | A.Attr, value: Fn, op: str, sign: int, span: Span,
                         obj: Optional[Fn] = None) -> Fn:
        """A local, a game variable or a player variable set by one closure: the old value read first (a player
        variable's object worked out at each read and write), whole numbers that stay in range added here,
        everything else (and every error) by _augmented."""
        if isinstance(target, A.Name):
            name = target.id
            if name in self.scope.locals:
                if op == "=":
                    def set_local(ctx):
                        ctx.locals[name] = value(ctx)
                    return _inlined(set_local, ("set", "locals", name, value))

                def aug_local(ctx):
                    old = ctx.locals.get(name)
                    inc = value(ctx)
                    if type(old) is int and type(inc) is int:
                        new = old + sign * inc
                        if -MAX_INT <= new <= MAX_INT:
                            ctx.locals[name] = new
                            return
                    ctx.locals[name] = _augmented(old, inc, sign, op, ctx, span)
                return _inlined(aug_local, ("aug", "locals", name, value, sign, op, span))
            if op == "=":
                def set_var(ctx):
                    ctx.vars[name] = value(ctx)
                return _inlined(set_var, ("set", "vars", name, value))

            def aug_var(ctx):
                old = ctx.vars[name]
                inc = value(ctx)
                if type(old) is int and type(inc) is int:
                    new = old + sign * inc
                    if -MAX_INT <= new <= MAX_INT:
                        ctx.vars[name] = new
                        return
                ctx.vars[name] = _augmented(old, inc, sign, op, ctx, span)
            return _inlined(aug_var, ("aug", "vars", name, value, sign, op, span))
        attr = target.name
        assert obj is not None  # a player variable's object: _s_Assign passes it

        def player(ctx):  # the object is worked out at each read and each write, as _s_Assign does
            p = obj(ctx)
            if not isinstance(p, Player):
                raise RuleError(f"'{attr}' is a player variable, but this is {describe(p)}", span)
            return p

        if op == "=":
            def set_pvar(ctx):
                v = value(ctx)
                ctx.pvars[player(ctx).seat][attr] = v
            return set_pvar

        def aug_pvar(ctx):
            old = ctx.pvars[player(ctx).seat][attr]
            inc = value(ctx)
            if type(old) is int and type(inc) is int:
                new = old + sign * inc
                if -MAX_INT <= new <= MAX_INT:
                    ctx.pvars[player(ctx).seat][attr] = new
                    return
            new = _augmented(old, inc, sign, op, ctx, span)
            ctx.pvars[player(ctx).seat][attr] = new
        return aug_pvar
