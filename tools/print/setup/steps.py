"""The set-up as the table does it: which sequences set the table up, their steps in words after what each player
starts with, and the line that asks the table to choose a first player when the rules name one."""

from __future__ import annotations

import re

from rulecraft.model import ruleset as M

from rulecraft.tools.chart.sheetplan import designer_label
from rulecraft.tools.print.setup.starts import starting_lines
from rulecraft.tools.words import Words
from rulecraft.tools.words.bookkeeping import hidden_step


def setup_sequences(rs: M.Ruleset, order: list[str]) -> list[str]:
    """The sequences that set the table up: `kind: setup`, or named so ('Setup Stage', 'our set-up')."""
    return [sid for sid in order if rs.sequences[sid].kind == "setup"
            or re.search(r"\bset-?\s?up\b", (sid.replace("_", " ") + " " + rs.sequences[sid].title).lower())]


def _said(w: Words, s: M.Step) -> str:
    text = w.label(designer_label(s)) or w.step(s, own_label=False)
    return text if text.endswith((".", "?", "?”")) else text + "."


def setup_steps(rs: M.Ruleset, w: Words, sids: list[str], say=None) -> list[str]:
    """Setting up the table as a person does it: each setup sequence's own steps in words, in order (`say`: how
    a step is said, with what it holds; by default its label or its own words)."""
    lines = [(say(s) if say else _said(w, s)) for sid in sids for s in rs.sequences[sid].steps
             if not hidden_step(rs, s)]
    return [x if x.endswith((".", "?", "!", "?”")) else x + "." for x in lines if x]


def setup_lines(rs: M.Ruleset, w: Words, order: list[str], say=None) -> list[str]:
    """The aid's set-up: the designer's (`aid: setup:`), else what the table needs and what each player starts
    with, then the setup sequences' steps (or, with none, the zone the cards start in)."""
    chosen = rs.aid.get("setup")
    if chosen:  # (with what the table needs first, where the designer's words do not say: 'a standard deck?')
        own = [w.label(str(x)) for x in ([chosen] if isinstance(chosen, str) else chosen)]
        return [x for x in starting_lines(rs, w)[:1] if x.startswith("You need ")
                and not any(y.startswith("You need ") for y in own)] + own
    sids = setup_sequences(rs, order)
    dealt = ("All the cards start", "The other cards start")  # the setup sequences deal from there
    start = [x for x in starting_lines(rs, w) if not (sids and x.startswith(dealt))]
    return start + setup_steps(rs, w, sids, say)


def first_player(rs: M.Ruleset, said: str, setup: list[str]) -> list[str]:
    """The line that tells the table to choose 'the first player', when the rules' text names them and neither the
    designer's set-up nor the worked-out one says who that is."""
    # ('for each player, play a turn' goes round the table from someone too, as turns a label names do: 'The gavel passes')
    said += "".join("\n" + Words(rs, detail="players").step(s, own_label=False) for _q, s in rs.iter_steps()
                    if getattr(s, "construct", "") == "turns" and designer_label(s))
    if rs.aid.get("setup") or not re.search(r"\bfirst player\b|\bthe first(?=[,.;:)]|$)|\bfor each player\b[^.\n]*"
                                            r"\bplay (?:a |their |the )?turn\b", said, re.I | re.M) \
            or any(re.search(r"\bfirst player\b", x, re.I) for x in setup):
        return []
    return ["Choose a first player; play goes clockwise from them."]
