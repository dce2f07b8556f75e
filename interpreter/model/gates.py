"""What a raised event must show for some trigger on it to fire, read off the triggers' conditions.

A trigger's condition often starts by testing the event itself: `card is CLASS and ...`,
`roll.result == 'NAME' and ...`. Such a first test reads only a value the event carries, which never changes
(a card's classes, a roll's named result), takes no work and raises nothing. When every trigger on an event
starts so, an event whose values pass none of those tests cannot fire any of them: the game does not keep it
(board.py, rng.py), and handlers.fire never looks at it. Any other condition (or none) makes the event kept
every time, as before: the conditions themselves still decide, when the event fires, exactly as they did.
"""

from __future__ import annotations

import weakref
from typing import Any, Optional

from ..dsl import ast as A
from ..values import Card, Roll
from . import ruleset as M

# One test: (the event's field, the class its value must be for the test to tell, what it must hold). A Card must
# have the class named; a Roll must have the named result. A value of another class (or none) cannot be told apart
# here: the event is kept, and its condition runs (and reports what it reports).
Gate = tuple[str, type, str]


def ruleset_gates(rs: M.Ruleset) -> dict[str, Optional[tuple[Gate, ...]]]:
    """`event_gates` of a ruleset's triggers, worked out once per ruleset (every game of it reads the same)."""
    gates = _OF_RULESET.get(rs)
    if gates is None:
        gates = _OF_RULESET[rs] = event_gates(rs.triggers)
    return gates


_OF_RULESET: "weakref.WeakKeyDictionary[M.Ruleset, dict[str, Optional[tuple[Gate, ...]]]]" = weakref.WeakKeyDictionary()


def event_gates(triggers: tuple[M.Trigger, ...] | list[M.Trigger]) -> dict[str, Optional[tuple[Gate, ...]]]:
    """For each event some trigger is on: None (every raise of it is kept) or one test per trigger on it."""
    gates: dict[str, Optional[tuple[Gate, ...]]] = {}
    for t in triggers:
        known = gates.get(t.on, ())
        if known is None:
            continue
        gate = _gate(t)
        gates[t.on] = None if gate is None else known + (gate,)
    return gates


def may_fire(gates: tuple[Gate, ...], fields: dict) -> bool:
    """Whether an event raised with `fields` may fire one of the triggers whose tests are `gates`."""
    for field, cls, want in gates:
        v = fields.get(field)
        if v.__class__ is not cls:
            return True
        if (want in v.classes) if cls is Card else (v.result == want):
            return True
    return False


def _gate(t: M.Trigger) -> Optional[Gate]:
    """The test a trigger's condition starts with, when it is one `may_fire` can make: `F is CLASS` or
    `F.result == 'TEXT'`, F a field of the event (a local of the condition's scope)."""
    if t.when is None:
        return None
    noted: Any = getattr(t.when.fn, "written_from", None)  # (dsl/closures/whole.py: the node and its scope)
    if noted is None:
        return None
    node, scope = noted[0], noted[1]
    while isinstance(node, A.BinOp) and node.op == "and":
        node = node.left
    if isinstance(node, A.IsClass) and not node.negate and isinstance(node.obj, A.Name) \
            and node.obj.id in scope.locals:
        return (node.obj.id, Card, node.cls)
    if isinstance(node, A.Compare) and node.op == "==" and isinstance(node.left, A.Attr) \
            and node.left.name == "result" and isinstance(node.left.obj, A.Name) and node.left.obj.id in scope.locals \
            and isinstance(node.right, A.Str) and node.right.is_plain:
        return (node.left.obj.id, Roll, "".join(node.right.parts))  # type: ignore[arg-type]
    return None
