"""The aid's "How it is decided" and its dice, worked out from the ruleset where its `aid:` says nothing.

How each key decision resolves (auctions, response windows, tricks, stacks, secret picks, then the
choices players make in each sequence, all of them, in play order) and what the dice's named results
mean, in the players' words (`rulecraft.tools.words`). The book names the dice the same way.
"""

from __future__ import annotations

import re

from rulecraft.dsl import ast as A
from rulecraft.model import ruleset as M
from rulecraft.model.kinds import decides, kind_of, own_statements, yes_no

from rulecraft.tools.chart.sheetplan import designer_label
from rulecraft.tools.words import Words
from rulecraft.tools.words.bookkeeping import hidden_step
from rulecraft.tools.words.core import capital, humanize, sequence_title
from rulecraft.tools.words.seat.help import result_rule, result_when
from rulecraft.tools.words.players import offered
from rulecraft.tools.words.text import dice_label, gerund, named_once, plural, unsaid_lead
from rulecraft.tools.print.aidwords import function_name, kept_score_steps, sentence, walk as _walk

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


def clip(text: str, limit: int = ITEM_CHARS) -> str:
    """A line cut at a clause (never mid-phrase), saying that the sheets have the rest: a reader who meets 'Hand a
    sandbag on' among the choices and nothing of what it does must know where to look."""
    cut = False
    while len(text) > limit and "; " in text:
        text, cut = text.rsplit("; ", 1)[0], True
    return text + "; and more: see the sheets" if cut else text


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
    text = re.sub(r"^The [\w' ]+ is asked “(.*)”", r"\1", text)  # ('The player is asked “Discard which card?”')
    return re.sub(r"^The [\w' ]+: ", "", text).rstrip(".?").strip()


def _decides(s: M.Step) -> str:
    return decides(s)


def decision_lines(rs: M.Ruleset, w: Words, say=None, whole: dict | None = None) -> list[tuple[str, str]]:
    """How the key decisions go, worked out where the ruleset's `aid:` says nothing of them: its auctions, response
    windows, tricks, stacks and secret picks first, then the choices players make, each by its label or its words.
    Every choice of a sequence is said under its title, in play order, unless an earlier line already asks it (a
    follow-up question: 'the player is asked “Discard which card?”'). A labelled auction's `on_end:` steps follow
    its label, each said by `say` (the aid's way of saying a step with what it holds). What an unlabelled choice
    leads to, too long to say whole here, is left to the order of play where `whole` (a sequence's title -> its
    lines there, said uncut) asks the same question: it is not said twice, once cut ('and more: see the sheets')."""
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
            elif decides(s) == "choice":
                found.append((1, title, s))
    out: dict[str, list[str]] = {}
    from rulecraft.tools.words.seat.help import what_follows

    mechanics = tuple(s.path + "." for rank, _n, s in found if rank == 0)  # a choice inside one is its own part
    for rank, name, s in sorted(found, key=lambda x: x[0]):
        if rank and s.path.startswith(mechanics):  # ('Every other player ... discards one': not again, apart)
            continue
        text = clip(w.label(designer_label(s)) or w.step(s, own_label=False), 200)
        asked = _asked(text)
        then = what_follows(rs, w, s) if _decides(s) == "choice" and not designer_label(s) else []
        choices = offered(w, getattr(s, "decision", None), text)
        if choices:  # 'Move by which dice?' and nothing says what may be chosen: the options the ruleset writes out
            text = text.rstrip(".") + ("" if text.endswith(("?", "?”")) else ".") + f" The choices: {choices}."
        if then and len(text) + len("; ".join(then)) > CHOICE_CHARS and asked in (whole or {}).get(name, ""):
            text, then = text.rstrip(".") + ("" if text.endswith(("?", "?”")) else ".") + \
                f" What it leads to: see “{name}” under Order of play.", []
        if then:  # an unlabelled question: what its answer leads to ('Roll again? If the player answers no, ...')
            text = clip(text.rstrip(".") + ("" if text.endswith(("?", "?”")) else ".") + " " + capital("; ".join(then)),
                        CHOICE_CHARS)
        if rank == 0 and designer_label(s) and (lead := unsaid_lead(text, w.step(s, own_label=False))):
            text = text.rstrip(".") + ". " + ". ".join(map(capital, lead.split("; ")))  # 'What may I bid?': unsaid
        ending = [x for b in dict(s.bodies).get("on_end", ()) if (x := say(b) if say else "")]
        if rank == 0 and designer_label(s) and ending:  # a label says the rule; what the end does, the steps say
            text = clip(text.rstrip(".") + ". When it ends: " + "; ".join(lower(x) for x in ending), ENTRY_CHARS)
        resolving = [x for b in _opened(rs, dict(s.bodies).get("resolve", ())) if not hidden_step(rs, b)
                     and (x := say(b) if say else "")]
        if rank == 0 and designer_label(s) and resolving:  # 'Cast and answer': how it goes, and what each play does
            how = w.step(s, own_label=False)
            short = len(text) <= 60 and len(how) <= 200  # a label that names the stack only: how it goes too
            text = clip(text.rstrip(".") + (f". {capital(how)}" if short else "") + ". Each resolves: "
                        + "; ".join(lower(x) for x in resolving), ENTRY_CHARS)
        said = " ".join(x for lines in out.values() for x in lines)
        if not text or asked in said or (name in out and rank != 0 and s.path in branched):
            continue
        if name in out:  # a further choice of the same sequence (or another auction): who is asked was said first
            first_who = re.match(r"^(The [\w' ]+?)(?:: | is asked “)", out[name][0])  # ('The caller is asked “...”')
            if first_who and text.startswith(first_who.group(1) + ": "):
                text = text[len(first_who.group(1)) + 2:]
            if len(" ".join(out[name])) + len(text) > ENTRY_CHARS * (2 if rank == 0 else 1):
                continue
        out.setdefault(name, []).append(sentence(text))
    return [(name, " ".join(lines)) for name, lines in out.items()][:DECISIONS]


def _opened(rs: M.Ruleset, steps) -> list:
    """Steps with a lone call of a sequence replaced by that sequence's steps: what resolving a play does ('a spell
    resolves' says nothing of what it does)."""
    out = []
    for b in steps:
        kind = kind_of(b)
        called = [st.ast.sequence for st in own_statements(b)] if kind is not None and kind.call else []
        if len(called) == 1 and called[0] in rs.sequences and not designer_label(b):
            out += list(rs.sequences[called[0]].steps)
        else:
            out.append(b)
    return out


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
            results.append((capital(r.shown()), sentence(result_when(rs, r)),
                            what or (f"leads to: {rule}" if (rule := result_rule(rs, r)) else "has no effect of its own")))
        out.append({"name": dice_label(d.count, d.sides, d.visibility), "doc": d.doc,
                    "results": results})
    return out


def lower(text: str) -> str:
    first = text.split(" ", 1)[0]  # 'A keep falls' -> 'a keep falls'; 'P2 pays', 'DML' stay as they are
    return text if len(first) > 1 and first == first.upper() else text[:1].lower() + text[1:]


def lines_of(w: Words, data) -> list[str]:
    return [sentence(w.label(str(x))) for x in ([data] if isinstance(data, str) else (data or []))]


def _functions_in(rs: M.Ruleset, node, out: list) -> list:
    for n in node.walk() if node is not None else ():
        if isinstance(n, A.Call) and n.func in rs.functions and n.func not in out:
            out.append(n.func)
            _functions_in(rs, rs.functions[n.func][1], out)
    return out


def score_roots(rs: M.Ruleset) -> list:
    """The expressions a score is made of: `scoring.score`, and where that is a kept value (`p.points`) what each
    step adds to it (`player.points += box_points(...)`), so the functions that count points get explained."""
    sc = rs.scoring
    roots = [sc.score.ast] if sc.score is not None else []
    kept = roots[0] if roots and isinstance(roots[0], A.Attr) else None
    if kept is not None:
        for _seq, step in rs.iter_steps():
            for st in own_statements(step):
                n = st.ast
                if isinstance(n, A.Assign) and isinstance(n.target, A.Attr) and n.target.name == kept.name \
                        and n.op in ("=", "+="):
                    roots.append(n.value)
    return roots


def win_lines(rs: M.Ruleset, w: Words) -> tuple[list[str], list[tuple[str, str]]]:
    if rs.aid.get("win"):  # the designer's sentence, and how a tie is broken unless it says (a first table asked)
        said = lines_of(w, rs.aid["win"])
        told = " ".join(said + [str(rs.aid.get("scoring") or "")])  # (dml's own Scoring says its tie)
        ties = _tie_lines(rs) if rs.scoring.score is not None and not re.search(r"\btie", told, re.I) else []
        return said + ties, _scoring_functions(rs, w)
    lines = []
    winning = {sid for sid, seq in rs.sequences.items()
               if any(isinstance(st.ast, A.Win) for _s, step in [(None, x) for x in _steps(seq.steps)]
                      for st in own_statements(step))}
    for t in rs.triggers:
        if t.run in winning:
            lines.append(sentence(w.label(t.label) if t.label else w.stmt(t)))
    declared, settled = _declared_wins(rs, w)
    lines += declared + _wins_after_play(rs, w)
    if settled:  # a house rule declares the winner outright (or nobody): the score decides nothing
        return lines, []
    sc = rs.scoring
    declared_any = bool(lines)
    if sc.score is not None:  # 'when the game ends, the highest Space wins': and when does it end?
        lines += _game_ends(rs, w)
    w = Words(rs, titles={"p": "a player"}, detail="players")
    if sc.score is not None:
        most = "most" if sc.highest_wins else "fewest"
        score = named_once(w.expr(sc.score))
        lead = "Otherwise, when" if declared_any else "When"
        kept = sc.score.ast if isinstance(sc.score.ast, A.Attr) and isinstance(sc.score.ast.obj, A.Name) else None
        if kept is not None:  # 'p.points': the points a player has are the score, nothing to explain
            what = w.attribute(kept.name)  # 'the most points', 'the highest score'
            if not plural("the " + what) and not what.endswith("ed"):  # (not 'banked': a participle is no noun)
                most = {"most": "highest", "fewest": "lowest"}[most]
            lines.append(sentence(f"{lead} the game ends, the player with the {most} {what} wins"))
        else:
            lines.append(sentence(f"{lead} the game ends, the player with the {most} points wins: points are {score}"))
        if lines[:-1] and not declared_any:  # after 'Has a runner reached ...? Then the game ends.'
            lines[-1] = lines[-1].replace("When the game ends, the player", "Then the player", 1)
        lines += _tie_lines(rs)
    explain = _scoring_functions(rs, w)
    if sc.score is not None and kept is not None and not explain:  # no function counts it: the steps that add to it
        what = w.attribute(kept.name)
        explain = [(f"How {what} are counted" if plural("the " + what) else f"How the {what} is counted", " ".join(kept_score_steps(rs, kept.name)))]
        explain = [e for e in explain if e[1]]
    return lines, explain[:5]


def _game_ends(rs: M.Ruleset, w: Words) -> list[str]:
    """When the game ends without a winner named: each condition whose yes ends the game, by its label where it asks
    ('Has a runner reached the finish space (30)? Then the game ends.'), else in words. A house rule's is left out."""
    out = []
    for _seq, step in rs.iter_steps():
        asks = yes_no(step)
        if asks is None or w.is_constant(asks[0].ast):
            continue
        said = [st.ast for b in asks[1] for st in own_statements(b)]
        if any(isinstance(x, A.Win) for x in said) or not any(isinstance(x, A.End) and x.kind == "game" for x in said):
            continue
        label = w.label(designer_label(step))
        out.append(sentence(label if _asks_and_answers(label) else f"{label} Then the game ends" if label.endswith("?")
                            else f"The game ends when {w.expr(asks[0])}"))
    return list(dict.fromkeys(out + _last_round(rs, w)))[:2]


def _last_round(rs: M.Ruleset, w: Words) -> list[str]:
    """When the rounds of the start sequence stop ('repeat ... until last_round or ...'): the question that sets
    their flag, by its label ('Has anyone reached 12 points? Then this was the last round: the game ends after it.'),
    each other part in words. 'When the game ends, the most points win' alone left the reader asking when."""
    steps = list(rs.sequences[rs.start].steps) if rs.start in rs.sequences else []
    loops = [s for i, s in enumerate(steps) if isinstance(s, M.LoopStep) and s.mode == "until" and all(  # play's last
        hidden_step(rs, x) or any(isinstance(t.ast, A.End) for t in own_statements(x)) for x in steps[i + 1:])]
    if len(loops) != 1:
        return []
    parts, out = [loops[0].cond.ast], []
    while any(isinstance(p, A.BinOp) and p.op == "or" for p in parts):
        parts = [x for p in parts for x in ((p.left, p.right) if isinstance(p, A.BinOp) and p.op == "or" else (p,))]
    for part in parts:
        sets = [step for step in _steps(loops[0].body) if isinstance(part, A.Name) and (asks := yes_no(step))
                and "?" in designer_label(step) and any(
                    isinstance(n, A.Assign) and getattr(n.target, "id", "") == part.id for b in asks[1]
                    for st in own_statements(b) for n in st.ast.walk())]
        if sets:
            out.append(sentence(w.label(designer_label(sets[0])).rstrip(".") + ": the game ends after it"))
        elif not isinstance(part, A.Name):
            out.append(sentence(f"The game {'also ' if out else ''}ends when {w.expr(part)}"))
    return out


def _declared_wins(rs: M.Ruleset, w: Words) -> tuple[list[str], bool]:
    """The wins the order of play declares itself, said as the rule that gives them: a question whose yes names the
    winner ('Is only one player still in? Then each player who is not out wins.'), else 'If COND, WINNER wins.';
    and whether one is declared whatever happens (a house rule that says 'nobody wins')."""
    out, settled = [], False
    for _seq, step in rs.iter_steps():
        asks = yes_no(step)
        if asks is None:
            continue
        wins = [st.ast for b in asks[1] for st in own_statements(b) if isinstance(st.ast, A.Win)]
        if not wins:
            continue
        who = "; ".join("nobody wins" if isinstance(x.who, A.ListLit) and not x.who.items else w.stmt(x)
                        for x in wins)
        labelled = [w.label(designer_label(b)) for b in asks[1] if designer_label(b)
                    and any(isinstance(st.ast, A.Win) for st in own_statements(b))]
        if len(labelled) == 1 and len(wins) == 1:  # the sheets' words for it ('The caster wins; the game ends')
            who = re.sub(r"[;,]? (?:and )?the game ends\.?$", "", labelled[0].rstrip("."))
        who = re.sub(r"\b(wins?) the game\b", r"\1", who)
        label = w.label(designer_label(step))
        if w.is_constant(asks[0].ast):  # a house rule decides it: said only as the game plays it
            if w.constant(asks[0].ast):
                out.append(sentence(capital(who)))
                settled = True
            continue
        rule = (label if _asks_and_answers(label) else f"{label} Then {lower(who)}" if label.endswith("?")
                else f"If {w.expr(asks[0])}, {lower(who)}")
        out.append(sentence(rule))
    return list(dict.fromkeys(out)), settled


def _wins_after_play(rs: M.Ruleset, w: Words) -> list[str]:
    """A winner the start sequence names in a step of its own, no condition around it, after the loop play goes
    round in ('The player whose hand is empty wins' after the turns): when that loop stops, in the order of play's
    words, then that win. The aid of such a game had no How to win at all."""
    steps = list(rs.sequences[rs.start].steps) if rs.start in rs.sequences else []
    out: list[str] = []
    for i, s in enumerate(steps):
        wins = [st.ast for st in own_statements(s) if isinstance(st.ast, A.Win)]
        if not wins or yes_no(s) is not None:
            continue
        ends = [m.group(1) for x in steps[:i] if x.bodies and yes_no(x) is None
                and (m := re.search(r"\buntil (.+)$", w.step(x, own_label=False)))]
        out += [sentence(f"The game ends when {ends[-1]}")] if ends else []
        said = w.label(designer_label(s)) or w.stmt(wins[0])
        out.append(sentence(f"Then {lower(said)}" if ends else said))
    return out


def _asks_and_answers(label: str) -> bool:
    """A label that asks its question and says what a yes does ('Has a levee's water reached 5? Then the levee breaks
    and everyone loses'): the whole rule, in the words the sheets print in its diamond."""
    return bool(re.match(r"[^?]+\?\s+\S", label))


def _scoring_functions(rs: M.Ruleset, w: Words) -> list[tuple[str, str]]:
    """The functions the score reads, each with its doc ('Stall points: The rent of every stall bought, ...')."""
    used: list = []
    for root in score_roots(rs):
        _functions_in(rs, root, used)
    return [(capital(function_name(w, rs, f)), sentence(w.label(rs.function_docs.get(f, "")))) for f in used
            if rs.function_docs.get(f)][:5]


def _tie_lines(rs: M.Ruleset) -> list[str]:
    """How tied scores are settled: 'A tie goes to the player with the most Coins.', 'If still tied, ...'."""
    sc, w = rs.scoring, Words(rs, titles={"p": "a player"}, detail="players")
    theirs = Words(rs, titles={"p": "their"}, detail="players")
    few = sc.fewest or (False,) * len(sc.tie_break)  # {fewest: ...}: 'the fewest Turns taken'
    ties = [_tie(theirs.expr(t), "fewest" if f else "most") for t, f in zip(sc.tie_break, few)
            if not w.is_constant(t.ast)]
    lines = [sentence("A tie goes to the player with " + "; then ".join(ties))] if ties else []
    return lines + [("If still tied, " if ties else "If tied, ")
                    + ("the tied players share the win." if sc.on_tie == "shared" else "nobody wins.")]


def _tie(said: str, most: str) -> str:
    """A tie-break as players say it: 'the most cards in their Basket', 'the most: their chips'."""
    for lead in ("the number of ", "their "):
        if said.startswith(lead):
            return f"the {most} {said.removeprefix(lead)}"
    return f"the {most}: {said}"


def _steps(steps):
    for s in steps:
        yield s
        for _n, body in s.bodies:
            yield from _steps(body)


def puts_out(s: M.Step):
    """The question inside a block that puts a player out of the game (`add modifier out`) on one of its answers, the
    rule a first table asks for ('what if I cannot drink?') which a designer's label over the block leaves unsaid;
    None when the block puts nobody out, or the step is that question itself."""
    def out(body) -> bool:
        return any(isinstance(n, A.AddModifier) and n.modifier == "out" for x in body for st in own_statements(x)
                   for n in st.ast.walk())
    found = [x for _n, body in s.bodies for x in M.walk_steps(body) if (asks := yes_no(x)) and (out(asks[1]) or out(asks[2]))]
    return found[0] if found and yes_no(s) is None else None
