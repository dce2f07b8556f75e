"""The YAML reader's own limits (file size, nodes, expanded text, nesting), checked before or while composing,
and the small readings of the text that turn a parser's syntax error into a hint.

The project's limits are checked before a YAML parser's: a document nested past `max_depth`
gets E007 at the first node past it whichever PyYAML release reads it (PyYAML 6.0.4's C parser
stops at 1000 levels with an error of its own, earlier releases do not stop at all).
"""

from __future__ import annotations

import gc
import re
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

import yaml

from ..diagnostics import Diagnostic, Span, error

try:  # the C parser is much faster and yields the same marks
    Loader = yaml.CSafeLoader  # type: ignore[attr-defined]
except AttributeError:  # pragma: no cover - pure-Python PyYAML
    Loader = yaml.SafeLoader


@dataclass(frozen=True)
class Limits:
    """Guards against hostile or broken input; each overrun is a diagnostic, never a hang."""

    max_file_bytes: int = 2_000_000
    max_nodes: int = 200_000
    max_expanded_chars: int = 4_000_000  # characters of the scalars, counted at every alias that repeats them
    max_depth: int = 64
    max_dsl_chars: int = 4_000
    max_expression_depth: int = 60


DEFAULT_LIMITS = Limits()
TOO_DEEP_HINT = "flatten the structure: sequences can call other sequences"


class LimitExceeded(Exception):
    """Reading stops at the first limit passed; `diagnostic` says which, and where."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def node_span(file: str, node: yaml.Node) -> Span:
    s, e = node.start_mark, node.end_mark
    end_line, end_col = e.line + 1, e.column + 1
    if end_line != s.line + 1:
        end_line, end_col = s.line + 1, s.column + 2
    return Span(file, s.line + 1, s.column + 1, end_line, end_col)


def too_deep(text: str, path: str, limits: Limits) -> Diagnostic | None:
    """E007 at the first node nested deeper than the limit, found on the parser's event stream.

    Composing a very deep document recurses in C and can crash the process, so the depth is
    checked on events (which need no recursion) before anything is composed. When the C parser
    stops with an error of its own (its own nesting limit, or a syntax error further on), the
    text up to that error is read again by PyYAML's pure-Python parser, which has no nesting limit:
    a node past the project's limit before the error is E007, whatever the C parser's limit is.
    Otherwise the C parser's error stands (raised: E009 with its position).
    """
    try:
        return _first_too_deep(yaml.parse(text, Loader=Loader), path, limits)
    except yaml.YAMLError as exc:
        if Loader is yaml.SafeLoader:
            raise
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        head = text if mark is None else text[:_offset(text, mark.line, mark.column) + 1]
        try:
            found = _first_too_deep(yaml.parse(head, Loader=yaml.SafeLoader), path, limits)
        except yaml.YAMLError:  # the cut text ends inside a node; nothing was too deep before it
            found = None
        if found is None:
            raise
        return found


def _first_too_deep(events: Iterable[yaml.Event], path: str, limits: Limits) -> Diagnostic | None:
    depth = 0
    for ev in events:
        if isinstance(ev, (yaml.ScalarEvent, yaml.AliasEvent, yaml.CollectionStartEvent)) and depth > limits.max_depth:
            return error("E007", f"nesting deeper than {limits.max_depth} levels",
                         Span(path, ev.start_mark.line + 1, ev.start_mark.column + 1), TOO_DEEP_HINT)
        if isinstance(ev, yaml.CollectionStartEvent):
            depth += 1
        elif isinstance(ev, yaml.CollectionEndEvent):
            depth -= 1
    return None


def _offset(text: str, line: int, column: int) -> int:
    """The index in `text` of 0-based (line, column), as a parser's mark gives them."""
    at = 0
    for _ in range(line):
        nl = text.find("\n", at)
        if nl < 0:
            return len(text)
        at = nl + 1
    return min(at + column, len(text))


def check_expanded_size(root: yaml.Node, path: str, limits: Limits) -> None:
    """Raise E006 when aliases make the document expand past the node limit, or past the limit of characters.

    Each distinct node is measured once (its nodes and the characters of its scalars), so a 'billion laughs'
    file, or one long text repeated through many aliases, is rejected at once instead of after expanding it, at
    the innermost node whose expansion is too big.
    """
    sizes: dict[int, tuple[int, int]] = {}
    max_nodes, max_chars = limits.max_nodes, limits.max_expanded_chars

    def size(node: yaml.Node, depth: int) -> tuple[int, int]:
        known = sizes.get(id(node))
        if known is not None:
            return known
        total, chars = 1, 0
        if isinstance(node, yaml.ScalarNode):
            chars = len(node.value)
        elif depth <= limits.max_depth:  # deeper nodes are reported by the converter
            if isinstance(node, yaml.SequenceNode):
                children = node.value
            elif isinstance(node, yaml.MappingNode):
                children = [n for pair in node.value for n in pair]
            else:
                children = []
            for child in children:
                n, c = size(child, depth + 1)
                total += n
                chars += c
                if total > max_nodes or chars > max_chars:
                    break
        if total > max_nodes:
            raise LimitExceeded(too_many_nodes(path, node, max_nodes))
        if chars > max_chars:
            raise LimitExceeded(error(
                "E006", f"the document expands to more than {max_chars:,} characters of text", node_span(path, node),
                "an alias (*name) of a long text repeated many times multiplies the size; use fewer aliases"))
        sizes[id(node)] = total, chars
        return total, chars

    size(root, 0)


def too_many_nodes(path: str, node: yaml.Node, max_nodes: int) -> Diagnostic:
    return error("E006", f"the document expands to more than {max_nodes} nodes", node_span(path, node),
                 "an alias (*name) repeated many times can multiply the size; write the data out or use fewer aliases")


# ----------------------------------------------------------------------------- what a YAML syntax error means

_VALUE_QUOTE = re.compile(r"""^(\s*(?:-\s+)*(?:[^\s#'"\[{][^#]*?:\s+)?)(["'])""")


def open_quote_above(text: str, line: int) -> tuple[int, int] | None:
    """(line, column) of the nearest quoted value at or above `line` that its own line does not close."""
    lines = text.split("\n")
    for i in range(min(line, len(lines)) - 1, max(-1, line - 40), -1):
        m = _VALUE_QUOTE.match(lines[i])
        if m is None:
            continue
        q, rest = m.group(2), lines[i][m.end():]
        closed = re.search(r'(?<!\\)"', rest) if q == '"' else re.search(r"'(?!')", rest.replace("''", ""))
        if closed is None:
            return i + 1, m.start(2) + 1
    return None


def overindented(text: str, line: int, col: int) -> bool:
    """True when the ':' at (line, col) ends a key on a line indented deeper than the previous line."""
    lines = text.splitlines()
    if not 2 <= line <= len(lines):
        return False
    here = lines[line - 1]
    head = here[: col - 1]
    if not head.strip() or " " in head.strip() or head.lstrip().startswith(("-", "#")):
        return False
    prev = next((l for l in reversed(lines[: line - 1]) if l.strip() and not l.lstrip().startswith("#")), None)
    if prev is None or prev.rstrip().endswith(":"):
        return False
    return len(here) - len(here.lstrip(" ")) > len(prev) - len(prev.lstrip(" "))


def deeper_key(text: str, problem: str, context: str, line: int, col: int, mark: Any) -> str | None:
    """The hint for a key indented past the keys of the block mapping above it (PyYAML: "did not find expected key"
    at the key), in the spaces a designer counts; None for any other error. (line, col) 1-based; `mark`: PyYAML's
    context mark, where the mapping starts. Session 18: the hint was PyYAML's "while parsing a block mapping that starts at ..."."""
    lines, m_line, m_col = text.splitlines(), mark.line + 1, mark.column + 1
    if "expected key" not in problem or "block mapping" not in context or not 0 < line <= len(lines):
        return None
    here = lines[line - 1]
    if col <= m_col or here[: col - 1].strip(" ") or here[col - 1: col] in ("", "-", "#"):
        return None
    spaces = lambda n: f"{n} space{'' if n == 1 else 's'}"  # noqa: E731
    said = f"this line is indented {spaces(col - 1)}, deeper than the keys of the mapping above it (line {m_line}, " \
        f"indented {m_col - 1}): the keys of one mapping line up; indent it by {spaces(m_col - 1)}, as line {m_line}"
    above = next((l for l in reversed(lines[: line - 1]) if l.strip() and not l.lstrip().startswith("#")), "")
    deeper = len(above) - len(above.lstrip(" "))
    return said if deeper <= col - 1 else f"{said}, or by {spaces(deeper)} to go on with the lines above it"


def has_tab(text: str, line: int) -> bool:
    lines = text.splitlines()
    return 1 <= line <= len(lines) and "\t" in lines[line - 1]


def tab_col(text: str, line: int) -> int | None:
    lines = text.splitlines()
    if 1 <= line <= len(lines) and "\t" in lines[line - 1]:
        return lines[line - 1].index("\t") + 1
    return None


def printed_text_limits(root, rs, braces: int | None = None) -> list[Diagnostic]:
    """E013 at a text (a label, a table's cell, the aid's notes, ...) whose {NAME} values would fill in more than
    `MAX_ADDED` characters, or at the first past `MAX_ADDED_IN_ALL` for the whole ruleset: what `book`, `render` and
    `aid` would print (a 200,000-character cell named 20,000 times in one label: 4 GB; issue 38). Every text of the
    file (parents too) is measured, each name's value once. `braces`: how many '{' the whole text has, when it is
    one file: if that many names of the longest value fit, no text can pass and none is measured."""
    from ..model.templates import MAX_ADDED, MAX_ADDED_IN_ALL, expanded_size, largest_value

    if braces is not None and braces * largest_value(rs) <= MAX_ADDED:
        return []
    out: list[Diagnostic] = []
    memo: dict = {}
    total = 0
    stack = [root]
    while stack:
        node = stack.pop()
        kind = type(node).__name__  # (yaml_source's node classes: it imports this module)
        if kind == "YMap":
            stack.extend(reversed(list(node.entries.values())))
            continue
        if kind == "YSeq":
            stack.extend(reversed(node.items))
            continue
        text = node.value if kind == "YScalar" else None
        if text.__class__ is not str or "{" not in text:
            continue
        added = expanded_size(rs, text, memo) - len(text)
        total += added
        if added > MAX_ADDED or total > MAX_ADDED_IN_ALL:
            what = (f"its {{NAME}} values fill in {added:,} characters, over the limit of {MAX_ADDED:,} per text"
                    if added > MAX_ADDED else
                    f"the {{NAME}} values of the ruleset's texts fill in more than {MAX_ADDED_IN_ALL:,} characters")
            out.append(error("E013", f"this text would print too long: {what}", node.span,
                             "name a long value once, or write the text out"))
            if total > MAX_ADDED_IN_ALL:
                break
    return out


# The most characters of one text players read by its key (a title or a card's name, a label, a card's text): a chart
# box is one string to Graphviz, which refuses one past 16 KiB ("String starting: ..."), and the aid's printer timed
# out on a card text of 400,000 characters, after `validate` had said nothing. The longest bundled: 193, 665.
PROSE_LIMITS = {"title": 200, "name": 200, "label": 2_000, "doc": 2_000}
ONE_LINE = frozenset({"title", "name"})  # texts that are one line (security.md, section 21)


def prose_lengths(root, size: int | None = None) -> list[Diagnostic]:
    """E013 at a title, name, label or card text longer than PROSE_LIMITS allows, and at a title or name holding a
    line break. (`size`, the characters of the whole file, is no longer used: a short title may break a line.)"""
    out: list[Diagnostic] = []
    stack = [root]
    while stack:
        node = stack.pop()
        kind = type(node).__name__
        if kind == "YSeq":
            stack.extend(node.items)
        elif kind == "YMap":
            for key, value in node.entries.items():
                limit = PROSE_LIMITS.get(key)
                text = getattr(value, "value", None)
                if limit is not None and text.__class__ is str and len(text) > limit:
                    out.append(error("E013", f"this {key} is {len(text):,} characters, over the limit of {limit:,} "
                                     f"for a {key} players read", value.span,
                                     "say it shorter: a longer explanation belongs in `notes:`"))
                elif key in ONE_LINE and text.__class__ is str and ("\n" in text or "\r" in text):
                    out.append(error("E013", f"this {key} holds a line break: a {key} is one line (printed in a "
                                     "line of its own, it forged the lines after it)", value.span,
                                     "write it on one line: a longer explanation belongs in `doc:` or `notes:`"))
                elif type(value).__name__ in ("YMap", "YSeq"):
                    stack.append(value)
    return out


# Characters that read as nothing or as a line break to some readers and not to others, anywhere in the file
# (comments too): NEL, U+2028 and U+2029 end a line for YAML's reader but not for an editor, so every line after one
# was numbered differently by each; the bidirectional controls make a line display in another order. One policy
# (issue 38): each is E003 at its place, and the file is read on with a space there, so the other diagnostics keep
# the lines an editor shows (CR LF, CR or LF end a line, as the language server counts them).
_INVISIBLE = re.compile("[\x85\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_LINE_END = re.compile("\r\n|\r|\n")


_INVISIBLE_CHARS = ("\x85", "\u2028", "\u2029", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A)))


def invisible_characters(text: str, path: str) -> tuple[str, list[Diagnostic]]:
    if not any(c in text for c in _INVISIBLE_CHARS):  # (a search per character: faster than one class)
        return text, []
    said: list[Diagnostic] = []
    line, start = 1, 0
    ends = [m.end() for m in _LINE_END.finditer(text)]
    for m in _INVISIBLE.finditer(text):
        while line - 1 < len(ends) and ends[line - 1] <= m.start():
            start = ends[line - 1]
            line += 1
        c = m.group()
        what = "bidirectional control" if "\u202a" <= c <= "\u2069" else "line separator" if c == "\u2028" else \
            "paragraph separator" if c == "\u2029" else "next-line control"
        if len(said) < 20:
            said.append(error("E003", f"the text holds the {what} U+{ord(c):04X}", Span(path, line, m.start() - start + 1),
                              "remove it: a ruleset holds printable text, and a line ends with a new line"))
    return _INVISIBLE.sub(" ", text), said


def binary_text(data: bytes, path: str) -> Diagnostic:
    """E003 for bytes that hold a NUL: 'the file is UTF-16 text' (or UTF-32) when they are text in one of them (a
    byte order mark, or the NULs of ASCII text at every other byte of the start: Windows' "Unicode"), else the NUL's
    place ('it is binary')."""
    wide, head = "", data[:64]
    if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        wide = "UTF-32"
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        wide = "UTF-16"
    elif len(head) >= 8 and (not any(head[1::2]) or not any(head[0::2])) and any(head):
        wide = "UTF-32" if not any(head[1::4]) and not any(head[2::4]) else "UTF-16"
    if wide:
        return error("E003", f"the file is {wide} text, not UTF-8", Span(path, 1, 1),
                     "save the ruleset as UTF-8 (in the editor's 'Save as', encoding UTF-8)")
    at = data.index(b"\x00")
    line, col = data[:at].count(b"\n") + 1, at - (data.rfind(b"\n", 0, at) + 1) + 1
    return error("E003", "the file contains a NUL byte: it is binary, not YAML text", Span(path, line, col),
                 "save the ruleset as plain UTF-8 text")


_ORDER: tuple = (None, {}, [])  # the last mapping asked about: its entries, key -> place, the keys in order


def key_before(entries: dict, key: str) -> str | None:
    """The key written before `key` in a mapping's `entries`. Its order is worked out once for all its unknown keys
    (session 14: a list of the mapping for each one cost the square of the keys: 90,000 of them, over ten minutes)."""
    global _ORDER
    order = _ORDER  # read once: another thread's check may put its own mapping there meanwhile
    if order[0] is not entries:
        keys = list(entries)
        order = _ORDER = (entries, {k: i for i, k in enumerate(keys)}, keys)
    at = order[1].get(key, 0)
    return order[2][at - 1] if at > 0 else None


def indent_hint(node: Any, key: Any) -> str | None:
    """The hint for an unknown `key` written under a key left empty at its own column (`parameters:` then
    `target_score: ...` not indented, session 20: the hint listed every top-level key), or None; `node` the mapping
    (or anything else: None), `key` its key."""
    if not isinstance(key, str) or not isinstance(getattr(node, "entries", None), dict) or key not in node.entries:
        return None
    prev = key_before(node.entries, key)
    if prev is None or node.entries[prev].plain() is not None:
        return None
    above, here = node.key_span(prev), node.key_span(key)
    if above.file != here.file or above.line >= here.line or above.col != here.col:
        return None
    return (f"'{prev[:60]}:' on line {above.line} is empty: if '{key[:60]}' belongs under it, indent it (and the lines "
            f"that go with it) by two spaces more than '{prev[:60]}:'")


@contextmanager
def collecting() -> Iterator[None]:
    """Python's cycle collector on inside, though a load pauses it (loader._collector_paused): for a pass whose
    garbage is cycles in proportion to a file's problems (the schema's errors), collected as it goes."""
    paused = not gc.isenabled()
    gc.enable()
    try:
        yield
    finally:
        if paused:
            gc.disable()

