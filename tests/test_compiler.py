"""Expressions the compiler writes as Python source (rulecraft.compiler.expressions) behave exactly as their closures.

  - seeded games of every bundled ruleset read as safe source every expression the compiler writes on the way
    (tests/test_engines.py compares the games themselves with the reference engine's);
  - every expression example of the language reference, and a list of expressions that fail at run
    time, give the same value or the same error (message, span, hint, code) both ways, also when
    parts of them are left to their closures (the fallback that reads locals from ctx.locals);
  - hostile names and texts reach the generated function through its namespace only: no text of
    the ruleset appears in its source, which holds no literal at all;
  - random expressions (hypothesis) agree both ways.
"""

from __future__ import annotations

import io
import keyword
import re
import sys
import threading
import tokenize
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rulecraft.agents.base import RandomAgent
from rulecraft.diagnostics import DiagnosticError, RuleError
from rulecraft.compiler import expressions as codegen
from rulecraft.compiler import stretches
from rulecraft.dsl.closures import compiler as C
from rulecraft.dsl.closures.compiler import Compiler
from rulecraft.dsl.scope import FunctionDef, Scope, Symbol
from rulecraft.dsl.parser import parse_expression, plain_locator
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.values import Player

sys.path.insert(0, str(Path(__file__).parent))
import test_language_docs as docs  # noqa: E402  (the language reference's examples and its scope)

BUNDLED = {"dml": 3, "dune-bidding": 6, "dml-classic": 1, "dml-2016": 1, "dml-mayhem": 1, "dml-smackdown": 1,
           "pig": 3, "sealed-auction": 3, "stack-duel": 3, "bluff": 3, "hearts": 1}


@pytest.fixture
def generated(monkeypatch):
    """Every expression written when first asked for, failures raised; yields the functions written."""
    made: list = []
    real = codegen._write

    def spy(closure):
        got = real(closure)
        if got is not None:
            made.append(got[2])
        return got

    monkeypatch.setattr(codegen, "STRICT", True)
    monkeypatch.setattr(codegen, "_write", spy)
    monkeypatch.setattr(stretches, "HOT", 0)
    monkeypatch.setattr(stretches, "STRAIGHT_VISITS", 0)
    return made


def _load(name: str):
    result = load_ruleset(name)
    assert result.ok, name
    return result.ruleset


def _play(rs, seed: int, players=None, engine: str = "compiled") -> tuple:
    g = Game(rs, players, seed, engine=engine)
    agents = [RandomAgent(p.seat, seed) for p in g.players]
    while not g.over:
        d = g.pending
        g.apply(agents[d.player].choose(d, None))
    return g.winners, g.scores, g.steps, g.decisions, g.narrative


# ------------------------------------------------------------------ what the source may contain
_SOURCE_NAMES = set(codegen._HELPERS) | {"ctx", "_L", "_saved", "_expression", "_function",
                                         # attributes and methods the generated code reads
                                         "locals", "vars", "players", "pvars", "seat", "attrs", "classes",
                                         "append", "get", "pop", "zone_cards", "zones", "zone_owner", "isdisjoint",
                                         "_player_zones", "key", "zone", "issuperset", "modifiers", "modifier_total", "extend",
                                         "_families", "family_zones",
                                         # the game's operations a statement written in a stretch calls
                                         "move", "draw", "shuffle", "roll", "tally", "family_member", "set_mark",
                                         "add_modifier", "remove_modifier",
                                         # a roll's fields, read inline
                                         "dice", "total", "result", "success", "doubles", "target",
                                         # the work guard written out (Writer.charge)
                                         "work", "steps", "max_steps", "_cw",
                                         # ... or charged ahead (Writer.source)
                                         "_d", "_left", "_w0", "_room"}


def assert_safe_source(src: str) -> None:
    """The source holds no literal (texts and numbers are constants of the namespace) and no name but its own."""
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        assert tok.type not in (tokenize.STRING, tokenize.NUMBER), f"a literal in generated source: {tok.string}"
        if tok.type == tokenize.NAME:
            ok = (keyword.iskeyword(tok.string) or tok.string in _SOURCE_NAMES
                  or re.fullmatch(r"_[kv][0-9]+", tok.string))
            assert ok, f"a name not made by codegen in generated source: {tok.string}\n{src}"


# ------------------------------------------------------------------ seeded games
@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_every_expression_written_in_seeded_games_is_safe_source(name, generated):
    rs = _load(name)
    for seed in range(BUNDLED[name]):
        _play(rs, seed)
    assert generated
    for fn in generated:
        assert_safe_source(fn.source)


def test_loading_writes_nothing(monkeypatch):
    calls: list = []
    monkeypatch.setattr(codegen, "_write", lambda *a: calls.append(a))
    assert load_ruleset("dml").ok and load_ruleset("dune-bidding").ok
    assert not calls  # the compiler writes an expression only when a compiled game first needs it


def test_a_ruleset_function_that_cannot_be_written_runs_its_closure(monkeypatch):
    """When the source of a ruleset function cannot be made, callers get a function that runs its closure."""
    def refuse(self, fd):
        raise codegen.Unsupported("test")

    monkeypatch.setattr(codegen.Generator, "ruleset_function", refuse)
    monkeypatch.setattr(stretches, "HOT", 0)
    monkeypatch.setattr(stretches, "STRAIGHT_VISITS", 0)
    rs = _load("dune-bidding")
    for seed in range(3):
        assert _play(rs, seed) == _play(rs, seed, engine="reference")


def test_two_threads_asking_for_one_expression_get_it_written_once(monkeypatch):
    scope = Scope({}, set(), set(), set(), set(), set(), {}, {}, {"x"})
    closure = Compiler(scope, []).expr(parse_expression("x * 2 + 1", plain_locator("<t>")))[0]
    calls: list = []
    real = codegen._write
    entered, release = threading.Event(), threading.Event()

    def slow(c):
        calls.append(c)
        entered.set()
        release.wait(10)
        return real(c)

    monkeypatch.setattr(codegen, "_write", slow)
    got: list = []
    threads = [threading.Thread(target=lambda: got.append(codegen.written(closure))) for _ in range(2)]
    threads[0].start()
    entered.wait(10)
    threads[1].start()
    release.set()
    for t in threads:
        t.join(10)
    assert len(calls) == 1 and got[0] is got[1] and got[0][2](SimpleNamespace(locals={"x": 3})) == 7


def test_what_one_thread_compiles_does_not_leak_into_another():
    """The compiler's note of what it is compiling is per thread: a game making its hot expressions in one
    thread while another thread loads a ruleset must not take the loader's expressions into its table."""
    import threading

    seen: list = []
    started, release = threading.Event(), threading.Event()

    def record_in_thread():
        C._STATE.made = {}  # as `record` does while codegen compiles an expression again
        started.set()
        release.wait(10)
        seen.append(len(C._STATE.made))
        C._STATE.made = None

    t = threading.Thread(target=record_in_thread)
    t.start()
    started.wait(10)
    try:
        assert C._STATE.made is None  # this thread is between expressions
        assert load_ruleset("pig").ok
    finally:
        release.set()
        t.join(10)
    assert seen == [0]


# ------------------------------------------------------------------ expressions, value by value
ERRORS = [
    "1 + 'a'", "'ab' * 3", "[1] * 2", "1 / 0", "7 // 0", "5 % 0", "-'a'", "-true", "[1][5]", "[1]['a']", "[1][true]",
    "best.score", "best[0]", "'a' < 1", "[1] < 2", "1 in 5", "[1] in 'abc'", "0..200000", "'a'..3", "1..true",
    "99999999999 * 99999999999", "99999999999 * 99999999999 + 0.5", "r.total", "[r for q in players]",
    "[q for q in 5]", "[q for q in players if r]", "sum(['a'])", "max([1, 'a'])", "first(3)",
    "count(p)", "p.nothing_here", "wheel['gold']", "card.score", "'{best.score}'", "'{r}'",
    "[[x + y for y in 1..3] for x in 1..3]", "[x for x in [x * 2 for x in 1..3] if x > 2]",
    "[p.score for p in players] + [p.seat]", "[c for c in p.hand if c is resource and c.value > 1]",
    "[c for c in p.hand if c is not resource]", "[c.value for c in p.hand if c is resource or c is joker]",
    "sale_price(count([q for q in players if q.score >= 0]))", "[sale_price(x) for x in 1..4]",
    "'{[1, 2]} and {none} and {true} and {1.5}'", "'x' + '{p.seat}' * 2", "[[1], [2]] + [[3]]",
    "true and 1 / 0", "false and 1 / 0", "none or [1][3]", "1 if best else 2", "[1, [2, [3]]]",
    "bids[p]", "bids[p] + 1", "not bids", "[q.seat for q in players if q != p]", "p in players",
    "card in p.hand", "card.suit in keys(wheel)", "count(p.hand) >= 0 and empty([])",
    # a ruleset function written inline in its caller: an error inside its body, calls inside calls
    "sale_price('a')", "sale_price(sale_price(sale_price(1)))", "[sale_price(x) for x in [1, 'b']]",
    "sale_price(p)", "sale_price(1) + sale_price(best)",
    # ranking: keys worked out per item with the item's name bound, ties kept in order, errors of mixed keys
    "sorted(q in players, by: q.score)", "sorted(q in players, by: -q.seat, descending: true)",
    "highest(q in players, by: q.seat % 2)", "lowest(c in p.hand, by: c.value)", "highest(x in [], by: x)",
    "sorted(x in [1, 'a'], by: x)", "highest(x in [none, 1], by: x)", "sorted(x in 5, by: x)",
    "[highest(y in 1..x, by: -y) for x in 1..3]", "sorted(x in 1..4, by: sale_price(x) % 3, descending: x > 0)",
    "lowest(q in players, by: best.score)", "sorted(c in p.hand, by: c.value)[0]",
]


def _scope_and_ctx(ref, names: dict):
    g = Game(ref.ruleset, None, 7)
    cards = list(ref.ruleset.cards)
    values = {"p": g.players[0], "player": g.players[1], "card": cards[0], "offer": cards[1], "bids": {},
              "best": None, "again": False, "bid": 2, "m": cards[2]}
    g.locals = {k: v for k, v in values.items() if k in names}
    return g


def _outcome(fn, ctx):
    try:
        value = fn(ctx)
    except RuleError as e:
        return ("error", e.message, e.span, e.hint, e.code)
    return ("value", repr(value), type(value).__name__)


def _compile_both(text: str, scope, monkeypatch=None):
    """The closure of `text` and the function the compiler writes of it (the closure itself when it runs in one call)."""
    node = parse_expression(text, plain_locator("<test>"))
    closure = Compiler(scope, []).expr(node)[0]  # a diagnostic leaves a closure that fails: the same both ways
    got = codegen.written(closure)
    return closure, (closure if got is None else got[2])


@pytest.fixture(scope="module")
def reference():
    """The reference ruleset of the language docs, with every local name it binds in scope."""
    rs = load_ruleset(str(docs.REFERENCE)).ruleset
    return SimpleNamespace(ruleset=rs, scope=docs.build.scope_for(rs).with_locals(docs.local_names(rs)))


EXPRESSIONS = [e.text for e in docs.EXAMPLES if e.kind == "expr"] + ERRORS


def _compare_all(reference, monkeypatch, generated) -> int:
    done = 0
    for text in EXPRESSIONS:
        closure, lazy = _compile_both(text, reference.scope, monkeypatch)
        a = _outcome(closure, _scope_and_ctx(reference, reference.scope.locals))
        b = _outcome(lazy, _scope_and_ctx(reference, reference.scope.locals))
        assert a == b, text
        done += 1
    return done


def test_expressions_give_the_same_values_and_errors(reference, generated, monkeypatch):
    assert _compare_all(reference, monkeypatch, generated) == len(EXPRESSIONS)
    assert len(generated) > 100
    for fn in generated:
        assert hasattr(fn, "source"), "an expression fell back to its closure as a whole"
        assert_safe_source(fn.source)


def _writer_of(method: str) -> type:
    """The class among the generator's node writers (operators.py, calls.py) that defines `method`."""
    return next(c for c in codegen.Generator.__mro__ if method in vars(c))


@pytest.mark.parametrize("kind", ["Attr", "Call", "Compare", "Name", "BinOp", "Str"])
def test_nodes_left_to_their_closures_see_the_same_locals(kind, reference, generated, monkeypatch):
    """A node kind left to its closure (which reads comprehension variables and parameters from ctx.locals)."""
    monkeypatch.delattr(_writer_of("_g_" + kind), "_g_" + kind)
    _compare_all(reference, monkeypatch, generated)
    if kind == "Attr":  # e.g. [q.score for q in players]: q written to ctx.locals for the closure of q.score
        assert any("_L.pop(" in fn.source for fn in generated)


def test_a_ruleset_function_sets_its_parameters_for_a_closure_inside(reference, generated, monkeypatch):
    monkeypatch.delattr(_writer_of("_g_BinOp"), "_g_BinOp")  # sale_price is 'rank * 10 + sale_bonus'
    for fd in reference.scope.functions.values():
        fd.generated = None  # made again, with the fallbacks inside
    try:
        for text in ["sale_price(3)", "[sale_price(x) for x in 1..4]", "sale_price(offer.rank) > player.coins"]:
            closure, lazy = _compile_both(text, reference.scope, monkeypatch)
            ctx_a = _scope_and_ctx(reference, reference.scope.locals)
            ctx_b = _scope_and_ctx(reference, reference.scope.locals)
            assert _outcome(closure, ctx_a) == _outcome(lazy, ctx_b), text
            assert ctx_a.locals == ctx_b.locals
        assert "ctx.locals = _L = {" in reference.scope.functions["sale_price"].generated.source
    finally:
        for fd in reference.scope.functions.values():
            fd.generated = None


# ------------------------------------------------------------------ hostile text
HOSTILE_TEXTS = ["'); __import__('os').system('echo pwned'); ('", '"""\n\nimport os\n"""', "\\x00\\u2028\\",
                 "{__builtins__} {{braces}}", "ctx.locals.clear()", "\r\n\t#"]
HOSTILE_NAMES = ["__import__", "__builtins__", "_k0", "_k1", "_v1", "_v2", "ctx", "_L", "exec", "eval", "type",
                 "len", "_RuleError", "_charge", "True_", "open", "print", "_saved", "_function", "_expression"]


def _hostile_scope() -> tuple[Scope, dict]:
    symbols = {name: Symbol("const", f"<{name}>", "str") for name in HOSTILE_NAMES[:8]}
    symbols["big"] = Symbol("var", None, "number")
    locals_ = set(HOSTILE_NAMES[8:])
    scope = Scope(symbols, {"__class__", "_k2"}, set(), {"__dict__"}, {"__init__"}, set(), {}, {}, locals_)
    fd_body = parse_expression("[_v1 for _v1 in _k0] + [exec, __import__]", plain_locator("<fn>"))
    scope.functions["__getattr__"] = FunctionDef("__getattr__", ("exec", "_k0"), fd_body, fd_body.span)
    ctx_locals = {name: [f"{name}-{i}" for i in range(2)] for name in HOSTILE_NAMES[8:]}
    return scope, ctx_locals


def test_hostile_names_and_texts_never_enter_the_source(generated, monkeypatch):
    scope, ctx_locals = _hostile_scope()
    texts = ", ".join("'" + t.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"
                      for t in HOSTILE_TEXTS)
    pieces = [
        f"[{texts}]",
        "[__import__ + ' ' + _k0 for exec in [ctx, _L] if exec != _v1]",
        "[[type + x for x in len] for _RuleError in [__builtins__]]",
        "__getattr__(_charge, open)",
        "'{exec}{_v1}{__import__}' + '{_k0}'",
        "count([print for print in _saved if print != _k1])",
        "[c.__dict__ for c in []] + [q.__class__ for q in []]",
        "[_function for _expression in [1, 2]]",
        "big * big",
    ]
    Compiler(scope, []).function_body(scope.functions["__getattr__"], scope.functions["__getattr__"].span)
    for text in pieces:
        closure, lazy = _compile_both(text, scope, monkeypatch)
        make = lambda: SimpleNamespace(locals={k: list(v) for k, v in ctx_locals.items()}, vars={"big": 3 ** 30},
                                       marks={}, players=[Player(0, "a")], pvars=[{}])  # noqa: E731
        assert _outcome(closure, make()) == _outcome(lazy, make()), text
    assert len(generated) == len(pieces)
    for fn in generated:
        assert hasattr(fn, "source")
        assert_safe_source(fn.source)
        for t in HOSTILE_TEXTS:
            assert t not in fn.source
        for name in HOSTILE_NAMES:
            if name not in _SOURCE_NAMES and not re.fullmatch(r"_[kv][0-9]+", name):
                assert not re.search(rf"\b{re.escape(name)}\b", fn.source), name
    fd_fn = scope.functions["__getattr__"].generated
    if fd_fn is not None:  # None when every call wrote the function's body inline (checked above, in its caller)
        assert_safe_source(fd_fn.source)


def test_the_namespace_gives_no_builtins(generated, monkeypatch):
    scope, ctx_locals = _hostile_scope()
    closure, lazy = _compile_both("[exec + '!' for exec in [_v1]]", scope, monkeypatch)
    lazy(SimpleNamespace(locals={"_v1": "a"}, vars={}, marks={}, players=[]))
    fn = generated[0]
    assert fn.__globals__["__builtins__"] == {}
    assert "__import__" not in fn.__globals__ and "open" not in fn.__globals__ and "getattr" not in fn.__globals__


# ------------------------------------------------------------------ random expressions
_LEAVES = st.sampled_from(["1", "2", "0", "-3", "2.5", "'a'", "'bc'", "true", "false", "none", "x", "n", "xs",
                           "[1, 2]", "[]", "[[1]]"])


def _combine(children):
    binary = st.tuples(children, st.sampled_from(["+", "-", "*", "/", "//", "%", "==", "!=", "<", ">=",
                                                  "and", "or", "in", "not in"]), children)
    return st.one_of(
        binary.map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        children.map(lambda c: f"(-{c})"),
        children.map(lambda c: f"(not {c})"),
        st.tuples(children, children, children).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        st.tuples(children, children).map(lambda t: f"[{t[0]} for x in {t[1]} if x]"),
        st.tuples(children, children).map(lambda t: f"{t[0]}[{t[1]}]"),
        children.map(lambda c: f"'<{{{c}}}>'"),
        children.map(lambda c: f"count({c})"),
        st.tuples(children, children).map(lambda t: f"[{t[0]}, {t[1]}]"),
        st.tuples(children, children).map(lambda t: f"({t[0]})..({t[1]})"),
    )


@settings(max_examples=150, deadline=None)
@given(st.recursive(_LEAVES, _combine, max_leaves=8))
def test_random_expressions_agree(text):
    scope = Scope({}, set(), set(), set(), set(), set(), {}, {}, {"x", "n", "xs", "unset"})
    try:
        parse_expression(text, plain_locator("<prop>"))
    except DiagnosticError:
        assume(False)
    old = codegen.STRICT
    try:
        codegen.STRICT = True
        fns = _compile_both(text, scope)
        outcomes = [_outcome(f, SimpleNamespace(locals={"x": 3, "n": -2, "xs": [1, "a", None]}, vars={}, marks={},
                                                players=[], steps=0, work=0, max_steps=10_000))
                    for f in fns]
    finally:
        codegen.STRICT = old
    assert outcomes[0] == outcomes[1], text


# ------------------------------------------------------------------ limits
@pytest.mark.parametrize("max_nodes", [codegen.MAX_NODES, 50])
def test_long_expressions_agree_or_keep_their_closures(max_nodes, generated, monkeypatch):
    """A long chain is generated while small; past MAX_NODES (or Python's limits) parts keep their closures."""
    monkeypatch.setattr(codegen, "STRICT", False)
    monkeypatch.setattr(codegen, "MAX_NODES", max_nodes)
    terms = 300
    scope = Scope({}, set(), set(), set(), set(), set(), {}, {}, {"x"})
    text = " + ".join(["x"] * terms) + " > 0 and '{x}' + 'y' * 0 == 'never'"
    closure, lazy = _compile_both(text, scope, monkeypatch)
    ctx = lambda: SimpleNamespace(locals={"x": 2}, vars={}, marks={}, players=[])  # noqa: E731
    assert _outcome(closure, ctx()) == _outcome(lazy, ctx())
    assert _outcome(closure, SimpleNamespace(locals={}, vars={}, marks={}, players=[]))[1] == \
        _outcome(lazy, SimpleNamespace(locals={}, vars={}, marks={}, players=[]))[1] == \
        "'x' is used before it has a value"


def test_codegen_may_compile_expressions_again_with_the_plain_compiler():
    """compiler.record compiles a hot expression again with Compiler itself: a subclass that compiled
    expressions differently would make the generated code differ from its closures."""
    from rulecraft.dsl.closures.statements import StatementCompiler
    overrides = [k for k in vars(StatementCompiler) if k.startswith("_e_") or k in ("expr", "_expr", "_user_call",
                                                                                    "function_body")]
    assert not overrides


COUNTING = """
ruleset: counting
title: Counting
players: {min: 1, max: 1}
start: game
variables:
  n: 0
  word: ""
sequences:
  game:
    steps:
      - while: "n < 5"
        do: ["n += 1", "set word = 'tick'"]
"""


def test_a_value_written_in_the_rules_is_named_in_a_stretch_not_called(tmp_path):
    """`n += 1`: the 1 (and the text 'tick') is a name of the stretch's namespace holding the value, never a call
    of a closure that returns it; the game is the same on both engines."""
    from rulecraft.compiler.steps import StepWriter
    from rulecraft.loader import load_ruleset
    from rulecraft.runtime.game import Game

    path = tmp_path / "counting.yaml"
    path.write_text(COUNTING)
    res = load_ruleset(str(path))
    assert res.ruleset is not None, res.diagnostics
    game = Game(res.ruleset, None, 0)
    fn = StepWriter(game.programs["game"], False, False, programs=game.programs).function(0)
    held = fn.__globals__
    assert 1 in held.values() and "tick" in held.values()
    assert not [v for v in held.values() if getattr(v, "constant", None) is not None], \
        "a value is called through its closure"
    assert "type(_i)" not in fn.source  # 'n += 1': a whole number written in the rules is not tested
    ends = [Game(res.ruleset, None, 0, engine=e) for e in ("reference", "compiled")]
    assert [(g.over, dict(g.vars)) for g in ends] == [(True, {"n": 5, "word": "tick"})] * 2
