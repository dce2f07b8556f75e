"""Parse DSL strings into AST nodes; Lark never builds a tree, its parser builds the AST.

A DSL string lives inside a YAML scalar, so every position is mapped through a `Locator` (character offset in the
string -> Span in the file) when a node is built (see builder.py)."""

from __future__ import annotations

import functools
import unicodedata
from importlib.resources import files
from typing import TYPE_CHECKING, Any, Optional

from ..diagnostics import DiagnosticError, Span, error
from . import ast as A
from . import parser_cache
from .builder import AstBuilder, Locator, split_template

if TYPE_CHECKING:  # Lark is imported when a text has a mistake (or the fast parser is not there): see _parse
    from lark import Lark
    from lark.exceptions import UnexpectedInput

MAX_NESTING = 40

# Bad examples and what to say about them: a test walks this table (see tests/dsl).
SYNTAX_ERRORS: dict[str, list[str]] = {
    "unclosed bracket: a '(' or '[' has no matching ')' or ']'": ["(1 + 2", "f(a, b", "[1, 2", "count(x"],
    "the expression stops before its end: an operand is missing": ["1 +", "1 *", "a and", "x ==", "not", "a or", "x <"],
    "'=' does not compare: write '==' to test equality": ["a = 1", "c.suit = 'iron'"],
    "two values follow each other with no operator between them": ["a b", "1 2", "c.value 3", "f(a) b", "f(a b)"],
    "an 'if' expression needs an 'else' part: A if COND else B": ["a if b"],
    "a closing bracket with no opening one": ["1 + 2)", "a]"],
    "a list has no slices: draw the cards from a pile of their own, or pick with [c for c in ...]": ["x[0:7]", "x[:2]"],
}

STATEMENT_ERRORS: dict[str, list[str]] = {
    "'move' needs a destination: move CARDS to ZONE": ["move card", "move card p.hand"],
    "'draw' needs a source: draw [N] from ZONE [to ZONE] [as NAME]": ["draw card", "draw 2 deck"],
    "'roll' needs dice: roll DICE [by PLAYER] [against VALUE] [as NAME]": ["roll", "roll against 7"],
    "'set' assigns with '=': set TARGET = VALUE": ["set x", "set x == 1", "set x 1"],
    "'end' needs what to end, e.g. 'end turn' or 'end game'": ["end"],
    "'tell' needs a player and then the message: tell PLAYER TEXT (a message in parentheses right after a name "
    "reads as a call of that name)": ["tell p", "tell p ('hi')", "tell card.owner"],
    "'show' needs the cards and then who sees them: show CARDS to PLAYER": ["show card", "show p.hand to"],
    "'call' needs a sequence id: call SEQUENCE [with name: value, ...] [as NAME]": ["call", "call x with"],
    "a modifier needs a lifetime: add modifier NAME [to PLAYER] [value N] until end of KIND (or until next KIND)": [
        "add modifier x", "add modifier x to p"],
    "a statement starts with a word of the language (set, let, move, draw, roll, call, add, remove, win, end, log, "
    "...); to put a player out: add modifier out to PLAYER until end of game": ["eliminate p", "knock out p"],
    "statements are separated by ';'": ["move a to b move c to d", "set x = 1 set y = 2"],
    "to change a value write 'set TARGET = VALUE' (or 'TARGET += N')": ["x = 1", "p.score = 3", "card.mark = p"],
    "a statement does not loop: use a 'for_each:' step, or move a list at once (move [c for c in ...] to ZONE)": [],
}

KEYWORDS = {
    "and", "or", "not", "in", "is", "if", "else", "for", "true", "false", "none", "move", "to", "draw", "from", "as",
    "shuffle", "reverse", "set", "let", "roll", "against", "break", "continue", "end", "call", "with", "emit", "log",
    "win", "add", "remove", "modifier", "value", "until", "of", "create", "zone", "pass", "top", "bottom", "under",
    "by", "tally", "return", "assert",
}


@functools.lru_cache(maxsize=1)
def _grammar() -> str:
    return files(__package__).joinpath("grammar.lark").read_text(encoding="utf-8")


@functools.lru_cache(maxsize=1)
def _parser() -> "Lark":
    # The AST is built by the parser as it reduces (`transformer=`): no tree, no second walk.
    # Every token is kept so that each callback sees where its rule starts and ends; Lark's own
    # position tracking is off, as it cost about 40% of the parse.
    # Building the LALR tables costs ~120 ms per process: they ship with the package (parser_cache.py), checked
    # against the grammar's digest and Lark's version (never Lark's `cache=True`, a pickle in the shared temporary
    # folder; never a file in a user's folder).
    return parser_cache.load_or_build(_grammar(), files(__package__), _BUILD)


@functools.lru_cache(maxsize=1)
def _fast_parser() -> Optional[parser_cache.FastParser]:
    """Lark's tables driven by a loop of our own, which parses right texts to the same AST without importing Lark
    (parser_cache.py); None when the package's tables are not this grammar's: Lark parses everything."""
    return parser_cache.load_fast(_grammar(), files(__package__), _BUILD)


# The callbacks of the parser; `_parse` tells them which text they are building.
_BUILD = AstBuilder(parse_inner=lambda text, locate, offset: parse_expression(text, locate, offset))


def scan_depths(text: str):
    """(position, character, bracket depth) for each character outside quotes."""
    depth = 0
    quote = None
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        else:
            if ch in ")]}":
                depth -= 1
            yield i, ch, depth
            if ch in "([{":
                depth += 1


def _nesting(text: str) -> int:
    return max((d + 1 for _i, ch, d in scan_depths(text) if ch in "([{"), default=0)


def _too_nested(text: str) -> bool:
    # there are never more levels than opening brackets: most texts need no scan at all
    if text.count("(") + text.count("[") + text.count("{") <= MAX_NESTING:
        return False
    return _nesting(text) > MAX_NESTING


def _state_key(state) -> object:
    """The LALR state an error happened in, whatever the depth of the stack below it."""
    return getattr(state, "position", state)


def _accepts(exc: "UnexpectedInput") -> Optional[frozenset]:
    from lark.exceptions import UnexpectedToken

    if isinstance(exc, UnexpectedToken):
        try:
            return frozenset(exc.accepts)
        except Exception:  # pragma: no cover - best effort
            return None
    return None


@functools.lru_cache(maxsize=None)
def _known_errors(start: str) -> tuple:
    """(label, state, accepted terminals, token) for every example of a known mistake."""
    from lark.exceptions import UnexpectedInput

    table = dict(SYNTAX_ERRORS)
    if start == "stmts_start":
        table.update(STATEMENT_ERRORS)
    out = []
    for label, examples in table.items():
        # in statements, an expression mistake happens inside some statement: try it in one
        prefix = "let _x = " if start == "stmts_start" and label in SYNTAX_ERRORS else ""
        for example in examples:
            saved = _BUILD.begin(plain_locator(), 0)  # the callbacks run until the mistake
            try:
                _parser().parse(prefix + example, start=start)
            except UnexpectedInput as ut:
                out.append((label, _state_key(ut.state), _accepts(ut), getattr(ut, "token", None)))
            finally:
                _BUILD.restore(saved)
    return tuple(out)


def _match_known(exc: "UnexpectedInput", start: str) -> Optional[str]:
    """The label of the known mistake that failed in the same parser state as `exc`.

    Like Lark's `match_examples`, but states are compared without the stack depth (so a
    mistake in the second statement of a string matches an example of a first one), and it
    does not trip over Lark 1.3's debug message, which raised TypeError for some inputs.
    """
    key, acc = _state_key(exc.state), _accepts(exc)
    token = getattr(exc, "token", None)
    candidate = None
    for label, k, a, tok in _known_errors(start):
        if k != key or (acc is not None and a is not None and a != acc):
            continue
        if token is not None and tok is not None and (token.type == "$END") != (tok.type == "$END"):
            continue  # a text that stops early and one that goes on wrongly are different mistakes
        if token is not None and tok is not None and tok == token:
            return label
        if candidate is None:
            candidate = label
    return candidate


_OPENERS, _CLOSERS = {"(": ")", "[": "]"}, {")": "(", "]": "["}
_STATEMENT_WORDS = {
    "move", "draw", "shuffle", "reverse", "set", "let", "roll", "break", "continue", "end", "call", "emit", "log",
    "win", "add", "remove", "create", "pass", "tally", "return", "assert",
}


def _unclosed_bracket(text: str) -> Optional[int]:
    """The offset of the innermost '(' or '[' that is never closed, or None (strings are skipped)."""
    stack: list[int] = []
    quote = None
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in _OPENERS:
            stack.append(i)
        elif ch in _CLOSERS:
            if not stack:
                return None  # a closer with no opener: let the parser explain
            if text[stack[-1]] != _CLOSERS[ch]:
                return stack[-1]  # e.g. '[' closed by ')': the '[' is the one left open
            stack.pop()
        i += 1
    return stack[-1] if stack else None


def _explain(exc: "UnexpectedInput", text: str, start: str) -> tuple[str, Optional[str], Optional[tuple[int, int]]]:
    """A message, a hint and (when it is not where the parser stopped) the offsets of the mistake."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    try:
        label = _match_known(exc, start)
    except Exception:  # pragma: no cover - matching is best effort
        label = None
    if isinstance(exc, UnexpectedCharacters):
        at = exc.pos_in_stream or 0
        ch = text[at] if at < len(text) else ""
        if ch in "'\"":
            return "a string is never closed", f"add the closing {ch} on the same line", None
        if ch == "=" and text[at:at + 2] != "==":
            return "'=' does not compare: write '==' to test equality", None, None
        if not ch.isascii():  # a letter of another script looks like an ASCII one: name it
            return (f"unexpected character {ch!r} (U+{ord(ch):04X} {unicodedata.name(ch, 'unnamed')})",
                    "names and operators are written in ASCII (letters a-z, digits, _): type it again", None)
        return (f"unexpected character {ch!r}",
                "the rules language uses letters, digits, _ and operators such as + - == and or", None)
    opener = _unclosed_bracket(text)
    if isinstance(exc, UnexpectedToken) and opener is not None and (
            exc.token.type == "$END" or exc.token.start_pos > opener):
        closer = _OPENERS[text[opener]]
        unclosed = next(k for k in SYNTAX_ERRORS if k.startswith("unclosed bracket"))
        return unclosed, f"this '{text[opener]}' needs a matching '{closer}'", (opener, opener + 1)
    if (start == "stmts_start" and isinstance(exc, UnexpectedToken) and exc.token.type != "NAME"
            and str(exc.token) in _STATEMENT_WORDS and "SEMICOLON" in (_accepts(exc) or ())):
        return "statements are separated by ';'", f"put a ';' before '{exc.token}'", None
    if start == "stmts_start" and isinstance(exc, UnexpectedToken):
        # a statement missing its keyword ('move X Y' without 'to'), however X is written
        at = exc.token.start_pos if exc.token.type != "$END" and exc.token.start_pos is not None else len(text)
        words = text[text.rfind(";", 0, at) + 1:at].split()
        needed = {"move": "TO", "draw": "FROM"}.get(words[0] if words else "")
        if needed and needed in (_accepts(exc) or ()):
            return next(k for k in STATEMENT_ERRORS if k.startswith(f"'{words[0]}'")), None, None
        if words[:1] == ["for"]:  # a loop written as a statement ('for p in players: ...')
            return next(k for k in STATEMENT_ERRORS if k.startswith("a statement does not loop")), None, None
    if (isinstance(exc, UnexpectedToken) and exc.token.type in ("NAME", "INT", "DECIMAL", "STRING", "TRUE", "FALSE", "NONE")
            and {"ADDOP", "MULOP", "AND", "OR"} & (_accepts(exc) or set())):
        return next(k for k in SYNTAX_ERRORS if k.startswith("two values")), None, None
    if label:
        return label, None, None
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        expected = sorted(_pretty(t) for t in (exc.accepts or exc.expected))
        what = "the end of the text" if tok.type == "$END" else f"'{tok}'"
        if tok.type == "NAME" and str(tok) in KEYWORDS:
            what = f"the keyword '{tok}'"
        shown = ", ".join(expected[:8]) + (", ..." if len(expected) > 8 else "")
        if tok.type == "$END":
            return "the text stops too early", f"expected one of: {shown}", None
        return f"unexpected {what}", f"expected one of: {shown}", None
    if isinstance(exc, UnexpectedEOF):
        return "the text stops too early", None, None
    return "syntax error", None, None


_PRETTY = {
    "NAME": "a name", "INT": "a number", "DECIMAL": "a number", "STRING": "a string", "DICE": "dice like 2d6",
    "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "COMMA": "','", "DOT": "'.'", "COLON": "':'",
    "SEMICOLON": "';'", "EQUAL": "'='", "COMPOP": "a comparison", "ADDOP": "'+' or '-'", "MULOP": "'*', '/' or '%'",
    "AUGOP": "'+=' or '-='", "MINUS": "'-'", "$END": "the end",
}


def _pretty(terminal: str) -> str:
    if terminal in _PRETTY:
        return _PRETTY[terminal]
    if terminal.startswith("__"):  # an anonymous literal such as '..': show the text itself
        for t in _parser().terminals:
            if t.name == terminal and t.pattern.type == "str":
                return f"'{t.pattern.value}'"
    return f"'{terminal.lower()}'"


def _error_pos(exc: "UnexpectedInput", text: str) -> tuple[int, int]:
    from lark.exceptions import UnexpectedCharacters, UnexpectedToken

    if isinstance(exc, UnexpectedToken) and exc.token.type != "$END":
        start = exc.token.start_pos or 0  # (Lark's lexer gives every token it makes a position)
        return start, exc.token.end_pos or start + 1
    if isinstance(exc, UnexpectedCharacters):
        return exc.pos_in_stream or 0, (exc.pos_in_stream or 0) + 1
    try:  # the text stops too early: point at its last token (e.g. the '==' that lacks an operand)
        last = None
        for token in _parser().lex(text):
            last = token
        if last is not None and last.start_pos is not None and last.end_pos is not None:
            return last.start_pos, last.end_pos
    except Exception:  # pragma: no cover - fall back to the last character
        pass
    end = len(text.rstrip())
    return max(0, end - 1), max(1, end)


def _parse(text: str, locate: Locator, offset: int, start: str):
    if _too_nested(text):
        raise DiagnosticError(
            error("E104", f"brackets nested deeper than {MAX_NESTING} levels", locate(offset, offset + len(text)),
                  "split the expression with 'let' statements")
        )
    syntax = None
    fast = _fast_parser()
    saved = _BUILD.begin(locate, offset)
    try:
        try:
            if fast is None:
                raise parser_cache.Unparsed
            value, _start, _end, depth = fast.parse(text, start)
        except parser_cache.Unparsed:  # a mistake somewhere (or no fast parser): Lark parses, and explains it
            from lark.exceptions import UnexpectedInput

            _BUILD.begin(locate, offset)  # the callbacks run again from the start
            try:
                parsed: Any = _parser().parse(text, start=start)  # a Built tuple: the callbacks make no Tree
                value, _start, _end, depth = parsed
            except UnexpectedInput as exc:
                syntax = exc
        problem = _BUILD.problem
    finally:
        _BUILD.restore(saved)
    if syntax is not None:
        message, hint, where = _explain(syntax, text, start)
        a, b = where or _error_pos(syntax, text)
        raise DiagnosticError(error("E101", f"syntax: {message}", locate(offset + a, offset + b), hint)) from None
    if depth > _SHALLOW and not _fits_in_stack(_FRAMES_PER_LEVEL * depth + _FRAMES_AT_LEAF):
        raise DiagnosticError(
            error("E104", "the expression is nested too deeply", locate(offset, offset + len(text)),
                  "split the expression with 'let' statements")
        )
    if problem is not None:
        raise problem
    return value


# Later passes walk the AST recursively (the compiler, the checks, the interpreter's closures). The tree used to be
# turned into AST nodes by a recursive walk right after the parse, and a tree too deep for Python's stack came out as
# E104 there. The parser now builds the AST without recursion, so the same limit is kept by trying as many nested calls
# as that walk made: two frames per level of the parse, and a few more for the node at the bottom.
_FRAMES_PER_LEVEL = 2
_FRAMES_AT_LEAF = 10
_SHALLOW = 50  # a shallower tree fits unless the stack is already nearly full


def _fits_in_stack(frames: int) -> bool:
    """Whether `frames` more nested calls fit under Python's recursion limit, from here."""
    try:
        _descend(frames)
    except RecursionError:
        return False
    return True


def _descend(frames: int) -> None:
    if frames > 1:
        _descend(frames - 1)


def parse_expression(text: str, locate: Locator, offset: int = 0) -> A.Expr:
    """Parse one expression; raises DiagnosticError with the file position of the mistake."""
    return _parse(text, locate, offset, "expr_start")


def parse_template(text: str, locate: Locator, offset: int = 0) -> A.Str:
    """Parse text with {expressions} in it (a prompt): the text is taken as written, no escapes."""
    parts = split_template('"' + text + '"', offset - 1, locate, parse_expression, escapes=False)
    return A.Str(locate(offset, offset + max(1, len(text))), parts)


def parse_statements(text: str, locate: Locator, offset: int = 0) -> tuple[A.Stmt, ...]:
    """Parse one or more statements separated by ';'."""
    return _parse(text, locate, offset, "stmts_start")


def plain_locator(file: str = "<dsl>", line: int = 1, col: int = 1) -> Locator:
    """Positions for a DSL string that starts at (line, col) and has no line breaks."""

    def locate(a: int, b: int) -> Span:
        return Span(file, line, col + a, line, col + max(b, a + 1))

    return locate


if __name__ == "__main__":  # `python -m rulecraft.dsl.parser [FOLDER]` (`make tables`): write the tables shipped
    import sys

    for written in parser_cache.write_tables(_grammar(), _BUILD, sys.argv[1] if len(sys.argv) > 1 else None):
        print(f"wrote {written}")
