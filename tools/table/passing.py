"""'Pass until something changes': a person who answers a question with `pass until` passes it, and the table
goes on passing that same question for them, without asking, until something it is about changes.

The same question is the same step asking the same seat. What it is about, as the seat sees it: the options it
offers (their names and types: a card newly playable asks again) and the stack it answers (a card played onto it
asks again). A question of another step is asked as usual and leaves the standing pass in place; when the
question comes back changed, the person is asked and told why, and the standing pass ends (they may give it
again). `undo` ends the standing passes of the person who takes back.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from rulecraft.runtime.decisions import Decision

from rulecraft.tools.table.asked import decision_view
from rulecraft.tools.table.seatview import stack_view

WORDS = ("pass until", "pu")
NO_PASS = object()


def pass_wire(d: Decision) -> Any:
    """The wire form of passing `d`, or NO_PASS when it cannot be passed."""
    if d.kind == "one":
        if d.low is not None:
            return 0  # options by shape: the pass is option 0
        return d.options.index(None) if None in d.options else NO_PASS
    if d.kind == "subset":
        return [] if d.min == 0 else NO_PASS
    if d.kind == "number":
        return None if d.optional else NO_PASS
    return NO_PASS


def offered(d: Decision, watched: bool) -> bool:
    """Whether a standing pass of `d` may be taken: it can be passed, and, where the others watch whom the table
    waits for (a hot seat's hand-offs, every seat's frame in the browser), its legal answers read nothing some seat
    cannot see: the table passes for the person while those stay the same and asks them when they change, which
    would tell the others when (say) their hidden hand changed."""
    return pass_wire(d) is not NO_PASS and not (watched and d.hidden)


def about(game, d: Decision) -> str:
    """What question `d` is about as its seat sees it, as one text to compare: the step, the options, the stack."""
    dv = decision_view(game, d)
    stack = stack_view(game)
    return json.dumps([d.node, dv.kind, dv.min, dv.max, [[o.kind, o.label, o.card and o.card.id] for o in dv.options],
                       None if stack is None else [[c.id for c in stack.cards], stack.entries]], default=str)


class PassUntil:
    """The standing passes of the people at a table: seat -> (step, what the question was about)."""

    def __init__(self, watched: bool = False):
        self.watched = watched  # the others see whom the table waits for (`offered`)
        self.standing: dict[int, tuple[str, str]] = {}
        self.ended: set[int] = set()  # seats whose standing pass ended since they were last shown the table
        self.passed: dict[int, int] = {}  # how many times the table passed for each seat (the person is told)

    def word(self, game, d: Decision, text: str) -> Optional[tuple]:
        """The answer for the words `pass until` (as `(wire,)`), None for any other text; ValueError when the
        question cannot be passed."""
        if text not in WORDS:
            return None
        wire = pass_wire(d)
        if wire is NO_PASS:
            raise ValueError("this question cannot be passed")
        if not offered(d, self.watched):
            raise ValueError("this question cannot be passed until something changes: its answers are worked out "
                             "from what others cannot see, and when you are asked again would tell them it changed")
        self.standing[d.player] = (d.node, about(game, d))
        return (wire,)

    def answer(self, game, d: Decision) -> Optional[tuple]:
        """`(wire,)` when the table passes `d` for its seat (a standing pass of the same question, unchanged),
        else None: the person is asked."""
        kept = self.standing.get(d.player)
        if kept is None or kept[0] != d.node:
            return None
        wire = pass_wire(d)
        if wire is NO_PASS or about(game, d) != kept[1]:
            del self.standing[d.player]
            self.ended.add(d.player)
            return None
        self.passed[d.player] = self.passed.get(d.player, 0) + 1
        return (wire,)

    def cancel(self, seat: int) -> None:
        self.standing.pop(seat, None)

    def news(self, seat: int) -> Optional[str]:
        """What to tell the person before their view: the table passed for them, or their standing pass ended."""
        n = self.passed.pop(seat, 0)
        ended = seat in self.ended
        self.ended.discard(seat)
        said = [f"The table passed for you {n} time{'s' if n != 1 else ''}."] if n else []
        if ended:
            said.append("Something changed in the question you were passing: you are asked again.")
        return " ".join(said) or None
