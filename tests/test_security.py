"""Rulesets are data: a ruleset, log or saved game from a stranger cannot run code, read files, hang or crash.

docs/security.md lists each threat with the test here (or in the corpus tests) that proves its guard.

  - YAML goes through safe loading only: Python tags are refused, whatever their form, and
    nothing in the package can build Python objects from text (a test reads the source);
  - `extends:` stays in the ruleset's folder, symlinks included;
  - every limit answers with its diagnostic after bounded work, on both engines (the reference's
    closures, the compiled engine's stretches of steps written as Python): a child process with a memory cap runs the cases, so a
    regression fails here instead of taking the machine; the tests assert work counted and peak sizes.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cli_fork import run_cli

from rulecraft.diagnostics import RuleError
from rulecraft.dsl.guards import MAX_VALUES, nested
from rulecraft.loader import load_ruleset

ROOT = Path(__file__).resolve().parents[1]
SOURCE_DIRS = [ROOT / "interpreter", ROOT / "tools", ROOT / "rulesets"]


def _codes(result) -> list[str]:
    return [d.code for d in result.diagnostics if d.is_error]


# ------------------------------------------------------------------------------------------
# no code from text

FORBIDDEN = {
    "eval/exec/compile": r"(?<![\w.])(eval|exec|compile)\s*\(",
    "pickle/marshal/shelve": r"\b(pickle|cPickle|marshal|shelve|dill)\b",
    "__import__": r"__import__",
    "an unsafe YAML loader": r"yaml\.(load|load_all|full_load|full_load_all|unsafe_load|unsafe_load_all)\s*\(|"
                             r"yaml\.(Loader|FullLoader|UnsafeLoader|CLoader|CFullLoader|CUnsafeLoader)\b|"
                             r"add_constructor|add_multi_constructor",
    "a shell": r"os\.system|os\.popen|shell\s*=\s*True",
}
# compile() runs in one place, right after the safety check of the source (safesource.compiled), and exec() runs the
# code objects it made: the source codegen writes from an expression's AST, which holds no text of the ruleset
# (constants and names reach it through the namespace); tests/test_compiler.py and test_engines.py prove it
GENERATED_CODE = {"interpreter/compiler/safesource.py": {"compile"}, "interpreter/compiler/writing.py": {"exec"},
                  "interpreter/compiler/steps.py": {"exec"},
                  # the constructor of the engine's own frozen records, from their field names (as dataclasses does)
                  "interpreter/records.py": {"exec"}}
# importing a module by name happens in two places, both fed from the command line only
IMPORT_BY_NAME = {
    "interpreter/agents/kinds.py": "--agent python:MODULE:CLASS, a bot the user names on the command line",
    "tools/cli/commands.py": "a verb's module, from the fixed table of verbs",
}


def _sources() -> list[Path]:
    return sorted(p for d in SOURCE_DIRS for p in d.rglob("*.py") if "__pycache__" not in p.parts)


def _code_lines(path: Path):
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        code = line.split("#", 1)[0] if not line.lstrip().startswith(("'", '"')) else line
        yield i, code


@pytest.mark.parametrize("what", sorted(FORBIDDEN))
def test_the_source_tree_never_turns_text_into_code(what):
    """No eval, exec, pickle or unsafe YAML anywhere in interpreter/, tools/ or rulesets/: nothing is allowed."""
    pattern = re.compile(FORBIDDEN[what])
    hits = [f"{p.relative_to(ROOT)}:{i}: {code.strip()}" for p in _sources() for i, code in _code_lines(p)
            if (m := pattern.search(code)) and not _generated_code(p, m)]
    assert not hits, f"{what} found:\n" + "\n".join(hits)


def _generated_code(path: Path, match: re.Match) -> bool:
    """The compile() or exec() of the compiler, the places allowed to turn the engine's own source into code."""
    allowed = GENERATED_CODE.get(str(path.relative_to(ROOT)), set())
    return match.lastindex is not None and match.group(1) in allowed


def test_modules_are_imported_by_name_only_where_the_command_line_asks():
    pattern = re.compile(r"import_module|importlib\.__import__|runpy|spec_from_file_location|exec_module")
    where = {str(p.relative_to(ROOT)) for p in _sources() for _, code in _code_lines(p) if pattern.search(code)}
    assert where <= set(IMPORT_BY_NAME), f"modules imported by name in {sorted(where - set(IMPORT_BY_NAME))}"


def test_the_yaml_reader_composes_and_never_constructs():
    text = (ROOT / "interpreter" / "loader" / "yaml_source.py").read_text(encoding="utf-8")
    assert "yaml.compose(" in text and "CSafeLoader" in text and "SafeConstructor" in text
    assert not re.search(r"\.construct_(document|object|mapping|sequence)\(", text)


PAYLOADS = [
    "!!python/object/apply:os.system ['touch {marker}']",
    "!!python/object/new:os.system ['touch {marker}']",
    "!!python/name:os.system",
    "!!python/module:os",
    "!!python/object:os.system {{}}",
    "!!python/object/apply:subprocess.check_output [['touch', '{marker}']]",
    "!<tag:yaml.org,2002:python/object/apply:os.system> ['touch {marker}']",
    "!custom 'x'",
    "!!binary aGVsbG8=",
    "!!set {{a, b}}",
]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_python_tags_are_refused_and_never_run(tmp_path, payload):
    marker = tmp_path / "ran"
    path = tmp_path / "evil.yaml"
    path.write_text(f"ruleset: evil\ntitle: {payload.format(marker=marker)}\n", encoding="utf-8")
    result = load_ruleset(str(path))
    assert not result.ok and "E005" in _codes(result), result.diagnostics
    assert not marker.exists(), "the payload ran"


def test_a_python_tag_in_the_parent_of_a_variant_is_refused(tmp_path):
    marker = tmp_path / "ran"
    (tmp_path / "parent.yaml").write_text(f"ruleset: p\ntitle: !!python/object/apply:os.system ['touch {marker}']\n")
    (tmp_path / "child.yaml").write_text("ruleset: c\nextends: parent\ntitle: C\n")
    result = load_ruleset(str(tmp_path / "child.yaml"))
    assert "E005" in _codes(result) and not marker.exists()


# ------------------------------------------------------------------------------------------
# extends: stays in the folder


def _variant(folder: Path, ref: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "variant.yaml"
    path.write_text(f"ruleset: v\nextends: {ref}\ntitle: V\n", encoding="utf-8")
    return path


@pytest.fixture
def outside(tmp_path) -> Path:
    """A ruleset-looking file outside the game's folder, with a secret in it."""
    d = tmp_path / "outside"
    d.mkdir()
    (d / "secret.yaml").write_text("ruleset: secret\ntitle: Secret\nSECRET_KEY: hunter2\n", encoding="utf-8")
    return d / "secret.yaml"


def _refused_outside(result) -> None:
    assert "E502" in _codes(result), result.diagnostics
    assert not any("SECRET" in d.message or "hunter2" in d.message for d in result.diagnostics)
    assert not any(d.span and "secret" in d.span.file for d in result.diagnostics)


@pytest.mark.parametrize("how", ["bare-name", "file-name", "sub-folder"])
def test_extends_through_a_symlink_that_leads_out_is_refused(tmp_path, outside, how):
    game = tmp_path / "game"
    game.mkdir()
    if how == "sub-folder":
        (game / "linked").symlink_to(outside.parent, target_is_directory=True)
        ref = "linked/secret.yaml"
    else:
        (game / "parent.yaml").symlink_to(outside)
        ref = "parent" if how == "bare-name" else "parent.yaml"
    _refused_outside(load_ruleset(str(_variant(game, ref))))


@pytest.mark.parametrize("ref", ["../outside/secret.yaml", "{abs}", "./../outside/secret.yaml",
                                 "sub/../../outside/secret.yaml"])
def test_extends_by_path_outside_the_folder_is_refused(tmp_path, outside, ref):
    _refused_outside(load_ruleset(str(_variant(tmp_path / "game", ref.format(abs=outside)))))


def test_extends_may_use_a_symlink_that_stays_inside(tmp_path):
    game = tmp_path / "game"
    (game / "real").mkdir(parents=True)
    pig = (ROOT / "rulesets" / "examples" / "pig.yaml").read_text(encoding="utf-8")
    (game / "real" / "pig.yaml").write_text(pig, encoding="utf-8")
    (game / "pig.yaml").symlink_to(game / "real" / "pig.yaml")
    result = load_ruleset(str(_variant(game, "pig")))
    assert "E502" not in _codes(result), result.diagnostics


def test_extends_may_name_a_bundled_ruleset(tmp_path):
    assert load_ruleset(str(_variant(tmp_path / "game", "pig"))).ok


# ------------------------------------------------------------------------------------------
# every limit answers after bounded work

RUNTIME = """\
ruleset: limit
title: Limit
start: game
players: {{min: 2, max: 2}}
variables: {{x: 2, s: "ab", l: []}}
{extra}
sequences:
  game:
    kind: stage
    steps:
      - while: "count(players) > 0"
        do:
          - "{stmt}"
{more}
"""


def _runtime(stmt: str, extra: str = "", more: str = "") -> str:
    return RUNTIME.format(stmt=stmt, extra=extra, more=more)


def _doubling_functions(n: int) -> str:
    lines = ["functions:", '  f0: {params: [x], value: "x"}']
    lines += [f'  f{i}: {{params: [x], value: "f{i - 1}(x) + f{i - 1}(x)"}}' for i in range(1, n + 1)]
    return "\n".join(lines)


def _chained_functions(n: int) -> str:
    lines = ["functions:", '  f0: {params: [x], value: "x"}']
    lines += [f'  f{i}: {{params: [x], value: "f{i - 1}(x) + 1"}}' for i in range(1, n + 1)]
    return "\n".join(lines)


BILLION_LAUGHS = "ruleset: lol\ntitle: LOL\n" + "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 10))

def _alias_text() -> str:
    """One text of 1,000,000 characters used through 150,000 aliases: 150 GB expanded (issue 14, item 1)."""
    return ('ruleset: aliases\ntitle: Aliases\nnotes: &big "' + "a" * 1_000_000 + '"\nextra: ['
            + ", ".join(["*big"] * 150_000) + "]\n")


def _alias_statement() -> str:
    """A statement of 3,900 characters used through 150,000 aliases: each use was parsed again (item 1)."""
    stmt = "; ".join(["set x = x + 1"] * 260)
    return RUNTIME.format(stmt="pass", extra="", more="") + f"extra: [&s \"{stmt}\", " + ", ".join(["*s"] * 150_000) + "]\n"


def _once(build: str, stmt: str) -> str:
    """`stmt` in the loop, after the list l is built on the first pass; x counts the passes (from 2)."""
    return _runtime(f"set l = l if count(l) > 0 else {build}; set x = x + 1; {stmt}")


def _display_names() -> str:
    """A decision whose display name for each of 50 options is a text of 65,536 characters."""
    steps = ('      - "' + "; ".join(["set s = s + s"] * 15) + '"\n'
             '      - choose: {player: "players[0]", kind: one, options: "1..50", display: "s + str(o)", as: o}\n')
    text = _runtime("pass")
    start = text.index('      - while:')
    return text[:start] + steps


_LONG_TEXT = "let t = 'abcdefghijkl'; " + "let t = t + t; " * 13  # 98,304 characters, within the limit of a text

# name: (ruleset text, what must come out: a code and a piece of its message)
LIMITS = {
    "file-size": ("ruleset: big\ntitle: Big\n# " + "x" * 2_000_001 + "\n", "E002", "over the limit"),
    "alias-expansion": (BILLION_LAUGHS, "E006", "more than 200000 nodes"),
    "alias-text": (_alias_text(), "E006", "more than 4,000,000 characters"),
    "alias-statement": (_alias_statement(), "E006", "more than 4,000,000 characters"),
    "yaml-nesting-depth": ("ruleset: deep\ntitle: Deep\nnotes: " + "[" * 100_000 + "]" * 100_000 + "\n", "E007", "nest"),
    "node-count": ("ruleset: wide\ntitle: Wide\nnotes: [" + ",".join(["0"] * 205_000) + "]\n", "E006",
                   "more than 200000 nodes"),
    "dsl-length": (_runtime("log " + " + ".join(["1"] * 1500)), "E105", "over the limit of 4000"),
    "expression-depth": (_runtime("log " + "(" * 60 + "1" + ")" * 60), "E104", "nested deeper than 40"),
    "steps-per-game": (_runtime("pass"), "R002", "steps without ending"),
    "call-depth": (_runtime("call again", more='  again:\n    kind: turn\n    steps:\n      - "call again"'), "R001",
                   "more than 400 deep"),
    "range-size": (_runtime("let r = 1..10000000"), "R001", "more than 100,000 numbers"),
    "number-growth": (_runtime("set x = x * x"), "R001", "grew past"),
    "text-growth": (_runtime("set s = s + s"), "R001", "over the limit"),
    "list-growth": (_runtime("set l = l + l + [1]"), "R001", "over the limit"),
    "list-nesting": (_runtime("set l = [l]"), "R001", "nested more than 100 deep"),
    "list-sharing": (_runtime("; ".join(["let a = [1]"] + ["let a = [a, a, a, a, a, a, a, a, a, a]"] * 6) + "; log a"),
                     "R001", "more than 100,000 values"),
    # item 3: x is declared with a number, so its type said 'number' and the list's size went unchecked
    "number-variable-doubling": (_runtime("set x = [x, x]"), "R001", "more than 100,000 values"),
    "flatten-doubling": (_runtime("set l = flatten([l, l, [1]])"), "R001", "100,000 values"),
    # item 2: 99,999 references to one text of 98,304 characters are 9.8 GB as text, a template or a save
    "shared-long-texts": (_runtime(_LONG_TEXT + "let l = [t for i in 1..99999]; log 'the list: {l}'"), "R001",
                          "more than 1,000,000 characters in all"),
    "shared-long-texts-str": (_runtime(_LONG_TEXT + "let l = [t, t, t, t, t, t, t, t, t, t, t]; let u = str(l)"),
                              "R001", "more than 1,000,000 characters in all"),
    # item 4: whole numbers past 2^63 made by built-ins
    "int-of-a-long-decimal": (_runtime("set x = int(1" + "0" * 300 + ".0)"), "R001", "grew past"),
    "sum-past-the-limit": (_runtime("set x = sum([900000000000000000 for i in 1..1000])"), "R001", "grew past"),
    "ceil-of-a-long-decimal": (_runtime("set x = ceil(1" + "0" * 300 + ".5)"), "R001", "grew past"),
    "text-formatting": (_runtime("let t = 'a%999999999d'; let f = t % 1"), "R001", "cannot compute"),
    "text-repetition": (_runtime("let t = 'ab'; let f = t * 1000000000"), "R001", "cannot compute"),
    "comprehension-work": (_runtime("set l = [[y for y in 1..99999] for z in 1..99999]"), "R002",
                           "building lists and calling functions"),
    "function-call-work": (_runtime("log f40(1)", extra=_doubling_functions(40)), "R002",
                           "building lists and calling functions"),
    "function-chain-depth": (_runtime("log f600(1)", extra=_chained_functions(600)), "R001", "too deep"),
    # item 5: a step that scans a long list costs by its length
    "membership-work": (_once("[i for i in 1..99999]", "let b = 99999 in l"), "R002", "building lists"),
    "sorted-work": (_once("[i for i in 1..99999]", "let m = sorted(l)"), "R002", "building lists"),
    "equality-work": (_once("[i for i in 1..99999]", "let b = l == l"), "R002", "building lists"),
    "nested-equality-work": (_once("[[i for i in 1..99999]]", "let b = l == l"), "R002", "building lists"),
    # issue 25: a record that holds the last one twice, each pass (it was never size-checked: 30 s, 1.7 GB when shown)
    "record-doubling": (_runtime("set l = record(a: l, b: l)"), "R001", "more than 100,000 values"),
    "record-of-records": (_runtime("; ".join(["let a = record(v: 1)"] + ["let a = record(p: a, q: a, r: a, s: a, t: a, "
                                                                         "u: a, v: a, w: a, x: a, y: a)"] * 6)),
                          "R001", "more than 100,000 values"),
    "record-of-long-texts": (_runtime(_LONG_TEXT + "let r = record(a: t, b: t, c: t, d: t, e: t, f: t, g: t, h: t, "
                                                   "i: t, j: t, k: t)"), "R001", "characters in all"),
    # issue 25: ordering by keys that are lists compares them value by value: charged (it ran 23.7 s uncharged)
    # (a pass charges at most the slack the test allows one charge: 2,000 keys of 50 values, 5,000 of 300)
    "sorted-by-list-keys": (_once("[[0 for j in 1..50] for i in 1..90]",
                                  "let m = sorted(i in 1..2000, by: l[i % 90])"), "R002", "building lists"),
    "highest-by-list-keys": (_once("[[0 for j in 1..300] for i in 1..19]",
                                   "let m = highest(i in 1..5000, by: l[i % 19])"), "R002", "building lists"),
    # issue 25: a display name is a name: a text of 98,304 characters for each option is refused
    "display-name-size": (_display_names(), "R001", "display name"),
}
# the passes of the loop each work case may run before the budget stops it (the list is 99,999 long; a pass
# costs it >> 4 = 6,249 units, sorted about 17 times that); uncharged, they ran MAX_STEPS / 5 passes (hours)
PASSES = {"membership-work": 50, "sorted-work": 5, "equality-work": 50, "nested-equality-work": 50,
          "sorted-by-list-keys": 5, "highest-by-list-keys": 50}
MAX_STEPS = 300_000  # the default is 5,000,000
# a smaller budget where one pass is all the case does: f40(1) makes 2^41 calls, so any budget stops it, and its
# 300,000 calls took 5.5 s of CPU in each engine (the assertions are the same, against the case's own budget)
BUDGETS = {"function-call-work": 30_000}
MAX_PEAK = 600 * 2**20  # bytes a case may add to the child's peak memory (its cap is 3 GB)
MODES = ("reference", "compiled")  # the engines (Game's `engine`): every guard holds in each

CHILD = textwrap.dedent("""
    import json, resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))  # a guard that fails must not take the machine down
    from rulecraft.agents.base import RandomAgent
    from rulecraft.diagnostics import RuleError
    from rulecraft.compiler import expressions, stretches
    from rulecraft.loader import load_ruleset
    from rulecraft.runtime.game import Game, GameError
    from rulecraft.runtime.machine.interpreter import run
    mode = sys.argv[1]
    stretches.HOT = stretches.STRAIGHT_VISITS = 1  # made at the first visit: no case runs long enough
    expressions.STRICT = stretches.STRICT = True  # a failure to write raises here instead of falling back
    for arg in sys.argv[2:]:
        max_steps, _, path = arg.partition(":")  # each case with its budget
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        out = {"case": path}
        errors = []
        g = None
        try:
            loaded = load_ruleset(path)
            errors = [d for d in loaded.diagnostics if d.is_error]
            if not errors:
                g = Game(loaded.ruleset, None, 1, max_steps=int(max_steps), start=False, engine=mode)
                g._setup()  # as Game() starts a game, with g kept for its counts when the first run stops
                g.push(loaded.ruleset.start, {})
                run(g)
                agents = [RandomAgent(p.seat, 1) for p in g.players]
                while not g.over:
                    g.apply(agents[g.pending.player].choose(g.pending, None))
        except RuleError as exc:
            errors = [exc.diagnostic()]
        except BaseException as exc:
            out["crash"] = f"{type(exc).__name__}: {exc}"[:500]
        out["codes"] = [d.code for d in errors]
        out["messages"] = [d.message for d in errors]
        out["lines"] = [d.span.line if d.span else None for d in errors]
        if g is not None:
            out["steps"], out["work"] = g.steps, getattr(g, "work", 0)
            out["x"] = g.vars.get("x") if type(g.vars.get("x")) is int else None
        out["peak"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024
        print(json.dumps(out), flush=True)
""")


@pytest.fixture(scope="module")
def limit_results(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("limits")
    args = {}
    for name, (text, _, _) in LIMITS.items():
        path = folder / f"{name}.yaml"
        path.write_text(text, encoding="utf-8")
        args[name] = f"{BUDGETS.get(name, MAX_STEPS)}:{path}"
    results = {}
    for mode in MODES:
        # a case the loader refuses (an E code) never reaches an engine: the first mode's child runs it for both
        names = [name for name in LIMITS if mode == MODES[0] or not LIMITS[name][1].startswith("E")]
        # the time-out only keeps a regression from hanging the run: the tests assert work and sizes
        proc = subprocess.run([sys.executable, "-c", CHILD, mode, *(args[name] for name in names)],
                              capture_output=True, text=True, timeout=1800)
        for line in proc.stdout.splitlines():
            rec = json.loads(line)
            results[Path(rec["case"]).stem, mode] = rec
        missing = {name for name in names if (name, mode) not in results}
        assert not missing, f"the child died (exit {proc.returncode}) before {sorted(missing)}: {proc.stderr[-3000:]}"
    for name in LIMITS:
        results.setdefault((name, MODES[1]), results[name, MODES[0]])
    return results


def _statement_line(text: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.strip().startswith('- "') and "while" not in line)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(LIMITS))
def test_each_limit_gives_its_diagnostic_with_bounded_work(limit_results, name, mode):
    """The diagnostic, at the step that did it, after bounded work: the step budget counts every unit charged
    (steps + work), no case adds more than MAX_PEAK to the peak memory, and the work cases stop after a few
    passes. Work and sizes, never seconds (issue 14, item 18): a busy machine stretches the clock, not these."""
    text, code, words = LIMITS[name]
    got = limit_results[name, mode]
    assert "crash" not in got, got["crash"]
    assert code in got["codes"], got
    assert any(words in m for c, m in zip(got["codes"], got["messages"]) if c == code), got
    assert got["peak"] <= MAX_PEAK, f"{name}: {got['peak'] / 2**20:.0f} MB more at the peak"
    if "steps" in got:
        budget = BUDGETS.get(name, MAX_STEPS)
        slack = 100 if name == "function-call-work" else 100_000  # one charge is at most a list's length; a call's 1
        assert got["steps"] + got["work"] <= budget + slack, got
        if name == "display-name-size":
            assert got["lines"] == [text[: text.index("- choose")].count("\n") + 1], got  # the deciding step
        elif (code == "R001" and name not in ("call-depth", "function-chain-depth")) or name in PASSES:
            assert got["lines"] == [_statement_line(text)], got  # the step that did it is named
    if name in PASSES:
        assert got["x"] - 2 <= PASSES[name], f"{name}: {got['x'] - 2} passes before the budget stopped it"


def test_a_record_that_would_contain_itself_is_refused():
    rec: dict = {"a": [1, 2]}
    rec["self"] = [rec]
    with pytest.raises(RuleError, match="contain itself"):
        nested(rec, None)
    shared = [1] * 10
    for _ in range(5):
        shared = [shared] * 10
    with pytest.raises(RuleError, match=f"more than {MAX_VALUES:,} values"):
        nested(shared, None)


def test_the_cli_reports_a_runaway_ruleset_without_a_traceback(tmp_path):
    path = tmp_path / "runaway.yaml"
    path.write_text(LIMITS["function-chain-depth"][0], encoding="utf-8")
    proc = run_cli(["play", str(path), "--quiet"], timeout=60)  # forked: tests/cli_fork.py
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "error[R001]" in proc.stdout and "Traceback" not in proc.stdout + proc.stderr


def test_the_parser_keeps_no_pickled_cache():
    """Lark's cache=True loads a pickle from the shared temporary folder: never turn it on."""
    from rulecraft.dsl.parser import _parser

    assert not _parser().options.cache


# --- headless Chromium makes no outside connection (issue 25) ----------------------------------------------


def _connects(trace: str) -> list[str]:
    """The connect() calls to an internet address that succeeded, from `strace -f -e trace=connect` output."""
    out = []
    for line in trace.splitlines():
        if "connect(" in line and "AF_INET" in line and not line.rstrip().endswith("<unfinished ...>"):
            loopback = 'inet_addr("127.' in line or '"::1"' in line
            if not loopback and ") = 0" in line:
                out.append(line)
    return out


def test_chromium_printing_the_aid_connects_nowhere(tmp_path):
    import shutil
    import subprocess

    from rulecraft.tools.print.htmlpdf import OFFLINE, _own_network, find_chromium

    if find_chromium() is None or shutil.which("strace") is None:
        pytest.skip("needs headless Chromium and strace")
    assert {"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
            "--disable-quic", "--proxy-bypass-list=<-loopback>"} <= set(OFFLINE)
    trace = tmp_path / "trace"
    cmd = ["strace", "-f", "--seccomp-bpf", "-qq", "-e", "trace=connect,sendto", "-o", str(trace), sys.executable, "-c",
           "import sys; from rulecraft.tools.cli.main import main; sys.exit(main(sys.argv[1:]))",
           "aid", "dml", "-o", str(tmp_path / "aid.pdf")]
    done = subprocess.run(cmd, capture_output=True, timeout=300)
    if done.returncode != 0 and b"ptrace" in done.stderr:
        pytest.skip("strace cannot trace here")
    assert done.returncode == 0, done.stderr[-500:]
    text = trace.read_text(errors="replace")
    assert "htons(53)" not in text  # no name was looked up
    if _own_network():  # in a network namespace of its own: nothing at all reaches an outside address
        assert _connects(text) == []
    else:  # flags only: at most the UDP reachability probe, which sends nothing
        assert all("SOCK_STREAM" not in line for line in _connects(text))


def test_the_writer_refuses_a_ruleset_it_read_and_forgets_one_deleted(tmp_path):
    from rulecraft.files import OutputIsInput, write_output

    path = tmp_path / "g.yaml"
    path.write_text((ROOT / "rulesets" / "examples" / "pig.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    link = tmp_path / "link.yaml"
    link.symlink_to(path)
    assert load_ruleset(str(path)).ok  # the loader tells the writer what it read
    for target in (path, link):
        with pytest.raises(OutputIsInput, match="an input of this command"):
            write_output(str(target), "{}")
    assert path.read_text(encoding="utf-8").startswith("ruleset:") or "ruleset:" in path.read_text(encoding="utf-8")
    path.unlink()
    link.unlink()
    write_output(str(path), "{}")  # a new file at that name (its inode may be the old one's): not an input
    assert path.read_text(encoding="utf-8") == "{}"
