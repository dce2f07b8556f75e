"""What every game of a ruleset starts from, made once per ruleset: its tables (`tables`: the programs and what
the games read and never change) and what a game's set-up made (its zones, where each card lies, the variables, the work charged), kept per ruleset and
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
from operator import attrgetter
from typing import Any

from ...compiler import stretches
from ...model import ruleset as M
from ...model.gates import ByField, ByResult, doubles_only, ruleset_gates
from ...values import Player
from ..codec import copy_value
from ..knowledge import orderless
from .interpreter import handler_for
from .program import compile_program, number_nodes


class SetUp:
    __slots__ = ("refs", "cards", "where", "dynamic", "vars", "pvars", "work", "plain")

    def __init__(self, g: Any):
        self.refs = tuple(g.zones)
        self.cards = tuple(tuple(cards) for cards in g.zones.values())
        self.where = dict(g.where)
        self.dynamic = dict(g.dynamic)
        self.vars = {k: copy_value(v) for k, v in g.vars.items()}
        self.pvars = [{k: copy_value(v) for k, v in pv.items()} for pv in g.pvars]
        self.work = g.work
        # no value is a list, a dict or a player (numbers, texts, cards, none: never changed in place, the same in
        # every game): a game's variables are then plain copies of the dicts, made in C
        self.plain = all(v.__class__ not in _OWN for d in (self.vars, *self.pvars) for v in d.values())

    def give(self, g: Any) -> None:
        g.zones = dict(zip(self.refs, map(list, self.cards)))
        g.where = self.where.copy()
        g.dynamic = self.dynamic.copy()
        if self.plain:
            g.vars = self.vars.copy()
            g.pvars = list(map(dict.copy, self.pvars))
        else:
            players = g.players
            g.vars = {k: _own(v, players) for k, v in self.vars.items()}
            g.pvars = [{k: _own(v, players) for k, v in pv.items()} for pv in self.pvars]
        if self.work:
            g.work = self.work
        g.locals = {}


_name = attrgetter("name")


def _key(g: Any) -> tuple:
    return g.engine, tuple(map(_name, g.players))


def given(g: Any) -> bool:
    """Give game `g` (being set up) a copy of the set-up kept for its ruleset (in its `tables`), players and engine:
    False when there is none to give (or its work is more than g's budget allows)."""
    made = None if g.fixed_dice else tables(g.rs).kept.get(_key(g))
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
        tables(g.rs).kept[_key(g)] = SetUp(g)


_OWN = (list, dict, Player)  # the values `_own` copies or replaces


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


class _Tables:
    """What every game of one ruleset reads and none changes, made once per ruleset (`tables`) and shared by its
    games instead of being worked out or looked up again as each game is built: the programs, the zone families
    with one zone per player, the zones whose order nobody knows, the triggers by event and the events' gates; and
    what set-up made, kept by the players' names and engine (`given`, `keep`)."""

    __slots__ = ("programs", "nodes", "player_zones", "orderless", "triggers", "gates", "moved_to", "drawn", "rolled", "kept",
                 "__weakref__")

    def __init__(self, rs: M.Ruleset):
        progs = compile_program(rs)
        for prog in progs.values():
            for ins in prog.code:
                # resolved once, not looked up by name at every step (an attribute Instr does not declare)
                ins.handler = handler_for(ins)  # type: ignore[attr-defined]
            stretches.prepare(prog)
        self.programs = progs
        self.nodes = number_nodes(progs)  # the names of the nodes a game counts, by number (program.covered)
        self.player_zones = player_zone_families(rs)  # (Board.zone_owner)
        self.orderless = orderless(rs)  # a decision lists these zones' cards in the ruleset's order
        triggers: dict[str, list[M.Trigger]] = {}
        for t in rs.triggers:
            triggers.setdefault(t.on, []).append(t)
        self.triggers = triggers
        self.gates = ruleset_gates(rs)  # what a raised event must show to be kept (model/gates.py)
        self.moved_to = ByField(self.gates.get("moved", ()), "dest")  # and a card moved to each zone (Board.move)
        self.drawn = ByField(self.gates.get("drawn", ()), "card")  # and each card drawn (Board.draw)
        # and a roll of each named result, with the dice whose named results all need doubles (Dice.roll)
        self.rolled = ByResult(self.gates.get("rolled", ()), doubles_only(rs))
        self.kept: dict[tuple, SetUp] = {}


_TABLES: "weakref.WeakKeyDictionary[M.Ruleset, _Tables]" = weakref.WeakKeyDictionary()


def tables(rs: M.Ruleset) -> _Tables:
    last_rs, last = _LAST
    if last_rs() is rs:  # (the ruleset of the last game, as almost always: two weak references called in C, not the
        made = last()  # weak dictionary's look-up in Python)
        if made is not None:
            return made
    made = _TABLES.get(rs)
    if made is None:
        made = _TABLES[rs] = _Tables(rs)
    _LAST[:] = weakref.ref(rs), weakref.ref(made)
    return made


def _none() -> None:
    return None


_LAST: list = [_none, _none]  # weak references to the ruleset `tables` last gave and to its tables


def player_zone_families(rs: M.Ruleset) -> frozenset:
    """The names of the zone families with one zone per player (a game's `_player_zones`, read by `zone_owner`),
    worked out once per ruleset with its tables."""
    return frozenset(z.id for z in rs.zones.values() if z.per == "player")
