"""`?` at the table: the rule of the step that asks, in players' words (its label, a construct's settings).

`tools/table/session.py` calls `rule_help(rs, step_asking(rs, node))` and adds the legal answers itself.
"""

from __future__ import annotations

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
    if step.note:
        lines.append(f"Note: {w.label(step.note)}")
    return lines
