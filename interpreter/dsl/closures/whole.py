"""A whole expression (one not inside another) as the game calls it: its closure, or in a game of the compiled
engine the function the compiler (rulecraft.compiler.expressions) writes of it once it has run HOT times there.

The engine is the game's (`ctx.compiled`, set by `Game(engine=...)`): a game of the reference engine, and any
other context (loading, a test's namespace), always runs the closure, so the closures stay the reference the
compiled engine is compared with. The function is noted on the expression (`written_from`: its node, and its
scope without the dice), and made by the game (`ctx.written`, which asks the compiler): nothing here imports
the compiler, and nothing is written while a ruleset loads.
"""

from __future__ import annotations

from .. import ast as A
from ..scope import Fn, Scope

HOT = 1  # calls by compiled games before the expression is written: at its first call, so once for the ruleset
# (at the 2nd call until s15, an expression first run twice inside the games a simulation measures was written there)
_SIMPLE = (A.Num, A.Const, A.Name)  # one closure call already: nothing to write


def noted(node: A.Expr, closure: Fn, scope: Scope) -> Fn:
    """The function a whole expression is called by (the closure itself for a node it runs in one call).

    Once written, the function is also the attribute `hot` of the one returned: a caller on a busy path of a compiled
    game (a trigger's condition, a roll's named results) calls `getattr(fn, "hot", fn)` and saves the call that
    would choose it. The same value either way: before it is written, `fn` itself counts the call and writes it."""
    if isinstance(node, (A.Num, A.Const)) or (isinstance(node, A.Str) and node.is_plain):
        # a value written in the rules: noted as such, so a stretch of steps names the value and calls nothing
        closure.constant = (closure(None),)  # type: ignore[attr-defined]  # a function takes attributes
        return closure
    if isinstance(node, _SIMPLE):
        return closure
    made: list = [0, None]  # calls by compiled games so far, the function written (or the closure, if none can be)

    def expression(ctx):
        try:
            compiled = ctx.compiled
        except AttributeError:  # not a game
            compiled = False
        if not compiled:
            return closure(ctx)
        fn = made[1]
        if fn is None:
            made[0] += 1
            if made[0] < HOT:
                return closure(ctx)
            fn = made[1] = expression.hot = ctx.written(expression)  # type: ignore[attr-defined]
        return fn(ctx)

    expression.written_from = (node, _names_only(scope))  # type: ignore[attr-defined]  # a function takes attributes
    expression.closure = closure  # type: ignore[attr-defined]  # as above
    return expression


def statement_noted(node: A.Stmt, closure: Fn, scope: Scope, **extra) -> Fn:
    """A statement's closure, noted so that the compiler can write it into a stretch of steps (compiler/statements.py:
    its node, the scope without the dice, and what the closure settled at load, e.g. a roll's dice)."""
    closure.written_from = (node, _names_only(scope), extra)  # type: ignore[attr-defined]  # as above
    return closure


def _names_only(scope: Scope) -> Scope:
    """The scope without its dice (whose expressions hold the scope: a cycle), its local names as they are now."""
    view = scope.__dict__.get("_names_only")
    if view is None or len(view.locals) != len(scope.locals):
        view = Scope(scope.symbols, scope.player_vars, scope.player_zones, scope.card_attrs, scope.card_classes,
                     scope.table_columns, scope.marks, {}, set(scope.locals), scope.functions, scope.metrics)
        scope.__dict__["_names_only"] = view
    return view
