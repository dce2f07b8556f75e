"""The ruleset's invariants, checked after a step when a game checks itself (`--check`, scenarios): the first one
that fails stops the game with an error that names the step after which it failed."""

from __future__ import annotations

from ...diagnostics import RuleError


def check_invariants(g, ins) -> None:
    for inv in g.rs.invariants:
        if inv.when is not None and not inv.when.fn(g):
            continue
        if not inv.cond.fn(g):
            step = ins.step
            where = f"'{step.label or step.id}' in '{step.path.split('/')[0]}'" if step is not None else "the start"
            said = inv.say or inv.cond.text
            raise RuleError(f"an invariant failed after the step {where}: {said}", ins.span,
                            f"the invariant at line {inv.span.line}: {inv.cond.text}", "R010")
