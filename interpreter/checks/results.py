"""Checks of results: a sequence's 'return VALUE' and the calls that bind it ('call: SEQ' with 'as: NAME')."""

from __future__ import annotations

from typing import Iterable

from ..diagnostics import Diagnostic, Span, warning
from ..dsl import ast as A
from ..dsl.table_calls import targets
from ..model import ruleset as M
from ..model.kinds import kind_of


def check_results(rs: M.Ruleset) -> Iterable[Diagnostic]:
    """W407: 'as' on a call of a sequence that never returns a value; W408: a value returned that no call keeps."""
    calls: list[tuple[str, str, Span]] = []  # (sequence called, name bound, span) of the calls that keep a result
    returns: dict[str, list] = {}  # sequence -> its 'return VALUE' statements (a bare 'return' gives no value)
    for sid, seq in rs.sequences.items():
        found = returns[sid] = []
        for s in M.walk_steps(seq.steps):
            kind = kind_of(s)
            for st in kind.statements(s) if kind is not None else ():  # a `do:` step's, a `call:` step's call
                if isinstance(st.ast, A.CallSeq) and st.ast.bind:
                    calls += [(t, st.ast.bind, st.ast.span) for t in targets(st.ast, rs.tables)]
                elif isinstance(st.ast, A.Return) and st.ast.value is not None:
                    found.append(st.ast)
    kept = {target for target, _bind, _span in calls}
    for target, bind, span in calls:
        if target in returns and not returns[target]:
            yield warning("W407", f"'{bind}' is always none: sequence '{target}' never returns a value", span,
                          f"end '{target}' with 'return VALUE' where it has a result, or drop 'as {bind}'")
    for sid, found in returns.items():
        if found and sid not in kept:
            yield warning("W408", f"sequence '{sid}' returns a value, but no call keeps it", found[0].span,
                          f"bind it where '{sid}' is called: 'call: {sid}' with 'as: NAME' "
                          f"(or 'call {sid} as NAME'); a plain 'return' just leaves the sequence")
