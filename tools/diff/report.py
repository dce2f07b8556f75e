"""`rulecraft diff A B`: the structural differences between two rulesets, in words, as data or as a flowchart.

Both rulesets are loaded (variants resolved, overrides applied) and their models compared
section by section: the ruleset's head (with its notes), players, parameters, options, cards,
zones, tables, dice, variables, functions, modifiers, events, sequences and their steps,
triggers and scoring (diffvalues.py). Steps are matched by id and by content, and named by
their sheet numbers (diffsteps.py); the flowchart is diffdot.py.

`diff_rulesets(a, b)`, `to_text`, `to_json` and `to_dot` are pure functions of the models;
`run(args)` loads, prints or writes, and calls Graphviz's `dot` for SVG. Exit codes as diff(1):
0 the same, 1 they differ, 2 trouble (a usage mistake, a ruleset that does not load, a file
that cannot be written).
"""

from __future__ import annotations

import json
import sys

from rulecraft.model import ruleset as M

from rulecraft.tools.diff.chart import to_dot
from rulecraft.tools.diff.steps import match_steps, sequence_changes, step_fields, step_summary
from rulecraft.tools.diff.values import SECTIONS, Change, Diff, SequenceChanges, after_sequences, section_changes, show

__all__ = ["Change", "Diff", "SECTIONS", "SequenceChanges", "diff_rulesets", "match_steps", "run", "show",
           "step_fields", "step_summary", "to_dot", "to_json", "to_text"]

EXIT_SAME, EXIT_DIFFERENT, EXIT_TROUBLE = 0, 1, 2
WHATS = ("added", "removed", "changed", "moved")


def diff_rulesets(a: M.Ruleset, b: M.Ruleset) -> Diff:
    """Every structural difference from ruleset A to ruleset B (a pure function of the two models)."""
    diff = Diff(a.name, b.name)
    diff.changes += section_changes(a, b)
    diff.changes += sequence_changes(a, b, diff)
    diff.changes += after_sequences(a, b)
    return diff


def _counts(diff: Diff) -> dict[str, int]:
    return {w: sum(1 for c in diff.changes if c.what == w) for w in WHATS}


def _titles(rs: M.Ruleset | None, sid: str) -> str:
    seq = rs.sequences.get(sid) if rs is not None else None
    return f"{seq.title} (sequence {sid})" if seq is not None and seq.title and seq.title != sid else f"sequence {sid}"


def to_text(diff: Diff, label_a: str = "", label_b: str = "", b: M.Ruleset | None = None) -> str:
    """The differences in plain words, grouped by section (`b`, when given, names sequences by their titles)."""
    from rulecraft.diagnostics import UNPRINTABLE  # a file's name as typed (a stranger's zip): never drives a terminal

    label_a, label_b = label_a.translate(UNPRINTABLE), label_b.translate(UNPRINTABLE)
    la = f"{diff.name_a} ({label_a})" if label_a and label_a != diff.name_a else diff.name_a
    lb = f"{diff.name_b} ({label_b})" if label_b and label_b != diff.name_b else diff.name_b
    lines = [f"Differences from {la} to {lb}"]
    if diff.empty:
        lines.append("no differences")
        return "\n".join(lines) + "\n"
    for section, changes in diff.by_section():
        lines.append("")
        lines.append(section)
        group = None
        for c in changes:
            indent = "  "
            if c.section == "Sequences" and not c.subject.startswith("sequence "):
                if c.group != group:
                    lines.append(f"  in {_titles(b, c.group)}:")
                    group = c.group
                indent = "    "
            else:
                group = None
            if c.what == "changed" and len(c.details) > 1:
                lines.append(f"{indent}{c.what} {c.subject}:")
                lines.extend(f"{indent}  {d}".replace("\n", f"\n{indent}    ") for d in c.details)
            else:
                tail = f": {c.details[0]}" if c.details else ""
                lines.append(f"{indent}{c.what} {c.subject}{tail}".replace("\n", f"\n{indent}  "))
    n = len(diff.changes)
    lines.append("")
    lines.append(f"{n} difference{'s' if n != 1 else ''}: "
                 + ", ".join(f"{v} {k}" for k, v in _counts(diff).items() if v))
    return "\n".join(lines) + "\n"


def to_json(diff: Diff, label_a: str = "", label_b: str = "") -> dict:
    """The differences as data (`--format json`); the fields are described in docs/diff.md."""
    changes = []
    for c in diff.changes:
        entry = {"section": c.section, "what": c.what, "subject": c.subject, "details": list(c.details)}
        if c.group:
            entry["sequence"] = c.group
        if c.number_a or c.number_b:
            entry["step"] = {"number_a": c.number_a or None, "number_b": c.number_b or None, "id": c.step_id or None}
        changes.append(entry)
    return {"format": "rulecraft-diff", "version": 1,
            "a": {"ruleset": diff.name_a, "ref": label_a or diff.name_a},
            "b": {"ruleset": diff.name_b, "ref": label_b or diff.name_b},
            "same": diff.empty, "count": len(diff.changes), "counts": _counts(diff), "changes": changes}


# ---------------------------------------------------------------------------------------
# the command


def run(args) -> int:
    from rulecraft.diagnostics import render_text
    from rulecraft.loader import load_ruleset

    fmt = getattr(args, "format", None) or "text"
    output = getattr(args, "output", None)
    if fmt == "svg" and (not output or output == "-"):
        print("rulecraft diff: --format svg needs -o OUT (a file)", file=sys.stderr)
        return EXIT_TROUBLE
    loaded = []
    failed = False
    for ref in (args.ruleset_a, args.ruleset_b):
        res = load_ruleset(ref)
        if not res.ok:
            print(render_text(res.diagnostics, res.sources))
            print(f"rulecraft diff: {ref} has errors; nothing compared", file=sys.stderr)
            failed = True
        loaded.append(res)
    if failed:
        return EXIT_TROUBLE
    la, lb = loaded
    diff = diff_rulesets(la.ruleset, lb.ruleset)
    verdict = EXIT_SAME if diff.empty else EXIT_DIFFERENT
    if fmt in ("text", "json", "dot"):
        if fmt == "text":
            text = to_text(diff, args.ruleset_a, args.ruleset_b, lb.ruleset)
        elif fmt == "json":
            text = json.dumps(to_json(diff, args.ruleset_a, args.ruleset_b), indent=1, ensure_ascii=False) + "\n"
        else:
            text = to_dot(diff, la.ruleset, lb.ruleset, la.graph, lb.graph)
        if not output or output == "-":
            sys.stdout.write(text)
            return verdict
        return _write(output, text.encode("utf-8")) or verdict
    dot = to_dot(diff, la.ruleset, lb.ruleset, la.graph, lb.graph)
    from rulecraft.tools.chart.dotrun import DotError, run_dot

    try:
        svg = run_dot(dot, "svg")
    except DotError as e:
        print(f"rulecraft diff: {e}", file=sys.stderr)
        return EXIT_TROUBLE
    return _write(output, svg) or verdict


def _write(path: str, data: bytes) -> int:
    """Through the one writer: `-` is standard output (DOT and SVG are text)."""
    from rulecraft.tools.loading import write_text

    return write_text("diff", path, data.decode("utf-8")) or 0
