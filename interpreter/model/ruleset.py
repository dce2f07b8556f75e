"""The frozen ruleset model: what a loaded game is, independent of YAML and of any run."""

from __future__ import annotations

import functools

from dataclasses import field
from typing import Any, Mapping, Optional, Union

from ..diagnostics import Span
from ..records import dataclass
from ..values import Card  # noqa: F401  (re-exported: cards are part of the model)
from .compiled import CExpr, CStmt  # noqa: F401 - M.CExpr reads on
from .steps import (  # noqa: F401 - every step class is read as M.<Step> too
    Step, ActionStep, CallStep, IfStep, LoopStep, ForEachStep, DecisionSpec, ChooseStep, SealedStep,
    StackStep, ConstructStep,
)


# ------------------------------------------------------------------ components
@dataclass(frozen=True)
class DiceResult:
    name: str
    when: CExpr
    outcome: Optional[str]  # 'success', 'failure' or None
    reroll: Optional[str]  # 'optional' or None
    span: Span
    title: str = ""  # how players read the result ('Snake Eyes'); the name is what rules compare

    def shown(self) -> str:
        return self.title or self.name.replace("_", " ")


@dataclass(frozen=True)
class DiceDef:
    id: str
    count: int
    sides: int
    results: tuple[DiceResult, ...]
    span: Span
    doc: str = ""
    visibility: str = "open"  # who sees a roll's faces: 'open' (everyone), 'roller' (the player who rolls), 'hidden'


@dataclass(frozen=True)
class ZoneDef:
    id: str
    per: Union[None, str, tuple]  # None, 'player', 'dynamic' or a tuple of keys
    visibility: str
    initial: Union[None, str, CExpr]  # None, 'all' or an expression
    span: Span
    doc: str = ""
    title: str = ""
    refill: Optional[str] = None  # the zone (family) shuffled into this one when a draw finds it empty

    @property
    def is_family(self) -> bool:
        return self.per is not None and self.per != "player"


@dataclass(frozen=True)
class TableDef:
    id: str
    keys: tuple
    columns: tuple[str, ...]
    rows: Mapping[Any, Mapping[str, Any]]
    cycle: tuple[str, ...]
    permutation: tuple[str, ...]
    span: Span
    doc: str = ""
    title: str = ""
    sequences: tuple[str, ...] = ()  # columns whose cells name sequences: call TABLE[KEY].COLUMN runs one


@dataclass(frozen=True)
class ParamDef:
    id: str
    value: Any
    default: Any
    min: Any
    max: Any
    doc: str
    span: Span
    source: str = ""
    title: str = ""  # what players call it


@dataclass(frozen=True)
class OptionDef:
    id: str
    value: Any
    default: Any
    choices: tuple
    doc: str
    source: str
    span: Span
    title: str = ""  # what players call it


@dataclass(frozen=True)
class VarDef:
    id: str
    initial: Any  # a literal, or a CExpr evaluated at game start
    span: Span
    per_player: bool = False
    visibility: str = "public"  # public (everyone sees it), owner (its player only), hidden (nobody)
    title: str = ""  # what players call it
    doc: str = ""
    keys: tuple = ()  # declared `per:` a family: one value per key (a record), e.g. per artist


@dataclass(frozen=True)
class ModifierDef:
    id: str
    doc: str
    span: Span


@dataclass(frozen=True)
class EventDef:
    id: str
    fields: tuple[str, ...]
    doc: str
    span: Span


@dataclass(frozen=True)
class Invariant:
    """A condition the designer states must hold after every step (while `when` holds), checked by games that
    check themselves."""

    cond: CExpr
    when: Optional[CExpr]
    say: str
    span: Span


@dataclass(frozen=True)
class SequenceDef:
    id: str
    kind: str
    title: str
    source: str
    params: tuple[str, ...]
    steps: tuple[Step, ...]
    span: Span
    doc: str = ""


@dataclass(frozen=True)
class Trigger:
    id: str
    on: str
    when: Optional[CExpr]
    run: str
    timing: str  # 'now' or 'after'
    after_kind: Optional[str]
    span: Span
    source: str = ""
    label: str = ""


@dataclass(frozen=True)
class Scoring:
    score: Optional[CExpr]
    highest_wins: bool
    tie_break: tuple[CExpr, ...]
    on_tie: str  # 'shared' or 'nobody'
    span: Optional[Span]
    fewest: tuple[bool, ...] = ()  # for each tie-break, whether the fewest wins it ({fewest: ...}); else the most


@dataclass(frozen=True)
class MetricDef:
    """Something a simulation measures: tallied by `tally` statements, or worked out when a game ends."""

    id: str
    kind: str  # 'tally', 'per_player' or 'per_game'
    doc: str
    by: Optional[CExpr]  # per_player / per_game: the key to group under (p bound for per_player)
    value: Optional[CExpr]  # per_player / per_game: the value (default: per_player 1 if p won else 0; per_game 1)
    role: Optional[str]  # 'length' (a measure of the game's length) or 'victory' (how games are won)
    span: Span


METRIC_KINDS = ("tally", "per_player", "per_game")
METRIC_ROLES = ("length", "victory")


@dataclass(frozen=True)
class Players:
    min: int
    max: int
    default: int


@dataclass(frozen=True)
class ViewValue:
    title: str
    value: CExpr
    when: Optional[CExpr] = None


@dataclass(frozen=True)
class ViewDef:
    """What a person at the table is shown (the `view:` section): shared names, per-player names, values."""

    table: tuple[str, ...] = ()
    players: tuple[str, ...] = ()
    values: tuple[ViewValue, ...] = ()
    headers: tuple[str, ...] = ("stage", "round", "turn")  # kinds of sequences shown as headers, outermost first
    score_parts: tuple[ViewValue, ...] = ()  # the parts of a player's score (p bound), for the breakdown at the end


@dataclass(frozen=True, eq=False)
class Ruleset:
    name: str
    title: str
    version: str
    source: str
    notes: str
    file: str
    lineage: tuple[str, ...]  # this file, then each file it extends
    players: Players
    parameters: Mapping[str, ParamDef]
    options: Mapping[str, OptionDef]
    cards: tuple[Card, ...]
    dice: Mapping[str, DiceDef]
    zones: Mapping[str, ZoneDef]
    tables: Mapping[str, TableDef]
    variables: Mapping[str, VarDef]
    player_variables: Mapping[str, VarDef]
    modifiers: Mapping[str, ModifierDef]
    events: Mapping[str, EventDef]
    sequences: Mapping[str, SequenceDef]
    start: str
    start_span: Span
    triggers: tuple[Trigger, ...]
    scoring: Scoring
    metrics: Mapping[str, MetricDef]
    span: Span
    marks: frozenset = field(default_factory=frozenset)  # the card variables
    functions: Mapping[str, Any] = field(default_factory=dict)  # name -> (params, body AST)
    # how functions and variables read in printed rules (their optional `title:`), and what functions compute
    titles: Mapping[str, str] = field(default_factory=dict)
    function_docs: Mapping[str, str] = field(default_factory=dict)
    aid: Mapping[str, Any] = field(default_factory=dict)  # what the player aid shows (the `aid:` section), as data
    aid_texts: tuple = ()  # (text, span) of every text under `aid:`, for the checks of what it names
    scope: Any = field(default=None, repr=False)  # the names the ruleset's expressions were compiled in
    view: Optional[ViewDef] = None  # what a person at the table is shown; None: tools derive it
    invariants: tuple = ()  # Invariant: checked after every step by games that check themselves
    card_order: tuple[str, ...] = ()  # the attributes of a declared card order (card_order:); cards sort by it
    key_titles: Mapping[str, str] = field(default_factory=dict)  # a family's key -> the title players know it by
    # a card that is in a game only for some player counts (its group's count reads player_count): index -> counts
    card_players: Mapping[int, frozenset] = field(default_factory=dict)

    @functools.cached_property
    def refills(self) -> Mapping[str, str]:
        """The zones (families) with `refill:`, and the zone each is refilled from."""
        return {z.id: z.refill for z in self.zones.values() if z.refill is not None}

    def card(self, id: str) -> Card:
        for c in self.cards:
            if c.id == id:
                return c
        raise KeyError(id)

    def iter_steps(self):
        """Every step of every sequence, depth first, with its sequence."""
        for seq in self.sequences.values():
            for s in walk_steps(seq.steps):
                yield seq, s


def walk_steps(steps):
    """Steps and the steps written inside them (their bodies), depth first."""
    for s in steps:
        yield s
        for _name, body in s.bodies:
            yield from walk_steps(body)


BUILTIN_EVENTS = {
    "drawn": ("card", "source", "dest", "player"),
    "moved": ("card", "source", "dest", "player"),
    "rolled": ("roll", "player"),
    "shuffled": ("zone",),
    "revealed": ("choices",),
}
