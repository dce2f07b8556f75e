"""Checks of results: a sequence's 'return VALUE' and the calls that bind it ('call: SEQ' with 'as: NAME')."""

from __future__ import annotations

from typing import Iterable

from ..diagnostics import Diagnostic, warning
from ..dsl import ast as A
from ..model import ruleset as M


def _walk(steps) -> Iterable[M.Step]:
    for s in steps:
        yield s
        for _n, body in s.bodies:
            yield from _walk(body)


def _binding_calls(rs: M.Ruleset) -> Iterable[tuple[str, str, object]]:
    """(sequence called, name bound, span) of every call that keeps the result."""
    for seq in rs.sequences.values():
        for s in _walk(seq.steps):
            if isinstance(s, M.CallStep) and s.bind:
                yield s.sequence, s.bind, s.span
            elif isinstance(s, M.ActionStep):
                for st in s.stmts:
                    if isinstance(st.ast, A.CallSeq) and st.ast.bind:
                        yield st.ast.sequence, st.ast.bind, st.ast.span


def _returns(seq: M.SequenceDef) -> list:
    """The 'return VALUE' statements of a sequence (a bare 'return' gives no value)."""
    return [st.ast for s in _walk(seq.steps) if isinstance(s, M.ActionStep)
            for st in s.stmts if isinstance(st.ast, A.Return) and st.ast.value is not None]


def check_results(rs: M.Ruleset) -> Iterable[Diagnostic]:
    """W407: 'as' on a call of a sequence that never returns a value; W408: a value returned that no call keeps."""
    kept: set[str] = set()
    for target, bind, span in _binding_calls(rs):
        kept.add(target)
        seq = rs.sequences.get(target)
        if seq is not None and not _returns(seq):
            yield warning("W407", f"'{bind}' is always none: sequence '{target}' never returns a value", span,
                          f"end '{target}' with 'return VALUE' where it has a result, or drop 'as {bind}'")
    for sid, seq in rs.sequences.items():
        found = _returns(seq)
        if found and sid not in kept:
            yield warning("W408", f"sequence '{sid}' returns a value, but no call keeps it", found[0].span,
                          f"bind it where '{sid}' is called: 'call: {sid}' with 'as: NAME' "
                          f"(or 'call {sid} as NAME'); a plain 'return' just leaves the sequence")
