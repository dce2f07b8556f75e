"""The work of built-in functions that go round a table or score places: the players still in, a list in a random
order, and points by place with ties split (builtins.py registers them; nothing here reads a game beyond what it is given)."""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Optional

from ..diagnostics import RuleError
from ..values import Card, Player, out_seats
from .guards import charge, describe, scanned


def card_place(ctx, span, c) -> int:
    """card_order(c): the card's place in the card order."""
    if not isinstance(c, Card):
        raise RuleError(f"card_order needs a card, got {'none' if c is None else type(c).__name__.lower()}", span)
    return c.order


# what one pick of chance costs of the game's step budget: the log keeps each pick (`["pick", n, i]`) until the next
# decision, about 16 times what a value of a list holds (session 19: a loop shuffling 100,000 items, charged as a copy
# of the list, held 10 GB of picks before its budget ran out, and its log line could never have been read back)
PICK_STEPS = 16


def random_order(ctx, items: list, span=None) -> list:
    """shuffled(X): a copy of the items in a random order, each swap a pick of the game's generator (Fisher-Yates),
    each pick charged PICK_STEPS before any is made."""
    charge(ctx, len(items) * PICK_STEPS, span)
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = ctx.random_index(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def random_pick(ctx, items: list, span=None) -> Any:
    """random(X): one item picked at random (its pick charged PICK_STEPS), or None when there is none."""
    if not items:
        return None
    charge(ctx, PICK_STEPS, span)
    return items[ctx.random_index(len(items))]


def still_in(ctx, order: list) -> list:
    """The players of an order who are not out."""
    out = out_seats(ctx)
    return [p for p in order if p.seat not in out] if out else order


def direction(d: Any, span) -> int:
    """A direction round the table as a step: 1 clockwise ('cw'), -1 the other way ('ccw')."""
    if d in ("cw", "clockwise"):
        return 1
    if d in ("ccw", "counterclockwise", "counter_clockwise"):
        return -1
    raise RuleError(f"a direction is 'cw' or 'ccw', got {describe(d)}", span)


def seat_order(ctx, span, start, dir: Any = "cw", include_start: Any = True, step: int = 0) -> list:
    """seat_order(start, dir:, include_start:): the players still in, round the table from `start`; `step` is the
    direction when it was worked out before (1 or -1; 0: from `dir`, after the start is checked)."""
    if not isinstance(start, Player):
        raise RuleError(f"seat_order needs a player to start from, got {describe(start)}", span)
    players = ctx.players
    s = start.seat % len(players)
    if (step or (1 if dir == "cw" else direction(dir, span))) == 1:  # the seats from the start's, round the table
        # (two slices)
        order = players[s:] + players[:s]
    else:
        order = players[s::-1] + players[:s:-1]
    if not include_start:
        order = order[1:]
    return still_in(ctx, order) if getattr(ctx, "modifiers", None) else order  # (no modifier: nobody is out)


def next_player(ctx, span, p, dir: Any = "cw", step: int = 0) -> Any:
    """next_player(p, dir:): the next player still in after p; `step` as for seat_order."""
    if not isinstance(p, Player):
        raise RuleError(f"next_player needs a player, got {describe(p)}", span)
    return next_in(ctx, p.seat, step or direction(dir, span))


def _next_cw(ctx, span, p) -> Any:
    if p.__class__ is Player and not getattr(ctx, "modifiers", None):  # nobody is out: the next seat
        players = ctx.players
        return players[(p.seat + 1) % len(players)]
    return next_player(ctx, span, p, step=1)


def _next_ccw(ctx, span, p) -> Any:
    if p.__class__ is Player and not getattr(ctx, "modifiers", None):
        players = ctx.players
        return players[(p.seat - 1) % len(players)]
    return next_player(ctx, span, p, step=-1)


# the step each goes round the table by: the compiler writes the next seat inline, calling these only when some
# player may be out (a modifier in force) or `p` is not a player
_next_cw.step = 1  # type: ignore[attr-defined]  # a function takes attributes
_next_ccw.step = -1  # type: ignore[attr-defined]


def with_fixed(name: str, kwargs: dict) -> Optional[Callable]:
    """For the compiler: `fn(ctx, span, *args)` doing what the built-in `name` does with these named arguments, all
    fixed at load (so a direction is worked out once, not at every call); None when there is none, or when the
    built-in would refuse them (the call is left as it is, to raise its error)."""
    if name not in ("next_player", "seat_order") or not set(kwargs) <= {"dir", "include_start"}:
        return None
    try:
        step = direction(kwargs.get("dir", "cw"), None)
    except RuleError:
        return None
    if name == "next_player":
        return None if "include_start" in kwargs else _next_cw if step == 1 else _next_ccw
    include = kwargs.get("include_start", True)
    if step == 1 and include is True:
        return _order_cw
    return partial(seat_order, dir=None, include_start=include, step=step)  # (called from C: no frame of its own)


def _order_cw(ctx, span, start) -> list:
    """seat_order(start) clockwise from the start: with no modifier in force (nobody is out) the seats from the
    start's, worked out here; anything else as seat_order works it out."""
    if start.__class__ is Player and not getattr(ctx, "modifiers", None):
        players = ctx.players
        s = start.seat % len(players)
        return players[s:] + players[:s] if s else players[:]
    return seat_order(ctx, span, start, None, True, 1)


def next_in(ctx, seat: int, step: int) -> Any:
    """The next player still in after a seat going `step` (+1 clockwise, -1 the other way); the plain next one when
    every other player is out."""
    players = ctx.players
    n = len(players)
    if not getattr(ctx, "modifiers", None):  # no modifier in force, so nobody is out (out_seats): the next seat
        return players[(seat + step) % n]
    out = out_seats(ctx)
    for i in range(1, n + 1):
        q = players[(seat + step * i) % n]
        if q.seat not in out:
            return q
    return players[(seat + step) % n]


def award_places(keys: list, points: list, lowest: bool, ties: Any, span) -> list:
    """Each key's points: the largest key takes the first place (the smallest, with `lowest`); the tied split the
    points of their place (ties 'split') or of all the places they fill ('places'), rounded down; a key of none
    takes no place."""
    if ties not in ("split", "places"):
        raise RuleError(f"award's ties are 'split' or 'places', got {ties!r}", span)
    split = ties == "split"
    out: list = [0] * len(keys)
    place = 0
    for k in sorted({k for k in keys if k is not None}, reverse=not lowest):
        if place >= len(points):
            break
        tied = [i for i, x in enumerate(keys) if x == k]
        share = points[place] if split else sum(points[place:place + len(tied)])
        for i in tied:
            out[i] = share // len(tied)
        place += len(tied)
    return out


_ORDERED = frozenset((int, float, str))  # the classes of the values highest_keys compares


def highest_keys(ctx, span, table: Any) -> list:
    """highest_keys(T): the keys of a record (a sealed step's choices: player -> choice) whose value is the highest, in
    the record's order; of a list, the positions (from 0). A value of none (a pass) takes no part, so [] when every
    value is none. Values are numbers or texts, compared as max() compares them. A long record or list: its scan
    charged, as max's (the built-in itself: builtins.py registers this function, called with no wrapper)."""
    t = table.__class__
    if t is dict:
        items: Any = table.items()
    elif t is list:
        items = enumerate(table)
    else:
        raise RuleError(f"highest_keys needs a record (e.g. a sealed step's choices) or a list, got {describe(table)}",
                        span, "to rank the items of a list by a key, use highest(x in ITEMS, by: KEY)")
    if len(table) >= 16:
        scanned(ctx, len(table), span)
    top: Any = None
    keys: list = []
    for k, v in items:
        if v.__class__ not in _ORDERED:  # (one test for the usual values)
            if v is None:
                continue
            raise RuleError(f"highest_keys compares numbers or texts, got {describe(v)}", span)
        try:
            if top is None or v > top:
                top, keys = v, [k]
            elif v == top:
                keys.append(k)
        except TypeError:
            raise RuleError(f"highest_keys cannot order {describe(top)} and {describe(v)}", span,
                            "compare numbers with numbers, or texts with texts") from None
    return keys


def unique_keys(table: Any, span, ctx: Any = None) -> list:
    """unique_keys(T): the keys of a record (a sealed step's choices) whose value no other key holds, in the record's
    order; of a list, the positions. none (a pass) takes no part. The lowest unique bid is
    lowest(q in unique_keys(bids), by: bids[q])."""
    t = table.__class__
    if t is not dict and t is not list:
        raise RuleError(f"unique_keys needs a record (e.g. a sealed step's choices) or a list, got {describe(table)}",
                        span, "to keep the items of a list without repeats, use unique(X)")
    items = list(table.items() if t is dict else enumerate(table))
    if ctx is not None and len(items) >= 16:  # a long record or list: its scan charged, as highest_keys's
        scanned(ctx, len(items), span)
    seen: dict = {}
    for _, v in items:
        if v is not None:
            try:
                seen[v] = seen.get(v, 0) + 1
            except TypeError:
                raise RuleError(f"unique_keys compares plain values, got {describe(v)}", span) from None
    return [k for k, v in items if v is not None and seen[v] == 1]


def zone_tops(ctx, zones: list, span) -> list:
    """tops(ZONES): the top card of each zone that holds one, in the zones' order (the cards a supply offers)."""
    out = []
    for z in zones:
        cards = ctx.zone_cards(z)
        if cards:
            out.append(cards[-1])
    return out


def empties(ctx, zones: list, span) -> int:
    """count_empty(ZONES): how many of the zones hold no card (the supply's empty piles)."""
    return sum(1 for z in zones if not ctx.zone_cards(z))
