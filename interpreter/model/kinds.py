"""The registry of step kinds: every form a step can take, the engine's own and any added later.

A kind is one `StepKind` record, registered from its own module (the way jsonschema maps each
keyword to one function): its schema form, the model class its steps are, its builder (YAML ->
that step), the locals it binds, how it is lowered to instructions, the keys holding the author's
own steps, its chart shape (data) and its English (a small function given the renderer). Every
layer reads the record instead of switching on the form:

- loader/schema.py merges the form's subschema into the schema (editors get it too);
- loader/steps.py finds the form, its locals (`binds`, or `names` and its parts) and calls the builder;
- runtime/machine/program.py lowers each step with its kind's `lower` (found by its model class);
- graph.py draws each step's node and edges with its kind's `graph`; the checks, the book and the diff see
  the step with its `bodies`;
- compiler/steps.py writes each step into a generated stretch with its kind's `stretch` (positions.py: where
  inside it a stretch may start);
- tools/chart/legend.py draws a construct's box with `shape`; tools/words says it with `words`, or
  with the `rule` the builder wrote;
- checks/flow.py reads its flow facts (`statements`, `loop`, `branch`, `endless`), checks/results.py its
  `statements`; tools/chart/sheetplan.py its `text`, `statements` and `raises`; tools/chart/flowchart.py and
  cases.py its `question` and `notes`; tools/print/book.py its `book`; tools/diff its `form`, `fields` and
  `summary`; the player aid, `?` help and the print check its `decides`, `decisions`, `outcomes` and `call`. A
  core kind's English is said in tools/words by its key (the one renderer), a kind added later brings `words`.

Two sorts of kind: the core ones (do, call, if, while, repeat, loop, for_each, choose, sealed, stack;
loader/kinds/), each with its own model class and instructions; and the constructs (auction,
respond, trick, target, attack; loader/constructs/), said in one step and expanded when the ruleset
loads into one `ConstructStep` whose `run` is plain steps, so their default `model` and `lower` need
nothing new from the engine. docs/architecture.md says where a new kind goes. Nothing here imports the
tools or the loader: the shape is data, and the hooks receive the builder, the flattener or the
renderer as an argument.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import field
from typing import Any, Callable, Iterator, Mapping, Optional

from ..records import dataclass
from .steps import ConstructStep


def _no_names(node: Any) -> set[str]:
    return set()


def run_expansion(flattener: Any, step: Any) -> None:
    """A construct's instructions: those of the plain steps it was expanded to (`run`)."""
    flattener.block(step.run)


def _no_blocks(step: Any) -> tuple:
    return ()


def _no_text(step: Any) -> str:
    return ""


def _never(step: Any) -> bool:
    return False


def _nowhere(step: Any, op: str) -> None:
    return None


def _settings(step: Any) -> tuple:
    return tuple(getattr(step, "settings", ()))


def _resume_inside(writer: Any, step: Any, path: list, k: int) -> None:
    writer.continuation(path, k + 1)


@dataclass(frozen=True)
class Stretch:
    """How the compiled engine writes a kind's steps into the code of a generated stretch (compiler/steps.py), and
    where inside them a stretch may start (compiler/positions.py). Each hook is given the stretch's writer (its
    `emit`, `value`, `count`, `block`, `pcs`, ...), which holds what every kind shares."""

    # (writer, step) -> whether play goes on after it (False: the function always leaves in it, as at a stop)
    write: Callable[[Any, Any], bool]
    # step -> ((role, steps), ...): the blocks whose instructions lie among its own, in the order they are lowered
    blocks: Callable[[Any], tuple] = _no_blocks
    # (step, op) -> (role, steps, index): where a stretch starting at that instruction of its own (not its first)
    # stands among its steps (the jump over an 'else': the end of 'then'); None: not a place to start from
    at: Callable[[Any, str], Optional[tuple]] = _nowhere
    # (writer, step, path, k): the rest of the step, from inside it where path[k + 1] says (writer.continuation)
    resume: Callable[[Any, Any, list, int], None] = _resume_inside


@dataclass(frozen=True)
class StepKind:
    key: str  # the form's key in a step mapping, e.g. 'auction'
    # (builder, node, common, auto, loops) -> its step (a construct's: one ConstructStep) or None (problems reported
    # through the builder); `common` holds the keyword arguments every step takes (id, path, label, ...)
    build: Callable[..., Any]
    schema: Optional[Mapping[str, Any]] = None  # its $defs subschema; None: schema/ruleset.schema.json has it
    names: Callable[[Any], set[str]] = _no_names  # (the step's YAML node) -> the locals the step binds
    parts: tuple[str, ...] = ()  # keys of its settings that hold steps the author wrote (drawn, checked)
    shape: Mapping[str, str] = field(default_factory=lambda: {"shape": "box3d", "margin": "0.2,0.1"})
    # (step, renderer) -> English; None: a construct's rule as the builder wrote it, a core kind's phrase (tools/words)
    words: Optional[Callable[[Any, Any], str]] = None
    doc: str = ""
    model: type = ConstructStep  # the class of the steps it builds (a construct: ConstructStep)
    # (builder, node, out): add the locals the step binds, its inner steps' included, to `out`;
    # None: `names(node)` and the locals of the steps under its `parts` (loader/steps.py)
    binds: Optional[Callable[[Any, Any, set], None]] = None
    # (flattener, step): emit the step's instructions (runtime/machine/program.py); kinds of one model class share it
    lower: Callable[[Any, Any], None] = run_expansion
    # (graph builder, sequence, step, tails) -> the tails play leaves it by (graph.py: `node`, `edge`, `block`);
    # None: one node (a construct's: its rule, its parts hanging off it; any other: its form, its bodies)
    graph: Optional[Callable[[Any, Any, Any, list], list]] = None
    # how the compiled engine writes its steps into a generated stretch (compiler/); None: a construct's are the
    # plain steps of its expansion, any other kind's are stops (the function leaves; the instruction loop runs them)
    stretch: Optional[Stretch] = None
    # What the checks and the tools read of its steps, beyond `bodies` and `words` (docs/architecture.md):
    # step -> the statements it runs itself, not those of the steps inside it (each with `text`, `ast` and `span`: a
    # `do:` step's own; a `call:` step's call): the calls and events the sheets, the book and the checks find
    statements: Callable[[Any], tuple] = _no_blocks
    raises: tuple[str, ...] = ()  # the events its own instruction raises besides its statements' (sealed: revealed)
    text: Callable[[Any], str] = _no_text  # step -> the rule text of what it does itself (charts, sheets, the book)
    text_label: bool = False  # a step without a label is labelled with its text (a `do:`): no designer's words
    loop: bool = False  # its bodies repeat: a break or continue in them is its own (checks/flow.py)
    branch: bool = False  # it runs one of its bodies: it always leaves when every one of them always leaves
    endless: Callable[[Any], bool] = _never  # step -> it repeats until a statement leaves it (E406 when none can)
    # (step, view, label, inner) -> fill the book's view of the step (tools/print/book.py: `code`, `prose`, `lead`,
    # `inline`, `tail`, `groups`; `label` the designer's words, `inner(steps)` the views of the steps it holds);
    # None: the designer's label alone
    book: Optional[Callable[[Any, Any, str, Callable], None]] = None
    # its box in the players' chart asks yes or no of its condition (an 'if'): its step has a `cond`, and its bodies
    # are what runs on yes and what runs on no
    question: bool = False
    # (step, words, text, label, full) -> the small print under its box in a chart (`text` what the box says, `label`
    # the designer's words, `full` the designers' chart): who decides, what its label leaves out; None: a construct's
    # rule under its label
    notes: Optional[Callable[[Any, Any, str, str, bool], list]] = None
    # What the diff, the player aid, `?` help and the print check read of its steps:
    form: str = ""  # the word the diff names its steps by ('': its key; a LoopStep's 'loop', whichever form wrote it)
    # step -> ((name, value), ...): what makes the step what it is besides its form, label, note, source and the steps
    # inside it (the diff compares them; a DecisionSpec value field by field); default: a construct's settings
    fields: Callable[[Any], tuple] = _settings
    summary: Optional[Callable[[Any], str]] = None  # step -> one line the diff names it by; None: its form
    call: bool = False  # a step that is a call of the sequence its statement names (the aid leaves out a set-up's)
    # 'mechanic': a key decision its own words say whole, the steps inside it included (an auction, secret picks, a
    # stack: the aid's "How it is decided" lists it first); 'choice': a player's choice (listed under its sequence,
    # its prompt quoted inside a sentence); '': it decides nothing itself
    decides: str = "mechanic"
    # step -> the decisions (DecisionSpec) its own instruction puts to players: a choose's, a sealed step's, a stack's
    # play (`?` help, the print check and the aid read their prompts and their `as:`)
    decisions: Callable[[Any], tuple] = _no_blocks
    outcomes: bool = True  # its bodies run on some answer or outcome only (an if's, a construct's parts)


# what is known of a step of no registered kind (its kind removed since it was built): no statements, no flow
# facts, it decides nothing
NO_KIND = StepKind("step", lambda *a: None, decides="", outcomes=False)

KINDS: dict[str, StepKind] = {}
_BY_MODEL: dict[type, StepKind] = {}  # each model class's first registered kind (while, repeat, loop: LoopStep)
_LISTENERS: list[Callable[[], None]] = []


def of_step(step: Any) -> Optional[StepKind]:
    """The registered kind whose steps are of `step`'s class (for a class several forms share, the first registered)."""
    return _BY_MODEL.get(step.__class__)


def kind_of(step: Any) -> Optional[StepKind]:
    """The kind that made `step`: by its class, and for a construct (one class for all) by its `construct` key (what
    the tools ask; `of_step`, by the class alone, is what lowering a step needs)."""
    kind = _BY_MODEL.get(step.__class__)
    if kind is not None and kind.model is ConstructStep:
        return KINDS.get(step.construct, kind)
    return kind


def own_statements(step: Any) -> tuple:
    """The statements a step runs itself, as its kind says (a `do:` step's, a `call:` step's call), not those of the
    steps inside it."""
    kind = kind_of(step)
    return kind.statements(step) if kind is not None else ()


def decides(step: Any) -> str:
    """What a step decides (`StepKind.decides`): its kind's word, and 'choice' for a step of a kind that decides
    nothing itself whose own instruction still puts a question to a player (a draw a player may stop)."""
    kind = kind_of(step)
    if kind is None:
        return ""
    return kind.decides or ("choice" if kind.decisions(step) else "")


def yes_no(step: Any) -> Optional[tuple]:
    """(its condition, the steps run on yes, the steps run on no) for a step whose kind asks yes or no (`question`: an
    'if'); None for any other step."""
    kind = kind_of(step)
    if kind is None or not kind.question:
        return None
    bodies = [body for _name, body in step.bodies]
    return step.cond, bodies[0] if bodies else (), bodies[1] if len(bodies) > 1 else ()


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
    _BY_MODEL.clear()
    for kind in KINDS.values():
        _BY_MODEL.setdefault(kind.model, kind)
    for listener in _LISTENERS:
        listener()
