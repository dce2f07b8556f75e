"""The parser's tables are built once and kept as JSON in the user's cache folder (never a pickle): a parser
loaded from there parses exactly as a built one; a damaged, foreign or unwritable cache is never an error."""

from __future__ import annotations

import os
import stat

import pytest

from rulecraft.dsl import parser as P
from rulecraft.dsl import parser_cache

TEXTS = ["1 + 2 * x", "[c for c in p.hand if c.value > 2]", "a if b else c", "record(winner: none, price: 0)",
         "f(a, b).x[3]", "not x in y", "'{a} and {b}'"]
STMTS = ["let x = 1; move c to p.hand", "set t[k] = 2; log 'x {y}'", "draw 2 from deck to p.hand as got"]


def _grammar() -> str:
    from importlib.resources import files
    return files(P.__package__).joinpath("grammar.lark").read_text(encoding="utf-8")


def _asts(lark) -> list:
    out = []
    for text in TEXTS:
        out.append(lark.parse(text, start="expr_start")[0])
    for text in STMTS:
        out.append(lark.parse(text, start="stmts_start")[0])
    return out


def _with_builder(fn):
    saved = P._BUILD.begin(P.plain_locator(), 0)
    try:
        return fn()
    finally:
        P._BUILD.restore(saved)


def test_a_parser_loaded_from_the_cache_parses_as_a_built_one(tmp_path, monkeypatch):
    monkeypatch.setenv("RULECRAFT_CACHE", str(tmp_path / "c"))
    path = P._cache_path(_grammar())
    built = P._load_or_build(_grammar(), path)  # builds, and writes the cache
    assert os.path.exists(path) and open(path, encoding="utf-8").read(1) == "{"  # JSON, not a pickle
    loaded = P._load_or_build(_grammar(), path)
    assert loaded is not built and not loaded.options.cache
    assert _with_builder(lambda: _asts(loaded)) == _with_builder(lambda: _asts(built))
    assert [t.name for t in loaded.terminals] == [t.name for t in built.terminals]


def test_a_damaged_cache_is_built_again(tmp_path, monkeypatch):
    monkeypatch.setenv("RULECRAFT_CACHE", str(tmp_path))
    path = P._cache_path(_grammar())
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"data": {"#t": [1, ')
    lark = P._load_or_build(_grammar(), path)
    assert _with_builder(lambda: _asts(lark))
    assert open(path, encoding="utf-8").read().endswith("}")  # written afresh


def test_a_read_only_cache_folder_is_no_error(tmp_path, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("RULECRAFT_CACHE", str(folder))
    path = P._cache_path(_grammar())
    folder.chmod(0o500)
    try:
        lark = P._load_or_build(_grammar(), path)
        assert _with_builder(lambda: _asts(lark))
        assert not os.path.exists(path) or os.geteuid() == 0  # root writes anyway
    finally:
        folder.chmod(0o700)


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX owners and modes")
def test_a_folder_others_may_write_is_not_used(tmp_path, monkeypatch):
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o777)
    monkeypatch.setenv("RULECRAFT_CACHE", str(folder))
    assert P._cache_path(_grammar()) is None
    monkeypatch.setenv("RULECRAFT_CACHE", "")
    assert P._cache_path(_grammar()) is None


def test_the_cache_file_is_named_by_the_grammar(tmp_path, monkeypatch):
    monkeypatch.setenv("RULECRAFT_CACHE", str(tmp_path))
    assert P._cache_path(_grammar()) != P._cache_path(_grammar() + "\n// edited\n")
    assert stat.S_IMODE(os.stat(tmp_path).st_mode) & 0o022 == 0


# --- the fast parser: Lark's tables, our own loop; Lark only for texts with a mistake ---------------------------


def _dsl_strings() -> list[str]:
    """Every text of the bundled rulesets and of the test cases: what the rules language is written as."""
    import glob

    import yaml

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = set()
    for path in sorted(glob.glob(f"{root}/rulesets/**/*.yaml", recursive=True)
                       + glob.glob(f"{root}/tests/cases/**/*.yaml", recursive=True)):
        try:
            with open(path, encoding="utf-8") as f:
                events = list(yaml.parse(f.read(), Loader=yaml.CSafeLoader))
        except (yaml.YAMLError, UnicodeDecodeError):
            continue  # a broken file of the invalid corpus
        out |= {e.value for e in events if isinstance(e, yaml.ScalarEvent)}
    return sorted(out)


def _outcome(parse):
    """What one parse gives: the value (with its repr, which shows any token kept in the AST) and the problem the
    callbacks kept, or 'mistake' when the parser stopped."""
    from lark.exceptions import UnexpectedInput

    saved = P._BUILD.begin(P.plain_locator(), 0)
    try:
        try:
            value = parse()
        except (parser_cache.Unparsed, UnexpectedInput):
            return "mistake"
        problem = P._BUILD.problem
        return value, repr(value), None if problem is None else problem.diagnostic.to_dict()
    finally:
        P._BUILD.restore(saved)


def test_the_fast_parser_parses_every_text_as_lark_does_and_stops_where_lark_does():
    import random

    lark = P._parser()
    fast = parser_cache.FastParser(parser_cache.fast_tables(lark), P._BUILD)
    texts = _dsl_strings()
    rnd = random.Random(27)
    marks = " ()[]{}.,;:+-*/%<>=!'\"#ab0_\n\\"
    mutated = []
    for t in texts:  # one slip of the pen in each: a character lost, added, swapped, or the text cut short
        if t:
            i = rnd.randrange(len(t))
            mutated.append(rnd.choice([t[:i] + t[i + 1:], t[:i] + rnd.choice(marks) + t[i:], t[:i],
                                       t[:i] + t[i + 1:i + 2] + t[i:i + 1] + t[i + 2:]]))
    parsed = stopped = 0
    for text in texts + mutated:
        if P._too_nested(text):
            continue
        for start in ("expr_start", "stmts_start"):
            ours = _outcome(lambda: fast.parse(text, start))
            theirs = _outcome(lambda: lark.parse(text, start=start))
            assert ours == theirs, (start, text)
            parsed += ours != "mistake"
            stopped += ours == "mistake"
    assert parsed > 2000 and stopped > 2000


def test_validate_imports_no_lark_once_the_tables_are_kept(tmp_path):
    """`rulecraft validate` of a clean ruleset imports nothing it does not use: not Lark (the fast parser reads the
    kept tables), nor the code generator, the runtime, the pure-Python schema walk, rich, pygls or rapidfuzz."""
    import subprocess
    import sys

    unused = ("lark", "rich", "pygls", "rapidfuzz", "jsonschema", "graphviz", "rulecraft.runtime",
              "rulecraft.dsl.codegen.generator", "rulecraft.dsl.codegen.writing", "rulecraft.tools.lsp")
    env = dict(os.environ, RULECRAFT_CACHE=str(tmp_path))
    code = ("import sys; from rulecraft.tools.cli.main import main; code = main(['validate', '-q', 'dml']); "
            f"print(code, sorted(m for m in sys.modules if any(m == u or m.startswith(u + '.') for u in {unused!r})))")
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    again = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert first.stdout.split()[0] == "0" and "'lark'" in first.stdout  # the first process builds the tables
    assert again.stdout.strip() == "0 []", again.stdout + again.stderr
    assert any(p.name.endswith(".fast.json") for p in tmp_path.iterdir())


def test_a_damaged_fast_table_is_made_again(tmp_path, monkeypatch):
    monkeypatch.setenv("RULECRAFT_CACHE", str(tmp_path))
    path = parser_cache.fast_path(P._cache_path(_grammar()))
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"format": %d, "states": [' % parser_cache.FAST_FORMAT)
    fast = parser_cache.load_fast(P._cache_path(_grammar()), P._BUILD, P._parser)
    assert _with_builder(lambda: fast.parse("1 + 2 * x", "expr_start"))[0] == \
        _with_builder(lambda: P._parser().parse("1 + 2 * x", start="expr_start"))[0]
    assert open(path, encoding="utf-8").read().endswith("}")
    assert parser_cache.load_fast(None, P._BUILD, P._parser) is None  # no cache folder: Lark parses
