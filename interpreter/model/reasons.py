"""What the rules do for a reason some seat cannot see: one walk of a ruleset's steps (`quiet`) that finds the shows
the others are not told of, the sequences whose start is not announced, the loops asking for a hidden reason, the
modifiers added for one and the logs told only for one. model/secrecy.py decides with it what a seat is told; see
docs/secrecy.md.
"""

from __future__ import annotations

import weakref
from typing import Any, Iterable

from ..dsl import ast as A
from .answers import _DECLINED, _OPENED, answer_opened
from .kinds import kind_of
from .reading import _SECRETS, Read, Secrets, every_step, local_reads
from .steps import _ASKING
from .steps import asks_decision as _asks

_QUIET: "weakref.WeakKeyDictionary[Any, tuple]" = weakref.WeakKeyDictionary()


def only_says(steps: Any) -> bool:
    """Whether the steps do nothing but say something (`log`, `tell`, `show`, `let`): nothing else tells the table what
    happened (a card moved, a player out, the game over), so a log among them is all that tells it."""
    return all(getattr(step, "stmts", None) and not getattr(step, "run", None) and not step.bodies for step in steps) \
        and all(isinstance(stmt.ast, (A.Log, A.Tell, A.Show, A.Let)) for step in steps for stmt in step.stmts)


def filtered(rs: Any, node: Any) -> bool:
    return any((isinstance(n, A.Comprehension) and n.condition is not None)
               or (isinstance(n, A.Call) and n.func in rs.functions) for n in node.walk())

def quiet(rs: Any) -> tuple[frozenset, frozenset, tuple, frozenset, tuple, frozenset]:
    """(the spans of the shows the others are not told of, the sequences whose start is not announced, the loops
    that ask for a hidden reason, the modifiers added or taken off for a hidden reason, the logs told for a hidden
    reason, those of the modifiers whose every hidden reason is the own things of the player they are put on). A
    condition reading such a modifier is itself a hidden reason: walked again until nothing changes."""
    got = _QUIET.get(rs)
    if got is None:
        mods: frozenset = frozenset()
        for _round in range(4):
            shows: list = []
            sequences: set = set()
            loops: list = []
            found: set = set()
            logs: list = []
            own: dict = {}
            _walk_quiet(rs, shows, sequences, loops, found, mods, logs, own)
            if found <= mods:
                break
            mods = mods | found
        got = _QUIET[rs] = (frozenset(shows), frozenset(sequences), tuple(dict.fromkeys(loops)), mods,
                            tuple(dict.fromkeys(logs)), frozenset(m for m, yes in own.items() if yes))
    return got

class _Draft:
    """What the walk reads of a ruleset being loaded (its declarations and steps, before the whole is made)."""

    def __init__(self, **parts: Any):
        self.__dict__.update(parts)


def hidden_modifiers_of(**parts: Any) -> tuple[frozenset, Any]:
    """`hidden_modifiers` of a ruleset being loaded (loader/build.py): its steps are built again knowing them, so that
    an `if` whose condition reads one (`modifier('charmed', p) > 0`) is one some seat cannot see. And the draft the
    walk was made on, for `carried`."""
    draft = _Draft(**parts)
    return quiet(draft)[3], draft


_PARTS = ("zones", "variables", "player_variables", "sequences", "triggers", "dice", "modifiers")


def carried(draft: Any, rs: Any) -> None:
    """What the walks found of the draft (`quiet`, and what it asked on the way: model/answers.py, reading.py,
    steps.py), kept for the ruleset made of the very same parts (no modifier was hidden, so its steps were not built
    again): the checks ask `quiet` of the ruleset, which walked its steps once more for the same answer (the longest
    bundled ruleset: a tenth of its load). Whatever differs (another object, other functions), nothing is carried."""
    if any(getattr(draft, k) is not getattr(rs, k) for k in _PARTS) or draft.functions != rs.functions:
        return
    for cache in (_QUIET, _DECLINED, _OPENED, _SECRETS, _ASKING):
        got = cache.get(draft)
        if got is not None and rs not in cache:
            cache[rs] = got


def _walk_quiet(rs: Any, shows: list, sequences: set, loops: list, mods: set, hid: frozenset, logs: list,
                own: dict) -> None:
    specs = [spec for step in every_step(rs) for spec in (getattr(step, "decision", None),) if spec is not None]
    s = Secrets(rs.zones, rs.variables, rs.player_variables, rs.functions)  # an answer told to all hides nothing
    s.modifiers = hid
    s.locals = local_reads(rs, s, frozenset(id(x) for x in specs if x.secret is False or answer_opened(rs, x)))
    secret_names = {spec.bind for spec in specs if spec.bind and spec.secret}
    secret_names |= {step.bind for step in every_step(rs)
                     if getattr(step, "bind", None) and getattr(getattr(step, "decision", None), "secret", None)}

    def hidden(node: Any, names: frozenset = frozenset()) -> bool:
        node = getattr(node, "ast", node)
        if node is None:
            return False
        if s.reads(node, local=True):
            return True
        return any(isinstance(n, A.Name) and (n.id in secret_names or n.id in names) for n in node.walk())

    def hidden_what(node: Any, names: frozenset) -> bool:
        z = node.obj if isinstance(node, A.Attr) and node.name == "top" else node
        if s._zone(z) is None:  # cards worked out by an expression: which, and how many, may be hidden
            return hidden(node, names)
        parts: list = []
        s._inside(z, parts, (), s.locals)  # a zone named: who owns it, its key
        return bool(parts) or any(isinstance(n, A.Name) and (n.id in secret_names or n.id in names) for n in z.walk())

    def named(node: Any, names: frozenset) -> bool:  # a secret answer's name or a hidden event field in it
        node = getattr(node, "ast", node)
        return node is not None and any(isinstance(n, A.Name) and (n.id in secret_names or n.id in names)
                                        for n in node.walk())

    def own_reason(node: Any, why: Any, names: frozenset) -> bool:
        """Whether the modifier `node` adds is put, for a hidden reason, on a player named `X` whose own things (read
        through `X`: their hand, an `owner` variable) are all that reason reads: then X sees why, and may see it."""
        target, value = node.target, getattr(node, "value", None)
        who = _whose(target)
        if why is None or who is None or named(target, names) or named(value, names):
            return False
        reads = (*why, *s.reads(target, local=True), *(s.reads(value, local=True) if value is not None else ()))
        return all(r.visibility in ("owner", "owner_contents") and r.via == who for r in reads)

    none: frozenset = frozenset()
    todo: list = [(seq.steps, False, none, ()) for seq in rs.sequences.values()]
    fields = event_fields(rs, hidden)

    def called(name: str, quiet: bool, args: Iterable, names: frozenset = none, why: Any = None) -> None:
        if name not in rs.sequences:
            return
        if quiet or any(hidden(a, names) for a in args):
            sequences.add(name)
        if quiet and (name, True, why) not in seen:
            seen.add((name, True, why))
            todo.append((rs.sequences[name].steps, True, none, why))

    def fired(event: str, quiet: bool) -> None:
        """A trigger on `event` runs its sequence for a hidden reason when its `when` reads one (an event field that
        may name a hidden card, roll or value among them), or when the event is caused for one."""
        for t in rs.triggers:
            if t.on == event and t.run in rs.sequences:
                names = frozenset(fields.get(event, ())) & frozenset(rs.sequences[t.run].params)
                if (t.run, names) not in seen:  # (its event fields, hidden ones passed as parameters)
                    seen.add((t.run, names))
                    todo.append((rs.sequences[t.run].steps, False, names, ()))
                hid = hidden(t.when, frozenset(fields.get(event, ())))
                called(t.run, quiet or hid, (), why=None if quiet or not hid else card_seen(t, event))

    def card_seen(t: Any, event: str) -> Any:
        """What the hidden reason of a trigger's run reads, when it is the event's card alone, as the seat that sees
        it: the owner of the zone it came to (`owner(dest)`, the sequence's parameter), where every zone the event
        may bring a card to shows it to its owner (a hand: the drawer) or to everyone; else None (not known)."""
        if event not in sights or sights[event] is None or "dest" not in rs.sequences[t.run].params \
                or hidden(t.when) or not {n.id for n in t.when.ast.walk() if isinstance(n, A.Name)} & {"card"}:
            return None
        return tuple(Read("zone", z, vis, "owner(dest)") for z, vis in sights[event])

    sights = _destinations(rs, s)

    seen: set = set()
    for event in {t.on for t in rs.triggers}:
        fired(event, False)
    while todo:
        steps, quiet, names, why = todo.pop()  # why: what the hidden reasons it is reached for read, None: not known
        for step in steps:
            called(getattr(step, "sequence", "") or "", quiet, (v for _k, v in getattr(step, "args", ())), names)
            if quiet:  # the events its own instruction raises (a stack's cards moved, a sealed step's reveal)
                for event in getattr(kind_of(step), "raises", ()):
                    fired(event, True)
            for stmt in getattr(step, "stmts", ()):
                for node in stmt.ast.walk():
                    if isinstance(node, A.Show) and (quiet or hidden(node.player, names)
                                                     or hidden_what(node.what, names)):
                        shows.append(node.span)
                    elif isinstance(node, A.CallSeq):
                        called(node.sequence, quiet, (k.value for k in node.kwargs), names)
                    elif isinstance(node, (A.AddModifier, A.RemoveModifier)) and (
                            quiet or hidden(node.target, names) or hidden(getattr(node, "value", None), names)):
                        mods.add(node.modifier)
                        own[node.modifier] = own.get(node.modifier, True) and own_reason(node, why, names)
                    if quiet and isinstance(node, A.Stmt):
                        for event in _CAUSES.get(type(node), ()) or ((node.event,) if isinstance(node, A.Emit) else ()):
                            fired(event, True)
            run = getattr(step, "run", None)
            if isinstance(run, tuple):
                todo.append((run, quiet, names, why))
            over_hidden = hidden(getattr(step, "iterable", None), names)
            if over_hidden and hasattr(step, "body") and bool(getattr(step, "var", "")) and _asks(rs, [step.body]):
                loops.append(step)
            cond_hidden = hidden(getattr(step, "cond", None), names)
            if cond_hidden and not getattr(step, "other", True) and only_says(step.then):
                logs.extend(n.span for st in step.then for stmt in getattr(st, "stmts", ())
                            for n in stmt.ast.walk() if isinstance(n, A.Log))
            inner = quiet or cond_hidden or over_hidden
            cond = getattr(step, "cond", None)
            because = None if why is None or over_hidden or (cond_hidden and named(cond, names)) else \
                (*why, *s.reads(cond, local=True)) if cond_hidden else why
            todo.extend((body, inner, names, because) for _name, body in step.bodies)


def _whose(target: Any) -> Any:
    """The words a modifier's target names its player by: `p`, or `owner(dest)` (the owner of a zone named so)."""
    if isinstance(target, A.Name):
        return target.id
    if isinstance(target, A.Call) and target.func == "owner" and len(target.args) == 1 \
            and isinstance(target.args[0], A.Name) and not target.kwargs:
        return f"owner({target.args[0].id})"
    return None


def _destinations(rs: Any, s: Secrets) -> dict[str, Any]:
    """For the events that bring a card to a zone (`drawn`, `moved`): the zones the ruleset may bring one to that some
    seat cannot see, with their visibility, when each shows its cards to its owner (`owner`, `owner_contents`) or to
    everyone; None when one hides them from its owner too (a `hidden` pile: nobody sees the card), or is not known."""
    zones: dict[str, Any] = {"drawn": set(), "moved": set()}  # (both events in one walk of the steps)
    for step in every_step(rs):
        for stmt in getattr(step, "stmts", ()):
            for node in stmt.ast.walk():
                if not isinstance(node, (A.Draw, A.Move)) or node.dest is None:
                    continue
                events = ("drawn", "moved") if isinstance(node, A.Draw) else ("moved",)
                if all(zones[e] is None for e in events):
                    continue
                z = s._zone(node.dest)
                for e in events:
                    if zones[e] is None:
                        continue
                    if z is None or z[1] not in ("open", "contents", "owner", "owner_contents"):
                        zones[e] = None
                    elif z[1] in ("owner", "owner_contents"):
                        zones[e].add((z[0], z[1]))
    return {e: None if got is None else tuple(sorted(got)) for e, got in zones.items()}


_CAUSES = {A.Move: ("moved", "revealed"), A.Draw: ("drawn", "moved", "revealed"), A.Shuffle: ("shuffled",),
           A.Roll: ("rolled",)}


def event_fields(rs: Any, hidden: Any) -> dict[str, set]:
    """The fields of each event that may name something some seat cannot see: the card drawn or moved (when some
    zone hides its cards), the roll (when some dice are not open), a field an `emit` passes worked out from
    something hidden."""
    out: dict[str, set] = {}
    if any(z.visibility not in ("open", "contents") for z in rs.zones.values()):
        out["drawn"] = out["moved"] = {"card"}
    if any(d.visibility != "open" for d in rs.dice.values()):
        out["rolled"] = {"roll"}
    for step in every_step(rs):
        for stmt in getattr(step, "stmts", ()):
            for node in stmt.ast.walk():
                if isinstance(node, A.Emit):
                    out.setdefault(node.event, set()).update(k.name for k in node.kwargs if hidden(k.value))
    return out
