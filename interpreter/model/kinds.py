"""The registry of step kinds said as one step and expanded into plain steps when the ruleset loads.

A kind is one `StepKind` record, registered from its own module (the way jsonschema maps each
keyword to one function): its schema form, its builder (YAML -> one `ConstructStep` whose `run`
is plain steps), the locals it binds, the keys holding the author's own steps, its chart shape
(data) and its English (a small function given the renderer). Every layer reads the record
instead of switching on the kind:

- loader/schema.py merges the form's subschema into the schema (editors get it too);
- loader/steps.py finds the form, its locals and its parts, and calls the builder;
- graph.py, the checks, the book and the diff see one ConstructStep with its parts;
- runtime/machine/program.py and the generated code run the expansion (`run`): plain steps,
  so both engines, saves, clones, logs and replays need nothing new;
- tools/chart/legend.py draws the box with `shape`; tools/words says it with `words`, or with
  the `rule` the builder wrote.

The engine's own constructs (auction, respond) are registered in loader/constructs/kinds.py;
docs/architecture.md says where a new kind goes. Nothing here imports the tools: the shape is
data and `words` receives the renderer as an argument.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import field
from typing import Any, Callable, Iterator, Mapping, Optional

from ..records import dataclass


def _no_names(node: Any) -> set[str]:
    return set()


@dataclass(frozen=True)
class StepKind:
    key: str  # the form's key in a step mapping, e.g. 'auction'
    # (builder, node, common, auto, loops) -> ConstructStep or None (problems reported through the builder)
    build: Callable[..., Any]
    schema: Optional[Mapping[str, Any]] = None  # its $defs subschema; None: schema/ruleset.schema.json has it
    names: Callable[[Any], set[str]] = _no_names  # (the step's YAML node) -> the locals the step binds
    parts: tuple[str, ...] = ()  # keys of its settings that hold steps the author wrote (drawn, checked)
    shape: Mapping[str, str] = field(default_factory=lambda: {"shape": "box3d", "margin": "0.2,0.1"})
    words: Optional[Callable[[Any, Any], str]] = None  # (step, renderer) -> English; None: the builder's rule
    doc: str = ""


KINDS: dict[str, StepKind] = {}
_LISTENERS: list[Callable[[], None]] = []


def register(kind: StepKind) -> StepKind:
    """Add a step kind (or replace one of the same key); every layer sees it from now on."""
    KINDS[kind.key] = kind
    _changed()
    return kind


def unregister(key: str) -> None:
    if KINDS.pop(key, None) is not None:
        _changed()


@contextmanager
def registered(kind: StepKind) -> Iterator[StepKind]:
    """The kind registered for a block (tests): the registry is as it was afterwards."""
    before = KINDS.get(kind.key)
    register(kind)
    try:
        yield kind
    finally:
        if before is None:
            unregister(kind.key)
        else:
            register(before)


def on_change(listener: Callable[[], None]) -> None:
    """Call `listener` whenever a kind is registered or removed (e.g. to forget a cached schema)."""
    _LISTENERS.append(listener)


def _changed() -> None:
    for listener in _LISTENERS:
        listener()
