"""The steps of a sequence as the model holds them: one class per step kind (each kind is registered in model/kinds.py;
the core ones are built and lowered in loader/kinds/)."""

from __future__ import annotations

import weakref
from typing import Any, Optional

from ..diagnostics import Span
from ..records import dataclass
from .compiled import CExpr, CStmt


@dataclass(frozen=True)
class Step:
    id: str  # given by the author, or derived from its position (e.g. 's3.then.1')
    path: str  # SEQUENCE/position, unique in the ruleset
    label: str
    source: str
    note: str
    span: Span
    explicit_id: bool

    @property
    def bodies(self) -> tuple[tuple[str, tuple["Step", ...]], ...]:
        return ()


@dataclass(frozen=True)
class ActionStep(Step):
    stmts: tuple[CStmt, ...] = ()


@dataclass(frozen=True)
class CallStep(Step):
    sequence: str = ""
    args: tuple[tuple[str, CExpr], ...] = ()
    sequence_span: Optional[Span] = None
    bind: Optional[str] = None  # 'as:': the local name given the called sequence's result


@dataclass(frozen=True)
class IfStep(Step):
    cond: Optional[CExpr] = None
    then: tuple[Step, ...] = ()
    other: tuple[Step, ...] = ()

    @property
    def bodies(self):
        return (("then", self.then), ("else", self.other))


@dataclass(frozen=True)
class LoopStep(Step):
    mode: str = "forever"  # 'while', 'until' or 'forever'
    cond: Optional[CExpr] = None
    body: tuple[Step, ...] = ()
    name: Optional[str] = None

    @property
    def bodies(self):
        return (("do", self.body),)


@dataclass(frozen=True)
class ForEachStep(Step):
    var: str = ""
    iterable: Optional[CExpr] = None
    body: tuple[Step, ...] = ()
    name: Optional[str] = None

    @property
    def bodies(self):
        return (("do", self.body),)


@dataclass(frozen=True)
class DecisionSpec:
    player: CExpr
    kind: str  # 'one', 'subset', 'number', 'yesno'
    options: Optional[CExpr]
    min: Optional[CExpr]
    max: Optional[CExpr]
    prompt: Optional[CExpr]
    bind: Optional[str]
    default: Optional[CExpr]
    optional: bool
    span: Span
    display: Optional[CExpr] = None  # the name a person sees for an option, with `display_as` bound to it
    display_as: str = "option"
    # others learn that it was made, not the answer; None: secret when some option is a card others cannot see
    secret: Optional[bool] = None
    # (low, high) when the options are known to be the pass, then every whole number from low to high (a bid): the
    # engine then counts them instead of building the list; `options` says the same as an expression
    amounts: Optional[tuple[CExpr, CExpr]] = None
    # a prompt's text and its {fields}, each compiled alone: what the others read where a field reads something
    # hidden (the field is then left out of their words, docs/secrecy.md); empty for a prompt without fields
    prompt_parts: tuple = ()


@dataclass(frozen=True)
class ChooseStep(Step):
    decision: Optional[DecisionSpec] = None


@dataclass(frozen=True)
class SealedStep(Step):
    var: str = ""
    iterable: Optional[CExpr] = None
    decision: Optional[DecisionSpec] = None
    bind: Optional[str] = None


@dataclass(frozen=True)
class StackStep(Step):
    zone: Optional[CExpr] = None
    var: str = ""
    iterable: Optional[CExpr] = None
    play: Optional[DecisionSpec] = None
    on_play: tuple[Step, ...] = ()
    resolve: tuple[Step, ...] = ()

    @property
    def bodies(self):
        return (("on_play", self.on_play), ("resolve", self.resolve))


@dataclass(frozen=True)
class ConstructStep(Step):
    """A mechanic said in one step (an auction, a response window) that the loader expands into plain steps.

    `run` is what the interpreter runs (the expansion: plain steps, so both engines, every save,
    clone, log and replay handles it unchanged); `parts` are the step lists the author wrote inside it
    (e.g. what happens when a player drops out), which appear in `run` too; charts, checks and the
    book see the one step and its parts, never the expansion. `rule` is the mechanic in words.
    """

    construct: str = ""  # 'auction' or 'respond'
    rule: str = ""
    settings: tuple[tuple[str, str], ...] = ()  # (key, text as written), for renderers
    run: tuple[Step, ...] = ()
    parts: tuple[tuple[str, tuple[Step, ...]], ...] = ()

    @property
    def bodies(self):
        return self.parts


# ------------------------------------------------------------------ the steps that ask a decision

_ASKING: "weakref.WeakKeyDictionary[Any, frozenset]" = weakref.WeakKeyDictionary()


def asks_decision(rs: Any, bodies: list) -> bool:
    """Whether the steps of `bodies`, the steps inside them or a sequence they call, ask a decision."""
    asking, todo = asking_sequences(rs), list(bodies)
    while todo:
        for step in todo.pop():
            if getattr(step, "decision", None) is not None or getattr(step, "play", None) is not None \
                    or (getattr(step, "sequence", "") or "") in asking:
                return True
            run = getattr(step, "run", None)
            if isinstance(run, tuple):
                todo.append(run)
            todo.extend(body for _name, body in step.bodies)
    return False


def asking_sequences(rs: Any) -> frozenset:
    """The sequences that ask a decision, in their own steps or through a sequence they call: worked out once for the
    ruleset (each loop walked every sequence it called again: 8,000 loops calling one sequence of 8,000 steps, a
    ruleset of 1 MB, took 35 s of processor to load, session 17)."""
    got = _ASKING.get(rs)
    if got is None:
        direct: set = set()
        callers: dict[str, set] = {}
        for name, seq in rs.sequences.items():
            todo = [seq.steps]
            while todo:
                for step in todo.pop():
                    if getattr(step, "decision", None) is not None or getattr(step, "play", None) is not None:
                        direct.add(name)
                    called = getattr(step, "sequence", "") or ""
                    if isinstance(called, str) and called in rs.sequences:
                        callers.setdefault(called, set()).add(name)
                    run = getattr(step, "run", None)
                    if isinstance(run, tuple):
                        todo.append(run)
                    todo.extend(body for _name, body in step.bodies)
        asking, todo_names = set(direct), list(direct)
        while todo_names:
            for caller in callers.get(todo_names.pop(), ()):
                if caller not in asking:
                    asking.add(caller)
                    todo_names.append(caller)
        got = _ASKING[rs] = frozenset(asking)
    return got
