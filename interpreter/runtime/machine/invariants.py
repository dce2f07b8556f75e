"""What a game checking itself (`--check`, scenarios) checks after a step: the ruleset's invariants (the first one
that fails stops the game with an error that names the step after which it failed) and card conservation."""

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


def check_cards(g) -> None:
    """Card conservation: every card lies in exactly one zone, where the game thinks it is."""
    seen: dict = {}
    for ref, cards in g.zones.items():
        for c in cards:
            if c.index in seen:
                raise RuleError(f"card {c.id} is in both {seen[c.index].slot} and {ref.slot}", None)
            seen[c.index] = ref
            if g.where.get(c.index) != ref:
                raise RuleError(f"card {c.id} is in {ref.slot} but recorded in {g.where.get(c.index)}", None)
    absent = g.absent
    if len(seen) != len(g.rs.cards) - len(absent) or any(i in seen for i in absent):
        missing = [c.id for c in g.rs.cards if c.index not in seen and c.index not in absent]
        raise RuleError(f"cards lost from every zone: {', '.join(missing[:5])}", None)
