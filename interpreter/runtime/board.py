"""The table of a running game as the compiled rules see it: zones and cards, marks, modifiers, events, dice.

`Game` (game.py) is a `Board`: these are the primitive operations a rule's statements and
expressions call, kept apart from how a game is set up, driven and copied.
"""

from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING, Any, Callable, Optional

from ..diagnostics import RuleError, Span
from ..dsl.builtins import as_list, describe
from ..dsl.ops import text_of
from ..model import ruleset as M
from ..model.gates import ByField, Gate, may_fire
from ..values import Card, Player, ZoneRef
from .decisions import Decision
from .knowledge import follow_drawn, forget_moved, forget_order, learn, show
from .rng import Dice
from .story import narrate_log, zone_words

# the values one metric is grouped by in one game: each is a row of every report, and a simulation keeps each game's
# (a metric keyed by a counter made 300,000 keys a game: 12 games of `simulate` ended in MemoryError, exit 3, at 2 GB)
MAX_TALLY_KEYS = 10_000
_SEQ = attrgetter("seq")
_REFS = ZoneRef._interned  # every zone ref made, by (zone, key): a ref in a game's table is found there

if TYPE_CHECKING:
    from .machine.program import Frame
    from .rng import SplitMix



class Board(Dice):
    # the game's state lives in slots (Game's, game.py); these three are the ones the board's own operations set
    __slots__ = ("lapsing", "modifiers", "winners")
    # the state these operations read and change: set by Game.__init__ (game.py)
    rs: M.Ruleset
    players: list[Player]
    rng: SplitMix
    fixed_dice: Optional[list]
    zones: dict[ZoneRef, list[Card]]
    where: dict[int, ZoneRef]
    dynamic: dict[str, int]
    marks: dict[str, dict[str, Any]]
    known: dict[int, dict[int, tuple]]
    modifiers: list[list]
    lapsing: bool
    frames: list[Frame]
    pending: Optional[Decision]
    winners: Optional[list[int]]
    decisions: int
    story: bool
    tallies: dict[str, dict[Any, list]]
    chance: list
    locals: dict
    triggers: dict[str, list[M.Trigger]]
    gates: dict[str, Optional[tuple[Gate, ...]]]
    moved_to: ByField  # the gates of 'moved' by destination (model/gates.py)
    drawn: ByField  # and of 'drawn' by card
    _events: list
    _families: dict[str, list]
    _dynamic: dict[str, tuple]
    _player_zones: frozenset
    say: Callable[..., None]

    # ------------------------------------------------------------------ reading state (used by compiled rules)
    def zone_cards(self, z: ZoneRef) -> list[Card]:
        try:
            return self.zones[z]  # only zone refs are keys: anything else misses
        except (KeyError, TypeError):
            pass
        if not isinstance(z, ZoneRef):
            raise RuleError(f"expected a zone, got {describe(z)}", None)
        raise RuleError(f"there is no zone {z.slot}", None)

    def family_zones(self, name: str) -> list[ZoneRef]:
        """The zones of a family, in order (callers copy the list: a fixed family's is kept and shared)."""
        fixed = self._families.get(name)
        if fixed is not None:
            return fixed
        # a dynamic family's, kept while its count and the zones (the same table, as many zones) stay as they were (create_zone counts it)
        known = self._dynamic.get(name)
        if known is not None and known[0] == self.dynamic[name] and known[1] is self.zones \
                and known[2] == len(self.zones):
            return known[3]
        zd = self.rs.zones[name]
        if zd.per == "dynamic":
            count, zones = self.dynamic[name], self.zones
            refs = [r for i in range(1, count + 1) if (r := _REFS.get((name, i))) is not None and r in zones]
            self._dynamic[name] = (count, zones, len(zones), refs)
            return refs
        refs = [ZoneRef(name, k) for k in ([p.seat for p in self.players] if zd.per == "player" else zd.per or ())]
        self._families[name] = refs
        return refs

    def family_member(self, name: str, key: Any, span: Span) -> ZoneRef:
        zd = self.rs.zones[name]
        if isinstance(key, Player):
            key = key.seat
        ref = _REFS.get((name, key))  # (a zone of the table was made before: no call of ZoneRef's __new__)
        if ref is None or ref not in self.zones:
            if zd.per == "dynamic":
                raise RuleError(f"'{name}' has no zone number {describe(key)}", span)
            keys = ", ".join(map(str, zd.per)) if isinstance(zd.per, tuple) else "players"
            raise RuleError(f"'{name}' has no zone for {describe(key)}", span, f"its keys: {keys}")
        return ref

    def zone_of(self, card: Card) -> ZoneRef:
        return self.where[card.index]

    def zone_owner(self, z: ZoneRef) -> Optional[Player]:
        if z.zone in self._player_zones:  # a zone of a family with one per player (Game.__init__)
            return self.players[z.key]
        return None

    def random_index(self, n: int) -> int:
        i = self.rng.below(n)
        self.chance.append(["pick", n, i])
        return i

    def modifier_total(self, name: str, player: Any = None) -> Any:
        if not self.modifiers:
            return 0  # (what the sum of none gives)
        seat = player.seat if isinstance(player, Player) else None
        total = 0  # (the sum of the matching values, in order, as sum() adds them)
        for m in self.modifiers:
            if m[0] == name and (m[1] is None or m[1] == seat):
                total += m[2]
        return total

    def running(self, kind: str) -> Optional[str]:
        for f in reversed(self.frames):
            if f.kind == kind:
                return f.seq
        return None

    def in_sequence(self, seq: str) -> bool:
        return seq in map(_SEQ, self.frames)  # (in C: any() of a generator resumes Python code once a frame)

    def set_mark(self, card: Card, name: str, value: Any) -> None:
        self.marks.setdefault(card.id, {})[name] = value

    # ------------------------------------------------------------------ changing state
    def _emit(self, event: str, fields: dict) -> None:
        """Keep an event for handlers.fire: only one some trigger is on, and only if one may fire (model/gates.py)."""
        gate = self.gates.get(event, ())  # (): no trigger is on it
        if gate is None or (gate and may_fire(gate, fields)):
            self._events.append((event, fields))

    def move(self, what: Any, dest: ZoneRef, place: Any, span: Span, player: Any = None, drawn: bool = False) -> None:
        """`place` is 'top', 'bottom', or (`move X to Z under N`) the number of cards left above each card moved;
        `drawn`: the cards are drawn from the top of where they lie (what a seat was shown there: knowledge.py)."""
        if what.__class__ is Card and place == "top" and dest.__class__ is ZoneRef:  # one card onto a zone (most
            # moves): the loop below for it, written out
            target = self.zones.get(dest)
            if target is not None:
                where = self.where
                src = where[what.index]
                held = self.zones[src]
                if held and held[-1] is what:
                    held.pop()
                else:
                    held.remove(what)
                target.append(what)
                where[what.index] = dest
                if self.known:
                    forget_moved(self, what, src, dest, drawn)
                if self.gates:  # (no trigger on any event: no look-up; by_field's answer for the zone: gates.ByField)
                    told = self.moved_to[dest]
                    if told is None or told:
                        fields = {"card": what, "source": src, "dest": dest, "player": player}
                        if told is None or may_fire(told, fields):
                            self._events.append(("moved", fields))
                return
        got = self.zones.get(what) if what.__class__ is ZoneRef else None  # (as as_list gives, without its calls)
        cards = list(got) if got is not None else what if what.__class__ is list else (what,) \
            if isinstance(what, Card) else as_list(self, what, span) if what is not None else ()
        if place.__class__ is not str and (place.__class__ is not int or place < 0):
            raise RuleError(f"'under' needs a whole number of cards, 0 or more, not {describe(place)}", span,
                            "0 puts it on top; the number of cards in the zone, or more, at the bottom")
        target = self.zones.get(dest) if dest.__class__ is ZoneRef else None
        if target is None:
            target = self._zone_list(dest, span)  # (its errors)
        told = self.moved_to[dest]  # as _emit: the event is kept only for a trigger to read (by_field: once a zone)
        known = self.known  # what seats were shown (knowledge.py): a card moved away is no longer known there
        where = self.where
        for c in cards:
            if not isinstance(c, Card):
                raise RuleError(f"only cards can be moved, not {describe(c)}", span)
            src = where[c.index]
            held = self.zones[src]
            if held and held[-1] is c:  # the top card (a draw, most moves): no search, no comparisons
                held.pop()
            else:
                held.remove(c)
            if place == "bottom":
                target.insert(0, c)
            elif place.__class__ is int:  # (a zone's list is bottom first: N cards above it is N from the end)
                target.insert(max(0, len(target) - place), c)
            else:
                target.append(c)
            where[c.index] = dest
            if known:
                forget_moved(self, c, src, dest, drawn)
            if told is None or told:
                fields = {"card": c, "source": src, "dest": dest, "player": player}
                if told is None or may_fire(told, fields):
                    self._events.append(("moved", fields))

    def _zone_list(self, z: Any, span: Span) -> list[Card]:
        if not isinstance(z, ZoneRef):
            raise RuleError(f"expected a zone, got {describe(z)}", span,
                            "a family of zones needs a key, e.g. stocks['iron'] or p.hand")
        try:
            return self.zones[z]
        except KeyError:
            raise RuleError(f"there is no zone {z.slot}", span) from None

    def draw(self, count: Optional[int], src: ZoneRef, dest: Optional[ZoneRef], place: str, span: Span) -> Any:
        # (_zone_list's work without its call; it is called for its errors, or for a zone with no cards: the same list)
        cards = (self.zones.get(src) if src.__class__ is ZoneRef else None) or self._zone_list(src, span)
        if count is None and cards and not self.known and dest.__class__ is ZoneRef:
            target = self.zones.get(dest)
            if target is not None:  # one card from the top to a zone, nothing shown to anyone: move's work, inline
                c = cards.pop()
                if place == "bottom":
                    target.insert(0, c)
                else:
                    target.append(c)
                self.where[c.index] = dest
                gates = self.gates
                if gates:  # (as _emit, for each event)
                    gate = self.moved_to[dest]  # (by_field's, as move)
                    if gate is None or gate:
                        fields = {"card": c, "source": src, "dest": dest, "player": None}
                        if gate is None or may_fire(gate, fields):
                            self._events.append(("moved", fields))
                    gate = self.drawn[c]  # (by_field's, by the card)
                    if gate is None or gate:
                        fields = {"card": c, "source": src, "dest": dest, "player": None}
                        if gate is None or may_fire(gate, fields):
                            self._events.append(("drawn", fields))
                return c
        k = 1 if count is None else count
        if len(cards) < k and src.zone in self.rs.refills:
            return self._draw_refilling(count, k, src, dest, place, span)
        taken = cards[-k:][::-1] if k else []
        kept = follow_drawn(self.known, taken, src) if self.known and dest is not None else None
        for c in taken:
            if dest is not None:
                self.move(c, dest, place, span, drawn=True)
            self._emit("drawn", {"card": c, "source": src, "dest": dest, "player": None})
        if kept:  # a card seen where it lay, drawn from the top: who saw it knows where it went
            for mine, i in kept:
                mine[i] = (dest, True)
        if count is None:
            return taken[0] if taken else None
        return taken

    def _draw_refilling(self, count: Optional[int], k: int, src: ZoneRef, dest: Optional[ZoneRef], place: str,
                        span: Span) -> Any:
        """A draw from a zone with `refill:` that has too few cards: when it is found empty, the refill zone is
        shuffled and becomes it, and the draw goes on. A draw that only looks puts the shuffled cards under
        the ones it looks at (they stay in place)."""
        cards = self.zones[src]
        if dest is None:
            if self._refill(src, "bottom", span):
                cards = self.zones[src]
            taken = cards[-k:][::-1] if k else []
            for c in taken:
                self._emit("drawn", {"card": c, "source": src, "dest": None, "player": None})
        else:
            taken = []
            while len(taken) < k:
                if not cards and not self._refill(src, "top", span):
                    break
                c = cards[-1]
                self.move(c, dest, place, span, drawn=True)
                taken.append(c)
                self._emit("drawn", {"card": c, "source": src, "dest": dest, "player": None})
        if count is None:
            return taken[0] if taken else None
        return taken

    def _refill(self, src: ZoneRef, place: str, span: Span) -> bool:
        """Shuffle the refill zone of `src` into it (on top when `src` is empty, else underneath); False: none to."""
        name = self.rs.refills[src.zone]
        ref = ZoneRef(name) if self.rs.zones[name].per is None else ZoneRef(name, src.key)
        pile = self.zones.get(ref)
        if not pile:
            return False
        self.shuffle(ref, span)
        self.move(pile[::-1] if place == "bottom" else list(pile), src, place, span)
        if self.story:
            owner, new, whose = self.zone_owner(src), zone_words(self.rs, src.zone), "the" if ref.key is None else "their"
            self.say(f"{owner} shuffles {whose} {zone_words(self.rs, name)} to make a new {new}" if owner is not None
                     else f"The {zone_words(self.rs, name)} is shuffled to make a new {new}")
        return True

    def shuffle(self, z: ZoneRef, span: Span) -> None:
        cards = self._zone_list(z, span)
        self.rng.shuffle(cards)
        if self.known:
            forget_order(self.known, z)
        self.chance.append(["shuffle", z.slot])
        self._emit("shuffled", {"zone": z})

    def reverse(self, z: ZoneRef, span: Span) -> None:
        self._zone_list(z, span).reverse()

    def emit(self, event: str, fields: dict, span: Span) -> None:
        self._emit(event, fields)

    def log(self, text: str, message: Any, texts: list) -> None:
        narrate_log(self, text, message, texts)

    def tell(self, player: Player, message: Any) -> None:
        """A line of the story for one player only."""
        self.say(f"To {player} only: {text_of(message)}", only=(player.seat,), kind="tell")

    def show(self, what: Any, who: Any, span: Span) -> None:
        """`show WHAT to WHO`: the cards become what those seats know (knowledge.py)."""
        show(self, what, who, span)

    def told_cards(self, player: Player, parts: tuple) -> None:
        """A `tell` whose text names cards: the player now knows them (a part that fails is left to the text)."""
        cards = []
        for part in parts:
            try:
                v = part(self)
            except RuleError:
                continue
            cards += [c for c in (v if isinstance(v, list) else [v]) if isinstance(c, Card)]
        if cards:
            learn(self, player.seat, cards)

    def win(self, who: Any, span: Span) -> None:
        players = who if isinstance(who, list) else [who]
        if not all(isinstance(p, Player) for p in players):
            raise RuleError(f"'win' needs a player or a list of players, got {describe(who)}", span)
        self.winners = sorted({p.seat for p in players})

    def tally(self, metric: str, key: Any, value: Any, span: Span) -> None:
        """Add one value to a metric under a key (`tally` statements, and the metrics worked out at the end)."""
        tv = value.__class__
        if tv is not int and tv is not float:  # (the usual value and key are checked by their class alone)
            if tv is bool:
                value = int(value)
            elif not isinstance(value, (int, float)):
                raise RuleError(f"a metric adds up numbers, got {describe(value)}", span)
        if key is not None and key.__class__ is not int and key.__class__ is not str and \
                not isinstance(key, (bool, int, float, str)):
            if isinstance(key, (Player, Card, ZoneRef)):
                key = str(key)
            elif isinstance(key, list):
                key = text_of(key)
            else:
                raise RuleError(f"a metric is grouped by a number, text, a player or a card, got {describe(key)}", span)
        per_key = self.tallies.get(metric)
        if per_key is None:
            per_key = self.tallies[metric] = {}
        entry = per_key.get(key)
        if entry is None:
            if len(per_key) >= MAX_TALLY_KEYS:
                raise RuleError(f"metric '{metric}' is grouped by {MAX_TALLY_KEYS:,} values already in this game: a "
                                "report cannot show more; group it by fewer values", span)
            per_key[key] = [1, value, value * value]
        else:
            entry[0] += 1
            entry[1] += value
            entry[2] += value * value

    def add_modifier(self, name: str, target: Any, value: Any, until: str, span: Span) -> None:
        if target is not None and not isinstance(target, Player):
            raise RuleError(f"a modifier applies to a player, not {describe(target)}", span)
        owner: str | int | None = None
        if until.startswith("next "):  # lapses when the next sequence of that kind starts for its player (Game.push)
            owner = until
            self.lapsing = True
        elif until != "game":
            for f in reversed(self.frames):
                if f.kind == until:
                    owner = f.id
                    f.mods = True  # it lapses when f ends (handlers.pop_frame)
                    break
            else:
                raise RuleError(f"'until end of {until}': no {until} is running", span)
        self.modifiers.append([name, target.seat if target is not None else None, value, owner])

    def remove_modifier(self, name: str, target: Any) -> None:
        seat = target.seat if isinstance(target, Player) else None
        self.modifiers = [m for m in self.modifiers if not (m[0] == name and (target is None or m[1] == seat))]

    def create_zone(self, family: str, span: Span) -> ZoneRef:
        self.dynamic[family] += 1
        ref = ZoneRef(family, self.dynamic[family])
        self.zones[ref] = []
        return ref
