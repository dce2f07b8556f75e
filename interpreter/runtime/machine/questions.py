"""The question a decision step puts: its spec worked out into the Decision a player is asked, or into the answer
at once when there is nothing to choose (see `decide`). The steps that ask are in decision_steps.py; how an
answer is taken, in answers.py."""

from __future__ import annotations

from typing import Any

from ...diagnostics import RuleError
from ...dsl.guards import COPY_SHIFT, charge
from ...values import Player
from ..decisions import MISSING, Decision, hidden_from_others
from ..story import narrate_choice, narrate_sealed_forced
from .answers import DECISION_STEPS, by_bot, too_many_decisions
from .generic import bounded, make_decision, options_of, pending, player
from .plans import _AMOUNTS, _Plan, plan_of


def decide(g, spec, step, purpose: str = "choose", each: Any = None, high: Any = MISSING) -> Any:
    """The answer of a decision taken at once (only one option), or MISSING with the decision pending; `step` is the
    model step that asks (the Decision's `step`); `each`: the player a sealed or stack step has just put in its
    variable (`step.var`), who decides when the spec's player is that variable (not worked out again); `high`: the
    highest amount of a bid, when the caller worked it out (decision_steps.bids).

    A `one` or `yesno` decision is made here, a subset without bounds by _subset, without the generic steps of
    make_decision (most decisions are such). Without the story, one with a single option is answered without building a
    Decision, and a prompt is worked out only when it is read (unless it may draw chance): nobody reads it in a
    simulation; nor is one built for a bot's pick (below). Options told by shape (`spec.amounts`) are counted, not
    built."""
    plan = g.plans.get(id(spec))  # (its own: plans.plan_of)
    if plan is None:
        plan = plan_of(g, spec)
    quick = plan.quick  # (None for the route "any": a quick asking is a 'one' or a 'yesno')
    story = g.story
    if quick is None or story:
        route = plan.route
        if route == "any":
            if plan.bounded and not story:  # a subset with bounds (generic.bounded)
                return bounded(g, spec, step, purpose, plan, each)
            return ask(g, make_decision(g, spec, step, purpose))
        who = each if each is not None and plan.player_var == step.var else g.locals.get(plan.who_local)
        if who.__class__ is not Player:  # (not a local name, or one unset or not a player: the call, its error)
            who = player(plan.who(g), spec)
        if route == "subset":
            if story or plan.prompt_now:  # (its prompt worked out first)
                return _subset(g, spec, step, purpose, plan, who)
            opts = plan.options(g)
            if opts.__class__ is list and not opts:  # no options, nobody reads the story: as _subset, written out
                if plan.default_now:
                    plan.default(g)
                return []
            return _subset(g, spec, step, purpose, plan, who, opts)
        known = MISSING  # (the lowest amount, when worked out below)
    else:
        who = each if each is not None and plan.player_var == step.var else g.locals.get(plan.who_local)
        if who.__class__ is not Player:  # (as above)
            who = player(plan.who(g), spec)
        if quick == "amounts":  # a bid of amounts whose prompt nobody reads and whose default is the pass (an open
            # auction's): its bounds, then the seat's pick as below, without the rest of the steps
            low = plan.low_fixed
            if low is None:
                ll = plan.low_local  # (a local plus a whole number: read as its expression reads it, plans.low_local;
                # unset, no whole number, or a runaway: the call, its error)
                if ll is None:
                    low = plan.low(g)
                else:
                    name, plus, bound = ll
                    low = g.locals.get(name)
                    low = low + plus if low.__class__ is int and abs(low) <= bound else plan.low(g)
            if high is MISSING:  # (a player variable of who decides: read as its expression reads it, plans.high_var)
                hv = plan.high_var
                high = plan.high(g) if hv is None else g.pvars[who.seat][hv]
            if low.__class__ is int and high.__class__ is int and low <= high and high - low < _AMOUNTS:
                n = high - low + 2
                if n >> COPY_SHIFT:  # as building the list would charge
                    charge(g, n >> COPY_SHIFT, spec.options.span)
                bots = g.bots
                if bots is not None:
                    pick = bots.picks[who.seat]
                    left = bots.left
                    if pick is not None and left != 0:
                        try:
                            wire = pick("one", n, g.decisions)
                        except BaseException as exc:  # (raised by Game.play outside the running code)
                            bots.failed = exc
                            wire = None
                        if wire.__class__ is int and 0 <= wire < n:
                            if left is not None:
                                bots.left = left - 1
                            g.pending = None  # (answers.taken with no story, written out: the hot path)
                            g.decisions = decisions = g.decisions + 1
                            steps = g.steps
                            if steps + decisions * DECISION_STEPS > g.max_steps:
                                raise too_many_decisions(g)
                            if g.chance:
                                g.chance = []
                            g.steps = steps + 1
                            return None if wire == 0 else low + wire - 1
                return _asked(g, plan, step, purpose, who, plan.unread, None,
                              0 if plan.default_none else None, low, n, plan.secret is True, False, None)
            known = low  # (a bound that breaks a rule, or one option: as below)
            route = plan.route
        else:  # a yes or no whose prompt nobody reads and whose default is fixed: the pick, as below
            bots = g.bots
            if bots is not None:
                pick = bots.picks[who.seat]
                left = bots.left
                if pick is not None and left != 0:
                    try:
                        wire = pick("yesno", 2, g.decisions)
                    except BaseException as exc:  # (raised by Game.play outside the running code)
                        bots.failed = exc
                        wire = None
                    if wire.__class__ is bool:
                        if left is not None:
                            bots.left = left - 1
                        g.pending = None  # (answers.taken, as above)
                        g.decisions = decisions = g.decisions + 1
                        steps = g.steps
                        if steps + decisions * DECISION_STEPS > g.max_steps:
                            raise too_many_decisions(g)
                        if g.chance:
                            g.chance = []
                        g.steps = steps + 1
                        return wire
            g.pending = d = Decision(who.seat, "yesno", plan.unread, None, 0, 0,
                                     plan.default_value, plan.form_for(step, purpose), g.decisions, None, 2,
                                     plan.secret is True, g)
            return MISSING if bots is None else by_bot(g, d)
    if story or plan.prompt_now:
        p = plan.prompt
        prompt = "" if p is None else p(g)
    else:
        prompt = plan.unread
    if route == "yesno":  # never forced, never secret (its answer hides no card), pending at once; its options
        # (True, False) made only for whoever reads them; a default's value is its own wire form
        default = plan.default
        if default is not None:
            default = plan.default_value if plan.default_fixed else default(g)
        n = 2
    else:
        # `given`: a default whose value is worked out here, its wire form taken of the Decision (`value`); it, `n`
        # and `secret` are set below on each way on (amounts in bounds, or the options worked out)
        value = opts = low = None
        shared = False  # whether `opts` is the options expression's own value (a list the game may change later)
        if plan.high is not None:
            if known is MISSING:
                low = plan.low_fixed
                if low is None:
                    low = plan.low(g)
            else:
                low = known
            if high is MISSING:  # (else worked out by the caller: decision_steps.bids)
                high = plan.high(g)
            if low.__class__ is int and high.__class__ is int and high - low < _AMOUNTS:
                n = high - low + 2 if high >= low else 1
                if n >> COPY_SHIFT:  # as building the list would charge
                    charge(g, n >> COPY_SHIFT, spec.options.span)
                if n == 1 and not story:  # answered at once (the pass), and nobody reads the story
                    if plan.default_now:
                        plan.default(g)
                    return None
                default = 0 if plan.default_none else None
                given = plan.default is not None and not plan.default_none
                secret = plan.secret is True  # (options that are no cards: never secret unless the spec says so)
            else:  # a bound that breaks a rule: the options worked out in full give its error
                low = None
        if low is None:
            opts = plan.options(g)
            if opts.__class__ is not list or g.orderless:
                opts = options_of(g, opts, spec)  # (a list of its own)
                if spec.optional:
                    opts.append(None)
            elif spec.optional:
                opts = opts + [None]  # (a list of its own)
            else:  # the value itself, copied only for a Decision that keeps it (_asked): a bot's pick reads it now
                shared = True
            n = len(opts)
            if n == 1 and not story:  # answered at once, and nobody reads the story
                if plan.default_now:
                    plan.default(g)
                return opts[0]
            if not n:
                raise RuleError(f"{who} must choose, but there are no options", spec.span,
                                "guard the step with an 'if', or make the decision optional")
            default = None
            if plan.default_fixed:  # a default written as a constant (draws nothing, charges nothing): its number
                default = plan.default_value
                default = opts.index(default) if default in opts else None
            given = plan.default_worked
            secret = plan.secret  # None: looked at in `g` when it is read (the story, a save, a seat's view)
        if given:  # (worked out as it is asked, whoever answers)
            value = plan.default(g)
    bots = g.bots
    if bots is not None and n > 1:
        # its seat's bot may answer it without a Decision (in a game that tells no story nothing else reads one):
        # the seat's pick (answers.pick_of), its wire checked as decisions.usual checks it and the answer taken as
        # answers.taken takes it, all written out (the busiest path of a simulation); anything else (no pick, no
        # decision left to answer, a pick that fails or gives no usual answer) makes the Decision, pending, and
        # by_bot asks the seat's `choose` (the same answer: its check says what is wrong with it) unless it failed
        pick = bots.picks[who.seat]
        left = bots.left
        if pick is not None and left != 0:
            try:
                wire = pick(route, n, g.decisions)
            except BaseException as exc:  # (raised by Game.play outside the running code, the decision pending)
                bots.failed = exc
                wire = None
            if route == "one":
                answer = (opts[wire] if low is None else None if wire == 0
                          else low + wire - 1) if wire.__class__ is int and 0 <= wire < n else MISSING
            else:
                answer = wire if wire.__class__ is bool else MISSING
            if answer is not MISSING:
                if left is not None:
                    bots.left = left - 1
                g.pending = None  # (answers.taken, as above)
                g.decisions = decisions = g.decisions + 1
                steps = g.steps
                if steps + decisions * DECISION_STEPS > g.max_steps:
                    raise too_many_decisions(g)
                if g.chance:
                    g.chance = []
                g.steps = steps + 1
                return answer
    if route == "yesno":
        # (player, kind, prompt, options, min, max, default, form, number, low, count, secret, game)
        g.pending = d = Decision(who.seat, "yesno", prompt, None, 0, 0, default, plan.form_for(step, purpose),
                                 g.decisions, None, 2, plan.secret is True, g)
        return MISSING if bots is None else by_bot(g, d)
    return _asked(g, plan, step, purpose, who, prompt, list(opts) if shared else opts, default, low, n, secret, given,
                  value)


def _asked(g, plan: _Plan, step, purpose: str, who: Player, prompt, opts, default, low, n: int, secret, given: bool,
           value) -> Any:
    """A 'one' decision asked (its options `opts`, or `n` amounts from `low`), that no bot's pick answered: its
    Decision made, answered at once when it is forced, else pending (MISSING, or its seat's bot's answer)."""
    # (player, kind, prompt, options, min, max, default, form, number, low, count, secret, game)
    d = Decision(who.seat, "one", prompt, opts, 0, 0, default, plan.form_for(step, purpose), g.decisions, low, n,
                 secret, g)
    if given:
        d.default = d.wire_of(value)
    if n == 1:  # (told in the story)
        return ask(g, d)
    g.pending = d  # (as _pending)
    return MISSING if g.bots is None else by_bot(g, d)


def _subset(g, spec, step, purpose: str, plan: _Plan, who: Player, opts: Any = MISSING) -> Any:
    """A `subset` decision from any number of its options (no bounds, no display names): with no options at all it
    is answered at once (nothing to tell, even in the story), without building a Decision; else it is pending
    (never forced: the empty answer is always legal, as is any other). `opts`: the value of its options expression,
    when the caller worked it out (its prompt then is none: worked out only for the story, or when it may draw)."""
    p = plan.prompt
    story = g.story
    prompt = "" if p is None else p(g) if story or plan.prompt_now else None
    if opts is MISSING:
        opts = plan.options(g)
    if opts.__class__ is not list or g.orderless:
        opts = options_of(g, opts, spec)
    elif opts:  # (a list of its own; none is needed for no options)
        opts = list(opts)
    if not opts:
        if plan.default_now:
            plan.default(g)
        if plan.hidden and story:  # nothing to choose from, for a reason the others cannot see: they read it as
            # any choice of nothing (a sealed answer is told as all are revealed: to its decider alone before)
            form = plan.form_for(step, purpose)
            d = Decision(who.seat, "subset", prompt or "", None, 0, 0, None, form, g.decisions, None, 0, plan.secret, g)
            if purpose == "sealed":
                narrate_sealed_forced(g, d, [])
                return []
            if d._secret is None:
                d.secret = hidden_from_others(g, d)
            narrate_choice(g, d, [], " (the only choice)")
        return []
    n = len(opts)
    form = plan.form_for(step, purpose)
    d = Decision(who.seat, "subset", prompt, opts, 0, n, None, form, g.decisions, None, 0, plan.secret, g)
    if plan.default is not None:
        d.default = d.wire_of(plan.default(g))
    return pending(g, d)  # (never forced: no answer, and any other, is legal)


def ask(g, d: Decision) -> Any:
    """The answer if the decision is forced, or its seat's bot answers it at once (answers.by_bot, while the game
    plays itself); otherwise MISSING, with `d` pending."""
    wire = d.forced()
    if wire is not MISSING:
        value = d.value(wire)
        if g.story and d.purpose != "sealed" and (value != [] or d.hidden):
            if d._secret is None:
                d.secret = d.kind in ("one", "subset") and hidden_from_others(g, d)
            narrate_choice(g, d, value, " (the only choice)")
        elif g.story and d.hidden and d.purpose == "sealed":  # to its decider alone (docs/secrecy.md)
            narrate_sealed_forced(g, d, value)
        return value
    return pending(g, d)
