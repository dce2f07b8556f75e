"""The seat view: exactly what one seat may see of a game, in the game's words, as data: one model that the
terminal table draws (tools.table.view) and that a browser client receives as JSON (`SeatView.to_json`).

It is built from the game for one seat only (`seat_view`), so nothing another seat hides can reach it: a zone's
cards are named only where `zone_sight` says the seat sees them (else its count, or its top card), player
variables declared 'owner' only for their owner, variables declared 'hidden' never, points only where they
reveal nothing (tools.table.scores), and the decision only when it is this seat's. At the end of the game every
zone is open and the score breakdown is given. docs/seatview.md describes the JSON form field by field.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any, Optional

from rulecraft.diagnostics import RuleError
from rulecraft.model import secrecy
from rulecraft.model.secrecy import ALL, CONTENTS, TOP
from rulecraft.runtime.decisions import Decision
from rulecraft.runtime.knowledge import seen_in
from rulecraft.runtime.machine.plans import draws_chance
from rulecraft.values import Player, ZoneRef

from rulecraft.tools.table.asked import DecisionView, decision_view
from rulecraft.tools.table.view import CardView, card_view, json_value, say_value, var_title, zone_title

PROTOCOL = "rulecraft.seatview/1"


@dataclass
class ZoneView:
    """A pile as this seat sees it: `cards` named where the seat sees their faces (None: it sees only how many),
    `top` where it sees the top card alone, `contents` where it knows which cards the pile holds but not their
    order (in the ruleset's card order), `known` the cards it was shown there. An empty pile is shown, as empty."""

    zone: str
    title: str
    owner: Optional[int]
    count: int
    cards: Optional[list[CardView]] = None
    top: Optional[CardView] = None
    contents: Optional[list[CardView]] = None
    known: list[CardView] = field(default_factory=list)

    @property
    def text(self) -> str:
        if self.cards is not None:
            return ", ".join(c.name for c in self.cards) or "empty"
        n = self.count
        count = f"{n} card{'s' if n != 1 else ''}" if n else "empty"
        if self.contents is not None:  # which cards, never their order: each name once, with how many
            names = Counter(c.name for c in self.contents)
            return count + (": " + ", ".join(f"{k} ×{v}" if v > 1 else k for k, v in names.items()) if n else "")
        return count + (f", top: {self.top.name}" if self.top is not None else "") + (
            f"; you were shown {', '.join(c.name for c in self.known)}" if self.known else "")


@dataclass
class ValueView:
    """A named value (a variable, a value of the ruleset's `view:`) in words, and as JSON."""

    title: str
    text: str
    value: Any = None


@dataclass
class PlayerView:
    seat: int
    name: str
    you: bool
    rows: list = field(default_factory=list)  # ZoneView and ValueView, in the ruleset's order
    points: Any = None  # the points they would have if the game ended now, where that reveals nothing hidden
    holds: list[str] = field(default_factory=list)  # the titles of what they hold now ('the Initiative Badge')


@dataclass
class TurnView:
    """Who plays in which order now (the outermost running 'for each player' loop), whose go it is, and who
    holds what the game's variables name a player for (the first player, the initiative)."""

    title: str
    order: list[int]
    now: Optional[int]


@dataclass
class StackView:
    """The stack a player is responding to: what is on it (top last), and the order players are asked in."""

    title: str
    cards: list[CardView]
    entries: list[str]
    order: list[int]


@dataclass
class EndView:
    """The end of the game: the winners and each player's score, part by part (`view: score_parts`)."""

    winners: list[int]
    scores: list[dict]


@dataclass
class SeatView:
    seat: int
    name: str
    title: str = ""
    over: bool = False
    table: list = field(default_factory=list)  # ZoneView and ValueView: what lies on the table for everyone
    players: list[PlayerView] = field(default_factory=list)  # you first, then the others in seat order
    now: list[ValueView] = field(default_factory=list)  # the ruleset's values that matter now (`view: values`)
    turn: Optional[TurnView] = None
    holders: list[ValueView] = field(default_factory=list)  # who holds what a game variable names a player for
    effects: list[ValueView] = field(default_factory=list)  # modifiers in force: their doc, and whom they reach
    stack: Optional[StackView] = None
    decision: Optional[DecisionView] = None
    notices: list[str] = field(default_factory=list)  # what this seat gained or lost since its last view
    end: Optional[EndView] = None

    def to_json(self) -> dict:
        """The protocol form (docs/seatview.md): plain JSON types only."""
        out = {"protocol": PROTOCOL, **asdict(self)}
        out["table"] = [_row_json(r) for r in self.table]
        out["players"] = [{**asdict(p), "rows": [_row_json(r) for r in p.rows]} for p in self.players]
        return out


def _row_json(row) -> dict:
    if isinstance(row, ZoneView):
        return {"type": "zone", **asdict(row), "text": row.text}
    return {"type": "value", **asdict(row)}


# ------------------------------------------------------------------ what a seat may see
def zone_sight(game, ref: ZoneRef, seat: int) -> str:
    """What `seat` sees of zone `ref`: 'all' its cards, 'top' its top card, 'count' how many: the engine's one rule
    (rulecraft.model.secrecy), except that at the end of the game everything is shown."""
    if game.over:
        return ALL
    return secrecy.zone_sight(game, ref, seat)


def zone_view(game, ref: ZoneRef, seat: int) -> ZoneView:
    """A pile as `seat` sees it (`zone_sight`), with the cards it may name there (runtime/knowledge.py's `seen_in`:
    every card, the top one, the contents, the cards it was shown)."""
    cards = game.zones.get(ref, [])
    owner = game.zone_owner(ref)
    z = ZoneView(ref.zone if ref.key is None else ref.slot, zone_title(game, ref),
                 owner.seat if owner is not None else None, len(cards))
    sight, seen = (ALL, list(cards)) if game.over else seen_in(game, ref, seat)
    if sight == ALL:
        if game.rs.zones[ref.zone].visibility == "owner" and game.rs.card_order:  # a hand, in the card order
            seen = sorted(seen)
        z.cards = [card_view(game, c) for c in seen]
    elif sight == CONTENTS:
        z.contents = [card_view(game, c) for c in seen]
    else:
        top = cards[-1] if sight == TOP and cards else None
        z.top = card_view(game, top) if top is not None else None
        z.known = [card_view(game, c) for c in seen if c is not top]
    return z


def zone_text(game, ref: ZoneRef, seat: int) -> str:
    """The contents of a zone as `seat` may see them, as the terminal shows them."""
    return zone_view(game, ref, seat).text


def _words(name: str) -> str:
    return name.replace("_", " ").strip().capitalize()


def _value(title: str, v: Any, game) -> ValueView:
    return ValueView(title, say_value(v, game), json_value(v, game))


# ------------------------------------------------------------------ building
def _kept_score(rs) -> Optional[str]:
    """The player variable the score is, when scoring counts one as it is (`score: "p.points"`)."""
    from rulecraft.dsl import ast as A

    e = getattr(rs.scoring.score, "ast", None) if rs.scoring is not None else None
    return e.name if isinstance(e, A.Attr) and isinstance(e.obj, A.Name) else None


def seat_view(game, seat: int, d: Optional[Decision] = None, notices: Optional[list[str]] = None) -> SeatView:
    """What `seat` may see of `game` now; `d` the decision it is asked (None: none), `notices` what it gained or
    lost since it last looked (tools.table.notices). `seat` -1: a spectator, a seat no player holds, whom the
    engine's one rule shows only what is public."""
    from rulecraft.tools.table.scores import points_seen

    rs = game.rs
    spec = rs.view
    watcher = not 0 <= seat < len(game.players)
    v = SeatView(seat, "Spectator" if watcher else game.players[seat].name, rs.title, bool(game.over),
                 notices=list(notices or ()))
    explicit = spec is not None and bool(spec.table)
    for name in (list(spec.table) if explicit else _default_table(game)):
        if name in rs.zones:
            for ref in _refs(game, name):
                v.table.append(zone_view(game, ref, seat))
        elif name in rs.variables and secrecy.sees_variable(rs, name, seat):
            v.table.append(_value(var_title(rs.variables[name]), game.vars.get(name), game))
    per_player = list(spec.players) if spec is not None and spec.players else _default_players(game)
    seen = points_seen(game, seat) if not game.over else {}
    if _kept_score(rs) in per_player:  # the score is a value every row shows already ('Points'): said once
        seen = {}
    holders = _holders(game)
    for s in [p.seat for p in game.players if p.seat == seat] + [p.seat for p in game.players if p.seat != seat]:
        pv = PlayerView(s, game.players[s].name, s == seat, points=seen.get(s),
                        holds=[t for t, who in holders if who == s])
        for name in per_player:
            if name in rs.zones:
                pv.rows.append(zone_view(game, ZoneRef(name, s), seat))
            elif name in rs.player_variables and (game.over and rs.player_variables[name].visibility != "hidden"
                                                 or game._sees_pvar(seat, s, name)):
                pv.rows.append(_value(var_title(rs.player_variables[name]), game.pvars[s].get(name), game))
        v.players.append(pv)
    shown = {r.title for r in v.table}  # a holder the table's values show already is not said again above them
    v.holders = [ValueView(t, game.players[who].name, who) for t, who in holders if t not in shown]
    if spec is not None and not game.over:
        for item in spec.values:
            # a value worked out from something this seat cannot see is not shown to it (model/secrecy.py)
            if not (secrecy.sight_of(rs, item.value, seat)[0]
                    and (item.when is None or secrecy.sight_of(rs, item.when, seat)[0])):
                continue
            if item.when is not None and not item.when.fn(game):
                continue
            v.now.append(_value(item.title, item.value.fn(game), game))
    v.effects = _effects(game, seat)
    v.turn = _turn(game)
    v.stack = stack_view(game)
    if d is not None and d.player == seat and not game.over:
        v.decision = decision_view(game, d)
    if game.over:
        v.end = _end(game)
    return v


def _holders(game) -> list[tuple[str, int]]:
    """(title, seat) for every public game variable with a title whose value is a player: who holds the
    initiative, who deals, who leads."""
    out = []
    for name, vd in game.rs.variables.items():
        value = game.vars.get(name)
        if vd.visibility == "public" and vd.title and isinstance(value, Player):
            title = vd.title.removeprefix("the ")
            out.append((title[:1].upper() + title[1:], value.seat))
    return out


def _effects(game, seat: int) -> list[ValueView]:
    """The modifiers in force (an Event's effect, a power's), in the ruleset's words (their `doc:`), with the
    players they reach ('everyone' for a modifier on the whole table); one the rules add for a reason this seat
    cannot see is left out while the game goes on, on another player or on this seat (model/secrecy.py's
    `modifier_seen`)."""
    reach: dict[str, list] = {}
    for name, on, value, _frame in game.modifiers:
        if value and (game.over or secrecy.modifier_seen(game.rs, name, seat, on)):
            reach.setdefault(name, []).append(on)
    out = []
    for name, seats in reach.items():
        md = game.rs.modifiers.get(name)
        title = (md.doc if md is not None and md.doc else _words(name)).rstrip(".")
        who = sorted({s for s in seats if s is not None})
        text = "everyone" if None in seats else ", ".join(game.players[s].name for s in who)
        out.append(ValueView(title, text, None if None in seats else who))
    return out


def _turn(game) -> Optional[TurnView]:
    """The turn order: the outermost running loop over two or more players (a round's turns), and whose turn."""
    for f in game.frames:
        for key, it in f.locals.items():
            if key.startswith("__each") and isinstance(it, list) and len(it) == 2 and isinstance(it[0], list) \
                    and len(it[0]) > 1 and all(isinstance(p, Player) for p in it[0]):
                order, i = it[0], it[1]
                seq = game.rs.sequences.get(f.seq)
                title = (seq.title if seq is not None and seq.title else _words(f.seq))
                return TurnView(title, [p.seat for p in order], order[i - 1].seat if i >= 1 else None)
    return None


def stack_view(game) -> Optional[StackView]:
    """The stack being played to or resolved, innermost first: its cards (an open zone) or entries."""
    for f in reversed(game.frames):
        for key, st in f.locals.items():
            if not (key.startswith("__stack") and isinstance(st, dict) and "order" in st):
                continue
            ins = next((i for i in game.programs[f.seq].code if i.op == "STACK_BEGIN" and i.extra == key), None)
            step = ins.arg if ins is not None else None
            cards: list[CardView] = []
            title = "The stack"
            if step is not None and getattr(step, "zone", None) is not None \
                    and not draws_chance(game.rs, step.zone.ast):  # looking must never change the game
                saved = game.locals
                try:
                    game.locals = f.locals
                    ref = step.zone.fn(game)
                except RuleError:
                    ref = None
                finally:
                    game.locals = saved
                if isinstance(ref, ZoneRef) and zone_sight(game, ref, -1) == ALL:
                    cards = [card_view(game, c) for c in game.zones.get(ref, [])]
                    title = zone_title(game, ref)
            entries = [say_value(e, game) for e in st.get("entries", ())]
            return StackView(title, cards, entries, [p.seat for p in st["order"] if isinstance(p, Player)])
    return None


def _end(game) -> EndView:
    from rulecraft.tools.table.scores import breakdown

    rows = breakdown(game)
    return EndView(list(game.winners or ()),
                   [{"seat": s, "name": name, "parts": [{"title": t, "points": p} for t, p in parts], "total": total}
                    for s, (name, parts, total) in enumerate(rows)])


def _refs(game, name: str) -> list[ZoneRef]:
    z = game.rs.zones[name]
    if z.per is None:
        return [ZoneRef(name)]
    return [ref for ref in game.zones if ref.zone == name]


def _default_table(game) -> list[str]:
    """Shared zones that hold cards now or whose faces are seen (an open discard pile, empty or not; a hidden pile
    the engine keeps for setup is empty and so not shown), then the public game variables that have a title (a
    variable without one is taken to be the engine's own)."""
    rs = game.rs
    out = [z.id for z in rs.zones.values()
           if z.per != "player" and (z.visibility in ("open", "top") and z.title
                                     or any(game.zones.get(ref) for ref in _refs(game, z.id)))]
    out += [k for k, vd in rs.variables.items() if vd.visibility == "public" and vd.title]
    return out


def _default_players(game) -> list[str]:
    rs = game.rs
    out = [z.id for z in rs.zones.values() if z.per == "player"]
    out += [k for k, vd in rs.player_variables.items() if vd.visibility != "hidden"]
    return out
