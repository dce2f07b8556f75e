"""What a name in a ruleset is: its kind, its definition's position and a few words about it, from the built model."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rulecraft.diagnostics import Span
from rulecraft.dsl.builtins import REGISTRY, Builtin
from rulecraft.values import CARD_FIELDS, PLAYER_FIELDS

BUILTIN_EVENTS = ("drawn", "moved", "rolled", "shuffled", "revealed")


@dataclass(frozen=True)
class Name:
    name: str
    kind: str  # zone, parameter, option, table, function, sequence, variable, event, dice, modifier, built-in
    span: Span | None
    doc: str  # markdown for hover
    detail: str = ""  # one line for a completion list


def signature(b: Builtin) -> str:
    """A built-in's call shape: count(x[, y], dir: ...) -> list."""
    letters = "abcdefgh"
    args = [letters[i] for i in range(b.min_args)]
    if b.max_args < 0:
        args.append("...")
    else:
        opt = [letters[i] for i in range(b.min_args, min(b.max_args, len(letters)))]
        if opt:
            args.append("[" + ", ".join(opt) + "]")
    args += [f"{k}: ..." for k in b.kwargs]
    return f"{b.name}({', '.join(args)}) -> {b.returns}"


def builtin_name(b: Builtin) -> Name:
    return Name(b.name, "built-in", None, f"```\n{signature(b)}\n```\n{b.doc}\n\nExample: `{b.example}`", signature(b))


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return repr(v) if isinstance(v, str) else str(v)


_MARKDOWN = re.compile(r"([\\`*_\[\]()<>!&~|])")


def md(text: Any) -> str:
    """A ruleset's text as Markdown that shows it as written: the marks that make images, links (`command:` ones
    too), raw HTML, entities, code and emphasis escaped, so none comes from a stranger's ruleset into an editor's
    hover (issue 38)."""
    return _MARKDOWN.sub(r"\\\1", str(text))


def defined_names(model: Any) -> dict[str, Name]:
    """Every name the ruleset defines (its own and inherited through 'extends'), by name."""
    out: dict[str, Name] = {}
    if model is None:
        return out
    for z in model.zones.values():
        per = {None: "one zone", "player": "one per player"}.get(z.per, f"one per {z.per}") if not isinstance(z.per, tuple) \
            else "one per " + ", ".join(map(str, z.per))
        out[z.id] = Name(z.id, "zone", z.span, f"**zone {md(z.id)}**{' — ' + md(z.title) if z.title else ''}\n\n"
                         f"visibility: {z.visibility}; {per}" + (f"\n\n{md(z.doc)}" if z.doc else ""), f"zone, {z.visibility}")
    for p in model.parameters.values():
        out[p.id] = Name(p.id, "parameter", p.span, f"**parameter {md(p.id)}** = {md(_value(p.value))} (default {md(_value(p.default))})"
                         + (f"\n\n{md(p.doc)}" if p.doc else "") + (f"\n\nsource: {md(p.source)}" if p.source else ""),
                         f"parameter, default {_value(p.default)}")
    for o in model.options.values():
        choices = ", ".join(_value(c) for c in o.choices)
        out[o.id] = Name(o.id, "option", o.span, f"**option {md(o.id)}** = {md(_value(o.value))} (default {md(_value(o.default))}; "
                         f"choices: {md(choices)})" + (f"\n\n{md(o.doc)}" if o.doc else ""), f"option: {choices}")
    for t in model.tables.values():
        out[t.id] = Name(t.id, "table", t.span, f"**table {md(t.id)}**: rows {md(', '.join(map(str, t.keys)))}; "
                         f"columns {md(', '.join(t.columns))}" + (f"\n\n{md(t.doc)}" if t.doc else ""), "table: " + ", ".join(t.columns))
    for name, v in {**model.variables, **model.player_variables}.items():
        out[name] = Name(name, "variable", v.span, f"**{'player ' if v.per_player else ''}variable {md(name)}**",
                         "player variable" if v.per_player else "variable")
    for e in model.events.values():
        out[e.id] = Name(e.id, "event", getattr(e, "span", None), f"**event {md(e.id)}**", "event")
    for d in model.dice.values():
        out[d.id] = Name(d.id, "dice", getattr(d, "span", None), f"**dice {md(d.id)}**", "dice")
    for m in model.modifiers.values():
        out[m.id] = Name(m.id, "modifier", getattr(m, "span", None), f"**modifier {md(m.id)}**" + (f"\n\n{md(m.doc)}" if m.doc else ""),
                         "modifier")
    scope = model.scope
    for f in (scope.functions.values() if scope is not None else ()):
        sig = f"{f.name}({', '.join(f.params)})"
        out[f.name] = Name(f.name, "function", f.span, f"**function** `{sig}`", sig)
    for s in model.sequences.values():
        title = s.title or s.id
        out[s.id] = Name(s.id, "sequence", s.span, f"**{md(title)}** ({md(s.kind or 'sequence')} `{s.id}`"
                         + (f", takes {md(', '.join(s.params))}" if s.params else "") + ")"
                         + (f"\n\nsource: {md(s.source)}" if s.source else "") + (f"\n\n{md(s.doc)}" if s.doc else ""),
                         f"{s.kind or 'sequence'}: {title}")
    return out


def attributes(model: Any, owner: str) -> list[str]:
    """What may follow 'player.' or 'card.' (or 'TABLE[...].': the table's columns)."""
    scope = model.scope if model is not None else None
    if owner == "player":
        return sorted((scope.player_vars | scope.player_zones if scope else set()) | set(PLAYER_FIELDS))
    if owner == "card":
        return sorted((scope.card_attrs | set(scope.marks) if scope else set()) | set(CARD_FIELDS))
    if model is not None and owner in model.tables:
        return list(model.tables[owner].columns)
    return []


def builtins() -> dict[str, Name]:
    return {n: builtin_name(b) for n, b in sorted(REGISTRY.items())}
