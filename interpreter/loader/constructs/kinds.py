"""The engine's own constructs as registered step kinds (model/kinds.py): auction, respond, trick, target, attack,
turns, rounds, repeat_choice and draw_until.

Their forms are in the shipped schema (schema/ruleset.schema.json), so they bring none; their
chart shapes are the chart's own (tools/chart/legend.py) and their English is the rule the
builder writes (the attack says itself, attack.words).
"""

from __future__ import annotations

from ...model.kinds import StepKind, register
from .attack import attack, names as attack_names, words as attack_words
from .auction import auction
from .expansion import _Gen, names
from .repeat_choice import (draw_until, draw_until_decisions, draw_until_names, draw_until_words, names as repeat_names,
                            repeat_choice, words as repeat_words)
from .respond import respond
from .target import names as target_names, target, words as target_words
from .trick import names as trick_names, trick
from .turns import names as turns_names, rounds, rounds_names, rounds_words, turns, words as turns_words

Expansion = _Gen  # what a construct's builder makes its plain steps with (expr, stmts, do, if_, loop, ...)

AUCTION = register(StepKind("auction", auction, names=lambda node: names("auction", node), parts=("on_drop", "on_end"),
                            doc="players bid for something: open, once around or sealed (docs/format.md)"))
RESPOND = register(StepKind("respond", respond, names=lambda node: names("respond", node), parts=("do",),
                            doc="a response window: the other players in turn may respond (docs/format.md)"))
TRICK = register(StepKind("trick", trick, names=trick_names, parts=("on_play", "on_end"),
                          doc="one trick of a trick-taking game: follow suit, trumps, the winner leads (docs/format.md)"))
TARGET = register(StepKind("target", target, names=target_names, parts=("if_none", "do"),
                           shape={"shape": "parallelogram", "margin": "0.02,0.04", "penwidth": "1.8"},
                           words=target_words,
                           doc="a player chooses a target that passes a filter; a stated branch when nobody can be "
                               "chosen (docs/language.md)"))
ATTACK = register(StepKind("attack", attack, names=attack_names, parts=("do",), words=attack_words,
                           doc="each other player in turn, unless they reveal a card that stops it (docs/format.md)"))
TURNS = register(StepKind("turns", turns, names=turns_names, parts=("do",), words=turns_words, decides="",
                          shape={"shape": "hexagon", "margin": "0.05,0.04", "fillcolor": "#f4f4f4"},  # a loop's
                          doc="the players take turns round the table, skipping those out, until one is left "
                              "(docs/format.md)"))
REPEAT_CHOICE = register(StepKind("repeat_choice", repeat_choice, names=repeat_names, parts=("do",), words=repeat_words,
                                  decides="choice",
                                  shape={"shape": "hexagon", "margin": "0.05,0.04", "fillcolor": "#f4f4f4"},  # a loop's
                                  doc="a player chooses again and again until they pass, nothing is left or a most "
                                      "is reached (docs/format.md)"))
DRAW_UNTIL = register(StepKind("draw_until", draw_until, names=draw_until_names, parts=("do",), words=draw_until_words,
                               decides="", decisions=draw_until_decisions,
                               shape={"shape": "hexagon", "margin": "0.05,0.04", "fillcolor": "#f4f4f4"},  # a loop's
                               doc="cards drawn one at a time until a condition holds or none is left "
                                   "(docs/format.md)"))
ROUNDS = register(StepKind("rounds", rounds, names=rounds_names, parts=("do",), words=rounds_words, decides="",
                           shape={"shape": "hexagon", "margin": "0.05,0.04", "fillcolor": "#f4f4f4"},  # a loop's
                           doc="rounds are played until one player is left, or a condition holds (docs/format.md)"))
