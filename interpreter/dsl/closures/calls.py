"""Calls of sequences compiled to closures: `call SEQ with ...` (its sequence and arguments checked against the
sequence's parameters) and `call TABLE[KEY].COLUMN` (every sequence the column names must take the arguments given)."""

from __future__ import annotations

from typing import Callable, Optional

from ...diagnostics import RuleError, Span, did_you_mean
from .. import ast as A
from ..builtins import describe
from ..ops import CallSignal
from ..scope import Fn, Scope
from ..table_calls import FORM, table_column


class CallStatements:
    """The calling statements of StatementCompiler (statements.py)."""

    # what StatementCompiler (a Compiler, compiler.py) gives these methods
    scope: Scope
    sequences: dict[str, tuple[str, ...]]
    expr: Callable[[A.Expr], tuple[Fn, str]]
    report: Callable[..., None]

    def _s_CallSeq(self, n: A.CallSeq) -> Fn:
        if n.target is not None:
            return self._table_call(n, n.target)
        args = self.call_args(n.sequence, n.sequence_span, [(k.name, k.value, k.span) for k in n.kwargs], n.span)
        seq, span, bind = n.sequence, n.span, n.bind
        if args is None:
            return lambda ctx: None
        return lambda ctx: CallSignal(seq, {k: f(ctx) for k, f in args}, span, bind)

    def _table_call(self, n: A.CallSeq, target_node: A.Expr) -> Fn:
        """call TABLE[KEY].COLUMN: the cell names the sequence; every sequence the column names must take the
        arguments given, so a row is never found wrong while playing."""
        tc = table_column(target_node)
        sym = self.scope.symbols.get(tc[0]) if tc and tc[0] not in self.scope.locals else None
        if tc is None or sym is None or sym.kind != "table" or tc[1] not in (sym.detail or ()):
            self.report("E309", f"'call' takes a sequence id, or {FORM}", n.sequence_span,
                        "list the column under the table's 'sequences:' so its cells are checked as sequence ids"
                        if sym is not None and sym.kind == "table" else None)
            return lambda ctx: None
        names = [str(row.get(tc[1])) for row in sym.value.values() if row.get(tc[1]) is not None]
        kwargs = [(k.name, k.value, k.span) for k in n.kwargs]
        args = None
        known_seqs = [s for s in dict.fromkeys(names) if s in self.sequences]  # unknown ones: reported at their cell
        if known_seqs:
            args = self.call_args(known_seqs[0], n.sequence_span, kwargs, n.span)
            for seq in known_seqs[1:]:
                if set(self.sequences[seq]) != set(self.sequences[known_seqs[0]]):
                    self.report("E310", f"the sequences of column '{tc[1]}' take different parameters: "
                                f"'{known_seqs[0]}' takes {', '.join(self.sequences[known_seqs[0]]) or 'none'}, "
                                f"'{seq}' takes {', '.join(self.sequences[seq]) or 'none'}", n.sequence_span,
                                "a call by table passes the same arguments whichever row it reads")
                    break
        if args is None:
            args = [(k, self.expr(v)[0]) for k, v, _s in kwargs]
        target, span, bind, known = self.expr(target_node)[0], n.span, n.bind, set(names)

        def fn(ctx):
            seq = target(ctx)
            if seq not in known:
                raise RuleError(f"the table's cell names no sequence (got {describe(seq)})", span,
                                "write a sequence id in every row of that column")
            return CallSignal(seq, {k: f(ctx) for k, f in args}, span, bind)

        return fn

    def call_args(self, seq: str, seq_span: Span, kwargs: list[tuple[str, A.Expr, Span]],
                  span: Span) -> Optional[list[tuple[str, Fn]]]:
        """Check a call's sequence and arguments; compiled (name, fn) pairs, or None."""
        target = self.sequences.get(seq)
        if target is None:
            self.report("E309", f"unknown sequence '{seq}'", seq_span, did_you_mean(seq, self.sequences))
            return None
        params = tuple(target)
        given = [k for k, _v, _s in kwargs]
        for k, _v, s in kwargs:
            if k not in params:
                self.report("E310", f"sequence '{seq}' has no parameter '{k}'", s,
                            did_you_mean(k, params) or (f"its parameters: {', '.join(params)}" if params else
                                                        f"'{seq}' takes no parameters"))
        missing = [p for p in params if p not in given]
        if missing:
            self.report("E310", f"call of '{seq}' is missing {', '.join(repr(m) for m in missing)}", span,
                        f"write: call {seq} with " + ", ".join(f"{m}: ..." for m in params))
        return [(k, self.expr(v)[0]) for k, v, _s in kwargs]

