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
