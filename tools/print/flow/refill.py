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
