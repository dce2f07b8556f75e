"""A designer's label that names a step by its meaning and not by what the players do ('Step onto the ice' draws
a card): the aid says what the step does after it ('Step onto the ice: draw a card from the Floe to the player's
Hand'), where the label shares no word with the step's own words."""

from __future__ import annotations

import re

from rulecraft.dsl import ast as A
from rulecraft.model import ruleset as M
from rulecraft.model.kinds import own_statements
from rulecraft.tools.words.bookkeeping import is_bookkeeping
from rulecraft.tools.words.core import Words

DOES_CHARS = 80  # what the step does, said after its label only when this short
_MOVES = (A.Draw, A.Move, A.Shuffle)
_SMALL = frozenset("the and for from with into onto each their your its his her all any one two who has have".split())


def _stems(text: str) -> set[str]:
    return {re.sub(r"(?:'s|s)$", "", x) for x in re.findall(r"[a-z][a-z']+", text.lower())
            if len(x) > 2 and x not in _SMALL}


def what_it_does(w: Words, s: M.Step, label: str) -> str:
    """The step's own words, when its label moves cards, shares no word with them and they are short; else ''."""
    stmts = [st.ast for st in own_statements(s) if not is_bookkeeping(w.rs, st)]
    if not stmts or s.bodies or not all(isinstance(n, _MOVES) for n in stmts):
        return ""
    said = re.sub(r"\s*\((?:[^()]|\([^()]*\))*\)$", "", w.step(s, own_label=False).rstrip("."))  # (a note on a pile)
    if len(said) > DOES_CHARS or _stems(label) & _stems(said):
        return ""
    return said[:1].lower() + said[1:]
