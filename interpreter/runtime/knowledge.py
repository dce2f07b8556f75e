"""What each seat knows of the cards on the table: how it sees each zone, the cards it was shown, and worlds it
cannot tell from the real one (a search bot's determinized copies).

A seat sees a zone in one of four ways (model/secrecy.py's `zone_sight`, the engine's one rule): every card in order ('all': an open zone, its own hand), the top
card only ('top'), which cards it holds but not their order ('contents': the zone visibilities `contents` and
`owner_contents`, a deck-builder's draw pile), or only how many ('count'). Besides, a seat knows the cards it was
shown (`show CARDS to PLAYER`): the record `Game.known` maps a seat to the cards it was shown, each with the zone
it was shown in and whether its place there is known. A shown card stays known while it stays in that zone;
moving it elsewhere forgets it (Board.move: which card a player moves from a hand is theirs to know), except a draw
from the top of a zone where its place was known (Board.draw: everyone sees the top card go); shuffling the zone
forgets its place but not that it lies there. A card leaving a zone where a seat cannot see it arrive takes with it
every card that seat knew lay there (a draw keeps those whose place it knew): the seat cannot tell which one went.

`deal_again` makes a copy of a game into a world the seat cannot tell from the real one: the cards it cannot see
are dealt again among the places such cards lie, the cards whose contents it knows change places only within
their zone, and every name that held a card (variables, locals, frames, events, marks, the pending decision)
follows the card's place, not the card, so a hidden card is never reached through a name either.
"""

from __future__ import annotations

import copy
import weakref
from typing import Any, Optional

from ..diagnostics import RuleError, Span
from ..dsl.builtins import describe
from ..values import Card, Player, ZoneRef
from .codec import encode
from ..model.secrecy import (CONTENTS, home_groups, sees_card, sees_player_variable, sees_variable, show_told, shown,
                             zone_sight)
from .story import game_label

OWNER_CONTENTS = "owner_contents"  # its owner knows which cards it holds, the others only how many; nobody the order


# ---------------------------------------------------------------------- what a seat was shown
def show(g, what: Any, who: Any, span: Span) -> None:
    """`show WHAT to WHO`: the seats of `who` now know the cards of `what` (a card, a list of cards or a zone);
    the story tells them the cards, and everyone else that they looked."""
    zone = what if isinstance(what, ZoneRef) else None
    if zone is not None:
        cards = list(g.zone_cards(zone))
    elif isinstance(what, Card):
        cards = [what]
    elif isinstance(what, list) and all(isinstance(c, Card) for c in what):
        cards = what
    else:
        raise RuleError(f"'show' shows a card, a list of cards or a zone, got {describe(what)}", span)
    people = who if isinstance(who, list) else [who]
    if not all(isinstance(p, Player) for p in people):
        raise RuleError(f"'show' shows to a player or a list of players, got {describe(who)}", span)
    for p in people:
        learn(g, p.seat, cards)
    if g.story and people:
        _narrate(g, zone, cards, people, show_told(g.rs, span))


def learn(g, seat: int, cards: list) -> None:
    """`seat` now knows these cards, where they lie (a `show`, or a `tell` whose text names them)."""
    mine = g.known.setdefault(seat, {})
    where = g.where
    for c in cards:
        ref = where.get(c.index)
        if ref is not None:
            mine[c.index] = (ref, True)


def _narrate(g, zone: Optional[ZoneRef], cards: list, people: list, told: bool = True) -> None:
    """The story of a show: the cards to those shown; to the others that they looked, unless the show was reached
    for a reason some seat cannot see or worked out from something hidden (model/secrecy.py's `show_told`): then
    nothing, as of a `tell`."""
    names = " and ".join(", ".join(p.name for p in people).rsplit(", ", 1))
    where = {g.where[c.index] for c in cards}
    place = zone if zone is not None else next(iter(where)) if len(where) == 1 else None
    in_place = f" in {_the(game_label(g, place))}" if place is not None else ""
    if zone is not None:
        public = f"{names} {'looks' if len(people) == 1 else 'look'} at {_the(game_label(g, zone))}"
    else:
        n = len(cards)
        public = f"{names} {'is' if len(people) == 1 else 'are'} shown {'a card' if n == 1 else f'{n} cards'}{in_place}"
    seen = ", ".join(c.name for c in cards) or "nothing"
    g.say(f"{public}: {seen}", only=[p.seat for p in people], public=public if told else None, kind="tell")


def _the(title: str) -> str:
    """'Hand of P3' as 'the hand of P3'; a title that has its article already is kept."""
    if title.lower().startswith("the "):
        return title
    return "the " + (title[0].lower() + title[1:] if title[1:2].islower() else title)


def forget_moved(g, card: Card, src: ZoneRef, dest: ZoneRef, drawn: bool = False) -> None:
    """A card left `src` for `dest` (Board.move): who was shown it no longer knows where it is. And a seat that knew
    cards lay in `src` but cannot see this one where it went cannot tell which card left: it forgets the cards it knew
    lay there (what stays on its list would say which went: a card peeked at, the deck shuffled, gone from the list
    when another player drew that very card; a hand shown, the card its holder played face down). A draw from the
    top (`drawn`) forgets only the cards whose place there it did not know: it saw which place the card left."""
    for seat, mine in g.known.items():
        seen = mine.get(card.index)
        if seen is not None and seen[0] != dest:
            del mine[card.index]
        if src != dest and mine and not sees_card(g, card, seat, False):
            for i in [i for i, (ref, exact) in mine.items() if ref == src and not (drawn and exact)]:
                del mine[i]


def follow_drawn(known: dict, cards: list, src: ZoneRef) -> list:
    """The records of cards about to be drawn from the top of `src` whose place there was known: a draw is seen by
    all, so who knew the card still knows it after (Board.draw puts them back at the destination)."""
    return [(mine, c.index) for mine in known.values() for c in cards
            if mine.get(c.index) == (src, True)]


def forget_order(known: dict, ref: ZoneRef) -> None:
    """The zone was shuffled: the cards seen in it are still known to lie there, no longer where (Board.shuffle)."""
    for mine in known.values():
        for i, (seen, exact) in list(mine.items()):
            if exact and seen == ref:
                mine[i] = (seen, False)


def copy_known(known: dict) -> dict:
    return {s: dict(mine) for s, mine in known.items()}


def known_json(g) -> dict:
    """The record as data (seat -> [card id, zone, key, place known]), only the shown cards still where seen."""
    cards = g.rs.cards
    out = {}
    for seat in sorted(g.known):
        mine = g.known[seat]
        rows = [[cards[i].id, mine[i][0].zone, encode(mine[i][0].key), exact] for i, exact in sorted(shown(g, seat).items())]
        if rows:
            out[str(seat)] = rows
    return out


def known_from_json(data: dict, dec) -> dict:
    out: dict = {}
    for seat, rows in data.items():
        out[int(seat)] = {dec.cards[cid].index: (ZoneRef(zone, dec(key)), bool(exact)) for cid, zone, key, exact in rows}
    return out


def unordered(g, opts: list) -> list:
    """A decision's options: the cards among them that lie in a zone whose order nobody knows (`contents`,
    `owner_contents`) put in the ruleset's card order, in the places they held, so a list of the cards of a draw
    pile never tells its order (machine/questions.py)."""
    zones = g.orderless
    if not zones:
        return opts
    where = g.where
    places = [i for i, o in enumerate(opts) if type(o) is Card and o.index in where and where[o.index].zone in zones]
    if len(places) > 1:
        for i, c in zip(places, sorted((opts[i] for i in places), key=lambda c: c.index)):
            opts[i] = c
    return opts


def orderless(rs) -> frozenset:
    """The zones whose order nobody knows (Game.orderless): worked out once per ruleset, not per game."""
    names = _ORDERLESS.get(rs)
    if names is None:
        names = _ORDERLESS[rs] = frozenset(z.id for z in rs.zones.values() if z.visibility in (CONTENTS, OWNER_CONTENTS))
    return names


_ORDERLESS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


# ---------------------------------------------------------------------- what a seat sees of a zone
def seen_in(g, ref: ZoneRef, seat: int) -> tuple[str, list[Card]]:
    """(how `seat` sees the zone, the cards it may name there): all of them in order ('all'), the top one
    ('top'), all of them in the ruleset's card order, not the zone's ('contents'), and in every case the cards
    it was shown there (in the zone's order, with the top card of a 'top' zone)."""
    cards = g.zones.get(ref, [])
    how = zone_sight(g, ref, seat)
    if how == "all":
        return how, list(cards)
    if how == "contents":
        return how, sorted(cards, key=lambda c: c.index)
    return how, _known_in(cards, shown(g, seat), how == "top")


def _known_in(cards: list, known: dict, top: bool = False) -> list:
    """The cards of a zone a seat may name (`known`: those it was shown, place known or not; `top`: and its top card):
    those whose place it knows in the zone's order, then those it knows lie there but not where in the ruleset's card
    order (in the zone's order they would tell where: a deck shown, then shuffled, listed in its new order)."""
    last = len(cards) - 1
    placed = [c for i, c in enumerate(cards) if known.get(c.index) or (top and i == last)]
    return placed + sorted((c for i, c in enumerate(cards) if known.get(c.index) is False and not (top and i == last)),
                           key=lambda c: c.index)


def zone_view(g, ref: ZoneRef, seat: int) -> Any:
    """A zone in `Game.view`: its card ids when the seat sees them all; otherwise its count, with the top card
    ('top'), the cards it holds in the ruleset's order ('contents'), the cards the seat was shown ('known')."""
    how, cards = seen_in(g, ref, seat)
    if how == "all":
        return [c.id for c in cards]
    held = g.zones.get(ref, [])
    out: dict = {"count": len(held)}
    if how == "top":
        out["top"] = held[-1].id if held else None
    if how == "contents":
        out["contents"] = [c.id for c in cards]
    else:
        ids = [c.id for c in _known_in(held, shown(g, seat))]
        if ids:
            out["known"] = ids
    return out


def seat_view(g, seat: int) -> dict:
    """What one player may see (`Game.view`; model/secrecy.py decides): each zone as zone_view gives it (hidden ones as
    counts, with what the seat was shown); variables declared 'hidden' not at all, player variables declared 'owner'
    only their player's; the pending decision when it is the seat's."""
    rs = g.rs
    return {
        "you": seat,
        "players": [p.name for p in g.players],
        "zones": {ref.slot: zone_view(g, ref, seat) for ref in g.zones},
        "variables": {k: encode(v) for k, v in g.vars.items() if sees_variable(rs, k, seat)},
        "player_variables": [{k: encode(v) for k, v in pv.items() if sees_player_variable(rs, k, seat, i)}
                             for i, pv in enumerate(g.pvars)],
        "decision": g.pending.to_json() if g.pending and g.pending.player == seat else None,
    }


# ---------------------------------------------------------------------- worlds a seat cannot tell apart
def unseen(g, seat: int) -> tuple[list[tuple[ZoneRef, int]], dict[ZoneRef, list[int]]]:
    """(pool, orders): the places (zone, position) whose card `seat` cannot tell, any card of the pool possibly
    lying there; and per zone, the places whose cards it knows but not in which order."""
    known = shown(g, seat)
    pool: list = []
    orders: dict = {}
    for ref, cards in g.zones.items():
        if not cards:
            continue
        how = zone_sight(g, ref, seat)
        if how == "all":
            continue
        if how == "contents":
            orders[ref] = list(range(len(cards)))
            continue
        last = len(cards) - 1
        mixed = False
        here = []
        for i, c in enumerate(cards):
            if how == "top" and i == last:
                continue
            exact = known.get(c.index)
            if exact is None:
                here.append(i)
            elif not exact:  # known to lie here, not where: its place is dealt among the zone's unseen places
                mixed = True
        pool += [(ref, i) for i in here]
        if mixed:
            orders[ref] = [i for i, c in enumerate(cards)
                           if not (how == "top" and i == last) and known.get(c.index) is not True]
    return pool, orders


def deal_again(g, seat: int, rng) -> dict[int, Card]:
    """Deal the cards `seat` cannot see again at random in `g` (a copy): every place keeps its count, the pool's
    cards trade places (only with cards that started the game in the same zone: `card_homes`), the cards whose
    contents the seat knows only within their zone. Returns how the pool's cards were replaced: card index -> the card now in its
    place (see `relabel`)."""
    pool, orders = unseen(g, seat)
    zones, where = g.zones, g.where
    groups: dict = {}
    homes = card_homes(g)
    for ref, i in pool:
        card = zones[ref][i]
        groups.setdefault(homes.get(card.index, card.classes), []).append((ref, i, card))
    swap: dict[int, Card] = {}
    for members in groups.values():
        if len(members) < 2:
            continue
        cards = sorted((c for _r, _i, c in members), key=_index)  # (not in the order they lie: that is hidden)
        rng.shuffle(cards)
        for (ref, i, old), card in zip(members, cards):
            zones[ref][i] = card
            where[card.index] = ref
            if card is not old:
                swap[old.index] = card
    for ref, places in orders.items():
        if len(places) < 2:
            continue
        held = zones[ref]
        cards = sorted((held[i] for i in places), key=_index)
        rng.shuffle(cards)
        for i, card in zip(places, cards):
            held[i] = card
    return swap


def _index(c: Card) -> int:
    return c.index


_HOMES: "weakref.WeakKeyDictionary[Any, dict]" = weakref.WeakKeyDictionary()


def card_homes(g) -> dict[int, str]:
    """The zone each card started the game in (its zone's `initial`, the rest in the zone that takes `all`), by the
    card's index: cards that started together are told apart by no seat but by their faces, so a world dealt again
    trades their places (a traitor with a loyal role, a relic with dust). Trading only cards of the same classes kept
    every card whose classes no other card shares where it really was: the greedy bot knew the traitor. Worked out
    once per ruleset and number of players; a start it cannot work out again keeps the classes."""
    rs = g.rs
    per = _HOMES.setdefault(rs, {})
    got = per.get(len(g.players))
    if got is None:
        got, h = {}, g.copy(story=False)  # (worked out on a copy: the game's own generator is not drawn from)
        h.locals = {}
        try:
            for z in rs.zones.values():
                if callable(getattr(z.initial, "fn", None)):
                    value = z.initial.fn(h)
                    got.update((c.index, z.id) for c in (value if isinstance(value, list) else [value])
                               if isinstance(c, Card) and c.index not in got)
        except RuleError:  # (a start read from the game as it is now: the classes, as before)
            got = {}
        rest = next((z.id for z in rs.zones.values() if z.initial == "all"), None)
        if rest is not None:
            got.update((c.index, rest) for c in rs.cards if c.index not in got)
        if got:  # homes the rules may bring together in one zone deal as one (model/homes.py)
            groups = home_groups(rs, got)
            got = {i: groups[z] for i, z in got.items()}
        per[len(g.players)] = got
    return got


def relabel(g, swap: dict[int, Card]) -> None:
    """After `deal_again`: every name that held a card of the pool now holds the card dealt in its place, so a
    variable, a local, a frame's deferred call, an event, a mark or the pending decision's options never reach
    a card the seat cannot see. (The card of a known place keeps its names.)"""
    if not swap:
        return

    def sub(v: Any) -> Any:
        t = type(v)
        if t is Card:
            return swap.get(v.index, v)
        if t is list:
            return [sub(x) for x in v]
        if t is dict:
            return {sub(k): sub(x) for k, x in v.items()}
        if t is tuple:
            return tuple(sub(x) for x in v)
        return v

    for k, v in g.vars.items():
        g.vars[k] = sub(v)
    for pv in g.pvars:
        for k, v in pv.items():
            pv[k] = sub(v)
    for f in g.frames:  # in place: the game's `locals` is the top frame's dict
        for k, v in f.locals.items():
            f.locals[k] = sub(v)
        f.deferred = [(s, sub(a)) for s, a in f.deferred]
    g._events = [(e, sub(fields)) for e, fields in g._events]
    g.modifiers = [[m[0], m[1], sub(m[2]), m[3]] for m in g.modifiers]
    if g.marks:
        by_id = {g.rs.cards[i].id: c.id for i, c in swap.items()}
        g.marks = {by_id.get(cid, cid): m for cid, m in g.marks.items()}
    d = g.pending
    if d is not None and d.low is None and d._options is not None:
        d = copy.copy(d)
        d._options = sub(d._options)
        g.pending = d
