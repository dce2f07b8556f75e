"""Compiling operators, comparisons, class tests and conditional values into closures (a mixin of
compiler.Compiler)."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional

from ...diagnostics import RuleError
from ...values import Card
from .. import ast as A
from ..guards import MAX_INT, bounded, compared
from ..ops import (_BINOPS, _COMPARE, _MISSING, _NUMBER_TYPES, _ORDERED, compare_error, compute_error,
                  member, negate_error)
from ..checking import Problem, addition_problem, choice_problem, class_problem, ordered_problem, want_number
from ..scope import Fn, Scope


class OperatorsMixin:
    """Operators and comparisons; `self` is a Compiler."""

    # what Compiler (compiler.py), the class this is mixed into, gives these methods
    scope: Scope
    expr: Callable[[A.Expr], tuple[Fn, str]]
    check: Callable[[Iterable[Optional[Problem]]], bool]
    _local: Callable[[A.Expr], Optional[str]]

    def _e_Unary(self, n: A.Unary) -> tuple[Fn, str]:
        f, t = self.expr(n.operand)
        if n.op == "not":
            return (lambda ctx: not f(ctx)), "bool"
        span = n.span
        self.check(want_number(t, n.operand.span))

        def neg(ctx):
            v = f(ctx)
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise negate_error(v, span)
            return -v

        return neg, "number"

    def _e_BinOp(self, n: A.BinOp) -> tuple[Fn, str]:
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
            self.check(want_number(lt, n.left.span) + want_number(rt, n.right.span))
        else:
            self.check(addition_problem(lt, rt, n.span))

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
            if (t is int or t is float) and -MAX_INT <= r <= MAX_INT:
                return r
            return bounded(r, ctx, span)  # a runaway number (a decimal's infinity), or a text or list that may be too long

        local = getattr(lf, "local", None)
        if local is not None and n.op == "+" and n.right.__class__ is A.Num and n.right.value.__class__ is int:
            fn.local_plus = (local[0], n.right.value)  # type: ignore[attr-defined]  # a local plus a whole number
            # (an auction's lowest bid, `top + 1`): what questions.decide reads as this does
        rtype = "number" if lt == rt == "number" else ("list" if "list" in (lt, rt) else
                                                        "str" if "str" in (lt, rt) else "any")
        return fn, rtype

    def _e_Compare(self, n: A.Compare) -> tuple[Fn, str]:
        lf, lt = self.expr(n.left)
        rf, rt = self.expr(n.right)
        span = n.span
        if n.op in ("in", "not in"):
            neg = n.op == "not in"

            def found(ctx):
                container = rf(ctx)  # (the container first, then the item)
                got = member(ctx, lf(ctx), container, span)
                return not got if neg else got

            return found, "bool"
        op = _COMPARE[n.op]
        if n.op in ("==", "!="):
            self.check([choice_problem(n, self.scope)])
        if n.op in _ORDERED:
            self.check(ordered_problem(n.op, lt, n.left.span) + ordered_problem(n.op, rt, n.right.span))

            def ordered(ctx):
                a, b = lf(ctx), rf(ctx)
                if type(a) is list:  # compared value by value: charged
                    compared(ctx, a, b, span)
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
                if type(a) is list or type(a) is dict:  # compared value by value: charged
                    compared(ctx, a, b, span)
                return a != b if neq else a == b

            return eq_local, "bool"

        def equal(ctx):
            a, b = lf(ctx), rf(ctx)
            if type(a) is list or type(a) is dict:  # compared value by value: charged
                compared(ctx, a, b, span)
            return op(a, b)

        return equal, "bool"

    def _e_IsClass(self, n: A.IsClass) -> tuple[Fn, str]:
        f, t = self.expr(n.obj)
        cls = n.cls
        self.check(class_problem(n, t, self.scope))
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

    def _e_Ternary(self, n: A.Ternary) -> tuple[Fn, str]:
        tf, tt = self.expr(n.then)
        cf, _ = self.expr(n.cond)
        of, ot = self.expr(n.other)
        return (lambda ctx: tf(ctx) if cf(ctx) else of(ctx)), (tt if tt == ot else "any")


def _constant(node: A.Expr) -> Any:
    """The value of a literal number or plain text, else _MISSING."""
    if isinstance(node, A.Num):
        return node.value
    if isinstance(node, A.Str) and node.is_plain:
        return "".join(node.parts)  # type: ignore[arg-type]  # is_plain: every part is a text
    return _MISSING
