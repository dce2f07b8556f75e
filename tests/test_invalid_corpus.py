"""The bad-input corpus: every folder under tests/cases/invalid/ is one ruleset with one mistake.

Each folder holds `ruleset.yaml` (and, for a variant, the files it extends) and `expected.yaml`:

    # what the case shows, in one line
    max_peak_mb: 40             # optional: the memory the load allocates at its peak (tracemalloc), in MB
    diagnostics:
      - {code: E301, line: 12, column: 17, message_contains: "unknown name", hint_contains: "did you mean"}
      - {code: E305, file: parent.yaml, line: 52, column: 13}

Every listed diagnostic must appear with exactly that code, file, line and column (the file is
the case's ruleset.yaml unless the entry names another one), and no error that is not listed may
appear. Warnings may be listed, but need not be. A case whose mistakes are warnings only (a
declaration nothing uses, a result that is lost) says `accepted: true`: the loader must accept it
and still give the listed warnings.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tracemalloc
import traceback
from pathlib import Path

import pytest
import yaml

import rulecraft.loader.build  # noqa: F401 - imported here so that max_peak_mb does not count the first import
import rulecraft.loader.schema  # noqa: F401
from rulecraft.diagnostics import render_text
from rulecraft.loader import load_ruleset

CASES_DIR = Path(__file__).resolve().parent / "cases" / "invalid"
CASES = sorted(p.name for p in CASES_DIR.iterdir() if p.is_dir()) if CASES_DIR.is_dir() else []
ENTRY_KEYS = {"code", "file", "line", "column", "message_contains", "hint_contains"}


def _expected(case: Path) -> dict:
    data = yaml.safe_load((case / "expected.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict) and isinstance(data.get("diagnostics"), list) and data["diagnostics"], \
        f"{case.name}/expected.yaml needs a non-empty 'diagnostics:' list"
    for entry in data["diagnostics"]:
        assert isinstance(entry, dict) and {"code", "line", "column"} <= set(entry) <= ENTRY_KEYS, \
            f"{case.name}/expected.yaml: bad entry {entry!r}"
    return data


def _same_file(span_file: str, case: Path, name: str) -> bool:
    return os.path.realpath(span_file) == os.path.realpath(case / name)


def _matches(d, entry: dict, case: Path) -> bool:
    return (
        d.span is not None
        and d.code == entry["code"]
        and _same_file(d.span.file, case, entry.get("file", "ruleset.yaml"))
        and (d.span.line, d.span.col) == (entry["line"], entry["column"])
    )


def _show(diags) -> str:
    return "\n".join(
        f"  {d.severity.value} {d.code} {os.path.basename(d.span.file) if d.span else '-'}:"
        f"{d.span.line if d.span else '-'}:{d.span.col if d.span else '-'} {d.message} (hint: {d.hint})"
        for d in diags
    ) or "  (none)"


@pytest.mark.parametrize("name", CASES, ids=CASES)
def test_invalid_case(name: str):
    case = CASES_DIR / name
    expected = _expected(case)
    measure = "max_peak_mb" in expected
    if measure:
        tracemalloc.start()
    try:
        result = load_ruleset(str(case / "ruleset.yaml"))
    except Exception:  # noqa: BLE001 - the point is that nothing escapes
        pytest.fail(f"load_ruleset raised instead of reporting:\n{traceback.format_exc()}")
    finally:
        if measure:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
    diags = list(result.diagnostics)
    got = _show(diags)

    if expected.get("accepted"):
        assert result.ok, f"a case of warnings only was refused; diagnostics:\n{got}"
    else:
        assert not result.ok, f"the loader accepted a ruleset with a mistake; diagnostics:\n{got}"
    for entry in expected["diagnostics"]:
        hits = [d for d in diags if _matches(d, entry, case)]
        assert hits, f"expected {entry} but got:\n{got}"
        if "message_contains" in entry:
            assert any(entry["message_contains"] in d.message for d in hits), \
                f"message of {entry['code']} lacks {entry['message_contains']!r}:\n{got}"
        if "hint_contains" in entry:
            assert any(entry["hint_contains"] in (d.hint or "") for d in hits), \
                f"hint of {entry['code']} lacks {entry['hint_contains']!r}:\n{got}"
    unexpected = [d for d in diags if d.is_error and not any(_matches(d, e, case) for e in expected["diagnostics"])]
    assert not unexpected, f"errors not listed in expected.yaml:\n{_show(unexpected)}\nall diagnostics:\n{got}"

    text = render_text(diags, result.sources)  # must not raise, whatever the input
    assert all(f"[{d.code}]" in text for d in diags)
    if measure:  # a size, not a time: the work a guard saves shows in what is never built
        assert peak <= float(expected["max_peak_mb"]) * 2**20, f"loading allocated {peak / 2**20:.1f} MB at its peak"


def test_corpus_has_enough_cases():
    assert len(CASES) >= 45, f"only {len(CASES)} cases in {CASES_DIR}"
    for name in CASES:
        assert (CASES_DIR / name / "ruleset.yaml").is_file() and (CASES_DIR / name / "expected.yaml").is_file(), name
        first = (CASES_DIR / name / "expected.yaml").read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# ") and len(first) > 10, f"{name}: expected.yaml starts with a one-line comment"


def test_very_deep_nesting_is_a_diagnostic_not_a_crash(tmp_path: Path):
    """Composing 100 000 nested lists overflowed the C stack (a segfault); it must be a plain E007.

    Run in a child process so that a regression shows as a failure, not as a dead test run.
    """
    path = tmp_path / "deep.yaml"
    path.write_text("ruleset: deep\ntitle: Deep\nnotes: " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    code = (
        "import sys; from rulecraft.loader import load_ruleset; "
        "r = load_ruleset(sys.argv[1]); print(' '.join(d.code for d in r.diagnostics))"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"the loader died (exit {proc.returncode}): {proc.stderr[-2000:]}"
    assert proc.stdout.split() == ["E007"], proc.stdout


@pytest.mark.parametrize("opener, closer, col", [("[", "]", 72), ("{a: ", "}", 8 + 63 * 4 + 1)])
@pytest.mark.parametrize("levels", [65, 999, 1001, 5000])
def test_nesting_past_the_limit_is_e007_at_the_first_level_past_it_whatever_the_yaml_parser(opener, closer, col, levels):
    """PyYAML 6.0.4's C parser stops at 1000 levels with an error of its own (E009 before this was fixed);
    the project's limit of 64 is checked first, so the place is the same on every PyYAML release."""
    from rulecraft.loader.yaml_source import parse_yaml

    text = "ruleset: deep\ntitle: Deep\nnotes: " + opener * levels + "x" + closer * levels + "\n"
    root, diags = parse_yaml(text, "deep.yaml")
    assert root is None
    assert [(d.code, d.span.line, d.span.col) for d in diags] == [("E007", 3, col)], [str(d) for d in diags]


def test_an_invisible_character_is_shown_where_a_message_quotes_it():
    """'pi<U+200B>le' printed as 'pile' read as a name refused for nothing (and 'did you mean' offered the same
    word back): the printed message names the invisible character; the excerpt shows it as '?', one for one, so the
    carets stay under the text."""
    case = CASES_DIR / "251-name-with-a-zero-width-space"
    result = load_ruleset(str(case / "ruleset.yaml"))
    shown = render_text(result.diagnostics, result.sources)
    assert "'pi<U+200B>le' is not allowed as a name" in shown, shown
    assert "\u200b" not in shown
    excerpt, carets = shown.splitlines()[1:3]
    assert excerpt.strip().startswith("pi?le:") and carets.index("^") == excerpt.index("pi?le")


def test_a_misspelt_call_gives_no_follow_on_warning_that_the_sequence_it_meant_never_runs():
    """'call trun' (E309, did you mean 'turn'?) also warned 'sequence turn is never run' (W405): two messages for one
    mistake, the second wrong once the first is fixed. Which sequences run waits for the call to be mended."""
    from rulecraft.loader import load_ruleset

    loaded = load_ruleset(str(Path(__file__).parent / "cases" / "invalid" / "047-name-unknown-sequence-call-step" /
                              "ruleset.yaml"))
    codes = [d.code for d in loaded.diagnostics]
    assert "E309" in codes and "W405" not in codes, codes
