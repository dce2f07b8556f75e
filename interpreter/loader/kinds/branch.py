"""The `if:` step: a condition, `then:` and `else:` steps, and `because:` (the rule's words, told when it applies)."""

from __future__ import annotations

from typing import Optional

from ...dsl import ast as A
from ...dsl.closures.compiler import Compiler
from ...model import ruleset as M
from ...model.kinds import StepKind, register
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


KINDS = (register(StepKind("if", build, model=M.IfStep, lower=lower, graph=graph,
                           doc="a condition: 'then' steps when it holds, 'else' steps otherwise (docs/format.md)")),)
