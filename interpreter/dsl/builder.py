"""AST nodes built by the LALR parser itself, one callback per grammar rule, with their spans.

The parser calls these callbacks at each reduction (Lark's `transformer=` option), so no parse
tree is built and none is walked afterwards. Lark is asked to keep every token
(`keep_all_tokens`), keywords and brackets included, so that a callback can see where its
rule starts and ends.

Every callback returns a `Built` tuple: (value, start, end, depth), where `start`/`end` are
offsets in the parsed text of the first and last token the rule covers, and `depth` is the
nesting depth of the rule in the parse. A node's span is therefore the text of all the tokens of
its rule, as it was when the parser tracked positions itself: `(a + b) * c` starts at the '(',
while the `a + b` inside has the span of `a + b`.

A callback never raises: a mistake found while building (a number too long, an assignment to
something that cannot be assigned, a bad {expression} in a string) is kept as the context's
`problem`, and reported only if the whole text parses. A syntax error anywhere in the text comes
first, as it did when the tree was built after the parse.
"""

from __future__ import annotations

import threading
from typing import Callable, Optional

from ..diagnostics import DiagnosticError, Span, error
from . import ast as A
from .statement_rules import Built, StatementRules, _depth, _end

Locator = Callable[[int, int], Span]


_ESCAPES = {"n": "\n", "t": "\t"}


def _no_text(start: int, end: int) -> Span:
    """The locator between parses: `begin` sets each parse's own."""
    raise RuntimeError("no text is being parsed")


class AstBuilder(StatementRules, threading.local):
    """The callbacks; what they need to know about the text being parsed is per thread.

    `begin` sets the locator and offset of one parse and returns what it replaced, so that the
    {expression} of a string can be parsed inside the callback of the string (see `str_lit`).
    """
    def __init__(self, parse_inner: Callable[[str, Locator, int], A.Expr]):
        self.parse_inner = parse_inner
        self.locate: Locator = _no_text
        self.offset = 0
        self.problem: Optional[DiagnosticError] = None

    def begin(self, locate: Locator, offset: int) -> tuple:
        saved = (self.locate, self.offset, self.problem)
        self.locate, self.offset, self.problem = locate, offset, None
        return saved

    def restore(self, saved: tuple) -> None:
        self.locate, self.offset, self.problem = saved

    def _keep(self, exc: DiagnosticError) -> None:
        if self.problem is None:
            self.problem = exc

    def _span(self, start: int, end: int) -> Span:
        off = self.offset
        return self.locate(off + start, off + end)

    def _tspan(self, tok) -> Span:
        off = self.offset
        return self.locate(off + tok.start_pos, off + tok.end_pos)

    # -- starts: the root of the parse, whose depth is that of the whole text
    def expr_start(self, c) -> Built:
        (e,) = c
        return e[0], e[1], e[2], e[3] + 1

    def stmts_start(self, c) -> Built:
        stmts = c[::2]  # statements and the ';' between them
        return tuple(s[0] for s in stmts), stmts[0][1], _end(*c), _depth(*stmts)

    # -- literals
    def int_lit(self, c) -> Built:
        (tok,) = c
        a, b = tok.start_pos, tok.end_pos
        if len(tok) > 18:
            self._keep(DiagnosticError(error("E106", "this number is too long", self._span(a, b),
                                             "numbers in rules are at most 18 digits")))
            return A.Num(self._span(a, b), 0), a, b, 1
        return A.Num(self._span(a, b), int(tok)), a, b, 1

    def dec_lit(self, c) -> Built:
        (tok,) = c
        a, b = tok.start_pos, tok.end_pos
        return A.Num(self._span(a, b), float(tok)), a, b, 1

    def str_lit(self, c) -> Built:
        (tok,) = c
        a, b = tok.start_pos, tok.end_pos
        try:
            parts = split_template(str(tok), self.offset + a, self.locate, self.parse_inner)
        except DiagnosticError as exc:
            self._keep(exc)
            parts = ("",)
        return A.Str(self._span(a, b), parts), a, b, 1

    def true_lit(self, c) -> Built:
        return self._const(c[0], True)

    def false_lit(self, c) -> Built:
        return self._const(c[0], False)

    def none_lit(self, c) -> Built:
        return self._const(c[0], None)

    def _const(self, tok, value) -> Built:
        a, b = tok.start_pos, tok.end_pos
        return A.Const(self._span(a, b), value), a, b, 1

    def name(self, c) -> Built:
        (tok,) = c
        a, b = tok.start_pos, tok.end_pos
        return A.Name(self._span(a, b), str(tok)), a, b, 1

    def list_lit(self, c) -> Built:
        # '[' expr ',' expr ... ','? ']', with placeholders (None) when the list is empty
        items = [x for x in c[1:-1] if type(x) is tuple]
        a, b = c[0].start_pos, c[-1].end_pos
        return A.ListLit(self._span(a, b), tuple(x[0] for x in items)), a, b, _depth(*items)

    def comprehension(self, c) -> Built:
        lsqb, element, _for, var, _in, iterable, cond, rsqb = c
        a, b = lsqb.start_pos, rsqb.end_pos
        node = A.Comprehension(self._span(a, b), element[0], str(var), iterable[0], cond[0] if cond else None)
        return node, a, b, _depth(element, iterable, cond)

    def comp_if(self, c) -> Built:
        kw, cond = c
        return cond[0], kw.start_pos, cond[2], cond[3] + 1

    def atom(self, c) -> Built:
        # '(' expr ')': the node inside keeps its own span; the rule above sees the brackets
        lpar, inner, rpar = c
        return inner[0], lpar.start_pos, rpar.end_pos, inner[3]

    # -- operators
    def attr(self, c) -> Built:
        obj, _dot, name = c
        a, b = obj[1], name.end_pos
        return A.Attr(self._span(a, b), obj[0], str(name), self._tspan(name)), a, b, obj[3] + 1

    def index(self, c) -> Built:
        obj, _lsqb, key, rsqb = c
        a, b = obj[1], rsqb.end_pos
        return A.Index(self._span(a, b), obj[0], key[0]), a, b, _depth(obj, key)

    def call(self, c) -> Built:
        fname, _lpar, args, rpar = c
        pos: list[A.Expr] = []
        kw: list[A.Keyword] = []
        for arg in args[0] if args else ():
            (kw if isinstance(arg, A.Keyword) else pos).append(arg)
        a, b = fname.start_pos, rpar.end_pos
        node = A.Call(self._span(a, b), str(fname), self._tspan(fname), tuple(pos), tuple(kw))
        return node, a, b, _depth(args)

    def args(self, c) -> Built:
        items = c[::2]  # the arguments and the ',' between them
        return [x[0] for x in items], items[0][1], items[-1][2], _depth(*items)

    def kwarg(self, c) -> Built:
        name, _colon, value = c
        a, b = name.start_pos, value[2]
        return A.Keyword(self._span(a, b), str(name), value[0]), a, b, value[3] + 1

    def neg(self, c) -> Built:
        return self._unary(c, "-")

    def not_op(self, c) -> Built:
        return self._unary(c, "not")

    def _unary(self, c, op: str) -> Built:
        kw, operand = c
        a, b = kw.start_pos, operand[2]
        return A.Unary(self._span(a, b), op, operand[0]), a, b, operand[3] + 1

    def binop(self, c) -> Built:
        left, op, right = c
        return self._binary(A.BinOp, str(op), left, right)

    def and_op(self, c) -> Built:
        return self._binary(A.BinOp, "and", c[0], c[2])

    def or_op(self, c) -> Built:
        return self._binary(A.BinOp, "or", c[0], c[2])

    def compare(self, c) -> Built:
        left, op, right = c
        return self._binary(A.Compare, str(op), left, right)

    def in_op(self, c) -> Built:
        return self._binary(A.Compare, "in", c[0], c[2])

    def not_in_op(self, c) -> Built:
        return self._binary(A.Compare, "not in", c[0], c[3])

    def _binary(self, cls, op: str, left: Built, right: Built) -> Built:
        a, b = left[1], right[2]
        depth = 1 + (left[3] if left[3] > right[3] else right[3])
        return cls(self._span(a, b), op, left[0], right[0]), a, b, depth

    def is_op(self, c) -> Built:
        obj, _is, cls = c
        return self._is(obj, cls, False)

    def is_not_op(self, c) -> Built:
        obj, _is, _not, cls = c
        return self._is(obj, cls, True)

    def _is(self, obj: Built, cls, negate: bool) -> Built:
        a, b = obj[1], cls.end_pos
        return A.IsClass(self._span(a, b), obj[0], str(cls), self._tspan(cls), negate), a, b, obj[3] + 1

    def ternary(self, c) -> Built:
        then, _if, cond, _else, other = c
        a, b = then[1], other[2]
        return A.Ternary(self._span(a, b), then[0], cond[0], other[0]), a, b, _depth(then, cond, other)

    def range(self, c) -> Built:
        low, _dots, high = c
        a, b = low[1], high[2]
        return A.Range(self._span(a, b), low[0], high[0]), a, b, _depth(low, high)


def split_template(raw: str, start: int, locate: Locator, parse_inner: Callable[[str, Locator, int], A.Expr],
                   escapes: bool = True) -> tuple:
    """Split a quoted string into literal text and {expression} parts.

    `raw` includes its quotes; `start` is the file offset of the opening quote.
    """
    body = raw[1:-1]
    parts: list = []
    buf = []
    i = 0
    while i < len(body):
        ch = body[i]
        if escapes and ch == "\\" and i + 1 < len(body):
            buf.append(_ESCAPES.get(body[i + 1], body[i + 1]))
            i += 2
            continue
        if ch == "{" and body[i + 1 : i + 2] == "{":
            buf.append("{")
            i += 2
            continue
        if ch == "}" and body[i + 1 : i + 2] == "}":
            buf.append("}")
            i += 2
            continue
        if ch == "{":
            close = body.find("}", i)
            if close < 0:
                raise DiagnosticError(
                    error("E102", "a '{' in a string opens an expression that is never closed",
                          locate(start + 1 + i, start + 2 + i), "write '{{' for a literal brace")
                )
            if buf:
                parts.append("".join(buf))
                buf = []
            inner = body[i + 1 : close]
            parts.append(parse_inner(inner, locate, start + 2 + i))
            i = close + 1
            continue
        buf.append(ch)
        i += 1
    if buf or not parts:
        parts.append("".join(buf))
    return tuple(parts)
