"""Compile statements into closures; checks that need the step's surroundings happen here."""

from __future__ import annotations

import re
from typing import Any, Optional

from ...diagnostics import Diagnostic, RuleError, Span, did_you_mean
from ...values import Player
from .. import ast as A
from ..builtins import REGISTRY, describe, text_of
from ..guards import bounded, text_in
from .assign import AssignStatements
from .calls import CallStatements
from .compiler import Compiler, mark_used
from .whole import statement_noted
from ..ops import SUSPEND, BreakSignal, ContinueSignal, EndSignal, give_result
from ..scope import Fn, Scope

DICE_RE = re.compile(r"^([0-9]+)d([0-9]+)$")


# the steps of a `rounds:` or `turns:` step are no sequence of their own: a kind is a sequence's `kind:`
_KIND_HINT = ("a kind is what a sequence declares with 'kind:'; a 'rounds:' or 'turns:' step is not a sequence: put "
              "the round in a sequence of 'kind: {0}' and call it from the step's do:")

class StatementCompiler(AssignStatements, CallStatements, Compiler):
    """Compiles statements for one place in a sequence: its scope and the loops around it."""
    def __init__(self, scope: Scope, diagnostics: list[Diagnostic], loops: tuple[Optional[str], ...] = (),
                 sequences: dict[str, tuple[str, ...]] | None = None, kinds: set[str] | None = None) -> None:
        super().__init__(scope, diagnostics)
        self.loops = loops
        self.sequences = sequences or {}
        self.kinds = kinds or set()

    def stmt(self, node: A.Stmt) -> Fn:
        return getattr(self, "_s_" + type(node).__name__)(node)

    def _zone_expr(self, node: A.Expr, what: str) -> Fn:
        fn, t = self.expr(node)
        if t not in ("zone", "any"):
            self.report("E303", f"{what} must be a zone, this is a {t}", node.span,
                        "a family of zones needs a key, e.g. stocks['iron'] or p.hand")
        return fn

    # ------------------------------------------------------------ cards and zones
    def _s_Move(self, n: A.Move) -> Fn:
        what = self.expr(n.what)[0]
        dest = self._zone_expr(n.dest, "the destination of 'move'")
        place, span = n.place, n.span
        if n.under is not None:  # N cards left above it: the board takes a number for its place
            under, ut = self.expr(n.under)
            if ut not in ("number", "any"):
                self.report("E303", f"'under' counts the cards left above, this is a {'text' if ut == 'str' else ut}", n.under.span)
            return statement_noted(n, lambda ctx: ctx.move(what(ctx), dest(ctx), under(ctx), span), self.scope)
        return statement_noted(n, lambda ctx: ctx.move(what(ctx), dest(ctx), place, span), self.scope)

    def _s_Draw(self, n: A.Draw) -> Fn:
        count = self.expr(n.count)[0] if n.count is not None else None
        src = self._zone_expr(n.source, "the source of 'draw'")
        dest = self._zone_expr(n.dest, "the destination of 'draw'") if n.dest is not None else None
        place, bind, span = n.place, n.bind, n.span

        def fn(ctx):
            k = count(ctx) if count is not None else None
            if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 0):
                raise RuleError(f"draw needs a whole number of cards, got {describe(k)}", span)
            got = ctx.draw(k, src(ctx), dest(ctx) if dest is not None else None, place, span)
            if bind is not None:
                ctx.locals[bind] = got

        return statement_noted(n, fn, self.scope)

    def _s_Shuffle(self, n: A.Shuffle) -> Fn:
        z = self._zone_expr(n.zone, "what 'shuffle' shuffles")
        span = n.span
        return statement_noted(n, lambda ctx: ctx.shuffle(z(ctx), span), self.scope)

    def _s_Reverse(self, n: A.Reverse) -> Fn:
        z = self._zone_expr(n.zone, "what 'reverse' turns over")
        span = n.span
        return lambda ctx: ctx.reverse(z(ctx), span)

    # ------------------------------------------------------------ chance
    def _s_Roll(self, n: A.Roll) -> Fn:
        spec: Any = self.scope.dice.get(n.dice)
        if spec is None:
            m = DICE_RE.match(n.dice)
            if m:
                count, sides = int(m.group(1)), int(m.group(2))
                if not (1 <= count <= 100 and 2 <= sides <= 1000):
                    self.report("E313", f"dice '{n.dice}' are out of range", n.dice_span, "use 1-100 dice of 2-1000 sides")
                spec = (n.dice, count, sides)
            else:
                self.report("E301", f"unknown dice '{n.dice}'", n.dice_span,
                            did_you_mean(n.dice, self.scope.dice) or "declare them under 'dice:' or write e.g. 2d6")
                return lambda ctx: None
        against = self.expr(n.against)[0] if n.against is not None else None
        roller = self.expr(n.roller)[0] if n.roller is not None else None
        bind, span = n.bind, n.span

        def fn(ctx):
            r = ctx.roll(spec, roller(ctx) if roller is not None else None,
                         against(ctx) if against is not None else None, span)
            if r is SUSPEND:
                return SUSPEND
            if bind is not None:
                ctx.locals[bind] = r
            return None

        return statement_noted(n, fn, self.scope, spec=spec)

    # ------------------------------------------------------------ control
    def _s_Break(self, n: A.Break) -> Fn:
        self._check_loop(n.loop, n.span, "break")
        sig = BreakSignal(n.loop, n.span)
        return lambda ctx: sig

    def _s_Continue(self, n: A.Continue) -> Fn:
        self._check_loop(n.loop, n.span, "continue")
        sig = ContinueSignal(n.loop, n.span)
        return lambda ctx: sig

    def _check_loop(self, name: Optional[str], span: Span, word: str) -> None:
        if not self.loops:
            self.report("E401", f"'{word}' is not inside a loop", span,
                        "use 'end KIND' to leave a sequence, or put the step inside while/loop/for_each")
        elif name is not None and name not in self.loops:
            names = [x for x in self.loops if x]
            self.report("E401", f"no loop named '{name}' encloses this '{word}'", span,
                        did_you_mean(name, names) or (f"enclosing loops: {', '.join(names)}" if names else
                                                      "name the loop with 'loop: NAME' or 'name: NAME'"))

    def _s_End(self, n: A.End) -> Fn:
        if n.kind not in self.kinds and n.kind not in ("game", "sequence"):
            self.report("E402", f"no sequence has the kind '{n.kind}', so 'end {n.kind}' has nothing to end", n.kind_span,
                        did_you_mean(n.kind, self.kinds | {"game", "sequence"})
                        or f"kinds in this ruleset: {', '.join(sorted(self.kinds))}; " + _KIND_HINT.format(n.kind))
        sig = EndSignal(n.kind, n.span)
        return lambda ctx: sig

    def _s_Return(self, n: A.Return) -> Fn:
        value = self.expr(n.value)[0] if n.value is not None else None
        sig = EndSignal("sequence", n.span)

        def fn(ctx):
            give_result(ctx, value(ctx) if value is not None else None)
            return sig

        return fn

    def _s_Emit(self, n: A.Emit) -> Fn:
        sym = self.scope.symbols.get(n.event)
        if sym is None or sym.kind != "event":
            events = [k for k, s in self.scope.symbols.items() if s.kind == "event"]
            self.report("E311", f"unknown event type '{n.event}'", n.event_span,
                        did_you_mean(n.event, events) or "declare it under 'events:'")
            return lambda ctx: None
        fields = sym.value
        for k in n.kwargs:
            if fields is not None and k.name not in fields:
                self.report("E310", f"event '{n.event}' has no field '{k.name}'", k.span,
                            did_you_mean(k.name, fields) or f"its fields: {', '.join(fields)}")
        kw = [(k.name, self.expr(k.value)[0]) for k in n.kwargs]
        event, span = n.event, n.span
        return lambda ctx: ctx.emit(event, {k: f(ctx) for k, f in kw}, span)

    def _s_Log(self, n: A.Log) -> Fn:
        message = n.message  # its parts worked out once, kept apart: a field may be read by some seats only (story.py)
        pieces = [p if isinstance(p, str) else self.expr(p)[0] for p in getattr(message, "parts", (message,))]
        span, put = message.span, (text_in if isinstance(message, A.Str) else lambda v, _ctx: text_of(v))

        def said(ctx):
            text = "".join(texts := [p if isinstance(p, str) else put(p(ctx), ctx) for p in pieces])
            ctx.log(text if len(text) < 16 else bounded(text, ctx, span), message, texts)

        if self.draws_chance(message):  # its text must be worked out even unread: the dice must fall the same
            return said

        def fn(ctx):
            if ctx.story:  # nobody reads the story (a simulation): the text is not worked out
                said(ctx)

        fn.told = True  # type: ignore[attr-defined]  # it does nothing but for the story (the compiled engine's code
        # calls it only then: loader/kinds/action.py)
        return fn

    def _s_Tell(self, n: A.Tell) -> Fn:
        who_fn, who_type = self.expr(n.player)
        if who_type not in ("player", "any"):
            self.report("E303", f"'tell' needs a player, this is a {who_type}", n.player.span,
                        "e.g. tell p 'You drew {card}'")
        msg = self.expr(n.message)[0]
        chance = self.draws_chance(n.message) or self.draws_chance(n.player)
        span = n.span
        named = self._cards_named(n.message) if not chance else ()

        def fn(ctx):
            if ctx.story or chance or named:
                who = who_fn(ctx)
                if not isinstance(who, Player):
                    raise RuleError(f"'tell' needs a player, got {describe(who)}", span)
                if named:  # the cards the text names are now known to that player, story or not (a bot uses them)
                    ctx.told_cards(who, named)
                if ctx.story:
                    ctx.tell(who, msg(ctx))

        return fn

    def _cards_named(self, message: A.Expr) -> tuple[Fn, ...]:
        """The compiled parts of a text that may give cards ('You drew {card}'), compiled again without
        reporting (the text itself reported any problem); parts that draw chance are left out."""
        if not isinstance(message, A.Str):
            return ()
        saved, self.diagnostics = self.diagnostics, []
        try:
            parts = [self.expr(p) for p in message.parts if not isinstance(p, str) and not self.draws_chance(p)]
        finally:
            self.diagnostics = saved
        return tuple(fn for fn, t in parts if t in ("card", "list", "any"))

    def _s_Show(self, n: A.Show) -> Fn:
        what_fn, what_type = self.expr(n.what)
        if what_type not in ("card", "list", "zone", "any"):
            self.report("E303", f"'show' shows cards or a zone, this is a {what_type}", n.what.span,
                        "e.g. show p.hand to q, or show card to p")
        who_fn, who_type = self.expr(n.player)
        if who_type not in ("player", "list", "any"):
            self.report("E303", f"'show' shows to a player or a list of players, this is a {who_type}",
                        n.player.span, "e.g. show card to p")
        span = n.span
        # the seat's knowledge is part of the game (a bot uses it), so it is kept even when nobody reads the story
        return lambda ctx: ctx.show(what_fn(ctx), who_fn(ctx), span)

    def draws_chance(self, node: A.Expr) -> bool:
        """Whether evaluating `node` may draw from the game's random generator (directly or through a function)."""
        todo, seen = [node], set()  # a worklist, not recursion: functions may call each other in long chains
        while todo:
            for sub in todo.pop().walk():
                if not isinstance(sub, A.Call):
                    continue
                fd = self.scope.functions.get(sub.func)
                if fd is None:
                    b = REGISTRY.get(sub.func)
                    if b is not None and b.chance:
                        return True
                elif fd.name not in seen and fd.body is not None:  # each function looked at once
                    seen.add(fd.name)
                    todo.append(fd.body)
        return False

    def _s_Win(self, n: A.Win) -> Fn:
        who = self.expr(n.who)[0]
        span = n.span
        return lambda ctx: ctx.win(who(ctx), span)

    def _s_AddModifier(self, n: A.AddModifier) -> Fn:
        self._check_modifier(n.modifier, n.modifier_span)
        if n.until not in self.kinds and (n.next or n.until not in ("game",)):
            said = f"until next {n.until}" if n.next else f"until end of {n.until}"
            self.report("E402", f"no sequence has the kind '{n.until}' for '{said}'", n.until_span,
                        did_you_mean(n.until, self.kinds | ({"game"} if not n.next else set())) or _KIND_HINT.format(
                            n.until))
        target = self.expr(n.target)[0] if n.target is not None else None
        value = self.expr(n.value)[0] if n.value is not None else None
        name, until, span = n.modifier, ("next " + n.until if n.next else n.until), n.span
        return statement_noted(n, lambda ctx: ctx.add_modifier(name, target(ctx) if target else None,
                                                               value(ctx) if value else 1, until, span), self.scope)

    def _s_RemoveModifier(self, n: A.RemoveModifier) -> Fn:
        self._check_modifier(n.modifier, n.modifier_span)
        target = self.expr(n.target)[0] if n.target is not None else None
        name = n.modifier
        return statement_noted(n, lambda ctx: ctx.remove_modifier(name, target(ctx) if target else None), self.scope)

    def _check_modifier(self, name: str, span: Span) -> None:
        sym = self.scope.symbols.get(name)
        if sym is None or sym.kind != "modifier":
            mods = [k for k, s in self.scope.symbols.items() if s.kind == "modifier"]
            self.report("E301", f"unknown modifier '{name}'", span, did_you_mean(name, mods) or "declare it under 'modifiers:'")

    def _s_CreateZone(self, n: A.CreateZone) -> Fn:
        mark_used(n.family)
        sym = self.scope.symbols.get(n.family)
        if sym is None or sym.kind != "family" or sym.detail != "dynamic":
            fams = [k for k, s in self.scope.symbols.items() if s.kind == "family" and s.detail == "dynamic"]
            self.report("E312", f"'{n.family}' is not a zone family with 'per: dynamic'", n.family_span,
                        did_you_mean(n.family, fams) or "declare it as: NAME: {per: dynamic}")
            return lambda ctx: None
        family, bind, span = n.family, n.bind, n.span

        def fn(ctx):
            z = ctx.create_zone(family, span)
            if bind is not None:
                ctx.locals[bind] = z

        return fn

    def _s_Tally(self, n: A.Tally) -> Fn:
        kind = self.scope.metrics.get(n.metric)
        if kind is None:
            self.report("E322", f"unknown metric '{n.metric}'", n.metric_span,
                        did_you_mean(n.metric, self.scope.metrics)
                        or f"declare it under 'metrics:' with 'kind: tally', e.g. {n.metric}: {{kind: tally, doc: ...}}")
            return lambda ctx: None
        if kind != "tally":
            self.report("E323", f"metric '{n.metric}' is of kind {kind}, so 'tally' cannot add to it", n.metric_span,
                        "a per_player or per_game metric is worked out when the game ends; "
                        "give 'kind: tally' to a metric that steps add to")
            return lambda ctx: None
        key = self.expr(n.key)[0] if n.key is not None else None
        value = None
        if n.value is not None:
            value, vt = self.expr(n.value)
            if vt not in ("number", "bool", "any"):
                self.report("E303", f"a tally adds a number, this is a {vt}", n.value.span)
        name, span = n.metric, n.span

        def fn(ctx):
            ctx.tally(name, key(ctx) if key is not None else None, value(ctx) if value is not None else 1, span)

        return statement_noted(n, fn, self.scope)

    def _s_Pass(self, n: A.Pass) -> Fn:
        return lambda ctx: None

    def _s_Assert(self, n: A.Assert) -> Fn:
        """Checked only when the game checks itself (its cards after every step): free in other games."""
        cond = self.expr(n.cond)[0]
        message = self.expr(n.message)[0] if n.message is not None else None
        span, text = n.span, "the condition"

        def fn(ctx):
            if ctx.check_conservation and not cond(ctx):
                said = text_of(message(ctx)) if message is not None else text
                raise RuleError(f"an assertion failed: {said}", span, "it is checked by --check and by scenarios",
                                "R011")
            return None

        return fn
