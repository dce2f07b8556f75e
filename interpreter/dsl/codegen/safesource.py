"""The check run on every generated Python source just before it is compiled (codegen.py and runtime/machine/blocks.py).

Generated code never holds ruleset text: names and values go through the function's namespace under names the
writer makes (_k0, _v1, ...). This check proves it for each source before `compile`, in production and not
only in tests: the source may hold no text literal, no comment, no backslash, no number but a plain whole number
(positions, where the writer allows them), and no name but Python's keywords, the writer's own names and the
names its patterns make. It costs some microseconds against the 0.15-2 ms of making a function (issue 14).
"""

from __future__ import annotations

import keyword
import re

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FORBIDDEN = re.compile(r"""['"\\#@`$?]""")  # texts, comments, line joins, decorators; nothing Python needs here
_DIGIT = re.compile(r"[0-9]")
_NUMBER_OK = re.compile(r"(?<![0-9.])[0-9]+(?![0-9.])")  # a plain whole number, nothing around it
_KEYWORDS = frozenset(keyword.kwlist)


class UnsafeSource(Exception):
    """The generated source holds something its writer never writes: it is not compiled."""


def check(src: str, names: frozenset, made: re.Pattern, numbers: bool = False) -> None:
    """Raise UnsafeSource unless `src` is made only of Python syntax, keywords, `names`, names that `made`
    matches in full and (when `numbers`) plain whole numbers."""
    bad = _FORBIDDEN.search(src)
    if bad is not None:
        raise UnsafeSource(f"a character the writer never writes: {bad.group()!r}")
    for name in set(_NAME.findall(src)):
        if name in names or name in _KEYWORDS or made.fullmatch(name):
            continue
        raise UnsafeSource(f"a name the writer never writes: {name}")
    rest = _NAME.sub(" ", src)  # digits inside names are gone; what is left are numbers
    if _DIGIT.search(rest) is not None:
        if not numbers:
            raise UnsafeSource("a number in the source")
        if _DIGIT.search(_NUMBER_OK.sub(" ", rest)) is not None:
            raise UnsafeSource("a number that is not a plain whole number")
