"""The `do:` step: statements run in order, as one instruction (EXEC). A step written as plain text is one too.
The compiled engine writes each statement into the stretch's code (`write`)."""

from __future__ import annotations

from ...dsl import ast as A
from ...dsl.table_calls import targets
from ...model import ruleset as M
from ...model.kinds import StepKind, Stretch, register
from ..choices import _plain
from ..dsl_text import compile_stmts
from ..yaml_source import YScalar


def build(builder, node, common: dict, auto: str, loops: tuple) -> M.ActionStep:
    stmts = compile_stmts(builder.text, node.get("do"), builder.stmt_compiler(loops))
    if not common["label"]:
        common["label"] = str(_plain(node.get("do"), ""))
    return M.ActionStep(**common, stmts=stmts)


def binds(builder, node, out: set) -> None:
    """`let NAME = ...`, and the names `draw`, `roll`, `create zone` and `call` statements give with `as`."""
    if isinstance(node.get("do"), YScalar):
        builder.stmt_binders(node.get("do"), out)


def lower(f, s: M.ActionStep) -> None:
    f.statements(s, s.stmts)


def graph(b, seq, s: M.ActionStep, tails: list) -> list:
    """One node ('call' for a lone call statement): an edge to each sequence it calls; an 'end', 'return', 'break'
    or 'continue' among its statements leads out of the sequence or the loop instead of to the next step."""
    nid = s.path
    kind = "action"
    calls = [st.ast for st in s.stmts if isinstance(st.ast, A.CallSeq)]
    ends = [st.ast for st in s.stmts if isinstance(st.ast, (A.End, A.Return, A.Break, A.Continue))]
    said = {id(st.ast): st.text for st in s.stmts}
    if len(s.stmts) == 1 and calls:
        kind = "call"
    b.entered(seq, s, kind, "; ".join(st.text for st in s.stmts), tails)
    for c in calls:
        for t in targets(c, b.rs.tables):  # a call by table: an edge to each sequence its column names
            b.edge(nid, f"{t}/start", "call", f"as {c.bind}" if c.bind else "")
    for e in ends:
        if isinstance(e, A.End):
            b.edge(nid, f"{seq.id}/end", "end", f"end {e.kind}")
            return []
        if isinstance(e, A.Return):  # the edge says the result: 'return VALUE'
            b.edge(nid, f"{seq.id}/end", "end", said[id(e)] if e.value else "end sequence")
            return []
        if isinstance(e, A.Break):
            b.loop_exits.append((e.loop, nid))
            return []
        if isinstance(e, A.Continue):  # back to its loop, for the next pass
            loop = next((n for n, name in reversed(b.open_loops) if e.loop is None or e.loop == name), None)
            if loop is not None:
                b.edge(nid, loop, "repeat", f"continue {e.loop}" if e.loop else "continue")
                return []
    return [nid]


def write(w, s: M.ActionStep) -> bool:
    """Each statement in the stretch's code: a break or continue of the loop around as Python's, an assignment written
    out (compiler/statements.py), any other a call of its closure, with the signal it may give and the events it may
    raise seen to after it."""
    pc = w.first(s)
    ins = w.code[pc]
    w.emit(f"pc = {pc}")
    w.count(pc)
    for i, st in enumerate(s.stmts):
        if isinstance(st.ast, (A.Break, A.Continue)) and w.jump(ins, st.ast):
            return False
        shape = getattr(st.fn, "inline", None)
        if shape is not None:
            w.assign(*shape)  # returns nothing and raises no event: no checks after it
            continue
        if getattr(st.fn, "told", False):  # a log whose text draws no chance: worked out only for the story, it
            w.emit("if ctx.story:")  # returns nothing and raises no event
            w.emit(f"    {w.const(st.fn)}(ctx)")
            continue
        signal = w.value(st.fn)  # a statement the compiler writes (compiler/statements.py) or its closure
        if signal != "None":
            w.emit(f"_s = {signal}")
            w.emit("if _s is not None:")
            w.emit(f"    return _signal_exit(ctx, f, {w.const(ins)}, {pc}, {i}, _s, n)")
        if w.triggers:
            w.emit("if ctx._events:")
            w.emit(f"    if _fire(ctx, f, {pc}, {i + 1}, n):")
            w.emit("        return _AGAIN")
    return True


def text(s: M.ActionStep) -> str:
    """Its statements; those written in one string share that string as their text: said once."""
    return "; ".join(dict.fromkeys(st.text for st in s.stmts))


def book(s: M.ActionStep, view, label: str, inner) -> None:
    view.code = text(s)


def statements(s: M.ActionStep) -> tuple:
    return s.stmts


KINDS = (register(StepKind("do", build, model=M.ActionStep, binds=binds, lower=lower, graph=graph,
                           stretch=Stretch(write), statements=statements, text=text, text_label=True, book=book,
                           fields=lambda s: (("statements", s.stmts),), summary=lambda s: text(s) or s.label,
                           decides="", outcomes=False,
                           doc="statements run in order (docs/format.md)")),)
