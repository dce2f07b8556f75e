"""What a raised event must show for some trigger on it to fire, read off the triggers' conditions.

A trigger's condition often starts by testing the event itself: `card is CLASS and ...`,
`roll.result == 'NAME' and ...`, `owner(dest) != none and dest == owner(dest).ZONE and ...` (a card moved into one
of the players' ZONEs). Such a first test reads only a value the event carries, which never changes (a card's
classes, a roll's named result, the zone a zone ref names), takes no work and raises nothing. When every trigger on an event
starts so, an event whose values pass none of those tests cannot fire any of them: the game does not keep it
(board.py, rng.py), and handlers.fire never looks at it. Any other condition (or none) makes the event kept
every time, as before: the conditions themselves still decide, when the event fires, exactly as they did.
"""

from __future__ import annotations

import weakref
from typing import Any, Optional

from ..dsl import ast as A
from ..values import PLAYER_FIELDS, Card, Roll, ZoneRef
from . import ruleset as M

# One test: (the event's field, the class its value must be for the test to tell, what it must hold). A Card must
# have the class named; a Roll must have the named result; a ZoneRef must be a zone of the name (one of a player's
# zones). A value of another class (or none) cannot be told apart here: the event is kept, and its condition runs
# (and reports what it reports).
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
        if (want in v.classes) if cls is Card else (v.result == want) if cls is Roll else (v.zone == want):
            return True
    return False


def by_field(gates: tuple[Gate, ...], field: str, value: Any) -> Optional[tuple[Gate, ...]]:
    """What `may_fire` says of every event whose `field` holds `value` (a move's destination, a drawn card), when
    gates reading that field alone tell it: None when one of them lets each such event through (each is kept, no
    test), () when every gate reads that field alone and lets none through (no event is made), else `gates` as they
    are."""
    told: Optional[tuple[Gate, ...]] = ()
    for f, cls, want in gates:
        if f != field:
            told = gates
        elif value.__class__ is not cls or ((want in value.classes) if cls is Card else (value.result == want)
                                            if cls is Roll else (value.zone == want)):
            return None
    return told


class ByField(dict):
    """`by_field` of one event's gates for every value of one field, worked out once per value (with the ruleset's
    tables: runtime/machine/setup.py) and then read as a dict look-up in C instead of a call at every event: the
    gates as they are (None, or () when no trigger is on the event) for a value not yet asked about. A move reads
    its event's by the destination (Board.move), a draw its 'drawn' by the card (Board.draw)."""

    __slots__ = ("gates", "field")

    def __init__(self, gates: Optional[tuple[Gate, ...]], field: str) -> None:
        super().__init__()
        self.gates, self.field = gates, field

    def __missing__(self, value: Any) -> Optional[tuple[Gate, ...]]:
        gates = self.gates
        told = self[value] = by_field(gates, self.field, value) if gates else gates
        return told


class ByResult(dict):
    """The gates of 'rolled' for each named result a roll may have (None: no name), worked out once per name (with the
    ruleset's tables, as ByField): None when every roll of that result is kept (some gate lets it through whatever else
    the roll holds), () when none is, else the gates as they are (a gate on another field than the roll: may_fire
    decides). `doubles_only`: the dice whose named results all need doubles (`doubles_only`)."""

    __slots__ = ("gates", "doubles_only")

    def __init__(self, gates: Optional[tuple[Gate, ...]], doubles: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self.gates, self.doubles_only = gates, doubles

    def __missing__(self, result: Optional[str]) -> Optional[tuple[Gate, ...]]:
        gates = self.gates
        told = self[result] = by_result(gates, result) if gates else gates
        return told


def by_result(gates: tuple[Gate, ...], result: Optional[str]) -> Optional[tuple[Gate, ...]]:
    """What `may_fire` says of every roll whose named result is `result`, as ByResult keeps it: the 'roll' field is
    always a Roll (rng.Dice.roll), so a gate on it tells by the result alone (another class than Roll lets it through)."""
    told: Optional[tuple[Gate, ...]] = ()
    for field, cls, want in gates:
        if field != "roll":
            told = gates  # (the roller, say: may_fire looks at it)
        elif cls is not Roll or result == want:
            return None
    return told


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
        zone = _player_zone_test(node, scope)
        if zone is not None:
            return zone
        node = node.left
    if isinstance(node, A.IsClass) and not node.negate and isinstance(node.obj, A.Name) \
            and node.obj.id in scope.locals:
        return (node.obj.id, Card, node.cls)
    if isinstance(node, A.Compare) and node.op == "==" and isinstance(node.left, A.Attr) \
            and node.left.name == "result" and isinstance(node.left.obj, A.Name) and node.left.obj.id in scope.locals \
            and isinstance(node.right, A.Str) and node.right.is_plain:
        return (node.left.obj.id, Roll, "".join(node.right.parts))  # type: ignore[arg-type]
    return None


def _player_zone_test(node: A.BinOp, scope: Any) -> Optional[Gate]:
    """`owner(F) != none and F == owner(F).ZONE` (either way round), F a field of the event and ZONE one of the
    players' zones: F must be a zone ref of ZONE (the owner's own zone is the only one equal to it; zone refs are
    interned, so equality is identity; a zone of another name is owned by nobody or is not that owner's ZONE)."""
    if node.op != "and" or not isinstance(node.right, A.Compare) or node.right.op != "==":
        return None
    first, same = node.left, node.right
    if not (isinstance(first, A.Compare) and first.op == "!=" and isinstance(first.right, A.Const)
            and first.right.value is None):
        return None
    field = _owner_of(first.left, scope)
    if field is None:
        return None
    for a, b in ((same.left, same.right), (same.right, same.left)):
        if isinstance(a, A.Name) and a.id == field and isinstance(b, A.Attr) and _owner_of(b.obj, scope) == field \
                and b.name in scope.player_zones and b.name not in scope.player_vars and b.name not in scope.marks \
                and b.name not in PLAYER_FIELDS:
            return (field, ZoneRef, b.name)
    return None


def _owner_of(node: A.Expr, scope: Any) -> Optional[str]:
    """The field F when `node` is `owner(F)` (the built-in), F a field of the event."""
    if isinstance(node, A.Call) and node.func == "owner" and node.func not in scope.functions and len(node.args) == 1 \
            and not node.kwargs and isinstance(node.args[0], A.Name) and node.args[0].id in scope.locals:
        return node.args[0].id
    return None


def doubles_only(rs: M.Ruleset) -> frozenset[str]:
    """The dice whose every named result needs doubles: its condition is `doubles and ...` (or `doubles`), `doubles`
    the roll's own value (a condition of none is never met). A roll of them that shows no doubles has no named result,
    and its conditions are not asked (rng.Dice.roll): their first test is false, and `and` reads no further, so
    asking them takes no work, raises nothing and names nothing."""
    return frozenset(d.id for d in rs.dice.values() if d.results and all(map(_needs_doubles, d.results)))


def _needs_doubles(r: M.DiceResult) -> bool:
    if r.when is None:
        return True
    noted: Any = getattr(r.when.fn, "written_from", None)
    if noted is None:
        return False
    node, scope = noted[0], noted[1]
    while isinstance(node, A.BinOp) and node.op == "and":
        node = node.left
    return isinstance(node, A.Name) and node.id == "doubles" and "doubles" in scope.locals
