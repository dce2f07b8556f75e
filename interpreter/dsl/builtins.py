"""The built-in functions of the rules language: one registry of name -> handler and its arguments."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable
from operator import attrgetter

from ..diagnostics import RuleError
from ..values import Card, FamilyRef, Player, ZoneRef
from .tabletop import (award_places, card_place, empties, highest_keys, next_player, random_order, random_pick, seat_order,
                       still_in, unique_keys, zone_tops)
from .guards import _CONTAINERS, MAX_INT, MAX_VALUES, bounded, nested, number, scanned, size_of
from .guards import describe, text_of  # noqa: F401 - read from here by the closures, the compiler and runtime


@dataclass(frozen=True)
class Builtin:
    name: str
    fn: Callable[..., Any]  # fn(ctx, span, *args, **kwargs)
    min_args: int
    max_args: int  # -1: any number
    kwargs: tuple[str, ...]
    returns: str  # a coarse type: number, bool, str, list, card, player, zone, any
    doc: str
    example: str
    chance: bool = False  # draws from the game's random generator: never skipped, never reordered


REGISTRY: dict[str, Builtin] = {}


def builtin(name: str, min_args: int, max_args: int, returns: str, doc: str, example: str, kwargs: tuple = (),
            chance: bool = False):
    def deco(fn):
        REGISTRY[name] = Builtin(name, fn, min_args, max_args, tuple(kwargs), returns, doc, example, chance)
        return fn

    return deco


def as_list(ctx, value: Any, span) -> list:
    """A list view of a value that holds several things: a list, a zone's cards, a family's zones."""
    if isinstance(value, list):
        return value
    if isinstance(value, ZoneRef):
        return list(ctx.zone_cards(value))
    if isinstance(value, (tuple, set, frozenset)):
        return list(value)
    if isinstance(value, FamilyRef):
        return list(ctx.family_zones(value.zone))
    if isinstance(value, dict):
        return list(value.values())
    if value is None:
        return []
    raise RuleError(f"expected a list or a zone, got {describe(value)}", span)


_PLAIN_NUMBERS = frozenset((int, float))


def numbers(ctx, values, span) -> list:
    """`values` when every one is a number (not true/false); else the error naming the first that is not."""
    if _PLAIN_NUMBERS.issuperset(map(type, values)):  # the common case, checked in C
        return values
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise RuleError(f"expected numbers, got {describe(v)}", span)
        out.append(v)
    return out


def _collection(ctx, args, span) -> list:
    if len(args) == 1:
        return as_list(ctx, args[0], span)
    return list(args)


_text = text_of


@builtin("count", 1, 1, "number", "How many things a list or zone holds.", "count(p.hand) >= 3")
def _count(ctx, span, x):
    if isinstance(x, ZoneRef):
        return len(ctx.zone_cards(x))
    return len(as_list(ctx, x, span))


@builtin("empty", 1, 1, "bool", "True when a list or zone holds nothing.", "empty(deck)")
def _empty(ctx, span, x):
    return _count(ctx, span, x) == 0


@builtin("sum", 1, 1, "number", "The total of a list of numbers.", "sum([c.value for c in p.hand])")
def _sum(ctx, span, x):
    items = _scan(ctx, as_list(ctx, x, span), span)
    return number(sum(numbers(ctx, items, span)), span)


@builtin("max", 1, -1, "any", "The largest of a list, or of several values; none for an empty list.", "max(2, bid)")
def _max(ctx, span, *args):
    items = _scan(ctx, _collection(ctx, args, span), span)
    return _ordered(max, items, span, "max") if items else None


_SEAT = attrgetter("seat")


def _ordered(fn, items, span, name):
    try:
        return fn(items)
    except TypeError:
        if items and all(i.__class__ is Player for i in items):  # players in seat order (they have no '<')
            return fn(items, key=_SEAT)
        kinds = sorted({describe(i).split(" ")[1] if describe(i).startswith("the ") else describe(i) for i in items})
        raise RuleError(f"{name}() cannot order a mix of {', '.join(kinds)}", span,
                        "compare numbers with numbers, or cards by an attribute such as c.value") from None


@builtin("min", 1, -1, "any", "The smallest of a list, or of several values; none for an empty list.", "min(4, count(deck))")
def _min(ctx, span, *args):
    items = _scan(ctx, _collection(ctx, args, span), span)
    return _ordered(min, items, span, "min") if items else None


@builtin("abs", 1, 1, "number", "The absolute value.", "abs(a - b)")
def _abs(ctx, span, x):
    return number(abs(numbers(ctx, [x], span)[0]), span)


@builtin("ceil", 1, 1, "number", "Round up to a whole number.", "ceil(count(p.hand) / 2)")
def _ceil(ctx, span, x):
    return _whole(math.ceil, x, ctx, span)


@builtin("floor", 1, 1, "number", "Round down to a whole number.", "floor(p.coins / 2)")
def _floor(ctx, span, x):
    return _whole(math.floor, x, ctx, span)


def _whole(fn, x, ctx, span) -> int:
    """A whole number made of a number (ceil, floor, int): within +-MAX_INT, never infinite."""
    try:
        return number(fn(x), span)
    except (OverflowError, ValueError):  # infinity or not-a-number: no whole number at all
        raise RuleError(f"cannot make a whole number of {describe(x)}", span) from None


@builtin("top", 1, 1, "card", "The top card of a zone (where draws come from), or none.", "top(discard)")
def _top(ctx, span, z):
    cards = ctx.zones.get(z) if z.__class__ is ZoneRef else None  # (a zone's cards: zone_cards's, without its calls)
    cards = ctx.zone_cards(_zone(ctx, z, span)) if cards is None else cards
    return cards[-1] if cards else None


@builtin("bottom", 1, 1, "card", "The bottom card of a zone, or none.", "bottom(deck)")
def _bottom(ctx, span, z):
    cards = ctx.zone_cards(_zone(ctx, z, span))
    return cards[0] if cards else None


@builtin("cards", 1, 1, "list", "The cards of a zone as a list, bottom first.", "cards(p.hand)")
def _cards(ctx, span, z):
    cards = ctx.zone_cards(z if z.__class__ is ZoneRef else _zone(ctx, z, span))
    if len(cards) >= 16:
        scanned(ctx, len(cards), span)
    return cards[:]


@builtin("random", 1, 1, "any", "One item picked at random (a chance event, recorded in the log); none if empty.", "random(p.hand)",
         chance=True)
def _random(ctx, span, x):
    return random_pick(ctx, as_list(ctx, x, span), span)


REGISTRY["shuffled"] = Builtin("shuffled", lambda ctx, span, x: random_order(ctx, as_list(ctx, x, span), span), 1, 1, (), "list",
                               "A list in a random order (a chance event, in the log).", "shuffled(players)", True)


@builtin(
    "seat_order", 1, 1, "list",
    "All players in seat order starting from a player; dir: 'cw' (default) or 'ccw'; include_start: false skips the first.",
    "seat_order(first, dir: 'ccw')", kwargs=("dir", "include_start"),
)
def _seat_order(ctx, span, start, dir="cw", include_start=True):
    return seat_order(ctx, span, start, dir, include_start)


@builtin("next_player", 1, 1, "player", "The next player in seat order; dir: 'cw' (default) or 'ccw'.", "next_player(dealer, dir: 'ccw')", kwargs=("dir",))
def _next_player(ctx, span, p, dir="cw"):
    return next_player(ctx, span, p, dir)


@builtin("players_in", 0, 0, "list", "The players still in (not out), in seat order: the last one left wins.",
         "count(players_in()) == 1")
def _players_in(ctx, span):
    return still_in(ctx, list(ctx.players)) if getattr(ctx, "modifiers", None) else list(ctx.players)


@builtin("keys", 1, 1, "list", "The keys of a table, or the zones of a family.", "keys(wheel)")
def _keys(ctx, span, t):
    if isinstance(t, dict):
        if len(t) >= 16:
            scanned(ctx, len(t), span)
        return list(t)
    if isinstance(t, FamilyRef):
        return list(ctx.family_zones(t.zone))
    raise RuleError(f"keys needs a table or a zone family, got {describe(t)}", span)


@builtin("record", 0, 0, "any", "A record of named fields (any names), read as r.NAME; e.g. a claim on a stack.",
         "record(who: p, what: 'duke', against: none)", kwargs=("*",))
def _record(ctx, span, **fields):
    out = dict(fields)
    scanned(ctx, nested(out, span), span)  # a record that holds itself twice each round is stopped as a list is
    return out


@builtin("sorted", 1, 1, "list", "A list in increasing order (cards in deck order); sorted(p in players, by: p.score) "
         "orders by a key, ties keeping their order; descending: true puts the largest first.", "sorted(bids)",
         kwargs=("by", "descending"))
def _sorted(ctx, span, x):
    items = as_list(ctx, x, span)
    n = len(items)
    if n >= 16:  # about n log n comparisons, each of which may compare nested values
        scanned(ctx, (size_of(items, span) if type(items) is list else n) * n.bit_length(), span)
    return _ordered(sorted, items, span, "sorted")


def _ranked_only(ctx, span, *args, **kwargs):  # pragma: no cover - the compiler compiles these calls itself
    raise RuleError("highest() and lowest() name their items: highest(p in players, by: p.score)", span)


for _name, _doc in (("highest", "The item with the largest key, the first of them on a tie; none for no items."),
                    ("lowest", "The item with the smallest key, the first of them on a tie; none for no items.")):
    REGISTRY[_name] = Builtin(_name, _ranked_only, 1, 1, ("by",), "any", _doc, f"{_name}(p in players, by: p.score)")


REGISTRY["tops"] = Builtin("tops", lambda ctx, span, z: zone_tops(ctx, as_list(ctx, z, span), span), 1, 1, (), "list",
                           "The top card of each zone that is not empty.", "[c for c in tops(stocks) if c.value <= 20]")


builtin("highest_keys", 1, 1, "list", "The keys of a record (a list's positions) holding its highest value (none "
        "takes no part), in order.", "highest_keys(bids)")(highest_keys)  # (tabletop's, called as it is)


REGISTRY["unique_keys"] = Builtin("unique_keys", lambda ctx, span, t: unique_keys(t, span, ctx), 1, 1, (), "list",
                                  "The keys of a record (a list's positions) whose value no other holds.", "unique_keys(bids)")
REGISTRY["count_empty"] = Builtin("count_empty", lambda ctx, span, z: empties(ctx, as_list(ctx, z, span), span), 1, 1,
                                  (), "number", "How many of the zones are empty.", "count_empty(stocks) >= 3")
REGISTRY["card_order"] = Builtin("card_order", card_place, 1, 1, (), "number", "A card's place in the card order "
                                 "(card_order:, else as declared), from 0.", "highest(c in p.hand, by: card_order(c))")


@builtin("award", 2, 2, "list", "Points by place, ties split (ties: 'split' or 'places'; lowest: true for the fewest "
         "first).", "award([count(q.hand) for q in players], [6, 3])", kwargs=("lowest", "ties"))
def _award(ctx, span, keys, points, lowest=False, ties="split"):
    pts = numbers(ctx, as_list(ctx, points, span), span)
    return award_places(_scan(ctx, as_list(ctx, keys, span), span), pts, bool(lowest), ties, span)


@builtin("reversed", 1, 1, "list", "A list in reverse order.", "reversed(seat_order(first))")
def _reversed(ctx, span, x):
    return list(reversed(_scan(ctx, as_list(ctx, x, span), span)))


@builtin("first", 1, 1, "any", "The first item of a list, or none.", "first([c for c in deck if c is joker])")
def _first(ctx, span, x):
    items = as_list(ctx, x, span)
    return items[0] if items else None


@builtin("last", 1, 1, "any", "The last item of a list, or none.", "last(bids)")
def _last(ctx, span, x):
    items = as_list(ctx, x, span)
    return items[-1] if items else None


@builtin("any", 1, 1, "bool", "True when some item of a list is true.", "any([c is joker for c in p.hand])")
def _any(ctx, span, x):
    return any(_scan(ctx, as_list(ctx, x, span), span))


@builtin("all", 1, 1, "bool", "True when every item of a list is true.", "all([p.passed for p in players])")
def _all(ctx, span, x):
    return all(_scan(ctx, as_list(ctx, x, span), span))


@builtin("flatten", 1, 1, "list", "One list from a list of lists (or of zones, taking their cards).",
         "flatten([cards(q.court) for q in players])")
def _flatten(ctx, span, x):
    out: list = []
    for item in _scan(ctx, as_list(ctx, x, span), span):
        out.extend(ctx.zone_cards(item) if type(item) is ZoneRef else as_list(ctx, item, span))  # no copy of a zone's
        if len(out) > MAX_VALUES:  # stop before a list that doubles on every pass gets any bigger
            break
    return bounded(out, ctx, span)  # too many values, lists inside or texts too long in all: an error


@builtin("unique", 1, 1, "list", "A list without repeats, first occurrence kept.", "unique([c.suit for c in p.hand])")
def _unique(ctx, span, x):
    seen, out = set(), []
    items = as_list(ctx, x, span)
    if len(items) >= 16 or not _CONTAINERS.isdisjoint(map(type, items)):  # repr() below writes nested lists out
        scanned(ctx, size_of(items, span) if type(items) is list else len(items), span)
    for v in items:
        key = repr(v) if isinstance(v, (list, dict)) else v
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


@builtin("index_of", 2, 2, "number", "The position (from 0) of an item in a list, or none.", "index_of(players, p)")
def _index_of(ctx, span, x, item):
    items = _scan(ctx, as_list(ctx, x, span), span)
    return items.index(item) if item in items else None


@builtin("zone_of", 1, 1, "zone", "The zone a card is in.", "zone_of(card)")
def _zone_of(ctx, span, c):
    if not isinstance(c, Card):
        raise RuleError(f"zone_of needs a card, got {describe(c)}", span)
    return ctx.zone_of(c)


@builtin("owner", 1, 1, "player", "The player who owns a zone (or the zone a card is in), or none.", "owner(card)")
def _owner(ctx, span, x):
    if isinstance(x, Card):
        x = ctx.zone_of(x)
    if isinstance(x, ZoneRef):
        return ctx.zone_owner(x)
    raise RuleError(f"owner needs a zone or a card, got {describe(x)}", span)


@builtin("modifier", 1, 2, "number", "The summed value of the active modifiers of that name (on a player if given).", "modifier('extra_action', p)")
def _modifier(ctx, span, name, player=None):
    return ctx.modifier_total(name, player)


@builtin("running", 1, 1, "str", "The id of the innermost running sequence of a kind, or none.", "running('stage') == 'setup'")
def _running(ctx, span, kind):
    return ctx.running(kind)


@builtin("in_sequence", 1, 1, "bool", "True when a sequence with that id is running (at any depth).", "in_sequence('setup')")
def _in_sequence(ctx, span, seq):
    return ctx.in_sequence(seq)


@builtin("winners", 0, 0, "list", "The players who won, once the game is over (for metrics); an empty list before.",
         "p in winners()")
def _winners(ctx, span):
    seats = ctx.winners if ctx.over else None
    return [ctx.players[s] for s in seats] if seats else []


@builtin("str", 1, 1, "str", "A value as text (true/false/none, lists as 'a, b').", "str(p.score)")
def _str(ctx, span, x):
    return bounded(text_of(x), ctx, span)


@builtin("plural", 2, 3, "str", "A count and a name, the name in its plural form unless the count is 1: "
         "'1 card', '3 cards'; a third argument gives an irregular plural.", "plural(count(p.hand), 'card')")
def _plural(ctx, span, n, name, many=None):
    if isinstance(n, bool) or not isinstance(n, (int, float)):
        raise RuleError(f"plural() counts with a number, got {describe(n)}", span)
    if not isinstance(name, str) or (many is not None and not isinstance(many, str)):
        raise RuleError("plural() names the thing counted with a text: plural(n, 'card') or plural(n, 'die', 'dice')",
                        span)
    shown = text_of(int(n) if isinstance(n, float) and n.is_integer() else n)
    return bounded(f"{shown} {name if n == 1 else (many if many is not None else name + 's')}", ctx, span)


@builtin("int", 1, 1, "number", "A number from text or a whole number from a decimal.", "int('3')")
def _int(ctx, span, x):
    if isinstance(x, str) and len(x.strip()) > 30:  # never Python's own digit limit: 30 digits are past MAX_INT
        raise RuleError(f"cannot make a whole number of a text of {len(x):,} characters", span,
                        f"whole numbers of a game stay within {MAX_INT:,}")
    try:
        return number(int(x), span)
    except (TypeError, ValueError, OverflowError):
        raise RuleError(f"cannot make a whole number of {describe(x)}", span) from None


def _scan(ctx, items, span):
    """`items`, its scan charged to the step budget by its length (a list nested inside counts one)."""
    if len(items) >= 16:
        scanned(ctx, len(items), span)
    return items


def _zone(ctx, z, span) -> ZoneRef:
    if isinstance(z, ZoneRef):
        return z
    raise RuleError(f"expected a zone, got {describe(z)}", span)
