"""Pass 1: read YAML into a small node tree in which every key and value carries its source span.

Only the YAML core schema is accepted (strings, numbers, booleans, null, lists, mappings);
nothing is ever constructed from a tag, so a ruleset cannot make Python objects.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from typing import Any, Iterator

import yaml

from ..inputs import note_input
from ..diagnostics import Diagnostic, Span, error
from .yaml_limits import DEFAULT_LIMITS, TOO_DEEP_HINT, Limits, check_expanded_size, node_span as _span
from .yaml_limits import LimitExceeded as _Abort, too_deep as _too_deep, too_many_nodes
from .yaml_limits import has_tab as _has_tab, open_quote_above as _open_quote_above, overindented as _overindented
from .yaml_limits import binary_text, deeper_key as _deeper_key, invisible_characters, tab_col as _tab_col
from .yaml_limits import Loader as _Loader  # CSafeLoader: the C composer (PyYAML's pure-Python one without libyaml)

__all__ = ["DEFAULT_LIMITS", "Limits", "YMap", "YNode", "YScalar", "YSeq", "decode", "load_file", "parse_yaml",
           "read_text"]
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")  # tab, newline, return are text
# U+202A-U+202E and U+2066-U+2069 are the bidirectional embeddings, overrides and isolates: they make a text
# display in another order than it is ("Trojan Source"), so a title could show as something it is not

_CONSTRUCTOR = yaml.constructor.SafeConstructor()

_STANDARD_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "seq", "map")}


@dataclass
class YNode:
    span: Span

    def plain(self) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError


@dataclass
class YScalar(YNode):
    value: Any
    style: str | None = None
    source: str = ""  # the raw text of the scalar as written, for mapping DSL offsets

    def plain(self) -> Any:
        return self.value

    def position_of(self, offset: int) -> tuple[int, int]:
        """File line and column of character `offset` of the scalar's string value."""
        table = self._positions()
        return table[min(max(offset, 0), len(table) - 1)]

    def _positions(self) -> list:
        """(line, column) of every character of the value, and of the end; built once per scalar."""
        table = self.__dict__.get("_table")
        if table is None:
            table = self.__dict__["_table"] = self._build_positions()
        return table

    def _build_positions(self) -> list:
        text = self.value if isinstance(self.value, str) else str(self.value)
        raw = self.source
        line, col = self.span.line, self.span.col
        if not raw:
            return [(line, col + i) for i in range(len(text) + 1)]
        # skip the opening quote, or the block indicator's line
        j = 0
        if self.style in ("'", '"'):
            j = 1
        elif self.style in ("|", ">"):
            j = raw.find("\n") + 1
            if j == 0:
                return [(line, col)] * (len(text) + 1)
        if raw.startswith(text, j) and "\n" not in raw[:j + len(text)]:
            # the usual case, text written as it reads on one line: each character is where the
            # walk below would find it, one column after the other
            return [(line, col + j + i) for i in range(len(text) + 1)]
        # where each character of the source text is, and where it ends
        at = []
        for ch in raw:
            at.append((line, col))
            line, col = (line + 1, 1) if ch == "\n" else (line, col + 1)
        at.append((line, col))
        n = len(raw)
        table = []
        for want in text:
            # the source character that produced `want` (folding turns a newline into a space)
            while j < n and not (raw[j] == want or (want == " " and raw[j] == "\n")):
                j += 1
            table.append(at[j])
            j = min(j + 1, n)
        table.append(at[j])
        return table

    def span_of(self, start: int, end: int) -> Span:
        # called for every AST node of the scalar's DSL text: `position_of` inlined
        table = self.__dict__.get("_table") or self._positions()
        last = len(table) - 1
        l1, c1 = table[min(max(start, 0), last)]
        l2, c2 = table[min(max(start, end, 0), last)]
        if l2 != l1:
            l2, c2 = l1, c1 + 1
        return Span(self.span.file, l1, c1, l2, max(c2, c1 + 1))


@dataclass
class YSeq(YNode):
    items: list[YNode] = field(default_factory=list)

    def plain(self) -> list:
        return [i.plain() for i in self.items]

    def __iter__(self) -> Iterator[YNode]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


@dataclass
class YMap(YNode):
    entries: dict[str, YNode] = field(default_factory=dict)
    key_spans: dict[str, Span] = field(default_factory=dict)

    def plain(self) -> dict:
        return {k: v.plain() for k, v in self.entries.items()}

    def get(self, key: str) -> YNode | None:
        return self.entries.get(key)

    def __contains__(self, key: str) -> bool:
        return key in self.entries

    def key_span(self, key: str) -> Span:
        return self.key_spans.get(key, self.span)

    def items(self):
        return self.entries.items()

    def values(self):
        return self.entries.values()


_NEWLINE = re.compile("\n")


class _Converter:
    def __init__(self, file: str, text: str, limits: Limits):
        self.file = file
        self.text = text
        self.limits = limits
        self.count = 0
        self.diagnostics: list[Diagnostic] = []
        self._scalars: dict[int, YScalar] = {}  # an aliased scalar is one YScalar at every use: its DSL parsed once
        self._line_starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]  # the offset of each line's start

    def _raw(self, node: yaml.Node) -> str:
        s, e = node.start_mark, node.end_mark
        try:
            a = self._line_starts[s.line] + s.column
            b = self._line_starts[e.line] + e.column
        except IndexError:
            return ""
        return self.text[a:b]

    def convert(self, node: yaml.Node, depth: int = 0) -> YNode:
        self.count += 1
        if self.count > self.limits.max_nodes:
            raise _Abort(too_many_nodes(self.file, node, self.limits.max_nodes))
        if depth > self.limits.max_depth:
            raise _Abort(
                error("E007", f"nesting deeper than {self.limits.max_depth} levels", _span(self.file, node),
                      TOO_DEEP_HINT)
            )
        if node.tag not in _STANDARD_TAGS:
            raise _Abort(
                error("E005", f"unsupported YAML tag '{node.tag}'", _span(self.file, node),
                      "rulesets are plain data: remove the tag")
            )
        if isinstance(node, yaml.ScalarNode):
            made = self._scalars.get(id(node))
            if made is None:
                made = self._scalars[id(node)] = self._scalar(node)
            return made
        if isinstance(node, yaml.SequenceNode):
            return YSeq(_span(self.file, node), [self.convert(n, depth + 1) for n in node.value])
        assert isinstance(node, yaml.MappingNode)
        out = YMap(_span(self.file, node))
        for knode, vnode in node.value:
            if knode.tag == "tag:yaml.org,2002:merge":
                raise _Abort(error("E005", "YAML merge keys ('<<') are not supported", _span(self.file, knode),
                                   "use 'extends:' for variants, or write the keys out"))
            kspan = _span(self.file, knode)
            if not isinstance(knode, yaml.ScalarNode):
                self.diagnostics.append(error("E008", "a mapping key must be a plain name", kspan))
                continue
            # keys are names: take them as written, so 'on:' or 'no:' stay text, not booleans
            k = knode.value
            if k in out.entries:
                self.diagnostics.append(
                    error("E004", f"duplicate key '{k}'", kspan,
                          f"'{k}' was already given at line {out.key_spans[k].line}; YAML keeps only the last one")
                )
                continue
            out.entries[k] = self.convert(vnode, depth + 1)
            out.key_spans[k] = kspan
        return out

    def _scalar(self, node: yaml.ScalarNode) -> YScalar:
        tag = node.tag
        raw = node.value
        if tag == "tag:yaml.org,2002:str":
            bad = _CONTROL.search(raw)
            if bad:  # written as an escape ("\e[2J"): printed, it would drive the terminal
                what = "bidirectional control" if bad.group() >= "\u2000" else "control character"
                raise _Abort(error("E003", f"the text holds the {what} U+{ord(bad.group()):04X}",
                                   _span(self.file, node), "a ruleset holds printable text: remove the escape"))
            # an unquoted 'none' means no value, as in the rules language
            value: Any = None if raw == "none" and not node.style else raw
        elif tag == "tag:yaml.org,2002:null":
            value = None
        elif tag == "tag:yaml.org,2002:bool":
            value = raw.lower() in ("true", "yes", "on")
        elif tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float"):
            try:
                value = (_CONSTRUCTOR.construct_yaml_int(node) if tag.endswith("int")
                         else float(_CONSTRUCTOR.construct_yaml_float(node)))
            except (ValueError, OverflowError):
                value = None
            if value is None or (type(value) is int and not -2**63 <= value <= 2**63):  # as the rules' own numbers
                raise _Abort(error("E012", "this number is too long", _span(self.file, node),
                                   "numbers in a ruleset are at most a few digits long"))
        else:  # pragma: no cover - the standard tags are all handled above
            value = raw
        return YScalar(_span(self.file, node), value, node.style, self._raw(node))


def read_text(path: str, limits: Limits = DEFAULT_LIMITS) -> tuple[str | None, list[Diagnostic]]:
    """Read a file as UTF-8 text, turning every way it can fail into a diagnostic."""
    if not os.path.exists(path):
        return None, [error("E001", f"no such file: {path}", None, "give a path to a ruleset file or a bundled name (rulecraft list)")]
    if os.path.isdir(path):
        return None, [error("E001", f"{path} is a folder, not a ruleset file", None)]
    try:  # looked at once open (without waiting): a FIFO put in its place after the look above waited for ever
        with os.fdopen(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)), "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode):
                return None, [error("E001", f"{path} is not a ruleset file: it is not a regular file (a FIFO or a device)", None)]
            if st.st_size > limits.max_file_bytes:
                return None, [error("E002", f"file is {st.st_size} bytes, over the limit of {limits.max_file_bytes}",
                                    Span(path, 1, 1))]
            data = fh.read(limits.max_file_bytes + 1)
        note_input(path)  # a ruleset read is never written over by this process's outputs
    except OSError as exc:
        return None, [error("E001", f"cannot read {path}: {exc.strerror or exc}", None)]
    return decode(data, path, limits)


def decode(data: bytes, path: str, limits: Limits = DEFAULT_LIMITS) -> tuple[str | None, list[Diagnostic]]:
    where = Span(path, 1, 1)
    if len(data) > limits.max_file_bytes:
        return None, [error("E002", f"input is over the limit of {limits.max_file_bytes} bytes", where)]
    if b"\x00" in data:  # binary, or text in UTF-16 or UTF-32 (Windows' "Unicode"): said as what it is
        return None, [binary_text(data, path)]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return None, [error("E003", "the file is not valid UTF-8 text", Span(path, line, col), "save the file as UTF-8")]
    return text, []


UNCLOSED_QUOTE = "YAML syntax: a quoted value is never closed"
MAX_QUOTE_REPAIRS = 8


def parse_yaml(text: str, path: str, limits: Limits = DEFAULT_LIMITS) -> tuple[YNode | None, list[Diagnostic]]:
    """Compose YAML text into a YNode tree; every failure is a diagnostic with a position.

    A quote that is never closed is reported where it opens, and the text is read on as if it
    closed at the end of that line: the tree comes back with the error, so the later passes
    still report every other problem of the file (the error keeps the ruleset from loading).
    """
    text, said = invisible_characters(text, path)
    root, diags = _parse_yaml(text, path, limits)
    for _ in range(MAX_QUOTE_REPAIRS):
        d = diags[0] if root is None and len(diags) == 1 and diags[0].span is not None else None
        if d is None or d.code != "E009":
            break
        quote = (d.span.line, d.span.col) if d.message == UNCLOSED_QUOTE else _open_quote_above(text, d.span.line)
        if quote is None:
            break
        lines = text.split("\n")
        line = lines[quote[0] - 1].rstrip("\r") if 0 < quote[0] <= len(lines) else ""
        if not 0 < quote[1] <= len(line) or line[quote[1] - 1] not in "'\"":
            break  # the place is not a quote as this text's lines count (YAML also breaks lines at NEL, U+2028)
        closed = "\n".join(lines[: quote[0] - 1] + [line + line[quote[1] - 1]] + lines[quote[0]:])
        again, more = _parse_yaml(closed, path, limits)
        later = again is not None or (len(more) == 1 and more[0].span is not None
                                      and (more[0].span.line, more[0].span.col) > (d.span.line, d.span.col))
        if not later and d.message != UNCLOSED_QUOTE:
            break  # closing it there explains nothing: the parser's own words stand
        said.append(d if d.message == UNCLOSED_QUOTE else error(
            "E009", UNCLOSED_QUOTE, Span(path, *quote),
            f"close it with {line[quote[1] - 1]} where the value ends, on this line; what follows it was read "
            f"as part of the text (the parser stopped at line {d.span.line}, column {d.span.col})"))
        text, root, diags = closed, again, more
    return root, said + diags


def _parse_yaml(text: str, path: str, limits: Limits) -> tuple[YNode | None, list[Diagnostic]]:
    if not text.strip():
        return None, [error("E010", "the file is empty", Span(path, 1, 1), "a ruleset starts with 'ruleset: NAME'")]
    if all(l.strip().startswith("#") or not l.strip() for l in text.splitlines()):
        return None, [error("E010", "the file holds only comments, no ruleset", Span(path, 1, 1),
                            "a ruleset starts with 'ruleset: NAME'")]
    try:
        too_deep = _too_deep(text, path, limits)
        if too_deep is not None:
            return None, [too_deep]
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = exc.problem or "invalid YAML"
        if "maximum nesting depth" in problem:  # PyYAML's own depth limit (6.0.3 and later) met before ours
            return None, [error("E007", f"nesting deeper than {limits.max_depth} levels", Span(path, line, col),
                                "flatten it: a sequence can 'call' another one")]
        hint = None
        if "nesting depth" in problem:  # PyYAML's own limit (recent releases) met before ours: the same mistake
            return None, [error("E007", "the YAML is nested too deeply", Span(path, line, col))]
        if "\\t" in problem or "'\\t'" in problem or _has_tab(text, line):
            problem = "a tab character where YAML needs spaces"
            hint = "indent with spaces only; tabs are not allowed in YAML indentation"
            col = _tab_col(text, line) or col
        elif "mapping values are not allowed" in problem:
            hint = "a value containing ': ' must be quoted"
            if _overindented(text, line, col):
                hint = "this line is indented more than the one above it: keys of one mapping must line up"
        elif "could not find expected ':'" in problem:
            hint = "check the indentation and that each key ends with ':'"
            cm = exc.context_mark  # a key typed without its ':' ('as take'), found out at the next line: said at it
            if exc.context == "while scanning a simple key" and cm is not None and cm.line < line - 1:
                words = (re.split("\r\n|\r|\n", text)[cm.line:] or [""])[0][cm.column:].split(" #")[0].strip()  # a CR ends a line
                line, col, problem = cm.line + 1, cm.column + 1, f"'{words[:60]}' has no ':' after its key"
                hint = (f"write '{words.replace(' ', ': ', 1) if ' ' in words else words + ': VALUE'}' (a key, ':', "
                        "a space, its value), or indent the line under the value it goes on")
        elif "unknown escape character" in problem:  # e.g. "log 'it\'s'": YAML reads the backslash first
            esc = (re.search(r'character "(.+?)"', problem) or [None, "'"])[1]
            return None, [error("E009", f"YAML syntax: \\{esc} is not an escape YAML knows in a double-quoted value "
                                "(its escapes are \\\" \\\\ \\n \\t and a few more)", Span(path, line, max(col - 1, 1)),
                                f"YAML reads the backslash first: write \\\\{esc} (YAML turns \\\\ into one "
                                f"backslash), or quote the text inside with the other quote: \"log \\\"it's\\\"\"")]
        cm = exc.context_mark
        if hint is None and exc.context and cm is not None and (cm.line + 1, cm.column + 1) != (line, col):
            where = f"line {cm.line + 1}, column {cm.column + 1}"
            if "flow sequence" in exc.context or "flow mapping" in exc.context:
                opener = "[" if "sequence" in exc.context else "{"
                hint = f"the '{opener}' at {where} is not closed, or a ',' is missing before this point"
            elif "quoted scalar" in exc.context:  # said at the quote; parse_yaml closes it there and goes on
                return None, [error("E009", UNCLOSED_QUOTE, Span(path, cm.line + 1, cm.column + 1),
                                    f"close it with {text[cm.index]} where the value ends, on this line; "
                                    f"everything after it was read as part of the text")]
            elif "block mapping" in exc.context and "expected key" in problem and re.fullmatch(
                    r" *- ", ("".join(text.split("\n")[line - 1:line]) + " ")[: col + 1]):  # a '-' in the keys' column
                hint = (f"this '-' starts a list item in the column of the keys of the mapping that starts at "
                        f"{where}: to add an item to the list above, put its '-' under that list's '-'")
            else:
                hint = _deeper_key(text, problem, exc.context, line, col, cm) or f"{exc.context} that starts at {where}"
        return None, [error("E009", f"YAML syntax: {problem}", Span(path, line, col), hint)]
    except yaml.YAMLError as exc:  # composer errors without marks
        return None, [error("E009", f"YAML syntax: {exc}", Span(path, 1, 1))]
    except RecursionError:
        return None, [error("E007", "the YAML is nested too deeply", Span(path, 1, 1))]
    if node is None:
        return None, [error("E010", "the file is empty", Span(path, 1, 1), "a ruleset starts with 'ruleset: NAME'")]
    conv = _Converter(path, text, limits)
    try:
        check_expanded_size(node, path, limits)
        root = conv.convert(node)
    except _Abort as ab:
        return None, conv.diagnostics + [ab.diagnostic]
    except RecursionError:
        return None, [error("E007", "the YAML is nested too deeply", Span(path, 1, 1))]
    return root, conv.diagnostics


def load_file(path: str, limits: Limits = DEFAULT_LIMITS) -> tuple[YNode | None, str | None, list[Diagnostic]]:
    """Read and compose one file: (tree, text, diagnostics)."""
    text, diags = read_text(path, limits)
    if text is None:
        return None, None, diags
    root, more = parse_yaml(text, path, limits)
    return root, text, diags + more
