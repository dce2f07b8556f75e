"""Bounded work for what a hostile ruleset or editor could send (issue 28's audit, round 2), asserted as work
counts, never seconds: long sequences through the players' view and the diff, charts before Graphviz, a document
named by a URI no file system can hold. The command-line side is data: tests/cases/hostile/*/case.yaml."""

from __future__ import annotations

import difflib

import pytest

from rulecraft.loader import load_ruleset, load_text

HEAD = """ruleset: h
title: H
players: {min: 2, max: 4, default: 2}
player_variables: {score: 0}
variables: {n: 0}
start: game
sequences:
  game:
    kind: game
    steps:
"""
TAIL = "scoring:\n  score: \"p.score\"\n"


def _ruleset(tmp_path, name: str, steps: list[str]):
    path = tmp_path / name
    path.write_text(HEAD + "".join(f"      - \"{s}\"\n" for s in steps) + TAIL, encoding="utf-8")
    res = load_ruleset(str(path))
    assert res.ok, [d.message for d in res.diagnostics][:3]
    return res


def test_a_long_run_of_bookkeeping_steps_is_passed_through_without_recursion(tmp_path):
    """book and sheets of 20,000 such steps were a RecursionError (exit 3): each hidden step went one call deeper."""
    from rulecraft.tools.words.bookkeeping import players_graph

    res = _ruleset(tmp_path, "long.yaml", [f"n += {i}" for i in range(3000)])  # past Python's 1,000 frames
    graph = players_graph(res.ruleset, res.graph)
    shown = set(graph.nodes)
    assert len(shown) < 20  # the 3,000 steps are bookkeeping: hidden
    assert all(e.src in shown and e.dst in shown for e in graph.edges)  # every edge runs on to a shown node
    assert any(e.src != e.dst for e in graph.edges)


class _Counting:
    """difflib.SequenceMatcher, counting the work each alignment and each ratio may do."""

    def __init__(self):
        self.original = difflib.SequenceMatcher
        self.biggest = 0
        self.ratios = 0

    def make(self, *args, **kwargs):
        counter = self
        m = self.original(*args, **kwargs)
        self.biggest = max(self.biggest, len(m.a) * len(m.b)) if isinstance(m.a, list) else self.biggest

        class Wrapped:
            def get_opcodes(self):
                return m.get_opcodes()

            def real_quick_ratio(self):
                return m.real_quick_ratio()

            def quick_ratio(self):
                return m.quick_ratio()

            def ratio(self):
                counter.ratios += 1
                return m.ratio()
        return Wrapped()


def test_the_diff_of_two_long_shuffled_sequences_is_bounded_work(tmp_path, monkeypatch):
    """Two sequences of 40,000 steps, one a shuffle of the other, ran for hours: difflib's alignment is quadratic,
    every step looked for its moved twin among all the others, every pair of a changed stretch was compared."""
    from rulecraft.tools.diff import steps as diff_steps
    from rulecraft.tools.diff.align import ALIGN_WORK
    from rulecraft.tools.diff.report import diff_rulesets

    n = 3000
    a = _ruleset(tmp_path, "a.yaml", [f"n += {i}" for i in range(n)])
    b = _ruleset(tmp_path, "b.yaml", [f"n += {i * 7 % n}" for i in range(n)])
    count = _Counting()
    monkeypatch.setattr(diff_steps.difflib, "SequenceMatcher", count.make)
    diff = diff_rulesets(a.ruleset, b.ruleset)
    assert 0 < count.biggest <= ALIGN_WORK < n * n  # no alignment of the whole: anchored first
    assert count.ratios <= 2 * diff_steps.ALIKE_PAIRS
    assert diff is not None


def test_anchored_opcodes_cover_both_lists_and_agree_with_difflib_when_short():
    from rulecraft.tools.diff.align import opcodes

    a, b = list("abcdefgh"), list("abXdefYh")
    assert opcodes(a, b) == difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    long_a = list(range(5000))
    long_b = long_a[:2000] + [-1, -2] + long_a[2500:]
    ops = opcodes(long_a, long_b)
    assert sum(i2 - i1 for _t, i1, i2, _j1, _j2 in ops) == len(long_a)  # every item of each side, in order
    assert sum(j2 - j1 for _t, _i1, _i2, j1, j2 in ops) == len(long_b)
    equal = sum(i2 - i1 for t, i1, i2, _j1, _j2 in ops if t == "equal")
    assert equal == 4500


def test_charts_past_the_limits_are_refused_before_graphviz_starts(tmp_path, monkeypatch, capsys):
    """A sequence of 20,000 steps took 32 s of Graphviz, 3,000 sequences more than 30 s: refused, one line, exit 1."""
    from rulecraft.tools.chart import dotrun
    from rulecraft.tools.cli.main import main

    def never(*a, **k):
        raise AssertionError("Graphviz was started")

    monkeypatch.setattr(dotrun.subprocess, "run", never)
    monkeypatch.setattr(dotrun, "MAX_CHART", 500)
    assert main(["render", "pig", "--format", "svg", "-o", str(tmp_path / "p.svg")]) == 1
    err = capsys.readouterr().err
    assert "a chart is too big to draw" in err and len(err.strip().splitlines()) == 1
    monkeypatch.setattr(dotrun, "MAX_CHART", 10**6)
    monkeypatch.setattr(dotrun, "MAX_CHARTS", 1)
    assert main(["book", "pig", "-o", str(tmp_path / "p.html")]) == 1
    assert "too many charts to draw at once: 2 charts" in capsys.readouterr().err


@pytest.mark.parametrize("path", ["/\x00/x.yaml", "x\x00.yaml"])
def test_a_document_named_by_a_path_no_file_system_holds_is_checked(path):
    """An editor's URI with %00 gave os.path's ValueError: the document never got its diagnostics."""
    from rulecraft.tools.lsp.documents import build

    res = load_text(path, "extends: parent\nruleset: x\n")
    assert res.diagnostics and "\x00" not in "".join(d.span.file for d in res.diagnostics if d.span)
    doc = build("file:///%00/x.yaml", path, "ruleset: x\ntitle: 5\n", 1)
    assert doc.path == path.replace("\x00", "\ufffd")


def test_many_unknown_keys_cost_work_in_proportion_to_them(tmp_path):
    """A ruleset of 90,000 unknown top-level keys (1.7 MB, within the size limit) took more than ten minutes to
    `validate` (and so to check in an editor): the hint for a key that a comma may have cut off looked for the key
    before it by listing the whole mapping, once per unknown key. Counted here: the keys of the mapping visited."""
    from rulecraft.bundled import resolve
    from rulecraft.loader.schema import validate_schema
    from rulecraft.loader.yaml_source import parse_yaml

    class Counting(dict):
        visited = 0

        def __iter__(self):
            for key in super().__iter__():
                Counting.visited += 1
                yield key

    with open(resolve("pig"), encoding="utf-8") as fh:
        text = fh.read() + "".join(f"zz{n}:\n" for n in range(2000))
    root, _ = parse_yaml(text, "many.yaml")
    root.entries = Counting(root.entries)
    said = validate_schema(root, "many.yaml")
    assert sum(d.code == "E201" for d in said) == 2000
    assert Counting.visited <= 3 * len(root.entries), Counting.visited  # was 2,000 times the mapping: 4 million


def test_did_you_mean_hints_of_one_load_are_bounded(tmp_path, monkeypatch):
    """Each unknown name's 'did you mean' compares it with every name declared: a ruleset of 40,000 variables and
    40,000 steps each setting an unknown one (1.5 MB) took minutes to `validate` (4,000 of each: 4.5 s, growing with
    the square). One load works out at most MAX_HINTS of them; every unknown name is still reported."""
    from rulecraft import diagnostics
    from rulecraft.dsl import scope

    monkeypatch.setattr(diagnostics, "MAX_HINTS", 40)
    looked = []
    real = scope.Scope.visible_names
    monkeypatch.setattr(scope.Scope, "visible_names", lambda self: looked.append(1) or real(self))
    from rulecraft.bundled import resolve

    with open(resolve("pig"), encoding="utf-8") as fh:
        text = fh.read()
    text = text.replace("variables:\n  turn_total: 0\n",
                        "variables:\n  turn_total: 0\n" + "".join(f"  var{n}: 0\n" for n in range(100)))
    text = text.replace("    steps:\n      - id: pick_first",
                        "    steps:\n" + "".join(f'      - "set vaar{n} = 1"\n' for n in range(100))
                        + "      - id: pick_first")
    said = load_text(str(tmp_path / "names.yaml"), text).diagnostics
    unknown = [d for d in said if d.code == "E301"]
    assert len(unknown) == 100
    assert sum("did you mean" in (d.hint or "") for d in unknown) == 40
    assert len(looked) == 40  # the names in scope listed for a hint only


def test_the_schema_s_errors_leave_no_garbage_while_a_load_pauses_the_collector():
    """A load pauses Python's cycle collector (loader._collector_paused), and the schema's walk makes cyclic garbage
    for each error (jsonschema's errors hold their parents and alternatives): 30,000 steps with an unknown key (a
    600 KB ruleset) took 3.6 GB to `validate`. The walk collects it as it goes. Counted: objects the cycle collector
    tracks after the walk, as a load runs it, for 300 and for 900 errors: what each further error leaves (the walk's
    last stretch before a collection leaves a fixed amount, which grows with the step forms the schema has)."""
    import gc

    from rulecraft.bundled import resolve
    from rulecraft.loader.schema import validate_schema
    from rulecraft.loader.yaml_source import parse_yaml

    with open(resolve("pig"), encoding="utf-8") as fh:
        pig = fh.read()
    left = {}
    for n in (300, 900):
        text = pig.replace("      - id: start\n", "".join(f"      - zzz{k}: 1\n" for k in range(n)) + "      - id: start\n")
        root, _ = parse_yaml(text, "steps.yaml")
        validate_schema(root, "steps.yaml")  # the validator made once, outside the count
        gc.collect()
        gc.disable()
        try:
            before = len(gc.get_objects())
            said = validate_schema(root, "steps.yaml")
            unknown = sum(d.code == "E205" for d in said)
            del said  # the diagnostics are kept, not garbage
            left[n] = len(gc.get_objects()) - before
        finally:
            gc.enable()
        assert unknown == n
    each = (left[900] - left[300]) / 600
    assert each < 20, left  # was 242 an error, growing with the errors


def _function_chain(tmp_path, body: str, n: int = 40):
    """A ruleset whose expression calls f{n}, where each f{k} calls f{k-1} twice (`body`: f{k}'s value, with {p} for
    k - 1): a call runs 2^n calls, which the work budget stops; its compiling must not walk them all."""
    fns = "".join(f'  f{k}: {{params: [x], value: "{body.format(p=k - 1)}"}}\n' for k in range(1, n + 1))
    text = ("ruleset: chain\ntitle: Chain\nstart: game\nplayers: {min: 2, max: 2}\nvariables: {x: 2}\n"
            f'functions:\n  f0: {{params: [x], value: "x"}}\n{fns}'
            "sequences:\n  game:\n    kind: stage\n    steps:\n      - while: \"count(players) > 0\"\n"
            f"        do:\n          - \"log f{n}(1)\"\n")
    path = tmp_path / "chain.yaml"
    path.write_text(text, encoding="utf-8")
    res = load_ruleset(str(path))
    assert res.ok, [d.message for d in res.diagnostics][:3]
    return res.ruleset


def test_what_the_compiler_proves_of_a_chain_of_functions_is_linear_work(tmp_path, monkeypatch):
    """What the compiler knows of a value before it runs (compiler/facts.py) walks into the bodies of the ruleset's
    functions. Forty functions that each call the one before twice were 2^40 walks: a second game of that ruleset in
    one process (the studio, a test run), whose expression is compiled, never started. Each body is walked once a walk."""
    walks = _counted_walks(monkeypatch)
    ruleset = _function_chain(tmp_path, "f{p}(x) + f{p}(x)")
    _three_games(ruleset)
    assert walks[0] < 2_000, walks[0]  # 236 for the chain of forty (the walk is linear in the functions)


def _counted_walks(monkeypatch) -> list:
    """Count the walks of compiler/facts.py (they call themselves by these names); stop past 50,000."""
    from rulecraft.compiler import facts

    walks = [0]

    def counted(walk):
        def step(*args, **kwargs):
            walks[0] += 1
            if walks[0] > 50_000:
                raise AssertionError("the compiler's walk of the expression is not bounded")
            return walk(*args, **kwargs)
        return step

    monkeypatch.setattr(facts, "numeric", counted(facts.numeric))
    monkeypatch.setattr(facts, "list_fact", counted(facts.list_fact))
    return walks


def _three_games(ruleset) -> None:
    from rulecraft.diagnostics import RuleError
    from rulecraft.runtime.game import Game

    for seed in (1, 2, 3):  # the first runs the expression as it is read; a later one compiles it
        with pytest.raises(RuleError) as err:
            Game(ruleset, 2, seed, max_steps=20_000)
        assert err.value.code in ("R001", "R002"), err.value


def test_what_the_compiler_proves_of_a_long_sum_is_linear_work(tmp_path, monkeypatch):
    """A body of a hundred calls added up, f1(x) + f1(x) + ...: what facts.py knows of each '+' was worked out again
    for the whole chain on its left at every '+' (1.2 million walks for three such functions, 7 s), and each call was
    tried inline again though its body could never fit. Each node is now asked once a tree, and a body too big to fit
    is not tried."""
    walks = _counted_walks(monkeypatch)
    _three_games(_function_chain(tmp_path, " + ".join(["f{p}(x)"] * 100), n=3))
    assert walks[0] < 20_000, walks[0]  # 8,266
