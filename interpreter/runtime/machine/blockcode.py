"""What generated stretches of steps may hold: the helpers their code calls, the names allowed in their source.

Shared by blocks.py (which decides when to generate) and the writer (blockwriter.py, blocksteps.py).
"""

from __future__ import annotations

import re

from ...dsl.codegen.generator import _HELPERS as _EXPRESSION_HELPERS, SOURCE_NAMES as _EXPRESSION_NAMES
from ...dsl.closures.assign import _augmented
from . import handlers

# What a function returns: False when it declines (near the step budget) and True when it stopped at an
# instruction of its own frame that the loop runs next (nothing else changed); AGAIN when a signal or a trigger
# changed more (frames, a decision, the end of the game), so the loop looks at the game again first.
AGAIN = 2

_STOPS = {"CALL", "CHOOSE", "SEALED", "RETURN", "STACK_BEGIN", "STACK_OFFER", "STACK_ONPLAY_NEXT",
          "STACK_RESOLVE_NEXT", "STACK_RESOLVED"}


class _Cannot(Exception):
    """This position is not a place to start a generated function from."""


# ---------------------------------------------------------------- helpers the generated code calls
def _signal_exit(g, f, ins, pc: int, i: int, sig, n: int) -> bool:
    """Statement i of the step at pc returned a signal the function does not handle: the loop's own code does."""
    g.steps = n
    f.pc = pc
    f.sub = i
    handlers._signal(g, f, ins, i, sig)
    return AGAIN


def _fire(g, f, pc: int, i: int, n: int) -> bool:
    """Statement i - 1 of the step at pc raised events: fire their triggers now, as h_exec does. True when a
    trigger started a sequence: the function stops and the step goes on (from statement i) after it."""
    g.steps = n
    f.pc = pc
    f.sub = i
    depth = len(g.frames)
    handlers.fire(g)
    if len(g.frames) != depth:
        return AGAIN
    f.sub = 0
    return 0


_HELPERS = {**_EXPRESSION_HELPERS, "__builtins__": {}, "len": len, "_signal_exit": _signal_exit, "_fire": _fire,
            "_augmented": _augmented, "_BaseException": BaseException,
            "_True": True, "_False": False, "_AGAIN": AGAIN}


# Every name a function's source may hold (checked before each compile, see dsl/codegen/safesource.py): the helpers, the
# names codegen's sources hold, and this writer's own locals and the attributes of games and frames it reads.
SOURCE_NAMES = frozenset(_HELPERS) | _EXPRESSION_NAMES | {
    "f", "n", "pc", "lim", "_C", "_s", "_it", "_o", "_i", "_w", "_cw", "work", "_entry", "steps", "max_steps",
    "coverage", "_events", "_foreach_init", "sub"}
MADE_NAMES = re.compile(r"_[kr][0-9]+|_x[0-9]+_[0-9]+")  # constants, first-pass flags, renamed expression locals
