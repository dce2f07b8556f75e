"""The instruction loop: runs a game's frames until a decision is needed or the game ends.

Execution order (see docs/semantics.md): statements run one at a time; after each, the
events it raised fire their triggers ('now' triggers run before the next statement,
'after KIND' triggers when that sequence ends); a decision suspends the loop until
`Game.apply` supplies the answer. The instructions themselves are in `handlers` (moving
through steps) and `decision_steps` (steps that wait for players). A game of the compiled engine runs the stretches of
steps it visits often as Python functions (rulecraft.compiler.stretches) and the rest here; a game of the
reference engine runs every step here, with the closures of its statements and expressions.
"""

from __future__ import annotations

from typing import Any, Callable

from ...diagnostics import RuleError
from ...compiler import stretches
from .answers import out_of_steps
from .decision_steps import h_choose, h_sealed, h_stack_begin, h_stack_offer, h_stack_onplay_next, h_stack_resolve_next, \
    h_stack_resolved
from .handlers import _after_one, fire, h_call, h_exec, h_foreach_init, h_foreach_next, h_jump, h_jump_if_false, \
    h_next, h_return, h_until_test
from .invariants import check_invariants
from .program import Instr
from .scoring import finish


def run(g) -> None:
    """Advance the game until it waits for a decision or is over."""
    frames = g.frames
    programs = g.programs
    cov = g.counts  # (coverage: counts by node number, program.covered)
    reached = g.reached
    check = g.check_conservation
    max_steps = g.max_steps
    last = None  # the frame whose program these hold (set at its first step)
    code: list[Instr]
    entries: list[Any]  # per position: a visit count, NEVER, or the function of its stretch (compiler.stretches)
    # functions for stretches of steps (the compiled engine): not when the cards are checked after every step
    compiled = g.compiled and not check
    hot, again = stretches.HOT, stretches.AGAIN
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
                        e = entries[f.pc] = stretches.entry(prog, f.pc, cov is not None, bool(g.triggers), programs)
                        if e.__class__ is int:  # not yet: count on
                            e = None
                # it ran the steps up to an instruction it leaves to this loop (run next, below), or changed
                # more than the inner loop may assume (AGAIN: look at the game again)
                if e and e(g, f) == again:
                    continue
            # The steps that cannot change what the checks above look at (the pending decision, the end of the
            # game, the frames, the locals, the events) follow each other in this inner loop without them: jumps,
            # and a step of one statement that returned nothing and raised no event. Any other step, or every
            # step when the cards are checked (or events wait from before a decision), ends the inner loop; so does a
            # jump back to a loop's top in a compiled game (the outer loop enters the loop's function there).
            tight = not check and not g._events
            while True:
                ins = code[f.pc]
                steps = g.steps = g.steps + 1
                if steps > max_steps:
                    raise out_of_steps(g, f, ins)
                if cov is not None and not f.sub:  # a visit (not a step resumed): see program.py, _VISITS
                    i = ins.ci
                    if i >= 0:
                        if not cov[i]:
                            reached.append(i)
                        cov[i] += ins.w
                    for i in ins.alsoi:
                        if not cov[i]:
                            reached.append(i)
                        cov[i] += 1
                handler = ins.handler
                if handler is h_jump:  # the most common steps, done here without a call
                    f.pc = ins.target
                    if ins.back and compiled:  # back to a loop's top: the loop looks for its function there
                        break
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
                if g.rs.invariants:
                    check_invariants(g, ins)
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

def handler_for(ins: Instr) -> Callable[..., None]:
    """The function that runs an instruction (resolved once per program, not looked up at every step)."""
    return h_until_test if ins.until is not None else HANDLERS[ins.op]

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
