"""A place the steps keep topped up from a pile ('draw row_size - row.size from market to row'): the Words box says
so ('It is topped up to 4 cards from the Market deck.'), as it says how a pile that runs out is made anew. A first
table asked how cinder-guild's market row is refilled: its label was inside a labelled loop the aid says whole."""

from __future__ import annotations

import re

from rulecraft.dsl import ast as A
from rulecraft.model import ruleset as M
from rulecraft.model.kinds import own_statements
from rulecraft.tools.words.core import Words


def _is_size_of(e, zid: str) -> bool:
    return isinstance(e, A.Attr) and e.name in ("size", "count") and isinstance(e.obj, A.Name) and e.obj.id == zid


def topped_up(w: Words, z: M.ZoneDef) -> str:
    """' It is topped up to N cards from the SOURCE.' for a shared place a draw fills back to a size; else ''."""
    rs = w.rs
    for _seq, s in rs.iter_steps():
        for st in own_statements(s):
            for n in st.ast.walk():
                if not (isinstance(n, A.Draw) and isinstance(n.dest, A.Name) and n.dest.id == z.id
                        and isinstance(n.count, A.BinOp) and n.count.op == "-" and _is_size_of(n.count.right, z.id)
                        and isinstance(n.source, A.Name) and n.source.id in rs.zones):
                    continue
                full = n.count.left
                count = f" to {w.constant(full)} cards" if w.is_constant(full) else ""
                source = rs.zones[n.source.id]
                name = re.sub(r"^the ", "", source.title or source.id.replace("_", " "), flags=re.I)
                return f" It is topped up{count} from the {name}."
    return ""


_PLAY = ("game", "stage", "setup", "round", "phase", "turn")  # kinds whose title names no moment


def turned_up(w: Words, z: M.ZoneDef) -> str:
    """' Its cards go face up to the OPEN PLACE when MOMENT.' for a place whose cards not everyone sees that steps of
    one sequence, and no other, move to a place open to all, where that sequence's title names a moment ('A player is
    out': lantern-watch's roles, kept face down, are turned up when their player is out; a title without a verb, 'A
    catch', reads 'at a catch'); else ''. Where such steps lie in play itself (a game, a round, a turn) or in more
    than one sequence, the moment is not plain and nothing is said."""
    rs = w.rs
    if z.visibility == "open":
        return ""
    found = {}
    for q, s in rs.iter_steps():
        for st in own_statements(s):
            for n in st.ast.walk():
                dest = rs.zones.get(n.dest.id) if isinstance(n, A.Move) and isinstance(n.dest, A.Name) else None
                if dest is not None and dest.visibility == "open" and any(
                        isinstance(x, A.Attr) and x.name == z.id or isinstance(x, A.Name) and x.id == z.id
                        for x in n.what.walk()):
                    found[id(q)] = (q, dest)
    if len(found) != 1:
        return ""
    q, dest = next(iter(found.values()))
    if not q.title or q.kind in _PLAY:
        return ""
    name = re.sub(r"^the ", "", dest.title or dest.id.replace("_", " "), flags=re.I)
    moment = q.title[:1].lower() + q.title[1:]
    clause = re.search(r"\b(?:is|are|goes|go|falls|fall|ends|leaves|loses|wins|dies)\b", moment)
    return f" Its cards go face up to the {name} {'when' if clause else 'at'} {moment}."


def place_steps(w: Words, z: M.ZoneDef) -> str:
    """What the steps do to a place that the Words box says after what it is: topped up, turned face up."""
    return topped_up(w, z) + turned_up(w, z)
