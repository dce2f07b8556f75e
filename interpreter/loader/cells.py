"""Table cells: a value as written, or an expression worked out when the ruleset loads."""

from __future__ import annotations

from typing import Any

from ..diagnostics import RuleError
from ..dsl.closures.compiler import Compiler
from ..dsl.scope import LoadTimeContext, Scope
from .yaml_source import YScalar


def columns_word(cols: list) -> str:
    return ("the column " if len(cols) == 1 else "the columns ") + ", ".join(f"'{c}'" for c in cols)


class CellValues:
    """The value of a table cell: as written, or, for text starting with '=', the expression after it worked out
    once while the ruleset loads (it may use parameters, options and plain values, e.g. '=coup_cost')."""

    def __init__(self, builder, consts: dict):
        self.b = builder
        self.scope = Scope(dict(consts), set(), set(), set(), set(), set(), {}, {})

    def value(self, node, plain: Any) -> Any:
        if not (isinstance(node, YScalar) and isinstance(node.value, str) and node.value.startswith("=")):
            return plain
        before = len(self.b.diags)
        expr = self.b.text.expr(node, Compiler(self.scope, self.b.diags), skip=1)
        if expr is None or len(self.b.diags) > before:  # reported: a cell may use parameters, options, plain values
            return None
        try:
            return expr.fn(LoadTimeContext())
        except RuleError as exc:
            self.b.diags.append(exc.diagnostic())
            return None


def family_keys(builder, per) -> tuple[tuple, dict]:
    """The keys of a variable declared `per:` a family, and the titles players know them by: a list of keys; a
    mapping of each key to its title; or the id of a table (its keys, titled by its `title` column) or of a zone
    family declared `per:` a list of keys. Reported (E204) when it is none of those."""
    from .yaml_source import YMap, YSeq

    if isinstance(per, YSeq):
        return tuple(per.plain()), {}
    if isinstance(per, YMap):
        return tuple(per.entries), {k: str(v) for k, v in per.plain().items() if v not in (None, "")}
    name = per.plain() if isinstance(per, YScalar) else None
    table = builder.section("tables").get(name) if isinstance(name, str) else None
    if isinstance(table, YMap):
        keys, columns = tuple(table.plain().get("keys") or ()), list(table.plain().get("columns") or ())
        rows = table.plain().get("rows") or {}
        titles = {}
        if "title" in columns:
            for k in keys:
                row = rows.get(k)
                title = row.get("title") if isinstance(row, dict) else (
                    row[columns.index("title")] if isinstance(row, list) and len(row) == len(columns) else None)
                if isinstance(title, str) and title:
                    titles[k] = title
        return keys, titles
    zone = builder.section("zones").get(name) if isinstance(name, str) else None
    if isinstance(zone, YMap) and isinstance(zone.get("per"), (YSeq, YMap)):  # (a mapping: its keys' titles)
        return family_keys(builder, zone.get("per"))
    builder.err("E204", f"'per:' of a variable is a list of keys, a mapping of keys to their titles, or the id of a "
                f"table or a zone family, not '{name}'", per.span,
                "e.g. per: {red: Red, blue: Blue}, or per: artists (a table whose title column names each key)")
    return (), {}
