"""The parts of `rulecraft diff` every section shares: the record of a change, values in words, and the
comparison of each section but the sequences (those are in diffsteps.py)."""

from __future__ import annotations

import dataclasses
import difflib
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
    number_a: str = ""  # a step's number on the sheets of ruleset A (where it has one there)
    number_b: str = ""  # ... and of ruleset B
    step_id: str = ""  # a step's own id, when its author gave it one


@dataclass
class SequenceChanges:
    """What the flowchart needs: per sequence, the steps (by path) added (in B), removed (from A) and changed
    (in B), and which step of A each step of B is."""

    status: str = "same"  # 'added', 'removed', 'changed' (something in it differs) or 'same'
    added: set = field(default_factory=set)
    removed: set = field(default_factory=set)
    changed: set = field(default_factory=set)  # paths in B
    pairs: dict = field(default_factory=dict)  # path in A -> path in B, for the steps both have


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
    if isinstance(v, (M.CExpr, M.CStmt)):
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
            out.append(_text_diff(k, a, b) if _long_text(a) or _long_text(b) else f"{k}: {show(a)} -> {show(b)}")
    return out


def _long_text(v: Any) -> bool:
    return isinstance(v, str) and ("\n" in v.rstrip("\n") or len(v) > 60)


def _text_diff(k: str, a: Any, b: Any) -> str:
    """A long text (a ruleset's notes) changed: its lines removed (-) and added (+), one a line, not the two texts as
    one escaped string each."""
    old = a.splitlines() if isinstance(a, str) else [show(a)]
    new = b.splitlines() if isinstance(b, str) else [show(b)]
    return "\n".join([f"{k}, line by line (- before, + after):"]
                     + [line[0] + " " + line[1:] for line in list(difflib.unified_diff(old, new, lineterm="", n=0))[2:]
                        if not line.startswith("@@")])


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
    out = {"name": c.name, "classes": sorted(c.classes), "text": c.text}
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
    return {"per": per, "visibility": z.visibility, "initial": initial, "title": z.title, "refill": z.refill}


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
    return {"event": t.on, "when": t.when, "run": t.run,
            "timing": t.timing if t.timing == "now" else f"after {t.after_kind}", "label": t.label}


def _ties(sc: M.Scoring) -> list:
    """The tie-breaks, one the fewest wins said so ('fewest p.turns')."""
    return [f"fewest {t.text}" if few else t for t, few in zip(sc.tie_break, sc.fewest or (False,) * len(sc.tie_break))]


def _scoring_changes(a: M.Scoring, b: M.Scoring) -> list[Change]:
    fa = {"score": a.score, "highest_wins": a.highest_wins, "tie_break": _ties(a), "on_tie": a.on_tie}
    fb = {"score": b.score, "highest_wins": b.highest_wins, "tie_break": _ties(b), "on_tie": b.on_tie}
    d = _fields_diff(fa, fb)
    return [Change("Scoring", "changed", "scoring", tuple(d))] if d else []



def section_changes(a: M.Ruleset, b: M.Ruleset) -> list[Change]:
    """The changes of every section before the sequences (the ruleset's head with its notes, players,
    parameters, options, cards, zones, tables, dice, variables, functions, modifiers, events)."""
    ch: list[Change] = []
    head = _fields_diff({"id": a.name, "title": a.title, "version": a.version, "start": a.start, "notes": a.notes,
                         "source": a.source},
                        {"id": b.name, "title": b.title, "version": b.version, "start": b.start, "notes": b.notes,
                         "source": b.source})
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
    return ch


def after_sequences(a: M.Ruleset, b: M.Ruleset) -> list[Change]:
    """The sections after the sequences: triggers and scoring."""
    ch = _keyed("Triggers", "trigger", {t.id: t for t in a.triggers}, {t.id: t for t in b.triggers},
                lambda t: _summary(_trigger_fields(t)), _trigger_fields)
    ch += _scoring_changes(a.scoring, b.scoring)
    return ch
