"""A one-ply Monte-Carlo bot: tries each choice in copies of the game, plays random rollouts, keeps the best.

For the pending decision it takes the legal choices (a sample of at most `max_choices`
when there are more), and for each one plays `rollouts` short games on cheap copies of
the running game (`game.copy(story=False)`): the choice first, then random choices for
every seat, until the game ends or `depth` more decisions have been made. A finished
rollout is worth the seat's share of the win (1, 1/k for a win shared by k, 0); an
unfinished one is judged by the ruleset's `scoring.score` at that moment. The choice with
the best average wins (the first one on a tie).

The bot does not cheat: before each rollout the copy is *determinized* from its player's
knowledge (runtime/knowledge.py). Every card its player cannot see (the order of a hidden deck,
the others' hands, a face-down pile below its open top card) is dealt again at random among the
places such cards lie, each place keeping its number of cards, and a card trading places with
any card that started the game in the same zone (a traitor with a loyal role: their faces alone differ); a name
that held such a card (a variable, a local, the pending decision's options) holds the card dealt
in its place, so no name reaches the real one. Cards it was shown (`show`) stay where they are,
and a zone whose contents it knows but not their order (`contents`) is only reordered: what the
player knows stays true, what they do not know is sampled. Chance is not peeked at either:
each rollout reseeds the copy's generator, so future dice and shuffles are unknown.
`peek=True` turns determinization off (the bot then reads hidden cards: only for measuring
what the knowledge is worth).
All rollouts of one decision share their seeds across the choices (common random
numbers), which makes the comparison between choices much less noisy.
"""

from __future__ import annotations

import weakref
from math import comb
from typing import Any

from ..diagnostics import RuleError
from ..model import ruleset as M
from ..model.secrecy import modifier_seen, sees_card, sees_player_variable, sees_variable
from ..runtime.decisions import MISSING, Decision, IllegalChoice
from ..runtime.knowledge import deal_again, relabel
from ..runtime.machine.questions import decide
from ..values import Card, Player, Roll
from ..runtime.rng import SplitMix
from .base import AgentError, RandomAgent, decision_rng

_MASK = (1 << 64) - 1
MAX_ROLLOUTS, MAX_DEPTH = 1000, 10_000  # the most a command line may ask of greedy:ROLLOUTS:DEPTH (bounded work)


class GreedyAgent:
    name = "greedy"
    needs_game = True

    def __init__(self, seat: int = 0, seed: int = 0, rollouts: int = 4, depth: int = 40, max_choices: int = 8,
                 peek: bool = False):
        self.seat = seat
        self.peek = peek
        self.base = (seed * 2_000_003 + seat * 104_729 + 91) & _MASK
        self.rng = SplitMix(self.base)
        self.rollouts = rollouts
        self.depth = depth
        self.max_choices = max_choices
        self._fallback = RandomAgent(seat, seed)

    @classmethod
    def from_kind(cls, kind: str, seat: int, seed: int) -> "GreedyAgent":
        """`greedy`, `greedy:ROLLOUTS` or `greedy:ROLLOUTS:DEPTH` (rollouts per choice, decisions per rollout)."""
        parts = kind.split(":")[1:]
        try:
            nums = [int(x) for x in parts]
        except ValueError:
            raise AgentError(f"'{kind[:40]}': write greedy, greedy:ROLLOUTS or greedy:ROLLOUTS:DEPTH with whole numbers") from None
        if len(nums) > 2 or any(n < 1 for n in nums):
            raise AgentError(f"'{kind}': write greedy, greedy:ROLLOUTS or greedy:ROLLOUTS:DEPTH (numbers of at least 1)")
        if any(n > most for n, most in zip(nums, (MAX_ROLLOUTS, MAX_DEPTH))):  # 10^9 rollouts never end
            raise AgentError(f"'{kind[:40]}': at most {MAX_ROLLOUTS} rollouts of at most {MAX_DEPTH} decisions each")
        return cls(seat, seed, *nums)

    # ------------------------------------------------------------------ deciding
    def choose(self, d: Decision, view: Any, game: Any = None) -> Any:
        if game is None:  # driven without the game (e.g. an old runner): play as the random bot
            return self._fallback.choose(d, view)
        self.rng = decision_rng(self.base, d)  # a function of (seed, seat, decision number): undo-proof
        candidates = self.candidates(d)
        if len(candidates) == 1:
            return candidates[0]
        seeds = [(self.rng.next64(), self.rng.next64()) for _ in range(self.rollouts)]
        best, best_value = candidates[0], -1.0
        for choice in candidates:
            value = sum(self.rollout(game, choice, chance, policy) for chance, policy in seeds)
            if value > best_value:
                best, best_value = choice, value
        return best

    def candidates(self, d: Decision) -> list:
        """The legal wire-form choices to try: all of them, or a sample of `max_choices`."""
        cap = self.max_choices
        if d.kind == "yesno":
            return [True, False]
        if d.kind == "number":
            span = d.max - d.min + 1
            if span <= cap:
                return list(range(d.min, d.max + 1))
            return sorted({d.min + (span - 1) * i // (cap - 1) for i in range(cap)})
        n = len(d.options)
        if d.kind == "one":
            if n <= cap:
                return list(range(n))
            pool = list(range(n))
            self.rng.shuffle(pool)
            return sorted(pool[:cap])
        total = sum(comb(n, k) for k in range(d.min, d.max + 1))
        if total <= cap:
            return d.all_choices()
        sampler = RandomAgent.on(self.rng)
        seen: set = set()
        out: list = []
        for _ in range(cap * 10):
            c = sampler.choose(d, None)
            if tuple(c) not in seen:
                seen.add(tuple(c))
                out.append(c)
                if len(out) == cap:
                    break
        return out

    # ------------------------------------------------------------------ rollouts
    def rollout(self, game: Any, choice: Any, chance_seed: int, policy_seed: int) -> float:
        g = game.copy(story=False)
        g.check_conservation = False
        g.rng.state = chance_seed  # the future dice and shuffles are not known
        policy = RandomAgent.on(SplitMix(policy_seed))
        try:
            if not self.peek:  # (asking a sealed answer again may meet a rule the sampled world breaks)
                determinize(g, self.seat, SplitMix(chance_seed ^ 0x5DEECE66D))
            g.apply(choice)
            # the random policy answers every seat's next `depth` decisions where they are asked (Game.play)
            g.play([policy] * len(g.players), views=False, decisions=self.depth)
        except (RuleError, IllegalChoice):  # a sampled world the rules cannot go on from: it tells nothing
            return 0.5
        return self.value(g)

    def value(self, g: Any) -> float:
        """What a rollout's end is worth to this seat, from 0 to 1."""
        if g.over:
            won = g.winners or []
            return 1.0 / len(won) if self.seat in won else 0.0
        score = g.rs.scoring.score
        if score is None:
            return 0.5
        try:
            scores = []
            for p in g.players:
                g.locals = {"p": p}
                s = score.fn(g)
                scores.append(s if isinstance(s, (int, float)) and not isinstance(s, bool) else 0)
        except RuleError:
            return 0.5
        if not g.rs.scoring.highest_wins:
            scores = [-s for s in scores]
        mine = scores[self.seat]
        others = max((s for i, s in enumerate(scores) if i != self.seat), default=mine)
        top = [i for i, s in enumerate(scores) if s == max(scores)]
        share = 1.0 / len(top) if self.seat in top else 0.0
        margin = (mine - others) / (abs(mine) + abs(others) + 1)
        return 0.75 * share + 0.25 * (margin + 1) / 2


def determinize(g: Any, seat: int, rng: SplitMix) -> None:
    """Make the copy `g` a world `seat` cannot tell from the real one (knowledge.deal_again): the cards it cannot
    see dealt again among their places (trading with cards that started in the same zone), the cards whose contents
    it knows reordered within their zone, and every name that held a card following its place (`relabel`); the
    answers others gave before it in a sealed step still collecting are asked again (`_sealed_again`); the variables
    and the secret answers kept under a name that it cannot see are what every seat knows of them, and the
    modifiers added for a reason it cannot see (model/secrecy.py's `modifier_seen`) are not in force."""
    relabel(g, deal_again(g, seat, rng))
    _sealed_again(g, seat, rng)
    _numbers_again(g, seat)
    _answers_again(g, seat)
    _rolls_again(g, seat, rng)
    if g.modifiers and g.rs.modifiers:  # one added for a reason it cannot see: what every seat knows of it, nothing
        g.modifiers = [m for m in g.modifiers if modifier_seen(g.rs, m[0], seat, m[1])]


def _rolls_again(g: Any, seat: int, rng: SplitMix) -> None:
    """A roll of dice whose faces `seat` does not see (declared `visibility: roller`, rolled by another, or `hidden`),
    kept under a local name in a running sequence, is rolled again in the copy (its named result not worked out
    again): dice under another's cup are as unknown to the bot as to its player."""
    dice = g.rs.dice
    if all(d.visibility == "open" for d in dice.values()):  # most rulesets: nothing to look for
        return
    for f in g.frames:  # in place: the game's `locals` is the top frame's dict
        for k, v in f.locals.items():
            if type(v) is Roll and v.dice in dice and dice[v.dice].visibility != "open" \
                    and not (dice[v.dice].visibility == "roller" and v.by == seat):
                sides = dice[v.dice].sides
                f.locals[k] = Roll(v.dice, tuple(1 + rng.below(sides) for _ in v.faces), None, None, v.target, v.by)


def _numbers_again(g: Any, seat: int) -> None:
    """The variables `seat` cannot see (another player's `owner` variable, a `hidden` one: model/secrecy.py) are, in
    the copy, what every seat knows of them: their starting value (the ruleset's `initial`, worked out again, a
    player's with `p` bound to that player), whatever they hold (a number, a player, a list, a record, a card it
    sees). Only a card it cannot see is kept: it was dealt again and follows its place (`relabel`)."""
    rs = g.rs

    def start(v: Any) -> Any:
        return v.initial.fn(g) if isinstance(v.initial, M.CExpr) else v.initial

    def kept(value: Any) -> bool:
        return type(value) is Card and not sees_card(g, value, seat)

    saved = g.locals
    try:
        for name, v in rs.variables.items():
            if not sees_variable(rs, name, seat) and not kept(g.vars.get(name)):
                g.locals = {}
                g.vars[name] = start(v)
        for p in g.players:
            for name, v in rs.player_variables.items():
                if not sees_player_variable(rs, name, seat, p.seat) and not kept(g.pvars[p.seat].get(name)):
                    g.locals = {"p": p}
                    g.pvars[p.seat][name] = start(v)
    except RuleError:  # a start worked out from something this world lacks: the value is kept
        pass
    finally:
        g.locals = saved


_SECRET_BINDS: "weakref.WeakKeyDictionary[Any, dict]" = weakref.WeakKeyDictionary()


def _answers_again(g: Any, seat: int) -> None:
    """A secret answer (`secret: true`) another seat gave, kept under its `as:` name in a sequence still running, is
    `none` in the copy: what every seat knows of it. A card it cannot see is kept (dealt again, it follows its
    place), and so is an answer of this seat's own."""
    binds = _SECRET_BINDS.get(g.rs)
    if binds is None:
        binds = _SECRET_BINDS[g.rs] = {}
        for name, seq in g.rs.sequences.items():
            for step in M.walk_steps(seq.steps):
                spec = getattr(step, "decision", None)
                if isinstance(step, M.ChooseStep) and spec is not None and spec.bind and spec.secret:
                    binds.setdefault(name, []).append(spec)
    saved = g.locals
    try:
        for f in g.frames:
            for spec in binds.get(f.seq, ()):
                value = f.locals.get(spec.bind)
                if value is None or (type(value) is Card and not sees_card(g, value, seat)):
                    continue
                g.locals = f.locals
                try:
                    who = spec.player.fn(g)
                except RuleError:  # who answered cannot be told here: the answer is not this seat's to read
                    who = None
                if not (isinstance(who, Player) and who.seat == seat):
                    f.locals[spec.bind] = None
    finally:
        g.locals = saved


def _sealed_again(g: Any, seat: int, rng: SplitMix) -> None:
    """In a sealed step whose answers are still being collected, the answers given before this seat's are
    secret until the reveal: in the copy each is replaced by a random answer to the same question."""
    pending = g.pending
    if pending is None or pending.purpose != "sealed" or not g.frames:
        return
    f = g.frames[-1]
    ins = g.programs[f.seq].code[f.pc]
    st = f.locals.get(ins.extra) if isinstance(ins.extra, str) else None
    if not isinstance(st, dict) or not st.get("results"):
        return
    var = ins.arg.var
    policy = RandomAgent.on(rng)
    current = f.locals.get(var)
    try:
        for j, p in enumerate(st["players"][:len(st["results"])]):
            if isinstance(p, Player) and p.seat == seat:
                continue
            f.locals[var] = p
            g.pending = None
            got = decide(g, ins.arg.decision, ins.arg, "sealed")
            if got is MISSING:
                got = g.pending.value(policy.choose(g.pending, None))
            st["results"][j] = got
    finally:
        f.locals[var] = current
        g.pending = pending
        g.locals = f.locals
