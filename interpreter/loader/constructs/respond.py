"""The response window (`respond:`): each player in turn, from a given one, may answer what was just done (play a
card, say no); the first answer (or every one) is kept and the author's `do:` steps run with it. Expanded into plain
steps with the helpers of expansion.py, as the auction is in auction.py.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from ...dsl.closures.compiler import Compiler
from ...model import ruleset as M
from ..yaml_source import YMap
from .expansion import (RESPOND_KEYS, _Gen, _plain, _text, construct_settings, hidden, part_nodes, reads_hidden,
                        within_budget)


def respond(builder, node: YMap, common: dict, auto: str, loops: tuple) -> Optional[M.ConstructStep]:
    spec = construct_settings(builder, node, "respond", RESPOND_KEYS, "a response window", "from, choose, do, ...")
    if spec is None:
        return None
    until = _text(spec.get("until"), "first")
    if until not in ("first", "each", "all_pass"):
        builder.err("E204", f"a response window lasts until 'first' (the first who responds acts), 'each' (every "
                    f"player gets one chance) or 'all_pass' (again and again until a whole round passes), not '{until}'",
                    spec.get("until").span)
    if spec.get("from") is None:
        builder.err("E202", "a response window needs 'from:' (the player the others answer; they respond in turn "
                    "after them)", spec.span)
    ch = spec.get("choose")
    if not isinstance(ch, YMap):
        builder.err("E202", "a response window needs 'choose:' (the decision each player is offered)", spec.span,
                    "e.g. choose: {kind: yesno, prompt: \"Challenge {claim.who}?\"}")
        return None
    g = _Gen(builder, node, common, loops)
    Q = str(_plain(spec.get("each"), "q"))
    ANS = str(_plain(spec.get("as"), "answer"))
    h = {w: hidden("r", node, w) for w in ("order", "any", "got", "who")}
    W = h["who"]
    g.user("FROM_", spec.get("from"), "players[0]")
    g.user("DIR_", spec.get("dir"), "'cw'")
    g.user("MAY_", spec.get("may"), "true")
    g.user("RESP_", spec.get("responds"), f"{ANS} != none and {ANS} != false")
    comp = Compiler(builder.local_scope, builder.diags)
    dec = builder.decision(ch, comp, default_player=Q)
    dec = replace(dec, bind=h["got"])
    (do_nodes,) = part_nodes("respond", node)
    L = hidden("r", node, "loop")
    act = tuple(builder.block(do_nodes, f"{auto}.do.", loops))
    offer = [
        M.ChooseStep(**g.base, decision=dec),
        g.do(f"let {ANS} = {h['got']}"),
    ]
    # who may respond is worked out from something hidden (a hand): everyone in turn is then asked, those who may
    # not with their decline as the only answer, told to the others as any decline (docs/secrecy.md)
    E = hidden("r", node, "elig")  # who may respond, worked out as the offers start (as without a secret)
    declined = _declined(g, dec, hidden("r", node, "x"), f"{Q} not in {E}") \
        if reads_hidden(builder, g.subs["MAY_"]) else None
    pool = f"[{Q} for {Q} in seat_order(FROM_, dir: DIR_, include_start: false) if MAY_]"
    if declined is not None:
        offer = [g.if_(f"{Q} in {E}", offer, [M.ChooseStep(**g.base, decision=declined),
                                               g.do(f"let {ANS} = {h['got']}")])]
    def offers(name):  # the offers to each in turn
        return [g.for_each(Q, pool, offer, name=name)] if declined is None else [g.do(f"let {E} = {pool}"), g.for_each(
            Q, "seat_order(FROM_, dir: DIR_, include_start: false)", offer, name=name)]
    if until == "first":
        offer.append(g.if_("RESP_", [g.do(f"let {W} = {Q}; break {L}", (L,))]))
        steps = [g.do(f"let {W} = none; let {ANS} = none; let {Q} = none"), *offers(L),
                 g.do(f"let {Q} = {W}"),
                 g.if_(f"{Q} != none", list(act), [g.do(f"let {ANS} = none")])]
    elif until == "each":  # every player offered gets one chance; each response is acted on at once
        offer.append(g.if_("RESP_", [g.do(f"let {W} = {Q}"), *act]))
        steps = [g.do(f"let {W} = none; let {ANS} = none; let {Q} = none"), *offers(L),
                 g.do(f"let {Q} = {W}")]
    else:
        offer.append(g.if_("RESP_", [g.do(f"let {W} = {Q}; set {h['any']} = true"), *act]))
        R2 = hidden("r", node, "round")
        steps = [g.do(f"let {W} = none; let {ANS} = none; let {Q} = none"),
                 g.loop(R2, [
                     g.do(f"let {h['any']} = false"),
                     *offers(L),
                     g.if_(f"not {h['any']}", [g.do(f"break {R2}", (R2,))]),
                 ]),
                 g.do(f"let {Q} = {W}")]
    if not within_budget(builder, spec):
        return None
    frm = _text(spec.get("from"), "the first player")
    rule = (f"Each other player in turn after {frm} may respond"
            + (f" (those with {_text(spec.get('may'))})" if spec.get("may") is not None else "")
            + ("; the first who responds acts" if until == "first"
               else "; each may respond once, and every response is acted on" if until == "each"
               else "; every response is acted on, round after round until everyone passes"))
    settings = tuple((k, str(_plain(spec.get(k)))) for k in RESPOND_KEYS
                     if spec.get(k) is not None and k not in ("do", "choose"))
    return M.ConstructStep(**common, construct="respond", rule=rule, settings=settings, run=tuple(steps),
                           parts=(("do", act),) if act else ())


def _declined(g: _Gen, dec: M.DecisionSpec, x: str, out: str) -> Optional[M.DecisionSpec]:
    """The response of one who may not respond (`out`): the decline (no, pass, nothing) its only answer, worked out
    from who may respond (the story then knows its reason is hidden); None when the decision has no decline."""
    word = "" if dec.kind == "subset" else "false" if dec.kind == "yesno" else "none" if dec.optional else None
    options = g.expr(f"[{x} for {x} in [{word}] if {out} or not (MAY_)]") if word is not None else None
    return None if word is None else replace(dec, options=options, min=None, max=None, default=None) \
        if word == "" else replace(dec, kind="one", optional=False, min=None, max=None, default=None, options=options,
                                   amounts=None)
