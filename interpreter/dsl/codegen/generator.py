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

from types import FunctionType
from typing import Callable

from .. import ast as A
from ..ops import run_with_params
from ..scope import FunctionDef, Scope

from .calls import CallNodes
from .operators import OperatorNodes
from .writing import _HELPERS, MADE_NAMES, SOURCE_NAMES, Unsupported, Writer  # noqa: F401 - blocks and tests read them here

STRICT = False  # tests set it: a failure to generate is raised instead of falling back to the closure
MAX_NODES = 2_000  # a bigger expression keeps its closures (its source would take long to compile)


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


class Generator(Writer, OperatorNodes, CallNodes):
    """Writes one Python function for one expression; a method per kind of node, as in Compiler."""

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
        folded = self.folder.fold(node, closure, self.locals)
        if folded is not None:  # the same value in every game: its work charged, its value a constant
            value, charges = folded
            for units, span in charges:
                self.charge(self.const(units), self.const(span))
            return self.const(value)
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

    def function_of(self, fd: FunctionDef) -> Callable:
        """The generated function of a ruleset function this expression calls."""
        return generated_function(fd, self.scope, self.recompile)
