"""The instructions that move a game through its steps: statements, jumps, loops, calls, triggers, 'end'."""

from __future__ import annotations

from ...diagnostics import RuleError
from ...dsl.builtins import as_list
from ...dsl.ops import SUSPEND, BreakSignal, CallSignal, ContinueSignal, EndSignal, bind_result
from ..rng import ANSWER
from .program import count
from .scoring import finish


def fire(g) -> bool:
    """Run the triggers of the events raised by the last statement (kept only when a trigger on them may fire:
    model/gates.py); True when one started a sequence now (a frame pushed). A condition runs as whole.py's function,
    or in a compiled game as the function written of it once there is one (its `hot`), which that function calls."""
    events, g._events = g._events, []
    calls: list = []
    saved = g.locals
    triggers = g.triggers
    compiled = g.compiled
    for event, fields in events:
        for t in triggers[event]:
            when = t.when
            if when is not None:
                g.locals = fields  # (the caller's locals are back below, before anything else reads them)
                cond = when.fn
                if compiled:
                    cond = getattr(cond, "hot", cond)
                if not cond(g):
                    continue
            params = g.rs.sequences[t.run].params
            call = (t.run, dict(zip(params, map(fields.get, params))))  # (no comprehension: a call of its own)
            if t.timing == "after":
                for fr in reversed(g.frames):
                    if fr.kind == t.after_kind:
                        if fr.deferred:
                            fr.deferred.append(call)
                        else:  # (a frame's list is made when its first call is deferred: most frames never have one)
                            fr.deferred = [call]
                        break
                else:
                    calls.append(call)
            else:
                calls.append(call)
    g.locals = saved
    if calls:
        for seq, args in reversed(calls):
            g.push(seq, args)
        return True
    return False

def pop_frame(g, defer: list | None = None) -> None:
    """Leave the top frame: its modifiers lapse and its 'after' triggers run (or join `defer`)."""
    f = g.frames.pop()
    if f.mods:  # a modifier lasts until f ends (only then: a frame that never owned one leaves them as they are)
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

def h_exec(g, f, ins) -> None:
    stmts = ins.arg
    n = len(stmts)
    while f.sub < n:
        i = f.sub
        sig = stmts[i].fn(g)
        if sig is None:
            f.sub = i + 1
            if g._events and fire(g):
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
        if fire(g):
            return  # a trigger interrupts; this step resumes (and ends) after it
        f.sub = 0
        f.pc += 1
        return
    _signal(g, f, ins, 0, sig)

def _signal(g, f, ins, i: int, sig) -> None:
    """Statement i of an EXEC step returned a signal: suspend, call, leave a loop or end a sequence."""
    if sig is SUSPEND:  # a roll asks its roller whether to roll again (rng.py): the statement runs again with the answer
        g.pending.resume = reroll_on
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

def reroll_on(g, f, d, answer) -> None:
    """A re-roll's answer: the step goes on from the statement that rolled (f.sub), which runs again and finds the
    answer where the roll looks for it (rng.ANSWER), as the step run again by the loop would."""
    f.locals[ANSWER] = answer
    h_exec(g, f, g.programs[f.seq].code[f.pc])
    if g._events and g.pending is None:  # as the step loop does after a step
        fire(g)

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
    if g.counts is not None:
        count(g, ins.untili, -1)

def h_next(g, f, ins) -> None:
    f.pc += 1

def h_return(g, f, ins) -> None:
    if f.mods or f.deferred:
        pop_frame(g)
        return
    frames = g.frames  # pop_frame, when nothing lapses and nothing waits (f is the top frame)
    frames.pop()
    if frames:
        g.locals = frames[-1].locals

def h_call(g, f, ins) -> None:
    seq, args = ins.arg
    values = {}
    for k, e in args:  # not a comprehension: in Python 3.11 that is a function call of its own
        values[k] = e.fn(g)
    if ins.extra is not None:  # call: SEQ with as: NAME
        bind_result(g, values, ins.extra)
    g.push(seq, values, own=True)  # before moving on: a too-deep call is reported at this step
    f.pc += 1

def h_foreach_init(g, f, ins) -> None:
    e = ins.arg
    fn = e.fn
    # in a game of the compiled engine, the function written of the expression once it is (whole.noted's `hot`), not
    # the call that chooses it; a list (as almost always) copied without as_list's call
    items = getattr(fn, "hot", fn)(g) if g.compiled else fn(g)
    f.locals[ins.extra] = [list(items) if items.__class__ is list else list(as_list(g, items, e.span)), 0]
    f.pc += 1

def told_each(g, f, ins, items, var: str, per: int, lim: int) -> bool:
    """A for_each's start (its FOREACH_INIT `ins`, its items worked out) whose body only tells the story, in the
    compiled engine's code (loader/kinds/loops.py): in a game without a story, its passes counted (`per` steps each,
    and one for the last look at the items) and the variable left on the last item, as running them would leave
    them, without running them (True); False with a story, or when a pass would start past `lim` (the function's
    step limit): the items kept as h_foreach_init keeps them, for the loop, which runs the passes and stops where it
    stops."""
    if items.__class__ is not list:
        items = as_list(g, items, ins.arg.span)
    n = g.steps + per * len(items)
    if g.story or n > lim:
        f.locals[ins.extra] = [list(items), 0]
        return False
    if items:
        f.locals[var] = items[-1]
    g.steps = n + 1
    return True

def h_foreach_next(g, f, ins) -> None:
    it = f.locals[ins.extra]
    if it[1] >= len(it[0]):
        del f.locals[ins.extra]
        f.pc = ins.target
        return
    f.locals[ins.arg] = it[0][it[1]]
    it[1] += 1
    f.pc += 1
