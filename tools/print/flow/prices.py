"""What a card costs, said on its row of the aid's card table: the card number the steps take from a player's
value when the card is got ('player.coins -= bought.cost': 'Cost 4. +2 Cards, +1 Action.'). A first table asked what
each of cinder-guild's cards costs, and the aid said what they do only."""

from __future__ import annotations

import re

from rulecraft.dsl import ast as A
from rulecraft.model import ruleset as M
from rulecraft.model.kinds import own_statements


def price_attributes(rs: M.Ruleset) -> list[str]:
    """The card numbers a step takes from a player's value as it moves the card to that player's place (`p.coins
    -= c.cost; move c to p.discard`), of a name that is no auction's result (`sale.price`: a bid, not the card's)."""
    found, results = [], set()
    for _seq, s in rs.iter_steps():
        nodes = [n for st in own_statements(s) for n in st.ast.walk()]
        got = {(n.what.id, n.dest.obj.id) for n in nodes if isinstance(n, A.Move) and isinstance(n.what, A.Name)
               and isinstance(n.dest, A.Attr) and isinstance(n.dest.obj, A.Name)}  # (the card, to whose place)
        for n in nodes:
            if isinstance(n, A.Attr) and n.name == "winner" and isinstance(n.obj, A.Name):
                results.add(n.obj.id)  # ('sale.winner': sale is what an auction or a trick gives back)
            if isinstance(n, A.Assign) and n.op == "-=" and isinstance(n.target, A.Attr) \
                    and isinstance(n.target.obj, A.Name) and n.target.name in rs.player_variables \
                    and isinstance(n.value, A.Attr) and isinstance(n.value.obj, A.Name) \
                    and (n.value.obj.id, n.target.obj.id) in got:  # the payer takes the card: a price, not a hit
                found.append((n.value.obj.id, n.value.name))
    numbers = {k for c in rs.cards for k, v in c.attrs.items() if isinstance(v, int) and not isinstance(v, bool)}
    return list(dict.fromkeys(name for obj, name in found if obj not in results and name in numbers))


def priced(rs: M.Ruleset, rows: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The card table's rows, each of one card led by what it costs ('Cost 4. +2 Cards, +1 Action.')."""
    attrs = price_attributes(rs)
    if not attrs:
        return rows
    by_name = {c.name: c for c in rs.cards}
    out = []
    for name, text in rows:
        card = by_name.get(name)
        costs = [f"{a.replace('_', ' ').capitalize()} {card.attrs[a]}" for a in attrs
                 if card is not None and isinstance(card.attrs.get(a), int)
                 and not re.search(rf"\b(?:(?:cost|price|pay)\w*\b[^.]*|for ){card.attrs[a]}\b", text, re.I)]
        # (a text that says its price: 'Costs at least 3', 'Defeat for 2 power')
        out.append((name, ". ".join(costs) + ". " + text if costs else text))
    return out
