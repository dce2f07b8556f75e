"""What codegen knows of a value before it runs (dsl/codegen/facts.py) leaves out only checks that cannot fail.

Each expression gives the same value or error and is charged the same work both ways (closures and generated
code), on a roomy budget and on budgets that run out part way; and the generated source leaves out exactly the
guards the facts make needless.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from rulecraft.diagnostics import RuleError
from rulecraft.dsl.closures.compiler import Compiler
from rulecraft.dsl.codegen import generator as codegen
from rulecraft.dsl.codegen import hotcode as H
from rulecraft.dsl.parser import parse_expression, plain_locator
from rulecraft.dsl.scope import Scope, Symbol

SYMBOLS = {"five": Symbol("const", 5, "number"), "pair": Symbol("const", [1, 2], "list"),
           "word": Symbol("const", "w" * 20, "str"),
           "huge": Symbol("const", 2**63, "number")}
LOCALS = {"x": 3, "n": -2, "xs": [1, "a", None], "ys": list(range(40)), "zs": list(range(40)),
          "nest": [[1, 2]] * 20, "big": 2**63, "t": "t" * 30}

# (expression, what the generated source must hold: +guard, -guard)
CASES = [
    ("[1] + ([2] if x > 1 else [])", "-_bounded"),
    ("([five] if x > 1 else []) + ([2, 3] if x < 1 else [4])", "-_bounded"),
    ("[1, 2, 3, 4, 5] + [6, 7, 8, 9, 10, 11]", "+_bounded"),
    ("[[1]] + [[2]]", "+_bounded"),
    ("[pair] + [1]", "+_bounded"),
    ("[y for y in ys] + [1]", "+_bounded"),
    ("[y * 2 for y in ys] + [1]", "+_bounded"),
    ("[y * 2 for y in ys if y > 3] + [y + 1 for y in zs]", "+_bounded"),
    ("[[y] for y in ys] + [[1]]", "+_bounded"),
    ("[word] + [word]", "-_bounded"),
    ("count(xs) + 1", "+_bounded"),
    ("count(xs) + huge", "+_bounded"),
    ("huge * 1.5 + huge * huge * 1.5", "+_bounded"),
    ("1.5 + count(ys)", "+_bounded"),
    ("(x > 1) + (x < 1)", "+_bounded"),
    ("big + 1", "+_bounded"),
    ("t + t", "+_bounded"),
    ("x + n", "+_bounded"),
    ("1 + 'a'", None),
    ("none + 1", None),
    ("ys == zs", "+_compared"),
    ("ys == pair", "+_compared"),
    ("nest == nest", "+_compared"),
    ("ys == 3", "-_compared"),
    ("ys != five", "-_compared"),
    ("count(ys) == count(zs)", "-_compared"),
    ("word == t", "-_compared"),
    ("ys < zs", "+_compared"),
    ("ys <= 3", "-_compared"),
    ("[five, 1, word]", "-_nested"),
    ("[pair, 1]", "+_nested"),
    ("[x, 1]", "+_nested"),
    ("[five, five, five, five, five, five, five, five, five, five]", "-_nested"),
    ("[five, five, five, five, five, five, five, five, five, five, five]", "+_nested"),
    ("[word, word, word, word, word, word, word, word, word, word, word]", "+_nested"),
]


def _compiled(text: str, scope: Scope, on: bool):
    node = parse_expression(text, plain_locator("<test>"))
    old = H.CODEGEN, H.HOT, codegen.STRICT
    H.CODEGEN, H.HOT, codegen.STRICT = on, 1, True
    try:
        fn = Compiler(scope, []).expr(node)[0]
        if on:
            assert H.generated_source(fn) is not None, text  # generated now, failures raised
        return fn
    finally:
        H.CODEGEN, H.HOT, codegen.STRICT = old


def _run(fn, max_steps: int) -> tuple:
    ctx = SimpleNamespace(locals={k: (list(v) if isinstance(v, list) else v) for k, v in LOCALS.items()}, vars={},
                          marks={}, players=[], steps=0, work=0, max_steps=max_steps)
    try:
        out = ("value", repr(fn(ctx)))
    except RuleError as e:
        out = ("error", e.message, e.span, e.hint, e.code)
    return out, ctx.work


@pytest.fixture(scope="module")
def scope() -> Scope:
    return Scope(dict(SYMBOLS), set(), set(), set(), set(), set(), {}, {}, set(LOCALS))


@pytest.mark.parametrize("text, guard", CASES)
def test_the_same_value_error_and_work_both_ways(text, guard, scope):
    closure, generated = _compiled(text, scope, False), _compiled(text, scope, True)
    for budget in (10_000, 3, 2, 1, 0):
        assert _run(closure, budget) == _run(generated, budget), (text, budget)
    src = generated.source
    if guard is not None:
        name = guard[1:]
        assert (name in src) == (guard[0] == "+"), (text, src)


# ------------------------------------------------------------------ items known to be cards
CARD_LOOPS = [
    "[c.value for c in deck if c is resource]", "[c.buyer for c in deck]", "[c is joker for c in [card, 1, p, none]]",
    "[c.value for c in [card, p]]", "[c.value for c in [card, offer] if c is not power]",
    "sorted(c in deck, by: c.value)", "highest(c in p.hand, by: c.buyer)", "[c.suit for c in p.hand if c is not resource]",
    "[[d.rank for d in deck if d is resource and d.suit == c.suit] for c in p.hand]",
    "count([c for c in keys(stocks) if c is resource])", "[c.value for c in p]",
]


@pytest.fixture(scope="module")
def reference():
    from rulecraft.loader import load_ruleset
    from rulecraft.runtime.game import Game

    rs = load_ruleset("reference").ruleset
    import test_language_docs as docs

    scope = docs.build.scope_for(rs).with_locals({"p", "card", "offer"})
    g = Game(rs, None, 7)
    cards = list(rs.cards)
    return SimpleNamespace(scope=scope, game=g, values={"p": g.players[0], "card": cards[0], "offer": cards[-1]})


@pytest.mark.parametrize("text", CARD_LOOPS)
def test_loops_over_a_zone_read_their_cards_directly(text, reference):
    outcomes = []
    for on in (False, True):
        fn = _compiled(text, reference.scope, on)
        g = reference.game.copy()
        g.locals = dict(reference.values)
        before = getattr(g, "work", 0)
        try:
            out = ("value", repr(fn(g)))
        except RuleError as e:
            out = ("error", e.message, e.span, e.hint, e.code)
        outcomes.append((out, getattr(g, "work", 0) - before))
    assert outcomes[0] == outcomes[1], text
    if " is " in text or "c.value for c in deck" in text:
        assert "is _ZoneRef" in fn.source  # the flag of a loop whose items may be a zone's cards
