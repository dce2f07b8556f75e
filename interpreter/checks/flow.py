"""Checks of control flow: unreachable steps, loops with no way out, 'end KIND' with nothing to end.

What each step runs itself and how it passes play on are its kind's flow facts (model/kinds.py: `statements`, `loop`,
`branch`, `endless`), so a kind added later is checked as the core ones are."""

from __future__ import annotations

from typing import Iterable, Optional

from ..diagnostics import Diagnostic, error, warning
from ..dsl import ast as A
from ..dsl.table_calls import targets
from ..model import ruleset as M
from ..model.kinds import NO_KIND, StepKind, kind_of

_TERMINAL = (A.End, A.Return, A.Break, A.Continue)


def _kind(step: M.Step) -> StepKind:
    return kind_of(step) or NO_KIND


def _own(step: M.Step) -> tuple:
    """The statements the step runs itself (a `do:` step's; a `call:` step's call)."""
    return _kind(step).statements(step)


def _terminates(step: M.Step) -> bool:
    """True when running the step never carries on to the next step of its block: a statement of its own leaves, or
    it runs one of its bodies (an 'if') and every one of them leaves."""
    if any(isinstance(s.ast, _TERMINAL) for s in _own(step)):
        return True
    if _kind(step).branch:
        return all(bool(body) and _block_terminates(body) for _n, body in step.bodies)
    return False


def _block_terminates(steps) -> bool:
    return any(_terminates(s) for s in steps)


def _unreachable(steps) -> Iterable[Diagnostic]:
    for i, s in enumerate(steps):
        own = _own(s)
        for j, st in enumerate(own[:-1]):
            if isinstance(st.ast, _TERMINAL):
                yield warning("W404", f"'{own[j + 1].text}' can never run: '{st.text}' comes first", own[j + 1].span)
                break
        for _n, body in s.bodies:
            yield from _unreachable(body)
        if _terminates(s) and i + 1 < len(steps):
            nxt = steps[i + 1]
            yield warning("W404", "this step can never run: the step before it always leaves", nxt.span,
                          "remove it, or make the step before it conditional")
            return


def _statements(steps, in_inner_loop: bool = False):
    """(statement, inside a nested loop?) for every statement in the steps, with calls."""
    for s in steps:
        for st in _own(s):
            yield st.ast, in_inner_loop
        inner = in_inner_loop or _kind(s).loop
        for _n, body in s.bodies:
            yield from _statements(body, inner)


def _enders(rs: M.Ruleset) -> set[str]:
    """Sequences that may run an 'end', themselves or through the sequences they call."""
    calls = {sid: {t for st, _ in _statements(seq.steps) if isinstance(st, A.CallSeq) for t in targets(st, rs.tables)}
             for sid, seq in rs.sequences.items()}
    out = {sid for sid, seq in rs.sequences.items() if any(isinstance(st, A.End) for st, _ in _statements(seq.steps))}
    changed = True
    while changed:
        changed = False
        for sid, callees in calls.items():
            if sid not in out and callees & out:
                out.add(sid)
                changed = True
    return out


def _has_exit(loop: M.Step, enders: set[str] | None = None) -> bool:
    for st, nested in _statements([s for _n, body in loop.bodies for s in body]):
        if isinstance(st, (A.End, A.Return)):
            return True
        if isinstance(st, A.CallSeq) and (enders is None or st.sequence in enders or st.target is not None):
            return True  # the called sequence may end a turn, a stage or the game
        if isinstance(st, A.Break):
            if st.loop is None and not nested:
                return True
            if st.loop is not None and st.loop == getattr(loop, "name", None):
                return True
    return False


def _endless(steps) -> Iterable[M.Step]:
    """The steps that repeat until a statement leaves them (a `loop:` without `until:`, a `while: true`)."""
    for s in steps:
        if _kind(s).endless(s):
            yield s
        for _n, body in s.bodies:
            yield from _endless(body)


def calls_in(steps, tables) -> Iterable[str]:
    """The sequences a block calls, by a call step or a call statement, at any depth."""
    for s in steps:
        for st in _own(s):
            if isinstance(st.ast, A.CallSeq):
                yield from targets(st.ast, tables)  # a call by table: every sequence its column names
        for _n, body in s.bodies:
            yield from calls_in(body, tables)


def _ancestor_kinds(rs: M.Ruleset) -> dict[str, Optional[set[str]]]:
    """For each sequence, the kinds that may be running around it (None: anything, via a trigger)."""
    kinds: dict[str, Optional[set[str]]] = {}
    for t in rs.triggers:
        kinds[t.run] = None
    if rs.start in rs.sequences and rs.start not in kinds:
        kinds[rs.start] = set()
    changed = True
    guard = 0
    while changed and guard < 10_000:
        changed = False
        guard += 1
        for sid, seq in rs.sequences.items():
            if sid not in kinds:
                continue
            mine = kinds[sid]
            passed = None if mine is None else mine | {seq.kind}
            for callee in set(calls_in(seq.steps, rs.tables)):
                if callee not in rs.sequences:
                    continue
                old = kinds.get(callee, "missing")
                if old is None:
                    continue
                if passed is None:
                    new = None
                else:
                    new = (set() if old == "missing" else set(old)) | passed
                if old == "missing" or new != old:
                    kinds[callee] = new
                    changed = True
    return kinds


def check_flow(rs: M.Ruleset) -> Iterable[Diagnostic]:
    ending = _enders(rs)
    # None when a trigger may end the game: it may, whenever a called sequence raises an event
    enders: Optional[set[str]] = None if any(t.run in ending for t in rs.triggers) else ending
    for seq in rs.sequences.values():
        yield from _unreachable(seq.steps)
        for loop in _endless(seq.steps):
            if not _has_exit(loop, enders):
                name = getattr(loop, "name", None)
                what = f"loop '{name}'" if name else "this loop"
                brk = f"break {name}" if name else "break"
                yield error("E406", f"{what} has no way out", loop.span,
                            f"add '{brk}' or an 'end' inside it, or give it a condition")
    kinds = _ancestor_kinds(rs)
    for sid, seq in rs.sequences.items():
        if sid not in kinds or kinds[sid] is None:
            continue  # never run (reported elsewhere), or run by a trigger from anywhere
        around = kinds[sid] | {seq.kind}  # type: ignore[operator]
        for st, _nested in _statements(seq.steps):
            if isinstance(st, A.End) and st.kind not in ("game", "sequence") and st.kind not in around:
                yield error("E402", f"'end {st.kind}' here can never find a running {st.kind}", st.span,
                            f"'{sid}' only runs inside: {', '.join(sorted(around)) or 'nothing'}")
