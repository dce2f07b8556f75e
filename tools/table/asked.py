"""The decision a seat is asked, typed for whoever shows it (tools.table.seatview): cards as cards, amounts with
their legal range, yes/no, and the roll a re-roll is about with its target."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from rulecraft.runtime.decisions import Decision
from rulecraft.runtime.story import game_label
from rulecraft.values import Card, Player, ZoneRef

from rulecraft.tools.table.view import CardView, card_view, json_value, say_value
from rulecraft.tools.words.seat.answers import amounts, how_to_answer, what_is_asked


@dataclass
class RollView:
    """A roll the decision is about (a re-roll): its faces, the named result and the target."""

    faces: list[int]
    total: int
    result: str
    target: Any


@dataclass
class OptionView:
    """One option, typed: 'card' (with the card), 'player' (with the seat), 'amount', 'pass', 'yes', 'no',
    'zone' or 'text'."""

    kind: str
    label: str
    card: Optional[CardView] = None
    seat: Optional[int] = None
    amount: Optional[int] = None


@dataclass
class DecisionView:
    """The decision this seat is asked: `kind` is 'one' (pick one option), 'subset' (pick `min` to `max`),
    'amount' (a whole number from `min` to `max`; `passable`: or pass), 'number' (the same, asked as a number)
    or 'yesno'. docs/seatview.md says how each kind is answered in wire form."""

    kind: str
    prompt: str
    how: str
    purpose: str
    options: list[OptionView] = field(default_factory=list)
    min: Optional[int] = None
    max: Optional[int] = None
    passable: bool = False
    secret: bool = False
    roll: Optional[RollView] = None


def option_view(game, d: Decision, i: int) -> OptionView:
    o = d.options[i]
    text = d.describe_option(i) if d.labels else say_value(o, game) if o is not None else "pass"
    if o is None:
        return OptionView("pass", text)
    if isinstance(o, bool):
        return OptionView("yes" if o else "no", text)
    if isinstance(o, Card):
        return OptionView("card", text, card=card_view(game, o))
    if isinstance(o, Player):
        return OptionView("player", text, seat=o.seat)
    if isinstance(o, int):
        return OptionView("amount", text, amount=o)
    if isinstance(o, ZoneRef):
        return OptionView("zone", game_label(game, o))
    return OptionView("text", text)


def decision_view(game, d: Decision) -> DecisionView:
    dv = DecisionView(d.kind, what_is_asked(d, game.rs), how_to_answer(d), d.purpose, secret=bool(d.secret) or d.purpose == "sealed")
    nums = amounts(d)
    if nums is not None:
        dv.kind, dv.min, dv.max, dv.passable = "amount", min(nums), max(nums), None in d.options
        dv.options = [option_view(game, d, i) for i in range(d.count)]  # the pass and each amount, in order
    elif d.kind in ("one", "subset"):
        dv.options = [option_view(game, d, i) for i in range(d.count)]
        if d.kind == "subset":
            dv.min, dv.max, dv.passable = d.min, d.max, d.min == 0
        else:
            dv.passable = any(o.kind == "pass" for o in dv.options)
    elif d.kind == "number":
        dv.min, dv.max, dv.passable = d.min, d.max, bool(d.optional)
    else:
        dv.options = [OptionView("yes", "yes"), OptionView("no", "no")]
    if d.purpose == "reroll":
        dv.roll = _roll(game, d)
    return dv


def _roll(game, d: Decision) -> Optional[RollView]:
    """The roll a re-roll decision is about: the faces kept on the frame, the named result (as the engine's
    prompt gives it: 'rolled 4+4 (Dabo): roll again?') and the target (`Decision.target`)."""
    faces = game.frames[-1].locals.get("__roll") if game.frames else None
    if not isinstance(faces, list):
        return None
    result = d.prompt.split("(", 1)[1].rsplit(")", 1)[0] if "(" in d.prompt else ""
    return RollView(list(faces), sum(faces), result, json_value(d.target, game))
