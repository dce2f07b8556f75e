"""Build a ruleset's `invariants:`: conditions the designer states must always hold (when their `when:` does),
checked after every step by the games that check themselves (`--check`, scenarios)."""

from __future__ import annotations

from ..dsl.compiler import Compiler
from ..model import ruleset as M
from .yaml_source import YMap, YScalar, YSeq


def build_invariants(b, scope) -> tuple[M.Invariant, ...]:
    node = b.root.get("invariants")
    if not isinstance(node, YSeq):
        return ()
    out = []
    comp = Compiler(scope, b.diags)
    for item in node.items:
        if not isinstance(item, YMap):
            continue
        cond = b.text.expr(item.get("assert"), comp)
        when = b.text.expr(item.get("when"), comp) if item.get("when") is not None else None
        say = item.get("say")
        text = str(say.plain()) if isinstance(say, YScalar) and say.plain() is not None else ""
        if cond is not None:
            out.append(M.Invariant(cond, when, text, item.span))
    return tuple(out)
