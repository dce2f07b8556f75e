"""The instructions that wait for players: a decision ('choose'), sealed choices, the stack."""

from __future__ import annotations

from typing import Any, Optional

from ...diagnostics import RuleError
from ...dsl.builtins import as_list, describe
from ...values import Card, Player
from ..decisions import Decision, display_names, label, narrate_choice, shown

ANSWER = "__answer"
_MISSING = object()



_NODES: dict = {}  # id(decision spec) -> (spec, its place as text)

def decide(g, spec, purpose: str = "choose") -> Any:
    """The answer of a decision taken at once (only one option), or _MISSING with the decision pending.

    Without the story, a `one` decision with a single option is answered without building the Decision (most
    of dml's decisions are such): its prompt and default are still worked out, so every charge of work and
    every chance draw is the same as when the decision is built."""
    if spec.kind == "one" and not g.story and spec.display is None:
        who = spec.player.fn(g)
        if who.__class__ is not Player and not isinstance(who, Player):
            raise RuleError(f"a decision needs a player to decide, got {describe(who)}", spec.player.span)
        prompt = spec.prompt.fn(g) if spec.prompt is not None else ""  # in the order make_decision works them out
        opts = list(as_list(g, spec.options.fn(g), spec.options.span))
        if len(opts) + (1 if spec.optional else 0) == 1:
            if spec.default is not None:
                spec.default.fn(g)
            return opts[0] if opts else None
        return ask(g, make_decision(g, spec, purpose, who, opts, prompt))
    return ask(g, make_decision(g, spec, purpose))


def make_decision(g, spec, purpose: str = "choose", who: Any = None, opts: Optional[list] = None,
                  prompt: Optional[str] = None) -> Decision:
    """Build the decision a spec describes (`who`, `opts`, `prompt`: as already worked out by `decide`)."""
    if who is None:
        who = spec.player.fn(g)
        if who.__class__ is not Player and not isinstance(who, Player):
            raise RuleError(f"a decision needs a player to decide, got {describe(who)}", spec.player.span)
        prompt = spec.prompt.fn(g) if spec.prompt is not None else ""
    kind = spec.kind
    node = _NODES.get(id(spec))
    if node is None or node[0] is not spec:  # the place of the step, as text: worked out once per spec
        if len(_NODES) > 10_000:  # rulesets loaded and dropped one after another: do not keep them all alive
            _NODES.clear()
        node = _NODES[id(spec)] = (spec, str(spec.span))
    d = Decision(who.seat, kind, prompt, purpose=purpose, node=node[1])
    if kind == "yesno":
        d.options = [True, False]
    elif kind == "number":
        lo, hi = spec.min.fn(g), spec.max.fn(g)
        for v in (lo, hi):
            if isinstance(v, bool) or not isinstance(v, int):
                raise RuleError(f"a number decision needs whole-number bounds, got {describe(v)}", spec.span)
        d.min, d.max = lo, hi
        d.optional = spec.optional
        if lo > hi and not d.optional:
            raise RuleError(f"a number decision from {lo} to {hi} has no legal answer", spec.span)
    else:
        if opts is None:
            opts = list(as_list(g, spec.options.fn(g), spec.options.span))
        if kind == "one":
            if spec.optional:
                opts.append(None)
            if not opts:
                raise RuleError(f"{who} must choose, but there are no options", spec.span,
                                "guard the step with an 'if', or make the decision optional")
        d.options = opts
        if kind == "subset":
            d.min = spec.min.fn(g) if spec.min is not None else 0
            d.max = spec.max.fn(g) if spec.max is not None else len(opts)
            for v in (d.min, d.max):
                if isinstance(v, bool) or not isinstance(v, int):
                    raise RuleError(f"a subset decision needs whole-number bounds, got {describe(v)}", spec.span)
            d.max = min(d.max, len(opts))
            if d.min > d.max:
                raise RuleError(f"{who} must choose at least {d.min} of {len(opts)} options", spec.span)
    if spec.display is not None and d.options:
        d.labels = display_names(g, spec, d.options)
    if spec.default is not None:
        d.default = _to_wire(d, spec.default.fn(g))
    # 'secret: false' makes a play from a hidden hand an open one; unsaid (None), ask looks whether the options
    # hide cards, only for a decision someone will see
    d.secret = spec.secret
    return d

def _hidden_from_others(g, d: Decision) -> bool:
    """Whether some option is a card that another seat cannot see where it lies (so the answer is a secret)."""
    opts = d.options
    if Card not in map(type, opts):  # options of numbers, players, texts: nothing to hide (a scan in C)
        return False
    for o in opts:
        if type(o) is Card:
            ref = g.where.get(o.index)
            if ref is None:
                continue
            vis = g.rs.zones[ref.zone].visibility
            if vis == "open" or (vis == "top" and g.zones[ref] and g.zones[ref][-1] is o):
                continue
            if vis == "owner":
                owner = g.zone_owner(ref)
                if owner is not None and len(g.players) == 1:
                    continue
            return True
    return False

def _to_wire(d: Decision, value: Any) -> Any:
    if d.kind in ("yesno", "number"):
        return value
    if d.kind == "one":
        try:
            return d.options.index(value)
        except ValueError:
            return None
    if isinstance(value, list):
        return sorted(d.options.index(v) for v in value if v in d.options)
    return None

def forced(d: Decision) -> Any:
    """The wire choice when only one is legal, else _MISSING."""
    kind = d.kind
    if kind == "one":
        return 0 if len(d.options) == 1 else _MISSING
    if kind == "number":
        if d.min == d.max and not d.optional:
            return d.min
        if d.optional and d.min > d.max:
            return None  # nothing to choose but the pass
    elif kind == "subset":
        if not d.options or d.max == 0:
            return []
        if d.min == len(d.options):
            return list(range(len(d.options)))
    return _MISSING

def ask(g, d: Decision) -> Any:
    """Return the answer value if the decision is forced; otherwise suspend on it."""
    wire = forced(d)
    if wire is not _MISSING:
        value = d.value(wire)
        if d.purpose != "sealed" and value != [] and g.story:
            if d.secret is None:
                d.secret = d.kind in ("one", "subset") and _hidden_from_others(g, d)
            narrate_choice(g, d, value, " (the only choice)")
        return value
    if d.secret is None:
        d.secret = d.kind in ("one", "subset") and _hidden_from_others(g, d)
    d.number = g.decisions
    g.pending = d
    return _MISSING

def h_choose(g, f, ins) -> None:
    spec = ins.arg
    answer = f.locals.pop(ANSWER, _MISSING)
    if answer is _MISSING:
        answer = decide(g, spec)
        if answer is _MISSING:
            return
    if spec.bind:
        f.locals[spec.bind] = answer
    f.pc += 1

def h_sealed(g, f, ins) -> None:
    step = ins.arg
    key = ins.extra
    st = f.locals.get(key)
    if st is None:
        players = as_list(g, step.iterable.fn(g), step.iterable.span)
        st = f.locals[key] = {"players": list(players), "i": 0, "results": []}
    answer = f.locals.pop(ANSWER, _MISSING)
    if answer is not _MISSING:
        st["results"].append(answer)
        st["i"] += 1
    while st["i"] < len(st["players"]):
        p = st["players"][st["i"]]
        f.locals[step.var] = p
        got = decide(g, step.decision, "sealed")
        if got is _MISSING:
            return
        st["results"].append(got)
        st["i"] += 1
    choices = dict(zip(st["players"], st["results"]))
    del f.locals[key]
    if step.bind:
        f.locals[step.bind] = choices
    if g.story and step.decision.secret:  # answers that stay secret: each reads their own, the others that it was made
        for p, v in choices.items():
            if isinstance(p, Player):
                g.say(f"{p} chose in secret: {shown(g, f, step, p, v)}", only=(p.seat,), public=f"{p} chose in secret")
    elif g.story:
        g.say("Revealed: " + ", ".join(f"{p}: {shown(g, f, step, p, v)}" for p, v in choices.items()), kind="reveal")
    g._emit("revealed", {"choices": choices})
    f.pc += 1

def h_stack_begin(g, f, ins) -> None:
    step = ins.arg
    order = as_list(g, step.iterable.fn(g), step.iterable.span)
    f.locals[ins.extra] = {"order": list(order), "i": 0, "passes": 0, "last": None, "played": [], "by": None}
    f.pc += 1

def h_stack_offer(g, f, ins) -> None:
    step = ins.arg
    key, onplay_pc = ins.extra
    st = f.locals[key]
    order = st["order"]
    n = len(order)
    zone = step.zone.fn(g) if step.zone is not None else None  # no zone: a stack of any values (claims, blocks)
    answer = f.locals.pop(ANSWER, _MISSING)
    while True:
        if answer is not _MISSING:
            p = order[st["i"]]
            st["i"] = (st["i"] + 1) % n if n else 0
            if zone is None:
                played = [] if answer is None else list(answer) if isinstance(answer, list) else [answer]
            else:
                played = list(answer) if answer else []
            if played:
                if zone is None:
                    st.setdefault("entries", []).extend(played)
                else:
                    g.move(answer, zone, "top", ins.span, p)
                st["played"] = played
                st["by"] = p
                st["last"] = p
                st["passes"] = 0
                g.say(f"{p} plays {label(played)} onto the stack")
                f.pc = onplay_pc
                return
            st["passes"] += 1
            answer = _MISSING
        if n == 0 or (st["last"] is None and st["passes"] >= n) or (st["last"] is not None and st["passes"] >= n - 1):
            f.pc = ins.target
            return
        p = order[st["i"]]
        f.locals[step.var] = p
        got = ask(g, make_decision(g, step.play, "stack"))
        if got is _MISSING:
            return
        answer = got

def h_stack_onplay_next(g, f, ins) -> None:
    st = f.locals[ins.extra]
    if st["played"]:
        f.locals["card" if ins.arg.zone is not None else "entry"] = st["played"].pop(0)
        f.locals[ins.arg.var] = st["by"]
        f.pc += 1
    else:
        f.pc = ins.target

def h_stack_resolve_next(g, f, ins) -> None:
    step = ins.arg
    if step.zone is None:  # a stack of values: the last one played is taken off and resolved
        entries = f.locals[ins.extra].get("entries") or []
        if not entries:
            f.locals.pop(ins.extra, None)
            f.pc = ins.target
            return
        f.locals["entry"] = entries.pop()
        f.pc += 1
        return
    cards = g.zone_cards(step.zone.fn(g))
    if not cards:
        f.locals.pop(ins.extra, None)
        f.pc = ins.target
        return
    top = cards[-1]
    f.locals["card"] = top
    f.locals[ins.extra]["resolving"] = top
    f.pc += 1

def h_stack_resolved(g, f, ins) -> None:
    step = ins.arg
    if step.zone is None:
        f.pc += 1
        return
    st = f.locals[ins.extra]
    card = st.get("resolving")
    if isinstance(card, Card) and card in g.zone_cards(step.zone.fn(g)):
        raise RuleError(f"resolving {card.id} left it on the stack", ins.span,
                        "the 'resolve' steps must move each card off the stack (e.g. to a discard zone)")
    f.pc += 1
