"""`rulecraft diff A B`: the structural differences between two rulesets, in words or as a flowchart.

Both rulesets are loaded (variants resolved, overrides applied) and their models compared
section by section: the ruleset's head, players, parameters, options, cards, zones,
tables, dice, variables, functions, modifiers, events, sequences and their steps,
triggers and scoring. A step is matched by its `id`, or by its position path (e.g.
`2.do.3`) when it has none; it has changed when its statements, condition, decision,
call or label differ (its nested steps are compared on their own).

`diff_rulesets(a, b)` and `to_text` / `to_dot` are pure functions of the models;
`run(args)` loads, prints or writes, and calls Graphviz's `dot` for SVG.
"""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from rulecraft.diagnostics import Span
from rulecraft.model import ruleset as M

SECTIONS = ("Ruleset", "Players", "Parameters", "Options", "Cards", "Zones", "Tables", "Dice", "Variables",
            "Player variables", "Card variables", "Functions", "Modifiers", "Events", "Sequences", "Triggers",
            "Scoring")


@dataclass(frozen=True)
class Change:
    section: str
    what: str  # 'added', 'removed', 'changed' or 'moved' (a step without an id, same content elsewhere)
    subject: str  # e.g. "parameter target_score", "step roll"
    details: tuple[str, ...] = ()
    group: str = ""  # the sequence a step belongs to


@dataclass
class SequenceChanges:
    """What the flowchart needs: per sequence, the step keys added, removed and changed."""

    status: str = "same"  # 'added', 'removed', 'changed' (something in it differs) or 'same'
    added: set = field(default_factory=set)
    removed: set = field(default_factory=set)
    changed: set = field(default_factory=set)  # keys in B
    pairs: dict = field(default_factory=dict)  # key in A -> key in B, for the steps both have


@dataclass
class Diff:
    name_a: str
    name_b: str
    changes: list[Change] = field(default_factory=list)
    sequences: dict[str, SequenceChanges] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.changes

    def by_section(self) -> list[tuple[str, list[Change]]]:
        return [(s, [c for c in self.changes if c.section == s]) for s in SECTIONS
                if any(c.section == s for c in self.changes)]


# ---------------------------------------------------------------------------------------
# showing values


def show(v: Any) -> str:
    """A value in plain words: text quoted, none/true/false as the rules language writes them."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (M.CExpr, M.CStmt, _Stmts)):
        return repr(v.text)
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, (list, tuple, set, frozenset)):
        items = sorted(v, key=str) if isinstance(v, (set, frozenset)) else v
        return "[" + ", ".join(show(x) for x in items) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {show(x)}" for k, x in v.items()) + "}"
    return str(v)


def _plain(v: Any) -> Any:
    """A comparable form of a model value: expressions by their text, tuples as lists."""
    if isinstance(v, (M.CExpr, M.CStmt)):
        return _ast_form(v.ast)  # compared by syntax: spacing and comments do not count
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, (set, frozenset)):
        return sorted(_plain(x) for x in v)
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


def _ast_form(node: Any) -> Any:
    """An AST without its source positions, for comparing function bodies."""
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return (type(node).__name__,) + tuple(_ast_form(getattr(node, f.name)) for f in dataclasses.fields(node)
                                              if not isinstance(getattr(node, f.name), Span))
    if isinstance(node, (list, tuple)):
        return tuple(_ast_form(x) for x in node)
    return node


_LINES: dict[str, list[str]] = {}


def _span_text(span: Any) -> Optional[str]:
    """The source text under a span (a function body), or None."""
    if span is None or not getattr(span, "file", None):
        return None
    lines = _LINES.get(span.file)
    if lines is None:
        try:
            with open(span.file, encoding="utf-8") as fh:
                lines = _LINES[span.file] = fh.read().splitlines()
        except OSError:
            return None
    if span.line != span.end_line or not 0 < span.line <= len(lines):
        return None
    return lines[span.line - 1][span.col - 1:span.end_col - 1] or None


def _fields_diff(old: dict, new: dict) -> list[str]:
    """'NAME: OLD -> NEW' for each field that differs (fields missing on one side show as none)."""
    out = []
    for k in list(old) + [k for k in new if k not in old]:
        a, b = old.get(k), new.get(k)
        if _plain(a) != _plain(b):
            out.append(f"{k}: {show(a)} -> {show(b)}")
    return out


def _keyed(section: str, noun: str, a: dict, b: dict, describe, fields_of) -> list[Change]:
    """Added, removed and changed entries of two mappings by key."""
    out = []
    for k in a:
        if k not in b:
            out.append(Change(section, "removed", f"{noun} {k}", tuple(describe(a[k]))))
    for k in b:
        if k not in a:
            out.append(Change(section, "added", f"{noun} {k}", tuple(describe(b[k]))))
    for k in a:
        if k in b:
            d = _fields_diff(fields_of(a[k]), fields_of(b[k]))
            if d:
                out.append(Change(section, "changed", f"{noun} {k}", tuple(d)))
    return out


def _summary(fields: dict, skip: Iterable[str] = ()) -> list[str]:
    parts = [f"{k} {show(v)}" for k, v in fields.items() if k not in skip and v not in (None, "", (), [], {})]
    return [", ".join(parts)] if parts else []


# ---------------------------------------------------------------------------------------
# sections


def _param_fields(p: M.ParamDef) -> dict:
    return {"default": p.default, "min": p.min, "max": p.max, "doc": p.doc}


def _option_fields(o: M.OptionDef) -> dict:
    return {"default": o.default, "choices": list(o.choices), "doc": o.doc}


def _option_changes(a: dict, b: dict) -> list[Change]:
    out = _keyed("Options", "option", {k: v for k, v in a.items() if k not in b},
                 {k: v for k, v in b.items() if k not in a}, lambda o: _summary(_option_fields(o), ("doc",)),
                 _option_fields)
    for k in a:
        if k not in b:
            continue
        oa, ob = a[k], b[k]
        details = []
        if oa.default != ob.default:
            details.append(f"default: {show(oa.default)} -> {show(ob.default)}")
        gone = [c for c in oa.choices if c not in ob.choices]
        new = [c for c in ob.choices if c not in oa.choices]
        if gone:
            details.append("choices removed: " + ", ".join(map(str, gone)))
        if new:
            details.append("choices added: " + ", ".join(map(str, new)))
        if not gone and not new and list(oa.choices) != list(ob.choices):
            details.append(f"choices reordered: {show(list(oa.choices))} -> {show(list(ob.choices))}")
        if oa.doc != ob.doc:
            details.append(f"doc: {show(oa.doc)} -> {show(ob.doc)}")
        if details:
            out.append(Change("Options", "changed", f"option {k}", tuple(details)))
    return out


def _card_fields(c) -> dict:
    out = {"name": c.name, "classes": sorted(c.classes)}
    for k, v in c.attrs.items():
        out[f"attribute {k}"] = v
    return out


def _card_changes(a: M.Ruleset, b: M.Ruleset) -> list[Change]:
    ca = {c.id: c for c in a.cards}
    cb = {c.id: c for c in b.cards}
    return _keyed("Cards", "card", ca, cb, lambda c: [f"{c.name}, classes {show(sorted(c.classes))}"], _card_fields)


def _zone_fields(z: M.ZoneDef) -> dict:
    per = list(z.per) if isinstance(z.per, tuple) else z.per
    initial = z.initial.text if isinstance(z.initial, M.CExpr) else z.initial
    return {"per": per, "visibility": z.visibility, "initial": initial, "title": z.title}


def _table_changes(a: dict, b: dict) -> list[Change]:
    out = _keyed("Tables", "table", {k: v for k, v in a.items() if k not in b},
                 {k: v for k, v in b.items() if k not in a},
                 lambda t: [f"keys {show(list(t.keys))}, columns {show(list(t.columns))}"], lambda t: {})
    for k in a:
        if k not in b:
            continue
        ta, tb = a[k], b[k]
        details = []
        if list(ta.columns) != list(tb.columns):
            details.append(f"columns: {show(list(ta.columns))} -> {show(list(tb.columns))}")
        for key in ta.keys:
            if key not in tb.rows:
                details.append(f"row {key} removed: {show(dict(ta.rows[key]))}")
        for key in tb.keys:
            if key not in ta.rows:
                details.append(f"row {key} added: {show(dict(tb.rows[key]))}")
        for key in ta.keys:
            if key in tb.rows:
                ra, rb = ta.rows[key], tb.rows[key]
                for col in list(ra) + [c for c in rb if c not in ra]:
                    if _plain(ra.get(col)) != _plain(rb.get(col)):
                        details.append(f"cell [{key}].{col}: {show(ra.get(col))} -> {show(rb.get(col))}")
        if [x for x in ta.keys if x in tb.keys] != [x for x in tb.keys if x in ta.keys]:
            details.append(f"key order: {show(list(ta.keys))} -> {show(list(tb.keys))}")
        for attr in ("cycle", "permutation"):
            if list(getattr(ta, attr)) != list(getattr(tb, attr)):
                details.append(f"{attr}: {show(list(getattr(ta, attr)))} -> {show(list(getattr(tb, attr)))}")
        if details:
            out.append(Change("Tables", "changed", f"table {k}", tuple(details)))
    return out


def _dice_fields(d: M.DiceDef) -> dict:
    out: dict = {"count": d.count, "sides": d.sides}
    for r in d.results:
        out[f"result {r.name}"] = f"when {r.when.text if r.when else ''}; outcome {r.outcome or 'none'}; " \
                                  f"reroll {r.reroll or 'no'}"
    return out


def _var_fields(v: M.VarDef) -> dict:
    init = v.initial.text if isinstance(v.initial, M.CExpr) else v.initial
    return {"start value": init}


def _function_changes(a: M.Ruleset, b: M.Ruleset) -> list[Change]:
    def body_text(ruleset, k):
        body = ruleset.functions[k][1]
        return _span_text(getattr(body, "span", None)) or "(an expression)"

    out = []
    for k in a.functions:
        if k not in b.functions:
            out.append(Change("Functions", "removed", f"function {k}",
                              (f"({', '.join(a.functions[k][0])}) = {body_text(a, k)}",)))
    for k in b.functions:
        if k not in a.functions:
            out.append(Change("Functions", "added", f"function {k}",
                              (f"({', '.join(b.functions[k][0])}) = {body_text(b, k)}",)))
    for k in a.functions:
        if k in b.functions:
            (pa, ba), (pb, bb) = a.functions[k], b.functions[k]
            details = []
            if tuple(pa) != tuple(pb):
                details.append(f"params: {show(list(pa))} -> {show(list(pb))}")
            if _ast_form(ba) != _ast_form(bb):
                details.append(f"value: {show(body_text(a, k))} -> {show(body_text(b, k))}")
            if details:
                out.append(Change("Functions", "changed", f"function {k}", tuple(details)))
    return out


def _trigger_fields(t: M.Trigger) -> dict:
    return {"on": t.on, "when": t.when, "run": t.run,
            "timing": t.timing if t.timing == "now" else f"after {t.after_kind}", "label": t.label}


def _scoring_changes(a: M.Scoring, b: M.Scoring) -> list[Change]:
    fa = {"score": a.score, "highest_wins": a.highest_wins, "tie_break": list(a.tie_break), "on_tie": a.on_tie}
    fb = {"score": b.score, "highest_wins": b.highest_wins, "tie_break": list(b.tie_break), "on_tie": b.on_tie}
    d = _fields_diff(fa, fb)
    return [Change("Scoring", "changed", "scoring", tuple(d))] if d else []


# ---------------------------------------------------------------------------------------
# sequences and steps


def _decision_fields(d: Optional[M.DecisionSpec], prefix: str = "") -> dict:
    if d is None:
        return {}
    return {f"{prefix}player": d.player, f"{prefix}kind": d.kind, f"{prefix}options": d.options,
            f"{prefix}min": d.min, f"{prefix}max": d.max, f"{prefix}prompt": d.prompt, f"{prefix}as": d.bind,
            f"{prefix}default": d.default, f"{prefix}optional": d.optional}


FORM_WORDS = {
    M.ActionStep: "do", M.CallStep: "call", M.IfStep: "if", M.LoopStep: "loop", M.ForEachStep: "for each",
    M.ChooseStep: "choose", M.SealedStep: "sealed choice", M.StackStep: "stack", M.ConstructStep: "construct",
}


def _form(s: M.Step) -> str:
    for cls in type(s).__mro__:
        if cls in FORM_WORDS:
            return FORM_WORDS[cls]
    return type(s).__name__


def _stmts_text(stmts) -> str:
    """The text of a step's statements (a quoted string gives each statement the whole text)."""
    seen: list[str] = []
    for st in stmts:
        if st.text not in seen:
            seen.append(st.text)
    return "; ".join(seen)


class _Stmts:
    """A step's statements: compared by their syntax trees, shown as their text."""

    def __init__(self, stmts):
        self.text = _stmts_text(stmts)
        self.form = tuple(_ast_form(st.ast) for st in stmts)

    def __eq__(self, other):
        return isinstance(other, _Stmts) and self.form == other.form

    def __hash__(self):
        return hash(self.form)


def step_fields(s: M.Step) -> dict:
    """What makes a step what it is: its form, statements, condition, call, decision and label."""
    f: dict = {"form": _form(s)}
    text = ""
    if isinstance(s, M.ActionStep):
        text = _stmts_text(s.stmts)
        f["statements"] = _Stmts(s.stmts)
    elif isinstance(s, M.CallStep):
        f["call"] = s.sequence
        f["with"] = {k: e for k, e in s.args}
    elif isinstance(s, M.IfStep):
        f["condition"] = s.cond
    elif isinstance(s, M.LoopStep):
        f["loop"] = s.mode
        f["condition"] = s.cond
        f["name"] = s.name
    elif isinstance(s, M.ForEachStep):
        f["each"] = s.var
        f["in"] = s.iterable
        f["name"] = s.name
    elif isinstance(s, M.ChooseStep):
        f.update(_decision_fields(s.decision))
    elif isinstance(s, M.SealedStep):
        f["each"] = s.var
        f["in"] = s.iterable
        f["as"] = s.bind
        f.update(_decision_fields(s.decision, "choice "))
    elif isinstance(s, M.StackStep):
        f["zone"] = s.zone
        f["each"] = s.var
        f["in"] = s.iterable
        f.update(_decision_fields(s.play, "play "))
    elif isinstance(s, M.ConstructStep):
        f["form"] = s.construct
        f.update(dict(s.settings))  # the settings as written: a changed setting is a changed rule
    # a step written as text has its text as label: only a label of its own counts
    f["label"] = s.label if s.label and "".join(s.label.split()) != "".join(text.split()) else ""
    return f


def step_summary(s: M.Step) -> str:
    """One line saying what a step does."""
    if s.label and not isinstance(s, M.ActionStep):
        return s.label
    if isinstance(s, M.ActionStep):
        return _stmts_text(s.stmts) or s.label
    if isinstance(s, M.CallStep):
        return f"call {s.sequence}"
    if isinstance(s, M.IfStep):
        return f"if {s.cond.text if s.cond else '?'}"
    if isinstance(s, M.LoopStep):
        return {"while": "while ", "until": "repeat until "}.get(s.mode, "loop ") + (
            s.cond.text if s.cond else (s.name or ""))
    if isinstance(s, M.ForEachStep):
        return f"for each {s.var} in {s.iterable.text if s.iterable else ''}"
    if isinstance(s, M.ChooseStep):
        return f"choose: {s.decision.prompt.text if s.decision and s.decision.prompt else 'a decision'}"
    if isinstance(s, M.SealedStep):
        return f"each {s.var} chooses in secret"
    return _form(s)


def position(s: M.Step) -> str:
    """A step's position path in its sequence, e.g. '2.do.3'."""
    return s.path.split("/", 1)[1]


def step_name(s: M.Step) -> str:
    return f"step {s.id}" if s.explicit_id else f"step at {position(s)}"


@dataclass
class _Node:
    key: str
    step: M.Step
    parent: Optional[str]
    children: list = field(default_factory=list)


def step_tree(seq: M.SequenceDef) -> dict[str, _Node]:
    """The steps of a sequence by matching key, in order: a step's id, or else its position path
    counted from its nearest ancestor that has an id (so a step added elsewhere does not shift it)."""
    out: dict[str, _Node] = {}

    def walk(steps, anchor: str, anchor_pos: str, parent: Optional[str]):
        for s in steps:
            pos = position(s)
            if s.explicit_id:
                key = s.id
            else:
                rel = pos[len(anchor_pos) + 1:] if anchor_pos and pos.startswith(anchor_pos + ".") else pos
                key = f"{anchor}:{rel}" if anchor else rel
            out[key] = _Node(key, s, parent)
            if parent is not None:
                out[parent].children.append(key)
            for _name, body in s.bodies:
                if s.explicit_id:
                    walk(body, s.id, pos, key)
                else:
                    walk(body, anchor, anchor_pos, key)

    walk(seq.steps, "", "", None)
    return out


def _deep(tree: dict[str, _Node], key: str) -> tuple:
    n = tree[key]
    return (tuple((k, _plain(v)) for k, v in step_fields(n.step).items()),
            tuple(_deep(tree, c) for c in n.children))


def _subtree(tree: dict[str, _Node], key: str) -> list[str]:
    out = [key]
    for c in tree[key].children:
        out.extend(_subtree(tree, c))
    return out


def _nested(n: int) -> str:
    return f" (with {n} nested step{'s' if n != 1 else ''})" if n else ""


def _sequence_changes(a: M.Ruleset, b: M.Ruleset, diff: Diff) -> list[Change]:
    out = []
    for how, mine, other in (("removed", a, b), ("added", b, a)):
        for sid, seq in mine.sequences.items():
            if sid in other.sequences:
                continue
            tree = step_tree(seq)
            out.append(Change("Sequences", how, f"sequence {sid}",
                              (f"kind {seq.kind}, {len(tree)} steps" + (f": {seq.title}" if seq.title else ""),),
                              sid))
            diff.sequences[sid] = SequenceChanges(how, **{how: set(tree)})
    for sid, sa in a.sequences.items():
        sb = b.sequences.get(sid)
        if sb is None:
            continue
        sc = SequenceChanges()
        head = _fields_diff({"kind": sa.kind, "title": sa.title, "params": list(sa.params)},
                            {"kind": sb.kind, "title": sb.title, "params": list(sb.params)})
        if head:
            out.append(Change("Sequences", "changed", f"sequence {sid}", tuple(head), sid))
        ta, tb = step_tree(sa), step_tree(sb)
        pairs = {k: k for k in ta if k in tb}
        # a step without an id that only moved (same content, nested steps included) is paired up
        gone = [k for k in ta if k not in pairs]
        new = [k for k in tb if k not in pairs.values()]
        taken: set[str] = set()
        moved: list[tuple[str, str]] = []
        for ka in gone:
            if ta[ka].step.explicit_id or (ta[ka].parent is not None and ta[ka].parent not in pairs):
                continue
            sig = _deep(ta, ka)
            kb = next((k for k in new if k not in taken and not tb[k].step.explicit_id
                       and (tb[k].parent is None or tb[k].parent in pairs.values()) and _deep(tb, k) == sig), None)
            if kb is None:
                continue
            for x, y in zip(_subtree(ta, ka), _subtree(tb, kb)):
                pairs[x] = y
                taken.add(y)
            moved.append((ka, kb))
        matched_b = set(pairs.values())
        sc.pairs = pairs
        sc.removed = {k for k in ta if k not in pairs}
        sc.added = {k for k in tb if k not in matched_b}
        for k in ta:
            if k in sc.removed and (ta[k].parent is None or ta[k].parent not in sc.removed):
                s = ta[k].step
                out.append(Change("Sequences", "removed", step_name(s),
                                  (step_summary(s) + _nested(len(_subtree(ta, k)) - 1),), sid))
        for k in tb:
            if k in sc.added and (tb[k].parent is None or tb[k].parent not in sc.added):
                s = tb[k].step
                out.append(Change("Sequences", "added", step_name(s),
                                  (step_summary(s) + _nested(len(_subtree(tb, k)) - 1),), sid))
        for ka, kb in moved:
            sa_, sb_ = ta[ka].step, tb[kb].step
            sc.changed.add(kb)
            out.append(Change("Sequences", "moved", f"step at {position(sa_)}",
                              (f"now at {position(sb_)}, otherwise unchanged: {step_summary(sb_)}",), sid))
        moved_keys = {x for ka, _kb in moved for x in _subtree(ta, ka)}
        for ka, kb in pairs.items():
            if ka in moved_keys:
                continue
            d = _fields_diff(step_fields(ta[ka].step), step_fields(tb[kb].step))
            if d:
                sc.changed.add(kb)
                out.append(Change("Sequences", "changed", step_name(tb[kb].step), tuple(d), sid))
        if head or sc.added or sc.removed or sc.changed:
            sc.status = "changed"
        diff.sequences[sid] = sc
    return out


# ---------------------------------------------------------------------------------------
# the whole comparison


def diff_rulesets(a: M.Ruleset, b: M.Ruleset) -> Diff:
    """Every structural difference from ruleset A to ruleset B (a pure function of the two models)."""
    diff = Diff(a.name, b.name)
    ch = diff.changes
    head = _fields_diff({"id": a.name, "title": a.title, "version": a.version, "start": a.start},
                        {"id": b.name, "title": b.title, "version": b.version, "start": b.start})
    if head:
        ch.append(Change("Ruleset", "changed", "ruleset", tuple(head)))
    pa, pb = a.players, b.players
    players = _fields_diff({"min": pa.min, "max": pa.max, "default": pa.default},
                           {"min": pb.min, "max": pb.max, "default": pb.default})
    if players:
        ch.append(Change("Players", "changed", "players", tuple(players)))
    ch += _keyed("Parameters", "parameter", a.parameters, b.parameters,
                 lambda p: _summary(_param_fields(p), ("doc",)), _param_fields)
    ch += _option_changes(a.options, b.options)
    ch += _card_changes(a, b)
    ch += _keyed("Zones", "zone", a.zones, b.zones, lambda z: _summary(_zone_fields(z)), _zone_fields)
    ch += _table_changes(a.tables, b.tables)
    ch += _keyed("Dice", "dice", a.dice, b.dice, lambda d: [f"{d.count}d{d.sides}"], _dice_fields)
    ch += _keyed("Variables", "variable", a.variables, b.variables, lambda v: _summary(_var_fields(v)), _var_fields)
    ch += _keyed("Player variables", "player variable", a.player_variables, b.player_variables,
                 lambda v: _summary(_var_fields(v)), _var_fields)
    ch += _keyed("Card variables", "card variable", {k: k for k in sorted(a.marks)}, {k: k for k in sorted(b.marks)},
                 lambda v: [], lambda v: {})
    ch += _function_changes(a, b)
    ch += _keyed("Modifiers", "modifier", a.modifiers, b.modifiers, lambda m: [m.doc] if m.doc else [],
                 lambda m: {"doc": m.doc})
    ch += _keyed("Events", "event", a.events, b.events, lambda e: [f"fields {show(list(e.fields))}"],
                 lambda e: {"fields": list(e.fields)})
    ch += _sequence_changes(a, b, diff)
    ch += _keyed("Triggers", "trigger", {t.id: t for t in a.triggers}, {t.id: t for t in b.triggers},
                 lambda t: _summary(_trigger_fields(t)), _trigger_fields)
    ch += _scoring_changes(a.scoring, b.scoring)
    return diff


# ---------------------------------------------------------------------------------------
# text


def to_text(diff: Diff, label_a: str = "", label_b: str = "") -> str:
    """The differences in plain words, grouped by section."""
    la = f"{diff.name_a} ({label_a})" if label_a and label_a != diff.name_a else diff.name_a
    lb = f"{diff.name_b} ({label_b})" if label_b and label_b != diff.name_b else diff.name_b
    lines = [f"Differences from {la} to {lb}"]
    if diff.empty:
        lines.append("no differences")
        return "\n".join(lines) + "\n"
    for section, changes in diff.by_section():
        lines.append("")
        lines.append(section)
        group = None
        for c in changes:
            indent = "  "
            if c.section == "Sequences" and not c.subject.startswith("sequence "):
                if c.group != group:
                    lines.append(f"  in sequence {c.group}:")
                    group = c.group
                indent = "    "
            else:
                group = None
            if c.what == "changed" and len(c.details) > 1:
                lines.append(f"{indent}{c.what} {c.subject}:")
                lines.extend(f"{indent}  {d}" for d in c.details)
            else:
                tail = f": {c.details[0]}" if c.details else ""
                lines.append(f"{indent}{c.what} {c.subject}{tail}")
    n = len(diff.changes)
    counts = {w: sum(1 for c in diff.changes if c.what == w) for w in ("added", "removed", "changed", "moved")}
    lines.append("")
    lines.append(f"{n} difference{'s' if n != 1 else ''}: " + ", ".join(f"{v} {k}" for k, v in counts.items() if v))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------
# flowchart (DOT)

COLORS = {
    "added": ("#2e7d32", "#e8f5e9", "solid"),
    "removed": ("#c62828", "#ffebee", "dashed"),
    "changed": ("#ef6c00", "#fff3e0", "solid"),
    "same": ("#757575", "#ffffff", "solid"),
}
SHAPES = {
    "start": "oval", "end": "oval", "action": "box", "call": "box", "condition": "diamond", "loop": "hexagon",
    "foreach": "hexagon", "decision": "parallelogram", "sealed": "parallelogram", "stack": "box3d",
    "auction": "box3d", "respond": "box3d",
}
LABEL_WIDTH = 36


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _wrap(text: str, width: int = LABEL_WIDTH, max_lines: int = 4) -> str:
    words, lines, cur = text.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    if cur:
        lines.append(cur)
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = lines[-1][: width - 1] + "…"
    return "\n".join(lines)


def _path_keys(rs: M.Ruleset, sid: str) -> dict[str, str]:
    """Graph node id (the step's path) -> matching key, for the steps of one sequence."""
    if sid not in rs.sequences:
        return {}
    return {n.step.path: k for k, n in step_tree(rs.sequences[sid]).items()}


def to_dot(diff: Diff, a: M.Ruleset, b: M.Ruleset, graph_a, graph_b) -> str:
    """The flowcharts of the sequences that differ, additions green, removals red and dashed,
    changes orange (a pure function of the diff, the two models and their sequence graphs)."""
    out = ["digraph rulecraft_diff {",
           "  graph [rankdir=TB, fontname=\"Helvetica,Arial,sans-serif\", newrank=true,",
           f"         labelloc=t, label={_q(f'rulecraft diff: {diff.name_a} -> {diff.name_b}')}];",
           "  node [fontname=\"Helvetica,Arial,sans-serif\", fontsize=10, style=\"filled\", margin=\"0.12,0.04\"];",
           "  edge [fontname=\"Helvetica,Arial,sans-serif\", fontsize=9, color=\"#757575\"];"]
    drawn = [sid for sid in list(a.sequences) + [s for s in b.sequences if s not in a.sequences]
             if diff.sequences.get(sid) is not None and diff.sequences[sid].status != "same"]
    if not drawn:
        out.append(f"  nothing [shape=plaintext, style=\"\", label={_q('no sequence differs')}];")
    for i, sid in enumerate(drawn):
        sc = diff.sequences[sid]
        color, _fill, style = COLORS[sc.status]
        seq = b.sequences.get(sid) or a.sequences[sid]
        keys_a, keys_b = _path_keys(a, sid), _path_keys(b, sid)
        path_b = {k: p for p, k in keys_b.items()}
        out.append(f"  subgraph cluster_{i} {{")
        title = f"{sid}: {seq.title}" if seq.title and seq.title != sid else sid
        out.append(f"    label={_q(f'{title} ({sc.status})')}; color={_q(color)}; style={_q('rounded,' + style)}; "
                   "fontsize=12;")
        nodes: set[str] = set()
        # the sequence as B has it (or as A had it, for a removed sequence)
        for nid in graph_b.sequences.get(sid, []) if sid in b.sequences else []:
            key = keys_b.get(nid)
            status = "added" if sc.status == "added" or key in sc.added else \
                "changed" if key in sc.changed else "same"
            nodes.add(f"B:{nid}")
            out.append("    " + _node(f"B:{nid}", graph_b.nodes[nid], status))
        # what A had and B has not: drawn too, and A's nodes mapped onto B's where B kept them
        a_to_dot: dict[str, str] = {}
        for nid in graph_a.sequences.get(sid, []) if sid in a.sequences else []:
            n = graph_a.nodes[nid]
            key = keys_a.get(nid)
            if sid not in b.sequences or (key is not None and key in sc.removed):
                a_to_dot[nid] = f"A:{nid}"
                out.append("    " + _node(f"A:{nid}", n, "removed"))
            elif key is not None and key in sc.pairs:
                a_to_dot[nid] = f"B:{path_b[sc.pairs[key]]}"
            elif key is None and f"B:{nid}" in nodes:  # the sequence's start and end
                a_to_dot[nid] = f"B:{nid}"
        # edges: B's (green when A had no such edge), then A's that B no longer has (red, dashed)
        edges_b = {(f"B:{e.src}", f"B:{e.dst}", e.kind, e.label) for e in graph_b.edges
                   if f"B:{e.src}" in nodes and f"B:{e.dst}" in nodes}
        edges_a = {(a_to_dot[e.src], a_to_dot[e.dst], e.kind, e.label) for e in graph_a.edges
                   if e.src in a_to_dot and e.dst in a_to_dot}
        for e in sorted(edges_b):
            out.append("    " + _edge(e, "added" if sc.status == "added" or e not in edges_a else "same"))
        for e in sorted(edges_a - edges_b):
            out.append("    " + _edge(e, "removed"))
        out.append("  }")
    out.append("  subgraph cluster_legend {")
    out.append("    label=\"legend\"; style=\"rounded,dashed\"; color=\"#bdbdbd\"; fontsize=10;")
    for w in ("added", "removed", "changed"):
        color, fill, style = COLORS[w]
        out.append(f"    legend_{w} [shape=box, label={_q(w if w != 'changed' else 'changed or moved')}, "
                   f"color={_q(color)}, fillcolor={_q(fill)}, "
                   f"style={_q('filled,' + style)}, penwidth=2];")
    out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"


def _node(dot_id: str, n, status: str) -> str:
    color, fill, style = COLORS[status]
    text = n.label if n.kind not in ("start", "end") else ("start" if n.kind == "start" else "end")
    if n.step is not None and n.step.explicit_id:
        text = f"[{n.step.id}] {text}"
    attrs = [f"shape={SHAPES.get(n.kind, 'box')}", f"label={_q(_wrap(text))}", f"color={_q(color)}",
             f"fillcolor={_q(fill)}", f"style={_q('filled,' + style)}"]
    if status != "same":
        attrs.append("penwidth=2")
    return f"{_q(dot_id)} [{', '.join(attrs)}];"


def _edge(e: tuple, status: str) -> str:
    src, dst, kind, label = e
    color, _fill, style = COLORS[status]
    attrs = [f"color={_q(color)}", f"style={_q(style)}"]
    if label and label != "next":
        attrs.append(f"label={_q(label)}")
    if status != "same":
        attrs.append("penwidth=2")
        attrs.append(f"fontcolor={_q(color)}")
    return f"{_q(src)} -> {_q(dst)} [{', '.join(attrs)}];"


# ---------------------------------------------------------------------------------------
# the command


def run(args) -> int:
    from rulecraft.diagnostics import render_text
    from rulecraft.loader import load_ruleset

    fmt = getattr(args, "format", None) or "text"
    output = getattr(args, "output", None)
    if fmt == "svg" and not output:
        print("rulecraft diff: --format svg needs -o OUT", file=sys.stderr)
        return 2
    loaded = []
    failed = False
    for ref in (args.ruleset_a, args.ruleset_b):
        res = load_ruleset(ref)
        if not res.ok:
            print(render_text(res.diagnostics, res.sources))
            print(f"rulecraft diff: {ref} has errors; nothing compared", file=sys.stderr)
            failed = True
        loaded.append(res)
    if failed:
        return 1
    la, lb = loaded
    diff = diff_rulesets(la.ruleset, lb.ruleset)
    if fmt == "text":
        text = to_text(diff, _label(args.ruleset_a), _label(args.ruleset_b))
        if output:
            return _write(output, text.encode("utf-8"))
        sys.stdout.write(text)
        return 0
    dot = to_dot(diff, la.ruleset, lb.ruleset, la.graph, lb.graph)
    if fmt == "dot":
        if not output or output == "-":
            sys.stdout.write(dot)
            return 0
        return _write(output, dot.encode("utf-8"))
    exe = shutil.which("dot")
    if exe is None:
        print("rulecraft diff: Graphviz's 'dot' command is not installed (Debian/Ubuntu: apt-get install graphviz); "
              "'--format dot' writes the DOT source without it", file=sys.stderr)
        return 1
    done = subprocess.run([exe, "-Tsvg"], input=dot.encode("utf-8"), capture_output=True, timeout=300)
    if done.returncode != 0 or not done.stdout:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        print("rulecraft diff: Graphviz failed: " + (err[-1] if err else f"exit code {done.returncode}"),
              file=sys.stderr)
        return 1
    return _write(output, done.stdout)


def _label(ref: str) -> str:
    """How the command line named a ruleset (a path or a bundled name)."""
    return ref


def _write(path: str, data: bytes) -> int:
    try:
        with open(path, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        print(f"rulecraft diff: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0
