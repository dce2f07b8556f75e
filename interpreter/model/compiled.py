"""The rules language as the model holds it: an expression or statement with its closure and its source."""

from __future__ import annotations

from typing import Any, Callable

from ..diagnostics import Span
from ..records import dataclass
from ..dsl import ast as A


@dataclass(frozen=True, eq=False)
class CExpr:
    """An expression parsed and compiled once: `fn(ctx)` evaluates it."""

    text: str
    ast: A.Expr
    fn: Callable[[Any], Any]
    span: Span

    def __repr__(self) -> str:
        return f"CExpr({self.text!r})"


@dataclass(frozen=True, eq=False)
class CStmt:
    """One statement parsed and compiled once: `fn(ctx)` runs it."""

    text: str
    ast: A.Stmt
    fn: Callable[[Any], Any]
    span: Span

    def __repr__(self) -> str:
        return f"CStmt({self.text!r})"
