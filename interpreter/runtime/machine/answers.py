"""An answer taken: counted, told in the story, and handed to the step that asked. It comes in two ways, with one
bookkeeping (`taken`): from outside through `Game.apply` (a person, a replay, a search bot), or from a seat's bot
asked at once inside the running code (`by_bot`, while `Game.play` plays), so the step goes on without the game
returning to its caller and being entered again."""

from __future__ import annotations

from typing import Any, Optional

from ...diagnostics import RuleError
from ..decisions import MISSING, Decision
from ..story import narrate_choice, narrate_sealed

DECISION_STEPS = 64  # what one decision costs of the game's step budget (the view, the story, the log: far more
# than a step); 5,000,000 steps still allow 78,000 decisions, hundreds of times a long game


def out_of_steps(g, f, ins) -> RuleError:
    """R002: the step budget is spent at instruction `ins` of frame `f` (the loop, a resumed step)."""
    return RuleError(f"the game ran {g.max_steps} steps without ending; the last step was "
                     f"'{ins.step.label or ins.step.id}' in '{f.seq}'", ins.span,
                     "a loop may never end: check its condition or its 'break'", "R002")


def too_many_decisions(g) -> RuleError:
    """R002 at the step that asks: a decision costs the budget DECISION_STEPS steps (a window everyone answers
    for ever took 333,334 decisions and 9 s of a processor before its 5,000,000 steps ran out)."""
    f = g.frames[-1] if g.frames else None
    ins = g.programs[f.seq].code[f.pc] if f is not None else None
    where = f"; the last step was '{ins.step.label or ins.step.id}' in '{f.seq}'" if f and ins else ""
    return RuleError(f"the game ran {g.max_steps} steps without ending (a decision counts "
                     f"{DECISION_STEPS}){where}", ins.span if ins is not None else None,
                     "a loop may never end: check its condition or its 'break'", "R002")


def taken(g, d: Optional[Decision], value: Any) -> None:
    """What the pending decision `d` (None: a bot's pick in a game without a story, which machine/questions.decide
    writes out), answered `value` (checked), does before its step goes on: it is no longer pending, counts as a
    decision (and against the budget), ends the chance results of the log's record, is told in the story, and its
    step going on counts as a step. One check of the budget does for both: the decisions
    (at least this one) count DECISION_STEPS steps each, so a budget with no step left for the step going on
    (steps >= max_steps) already fails it (R002 at the step that asks)."""
    g.pending = None
    g.decisions = decisions = g.decisions + 1
    steps = g.steps
    if steps + decisions * DECISION_STEPS > g.max_steps:
        raise too_many_decisions(g)
    if g.chance:  # (a new list: whoever took the record keeps it; an empty one stays as it is)
        g.chance = []
    if g.story:
        assert d is not None  # (a pick is asked only in a game without a story)
        if d.purpose != "sealed" and d.purpose != "reroll":
            narrate_choice(g, d, value)
        elif d.purpose == "sealed":  # to its decider alone; the others read that it was made
            narrate_sealed(g, d, value)
        elif d.purpose == "reroll":
            g.say(f"{g.players[d.player]} {'rolls again' if value else 'keeps the roll'}")
    g.steps = steps + 1


def answer(agent: Any, d: Decision, view: Any, game: Any) -> Any:
    """Ask an agent (agents.base.Agent) for its wire-form answer to `d`, handing it the game when it declares
    `needs_game`."""
    if getattr(agent, "needs_game", False):
        return agent.choose(d, view, game)
    return agent.choose(d, view)


class Bots:
    """The agents a game asks at once, in the running code, while `Game.play` plays it: per seat, the function
    that answers (an agent's `choose`, None for an agent asked from outside: one that needs the game itself) and
    whether it is handed the seat's view; per seat, the agent's pick (`pick_of`), asked instead of `choose` where
    it answers, or None (always None in a game that tells its story, which tells the decision), and the agent's pick
    of a subset (`sets`: `subset_pick_of` each pick, worked out when first needed); how many decisions may still be answered (None: any number);
    and what went wrong with an answer (an exception of the agent, or IllegalChoice), which `Game.play` raises
    outside the running code with the decision left pending, as `Game.apply` would have raised it."""

    __slots__ = ("choose", "views", "picks", "sets", "left", "failed")

    def __init__(self, choose: list, views: list, left: Optional[int] = None, picks: Optional[list] = None):
        self.choose = choose
        self.views = views
        self.picks = [None] * len(choose) if picks is None else picks
        self.sets: Optional[list] = None  # (worked out at the first subset asked, machine/generic.bounded: most
        # games ask none, and looking at each agent's methods cost an auction game 1%)
        self.left = left
        self.failed: Optional[BaseException] = None

    def subset_picks(self) -> list:
        """Per seat, the agent's pick of a subset (`subset_pick_of` its pick), kept as `sets`."""
        sets = self.sets = [subset_pick_of(p) for p in self.picks]
        return sets


def pick_of(agent: Any) -> Any:
    """The agent's `pick(kind, count, number)`, when it offers one: its answer to a 'one' decision of `count`
    options or a 'yesno' (`count` 2), the game's decision numbered `number`, the same as its `choose` gives, read
    of nothing else (not the decision, not the view). None when it offers none, when it needs the game, or when
    its `choose` is declared by another class than its `pick` (a subclass that changed how it chooses)."""
    pick = getattr(agent, "pick", None)
    if pick is None or getattr(agent, "needs_game", False):
        return None
    return pick if _with_choose(agent.__class__, "pick") else None


def subset_pick_of(pick: Any) -> Any:
    """The agent's `pick_subset(low, high, count, number)`, where its `pick` is asked (`pick`: what pick_of gave) and
    it offers one: its answer to a 'subset' decision of `count` options, from `low` to `high` of them (0 <= low <=
    high <= count), the game's decision numbered `number`, the same as its `choose` gives, read of nothing else. None
    when it offers none, or when its `choose` is declared by another class than its `pick_subset`."""
    agent = getattr(pick, "__self__", None)
    pick_subset = getattr(agent, "pick_subset", None)
    if pick_subset is None:
        return None
    return pick_subset if _with_choose(agent.__class__, "pick_subset") else None


def _with_choose(cls: type, name: str) -> bool:
    """Whether the class that declares the agent's method `name` also declares its `choose`."""
    same = _SAME_CLASS.get((cls, name))
    if same is None:  # (looked at once per class of agent, not at every game)
        mro = cls.__mro__
        same = _SAME_CLASS[cls, name] = next((c for c in mro if name in c.__dict__), None) is \
            next((c for c in mro if "choose" in c.__dict__), None)
    return same


# by class of agent and method: whether the class that declares the method (its `pick`, `pick_subset`) also declares
# its `choose` (classes of agents are few and live as long as their module)
_SAME_CLASS: dict[tuple[type, str], bool] = {}


def by_bot(g, d: Decision) -> Any:
    """The decision `d`, just made pending, answered at once by its seat's bot and taken as `Game.apply` takes an
    answer (`taken`): the value, which the step that asks goes on with; MISSING when the seat's agent is asked
    from outside, no decision may be answered any more, or the answer failed (`Bots.failed`): `d` stays pending."""
    bots: Bots = g.bots
    choose = bots.choose[d.player]
    if choose is None or bots.left == 0 or bots.failed is not None:  # (failed: its pick, questions.decide)
        return MISSING
    try:
        value = d.take(choose(d, g.view(d.player) if bots.views[d.player] else None))
    except BaseException as exc:  # (an agent's own error is not the rules' error: raised outside the running code)
        bots.failed = exc
        return MISSING
    if bots.left is not None:
        bots.left -= 1
    taken(g, d, value)
    return value
