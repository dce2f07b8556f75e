"""Phrases of steps and triggers (the constructs of a sequence), each from its parts' phrases."""

from __future__ import annotations

from rulecraft.model import ruleset as M
from rulecraft.model.kinds import KINDS

from rulecraft.tools.words.core import Words, capital, humanize, join_and, phrase


@phrase(M.ActionStep)
def _action(w: Words, s: M.ActionStep) -> str:
    from rulecraft.tools.words.bookkeeping import is_bookkeeping

    stmts = [st for st in s.stmts if w.detail == "full" or not is_bookkeeping(w.rs, st)] or list(s.stmts)
    return "; ".join(w.node(st.ast) for st in stmts)


@phrase(M.CallStep)
def _call(w: Words, s: M.CallStep) -> str:
    args = ", ".join(f"{humanize(k)} {w.expr(v)}" for k, v in s.args)
    return f"play {w.name(s.sequence)}" + (f" ({args})" if args else "")


@phrase(M.IfStep)
def _if(w: Words, s: M.IfStep) -> str:
    rule = _house_rule(w, s.cond.ast if s.cond is not None else None)
    return f"if {rule}?" if rule else f"if {w.expr(s.cond)}?"


def _house_rule(w: Words, e) -> str:
    """A condition a house rule decides ('seize_tie == "first_in_order"'), named as the rule, not folded away."""
    from rulecraft.dsl import ast as A

    if isinstance(e, A.Compare) and e.op in ("==", "!=") and isinstance(e.left, A.Name) and e.left.id in w.rs.options:
        return f"the house rule “{humanize(e.left.id)}” is {'not ' if e.op == '!=' else ''}{w.expr(e.right)}"
    if isinstance(e, A.BinOp) and e.op in ("and", "or") and w.is_constant(e):
        parts = [_house_rule(w, e.left) or w.expr(e.left), _house_rule(w, e.right) or w.expr(e.right)]
        return f" {e.op} ".join(parts)
    return ""


@phrase(M.LoopStep)
def _loop(w: Words, s: M.LoopStep) -> str:
    if s.mode == "while":
        return f"repeat while {w.expr(s.cond)}"
    if s.mode == "until":
        return f"repeat until {w.expr(s.cond)}"
    return f"repeat until the {humanize(s.name)} stops" if s.name else "repeat"


@phrase(M.ForEachStep)
def _for_each(w: Words, s: M.ForEachStep) -> str:
    return f"for {w.expr(s.iterable)}" if _is_each(w, s) else f"for each {humanize(s.var)} in {w.expr(s.iterable)}"


def _is_each(w: Words, s) -> bool:
    """An iterable whose phrase already says 'each ...' (seat order, keys, a filtered list)."""
    return w.expr(s.iterable).startswith("each ")


_KINDS = {"one": "one of", "subset": "any of", "number": "a number", "yesno": "yes or no"}


@phrase(M.DecisionSpec)
def _decision(w: Words, d: M.DecisionSpec) -> str:
    if d.prompt is not None:
        text = w.text(d.prompt)
        who = w.expr(d.player)
        return f"{who}: {text}" if who and who not in text else text
    what = _KINDS.get(d.kind, humanize(d.kind))
    if d.kind in ("one", "subset") and d.options is not None:
        what += " " + w.expr(d.options)
    elif d.kind == "number" and d.min is not None and d.max is not None:
        what += f" from {w.expr(d.min)} to {w.expr(d.max)}"
    return f"{w.expr(d.player)} chooses {what}"


@phrase(M.ChooseStep)
def _choose(w: Words, s: M.ChooseStep) -> str:
    return w.node(s.decision) if s.decision is not None else "a player decides"


@phrase(M.SealedStep)
def _sealed(w: Words, s: M.SealedStep) -> str:
    who = w.expr(s.iterable)
    who = who if who.startswith("each ") else f"each {humanize(s.var)} in {who}"
    what = w.text(s.decision.prompt) if s.decision is not None and s.decision.prompt is not None else "chooses"
    if s.decision is not None and s.decision.secret:
        return f"{who}, in secret: {what}; the answers stay secret"
    return f"{who}, in secret: {what}; then all reveal"


@phrase(M.StackStep)
def _stack(w: Words, s: M.StackStep) -> str:
    who = w.expr(s.iterable) if s.iterable is not None else "the players"
    return f"{who} may play onto {w.expr(s.zone)}; then resolve it last in, first out"


@phrase(M.Trigger)
def _trigger(w: Words, t: M.Trigger) -> str:
    when = f" and {w.expr(t.when)}" if t.when is not None else ""
    timing = "at once" if t.timing == "now" else f"after the {humanize(t.after_kind or 'action')}"
    return f"whenever {_EVENTS.get(t.on, 'there is ' + humanize(t.on))}{when}: play {w.name(t.run)} {timing}"


_EVENTS = {"drawn": "a card is drawn", "moved": "a card moves", "rolled": "dice are rolled",
           "shuffled": "a zone is shuffled", "revealed": "secret choices are revealed"}


def block(w: Words, steps, depth: int = 0) -> list[str]:
    """Steps and the steps they hold as indented sentences (for the book's text view)."""
    out = []
    for s in steps:
        out.append("  " * depth + capital(w.step(s)) + ("" if w.step(s).endswith(("?", ".")) else "."))
        for name, body in s.bodies:
            if body:
                out += block(w, body, depth + 1)
    return out


__all__ = ["block", "join_and"]


@phrase(M.ConstructStep)
def _construct(w: Words, s: M.ConstructStep) -> str:
    """An auction or a response window: its rule, with each setting the designer wrote as an expression said in
    words (parameters by their value, house rules by their name)."""
    kind = KINDS.get(s.construct)
    if kind is not None and kind.words is not None:  # a registered kind says itself, given this renderer
        return kind.words(s, w)
    from rulecraft.dsl.parser import parse_expression, plain_locator

    rule = s.rule or f"{s.construct} ({', '.join(k for k, _v in s.settings)})"
    for _key, text in sorted(s.settings, key=lambda kv: -len(str(kv[1]))):  # longest first: no setting inside another
        text = str(text)
        if not text or text not in rule:
            continue
        try:
            said = w.expr(parse_expression(text, plain_locator()))
        except Exception:  # noqa: BLE001 - a setting that is not an expression stays as written
            continue
        rule = rule.replace(text, said)
    return rule
