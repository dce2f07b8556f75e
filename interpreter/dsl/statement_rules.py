"""The parser's callbacks for statements and their parts (see builder.py for how callbacks work)."""

from __future__ import annotations

from typing import Any, Callable

from ..diagnostics import DiagnosticError, Span, error
from . import ast as A

# (value, start offset, end offset, depth): what each callback leaves on the parser's stack
Built = tuple


def _end(*parts) -> int:
    """The end offset of the last part that is present (a Built tuple or a Token)."""
    for p in reversed(parts):
        if p is not None:
            return p[2] if type(p) is tuple else p.end_pos
    raise AssertionError("a rule with no tokens")  # pragma: no cover - every rule has a keyword


def _depth(*parts) -> int:
    """One more than the deepest of the Built parts present (tokens count for nothing)."""
    return 1 + max((p[3] for p in parts if type(p) is tuple), default=0)


class StatementRules:
    """The callbacks of the statement rules of grammar.lark: each builds an A.Stmt with the span of its tokens."""

    # what AstBuilder (builder.py), the class these rules are part of, gives them
    _span: Callable[[int, int], Span]
    _tspan: Callable[[Any], Span]
    _keep: Callable[[DiagnosticError], None]

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

    def under(self, c) -> Built:
        kw, depth = c
        return ("under", depth[0]), kw.start_pos, depth[2], depth[3] + 1

    def move_stmt(self, c) -> Built:
        kw, what, _to, dest, place = c
        under = place[0][1] if place and isinstance(place[0], tuple) else None
        side = place[0] if place and under is None else "top"
        return self._stmt(lambda s: A.Move(s, what[0], dest[0], side, under), kw, what, dest, place)

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
        target = seq[0]
        if isinstance(target, A.Name):  # call SEQUENCE
            return self._stmt(lambda s: A.CallSeq(s, target.id, target.span, kwargs[0] if kwargs else (),
                                                  bind[0] if bind else None), kw, seq, kwargs, bind)
        # call TABLE[KEY].COLUMN: the sequence a table's row names
        return self._stmt(lambda s: A.CallSeq(s, "", target.span, kwargs[0] if kwargs else (),
                                              bind[0] if bind else None, target), kw, seq, kwargs, bind)

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

    def show_stmt(self, c) -> Built:
        kw, what, _to, player = c
        return self._stmt(lambda s: A.Show(s, what[0], player[0]), kw, what, player)

    def win_stmt(self, c) -> Built:
        kw, who = c
        return self._stmt(lambda s: A.Win(s, who[0]), kw, who)

    def add_mod_stmt(self, c) -> Built:
        kw, _modifier, name, to, value, _until, (until, nxt) = c
        return self._stmt(lambda s: A.AddModifier(s, str(name), self._tspan(name), to[0] if to else None,
                                                  value[0] if value else None, str(until), self._tspan(until), nxt),
                          kw, to, value, until)

    def until_end(self, c):
        return c[-1], False

    def until_next(self, c):
        return c[-1], True

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

    def assert_stmt(self, c) -> Built:
        kw, cond, _comma, message = c
        return self._stmt(lambda s: A.Assert(s, cond[0], message[0] if message else None), kw, cond, message)
