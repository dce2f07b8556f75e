"""The print plan shared by flowcharts, sheets and the book: sheet numbers, step numbers, trigger sources.

Everything here is a pure function of the loaded ruleset and its sequence graph, so a
flowchart rendered alone cites the same sheet numbers as the printed sheets and the book.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Optional

from rulecraft.dsl import ast as A
from rulecraft.model import ruleset as M
from rulecraft.model.kinds import kind_of, own_statements

# A sequence with at most this many step nodes is "small": it shares the sheet of its caller.
SMALL = 4
# A shared sheet stops taking small sequences once it holds this many step nodes.
SHEET_BUDGET = 24


@dataclass(frozen=True)
class Sheet:
    number: int
    sequences: tuple[str, ...]  # the first is the sheet's main sequence

    @property
    def main(self) -> str:
        return self.sequences[0]


@dataclass
class SheetPlan:
    sheets: list[Sheet] = field(default_factory=list)
    sheet_of: dict[str, int] = field(default_factory=dict)  # sequence id -> sheet number
    order: list[str] = field(default_factory=list)  # every sequence, in reading order

    def sheet(self, number: int) -> Sheet:
        return self.sheets[number - 1]


def calls_of(steps: Iterable[M.Step]) -> list[str]:
    """The sequences a block of steps calls, in order of appearance (depth first)."""
    out: list[str] = []

    def walk(block):
        for s in block:
            out.extend(st.ast.sequence for st in own_statements(s) if isinstance(st.ast, A.CallSeq) and st.ast.sequence)
            for _name, body in s.bodies:
                walk(body)

    walk(steps)
    return out


def reading_order(rs: M.Ruleset) -> tuple[list[str], dict[str, Optional[str]]]:
    """Sequences depth first along calls from the start, then those only triggers run, then the rest.

    Returns the order and each sequence's parent (the sequence that first calls it in that order).
    """
    order: list[str] = []
    parent: dict[str, Optional[str]] = {}

    def visit(sid: str, by: Optional[str]) -> None:
        if sid in parent or sid not in rs.sequences:
            return
        parent[sid] = by
        order.append(sid)
        for callee in calls_of(rs.sequences[sid].steps):
            visit(callee, sid)

    roots = [rs.start] + [t.run for t in rs.triggers] + list(rs.sequences)
    for root in roots:
        visit(root, None)
    return order, parent


def callers_of(graph) -> dict[str, list[str]]:
    """Sequence id -> the sequences that call it, in the order the graph's edges name them."""
    out: dict[str, list[str]] = {}
    for e in graph.edges:
        if e.kind == "call" and e.dst.endswith("/start"):
            callee = e.dst[: -len("/start")]
            caller = graph.nodes[e.src].sequence
            if caller != callee and caller not in out.setdefault(callee, []):
                out[callee].append(caller)
    return out


def size_of(graph, sid: str) -> int:
    return sum(1 for nid in graph.sequences.get(sid, ()) if graph.nodes[nid].kind not in ("start", "end"))


def plan_sheets(rs: M.Ruleset, graph) -> SheetPlan:
    """Which sequences get a sheet of their own, and which small ones share their caller's sheet."""
    order, parent = reading_order(rs)
    groups: list[list[str]] = []
    group_of: dict[str, int] = {}
    load: list[int] = []
    for sid in order:
        size = size_of(graph, sid)
        target = None
        if size <= SMALL and sid != rs.start:
            for cand in (group_of.get(parent[sid]) if parent[sid] else None, len(groups) - 1 if groups else None):
                if cand is not None and load[cand] + size <= SHEET_BUDGET:
                    target = cand
                    break
        if target is None:
            groups.append([])
            load.append(0)
            target = len(groups) - 1
        groups[target].append(sid)
        group_of[sid] = target
        load[target] += size
    plan = SheetPlan(order=order)
    for i, members in enumerate(groups):
        sheet = Sheet(i + 1, tuple(members))
        plan.sheets.append(sheet)
        for sid in members:
            plan.sheet_of[sid] = sheet.number
    return plan


# ----------------------------------------------------------------------------- step numbers

_ROMAN = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii", "xiii", "xiv", "xv",
          "xvi", "xvii", "xviii", "xix", "xx"]


def _mark(depth: int, i: int) -> str:
    """The i-th (0-based) mark at a depth: 1, 2 ... then a, b ... then i, ii ... then 1, 2 again."""
    level = depth % 3
    if level == 0:
        return str(i + 1)
    if level == 1:
        letters = ""
        n = i
        while True:
            letters = chr(ord("a") + n % 26) + letters
            n = n // 26 - 1
            if n < 0:
                return letters
    return _ROMAN[i] if i < len(_ROMAN) else str(i + 1)


def step_numbers(seq: M.SequenceDef, skip=None) -> dict[str, str]:
    """Rules-page numbers for the steps of a sequence, by step path: '1', '2', '2.a', '2.a.i', ...

    The steps of all the bodies of a step (then and else, on_play and resolve) are numbered
    on from one another, so each number names one step. Steps for which `skip(step)` is true
    (bookkeeping, in the players' view, or a condition a house rule decides) get no number and take none from
    the others; the steps such a condition holds are numbered in its place.
    """
    out: dict[str, str] = {}

    def shown(steps):  # a step not drawn gives its place to what it holds that is (a branch a house rule takes)
        for s in steps:
            if skip is None or not skip(s):
                yield s
            else:
                yield from shown([c for _name, body in s.bodies for c in body])

    def walk(steps, prefix: str, depth: int) -> None:
        steps = list(shown(steps))
        for i, s in enumerate(steps):
            num = f"{prefix}{_mark(depth, i)}"
            out[s.path] = num
            children = [c for _name, body in s.bodies for c in body]
            walk(children, num + ".", depth + 1)

    walk(seq.steps, "", 0)
    return out


# ----------------------------------------------------------------------------- triggers


def step_events(step: M.Step) -> set[str]:
    """The event types a step can raise by itself (not inside its nested steps)."""
    events: set[str] = set()
    for st in own_statements(step):
        a = st.ast
        if isinstance(a, A.Move):
            events.add("moved")
        elif isinstance(a, A.Draw):
            events.add("drawn")
            if a.dest is not None:
                events.add("moved")
        elif isinstance(a, A.Shuffle):
            events.add("shuffled")
        elif isinstance(a, A.Roll):
            events.add("rolled")
        elif isinstance(a, A.Emit):
            events.add(a.event)
    kind = kind_of(step)
    if kind is not None:
        events.update(kind.raises)  # what its own instruction raises (a sealed step reveals)
    return events


def trigger_sources(rs: M.Ruleset, sid: str) -> dict[str, list[str]]:
    """For one sequence: trigger id -> the paths of its steps that raise that trigger's event."""
    seq = rs.sequences[sid]
    found: dict[str, list[str]] = {}

    def walk(steps):
        for s in steps:
            ev = step_events(s)
            for t in rs.triggers:
                if t.on in ev:
                    found.setdefault(t.id, []).append(s.path)
            for _name, body in s.bodies:
                walk(body)

    walk(seq.steps)
    return found


# ----------------------------------------------------------------------------- wording


def _squash(text: str) -> str:
    return "".join(text.split()).rstrip(";")


def rule_text(step: M.Step) -> str:
    """The rules-language text of what a step does itself (its statements, condition or loop head), as its kind
    says it (`StepKind.text`)."""
    kind = kind_of(step)
    return kind.text(step) if kind is not None else ""


def designer_label(step: Optional[M.Step]) -> str:
    """The step's label in the designers' words, or '' when the step only has its rule text.

    A step written as a bare string gets that string as its label when loaded; that is rule
    text, not a label.
    """
    if step is None or not step.label:
        return ""
    kind = kind_of(step)
    if kind is not None and kind.text_label and _squash(step.label) == _squash(rule_text(step)):
        return ""
    return step.label
