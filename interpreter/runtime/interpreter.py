"""The instruction loop: runs a game's frames until a decision is needed or the game ends.

Execution order (see docs/semantics.md): statements run one at a time; after each, the
events it raised fire their triggers ('now' triggers run before the next statement,
'after KIND' triggers when that sequence ends); a decision suspends the loop until
`Game.apply` supplies the answer.
"""

from __future__ import annotations

from typing import Any

from ..diagnostics import RuleError
from ..dsl.builtins import as_list, describe
from ..dsl import statements
from ..dsl.ops import SUSPEND, BreakSignal, CallSignal, ContinueSignal, EndSignal, bind_result
from ..values import Card, Player
from . import blocks  # blocks imports this module too: each uses the other's names only when running
from .decisions import Decision, display_names, game_label, label, narrate_choice, shown

ANSWER = "__answer"
_MISSING = object()


def run(g) -> None:
    """Advance the game until it waits for a decision or is over."""
    frames = g.frames
    programs = g.programs
    cov = g.coverage
    check = g.check_conservation
    max_steps = g.max_steps
    last = code = prog = entries = None
    fast = statements.FAST_STEPS
    # generated functions for stretches of steps (blocks.py): not when the cards are checked after every step
    compiled = blocks.ENABLED and not check
    hot, again = blocks.HOT, blocks.AGAIN
    try:
        while g.pending is None and not g.over:
            if len(frames) <= g.halt_depth:
                if not frames:
                    finish(g)
                return
            f = frames[-1]
            if f is not last:  # the same frame runs many steps in a row: look its program up once
                prog = programs[f.seq]
                code = prog.code
                entries = prog.entries if cov is None else prog.entries_cov
                last = f
            g.locals = f.locals
            if compiled and not f.sub and not g._events:
                e = entries[f.pc]
                if e.__class__ is int:
                    if e < hot:
                        entries[f.pc] = e + 1
                        e = None
                    else:
                        e = entries[f.pc] = blocks.entry(prog, f.pc, cov is not None, bool(g.triggers))
                        if e.__class__ is int:  # not yet: count on
                            e = None
                # it ran the steps up to an instruction it leaves to this loop (run next, below), or changed
                # more than the inner loop may assume (AGAIN: look at the game again)
                if e and e(g, f) == again:
                    continue
            # The steps that cannot change what the checks above look at (the pending decision, the end of the
            # game, the frames, the locals, the events) follow each other in this inner loop without them: jumps,
            # and a step of one statement that returned nothing and raised no event. Any other step, or every
            # step when the cards are checked (or events wait from before a decision), ends the inner loop.
            tight = fast and not check and not g._events
            while True:
                ins = code[f.pc]
                steps = g.steps = g.steps + 1
                if steps > max_steps:
                    raise RuleError(f"the game ran {g.max_steps} steps without ending; the last step was "
                                    f"'{ins.step.label or ins.step.id}' in '{f.seq}'", ins.span,
                                    "a loop may never end: check its condition or its 'break'", "R002")
                if cov is not None and not f.sub:  # a visit (not a step resumed): see program.py, _VISITS
                    if ins.cov is not None:
                        cov[ins.cov] += ins.w
                    for node in ins.also:
                        cov[node] += 1
                handler = ins.handler
                if handler is h_jump:  # the most common steps, done here without a call
                    f.pc = ins.target
                elif handler is h_jump_if_false:
                    f.pc = f.pc + 1 if ins.arg.fn(g) else ins.target
                elif handler is h_exec and ins.one is not None and not f.sub:
                    sig = ins.one.fn(g)
                    if sig is not None or g._events:
                        _after_one(g, f, ins, sig)
                        break
                    f.pc += 1
                else:
                    handler(g, f, ins)
                    break
                if not tight:
                    break
            if g._events and g.pending is None:
                fire(g)
            if check:
                g.check_cards()
    except RuleError as exc:
        if exc.span is None and frames:
            f = frames[-1]
            code = programs[f.seq].code
            exc.span = code[min(f.pc, len(code) - 1)].span
        raise
    except _VALUE_ERRORS as exc:
        # a value the rules cannot handle (e.g. max() of a card and a number) reached Python
        # itself: report it at the step, as every other run-time error, never as a traceback
        span = None
        if frames:
            f = frames[-1]
            code = programs[f.seq].code
            span = code[min(f.pc, len(code) - 1)].span
        raise RuleError(f"this step cannot work with its values ({_in_words(exc)})", span,
                        "check the kinds of the values it uses (e.g. a card compared with a number)") from exc


_VALUE_ERRORS = (TypeError, AttributeError, ValueError, KeyError, IndexError, ZeroDivisionError, OverflowError,
                 RecursionError)  # e.g. hundreds of ruleset functions calling each other in a chain


def _in_words(exc: BaseException) -> str:
    """What went wrong, in the engine's words: never Python's own message (its types, its advice)."""
    if isinstance(exc, OverflowError) or (isinstance(exc, ValueError) and "digits" in str(exc)):
        return "a number is too large"
    if isinstance(exc, RecursionError):
        return "functions or values are nested too deeply"
    if isinstance(exc, ZeroDivisionError):
        return "a division by zero"
    if isinstance(exc, (KeyError, IndexError)):
        return "a value is missing"
    return "a value of the wrong kind"


def finish(g) -> None:
    """The game is over: score it and decide the winners unless a rule already did."""
    g.frames.clear()
    g.over = True
    rs = g.rs
    sc = rs.scoring
    if sc.score is not None:
        scores = []
        for p in g.players:
            g.locals = {"p": p}
            scores.append(sc.score.fn(g))
        g.scores = scores
    if g.winners is None:
        g.winners = decide_winners(g)
    if rs.metrics:
        end_metrics(g)
    names = ", ".join(g.players[s].name for s in g.winners) if g.winners else "nobody"
    if g.scores is not None:
        g.say("Scores: " + ", ".join(f"{p.name} {s}" for p, s in zip(g.players, g.scores)))
    g.say(f"Winner: {names}")


def end_metrics(g) -> None:
    """Work out the per_player metrics (for each player, `p` bound) and the per_game ones, into the tallies."""
    won = set(g.winners or ())
    for m in g.rs.metrics.values():
        if m.kind == "per_player":
            for p in g.players:
                g.locals = {"p": p}
                key = m.by.fn(g) if m.by is not None else None
                value = m.value.fn(g) if m.value is not None else (1 if p.seat in won else 0)
                g.tally(m.id, key, value, m.span)
        elif m.kind == "per_game":
            g.locals = {}
            key = m.by.fn(g) if m.by is not None else None
            g.tally(m.id, key, m.value.fn(g) if m.value is not None else 1, m.span)
    g.locals = {}


def decide_winners(g) -> list[int]:
    sc = g.rs.scoring
    if g.scores is None:
        return []
    sign = 1 if sc.highest_wins else -1
    keys = []
    for p, s in zip(g.players, g.scores):
        if isinstance(s, bool) or not isinstance(s, (int, float)):
            raise RuleError(f"the score of {p} is {describe(s)}, not a number, so no winner can be picked",
                            sc.score.span if sc.score is not None else sc.span)
        g.locals = {"p": p}
        keys.append((sign * s, tuple(t.fn(g) for t in sc.tie_break)))
    try:
        best = max(keys)
    except TypeError:
        raise RuleError("the tie_break values cannot be compared: "
                        + "; ".join(f"{p}: {', '.join(describe(v) for v in k[1])}" for p, k in zip(g.players, keys)),
                        sc.tie_break[0].span if sc.tie_break else sc.span) from None
    top = [i for i, k in enumerate(keys) if k == best]
    if len(top) > 1 and sc.on_tie == "nobody":
        return []
    return top


def fire(g) -> None:
    """Run the triggers of the events raised by the last statement."""
    events, g._events = g._events, []
    calls = []
    saved = g.locals
    for event, fields in events:
        for t in g.triggers.get(event, ()):
            if t.when is not None:
                g.locals = fields
                ok = t.when.fn(g)
                g.locals = saved
                if not ok:
                    continue
            params = g.rs.sequences[t.run].params
            args = {k: fields.get(k) for k in params}
            if t.timing == "after":
                for fr in reversed(g.frames):
                    if fr.kind == t.after_kind:
                        fr.deferred.append((t.run, args))
                        break
                else:
                    calls.append((t.run, args))
            else:
                calls.append((t.run, args))
    g.locals = saved
    for seq, args in reversed(calls):
        g.push(seq, args)


def pop_frame(g, defer: list | None = None) -> None:
    """Leave the top frame: its modifiers lapse and its 'after' triggers run (or join `defer`)."""
    f = g.frames.pop()
    if g.modifiers:
        g.modifiers = [m for m in g.modifiers if m[3] != f.id]
    if defer is not None:
        defer.extend(f.deferred)
    else:
        for seq, args in reversed(f.deferred):
            g.push(seq, args)
    if g.frames:
        g.locals = g.frames[-1].locals


def end(g, kind: str, span) -> None:
    """Unwind to and including the innermost running sequence of `kind`."""
    if kind == "game":
        finish(g)
        return
    if kind == "sequence":
        pop_frame(g)
        return
    for i in range(len(g.frames) - 1, -1, -1):
        if g.frames[i].kind == kind:
            deferred: list = []
            while len(g.frames) > i:
                pop_frame(g, deferred)
            for seq, args in reversed(deferred):
                g.push(seq, args)
            return
    raise RuleError(f"'end {kind}': no {kind} is running", span)


# ---------------------------------------------------------------- handlers
def h_exec(g, f, ins) -> None:
    stmts = ins.arg
    n = len(stmts)
    while f.sub < n:
        i = f.sub
        sig = stmts[i].fn(g)
        if sig is None:
            f.sub = i + 1
            if g._events:
                depth = len(g.frames)
                fire(g)
                if len(g.frames) != depth:
                    return  # a trigger interrupts; this step resumes after it
            continue
        _signal(g, f, ins, i, sig)
        return
    f.sub = 0
    f.pc += 1


def _after_one(g, f, ins, sig) -> None:
    """The rest of h_exec for a step of one statement that `run` ran itself (f.sub was 0)."""
    if sig is None:  # it raised events: their triggers fire now, as h_exec fires them
        f.sub = 1
        depth = len(g.frames)
        fire(g)
        if len(g.frames) != depth:
            return  # a trigger interrupts; this step resumes (and ends) after it
        f.sub = 0
        f.pc += 1
        return
    _signal(g, f, ins, 0, sig)


def _signal(g, f, ins, i: int, sig) -> None:
    """Statement i of an EXEC step returned a signal: suspend, call, leave a loop or end a sequence."""
    if sig is SUSPEND:
        return
    if isinstance(sig, CallSignal):
        f.sub = i + 1  # the rest of the step runs when the called sequence returns
        if sig.bind is not None:
            args = dict(sig.args)
            bind_result(g, args, sig.bind)
            g.push(sig.sequence, args, own=True)
            return
        g.push(sig.sequence, sig.args)
        return
    f.sub = 0
    if isinstance(sig, (BreakSignal, ContinueSignal)):
        entry = ins.loops.get(sig.loop)
        if entry is None:
            raise RuleError(f"'{'break' if isinstance(sig, BreakSignal) else 'continue'}' found no loop", sig.span)
        end_pc, cont_pc, key, inner = entry
        for k in inner:
            f.locals.pop(k, None)
        if isinstance(sig, BreakSignal):
            if key:
                f.locals.pop(key, None)
            f.pc = end_pc
        else:
            f.pc = cont_pc
        return
    if isinstance(sig, EndSignal):
        end(g, sig.kind, sig.span)
        return
    raise RuleError(f"unexpected signal {sig!r}", ins.span)  # pragma: no cover


def h_jump(g, f, ins) -> None:
    f.pc = ins.target


def h_jump_if_false(g, f, ins) -> None:
    f.pc = f.pc + 1 if ins.arg.fn(g) else ins.target


def h_until_test(g, f, ins) -> None:
    """The test of an 'until' loop: on, or back to the top of its body (a pass, not a new visit of the loop)."""
    if ins.arg.fn(g):
        f.pc += 1
        return
    f.pc = ins.target
    if g.coverage is not None:
        g.coverage[ins.until] -= 1


def handler_for(ins):
    """The function that runs an instruction (resolved once per program, not looked up at every step)."""
    return h_until_test if ins.until is not None else HANDLERS[ins.op]


def h_next(g, f, ins) -> None:
    f.pc += 1


def h_return(g, f, ins) -> None:
    pop_frame(g)


def h_call(g, f, ins) -> None:
    seq, args = ins.arg
    values = {k: e.fn(g) for k, e in args}
    if ins.extra is not None:  # call: SEQ with as: NAME
        bind_result(g, values, ins.extra)
    g.push(seq, values, own=True)  # before moving on: a too-deep call is reported at this step
    f.pc += 1


def h_foreach_init(g, f, ins) -> None:
    items = as_list(g, ins.arg.fn(g), ins.arg.span)
    f.locals[ins.extra] = [list(items), 0]
    f.pc += 1


def h_foreach_next(g, f, ins) -> None:
    it = f.locals[ins.extra]
    if it[1] >= len(it[0]):
        del f.locals[ins.extra]
        f.pc = ins.target
        return
    f.locals[ins.arg] = it[0][it[1]]
    it[1] += 1
    f.pc += 1


# ---------------------------------------------------------------- decisions
_NODES: dict = {}  # id(decision spec) -> (spec, its place as text)


def make_decision(g, spec, purpose: str = "choose") -> Decision | None:
    """Build the decision a spec describes; None when there is no real choice (taken at once)."""
    who = spec.player.fn(g)
    if not isinstance(who, Player):
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
    if spec.secret is not None:  # the ruleset says: 'secret: false' makes a play from a hidden hand an open one
        d.secret = spec.secret
    else:
        d.secret = d.kind in ("one", "subset") and _hidden_from_others(g, d)
    return d


def _hidden_from_others(g, d: Decision) -> bool:
    """Whether some option is a card that another seat cannot see where it lies (so the answer is a secret)."""
    for o in d.options:
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
        return d.options.index(value) if value in d.options else None
    if isinstance(value, list):
        return sorted(d.options.index(v) for v in value if v in d.options)
    return None


def forced(d: Decision) -> Any:
    """The wire choice when only one is legal, else _MISSING."""
    if d.kind == "one" and len(d.options) == 1:
        return 0
    if d.kind == "number" and d.min == d.max and not d.optional:
        return d.min
    if d.kind == "number" and d.optional and d.min > d.max:
        return None  # nothing to choose but the pass
    if d.kind == "subset" and (not d.options or d.max == 0):
        return []
    if d.kind == "subset" and d.min == len(d.options):
        return list(range(len(d.options)))
    return _MISSING


def ask(g, d: Decision) -> Any:
    """Return the answer value if the decision is forced; otherwise suspend on it."""
    wire = forced(d)
    if wire is not _MISSING:
        value = d.value(wire)
        if d.purpose != "sealed" and value != [] and g.story:
            narrate_choice(g, d, value, " (the only choice)")
        return value
    d.number = g.decisions
    g.pending = d
    return _MISSING


def h_choose(g, f, ins) -> None:
    spec = ins.arg
    answer = f.locals.pop(ANSWER, _MISSING)
    if answer is _MISSING:
        answer = ask(g, make_decision(g, spec))
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
        got = ask(g, make_decision(g, step.decision, "sealed"))
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


HANDLERS = {
    "EXEC": h_exec,
    "JUMP": h_jump,
    "JUMP_IF_FALSE": h_jump_if_false,
    "LOOP_TOP": h_next,
    "RETURN": h_return,
    "CALL": h_call,
    "FOREACH_INIT": h_foreach_init,
    "FOREACH_NEXT": h_foreach_next,
    "CHOOSE": h_choose,
    "SEALED": h_sealed,
    "STACK_BEGIN": h_stack_begin,
    "STACK_OFFER": h_stack_offer,
    "STACK_ONPLAY_NEXT": h_stack_onplay_next,
    "STACK_RESOLVE_NEXT": h_stack_resolve_next,
    "STACK_RESOLVED": h_stack_resolved,
}
