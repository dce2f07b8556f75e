"""Compiling lists, comprehensions and ranges into closures (a mixin of compiler.Compiler)."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional

from ...values import Card, ZoneRef
from .. import ast as A
from ..builtins import REGISTRY, as_list
from ..guards import charge, failing as _fail, nested, scalar
from ..checking import element_type, ranking_problem, want_number
from ..checking import Problem
from ..ops import _MISSING, MAX_RANGE, range_error, rank
from ..scope import Fn, Scope


class ListsMixin:
    """Lists, comprehensions and ranges; `self` is a Compiler."""

    # what Compiler (compiler.py), the class this is mixed into, gives these methods
    scope: Scope
    expr: Callable[[A.Expr], tuple[Fn, str]]
    sub_compiler: Callable[[Scope], ListsMixin]
    check: Callable[[Iterable[Optional[Problem]]], bool]
    report: Callable[..., None]

    def _e_ListLit(self, n: A.ListLit) -> tuple[Fn, str]:
        compiled = [self.expr(i) for i in n.items]
        fns = [f for f, _ in compiled]
        if all(scalar(i, REGISTRY, self.scope.functions) for i in n.items):
            return (lambda ctx: [f(ctx) for f in fns]), "list"
        span = n.span

        def fn(ctx):
            out = [f(ctx) for f in fns]
            nested(out, span)  # a list of lists, or of long texts: bound what it expands to (whatever the types)
            return out

        return fn, "list"

    def _e_Comprehension(self, n: A.Comprehension) -> tuple[Fn, str]:
        iter_fn, iter_t = self.expr(n.iterable)
        inner = self.sub_compiler(self.scope.with_typed_local(n.var, element_type(n.iterable, iter_t, self.scope)))
        elem_fn, elem_type = inner.expr(n.element)
        cond_fn = inner.expr(n.condition)[0] if n.condition is not None else None
        var = n.var
        span = n.iterable.span

        same = isinstance(n.element, A.Name) and n.element.id == var  # [c for c in ... if ...]: keep the item itself
        # a list of some items of a list (every list made is measured when it is made) or of numbers and truths
        # is within the limits: no need to measure it again
        measure = not same and not scalar(n.element, REGISTRY, self.scope.functions)
        # A condition 'c is CLASS and ...' is tested item by item without calls for its leading class tests (they
        # cannot fail or have effects), then its other parts in order, stopping at the first false one, as 'and' does.
        parts = _and_parts(n.condition) if n.condition is not None else []
        classes: list[tuple[str, bool]] = []
        while parts and isinstance(parts[0], A.IsClass) and isinstance(parts[0].obj, A.Name) and parts[0].obj.id == var:
            classes.append((parts[0].cls, parts[0].negate))
            parts = parts[1:]
        keep: Optional[Callable[[Any, Any], bool]]
        tests: tuple[Fn, ...] = ()
        if classes:
            tests = tuple(inner.expr(p)[0] for p in parts)
            wanted = tuple(c for c, neg in classes if not neg)
            unwanted = tuple(c for c, neg in classes if neg)

            def keep(item: Any, ctx: Any) -> bool:
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
            keep = None
        only = classes[0][0] if len(classes) == 1 and not classes[0][1] else None

        def fn(ctx):
            got = iter_fn(ctx)
            # a zone's own card list is read in place: expressions never move cards
            items = ctx.zone_cards(got) if type(got) is ZoneRef else as_list(ctx, got, span)
            charge(ctx, len(items), span)
            loc = ctx.locals
            saved = loc.get(var, _MISSING)
            out: list = []
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
            if measure:
                nested(out, span)  # a list of lists, or of long texts, whatever the element's type
            return out

        return fn, "list"

    def _ranking(self, n: A.Call) -> tuple[Fn, str]:
        """sorted(NAME in ITEMS, by: KEY[, descending: COND]), highest(...) and lowest(...): the key is worked out
        for each item in order with NAME bound to it, then the items are ordered by their keys (ties keep their
        order). Returns the closure and its coarse type."""
        problem = ranking_problem(n)
        if problem is not None:
            self.report(*problem)
            return _fail(problem.message, n.span), "any"
        binding = n.args[0]
        assert isinstance(binding, A.Compare) and isinstance(binding.left, A.Name)  # ranking_problem saw to it
        var = binding.left.id
        iter_fn, iter_t = self.expr(binding.right)
        item_t = element_type(binding.right, iter_t, self.scope)
        inner = self.sub_compiler(self.scope.with_typed_local(var, item_t))
        kws = {kw.name: kw.value for kw in n.kwargs}
        key_fn = inner.expr(kws["by"])[0]
        desc_fn = self.expr(kws["descending"])[0] if "descending" in kws else None
        kind, span = n.func, binding.right.span

        def fn(ctx):
            got = iter_fn(ctx)
            items = list(ctx.zone_cards(got)) if type(got) is ZoneRef else list(as_list(ctx, got, span))
            charge(ctx, len(items), span)
            loc = ctx.locals
            saved = loc.get(var, _MISSING)
            keys: list = []
            try:
                for item in items:
                    loc[var] = item
                    keys.append(key_fn(ctx))
            finally:
                if saved is _MISSING:
                    loc.pop(var, None)
                else:
                    loc[var] = saved
            return rank(kind, items, keys, desc_fn(ctx) if desc_fn is not None else False, n.span, ctx)

        return fn, ("list" if kind == "sorted" else item_t)

    def _e_Range(self, n: A.Range) -> tuple[Fn, str]:
        lf, lt = self.expr(n.low)
        hf, ht = self.expr(n.high)
        self.check(want_number(lt, n.low.span) + want_number(ht, n.high.span))
        span = n.span

        def fn(ctx):
            a, b = lf(ctx), hf(ctx)
            if not isinstance(a, int) or not isinstance(b, int) or isinstance(a, bool) or isinstance(b, bool):
                raise range_error(a, b, span)
            if b - a >= MAX_RANGE:
                raise range_error(a, b, span)
            return list(range(a, b + 1))

        return fn, "list"


# None between expressions; _INSIDE while one is compiled at load. When the compiler compiles an expression again


def _and_parts(node: A.Expr) -> list[A.Expr]:
    """The operands of a chain 'a and b and c', left to right (one operand for anything else)."""
    if isinstance(node, A.BinOp) and node.op == "and":
        return _and_parts(node.left) + _and_parts(node.right)
    return [node]
