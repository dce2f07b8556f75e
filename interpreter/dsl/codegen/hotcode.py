"""Hot-code management: a compiled expression runs its closure until it is hot, then the Python source that
codegen.py writes of it (see `lazy`)."""

from __future__ import annotations

import os
import threading
import weakref
from types import FunctionType
from typing import Callable, Optional

from .. import ast as A
from ..scope import Fn, LoadTimeContext, Scope

CODEGEN = os.environ.get("RULECRAFT_CODEGEN", "1") != "0"  # RULECRAFT_CODEGEN=0: closures only (tests compare both)
# The call that turns an expression into Python source (about 0.15 ms); the first call runs the closure. Low, so an
# expression a game evaluates is generated in the first game, not inside the games a simulation goes on to play
# (16 until issue 27; with 2 here and blocks.HOT at 20, dml's instructions per game after 5 warm-up games fell by a
# quarter, and a fresh process's first game costs about twice as much: docs/performance.md).
HOT = 2
_SIMPLE = (A.Num, A.Const, A.Name)  # one closure call already: nothing to gain


def _trampoline(ctx):
    """The code of an expression's function until codegen gives it its own (names resolve in its namespace)."""
    return _warm(ctx, _state)  # noqa: F821 - names of the function's own namespace, see lazy


def lazy(node: A.Expr, closure: Fn, scope: "Scope", recompile: Callable) -> Fn:
    """A function that runs `closure` until it is hot, then the Python source codegen makes of `node`.

    Generating at load time would slow every validation, and most expressions of a ruleset run rarely or never;
    an expression evaluated while the ruleset loads (LoadTimeContext) keeps its closure. The function is made
    with a namespace of its own, so codegen can give it the generated code in place (`__code__`): whoever
    holds it then runs the generated code with no call in between. A few small objects per expression, and no
    reference cycle (which would keep a loaded ruleset alive until the garbage collector's next full pass): the
    state reaches the function by a weak reference. `recompile(node, scope)` compiles a node again as at load
    and returns what each of its nodes became (compiler.record): codegen reads the closures and types there.
    """
    if not CODEGEN or isinstance(node, _SIMPLE) or (isinstance(node, A.Str) and node.is_plain):
        return closure
    # calls so far, closure, node, scope, the function, the recompiler
    state = [0, closure, node, _names_only(scope), None, recompile]
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
    from . import generator as codegen  # imported when an expression first gets hot: validating never needs it

    with _GENERATE_LOCK:
        node = state[2]
        if node is not None:
            codegen.generate(node, state[3], state[1], target, state[5])
            state[2] = state[3] = state[5] = None  # the node, scope and recompiler are not needed any more


_GENERATE_LOCK = threading.RLock()


def generated_source(fn: Fn) -> Optional[tuple[str, dict]]:
    """The Python source codegen made of a compiled expression (made now if it was not yet) and the namespace
    its names live in; None for an expression that runs a closure (a simple one, or one codegen left alone).
    runtime/machine/blocks.py writes it inline into the function of a stretch of steps."""
    ns = getattr(fn, "__globals__", None)
    state = ns.get("_state") if isinstance(ns, dict) and ns.get("_warm") is _warm else None
    if not isinstance(state, list) or len(state) != 6 or state[4]() is not fn:
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
