"""The `do:` step: statements run in order, as one instruction (EXEC). A step written as plain text is one too."""

from __future__ import annotations

from ...model import ruleset as M
from ...model.kinds import StepKind, register
from ..choices import _plain
from ..dsl_text import compile_stmts
from ..yaml_source import YScalar


def build(builder, node, common: dict, auto: str, loops: tuple) -> M.ActionStep:
    stmts = compile_stmts(builder.text, node.get("do"), builder.stmt_compiler(loops))
    if not common["label"]:
        common["label"] = str(_plain(node.get("do"), ""))
    return M.ActionStep(**common, stmts=stmts)


def binds(builder, node, out: set) -> None:
    """`let NAME = ...`, and the names `draw`, `roll`, `create zone` and `call` statements give with `as`."""
    if isinstance(node.get("do"), YScalar):
        builder.stmt_binders(node.get("do"), out)


def lower(f, s: M.ActionStep) -> None:
    f.exec(s, s.stmts)


KINDS = (register(StepKind("do", build, model=M.ActionStep, binds=binds, lower=lower,
                           doc="statements run in order (docs/format.md)")),)
