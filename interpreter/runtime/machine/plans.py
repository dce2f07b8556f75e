"""The plan of a decision spec: what asking it needs, worked out once per spec and engine (the first time it is
asked), so that each asking (machine/questions.py's `decide`) reads it instead of working it out again."""

from __future__ import annotations

from typing import Any, Optional

from ...dsl import ast as A
from ...dsl.builtins import REGISTRY
from ...dsl.closures import whole
from ...dsl.guards import COPY_SHIFT, MAX_INT, MAX_VALUES
from ...dsl.ops import MAX_RANGE, text_of
from ...dsl.scope import Fn
from ...model.secrecy import decision_reads, guarded, reads_hidden_cards, secret_of, secrets_of, told_as
from ..decisions import Form

_AMOUNTS = min(MAX_RANGE, MAX_VALUES - 1)  # high - low below this: the range and the list with the pass are legal
# how far above the lowest a bid's highest amount may be for decision_steps.bids to ask it without more: below
# _AMOUNTS (as questions.decide), and the list of the options short enough that building it would charge nothing
_FREE = min(_AMOUNTS, (1 << COPY_SHIFT) - 2)

# Each plan holds its spec (`spec`), so while a table keeps a plan no other object has that spec's id: a plan found by
# id(spec) is the spec's own, and the askings (questions.decide) look it up without checking that it is. The tables
# are emptied together.
_PLANS: dict = {}  # id(decision spec) -> its _Plan, as first worked out (calling the expressions as the spec holds them)
_REFERENCE: dict = {}  # id(decision spec) -> its _Plan for games of the reference engine (the closures)
_COMPILED: dict = {}  # id(decision spec) -> its _Plan for games of the compiled engine, once its expressions are hot
TABLES = (_REFERENCE, _COMPILED)  # by Game.compiled: the table of a game's engine, which the game keeps (`plans`)


class _Plan:
    """What asking a decision needs of its spec, worked out once per spec (the first time it is asked): the place of
    its step as text; whether its prompt or default may draw chance (then they are worked out at every asking, read or
    not, so the dice fall the same); whether its default is the pass; whether its options may be told by shape
    (`spec.amounts`: the pass, then every whole number from low to high, never built as a list).

    It also holds the functions the asking calls (who decides, the prompt, the options or the bounds of the amounts,
    the default): for a game of the reference engine their closures; for one of the compiled engine, once the spec has
    been asked there HOT times (as a whole expression is written, dsl/closures/whole.py), the functions written of
    those called at every asking (who decides, the options or the bounds); so these never go through the dispatch of a
    whole expression. A prompt or a default, called only when read or needed, keeps the dispatch, which writes it if it
    gets hot (no function written for a prompt nobody reads)."""

    __slots__ = ("spec", "node", "prompt_now", "default_now", "default_none", "amounts", "route", "hidden",
                 "hides_cards", "secret", "public", "display_hidden", "public_of", "default_fixed", "default_value",
                 "asked", "who", "prompt", "options", "low", "high", "low_fixed", "default", "player_var", "who_local",
                 "form", "bids", "high_var", "quick", "low_local", "default_worked", "unread", "least", "most",
                 "bounded")
    # the functions an asking calls (set by `calling`). Each but `who` is None where the spec has no such expression;
    # its callers test the route or the fact that proves it set (`high` before `low`, `amounts`, a default), so a
    # Fn | None here would make them test again at every asking: typed Any on purpose
    who: Fn
    prompt: Any
    options: Any
    low: Any
    high: Any
    least: Any
    most: Any
    default: Any

    def __init__(self, g, spec):
        rs = g.rs
        self.spec = spec
        self.node = str(spec.span)
        self.prompt_now = spec.prompt is not None and draws_chance(rs, spec.prompt.ast)
        self.unread = "" if spec.prompt is None else None  # a Decision's prompt not worked out: none, or when read
        d = spec.default
        self.default_now = d is not None and draws_chance(rs, d.ast)
        self.default_none = d is not None and d.ast.__class__ is A.Const and d.ast.value is None
        am = getattr(spec, "amounts", None)
        # the bounds are worked out again (as part of the whole options) where they break a rule: never when they
        # may draw chance
        self.amounts = am if am is not None and spec.kind == "one" and not spec.optional and spec.display is None \
            and not any(draws_chance(rs, e.ast) for e in am) else None
        # which way decide goes: a 'one' decision without display names; a subset without bounds or names; a yes or
        # no; any other
        self.route = "one" if spec.kind == "one" and spec.display is None else "subset" if (
            spec.kind == "subset" and spec.min is None and spec.max is None and spec.display is None) else \
            "yesno" if spec.kind == "yesno" else "any"
        # a subset with bounds (the route "any"), no display names, no default, a prompt worked out only when read:
        # in a game without a story, asked without make_decision's steps, and its seat's bot's pick without a
        # Decision (machine/generic.bounded)
        self.bounded = self.route == "any" and spec.kind == "subset" and spec.display is None and d is None \
            and not self.prompt_now
        # a default written as a constant: its value, worked out once (a yes or no: its wire form too)
        self.default_fixed = d is not None and d.ast.__class__ is A.Const
        self.default_value = d.ast.value if self.default_fixed else None
        self.default_worked = d is not None and not self.default_fixed  # (worked out at every asking of a 'one')
        # what the others may read of it (model/secrecy.py): whether its legal answers are worked out from something
        # some seat cannot see (then a forced answer reads to the others as any answer would), whether from the
        # cards of such a zone, and whether the rules lay its answer face up (then it is an open choice)
        reads = decision_reads(rs, spec)
        self.hidden = bool(reads) or guarded(rs, spec)  # (or asked at all for a hidden reason)
        # (a decline an `if` stands in for is told as the decision it stands for: model/secrecy.py's told_as)
        told = told_as(rs, spec)
        self.hides_cards = reads_hidden_cards(reads if told is spec else decision_reads(rs, told))
        self.secret = secret_of(rs, spec)  # (what it says, or open when laid face up, secret when asked for a hidden
        # reason: model/answers.py)
        # what the others read of its prompt and answer: a {field} of the prompt that reads something hidden is left
        # out of their words ('public'), an option's display name that does is not shown to them (docs/secrecy.md)
        s = secrets_of(rs)
        parts = [p if isinstance(p, str) else None if s.reads(p, local=True) else p for p in spec.prompt_parts]
        self.public = parts if any(p is None for p in parts) else None
        self.display_hidden = spec.display is not None and bool(s.reads(spec.display, local=True))
        self.public_of = self if self.public is not None or self.display_hidden else None  # (Decision.public_of)
        self.hides_cards = self.hidden and self.hides_cards
        self.asked = 0  # askings by games of the compiled engine, until its functions are written
        # who decides, when it is written as a name (the variable a sealed or stack step puts each player in)
        self.player_var = spec.player.ast.id if spec.player.ast.__class__ is A.Name else None
        # and when it is a local (its closure says so): read from the game's locals as the closure reads it, no call
        local = getattr(_closure(spec.player.fn), "local", None)
        self.who_local = local[0] if local is not None and self.player_var == local[0] else None
        self.form: Optional[Form] = None  # what every asking shares (`form_for`)
        self.calling(lambda fn: fn)
        # a bid of amounts from a fixed lowest, no default to work out, a prompt worked out only when read (an
        # auction's sealed bid): a sealed step asks each bidder in turn without the rest of `decide` (decision_steps.bids)
        # which askings `decide` takes first, without the rest of its steps, in a game without a story: a bid of
        # amounts as above from any lowest (an open auction's), a yes or no whose default is a constant or none;
        # both with a prompt worked out only when read
        self.quick = None if self.prompt_now else "amounts" if self.route == "one" and self.amounts is not None \
            and (d is None or self.default_none) else "yesno" if self.route == "yesno" and (
                d is None or self.default_fixed) else None
        # (for `bids`: the variable, the lowest, the highest amounts it asks without more (_FREE), the lowest less 2
        # (count = high - that) and less 1 (answer k > 0 is that + k))
        low = self.low_fixed
        self.bids = (self.player_var, low, range(low, low + _FREE), low - 2, low - 1) if self.quick == "amounts" \
            and low is not None and self.player_var is not None else None
        # the highest amount written as a player variable of the player who decides (`bidder.coins`): its name, read
        # by `bids` as the expression reads it of a player (its closure says so), without calling it
        pv = None if self.amounts is None else getattr(_closure(self.amounts[1].fn), "player_var", None)
        self.high_var = pv[1] if pv is not None and self.player_var is not None and pv[0] == self.player_var else None
        # the lowest amount written as a local plus a whole number (`top + 1`): the local's name and the number, read
        # by `decide` as the expression reads them (its closure says so), without calling it
        ll = None if self.amounts is None else getattr(_closure(self.amounts[0].fn), "local_plus", None)
        self.low_local = None if ll is None else (ll[0], ll[1], MAX_INT - abs(ll[1]))  # (and the local's bound)

    def calling(self, way, every=None) -> "_Plan":
        """The plan with the functions `way` makes of each expression's function (the plan itself keeps them); with
        `every`, `way` is used only for those called at every asking (who decides, the options, the bounds of the
        amounts or of a subset), the others made by `every` (a compiled game writes no function for a prompt nobody reads)."""
        spec = self.spec
        other = every or way
        self.who = way(spec.player.fn)
        self.prompt = None if spec.prompt is None else other(spec.prompt.fn)
        self.options = None if spec.options is None else (way if self.amounts is None else other)(spec.options.fn)
        self.low, self.high = (None, None) if self.amounts is None else (way(self.amounts[0].fn), way(self.amounts[1].fn))
        # a subset's bounds (when it has them): called at every asking
        self.least = None if spec.min is None or spec.kind != "subset" else way(spec.min.fn)
        self.most = None if spec.max is None or spec.kind != "subset" else way(spec.max.fn)
        # a lowest amount written as a number (an auction's minimum bid): its value, not a call at every asking
        low = None if self.amounts is None else self.amounts[0].ast
        self.low_fixed = low.value if low.__class__ is A.Num and low.value.__class__ is int else None
        self.default = None if spec.default is None else other(spec.default.fn)
        return self

    def copy(self) -> "_Plan":
        other = _Plan.__new__(_Plan)
        for name in _Plan.__slots__:
            setattr(other, name, getattr(self, name))
        other.form = None  # (made of the copy's own prompt function)
        return other

    def form_for(self, step, purpose: str) -> Form:
        """The Form every asking of the spec by `step` shares (its Decisions' place, purpose, what the others may
        read, the prompt's function), made at its first asking."""
        form = self.form
        if form is None or form.step is not step:
            form = self.form = Form(step, self.node, purpose, self.hidden, self.hides_cards, self.public_of,
                                    self.prompt)
        return form

    def public_prompt(self, g) -> str:
        """The prompt in the words the other seats read (only for a prompt with a field that reads something
        hidden): its text, each field that reads nothing hidden worked out, the others left as '…'."""
        return "".join(p if isinstance(p, str) else "…" if p is None else text_of(p.fn(g)) for p in self.public or ())


def plan_of(g, spec) -> _Plan:
    """The plan of asking `spec` in game `g`, for its engine (see _Plan)."""
    key = id(spec)
    first = _PLANS.get(key)
    if first is None:
        if len(_PLANS) > 10_000:  # rulesets loaded and dropped one after another: do not keep them all alive
            _PLANS.clear()
            _REFERENCE.clear()
            _COMPILED.clear()
        first = _PLANS[key] = _Plan(g, spec)
    if not g.compiled:  # the closures, as a whole expression runs them in such a game
        plan = _REFERENCE[key] = first.copy().calling(_closure)
        return plan
    first.asked += 1
    if first.asked < whole.HOT:  # (the expressions' own dispatch counts these calls)
        return first
    plan = _COMPILED[key] = first.copy().calling(lambda fn: g.written(fn) if hasattr(fn, "written_from") else fn,
                                                 lambda fn: fn)  # (the others by the dispatch, written if they get hot)
    return plan


def _closure(fn):
    return getattr(fn, "closure", fn)


def draws_chance(rs, node) -> bool:
    """Whether evaluating `node` may draw from the game's random generator (directly or through a function)."""
    todo, seen = [node], set()
    functions = rs.functions
    while todo:
        for sub in todo.pop().walk():
            if sub.__class__ is not A.Call:
                continue
            fd = functions.get(sub.func)
            if fd is None:
                b = REGISTRY.get(sub.func)
                if b is not None and b.chance:
                    return True
            elif sub.func not in seen and fd[1] is not None:
                seen.add(sub.func)
                todo.append(fd[1])
    return False
