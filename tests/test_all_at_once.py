"""One `rulecraft validate` run reports every problem it can find, the same ones the language server shows."""

from __future__ import annotations

from pathlib import Path

from rulecraft.loader import load_ruleset, load_text
from rulecraft.tools.cli.main import main

CASE = Path(__file__).resolve().parent / "cases" / "invalid" / "150-all-at-once-structure-and-expression" / "ruleset.yaml"


def _key(d):
    return d.code, d.span.line, d.span.col, d.message


def test_validate_reports_a_structural_and_an_expression_error_together(capsys):
    assert main(["validate", str(CASE)]) == 1
    out = capsys.readouterr().out
    assert "10:9: error[E205]" in out and "12:34: error[E301]: unknown name 'bonnus'" in out


def test_validate_and_the_server_give_the_same_diagnostics():
    text = CASE.read_text(encoding="utf-8")
    by_file = sorted(map(_key, load_ruleset(str(CASE)).diagnostics))
    by_buffer = sorted(map(_key, load_text(str(CASE), text).diagnostics))
    assert by_file == by_buffer and len(by_file) == 2


def test_return_with_a_value_draws_one_box_and_a_plain_return(tmp_path):
    """'return true' drew a 'Return yes' box and a black 'return true' marker (the look of 'end game'): the box
    says the value, and the sequence's own return is the grey one every normal return has."""
    from rulecraft.tools.chart.flowchart import chart_dot

    path = tmp_path / "ret.yaml"
    path.write_text(
        "ruleset: u\ntitle: U\nplayers: {min: 2, max: 2, default: 2}\nstart: game\nsequences:\n"
        "  game:\n    kind: game\n    steps:\n      - call: check\n        as: ok\n      - do: \"log '{ok}'\"\n"
        "  check:\n    steps:\n      - if: \"player_count > 1\"\n        then: [\"return true\"]\n"
        "      - do: \"return false\"\n", encoding="utf-8")
    result = load_ruleset(str(path))
    assert result.ok
    dot = chart_dot(result.ruleset, result.graph, "check")
    assert "Return yes" in dot and "Return no" in dot
    assert "#404040" not in dot and "<B>return" not in dot  # no dark terminal
    assert dot.count("label=<return>") == 2


def test_closing_a_quote_never_raises_on_other_line_breaks():
    """YAML also breaks lines at NEL (U+0085): the quote's place is checked before it is closed (hypothesis found it)."""
    from rulecraft.loader.yaml_source import parse_yaml

    for text in ("::\x85'", "a: 'x\x85b: 1\n", "a: \"x\u2028\nb: 1\n"):
        root, diags = parse_yaml(text, "t.yaml")
        assert root is not None or diags
