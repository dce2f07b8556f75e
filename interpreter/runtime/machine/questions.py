"""The question a decision step puts: its spec worked out into the Decision a player is asked, or into the answer
at once when there is nothing to choose (see `decide`). The steps that ask are in decision_steps.py; how an
answer is taken, in answers.py."""

from __future__ import annotations

from typing import Any, Optional

from ...diagnostics import RuleError
from ...dsl import ast as A
from ...dsl.builtins import REGISTRY, as_list, describe
from ...dsl.closures import whole
from ...dsl.guards import COPY_SHIFT, MAX_VALUES, charge
from ...dsl.ops import MAX_RANGE, text_of
from ...dsl.scope import Fn
from ...model.secrecy import answer_opened, decision_reads, guarded, reads_hidden_cards, secrets_of, told_as
from ...values import Player
from ..decisions import MISSING, Decision, Form, hidden_from_others
from ..knowledge import unordered
from ..story import display_names, narrate_choice, narrate_sealed_forced
from .answers import by_bot, by_pick

_PLANS: dict = {}  # id(decision spec) -> its _Plan, as first worked out (calling the expressions as the spec holds them)
_REFERENCE: dict = {}  # id(decision spec) -> its _Plan for games of the reference engine (the closures)
_COMPILED: dict = {}  # id(decision spec) -> its _Plan for games of the compiled engine, once its expressions are hot


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
                 "form")
    # the functions an asking calls (set by `calling`). Each but `who` is None where the spec has no such expression;
    # its callers test the route or the fact that proves it set (`high` before `low`, `amounts`, a default), so a
    # Fn | None here would make them test again at every asking: typed Any on purpose
    who: Fn
    prompt: Any
    options: Any
    low: Any
    high: Any
    default: Any

    def __init__(self, g, spec):
        rs = g.rs
        self.spec = spec
        self.node = str(spec.span)
        self.prompt_now = spec.prompt is not None and draws_chance(rs, spec.prompt.ast)
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
        # a default written as a constant: its value, worked out once (a yes or no: its wire form too)
        self.default_fixed = d is not None and d.ast.__class__ is A.Const
        self.default_value = d.ast.value if self.default_fixed else None
        # what the others may read of it (model/secrecy.py): whether its legal answers are worked out from something
        # some seat cannot see (then a forced answer reads to the others as any answer would), whether from the
        # cards of such a zone, and whether the rules lay its answer face up (then it is an open choice)
        reads = decision_reads(rs, spec)
        self.hidden = bool(reads) or guarded(rs, spec)  # (or asked at all for a hidden reason)
        # (a decline an `if` stands in for is told as the decision it stands for: model/secrecy.py's told_as)
        told = told_as(rs, spec)
        self.hides_cards = reads_hidden_cards(reads if told is spec else decision_reads(rs, told))
        self.secret = False if spec.secret is None and answer_opened(rs, spec) else spec.secret
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

    def calling(self, way, every=None) -> "_Plan":
        """The plan with the functions `way` makes of each expression's function (the plan itself keeps them); with
        `every`, `way` is used only for those called at every asking (who decides, the options or the bounds of the
        amounts), the others made by `every` (a compiled game writes no function for a prompt nobody reads)."""
        spec = self.spec
        other = every or way
        self.who = way(spec.player.fn)
        self.prompt = None if spec.prompt is None else other(spec.prompt.fn)
        self.options = None if spec.options is None else (way if self.amounts is None else other)(spec.options.fn)
        self.low, self.high = (None, None) if self.amounts is None else (way(self.amounts[0].fn), way(self.amounts[1].fn))
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
    if first is None or first.spec is not spec:
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


def _player(who, spec) -> Player:
    if who.__class__ is not Player and not isinstance(who, Player):
        raise RuleError(f"a decision needs a player to decide, got {describe(who)}", spec.player.span)
    return who


def decide(g, spec, step, purpose: str = "choose", each: Any = None) -> Any:
    """The answer of a decision taken at once (only one option), or MISSING with the decision pending; `step` is the
    model step that asks (the Decision's `step`); `each`: the player a sealed or stack step has just put in its
    variable (`step.var`), who decides when the spec's player is that variable (not worked out again).

    A `one` or `yesno` decision is made here, a subset without bounds by _subset, without the generic steps of
    make_decision (most decisions are such). Without the story, one with a single option is answered without building a
    Decision, and a prompt is worked out only when it is read (unless it may draw chance): nobody reads it in a
    simulation; nor is one built for a bot's pick (answers.by_pick). Options told by shape (`spec.amounts`) are
    counted, not built."""
    plan = (_COMPILED if g.compiled else _REFERENCE).get(id(spec))
    if plan is None or plan.spec is not spec:
        plan = plan_of(g, spec)
    route = plan.route
    if route == "any":
        return ask(g, make_decision(g, spec, step, purpose))
    who = each if each is not None and plan.player_var == step.var else g.locals.get(plan.who_local)
    if who.__class__ is not Player:  # (not a local name, or one unset or not a player: the call, its error)
        who = _player(plan.who(g), spec)
    story = g.story
    p = plan.prompt
    if route == "subset":
        return _subset(g, spec, step, purpose, plan, who)
    prompt = "" if p is None else p(g) if story or plan.prompt_now else None
    if route == "yesno":  # never forced, never secret (its answer hides no card), pending at once; its options
        # (True, False) made only for whoever reads them; a default's value is its own wire form
        default = plan.default
        if default is not None:
            default = plan.default_value if plan.default_fixed else default(g)
        if g.bots is not None:  # its seat's bot may answer it without a Decision (answers.by_pick)
            answer = by_pick(g, who.seat, "yesno", 2, None, None)
            if answer is not MISSING:
                return answer
        # (player, kind, prompt, options, min, max, default, form, number, low, count, secret, game)
        g.pending = d = Decision(who.seat, "yesno", prompt, None, 0, 0, default, plan.form_for(step, purpose),
                                 g.decisions, None, 2, plan.secret is True, g)
        return MISSING if g.bots is None else by_bot(g, d)
    given = False  # a default whose value is worked out here, its wire form taken of the Decision (`value`)
    value = opts = low = None
    secret = plan.secret is True  # (options that are no cards: never secret unless the spec says so)
    n = 0
    if plan.high is not None:
        low = plan.low_fixed
        if low is None:
            low = plan.low(g)
        high = plan.high(g)
        if low.__class__ is int and high.__class__ is int and high - low < _AMOUNTS:
            n = high - low + 2 if high >= low else 1
            if n >> COPY_SHIFT:  # as building the list would charge
                charge(g, n >> COPY_SHIFT, spec.options.span)
            if n == 1 and not story:  # answered at once (the pass), and nobody reads the story
                if plan.default_now:
                    plan.default(g)
                return None
            default = 0 if plan.default_none else None
            given = plan.default is not None and not plan.default_none
        else:  # a bound that breaks a rule: the options worked out in full give its error
            low = None
    if low is None:
        opts = plan.options(g)
        opts = list(opts) if opts.__class__ is list and not g.orderless else _options(g, opts, spec)
        if spec.optional:
            opts.append(None)
        n = len(opts)
        if n == 1 and not story:  # answered at once, and nobody reads the story
            if plan.default_now:
                plan.default(g)
            return opts[0]
        if not n:
            raise RuleError(f"{who} must choose, but there are no options", spec.span,
                            "guard the step with an 'if', or make the decision optional")
        default = None
        if plan.default_fixed:  # a default written as a constant (draws nothing, charges nothing): its number
            default = plan.default_value
            default = opts.index(default) if default in opts else None
        given = plan.default is not None and not plan.default_fixed
        secret = plan.secret  # None: looked at in `g` when it is read (the story, a save, a seat's view)
    if given:  # (worked out as it is asked, whoever answers)
        value = plan.default(g)
    if g.bots is not None and n > 1:  # its seat's bot may answer it without a Decision (answers.by_pick)
        answer = by_pick(g, who.seat, "one", n, low, opts)
        if answer is not MISSING:
            return answer
    # (player, kind, prompt, options, min, max, default, form, number, low, count, secret, game)
    d = Decision(who.seat, "one", prompt, opts, 0, 0, default, plan.form_for(step, purpose), g.decisions, low, n,
                 secret, g)
    if given:
        d.default = d.wire_of(value)
    if n == 1:  # (told in the story)
        return ask(g, d)
    g.pending = d  # (as _pending)
    return MISSING if g.bots is None else by_bot(g, d)


def _options(g, value, spec) -> list:
    """The options of a decision: the value of its options expression as a list of its own, each card of a zone
    whose order nobody knows in the ruleset's card order (knowledge.unordered)."""
    opts = list(value) if value.__class__ is list else list(as_list(g, value, spec.options.span))
    return unordered(g, opts) if g.orderless else opts


_AMOUNTS = min(MAX_RANGE, MAX_VALUES - 1)  # high - low below this: the range and the list with the pass are legal


def _subset(g, spec, step, purpose: str, plan: _Plan, who: Player) -> Any:
    """A `subset` decision from any number of its options (no bounds, no display names): with no options at all it
    is answered at once (nothing to tell, even in the story), without building a Decision; else it is pending
    (never forced: the empty answer is always legal, as is any other)."""
    p = plan.prompt
    story = g.story
    prompt = "" if p is None else p(g) if story or plan.prompt_now else None
    opts = plan.options(g)
    opts = list(opts) if opts.__class__ is list and not g.orderless else _options(g, opts, spec)
    if not opts:
        if plan.default_now:
            plan.default(g)
        if plan.hidden and story:  # nothing to choose from, for a reason the others cannot see: they read it as
            # any choice of nothing (a sealed answer is told as all are revealed: to its decider alone before)
            form = plan.form_for(step, purpose)
            d = Decision(who.seat, "subset", prompt or "", None, 0, 0, None, form, g.decisions, None, 0, plan.secret, g)
            if purpose == "sealed":
                narrate_sealed_forced(g, d, [])
                return []
            if d._secret is None:
                d.secret = hidden_from_others(g, d)
            narrate_choice(g, d, [], " (the only choice)")
        return []
    n = len(opts)
    form = plan.form_for(step, purpose)
    d = Decision(who.seat, "subset", prompt, opts, 0, n, None, form, g.decisions, None, 0, plan.secret, g)
    if plan.default is not None:
        d.default = d.wire_of(plan.default(g))
    return _pending(g, d)  # (never forced: no answer, and any other, is legal)


def make_decision(g, spec, step, purpose: str = "choose", known: Optional[tuple] = None) -> Decision:
    """Build the decision a spec describes (any kind); `known`: its player, prompt and options already worked out."""
    plan = _PLANS.get(id(spec))
    if plan is None or plan.spec is not spec:
        plan = plan_of(g, spec)
    p = spec.prompt
    if known is None:
        who = _player(spec.player.fn(g), spec)
        prompt = "" if p is None else p.fn(g) if g.story or plan.prompt_now else None
    else:
        who, prompt, opts = known
    kind = spec.kind
    form = plan.form_for(step, purpose)
    # 'secret: false' makes a play from a hidden hand an open one; unsaid (None), looked at in `g` when read (ask
    # looks at once for a decision told in the story)
    d = Decision(who.seat, kind, prompt, [True, False] if kind == "yesno" else None, 0, 0, None, form, g.decisions,
                 None, 0, plan.secret, g)
    if kind == "number":
        lo, hi = spec.min.fn(g), spec.max.fn(g)
        for v in (lo, hi):
            if isinstance(v, bool) or not isinstance(v, int):
                raise RuleError(f"a number decision needs whole-number bounds, got {describe(v)}", spec.span)
        d.min, d.max = lo, hi
        if spec.optional:
            d.optional = True
        if lo > hi and not spec.optional:
            raise RuleError(f"a number decision from {lo} to {hi} has no legal answer", spec.span)
    elif kind != "yesno":
        if known is None:
            opts = _options(g, spec.options.fn(g), spec)
        if kind == "one":
            if spec.optional:
                opts.append(None)
            if not opts:
                raise RuleError(f"{who} must choose, but there are no options", spec.span,
                                "guard the step with an 'if', or make the decision optional")
        d.options = opts
        n = d.count
        if kind == "subset":
            lo = spec.min.fn(g) if spec.min is not None else 0
            hi = spec.max.fn(g) if spec.max is not None else n
            for v in (lo, hi):
                if isinstance(v, bool) or not isinstance(v, int):
                    raise RuleError(f"a subset decision needs whole-number bounds, got {describe(v)}", spec.span)
            hi = min(hi, n)
            if lo > hi:
                raise RuleError(f"{who} must choose at least {lo} of {n} options", spec.span)
            d.min, d.max = lo, hi
        if spec.display is not None and opts:
            d.labels = display_names(g, spec, opts)
    if spec.default is not None:
        d.default = d.wire_of(spec.default.fn(g))
    return d

def ask(g, d: Decision) -> Any:
    """The answer if the decision is forced, or its seat's bot answers it at once (answers.by_bot, while the game
    plays itself); otherwise MISSING, with `d` pending."""
    wire = d.forced()
    if wire is not MISSING:
        value = d.value(wire)
        if g.story and d.purpose != "sealed" and (value != [] or d.hidden):
            if d._secret is None:
                d.secret = d.kind in ("one", "subset") and hidden_from_others(g, d)
            narrate_choice(g, d, value, " (the only choice)")
        elif g.story and d.hidden and d.purpose == "sealed":  # to its decider alone (docs/secrecy.md)
            narrate_sealed_forced(g, d, value)
        return value
    return _pending(g, d)


def _pending(g, d: Decision) -> Any:
    """`d`, which no answer is forced for, pending: MISSING, or the answer of its seat's bot (answers.by_bot). (Whether
    its options hide cards, when its spec does not say, is looked at when read, while it is pending.)"""
    g.pending = d
    return MISSING if g.bots is None else by_bot(g, d)

