"""Private notices: what a seat gained or lost since it last looked at the table ("Your Green Dragon Egg went
to P3's Treasury"), told to that seat alone.

A seat's things are the cards it sees in its own zones (a hand, a treasury, its open area). Between two looks
the table compares them, and says only what the seat could see for itself, so a notice reveals nothing:
- a card of theirs that another player now has face up: where it is ("Your Guild went to P3's Court");
- a card of theirs now out of their sight: that it left, not where ("Your Green Dragon Egg left your
  Treasury"; the story says who took it, where the story tells it), unless it lies where they may still name it
  (their own bag, whose contents they know: "Your Spark went to your Bag");
- a card they got that they last saw with another player: from where ("You got Iron King from P2's Court").
A card played to the table, or drawn, is seen where it is: no notice.
"""

from __future__ import annotations

from rulecraft.runtime.knowledge import seen_in
from rulecraft.runtime.story import game_label
from rulecraft.values import ZoneRef

from rulecraft.tools.table.seatview import zone_sight
from rulecraft.tools.table.view import zone_title


def holdings(game, seat: int) -> dict[int, ZoneRef]:
    """The cards (by index) in `seat`'s own zones whose faces it sees, and where each lies."""
    out: dict[int, ZoneRef] = {}
    for ref, cards in game.zones.items():
        owner = game.zone_owner(ref)
        if owner is not None and owner.seat == seat and cards and zone_sight(game, ref, seat) == "all":
            for c in cards:
                out[c.index] = ref
    return out


def place(game, ref: ZoneRef, seat: int) -> str:
    """A zone as the notice names it: 'your Treasury', "P3's Hand", 'the Exile' (a shared zone by its title)."""
    owner = game.zone_owner(ref)
    if owner is None:
        return game_label(game, ref)
    return ("your " if owner.seat == seat else f"{game.players[owner.seat].name}'s ") + zone_title(game, ref)


def _names(cards: list) -> str:
    names = [c.name for c in sorted(cards, key=lambda c: c.order)]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def seen(game, seat: int) -> dict[int, ZoneRef]:
    """Every card whose face `seat` sees now, and where it lies."""
    out: dict[int, ZoneRef] = {}
    for ref, cards in game.zones.items():
        if not cards:
            continue
        sight = zone_sight(game, ref, seat)
        if sight == "all":
            for c in cards:
                out[c.index] = ref
        elif sight == "top":
            out[cards[-1].index] = ref
    return out


def _known_places(game, seat: int, cards: set) -> dict[int, ZoneRef]:
    """Where each of `cards` (by index) lies, for those `seat` may name there though it does not see their faces
    (a zone whose contents it knows, its own bag; a card it was shown): runtime/knowledge.py's `seen_in`."""
    out: dict[int, ZoneRef] = {}
    for ref, held in game.zones.items():
        if cards and any(c.index in cards for c in held):
            out.update((c.index, ref) for c in seen_in(game, ref, seat)[1] if c.index in cards)
    return out


class Notices:
    """What each seat had and saw when it last looked, to tell it what changed."""

    def __init__(self):
        self.had: dict[int, dict[int, ZoneRef]] = {}
        self.saw: dict[int, dict[int, ZoneRef]] = {}

    def since(self, game, seat: int) -> list[str]:
        """What `seat` gained or lost since the last call for it (nothing at the first), in words."""
        now, sees = holdings(game, seat), seen(game, seat)
        before, saw = self.had.get(seat), self.saw.get(seat, {})
        self.had[seat], self.saw[seat] = now, sees
        if before is None or game.over:
            return []
        cards = game.rs.cards
        went: dict[ZoneRef, list] = {}
        left: dict[ZoneRef, list] = {}
        got: dict[ZoneRef, list] = {}
        gone = set(before) - set(now)
        known = _known_places(game, seat, gone - set(sees))
        for i in gone:
            to = sees.get(i)
            owner = game.zone_owner(to) if to is not None else None
            if to is None and i in known:  # face down where this seat knows what it holds (its own bag): where
                went.setdefault(known[i], []).append(cards[i])
            elif to is None:  # out of sight: where it went is not this seat's to know (the story may say)
                left.setdefault(before[i], []).append(cards[i])
            elif owner is not None and owner.seat != seat:  # another player has it, face up
                went.setdefault(to, []).append(cards[i])
        for i in set(now) - set(before):
            came = saw.get(i)  # named only where this seat saw it then
            owner = game.zone_owner(came) if came is not None else None
            if owner is not None and owner.seat != seat:
                got.setdefault(came, []).append(cards[i])
        said = [f"Your {_names(cs)} went to {place(game, to, seat)}." for to, cs in went.items()]
        said += [f"Your {_names(cs)} left {place(game, ref, seat)}." for ref, cs in left.items()]
        said += [f"You got {_names(cs)} from {place(game, came, seat)}." for came, cs in got.items()]
        return said
