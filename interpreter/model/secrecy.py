"""What a seat may see, and why: the one rule every reader of a game calls.

Two halves, one rule. **Where things lie**: a card is seen by a seat when its zone shows it to that seat (`open`
to all, `owner` to its owner, `top` its top card to all; `hidden` and `count` show a count only); a variable when
it is `public`, a player variable declared `owner` by its player only. **What a value is computed from**: a value
the rules work out (a decision's options, a bid's limit, a score) tells a seat nothing hidden when the expression
reads nothing that seat cannot see (`reads` lists what it reads that some seat cannot, following the ruleset's
functions; how many cards a zone holds is seen by everyone). It is decided from the expression, never by trying
other deals, so that what a seat is shown cannot hint at what it is not.

The story (runtime/decisions.py, machine/questions.py), a seat's view (`Game.view`, the table's seat view), undo
(what a seat saw since), the score shown at the table and the bots' determinization all ask here. See
docs/secrecy.md.
"""

from __future__ import annotations

import weakref
from typing import Any, Iterable, Mapping, Optional

from ..dsl import ast as A
from ..values import Card, Player
from .answers import answer_opened, guarded, sealed_face_down, secret_of, told_as
from .homes import home_groups
from .reasons import event_fields, filtered, hidden_modifiers_of, quiet
from .reading import Read, Secrets, every_step, local_reads, seat_named, seen_by
from .reading import secrets_of as _reading_secrets
from .steps import asks_decision as _asks

__all__ = ["answer_opened", "guarded", "hidden_modifiers_of", "home_groups", "sealed_face_down", "secret_of",
           "told_as"]  # (model/answers.py, model/reasons.py, model/homes.py: asked through here)

# ------------------------------------------------------------------ where things lie

ALL, TOP, COUNT = "all", "top", "count"  # what a seat sees of a zone: every card, the top card, the count
CONTENTS = "contents"  # which cards the zone holds, not their order (zone visibilities contents, owner_contents)


def zone_sight(g: Any, ref: Any, seat: int) -> str:
    """What `seat` sees of the zone `ref` in game `g`: ALL its cards in order, its TOP card, its CONTENTS (which cards,
    not their order) or its COUNT only. Cards the seat was shown (`shown`) are known besides."""
    vis = g.rs.zones[ref.zone].visibility
    if vis == "open":
        return ALL
    if vis == "owner" or vis == "owner_contents":
        owner = g.zone_owner(ref)
        if owner is not None and owner.seat == seat:
            return ALL if vis == "owner" else CONTENTS
        return COUNT
    if vis == "contents":
        return CONTENTS
    return TOP if vis == "top" else COUNT


def shown(g: Any, seat: int) -> dict[int, bool]:
    """The cards (by index) `seat` was shown (`show CARDS to PLAYER`, a `tell` naming them: the record `g.known`)
    that are still where it saw them: index -> whether it knows the place (False: it knows the card lies in that
    zone, not where: the zone was shuffled since)."""
    mine = getattr(g, "known", None)
    mine = mine.get(seat) if mine else None
    if not mine:
        return {}
    where = g.where
    return {i: exact for i, (ref, exact) in mine.items() if where.get(i) == ref}


def sees_card(g: Any, card: Card, seat: int, told: bool = True) -> bool:
    """Whether `seat` can tell which card `card` is where it lies now (its face, not its place among others); not
    `told`: by where it lies alone, not by what the seat was shown."""
    ref = g.where.get(card.index)
    if ref is None:
        return True
    sight = zone_sight(g, ref, seat)
    if sight == ALL or sight == CONTENTS:
        return True
    if sight == TOP:
        cards = g.zones[ref]
        if cards and cards[-1] is card:
            return True
    return told and card.index in shown(g, seat)


def cards_seen(g: Any, seat: int) -> set[int]:
    """The cards (by index) whose face `seat` sees now (or whose contents it knows, or was shown)."""
    out: set[int] = set(shown(g, seat))
    for ref, cards in g.zones.items():
        sight = zone_sight(g, ref, seat)
        if sight == ALL or sight == CONTENTS:
            out.update(c.index for c in cards)
        elif sight == TOP and cards:
            out.add(cards[-1].index)
    return out


def sees_variable(rs: Any, name: str, seat: int) -> bool:
    """Whether `seat` sees the game variable `name` (a `hidden` one nobody sees)."""
    return rs.variables[name].visibility != "hidden"


def sees_player_variable(rs: Any, name: str, seat: int, owner: int) -> bool:
    """Whether `seat` sees the player variable `name` of the player at `owner`."""
    vis = rs.player_variables[name].visibility
    return vis == "public" or (vis == "owner" and seat == owner)


def hidden_from_others(g: Any, decider: int, options: Iterable) -> bool:
    """Whether some option is a card that a seat other than `decider` cannot see where it lies (choosing it then
    tells that seat something: the answer is the decider's secret). A card a seat was shown but whose place it no
    longer knows (the pile shuffled since) is one it cannot see there: it would not know which card was taken."""
    others = [p.seat for p in g.players if p.seat != decider]
    if not others:
        return False
    for o in options:
        if type(o) is Card and any(not sees_card(g, o, s, False) and not shown(g, s).get(o.index) for s in others):
            return True
    return False


# ------------------------------------------------------------------ what a value is computed from (model/reading.py)

def sight_of(rs: Any, expr: Any, seat: int, who: Optional[Mapping[str, int]] = None) -> tuple[bool, tuple[str, ...]]:
    """What `seat` may see of the value of `expr` (a compiled expression or its AST), and why: (True, ()) when it
    reads nothing that seat cannot see, else (False, what it reads that the seat cannot see, in words). `who` gives
    the seat each player name in it stands for (`{"p": 2}`: `p` is the player at seat 2)."""
    who = who or {}
    hidden = [r for r in secrets_of(rs).reads(expr) if not seen_by((r,), seat, who)]
    return not hidden, tuple(r.why() for r in hidden)


def score_seen(rs: Any, seat: int, of: int) -> bool:
    """Whether `seat` may be told the score of the player at `of` while the game goes on: the score reads nothing
    `seat` cannot see (the scored player is `p`)."""
    score = rs.scoring.score if rs.scoring is not None else None
    return score is not None and sight_of(rs, score, seat, {"p": of})[0]


def decision_reads(rs: Any, spec: Any) -> tuple[Read, ...]:
    """What decides the legal answers of a decision (its options, bounds, amounts) that some seat cannot see: when
    it reads something, whether the decider has a choice, and which, is for the decider alone."""
    s = secrets_of(rs)
    parts = [spec.options, spec.min, spec.max, *(spec.amounts or ())]
    return tuple(dict.fromkeys(r for e in parts if e is not None for r in s.reads(e, local=True)))


def reads_hidden_cards(reads: Iterable[Read]) -> bool:
    """Whether `reads` include the cards of a zone some seat cannot see (options drawn from a hand, a deck)."""
    return any(r.kind == "zone" for r in reads)


# ------------------------------------------------------------------ a log's own words

_LOGS: "weakref.WeakKeyDictionary[Any, dict]" = weakref.WeakKeyDictionary()


def log_fields(rs: Any, message: Any) -> tuple[Any, ...]:
    """For each part of a log's text (its `{field}`s; a whole expression logged is one part), what decides who reads it:
    the name of the card it names (`got` of `{got}`, `{got.name}`) when that name is given cards some seat cannot see
    anywhere in the ruleset (a `draw ... as got` from a hidden deck, a decision's answer among a hidden hand's cards, a
    `let` of them); for a value worked out from the cards of a zone some seat cannot see (`{count(mine)}` for the gems
    of a hidden hand kept under `mine`, a `sum` of its values), what it reads of them (`Read`s of kind 'zone': how many
    cards a zone holds reads none); else None (told as written). Worked out once per log."""
    memo = _LOGS.get(rs)
    if memo is None:
        memo = _LOGS[rs] = {}
    got = memo.get(id(message))
    if got is None or got[0] is not message:
        s = secrets_of(rs)

        def holder(p: Any) -> Any:
            q = p.obj if isinstance(p, A.Attr) else p
            if isinstance(q, A.Name) and any(r.kind == "zone" for r in s.locals.get(q.id, ())):
                return q.id
            zones = tuple(r for r in s.reads(p, local=True) if r.kind == "zone")
            if not zones:
                return None
            names = tuple(dict.fromkeys(n.id for n in p.walk() if isinstance(n, A.Name)
                                        and any(r.kind == "zone" for r in s.locals.get(n.id, ()))))
            sources = frozenset(r.name for n in names for r in s.locals.get(n, ()) if r.kind == "zone")
            return (names, tuple(r for r in s.reads(p) if r.kind == "zone"),  # (what it reads itself)
                    sources if names and _counts_only(p, frozenset(names)) else None)

        got = memo[id(message)] = (message, tuple(None if isinstance(p, str) else holder(p)
                                                  for p in (message.parts if isinstance(message, A.Str) else (message,))))
    return got[1]


def log_readers(g: Any, fields: tuple) -> tuple[Optional[frozenset], tuple[bool, ...]]:
    """(the seats that read a log in full, None for every seat; for each part, whether it is read by every seat). A log
    is the rules' own words, told as written: a value they keep hidden in a variable or under a cup, logged, is their
    reveal ('Trumps were hearts', a cup lifted). But a field naming a card the rules keep under a name (from
    `log_fields`) is read in full only by the seats that see that card where it lies when the log is told (laid face
    up, in their own hand, shown to every seat; not by having been shown it alone: which card of a hand its holder
    chose is theirs): '{p} draws {got}' tells the drawer alone which card; the others read '…' in its place. Such a name
    holding a list with no card in it (a choice of nothing among a hand's gems) is read in full by nobody: that nothing
    is there is hidden too. A value worked out from the cards of a zone is read by the seats that see every card the
    zone holds when the log is told (its owner's own hand, a hand laid open or shown to them: 'P2 holds … gems')."""
    seats = [p.seat for p in g.players]
    everyone = frozenset(seats)
    each = [everyone if f is None else _field_readers(g, f, seats) for f in fields]
    full = everyone.intersection(*each)
    return (None if full == everyone else full), tuple(r == everyone for r in each)


def _field_readers(g: Any, field: Any, seats: list) -> frozenset:
    loc = g.locals
    if isinstance(field, str):  # a card kept under a name
        v = loc.get(field)
        if isinstance(v, list) and not any(isinstance(c, Card) for c in v):
            return frozenset()
        if isinstance(v, (int, float)) and not isinstance(v, bool):  # a number worked out from hidden cards, kept
            field = ((field,), (), None)  # under a name: read as such a number (session 19: told to every seat)
        else:
            kept = [v] if isinstance(v, Card) else [c for c in v if isinstance(c, Card)] if isinstance(v, list) else []
            kept = [c for c in kept if not all(sees_card(g, c, s) for s in seats)]  # (known to all)
            return frozenset(s for s in seats if all(sees_card(g, c, s, False) for c in kept))
    names, zones, counted = field  # a value worked out from cards: those its names hold, the zones it reads itself
    cards: list = []
    for name in names:
        v = loc.get(name)
        if isinstance(v, Card) or (isinstance(v, list) and v and all(isinstance(c, Card) for c in v)):
            cards += [v] if isinstance(v, Card) else v
        elif isinstance(v, (int, float, list)) and not isinstance(v, bool):  # a number worked out from hidden cards
            zones += tuple(r for r in secrets_of(g.rs).locals.get(name, ()) if r.kind == "zone")
    if counted is not None and cards and zones == () and not any(
            getattr(g.where.get(c.index), "zone", None) in counted for c in cards):
        return frozenset(seats)  # how many cards the rules moved out of where they took them: every seat counted them
    for r in zones:  # (a player's own zone when reached through a name for that player)
        who = loc.get(r.via) if r.via else None
        key = who.seat if isinstance(who, Player) else seat_named(r.via)
        cards += [c for ref, held in g.zones.items() if ref.zone == r.name and (key is None or ref.key == key)
                  for c in held]
    return frozenset(s for s in seats if all(sees_card(g, c, s) for c in cards))



def _counts_only(node: Any, names: frozenset) -> bool:
    """Whether the value reads the cards kept under `names` only for how many they are (`count(eggs)`)."""
    inside: set = set()
    for n in node.walk():
        if isinstance(n, A.Call) and n.func in ("count", "empty") and len(n.args) == 1 and isinstance(n.args[0], A.Name):
            inside.add(id(n.args[0]))
        elif isinstance(n, A.Attr) and n.name in ("count", "empty", "size") and isinstance(n.obj, A.Name):
            inside.add(id(n.obj))
    return all(id(n) in inside for n in node.walk() if isinstance(n, A.Name) and n.id in names)


# ------------------------------------------------------------------ a look at cards the others hear of

def show_told(rs: Any, span: Any) -> bool:
    """Whether the others are told of the `show` at `span` that it happened ("P2 looks at the role of P5"). Not when
    it is reached for a reason some seat cannot see (under an `if` or a loop whose condition reads a hidden role,
    in a sequence called from there), nor when whom it shows to, or which and how many cards, are worked out from
    something hidden (a secret answer, a hidden hand; the zone a whole zone's show names is told, its cards never):
    the line would tell them that reason. Those shown read the cards as ever; the others read nothing, as of a
    `tell`."""
    return span not in quiet(rs)[0]


def header_told(rs: Any, sequence: str) -> bool:
    """Whether the table announces that a round or turn of `sequence` begins ("--- The spy's look: P3 ---"). Not when
    the sequence is called anywhere for a reason some seat cannot see, or with arguments worked out from something
    hidden (a secret answer): the announcement would tell that reason (decided per sequence, on the side of the
    secret)."""
    return sequence not in quiet(rs)[1]


def loops_asking_for_hidden(rs: Any) -> tuple[Any, ...]:
    """The `for_each` steps whose list is worked out from something some seat cannot see and whose body asks a
    decision: the table asks only the players (or for the cards) the hidden condition keeps, so whom it asks tells
    everyone what the condition hid (checks: W328). An `if` is safe (the others decline in its stead), a loop not.
    The whole walk (`quiet` in model/reasons.py, dear on a large ruleset) is made only where such a loop may be: one whose list is
    filtered (`[q for q in players if ...]`) or worked out by a function of the ruleset, and whose body asks."""
    if not any(filtered(rs, step.iterable.ast) and _asks(rs, [step.body]) for step in every_step(rs)
               if hasattr(step, "body") and getattr(step, "var", "") and getattr(step, "iterable", None) is not None):
        return ()
    return quiet(rs)[2]


def triggers_asking_for_hidden(rs: Any) -> tuple[Any, ...]:
    """The triggers whose `when` reads something some seat cannot see (an event field that may name a hidden card
    among them: `card is curse` on `drawn`) and whose sequence asks a decision: the table asks it only when the
    hidden condition holds, so whom it asks tells everyone what the condition hid (checks: W330)."""
    asking = [t for t in rs.triggers if t.when is not None and t.run in rs.sequences
              and _asks(rs, [rs.sequences[t.run].steps]) and not _told_first(rs, rs.sequences[t.run].steps)]
    if not asking:
        return ()
    s = secrets_of(rs)
    fields = event_fields(rs, lambda node: bool(s.reads(node, local=True)))
    return tuple(t for t in asking if s.reads(t.when, local=True)
                 or any(isinstance(n, A.Name) and n.id in fields.get(t.on, ()) for n in t.when.ast.walk()))


def logs_told_for_hidden(rs: Any) -> tuple[Any, ...]:
    """The spans of the `log`s (a `because:` among them) in the `then` of an `if` whose condition reads something some
    seat cannot see, with no `else`, where the `then` lays no card face up: a log is the rules' own words, told to
    everyone as written, so that it is told at all tells what the condition hid (checks: W331; `tell` says it to one
    player). An `if` telling either way (a challenge settled by the card: `else` says the other) is the rules' reveal."""
    return quiet(rs)[4]


def _told_first(rs: Any, steps: Any) -> bool:
    """Whether the steps tell everyone what happened before they ask anything: a `log` (the rules' own words, told to
    all), or a card laid in an open zone, in a step before the first that asks."""
    s = _reading_secrets(rs)
    for step in steps:
        if _asks(rs, [[step]]):
            return False
        for stmt in getattr(step, "stmts", ()):
            for node in stmt.ast.walk():
                if isinstance(node, A.Log) or (isinstance(node, A.Move) and (s._zone(node.dest) or ("", ""))[1] == "open"):
                    return True
    return False


def hidden_modifiers(rs: Any) -> frozenset:
    """The modifiers the rules add (or take off) for a reason some seat cannot see: under an `if` or a loop whose
    condition reads something hidden, in a sequence called from there or run by a trigger whose `when` does, or on
    a player, or of a value, worked out from something hidden. Such a modifier is listed among the effects in force
    to nobody while the game goes on, and a value reading it (`modifier('blessed', p)`) reads something hidden."""
    return quiet(rs)[3] if rs.modifiers else frozenset()


def modifier_seen(rs: Any, name: str, seat: int, on: Optional[int] = None) -> bool:
    """Whether `seat` may be shown that the modifier `name` is in force on the player at seat `on` (None: on the whole
    table), with its words: one added for a reason some seat cannot see only by the player it is on, and only when
    every such reason reads nothing but that player's own things (their hand, an `owner` variable, read through the
    name the modifier is put on: `if: "any([c is spy for c in p.role])"` then `add modifier marked to p`)."""
    return name not in hidden_modifiers(rs) or (on is not None and on == seat and name in quiet(rs)[5])


_FILLED: "weakref.WeakKeyDictionary[Any, Secrets]" = weakref.WeakKeyDictionary()


def secrets_of(rs: Any) -> Secrets:
    """The ruleset's `Secrets` (model/reading.py's) with the modifiers added for a hidden reason among what it
    hides, filled once."""
    s = _FILLED.get(rs)
    if s is None:
        s = _reading_secrets(rs)
        mods = hidden_modifiers(rs)
        if mods:
            s.modifiers, s.own = mods, quiet(rs)[5]
            s._memo.clear()
            s.locals = local_reads(rs, s)
        _FILLED[rs] = s
    return s
