"""The print check of `rulecraft validate`: where players would read generated text, so a designer knows where
to write a `label:` (W701), and labels naming values the ruleset has not (W702)."""

from __future__ import annotations

import re

from rulecraft.diagnostics import warning
from rulecraft.model import ruleset as M
from rulecraft.model.kinds import kind_of, yes_no
from rulecraft.tools.chart.sheetplan import designer_label
from rulecraft.tools.words.bookkeeping import hidden_step
from rulecraft.tools.words.core import Words
from rulecraft.tools.words.labels import LONG, code_like, stilted, unknown_names
from rulecraft.tools.words.locals import abbreviation


def _titles(rs: M.Ruleset):
    """A function that puts a neutral word where generated text quotes one of the designer's own names (a zone's,
    a card's, a table's, a dice result's, a variable's or a sequence's title): those are players' words chosen by
    the designer, so a letter or a word in them ('Bank x 2', 'None of a kind') is not code the engine printed."""
    names = {z.title for z in rs.zones.values()} | {c.name for c in rs.cards} | set(rs.titles.values()) \
        | set(rs.key_titles.values()) | {t.title for t in rs.tables.values()} | {s.title for s in rs.sequences.values()}
    names |= {r.title for d in rs.dice.values() for r in d.results if r.title}
    names = sorted((n for n in names if n and code_like(n)), key=len, reverse=True)
    if not names:
        return lambda text: text
    pattern = re.compile("|".join(re.escape(n) for n in names))
    return lambda text: pattern.sub("Title", text)


def _picks(rs: M.Ruleset) -> list[str]:
    """The names the ruleset gives to what a player picks (a decision's `as:`)."""
    out = set()
    for _seq, s in rs.iter_steps():
        kind = kind_of(s)
        for spec in kind.decisions(s) if kind is not None else ():
            if spec.bind:
                out.add(spec.bind)
        if kind is not None and kind.decides == "mechanic" and getattr(s, "bind", None):  # secret picks' `as:`
            out.add(s.bind)
    return sorted(out)


def _names(rs: M.Ruleset, w: Words) -> set:
    """The names of the ruleset's values: variables, player variables and the locals its steps bind."""
    return set(rs.variables) | set(rs.player_variables) | set(w.info.nouns) | set(w.info.defs) | set(w.info.counters)


def _any_of(template: str, names: list[str]):
    """A search for `template` with any of the names in it (None: no names), as one pattern: stilted() looks for
    each name on its own, and only where one of them is there (same findings, a search per text, not per name)."""
    if not names:
        return None
    return re.compile(template.format("|".join(names))).search


def print_check(rs: M.Ruleset) -> list:
    """Warnings for `rulecraft validate`: W702 for a label naming a value the ruleset has not, W701 for a
    player-facing step whose printed text would be generated and long or code-like (with that text)."""
    w = Words(rs, detail="players")
    out = []
    picks = _picks(rs)
    flags = sorted(w.info.flags | w.info.predicates)
    shorts = sorted(n for n in _names(rs, w) if abbreviation(n))
    plain = _titles(rs)
    # the patterns of labels.stilted, for any of the names at once
    any_pick = _any_of(r"\bnumber of the (?:{})\b", [re.escape(n.replace("_", " ")) for n in picks])
    any_flag = _any_of(r"\bthe (?:{}) of\b", [re.escape(n.replace("_", " ")) for n in flags])
    any_short = _any_of(r"\bthe (?:{})\b", [re.escape(n) for n in shorts])
    for seq in rs.sequences.values():
        for s in M.walk_steps(seq.steps):
            label = designer_label(s)
            asks = yes_no(s)
            if asks is not None and asks[0] is not None and not w.is_constant(asks[0].ast):
                why = diamond_problems(w, s, label)
                if why:
                    out.append(warning("W701", f"step '{s.path}' prints a yes/no diamond that {why}: "
                                               f"{label or w.step(s, own_label=False)}", s.span,
                                       "label the step with the question it asks, saying its numbers"))
            if label:
                bad = unknown_names(rs, label)
                if bad:
                    out.append(warning("W702", f"the label of step '{s.path}' names {', '.join(repr(b) for b in bad)}, "
                                               "which is no parameter, option, dice or table value", s.span,
                                       "write {NAME} with a parameter or option id, a dice id, or {TABLE.KEY.COLUMN}"))
                continue
            if hidden_step(rs, s) or getattr(kind_of(s), "call", False):  # a call: the sequence's title
                continue
            text = w.step(s, own_label=False)
            why = code_like(plain(text)) or stilted(text, picks if any_pick and any_pick(text) else (),
                                             flags if any_flag and any_flag(text) else (),
                                             shorts if any_short and any_short(text) else ())
            if why or len(text) > LONG:
                reason = ", ".join(why) if why else f"{len(text)} characters"
                out.append(warning("W701", f"step '{s.path}' prints generated text ({reason}): {text}", s.span,
                                   "give the step a `label:` in players' words"))
    for text, span in rs.aid_texts:  # the aid's own prose: '{name}' is filled as in a label
        bad = unknown_names(rs, text)
        if bad:
            out.append(warning("W702", f"the aid's text names {', '.join(repr(b) for b in bad)}, which is no "
                                       "parameter, option, dice or table value, and would print as written", span,
                               "write {NAME} with a parameter or option id, a dice id, or {TABLE.KEY.COLUMN}"))
    for t in rs.triggers:
        bad = unknown_names(rs, t.label)
        if bad:
            out.append(warning("W702", f"the label of trigger '{t.id}' names {', '.join(repr(b) for b in bad)}, "
                                       "which is no parameter, option, dice or table value", t.span))
    return out


def diamond_problems(w: Words, s: M.Step, label: str) -> str:
    """What makes a yes/no diamond read wrong ('' if nothing): a statement where a question goes (and no clean
    question from the condition to put there instead), a roll's success with no word of what succeeds, or yes and
    no leading to steps that read the same."""
    from rulecraft.dsl import ast as A
    from rulecraft.tools.words.labels import condition_question

    if label and "?" not in label and not condition_question(w, s):
        return "holds a statement, not a question"
    cond, yes, no = yes_no(s)
    e = cond.ast
    e = e.operand if isinstance(e, A.Unary) and e.op == "not" else e
    if label and isinstance(e, A.Attr) and e.name == "success" \
            and not re.search(r"\d|\{|target|or more|or over", label):
        return "asks whether a roll succeeded without saying the total it needs"
    said = [[w.step(x, own_label=True) for x in body] for body in (yes, no)]
    if no and said[0] == said[1]:
        return "leads to the same step on yes and on no"
    return ""