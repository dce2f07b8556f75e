"""Loops the compiler writes (compiler/calls.py `_loop_over`): a part the same in every pass worked out once
(expressions.Generator._kept), and a pass over a zone's cards written apart from a pass over any other list
(writing.by_flag). Both must give the closures' values, errors and work, pass by pass."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from rulecraft.compiler import expressions as codegen
from rulecraft.compiler.folding import read_at_once as _tested_at_once
from rulecraft.compiler.writing import by_flag, names
from rulecraft.dsl.closures.compiler import Compiler
from rulecraft.dsl.parser import parse_expression, plain_locator
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game

import test_language_docs as docs

CASES = [
    # (text, the body written twice: for a zone's cards and for any other list, a part kept)
    # a zone's cards: an attribute and a class read without isinstance; a part the same in every pass (offer.value > 0)
    ("[c.value for c in p.hand if c.value > bid and offer.value > 0]", True, True),
    ("[c for c in p.hand if c is resource and not (c is building)]", True, False),
    # a comparison that may charge work (values that may be lists): never kept
    ("count([c for c in p.hand if c is resource and offer.value >= bid])", True, False),
    # a list of cards and other values: the other copy of the body (its tests of what each item is), and its errors
    ("[c for c in [card, offer] if c is resource and offer.value > 0]", True, True),
    ("[c for c in [card, 3] if c is resource and offer.value > 0]", True, True),
    ("[c.value for c in [card, 3] if offer.value > 0]", True, True),
    # no card read: one body; a part that changes with the item is not kept (offer.value is)
    ("[x for x in [1, 2, 3] if x > bid and offer.value > 0]", False, True),
    ("[x for x in [1, 2, 3] if x + bid > 2]", False, False),
]


@pytest.fixture(scope="module")
def reference():
    rs = load_ruleset(str(docs.REFERENCE)).ruleset
    return SimpleNamespace(ruleset=rs, scope=docs.build.scope_for(rs).with_locals(docs.local_names(rs)))


def _game(ref):
    g = Game(ref.ruleset, None, 7)
    cards = list(ref.ruleset.cards)
    g.locals = {"p": g.players[0], "card": cards[0], "offer": cards[1], "bid": 2}
    return g


def _outcome(fn, g):
    try:
        value = repr(fn(g))
    except Exception as exc:  # noqa: BLE001 - the same error both ways is what is asserted
        value = (type(exc).__name__, getattr(exc, "message", str(exc)))
    return value, g.work


@pytest.mark.parametrize("text,twice,kept", CASES)
def test_a_loop_gives_the_closures_values_errors_and_work(text, twice, kept, reference, monkeypatch):
    monkeypatch.setattr(codegen, "STRICT", True)
    node = parse_expression(text, plain_locator("<test>"))
    closure = Compiler(reference.scope, []).expr(node)[0]
    got = codegen.written(closure)
    assert got is not None
    src, fn = got[0], got[2]
    assert ("is _MISSING:" in src) is kept, src
    lines = [line.strip() for line in src.split("\n")]
    assert any(a == "else:" and b.startswith("for ") for a, b in zip(lines, lines[1:])) is twice, src
    assert _outcome(fn, _game(reference)) == _outcome(closure, _game(reference)), text


@pytest.mark.parametrize("text", ["[count([c for c in p.hand if c.value > x]) for x in [1, 2, 3]]",
                                  "[count([c for c in offer.value]) for x in [1, 2]]"])  # (an error: not a list)
def test_the_list_of_a_kept_value_is_read_with_it_in_the_first_pass(text, reference, monkeypatch):
    """The inner loop's iterable is the same in every pass of the outer one (kept): so are its list and whether its
    items are cards, worked out in the same first pass, in the same block; the values, errors and work as before."""
    monkeypatch.setattr(codegen, "STRICT", True)
    node = parse_expression(text, plain_locator("<test>"))
    closure = Compiler(reference.scope, []).expr(node)[0]
    src, fn = codegen.written(closure)[0], codegen.written(closure)[2]
    lines = src.split("\n")
    kept = [i for i, line in enumerate(lines) if line.strip().endswith("is _MISSING:")]
    assert len(kept) == 1, src
    pad = len(lines[kept[0]]) - len(lines[kept[0]].lstrip())
    listing = next(i for i, line in enumerate(lines) if "_as_list(" in line)
    assert listing > kept[0] and len(lines[listing]) - len(lines[listing].lstrip()) > pad, src
    assert all(len(line) - len(line.lstrip()) > pad for line in lines[kept[0] + 1:listing]), src
    assert _outcome(fn, _game(reference)) == _outcome(closure, _game(reference)), text


def test_by_flag_writes_each_case_without_its_tests():
    body = ["_v3 = _k1 in _v2.classes if _v9 else isinstance(_v2, _Card) and _k1 in _v2.classes",
            "if not _v9 and type(_v4) in _LIST_DICT:",
            "    _compared(ctx, _v4, _v5, _k2)",
            "_v6 = _v4 == _v5"]
    cards, other = by_flag(body, "_v9")
    assert cards == ["_v3 = _k1 in _v2.classes", "pass", "_v6 = _v4 == _v5"]
    assert other == ["_v3 = isinstance(_v2, _Card) and _k1 in _v2.classes", "if type(_v4) in _LIST_DICT:",
                     "    _compared(ctx, _v4, _v5, _k2)", "_v6 = _v4 == _v5"]
    assert by_flag(["for _v1 in _v2:", "    _v3 = _v9"], "_v9") is None  # a loop inside: not copied
    assert by_flag(["_v3 = _v9"], "_v9") is None  # the flag read some other way
    assert by_flag(["_v3 = _v91 if _v90 else _v1"], "_v9") == (["_v3 = _v91 if _v90 else _v1"],) * 2


@pytest.mark.parametrize("text,written", [
    ("owner(card) == p or owner(card) == none", 1),
    ("owner(card) != none and (zone_of(card) == p.hand or zone_of(card) == deck) and owner(card) == p", 2),
    ("[owner(c) for c in deck if owner(c) == none] + [owner(card)]", 2),  # (an item's in each pass, and another)
    ("(owner(card) if bid > 1 else none) == owner(card)", 2),  # the first only on one way: worked out again
    ("[owner(card) for c in deck if bid > 1] + [owner(card)]", 2),  # (inside a loop: not on every way after it)
])
def test_a_look_up_made_on_every_way_here_is_read_from_its_local(text, written, reference, monkeypatch):
    """owner() and zone_of() of the same names give the same value anywhere in one expression: a later call on every
    way from an earlier one reads its local (expressions.Generator.same_call); the values, errors and work as before."""
    monkeypatch.setattr(codegen, "STRICT", True)
    closure = Compiler(reference.scope, []).expr(parse_expression(text, plain_locator("<test>")))[0]
    src, fn = codegen.written(closure)[0], codegen.written(closure)[2]
    assert len(re.findall(r"_k[0-9]+\(ctx, _k[0-9]+, _v[0-9]+\)", src)) == written, src  # (the built-in's call)
    assert _outcome(fn, _game(reference)) == _outcome(closure, _game(reference)), text


def test_a_value_only_tested_is_tested_where_it_is_worked_out(reference, monkeypatch):
    """`_vN = E` then `if not _vN:`, _vN read nowhere else: written `if not (E):` (writing._tested_at_once); a `pass`
    after another statement of its block left out; the values, errors and work as before."""
    monkeypatch.setattr(codegen, "STRICT", True)
    text = "count([c for c in p.hand if c is resource and c.value > bid])"
    closure = Compiler(reference.scope, []).expr(parse_expression(text, plain_locator("<test>")))[0]
    src, fn = codegen.written(closure)[0], codegen.written(closure)[2]
    assert re.search(r"if not \(_k[0-9]+ in _v[0-9]+\.classes\):", src), src
    assert _outcome(fn, _game(reference)) == _outcome(closure, _game(reference)), text
    whole = "_v1 = _k1 > _v2\nif not _v1:\n    pass\n_v3 = _k2\nif _v3:\n    _v4 = _v3"
    lines = whole.split("\n")
    assert _tested_at_once(lines, whole) == ["if not (_k1 > _v2):", "    pass", "_v3 = _k2", "if _v3:", "    _v4 = _v3"]
    assert _tested_at_once(["_v1 = _v2 = _k1", "if _v1:", "    _v3 = _k2", "    pass"], "_v1 _v1") == \
        ["_v1 = _v2 = _k1", "if _v1:", "    _v3 = _k2"]  # (a chain of assignments is left; the pass after a line is not)
    assert _tested_at_once(["_v1 = _k1 == _v2", "if _v1:", "    x"], "_v1 _v1 _v1") == ["_v1 = _k1 == _v2", "if _v1:", "    x"]


@pytest.mark.parametrize("text,written", [
    # a card's attribute read once, first on the next line: the line reads it where it is worked out
    ("count([c for c in p.hand if c is resource and c.value == 2])", r"if not \(\(_v[0-9]+\.attrs\.get\(_k[0-9]+\)\) =="),
    # past the test that an item is a card (a list that holds cards), its attribute read without testing it again
    ("[c.value for c in [card, offer] if c is resource]", r"_v[0-9]+\.attrs\[_k[0-9]+\] if _k[0-9]+ in _v[0-9]+\.attrs"),
    ("[c.value for c in [card, 3] if c is resource and c.value > 0]", r"_v[0-9]+\.attrs\[_k[0-9]+\] if _k[0-9]+ in _v"),
    ("[c.value if c is resource else 0 for c in [card, 3, offer]]", r"_v[0-9]+\.attrs\[_k[0-9]+\] if _k[0-9]+ in _v"),
    ("[c.value if c is resource else c.value for c in [card, 3]]", r"_v[0-9]+\.attrs\[_k[0-9]+\] if _k[0-9]+ in _v"),
])
def test_a_value_read_at_once_and_a_card_tested_once(reference, monkeypatch, text, written):
    """folding.read_at_once: `_vN = E` then a line that reads _vN first: E written there; folding.cards_known: past
    `isinstance(c, _Card) and ...` no second test of c's type. The closures' values, errors and work, as before."""
    monkeypatch.setattr(codegen, "STRICT", True)
    closure = Compiler(reference.scope, []).expr(parse_expression(text, plain_locator("<test>")))[0]
    src, fn = codegen.written(closure)[0], codegen.written(closure)[2]
    assert re.search(written, src), src
    assert _outcome(fn, _game(reference)) == _outcome(closure, _game(reference)), text


def test_the_lines_read_at_once_and_cards_known_leave_what_they_cannot_prove():
    """A read after something else on its line, a test that does not say the item is a card, `not` before a test,
    an item set again: left as written."""
    from rulecraft.compiler.folding import cards_known
    assert _tested_at_once(["_v1 = _k1(ctx)", "if _k2(ctx) and _v1:", "    x"], "_v1 _v1") == \
        ["_v1 = _k1(ctx)", "if _k2(ctx) and _v1:", "    x"]  # (_k2 would run first)
    assert _tested_at_once(["_v1 = _k1(ctx)", "_v2 = _k3 if _v1 else _k4"], "_v1 _v1") == \
        ["_v1 = _k1(ctx)", "_v2 = _k3 if _v1 else _k4"]
    assert _tested_at_once(["_v1 = _k1(ctx)", "_v2 = _v1 + _k3", "if not (_v2 > _k4):", "    pass"], "_v1 _v1 _v2 _v2") \
        == ["if not (((_k1(ctx)) + _k3) > _k4):", "    pass"]
    read = "_v3 = _v2.attrs[_k1] if type(_v2) is _Card and _k1 in _v2.attrs else _k9(_v2)"
    for test in ("if not (isinstance(_v2, _Card) and _k3 in _v2.classes) and (_v5):",
                 "if not (isinstance(_v2, _Card) and _k3 in _v2.classes or _v5):", "if not isinstance(_v2, _Card) and _v5:"):
        assert cards_known([test, "    continue", read]) == [test, "    continue", read]
    kept = ["if (isinstance(_v2, _Card) and _k3 in _v2.classes):", "    _v4 = not type(_v2) is _Card and _k5", "    _v2 = _v6",
            "    " + read]
    assert cards_known(kept) == kept
    assert cards_known(["if not (isinstance(_v2, _Card) and _k3 in _v2.classes):", "    continue", read])[2] == \
        "_v3 = _v2.attrs[_k1] if _k1 in _v2.attrs else _k9(_v2)"


@pytest.mark.parametrize("line", ["_v1 = _v12 + _v1", "x_v1 = 1", "_v1_ = 2", "(_v1)", "a._v1(b)", "_v10", "1_v1",
                                  "if not (_v1 == _k2):", "_v1", "", "_v2 if _v1 else _v3"])
def test_names_finds_a_word_as_a_pattern_between_word_boundaries_does(line):
    """writing.names (by_flag, Generator.assign) says what `\\b_v1\\b` says, without a pattern made per name."""
    assert names(line, "_v1") == bool(re.search(r"\b_v1\b", line))


def test_by_flag_splits_a_choice_on_the_flag_and_keeps_other_lines():
    body = ["_v3 = _v1.attrs if _v9 else _v2(_v1)", "if not _v9 and _v4:", "    _v5 = 1", "_v6 = _v3 if _v8 else _v7"]
    cards, other = by_flag(body, "_v9")
    assert cards == ["_v3 = _v1.attrs", "pass", "_v6 = _v3 if _v8 else _v7"]
    assert other == ["_v3 = _v2(_v1)", "if _v4:", "    _v5 = 1", "_v6 = _v3 if _v8 else _v7"]
    assert by_flag(["_v3 = f(_v9)"], "_v9") is None  # (read some other way)
    assert by_flag(["_v3 = f(_v90)"], "_v9") == (["_v3 = f(_v90)"], ["_v3 = f(_v90)"])
