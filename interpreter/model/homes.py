"""Which starting piles' cards the rules may bring together in one zone: a world a seat cannot tell from the real one
deals the cards it cannot see again, each trading places only with cards of the piles it may share a zone with.

A card starts in one zone (its home: a zone's `initial`, or the zone that takes `all`). The bots' worlds
(runtime/knowledge.py's `deal_again`) trade a card the seat cannot see only with cards of its own group of homes.
Trading only with the cards of its own home kept a card where it really was once it had shared a hidden zone with
cards of another home: a crown and a stone drawn into one hand, one of them slipped face down to another player,
and the greedy bot of a third always named the crown's holder (40 games in 40), since the crown, alone of its home,
never moved in its worlds. Homes whose cards the rules may bring into the same zone are one group, decided from the
ruleset (every `draw` and `move`, what each takes its cards from, followed through local names), never from where
the cards lie, so the group cannot hint at a hidden card. Where a move's cards come from cannot be read, every home
may reach its zone (on the side of the secret).
"""

from __future__ import annotations

import weakref
from typing import Any, Optional

from ..dsl import ast as A
from .reading import every_step

_GROUPS: "weakref.WeakKeyDictionary[Any, dict]" = weakref.WeakKeyDictionary()
ANY = "*"  # a move whose cards may come from any zone


def home_groups(rs: Any, homes: dict[int, str]) -> dict[str, str]:
    """For each home (a zone id) in `homes` (card index -> the zone it started in), the group it deals in: the first,
    in zone order, of the homes whose cards the rules may bring into one zone with it (see the module's doc)."""
    memo = _GROUPS.get(rs)
    key = tuple(sorted(set(homes.values())))
    if memo is not None and key in memo:
        return memo[key]
    reach = _reach(rs, key)
    parent = {h: h for h in key}

    def find(h: str) -> str:
        while parent[h] != h:
            h = parent[h]
        return h

    for together in reach.values():
        ordered = [h for h in key if h in together]
        for h in ordered[1:]:
            a, b = find(ordered[0]), find(h)
            if a != b:
                parent[max(a, b)] = min(a, b)
    got = {h: find(h) for h in key}
    _GROUPS.setdefault(rs, {})[key] = got
    return got


def _reach(rs: Any, homes: tuple) -> dict[str, set]:
    """zone id -> the homes whose cards may come to lie in it."""
    zones = rs.zones
    binds: dict[str, list] = {}
    edges: list[tuple[Any, str]] = []  # (what the cards are taken from: an AST, or a zone id; the zone id they go to)
    for step in every_step(rs):
        for spec in (getattr(step, "decision", None), getattr(step, "play", None)):
            if spec is not None and spec.bind and spec.options is not None:
                binds.setdefault(spec.bind, []).append(spec.options.ast)
        if getattr(step, "var", "") and getattr(step, "iterable", None) is not None:
            binds.setdefault(step.var, []).append(step.iterable.ast)
        params = rs.sequences[step.sequence].params if getattr(step, "sequence", "") in rs.sequences else ()
        for k, v in getattr(step, "args", ()):
            if k in params:
                binds.setdefault(k, []).append(v.ast)
        for stmt in getattr(step, "stmts", ()):
            for node in stmt.ast.walk():
                if isinstance(node, A.Let):
                    binds.setdefault(node.name, []).append(node.value)
                elif isinstance(node, A.CallSeq) and node.sequence in rs.sequences:
                    for k in node.kwargs:
                        binds.setdefault(k.name, []).append(k.value)
                elif isinstance(node, A.Draw) and node.dest is not None:
                    dest = _zone(node.dest, zones)
                    edges.append((node.source, dest or ANY))
                    if node.bind:
                        binds.setdefault(node.bind, []).append(node.source)
                elif isinstance(node, A.Move):
                    edges.append((node.what, _zone(node.dest, zones) or ANY))
    for z in zones.values():
        if getattr(z, "refill", None):
            edges.append((z.refill, z.id))
    sources = {}
    for what, dest in edges:
        sources.setdefault(dest, []).append(what if isinstance(what, str) else _named(what, zones, binds))
    reach: dict[str, set] = {z: ({z} if z in homes else set()) for z in zones}
    reach[ANY] = set()
    changed = True
    while changed:
        changed = False
        for dest, froms in sources.items():
            got: set = set()
            for src in froms:
                if src is None:
                    got |= set(homes)
                elif isinstance(src, str):
                    got |= reach.get(src, set())
                else:
                    for z in src:
                        got |= reach.get(z, set())
            for t in (list(zones) if dest == ANY else [dest]):
                if not got <= reach[t]:
                    reach[t] |= got
                    changed = True
    return reach


def _zone(node: Any, zones: Any) -> Optional[str]:
    """The zone id `node` names (`deck`, `p.hand`, `stocks[k]`), or None."""
    if isinstance(node, A.Name) and node.id in zones:
        return node.id
    if isinstance(node, A.Attr) and node.name in zones:
        return node.name
    if isinstance(node, A.Index):
        return _zone(node.obj, zones)
    return None


def _named(node: Any, zones: Any, binds: dict, seen: Optional[set] = None) -> Optional[frozenset]:
    """The zone ids the cards of `node` may be taken from, following local names to what they are given; None when
    it names none (where its cards come from cannot be read)."""
    seen = set() if seen is None else seen
    out: set = set()
    todo = [node]
    while todo:
        n = todo.pop()
        z = _zone(n, zones)
        if z is not None:
            out.add(z)
            continue
        if isinstance(n, A.Name):
            if n.id == "cards":  # every card of the game
                return None
            if n.id in binds and n.id not in seen:
                seen.add(n.id)
                for v in binds[n.id]:
                    got = _named(v, zones, binds, seen)
                    if got is None and v is not None and any(isinstance(m, A.Name) and m.id == "cards"
                                                             for m in v.walk()):
                        return None
                    out |= got or set()
            continue
        todo.extend(n.children())
    return frozenset(out) if out else None
