"""What the others read of a decision's answer (model/secrecy.py asks here, and re-exports): the decline an `if`
stands in for a decision it skips for a hidden reason is told as that decision (`told_as`, `guarded`), and a choice
whose answer the rules lay face up at once is an open one (`answer_opened`). See docs/secrecy.md.
"""

from __future__ import annotations

import weakref
from typing import Any, Iterable

from ..dsl import ast as A
from .reading import every_step, secrets_of

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


def secret_of(rs: Any, spec: Any) -> Any:
    """Whether the others are told only that `spec` was answered, not how: what it says (`secret:`); False when the
    rules lay its answer face up at once; True when it is asked only for a reason some seat cannot see (`guarded`:
    the others decline in its stead) and its answer is not laid face up, as a decline of it is: an answer the others
    could read (`P4: Strike whom? -> P1`, asked of the wolf alone) would tell them that reason. None: secret when some
    option is a card another seat cannot see (looked at in the game)."""
    if spec.secret is not None:
        return spec.secret
    if answer_opened(rs, spec):
        return False
    told = told_as(rs, spec)
    if told.secret is None and guarded(rs, told) and not answer_opened(rs, told):
        return True
    return None


def sealed_face_down(rs: Any) -> tuple[Any, ...]:
    """The `sealed` steps (written, not an auction's) that reveal cards chosen from a zone some seat cannot see, not
    saying `secret:`, whose answers the steps after them lay in zones that are not open (`move picks[p] to p.kept`,
    kept face down): the reveal tells everyone the cards the rules keep hidden (checks: W332; `secret: true`)."""
    s = secrets_of(rs)
    out = []
    for step in every_step(rs):
        bind, spec = getattr(step, "bind", None), getattr(step, "decision", None)
        if not (bind and hasattr(step, "var") and spec is not None and spec.secret is None and spec.options is not None
                and any(r.kind == "zone" for r in s.reads(spec.options, local=True))):
            continue
        dests = {z[1] for later in every_step(rs) for stmt in getattr(later, "stmts", ()) for n in stmt.ast.walk()
                 if isinstance(n, A.Move) and any(isinstance(m, A.Name) and m.id == bind for m in n.what.walk())
                 for z in (s._zone(n.dest),) if z is not None}
        if dests and "open" not in dests:
            out.append(step)
    return tuple(out)
