"""The `if:` step: a condition, `then:` and `else:` steps, and `because:` (the rule's words, told when it applies).
The compiled engine writes it as a Python `if` (`STRETCH`)."""

from __future__ import annotations

import re
from typing import Optional

from ...dsl import ast as A
from ...dsl.closures.compiler import Compiler
from ...model import ruleset as M
from ...model.kinds import StepKind, Stretch, register
from ..choices import declined_otherwise
from ..yaml_source import YNode, YScalar


def build(builder, node, common: dict, auto: str, loops: tuple) -> M.IfStep:
    comp = Compiler(builder.local_scope, builder.diags)
    cond = builder.condition(node.get("if"), comp)
    then = builder.block(builder.steps_of(node.get("then")), f"{auto}.then.", loops)
    other = builder.block(builder.steps_of(node.get("else")), f"{auto}.else.", loops)
    if node.get("then") is None:
        builder.err("E202", "an 'if' step needs 'then:'", node.span)
    said = _because(builder, node.get("because"), f"{auto}.because", loops)
    other = declined_otherwise(builder, cond, then, other, comp)  # (a decision skipped for a hidden reason)
    return M.IfStep(**common, cond=cond, then=(*said, *then), other=tuple(other))


def _because(builder, node: Optional[YNode], auto: str, loops: tuple) -> tuple:
    """`because:` on an 'if' step: the rule's own words, told in the story when its 'then' branch runs (why an
    outcome changed: a void bid, a modifier, an event). A template like a log's; it becomes a step that logs it,
    so both engines tell it alike."""
    if node is None:
        return ()
    if not isinstance(node, YScalar) or not isinstance(node.value, str):
        builder.err("E204", "'because' is the text the story tells when the rule applies", node.span)
        return ()
    message = builder.text.parse_template(node)
    if message is None:
        return ()
    log = A.Log(node.span, message)
    fn = builder.stmt_compiler(loops).stmt(log)
    stmt = M.CStmt(str(node.value), log, fn, node.span)
    return (M.ActionStep(auto, f"{builder.seq_id}/{auto}", "", "", "", node.span, False, (stmt,)),)


def lower(f, s: M.IfStep) -> None:
    jf = f.emit("JUMP_IF_FALSE", s, s.cond)
    jf.cov = s.path  # the test is the visit (a loop's JUMP_IF_FALSE is not)
    f.block(s.then)
    if s.other:
        j = f.emit("JUMP", s)
        jf.target = f.here
        f.block(s.other)
        j.target = f.here
    else:
        jf.target = f.here


def graph(b, seq, s: M.IfStep, tails: list) -> list:
    """A condition: play leaves by 'yes' into its 'then' steps and by 'no' into its 'else' steps (or on)."""
    nid = b.entered(seq, s, "condition", s.cond.text if s.cond else "?", tails)
    yes = b.block(seq, s.then, [(nid, "yes", "yes")])
    no = b.block(seq, s.other, [(nid, "no", "no")]) if s.other else [(nid, "no", "no")]
    return yes + no


def write(w, s: M.IfStep) -> bool:
    """A Python `if` on the condition, its 'then' steps under it and its 'else' steps under `else:` (the jump over the
    'else' block counted where 'then' goes on)."""
    own = w.pcs(s)
    first = own[0][0]
    w.emit(f"pc = {first}")
    w.count(first)
    w.emit(f"if {w.value(s.cond.fn)}:")
    w.indent()
    mark = len(w.lines)
    then_goes_on = w.block(s.then)
    if s.other and then_goes_on:
        w.count(own[1][0], pure=True)
    w.dedent(mark)
    if s.other:
        w.emit("else:")
        w.indent()
        mark = len(w.lines)
        w.block(s.other)
        w.dedent(mark)
    return True


def at(s: M.IfStep, op: str) -> Optional[tuple]:
    """The jump over the 'else' block stands at the end of 'then'."""
    return ("then", s.then, len(s.then)) if op == "JUMP" else None


def resume(w, s: M.IfStep, path: list, k: int) -> None:
    """From inside 'then' or 'else': the rest of that block (and, after 'then', the jump over 'else')."""
    w.continuation(path, k + 1)
    if path[k + 1][1] == "then" and s.other:
        w.count(w.pcs(s)[1][0], pure=True)  # the jump over the 'else' block


STRETCH = Stretch(write, blocks=lambda s: (("then", s.then), ("else", s.other)), at=at, resume=resume)

# ---------------------------------------------------------------- what the tools say of it
def text(s: M.IfStep) -> str:
    return f"if {s.cond.text}" if s.cond else "if"


def book(s: M.IfStep, view, label: str, inner) -> None:
    cond = s.cond.text if s.cond else ""
    if label:
        view.code = f"if {cond}"
    else:
        view.lead, view.inline, view.tail = "If", cond, ":"
    view.groups.append(("then" if s.other else "", inner(s.then)))
    if s.other:
        view.groups.append(("otherwise", inner(s.other)))


def notes(s: M.IfStep, words, text: str, label: str, full: bool) -> list:
    """On a roll's success (`r.success`, `not r.success`), in the players' chart: what succeeds ('Roll succeeded?'
    says it already when it names a number or the target)."""
    e = s.cond.ast if s.cond is not None else None
    if isinstance(e, A.Unary) and e.op == "not":
        e = e.operand
    if not full and isinstance(e, A.Attr) and e.name == "success" and not re.search(r"\d|target|or more|or over", text):
        return ["yes: a total equal to or over its target"]
    return []


KINDS = (register(StepKind("if", build, model=M.IfStep, lower=lower, graph=graph, stretch=STRETCH, text=text,
                           branch=True, book=book, question=True, notes=notes, decides="",
                           fields=lambda s: (("condition", s.cond),),
                           summary=lambda s: f"if {s.cond.text if s.cond else '?'}",
                           doc="a condition: 'then' steps when it holds, 'else' steps otherwise (docs/format.md)")),)
