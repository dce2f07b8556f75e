"""Scores at the table: the points each player would have if the game ended now (the ruleset's own `scoring:
score`), shown to a seat only where they reveal nothing hidden from it, and the breakdown at the end by the
ruleset's `view: score_parts`.

Whether a player's points are shown to a seat is decided from what the score is computed from (model/secrecy.py):
a score that reads nothing the seat cannot see is shown (its own hand, for its own score; how many cards a pile
holds, for anyone's); one that reads a hidden card or value is not, whatever the cards are now.
"""

from __future__ import annotations

from typing import Any, Optional

from rulecraft.diagnostics import RuleError
from rulecraft.model.secrecy import score_seen


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
    """The points of every player that `seat` may be told now (seat -> points): those whose score reads nothing
    `seat` cannot see, decided from what the score is computed from (model/secrecy.py), never by trying."""
    rs = game.rs
    out = {}
    for q in game.players:
        if score_seen(rs, seat, q.seat):
            v = points(game, q.seat)
            if v is not None:
                out[q.seat] = v
    return out


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
