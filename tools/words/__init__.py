"""Rules in words: the one English renderer of the rules language, used by everything printed or shown.

Each AST node class and each step class writes its own phrase (Ludii's habit); a parent only joins
its children's phrases. Phrases are looked up by node type in two tables, `EXPR` (expressions) and
`STMT` (statements and steps), filled by the `phrase(NodeClass)` decorator.

Adding a phrase for a new node is one function, in the module of its family::

    @phrase(A.Auction)
    def _auction(w: Words, n: A.Auction) -> str:
        return f"auction {w.expr(n.lot)} to {w.expr(n.bidders)}"

A node without a phrase of its own uses the phrase of its nearest base class, and failing that
`fallback`, which reads the node's class name and its children's phrases in order — legible, never
a Python repr — so a construct added elsewhere still prints as words until it gets its own phrase.

Names read as the game says them: zones, tables, sequences, functions and variables by their
`title` (or their id with spaces), parameters and house-rule options by their value.
"""

from __future__ import annotations

from rulecraft.tools.words.core import Words, fallback, phrase
from rulecraft.tools.words import expressions  # noqa: F401
from rulecraft.tools.words import statements  # noqa: F401
from rulecraft.tools.words import steps  # noqa: F401  (they fill the phrase tables)

__all__ = ["Words", "phrase", "fallback"]
