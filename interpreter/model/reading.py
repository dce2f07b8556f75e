"""What a value the rules work out is computed from: the static reading of an expression that lists what it reads
that some seat cannot see (hidden zones, hidden variables, player variables seen by their owner only), following
the ruleset's functions and local names. model/secrecy.py decides with it what a seat may be told (`sight_of`).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, fields
from typing import Any, Iterable, Mapping, Optional

from ..dsl import ast as A

@dataclass(frozen=True)
class Read:
    """Something an expression reads that some seat cannot see: a zone's cards ('zone'), a game variable
    ('variable'), a player variable ('player_variable'), a roll of dice whose faces are not open ('roll', through
    the local name it was kept under), a modifier the rules add for a reason some seat cannot see ('modifier') or
    a field of an event that may name a hidden card or roll ('event'), with its visibility; `via` is the name the player
    whose own thing it is was reached through (`p` in `p.hand`), when it is seen by its owner only."""

    kind: str
    name: str
    visibility: str
    via: Optional[str] = None

    def why(self) -> str:
        what = {"zone": "the cards of", "variable": "the variable", "player_variable": "the player variable",
                "roll": "a roll of",
                "modifier": "the modifier", "event": "the event field"}[self.kind]
        whose = f" of {self.via}" if self.via else ""
        return f"{what} '{self.name}'{whose} ({self.visibility})"


class Secrets:
    """What a ruleset hides, as the static reading needs it: zone, variable and player-variable visibilities and the
    ruleset's functions (name -> (params, body AST)). Built from the model (`secrets_of`) or, while loading, from
    the declarations read so far."""

    def __init__(self, zones: Mapping[str, Any], variables: Mapping[str, Any], player_variables: Mapping[str, Any],
                 functions: Mapping[str, tuple]):
        self.zones = {k: (z.visibility, z.per) for k, z in zones.items()}
        self.variables = {k: v.visibility for k, v in variables.items()}
        self.player_variables = {k: v.visibility for k, v in player_variables.items()}
        self.functions = functions
        self.modifiers: frozenset = frozenset()  # the modifiers added for a hidden reason (model/secrecy.py fills it)
        self.own: frozenset = frozenset()  # ... those of them seen by the player they are on (model/secrecy.py)
        self.locals: dict[str, tuple] = {}  # local name -> what its values are worked out from (see `local_reads`)
        self._values = False  # reading only what a value is made of, not what picks it (see `local_reads`)
        self._memo: dict = {}

    def reads(self, node: Any, local: bool = False) -> tuple[Read, ...]:
        """What `node` (an expression's AST, or a compiled expression) reads that some seat cannot see; `local`: a
        local name reads what any value given it in the ruleset is worked out from (a step's expression)."""
        node = getattr(node, "ast", node)
        if node is None:
            return ()
        key = (id(node), local)
        got = self._memo.get(key)
        if got is None or got[0] is not node:
            out: list[Read] = []
            self._walk(node, out, (), self.locals if local else None)
            got = self._memo[key] = (node, tuple(dict.fromkeys(out)))
        return got[1]

    # -------------------------------------------------------------- the walk
    def _zone(self, node: Any) -> Optional[tuple[str, str, Optional[str]]]:
        """(zone id, visibility, via) when `node` names a zone or a family of zones (`deck`, `p.hand`, `stocks[k]`)."""
        if isinstance(node, A.Name) and node.id in self.zones:
            return node.id, self.zones[node.id][0], None
        if isinstance(node, A.Attr) and node.name in self.zones and self.zones[node.name][1] == "player":
            return node.name, self.zones[node.name][0], via_of(node.obj)
        if isinstance(node, A.Index):
            return self._zone(node.obj)
        return None

    def _walk(self, node: Any, out: list, calls: tuple, lc: Optional[dict] = None) -> None:
        if isinstance(node, tuple):
            for x in node:
                self._walk(x, out, calls, lc)
            return
        if not isinstance(node, A.Node):
            return
        cls = node.__class__
        if cls is A.Comprehension and (self._values or (lc and node.var in lc)):  # its own name, not the local's
            self._walk(node.iterable, out, calls, lc)
            inner = {k: v for k, v in lc.items() if k != node.var} if lc else lc
            self._walk(node.element if self._values else (node.element, node.condition), out, calls, inner)
            return
        if cls is A.Ternary and self._values:
            self._walk((node.then, node.other), out, calls, lc)
            return
        if cls is A.Name and lc and node.id in lc:
            out.extend(lc[node.id])
        if cls is A.Call:
            if node.func in ("count", "empty") and len(node.args) == 1 and not node.kwargs \
                    and self._zone(node.args[0]) is not None:
                self._inside(node.args[0], out, calls, lc)  # how many cards a zone holds: everyone sees it
                return
            if node.func == "keys" and len(node.args) == 1 and isinstance(node.args[0], A.Name) \
                    and self._zone(node.args[0]) is not None:
                return  # the keys of a family of zones (`keys(markets)`): their names, which everyone sees
            if node.func == "top" and len(node.args) == 1 and self._zone(node.args[0]) is not None \
                    and self._zone(node.args[0])[1] == "top":
                self._inside(node.args[0], out, calls, lc)
                return
            if node.func == "modifier" and self.modifiers and node.args:  # one added for a hidden reason
                m = node.args[0]
                m = m.id if isinstance(m, A.Name) else "".join(map(str, m.parts)) if isinstance(m, A.Str) else None
                on = node.args[1] if len(node.args) > 1 else None
                if m in self.modifiers:  # (seen by the player it is on, when its reasons are theirs: `own`)
                    own = m in self.own and isinstance(on, A.Name)
                    out.append(Read("modifier", m, "owner" if own else "hidden", on.id if own else None))
            fd = self.functions.get(node.func)
            if fd is not None:
                self._call(node, fd, out, calls)
        elif cls is A.Attr:
            z = self._zone(node.obj)
            if z is not None and (node.name in ("count", "empty", "size") or (node.name == "top" and z[1] == "top")):
                self._inside(node.obj, out, calls, lc)
                return
            if node.name in self.player_variables:
                vis = self.player_variables[node.name]
                if vis != "public":
                    via = via_of(node.obj) if vis == "owner" else None
                    out.append(Read("player_variable", node.name, vis, via))
        if cls is A.Name or cls is A.Attr or cls is A.Index:
            z = self._zone(node)
            # a zone whose contents are known (contents: to all; owner_contents: to its owner) reads as seen by them:
            # which cards it holds is known, though not their order (an order-reading value, its top card, is taken
            # as seen too: docs/secrecy.md)
            if z is not None and z[1] not in ("open", "contents"):
                out.append(Read("zone", z[0], z[1], z[2] if z[1] in ("owner", "owner_contents") else None))
            elif cls is A.Name and self.variables.get(node.id, "public") != "public":
                out.append(Read("variable", node.id, self.variables[node.id]))
        for f in fields(node):
            if f.name != "span":
                self._walk(getattr(node, f.name), out, calls, lc)

    def _inside(self, zone_node: Any, out: list, calls: tuple, lc: Optional[dict] = None) -> None:
        """The parts of a zone reference other than the zone (the player of `p.hand`, the key of `stocks[k]`)."""
        if isinstance(zone_node, A.Attr):
            self._walk(zone_node.obj, out, calls, lc)
        elif isinstance(zone_node, A.Index):
            self._walk(zone_node.key, out, calls, lc)
            self._inside(zone_node.obj, out, calls, lc)

    def _call(self, node: A.Call, fd: tuple, out: list, calls: tuple) -> None:
        """A ruleset function: what its body reads, a parameter's name replaced by the name passed for it."""
        params, body = fd[0], fd[1]
        if body is None or node.func in calls:
            return
        key = (node.func, self._values)
        inner = self._memo.get(key)  # once per function: functions calling each other many times cost no more
        if inner is None:
            found: list[Read] = []
            self._walk(body, found, calls + (node.func,))
            inner = self._memo[key] = tuple(dict.fromkeys(found))
        passed = {p: via_of(a) for p, a in zip(params, node.args)}
        for k in node.kwargs:
            passed[k.name] = via_of(k.value)
        for r in inner:
            out.append(r if r.via is None else Read(r.kind, r.name, r.visibility, passed.get(r.via)))


_SECRETS: "weakref.WeakKeyDictionary[Any, Secrets]" = weakref.WeakKeyDictionary()


def secrets_of(rs: Any) -> Secrets:
    """The ruleset's `Secrets`, made once (with what its local names are worked out from)."""
    s = _SECRETS.get(rs)
    if s is None:
        s = _SECRETS[rs] = Secrets(rs.zones, rs.variables, rs.player_variables, rs.functions)
        s.locals = local_reads(rs, s)
    return s


def every_step(rs: Any) -> Iterable[Any]:
    """Every step of the ruleset's sequences and the steps inside them: their bodies, and the steps a construct
    runs (`run`)."""
    todo = [seq.steps for seq in rs.sequences.values()]
    while todo:
        for step in todo.pop():
            run = getattr(step, "run", None)
            if isinstance(run, tuple):
                todo.append(run)
            todo.extend(body for _name, body in step.bodies)
            yield step


def local_reads(rs: Any, s: Secrets, told: frozenset = frozenset()) -> dict[str, tuple]:
    """For each local name of the ruleset's steps, what the values given it are worked out from: every `let`, `as`
    (a decision's answer is one of its options, a card drawn comes from its zone), loop name and sequence parameter
    (what its callers pass), taken together wherever the name is used (a name kept for a hidden card in one
    sequence counts as hidden in all: the reading errs on the side of the secret). What a value is made of counts,
    not what picked it: the players of `[q for q in players if count(q.hand) > 2]` are players everyone knows (a
    decision worked out from the list still reads the condition where it is written). The answers of the decisions
    in `told` (their ids) are told to everyone: the names they are kept under read nothing hidden."""
    binds: list[tuple[str, Any]] = []
    rolled: list[tuple[str, Read]] = []
    for step in every_step(rs):
        for spec in (getattr(step, "decision", None), getattr(step, "play", None)):
            if spec is not None and spec.bind and spec.options is not None and id(spec) not in told:
                binds.append((spec.bind, spec.options.ast))
        if getattr(step, "var", "") and getattr(step, "iterable", None) is not None:
            binds.append((step.var, step.iterable.ast))
        params = rs.sequences[step.sequence].params if getattr(step, "sequence", "") in rs.sequences else ()
        binds += [(k, v.ast) for k, v in getattr(step, "args", ()) if k in params]
        for stmt in getattr(step, "stmts", ()):
            for node in stmt.ast.walk():
                if isinstance(node, A.Let):
                    binds.append((node.name, node.value))
                elif isinstance(node, A.Draw) and node.bind:  # drawn face up: nothing hidden about it
                    dest = s._zone(node.dest) if node.dest is not None else None
                    binds.append((node.bind, node.dest if dest is not None and dest[1] == "open" else node.source))
                elif isinstance(node, A.CallSeq) and node.sequence in rs.sequences:
                    binds += [(k.name, k.value) for k in node.kwargs]
                elif isinstance(node, A.Roll) and node.bind and node.dice in rs.dice \
                        and rs.dice[node.dice].visibility != "open":  # dice under a cup: the roller's alone
                    rolled.append((node.bind, Read("roll", node.dice, rs.dice[node.dice].visibility)))
    out: dict[str, tuple] = {}
    for name, read in rolled:
        out[name] = tuple(dict.fromkeys(out.get(name, ()) + (read,)))
    s._values = True
    try:
        _settle(s, binds, out)
    finally:
        s._values = False
    return {k: v for k, v in out.items() if v}


def _settle(s: Secrets, binds: list, out: dict) -> None:
    for _round in range(8):  # names given from names: until nothing changes (a few rounds in practice)
        changed = False
        for name, node in binds:
            found: list[Read] = []
            s._walk(node, found, (), out)
            new = tuple(dict.fromkeys(out.get(name, ()) + tuple(Read(r.kind, r.name, r.visibility) for r in found)))
            if new != out.get(name, ()):
                out[name], changed = new, True
        if not changed:
            break


def seen_by(reads: Iterable[Read], seat: int, who: Mapping[str, int]) -> bool:
    """Whether `seat` sees everything of `reads`: each is its own (reached through a name `who` gives `seat` for, or
    through the player at a seat written as a number, `players[0]`)."""
    return all(r.visibility in ("owner", "owner_contents") and r.via is not None
               and who.get(r.via, seat_named(r.via)) == seat for r in reads)


def via_of(node: Any) -> Optional[str]:
    """The name a player is reached through in `node`: a name (`p`), or the player at a seat written as a number
    (`players[0]`, as 'players[0]'); None for any other way (`next_player(p)`: not known without playing)."""
    if isinstance(node, A.Name):
        return node.id
    if isinstance(node, A.Index) and isinstance(node.obj, A.Name) and node.obj.id == "players" \
            and isinstance(node.key, A.Num) and isinstance(node.key.value, int) and node.key.value >= 0:
        return f"players[{node.key.value}]"
    return None


def seat_named(via: Optional[str]) -> Optional[int]:
    """The seat of a player reached as `players[N]` (`via_of`), or None."""
    if via is not None and via.startswith("players[") and via.endswith("]"):
        return int(via[8:-1])
    return None


