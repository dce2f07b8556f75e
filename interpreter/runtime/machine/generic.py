"""A decision asked by the generic steps (the route "any" of questions.decide): its spec, of any kind, worked out into
the Decision a player is asked (`make_decision`); and a subset with bounds, the usual case of that route, worked out
the same way but answered without a Decision where nothing reads one (`bounded`). What the routes share: who decides
(`player`), the options as a list of the decision's own (`options_of`), a Decision left pending (`pending`)."""

from __future__ import annotations

from typing import Any, Optional

from ...diagnostics import RuleError
from ...dsl.builtins import as_list, describe
from ...values import Player
from ..decisions import _INTS, MISSING, Decision
from ..knowledge import unordered
from ..story import display_names
from .answers import by_bot, taken
from .plans import _PLANS, _Plan, plan_of


def player(who, spec) -> Player:
    if who.__class__ is not Player and not isinstance(who, Player):
        raise RuleError(f"a decision needs a player to decide, got {describe(who)}", spec.player.span)
    return who


def options_of(g, value, spec) -> list:
    """The options of a decision: the value of its options expression as a list of its own, each card of a zone
    whose order nobody knows in the ruleset's card order (knowledge.unordered)."""
    opts = list(value) if value.__class__ is list else list(as_list(g, value, spec.options.span))
    return unordered(g, opts) if g.orderless else opts


def pending(g, d: Decision) -> Any:
    """`d`, which no answer is forced for, pending: MISSING, or the answer of its seat's bot (answers.by_bot). (Whether
    its options hide cards, when its spec does not say, is looked at when read, while it is pending.)"""
    g.pending = d
    return MISSING if g.bots is None else by_bot(g, d)


def _whole(low, high, spec, kind: str) -> None:
    """A number or subset decision's bounds, which are not both of the class int: the error of one that is no whole
    number (a bool is none)."""
    for v in (low, high):
        if isinstance(v, bool) or not isinstance(v, int):
            raise RuleError(f"a {kind} decision needs whole-number bounds, got {describe(v)}", spec.span)


def make_decision(g, spec, step, purpose: str = "choose", known: Optional[tuple] = None) -> Decision:
    """Build the decision a spec describes (any kind); `known`: its player, prompt and options already worked out."""
    plan = _PLANS.get(id(spec))
    if plan is None:
        plan = plan_of(g, spec)
    p = spec.prompt
    if known is None:
        who = player(spec.player.fn(g), spec)
        prompt = "" if p is None else p.fn(g) if g.story or plan.prompt_now else None
    else:
        who, prompt, opts = known
    kind = spec.kind
    form = plan.form_for(step, purpose)
    # 'secret: false' makes a play from a hidden hand an open one; unsaid (None), looked at in `g` when read (ask
    # looks at once for a decision told in the story)
    d = Decision(who.seat, kind, prompt, [True, False] if kind == "yesno" else None, 0, 0, None, form, g.decisions,
                 None, 0, plan.secret, g)
    if kind == "number":
        lo, hi = spec.min.fn(g), spec.max.fn(g)
        if lo.__class__ is not int or hi.__class__ is not int:
            _whole(lo, hi, spec, kind)
        d.min, d.max = lo, hi
        if spec.optional:
            d.optional = True
        if lo > hi and not spec.optional:
            raise RuleError(f"a number decision from {lo} to {hi} has no legal answer", spec.span)
    elif kind != "yesno":
        if known is None:
            opts = options_of(g, spec.options.fn(g), spec)
        if kind == "one":
            if spec.optional:
                opts.append(None)
            if not opts:
                raise RuleError(f"{who} must choose, but there are no options", spec.span,
                                "guard the step with an 'if', or make the decision optional")
        d.options = opts
        n = d.count
        if kind == "subset":
            lo = spec.min.fn(g) if spec.min is not None else 0
            hi = spec.max.fn(g) if spec.max is not None else n
            if lo.__class__ is not int or hi.__class__ is not int:
                _whole(lo, hi, spec, kind)
            hi = min(hi, n)
            if lo > hi:
                raise RuleError(f"{who} must choose at least {lo} of {n} options", spec.span)
            d.min, d.max = lo, hi
        if spec.display is not None and opts:
            d.labels = display_names(g, spec, opts)
    if spec.default is not None:
        d.default = d.wire_of(spec.default.fn(g))
    return d


def bounded(g, spec, step, purpose: str, plan: _Plan, each: Any) -> Any:
    """A subset with bounds (`min`, `max` or both), no display names, no default, its prompt worked out only when read,
    in a game that tells no story (the plan's `bounded`): worked out as make_decision works it out (who decides, the
    options, the lowest, the highest, in that order, with the same errors: the lowest even with no options), then the
    answer `ask` would force (none, or all), else the seat's bot's pick (answers.subset_pick_of) without a Decision,
    its wire checked as Decision.legal checks a subset's and the answer taken (answers.taken); anything else (no pick,
    no decision left to answer, a lowest below 0, a pick that fails or gives no legal answer) makes the Decision,
    pending, and by_bot asks the seat's `choose` (the same answer: its check says what is wrong with it). `each`: as
    decide's."""
    who = each if each is not None and plan.player_var == step.var else g.locals.get(plan.who_local)
    if who.__class__ is not Player:  # (not a local name, or one unset or not a player: the call, its error)
        who = player(plan.who(g), spec)
    opts = options_of(g, plan.options(g), spec)
    n = len(opts)
    least = plan.least
    lo = 0 if least is None else least(g)
    most = plan.most
    hi = n if most is None else most(g)
    if lo.__class__ is not int or hi.__class__ is not int:
        _whole(lo, hi, spec, "subset")
    if hi > n:
        hi = n
    if lo > hi:
        raise RuleError(f"{who} must choose at least {lo} of {n} options", spec.span)
    if not n or hi == 0:  # forced (Decision.forced): nothing
        return []
    if lo == n:  # or all (a list of its own)
        return opts
    bots = g.bots
    if bots is not None and lo >= 0:
        sets = bots.sets
        pick = (bots.subset_picks() if sets is None else sets)[who.seat]
        left = bots.left
        if pick is not None and left != 0:
            try:
                wire = pick(lo, hi, n, g.decisions)
            except BaseException as exc:  # (raised by Game.play outside the running code, the decision pending)
                bots.failed = exc
                wire = None
            if wire.__class__ is list and lo <= len(wire) <= hi and _INTS.issuperset(map(type, wire)):
                chosen = sorted(set(wire))  # (option numbers, each once, from 0 to n - 1: legal)
                if len(chosen) == len(wire) and (not chosen or (chosen[0] >= 0 and chosen[-1] < n)):
                    if left is not None:
                        bots.left = left - 1
                    taken(g, None, None)
                    return list(map(opts.__getitem__, chosen))
    # (player, kind, prompt, options, min, max, default, form, number, low, count, secret, game)
    return pending(g, Decision(who.seat, "subset", plan.unread, opts, lo, hi, None, plan.form_for(step, purpose),
                               g.decisions, None, 0, plan.secret, g))
