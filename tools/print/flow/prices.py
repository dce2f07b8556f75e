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
    return [(attr, var, tuple((cls, yes) for who, cls, yes in when if who == obj)) for obj, attr, var, when in _found(rs)]


def _found(rs: M.Ruleset) -> list[tuple[str, str, str, tuple]]:
    """Each payment as (the name of the card paid for, its number, the player's value, the branch's tests)."""
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
    return [(obj, attr, var, when) for obj, attr, var, when in found if obj not in results and attr in numbers]


def _currency(rs: M.Ruleset, card: M.Card, attr: str, payments, n: int) -> str:
    """What the card's price is paid in, where only one of the player's values can pay it: ' runes', ' rune'."""
    paid = {var for a, var, when in payments if a == attr
            and all((cls in card.classes) == yes for cls, yes in when)}
    if len(paid) != 1:
        return ""
    var = rs.player_variables[paid.pop()]
    word = (var.title or var.id.replace("_", " ")).lower()
    return " " + (word[:-1] if n == 1 and word.endswith("s") and not word.endswith("ss") else word)


_SENDS = frozenset({"to", "table", "into", "onto", "discard", "pile", "zone", "dest"})  # a construct's cards go there


def offered(rs: M.Ruleset, payments) -> set[str] | None:
    """The names of the cards a buy may ever offer: those that start in the places its choice picks from, or in a
    place whose cards are drawn or moved there ('draw 2 from supply to row'); None where that is not known (a card
    chosen elsewhere moved there, a construct that sends cards there, a start worked out in play). lantern-guild's
    Wicks start in their own pile and go only to the players' decks: 'Cost 0 coins' read as if they were for sale."""
    from rulecraft.dsl.scope import LoadTimeContext

    binds = {obj for obj, _a, _v, _w in payments}
    places: set[str] = set()
    edges: dict[str, set] = {}  # a place -> the places cards come to it from (None: a card from anywhere)
    for _seq, s in rs.iter_steps():
        got = dict(getattr(s, "settings", ()))
        if got.get("as") in binds:
            places |= {x for x in re.findall(r"\w+", str(got.get("options", ""))) if x in rs.zones}
        for d in (s.decision,) if getattr(s, "decision", None) is not None else ():
            if d.bind in binds and d.options is not None:
                places |= {x for x in re.findall(r"\w+", d.options.text) if x in rs.zones}
        for key, text in got.items():  # (an auction's 'to:' ...: cards a construct sends)
            for z in (x for x in re.findall(r"\w+", str(text)) if key in _SENDS and x in rs.zones):
                edges.setdefault(z, set()).add(None)
        for n in (n for st in own_statements(s) for n in st.ast.walk()):
            what, dest = (n.source, n.dest) if isinstance(n, A.Draw) else (n.what, n.dest) if isinstance(n, A.Move) \
                else (None, None)
            dest = _zone(rs, dest) if dest is not None else None
            if dest is not None:
                edges.setdefault(dest, set()).add(_zone(rs, what.obj if isinstance(what, A.Attr) and what.name in (
                    "top", "bottom") else what))
    if not places:
        return None
    seen, todo = set(), list(places)
    while todo:
        z = todo.pop()
        if z is None:
            return None
        if z not in seen:
            seen.add(z)
            todo += list(edges.get(z, ()))
    names = set()
    for z in seen:
        initial = rs.zones[z].initial
        if rs.zones[z].per is not None:
            return None  # (a player's own place, or places made in play: what each holds is the game's)
        if initial is None:
            continue
        try:
            picked = initial.fn(LoadTimeContext())
        except Exception:  # noqa: BLE001 - worked out at the game's start: not known here
            return None
        names |= {c.name for c in (picked if isinstance(picked, list) else [picked]) if isinstance(c, M.Card)}
    return names


def _zone(rs: M.Ruleset, e) -> str | None:
    """The place an expression names ('row', 'p.discard'), or None."""
    name = e.id if isinstance(e, A.Name) else e.name if isinstance(e, A.Attr) else None
    return name if name in rs.zones else None


def priced(rs: M.Ruleset, rows: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The card table's rows, each of one card led by what it costs and in what ('Cost 4 coins. +2 Cards.'); a card no
    buy can offer has no price (`offered`)."""
    payments = _payments(rs)
    attrs = list(dict.fromkeys(attr for attr, _var, _when in payments))
    if not attrs:
        return rows
    by_name = {c.name: c for c in rs.cards}
    sold = offered(rs, _found(rs))
    out = []
    for name, text in rows:
        card = by_name.get(name)
        costs = [f"{a.replace('_', ' ').capitalize()} {card.attrs[a]}{_currency(rs, card, a, payments, card.attrs[a])}"
                 for a in attrs if card is not None and isinstance(card.attrs.get(a), int) and (sold is None or name in sold)
                 and not re.search(rf"\b(?:(?:cost|price|pay)\w*\b[^.]*|for ){card.attrs[a]}\b", text, re.I)]
        # (a text that says its price: 'Costs at least 3', 'Defeat for 2 power')
        out.append((name, ". ".join(costs) + ". " + text if costs else text))
    return out
