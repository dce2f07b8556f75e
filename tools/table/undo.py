"""Taking back a person's last decision (`undo`), fairly.

The game is made again from its seed and the decisions before the one taken back; since every bot's choice is a
function of the game, its seed and its seat (agents.base.decision_rng), the same answer then gives the same game.
That also means taking back would show the person what comes next, so an undo is refused, with the reason,
when something was revealed to them after the decision: sealed choices shown, a card they could not see before
(drawn, turned up, played from a hand), a die rolled or a random pick made, a line told to them alone. The log is
written again without the decisions taken back (only a regular file can be cut), the save too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from rulecraft.model.secrecy import cards_seen
from rulecraft.runtime.game import Game
from rulecraft.runtime.gamelog import decision_record
from rulecraft.runtime.story import Line


@dataclass
class Taken:
    """One decision of the game as the table keeps it: who, the answer (wire form), what chance gave before it
    was asked, and how long the story was just before it was applied."""

    player: int
    wire: Any
    chance: list
    told: int = 0


def rebuild(rs, n: int, seed: int, names: list[str], history: list[Taken], **game_kwargs):
    """The game after the decisions of `history`, made again from its seed, and their log records."""
    game = Game(rs, n, seed, names=names, story=False, **game_kwargs)
    records = []
    for i, t in enumerate(history):
        chance = list(game.chance)
        game.apply(t.wire)
        records.append(decision_record(game, i + 1, t.player, t.wire, chance))
    game.story = True
    return game, records


def seen_cards(game, seat: int) -> set[int]:
    """The cards (by index) whose face `seat` can see now (the engine's one rule: model/secrecy.py)."""
    return cards_seen(game, seat)


def revealed_since(before, now, seat: int, lines: list, chance: list) -> Optional[str]:
    """What `seat` learnt between `before` (the game as their decision was asked) and `now`, in words, or None.

    `lines` is the story told since the decision was asked, `chance` what chance gave since (log form)."""
    why = _told_or_drawn(lines, chance, seat)
    if why:
        return why
    new = seen_cards(now, seat) - seen_cards(before, seat)
    if new:
        names = sorted(now.rs.cards[i].name for i in new)
        shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        return f"you have seen {shown} since"
    return None


def _told_or_drawn(lines: list, chance: list, seat: int) -> Optional[str]:
    for line in lines:
        if isinstance(line, Line) and line.kind == "reveal":
            return "the sealed choices were revealed since"
        if isinstance(line, Line) and line.kind == "tell" and line.only is not None and seat in line.only:
            return "you were told something since"
    rolled = [c for c in chance if c and c[0] in ("roll", "pick")]
    if rolled:
        return "dice were rolled since" if rolled[0][0] == "roll" else "a random pick was made since"
    return None


def refused_at_once(game, narrative: list, seat: int, history: list[Taken]) -> Optional[str]:
    """Why taking back `seat`'s last decision is refused, as far as it is known without making the game again (the
    story told since, what chance gave since), or None; `narrative`: the game's story as the seats were told it. A
    table offers Undo only where this is None (session 20: pig offered it after every answer, and every press said
    "dice were rolled since"); the cards seen since are found by `take_back`."""
    mine = [i for i, t in enumerate(history) if t.player == seat]
    if not mine:
        return "Nothing to take back."
    cut = mine[-1]
    chance = [c for t in history[cut + 1:] for c in t.chance] + list(game.chance)
    return _told_or_drawn(narrative[history[cut].told:], chance, seat)


def take_back(game, seat: int, history: list[Taken], **game_kwargs) -> tuple[Optional[Any], list, str]:
    """(the game again, its log records, what to tell the person) for taking back `seat`'s last decision;
    the game is None when it is refused (the text says why). `history` is cut only when it is taken back."""
    mine = [i for i, t in enumerate(history) if t.player == seat]
    if not mine:
        return None, [], "Nothing to take back."
    cut = mine[-1]
    why = refused_at_once(game, game.narrative, seat, history)  # found before the game is made again, which it costs
    if why:
        return None, [], f"Cannot take back your last decision: {why}."
    again, records = rebuild(game.rs, len(game.players), game.seed, [p.name for p in game.players],
                             history[:cut], **game_kwargs)
    lines = game.narrative[history[cut].told:]
    chance = [c for t in history[cut + 1:] for c in t.chance] + list(game.chance)
    why = revealed_since(again, game, seat, lines, chance)
    if why:
        return None, [], f"Cannot take back your last decision: {why}."
    again.narrative = list(game.narrative[:history[cut].told])
    again.listener, again.headers = game.listener, game.headers
    del history[cut:]
    return again, records, f"Taken back: your decision {len(mine)}; you decide again."
