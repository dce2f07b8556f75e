"""Values as written: a table cell (as written, or an expression worked out when the ruleset loads), and a
parameter's value (its default as YAML read it, a `--set` value turned into the default's kind)."""

from __future__ import annotations

import math
from typing import Any

from ..diagnostics import RuleError
from ..dsl.closures.compiler import Compiler
from ..dsl.scope import LoadTimeContext, Scope
from .yaml_source import YScalar


def columns_word(cols: list) -> str:
    return ("the column " if len(cols) == 1 else "the columns ") + ", ".join(f"'{c}'" for c in cols)


class CellValues:
    """The value of a table cell: as written, or, for text starting with '=', the expression after it worked out
    once while the ruleset loads (it may use parameters, options and plain values, e.g. '=coup_cost')."""

    def __init__(self, builder, consts: dict):
        self.b = builder
        self.scope = Scope(dict(consts), set(), set(), set(), set(), set(), {}, {})

    def value(self, node, plain: Any) -> Any:
        if not (isinstance(node, YScalar) and isinstance(node.value, str) and node.value.startswith("=")):
            return plain
        before = len(self.b.diags)
        expr = self.b.text.expr(node, Compiler(self.scope, self.b.diags), skip=1)
        if expr is None or len(self.b.diags) > before:  # reported: a cell may use parameters, options, plain values
            return None
        try:
            return expr.fn(LoadTimeContext())
        except RuleError as exc:
            self.b.diags.append(exc.diagnostic())
            return None


def family_keys(builder, per) -> tuple[tuple, dict]:
    """The keys of a variable declared `per:` a family, and the titles players know them by: a list of keys; a
    mapping of each key to its title; or the id of a table (its keys, titled by its `title` column) or of a zone
    family declared `per:` a list of keys. Reported (E204) when it is none of those."""
    from .yaml_source import YMap, YSeq

    if isinstance(per, YSeq):
        return tuple(per.plain()), {}
    if isinstance(per, YMap):
        return tuple(per.entries), {k: str(v) for k, v in per.plain().items() if v not in (None, "")}
    name = per.plain() if isinstance(per, YScalar) else None
    table = builder.section("tables").get(name) if isinstance(name, str) else None
    if isinstance(table, YMap):
        keys, columns = tuple(table.plain().get("keys") or ()), list(table.plain().get("columns") or ())
        rows = table.plain().get("rows") or {}
        titles = {}
        if "title" in columns:
            for k in keys:
                row = rows.get(k)
                title = row.get("title") if isinstance(row, dict) else (
                    row[columns.index("title")] if isinstance(row, list) and len(row) == len(columns) else None)
                if isinstance(title, str) and title:
                    titles[k] = title
        return keys, titles
    zone = builder.section("zones").get(name) if isinstance(name, str) else None
    if isinstance(zone, YMap) and isinstance(zone.get("per"), (YSeq, YMap)):  # (a mapping: its keys' titles)
        return family_keys(builder, zone.get("per"))
    builder.err("E204", f"'per:' of a variable is a list of keys, a mapping of keys to their titles, or the id of a "
                f"table or a zone family, not '{name}'", per.span,
                "e.g. per: {red: Red, blue: Blue}, or per: artists (a table whose title column names each key)")
    return (), {}


def shown_value(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def number_hint(value: Any) -> str:
    """What to write for a text YAML read where a number was meant: YAML 1.1 reads `1e3` (no dot, no sign in the
    exponent) and `0o17` as text, though Python and JSON read them as numbers."""
    try:
        meant = float(value) if isinstance(value, str) and len(value) <= 40 else None
    except ValueError:
        meant = None
    if meant is not None and math.isfinite(meant):
        shown = int(meant) if meant.is_integer() and abs(meant) < 2**63 else meant
        return f"YAML reads {value} as text: write the number as {shown}"
    return "give a number as the default, or leave out min and max for a text"


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def finite(value: Any) -> bool:
    """A number that is not infinity or NaN; a whole number always is (`math.isfinite` of one past a float's range,
    400 digits given to --set, raised OverflowError: exit 3, session 20's second round)."""
    return is_number(value) and (isinstance(value, int) or math.isfinite(value))


def same_kind(value: Any, default: Any) -> bool:
    """A --set value of the default's kind: a finite number for a number, true/false for a flag."""
    if isinstance(default, bool):
        return isinstance(value, bool)
    if is_number(default):
        return (finite(value) and abs(value) < 2 ** 63
                and (isinstance(value, int) or isinstance(default, float)))
    return True


def kind_words(default: Any) -> str:
    if isinstance(default, bool):
        return "true or false (also yes/no, on/off, 1/0)"
    return "a whole number" if isinstance(default, int) else "a finite number"


def coerce(value: Any, like: Any) -> Any:
    """A --set value given as text, turned into the type of the default."""
    if not isinstance(value, str):
        return value
    if isinstance(like, bool):
        word = value.lower()
        return True if word in ("1", "true", "yes", "on") else False if word in ("0", "false", "no", "off") else value
    if isinstance(like, int):
        try:
            return int(value)
        except ValueError:
            return value
    if isinstance(like, float):
        try:
            return float(value)
        except ValueError:
            return value
    if like is None and value.lower() == "none":
        return None
    return value

