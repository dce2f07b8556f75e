"""Run the stretch of a sequence between two stops as one generated Python function.

The instruction loop (interpreter.run) pays for every step it dispatches: look the instruction up, count it,
pick its handler, move the position on. Most steps of a game are conditions, jumps and small statements
between two decisions, so a sequence spends most of its time in that dispatch. Here, the steps that follow
a position of a sequence (an *entry*) are written as the Python source of one function: an `if` step becomes
a Python `if`, a loop a Python `while`, a statement a call of its compiled closure, so those steps cost no
dispatch at all. Conditions, and assignments to locals and game variables, go further: the source expressions.py
made of their expressions is copied in (renamed to this function's names), so they cost no call either.

The function stops where the instruction loop has more to do than run a step: a signal it does not handle itself,
a trigger that interrupts, a decision, a sealed bid or a stack's offer left pending, a step of a kind without a
`stretch`. A stack is run in it as the loop runs it too (loader/kinds/stack.py: each of its own instructions by its
handler, its `on_play` and `resolve` steps written in Python loops around them). A decision step and a sealed
step are run in it as the loop runs them (running._asks): answered at once (forced, or by the seats' bots while
the game plays itself, `Game.play`), the function goes on with the answers. It then leaves the position (`f.pc`) on
that instruction, exactly where the instruction loop would be, and the loop goes on from there. A call and a
return are run here (given the game's programs): a CALL step pushes the callee's frame and runs the callee's own
function at once (running._call), and the end of a sequence returns from it as the loop's RETURN does
(steps.StepWriter.ret). When the callee came back at once (it ran to its end in its function, nothing waits), the caller's
function goes on with the steps after the call, as the loop would; when it did not (a decision waits, a trigger
fired, a step only the loop runs), the function leaves (AGAIN) and the loop goes on in whatever frame is on top, at
the position the call or the return left it. A call of a sequence that holds such a step (or calls one that does)
can never come back at once, so its function leaves right after it (the caller's next step gets a function of its
own: written after that call too, those steps would be compiled twice). So a round calling its turns, each
calling its phases, runs without the loop's dispatch of each call and return (dml: 314 calls and 307 returns a
game), and a loop whose body calls a sequence stays one Python loop. A game's state is never anything else than what the loop keeps
(positions, statement indexes, locals): saves, copies and replays work as before.

Nothing a game shows changes: the same steps run in the same order, each is counted (`g.steps`) and covered
as the loop does it, events fire their triggers after each statement, the step budget stops a runaway loop
at the same step with the same error, and a run-time error names the same step (tests/test_engines.py plays
every bundled ruleset both ways). A position it cannot start from (inside a stack step, a statement index
other than 0) is left to the loop. Only games of the compiled engine (`Game(engine="compiled")`) run them.

When: generating a function costs 0.5-2 ms, and saves from a fraction of a microsecond (a few steps before
a call or a decision) to tens of microseconds (a loop of many steps) per visit. A position whose stretch holds a
loop, starts with a call (it saves the loop's work at the call and the return) or starts a sequence (the functions
of its callers run it at once only once it has one) gets its function at its first visit (HOT = 0): its code is made
once for the ruleset, the first time a game goes there, and every later visit of every game runs it. It was made at
the 20th visit until s15 (the 200th until issue 27): a sequence visited a few times a game reached that inside the
games a simulation measures (dml: five stretches, 20 k characters, first made in games 6-15 of a process, about
3 M of the 42 M a game benchmarks/bench_instructions.py counted there) and ran the slow way until then; made at the first visit,
the first game of a process makes more code (dml 564 M -> 860 M instructions, below e1b21f4's 3,169 M) and the
later games none. A stretch without a loop saves less per visit than its making costs, so it still waits for
STRAIGHT_VISITS visits (made at its second visit instead, dml's later games cost more: more code made, little
gained).

Security: as in expressions.py, no ruleset text enters the source. Closures, instructions, names and paths
are namespace constants (_k0, _k1, ...); the source is Python syntax written here.
"""

from __future__ import annotations

from typing import Any, Optional

from ..runtime.machine.program import Program
from .running import _HELPERS, AGAIN, MADE_NAMES, SOURCE_NAMES, _Cannot  # noqa: F401 - the loop and tests read them here
from .steps import StepWriter

HOT = 0  # visits of a position before its function is generated: none, see 'When' above
STRAIGHT_VISITS = 1_000  # the visits a stretch without a loop needs
NEVER = False  # an entry that cannot be generated: the instruction loop runs it
# The source a program's functions may add up to, in lines: a function runs from its entry to the sequence's end, so a
# position after each of k decisions answered from outside (a person, replay) had its own copy of the rest: a sequence of
# 1,000 calls and 200 decisions (140 KB of ruleset) compiled 1.9 million lines (13 s; 2,000 and 400: 54 s, 670 MB). Past
# this the instruction loop runs the program's other positions (the bundled rulesets write at most 55 lines an
# instruction, each program under 4,100 lines)
BUDGET_LINES, BUDGET_PER_INSTRUCTION = 8_000, 64
STRICT = False  # tests set it: a failure to generate (other than _Cannot) is raised instead of falling back


def prepare(prog: Program) -> None:
    """Give a program its tables of entries: a visit count per position until the function is made."""
    prog.entries = [0] * len(prog.code)  # for games without coverage
    prog.entries_cov = [0] * len(prog.code)  # for games that count the steps run
    prog.waited = set()  # positions without a loop, already found so, that wait STRAIGHT_VISITS more visits
    prog.written = 0  # the lines of source its functions hold (BUDGET_LINES)


def entry(prog: Program, pc: int, coverage: bool, triggers: bool, programs: Optional[dict] = None) -> Any:
    """What the instruction loop keeps for position `pc` of `prog` at its HOT-th visit: the generated function
    (made now), NEVER, or a visit count to start again from (a stretch without a loop waits STRAIGHT_VISITS
    more visits: it saves less per visit, so it must be visited more to pay for its making)."""
    if prog.written > BUDGET_LINES + BUDGET_PER_INSTRUCTION * len(prog.code):
        return NEVER  # (nor looked at: the quick look walks the rest of the sequence too)
    try:
        waited = prog.waited
        if pc not in waited and not (programs is not None and (pc == 0 or prog.code[pc].op == "CALL")):
            # quick: no source compiled. A stretch that starts with a call is made early too: it runs the call (and
            # the callee, and its return) at once, which saves the loop's work at the call and at the return; so is
            # the start of a sequence, which the functions of its callers run at once only once it has a function
            # (both known without the quick look)
            looped = StepWriter(prog, coverage, triggers, dry=True, programs=programs).function(pc)
            if not looped:
                waited.add(pc)
                return HOT - STRAIGHT_VISITS
        fn = StepWriter(prog, coverage, triggers, programs=programs).function(pc)
        prog.written += fn.source.count("\n")
        return fn
    except _Cannot:
        return NEVER
    except Exception:  # as expressions.written: Python's limits on nesting, an unsafe source (safesource), any bug
        if STRICT:
            raise
        return NEVER
