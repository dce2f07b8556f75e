"""`rulecraft play` and `rulecraft replay`: drive a game with agents, write and check its log."""

from __future__ import annotations

import sys
from typing import Any, Optional, Sequence

from rulecraft.agents import AgentError, make_agent
from rulecraft.agents.human import HumanAgent, HumanQuit
from rulecraft.diagnostics import RuleError, SourceCache, render_text
from rulecraft.loader import load_ruleset
from rulecraft.runtime.decisions import IllegalChoice
from rulecraft.runtime.game import Game, GameError
from rulecraft.runtime.gamelog import GameLogWriter, replay


def parse_sets(items: Sequence[str] | None) -> dict[str, str]:
    out = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ValueError(f"--set {item!r}: write NAME=VALUE")
        out[name.strip()] = value.strip()
    return out


def play(ref: str, players: Optional[int], agent_kinds: Sequence[str], seed: int, log_path: Optional[str],
         overrides: dict, quiet: bool = False, names: Optional[list[str]] = None, time_limit: Optional[float] = None,
         check: bool = False, max_steps: int = 5_000_000, out=None) -> int:
    out = out or sys.stdout
    loaded = load_ruleset(ref, overrides=overrides)
    if not loaded.ok:
        print(render_text(loaded.diagnostics, loaded.sources), file=out)
        return 1
    rs = loaded.ruleset
    say = (lambda text: print(text, file=out)) if not quiet else None
    n = players if players is not None else rs.players.default
    kinds = list(agent_kinds) or ["random"]
    kinds += [kinds[-1] if kinds[-1] != "human" else "random"] * (n - len(kinds))
    try:
        shared: dict = {}
        agents = [make_agent(k, seat, seed, shared) for seat, k in enumerate(kinds[:n])]
    except AgentError as exc:
        print(f"rulecraft play: {exc}", file=sys.stderr)
        return 2
    for a in agents:
        if isinstance(a, HumanAgent):
            a.time_limit = time_limit
            a.out = out
    writer = None
    try:
        if say:
            say(f"{rs.title}: {n} players ({', '.join(kinds[:n])}), seed {seed}")
        game = Game(rs, n, seed, names=names, listener=say, check_conservation=check, max_steps=max_steps)
        if log_path:
            writer = GameLogWriter(log_path, ref, game, overrides, kinds[:n])
        while not game.over:
            d = game.pending
            chance = list(game.chance)
            wire = agents[d.player].choose(d, game.view(d.player))
            try:
                game.apply(wire)
            except IllegalChoice as exc:
                print(f"rulecraft play: {game.players[d.player]}'s agent ({kinds[d.player]}) made an illegal choice "
                      f"{wire!r}: {exc}", file=sys.stderr)
                return 1
            if writer:
                writer.decision(game, d.player, wire, chance)
        if writer:
            writer.end(game)
        if quiet:
            winners = ", ".join(game.players[s].name for s in game.winners) or "nobody"
            scores = f" scores {game.scores}" if game.scores is not None else ""
            print(f"winner: {winners}{scores} ({game.decisions} decisions)", file=out)
        return 0
    except HumanQuit:
        print("\ngame stopped" + (f"; the log so far is in {log_path}" if log_path else ""), file=out)
        return 130
    except AgentError as exc:
        print(f"rulecraft play: {exc}", file=sys.stderr)
        return 1
    except (RuleError, GameError) as exc:
        err = exc if isinstance(exc, RuleError) else exc.rule_error
        if err is not None:
            print(render_text([err.diagnostic()], loaded.sources), file=out)
        else:
            print(f"rulecraft play: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"rulecraft play: cannot write the log: {exc}", file=sys.stderr)
        return 1
    finally:
        if writer:
            writer.close()


def replay_log(path: str, partial_ok: bool = False, quiet: bool = False, out=None) -> int:
    out = out or sys.stdout
    report = replay(path)
    for w in report.warnings:
        print(f"warning: {w}", file=out)
    if not quiet and report.game is not None and report.ok and report.complete:
        g = report.game
        winners = ", ".join(g.players[s].name for s in g.winners) or "nobody"
        print(f"winner: {winners}" + (f", scores {g.scores}" if g.scores is not None else ""), file=out)
    where = f"{path}:{report.line}: " if report.line else f"{path}: "
    if report.ok:
        print(f"{path}: {report.message}", file=out)
        return 0
    print(f"{where}{report.message}", file=out)
    if not report.complete and partial_ok and report.decisions and "replay identically" in report.message:
        return 0
    return 1
