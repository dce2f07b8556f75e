"""Which blocks a labelled step's line in the order of play says after its label: a buy's, where its label does not say
where the card bought goes (lantern-guild: 'Buy cards from the market row ...: pay for it, put it on your discard
pile ...'), and a loop's that plays a round or a turn and does more each pass (mill-row: '... play Buying, then every
mill grinds its flour'). Both were questions a cold reader could not answer from the aid."""

from __future__ import annotations

import re

from rulecraft.dsl import ast as A
from rulecraft.model import ruleset as M
from rulecraft.model.kinds import kind_of, own_statements
from rulecraft.tools.words.core import Words

FLOW_KINDS = ("game", "stage", "round", "phase", "turn", "scoring")  # the sequences the order of play shows

def gets(w: Words, d, s: M.Step, label: str) -> bool:
    """Whether a choice of cards from a shared place moves the card chosen to a place of a player's own that its label
    does not name and its block's words do: where does a bought card go? (lantern-guild's 'Buy cards from the market
    row', read cold; a block that says no more than 'Pay for it' is not said)."""
    rs = w.rs
    block = list(M.walk_steps(dict(s.bodies).get("do", ())))
    said = " ".join(w.step(b).lower() for b in block)
    got = dict(getattr(s, "settings", ()))  # (a construct's choice: repeat_choice's settings as written)
    bind, options = (d.bind, d.options.text) if d is not None and d.options is not None else (got.get("as"),
                                                                                               got.get("options"))
    if not bind or not isinstance(options, str) or not any(
            x in rs.zones and rs.zones[x].per is None for x in re.findall(r"(?<![.\w])\w+", options)):
        return False
    return any(isinstance(n, A.Move) and isinstance(n.what, A.Name) and n.what.id == bind
               and isinstance(n.dest, A.Attr) and (z := rs.zones.get(n.dest.name)) is not None and z.per == "player"
               and (z.title or z.id).lower() not in label.lower() and (z.title or z.id).lower() in said
               for b in block for st in own_statements(b) for n in st.ast.walk())


def calls(w: Words, s: M.Step) -> bool:
    """Whether a step plays a sequence the order of play shows in its own right (a round, a turn)."""
    kind = kind_of(s)
    return kind is not None and kind.call and any(getattr(st.ast, "sequence", None) in w.rs.sequences and w.rs.sequences[
        st.ast.sequence].kind in FLOW_KINDS for st in own_statements(s))
