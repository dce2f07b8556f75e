"""The `call:` step: run another sequence with arguments (`with:`), its result bound by `as:` (CALL)."""

from __future__ import annotations

from ...model import ruleset as M
from ...model.kinds import StepKind, register
from ..choices import _plain
from ..yaml_source import YMap


def build(builder, node, common: dict, auto: str, loops: tuple) -> M.CallStep:
    target = str(_plain(node.get("call")))
    with_node = node.get("with")
    kwargs = [(k, v, with_node.key_span(k)) for k, v in with_node.items()] if isinstance(with_node, YMap) else []
    sc_ = builder.stmt_compiler(loops)
    parsed = []
    for k, v, s in kwargs:
        ast = builder.text.parse_expr(v)
        if ast is not None:
            parsed.append((k, ast, s, v))
    checked = sc_.call_args(target, node.get("call").span, [(k, a, s) for k, a, s, _v in parsed], node.span)
    args: tuple = ()
    if checked is not None:
        args = tuple((k, M.CExpr(str(v.plain()), a, fn, a.span))
                     for (k, fn), (_k, a, _s, v) in zip(checked, parsed))
    return M.CallStep(**common, sequence=target, args=args, sequence_span=node.get("call").span,
                      bind=_plain(node.get("as")))


def binds(builder, node, out: set) -> None:
    if node.get("as") is not None:
        out.add(str(_plain(node.get("as"))))


def lower(f, s: M.CallStep) -> None:
    f.emit("CALL", s, (s.sequence, s.args), extra=s.bind)


def graph(b, seq, s: M.CallStep, tails: list) -> list:
    nid = b.entered(seq, s, "call", f"call {s.sequence}", tails)
    b.edge(nid, f"{s.sequence}/start", "call", f"as {s.bind}" if s.bind else "")
    return [nid]


KINDS = (register(StepKind("call", build, model=M.CallStep, binds=binds, lower=lower, graph=graph,
                           doc="run another sequence, its result bound by 'as' (docs/format.md)")),)
