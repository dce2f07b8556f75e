"""What the tests share: `play_seeded`, the one loop that plays a seeded game to its end.

A test that needs a game played by bots calls `play_seeded` (a module-level helper imports it, `from conftest
import play_seeded`; a test can also ask for the fixture of the same name). A test whose loop does something else
between decisions (a scripted answer, a copy of the game, a referee's look) passes `each` or `until`, or keeps its
own loop when it is not this one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

import pytest

if TYPE_CHECKING:  # the engine is imported when a game is played, not by every test session that loads this file
    from rulecraft.model.ruleset import Ruleset
    from rulecraft.runtime.decisions import Decision
    from rulecraft.runtime.game import Game


def play_seeded(ruleset: Ruleset, seed: int, players: Optional[int] = None, *,
                agents: Optional[Callable[[int, int], Any]] = None, views: bool = False,
                each: Optional[Callable[[Game, Decision], Any]] = None,
                until: Optional[Callable[[Game], bool]] = None, **options: Any) -> Game:
    """`Game(ruleset, players, seed, **options)` played until it is over (or `until(game)` is true before a
    decision): each seat's agent is `agents(seat, seed)` (a RandomAgent by default), given the seat's view when
    `views` (as `rulecraft play` gives it) or None; `each(game, decision)` is called before every answer.
    Returns the game: its winners, scores, story (`narrative`), decisions and steps are on it."""
    from rulecraft.agents.base import RandomAgent
    from rulecraft.runtime.game import Game

    g = Game(ruleset, players, seed, **options)
    seats = [(agents or RandomAgent)(p.seat, seed) for p in g.players]
    while not g.over and (until is None or not until(g)):
        d = g.pending
        assert d is not None, "a game that is not over waits for a decision"
        if each is not None:
            each(g, d)
        g.apply(seats[d.player].choose(d, g.view(d.player) if views else None))
    return g


@pytest.fixture(name="play_seeded")
def _play_seeded() -> Callable[..., Game]:
    """`play_seeded` (above) for a test that takes it as a fixture."""
    return play_seeded
