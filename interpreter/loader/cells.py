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
