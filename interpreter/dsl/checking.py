"""What is wrong with an expression, decided from names and coarse types at load time.

Each check returns the problems it finds as `Problem` values (code, message, span, hint); the compiler
reports them and compiles a failing node for each, so a ruleset gets every diagnostic in one pass and the
checks can be read (and extended) apart from what runs."""

from __future__ import annotations

import re
from typing import Any, NamedTuple, Optional

from ..diagnostics import Span, did_you_mean
from ..values import CARD_FIELDS, PLAYER_FIELDS, ROLL_FIELDS, ZONE_FIELDS
from . import ast as A
from .scope import FunctionDef, Scope, Symbol, kind_word


class Problem(NamedTuple):
    code: str
    message: str
    span: Span
    hint: Optional[str] = None


_NOT_VALUES = {
    "sequence": "run it with 'call {name}'",
    "modifier": "read it with modifier('{name}', p)",
    "event": "raise it with 'emit {name}'",
    "dice": "roll it with 'roll {name} as r'",
}


def name_problem(name: str, sym: Optional[Symbol], scope: Scope, span: Span) -> Optional[Problem]:
    """A name that is unknown, or that names something that is not a value here."""
    if sym is None:
        return Problem("E301", f"unknown name '{name}'", span, did_you_mean(name, scope.visible_names))
    if sym.kind == "player_zone":
        return Problem("E306", f"'{name}' is one zone per player, so it needs a player", span,
                       f"say whose it is, e.g. p.{name}")
    if sym.kind in _NOT_VALUES:
        return Problem("E306", f"'{name}' is a {sym.kind}, not a value", span,
                       _NOT_VALUES[sym.kind].format(name=name))
    return None


def attributes_of(obj_type: str, scope: Scope) -> Optional[set]:
    """The attributes a value of a known coarse type has (None when the type says nothing)."""
    return {
        "player": scope.player_vars | scope.player_zones | set(PLAYER_FIELDS),
        "card": scope.card_attrs | set(scope.marks) | set(CARD_FIELDS),
        "zone": set(ZONE_FIELDS),
        "roll": set(ROLL_FIELDS),
        "row": scope.table_columns,
    }.get(obj_type)


def attribute_problem(name: str, obj_type: str, scope: Scope, span: Span) -> Optional[Problem]:
    """An attribute nothing has, or one that values of the known type do not have."""
    if name not in scope.all_attributes():
        return Problem("E305", f"unknown attribute '{name}'", span, did_you_mean(name, scope.all_attributes()))
    allowed = attributes_of(obj_type, scope)
    if allowed is not None and name not in allowed:
        shown = sorted(allowed)
        listed = ", ".join(shown[:12]) + (", ..." if len(shown) > 12 else "")
        return Problem("E303", f"a {obj_type} has no attribute '{name}'", span,
                       did_you_mean(name, allowed) or f"a {obj_type} has: {listed}")
    return None


def builtin_call_problem(n: A.Call, b: Any) -> Optional[Problem]:
    """A call of a built-in with the wrong number of arguments or an argument name it does not take."""
    nargs = len(n.args)
    if nargs < b.min_args or (b.max_args >= 0 and nargs > b.max_args):
        want = str(b.min_args) if b.min_args == b.max_args else (
            f"{b.min_args} or more" if b.max_args < 0 else f"{b.min_args} to {b.max_args}")
        return Problem("E304", f"{n.func}() takes {want} argument{'s' if want != '1' else ''}, given {nargs}", n.span,
                       f"e.g. {b.example}")
    for kw in n.kwargs:
        if kw.name not in b.kwargs and "*" not in b.kwargs:
            hint = (f"it accepts: {', '.join(b.kwargs)}" if b.kwargs else f"{n.func}() takes no named arguments")
            return Problem("E304", f"{n.func}() has no argument named '{kw.name}'", kw.span, hint)
    return None


def modifier_problem(n: A.Call, scope: Scope) -> Optional[Problem]:
    """modifier('name', p) naming a modifier the ruleset does not declare."""
    if n.func != "modifier" or not n.args or not isinstance(n.args[0], A.Str) or not n.args[0].is_plain:
        return None
    mname = "".join(n.args[0].parts)  # type: ignore[arg-type]
    sym = scope.symbols.get(mname)
    if sym is not None and sym.kind == "modifier":
        return None
    mods = [k for k, s in scope.symbols.items() if s.kind == "modifier"]
    return Problem("E301", f"unknown modifier '{mname}'", n.args[0].span, did_you_mean(mname, mods))


def user_call_problems(n: A.Call, fd: FunctionDef) -> tuple[list[Problem], bool]:
    """The problems of a call of a ruleset function, and whether the call cannot be compiled at all."""
    out = []
    if n.kwargs:
        out.append(Problem("E304", f"{fd.name}() takes its arguments in order, not by name", n.kwargs[0].span))
    if len(n.args) != len(fd.params):
        out.append(Problem("E304", f"{fd.name}() takes {len(fd.params)} argument{'s' if len(fd.params) != 1 else ''}"
                                   f" ({', '.join(fd.params)}), given {len(n.args)}", n.span))
        return out, True
    return out, False


def want_number(t: str, span: Span) -> list[Problem]:
    if t not in ("number", "any"):
        return [Problem("E303", f"expected a number here, this is a {t}", span,
                        "a table row holds its columns: read one, e.g. ROW.COLUMN" if t == "row" else None)]
    return []


def ordered_problem(op: str, t: str, span: Span) -> list[Problem]:
    """An ordering comparison ('<', '>=', ...) of something that has no order."""
    if t in ("player", "zone", "bool", "list", "row", "roll"):
        return [Problem("E303", f"'{op}' compares numbers, this is a {t}", span, _ORDER_HINTS.get(t))]
    return []


_ORDER_HINTS = {"player": "players have no order: compare their seats (q.seat < p.seat) or a number they hold",
             "zone": "compare how many cards they hold: z.size", "list": "compare their sizes: count(x)",
             "roll": "compare the total: r.total"}


def class_problem(n: A.IsClass, t: str, scope: Scope) -> list[Problem]:
    """'x is CLASS' with a class no card has, or with something that is not a card."""
    out = []
    if n.cls not in scope.card_classes:
        out.append(Problem("E307", f"no card has the class '{n.cls}'", n.cls_span,
                           did_you_mean(n.cls, scope.card_classes) or _is_hint(n, scope)))
    if t not in ("card", "any", "none"):
        out.append(Problem("E303", f"'is' tests the class of a card, this is a {t}", n.obj.span))
    return out


def _is_hint(n: A.IsClass, scope: Scope) -> str:
    """Why a name after 'is' is no class: 'is' takes a class name as written, never a value or an attribute."""
    obj = n.obj.id if isinstance(n.obj, A.Name) else "c"
    sym = scope.symbols.get(n.cls)
    what = ("a value here (a parameter or a local name)" if n.cls in scope.locals
            else kind_word(sym) if sym is not None and sym.kind in ("var", "const") else None)
    if what is not None:
        return (f"'is' takes a class name as written; '{n.cls}' is {what}: to test the class it holds, "
                f"write {n.cls} in {obj}.classes")
    if n.cls in scope.card_attrs or n.cls in scope.marks:
        return f"'{n.cls}' is an attribute of cards, not a class: compare it, e.g. {obj}.{n.cls} == VALUE"
    return "classes are listed under each card group's 'classes'"


# ------------------------------------------------------------------ values that are always true
_ALWAYS_TRUE_HINTS = {
    "zone": "test whether it holds cards: not empty(ZONE), or count(ZONE) > 0",
    "family": "give it a key, and test whether that zone holds cards: not empty(FAMILY[KEY])",
    "table": "read a row and a column: TABLE[KEY].COLUMN",
    "row": "read one of its columns: ROW.COLUMN",
}


def truth_problems(node: A.Expr, scope: Scope) -> list[Problem]:
    """A zone, a family, a table or a row used as a condition (or as a part of one joined by and, or, not):
    such a value always counts as true, so the condition never changes (a 'while' never ends)."""
    if isinstance(node, A.Unary) and node.op == "not":
        return truth_problems(node.operand, scope)
    if isinstance(node, A.BinOp) and node.op in ("and", "or"):
        return truth_problems(node.left, scope) + truth_problems(node.right, scope)
    kind = always_true_kind(node, scope)
    if kind is None:
        return []
    word = {"family": "a family of zones", "zone": "a zone", "table": "a table", "row": "a table row"}[kind]
    written = source_of(node)
    hint = _ALWAYS_TRUE_HINTS[kind]
    if written and kind == "zone":
        hint = f"test whether it holds cards: not empty({written}), or count({written}) > 0"
    elif kind == "row":
        hint = _row_hint(node, scope)
    when = "it is empty" if kind in ("zone", "family") else "its values are 0 or false"
    return [Problem("W325", f"{word} used as a condition always counts as true, even when {when}", node.span, hint)]


def source_of(node: A.Expr) -> Optional[str]:
    """A name, attribute chain or simple index written out again ('players[0].hand'); None for anything else."""
    if isinstance(node, A.Name):
        return node.id
    if isinstance(node, A.Attr):
        inner = source_of(node.obj)
        return f"{inner}.{node.name}" if inner else None
    if isinstance(node, A.Index):
        inner, key = source_of(node.obj), node.key
        if inner and isinstance(key, A.Num):
            return f"{inner}[{key.value}]"
        if inner and isinstance(key, A.Str) and key.is_plain:
            return f"{inner}['{''.join(key.parts)}']"  # type: ignore[arg-type]
        if inner and isinstance(key, A.Name):
            return f"{inner}[{key.id}]"
    return None


def _row_hint(node: A.Expr, scope: Scope) -> str:
    """'read one of its columns: prices['low'].cost' when the table is known by name."""
    written = source_of(node) or "ROW"
    columns: list = []
    if isinstance(node, A.Index) and isinstance(node.obj, A.Name):
        table = scope.symbols.get(node.obj.id)
        rows = list(table.value.values()) if table is not None and isinstance(table.value, dict) else []
        columns = list(rows[0]) if rows and isinstance(rows[0], dict) else []
    if columns:
        return f"a table row holds its columns: read one, e.g. {written}.{columns[0]} (columns: {', '.join(map(str, columns))})"
    return f"a table row holds its columns: read one, e.g. {written}.COLUMN"


def always_true_kind(node: A.Expr, scope: Scope) -> Optional[str]:
    """'zone', 'family', 'table' or 'row' when the value of `node` is one, known from names alone; else None."""
    if isinstance(node, A.Name):
        sym = None if node.id in scope.locals else scope.symbols.get(node.id)
        if sym is None:
            return None
        return {"zone": "zone", "family": "family", "table": "table"}.get(sym.kind)
    if isinstance(node, A.Attr):
        if node.name in scope.player_zones and node.name not in scope.player_vars and node.name not in scope.card_attrs:
            return "zone"
        return None
    if isinstance(node, A.Index):
        inner = always_true_kind(node.obj, scope)
        return {"family": "zone", "table": "row"}.get(inner or "")
    return None


def augment_problem(op: str, t: str, value: A.Expr, scope: Scope) -> list[Problem]:
    """'x += VALUE' or 'x -= VALUE' with a value that is no number nor list: it fails whenever it runs."""
    if op in ("+=", "-=") and t in ("row", "zone", "player", "card", "table", "family", "roll"):
        written = source_of(value)
        hint = {"row": _row_hint(value, scope), "zone": f"count its cards: count({written or 'ZONE'})",
                "roll": f"use its total: {written or 'r'}.total"}.get(t)
        return [Problem("E303", f"'{op}' needs a number here, this is a {t}", value.span, hint)]
    return []


_PLAYER_LISTS = ("winners", "seat_order", "players_in")  # built-ins that give a list of players
_SAME_ITEMS = ("sorted", "reversed", "unique", "shuffled")  # built-ins that give the items of their argument


def element_type(node: A.Expr, t: str, scope: Scope) -> str:
    """The coarse type of the items of `node` (of coarse type `t`) where it can be told from the expression:
    the players (`players`, `winners()`, `seat_order(p)`), the cards of a zone, the zones of a family, numbers of
    a range; "any" otherwise. A comprehension's or a ranking's name gets this type, so that `p.total` in
    `[p.total for p in winners()]` is found to be an attribute no player has."""
    if t == "zone":
        return "card"
    if t == "family":
        return "zone"
    if isinstance(node, A.Range):
        return "number"
    if isinstance(node, A.Name):
        if node.id in scope.locals:
            return "any"
        sym = scope.symbols.get(node.id)
        if sym is None:
            return "any"
        if node.id == "players" and sym.type == "list" and sym.kind == "const":
            return "player"
        if node.id == "cards" and sym.kind == "const":
            return "card"
        return {"zone": "card", "family": "zone"}.get(sym.kind, "any")
    if isinstance(node, A.Attr):
        if node.name == "cards" or (node.name in scope.player_zones and node.name not in scope.player_vars):
            return "card"
        return "any"
    if isinstance(node, A.Call) and node.func not in scope.functions:
        if node.func in _PLAYER_LISTS:
            return "player"
        if node.func == "cards":
            return "card"
        if node.func in _SAME_ITEMS and len(node.args) == 1:
            arg = node.args[0]
            if isinstance(arg, A.Compare) and arg.op == "in" and isinstance(arg.left, A.Name):
                arg = arg.right  # sorted(p in players, by: ...)
            return element_type(arg, "any", scope)
        return "any"
    if isinstance(node, A.Comprehension) and isinstance(node.element, A.Name) and node.element.id == node.var:
        return element_type(node.iterable, "any", scope)
    return "any"


def binds_items(n: A.Call) -> bool:
    """The call names its items, as sorted(p in players, by: p.score) does."""
    return len(n.args) == 1 and isinstance(n.args[0], A.Compare) and n.args[0].op == "in" \
        and isinstance(n.args[0].left, A.Name)


def ranking_problem(n: A.Call) -> Optional[Problem]:
    """sorted/highest/lowest written in a way that has no item name for its key, or with arguments they lack."""
    binding = binds_items(n)
    names = [kw.name for kw in n.kwargs]
    example = f"{n.func}(p in players, by: p.score)"
    if n.func != "sorted" and not binding:
        return Problem("E304", f"{n.func}() takes the items as 'NAME in ITEMS' and a key 'by:'", n.span,
                       f"e.g. {example}")
    if n.func == "sorted" and not binding and names:
        return Problem("E304", "sorted() with 'by:' names each item: sorted(NAME in ITEMS, by: KEY)", n.span,
                       f"e.g. {example}")
    for kw in n.kwargs:
        allowed = ("by", "descending") if n.func == "sorted" else ("by",)
        if kw.name not in allowed:
            return Problem("E304", f"{n.func}() has no argument named '{kw.name}'", kw.span,
                           f"it accepts: {', '.join(allowed)}")
    if len(set(names)) != len(names):
        return Problem("E304", f"{n.func}() is given the same argument twice", n.span)
    if binding and "by" not in names:
        return Problem("E304", f"{n.func}() needs a key: 'by:' followed by what to compare", n.span,
                       f"e.g. {example}")
    return None


def choice_problem(n: A.Compare, scope: Scope) -> Optional[Problem]:
    """An option compared (== or !=) with a text or number that is not one of its choices: always false (or true)."""
    for opt, other in ((n.left, n.right), (n.right, n.left)):
        if not isinstance(opt, A.Name) or opt.id in scope.locals:
            continue
        sym = scope.symbols.get(opt.id)
        if sym is None or sym.kind != "const" or sym.detail != "option" or not sym.choices:
            continue
        if isinstance(other, A.Str) and other.is_plain:
            value: Any = "".join(other.parts)  # type: ignore[arg-type]
        elif isinstance(other, A.Num):
            value = other.value
        else:
            return None
        if value in sym.choices or str(value) in map(str, sym.choices):
            return None
        shown = ", ".join(map(str, sym.choices))
        hint = did_you_mean(str(value), [str(c) for c in sym.choices])
        return Problem("E324", f"'{value}' is not a choice of option '{opt.id}', so this is always "
                               f"{'false' if n.op == '==' else 'true'}", other.span,
                       (hint + "; " if hint else "") + f"its choices: {shown}")
    return None


def addition_problem(lt: str, rt: str, span: Span) -> list[Problem]:
    """'+' of text and a number, or of a list and something that is not a list: it fails whenever it runs."""
    pair = {lt, rt}
    if "row" in pair and pair & {"number", "str"}:
        return [Problem("E303", f"'+' of a table row and a {'number' if 'number' in pair else 'text'}", span,
                        "a table row holds its columns: read one, e.g. ROW.COLUMN")]
    if pair == {"str", "number"}:
        return [Problem("E303", "'+' of a text and a number", span,
                        "put the number in the text with a template ('{n} coins'), or make it text with str(n)")]
    if "list" in pair and pair & {"str", "number", "bool"}:
        other = (pair - {"list"}).pop()
        return [Problem("E303", f"'+' of a list and a {'text' if other == 'str' else other}", span,
                        "put the item in a list to add it: LIST + [ITEM] (or 'LIST += ITEM' as a statement)")]
    return []


_BRACES = re.compile(r"(?<!\{)\{([^{}]+)\}(?!\})")  # '{name}', not '{{' (a brace as written)


def title_problems(title: str, params: tuple, scope: Scope) -> list[tuple[str, str, tuple[int, int], str]]:
    """W326 (code, message, offsets in the title, hint) for each '{name}' of a sequence's title that names no
    parameter or option of the ruleset. A title names the sequence once, on sheets and in the book, not each
    time it runs: 'Round {number}' would print as written. A parameter or an option may be named, as in a label."""
    out = []
    for m in _BRACES.finditer(title):
        name = m.group(1).strip()
        sym = scope.symbols.get(name)
        if sym is not None and sym.kind == "const" and sym.detail in ("parameter", "option"):
            continue
        what = "a parameter of the sequence" if name in params else "not a parameter or an option of the ruleset"
        out.append(("W326", f"a sequence's title is not a template: '{{{name}}}' is {what}, and prints as written",
                    (m.start(), m.end()),
                    "write the title in words ('Round'), and say the changing value in a step (log 'Round {number}'); "
                    "only a parameter or an option of the ruleset may be named in a title, as in a label"))
    return out


def fill_title(title: str, scope: Scope) -> str:
    """A sequence's title with each '{name}' of a parameter or an option of the ruleset replaced by its value
    (`title: "Discarding down to {keep}"`), as a label's; any other braces stay as written (W326 says so)."""
    def sub(m: re.Match) -> str:
        sym = scope.symbols.get(m.group(1).strip())
        if sym is None or sym.kind != "const" or sym.detail not in ("parameter", "option"):
            return m.group(0)
        return ("yes" if sym.value else "no") if isinstance(sym.value, bool) else str(sym.value)

    return _BRACES.sub(sub, title)
