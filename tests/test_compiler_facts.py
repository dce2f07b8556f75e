"""What the compiler knows of a value before it runs (compiler/facts.py) leaves out only checks that cannot fail.

Each expression gives the same value or error and is charged the same work both ways (closures and generated
code), on a roomy budget and on budgets that run out part way; and the generated source leaves out exactly the
guards the facts make needless.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from rulecraft.diagnostics import RuleError
from rulecraft.dsl.closures.compiler import Compiler
from rulecraft.compiler import expressions as codegen
from rulecraft.dsl.parser import parse_expression, plain_locator
from rulecraft.dsl.scope import FunctionDef, Scope, Symbol
from rulecraft.values import Roll

SYMBOLS = {"five": Symbol("const", 5, "number"), "pair": Symbol("const", [1, 2], "list"),
           "word": Symbol("const", "w" * 20, "str"),
           "huge": Symbol("const", 2**63, "number"), "many": Symbol("const", list(range(50)), "list"),
           "rec": Symbol("const", {"a": 1, "b": 2}, "any")}
LOCALS = {"x": 3, "n": -2, "xs": [1, "a", None], "ys": list(range(40)), "zs": list(range(40)),
          "nest": [[1, 2]] * 20, "big": 2**63, "t": "t" * 30, "bt": "b" * 100_000}

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
    # some of a flat list's items, as they are: flat too (no look at each item's type when added to)
    ("[y for y in 1..50 if y > x] + [1]", "-_CONTAINERS"), ("[y for y in [pair, [x]] if x > 1] + [1]", "+_CONTAINERS"),
    ("[y for y in [y * 2 for y in ys] if y > 3] + [y for y in 1..60]", "-_CONTAINERS"),
    ("[word] + [word]", "-_bounded"),
    ("count(xs) + 1", "-_bounded"), ("count(ys) - five", "-_bounded"), ("count(xs) - count(ys)", "-_bounded"),
    ("2 - count(ys)", "-_bounded"),  # small whole numbers: the sum cannot run away (facts.small_whole)
    ("count(xs) + 5000000000", "+_bounded"), ("count(xs) - x", "+_bounded"), ("count(xs) + big", "+_bounded"),
    ("count(xs) + huge", "+_bounded"),
    ("huge * 1.5 + huge * huge * 1.5", "+_bounded"),
    ("1.5 + count(ys)", "+_bounded"),
    ("(x > 1) + (x < 1)", "+_bounded"),
    ("big + 1", "+_bounded"),
    ("t + t", "+_bounded"),
    ("x + n", "+_bounded"), ("x + 1", "+_MAXI"), ("xs + 1", "+_MAXI"), ("t + 1", "+_MAXI"), ("1 + xs", "+_MAXI"),
    ("big + 1", "-is not float"), ("big * 2", "-is not float"), ("x * n - big", "-is not float"),
    ("big * big", "+_bounded"), ("x / 0", None), ("t * 2", None), ("(x > 1) + t", None), ("none + t", None),
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
    ("ys < x + 1", "-_compared"), ("xs >= 1 + n", "-_compared"), ("x + 1 < t", "-_compared"),  # a number + anything
    ("count(ys) - 1", "-_NUMBERS"), ("count(xs) * x", "+_NUMBERS"), ("count(ys) * 2 >= count(xs) - five", "-_NUMBERS"),
    ("x in ys", "+_member("), ("x in [1, 2, x]", "-_member("), ("3 in [y for y in ys]", "-_member("),
    ("'a' in t", "+_member("), ("'a' in rec", "+_member("), ("x in five", "+_member("), ("x not in ys", "+_member("),
    ("ys <= 3", "-_compared"),
    ("[five, 1, word]", "-_nested"),
    ("[pair, 1]", "+_nested"),
    ("[x, 1]", "+_nested"),
    ("[five, five, five, five, five, five, five, five, five, five]", "-_nested"),
    ("[five, five, five, five, five, five, five, five, five, five, five]", "+_nested"),
    ("[word, word, word, word, word, word, word, word, word, word, word]", "+_nested"),
    # the list's own check (guards.nested) written out for short flat lists: long texts in all still stop it
    ("[bt for y in 1..10]", "+_nested"), ("[bt for y in 1..11]", "+_nested"), ("[[bt] for y in 1..5]", "+_nested"),
    ("[bt, bt, bt, bt, bt, bt, bt, bt, bt, bt, bt]", "+_nested"), ("[bt, t, [bt]]", "+_nested"),
    # count(), any() and all() of a comprehension tally it without making the list (calls.py, _tally)
    ("count([y for y in ys if y > x])", "-append"), ("count([y * 2 for y in ys])", "-append"),
    ("any([y > 30 for y in ys])", "-append"), ("any([y > 30 for y in ys if y > n])", "-append"),
    ("all([y >= 0 for y in ys])", "-append"), ("all([y > 0 for y in ys if y < 20])", "-append"),
    ("any([y > 3 for y in xs])", "-append"), ("all([y for y in xs])", "-append"), ("any([y for y in []])", "-append"),
    ("all([y for y in [] if y])", "-append"), ("count([y / 0 for y in ys])", "-append"),
    ("any([y for y in ys if y > 100])", "-append"), ("any([y > 1 for y in ys if y < 17])", "-append"),
    ("any([[y] for y in ys])", "+append"), ("count([[y] for y in ys])", "+append"),
    # parts fixed at load: their value a constant, their work charged one by one with their spans (folding.py)
    ("count([y for y in many if y > 3])", "+fold"),
    ("count([y for y in [z * 2 for z in many] if y > 3]) + five", "+fold"),
    ("sum([y for y in pair]) * 2 == 6 and x > 1", "-for "),
    ("'{five} and {word}'", "+fold"),
    ("[y for y in many if y > 3]", "-fold"),  # a list: made afresh each time
    ("count(keys(rec))", "-fold"),  # a record: not proved unchanging
    ("count([y for y in many if y > x])", "-fold"),
    ("count([y for y in ys if y > 3])", "-fold"),
    ("many[99]", "-fold"),  # an error: raised when it runs
    ("count([count([z for z in 1..6000]) for y in 1..3])", "-fold"),  # more work than a probe may spend
    # a condition fixed at load: only the branch it takes is written (operators.py, _g_Ternary)
    ("[1] if five > 3 else [y * 2 for y in ys]", "-for "), ("[y * 2 for y in ys] if word == 'w' else [2]", "-for "),
    ("count([1] if five else [y for y in ys if y > x]) + 1", "-for "), ("[1] if pair else [y for y in ys]", "+for "), ("[1] if x > 3 else [y * 2 for y in ys]", "+for "),
    # a record's check (calls.py, _record): short flat list fields counted inline, anything else by record_scanned
    ("record(a: x, b: pair)", "+_record_scanned"), ("record(a: x, b: xs)", None), ("record(a: ys, b: 1)", None),
    ("record(a: pair, b: pair, c: pair, d: pair, e: pair, f: pair)", None), ("record(a: nest, b: [])", None),
    ("record(a: t, b: bt, c: x)", None), ("record(a: [x], b: five, c: pair, d: rec)", None),
    ("record(a: 1, b: [])", "-_record_scanned"),
    # two lists added, two numbers compared: no error to catch (operators.py)
    ("(['a'] if count(ys) > 1 else []) + (['b'] if count(xs) > five else [])", "-except TypeError"),
    ("count(ys) > 0", "-except TypeError"), ("count(xs) <= count(ys)", "-except TypeError"),
    ("count(ys) > x", "+except TypeError"), ("xs + ys", "+except TypeError"), ("[1] + xs", "+except TypeError"),
    ("x > 1.5", "+except TypeError"),
    # a branch's value, or either side's of 'and' and 'or', given to the node's own local by the line that makes it
    ("[1] if x > 1 else [2, 3]", "-copy"), ("count(xs) > 1 and count(ys) > 2", "-copy"),
    ("['a'] if count(ys) > 1 or count(xs) > five else []", "-copy"),
    ("[y for y in ys] if x > 1 else [2]", None), ("x > 1 or t", None),  # (a local named again; a read's raise last)
]


def _compiled(text: str, scope: Scope, on: bool):
    """The closure of `text`, or (on) the function the compiler writes of it, failures raised."""
    node = parse_expression(text, plain_locator("<test>"))
    old = codegen.STRICT
    codegen.STRICT = True
    try:
        fn = Compiler(scope, []).expr(node)[0]
        if on:
            got = codegen.written(fn)
            assert got is not None, text
            return got[2]
        return fn
    finally:
        codegen.STRICT = old


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
    for budget in (10_000, 100, 60, 5, 4, 3, 2, 1, 0):
        assert _run(closure, budget) == _run(generated, budget), (text, budget)
    src = generated.source
    if guard is not None and guard[1:] == "fold":
        assert bool(re.search(r"return _k[0-9]+$", src.strip())) == (guard[0] == "+"), (text, src)
    elif guard is not None and guard[1:] == "copy":
        copy = r"^( *)(_v[0-9]+) = .*\n\1_v[0-9]+ = \2$"  # a value made on one line, copied on the next
        assert bool(re.search(copy, src, re.M)) == (guard[0] == "+"), (text, src)
    elif guard is not None:
        name = guard[1:]
        assert (name in src) == (guard[0] == "+"), (text, src)


# ------------------------------------------------------------------ items known to be cards
CARD_LOOPS = [
    "[c.value for c in deck if c is resource]", "[c.buyer for c in deck]", "[c is joker for c in [card, 1, p, none]]",
    "[c.value for c in [card, p]]", "[c.value for c in [card, offer] if c is not power]",
    "sorted(c in deck, by: c.value)", "highest(c in p.hand, by: c.buyer)", "[c.suit for c in p.hand if c is not resource]",
    "[[d.rank for d in deck if d is resource and d.suit == c.suit] for c in p.hand]",
    "count([c for c in keys(stocks) if c is resource])", "[c.value for c in p]",
    "count([c for c in cards if c is joker])", "sum([c.value for c in cards if c is resource]) > count(deck)",
    # records, table rows, rolls and owners read inline (operators.py, calls.py)
    "wheel['iron'].primary", "wheel['gold']", "wheel[card.suit].primary", "wheel[p]", "record(a: 1, b: p).b",
    "record(a: 1).c", "record(a: 1)['a']", "record(a: 1)['z']", "[x['a'] for x in [record(a: 2), [5]]]",
    "[x['gold'] for x in [wheel]]", "[x['iron'].primary for x in [wheel]]", "r.total + r.faces[0]", "r.result", "r.success", "r.doubles", "r.missing", "card.total", "p.result",
    "owner(p.hand)", "owner(card)", "owner(deck)", "owner(5)", "owner(none)",
    "count([1] + [2])", "empty([c for c in deck if c is joker])", "empty(p.hand)", "empty(deck)", "empty(discard)",
    "empty(none)", "empty(5)", "[empty(x) for x in [[], [1], deck, keys(wheel)]]", "count([c for c in deck if c is joker] + [])",
]


@pytest.fixture(scope="module")
def reference():
    from rulecraft.loader import load_ruleset
    from rulecraft.runtime.game import Game

    rs = load_ruleset("reference").ruleset
    import test_language_docs as docs

    scope = docs.build.scope_for(rs).with_locals({"p", "card", "offer", "r"})
    g = Game(rs, None, 7)
    cards = list(rs.cards)
    return SimpleNamespace(scope=scope, game=g, values={"p": g.players[0], "card": cards[0], "offer": cards[-1],
                                                        "r": Roll("pair", (3, 3), "lucky", None, None)})


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
    if "in cards" in text:  # the ruleset's cards never change: the part is worked out when generated
        assert "for " not in fn.source
    elif " is " in text or "c.value for c in deck" in text:
        assert "is _ZoneRef" in fn.source  # the flag of a loop whose items may be a zone's cards


@pytest.mark.parametrize("text, expected", [
    ("sum([1, 2.5, 3])", ("value", "6.5")),
    ("sum([1, true])", ("error", "expected numbers, got true")),
    ("sum([1, 'a', true])", ("error", "expected numbers, got the text 'a'")),
    ("flatten([deck, [1], p.hand]) == cards(deck) + [1] + cards(p.hand)", ("value", "True")),
    ("count(flatten([deck, deck])) == 2 * count(deck)", ("value", "True")),
])
def test_builtins_fast_paths_give_what_they_gave(text, expected, reference):
    """sum()'s check of its numbers and flatten() of zones take a fast path for the common case (builtins.py)."""
    for on in (False, True):
        g = reference.game.copy()
        g.locals = dict(reference.values)
        try:
            got = ("value", repr(_compiled(text, reference.scope, on)(g)))
        except RuleError as e:
            got = ("error", e.message)
        assert got == expected, (text, on)


@pytest.mark.parametrize("text", [
    "flatten([q.hand for q in players if q != p])", "count(flatten([q.hand for q in players]))",
    "flatten([z for z in keys(stocks) if not empty(z)])", "[z for z in keys(stocks) if empty(z)] + [1]",
    "flatten([q.hand for q in players] + [[1]])", "flatten([[q.hand] for q in players])"])
def test_zone_refs_known_in_a_list_are_read_without_tests(text, reference):
    """A list of zone refs only (a player's zone of each player, a fixed family's zones, or some of them): a loop
    over it reads each as a zone ref, and flatten() of it adds each zone's cards with no test of what each item is,
    giving what the closures give."""
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
    src = fn.source
    if "[[" in text or "[1]]" in text:  # not zone refs only: each item looked at
        assert "_as_list" in src, (text, src)
    else:
        assert "_as_list" not in src and "_CONTAINERS" not in src and "is list" not in src, (text, src)


# ruleset functions: what their body gives is what a call gives (facts.list_fact, facts.numeric)
FUNCTIONS = {"twice": (("a",), "[a, a]"), "double": (("a",), "a * 2"), "evens": (("a",), "[y for y in a if y % 2 == 0]"),
             "either": (("a", "b"), "double(a) + double(b)")}
CALLS = [("count(twice(x))", "-_ZoneRef"), ("count(twice(n)) + count(twice(t))", "-_ZoneRef"), ("count(evens(ys))", "+_ZoneRef"),
         ("double(x) + x", "-is not float"), ("either(x, n) + big", "-is not float"), ("double(big) + big", "+_bounded"),
         ("count(twice(xs))", "-_ZoneRef"), ("empty(evens(zs))", None), ("double(t) + 1", None),
         ("either(x, x) + t", None), ("twice(x) + twice(n)", "-is not float")]


@pytest.fixture(scope="module")
def function_scope() -> Scope:
    sc = Scope(dict(SYMBOLS), set(), set(), set(), set(), set(), {}, {}, set(LOCALS))
    for name, (params, body) in FUNCTIONS.items():
        node = parse_expression(body, plain_locator("<fn>"))
        sc.functions[name] = FunctionDef(name, params, node, node.span)
    for fd in list(sc.functions.values()):
        Compiler(sc, []).function_body(fd, fd.span)
    return sc


@pytest.mark.parametrize("text, guard", CALLS)
def test_calls_of_ruleset_functions_are_known_by_their_bodies(text, guard, function_scope):
    test_the_same_value_error_and_work_both_ways(text, guard, function_scope)


def test_the_budget_left_is_worked_out_once_and_a_context_without_one_is_only_counted(scope):
    """A function that charges work several times reads the steps and the budget once (writing.build); a context
    without them (a stand-in for a game) has its work counted once per charge, as guards.charge does."""
    text = "count([y for y in ys if y > 2]) + count([[y] for y in zs])"
    generated = _compiled(text, scope, True)
    assert generated.source.count("ctx.max_steps - ctx.steps") == 1 and "ctx.steps + _cw" not in generated.source
    for fn in (_compiled(text, scope, False), generated):
        ctx = SimpleNamespace(locals={k: (list(v) if isinstance(v, list) else v) for k, v in LOCALS.items()},
                              vars={}, marks={}, players=[], work=0)
        assert fn(ctx) == 77 and ctx.work == 80
    single = _compiled("[y for y in ys]", scope, True)
    assert "ctx.steps + _cw > ctx.max_steps" in single.source  # one charge: nothing to gain
