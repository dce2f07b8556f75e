"""`?` at the table: the rule of the step that asks, in players' words (its label, a construct's settings).

`tools/table/session.py` calls `helpmore.help_at_table(rs, step_asking(rs, decision.step), decision)` (this rule
made whole for the decision at hand) and adds the legal answers itself.
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


def step_asking(rs: M.Ruleset, step: Optional[M.Step]) -> Optional[M.Step]:
    """The step whose rule `?` says for a decision asked by `step` (the decision's own `Decision.step`): the
    auction or response window whose expansion holds that step, else the step itself; None when no step asks
    (a re-roll)."""
    if step is None:
        return None
    for _seq, s in rs.iter_steps():
        if isinstance(s, M.ConstructStep) and any(inner is step for inner in M.walk_steps(s.run)):
            return s
    return step


def rule_help(rs: M.Ruleset, step: Optional[M.Step]) -> list[str]:
    """The lines `?` shows about the rule of `step`: what the step is (the designer's label or the rule in
    words), how a construct goes (its settings in words), and the designer's note. No sources, no code. At the
    table, `helpmore.help_at_table` makes it whole for the decision being asked."""
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
        block = _labelled_block(rs, step)
        if block:  # the choice opens a block the designer labelled: that label is its rule
            lines = [f"Rule: {w.label(block)}"] + ([f"After your answer: {'; '.join(then)}"] if then else [])
    if step.note:
        lines.append(f"Note: {w.label(step.note)}")
    return lines


def _reads(step: M.Step, names) -> bool:
    """Whether a step's own texts name one of `names` (what a decision bound, or what was worked out from it)."""
    from rulecraft.dsl import ast as A

    names = {names} if isinstance(names, str) else names
    loop = step.iterable if isinstance(step, M.ForEachStep) else None  # 'for each one chosen'
    texts = [getattr(step, "cond", None), loop, *(getattr(step, "stmts", ()) or ())]
    for t in texts:
        node = getattr(t, "ast", t)
        if isinstance(node, A.Node) and any(isinstance(n, A.Name) and n.id in names for n in node.walk()):
            return True
    return False


def _worked_out(step: M.Step, names: set) -> set:
    """The names a step's `let` and `set` statements work out from `names` ('let base = sum(picked)': base)."""
    from rulecraft.dsl import ast as A

    out = set()
    for st in getattr(step, "stmts", ()) or ():
        node = getattr(st, "ast", st)
        reads = node is not None and any(isinstance(n, A.Name) and n.id in names for n in node.walk())
        if reads and isinstance(node, A.Let):
            out.add(node.name)
        elif reads and isinstance(node, A.Assign) and isinstance(node.target, A.Name):
            out.add(node.target.id)
    return out


def what_follows(rs: M.Ruleset, w, step: M.Step) -> list[str]:
    """What the steps right after a decision do with its answer, in words ("if the answer is no: stop rolling"):
    the rule of an unlabelled choice is what its answer leads to, not the question again. An answer worked out
    into another value first (`let base = ...`), or read only inside a later step's block, is followed there."""
    spec = _spec(step)
    if spec is None or not spec.bind:
        return []
    for seq in rs.sequences.values():
        chain = _chain(seq.steps, step)
        if chain is None:
            continue
        names = {spec.bind}
        for body, at in reversed(chain):  # the steps after it; where none uses the answer, those after its block
            out, deeper = [], []
            for s in body[at + 1:]:
                said = _said(rs, w, s)
                if not said:  # bookkeeping: what it works out from the answer is the answer still
                    names |= _worked_out(s, names)
                elif _reads(s, names) and len(out) < 2:
                    inner = [_said(rs, w, b) for _n, b_list in s.bodies[:1] for b in b_list][:3]
                    out.append(_joined(said, [x for x in inner if x]))
                elif not deeper and any(_reads(d, names) for d in M.walk_steps([s])):
                    deeper = _deeper(rs, w, s, said, names)
            if out or deeper:
                return out or deeper
        return []
    return []


def _labelled_block(rs: M.Ruleset, step: M.Step) -> str:
    """The label of the block a choice opens (its first step a player sees), or ''."""
    from rulecraft.tools.chart.sheetplan import designer_label
    from rulecraft.tools.words.bookkeeping import hidden_step

    for seq in rs.sequences.values():
        chain = _chain(seq.steps, step)
        if chain is None or len(chain) < 2:
            continue
        outer_body, at = chain[-2]
        body, i = chain[-1]
        label = designer_label(outer_body[at]) or ""
        if all(hidden_step(rs, s) for s in body[:i]) and not label.rstrip().endswith("?"):
            return label  # a label that asks ('Still in the game?') is the block's condition, not the choice's rule
    return ""


def _chain(steps, step):
    """The bodies from a sequence's steps down to the one holding `step`, each with the place of the step (or of
    the block holding it) in it; None when `step` is not there."""
    steps = tuple(steps)
    for i, s in enumerate(steps):
        if s is step:
            return [(steps, i)]
        for _n, body in s.bodies:
            inner = _chain(body, step)
            if inner is not None:
                return [(steps, i)] + inner
    return None


def _deeper(rs: M.Ruleset, w, s: M.Step, said: str, names: set) -> list[str]:
    """A step whose block uses the answer, said with the labelled or first step inside it that does."""
    from rulecraft.tools.chart.sheetplan import designer_label

    inside = [d for _n, b in s.bodies for d in M.walk_steps(b)]
    d = next((d for d in inside if _reads(d, names) or (
        designer_label(d) and any(_reads(x, names) for x in M.walk_steps([d])))), None)
    text = _said(rs, w, d) if d is not None else ""
    return [_joined(said, [text])] if text else []


def _joined(said: str, inner: list[str]) -> str:
    """A step and the first steps of its block in one sentence; after a question, 'If so, ...'."""
    if not inner:
        return said
    if "?" in said and not said.endswith("?"):  # a label that asks and answers: it says it all
        return said
    if "?" in said:
        return said + ("" if said.endswith("?") else ".") + " If so, " + ", then ".join(inner)
    return said + ", " + ", then ".join(inner)


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
    return text[:1].lower() + text[1:] if not text[1:2].isupper() else text
