"""Play a seeded random-agent game while writing its log and its save, as `rulecraft play --log --save` does.

Shared by the fuzzing of logs and saves and by the script that writes their bad-input corpus.
"""

from __future__ import annotations

from typing import Optional

from rulecraft.agents.base import RandomAgent
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.runtime.gamelog import GameLogWriter
from rulecraft.runtime.savegame import SaveWriter


def record_game(path: str, ref: str, seed: int, log_path: str, save_path: str, *,
                overrides: Optional[dict] = None, stop_after: Optional[int] = None) -> Game:
    """Load the ruleset at `path`, play it (stopping after `stop_after` decisions if given), and
    write the log and the save naming the ruleset as `ref`; the save is written once, at the end
    (a save file holds the decisions and the last state, so that is what every write leaves)."""
    rs = load_ruleset(path, overrides=overrides or {}).ruleset
    g = Game(rs, None, seed)
    agents = [RandomAgent(p.seat, seed) for p in g.players]
    kinds = ["random"] * len(g.players)
    log = GameLogWriter(log_path, ref, g, overrides, kinds)
    save = SaveWriter(save_path, ref, g, overrides, kinds)
    while not g.over and (stop_after is None or g.decisions < stop_after):
        d = g.pending
        chance = list(g.chance)
        wire = agents[d.player].choose(d, g.view(d.player))
        g.apply(wire)
        log.decision(g, d.player, wire, chance)
        save.record(d.player, wire)
    if g.over:
        log.end(g)
    log.close()
    save.write(g)
    return g
