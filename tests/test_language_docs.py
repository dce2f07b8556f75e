"""The language reference (docs/language.md) and the diagnostics list (docs/diagnostics.md) stay true.

Every example in a `dsl-expr` or `dsl-stmt` block of the reference must parse and compile,
with no diagnostic, in the scope of rulesets/examples/reference.yaml (the ruleset that
declares every name the examples use); an expression followed by `# => VALUE` must
evaluate to VALUE. Every built-in function and every statement keyword must be documented,
and so must every diagnostic code the interpreter can emit.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from rulecraft.diagnostics import DiagnosticError, render_text
from rulecraft.dsl import ast as A
from rulecraft.dsl.builtins import REGISTRY
from rulecraft.dsl.closures.compiler import Compiler
from rulecraft.dsl.parser import STATEMENT_ERRORS, SYNTAX_ERRORS, parse_expression, parse_statements, plain_locator
from rulecraft.dsl.closures.statements import StatementCompiler
from rulecraft.loader import build, load_ruleset
from rulecraft.model import ruleset as M

ROOT = Path(__file__).resolve().parents[1]
LANGUAGE = ROOT / "docs" / "language.md"
DIAGNOSTICS = ROOT / "docs" / "diagnostics.md"
REFERENCE = ROOT / "rulesets" / "examples" / "reference.yaml"
GRAMMAR = ROOT / "interpreter" / "dsl" / "grammar.lark"
INTERPRETER = ROOT / "interpreter"

_FENCE = re.compile(r"^```(dsl-expr|dsl-stmt)[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)
_RESULT = re.compile(r"^#\s*=>\s*(.*)$")


# ---------------------------------------------------------------- the examples
class Example(SimpleNamespace):
    kind: str  # 'expr' or 'stmt'
    text: str
    line: int  # line in docs/language.md
    expected: object = None
    has_expected: bool = False

    def __str__(self) -> str:
        return f"language.md:{self.line}: {self.text}"


def _examples() -> list[Example]:
    doc = LANGUAGE.read_text(encoding="utf-8")
    out: list[Example] = []
    for m in _FENCE.finditer(doc):
        kind = "expr" if m.group(1) == "dsl-expr" else "stmt"
        first = doc.count("\n", 0, m.start(2)) + 1
        for i, raw in enumerate(m.group(2).splitlines()):
            line = raw.strip()
            if not line:
                continue
            res = _RESULT.match(line)
            if res:
                assert kind == "expr" and out and out[-1].line == first + i - 1 and not out[-1].has_expected, (
                    f"language.md:{first + i}: '# =>' must follow an expression example on the line before it")
                out[-1].expected = _value(res.group(1))
                out[-1].has_expected = True
                continue
            if line.startswith("#"):
                continue  # a comment line inside the block
            out.append(Example(kind=kind, text=line, line=first + i))
    return out


def _value(text: str):
    """The VALUE of '# => VALUE', read as YAML; the language's 'none' is read as none."""
    return None if text.strip() == "none" else yaml.safe_load(text)


EXAMPLES = _examples()


# ---------------------------------------------------------------- the scope of reference.yaml
def _walk(steps):
    for s in steps:
        yield s
        for _name, body in s.bodies:
            yield from _walk(body)


def local_names(rs: M.Ruleset) -> set[str]:
    """Every local name the ruleset binds somewhere: parameters, loop variables, 'as', 'let'."""
    names: set[str] = set()
    for seq in rs.sequences.values():
        names.update(seq.params)
        for s in _walk(seq.steps):
            if isinstance(s, M.ForEachStep):
                names.add(s.var)
            elif isinstance(s, M.ChooseStep) and s.decision is not None and s.decision.bind:
                names.add(s.decision.bind)
            elif isinstance(s, M.SealedStep):
                names.update(n for n in (s.var, s.bind) if n)
            elif isinstance(s, M.StackStep):
                names.update((s.var, "card"))
            elif isinstance(s, M.ActionStep):
                for st in s.stmts:
                    if isinstance(st.ast, A.Let):
                        names.add(st.ast.name)
                    elif getattr(st.ast, "bind", None):
                        names.add(st.ast.bind)
    return names


def loop_names(rs: M.Ruleset) -> tuple[str, ...]:
    return tuple(sorted({s.name for seq in rs.sequences.values() for s in _walk(seq.steps)
                         if isinstance(s, (M.LoopStep, M.ForEachStep)) and s.name}))


@pytest.fixture(scope="module")
def reference():
    result = load_ruleset(str(REFERENCE))
    assert result.ok and not result.diagnostics, render_text(result.diagnostics, result.sources)
    rs = result.ruleset
    scope = build.scope_for(rs)
    return SimpleNamespace(
        ruleset=rs,
        scope=scope.with_locals(local_names(rs)),
        loops=loop_names(rs),
        sequences={k: s.params for k, s in rs.sequences.items()},
        kinds={s.kind for s in rs.sequences.values()},
    )


def _compile(ex: Example, ref) -> tuple[list, object]:
    diags: list = []
    locate = plain_locator("language.md", ex.line)
    if ex.kind == "expr":
        fn, _type = Compiler(ref.scope, diags).expr(parse_expression(ex.text, locate))
        return diags, fn
    sc = StatementCompiler(ref.scope, diags, loops=ref.loops, sequences=ref.sequences, kinds=ref.kinds)
    for s in parse_statements(ex.text, locate):
        sc.stmt(s)
    return diags, None


# ---------------------------------------------------------------- tests
def test_reference_ruleset_is_clean(reference):
    assert reference.loops and {"turn", "round"} <= reference.kinds


def test_the_reference_has_examples():
    kinds = {e.kind for e in EXAMPLES}
    assert kinds == {"expr", "stmt"} and len(EXAMPLES) > 50


@pytest.mark.parametrize("ex", EXAMPLES, ids=str)
def test_example_compiles(ex: Example, reference):
    try:
        diags, _fn = _compile(ex, reference)
    except DiagnosticError as exc:
        pytest.fail(f"{ex}: {exc.diagnostic.message} ({exc.diagnostic.hint})")
    assert not diags, "\n".join(f"{ex}: [{d.code}] {d.message} ({d.hint})" for d in diags)


@pytest.mark.parametrize("ex", [e for e in EXAMPLES if e.has_expected], ids=str)
def test_example_value(ex: Example, reference):
    diags, fn = _compile(ex, reference)
    assert not diags
    ctx = SimpleNamespace(locals={}, vars={}, marks={}, players=[])
    value = fn(ctx)
    # compared as JSON so that true is not 1 and 3.0 is not 3
    assert json.dumps(value, sort_keys=True) == json.dumps(ex.expected, sort_keys=True), f"{ex}: got {value!r}"


def test_every_builtin_is_documented():
    doc = LANGUAGE.read_text(encoding="utf-8")
    missing = [name for name in REGISTRY if not re.search(rf"`{name}\(", doc)]
    assert not missing, f"built-in functions missing from docs/language.md: {missing}"
    examples = " ".join(e.text for e in EXAMPLES)
    unused = [name for name in REGISTRY if not re.search(rf"\b{name}\(", examples)]
    assert not unused, f"built-in functions with no dsl-expr or dsl-stmt example: {unused}"


def _statement_keywords() -> set[str]:
    """The first word of each statement rule of the grammar (aug_stmt has none: it is checked apart)."""
    grammar = GRAMMAR.read_text(encoding="utf-8")
    return set(re.findall(r'^\w+_stmt:\s*"(\w+)"', grammar, re.M))


def test_every_statement_has_an_example():
    keywords = _statement_keywords()
    assert {"move", "draw", "set", "pass"} <= keywords
    seen: set[str] = set()
    for ex in (e for e in EXAMPLES if e.kind == "stmt"):
        for s in parse_statements(ex.text, plain_locator()):
            text = ex.text[s.span.col - 1:]
            seen.add(text.split()[0])
            if isinstance(s, A.Assign) and s.op != "=":
                seen.add(s.op)
    missing = sorted((keywords | {"+=", "-="}) - seen)
    assert not missing, f"statements with no dsl-stmt example in docs/language.md: {missing}"


def test_draw_without_to_is_explained():
    doc = LANGUAGE.read_text(encoding="utf-8")
    assert re.search(r"without `to`", doc)


def _mistakes_table() -> list[tuple[str, str]]:
    """(what the designer wrote, the message shown) from the tables of 'Common mistakes'."""
    doc = LANGUAGE.read_text(encoding="utf-8")
    section = doc.split("## Common mistakes", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    found = [re.match(r"^\|\s*`([^`]+)`[^|`]*\|\s*`([^`]+)`(?:\s*\(hint: (.*)\))?\s*\|", line) for line in rows]
    unread = [line for line, m in zip(rows, found) if m is None]
    assert not unread, f"rows of 'Common mistakes' this test cannot read: {unread}"
    return [m.groups() for m in found]


def test_common_mistakes_cover_the_parser_tables():
    shown = {msg for _bad, msg, _hint in _mistakes_table()}
    missing = [label for label in list(SYNTAX_ERRORS) + list(STATEMENT_ERRORS) if f"syntax: {label}" not in shown]
    assert not missing, f"messages of parser.SYNTAX_ERRORS/STATEMENT_ERRORS missing from 'Common mistakes': {missing}"


def _syntax_errors(text: str) -> list[str]:
    """The messages of parsing the text as an expression and as statements (a condition or a step)."""
    out = []
    for parse in (parse_expression, parse_statements):
        try:
            parse(text, plain_locator())
        except DiagnosticError as exc:
            out.append(exc.diagnostic.message)
    return out


@pytest.mark.parametrize("bad,message,hint", _mistakes_table(), ids=lambda v: v)
def test_common_mistake_gives_the_message_shown(bad: str, message: str, hint: str, reference):
    compiled = re.match(r"error\[(\w+)\]: (.*)$", message)
    if not compiled:  # a syntax error, in a condition or in a step
        assert message in _syntax_errors(bad)
        return
    diags: list = []
    try:
        Compiler(reference.scope, diags).expr(parse_expression(bad, plain_locator()))
    except DiagnosticError:
        sc = StatementCompiler(reference.scope, diags, loops=reference.loops, sequences=reference.sequences,
                               kinds=reference.kinds)
        for s in parse_statements(bad, plain_locator()):
            sc.stmt(s)
    got = [(d.code, d.message, d.hint) for d in diags]
    assert any((d.code, d.message) == compiled.groups() and (not hint or d.hint == hint) for d in diags), got


def _codes_in_interpreter() -> set[str]:
    codes: set[str] = set()
    for path in INTERPRETER.rglob("*.py"):
        codes.update(re.findall(r'"([EWR][0-9]{3})"', path.read_text(encoding="utf-8")))
    return codes


def test_every_diagnostic_code_is_documented():
    codes = _codes_in_interpreter()
    assert "E101" in codes and "R001" in codes
    doc = DIAGNOSTICS.read_text(encoding="utf-8")
    documented = set(re.findall(r"^\|\s*`?([EWR][0-9]{3})`?\s*\|", doc, re.M))
    missing = sorted(codes - documented)
    assert not missing, f"diagnostic codes used in interpreter/ but not described in docs/diagnostics.md: {missing}"
