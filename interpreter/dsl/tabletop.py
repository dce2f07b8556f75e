"""The work of built-in functions that go round a table or score places: the players still in, and points by
place with ties split (builtins.py registers them; nothing here reads a game beyond what it is given)."""

from __future__ import annotations

from typing import Any

from ..diagnostics import RuleError
from ..values import Card, out_seats


def card_place(ctx, span, c) -> int:
    """card_order(c): the card's place in the card order."""
    if not isinstance(c, Card):
        raise RuleError(f"card_order needs a card, got {'none' if c is None else type(c).__name__.lower()}", span)
    return c.order


def still_in(ctx, order: list) -> list:
    """The players of an order who are not out."""
    out = out_seats(ctx)
    return [p for p in order if p.seat not in out] if out else order


def next_in(ctx, seat: int, step: int) -> Any:
    """The next player still in after a seat going `step` (+1 clockwise, -1 the other way); the plain next one when
    every other player is out."""
    players, out = ctx.players, out_seats(ctx)
    n = len(players)
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
