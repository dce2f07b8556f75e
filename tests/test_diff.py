"""`rulecraft diff A B` (tools/diff/report.py): the structural differences of two rulesets, as words or a flowchart.

tests/cases/diff/base.yaml is a small race game; variant.yaml extends it and changes a
little of every section (parameters, options, cards, a zone, a table, steps, a trigger,
scoring). Pig is also compared with a copy that changes one parameter.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rulecraft.loader import load_ruleset
from rulecraft.tools.cli.main import main
from rulecraft.tools.diff.report import diff_rulesets, to_dot, to_text

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "cases" / "diff"
BASE = str(CASES / "base.yaml")
VARIANT = str(CASES / "variant.yaml")
PIG = str(ROOT / "rulesets" / "examples" / "pig.yaml")


def _loaded(ref):
    res = load_ruleset(ref)
    assert res.ok, [d.message for d in res.diagnostics]
    return res


def _diff(a, b):
    return diff_rulesets(_loaded(a).ruleset, _loaded(b).ruleset)


def _cli(capsys, *argv):
    code = main(["diff", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_base_against_variant_in_words(capsys):
    code, out, _ = _cli(capsys, BASE, VARIANT)
    assert code == 1  # they differ, as diff(1) says
    expected = [
        "Differences from diff-base",
        "Parameters",
        "  added parameter bust_face: default 1, min 1, max 6",
        "  changed parameter goal: default: 10 -> 20",
        "Options",
        "  added option double_boosts: default 'off', choices ['off', 'on']",
        "  changed option first_player:",
        "    default: 'seat_one' -> 'random'",
        "    choices added: last_place",
        "Cards",
        "  removed card stop: Stop, classes ['hazard']",
        "  added card wild: Wild, classes ['boost']",
        "  changed card boost2: attribute value: 2 -> 4",
        "Zones",
        "  changed zone discard: visibility: 'open' -> 'top'",
        "Tables",
        "    row top added: {points: 6}",
        "    cell [high].points: 3 -> 4",
        "Sequences",
        "  in A turn (sequence turn):",
        "    removed step 5 (check): if player.score >= goal (with 2 nested steps)",
        "    added step 2 (bust): if r.total == bust_face (with 1 nested step)",
        "    added step 4 (check_goal): if player.score >= goal (with 2 nested steps)",
        "    changed step 1 (roll): statements: 'roll 1d6 by player as r' -> 'roll 2d6 by player as r'",
        "Triggers",
        "  changed trigger refill: timing: 'now' -> 'after turn'",
        "Scoring",
        "  changed scoring: tie_break: [] -> ['count(p.hand)']",
    ]
    lines = out.splitlines()
    for line in expected:
        assert any(x == line or (line.startswith("Differences") and x.startswith(line)) for x in lines), line
    # sections come in a fixed order, and untouched sequences are not mentioned
    order = [lines.index(s) for s in ("Parameters", "Options", "Cards", "Zones", "Tables", "Sequences", "Triggers",
                                      "Scoring")]
    assert order == sorted(order)
    assert "sequence game" not in out and "sequence refill" not in out
    # the step without an id after the inserted ones is found by its content: not reported at all
    assert "if card != none" not in out and " moved step" not in out
    assert lines[-1].startswith("18 differences:")


def test_identical_rulesets_say_no_differences(capsys):
    code, out, _ = _cli(capsys, BASE, BASE)
    assert code == 0
    assert "no differences" in out
    d = _diff(BASE, BASE)
    assert d.empty and all(sc.status == "same" for sc in d.sequences.values())


def test_pig_against_a_copy_with_one_parameter_changed(tmp_path, capsys):
    text = (Path(PIG)).read_text(encoding="utf-8")
    assert "target_score: {default: 100," in text
    copy = tmp_path / "pig-copy.yaml"
    copy.write_text(text.replace("target_score: {default: 100,", "target_score: {default: 60,"), encoding="utf-8")
    d = _diff(PIG, str(copy))
    assert [(c.section, c.what, c.subject, c.details) for c in d.changes] == [
        ("Parameters", "changed", "parameter target_score", ("default: 100 -> 60",))]
    code, out, _ = _cli(capsys, "pig", str(copy))
    assert code == 1
    assert "changed parameter target_score: default: 100 -> 60" in out
    assert out.rstrip().endswith("1 difference: 1 changed")


def test_a_step_without_id_is_matched_by_content_and_named_by_its_sheet_number(tmp_path):
    text = Path(BASE).read_text(encoding="utf-8")
    edited = tmp_path / "base-edited.yaml"
    edited.write_text(text.replace('do: ["draw hand_size from deck to p.hand"]', 'do: ["draw 1 from deck to p.hand"]')
                      .replace("label: Play a boost", "label: Play one boost card"), encoding="utf-8")
    d = _diff(BASE, str(edited))
    got = {(c.subject, c.details) for c in d.changes}
    assert ("step 2.a", ("statements: 'draw hand_size from deck to p.hand' -> 'draw 1 from deck to p.hand'",)) in got
    assert ("step 3 (play)", ("label: 'Play a boost' -> 'Play one boost card'",)) in got
    assert len(d.changes) == 2
    assert d.sequences["game"].changed == {"game/2.do.1"}


def test_spacing_in_the_rules_language_is_not_a_difference(tmp_path):
    text = Path(BASE).read_text(encoding="utf-8")
    edited = tmp_path / "spaced.yaml"
    edited.write_text(text.replace('do: "player.score += r.total"', 'do: "player.score  +=  r.total   # pips"'),
                      encoding="utf-8")
    assert _diff(BASE, str(edited)).empty


def test_flowchart_colours_additions_removals_and_changes():
    la, lb = _loaded(BASE), _loaded(VARIANT)
    d = diff_rulesets(la.ruleset, lb.ruleset)
    dot = to_dot(d, la.ruleset, lb.ruleset, la.graph, lb.graph)
    assert dot == to_dot(d, la.ruleset, lb.ruleset, la.graph, lb.graph)  # a pure function: same text each time
    assert dot.startswith("digraph rulecraft_diff {")
    lines = dot.splitlines()

    def node(dot_id):
        return next(x for x in lines if x.strip().startswith(f'"{dot_id}" ['))

    assert 'color="#2e7d32"' in node("B:turn/2")  # bust: added, green
    assert 'color="#c62828"' in node("A:turn/5") and "dashed" in node("A:turn/5")  # check: removed, red, dashed
    assert 'color="#ef6c00"' in node("B:turn/1")  # roll: changed, orange
    assert 'color="#757575"' in node("B:turn/3")  # gain: the same
    # only the sequence that differs is drawn
    assert "cluster_0" in dot and "cluster_1" not in dot
    assert '"B:game/' not in dot and '"B:refill/' not in dot
    # an edge A had and B lost is drawn red and dashed; a new one green
    assert any('"A:turn/5" -> ' in x and 'style="dashed"' in x for x in lines)
    assert any('"B:turn/1" -> "B:turn/2"' in x and '#2e7d32' in x for x in lines)


def test_dot_and_svg_files(tmp_path, capsys):
    out_dot = tmp_path / "d.dot"
    code, _, _ = _cli(capsys, BASE, VARIANT, "--format", "dot", "-o", str(out_dot))
    assert code == 1 and out_dot.read_text(encoding="utf-8").startswith("digraph")
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")
    out_svg = tmp_path / "d.svg"
    code, _, err = _cli(capsys, BASE, VARIANT, "--format", "svg", "-o", str(out_svg))
    assert code == 1, err
    svg = out_svg.read_text(encoding="utf-8")
    assert "<svg" in svg and "#2e7d32" in svg and "#c62828" in svg


def test_svg_needs_an_output_file(capsys):
    code, _, err = _cli(capsys, BASE, VARIANT, "--format", "svg")
    assert code == 2 and "-o" in err


def test_a_ruleset_that_does_not_load_prints_its_diagnostics_and_exits_2(tmp_path, capsys):
    broken = tmp_path / "broken.yaml"
    broken.write_text(Path(BASE).read_text(encoding="utf-8").replace('do: "player.score += r.total"',
                                                                     'do: "player.scor += r.total"'),
                      encoding="utf-8")
    code, out, err = _cli(capsys, BASE, str(broken))
    assert code == 2  # trouble, as diff(1): 1 means "they differ"
    assert "error[E305]" in out and "scor" in out
    assert "nothing compared" in err
    code, out, _ = _cli(capsys, str(tmp_path / "missing.yaml"), BASE)
    assert code == 2 and "error[E001]" in out


def test_text_of_a_diff_is_a_pure_function():
    d = _diff(BASE, VARIANT)
    assert to_text(d, "a", "b") == to_text(d, "a", "b")
    assert to_text(d).startswith("Differences from diff-base to diff-variant")


def test_the_example_in_the_docs_is_what_the_command_prints(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    doc = (ROOT / "docs" / "diff.md").read_text(encoding="utf-8")
    start = doc.index("$ rulecraft diff tests/cases/diff/base.yaml tests/cases/diff/variant.yaml\n")
    example = doc[start:doc.index("```", start)].split("\n", 1)[1]
    code, out, _ = _cli(capsys, "tests/cases/diff/base.yaml", "tests/cases/diff/variant.yaml")
    assert code == 1
    assert out == example


TUTORIAL = ROOT / "docs" / "tutorial.md"


def _tutorial_variant(tmp_path) -> str:
    import re

    blocks = re.findall(r"```yaml\n(.*?)```", TUTORIAL.read_text(encoding="utf-8"), re.S)
    final = [b for b in blocks if b.startswith("# file: my-pig.yaml") and "# expect:" not in b][-1]
    path = tmp_path / "my-pig.yaml"
    path.write_text(final, encoding="utf-8")
    return str(path)


def test_the_tutorials_four_edits_are_four_differences(tmp_path, capsys):
    """docs/tutorial.md's finished variant edits pig four times (the target, the roll, the ones rule, snake
    eyes): four differences, each named by its sheet number, the nested edits of 'wiped' told as part of it
    (besides: the new dice, and the variant's own name, title and notes)."""
    d = _diff(PIG, _tutorial_variant(tmp_path))
    edits = [c for c in d.changes if c.section in ("Parameters", "Sequences")]
    assert [(c.what, c.subject) for c in edits] == [
        ("changed", "parameter target_score"),
        ("added", "step 1.b (snake_eyes)"),
        ("changed", "step 1.a (roll)"),
        ("changed", "step 1.c (wiped)"),
    ]
    wiped = edits[-1].details
    assert wiped[0] == "condition: 'r.total == wipe_face' -> '1 in r.faces'"
    assert any(x.startswith("removed step 2.b.i in the full view (numbered as in A): tally busts") for x in wiped)
    assert any(x.startswith("step 2.c.i in the full view: statements:") for x in wiped)
    assert {c.section for c in d.changes} == {"Ruleset", "Parameters", "Dice", "Sequences"}
    assert any(x.startswith("notes, line by line") for x in d.changes[0].details)  # notes are compared
    code, out, _ = _cli(capsys, "pig", _tutorial_variant(tmp_path))
    assert code == 1 and ".do." not in out and ".then." not in out  # no internal paths


def test_json_output(tmp_path, capsys):
    import json

    code, out, _ = _cli(capsys, "pig", _tutorial_variant(tmp_path), "--format", "json")
    assert code == 1
    data = json.loads(out)
    assert data["format"] == "rulecraft-diff" and data["same"] is False and data["count"] == len(data["changes"])
    snake = next(c for c in data["changes"] if c["subject"] == "step 1.b (snake_eyes)")
    assert snake["what"] == "added" and snake["sequence"] == "turn"
    assert snake["step"] == {"number_a": None, "number_b": "1.b", "id": "snake_eyes"}
    code, out, _ = _cli(capsys, "pig", "pig", "--format", "json")
    assert code == 0 and json.loads(out)["same"] is True and json.loads(out)["changes"] == []


def test_sequence_titles_and_step_notes_are_compared(tmp_path):
    text = Path(BASE).read_text(encoding="utf-8")
    assert "title: A turn" in text
    edited = tmp_path / "titled.yaml"
    edited.write_text(text.replace("title: A turn", "title: One turn"), encoding="utf-8")
    d = _diff(BASE, str(edited))
    assert [(c.subject, c.details) for c in d.changes] == [("sequence turn", ("title: 'A turn' -> 'One turn'",))]


def test_a_step_moved_among_steps_without_ids_is_moved(tmp_path):
    a = tmp_path / "a.yaml"
    b = tmp_path / "b.yaml"
    head = "ruleset: m\ntitle: M\nplayers: {min: 1, max: 1, default: 1}\nvariables: {x: 0}\nstart: game\n"
    a.write_text(head + "sequences:\n  game:\n    kind: game\n    steps:\n"
                 "      - \"x += 1\"\n      - \"x += 2\"\n      - \"x += 3\"\n", encoding="utf-8")
    b.write_text(head + "sequences:\n  game:\n    kind: game\n    steps:\n"
                 "      - \"x += 2\"\n      - \"x += 3\"\n      - \"x += 1\"\n", encoding="utf-8")
    d = _diff(str(a), str(b))
    assert [(c.what, c.subject, c.details) for c in d.changes] == [
        ("moved", "step 1 in the full view", ("now 3 in the full view, otherwise unchanged: x += 1",))]


def test_long_notes_changed_are_shown_line_by_line(tmp_path, capsys):
    """A changed `notes` (a long text over several lines) prints the lines removed and added, each on its own line,
    not the two texts as escaped strings ('...\\n...')."""
    text = Path(PIG).read_text(encoding="utf-8")
    kept = "The first player to reach the target score wins."
    assert kept in text
    copy = tmp_path / "pig-notes.yaml"
    copy.write_text(text.replace(kept, "The first player to reach the target score, or past it, wins."), encoding="utf-8")
    code, out, _ = _cli(capsys, "pig", str(copy))
    assert code == 1
    assert ("  changed ruleset: notes, line by line (- before, + after):\n"
            f"    - {kept}\n"
            "    + The first player to reach the target score, or past it, wins.\n") in out
    assert "\\n" not in out
