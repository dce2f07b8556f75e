"""The parser's tables ship with the package (never a pickle, never a file in a user's folder): loaded from there a
parser parses exactly as a built one; tables that do not name this grammar (or Lark) are never used."""

from __future__ import annotations

import os

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


def _package_folder():
    from importlib.resources import files
    return files(P.__package__)


def test_the_shipped_tables_are_this_grammars_and_parse_as_a_built_parser():
    """The tables ship with the package (make tables): each names the grammar's digest, and Lark's tables loaded from
    them parse as a parser built from the grammar. A grammar edited without `make tables` fails here."""
    import json

    folder = _package_folder()
    for name in (parser_cache.TABLES, parser_cache.FAST):
        head = json.loads(folder.joinpath(name).read_text(encoding="utf-8"))
        assert head["grammar"] == parser_cache.digest(_grammar()), f"{name} is stale: run `make tables`"
    assert json.loads(folder.joinpath(parser_cache.FAST).read_text(encoding="utf-8"))["format"] == \
        parser_cache.FAST_FORMAT
    built = parser_cache.build(_grammar(), P._BUILD)
    loaded = parser_cache.load_or_build(_grammar(), folder, P._BUILD)
    assert loaded is not built and not loaded.options.cache
    assert _with_builder(lambda: _asts(loaded)) == _with_builder(lambda: _asts(built))
    assert [t.name for t in loaded.terminals] == [t.name for t in built.terminals]


def _copy_of_the_tables(tmp_path):
    import shutil

    for name in (parser_cache.TABLES, parser_cache.FAST):
        shutil.copy(str(_package_folder().joinpath(name)), tmp_path / name)
    return tmp_path


@pytest.mark.parametrize("damage", ["not json", "another grammar", "another lark", "wrong types", "missing"])
def test_tables_that_do_not_match_are_never_used(tmp_path, damage):
    """A table file that names another grammar (or, for Lark's, another Lark), or that cannot be read, is not used:
    the parser is built in the process and parses as ever; nothing is an error."""
    import json

    folder = _copy_of_the_tables(tmp_path)
    for name in (parser_cache.TABLES, parser_cache.FAST):
        path = folder / name
        data = json.loads(path.read_text(encoding="utf-8"))
        if damage == "not json":
            path.write_text('{"data": {"#t": [1, ', encoding="utf-8")
        elif damage == "another grammar":
            data["grammar"] = parser_cache.digest(_grammar() + "\n// edited\n")
            path.write_text(json.dumps(data), encoding="utf-8")
        elif damage == "another lark":
            data["lark"] = "0.0.1"
            path.write_text(json.dumps(data), encoding="utf-8")
        elif damage == "wrong types":
            path.write_text(json.dumps({**data, "states": "x", "data": 7, "memo": None}), encoding="utf-8")
        else:
            path.unlink()
    lark = parser_cache.load_or_build(_grammar(), folder, P._BUILD)
    assert _with_builder(lambda: _asts(lark)) == _with_builder(lambda: _asts(parser_cache.build(_grammar(), P._BUILD)))
    fast = parser_cache.load_fast(_grammar(), folder, P._BUILD)
    assert fast is None or damage == "another lark"  # the fast tables are the grammar's own (no Lark in them)


def test_nothing_in_a_users_folder_is_read_or_written(tmp_path):
    """The per-user cache is gone: a folder of planted tables (the old cache's names, two rules swapped) in the
    user's cache folder and in $RULECRAFT_CACHE changes nothing, and nothing is written there."""
    import json
    import subprocess
    import sys

    cache = tmp_path / "cache" / "rulecraft"
    cache.mkdir(parents=True)
    fast = json.loads(_package_folder().joinpath(parser_cache.FAST).read_text(encoding="utf-8"))
    fast["rules"][0], fast["rules"][1] = fast["rules"][1], fast["rules"][0]
    for name in ("parser-0000000000000000.fast.json", parser_cache.FAST):
        (cache / name).write_text(json.dumps(fast), encoding="utf-8")
    before = sorted(p.name for p in cache.iterdir())
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), RULECRAFT_CACHE=str(cache), HOME=str(tmp_path))
    code = ("import sys; from rulecraft.tools.cli.main import main; sys.exit(main(['play', 'pig', '--seed', '3', "
            "'--players', '2']))")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    clean = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == clean.returncode == 0 and done.stdout == clean.stdout
    assert sorted(p.name for p in cache.iterdir()) == before


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

    lark = parser_cache.build(_grammar(), P._BUILD)  # from the grammar, in this process
    fast = parser_cache.load_fast(_grammar(), _package_folder(), P._BUILD)  # the shipped tables
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
            ours = _outcome(lambda text=text, start=start: fast.parse(text, start))
            theirs = _outcome(lambda text=text, start=start: lark.parse(text, start=start))
            assert ours == theirs, (start, text)
            parsed += ours != "mistake"
            stopped += ours == "mistake"
    assert parsed > 2000 and stopped > 2000


def test_validate_imports_no_lark(tmp_path):
    """`rulecraft validate` of a clean ruleset imports nothing it does not use, from its first process on: not Lark
    (the fast parser reads the shipped tables), nor the code generator, the runtime, the pure-Python schema walk,
    rich, pygls or rapidfuzz."""
    import subprocess
    import sys

    unused = ("lark", "rich", "pygls", "rapidfuzz", "jsonschema", "graphviz", "rulecraft.runtime",
              "rulecraft.compiler", "rulecraft.tools.lsp")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path), HOME=str(tmp_path))
    code = ("import sys; from rulecraft.tools.cli.main import main; code = main(['validate', '-q', 'dml']); "
            f"print(code, sorted(m for m in sys.modules if any(m == u or m.startswith(u + '.') for u in {unused!r})))")
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert first.stdout.strip() == "0 []", first.stdout + first.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written in the user's folders
