"""An agent from a command-line word: random, first, greedy[:OPTIONS], script:FILE, python:MODULE:CLASS. The word
human is refused here: a person's agent is built by the table that shows them the game, given its presenter and
reader (`rulecraft.tools.table.session.person`).

Kept apart from `base` so the agents built on it (greedy) are imported by this chooser,
never by the module they extend.
"""

from __future__ import annotations

import importlib
from typing import Any

from .base import AgentError, FirstAgent, RandomAgent, ScriptedAgent


def make_agent(kind: str, seat: int, seed: int, shared: dict | None = None) -> Any:
    """An agent from a command-line word; `shared` lets seats share one scripted agent."""
    shared = shared if shared is not None else {}
    if kind == "random":
        return RandomAgent(seat, seed)
    if kind == "first":
        return FirstAgent(seat, seed)
    if kind == "greedy" or kind.startswith("greedy:"):
        from .greedy import GreedyAgent

        return GreedyAgent.from_kind(kind, seat, seed)
    if kind == "human":  # a person's agent is built by the table that shows them the game (tools.table.session)
        raise AgentError("'human' is a person at the table: only 'rulecraft play' seats one")
    if kind.startswith("script:"):
        path = kind[len("script:"):]
        if path not in shared:
            shared[path] = ScriptedAgent.from_file(path)
        return shared[path]
    if kind.startswith("python:"):
        spec = kind[len("python:"):]
        module, _, cls = spec.rpartition(":")
        if not module or not cls:
            raise AgentError(f"'{kind}': write python:MODULE:CLASS")
        try:
            mod = importlib.import_module(module)
            factory = getattr(mod, cls)
            return factory(seat=seat, seed=seed)
        except Exception as exc:
            raise AgentError(f"cannot load the agent {spec}: {exc}") from None
    raise AgentError(f"unknown agent kind '{kind}'; use random, first, greedy, human, script:FILE or python:MODULE:CLASS")


def file_of(kind: str) -> str | None:
    """The file an agent of this command-line word reads (script:FILE), or None."""
    return kind[len("script:"):] if isinstance(kind, str) and kind.startswith("script:") else None


KINDS = ("random", "first", "greedy", "human", "script:FILE", "python:MODULE:CLASS")
