"""The aid's "How it is decided" and its dice, worked out from the ruleset where its `aid:` says nothing.

How each key decision resolves (auctions, response windows, tricks, stacks, secret picks, then the
choices players make in each sequence, all of them, in play order) and what the dice's named results
mean, in the players' words (`rulecraft.tools.words`). The book names the dice the same way.
"""

from __future__ import annotations

import re

from rulecraft.model import ruleset as M
from rulecraft.model.kinds import kind_of, own_statements, yes_no

from rulecraft.tools.chart.sheetplan import designer_label
from rulecraft.tools.words import Words
from rulecraft.tools.words.core import capital, humanize, sequence_title
from rulecraft.tools.words.help import result_when
from rulecraft.tools.words.text import dice_name, gerund

ITEM_CHARS = 400  # an order-of-play line longer than this keeps its first clauses only
DECISIONS = 5  # entries of "How it is decided" at most
CHOICE_CHARS = 240  # one choice said with what its answer leads to
ENTRY_CHARS = 420  # a sequence's choices said together

# what a key decision is called, by its kind (any other: its form, humanized)
_DECIDED = {"auction": "Bidding", "respond": "Answering", "trick": "A trick", "sealed": "Secret picks",
            "stack": "The stack"}
# a yes/no prompt that opens with one of these asks ('Do you ...?'), it does not name what the answer does
_ASKING = {"do", "does", "did", "will", "would", "shall", "should", "can", "could", "may", "is", "are", "was",
           "were", "has", "have", "who", "whom", "what", "which", "where", "when", "how", "why", "your", "the", "a",
           "an", "any", "pick", "choose", "answer"}


def sentence(text: str) -> str:
    text = capital(" ".join(text.split()))
    return text if text.endswith((".", "?", "!", ":")) else text + "."


def clip(text: str, limit: int = ITEM_CHARS) -> str:
    """A line cut at a clause (never mid-phrase, never with '…'): the sheets have the rest."""
    while len(text) > limit and "; " in text:
        text = text.rsplit("; ", 1)[0]
    return text


def window_heading(s: M.ConstructStep) -> str:
    """What a response window is called: the act its question offers as a gerund ('Challenge …?' ->
    'Challenging', 'Take the lot …?' -> 'Taking'), else 'Answering'."""
    for c in M.walk_steps(s.run):
        asked = kind.decisions(c) if (kind := kind_of(c)) is not None else ()
        prompt = (asked[0].prompt.text if asked and asked[0].prompt is not None else "") or ""
        first = re.match(r"([A-Za-z]+)\b", prompt.strip())
        if _decides(c) == "choice" and first and first.group(1).lower() not in _ASKING:
            return capital(gerund(first.group(1).lower()))
    return "Answering"


def _asked(text: str) -> str:
    """What a choice asks, without who is asked ('The player: Discard which card?' -> 'Discard which card')."""
    return re.sub(r"^The [\w' ]+: ", "", text).rstrip(".?").strip()


def _decides(s: M.Step) -> str:
    kind = kind_of(s)
    return kind.decides if kind is not None else ""


def _walk(steps, inside: bool):
    """Steps depth first, each with whether it lies inside a branch (an if's then or else, a construct's part)."""
    for s in steps:
        yield s, inside
        kind = kind_of(s)
        for _name, body in s.bodies:
            yield from _walk(body, inside or (kind is not None and kind.outcomes))


def decision_lines(rs: M.Ruleset, w: Words) -> list[tuple[str, str]]:
    """How the key decisions go, worked out where the ruleset's `aid:` says nothing of them: its auctions, response
    windows, tricks, stacks and secret picks first, then the choices players make, each by its label or its words.
    Every choice of a sequence is said under its title, in play order, unless an earlier line already asks it (a
    follow-up question: 'the player is asked “Discard which card?”')."""
    found: list[tuple[int, str, M.Step]] = []
    branched: set[str] = set()  # choices asked only on some answer or outcome (inside a branch): follow-ups
    for seq in rs.sequences.values():
        title = sequence_title(seq)
        for s, inside in _walk(seq.steps, False):
            if inside:
                branched.add(s.path)
            kind = kind_of(s)
            if kind is not None and kind.decides == "mechanic":
                found.append((0, window_heading(s) if kind.key == "respond"
                              else _DECIDED.get(kind.key, capital(humanize(kind.key))), s))
            elif kind is not None and kind.decides == "choice":
                found.append((1, title, s))
    out: dict[str, list[str]] = {}
    from rulecraft.tools.words.help import what_follows

    for rank, name, s in sorted(found, key=lambda x: x[0]):
        text = clip(w.label(designer_label(s)) or w.step(s, own_label=False), 200)
        asked = _asked(text)
        then = what_follows(rs, w, s) if _decides(s) == "choice" and not designer_label(s) else []
        if then:  # an unlabelled question: what its answer leads to ('Roll again? If the player answers no, ...')
            text = clip(text.rstrip(".") + ("" if text.endswith("?") else ".") + " " + capital("; ".join(then)),
                        CHOICE_CHARS)
        said = " ".join(x for lines in out.values() for x in lines)
        if not text or asked in said or (name in out and rank != 0 and s.path in branched):
            continue
        if name in out:  # a further choice of the same sequence (or another auction): who is asked was said first
            first_who = re.match(r"^The [\w' ]+: ", out[name][0])
            if first_who and text.startswith(first_who.group(0)):
                text = text[len(first_who.group(0)):]
            if len(" ".join(out[name])) + len(text) > ENTRY_CHARS * (2 if rank == 0 else 1):
                continue
        out.setdefault(name, []).append(sentence(text))
    return [(name, " ".join(lines)) for name, lines in out.items()][:DECISIONS]


def dice_views(rs: M.Ruleset, w: Words) -> list[dict]:
    """Each set of dice by the name players give it ('Two six-sided dice (2d6)'), with its named results: (title,
    when it comes up, what the roll then does)."""
    out = []
    for d in rs.dice.values():
        results = []
        for r in d.results:
            what = {"success": "succeeds", "failure": "fails"}.get(r.outcome or "", "")
            if r.reroll:
                what = (what + ", and " if what else "") + "may be rolled again"
            results.append((capital(r.shown()), sentence(result_when(rs, r)), what or f"counts as {r.shown()}"))
        out.append({"name": f"{capital(dice_name(d.count, d.sides))} ({d.count}d{d.sides})", "doc": d.doc,
                    "results": results})
    return out


def kept_score_steps(rs: M.Ruleset, name: str, limit: int = 3) -> list[str]:
    """How the steps add to a score kept in player variable `name` (`p.points += ...`) where no function counts
    it: a rule that chooses what to add said whole ('If the player's Tricks are their Call: add 10 plus ...;
    otherwise add the player's Tricks to their Points'), else each adding step in words."""
    from rulecraft.dsl import ast as A

    w = Words(rs, detail="players")
    kept = rs.player_variables.get(name)
    if kept is None or isinstance(kept.initial, bool) or not isinstance(kept.initial, (int, float)):
        return []  # a list kept (the cards bought) or a flag: not points

    def counting(s: M.Step) -> bool:  # a step that only changes values (nothing else that a player would miss)
        stmts = [st.ast for st in own_statements(s)]
        return bool(stmts) and all(isinstance(a, (A.Assign, A.Let)) for a in stmts)

    def adds(s: M.Step) -> bool:  # such a step that adds to the score
        return counting(s) and any(isinstance(a, A.Assign) and a.op == "+=" and isinstance(a.target, A.Attr)
                                   and a.target.name == name for a in (st.ast for st in own_statements(s)))

    def said(steps) -> str:
        return "; ".join(t[:1].lower() + t[1:] for t in (w.step(x, own_label=False) for x in steps))

    out: list[str] = []
    inside: set[str] = set()
    for seq in rs.sequences.values():
        for s, branched in _walk(seq.steps, False):
            if s.path in inside:
                continue
            _cond, yes, no = yes_no(s) or (None, (), ())
            body = (*yes, *no)  # a condition's steps
            if body and all(counting(x) for x in body) and any(adds(x) for x in body):
                out.append(sentence(f"{w.step(s, own_label=False)}: {said(yes)}"
                                    + (f"; otherwise {said(no)}" if no else "")))
                inside |= {x.path for x in M.walk_steps(body)}
            elif adds(s) and not branched:  # (an add on some condition only is said with it, or not at all)
                out.append(sentence(said([s])))
    return list(dict.fromkeys(out))[:limit]
