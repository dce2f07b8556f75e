"""The instructions that wait for players: a decision ('choose'), sealed choices, the stack.

A step that asks leaves the pending decision a way to go on (`Decision.resume`, one of the `*_on` functions
here, or handlers.reroll_on for a re-roll): `Game.apply` hands it the answer, and the step goes on from where it
asked, with what it had worked out (the stack's zone, the sealed step's bidders), instead of being run again by
the step loop. A decision restored from a saved state is given its resume by `resume_of`. While the game plays
itself (`Game.play`), a bot's answer comes back at once from the asking (answers.by_bot) and the step goes on
in the same call."""

from __future__ import annotations

from ...diagnostics import RuleError
from ...dsl.builtins import as_list
from ...dsl.guards import COPY_SHIFT, charge
from ...values import Card, Player
from ..story import label, shown
from ..decisions import MISSING
from .answers import DECISION_STEPS, too_many_decisions
from .plans import _AMOUNTS, draws_chance
from .questions import _asked, _subset, decide
from .handlers import fire, reroll_on

_PER = DECISION_STEPS + 1  # what a bid answered at once costs of the budget: its decision, and its step


def h_choose(g, f, ins) -> None:
    chosen(g, f, ins, f.pc)

def chosen(g, f, ins, pc: int) -> bool:
    """The choose step `ins` at pc of frame f, asked: True when its decision waits (pending at pc), False when it
    was answered at once (forced, or by a bot: the name bound, the position moved on to pc + 1), or events wait
    (fired here). The loop runs it through h_choose; the code written of a stretch does the same itself, calling
    `decide` (loader/kinds/decide.write_choose)."""
    f.pc = pc
    spec = ins.arg
    answer = decide(g, spec, ins.step)
    if answer is MISSING:
        d = g.pending
        d.resume, d.held = choose_on, spec.bind
        return True
    bind = spec.bind
    if bind:
        f.locals[bind] = answer
    f.pc = pc + 1
    if g._events:  # (as compiler/running._asks: none that a choice raises today)
        fire(g)
        return True
    return False

def waits(g, spec) -> None:
    """The decision of a choose step that the written code asked (loader/kinds/decide.write_choose) waits: as chosen."""
    d = g.pending
    d.resume, d.held = choose_on, spec.bind

def choose_on(g, f, d, answer) -> None:
    """h_choose given its answer: the name bound (held by the decision), on to the next step."""
    bind = d.held
    if bind:
        f.locals[bind] = answer
    f.pc += 1


def h_sealed(g, f, ins) -> None:
    sealed(g, f, ins, f.pc, False)

def sealed_on(g, f, d, answer) -> None:
    """h_sealed given an answer: the next player asked, or the choices revealed."""
    ins = g.programs[f.seq].code[f.pc]
    st = f.locals[ins.extra]
    st["results"].append(answer)
    st["i"] += 1
    sealed(g, f, ins, f.pc, False)
    if g._events and g.pending is None:  # as the step loop does after a step
        fire(g)

def sealed(g, f, ins, pc: int, firing: bool = True) -> bool:
    """The sealed step `ins` at pc of frame f: its players asked in turn (decision_steps.bids), from the first when it is
    asked afresh, else from where its state says (the local `ins.extra`: players, i, results, kept in the frame only
    while one of them waits, so a save keeps it). True when a decision waits (pending at pc: sealed_on goes on from
    the state), or, `firing`, when events wait (fired here, as compiler/running._asks fires them); False when every
    answer came at once and the choices were revealed (the position moved on to pc + 1). The loop runs it through
    h_sealed (not firing: the loop fires); the code written of a stretch calls it itself (loader/kinds/decide:
    two calls fewer than _asks and the handler)."""
    f.pc = pc
    step = ins.arg
    loc = f.locals
    key = ins.extra
    st = loc.get(key)
    if st is None:  # (asked afresh: the bidders worked out)
        who = step.iterable.fn(g)  # (a list, as almost always: copied without as_list's call, and only when kept)
        players = who if who.__class__ is list else list(as_list(g, who, step.iterable.span))
        results: list = []
        i = 0
    else:
        players, results, i = st["players"], st["results"], st["i"]
    spec = step.decision
    i = bids(g, spec, step, loc, players, i, results)
    if i < len(players):  # player i's decision waits
        if st is None:
            loc[key] = {"players": list(players), "i": i, "results": results}
        else:
            st["i"] = i
        g.pending.resume = sealed_on
        return True
    choices = dict(zip(players, results))
    if st is not None:
        del loc[key]
    if step.bind:
        loc[step.bind] = choices
    if not g.story:
        pass
    elif spec.secret:  # answers that stay secret: each reads their own, the others that it was made
        for p, v in choices.items():
            if isinstance(p, Player):
                g.say(f"{p} chose in secret: {shown(g, f, step, p, v)}", only=(p.seat,), public=f"{p} chose in secret")
    elif choices:  # (nobody chose: nothing is revealed, and no empty line says so)
        g.say("Revealed: " + ", ".join(f"{p}: {shown(g, f, step, p, v)}" for p, v in choices.items()), kind="reveal")
    if "revealed" in g.triggers:  # (as g._emit: kept only for a trigger to read)
        g._events.append(("revealed", {"choices": choices}))
    f.pc = pc + 1
    if firing and g._events:  # (a sealed step's reveal, with triggers on it)
        fire(g)
        return True
    return False



def bids(g, spec, step, loc: dict, players: list, i: int, results: list) -> int:
    """A sealed step's decisions: players[i:] asked in turn, each put in the step's variable (in `loc`, its frame's
    locals) first, their answers appended to `results`; the index of the first whose decision waits (pending), or
    len(players). A bid of amounts from a fixed lowest (an auction's: the plan's `bids`) in a game that plays itself
    without a story is asked as `decide` asks it, without its steps this case needs not: the plan looked up once,
    who decides is the player in the variable, only the highest amount worked out, then the seat's pick (as decide
    takes it). The decisions the picks make are counted in a local (`done`; the game's steps follow, one a decision)
    and told the game, the bidder put in the variable, only before anything else may read them."""
    var = step.var
    n = len(players)
    plan = g.plans.get(id(spec))  # (None until the plan is the game's engine's)
    bots = g.bots
    if plan is not None and (bid := plan.bids) is not None and bid[0] == var and bots is not None \
            and bots.left is None and not g.story:
        # a highest amount in `free`: two options or more, the list not charged; count = high - below; answer k > 0
        # is above + k (the plan's `bids`)
        _, low, free, below, above = bid
        high_of, picks, hv = plan.high, bots.picks, plan.high_var
        pvars = g.pvars
        add = results.append
        d0 = done = g.decisions  # the game's decisions and steps as of d0: g.steps is s0 + done - d0
        s0 = g.steps
        last = (g.max_steps - s0 + d0 + 1) // _PER  # past this many, the budget is spent (R002)
        first = i
        for i in range(first, n):
            p = players[i]
            if p.__class__ is not Player:  # (decide says what is wrong)
                loc[var] = p
                g.decisions, g.steps = done, s0 + done - d0
                break
            if hv is None:  # (its expression reads the variable and may charge the budget: both told first)
                loc[var] = p
                g.decisions, g.steps = done, s0 + done - d0
                high = high_of(g)
            else:  # (a player variable of the bidder: read as its expression reads it of a player, plans.high_var)
                high = pvars[p.seat][hv]
            if high.__class__ is int and high in free:  # (as decide: two options or more)
                count = high - below
            elif high.__class__ is int and low <= high and high - low < _AMOUNTS:
                count = high - low + 2
                loc[var] = p
                g.decisions, g.steps = done, s0 + done - d0
                if count >> COPY_SHIFT:  # as building the list would charge
                    charge(g, count >> COPY_SHIFT, spec.options.span)
            else:  # (one option, or a bound that breaks a rule)
                loc[var] = p
                g.decisions, g.steps = done, s0 + done - d0
                got = decide(g, spec, step, "sealed", p, high)
                if got is MISSING:
                    return i
                add(got)
                d0 = done = g.decisions
                s0 = g.steps
                last = (g.max_steps - s0 + d0 + 1) // _PER
                continue
            # decide's pick written out (the pick of a seat with one, taken), for a game that counts no decisions
            # left (`left` None) and has none pending (a step runs)
            pick = picks[p.seat]
            if pick is None:
                wire = None
            else:
                try:
                    wire = pick("one", count, done)
                except BaseException as exc:  # (raised by Game.play, the decision made and pending)
                    bots.failed = exc
                    wire = None
            if wire.__class__ is int and wire >= 0 and wire < count:
                done += 1
                if done > last:  # (the step not counted)
                    loc[var] = p
                    g.decisions, g.steps = done, s0 + done - d0 - 1
                    raise too_many_decisions(g)
                if g.chance:
                    g.chance = []
                add(above + wire if wire else None)
                continue
            # no pick, it failed, or its answer is not a usual one: the Decision (by_bot asks `choose`)
            loc[var] = p
            g.decisions, g.steps = done, s0 + done - d0
            got = _asked(g, plan, step, "sealed", p, None, None, 0 if plan.default_none else None, low, count,
                         plan.secret is True, False, None)
            if got is MISSING:
                return i
            add(got)
            d0 = done = g.decisions
            s0 = g.steps
            last = (g.max_steps - s0 + d0 + 1) // _PER
        else:  # (every one asked)
            if n > first:
                loc[var] = players[-1]
                g.decisions, g.steps = done, s0 + done - d0
            return n
    while i < n:
        p = players[i]
        loc[var] = p
        got = decide(g, spec, step, "sealed", p)
        if got is MISSING:
            return i
        results.append(got)
        i += 1
    return i

def h_stack_begin(g, f, ins) -> None:
    step = ins.arg
    fn = step.iterable.fn  # (in a compiled game its written function once written, as h_foreach_init calls it)
    order = as_list(g, getattr(fn, "hot", fn)(g) if g.compiled else fn(g), step.iterable.span)
    f.locals[ins.extra] = {"order": list(order), "i": 0, "passes": 0, "last": None, "played": [], "by": None}
    f.pc += 1

def h_stack_offer(g, f, ins) -> None:
    step = ins.arg
    zone = step.zone.fn(g) if step.zone is not None else None  # no zone: a stack of any values (claims, blocks)
    _offer(g, f, ins, zone, MISSING)

def stack_on(g, f, d, answer) -> None:
    """h_stack_offer given an answer, in the zone it was asked with (`Decision.held`)."""
    _offer(g, f, g.programs[f.seq].code[f.pc], d.held, answer)
    if g._events and g.pending is None:  # as the step loop does after a step
        fire(g)

def stack_again(g, f, d, answer) -> None:
    """h_stack_offer given an answer, its zone worked out again (a zone whose working out may draw chance, or a
    decision restored from a saved state: as the step run again with the answer would)."""
    ins = g.programs[f.seq].code[f.pc]
    step = ins.arg
    _offer(g, f, ins, step.zone.fn(g) if step.zone is not None else None, answer)
    if g._events and g.pending is None:
        fire(g)

_STEADY: dict = {}  # id(stack step) -> (step, whether its zone can be kept from the offer to the answer)


def _offer(g, f, ins, zone, answer) -> None:
    step = ins.arg
    key, onplay_pc = ins.extra
    st = f.locals[key]
    order = st["order"]
    n = len(order)
    steady = None  # whether the zone can be kept from the offer to the answer (_STEADY), once a decision is asked
    local = step.var
    # whose turn it is and the passes in a row, kept here too (written to `st` as they change; nothing else writes
    # them while this runs), and the passes that end the offer: everyone, or all but the last to play
    i = st["i"]
    passes = st["passes"]
    enough = n if st["last"] is None else n - 1
    # the play asked as `decide` asks it of the seat in the step's variable, written out where it goes the way of a
    # subset without bounds whose prompt nobody reads (no story, none that may draw): the seat's options worked out
    # here, and a seat with none passes at once (a stack offer's usual round); its plan, once the game's engine's
    spec = step.play
    plan = g.plans.get(id(spec))
    if plan is not None and (plan.route != "subset" or plan.prompt_now or plan.player_var != local or g.story):
        plan = None
    while True:
        if answer is not MISSING:
            st["i"] = j = (i + 1) % n if n else 0
            if zone is None:
                played = () if answer is None else list(answer) if isinstance(answer, list) else [answer]
            else:
                played = list(answer) if answer else ()
            if played:  # (a pass plays nothing)
                p = order[i]
                if zone is None:
                    st.setdefault("entries", []).extend(played)
                else:
                    g.move(answer, zone, "top", ins.span, p)
                st["played"] = played
                st["by"] = p
                st["last"] = p
                st["passes"] = 0
                if g.story:
                    g.say(f"{p} plays {label(played)} onto the stack")
                f.pc = onplay_pc
                return
            i = j
            st["passes"] = passes = passes + 1
            answer = MISSING
        # everyone passed (or all but the last to play)
        if n == 0 or passes >= enough:
            f.pc = ins.target
            return
        p = f.locals[local] = order[i]
        if plan is not None and p.__class__ is Player:  # (as decide, the seat deciding)
            opts = plan.options(g)
            if opts.__class__ is list and not opts:  # nothing to play: a pass (as _subset)
                if plan.default_now:
                    plan.default(g)
                st["i"] = i = (i + 1) % n
                st["passes"] = passes = passes + 1
                continue
            asked = g.decisions
            got = _subset(g, spec, step, "stack", plan, p, opts)
        else:  # (decide: the plan not yet the engine's, or the error of a seat that is no player)
            asked = g.decisions
            got = decide(g, spec, step, "stack", p)
        if got is MISSING or g.decisions != asked:  # pending, or answered by a bot (answers.by_bot)
            # the zone is kept for the answer, unless working it out again might draw chance (then it is worked
            # out again with the answer, as it always was)
            if steady is None:
                steady = _STEADY.get(id(step))
                if steady is None or steady[0] is not step:
                    if len(_STEADY) > 10_000:
                        _STEADY.clear()
                    steady = _STEADY[id(step)] = (step, step.zone is None or not draws_chance(g.rs, step.zone.ast))
            if got is MISSING:
                d = g.pending
                d.resume, d.held = (stack_on, zone) if steady[1] else (stack_again, None)
                return
            if not steady[1]:
                zone = step.zone.fn(g)
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


def resume_of(g, f, d):
    """How a decision restored from a saved state (which keeps no function) goes on: the resume of the step at the
    game's position, which asked it, and what it holds for the answer; None when that step does not ask it (a
    state edited by hand)."""
    code = g.programs[f.seq].code
    if not 0 <= f.pc < len(code):
        return None
    ins = code[f.pc]
    op = ins.op
    if d.purpose == "reroll":
        return (reroll_on, None) if op == "EXEC" else None
    if op == "CHOOSE":
        return choose_on, ins.arg.bind
    if op == "SEALED":
        return sealed_on, None
    if op == "STACK_OFFER":
        return stack_again, None
    return None
