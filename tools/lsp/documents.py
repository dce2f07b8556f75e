"""One open ruleset: its text, the loader's findings on it, and the names a ruleset defines, with positions."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types as T

from rulecraft.diagnostics import Diagnostic, Span, error
from rulecraft.loader import LoadResult, load_text

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
LINE_END = re.compile("\r\n|\r|\n")  # the protocol's line ends (a file with CR alone too), as YAML's reader counts
RULESET_MARK = re.compile(r"^(ruleset|extends)\s*:|ruleset\.schema\.json", re.M)


def looks_like_ruleset(text: str) -> bool:
    """A top-level 'ruleset:' or 'extends:', or the schema's modeline: other YAML files of a project are left alone."""
    return RULESET_MARK.search(text) is not None


@dataclass
class Document:
    uri: str
    path: str
    text: str
    version: int | None
    result: LoadResult
    model: Any | None  # this text's model, or the last one built from this document (names for completion)
    units: Any = None  # the client's position encoding (pygls's unit counter); None counts code points
    notes: list = field(default_factory=list)  # the server's own findings on the text (a lone surrogate)

    @functools.cached_property
    def lines(self) -> list[str]:
        return LINE_END.split(self.text)

    def line(self, n: int) -> str:
        lines = self.lines
        return lines[n] if 0 <= n < len(lines) else ""

    def to_client(self, span: Span | None) -> T.Range:
        """A Span (1-based code points, end exclusive) as an LSP range in the client's units (UTF-16 by default)."""
        rng = to_range(span)
        if self.units is None or span is None:
            return rng
        lines = self.lines if same_file(span.file, self.path) else _file_lines(span.file, max(span.line, span.end_line))
        return T.Range(self.units_of(lines, rng.start), self.units_of(lines, rng.end))

    def units_of(self, lines: list[str], pos: T.Position) -> T.Position:
        """A position in code points of `lines` as one in the client's units."""
        if self.units is None:
            return pos
        text = lines[pos.line] if 0 <= pos.line < len(lines) else ""
        return T.Position(pos.line, self.units.num_units(text[: pos.character]))

    def from_client(self, pos: T.Position) -> T.Position:
        """A position in the client's units as a position in code points of this text, clamped to the text: a
        position past the end (line 10**9) is the end of the last line, so no request works past the document."""
        last = len(self.lines) - 1
        if not 0 <= pos.line <= last or pos.character < 0:
            line = min(max(pos.line, 0), last)
            pos = T.Position(line, len(self.lines[line]) if pos.line > last else max(pos.character, 0))
        if self.units is None:
            return T.Position(pos.line, min(pos.character, len(self.lines[pos.line])))
        line, left, i = self.line(pos.line), pos.character, 0
        while i < len(line) and left > 0:
            left -= self.units.code_units_for_char(line[i])
            i += 1
        return T.Position(pos.line, i)

    def word_at(self, pos: T.Position) -> tuple[str, str, T.Range] | None:
        """The name under the cursor, the name before it and a dot (as in 'player.cash'), and its range."""
        line = self.line(pos.line)
        for m in WORD.finditer(line):
            if m.start() <= pos.character <= m.end():
                before = line[: m.start()]
                owner = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*(\[[^\]]*\])?\.$", before)
                rng = T.Range(T.Position(pos.line, m.start()), T.Position(pos.line, m.end()))
                return m.group(0), owner.group(1) if owner else "", rng
        return None

    def key_of_line(self, n: int) -> str:
        """The YAML key written on line `n`, if any ('- if: x' gives 'if')."""
        m = re.match(r"\s*(?:-\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*:(\s|$)", self.line(n))
        return m.group(1) if m else ""


@dataclass
class Store:
    """The open documents, and the last model each one built (kept while the text is broken)."""

    docs: dict[str, Document] = field(default_factory=dict)
    last_model: dict[str, Any] = field(default_factory=dict)

    def update(self, uri: str, path: str, text: str, version: int | None, units: Any = None) -> Document:
        return self.keep(build(uri, path, text, version, units))

    def keep(self, doc: Document) -> Document:
        """A document checked (off the request path) becomes the one requests are answered from."""
        model = doc.result.ruleset or doc.result.built
        if model is not None:
            self.last_model[doc.uri] = model
        doc.model = model or self.last_model.get(doc.uri)
        self.docs[doc.uri] = doc
        return doc

    def close(self, uri: str) -> None:
        """A closed document is released whole: its text, its check and the last model it built."""
        self.docs.pop(uri, None)
        self.last_model.pop(uri, None)


SURROGATE = re.compile("[\ud800-\udfff]")


def build(uri: str, path: str, text: str, version: int | None, units: Any = None) -> Document:
    """Check one text with the library's loader. A lone surrogate (an editor can send one, it is not text)
    becomes U+FFFD, one code unit as it was, so every position after it stays where the editor has it."""
    notes = []
    path = path.replace("\x00", "\ufffd")  # as the loader names it (a URI with %00: no file system holds it)
    bad = SURROGATE.search(text)
    if bad is not None:
        line = text.count("\n", 0, bad.start())
        col = bad.start() - (text.rfind("\n", 0, bad.start()) + 1)
        notes.append(error("E003", f"the text holds a lone surrogate (U+{ord(bad.group(0)):04X}), which is not text; "
                           "it is read as U+FFFD", Span(path, line + 1, col + 1, line + 1, col + 2), "remove it"))
        text = SURROGATE.sub("\ufffd", text)
    doc = Document(uri, path, text, version, load_text(path, text), None, units, notes)
    return doc


def _file_lines(path: str, upto: int) -> list[str]:
    """The first `upto` lines of another file of the ruleset (a parent), to count a position's units on them."""
    out: list[str] = []
    try:
        with open(path, encoding="utf-8", errors="replace", newline="") as f:
            for _ in range(upto):
                out.append(f.readline(1_000_000).rstrip("\r\n"))
    except OSError:
        return []
    return out


def to_range(span: Span | None) -> T.Range:
    """A Span (1-based, end exclusive) as an LSP range (0-based)."""
    if span is None:
        return T.Range(T.Position(0, 0), T.Position(0, 0))
    return T.Range(T.Position(span.line - 1, span.col - 1), T.Position(span.end_line - 1, span.end_col - 1))


def location(doc: Document, span: Span) -> T.Location:
    from pygls.uris import from_fs_path

    return T.Location(uri=from_fs_path(span.file) or span.file, range=doc.to_client(span))


def same_file(a: str, b: str) -> bool:
    import os

    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


__all__ = ["Document", "Store", "Diagnostic", "to_range", "location", "same_file", "WORD"]
