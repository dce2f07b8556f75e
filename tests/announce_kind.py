"""A step kind that exists only for tests: `announce: TEXT` tells every player a text ({expressions} inside).

It is the whole of a new step kind, in one module: its schema form, its builder (YAML -> one step
whose run is plain steps), its chart shape and its English. tests/test_step_kinds.py registers it
and touches no other file.
"""

from __future__ import annotations

from rulecraft.loader.constructs.kinds import Expansion
from rulecraft.loader.yaml_source import YScalar
from rulecraft.model import ruleset as M
from rulecraft.model.kinds import StepKind

SCHEMA = {
    "title": "Announce step",
    "description": "Tells every player a text; {expressions} inside are worked out when it runs.",
    "type": "object",
    "properties": {
        "id": {"$ref": "#/$defs/id"},
        "label": {"type": "string"},
        "source": {"type": "string"},
        "note": {"type": "string"},
        "announce": {"title": "Text", "type": "string"},
    },
    "required": ["announce"],
    "additionalProperties": False,
}


def build(builder, node, common: dict, auto: str, loops: tuple):
    text = node.get("announce")
    if not isinstance(text, YScalar) or not isinstance(text.value, str):
        builder.err("E202", "an 'announce' step needs a text", node.span)
        return None
    g = Expansion(builder, node, common, loops)
    said = g.template(text)
    if said is None:
        return None
    g.subs["TEXT_"] = said.ast
    return M.ConstructStep(**common, construct="announce", rule=f"Announce: {text.value}",
                           settings=(("announce", text.value),), run=(g.do("log TEXT_"),))


def words(step, renderer) -> str:
    return "Everyone hears: " + dict(step.settings)["announce"]


ANNOUNCE = StepKind("announce", build, schema=SCHEMA, shape={"shape": "note", "fillcolor": "#fffbe6"}, words=words,
                    doc="tells every player a text")
