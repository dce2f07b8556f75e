"""Parse and compile the DSL strings found in YAML scalars, keeping their file positions."""

from __future__ import annotations

import threading
from collections import OrderedDict

from ..diagnostics import Diagnostic, DiagnosticError, error
from ..dsl import ast as A
from ..dsl.closures.compiler import Compiler
from ..dsl.parser import parse_expression, parse_statements, scan_depths, parse_template
from ..model.ruleset import CExpr, CStmt
from .yaml_source import Limits, YNode, YScalar, YSeq


_PARSED: "OrderedDict[tuple, tuple[bool, object, int]]" = OrderedDict()
_PARSED_BUDGET = 4_000_000  # characters of text kept (about tens of MB with the trees): a bound, whatever the input
_parsed_size = 0
_parsed_lock = threading.Lock()


def _parsed(kind: str, parse, text: str, node: YScalar, skip: int):
    """A parse, remembered across loads (an editor re-checks the same file after each edit).

    The key holds everything the result depends on: the text, and the scalar's place and
    form in its file (its positions are in the AST and in any diagnostic). AST nodes are
    frozen, so one can serve several loads. Raises DiagnosticError as the parse did.
    """
    global _parsed_size
    key = (kind, text, skip, node.span, node.style, node.source)
    with _parsed_lock:
        hit = _PARSED.get(key)
        if hit is not None:
            _PARSED.move_to_end(key)
    if hit is None:
        try:
            hit = (True, parse(text, node.span_of, skip), len(text) + len(node.source))
        except DiagnosticError as exc:
            hit = (False, exc.diagnostic, len(text) + len(node.source))
        with _parsed_lock:
            if key not in _PARSED:
                _PARSED[key] = hit
                _parsed_size += hit[2]
            while _parsed_size > _PARSED_BUDGET and _PARSED:
                _parsed_size -= _PARSED.popitem(last=False)[1][2]
    ok, value, _size = hit
    if not ok:
        raise DiagnosticError(value)
    return value


class DslText:
    """Parses DSL scalars (with a cache, as a string may be read by more than one pass)."""

    def __init__(self, diagnostics: list[Diagnostic], limits: Limits):
        self.diags = diagnostics
        self.limits = limits
        self._cache: dict[tuple[int, str, int], object] = {}

    def _text(self, node: YScalar, skip: int) -> str | None:
        text = node.value if isinstance(node.value, str) else None
        if text is None:
            return None
        if len(text) > self.limits.max_dsl_chars:
            self.diags.append(error("E105", f"this text is {len(text)} characters, over the limit of "
                                    f"{self.limits.max_dsl_chars}", node.span, "split it into several steps"))
            return None
        return text[skip:]

    def parse_expr(self, node: YNode | None, skip: int = 0) -> A.Expr | None:
        if node is None:
            return None
        if not isinstance(node, YScalar):
            self.diags.append(error("E203", "expected an expression (text, a number or true/false)", node.span))
            return None
        v = node.value
        if isinstance(v, bool) or v is None:
            return A.Const(node.span, v)
        if isinstance(v, (int, float)):
            return A.Num(node.span, v)
        key = (id(node), "e", skip)
        if key in self._cache:
            return self._cache[key]  # type: ignore[return-value]
        text = self._text(node, skip)
        result = None
        if text is not None:
            if not text.strip():
                self.diags.append(error("E101", "an empty expression", node.span))
            else:
                try:
                    result = _parsed("e", parse_expression, text, node, skip)
                except DiagnosticError as exc:
                    self.diags.append(exc.diagnostic)
        self._cache[key] = result
        return result

    def parse_template(self, node: YScalar) -> A.Expr | None:
        """Text with {expressions} (a prompt), positions mapped into the scalar as written."""
        text = self._text(node, 0) if isinstance(node.value, str) else str(node.value)
        if text is None:
            return None
        try:
            return parse_template(text, node.span_of)
        except DiagnosticError as exc:
            self.diags.append(exc.diagnostic)
            return None

    def parse_stmts(self, node: YNode | None) -> tuple[A.Stmt, ...] | None:
        if node is None:
            return None
        if not isinstance(node, YScalar) or not isinstance(node.value, str):
            hint = None
            if isinstance(node, YSeq):  # do: [steps] in a plain step, where one text of statements is meant
                items = [str(i.value) for i in node.items if isinstance(i, YScalar) and isinstance(i.value, str)]
                joined = "; ".join(items[:3]) if items and len(items) == len(node.items) else ""
                hint = ("in a plain step, 'do:' is one text of statements separated by ';'"
                        + (f" (do: \"{joined}\")" if joined and len(joined) < 60 else "")
                        + "; a list of steps belongs under 'then:'/'else:' of 'if', or 'do:' of 'while', 'loop' "
                          "or 'for_each', or give each its own line in the sequence's 'steps:'")
            self.diags.append(error("E203", "expected statements as text, e.g. \"move card to hand\"",
                                    node.span if node else None, hint))
            return None
        key = (id(node), "s", 0)
        if key in self._cache:
            return self._cache[key]  # type: ignore[return-value]
        text = self._text(node, 0)
        result = None
        if text is not None:
            if not text.strip():
                self.diags.append(error("E101", "an empty statement", node.span, "write 'pass' for a step that does nothing"))
            else:
                try:
                    result = _parsed("s", parse_statements, text, node, 0)
                except DiagnosticError as exc:
                    self.diags.append(exc.diagnostic)
        self._cache[key] = result
        return result

    def quiet_stmts(self, node: YScalar) -> tuple[A.Stmt, ...] | None:
        """The statements of a text, or None where it is not statements; nothing reported (the steps report what
        they read). Shares the parses the steps make (_parsed)."""
        text = node.value if isinstance(node.value, str) else None
        if text is None or not text.strip() or len(text) > self.limits.max_dsl_chars:
            return None
        try:
            return _parsed("s", parse_statements, text, node, 0)
        except DiagnosticError:
            return None

    def expr(self, node: YNode | None, compiler: Compiler, skip: int = 0) -> CExpr | None:
        ast = self.parse_expr(node, skip)
        if ast is None:
            return None
        fn, _type = compiler.expr(ast)
        text = node.value[skip:] if isinstance(node, YScalar) and isinstance(node.value, str) else str(node.plain())
        return CExpr(text, ast, fn, ast.span)

    def expr_typed(self, node: YNode | None, compiler: Compiler) -> tuple[CExpr | None, str]:
        ast = self.parse_expr(node)
        if ast is None:
            return None, "any"
        fn, t = compiler.expr(ast)
        text = node.value if isinstance(node, YScalar) and isinstance(node.value, str) else str(node.plain())
        return CExpr(text, ast, fn, ast.span), t


def split_statements(text: str) -> list[str]:
    """The statements of a string, split at the ';' that are outside quotes and brackets."""
    if ";" not in text:  # one statement: nothing to scan for
        return [text.strip()] if text.strip() else []
    cuts = [i for i, ch, depth in scan_depths(text) if ch == ";" and depth == 0]
    bounds = zip([-1] + cuts, cuts + [len(text)])
    return [p for p in (text[a + 1:b].strip() for a, b in bounds) if p]


def compile_stmts(text: DslText, node: YNode, compiler) -> tuple[CStmt, ...]:
    asts = text.parse_stmts(node)
    if not asts:
        return ()
    whole = node.value if isinstance(node, YScalar) and isinstance(node.value, str) else str(node.plain())
    pieces = split_statements(whole)
    texts = pieces if len(pieces) == len(asts) else [whole] * len(asts)
    return tuple(CStmt(t, s, compiler.stmt(s), s.span) for t, s in zip(texts, asts))  # type: ignore[arg-type]
