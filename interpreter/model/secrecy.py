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
from ..values import Card
from .reading import Read, Secrets, every_step, local_reads, secrets_of, seen_by

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


def sees_card(g: Any, card: Card, seat: int) -> bool:
    """Whether `seat` can tell which card `card` is where it lies now (its face, not its place among others)."""
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
    return card.index in shown(g, seat)


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
    tells that seat something: the answer is the decider's secret)."""
    others = [p.seat for p in g.players if p.seat != decider]
    if not others:
        return False
    for o in options:
        if type(o) is Card and any(not sees_card(g, o, s) for s in others):
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


_DECLINED: "weakref.WeakKeyDictionary[Any, tuple[dict, frozenset]]" = weakref.WeakKeyDictionary()


def _declined(rs: Any) -> tuple[dict, frozenset]:
    """The declines an `if` stands in for a decision it skips for a hidden reason (loader/choices.py's
    `declined_otherwise`): id(decline) -> that decision, and the ids of those decisions."""
    got = _DECLINED.get(rs)
    if got is None:
        pairs = {id(d): spec for d, spec in _declines(rs)}
        got = _DECLINED[rs] = (pairs, frozenset(id(spec) for spec in pairs.values()))
    return got


def told_as(rs: Any, spec: Any) -> Any:
    """The decision whose answers `spec`'s are told as: for the decline an `if` stands in for a decision it skips
    for a hidden reason, that decision; else `spec` itself. The decline's options read the `if`'s condition, the
    decision's may not: whether an answer of nothing is told in secret is the decision's, or a pass forced on those
    who may not choose would read otherwise than the pass of one who may."""
    return _declined(rs)[0].get(id(spec), spec)


def guarded(rs: Any, spec: Any) -> bool:
    """Whether `spec` is a decision an `if` asks only for a reason some seat cannot see, the others declining at once
    in its stead: whether it is asked at all is then hidden, as if its options read that reason (a forced answer of
    it reads to the others as chosen; no standing pass is taken of it where others watch)."""
    return id(spec) in _declined(rs)[1]


def _declines(rs: Any) -> Iterable[tuple[Any, Any]]:
    for step in every_step(rs):
        other = getattr(step, "other", ())
        if len(other) == 1 and other[0].path.endswith(".declined") and step.then:
            spec = getattr(step.then[0], "decision", None)
            if spec is not None:
                yield other[0].decision, spec


def reads_hidden_cards(reads: Iterable[Read]) -> bool:
    """Whether `reads` include the cards of a zone some seat cannot see (options drawn from a hand, a deck)."""
    return any(r.kind == "zone" for r in reads)


# ------------------------------------------------------------------ answers the rules lay face up

_OPENED: "weakref.WeakKeyDictionary[Any, frozenset]" = weakref.WeakKeyDictionary()


def answer_opened(rs: Any, spec: Any) -> bool:
    """Whether the rules lay a decision's answer face up at once: the step right after the one that asks moves the
    answer (its name) to a zone everyone sees (cards bid from a hand onto an open pile), or calls a sequence with it
    whose first step does. Such a choice is an open one: the others read what was chosen."""
    got = _OPENED.get(rs)
    if got is None:
        got = _OPENED[rs] = frozenset(_opened(rs))
    return id(told_as(rs, spec)) in got  # (the decline of a decision an `if` skips: as open as that decision)


def _opened(rs: Any) -> Iterable[int]:
    todo = [seq.steps for seq in rs.sequences.values()]
    while todo:
        steps = todo.pop()
        for i, step in enumerate(steps):
            run = getattr(step, "run", None)
            if isinstance(run, tuple):  # a construct: its expansion holds the steps that ask
                todo.append(run)
            todo.extend(body for _name, body in step.bodies)
            spec = getattr(step, "decision", None)
            if spec is not None and spec.bind and i + 1 < len(steps) and _lays_open(rs, steps[i + 1], spec.bind):
                yield id(spec)


def _lays_open(rs: Any, step: Any, name: str, depth: int = 0) -> bool:
    """Whether `step` moves the value named `name` to an open zone (or calls a sequence whose first step does)."""
    s = secrets_of(rs)
    for stmt in getattr(step, "stmts", ()):
        node = stmt.ast
        if isinstance(node, A.Move) and isinstance(node.what, A.Name) and node.what.id == name:
            z = s._zone(node.dest)
            if z is not None and z[1] == "open":
                return True
    seq = rs.sequences.get(getattr(step, "sequence", "") or "")
    if seq is not None and seq.steps and depth < 4:
        for param, value in getattr(step, "args", ()):
            if isinstance(value.ast, A.Name) and value.ast.id == name and _lays_open(rs, seq.steps[0], param, depth + 1):
                return True
    return False


# ------------------------------------------------------------------ a look at cards the others hear of

_QUIET: "weakref.WeakKeyDictionary[Any, tuple[frozenset, frozenset, tuple]]" = weakref.WeakKeyDictionary()
_ASKING: "weakref.WeakKeyDictionary[Any, frozenset]" = weakref.WeakKeyDictionary()


def show_told(rs: Any, span: Any) -> bool:
    """Whether the others are told of the `show` at `span` that it happened ("P2 looks at the role of P5"). Not when
    it is reached for a reason some seat cannot see (under an `if` or a loop whose condition reads a hidden role,
    in a sequence called from there), nor when whom it shows to, or which and how many cards, are worked out from
    something hidden (a secret answer, a hidden hand; the zone a whole zone's show names is told, its cards never):
    the line would tell them that reason. Those shown read the cards as ever; the others read nothing, as of a
    `tell`."""
    return span not in _quiet(rs)[0]


def header_told(rs: Any, sequence: str) -> bool:
    """Whether the table announces that a round or turn of `sequence` begins ("--- The spy's look: P3 ---"). Not when
    the sequence is called anywhere for a reason some seat cannot see, or with arguments worked out from something
    hidden (a secret answer): the announcement would tell that reason (decided per sequence, on the side of the
    secret)."""
    return sequence not in _quiet(rs)[1]


def loops_asking_for_hidden(rs: Any) -> tuple[Any, ...]:
    """The `for_each` steps whose list is worked out from something some seat cannot see and whose body asks a
    decision: the table asks only the players (or for the cards) the hidden condition keeps, so whom it asks tells
    everyone what the condition hid (checks: W328). An `if` is safe (the others decline in its stead), a loop not.
    The whole walk (`_quiet`, dear on a large ruleset) is made only where such a loop may be: one whose list is
    filtered (`[q for q in players if ...]`) or worked out by a function of the ruleset, and whose body asks."""
    if not any(_filtered(rs, step.iterable.ast) and _asks(rs, [step.body]) for step in every_step(rs)
               if hasattr(step, "body") and getattr(step, "var", "") and getattr(step, "iterable", None) is not None):
        return ()
    return _quiet(rs)[2]


def _filtered(rs: Any, node: Any) -> bool:
    return any((isinstance(n, A.Comprehension) and n.condition is not None)
               or (isinstance(n, A.Call) and n.func in rs.functions) for n in node.walk())


def _quiet(rs: Any) -> tuple[frozenset, frozenset, tuple]:
    """(the spans of the shows the others are not told of, the sequences whose start is not announced, the loops
    that ask for a hidden reason)."""
    got = _QUIET.get(rs)
    if got is None:
        shows: list = []
        sequences: set = set()
        loops: list = []
        _walk_quiet(rs, shows, sequences, loops)
        got = _QUIET[rs] = (frozenset(shows), frozenset(sequences), tuple(dict.fromkeys(loops)))
    return got


def _asks(rs: Any, bodies: list) -> bool:
    """Whether the steps of `bodies`, the steps inside them or a sequence they call, ask a decision."""
    asking, todo = _asking(rs), list(bodies)
    while todo:
        for step in todo.pop():
            if getattr(step, "decision", None) is not None or getattr(step, "play", None) is not None \
                    or (getattr(step, "sequence", "") or "") in asking:
                return True
            run = getattr(step, "run", None)
            if isinstance(run, tuple):
                todo.append(run)
            todo.extend(body for _name, body in step.bodies)
    return False


def _asking(rs: Any) -> frozenset:
    """The sequences that ask a decision, in their own steps or through a sequence they call: worked out once for the
    ruleset (each loop walked every sequence it called again: 8,000 loops calling one sequence of 8,000 steps, a
    ruleset of 1 MB, took 35 s of processor to load, session 17)."""
    got = _ASKING.get(rs)
    if got is None:
        direct: set = set()
        callers: dict[str, set] = {}
        for name, seq in rs.sequences.items():
            todo = [seq.steps]
            while todo:
                for step in todo.pop():
                    if getattr(step, "decision", None) is not None or getattr(step, "play", None) is not None:
                        direct.add(name)
                    called = getattr(step, "sequence", "") or ""
                    if isinstance(called, str) and called in rs.sequences:
                        callers.setdefault(called, set()).add(name)
                    run = getattr(step, "run", None)
                    if isinstance(run, tuple):
                        todo.append(run)
                    todo.extend(body for _name, body in step.bodies)
        asking, todo_names = set(direct), list(direct)
        while todo_names:
            for caller in callers.get(todo_names.pop(), ()):
                if caller not in asking:
                    asking.add(caller)
                    todo_names.append(caller)
        got = _ASKING[rs] = frozenset(asking)
    return got


def _walk_quiet(rs: Any, shows: list, sequences: set, loops: list) -> None:
    specs = [spec for step in every_step(rs) for spec in (getattr(step, "decision", None),) if spec is not None]
    s = Secrets(rs.zones, rs.variables, rs.player_variables, rs.functions)  # an answer told to all hides nothing
    s.locals = local_reads(rs, s, frozenset(id(x) for x in specs if x.secret is False or answer_opened(rs, x)))
    secret_names = {spec.bind for spec in specs if spec.bind and spec.secret}
    secret_names |= {step.bind for step in every_step(rs)
                     if getattr(step, "bind", None) and getattr(getattr(step, "decision", None), "secret", None)}

    def hidden(node: Any) -> bool:
        node = getattr(node, "ast", node)
        if node is None:
            return False
        if s.reads(node, local=True):
            return True
        return any(isinstance(n, A.Name) and n.id in secret_names for n in node.walk())

    def hidden_what(node: Any) -> bool:
        z = node.obj if isinstance(node, A.Attr) and node.name == "top" else node
        if s._zone(z) is None:  # cards worked out by an expression: which, and how many, may be hidden
            return hidden(node)
        parts: list = []
        s._inside(z, parts, (), s.locals)  # a zone named: who owns it, its key
        return bool(parts) or any(isinstance(n, A.Name) and n.id in secret_names for n in z.walk())

    todo = [(seq.steps, False) for seq in rs.sequences.values()]

    def called(name: str, quiet: bool, args: Iterable) -> None:
        if name not in rs.sequences:
            return
        if quiet or any(hidden(a) for a in args):
            sequences.add(name)
        if quiet and (name, True) not in seen:
            seen.add((name, True))
            todo.append((rs.sequences[name].steps, True))

    seen: set = set()
    while todo:
        steps, quiet = todo.pop()
        for step in steps:
            called(getattr(step, "sequence", "") or "", quiet, (v for _k, v in getattr(step, "args", ())))
            for stmt in getattr(step, "stmts", ()):
                for node in stmt.ast.walk():
                    if isinstance(node, A.Show) and (quiet or hidden(node.player) or hidden_what(node.what)):
                        shows.append(node.span)
                    elif isinstance(node, A.CallSeq):
                        called(node.sequence, quiet, (k.value for k in node.kwargs))
            run = getattr(step, "run", None)
            if isinstance(run, tuple):
                todo.append((run, quiet))
            over_hidden = hidden(getattr(step, "iterable", None))
            if over_hidden and hasattr(step, "body") and bool(getattr(step, "var", "")) and _asks(rs, [step.body]):
                loops.append(step)
            inner = quiet or hidden(getattr(step, "cond", None)) or over_hidden
            todo.extend((body, inner) for _name, body in step.bodies)
