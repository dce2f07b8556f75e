"""What a game's set-up made (its zones, where each card lies, the variables, the work charged), kept per ruleset and
copied into later games instead of being worked out again.

Why a copy is the same game: set-up (Game._set_up) works out the zones' first cards and the variables' first values
in a fixed order from the ruleset (its cards, parameters and options), the players (how many, their names), the
game's random draws and its engine, and changes nothing but what is kept here and the work count. It is kept only
when it drew nothing by chance (the generator's state and the chance results as they were, no fixed dice), so it is
the same for every game of that ruleset with the same players and engine. A game whose step budget is smaller than
the work kept works its own set-up out (and stops where the work passes the budget, as ever). A kept value holding
a player holds, in each game, that game's own player of the seat.
"""

from __future__ import annotations

import weakref
from typing import Any

from ...values import Player
from ..codec import copy_value


class SetUp:
    __slots__ = ("zones", "where", "dynamic", "vars", "pvars", "work")

    def __init__(self, g: Any):
        self.zones = {ref: list(cards) for ref, cards in g.zones.items()}
        self.where = dict(g.where)
        self.dynamic = dict(g.dynamic)
        self.vars = {k: copy_value(v) for k, v in g.vars.items()}
        self.pvars = [{k: copy_value(v) for k, v in pv.items()} for pv in g.pvars]
        self.work = g.work

    def give(self, g: Any) -> None:
        g.zones = {ref: list(cards) for ref, cards in self.zones.items()}
        g.where = dict(self.where)
        g.dynamic = dict(self.dynamic)
        players = g.players
        g.vars = {k: _own(v, players) for k, v in self.vars.items()}
        g.pvars = [{k: _own(v, players) for k, v in pv.items()} for pv in self.pvars]
        if self.work:
            g.work = self.work
        g.locals = {}


_KEPT: "weakref.WeakKeyDictionary[Any, dict[tuple, SetUp]]" = weakref.WeakKeyDictionary()  # by ruleset


def _key(g: Any) -> tuple:
    return g.engine, tuple(p.name for p in g.players)


def given(g: Any) -> bool:
    """Give game `g` (being set up) a copy of the set-up kept for its ruleset, players and engine: False when there is
    none to give (or its work is more than g's budget allows)."""
    kept = _KEPT.get(g.rs)
    made = None if kept is None or g.fixed_dice else kept.get(_key(g))
    if made is None or made.work > g.max_steps:
        return False
    made.give(g)
    return True


def before(g: Any) -> tuple:
    """What `keep` compares with after set-up: the generator's state and the chance results drawn."""
    return g.rng.state, len(g.chance)


def keep(g: Any, was: tuple) -> None:
    """Keep what g's set-up made for the later games of its ruleset, when it drew nothing by chance."""
    if before(g) == was and not g.fixed_dice:
        _KEPT.setdefault(g.rs, {})[_key(g)] = SetUp(g)


def _own(v: Any, players: list) -> Any:
    """A copy of a kept value with the game's own players (other values are never changed in place)."""
    t = v.__class__
    if t is list:
        return [_own(x, players) for x in v]
    if t is dict:
        return {_own(k, players): _own(x, players) for k, x in v.items()}
    if t is Player:
        return players[v.seat]
    return v
