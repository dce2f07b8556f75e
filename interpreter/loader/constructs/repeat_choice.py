"""The steps that do one thing again and again until it is done, with no loop of the designer's own: `repeat_choice`
(below) and `draw_until` (at the end: "reveal cards from your deck until you reveal two treasures").

The `repeat_choice` step: a player chooses again and again, one thing at a time, until they pass, nothing is left
to choose or they have made `max:` choices ("buy cards one at a time, as many as you can pay for"; "trash up to two
cards, one by one"; "play actions while you have actions").

    - repeat_choice:
        chooser: player                                          # who chooses (required)
        options: "[c for c in row if c.cost <= player.coins]"    # what may be chosen, worked out before every choice
        max: "player.buys"                                       # at most this many choices (leave out: no limit)
        prompt: "Buy a card? ({player.coins} coins)"
        display: "'{bought.name} ({bought.cost})'"                # the name a person sees for each option
        as: bought                                               # the name of the choice (default choice)
        do:                                                      # run after each choice, with `bought` bound
          - "player.coins -= bought.cost; move bought to player.discard"

What a game otherwise writes as a loop of its own: a `while`, an optional `choose`, an `if` that breaks on the pass.
Expanded into plain steps (a let, a loop, an optional decision, an if), as the attack is (expansion.py).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from ...dsl import ast as A
from ...model import ruleset as M
from .expansion import _Gen, _plain, _steps_of, _text, construct_settings, hidden, said_setting, within_budget
from ..yaml_source import YMap, YScalar

REPEAT_KEYS = ("chooser", "options", "max", "prompt", "display", "as", "do")


def names(node: YMap) -> set[str]:
    """The locals it binds: the choice, and its bookkeeping (the options on offer, the choices made)."""
    spec = node.get("repeat_choice")
    if not isinstance(spec, YMap):
        return set()
    return {str(_plain(spec.get("as"), "choice"))} | {hidden("c", node, x) for x in ("opts", "made")}


def repeat_choice(builder, node: YMap, common: dict, auto: str, loops: tuple) -> Optional[M.ConstructStep]:
    spec = construct_settings(builder, node, "repeat_choice", REPEAT_KEYS, "a repeated choice",
                              "chooser, options, max, do, ...")
    if spec is None:
        return None
    for key, what, example in (("chooser", "the player who chooses", 'chooser: "player"'),
                               ("options", "what may be chosen, worked out before every choice",
                                'options: "[c for c in row if c.cost <= player.coins]"')):
        if spec.get(key) is None:
            builder.err("E202", f"a repeated choice needs '{key}:' ({what})", spec.span, f"e.g. {example}")
            return None
    g = _Gen(builder, node, common, loops)
    X = str(_plain(spec.get("as"), "choice"))
    O, N = hidden("c", node, "opts"), hidden("c", node, "made")
    L = hidden("c", node, "loop")
    g.user("WHO_", spec.get("chooser"), "none")
    g.user("OPTIONS_", spec.get("options"), "[]")
    g.user("MAX_", spec.get("max"), "0")
    prompt = g.template(spec.get("prompt"))
    # a `break` in its steps stops the choosing (the loop it is expanded into is the innermost one)
    do_steps = tuple(builder.block(_steps_of(spec.get("do")), f"{auto}.do.", loops + (L,)))
    decision = replace(g.decision("WHO_", O, prompt, X), optional=True)
    if spec.get("display") is not None:  # as a choose step's display: worked out with the option bound to the as: name
        g.user("DISPLAY_", spec.get("display"), "none")
        decision = replace(decision, display=g.expr("DISPLAY_"), display_as=X)
    choose = M.ChooseStep(**g.base, decision=decision)
    enough = f"{N} >= (MAX_) or " if spec.get("max") is not None else ""
    body = [g.do(f"let {O} = OPTIONS_"),
            g.if_(f"{enough}empty({O})", [g.do(f"set {X} = none; break {L}", (L,))]),
            choose,
            g.if_(f"{X} == none", [g.do(f"break {L}", (L,))]),
            g.do(f"{N} += 1"), *do_steps]
    steps = [g.do(f"let {N} = 0; let {X} = none"), g.loop(L, body)]
    if not within_budget(builder, spec):
        return None
    rule = (f"{_text(spec.get('chooser'))} chooses from {_text(spec.get('options'))} again and again until they pass "
            "or nothing is left" + (f", at most {_text(spec.get('max'))} times" if spec.get("max") is not None else ""))
    settings = tuple((k, str(_plain(spec.get(k)))) for k in REPEAT_KEYS if spec.get(k) is not None and k != "do")
    return M.ConstructStep(**common, construct="repeat_choice", rule=rule, settings=settings, run=tuple(steps),
                           parts=(("do", do_steps),) if do_steps else ())


def words(step: M.ConstructStep, w) -> str:
    """The repeated choice as players read it: who chooses, what, and when it stops."""
    st = dict(step.settings)

    def said(key: str, default: str) -> str:
        return said_setting(w, st, key, default)
    options = said("options", "the options")
    one = "one " + options.removeprefix("each ") if options.startswith("each ") else f"one of {options}"
    out = (f"{said('chooser', 'the player')} chooses {one}, again and again, until they pass or nothing is left"
           + (f" (at most {said('max', '')})" if "max" in st else ""))
    return out[0].upper() + out[1:]


DRAW_UNTIL_KEYS = ("from", "to", "until", "chooser", "prompt", "as", "do")


def draw_until_names(node: YMap) -> set[str]:
    """The locals it binds: each card drawn (and the chooser's answer, when one may stop)."""
    spec = node.get("draw_until")
    if not isinstance(spec, YMap):
        return set()
    return {str(_plain(spec.get("as"), "card"))} | ({hidden("c", node, "again")} if spec.get("chooser") is not None
                                                     else set())


def draw_until(builder, node: YMap, common: dict, auto: str, loops: tuple) -> Optional[M.ConstructStep]:
    """"Reveal cards from your deck until you reveal 2 treasures": one card at a time from `from:` to `to:` until
    `until:` holds, asked before every card, or until no card is left (the zone and the one it refills from both
    empty: a draw then gives none). Expanded into plain steps (a let, a loop, an if, a draw, an if)."""
    spec = construct_settings(builder, node, "draw_until", DRAW_UNTIL_KEYS, "a draw until", "from, to, until, ...")
    if spec is None:
        return None
    asks = spec.get("chooser") is not None
    for key, what, example in (("from", "the zone the cards are drawn from", 'from: "player.deck"'),
                               ("to", "where each card drawn goes", 'to: "player.reveal"'),
                               ("until", "when to stop, asked before every card",
                                'until: "count([c for c in player.reveal if c is treasure]) >= 2"')):
        if spec.get(key) is None and not (key == "until" and asks):
            builder.err("E202", f"a draw until needs '{key}:' ({what})", spec.span,
                        f"e.g. {example}" + ("; or 'chooser:', a player who may stop before every card"
                                             if key == "until" else ""))
            return None
    g = _Gen(builder, node, common, loops)
    X = str(_plain(spec.get("as"), "card"))
    L = hidden("c", node, "loop")
    g.user("FROM_", spec.get("from"), "none")
    g.user("TO_", spec.get("to"), "none")
    g.user("UNTIL_", spec.get("until"), "true")
    do_steps = tuple(builder.block(_steps_of(spec.get("do")), f"{auto}.do.", loops + (L,)))
    ask: list = []
    if asks:  # push your luck: the chooser may stop before every card, and is asked only when a card is left
        g.user("WHO_", spec.get("chooser"), "none")
        A_ = hidden("c", node, "again")
        prompt = g.template(spec.get("prompt")) or g.expr("'Draw another card?'")
        more = g.decision("WHO_", "", prompt, A_, kind="yesno", default="false")
        known, other = _refilled_from(builder, g.subs["FROM_"])
        if other is not None:
            g.subs["REFILL_"] = other
        left = ("not empty(FROM_)" + (" or not empty(REFILL_)" if other is not None else "")) if known else "true"
        ask = [g.if_(left, [M.ChooseStep(**g.base, decision=more),
                               g.if_(f"not {A_}", [g.do(f"break {L}", (L,))])])]
    body = [*([g.if_("UNTIL_", [g.do(f"break {L}", (L,))])] if spec.get("until") is not None else []), *ask,
            g.do(f"draw from FROM_ to TO_ as {X}"),
            g.if_(f"{X} == none", [g.do(f"break {L}", (L,))]), *do_steps]
    steps = [g.do(f"let {X} = none"), g.loop(L, body)]
    if not within_budget(builder, spec):
        return None
    stops = [_text(spec.get("until"))] if spec.get("until") is not None else []
    if asks:
        stops.append(f"{_text(spec.get('chooser'))} stops")
    rule = (f"Draw from {_text(spec.get('from'))} to {_text(spec.get('to'))} one card at a time until "
            f"{' or '.join(stops)}, or no card is left")
    settings = tuple((k, str(_plain(spec.get(k)))) for k in DRAW_UNTIL_KEYS if spec.get(k) is not None and k != "do")
    return M.ConstructStep(**common, construct="draw_until", rule=rule, settings=settings, run=tuple(steps),
                           parts=(("do", do_steps),) if do_steps else ())


def draw_until_words(step: M.ConstructStep, w) -> str:
    """The draw as players read it: from where, to where, and when it stops."""
    st = dict(step.settings)

    def said(key: str, default: str) -> str:
        return said_setting(w, st, key, default)
    stops = [said("until", "")] if "until" in st else []
    if "chooser" in st:
        stops.append(f"{said('chooser', 'the player')} chooses to stop (asked before every card)")
    return (f"Draw cards one at a time from {said('from', 'the deck')} to {said('to', 'the table')} until "
            f"{' or '.join(stops)}, or no card is left")


def draw_until_decisions(step: M.ConstructStep) -> tuple:
    """The question a draw puts when a player may stop it ('Draw another card?'): a draw with a `chooser:` decides."""
    return tuple(s.decision for s in M.walk_steps(step.run) if isinstance(s, M.ChooseStep))


def _refilled_from(builder, zone: A.Expr) -> tuple[bool, Optional[A.Expr]]:
    """Whether a draw from `zone` is known to find its cards in it alone or also in the zone it refills from (its
    `refill:`, read off the ruleset's zones where the zone is named plainly: `deck`, `player.deck`, `stocks[k]`):
    (True, that zone or None); (False, None) where the zone is not named so (the draw then tells: it gives none)."""
    zones = getattr(builder, "root", None)
    zones = zones.get("zones") if isinstance(zones, YMap) else None
    name = zone.id if isinstance(zone, A.Name) else zone.name if isinstance(zone, A.Attr) else \
        zone.obj.id if isinstance(zone, A.Index) and isinstance(zone.obj, A.Name) else None
    decl = zones.get(name) if isinstance(zones, YMap) and name is not None else None
    if not isinstance(decl, YMap):
        return False, None
    refill = decl.get("refill")
    if not isinstance(refill, YScalar) or refill.value is None:
        return True, None
    other, src = zones.get(str(refill.value)), str(refill.value)
    if not (isinstance(other, YMap) and other.get("per") is not None):  # a single zone
        return True, A.Name(zone.span, src)
    return True, (replace(zone, id=src) if isinstance(zone, A.Name) else replace(zone, name=src)
                  if isinstance(zone, A.Attr) else replace(zone, obj=replace(zone.obj, id=src)))
