"""The `{NAME}` values a printed text may embed (a step's label, a table's text cell, the aid's texts), and how long
such a text grows once they are filled in.

A name in braces is a parameter or an option (its value), a dice id (`2d6`), or a table value `{TABLE.KEY.COLUMN}`
(`{TABLE.KEY}` for a table of one column); `{{` and `}}` print one brace. `tools/words/labels.py` fills them for
players; the loader bounds what filling can make (`expanded_size`, E013): a 200,000-character cell named 20,000 times
in one label was 4 GB of text for `book`, `render` and `aid` (issue 38).
"""

from __future__ import annotations

import re
from typing import Any, Optional

FIELD = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")
MAX_ADDED = 10_000  # characters the filled-in values may add to one printed text
MAX_ADDED_IN_ALL = 1_000_000  # ... and to all the texts of a ruleset together
_NESTED = 3  # a cell's own {NAME} values are counted this deep
ONE = "\0"  # put before a value filled in as 1, so the noun after it is said in the singular, then taken out
_AFTER_ONE = re.compile(r"\x001 ((?:[A-Z]\w* )?)(?!(?:was|has|does|goes|is|its|this|thus|plus|yes|as|us)\b)(\w+[^\Ws])s\b")


def singular_after_one(text: str) -> str:
    """A filled-in text with the noun right after a value filled in as 1 in the singular ('{n} Spare Cards' with
    n = 1: '1 Spare Card'; a card's 'Worth {points} points' with points 1: 'Worth 1 point'), the marks (ONE) taken
    out. Every text a template fills for players goes through it: a step's label (tools/words/labels.py) and a card's
    text (the loader fills it per card)."""
    return _AFTER_ONE.sub(r"1 \1\2", text).replace(ONE, "")


def lookup(rs, name: str) -> Optional[Any]:
    """The value a template name stands for, or None when the ruleset has no such name."""
    name = name.strip()
    if name in rs.parameters:
        return rs.parameters[name].value
    if name in rs.options:
        return rs.options[name].value
    if name in rs.dice:
        d = rs.dice[name]
        return f"{d.count}d{d.sides}"
    parts = name.split(".")
    if len(parts) in (2, 3) and parts[0] in rs.tables:
        t = rs.tables[parts[0]]
        key = next((k for k in t.keys if str(k) == parts[1]), None)
        if key is None or key not in t.rows:
            return None
        row = t.rows[key]
        if len(parts) == 3:
            return row.get(parts[2]) if parts[2] in row else None
        return next(iter(row.values())) if len(row) == 1 else None
    return None


def expanded_size(rs, text: str, memo: Optional[dict] = None, depth: int = 0) -> int:
    """How many characters `text` can print once its {NAME} values are filled in (an upper bound, in bounded work:
    each name's size is worked out once)."""
    if "{" not in text:
        return len(text)
    memo = {} if memo is None else memo
    size = len(text)
    for m in FIELD.finditer(text):
        name = m.group(1)
        if name is None:
            continue
        if name not in memo:
            memo[name] = 0  # (a cell that names itself counts once)
            memo[name] = _value_size(rs, lookup(rs, name), memo, depth)
        size += memo[name]
    return size


def _value_size(rs, v: Any, memo: dict, depth: int) -> int:
    if v is None:
        return 0
    if isinstance(v, str):
        return expanded_size(rs, v, memo, depth + 1) if depth < _NESTED else len(v)
    if isinstance(v, (list, tuple, set, frozenset)):
        return sum(_value_size(rs, x, memo, depth) + 2 for x in v)
    if isinstance(v, dict):
        return sum(len(str(k)) + _value_size(rs, x, memo, depth) + 4 for k, x in v.items())
    return len(str(v)) + 8


def largest_value(rs) -> int:
    """The most characters one {NAME} can fill in (any parameter, option, dice or table value)."""
    memo: dict = {}
    values = [p.value for p in rs.parameters.values()] + [o.value for o in rs.options.values()]
    values += [c for t in rs.tables.values() for row in t.rows.values() for c in row.values()]
    return max([_value_size(rs, v, memo, 0) for v in values] + [8])
