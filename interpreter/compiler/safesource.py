"""The check run on every generated Python source just before it is compiled (expressions.py and steps.py), and
the one rewrite of its lines made before (`joined_tries`).

Generated code never holds ruleset text: names and values go through the function's namespace under names the
writer makes (_k0, _v1, ...). This check proves it for each source before `compile`, in production and not
only in tests: the source may hold no text literal, no comment, no backslash, no number but a plain whole number
(positions, where the writer allows them), and no name but Python's keywords, the writer's own names and the
names its patterns make. One scan of the source: a few percent of compiling it (issue 14, 27).
"""

from __future__ import annotations

import keyword
import re

# names, numbers and the dots between them: every other (ASCII) character becomes a space, then the runs left are
# split apart, both in C (a regular expression's findall took about twice as long)
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.")
_APART = str.maketrans({chr(i): " " for i in range(128) if chr(i) not in _NAME_CHARS})
_FORBIDDEN = "'\"\\#@`$?"  # texts, comments, line joins, decorators; nothing Python needs here
_KEYWORDS = frozenset(keyword.kwlist)


class UnsafeSource(Exception):
    """The generated source holds something its writer never writes: it is not compiled."""


def check(src: str, names: frozenset, made: re.Pattern, numbers: bool = False) -> None:
    """Raise UnsafeSource unless `src` is made only of ASCII Python syntax, keywords, `names`, names that `made`
    matches in full and (when `numbers`) plain whole numbers.

    One scan of the source (a block's function is tens of kilobytes): each distinct run of name characters,
    digits and dots is taken apart at its dots; every part must be a known name, and a number must stand alone
    (`12`, never `1.5`, `1e5`, `0x10` or `1_000`). A source passed once is not scanned again (an expression's is
    checked when written and again when compiled)."""
    key = (src, names, made, numbers)
    if key in _PASSED:
        return
    _scan(src, names, made, numbers)
    if len(_PASSED) >= _COMPILED_MAX:
        _PASSED.clear()
    _PASSED.add(key)


def _scan(src: str, names: frozenset, made: re.Pattern, numbers: bool) -> None:
    if not src.isascii():
        raise UnsafeSource("a character the writer never writes (not ASCII)")
    for c in _FORBIDDEN:
        if c in src:
            raise UnsafeSource(f"a character the writer never writes: {c!r}")
    tokens = set(src.translate(_APART).split())
    tokens.difference_update(names)  # (a known name or keyword needs no more look: taken out at once, in C)
    tokens.difference_update(_KEYWORDS)
    for token in tokens:
        if token.isdigit():
            if not numbers:
                raise UnsafeSource("a number in the source")
            continue
        for part in token.split("."):
            if not part or part in names or part in _KEYWORDS:
                continue
            if part[0].isdigit():
                raise UnsafeSource("a number that is not a plain whole number" if numbers else "a number in the source")
            if not made.fullmatch(part):
                raise UnsafeSource(f"a name the writer never writes: {part}")


# Sources already checked and compiled, by source: the same shape made again (the same expression written at two
# places of a ruleset, a stretch of steps whose expressions are alike: a third of the sources a dml game makes after
# its warm-up) is neither checked nor compiled again. Its names live in the namespace it is run in, so one code
# object serves every function of that source. Emptied when full: a long-lived process (an editor) loads many.
_COMPILED: dict = {}
_COMPILED_MAX = 4096
_PASSED: set = set()  # the sources `check` passed (emptied when full, as _COMPILED)


def compiled(src: str, names: frozenset, made: re.Pattern, filename: str, numbers: bool = False):
    """The code object of `src` once `check` passed it (raises UnsafeSource as `check` does); `filename` names a
    source compiled now (a source made before keeps the name it was first compiled under)."""
    key = (src, names, made, numbers)
    code = _COMPILED.get(key)
    if code is None:
        check(src, names, made, numbers)
        code = compile(_joined(src), filename, "exec")
        if len(_COMPILED) >= _COMPILED_MAX:
            _COMPILED.clear()
        _COMPILED[key] = code
    return code


_COMPOUND = ("if ", "elif ", "else:", "while ", "for ", "try:", "except", "finally:", "def ", "with ", "class ")


def joined_tries(lines: list[str], rewrite: bool = False) -> list[int]:
    """The indexes of the lines `try:` whose block is one simple statement; with `rewrite`, each gets that statement on
    its own line, `try: X = _L[K]`, and the line it leaves is left blank (in place). Python runs a NOP for a `try:` on
    a line of its own, each time it is reached (a tenth of the bytecodes of a turn of an auction's loop), and none
    for one on the line of its statement. No other line moves, so a table by line number (positions.place) still
    holds once the statement's entry is copied to its new line (steps.py)."""
    joined = []
    for i in range(len(lines) - 2):
        line = lines[i]
        if not line.endswith("try:"):  # (before lstrip, which copies the line)
            continue
        code = line.lstrip()
        if code != "try:":
            continue
        pad = len(line) - len(code)
        body, after = lines[i + 1], lines[i + 2]
        stmt = body.lstrip()
        if len(body) - len(stmt) <= pad or stmt.startswith(_COMPOUND) or "\n" in body \
                or len(after) - len(after.lstrip()) != pad or not after.lstrip().startswith(("except", "finally:")):
            continue
        if rewrite:
            lines[i] = f"{line} {stmt}"
            lines[i + 1] = ""
        joined.append(i)
    return joined


def _joined(src: str) -> str:
    """`src` as compiled: its one-statement `try:` blocks on one line (joined_tries)."""
    if "try:" not in src:
        return src
    lines = src.split("\n")
    return "\n".join(lines) if joined_tries(lines, rewrite=True) else src
