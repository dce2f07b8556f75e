"""The `call:` step: run another sequence with arguments (`with:`), its result bound by `as:` (CALL). The compiled
engine runs the call, and the callee, from the stretch's code (`write`)."""

from __future__ import annotations

from ...dsl import ast as A
from ...model import ruleset as M
from ...model.kinds import StepKind, Stretch, register
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


def write(w, s: M.CallStep) -> bool:
    """The CALL run in the stretch, as handlers.h_call runs it (a call too deep is left to it, which reports it), and
    its callee through compiler/running._call; when the callee came back at once, the function goes on with the
    steps after the call, else it leaves (AGAIN). Without the game's programs, a stop."""
    if w.programs is None:
        return w.stop(s)
    pc = w.first(s)
    ins = w.code[pc]
    seq, args = ins.arg
    callee = w.programs[seq]
    w.calls += 1
    w.emit("if len(ctx.frames) >= ctx.max_depth:")  # too deep: the loop's CALL reports it at this step
    w.depth += 1
    w.exit(pc)
    w.depth -= 1
    w.emit(f"pc = {pc}")
    w.count(pc)
    if not args:
        w.emit("_a = {}")
    for i, (k, e) in enumerate(args):  # the arguments one after the other, as h_call works them out
        w.emit(f"_a = {{{w.const(k)}: {w.value(e.fn)}}}" if i == 0 else
               f"_a[{w.const(k)}] = {w.value(e.fn)}")
    if ins.extra is not None:  # call: SEQ with as: NAME
        w.emit(f"_bind_result(ctx, _a, {w.const(ins.extra)})")
    entries = callee.entries_cov if w.coverage else callee.entries
    w.emit(f"pc = {pc + 1}")
    call = f"_call(ctx, f, {pc + 1}, {w.const(seq)}, {w.const(callee.sequence.kind)}, _a, {w.const(entries)})"
    if not w.comes_back(seq):  # the callee stops where only the loop goes on (a stack): it never comes back at once
        w.emit(call)
        w.emit("return _AGAIN")  # the loop goes on from the frames as the call left them (after a return, at
        # this frame's next position, whose own function runs the rest: else it would be compiled twice)
        return False
    w.emit(f"if {call}:")  # the loop goes on from the frames as the call left them
    w.emit("    return _AGAIN")
    w.emit("n = ctx.steps")  # the callee came back at once: this function goes on (its steps counted; near the
    w.emit("if n > lim:")  # budget the loop goes on, from the position after the call)
    w.emit("    return _True")
    return True


def statements(s: M.CallStep) -> tuple:
    """The call it makes, as the statement `call SEQUENCE` (as NAME) (the checks and the tools find calls, and the
    results they keep, among statements)."""
    return (M.CStmt(f"call {s.sequence}", A.CallSeq(s.span, s.sequence, s.span, (), s.bind), None, s.span),)


def fields(s: M.CallStep) -> tuple:
    return (("call", s.sequence), ("with", dict(s.args)))


def text(s: M.CallStep) -> str:
    return f"call {s.sequence}"


def book(s: M.CallStep, view, label: str, inner) -> None:
    """'with player = player' says nothing: the arguments only when one is renamed."""
    args = ", ".join(f"{k} = {v.text}" for k, v in s.args)
    view.code = f"with {args}" if any(k != v.text for k, v in s.args) else ""


KINDS = (register(StepKind("call", build, model=M.CallStep, binds=binds, lower=lower, graph=graph,
                           stretch=Stretch(write), statements=statements, text=text, book=book, fields=fields,
                           summary=text, call=True, decides="", outcomes=False,
                           doc="run another sequence, its result bound by 'as' (docs/format.md)")),)
