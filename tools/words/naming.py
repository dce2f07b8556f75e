"""Names that do not read by their own word: an index into a ring of seats, a local named by a past participle.

`ring[i]` in a loop over the numbers 0 to the number of players minus 1, where `ring` is a list of players and the
loop's number is only ever an index into it, is a person in that ring: the loop is "for each player in the ring",
`ring[i]` "the player in the ring", `ring[(i + 1) % player_count]` "the next player in the ring (after the last, the
first)" (never "the ring for the one"). `let made = sum([m.flour for m in p.mills])` is "the flour made", not "the
made": a participle names no thing, so the thing its value counts or holds goes before it; a value whose thing is not
plain (dml-2016's `lost = ceil(count(...) / 2)`) keeps the reading it had. And when a pick made in secret is told to
everyone ('Name trumps in secret (told to everyone at the end of the game)'): a hidden value said with its moment.
"""

from __future__ import annotations

from typing import Any, Iterator

from rulecraft.dsl import ast as A
from rulecraft.model import ruleset as M
from rulecraft.tools.words.text import humanize


# ----------------------------------------------------------------------------- a ring of seats

def _roots(step: M.Step) -> Iterator[A.Node]:
    """The expressions and statements a step holds itself (its decision's too), not its blocks'."""
    for k, v in vars(step).items():
        if k in ("body", "then", "else_", "otherwise") or isinstance(v, M.Step):
            continue
        for x in (v if isinstance(v, tuple) else (v,)):
            x = getattr(x, "ast", x)
            if isinstance(x, A.Node):
                yield x
            elif isinstance(x, M.DecisionSpec):
                yield from (y for y in (getattr(z, "ast", z) for z in vars(x).values()) if isinstance(y, A.Node))


def _offset(key: Any, var: str) -> int | None:
    """0 for `i`, k for `(i + k) % n`, -k for `(i - k) % n`; None for any other key."""
    if isinstance(key, A.Name) and key.id == var:
        return 0
    if isinstance(key, A.BinOp) and key.op == "%" and isinstance(key.left, A.BinOp) and key.left.op in ("+", "-") \
            and isinstance(key.left.left, A.Name) and key.left.left.id == var and isinstance(key.left.right, A.Num) \
            and isinstance(key.left.right.value, int):
        return key.left.right.value * (1 if key.left.op == "+" else -1)
    return None


def _ring_of(w, s: M.ForEachStep) -> str:
    """The list of players a loop over numbers only indexes (its name), or ''."""
    from rulecraft.tools.words.locals import _kind

    e = getattr(s.iterable, "ast", s.iterable)
    if not isinstance(e, A.Range) or w.constant(e.low) != 0:
        return ""
    rings, uses, indexed = set(), 0, 0
    for inner in M.walk_steps(s.body):
        for root in _roots(inner):
            for n in root.walk():
                if isinstance(n, A.Name) and n.id == s.var:
                    uses += 1
                elif isinstance(n, A.Index) and isinstance(n.obj, A.Name) and _offset(n.key, s.var) is not None:
                    rings.add(n.obj.id)
                    indexed += 1
    if len(rings) != 1 or uses != indexed:
        return ""
    ring = next(iter(rings))
    value = w.info.defs.get(ring)
    value = getattr(value, "ast", value)
    while isinstance(value, A.Call) and value.func in ("shuffled", "sorted", "reversed") and value.args:
        value = value.args[0]  # ('shuffled(players)': the players, in a new order)
    return ring if ring not in w.rs.variables and value is not None and _kind(w, value) == "player" \
        and not isinstance(value, A.Comprehension) else ""


def seat_rings(w) -> dict:
    """Each loop variable that only indexes a list of players -> that list's name (worked out once per renderer)."""
    found = getattr(w, "_seat_rings", None)
    if found is None:
        found = {}
        for seq in w.rs.sequences.values():
            for s in M.walk_steps(seq.steps):
                if isinstance(s, M.ForEachStep) and (ring := _ring_of(w, s)):
                    found[s.var] = ring
        w._seat_rings = found
    return found


def ring_heading(w, s: M.ForEachStep) -> str:
    """'for each player in the ring' for a loop over a ring's seats, else ''."""
    ring = seat_rings(w).get(s.var) if isinstance(getattr(s.iterable, "ast", s.iterable), A.Range) else None
    return f"for each player in {w.expr(A.Name(s.span, ring))}" if ring and _ring_of(w, s) else ""


def ring_seat(w, n: A.Index) -> str:
    """`ring[i]` as a person says it: 'the player in the ring', 'the next player in the ring (after the last, the
    first)', 'the player before in the ring (before the first, the last)'; '' for any other index."""
    if w.detail == "full" or not isinstance(n.obj, A.Name):
        return ""
    for var, ring in seat_rings(w).items():
        step = _offset(n.key, var)
        if ring != n.obj.id or step is None:
            continue
        said = w.expr(n.obj)
        if step == 0:
            return f"the player in {said}"
        if step == 1:
            return f"the next player in {said} (after the last, the first)"
        if step == -1:
            return f"the player before them in {said} (before the first, the last)"
    return ""


# ----------------------------------------------------------------------------- a local named by a participle

PARTICIPLES = {"gone", "got", "kept", "lost", "won", "sold", "left", "done", "shown", "put", "held", "dealt", "paid",
               "said", "told", "laid", "made", "bought", "brought", "met", "found", "meant", "burnt", "earned",
               "gained", "scored", "grown", "ground", "taken", "given", "drawn", "spent", "raised", "owed"}


def participle_reading(w, ident: str) -> str:
    """A local named by a past participle and set to one value, read by the thing that value counts or holds before
    the participle: 'the flour made' (a sum of flour), 'the card lost' (one card), 'the coins won' (a coin count);
    '' where the thing is not plain from the value (the name then reads as before)."""
    if ident.lower() not in PARTICIPLES or ident not in w.info.defs:
        return ""
    thing = _thing(w, getattr(w.info.defs[ident], "ast", w.info.defs[ident]))
    return f"the {thing} {ident.lower()}" if thing else ""


def _thing(w, e: Any) -> str:
    """What a value counts or holds, as a noun: an attribute summed or taken ('flour'), a player variable's title,
    'card' or 'player' for one of them; '' otherwise."""
    from rulecraft.tools.words.locals import _kind

    if isinstance(e, A.Call) and e.func in ("sum", "min", "max") and e.args:
        inner = e.args[0].element if isinstance(e.args[0], A.Comprehension) else e.args[0]
        return _thing(w, inner) if isinstance(inner, A.Attr) else ""
    if isinstance(e, A.Attr) and e.name in ("top", "bottom"):
        return "card"  # ('victim.hand.top': the card lost)
    if isinstance(e, A.Attr):
        return humanize(e.name).lower() if "_" not in e.name and e.name not in w.rs.zones else ""
    kind = _kind(w, e) if isinstance(e, (A.Index, A.Call)) else ""
    return kind if kind in ("card", "player") else ""


# ----------------------------------------------------------------------------- when a secret pick is told

def _reads(node: Any, names: set) -> bool:
    node = getattr(node, "ast", node)
    return isinstance(node, A.Node) and any(isinstance(n, A.Name) and n.id in names or isinstance(n, A.Attr)
                                            and n.name in names for n in node.walk())


def _chain(steps, step) -> list | None:
    steps = tuple(steps)
    for i, s in enumerate(steps):
        if s is step:
            return [(steps, i)]
        for _n, body in s.bodies:
            if (inner := _chain(body, step)) is not None:
                return [(steps, i)] + inner
    return None


def revealed_when(w, s: M.Step) -> str:
    """When a secret pick (a choice with `secret: true`) is told to everyone: the first later step of its sequence
    whose message reads it, or a value set from it ('set trumps = named' ... 'log Trumps were {trumps}'), as a
    moment: 'at the end of the game' (its sequence's last step), else 'after ...' the step before it; '' when no
    step tells it (quiet-trump: the trumps named in secret, told when the hand is over)."""
    from rulecraft.model.kinds import own_statements

    d = getattr(s, "decision", None)
    if w.detail == "full" or d is None or not d.secret or not d.bind:
        return ""
    for seq in w.rs.sequences.values():
        chain = _chain(seq.steps, s)
        if chain is None:
            continue
        names = {d.bind}
        for depth, (body, at) in reversed(list(enumerate(chain))):
            for j in range(at + 1, len(body)):
                for inner in M.walk_steps([body[j]]):
                    for st in own_statements(inner):
                        st = getattr(st, "ast", st)
                        if isinstance(st, A.Let) and _reads(st.value, names):
                            names.add(st.name)  # ('let way = named': the pick under another name)
                        elif isinstance(st, A.Assign) and st.op == "=" and _reads(st.value, names):
                            names.add(st.target.id if isinstance(st.target, A.Name) else getattr(st.target, "name", ""))
                        elif isinstance(st, A.Log) and _reads(st.message, names):
                            return _moment(w, seq, body, j, depth)
        return ""
    return ""


def _moment(w, seq: M.SequenceDef, body, j: int, depth: int) -> str:
    if depth == 0 and j == len(body) - 1:
        return f"at the end of the {seq.kind if seq.kind in ('game', 'round', 'turn', 'phase') else 'sequence'}"
    before = w.step(body[j - 1]) if j else ""
    return f"after {before[:1].lower() + before[1:]}" if before and len(before) <= 60 else "later"
