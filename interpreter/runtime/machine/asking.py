"""The instructions that wait for players: a decision ('choose'), sealed choices, the stack."""

from __future__ import annotations

from typing import Any, Optional

from ...diagnostics import RuleError
from ...dsl import ast as A
from ...dsl.builtins import REGISTRY, as_list, describe
from ...dsl.guards import COPY_SHIFT, MAX_VALUES, charge, scanned
from ...dsl.ops import MAX_RANGE
from ...values import Card, Player
from ..decisions import NOT_FORCED, Decision, display_names, hidden_from_others, label, narrate_choice, shown

ANSWER = "__answer"
_MISSING = object()



_PLANS: dict = {}  # id(decision spec) -> its _Plan


class _Plan:
    """What asking a decision needs of its spec, worked out once per spec (the first time it is asked): the place
    of its step as text; whether its prompt or default may draw chance (then they are worked out at every asking,
    read or not, so the dice fall the same); whether its default is the pass; whether its options may be told by
    shape (`spec.amounts`: the pass, then every whole number from low to high, never built as a list)."""

    __slots__ = ("spec", "node", "prompt_now", "default_now", "default_none", "amounts")

    def __init__(self, g, spec):
        rs = g.rs
        self.spec = spec
        self.node = str(spec.span)
        self.prompt_now = spec.prompt is not None and draws_chance(rs, spec.prompt.ast)
        d = spec.default
        self.default_now = d is not None and draws_chance(rs, d.ast)
        self.default_none = d is not None and d.ast.__class__ is A.Const and d.ast.value is None
        am = getattr(spec, "amounts", None)
        # the bounds are worked out again (as part of the whole options) where they break a rule: never when they
        # may draw chance
        self.amounts = am if am is not None and spec.kind == "one" and not spec.optional and spec.display is None \
            and not any(draws_chance(rs, e.ast) for e in am) else None


def plan_of(g, spec) -> _Plan:
    plan = _PLANS.get(id(spec))
    if plan is None or plan.spec is not spec:
        if len(_PLANS) > 10_000:  # rulesets loaded and dropped one after another: do not keep them all alive
            _PLANS.clear()
        plan = _PLANS[id(spec)] = _Plan(g, spec)
    return plan


def draws_chance(rs, node) -> bool:
    """Whether evaluating `node` may draw from the game's random generator (directly or through a function)."""
    todo, seen = [node], set()
    functions = rs.functions
    while todo:
        for sub in todo.pop().walk():
            if sub.__class__ is not A.Call:
                continue
            fd = functions.get(sub.func)
            if fd is None:
                b = REGISTRY.get(sub.func)
                if b is not None and b.chance:
                    return True
            elif sub.func not in seen and fd[1] is not None:
                seen.add(sub.func)
                todo.append(fd[1])
    return False


def _who(g, spec) -> Player:
    who = spec.player.fn(g)
    if who.__class__ is not Player and not isinstance(who, Player):
        raise RuleError(f"a decision needs a player to decide, got {describe(who)}", spec.player.span)
    return who


def decide(g, spec, purpose: str = "choose") -> Any:
    """The answer of a decision taken at once (only one option), or _MISSING with the decision pending.

    A `one` decision is made here without the generic steps of make_decision (most decisions are such). Without
    the story, one with a single option is answered without building a Decision, and a prompt is worked out
    only when it is read (unless it may draw chance): nobody reads it in a simulation. Options told by shape
    (`spec.amounts`) are counted, not built."""
    if spec.kind != "one" or spec.display is not None:
        return ask(g, make_decision(g, spec, purpose))
    plan = _PLANS.get(id(spec))
    if plan is None or plan.spec is not spec:
        plan = plan_of(g, spec)
    who = spec.player.fn(g)
    if who.__class__ is not Player and not isinstance(who, Player):
        raise RuleError(f"a decision needs a player to decide, got {describe(who)}", spec.player.span)
    story = g.story
    p = spec.prompt
    prompt = "" if p is None else p.fn(g) if story or plan.prompt_now else None
    am = plan.amounts
    low = None
    if am is not None:
        low, high = am[0].fn(g), am[1].fn(g)
        n = (high - low + 2 if high >= low else 1) if low.__class__ is int and high.__class__ is int else 0
        if 0 < n <= MAX_VALUES and high - low < MAX_RANGE:
            if n >> COPY_SHIFT:  # as building the list would charge
                charge(g, n >> COPY_SHIFT, spec.options.span)
        else:  # a bound that breaks a rule: the options worked out in full give its error
            low = None
    if low is None:
        opts = list(as_list(g, spec.options.fn(g), spec.options.span))
        if spec.optional:
            opts.append(None)
        n = len(opts)
        if not n:
            raise RuleError(f"{who} must choose, but there are no options", spec.span,
                            "guard the step with an 'if', or make the decision optional")
    if n == 1 and not story:  # answered at once, and nobody reads the story
        if plan.default_now:
            spec.default.fn(g)
        return None if low is not None else opts[0]
    d = _NEW(Decision)
    d.player = who.seat
    d.kind = "one"
    d.node = plan.node
    if purpose != "choose":
        d.purpose = purpose
    if prompt is None:
        d._prompt_of = (p.fn, g)
    else:
        d._prompt = prompt
    if low is not None:
        d.low = low
        d.count = n
    else:
        d._options = opts
        d.count = n
        d.secret = spec.secret  # None: ask looks whether the options hide cards, when someone will see it
    if spec.default is not None:
        if plan.default_none:
            d.default = 0 if low is not None else (opts.index(None) if None in opts else None)
        else:
            d.default = d.wire_of(spec.default.fn(g))
    if low is not None and spec.secret:
        d.secret = True
    return ask(g, d)


_NEW = object.__new__


def make_decision(g, spec, purpose: str = "choose") -> Decision:
    """Build the decision a spec describes (any kind)."""
    plan = _PLANS.get(id(spec))
    if plan is None or plan.spec is not spec:
        plan = plan_of(g, spec)
    who = _who(g, spec)
    p = spec.prompt
    prompt = "" if p is None else p.fn(g) if g.story or plan.prompt_now else None
    kind = spec.kind
    d = _NEW(Decision)
    d.player = who.seat
    d.kind = kind
    d.node = plan.node
    if purpose != "choose":
        d.purpose = purpose
    if prompt is None:
        d._prompt_of = (p.fn, g)
    else:
        d._prompt = prompt
    if kind == "yesno":
        d._options = [True, False]
        d.count = 2
    elif kind == "number":
        lo, hi = spec.min.fn(g), spec.max.fn(g)
        for v in (lo, hi):
            if isinstance(v, bool) or not isinstance(v, int):
                raise RuleError(f"a number decision needs whole-number bounds, got {describe(v)}", spec.span)
        d.min, d.max = lo, hi
        if spec.optional:
            d.optional = True
        if lo > hi and not spec.optional:
            raise RuleError(f"a number decision from {lo} to {hi} has no legal answer", spec.span)
    else:
        opts = list(as_list(g, spec.options.fn(g), spec.options.span))
        if kind == "one":
            if spec.optional:
                opts.append(None)
            if not opts:
                raise RuleError(f"{who} must choose, but there are no options", spec.span,
                                "guard the step with an 'if', or make the decision optional")
        d._options = opts
        n = d.count = len(opts)
        if kind == "subset":
            lo = spec.min.fn(g) if spec.min is not None else 0
            hi = spec.max.fn(g) if spec.max is not None else n
            for v in (lo, hi):
                if isinstance(v, bool) or not isinstance(v, int):
                    raise RuleError(f"a subset decision needs whole-number bounds, got {describe(v)}", spec.span)
            hi = min(hi, n)
            if lo > hi:
                raise RuleError(f"{who} must choose at least {lo} of {n} options", spec.span)
            d.min, d.max = lo, hi
        if spec.display is not None and opts:
            d.labels = display_names(g, spec, opts)
    if spec.default is not None:
        d.default = d.wire_of(spec.default.fn(g))
    # 'secret: false' makes a play from a hidden hand an open one; unsaid (None), ask looks whether the options
    # hide cards, only for a decision someone will see
    if spec.secret is not False:
        d.secret = spec.secret
    return d

def ask(g, d: Decision) -> Any:
    """Return the answer value if the decision is forced; otherwise suspend on it."""
    wire = d.forced()
    if wire is not NOT_FORCED:
        value = d.value(wire)
        if g.story and d.purpose != "sealed" and value != []:
            if d.secret is None:
                d.secret = d.kind in ("one", "subset") and hidden_from_others(g, d)
            narrate_choice(g, d, value, " (the only choice)")
        return value
    if d.secret is None:
        d.secret = d.kind in ("one", "subset") and hidden_from_others(g, d)
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
    if step.reckon is not None:
        reckon(g, f, step.reckon, choices, ins.span)
    f.pc += 1


def reckon(g, f, rk, bids: dict, span) -> None:
    """The end of a sealed auction of amounts (model.Reckoning): the values, locals, chance draws and work of
    the reckoning step its expansion would run (loader/constructs/auction.py), without running it."""
    loc = f.locals
    among = loc[rk.among]
    charge(g, len(among) * (2 if rk.second is None else 3), span)  # a comprehension over them for each value
    amounts = [bids[q] for q in among if bids[q] is not None]
    top = max(amounts) if amounts else None
    tied = [q for q in among if bids[q] is not None and bids[q] == top]
    winner = None
    if tied:
        ties = rk.ties
        rule = ties if ties.__class__ is str else ties.fn(g)
        if rule == "first_in_order":
            winner = tied[0]
        elif (rule if ties.__class__ is str else ties.fn(g)) == "random":  # (an expression is asked again)
            winner = tied[g.random_index(len(tied))]
        elif len(tied) == 1:
            winner = tied[0]
    loc[rk.top], loc[rk.tied], loc[rk.winner] = top, tied, winner
    price = second = 0
    if rk.second is not None:
        rest = [bids[q] for q in among if q != winner and bids[q] is not None]
        second = loc[rk.second] = max(rest) if rest else None
        if len(rest) >= 16:
            scanned(g, len(rest), span)
    if winner is not None:
        rule = rk.price if rk.price.__class__ is str else rk.price.fn(g)
        price = top if rule == "first" else second if second is not None else rk.min_bid.fn(g)
    if len(amounts) >= 16:
        scanned(g, len(amounts), span)
    scanned(g, 5 + len(tied), span)  # the record, as record() charges it
    loc[rk.result] = {"winner": winner, "price": price, "bid": bids[winner] if winner is not None else None,
                      "tied": tied, "dropped": []}

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
