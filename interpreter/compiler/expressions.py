"""An expression as the Python source of one function, so a run costs one call instead of one per node.

The closures (dsl/closures) stay the reference: every diagnostic, type and name was settled there when the
ruleset loaded, and this module only changes how an expression runs. Each node is written as a few lines
that put its value into a fresh local, in the order the closures evaluate, with the same guards and errors;
a node written nowhere here runs its own closure, called from the generated code (a fallback).

Security: rulesets come from strangers, so none of their text ever enters the source. Every value the
code needs (numbers, texts, names as strings, spans, getters, built-ins, fallback closures) is bound in the
function's namespace under a name made here (_k0, _k1, ...); locals are _v0, _v1, ...; the rest of the source is
Python syntax and the helper names of `_HELPERS`, all written in this package. tests/test_compiler.py checks it.
"""

from __future__ import annotations

import re
import threading
from typing import Any, Callable, Optional

from ..dsl import ast as A
from ..dsl.builtins import REGISTRY
from ..dsl.ops import run_with_params
from ..dsl.closures.compiler import record, record_parts
from ..dsl.scope import FunctionDef, Scope

from ..dsl.guards import CALL_COST, scalar
from .calls import CallNodes
from .operators import _FIXED_TRUTH, OperatorNodes
from .statements import StatementNodes
from .writing import _HELPERS, MADE_NAMES, MAX_NODES, SOURCE_NAMES, Unsupported, Writer, compiled_function  # noqa: F401 - running.py and tests read them here

STRICT = False  # tests set it: a failure to write is raised instead of falling back to the closure


def written(closure: Callable) -> Optional["Written"]:
    """The Python source of a whole expression (the function dsl/closures/whole.py made of it, which notes its node
    and scope as `written_from`), the namespace its names live in and the function it defines, written once and
    kept on it; None for an expression a closure runs in one call, or one that cannot be written (its closure runs).

    One expression written at a time in the whole process: games in several threads may share a ruleset, and
    the note of the ruleset functions being written (_GENERATING) is shared."""
    got = closure.__dict__.get("written", _NOT_YET) if hasattr(closure, "__dict__") else None
    if got is not _NOT_YET:
        return got
    with _LOCK:
        got = closure.__dict__.get("written", _NOT_YET)
        if got is _NOT_YET:
            got = _write(closure)
            held: Any = closure  # (a function: it keeps what was written of it)
            held.written = got
    return got


_NOT_YET = object()
_LOCK = threading.RLock()


def _write(closure: Callable) -> Optional["Written"]:
    noted = getattr(closure, "written_from", None)
    if noted is None:
        return None
    node, scope = noted[0], noted[1]
    try:
        if isinstance(node, A.Stmt):  # a statement a stretch of steps runs (statements.py)
            gen = Generator(scope, record_parts(node.children(), scope), record)
            src = gen.function_source(node, noted[2])
        else:
            gen = Generator(scope, record(node, scope), record)
            src = gen.function_source(node)
    except Exception:  # RecursionError on a deep tree, an unsafe source (safesource), ...
        if STRICT:
            raise
        return None
    return Written(src, gen.ns, getattr(closure, "closure", closure))


class Written:
    """What `written` gives: read as the tuple (source, namespace, function). The function is compiled the first time
    it is read: a source only ever copied into a stretch of steps (expressions.copied) is never compiled alone, and
    compiling is most of what writing one costs. One that cannot be compiled (Python's limits on nesting) is its
    closure."""

    __slots__ = ("source", "ns", "closure", "_fn")

    def __init__(self, source: str, ns: dict, closure: Callable):
        self.source, self.ns, self.closure = source, ns, closure
        self._fn: Optional[Callable] = None

    def __getitem__(self, i: int):
        return self.source if i == 0 else self.ns if i == 1 else self.function()

    def function(self) -> Callable:
        fn = self._fn
        if fn is None:
            with _LOCK:
                fn = self._fn
                if fn is None:
                    try:
                        fn = compiled_function(self.source, "_expression", self.ns)
                    except Exception:  # SyntaxError past Python's nesting limits, ...
                        if STRICT:
                            raise
                        fn = self.closure
                    self._fn = fn
        return fn


def copied(got: tuple, const: Callable, prefix: str, pad: str) -> Optional[tuple[list, str]]:
    """The lines of a written expression (`written`) to copy into another function at indent `pad`, and the name
    of its value: its constants renamed by `const` (a name of that function for the same value), its locals
    given `prefix`, its `_L` the function's own (the frame's locals, which ctx.locals is while it runs). None for a
    source not of the shape `build` writes. The source holds no ruleset text, so neither do the lines."""
    src, ns = got[0], got[1]
    lines = src.split("\n")
    if not lines[0].startswith("def ") or not lines[-1] == "" or not lines[-2].startswith("    return ") or \
            "    _d = _ZERO" in lines:  # (one that charges ahead returns from inside: it is called)
        return None

    def rename(m: re.Match) -> str:
        name = m.group(0)
        return const(ns[name]) if name[1] == "k" else prefix + name[2:]

    body = [pad + _NAMES.sub(rename, line) for line in lines[1:-2] if line.strip() != "_L = ctx.locals"]
    return body, _NAMES.sub(rename, lines[-2][len("    return "):])


_NAMES = re.compile(r"_(?<!\w_)[kv][0-9]+\b")  # the constants and locals of an expression's function (`\b_`, written
# with the `_` first: a pattern that starts with a letter finds it at once, not by trying every place of a line)


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
    assert body is not None  # (a function that loaded has its closure)
    return lambda ctx, *values: run_with_params(ctx, params, values, body)


def _by_chance(node: A.Node, scope: Scope, seen: set) -> bool:
    """Some part of `node` (or of a ruleset function it calls) draws by chance: running it twice is not the same."""
    if isinstance(node, A.Call):
        fd = scope.functions.get(node.func)
        if fd is not None:
            if fd.name not in seen:
                seen.add(fd.name)
                if fd.body is None or _by_chance(fd.body, scope, seen):
                    return True
        else:
            b = REGISTRY.get(node.func)
            if b is None or b.chance:
                return True
    return any(_by_chance(child, scope, seen) for child in node.children())


# Loop-invariant parts (Generator._kept): the nodes worth keeping, the nodes they may be made of, the attributes that
# give a new list each time, the lines that charge work or look at the budget (a pass must charge as before)
_KEPT_ROOTS = (A.Compare, A.IsClass, A.Unary, A.Attr, A.Index)
_STILL = frozenset((A.Name, A.Num, A.Str, A.Const, A.Attr, A.Index, A.Compare, A.IsClass, A.Unary, A.BinOp, A.Ternary))
_FRESH = frozenset(("cards", "classes", "faces"))
_CHARGING = ("#", "for ", "_d ", "ctx.work", "(ctx)", "_compared(", "_member(", "_bounded(", "_scanned(", "_nested(", "_record_scanned(",
             "_charge(", "_number(", ".append(", ".extend(")
_MADE_HERE = re.compile(r"_v[0-9]+")
_LOOKUPS = frozenset(("owner", "zone_of"))  # built-ins that look up whose or where a thing is: no work, no chance


class Generator(Writer, OperatorNodes, CallNodes, StatementNodes):
    """Writes one Python function for one expression or statement; a method per kind of node, as in Compiler."""

    # ------------------------------------------------------------ whole functions
    def function(self, node: A.Expr) -> Callable:
        """`node` written as one function `_expression(ctx)`, in a namespace of its own."""
        return compiled_function(self.function_source(node), "_expression", self.ns)

    def function_source(self, node: A.Expr | A.Stmt, extra: Optional[dict] = None) -> str:
        """The checked source of `function` (a statement's value is its signal, see statements.py); the constants it
        names are in self.ns."""
        result = self.statement(node, extra or {}) if isinstance(node, A.Stmt) else self.expr(node)
        prologue = ["    _L = ctx.locals"] if self.reads_locals else []
        again = None  # an expression that draws nothing by chance may charge its work ahead (Writer.source)
        if not isinstance(node, A.Stmt) and not _by_chance(node, self.scope, set()):
            again = f"{self.const(self.made[id(node)][1][0])}(ctx)"
        return self.source("_expression", "ctx", prologue, f"    return {result}", again=again)

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
        key = self.same_call(node) if node.__class__ is A.Call else None
        if key is not None:
            got = self.memo.get(key)
            if got is not None and self.path[:len(got[1])] == got[1]:  # worked out on every way here: its local
                return got[0]
        mark = len(self.lines), self.temps, self.fallbacks, self.reads_locals, len(self.kept), len(self.memo)
        try:
            if self.looping and not self.keeping and isinstance(node, _KEPT_ROOTS) and self.same_each_pass(node):
                return self._kept(node, method, mark[0], mark[1])
            out = method(node)
        except Unsupported:
            # forget what this node began to write; its closure does it all
            del self.lines[mark[0]:]
            del self.kept[mark[4]:]  # (its locals' numbers are given again)
            for k in list(self.memo)[mark[5]:]:
                del self.memo[k]
            self.kept_end = ()
            self.temps, self.fallbacks, self.reads_locals = mark[1], mark[2], mark[3]
            return self.fallback(closure)
        if key is not None and not self.keeping and _MADE_HERE.fullmatch(out) and \
                not any(word in line for line in self.lines[mark[0]:] for word in _CHARGING):
            self.memo[key] = (out, self.path)
        return out

    def same_call(self, node: A.Call) -> Optional[tuple]:
        """A call of a built-in that only looks up whose or where a thing is (_LOOKUPS), of names only: the same names
        bound alike give the same value anywhere in the expression (nothing an expression runs changes the game or
        the names it reads), so a later call on every way from an earlier one reads that one's local (the key of
        `memo`); None for any other call."""
        names = [a for a in node.args if isinstance(a, A.Name)]
        if node.func not in _LOOKUPS or node.kwargs or node.func in self.scope.functions or len(names) < len(node.args):
            return None
        return (node.func, *((a.id, self.bound.get(a.id)) for a in names))

    def same_each_pass(self, node: A.Expr) -> bool:
        """`node` has the same value in every pass of the loops being written: it reads no name a loop binds (nor a
        parameter written inline with an argument that changes), and is made of reads, comparisons and arithmetic
        only (no call, no list made, nothing drawn by chance: an expression changes nothing in the game)."""
        todo: list[A.Node] = [node]
        while todo:
            n = todo.pop()
            if n.__class__ not in _STILL or (n.__class__ is A.Name and self.bound.get(n.id) in self.varying) or (
                    n.__class__ is A.Attr and n.name in _FRESH):
                return False
            todo.extend(n.children())
        return True

    def _kept(self, node: A.Expr, method: Callable, start: int, temps: int) -> str:
        """`node` (the same in every pass, see same_each_pass) worked out in the first pass of the loops around it
        only, where it stands (so an error it raises is raised there, as before): later passes read its local,
        set to _MISSING before the outermost loop. Only when its lines charge no work, look at no budget and call
        nothing that charges (the work charged stays the same, pass by pass); else it is written as it is."""
        self.keeping = True
        try:
            out = method(node)
        finally:
            self.keeping = False
        if len(self.lines) - start >= 2 and _MADE_HERE.fullmatch(out) and int(out[2:]) > temps:
            self.keep_lines(start, out)
        return out

    def kept_list(self, start: int, got: str, items: str) -> tuple[str | None, int]:
        """The lines from `start` on, which read `items`, the list of `got` (a value kept: see _kept), worked out with
        it in the first pass only, and with them a flag (its items are cards, see Writer.cards): (the flag's local,
        the index of its line) or (None, 0) when they cannot be."""
        if not self.keep_lines(start, items):
            return None, 0
        flag, at = self.temp(), len(self.lines)
        self.emit(f"{flag} = type({got}) is _ZoneRef")
        self.keep_lines(at, flag)
        return flag, at

    def keep_lines(self, start: int, out: str) -> bool:
        """The lines written from `start` on, which set the local `out` to a value the same in every pass of the loops
        around them, run in the first pass only (`if out is _MISSING:`, set so before the outermost loop) when they
        charge no work, look at no budget and call nothing that charges; else (False) left as they are."""
        body = self.lines[start:]
        if any(word in line for line in body for word in _CHARGING):
            return False
        del self.lines[start:]
        end = self.kept_end
        if not (end and end[0] is self.lines and end[1] == start and end[2] == self.depth):
            self.emit(f"if {out} is _MISSING:")
            self.kept.append(out)
        # (else right after another part kept, where it was written: worked out with it, in the same first pass)
        self.lines.extend("    " + line for line in body)
        self.kept_end = (self.lines, len(self.lines), self.depth)
        return True

    def fallback(self, closure: Callable) -> str:
        self.fallbacks += 1
        out = self.temp()
        self.emit(f"{out} = {self.const(closure)}(ctx)")
        return out

    def counted(self, node: A.Expr) -> str:
        """count() of `node`, a list (facts.list_fact) made only to be counted: a literal, a choice between two, two
        joined, a ruleset function giving one (written inline) are counted without making them. Everything in them
        is worked out in the same order with the same work (joining lists, counting them charge nothing); a literal
        that guards.nested would look into, and anything else, is made and counted as before."""
        entry = self.made.get(id(node))
        closure = entry[1][0] if entry is not None and entry[0] is node else None
        fd = self.scope.functions.get(node.func) if isinstance(node, A.Call) else None
        if closure is None or getattr(closure, "failed", False) or self.folder.fold(node, closure, self.locals) is not None \
                or not (fd is not None or isinstance(node, (A.Ternary, A.BinOp)) or isinstance(node, A.ListLit) and
                        all(scalar(i, REGISTRY, self.scope.functions) for i in node.items)):
            v = self.expr(node)  # (a list, always)
            if v in self.ns:
                return self.const(len(self.ns[v]))
            out = self.temp()
            self.emit(f"{out} = len({v})")
            return out
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise Unsupported("too big")
        if isinstance(node, A.ListLit):
            for i in node.items:
                self.expr(i)
            return self.const(len(node.items))
        out = self.temp()
        if isinstance(node, A.Ternary):  # as _g_Ternary
            cond = self.expr(node.cond)
            if cond in self.ns and type(self.ns[cond]) in _FIXED_TRUTH:
                return self.counted(node.then if self.ns[cond] else node.other)
            with self.block(f"if {cond}:"):
                self.emit(f"{out} = {self.counted(node.then)}")
            with self.block("else:"):
                self.emit(f"{out} = {self.counted(node.other)}")
            return out
        if isinstance(node, A.BinOp):  # two lists joined (list_fact says so)
            a, b = self.counted(node.left), self.counted(node.right)
            self.emit(f"{out} = {a} + {b}")
            return out
        assert fd is not None and isinstance(node, A.Call)  # as CallNodes._user_call, its body counted
        if node.kwargs or len(node.args) != len(fd.params) or fd.fn is None or getattr(fd.fn, "failed", False):
            raise Unsupported("a call the compiler refused")
        self.charge(self.const(1 if len(fd.params) in (1, 2) else CALL_COST), self.const(node.span))
        args = [self.expr(a) for a in node.args]
        if self.looping:
            self.varying.update(v for v, a in zip(args, node.args) if not self.same_each_pass(a))
        inline = self._inline(fd, args, type(self).counted)
        if inline is not None:
            return inline
        self.emit(f"{out} = len({self.const(self.function_of(fd))}({', '.join(['ctx', *args])}))")
        return out

    def type_of(self, node: A.Expr) -> str:
        return self.made[id(node)][1][1]

    def function_of(self, fd: FunctionDef) -> Callable:
        """The generated function of a ruleset function this expression calls."""
        return generated_function(fd, self.scope, self.recompile)
