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

Locator = Callable[[int, int], Span]

# (value, start offset, end offset, depth): what each callback leaves on the parser's stack
Built = tuple

_ESCAPES = {"n": "\n", "t": "\t"}


def _end(*parts) -> int:
    """The end offset of the last part that is present (a Built tuple or a Token)."""
    for p in reversed(parts):
        if p is not None:
            return p[2] if type(p) is tuple else p.end_pos
    raise AssertionError("a rule with no tokens")  # pragma: no cover - every rule has a keyword


def _depth(*parts) -> int:
    """One more than the deepest of the Built parts present (tokens count for nothing)."""
    return 1 + max((p[3] for p in parts if type(p) is tuple), default=0)


class AstBuilder(threading.local):
    """The callbacks; what they need to know about the text being parsed is per thread.

    `begin` sets the locator and offset of one parse and returns what it replaced, so that the
    {expression} of a string can be parsed inside the callback of the string (see `str_lit`).
    """

    def __init__(self, parse_inner: Callable[[str, Locator, int], A.Expr]):
        self.parse_inner = parse_inner
        self.locate: Optional[Locator] = None
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
        pos, kw = [], []
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

    # -- parts of statements: a value, and the text they cover
    def place(self, c) -> Built:
        (tok,) = c
        return str(tok), tok.start_pos, tok.end_pos, 1

    def dest(self, c) -> Built:
        kw, zone, place = c
        return (zone[0], place[0] if place else "top"), kw.start_pos, _end(zone, place), _depth(zone, place)

    def as_name(self, c) -> Built:
        kw, name = c
        return str(name), kw.start_pos, name.end_pos, 1

    def _keyword_then_expr(self, c) -> Built:
        kw, value = c
        return value[0], kw.start_pos, value[2], value[3] + 1

    roller = against = mod_to = mod_value = mod_from = tally_by = _keyword_then_expr

    def with_args(self, c) -> Built:
        kwargs = c[1::2]  # after 'with': the arguments and the ',' between them
        return tuple(k[0] for k in kwargs), c[0].start_pos, kwargs[-1][2], _depth(*kwargs)

    # -- statements: each starts with its keyword, except `x += 1`
    def _stmt(self, node_of: Callable[[Span], A.Stmt], kw, *rest) -> Built:
        a, b = kw.start_pos, _end(kw, *rest)
        return node_of(self._span(a, b)), a, b, _depth(*rest)

    def move_stmt(self, c) -> Built:
        kw, what, _to, dest, place = c
        return self._stmt(lambda s: A.Move(s, what[0], dest[0], place[0] if place else "top"), kw, what, dest, place)

    def draw_stmt(self, c) -> Built:
        kw, count, _from, source, dest, bind = c
        zone, place = dest[0] if dest else (None, "top")
        return self._stmt(lambda s: A.Draw(s, count[0] if count else None, source[0], zone, place,
                                           bind[0] if bind else None), kw, count, source, dest, bind)

    def shuffle_stmt(self, c) -> Built:
        kw, zone = c
        return self._stmt(lambda s: A.Shuffle(s, zone[0]), kw, zone)

    def reverse_stmt(self, c) -> Built:
        kw, zone = c
        return self._stmt(lambda s: A.Reverse(s, zone[0]), kw, zone)

    def set_stmt(self, c) -> Built:
        kw, target, _eq, value = c
        return self._stmt(lambda s: A.Assign(s, self._target(target[0]), "=", value[0]), kw, target, value)

    def aug_stmt(self, c) -> Built:
        target, op, value = c
        a, b = target[1], value[2]
        node = A.Assign(self._span(a, b), self._target(target[0]), str(op), value[0])
        return node, a, b, _depth(target, value)

    def _target(self, node: A.Expr) -> A.Expr:
        if not isinstance(node, (A.Name, A.Attr, A.Index)):
            self._keep(DiagnosticError(
                error("E103", "only a variable, an attribute or an indexed entry can be assigned", node.span,
                      "e.g. 'set target = 5', 'set p.score = 0', 'p.coins -= bid'")
            ))
        return node

    def let_stmt(self, c) -> Built:
        kw, name, _eq, value = c
        return self._stmt(lambda s: A.Let(s, str(name), value[0]), kw, name, value)

    def roll_stmt(self, c) -> Built:
        kw, dice, by, against, bind = c
        return self._stmt(lambda s: A.Roll(s, str(dice), self._tspan(dice), by[0] if by else None,
                                           against[0] if against else None, bind[0] if bind else None),
                          kw, dice, by, against, bind)

    def break_stmt(self, c) -> Built:
        kw, loop = c
        return self._stmt(lambda s: A.Break(s, str(loop) if loop else None), kw, loop)

    def continue_stmt(self, c) -> Built:
        kw, loop = c
        return self._stmt(lambda s: A.Continue(s, str(loop) if loop else None), kw, loop)

    def end_stmt(self, c) -> Built:
        kw, kind = c
        return self._stmt(lambda s: A.End(s, str(kind), self._tspan(kind)), kw, kind)

    def call_stmt(self, c) -> Built:
        kw, seq, kwargs, bind = c
        return self._stmt(lambda s: A.CallSeq(s, str(seq), self._tspan(seq), kwargs[0] if kwargs else (),
                                              bind[0] if bind else None), kw, seq, kwargs, bind)

    def return_stmt(self, c) -> Built:
        kw, value = c
        return self._stmt(lambda s: A.Return(s, value[0] if value else None), kw, value)

    def emit_stmt(self, c) -> Built:
        kw, event, kwargs = c
        return self._stmt(lambda s: A.Emit(s, str(event), self._tspan(event), kwargs[0] if kwargs else ()),
                          kw, event, kwargs)

    def log_stmt(self, c) -> Built:
        kw, message = c
        return self._stmt(lambda s: A.Log(s, message[0]), kw, message)

    def tell_stmt(self, c) -> Built:
        kw, player, message = c
        return self._stmt(lambda s: A.Tell(s, player[0], message[0]), kw, player, message)

    def win_stmt(self, c) -> Built:
        kw, who = c
        return self._stmt(lambda s: A.Win(s, who[0]), kw, who)

    def add_mod_stmt(self, c) -> Built:
        kw, _modifier, name, to, value, _until, _end_kw, _of, until = c
        return self._stmt(lambda s: A.AddModifier(s, str(name), self._tspan(name), to[0] if to else None,
                                                  value[0] if value else None, str(until), self._tspan(until)),
                          kw, to, value, until)

    def remove_mod_stmt(self, c) -> Built:
        kw, _modifier, name, target = c
        return self._stmt(lambda s: A.RemoveModifier(s, str(name), self._tspan(name), target[0] if target else None),
                          kw, name, target)

    def create_zone_stmt(self, c) -> Built:
        kw, _zone, _in, family, bind = c
        return self._stmt(lambda s: A.CreateZone(s, str(family), self._tspan(family), bind[0] if bind else None),
                          kw, family, bind)

    def tally_stmt(self, c) -> Built:
        kw, metric, key, value = c
        return self._stmt(lambda s: A.Tally(s, str(metric), self._tspan(metric), key[0] if key else None,
                                            value[0] if value else None), kw, metric, key, value)

    def pass_stmt(self, c) -> Built:
        (kw,) = c
        return self._stmt(A.Pass, kw)


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
