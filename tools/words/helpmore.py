"""`?` at the table, with the decision at hand: the rule of the step (help.py) made whole for the one asked —
what the answer leads to where the rule would only repeat the question, the aid's own words for this part of
the game (its numbers in them), what the cards the question names do, and for a re-roll the rule of the dice."""

from __future__ import annotations

import re
from typing import Optional

from rulecraft.model import ruleset as M


def _plain(text: str) -> str:
    return re.sub(r"\W+", " ", (text or "").lower()).strip()


def _words(text: str) -> list:
    return [w for w in _plain(text).split() if len(w) >= 3]


def _meet(a: str, b: str) -> bool:
    """Two words of one stem: 'bid' and 'bidding', 'declare' and 'declaration'."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n == min(len(a), len(b)) or n >= 5


def _sequence_of(rs: M.Ruleset, step: M.Step) -> Optional[M.SequenceDef]:
    for seq in rs.sequences.values():
        if any(s is step for s in M.walk_steps(seq.steps)):
            return seq
    return None


def aid_entry(rs: M.Ruleset, step: Optional[M.Step]) -> tuple[str, str]:
    """The aid's "How it is decided" entry for the part of the game `step` is in (the designer's `aid: decisions:`,
    matched by the words of its name and the sequence's title), or ('', '')."""
    entries = (rs.aid or {}).get("decisions") or {}
    seq = _sequence_of(rs, step) if step is not None else None
    if not entries or seq is None:
        return "", ""
    here = _words(seq.title)
    best = ("", "", 0)
    for name, text in entries.items():
        words = _words(re.sub(r"^\d+\.\s*", "", str(name)))
        shared = sum(1 for x in words if any(_meet(x, y) for y in here))
        if words and shared == len(words) and shared > best[2]:
            best = (str(name), str(text), shared)
    return best[0], best[1]


def card_lines(rs: M.Ruleset, w, prompt: str) -> list[str]:
    """What the cards a question names do, from the aid's special cards and card key ('Pampered Heiress (Q♥):
    You may take a Dragon Egg from the Nest.')."""
    out = []
    for part in ("powers", "key"):
        for name, text in ((rs.aid or {}).get(part) or {}).items():
            card = re.sub(r"\s*\([^)]*\)$", "", str(name)).strip()
            if len(card) >= 4 and re.search(r"(?<!\w)" + re.escape(card) + r"(?!\w)", prompt or ""):
                out.append(f"{name}: {w.label(str(text))}")
    if not out:  # no aid words: the sequence named after a card the question names says what it does
        from rulecraft.tools.words.help import _said

        named = {c.name for c in rs.cards if len(c.name) >= 4 and c.name in (prompt or "")}
        for seq in rs.sequences.values():
            if any(seq.title.startswith(n) for n in named):
                steps = [x for x in (_said(rs, w, s) for s in seq.steps) if x][:3]
                if steps:
                    out.append(f"{seq.title}: " + "; ".join(steps) + ".")
    return out[:2]


def result_when(rs: M.Ruleset, r: M.DiceResult) -> str:
    """When a named dice result comes up, in words ('a double from 2 to 5'): the aid, the book and `?` say it so."""
    from rulecraft.tools.words import Words
    from rulecraft.tools.words.text import dice_words

    return dice_words(Words(rs, titles={"faces": "the dice", "total": "the total"}, detail="players").expr(r.when))


def reroll_lines(rs: M.Ruleset, w, prompt: str) -> list[str]:
    """The rule of a re-roll: which named results of the dice may be rolled again, and what a new roll does."""
    out = []
    for d in rs.dice.values():
        for r in d.results:
            if r.reroll and (r.shown().lower() in (prompt or "").lower() or len(rs.dice) == 1):
                what = "may be rolled again" if r.reroll == "optional" else "is rolled again"
                out.append(f"Rule: {r.shown()} ({result_when(rs, r) if r.when is not None else 'this result'}) {what}: "
                           "the new roll replaces this one and is read afresh against the same target; "
                           "keep it to let this roll stand.")
    return out[:1]


def help_at_table(rs: M.Ruleset, step: Optional[M.Step], decision) -> list[str]:
    """What `?` says at the table: the rule of `step` (help.rule_help) made whole for the decision being asked
    (see the module's doc)."""
    from rulecraft.tools.words import Words
    from rulecraft.tools.words.help import rule_help, what_follows

    lines = rule_help(rs, step)

    w = Words(rs, detail="players")
    prompt = str(getattr(decision, "prompt", "") or "")
    out = list(lines)
    if getattr(decision, "purpose", "") == "reroll" or step is None:
        out = out or reroll_lines(rs, w, prompt)
    rule = " ".join(x.split(": ", 1)[-1] for x in out)
    if isinstance(step, M.ChooseStep) and not any("after your answer" in x.lower() for x in out):
        decider = getattr(step.decision.player, "ast", None) if step.decision is not None else None
        w.you = getattr(decider, "id", None)
        then = what_follows(rs, w, step)
        if then and _plain(rule) in _plain(prompt):  # the rule only repeats the question: what the answer does
            out = [f"Rule: after your answer, {'; '.join(then)}"]
        elif then:
            out.append(f"After your answer: {'; '.join(then)}")
    name, text = aid_entry(rs, step)
    if text:
        out.append(f"{re.sub(r'^[0-9]+[.] *', '', name)}: {w.label(text)}")
    out += [x for x in card_lines(rs, w, prompt) if x not in out]
    if not out and step is not None:
        out = [f"Rule: {w.step(step, own_label=False)}"]
    return out
