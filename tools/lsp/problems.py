"""Diagnostics from the full validator as LSP diagnostics, and quick fixes from their did-you-mean hints."""

from __future__ import annotations

import os
import re

from lsprotocol import types as T

from rulecraft.bundled import bundled_root
from rulecraft.diagnostics import Diagnostic, Severity, unhidden

from rulecraft.tools.lsp.documents import WORD, Document, same_file

SEVERITY = {Severity.ERROR: T.DiagnosticSeverity.Error, Severity.WARNING: T.DiagnosticSeverity.Warning,
            Severity.NOTE: T.DiagnosticSeverity.Information}
DID_YOU_MEAN = re.compile(r"did you mean (.*)\?")
SOURCE = "rulecraft"


OVERRIDE = re.compile(r"^\s*(?:-\s*)?(replace|insert_after|insert_before|remove):\s*[\"']?([A-Za-z_][\w-]*)\.")


def lsp_diagnostics(doc: Document) -> list[T.Diagnostic]:
    """Every problem the loader found; one in another file (a parent under 'extends') shows at 'extends:', or at the
    override of this file that changes the parent's sequence it lies in (what made the parent's step go wrong)."""
    out = []
    extends_line = next((i for i, line in enumerate(doc.lines) if line.startswith("extends:")), 0)
    for d in [*doc.notes, *doc.result.diagnostics]:
        out.append(_one(d, doc, extends_line))
    return out


def _parent_place(d: Diagnostic, doc: Document, extends_line: int) -> tuple[int, str]:
    """Where a problem of a parent file shows in this one, and the words before its message: the parent's file named
    from this one's folder (bundled: by its name), its line, and the override that changes its sequence, if any."""
    span = d.span
    here = os.path.dirname(os.path.abspath(doc.path))
    where = os.path.relpath(span.file, here) if _inside(span.file, here) else \
        f"{os.path.basename(span.file)} (bundled)" if _inside(span.file, bundled_root()) else span.file
    said = f"in {where} line {span.line}"
    model = doc.result.ruleset or doc.result.built
    starts = sorted((s.span.line, sid) for sid, s in (getattr(model, "sequences", None) or {}).items()
                    if s.span is not None and same_file(s.span.file, span.file) and s.span.line <= span.line)
    if not starts:
        return extends_line, said
    seq = starts[-1][1]
    for i, line in enumerate(doc.lines):
        m = OVERRIDE.match(line)
        if m and m.group(2) == seq:
            return i, (f"{said}, in its sequence '{seq}', which this override changes ({m.group(1)}); the parent's "
                       "steps after it may read a name the step replaced or removed had set")
    return extends_line, said


def _inside(path: str, folder: str) -> bool:
    try:
        return os.path.commonpath([os.path.abspath(path), os.path.abspath(folder)]) == os.path.abspath(folder)
    except ValueError:
        return False


def _one(d: Diagnostic, doc: Document, extends_line: int) -> T.Diagnostic:
    message = unhidden(d.message + (f"\nhint: {d.hint}" if d.hint else ""))  # a zero-width space as <U+200B>
    data = None
    if d.span is not None and not same_file(d.span.file, doc.path):
        at, said = _parent_place(d, doc, extends_line)
        end = doc.units.num_units(doc.line(at)) if doc.units else len(doc.line(at))
        rng = T.Range(T.Position(at, len(doc.line(at)) - len(doc.line(at).lstrip(" -"))), T.Position(at, end))
        message = f"{said}: {message}"
    else:
        rng = doc.to_client(d.span)
        m = DID_YOU_MEAN.search(d.hint or "")
        if m and d.span is not None and d.span.line == d.span.end_line:
            data = {"replacements": re.findall(r"'([^']+)'", m.group(1))}
        elif d.code == "W312":  # the old trigger key
            data = {"replacements": ["event"]}
    return T.Diagnostic(range=rng, message=message, severity=SEVERITY.get(d.severity, T.DiagnosticSeverity.Error),
                        code=d.code, source=SOURCE, data=data)


def quick_fixes(doc: Document, params: T.CodeActionParams) -> list[T.CodeAction]:
    """'Change to X' for each diagnostic in the request whose hint names the one close name."""
    actions = []
    for diag in params.context.diagnostics:
        data = diag.data if isinstance(diag.data, dict) else None
        if diag.source != SOURCE or not data or not data.get("replacements"):
            continue
        old = _text_in(doc, diag.range)
        if not WORD.fullmatch(old) or (f"'{old}'" not in diag.message and f"'{old}:'" not in diag.message):
            continue  # the range is not the misspelled name itself: no safe edit
        for i, new in enumerate(data["replacements"]):
            actions.append(T.CodeAction(
                title=f"Change '{old}' to '{new}'", kind=T.CodeActionKind.QuickFix, diagnostics=[diag], is_preferred=i == 0,
                edit=T.WorkspaceEdit(changes={doc.uri: [T.TextEdit(range=diag.range, new_text=new)]})))
    return actions


def _text_in(doc: Document, rng: T.Range) -> str:
    """The text a range in the client's units covers (one line), in this document."""
    if rng.start.line != rng.end.line:
        return ""
    start, end = doc.from_client(rng.start), doc.from_client(rng.end)
    return doc.line(rng.start.line)[start.character: end.character]
