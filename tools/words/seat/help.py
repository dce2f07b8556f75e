"""`?` at the table: the rule of the step that asks, in players' words (its label, a construct's settings),
made whole for the decision at hand (`help_at_table`): what the answer leads to where the rule would only repeat
the question, the aid's own words for this part of the game (its numbers in them), what the cards the question
names do, and for a re-roll the rule of the dice.

`tools/table/session.py` calls `help_at_table(rs, step_asking(rs, decision.step), decision)` and adds the legal
answers itself.
"""

from __future__ import annotations

import re
from typing import Optional

from rulecraft.model import ruleset as M
from rulecraft.model.kinds import kind_of, own_statements
from rulecraft.tools.words.text import runs


def _spec(step: M.Step):
    """The decision a step puts to players, as its kind says (a choose's, a sealed step's, a stack's play)."""
    kind = kind_of(step)
    return next(iter(kind.decisions(step)), None) if kind is not None else None


def _decides(step: Optional[M.Step]) -> str:
    """What its kind says it decides: 'choice' (a player's choice), 'mechanic' (secret picks, a stack, an auction,
    a response window ...) or ''."""
    kind = kind_of(step)
    return kind.decides if kind is not None else ""


def decision_steps(rs: M.Ruleset) -> list[M.Step]:
    """Every step that asks a player something: choices, secret picks, stacks, auctions, response windows."""
    return [s for _seq, s in rs.iter_steps() if _spec(s) is not None or _decides(s)]


def step_asking(rs: M.Ruleset, step: Optional[M.Step]) -> Optional[M.Step]:
    """The step whose rule `?` says for a decision asked by `step` (the decision's own `Decision.step`): the
    auction or response window whose expansion holds that step, else the step itself; None when no step asks
    (a re-roll)."""
    if step is None:
        return None
    for _seq, s in rs.iter_steps():
        if isinstance(s, M.ConstructStep) and any(inner is step for inner in M.walk_steps(s.run)):
            return s
    return step


def rule_help(rs: M.Ruleset, step: Optional[M.Step]) -> list[str]:
    """The lines `?` shows about the rule of `step`: what the step is (the designer's label or the rule in
    words), how a construct goes (its settings in words), and the designer's note. No sources, no code. At the
    table, `help_at_table` makes it whole for the decision being asked."""
    if step is None:
        return []
    from rulecraft.tools.chart.sheetplan import designer_label
    from rulecraft.tools.words import Words

    w = Words(rs, detail="players")
    lines = []
    label = designer_label(step)
    generated = w.step(step, own_label=False)
    if label:
        lines.append(f"Rule: {w.label(label)}")
    if isinstance(step, M.ConstructStep) or not label:
        if generated and generated != label:
            lines.append(("How it goes: " if label else "Rule: ") + generated)
    if not label and _decides(step) == "choice":
        decider = getattr(getattr(_spec(step), "player", None), "ast", None)  # (a construct's decision too)
        w.you = getattr(decider, "id", None)  # the rule said to the one asked: 'if you chose to place'
        then = what_follows(rs, w, step)
        if then:  # the question is asked below it: the rule is what the answer leads to
            lines = [f"Rule: after your answer, {'; '.join(then)}"]
        block = _labelled_block(rs, step)
        if block:  # the choice opens a block the designer labelled: that label is its rule
            lines = [f"Rule: {w.label(block)}"] + ([f"After your answer: {'; '.join(then)}"] if then else [])
    if step.note:
        lines.append(f"Note: {w.label(step.note)}")
    return lines


def _reads(step: M.Step, names) -> bool:
    """Whether a step's own texts name one of `names` (what a decision bound, or what was worked out from it)."""
    from rulecraft.dsl import ast as A

    names = {names} if isinstance(names, str) else names
    kind = kind_of(step)
    loop = getattr(step, "iterable", None) if kind is not None and kind.loop else None  # 'for each one chosen'
    texts = [getattr(step, "cond", None), loop, *own_statements(step)]
    for t in texts:
        node = getattr(t, "ast", t)
        if isinstance(node, A.Node) and any(isinstance(n, A.Name) and n.id in names for n in node.walk()):
            return True
    return False


def _worked_out(step: M.Step, names: set) -> set:
    """The names a step's `let` and `set` statements work out from `names` ('let base = sum(picked)': base)."""
    from rulecraft.dsl import ast as A

    out = set()
    for st in own_statements(step):
        node = st.ast
        reads = node is not None and any(isinstance(n, A.Name) and n.id in names for n in node.walk())
        if reads and isinstance(node, A.Let):
            out.add(node.name)
        elif reads and isinstance(node, A.Assign) and isinstance(node.target, A.Name):
            out.add(node.target.id)
    return out


def what_follows(rs: M.Ruleset, w, step: M.Step) -> list[str]:
    """What the steps right after a decision do with its answer, in words ("if the answer is no: stop rolling"):
    the rule of an unlabelled choice is what its answer leads to, not the question again. An answer worked out
    into another value first (`let base = ...`), or read only inside a later step's block, is followed there."""
    spec = _spec(step)
    if spec is None or not spec.bind:
        return []
    for seq in rs.sequences.values():
        chain = _chain(seq.steps, step)
        if chain is None:
            continue
        names = {spec.bind}
        for body, at in reversed(chain):  # the steps after it; where none uses the answer, those after its block
            out, deeper = [], []
            for s in body[at + 1:]:
                said = _said(rs, w, s)
                if not said:  # bookkeeping: what it works out from the answer is the answer still
                    names |= _worked_out(s, names)
                elif _reads(s, names) and len(out) < 2:
                    inner = [_with_block(rs, w, b) for _n, b_list in s.bodies[:1] for b in b_list][:3]
                    out.append(_joined(said, [x for x in inner if x]))
                elif not deeper and any(_reads(d, names) for d in M.walk_steps([s])):
                    deeper = _deeper(rs, w, s, said, names)
            if out or deeper:
                return out or deeper
        return []
    return []


def _labelled_block(rs: M.Ruleset, step: M.Step) -> str:
    """The label of the block a choice opens (its first step a player sees), or ''."""
    from rulecraft.tools.chart.sheetplan import designer_label
    from rulecraft.tools.words.bookkeeping import hidden_step

    for seq in rs.sequences.values():
        chain = _chain(seq.steps, step)
        if chain is None or len(chain) < 2:
            continue
        outer_body, at = chain[-2]
        body, i = chain[-1]
        label = designer_label(outer_body[at]) or ""
        if all(hidden_step(rs, s) for s in body[:i]) and not label.rstrip().endswith("?"):
            return label  # a label that asks ('Still in the game?') is the block's condition, not the choice's rule
    return ""


def _chain(steps, step):
    """The bodies from a sequence's steps down to the one holding `step`, each with the place of the step (or of
    the block holding it) in it; None when `step` is not there."""
    steps = tuple(steps)
    for i, s in enumerate(steps):
        if s is step:
            return [(steps, i)]
        for _n, body in s.bodies:
            inner = _chain(body, step)
            if inner is not None:
                return [(steps, i)] + inner
    return None


def _deeper(rs: M.Ruleset, w, s: M.Step, said: str, names: set) -> list[str]:
    """A step whose block uses the answer, said with the labelled or first step inside it that does."""
    from rulecraft.tools.chart.sheetplan import designer_label

    inside = [d for _n, b in s.bodies for d in M.walk_steps(b)]
    d = next((d for d in inside if _reads(d, names) or (
        designer_label(d) and any(_reads(x, names) for x in M.walk_steps([d])))), None)
    text = _said(rs, w, d) if d is not None else ""
    return [_joined(said, [text])] if text else []


def _with_block(rs: M.Ruleset, w, s: M.Step, depth: int = 0) -> str:
    """A step with the first step of its block, two levels down: 'for each colour' alone says nothing of what is
    done for each ('for each colour: take 1 from Thread pool for the colour ...')."""
    from rulecraft.tools.chart.sheetplan import designer_label

    said = _said(rs, w, s)
    if not said or designer_label(s) or depth >= 2:
        return said
    first = next((x for _n, body in s.bodies[:1] for b in body if (x := _with_block(rs, w, b, depth + 1))), "")
    return f"{said}: {first}" if first else said


def _joined(said: str, inner: list[str]) -> str:
    """A step and the first steps of its block in one sentence; after a question, 'If so, ...'."""
    if not inner:
        return said
    if "?" in said and not said.endswith(("?", "?”")):  # a label that asks and answers: it says it all
        return said
    if "?" in said:
        return said + ("" if said.endswith(("?", "?”")) else ".") + " If so, " + ", then ".join(runs(inner))
    return said + ", " + ", then ".join(runs(inner))


def _said(rs: M.Ruleset, w, s: M.Step) -> str:
    """A step in players' words, first letter small; '' for bookkeeping."""
    from rulecraft.tools.chart.sheetplan import designer_label
    from rulecraft.tools.words.bookkeeping import hidden_step
    from rulecraft.tools.words.players import only_among

    if hidden_step(rs, s):
        return ""
    label = designer_label(s)
    text = (w.label(label) if label else w.step(s, own_label=False)).rstrip(".")
    d = _spec(s)
    if not label and _decides(s) == "choice" and d is not None and d.prompt is not None and d.player is not None \
            and getattr(getattr(d.player, "ast", None), "id", None) != w.you:  # in a sentence, a question is quoted
        text = f"{w.expr(d.player)} is asked “{w.addressed(d.player, d.prompt)}”" + only_among(w, d)
    return text[:1].lower() + text[1:] if not text[1:2].isupper() else text


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


def result_rule(rs: M.Ruleset, r: M.DiceResult) -> str:
    """What the rules do when a named result with no outcome of its own comes up: the label (else the words) of the
    first step that tests it (`r.result == 'double'`, or `r.doubles` for a result that is 'doubles'); '' when none
    does. 'The roll counts as Double' told a reader nothing."""
    from rulecraft.dsl import ast as A
    from rulecraft.model.kinds import yes_no
    from rulecraft.tools.words import Words

    same = getattr(r.when, "text", "").strip()

    def tests(e) -> bool:
        for n in e.walk():
            if isinstance(n, A.Compare) and n.op == "==" and isinstance(n.left, A.Attr) and n.left.name == "result" \
                    and isinstance(n.right, A.Str) and n.right.parts == (r.name,):
                return True
            if isinstance(n, A.Attr) and n.name == same:  # `r.doubles` where the result is 'doubles'
                return True
        return False

    for _seq, s in rs.iter_steps():
        cond = (yes_no(s) or (None,))[0]
        cond = getattr(cond, "ast", cond)
        if isinstance(cond, A.Node) and tests(cond):
            w = Words(rs, detail="players")
            return w.label(s.label) if s.label else w.step(s, own_label=False)
    return ""


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

    lines = rule_help(rs, step)

    w = Words(rs, detail="players")
    prompt = str(getattr(decision, "prompt", "") or "")
    out = list(lines)
    if getattr(decision, "purpose", "") == "reroll" or step is None:
        out = out or reroll_lines(rs, w, prompt)
    rule = " ".join(x.split(": ", 1)[-1] for x in out)
    if _decides(step) == "choice" and not any("after your answer" in x.lower() for x in out):
        decider = getattr(getattr(_spec(step), "player", None), "ast", None)  # (a construct's decision too)
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
