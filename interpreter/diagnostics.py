"""One record type for every problem found in a ruleset, log or input, and its two printed forms."""

from __future__ import annotations

import difflib
import heapq
import json
import threading
import unicodedata
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from typing import Callable, Iterable, Iterator, Sequence


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True, order=True)
class Span:
    """A region of a source file; lines and columns are 1-based, the end is exclusive."""

    file: str
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0

    def __post_init__(self) -> None:
        if self.end_line == 0:
            object.__setattr__(self, "end_line", self.line)
        if self.end_col == 0 or (self.end_line == self.line and self.end_col <= self.col):
            object.__setattr__(self, "end_col", self.col + 1)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Diagnostic:
    severity: Severity
    code: str
    message: str
    span: Span | None = None
    hint: str | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    def to_dict(self) -> dict:
        out: dict = {"severity": self.severity.value, "code": self.code, "message": self.message}
        if self.span is not None:
            out.update(
                file=self.span.file,
                line=self.span.line,
                column=self.span.col,
                end_line=self.span.end_line,
                end_column=self.span.end_col,
            )
        if self.hint:
            out["hint"] = self.hint
        if self.notes:
            out["notes"] = list(self.notes)
        return out


def error(code: str, message: str, span: Span | None = None, hint: str | None = None) -> Diagnostic:
    return Diagnostic(Severity.ERROR, code, message, span, hint)


def warning(code: str, message: str, span: Span | None = None, hint: str | None = None) -> Diagnostic:
    return Diagnostic(Severity.WARNING, code, message, span, hint)


class DiagnosticError(Exception):
    """Raised inside a pass to abandon one item; the pass turns it back into a Diagnostic."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


MAX_HINTS = 1000  # 'did you mean' hints worked out in one load: each compares a name with every one declared
_HINTS = threading.local()  # the hints left to the load running on this thread (a language server checks on threads)


@contextmanager
def hints_bounded() -> Iterator[None]:
    """At most MAX_HINTS 'did you mean' hints inside (a load, its parents under `extends:` included): each costs the
    names it is compared with, so a file of 40,000 unknown names among 40,000 declared ones took minutes."""
    outer = getattr(_HINTS, "left", None)
    if outer is None:
        _HINTS.left = MAX_HINTS
    try:
        yield
    finally:
        if outer is None:
            _HINTS.left = None


def did_you_mean(name: str, candidates: Iterable[str] | Callable[[], Iterable[str]]) -> str | None:
    """A 'did you mean' hint from the closest candidate names (or a function giving them, called only when the hint
    is worked out), or None: also past the MAX_HINTS of a load (`hints_bounded`).

    difflib picks the names (its ratio and its 0.6 cutoff, as always), but only among the SHORTLIST names
    closest by rapidfuzz's ratio (in C++; an upper bound of difflib's ratio, so no name it drops could have
    passed the cutoff unless SHORTLIST closer ones did): a file with thousands of unknown names among
    thousands of declared ones gets its hints in seconds instead of minutes (issue 14).
    """
    left = getattr(_HINTS, "left", None)
    if left is not None:
        if left <= 0:
            return None
        _HINTS.left = left - 1
    pool = _pool(candidates() if callable(candidates) else candidates)
    if len(pool) > SHORTLIST:
        from rapidfuzz.fuzz import ratio as _ratio  # imported when first needed: the command line starts faster
        from rapidfuzz.process import extract as _extract

        pool = [c for c, _score, _i in _extract(name, pool, scorer=_ratio, processor=None, limit=SHORTLIST,
                                               score_cutoff=59.9)]
    close = _close_matches(name, pool)
    if not close:
        return None
    if len(close) == 1:
        return f"did you mean '{close[0]}'?"
    return "did you mean " + ", ".join(f"'{c}'" for c in close[:-1]) + f" or '{close[-1]}'?"


def _close_matches(name: str, pool: list[str], n: int = 3, cutoff: float = 0.6) -> list[str]:
    """difflib.get_close_matches(name, pool, n, cutoff), the same answer, each ratio worked out once (it does twice)."""
    s = difflib.SequenceMatcher()
    s.set_seq2(name)
    scored = []
    for x in pool:
        s.set_seq1(x)
        if s.real_quick_ratio() >= cutoff and s.quick_ratio() >= cutoff:
            r = s.ratio()
            if r >= cutoff:
                scored.append((r, x))
    return [x for _score, x in heapq.nlargest(n, scored)]


SHORTLIST = 6  # names difflib compares, at most, for one hint
_POOLS: dict[frozenset, list[str]] = {}  # the candidate lists of the last few calls: most calls repeat one


def _pool(candidates: Iterable[str]) -> list[str]:
    key = frozenset(candidates)
    pool = _POOLS.get(key)
    if pool is None:
        if len(_POOLS) >= 16:
            _POOLS.clear()
        pool = _POOLS[key] = sorted(key)
    return pool


def sort_key(d: Diagnostic):
    if d.span is None:
        return ("", 0, 0, d.code)
    return (d.span.file, d.span.line, d.span.col, d.code)


class SourceCache:
    """Source text by file name, for quoting the offending line under a diagnostic."""

    def __init__(self) -> None:
        self._lines: dict[str, list[str]] = {}

    def add(self, name: str, text: str) -> None:
        self._lines[name] = text.splitlines()

    def names(self) -> list[str]:
        """The files held (a ruleset and the parents it extends, as the loader read them)."""
        return list(self._lines)

    def line(self, name: str, number: int) -> str | None:
        lines = self._lines.get(name)
        if lines is None:
            try:
                with open(name, "rb") as fh:
                    data = fh.read(4_000_000)
                # never quote binary or undecodable input back at the terminal
                lines = [] if b"\x00" in data else data.decode("utf-8").splitlines()
            except (OSError, UnicodeDecodeError):
                lines = []
            self._lines[name] = lines
        if 1 <= number <= len(lines):
            return lines[number - 1]
        return None


EXCERPT = 200  # characters of a source line quoted under a diagnostic, around the place it names
MESSAGE = 2_000  # characters of a message, note or hint (one may quote a value from a stranger's file)


def _cut(line: str) -> str:
    return line if len(line) <= MESSAGE else line[:MESSAGE - 3] + "..."


def unhidden(text: str, mark=None) -> str:
    """`text` with its invisible characters (Unicode's format characters: a zero-width space, a joiner, a
    word joiner, a byte-order mark) shown: as <U+200B> in a message, or `mark` one for one (an excerpt, whose
    carets must stay under it). 'pi<U+200B>le' printed as 'pile' read as a name refused for nothing."""
    if text.isascii():
        return text
    return "".join((mark or f"<U+{ord(c):04X}>") if unicodedata.category(c) == "Cf" and ord(c) not in UNPRINTABLE
                   else c for c in text)


def render_text(diagnostics: Sequence[Diagnostic], sources: SourceCache | None = None) -> str:
    """The human form: location, severity, code, message, the source line with carets, a hint."""
    sources = sources or SourceCache()
    chunks = []
    for d in diagnostics:
        where = f"{d.span}: " if d.span else ""
        lines = [_cut(f"{where}{d.severity.value}[{d.code}]: {unhidden(d.message)}")]
        if d.span is not None:
            text = sources.line(d.span.file, d.span.line)
            if text is not None and text.strip():
                shown = unhidden(text.expandtabs(1), "?")
                width = d.span.end_col - d.span.col if d.span.end_line == d.span.line else len(shown) - d.span.col + 1
                width = max(1, min(width, max(1, len(shown) - d.span.col + 1)))
                col = d.span.col - 1
                if len(shown) > EXCERPT:  # a line of 1.5 MB was quoted whole: a window around the place instead
                    start = max(0, min(col - EXCERPT // 4, len(shown) - EXCERPT))
                    head, tail = ("..." if start else ""), ("..." if start + EXCERPT < len(shown) else "")
                    shown = head + shown[start:start + EXCERPT] + tail
                    col += len(head) - start
                    width = max(1, min(width, EXCERPT + len(head) - col))
                lines.append(f"    {shown}")
                lines.append("    " + " " * col + "^" * width)
        for note in d.notes:
            lines.append(_cut(f"  note: {unhidden(note)}"))
        if d.hint:
            lines.append(_cut(f"  hint: {unhidden(d.hint)}"))
        chunks.append("\n".join(lines).translate(_UNPRINTABLE))
    return "\n".join(chunks)


# control characters (C0 but tab and newline, DEL, C1) shown as '?': a stranger's file must not
# drive the terminal (escape sequences) through a message or an excerpt; one for one keeps carets aligned
# (and the bidirectional embeddings, overrides and isolates, which reorder how the rest of a line is shown)
UNPRINTABLE = {c: "?" for c in [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F),
                                *range(0x2066, 0x206A), 0x2028, 0x2029]}  # and the line and paragraph separators
_UNPRINTABLE = UNPRINTABLE  # one map for every printer (play, replay, the table): issue 38


def render_json(diagnostics: Sequence[Diagnostic]) -> str:
    return json.dumps([d.to_dict() for d in diagnostics], indent=2)


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.is_error for d in diagnostics)


class RuleError(Exception):
    """A rule went wrong while a game ran (e.g. a card read from a value that is none).

    It carries the span of the statement or expression at fault so the runtime can report
    it as a diagnostic instead of a traceback.
    """

    def __init__(self, message: str, span: Span | None = None, hint: str | None = None, code: str = "R001"):
        super().__init__(message)
        self.message = message
        self.span = span
        self.hint = hint
        self.code = code

    def diagnostic(self) -> Diagnostic:
        return Diagnostic(Severity.ERROR, self.code, self.message, self.span, self.hint)
