"""What names mean when rules are compiled: the symbols of a ruleset, the scope of one sequence, its functions,
and the context of expressions evaluated while a ruleset loads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from ..diagnostics import RuleError, Span
from ..values import CARD_FIELDS, PLAYER_FIELDS, ROLL_FIELDS, ZONE_FIELDS

Fn = Callable[[Any], Any]


# ------------------------------------------------------------------ scope
@dataclass(frozen=True)
class Symbol:
    kind: str  # var, param, option, zone, family, table, dice, modifier, event, sequence, const
    value: Any = None
    type: str = "any"
    detail: Any = None  # for a family: 'dynamic' or the keys
    choices: tuple = ()  # for an option: the values it can have


_KIND_WORDS = {"var": "variable", "const": "constant", "player_zone": "zone per player", "family": "zone family"}


def kind_word(sym: Symbol) -> str:
    """What a symbol is, in the words a ruleset author uses: 'a parameter', 'an option', ..."""
    word = sym.detail if sym.kind == "const" and isinstance(sym.detail, str) else _KIND_WORDS.get(sym.kind, sym.kind)
    return ("an " if word[:1] in "aeiou" else "a ") + word


@dataclass
class Scope:
    """What names mean: game-wide symbols, plus the local names of one sequence."""

    symbols: dict[str, Symbol]
    player_vars: set[str]
    player_zones: set[str]
    card_attrs: set[str]
    card_classes: set[str]
    table_columns: set[str]
    marks: dict[str, Any]  # card variables and their defaults
    dice: dict[str, Any]
    locals: set[str] = field(default_factory=set)
    functions: dict[str, "FunctionDef"] = field(default_factory=dict)
    metrics: dict[str, str] = field(default_factory=dict)  # metric id -> its kind (tally, per_player, per_game)
    local_types: dict[str, str] = field(default_factory=dict)  # a local name -> its coarse type, where known

    def with_typed_local(self, name: str, type_: str) -> "Scope":
        """This scope with one more local name, of a known coarse type (a comprehension's or a ranking's item)."""
        inner = self.with_locals(self.locals | {name})
        inner.local_types = {**self.local_types, name: type_}
        if type_ == "any":
            inner.local_types.pop(name)
        return inner

    def with_locals(self, names) -> "Scope":
        return Scope(self.symbols, self.player_vars, self.player_zones, self.card_attrs, self.card_classes,
                     self.table_columns, self.marks, self.dice, set(names), self.functions, self.metrics)

    def all_attributes(self) -> set[str]:
        return (self.player_vars | self.player_zones | self.card_attrs | self.table_columns | set(self.marks)
                | set(CARD_FIELDS) | set(PLAYER_FIELDS) | set(ZONE_FIELDS) | set(ROLL_FIELDS))

    def visible_names(self) -> set[str]:
        return set(self.symbols) | self.locals


@dataclass
class FunctionDef:
    """A ruleset's own function: a named expression with parameters, compiled once on first use."""

    name: str
    params: tuple[str, ...]
    body: Any  # the AST of the expression, or None when it failed to parse
    span: Span
    fn: Optional[Fn] = None
    compiling: bool = False
    generated: Optional[Callable] = None  # fn(ctx, *args), made by the compiler (compiler/expressions.py) when first needed
    facts: dict = field(default_factory=dict, compare=False, repr=False)  # what compiler/facts.py proved of the body


class LoadTimeContext:
    """The context of expressions evaluated while a ruleset loads (card attributes, zone contents).

    Only names and pure functions work there; anything that needs a running game (zones'
    cards, chance, the running sequences) is refused with a diagnostic.
    """

    steps = work = 0  # the budget of the work guards (guards.charge)
    max_steps = 5_000_000
    compiled = False  # not a game of the compiled engine: whole expressions run their closures (closures/whole.py)

    def __init__(self, locals_: Optional[dict] = None):
        self.locals = locals_ if locals_ is not None else {}
        self.vars: dict = {}
        self.marks: dict = {}
        self.players: list = []

    def __getattr__(self, name: str):
        raise RuleError("this needs a running game, but it is computed while the ruleset loads", None,
                        "card attributes and zone contents may use parameters, options, tables and plain values",
                        "E315")


_RUNTIME_PLAYERS = object()
_RUNTIME_PLAYER_COUNT = object()
RUNTIME_PLAYERS = Symbol("const", _RUNTIME_PLAYERS, "list")
RUNTIME_PLAYER_COUNT = Symbol("const", _RUNTIME_PLAYER_COUNT, "number")
