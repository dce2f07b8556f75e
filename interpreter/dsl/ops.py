"""What compiled expressions and statements share at run time: control signals, the run-time errors, reading
attributes and indexing; the closures (compiler.py) and the generated code (rulecraft.compiler) both use these, so both
behave and fail alike."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Optional

from ..diagnostics import RuleError, Span
from ..values import ROLL_FIELDS, Card, FamilyRef, Player, Roll, Row, ZoneRef, out_seats
from .builtins import describe, text_of  # noqa: F401 - text_of: shared by closures and the compiler
from .guards import ranked_work, scanned

if TYPE_CHECKING:
    from .scope import Scope

Fn = Callable[[Any], Any]


# ------------------------------------------------------------------ signals
class Signal:
    __slots__ = ()


@dataclass(frozen=True)
class BreakSignal(Signal):
    loop: Optional[str]
    span: Span


@dataclass(frozen=True)
class ContinueSignal(Signal):
    loop: Optional[str]
    span: Span


@dataclass(frozen=True)
class EndSignal(Signal):
    kind: str
    span: Span


@dataclass(frozen=True)
class CallSignal(Signal):
    sequence: str
    args: dict
    span: Span
    bind: Optional[str] = None  # 'call SEQ as NAME': the caller's local name for the result


# The local of a called sequence's frame that names where its result goes: the caller's local name (see `result`)
RESULT_TO = "__result_to"


def bind_result(ctx, values: dict, bind: Optional[str]) -> None:
    """Before `call SEQ ... as NAME` pushes SEQ: NAME is none until SEQ returns a value, and SEQ's frame (whose
    locals are `values`) knows where to put it."""
    if bind is not None:
        ctx.locals[bind] = None
        values[RESULT_TO] = bind


def give_result(ctx, value: Any) -> None:
    """`return VALUE` in a sequence called with 'as NAME': NAME of the caller (the frame below) gets the value."""
    to = ctx.locals.get(RESULT_TO)
    if to is not None and len(ctx.frames) >= 2:
        ctx.frames[-2].locals[to] = value


class SuspendSignal(Signal):
    """The statement waits for a decision; it runs again once the decision is applied."""


SUSPEND = SuspendSignal()


_BINOPS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
}
_COMPARE = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
_ORDERED = {"<", "<=", ">", ">="}
_NUMBER_TYPES = (int, float, bool)

MAX_RANGE = 100_000  # a range is built as a list: bound it so a typo cannot eat the memory
_MISSING = object()


def restore_local(loc: dict, name: str, saved: Any) -> None:
    """Put a local back as it was before a loop bound it (`saved`: its value, or _MISSING when it had none)."""
    if saved is _MISSING:
        loc.pop(name, None)
    else:
        loc[name] = saved


# The run-time errors of expressions, shared by the closures and the generated code (rulecraft.compiler) so both say the same.
def unset_error(name: str, span: Span) -> RuleError:
    return RuleError(f"'{name}' is used before it has a value", span,
                     "give it a value first (let, 'as', a loop or a parameter of the sequence)")


def compute_error(a: Any, op: str, b: Any, span: Span) -> RuleError:
    return RuleError(f"cannot compute {describe(a)} {op} {describe(b)}", span)


def compare_error(a: Any, op: str, b: Any, span: Span) -> RuleError:
    hint = "players have no order: compare their seats (p.seat < q.seat) or a number they hold" \
        if a.__class__ is Player or b.__class__ is Player else None
    return RuleError(f"cannot compare {describe(a)} {op} {describe(b)}", span, hint)


def negate_error(v: Any, span: Span) -> RuleError:
    return RuleError(f"cannot negate {describe(v)}", span)


def member_error(item: Any, container: Any, span: Span) -> RuleError:
    return RuleError(f"cannot look for {describe(item)} in {describe(container)}", span)


def container_error(container: Any, span: Span) -> RuleError:
    return RuleError(f"'in' needs a list, a zone or text on its right, got {describe(container)}", span)


_SEQUENCES = (list, tuple, set, frozenset, dict, str)


def member(ctx, item: Any, container: Any, span: Span) -> bool:
    """`item in container` as the language reads it: a zone's cards, a list, a record's keys or a text; a scan of 16
    values or more costs budget by its length. (The generated code tests a list itself and calls this for the rest.)"""
    if isinstance(container, ZoneRef):
        cards = ctx.zone_cards(container)
        if len(cards) >= 16:  # a scan costs budget by its length
            scanned(ctx, len(cards), span)
        return item in cards
    if isinstance(container, _SEQUENCES):
        if type(container) is list and len(container) >= 16:
            scanned(ctx, len(container), span)
        try:
            return item in container
        except TypeError:
            raise member_error(item, container, span) from None
    raise container_error(container, span)


def range_error(a: Any, b: Any, span: Span) -> RuleError:
    if not isinstance(a, int) or not isinstance(b, int) or isinstance(a, bool) or isinstance(b, bool):
        return RuleError(f"a range needs whole numbers, got {describe(a)}..{describe(b)}", span)
    return RuleError(f"the range {a}..{b} has more than {MAX_RANGE:,} numbers", span,
                     "a game never needs that many; check the bounds")


RANKINGS = ("sorted", "highest", "lowest")  # the functions that order items by a key: sorted(p in players, by: ...)


def rank(kind: str, items: list, keys: list, descending: Any, span: Span, ctx: Any = None) -> Any:
    """`sorted` (a new list), `highest` or `lowest` (one item, or none) of `items` by their `keys`.

    Ties keep the order of the items: sorted is stable (also in descending order), and highest and lowest give
    the first of the tied items. Keys that are lists or records are compared value by value: that work is charged
    to the game's budget (n log n comparisons for sorted, n for highest and lowest), as sorted(bids) charges it."""
    if ctx is not None:
        ranked_work(ctx, keys, kind == "sorted", span)
    try:
        if kind == "sorted":
            order = sorted(range(len(items)), key=keys.__getitem__, reverse=bool(descending))
            return [items[i] for i in order]
        if not items:
            return None
        best = 0
        for i in range(1, len(items)):
            if (keys[i] > keys[best]) if kind == "highest" else (keys[i] < keys[best]):
                best = i
        return items[best]
    except TypeError:
        kinds = sorted({describe(k) if k is None or isinstance(k, bool) else
                        "number" if isinstance(k, (int, float)) else "text" if isinstance(k, str) else
                        type(k).__name__.lower() for k in keys})
        raise RuleError(f"{kind}() cannot order the keys it was given ({', '.join(kinds)})", span,
                        "give 'by:' a number or a text for every item, e.g. by: p.score") from None


def run_with_params(ctx, params: tuple, values, body: Fn) -> Any:
    """A ruleset function's body evaluated with its parameters as the locals; the caller's locals come back after."""
    saved = ctx.locals
    ctx.locals = dict(zip(params, values))
    try:
        return body(ctx)
    finally:
        ctx.locals = saved


def index(obj: Any, key: Any, ctx, span: Span) -> Any:
    """obj[key] for every kind of value that can be indexed."""
    t = obj.__class__
    if t is dict:  # a record or a sealed step's bids (the common cases first, one lookup each)
        return obj.get(key)  # a missing key reads as none
    if t is list and key.__class__ is int and -len(obj) <= key < len(obj):
        return obj[key]
    if isinstance(obj, FamilyRef):
        return ctx.family_member(obj.zone, key, span)
    if isinstance(obj, dict):
        if key in obj:
            return obj[key]
        if isinstance(obj, _TABLE_TYPES):
            raise RuleError(f"the table has no row {describe(key)}", span)
        return None
    if isinstance(obj, (list, tuple)):
        if isinstance(key, bool) or not isinstance(key, int):
            raise RuleError(f"a list is indexed by a whole number, got {describe(key)}", span)
        if -len(obj) <= key < len(obj):
            return obj[key]
        raise RuleError(f"position {key} is outside a list of {len(obj)}", span)
    if isinstance(obj, ZoneRef):
        cards = ctx.zone_cards(obj)
        if isinstance(key, int) and -len(cards) <= key < len(cards):
            return cards[key]
        raise RuleError(f"position {describe(key)} is outside the zone {obj.slot} of {len(cards)} cards", span)
    raise RuleError(f"{describe(obj)} cannot be indexed", span)


_TABLE_TYPES = (Row,)


def make_getattr(name: str, scope: Scope) -> Callable[[Any, Any, Span], Any]:
    """A fast getter of attribute `name` that dispatches on the kind of object at run time."""
    is_pvar = name in scope.player_vars
    is_pzone = name in scope.player_zones
    is_mark = name in scope.marks
    mark_default = scope.marks.get(name)

    def get(obj, ctx, span):
        t = type(obj)
        if t is Card:
            if is_mark:
                marks = ctx.marks.get(obj.id)
                if marks is not None and name in marks:
                    return marks[name]
                return mark_default
            attrs = obj.attrs
            if name in attrs:
                return attrs[name]
            if name == "id":
                return obj.id
            if name == "name":
                return obj.name
            if name == "classes":
                return sorted(obj.classes)
            if name == "zone":
                return ctx.zone_of(obj)
            if name == "owner":
                return ctx.zone_owner(ctx.zone_of(obj))
            return None  # an attribute other cards have
        if t is Player:
            if is_pvar:
                return ctx.pvars[obj.seat][name]
            if is_pzone:
                return ZoneRef(name, obj.seat)
            if name == "seat":
                return obj.seat
            if name == "out":
                return obj.seat in out_seats(ctx)
            if name == "name":
                return obj.name
        elif t is ZoneRef:
            cards = ctx.zone_cards(obj)
            if name in ("size",):
                return len(cards)
            if name == "empty":
                return not cards
            if name == "top":
                return cards[-1] if cards else None
            if name == "bottom":
                return cards[0] if cards else None
            if name == "cards":
                return list(cards)
            if name == "owner":
                return ctx.zone_owner(obj)
            if name == "key":
                return obj.key
        elif t is Roll:
            if name in ROLL_FIELDS:
                v = getattr(obj, name)
                return list(v) if name == "faces" else v
        elif isinstance(obj, dict):
            if name in obj:
                return obj[name]
        elif obj is None:
            raise RuleError(f"cannot read '.{name}' of none", span, "check that the value was set before this step")
        raise RuleError(f"{describe(obj)} has no attribute '{name}'", span)

    return get
