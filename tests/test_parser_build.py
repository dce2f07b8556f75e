"""The AST the parser builds while it parses (dsl/builder.py): spans, error order, depth, threads.

The span of every node must be exactly the text of the node: parsed again on its own, from
the same column, that text gives back the same node with the same spans (a span one token too
wide or too narrow fails to parse, or parses to another node).
"""

from __future__ import annotations

import gc
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import fields
from pathlib import Path

import pytest

from rulecraft.diagnostics import DiagnosticError
from rulecraft.dsl import ast as A
from rulecraft.dsl.parser import parse_expression, parse_statements, plain_locator
from rulecraft.loader import load_ruleset

ROOT = Path(__file__).resolve().parents[1]
LANGUAGE = ROOT / "docs" / "language.md"
_FENCE = re.compile(r"^```(dsl-expr|dsl-stmt)[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)

EXPRESSIONS = [
    "x", "42", "1.5", "'text'", "\"a {p.name} b {{c}}\"", "true", "false", "none",
    "(a + b) * c", "((a))", "-(x)", "- - x", "not (a or b)", "not not a",
    "a.b.c", "p.hand[0].value", "(p).hand[(0)]", "f()", "f(a, (b), k: (1 + 2))", "count(p.hand)",
    "[]", "[1]", "[1, (2), 3,]", "[c for c in p.hand]", "[(c) for c in (p.hand) if (c.value > 2)]",
    "a + b - c", "a * b // c % d / e", "1 .. (n)", "a == b", "(a) != (b)", "a < b", "x in [1, 2]",
    "x not in (y)", "c is card", "(c) is not card", "a and b or c and not d",
    "a if b else c", "(a) if (b) else (c) if d else e", "'{x + 1} and {f(y)}'", "  spaced  +  out  ",
    "sorted(q in players, by: q.score, descending: true)", "highest((c) in (p.hand), by: (c.value))",
]

STATEMENTS = [
    "move c to p.hand", "move (c) to (p.hand) bottom", "draw from deck", "draw 2 from deck to p.hand top as drawn",
    "draw (n) from (deck) as c", "shuffle deck", "reverse (p.hand)", "set x = 1", "set p.score = (p.score + 1)",
    "set t[0] = 2", "let y = [1, 2]", "x += 1", "p.coins -= (bid)", "roll 2d6", "roll dice by p against 7 as r",
    "roll 1d6 by (p)", "break", "break outer", "continue", "continue inner", "end turn", "call s",
    "call s with a: 1, b: (2)", "emit e with x: 1", "log 'hello {p.name}'", "win (p)",
    "add modifier m until end of turn", "add modifier m to p value (2) until end of round",
    "remove modifier m", "remove modifier m from (p)", "create zone in z", "create zone in z as q",
    "tally n", "tally n by (k) value 3", "pass", "pass;", "assert x > 1", "assert x, 'm {x}'", "x += 1; set y = 2 ; log y;",
    "call s as r", "call s with a: (1) as r", "return", "return (x + 1)", "return [q for q in players]",
    "tell p 'You drew {c}'", "show card to p", "show players[2].hand to [p, q]", "tell card.owner 'hi' + ' there'",
]


def _doc_examples() -> list[tuple[str, str]]:
    text = LANGUAGE.read_text(encoding="utf-8")
    out = []
    for kind, body in _FENCE.findall(text):
        for line in body.splitlines():
            line = re.sub(r"#.*$", "", line).strip() if "'" not in line and '"' not in line else line.strip()
            if line and not line.startswith("#"):
                out.append((kind, line))
    return out


def _nodes(node):
    yield node
    for f in fields(node):
        if f.name == "span":
            continue
        value = getattr(node, f.name)
        for v in value if isinstance(value, tuple) else (value,):
            if isinstance(v, A.Node):
                yield from _nodes(v)


def _check_spans(text: str, roots) -> int:
    checked = 0
    for root in roots:
        for node in _nodes(root):
            s = node.span
            assert s.line == s.end_line == 1
            piece = text[s.col - 1:s.end_col - 1]
            assert piece == piece.strip() and piece, (text, node)
            at = plain_locator(col=s.col)
            if isinstance(node, A.Stmt):
                assert parse_statements(piece, at) == (node,), (text, piece)
            elif isinstance(node, A.Expr):
                assert parse_expression(piece, at) == node, (text, piece)
            else:  # a keyword argument: 'name: value'
                name, _colon, rest = piece.partition(":")
                assert name == node.name and rest.strip()
            checked += 1
    return checked


def test_every_node_spans_exactly_its_text():
    checked = 0
    for text in EXPRESSIONS:
        checked += _check_spans(text, [parse_expression(text, plain_locator())])
    for text in STATEMENTS:
        checked += _check_spans(text, parse_statements(text, plain_locator()))
    docs = 0
    for kind, text in _doc_examples():
        parse = parse_expression if kind == "dsl-expr" else parse_statements
        try:
            roots = parse(text, plain_locator())
        except DiagnosticError:
            continue  # a line of a longer example; test_language_docs covers the examples themselves
        docs += 1
        checked += _check_spans(text, roots if isinstance(roots, tuple) else [roots])
    assert docs > 200 and checked > 900


def test_the_examples_build_every_kind_of_node():
    seen = set()
    for text in EXPRESSIONS:
        seen.update(type(n) for n in _nodes(parse_expression(text, plain_locator())))
    for text in STATEMENTS:
        for s in parse_statements(text, plain_locator()):
            seen.update(type(n) for n in _nodes(s))
    every = {c for c in vars(A).values() if isinstance(c, type) and issubclass(c, A.Node) and c.__dataclass_fields__
             and c not in (A.Node, A.Expr, A.Stmt)}
    assert every - seen == set()


def test_spans_of_brackets_and_keywords():
    e = parse_expression("(a + b) * c", plain_locator())
    assert (e.span.col, e.span.end_col) == (1, 12)  # the '(' belongs to the product
    assert (e.left.span.col, e.left.span.end_col) == (2, 7)  # not to the sum inside it
    n = parse_expression("not [x]", plain_locator())
    assert (n.span.col, n.span.end_col, n.operand.span.col) == (1, 8, 5)
    (d,) = parse_statements("  draw 2 from deck to hand bottom as c  ", plain_locator())
    assert (d.span.col, d.span.end_col) == (3, 39)


def _code(parse, text: str) -> str:
    with pytest.raises(DiagnosticError) as info:
        parse(text, plain_locator())
    return info.value.diagnostic.code


def test_a_syntax_error_comes_before_a_mistake_found_while_building():
    # the tree used to be built after the parse: keep reporting what the parse finds first
    assert _code(parse_expression, "1234567890123456789012 + 1") == "E106"
    assert _code(parse_expression, "1234567890123456789012 +") == "E101"
    assert _code(parse_statements, "set 1 = 2") == "E103"
    assert _code(parse_statements, "set 1 = 2; move") == "E101"
    assert _code(parse_expression, "'{x' + 1") == "E102"
    assert _code(parse_expression, "'{x' + (1") == "E101"
    assert _code(parse_expression, "'{1 +}' + 1") == "E101"


def test_the_first_mistake_found_while_building_is_reported():
    with pytest.raises(DiagnosticError) as info:
        parse_statements("set 1 = 2; set x = 1234567890123456789012", plain_locator())
    assert (info.value.diagnostic.code, info.value.diagnostic.span.col) == ("E103", 5)
    with pytest.raises(DiagnosticError) as info:
        parse_statements("set x = 1234567890123456789012; set 1 = 2", plain_locator())
    assert (info.value.diagnostic.code, info.value.diagnostic.span.col) == ("E106", 9)


@pytest.mark.parametrize("text", ["1" + " + 1" * 3000, "not " * 3000 + "x", "x" + ".a" * 3000])
def test_an_expression_too_deep_for_the_stack_is_e104(text):
    with pytest.raises(DiagnosticError) as info:
        parse_expression(text, plain_locator())
    d = info.value.diagnostic
    assert (d.code, d.message, d.span.col, d.span.end_col) == ("E104", "the expression is nested too deeply", 1,
                                                                 len(text) + 1)


def test_a_long_but_shallow_enough_expression_parses():
    e = parse_expression("1" + " + 1" * 200, plain_locator())
    assert isinstance(e, A.BinOp)


def test_parses_in_threads_give_the_same_nodes():
    texts = [(i, f"'{{x + {i}}}' + f(a, k: [c for c in p.hand]) * {i}") for i in range(200)]

    def parse(item):
        i, text = item
        return parse_expression(text, plain_locator(f"file{i}", i + 1, 3))

    expected = [parse(t) for t in texts]
    with ThreadPoolExecutor(max_workers=4) as ex:
        assert list(ex.map(parse, texts)) == expected


@pytest.mark.parametrize("enabled", [True, False])
def test_a_load_leaves_the_collector_as_it_found_it(enabled):
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        assert load_ruleset("pig").ok
        assert gc.isenabled() == enabled
    finally:
        (gc.enable if was else gc.disable)()
