"""`?` at the table: the rule of the step that asks, in players' words (its label, a construct's settings).

`tools/table/session.py` calls `rule_help(rs, step_asking(rs, node))` and adds the legal answers itself.
"""

from __future__ import annotations

import re
from typing import Optional

from rulecraft.model import ruleset as M



def _spec(step: M.Step):
    return getattr(step, "decision", None) or getattr(step, "play", None)


def decision_steps(rs: M.Ruleset) -> list[M.Step]:
    """Every step that asks a player something: choices, secret picks, stacks, auctions, response windows."""
    return [s for _seq, s in rs.iter_steps()
            if _spec(s) is not None or isinstance(s, (M.ConstructStep, M.SealedStep, M.StackStep))]


def step_asking(rs: M.Ruleset, node: str) -> Optional[M.Step]:
    """The step whose decision is asked at `node` (the decision's place as text): the step itself, or the
    auction or response window whose expansion holds it; None if no step asks there."""
    for _seq, s in rs.iter_steps():
        spec = _spec(s)
        if spec is not None and str(spec.span) == node:
            return s
        if isinstance(s, M.ConstructStep):
            for inner in M.walk_steps(s.run):
                inner_spec = _spec(inner)
                if inner_spec is not None and str(inner_spec.span) == node:
                    return s
            if str(s.span) == node:
                return s
    return None


def rule_help(rs: M.Ruleset, step: Optional[M.Step]) -> list[str]:
    """The lines `?` shows about the rule of `step`: what the step is (the designer's label or the rule in
    words), how a construct goes (its settings in words), and the designer's note. No sources, no code."""
    if step is None:
        return []
    from rulecraft.tools.chart.sheetplan import designer_label
    from rulecraft.tools.words import Words

    w = Words(rs, detail="players")
    lines = []
    label = designer_label(step)
    generated = w.step(step, own_label=False)
    if label:
        lines.append(f"Rule: {w.label(label)}")
    if isinstance(step, M.ConstructStep) or not label:
        if generated and generated != label:
            lines.append(("How it goes: " if label else "Rule: ") + generated)
    if not label and isinstance(step, M.ChooseStep):
        decider = getattr(step.decision.player, "ast", None) if step.decision is not None else None
        w.you = getattr(decider, "id", None)  # the rule said to the one asked: 'if you chose to place'
        then = what_follows(rs, w, step)
        if then:  # the question is asked below it: the rule is what the answer leads to
            lines = [f"Rule: after your answer, {'; '.join(then)}"]
    if step.note:
        lines.append(f"Note: {w.label(step.note)}")
    return lines


def _reads(step: M.Step, name: str) -> bool:
    """Whether a step's texts name `name` (what a decision bound)."""
    from rulecraft.dsl import ast as A

    texts = [getattr(step, "cond", None), *(getattr(step, "stmts", ()) or ())]
    for t in texts:
        node = getattr(t, "ast", t)
        if node is not None and any(isinstance(n, A.Name) and n.id == name for n in node.walk()):
            return True
    return False


def what_follows(rs: M.Ruleset, w, step: M.Step) -> list[str]:
    """What the steps right after a decision do with its answer, in words ("if the answer is no: stop rolling"):
    the rule of an unlabelled choice is what its answer leads to, not the question again."""
    spec = _spec(step)
    if spec is None or not spec.bind:
        return []
    for seq in rs.sequences.values():
        for body in _bodies(seq.steps):
            if step in body:
                after = [s for s in body[body.index(step) + 1:] if _reads(s, spec.bind)][:2]
                out = []
                for s in after:
                    text = _said(rs, w, s)
                    inner = [_said(rs, w, b) for _n, b_list in s.bodies[:1] for b in b_list][:3]
                    inner = [x for x in inner if x]
                    if text:
                        said = text + (", " + ", then ".join(inner) if inner else "")
                        out.append(re.sub(r"\?, then (\w)", lambda m: "? Then " + m.group(1), said))
                return out
    return []


def _said(rs: M.Ruleset, w, s: M.Step) -> str:
    """A step in players' words, first letter small; '' for bookkeeping."""
    from rulecraft.tools.chart.sheetplan import designer_label
    from rulecraft.tools.words.bookkeeping import hidden_step

    if hidden_step(rs, s):
        return ""
    label = designer_label(s)
    text = (w.label(label) if label else w.step(s, own_label=False)).rstrip(".")
    d = getattr(s, "decision", None)
    if not label and isinstance(s, M.ChooseStep) and d is not None and d.prompt is not None and d.player is not None \
            and getattr(getattr(d.player, "ast", None), "id", None) != w.you:  # in a sentence, a question is quoted
        text = f"{w.expr(d.player)} is asked “{w.addressed(d.player, d.prompt)}”"
    return text[:1].lower() + text[1:] if text[1:2] != text[1:2].upper() else text


def _bodies(steps):
    yield tuple(steps)
    for s in steps:
        for _n, body in s.bodies:
            yield from _bodies(body)
