"""One open ruleset: its text, the loader's findings on it, and the names a ruleset defines, with positions."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types as T

from rulecraft.diagnostics import Diagnostic, Span
from rulecraft.loader import LoadResult, load_text

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
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

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    def line(self, n: int) -> str:
        lines = self.lines
        return lines[n] if 0 <= n < len(lines) else ""

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

    def update(self, uri: str, path: str, text: str, version: int | None) -> Document:
        result = load_text(path, text)
        model = result.ruleset or result.built
        if model is not None:
            self.last_model[uri] = model
        doc = Document(uri, path, text, version, result, model or self.last_model.get(uri))
        self.docs[uri] = doc
        return doc

    def close(self, uri: str) -> None:
        self.docs.pop(uri, None)


def to_range(span: Span | None) -> T.Range:
    """A Span (1-based, end exclusive) as an LSP range (0-based)."""
    if span is None:
        return T.Range(T.Position(0, 0), T.Position(0, 0))
    return T.Range(T.Position(span.line - 1, span.col - 1), T.Position(span.end_line - 1, span.end_col - 1))


def location(span: Span) -> T.Location:
    from pygls.uris import from_fs_path

    return T.Location(uri=from_fs_path(span.file) or span.file, range=to_range(span))


def same_file(a: str, b: str) -> bool:
    import os

    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


__all__ = ["Document", "Store", "Diagnostic", "to_range", "location", "same_file", "WORD"]
