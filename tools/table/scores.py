"""Scores at the table: the points each player would have if the game ended now (the ruleset's own `scoring:
score`), shown to a seat only where they reveal nothing hidden from it, and the breakdown at the end by the
ruleset's `view: score_parts`.

Whether a player's points are public to a seat is found by trying: the cards that seat cannot see are dealt again
among the places they lie (each place keeping its count, whatever the cards' classes; a zone whose contents the seat
knows only reordered: runtime/knowledge.py) and the values it cannot see are changed, a few times; points that
never move are public, points that move would tell the seat something.
"""

from __future__ import annotations

from typing import Any, Optional

from rulecraft.diagnostics import RuleError
from rulecraft.runtime.knowledge import deal_again, relabel
from rulecraft.runtime.rng import SplitMix

TRIES = 3


def points(game, seat: int, expr=None) -> Optional[Any]:
    """The value of the ruleset's score (or of `expr`) for the player at `seat`, now; None when it has none."""
    expr = expr if expr is not None else game.rs.scoring.score
    if expr is None:
        return None
    saved = game.locals
    try:
        game.locals = {"p": game.players[seat]}
        value = expr.fn(game)
    except (RuleError, ArithmeticError, TypeError, ValueError, KeyError, IndexError, AttributeError):
        return None
    finally:
        game.locals = saved
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value) if isinstance(value, float) and value.is_integer() else value


def points_seen(game, seat: int) -> dict[int, Any]:
    """The points of every player that `seat` may be told now (seat -> points); players left out would reveal
    something hidden from `seat`."""
    now = {q.seat: points(game, q.seat) for q in game.players}
    now = {q: v for q, v in now.items() if v is not None}
    if not now:
        return {}
    for i in range(TRIES):
        other = _another_world(game, seat, SplitMix(0x5C0E + i * 7919))
        for q in list(now):
            if points(other, q) != now[q]:
                del now[q]
        if not now:
            break
    return now


def _another_world(game, seat: int, rng: SplitMix):
    """A copy of `game` that `seat` cannot tell from it: hidden cards dealt again, hidden values changed."""
    g = game.copy(story=False)
    g.check_conservation = False
    relabel(g, deal_again(g, seat, rng, by_class=False))
    rs = g.rs
    for q in g.players:
        for name in rs.player_variables:
            if not g._sees_pvar(seat, q.seat, name):
                g.pvars[q.seat][name] = _changed(g.pvars[q.seat].get(name), rng)
    for name, vd in rs.variables.items():
        if vd.visibility == "hidden":
            g.vars[name] = _changed(g.vars.get(name), rng)
    return g


def _changed(value: Any, rng: SplitMix) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1 + rng.below(97)
    return value


def breakdown(game) -> list[tuple[str, list[tuple[str, str]], str]]:
    """(player, [(part, points)], total) for every player at the end: the view's score parts and the score."""
    parts = game.rs.view.score_parts if game.rs.view is not None else ()
    out = []
    for p in game.players:
        rows = []
        for part in parts:
            v = points(game, p.seat, part.value)
            if v is not None:
                rows.append((part.title, str(v)))
        total = game.scores[p.seat] if game.scores is not None and p.seat < len(game.scores) else points(game, p.seat)
        out.append((p.name, rows, "" if total is None else str(total)))
    return out
