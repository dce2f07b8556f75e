"""Phrases of steps and triggers (the constructs of a sequence), each from its parts' phrases."""

from __future__ import annotations

from typing import Callable

from rulecraft.model import ruleset as M
from rulecraft.model.kinds import KINDS, kind_of

from rulecraft.tools.words.constructs import players_construct
from rulecraft.tools.words.core import sequence_title, Words, capital, humanize, join_and, phrase
from rulecraft.tools.words.locals import counted_times
from rulecraft.tools.words.naming import revealed_when, ring_heading
from rulecraft.tools.words.text import asks, each_in


# the core kinds' phrases, by kind (rulecraft.loader.kinds registers the kinds; their English is here, in the one
# renderer); a kind registered elsewhere brings its own `words`
_SAYS: dict[str, Callable[[Words, M.Step], str]] = {}


def says(*keys: str):
    """Register the phrase of the steps of the kinds `keys` (a LoopStep's kind is the first of its forms)."""

    def deco(fn):
        for key in keys:
            _SAYS[key] = fn
        return fn

    return deco


@phrase(M.Step)
def _registered(w: Words, s: M.Step) -> str:
    """A step in words by its kind (rulecraft.model.kinds): the words the kind brings, given this renderer, else the
    phrase said here of a core kind; a kind with neither reads as its form."""
    kind = kind_of(s)
    if kind is not None and kind.words is not None:
        return kind.words(s, w)
    said = _SAYS.get(kind.key) if kind is not None else None
    if said is not None:
        return said(w, s)
    return humanize(kind.key if kind is not None else type(s).__name__)


@says("do")
def _action(w: Words, s: M.ActionStep) -> str:
    from rulecraft.tools.words.bookkeeping import is_bookkeeping

    stmts = [st for st in s.stmts if w.detail == "full" or not is_bookkeeping(w.rs, st)] or list(s.stmts)
    return "; ".join(w.node(st.ast) for st in stmts)


# the word after a title's first that makes the first a verb: 'Gather every card', 'Resolve the top card'
_DETERMINERS = {"the", "a", "an", "every", "each", "all", "one", "two", "three", "your", "their", "his", "her", "its",
                "any", "some", "this", "that", "these", "those"}

_PREPOSITIONS = {"before", "after", "during", "at", "on", "in", "under", "over", "between", "with", "for", "from", "to",
                 "until", "of", "into", "through", "about", "against", "by", "without", "within", "when", "while", "if"}


@says("call")
def _call(w: Words, s: M.CallStep) -> str:
    if w.detail != "full":  # who plays it is the caller's business: players read the sequence's name
        # the sequence's own title (a variable may share its id: 'season' the count is not 'Season' the sequence)
        name = sequence_title(w.rs.sequences[s.sequence]) if s.sequence in w.rs.sequences else w.name(s.sequence)
        words = name.split(" ")
        if words[0] in ("A", "An", "The") and len(words) >= 3 and (
                any(x in ("is", "are", "was") for x in words) or words[-1].endswith("s") or words[-2].endswith("s")):
            return name[0].lower() + name[1:]  # a title that is a clause ('A lot is sold'): it says what happens
        if len(words) >= 2 and words[0].endswith("ing") and words[0][:1].isupper() and words[1][:1].islower():
            return f"go on to {name[0].lower() + name[1:]}"  # 'Placing a worker': the name of what happens next
        if len(words) >= 3 and words[0][:1].isupper() and words[0].isalpha() and words[1] in _DETERMINERS \
                and words[0].lower() not in _PREPOSITIONS:
            return name[0].lower() + name[1:]  # a title that says what to do ('Gather every card ...'): said as is
        return "play " + (name[0].lower() + name[1:] if words[0] in ("A", "An", "The") else name)
    args = ", ".join(f"{humanize(k)} {w.expr(v)}" for k, v in s.args)
    return f"play {w.name(s.sequence)}" + (f" ({args})" if args else "")


@says("if")
def _if(w: Words, s: M.IfStep) -> str:
    rule = _house_rule(w, s.cond.ast if s.cond is not None else None)
    if w.detail != "full":  # a condition, not a question: the chart's yes and no say the rest
        return f"if {rule or w.expr(s.cond)}"
    return f"if {rule}?" if rule else f"if {w.expr(s.cond)}?"


def _house_rule(w: Words, e) -> str:
    """A condition a house rule decides ('seize_tie == "first_in_order"'), named as the rule, not folded away."""
    from rulecraft.dsl import ast as A

    if isinstance(e, A.Compare) and e.op in ("==", "!=") and isinstance(e.left, A.Name) and e.left.id in w.rs.options:
        return f"the house rule “{w.rs.options[e.left.id].title or humanize(e.left.id)}” is {'not ' if e.op == '!=' else ''}{w.expr(e.right)}"
    if isinstance(e, A.BinOp) and e.op in ("and", "or") and w.is_constant(e):
        parts = [_house_rule(w, e.left) or w.expr(e.left), _house_rule(w, e.right) or w.expr(e.right)]
        return f" {e.op} ".join(parts)
    return ""


@says("while", "repeat", "loop")
def _loop(w: Words, s: M.LoopStep) -> str:
    if w.detail != "full" and (times := counted_times(w, s)):
        return f"do this {times} times"
    if s.mode in ("while", "until"):
        return f"repeat {s.mode} {w.expr(s.cond)}"
    if w.detail != "full":  # a loop's name is the designer's handle: players read 'keep rolling' or 'repeat'
        return f"keep {humanize(s.name)}" if s.name and s.name.endswith("ing") and "_" not in s.name else "repeat"
    return f"repeat until the {humanize(s.name)} stops" if s.name else "repeat"


@says("for_each")
def _for_each(w: Words, s: M.ForEachStep) -> str:
    if _is_each(w, s):
        return f"for {w.expr(s.iterable)}"
    if w.detail != "full" and _everyone(s):
        return f"for each {_var(w, s.var)}"
    if w.detail != "full":
        from rulecraft.dsl import ast as A

        e = getattr(s.iterable, "ast", s.iterable)
        if isinstance(e, A.Range) and (heading := ring_heading(w, s)):
            return heading  # '0..player_count - 1' indexing a ring of players: for each player in the ring
        if isinstance(e, A.Range):  # '1..workers_each': a count of times, or the numbers one by one
            high = w.expr(e.high)
            if w.constant(e.low) == 1 and not _reads_var(s) and (high.isdigit() or high.startswith("the number of ")):
                return f"do this {high} times"
            return f"for each number from {w.expr(e.low)} to {high}"
        if _var(w, s.var) == "one":  # nothing more is known of the items: 'for each of the player's Workers'
            items = w.expr(s.iterable)
            return "for each one chosen" if items == "the ones chosen" else f"for each of {items}"
        return f"for each {each_in(_var(w, s.var), w.expr(s.iterable))}"
    return f"for each {_var(w, s.var)} in {w.expr(s.iterable)}"


def _reads_var(s: M.ForEachStep) -> bool:
    """Whether a loop's steps read its variable (a loop that only repeats does not)."""
    from rulecraft.tools.words.locals import _names_in

    for inner in M.walk_steps(s.body):
        args = [v for _k, v in getattr(inner, "args", ()) or ()]  # a call's `with:` values
        if s.var in _names_in(inner, []) or any(s.var in _names_in(v, []) for v in args):
            return True
    return False


def _everyone(s) -> bool:
    """A step that goes over `players`: 'for each player', not 'for each player in the players'."""
    from rulecraft.dsl import ast as A

    e = getattr(s.iterable, "ast", s.iterable)
    return isinstance(e, A.Name) and e.id == "players"


def _var(w: Words, var: str) -> str:
    """A loop's variable after 'each': its name, or in the players' view the noun it stands for."""
    return w.local(var).removeprefix("the ") if w.detail != "full" else humanize(var)


def _is_each(w: Words, s) -> bool:
    """An iterable whose phrase already says 'each ...' (seat order, keys, a filtered list)."""
    return w.expr(s.iterable).startswith("each ")


_KINDS = {"one": "one of", "subset": "any of", "number": "a number", "yesno": "yes or no"}


@phrase(M.DecisionSpec)
def _decision(w: Words, d: M.DecisionSpec) -> str:
    if d.prompt is not None:
        text = w.addressed(d.player, d.prompt) if w.detail != "full" else w.text(d.prompt)
        decider = getattr(d.player, "ast", d.player)
        if w.you and getattr(decider, "id", None) == w.you:  # `?` speaks to the one asked
            return f"you are asked “{text}”"
        who = w.expr(d.player)
        if w.detail != "full" and who in ("the one", "the value", "the count"):
            return text
        if who and who not in text and w.detail != "full" and asks(text):
            return f"{who} is asked “{text}”"  # a question put: 'the player is asked “Roll again?”'
        return f"{who}: {text}" if who and who not in text else text
    what = _KINDS.get(d.kind, humanize(d.kind))
    if d.kind in ("one", "subset") and d.options is not None:
        what += " " + w.expr(d.options)
    elif d.kind == "number" and d.min is not None and d.max is not None:
        what += f" from {w.expr(d.min)} to {w.expr(d.max)}"
    return f"{w.expr(d.player)} chooses {what}"


@says("choose")
def _choose(w: Words, s: M.ChooseStep) -> str:
    said = w.node(s.decision) if s.decision is not None else "a player decides"
    return f"{said} (told to everyone {when})" if (when := revealed_when(w, s)) else said


@says("sealed")
def _sealed(w: Words, s: M.SealedStep) -> str:
    who = w.expr(s.iterable)
    if w.detail != "full" and _everyone(s):
        who = f"each {_var(w, s.var)}"
    who = who if who.startswith("each ") else f"each {_var(w, s.var)} in {who}"
    what = w.text(s.decision.prompt) if s.decision is not None and s.decision.prompt is not None else "chooses"
    if s.decision is not None and s.decision.secret:
        return f"{who}, in secret: {what}; the answers stay secret"
    return f"{who}, in secret: {what}; then all reveal"


@says("stack")
def _stack(w: Words, s: M.StackStep) -> str:
    if w.detail != "full":
        return players_stack(w, s)
    who = w.expr(s.iterable) if s.iterable is not None else "the players"
    return f"{who} may play onto {w.expr(s.zone)}; then resolve it last in, first out"


def players_stack(w: Words, s: M.StackStep) -> str:
    """A stack as players say it: who offers first, what goes on it, and that the last played resolves first."""
    from rulecraft.dsl import ast as A

    e = getattr(s.iterable, "ast", s.iterable)
    if isinstance(e, A.Call) and e.func == "seat_order" and e.args:
        way = "counter-clockwise " if w.constant(_kw_value(e, "dir")) == "ccw" else ""
        who = f"in turn {way}from {w.expr(e.args[0])}, players"
    elif e is None or _everyone(s):
        who = "in turn, players"
    else:
        who = f"in turn, {w.expr(e)}"
    what = f"onto {w.expr(s.zone)}" if s.zone is not None else "onto the stack"
    return f"{who} may play {what}; the last played resolves first"


def _kw_value(call, name: str):
    return next((k.value for k in call.kwargs if k.name == name), None)


@phrase(M.Trigger)
def _trigger(w: Words, t: M.Trigger) -> str:
    when = f" and {w.expr(t.when)}" if t.when is not None else ""
    timing = "at once" if t.timing == "now" else f"after the {humanize(t.after_kind or 'action')}"
    return f"whenever {_EVENTS.get(t.on, 'there is ' + humanize(t.on))}{when}: play {w.name(t.run)} {timing}"


_EVENTS = {"drawn": "a card is drawn", "moved": "a card moves", "rolled": "dice are rolled",
           "shuffled": "a zone is shuffled", "revealed": "secret choices are revealed"}


def block(w: Words, steps, depth: int = 0) -> list[str]:
    """Steps and the steps they hold as indented sentences (for the book's text view)."""
    out = []
    for s in steps:
        out.append("  " * depth + capital(w.step(s)) + ("" if w.step(s).endswith(("?", ".")) else "."))
        for _name, body in s.bodies:
            if body:
                out += block(w, body, depth + 1)
    return out


__all__ = ["block", "join_and"]


@phrase(M.ConstructStep)
def _construct(w: Words, s: M.ConstructStep) -> str:
    """An auction or a response window: its rule, with each setting the designer wrote as an expression said in
    words (parameters by their value, house rules by their name). Players read only the settings that can be said
    in words; a part that would read like code is left out (the step's label says it). A registered kind that
    brings its own words (rulecraft.model.kinds) says itself."""
    import re

    kind = KINDS.get(s.construct)
    if kind is not None and kind.words is not None:  # a registered kind says itself, given this renderer
        return kind.words(s, w)
    if w.detail != "full" and s.construct in ("auction", "respond"):
        return players_construct(w, s)
    from rulecraft.dsl.parser import parse_expression, plain_locator
    from rulecraft.tools.words.labels import clean_clauses

    rule = s.rule or f"{s.construct} ({', '.join(k for k, _v in s.settings)})"
    for key, text in sorted(s.settings, key=lambda kv: -len(str(kv[1]))):  # longest first: no setting inside another
        text = str(text)
        if not text or text not in rule or key in ("each", "bidder", "as"):  # names, not values
            continue
        try:
            said = w.expr(parse_expression(text, plain_locator()))
        except Exception:  # noqa: BLE001 - a setting that is not an expression stays as written
            continue
        # a bare name may also be a word of the rule itself ('each other player'): not after 'other' or 'each'
        guard = r"(?<!other )(?<!each )" if text.isidentifier() else ""
        rule = re.sub(guard + r"(?<![\w.'])" + re.escape(text) + r"(?![\w('])", lambda _m, said=said: said, rule)
    if w.detail == "full":
        return rule
    rule = re.sub(r"[;,]? *\b(when|if) always\b", "", rule)
    rule = re.sub(r"[;,]? *[^;,]*\b(when|if) never\b", "", rule)
    return clean_clauses(rule)
