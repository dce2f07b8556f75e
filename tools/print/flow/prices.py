"""What a card costs, said on its row of the aid's card table: the card number the steps take from a player's
value when the card is got ('player.coins -= bought.cost': 'Cost 4. +2 Cards, +1 Action.'). A first table asked what
each of cinder-guild's cards costs, and the aid said what they do only."""

from __future__ import annotations

import re

from rulecraft.dsl import ast as A
from rulecraft.model import ruleset as M
from rulecraft.model.kinds import own_statements
from rulecraft.model.steps import IfStep


def price_attributes(rs: M.Ruleset) -> list[str]:
    """The card numbers a step takes from a player's value as it moves the card to that player's place (`p.coins
    -= c.cost; move c to p.discard`), of a name that is no auction's result (`sale.price`: a bid, not the card's)."""
    return list(dict.fromkeys(attr for attr, _var, _when in _payments(rs)))


def _payments(rs: M.Ruleset) -> list[tuple[str, str, tuple]]:
    """(the card number, the player's value it is paid from, the card classes that branch holds for): honour-road's
    'got is monster' pays a monster's cost in power, any other card's in runes."""
    found, results = [], set()

    def walk(steps, when):
        for s in steps:
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
                    found.append((n.value.obj.id, n.value.name, n.target.name, when))
            test = s.cond.ast if isinstance(s, IfStep) and s.cond is not None else None
            for name, body in s.bodies:
                if isinstance(test, A.IsClass) and isinstance(test.obj, A.Name):
                    yes = (name == "then") != test.negate
                    walk(body, when + ((test.obj.id, test.cls, yes),))
                else:
                    walk(body, when)

    for seq in rs.sequences.values():
        walk(seq.steps, ())
    numbers = {k for c in rs.cards for k, v in c.attrs.items() if isinstance(v, int) and not isinstance(v, bool)}
    return [(attr, var, tuple((cls, yes) for who, cls, yes in when if who == obj))
            for obj, attr, var, when in found if obj not in results and attr in numbers]


def _currency(rs: M.Ruleset, card: M.Card, attr: str, payments, n: int) -> str:
    """What the card's price is paid in, where only one of the player's values can pay it: ' runes', ' rune'."""
    paid = {var for a, var, when in payments if a == attr
            and all((cls in card.classes) == yes for cls, yes in when)}
    if len(paid) != 1:
        return ""
    var = rs.player_variables[paid.pop()]
    word = (var.title or var.id.replace("_", " ")).lower()
    return " " + (word[:-1] if n == 1 and word.endswith("s") and not word.endswith("ss") else word)


def priced(rs: M.Ruleset, rows: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The card table's rows, each of one card led by what it costs and in what ('Cost 4 coins. +2 Cards.')."""
    payments = _payments(rs)
    attrs = list(dict.fromkeys(attr for attr, _var, _when in payments))
    if not attrs:
        return rows
    by_name = {c.name: c for c in rs.cards}
    out = []
    for name, text in rows:
        card = by_name.get(name)
        costs = [f"{a.replace('_', ' ').capitalize()} {card.attrs[a]}{_currency(rs, card, a, payments, card.attrs[a])}"
                 for a in attrs if card is not None and isinstance(card.attrs.get(a), int)
                 and not re.search(rf"\b(?:(?:cost|price|pay)\w*\b[^.]*|for ){card.attrs[a]}\b", text, re.I)]
        # (a text that says its price: 'Costs at least 3', 'Defeat for 2 power')
        out.append((name, ". ".join(costs) + ". " + text if costs else text))
    return out
