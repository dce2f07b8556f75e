"""What the local names of a ruleset stand for, so a printed rule says 'the player' where the rule text says `p`."""

from __future__ import annotations

from rulecraft.dsl import ast as A
from rulecraft.model import ruleset as M

_PLAYERS = ("seat_order", "others", "next_player", "owner")


def _kind(w, e) -> str:
    """'player' or 'card' when an iterable clearly holds players or cards, else ''."""
    if e is None:
        return ""
    e = getattr(e, "ast", e)
    if isinstance(e, A.Name) and e.id == "players":
        return "player"
    if isinstance(e, A.Call) and e.func in _PLAYERS:
        return "player"
    if isinstance(e, A.Call) and e.func in ("cards", "top", "bottom"):
        return "card"
    if isinstance(e, A.Comprehension):
        return _kind(w, e.iterable)
    if isinstance(e, A.Name) and e.id in w.rs.zones:
        return "card"
    if isinstance(e, A.Attr) and e.name in w.rs.zones:
        return "card"
    return ""


def local_nouns(w) -> dict:
    """One-letter local name -> its noun, from the loops, secret picks and comprehensions that bind it."""
    out: dict = {}

    def note(var, iterable):
        if var and len(var) == 1 and var not in out:
            k = _kind(w, iterable)
            if k:
                out[var] = k

    def expr(e):
        e = getattr(e, "ast", e)
        if isinstance(e, A.Comprehension):
            note(e.var, e.iterable)
        if isinstance(e, A.Node):
            for v in vars(e).values():
                for x in (v if isinstance(v, tuple) else (v,)):
                    if isinstance(x, A.Node):
                        expr(x)

    for _seq, s in w.rs.iter_steps():
        if isinstance(s, (M.ForEachStep, M.SealedStep)):
            note(s.var, s.iterable)
            expr(s.iterable)
        if isinstance(s, M.ConstructStep):
            for key, text in s.settings:
                if key == "each" and len(text) == 1:
                    out.setdefault(text, "player")
    return out
