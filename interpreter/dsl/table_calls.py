"""Calls of the sequence a table's row names: `call TABLE[KEY].COLUMN`, where the table declares COLUMN under
`sequences:` (its cells name sequences, checked when the ruleset loads)."""

from __future__ import annotations

from typing import Any, Mapping, Optional

from . import ast as A

FORM = "TABLE[KEY].COLUMN, where the table lists COLUMN under 'sequences:'"


def table_column(target: Optional[A.Expr]) -> Optional[tuple[str, str]]:
    """(table, column) when the call's target is written TABLE[KEY].COLUMN, else None."""
    if isinstance(target, A.Attr) and isinstance(target.obj, A.Index) and isinstance(target.obj.obj, A.Name):
        return target.obj.obj.id, target.name
    return None


def targets(call: A.CallSeq, tables: Mapping[str, Any]) -> tuple[str, ...]:
    """Every sequence a call may run: its own, or each one the table's column names (in row order, once each).
    `tables` maps a table id to something with `.rows` (a model TableDef)."""
    if call.target is None:
        return (call.sequence,)
    tc = table_column(call.target)
    if tc is None:
        return ()
    table = tables.get(tc[0])
    if table is None:
        return ()
    out: list[str] = []
    for row in table.rows.values():
        v = row.get(tc[1])
        if isinstance(v, str) and v not in out:
            out.append(v)
    return tuple(out)
