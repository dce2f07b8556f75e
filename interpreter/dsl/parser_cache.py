"""The parser's LALR tables, made when the package is made and shipped with it: nothing is kept in a user's folder.

Building them from grammar.lark costs ~120 ms, paid by every `validate`, `play` or language-server start. They are
package data beside the grammar (`grammar.tables.json`: Lark's own tables; `grammar.fast.json`: the same tables as
`FastParser` reads them), written by `python -m rulecraft.dsl.parser` (`make tables`) and checked by
tests/test_parser_cache.py to be what the grammar gives. Each file names the SHA-256 digest of the grammar it was
made from (and Lark's tables the version of Lark that made them); a file that does not match the grammar (or the Lark
installed), or that cannot be read, is not used: the parser is built in the process. Never a per-user cache (until
issue 38: anyone who could write there changed the language) nor Lark's `cache=True` (Python objects in /tmp): security.md.

`FastParser` parses right texts without importing Lark, and hands every text it cannot parse to Lark, which says
what is wrong (see the section below).
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import TYPE_CHECKING, Any, Callable, Optional

if TYPE_CHECKING:  # imported when a parser is built or loaded: the fast parser below does without it
    from lark import Lark

TABLES = "grammar.tables.json"  # Lark's own tables (memo_serialize), for Lark._load
FAST = "grammar.fast.json"  # the same tables as FastParser reads them
START = ["expr_start", "stmts_start"]


def digest(grammar: str) -> str:
    """The SHA-256 of the grammar's text: what a table file must name to be used for it."""
    return hashlib.sha256(grammar.encode("utf-8")).hexdigest()


def lark_version() -> str:
    """The installed Lark's version, from its distribution's metadata (never a regular expression over its source)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("lark")
    except PackageNotFoundError:  # pragma: no cover - Lark imported from a folder, not installed
        import lark

        return lark.__version__


def _read(folder, name: str) -> Optional[dict]:
    """A table file of the package as JSON, or None: missing, unreadable, not JSON, not a mapping, not a plain file of
    at most 4 MB (a FIFO put in its place had every command wait for ever, a link to /dev/zero read without end)."""
    try:
        if not os.path.isfile(path := str(folder.joinpath(name))) or os.path.getsize(path) > 4_000_000:
            return None
        data = json.loads(folder.joinpath(name).read_text(encoding="utf-8"), object_hook=_untag if name == TABLES else None)
    except Exception:  # noqa: BLE001 - any failure to read it: the parser is built instead
        return None
    return data if isinstance(data, dict) else None


def build(grammar: str, transformer) -> "Lark":
    from lark import Lark

    return Lark(grammar, parser="lalr", start=START, maybe_placeholders=True, keep_all_tokens=True,
                transformer=transformer)


def load_or_build(grammar: str, folder, transformer) -> "Lark":
    """The LALR parser of the grammar: from the package's `grammar.tables.json` when it names this grammar's digest
    and the installed Lark's version, else built. `folder`: the package folder (None: always built)."""
    from lark import Lark

    data = None if folder is None else _read(folder, TABLES)
    if data is not None and data.get("grammar") == digest(grammar) and data.get("lark") == lark_version():
        try:
            return Lark.__new__(Lark)._load({"data": data["data"], "memo": data["memo"]}, transformer=transformer)
        except Exception:  # noqa: BLE001 - damaged: built afresh
            pass
    return build(grammar, transformer)


def load_fast(grammar: str, folder, transformer) -> Optional["FastParser"]:
    """The fast parser from the package's `grammar.fast.json` when it names this grammar's digest and this format;
    else None (Lark parses everything: making the fast tables in the process costs more than it saves)."""
    data = None if folder is None else _read(folder, FAST)
    if data is None or data.get("format") != FAST_FORMAT or data.get("grammar") != digest(grammar):
        return None
    try:
        if not (isinstance(data["states"], list) and all(type(st) is dict for st in data["states"])
                and isinstance(data["rules"], list) and isinstance(data["lexers"], list)):
            return None
        return FastParser(data, transformer)
    except Exception:  # noqa: BLE001 - damaged: Lark parses
        return None


def table_files(grammar: str, transformer) -> dict[str, str]:
    """{file name: JSON text} of both table files for the grammar, made with the installed Lark."""
    from lark.lark import Rule, TerminalDef

    built = build(grammar, transformer)
    data, memo = built.memo_serialize([TerminalDef, Rule])
    data["options"] = {k: v for k, v in data["options"].items() if k != "transformer"}
    tables = {"grammar": digest(grammar), "lark": lark_version(), "data": data, "memo": memo}
    fast = fast_tables(built)
    if fast is None:  # pragma: no cover - Lark's insides not as expected: Lark parses everything
        raise RuntimeError("this Lark's parser uses something FastParser does not copy")
    fast["grammar"] = digest(grammar)
    return {TABLES: json.dumps(_tag(tables), separators=(",", ":"), sort_keys=True) + "\n",
            FAST: json.dumps(fast, separators=(",", ":"), sort_keys=True) + "\n"}


def write_tables(grammar: str, transformer, folder: Optional[str] = None) -> list[str]:
    """Write both table files (package data; by default beside grammar.lark) with the installed Lark: the paths."""
    from ..files import write_output  # the one writer of every output file

    folder = folder or os.path.dirname(os.path.abspath(__file__))
    out = []
    for name, text in table_files(grammar, transformer).items():
        out.append(os.path.join(folder, name))
        write_output(out[-1], text)
    return out


def _tag(x):
    """JSON for Lark's serialized tables: tuples and dicts with number keys are tagged so they come back as such."""
    if isinstance(x, dict):
        if all(isinstance(k, str) for k in x):
            return {k: _tag(v) for k, v in x.items()}
        return {"#d": [[_tag(k), _tag(v)] for k, v in x.items()]}
    if isinstance(x, tuple):
        return {"#t": [_tag(v) for v in x]}
    if isinstance(x, list):
        return [_tag(v) for v in x]
    if x is None or isinstance(x, (str, int, float)):
        return x
    raise TypeError(f"cannot keep {type(x).__name__} in the parser cache")


def _untag(d: dict):
    if len(d) == 1:
        if "#t" in d:
            return tuple(d["#t"])
        if "#d" in d:
            return {k: v for k, v in d["#d"]}
    return d


# ------------------------------------------------------------------------------------------------ the fast parser
# Importing Lark and loading its parser cost a sixth of `rulecraft validate`. The same tables drive a small LALR loop
# of our own (`FastParser`): the same lexer states and callbacks in the same order, so the same AST. At the first
# thing it cannot match it gives up (`Unparsed`); Lark, imported then, parses the text and says what is wrong.

FAST_FORMAT = 4


class Unparsed(Exception):
    """The fast parser stopped: Lark parses the text instead (and explains the mistake)."""


class Tok(str):
    """A token as the callbacks read it: its text, its terminal and its offsets."""

    __slots__ = ("type", "start_pos", "end_pos")
    type: str
    start_pos: int
    end_pos: int


def fast_tables(built: "Lark") -> Optional[dict]:
    """What FastParser needs, read from a built Lark parser; None when it uses anything FastParser does not copy."""
    from functools import partial

    from lark.lexer import ContextualLexer, PatternStr, UnlessCallback
    from lark.parse_tree_builder import ChildFilterLALR, ChildFilterLALR_NoPlaceholders, ExpandSingleChild
    from lark.parsers.lalr_analysis import Shift
    from lark.tree import Tree

    frontend = built.parser
    lexer, parser = frontend.lexer, frontend.parser.parser
    if not isinstance(lexer, ContextualLexer) or built.options.regex or built.lexer_conf.use_bytes:
        return None
    table = parser.parse_table
    index: dict = {}  # a rule -> its number; a shift is the next state, a reduce -1 - the rule's number
    states = [{tok: arg if action is Shift else -1 - index.setdefault(arg, len(index))
               for tok, (action, arg) in table.states[st].items()} for st in range(len(table.states))]
    specs = []
    for rule in sorted(index, key=index.__getitem__):
        f = parser.callbacks[rule]
        chain: list[list] = []
        while True:
            if type(f) is ExpandSingleChild:
                chain.append(["expand1"])
            elif type(f) is ChildFilterLALR:
                chain.append(["filter", [list(x) for x in f.to_include], f.append_none])
            elif type(f) is ChildFilterLALR_NoPlaceholders:  # the same with no None to put in
                chain.append(["filter", [[i, to_expand, 0] for i, to_expand in f.to_include], 0])
            else:
                break
            f = f.node_builder
        if isinstance(f, partial) and f.func is Tree and not f.keywords:
            base = ["tree", f.args[0]]
        elif getattr(f, "__self__", None) is built.options.transformer:
            base = ["method", f.__name__]
        else:
            return None
        specs.append([rule.origin.name, len(rule.expansion), chain, base])
    lexers: list = []
    lexer_of: list = []
    seen: dict = {}
    for st in range(len(table.states)):
        basic = lexer.lexers[st]
        if id(basic) not in seen:
            seen[id(basic)] = len(lexers)
            lexers.append(_lexer_data(basic, PatternStr, UnlessCallback))
            if lexers[-1] is None:
                return None
        lexer_of.append(seen[id(basic)])
    root = _lexer_data(lexer.root_lexer, PatternStr, UnlessCallback)
    if root is None:
        return None
    return {"format": FAST_FORMAT, "states": states, "rules": specs, "lexers": lexers, "lexer_of": lexer_of,
            "root": root[0], "ignore": sorted(built.lexer_conf.ignore), "flags": built.lexer_conf.g_regex_flags,
            "terminals": {t.name: t.pattern.to_regexp() for t in built.terminals},
            "strings": {t.name: t.pattern.value for t in built.terminals if type(t.pattern) is PatternStr
                        and not t.pattern.flags},
            "start": table.start_states, "end": table.end_states}


def _lexer_data(basic, PatternStr, UnlessCallback) -> Optional[list]:
    """[terminals in the order its scanner tries them, {terminal: {text: keyword terminal}}] of one lexer state."""
    scanner = basic.scanner
    if basic.user_callbacks:
        return None
    unless = {}
    for name, cb in basic.callback.items():
        if type(cb) is not UnlessCallback:
            return None
        words = {}
        for t in cb.scanner.terminals:
            if type(t.pattern) is not PatternStr or t.pattern.flags:
                return None
            words[t.pattern.value] = t.name
        unless[name] = words
    return [[t.name for t in scanner.terminals], unless]


class _StateLexer:
    """One parser state's lexer: its terminals in the order Lark's scanner tries them (the first that matches is the
    token) and its keywords (`unless`: a NAME that spells one of them is that keyword)."""

    __slots__ = ("alts", "alt_set", "unless", "strings", "match", "missing", "exact", "_ahead")

    def __init__(self, alts: list, unless: dict, strings: dict, root: set, match):
        self.alts, self.alt_set, self.unless, self.strings, self.match = tuple(alts), frozenset(alts), unless, strings, match
        self.missing = frozenset(a for a in alts if a not in root)  # keywords the root alternation folds into NAME
        self.exact = all(a in strings for a in self.missing)
        self._ahead: dict = {}

    def token(self, text: str, pos: int, m) -> tuple:
        """(terminal, text) of the token at `pos`, given the root alternation's match there: the first of all terminals
        that matches. If it is the state's, what the state tries before it is the root's (no match) or a keyword."""
        won = None if m is None else m.lastgroup
        if won in self.alt_set and self.exact and won is not None:  # (a terminal's name, never None, once in alt_set)
            ahead = self._ahead.get(won)
            if ahead is None:
                ahead = self._ahead[won] = self._texts_before(won)
            for name in ahead.get(text[pos], ()):
                if text.startswith(self.strings[name], pos):
                    return name, self.strings[name]
            return won, m.group()
        for name in self.alts:  # Lark's own order, one terminal at a time
            s = self.strings.get(name)
            if s is not None:
                if text.startswith(s, pos):
                    return name, s
            else:
                found = self.match(name, text, pos)
                if found is not None:
                    return name, found.group()
        raise Unparsed

    def _texts_before(self, won: str) -> dict:
        out: dict = {}
        for name in self.alts[:self.alts.index(won)]:
            if name in self.missing:
                out.setdefault(self.strings[name][0], []).append(name)
        return out


class FastParser:
    """Lark's LALR parse and contextual lexer, from `fast_tables`, calling the transformer's callbacks as Lark does."""

    def __init__(self, data: dict, transformer):
        import re

        self._re, self._flags, self._patterns = re, data["flags"], data["terminals"]
        self._compiled: dict = {}
        root = data["root"]
        self._root = re.compile("|".join(f"(?P<{n}>{self._patterns[n]})" for n in root), self._flags).match
        strings = data["strings"] if not self._flags else {}
        self._lexers = [_StateLexer(alts, unless, strings, set(root), self._match) for alts, unless in data["lexers"]]
        self._lexer_of, self._states = data["lexer_of"], data["states"]
        self._ignore = frozenset(data["ignore"])
        self._start, self._end = data["start"], data["end"]
        self._rules = [(origin, size, _callback(chain, base, transformer)) for origin, size, chain, base in data["rules"]]

    def _match(self, name: str, text: str, pos: int):
        pattern = self._compiled.get(name)
        if pattern is None:
            pattern = self._compiled[name] = self._re.compile(self._patterns[name], self._flags).match
        return pattern(text, pos)

    def parse(self, text: str, start: str):
        """The start rule's value; raises Unparsed where Lark would raise (or at anything unforeseen)."""
        states, rules, lexers, lexer_of = self._states, self._rules, self._lexers, self._lexer_of
        ignore, root = self._ignore, self._root
        state_stack = [self._start[start]]
        value_stack: list = []
        end_state = self._end[start]
        pos, n = 0, len(text)
        while True:
            tok = None
            while pos < n:
                lexer = lexers[lexer_of[state_stack[-1]]]
                typ, value = lexer.token(text, pos, root(text, pos))
                if not value:
                    raise Unparsed
                end = pos + len(value)
                if typ in ignore:
                    pos = end
                    continue
                words = lexer.unless.get(typ)
                if words is not None:
                    typ = words.get(value, typ)
                tok = Tok(value)
                tok.type, tok.start_pos, tok.end_pos = typ, pos, end
                pos = end
                break
            typ = "$END" if tok is None else typ
            while True:  # Lark's feed_token: reduce until the token shifts (or the text is accepted)
                act = states[state_stack[-1]].get(typ)
                if act is None:
                    raise Unparsed
                if act >= 0:
                    if tok is None:
                        raise Unparsed
                    state_stack.append(act)
                    value_stack.append(tok)
                    break
                origin, size, callback = rules[-1 - act]
                if size:
                    children = value_stack[-size:]
                    del state_stack[-size:]
                    del value_stack[-size:]
                else:
                    children = []
                value = callback(children)
                state_stack.append(states[state_stack[-1]][origin])
                value_stack.append(value)
                if tok is None and state_stack[-1] == end_state:
                    return value_stack[-1]


def _callback(chain: list, base: list, transformer):
    """One rule's callback: the transformer's method (or a helper rule's list) inside Lark's wrappers, in order."""
    # a helper rule's children stay a list, which the rule that inlines them reads as Lark reads its Tree's
    f = getattr(transformer, base[1]) if base[0] == "method" else _children
    for wrapper in reversed(chain):  # the chain runs outermost first
        f = _WRAPPERS[wrapper[0]](f, *wrapper[1:])
    return f


def _children(children: list) -> list:
    return children


def _expand1(f):  # Lark's ExpandSingleChild
    return lambda children: children[0] if len(children) == 1 else f(children)


def _filter(f, to_include, append_none):
    """Lark's ChildFilterLALR (and its NoPlaceholders): inline helper rules, None where an optional part is missing."""
    def call(children):
        filtered = []
        for i, to_expand, add_none in to_include:
            if add_none:
                filtered += [None] * add_none
            if to_expand:
                if filtered:
                    filtered += children[i]
                else:
                    filtered = children[i]
            else:
                filtered.append(children[i])
        if append_none:
            filtered += [None] * append_none
        return f(filtered)
    return call


_WRAPPERS: dict[str, Callable[..., Any]] = {"expand1": _expand1, "filter": _filter}
