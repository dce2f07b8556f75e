"""A step kind that exists only for tests: `unless: CONDITION` with `do:` runs its steps when the condition does
not hold.

It is the whole of a new core step kind, in one module: its model class, its schema form, its builder (YAML ->
its step), how it is lowered to instructions (one JUMP_IF_FALSE on the condition's negation, then its steps:
instructions both engines already run), how the compiled engine writes it into a generated stretch (a Python `if`),
its box and arrows in the sequence graph, its rule text and its paragraph in the book, and its English; what the
diff compares of it (its condition) and that it decides nothing itself (the player aid spells out its steps; its
steps run on an outcome, `outcomes`, the default).
tests/test_step_kinds.py registers it and touches no other file.
"""

from __future__ import annotations

from typing import Optional

from rulecraft.dsl import ast as A
from rulecraft.dsl.closures.compiler import Compiler
from rulecraft.model import ruleset as M
from rulecraft.model.compiled import CExpr
from rulecraft.model.kinds import StepKind, Stretch
from rulecraft.records import dataclass

SCHEMA = {
    "title": "Unless step",
    "description": "Runs 'do' when the condition does not hold.",
    "type": "object",
    "properties": {
        "id": {"$ref": "#/$defs/id"},
        "label": {"type": "string"},
        "source": {"type": "string"},
        "note": {"type": "string"},
        "unless": {"title": "Condition", "$ref": "#/$defs/expression"},
        "do": {"title": "Steps", "$ref": "#/$defs/steps"},
    },
    "required": ["unless", "do"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class UnlessStep(M.Step):
    cond: Optional[CExpr] = None  # as written
    test: Optional[CExpr] = None  # its negation: what the jump tests
    body: tuple = ()

    @property
    def bodies(self):
        return (("do", self.body),)


def build(builder, node, common: dict, auto: str, loops: tuple) -> UnlessStep:
    comp = Compiler(builder.local_scope, builder.diags)
    cond = builder.condition(node.get("unless"), comp)
    test = None
    if cond is not None:
        negated = A.Unary(cond.span, "not", cond.ast)
        test = CExpr(cond.text, negated, comp.expr(negated)[0], cond.span)
    body = builder.block(builder.steps_of(node.get("do")), f"{auto}.do.", loops)
    return UnlessStep(**common, cond=cond, test=test, body=tuple(body))


def lower(f, s: UnlessStep) -> None:
    skip = f.emit("JUMP_IF_FALSE", s, s.test)
    skip.cov = s.path  # each time the condition is tested is a visit of the step
    f.block(s.body)
    skip.target = f.here


def write(w, s: UnlessStep) -> bool:
    """In a generated stretch: its test counted as the loop counts the jump, then `if NOT CONDITION:` over its steps."""
    pc = w.first(s)
    w.emit(f"pc = {pc}")
    w.count(pc)
    w.nested(f"if {w.value(s.test.fn)}:", s.body)
    return True  # (play goes on after it whether or not its steps ran)


def graph(b, seq, s: UnlessStep, tails: list) -> list:
    """A condition's box: 'no' into its steps, 'yes' on past them."""
    nid = b.node(seq, s, "condition", f"unless {s.cond.text if s.cond else '?'}")
    for t in tails:
        b.edge(t, nid)
    return b.block(seq, s.body, [(nid, "no", "no")]) + [(nid, "yes", "yes")]


def text(s: UnlessStep) -> str:
    return f"unless {s.cond.text if s.cond else ''}"


def book(s: UnlessStep, view, label: str, inner) -> None:
    """In the designers' book: 'Unless CONDITION:' over its steps (or the rule text under the designer's label)."""
    if label:
        view.code = text(s)
    else:
        view.lead, view.inline, view.tail = "Unless", s.cond.text if s.cond else "", ":"
    view.groups.append(("", inner(s.body)))


def words(step, renderer) -> str:
    return f"Unless {renderer.expr(step.cond)}:"


UNLESS = StepKind("unless", build, schema=SCHEMA, model=UnlessStep, lower=lower, graph=graph, words=words,
                  stretch=Stretch(write, blocks=lambda s: (("do", s.body),)), text=text, book=book,
                  fields=lambda s: (("condition", s.cond),), summary=text, decides="",
                  doc="steps run when a condition does not hold")
