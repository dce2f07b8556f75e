"""Agents make decisions for players; they live outside the engine and see only their player's view.

An agent is any object with `choose(decision, view) -> wire` (see `base.Agent`); `make_agent`
builds one from a command-line kind: random, first, human, script:FILE or python:MODULE:CLASS.
"""

from .base import Agent, AgentError  # noqa: F401
from .kinds import make_agent  # noqa: F401
