"""A bot's pick answered without a Decision (machine/answers.by_pick) writes out `decisions.usual` and `taken`:
the same value, the same bookkeeping (decisions, steps, the chance record, the budget), the same refusals, for
every kind of wire a pick may give. Counts and values only."""

from __future__ import annotations

import pytest

from rulecraft.diagnostics import RuleError
from rulecraft.runtime.decisions import MISSING, usual
from rulecraft.runtime.machine.answers import Bots, by_pick, taken


class _Game:  # the fields by_pick and taken read and write
    def __init__(self, wire, left=None, max_steps=10_000):
        self.bots = Bots([None], [False], left, [lambda kind, count, number: wire])
        self.pending, self.decisions, self.steps, self.max_steps = "asked", 3, 10, max_steps
        self.chance, self.story, self.frames = [["roll", "d6", [4]]], False, []


WIRES = [-1, 0, 1, 2, 4, 5, True, False, None, "1", 1.0, [1]]


@pytest.mark.parametrize("kind,count,low,options", [
    ("one", 4, None, ["a", "b", "c", "d"]), ("one", 5, 3, None), ("yesno", 2, None, None)])
@pytest.mark.parametrize("wire", WIRES)
def test_a_pick_is_taken_as_usual_and_taken_take_it(kind, count, low, options, wire):
    g = _Game(wire, left=2)
    got = by_pick(g, 0, kind, count, low, options)
    want = usual(kind, count, low, options, wire)
    assert got is want or got == want and type(got) is type(want)
    if want is MISSING:  # refused: nothing taken, the Decision is made by the step
        assert (g.pending, g.decisions, g.steps, g.bots.left, len(g.chance)) == ("asked", 3, 10, 2, 1)
        return
    ref = _Game(wire, left=2)
    taken(ref, None, want)
    assert (g.pending, g.decisions, g.steps, g.chance) == (ref.pending, ref.decisions, ref.steps, ref.chance)
    assert g.bots.left == 1


def test_a_pick_past_the_budget_is_refused_as_taken_refuses_it():
    g, ref = _Game(1, max_steps=100), _Game(1, max_steps=100)
    with pytest.raises(RuleError) as picked:
        by_pick(g, 0, "one", 4, None, ["a", "b", "c", "d"])
    with pytest.raises(RuleError) as took:
        taken(ref, None, "b")
    assert picked.value.code == took.value.code == "R002" and str(picked.value) == str(took.value)
