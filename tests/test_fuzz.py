"""Property tests: hostile or broken input gives diagnostics, never a crash.

Four layers are fuzzed:
  - the rules language: random token soup into parse_expression / parse_statements, which
    must return an AST or raise DiagnosticError with a position inside the text;
  - the YAML reader: random YAML-like text and random bytes into parse_yaml / decode;
  - the whole loader: every valid ruleset under rulesets/examples/, mutated (a key deleted
    or misspelt, a value of another type, a list item duplicated, two steps swapped, a DSL
    string with a typo, an id swapped for another id), written back with yaml.safe_dump
    and given to load_ruleset;
  - expressions the loader evaluates itself (card attributes, a zone's initial cards).

Every mutation is drawn from strategies, so hypothesis shrinks a failure to a small one and
prints it with a @reproduce_failure blob. The crashes found so far (all fixed in 45eda0f)
are kept, cut down, as regression cases in test_former_loader_crashes and
test_former_parser_crashes. The whole file runs in about 10-15 s.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulecraft.diagnostics import Diagnostic, DiagnosticError, Span, has_errors
from rulecraft.dsl.builtins import REGISTRY
from rulecraft.dsl.parser import KEYWORDS, parse_expression, parse_statements
from rulecraft.loader import load_ruleset
from rulecraft.loader.yaml_source import decode, parse_yaml

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "rulesets" / "examples"

FUZZ = settings(max_examples=300, deadline=None, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
LOADER_FUZZ = settings(FUZZ, max_examples=120)


# ------------------------------------------------------------------------------------------
# the rules language

OPERATORS = ["+", "-", "*", "/", "//", "%", "==", "!=", "<", "<=", ">", ">=", "=", "+=", "-=", "..", ".", ",", ":",
             ";", "(", ")", "[", "]", "{", "}", "'", '"', "\\", "#", "!", "&", "|", "@", "$", "?", "`", "~"]
NAMES = ["p", "x", "card", "deck", "players", "p.hand", "r.total", "stocks", "count", "seat_order", "_", "a1",
         "first", "max", "modifier", "target_score"]
SNIPPETS = ["'a {x} b'", "'{{'", "'}}'", "'{'", "'{x'", "'{p.score + }'", "\"it's\"", "'\\n'", "2d6", "1d6", "0d0",
            "3.5", "007", "1.", ".5", "[c for c in deck if c is joker]", "f(a, b: 1)", "x if y else z",
            "not in", "is not", "until end of turn", "add modifier m to p value 1", "# comment"]

dsl_token = st.one_of(
    st.sampled_from(sorted(KEYWORDS)),
    st.sampled_from(OPERATORS),
    st.sampled_from(NAMES),
    st.sampled_from(SNIPPETS),
    st.integers(min_value=-5, max_value=10**30).map(str),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True),
    st.text(max_size=3),  # any unicode: control characters, other scripts, emoji
)
dsl_text = st.lists(st.tuples(dsl_token, st.sampled_from(["", " ", " ", "  ", "\t", "\n"])), max_size=25).map(
    lambda parts: "".join(tok + sep for tok, sep in parts)
)


def text_locator(text: str, file: str = "<fuzz>"):
    """A locator that gives real line/column positions in a (possibly multi-line) text."""
    starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

    def pos(offset: int) -> tuple[int, int]:
        line = max(i for i, s in enumerate(starts) if s <= max(0, offset))
        return line + 1, offset - starts[line] + 1

    def locate(a: int, b: int) -> Span:
        l1, c1 = pos(a)
        l2, c2 = pos(max(a, b))
        return Span(file, l1, c1, l2, c2)

    return locate


def assert_span_inside(diag: Diagnostic, text: str) -> None:
    span = diag.span
    assert span is not None, f"no position: {diag}"
    lines = text.split("\n")
    assert 1 <= span.line <= len(lines), f"line {span.line} outside 1..{len(lines)}: {diag}"
    # a column may point just past the last character (the end of the input)
    assert 1 <= span.col <= len(lines[span.line - 1]) + 1, f"column {span.col} outside line {lines[span.line - 1]!r}: {diag}"
    assert (span.line, span.col) <= (span.end_line, span.end_col), diag
    assert span.end_line <= len(lines), diag


def parse_or_diagnose(fn, text: str) -> None:
    try:
        fn(text, text_locator(text))
    except DiagnosticError as exc:
        assert isinstance(exc.diagnostic, Diagnostic)
        assert exc.diagnostic.is_error
        assert_span_inside(exc.diagnostic, text)


@FUZZ
@given(dsl_text)
def test_expression_parser_returns_ast_or_diagnostic(text):
    parse_or_diagnose(parse_expression, text)


@FUZZ
@given(dsl_text)
def test_statement_parser_returns_ast_or_diagnostic(text):
    parse_or_diagnose(parse_statements, text)


@pytest.mark.parametrize("text", [
    "(" * 5000 + "x" + ")" * 5000,
    "[" * 300 + "]" * 300,
    "not " * 3000 + "x",
    "-" * 3000 + "1",
    "x" + ".a" * 3000,
    "x" + "[0]" * 3000,
    " + ".join(["x"] * 3000),
    " if ".join(["x"] * 1500) + " else y" * 1499,
    "'" + "{x}" * 3000 + "'",
    "'{'{'{'{x}'}'}'}'",
    "",
    "   ",
    "\x00",
    "\ufeffx",
])
def test_parser_extremes(text):
    parse_or_diagnose(parse_expression, text)
    parse_or_diagnose(parse_statements, "log " + text)


# ------------------------------------------------------------------------------------------
# the YAML reader

YAML_TOKENS = [
    ":", ": ", "- ", "-", "\n", "\n  ", "\n    ", "  ", "\t", "{", "}", "[", "]", ",", "? ", "&a ", "*a", "&b ", "*b",
    "!!python/object:os.system ", "!!str ", "!!binary ", "!custom ", "<<: ", "'", '"', "#", "|", ">", "|-", "---",
    "...", "%YAML 1.1\n", "%TAG ! tag:x:\n", "key", "ruleset", "sequences", "steps", "do", "1", "0x1F", "1e3", ".inf",
    "yes", "no", "on", "null", "~", "2015-01-01", "\\", "\r", "\r\n", "\ufeff", "\x85", "\u2028", "\x00", "\x1b",
]
yaml_text = st.lists(st.one_of(st.sampled_from(YAML_TOKENS), st.text(max_size=4)), max_size=40).map("".join)


def assert_diagnostics(result) -> None:
    node, diags = result
    assert isinstance(diags, list)
    assert all(isinstance(d, Diagnostic) for d in diags)
    if node is None:
        assert has_errors(diags), "no tree and no error"


@FUZZ
@given(yaml_text)
def test_parse_yaml_never_raises(text):
    assert_diagnostics(parse_yaml(text, "fuzz.yaml"))


@FUZZ
@given(st.text(max_size=200))
def test_parse_yaml_any_text_never_raises(text):
    assert_diagnostics(parse_yaml(text, "fuzz.yaml"))


@FUZZ
@given(st.one_of(st.binary(max_size=300), yaml_text.map(lambda t: t.encode("utf-8", "surrogatepass"))))
def test_decode_then_parse_never_raises(data):
    text, diags = decode(data, "fuzz.yaml")
    assert all(isinstance(d, Diagnostic) for d in diags)
    if text is None:
        assert has_errors(diags)
        return
    assert_diagnostics(parse_yaml(text, "fuzz.yaml"))


# ------------------------------------------------------------------------------------------
# the whole loader, on mutated valid rulesets

def plain_data(path: Path) -> Any:
    """The ruleset as plain data, read the way the loader reads it (keys stay text: 'on:' is not true)."""
    node, diags = parse_yaml(path.read_text(encoding="utf-8"), str(path))
    assert node is not None, diags
    return node.plain()


def _valid_examples() -> list[Path]:
    out = []
    for path in sorted(EXAMPLES.glob("*.yaml")):
        try:
            if load_ruleset(str(path)).ok:
                out.append(path)
        except Exception:  # a broken example is another test's business
            continue
    return out


VALID = _valid_examples()
ID_SECTIONS = ("parameters", "options", "tables", "zones", "variables", "player_variables", "card_variables",
               "modifiers", "events", "dice", "sequences")


def _paths(data: Any, prefix: tuple = ()) -> list[tuple]:
    """The path of every node below the root (not the root itself)."""
    out = []
    if isinstance(data, dict):
        for k, v in data.items():
            out.append(prefix + (k,))
            out.extend(_paths(v, prefix + (k,)))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out.append(prefix + (i,))
            out.extend(_paths(v, prefix + (i,)))
    return out


def _get(data: Any, path: tuple) -> Any:
    for p in path:
        data = data[p]
    return data


def _ids(data: Any) -> list[str]:
    """Every id a ruleset declares or names: section entries, step ids, the start sequence."""
    ids: set[str] = set()
    if isinstance(data, dict):
        for sec in ID_SECTIONS:
            if isinstance(data.get(sec), dict):
                ids.update(map(str, data[sec]))
        for path in _paths(data):
            if path and path[-1] in ("id", "call", "run", "start", "loop", "name", "as", "for_each") and \
                    isinstance(_get(data, path), str):
                ids.add(_get(data, path))
    return sorted(ids) or ["x"]


def _typo(word: str, draw) -> str:
    alphabet = "abcdefghijklmnopqrstuvwxyz_0123456789"
    kind = draw(st.sampled_from(["insert", "delete", "swap", "replace", "case"]))
    if not word:
        return draw(st.sampled_from(alphabet))
    i = draw(st.integers(0, len(word) - 1))
    if kind == "insert":
        return word[:i] + draw(st.sampled_from(alphabet)) + word[i:]
    if kind == "delete":
        return word[:i] + word[i + 1:]
    if kind == "swap" and len(word) > 1:
        j = min(i + 1, len(word) - 1)
        chars = list(word)
        chars[i], chars[j] = chars[j], chars[i]
        return "".join(chars)
    if kind == "case":
        return word.swapcase()
    return word[:i] + draw(st.sampled_from(alphabet)) + word[i + 1:]


DSL_CHARS = st.sampled_from(list("()[]{}'\".,:;=<>+-*/%!#\\ \nabcxyz019_") + ["and ", " or ", "not ", "{x}", "\u00e9", "\U0001f600"])

other_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=True, allow_infinity=True),
              st.text(max_size=12), st.sampled_from(["", "=", "=1 +", "all", "none", "game", "{x}", "end game"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=6,
)


def _twin(value: Any) -> Any:
    """The same value as another type: 2 <-> '2', a container emptied, true -> 'true'."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return [value]
    if isinstance(value, list):
        return {}
    if isinstance(value, dict):
        return []
    return ""


def _replace(data: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    _get(data, path[:-1])[path[-1]] = value
    return data


def mutate(data: Any, draw) -> tuple[Any, str]:
    """Apply one random mutation in place (or return a new root); says what it did."""
    paths = _paths(data)
    if not paths:
        return draw(other_values), "replaced the whole document"
    # the last three mostly keep the file valid for the schema, so the later passes get fuzzed too
    kinds = ["delete_key", "rename_key", "retype", "duplicate_item", "swap_items", "dsl_typo", "swap_id"] + \
        ["dsl_typo", "swap_id", "swap_items"]
    kind = draw(st.sampled_from(kinds))
    if kind in ("delete_key", "rename_key"):
        keyed = [p for p in paths if isinstance(_get(data, p[:-1]), dict)]
        path = draw(st.sampled_from(keyed))
        parent = _get(data, path[:-1])
        if kind == "delete_key":
            del parent[path[-1]]
            return data, f"deleted {path}"
        new = draw(st.one_of(st.just(_typo(str(path[-1]), draw)), st.sampled_from(_ids(data))))
        items = [(new if k == path[-1] else k, v) for k, v in parent.items()]
        parent.clear()
        for k, v in items:  # keep the order; a rename onto an existing key merges the two
            parent[k] = v
        return data, f"renamed {path} to {new!r}"
    if kind == "retype":
        path = draw(st.sampled_from(paths))
        value = draw(st.one_of(other_values, st.just(_twin(_get(data, path)))))
        return _replace(data, path, value), f"set {path} to {value!r}"
    if kind in ("duplicate_item", "swap_items"):
        lists = [p for p in [()] + paths if isinstance(_get(data, p), list) and _get(data, p)]
        if not lists:
            return data, "no list to change"
        path = draw(st.sampled_from(lists))
        items = _get(data, path)
        i = draw(st.integers(0, len(items) - 1))
        if kind == "duplicate_item":
            items.insert(draw(st.integers(0, len(items))), yaml.safe_load(yaml.safe_dump(items[i])))
            return data, f"duplicated item {i} of {path}"
        j = draw(st.integers(0, len(items) - 1))
        items[i], items[j] = items[j], items[i]
        return data, f"swapped items {i} and {j} of {path}"
    if kind == "dsl_typo":
        strings = [p for p in paths if isinstance(_get(data, p), str)]
        if not strings:
            return data, "no string to change"
        path = draw(st.sampled_from(strings))
        s = _get(data, path)
        i = draw(st.integers(0, len(s)))
        if s and draw(st.booleans()):
            new = s[:min(i, len(s) - 1)] + s[min(i, len(s) - 1) + 1:]
        else:
            new = s[:i] + draw(DSL_CHARS) + s[i:]
        return _replace(data, path, new), f"changed {path} from {s!r} to {new!r}"
    assert kind == "swap_id"
    ids = _ids(data)
    strings = [p for p in paths if isinstance(_get(data, p), str) and _get(data, p) in ids]
    if not strings:
        return data, "no id to change"
    path = draw(st.sampled_from(strings))
    new = draw(st.sampled_from(ids))
    old = _get(data, path)
    return _replace(data, path, new), f"changed id {path} from {old!r} to {new!r}"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """A copy of the examples folder, so that 'extends:' by relative path still resolves."""
    d = tmp_path_factory.mktemp("fuzz_rulesets")
    for p in EXAMPLES.glob("*.yaml"):
        shutil.copy(p, d / p.name)
    return d


@pytest.mark.skipif(not VALID, reason="no valid example ruleset to mutate")
@LOADER_FUZZ
@given(data=st.data())
def test_mutated_rulesets_give_diagnostics_not_crashes(workdir, data):
    source = data.draw(st.sampled_from(VALID), label="ruleset")
    doc = plain_data(source)
    steps = []
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        doc, what = mutate(doc, data.draw)
        steps.append(what)
    data.draw(st.just(steps), label="applied")  # shown with the falsifying example
    path = workdir / f"mutated_{source.name}"
    path.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")
    result = load_ruleset(str(path))  # any exception is the failure this test looks for
    assert all(isinstance(d, Diagnostic) for d in result.diagnostics)
    # the loader's promise (the CLI relies on it): no ruleset means at least one error
    assert result.ok or has_errors(result.diagnostics), result.diagnostics


# ------------------------------------------------------------------------------------------
# expressions evaluated while the ruleset loads (card attributes, a zone's initial cards)

LOAD_TIME = """\
ruleset: fuzz_load_time
title: Fuzz
players: {min: 2, max: 4}
parameters:
  n: {default: 3, doc: A number.}
tables:
  wheel:
    keys: [a, b]
    columns: [next]
    rows: {a: [b], b: [a]}
cards:
  - for: {rank: [1, 2], suit: [a, b]}
    id: "c{rank}{suit}"
    classes: [plain]
    attributes:
      v: "=%s"
zones:
  deck: {initial: all}
  side: {initial: "%s"}
sequences:
  game:
    steps: ["end game"]
start: game
"""

_leaf = st.one_of(
    st.integers(-3, 20).map(str),
    st.sampled_from(["rank", "suit", "n", "wheel", "wheel[suit]", "wheel['a'].next", "cards", "none", "true", "''",
                     "'a'", "'b'", "[]", "[1, 'a']", "[[1], 2]", "players", "player_count", "1.5", "0"]),
)


def _calls(inner):
    def call(parts):
        name, args = parts
        b = REGISTRY[name]
        hi = b.max_args if b.max_args >= 0 else b.min_args + 2
        return f"{name}({', '.join(args[:max(b.min_args, min(hi, len(args)))])})"

    return st.one_of(
        st.tuples(st.sampled_from(sorted(REGISTRY)), st.lists(inner, min_size=3, max_size=3)).map(call),
        st.tuples(inner, st.sampled_from(["+", "-", "*", "//", "%", "==", "<", "and", "or", "in", ".."]), inner)
        .map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.tuples(inner, inner).map(lambda t: f"[x for x in {t[0]} if {t[1]}]"),
        inner.map(lambda x: f"{x}[0]"),
        inner.map(lambda x: f"{x}.size"),
    )


load_time_expr = st.recursive(_leaf, _calls, max_leaves=6)


@pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")  # the repr of a shrunk failure
@settings(FUZZ, max_examples=150)
@given(attr=load_time_expr, initial=load_time_expr)
def test_load_time_expressions_give_diagnostics_not_crashes(workdir, attr, initial):
    path = workdir / "load_time.yaml"
    path.write_text(LOAD_TIME % (attr, initial), encoding="utf-8")
    result = load_ruleset(str(path))
    assert result.ok or has_errors(result.diagnostics), result.diagnostics


# Crashes found by the properties above (and by reading the code they pointed at), each cut
# down to its smallest form; each raised the exception named before the fix.
FORMER_CRASHES = [
    # checks.check_tables compared the cycle column with the keys as text, then looked the
    # text up as a key: KeyError '2'
    ("table_int_keys_text_cells", KeyError, """\
tables:
  wheel:
    keys: [1, 2, 3]
    columns: [next]
    rows: {1: ["2"], 2: ["3"], 3: ["1"]}
    cycle: [next]
"""),
    # checks.check_tables read keys[0] of a table with no keys: IndexError
    ("table_cycle_without_rows", IndexError, """\
tables:
  wheel: {columns: [next], rows: {}, cycle: [next]}
"""),
    # loader.cards evaluated '=' attributes with a context that had no game primitives:
    # AttributeError '_Ctx' object has no attribute 'random_index' (also running, in_sequence,
    # modifier, top, bottom, cards)
    ("card_attribute_random", AttributeError, """\
cards:
  - {id: c, attributes: {v: "=random([1, 2])"}}
zones:
  deck: {initial: all}
"""),
    # builtins sorted/max/min let Python's TypeError out instead of a RuleError (a card
    # attribute in the builder, a zone's initial cards in the checks)
    ("card_attribute_sorted_mixed", TypeError, """\
cards:
  - {id: c, attributes: {v: "=sorted([1, 'a'])"}}
zones:
  deck: {initial: all}
"""),
    ("zone_initial_max_mixed", TypeError, """\
zones:
  deck: {initial: "max(1, 'a')"}
"""),
    # yaml_source converted a YAML integer with int(): over Python's 4300-digit limit that was
    # a ValueError, in a file well under max_file_bytes
    ("yaml_int_over_4300_digits", ValueError, "notes: " + "1" * 4301 + "\n"),
]


@pytest.mark.parametrize("name,text", [pytest.param(name, text, id=name) for name, _exc, text in FORMER_CRASHES])
def test_former_loader_crashes(workdir, name, text):
    path = workdir / f"{name}.yaml"
    path.write_text("ruleset: crash\ntitle: Crash\nplayers: {min: 2, max: 4}\n"
                    "sequences: {game: {steps: [end game]}}\nstart: game\n" + text, encoding="utf-8")
    result = load_ruleset(str(path))
    assert result.ok or has_errors(result.diagnostics), result.diagnostics


@pytest.mark.parametrize("fn,text", [
    # an integer literal over 4300 digits: int() raised ValueError inside the Lark transformer,
    # which escaped as lark.exceptions.VisitError (the loader's max_dsl_chars of 4000 guarded
    # it there, but not the parser's own contract)
    pytest.param(parse_expression, "1" * 4301, id="dsl_int_over_4300_digits"),
    pytest.param(parse_expression, "'{" + "1" * 4301 + "}'", id="dsl_int_in_template"),
    # the same limit in the YAML reader
    pytest.param(parse_yaml, "a: " + "1" * 4301, id="yaml_int_over_4300_digits"),
])
def test_former_parser_crashes(fn, text):
    if fn is parse_yaml:
        assert_diagnostics(parse_yaml(text, "fuzz.yaml"))
    else:
        parse_or_diagnose(fn, text)
