"""The `trick` step: one trick of a trick-taking game, expanded into plain steps (see constructs.py for how and why).

The leader plays any card their lead restriction allows; each other player still in, in turn from the leader,
follows the led suit when able (else plays any card), within an optional play restriction; the highest trump
wins the trick, or else the highest card of the suit led. The played cards lie in `table` while the trick is
played, then go where `to` says; a `leader` that can be set (a variable) is set to the next leader, the winner
by default. The result is a record: winner, card (the winning card), led (the suit led), cards, plays.
"""

from __future__ import annotations

import re
from typing import Optional

from ...diagnostics import DiagnosticError
from ...dsl import ast as A
from ...dsl.parser import parse_expression
from ...model import ruleset as M
from ..yaml_source import YMap, YSeq
from .expansion import _Gen, _plain, _steps_of, _substitute, _text, construct_settings, hidden, texts

TRICK_KEYS = ("leader", "players", "each", "hand", "table", "suit", "rank", "trump", "follow", "may_lead", "may_play",
              "prompt", "to", "next_leader", "as", "say_result", "play_out", "on_play", "on_end")
_HIDDEN = ("led", "best", "bestp", "ok", "ok2", "pick", "plays", "trump", "loop")


def names(node: YMap) -> set[str]:
    """The locals a trick binds (for the sequence's scope), the hidden ones included."""
    spec = node.get("trick")
    if not isinstance(spec, YMap):
        return set()
    return ({str(_plain(spec.get("each"), "p")), str(_plain(spec.get("as"), "trick")), "card"}
            | {hidden("t", node, w) for w in _HIDDEN})


RESULT_FIELDS = {"winner", "card", "led", "cards", "plays", "player"}  # a trick's result and its plays


def record_fields(root) -> set[str]:
    """The field names a trick's result gives, when the ruleset has a trick step."""
    todo = [root]
    while todo:
        n = todo.pop()
        if isinstance(n, YMap):
            if "trick" in n.entries:
                return set(RESULT_FIELDS)
            todo.extend(n.entries.values())
        elif isinstance(n, YSeq):
            todo.extend(n.items)
    return set()


_FIELD_READ = re.compile(r"\.(card|led|plays)\b")


def _reads(root) -> set:
    """The result fields beyond winner and cards that some text of the ruleset reads ('.card', '.led', '.plays'):
    a conservative test of use."""
    return {field for text in texts(root) for field in _FIELD_READ.findall(text)}


def part_nodes(node: YMap) -> list:
    spec = node.get("trick")
    return [_steps_of(spec.get("on_play")), _steps_of(spec.get("on_end"))] if isinstance(spec, YMap) else [[], []]


def _card_as(g: _Gen, name: str, placeholder: str, card: str) -> None:
    """A placeholder for the author's card expression (written with `card`) said of another card name."""
    g.subs[name] = _substitute(g.subs[placeholder], {"card": A.Name(g.span, card)})


def trick(builder, node: YMap, common: dict, auto: str, loops: tuple) -> Optional[M.ConstructStep]:
    spec = construct_settings(builder, node, "trick", TRICK_KEYS, "a trick", "leader, table, trump, to, ...")
    if spec is None:
        return None
    for key, what in (("leader", "the player who leads, e.g. leader: leader (a variable the trick sets to the "
                                 "winner)"),
                      ("table", "the zone the cards are played into, face up, e.g. table: trick_pile")):
        if spec.get(key) is None:
            builder.err("E202", f"a trick needs '{key}:' ({what})", spec.span)
    follow = _plain(spec.get("follow"), True)
    if not isinstance(follow, bool):
        builder.err("E204", "'follow:' is true (players must follow the led suit when they can) or false",
                    spec.get("follow").span)
        follow = True
    g = _Gen(builder, node, common, loops)
    P = str(_plain(spec.get("each"), "p"))
    R = str(_plain(spec.get("as"), "trick"))
    h = {w: hidden("t", node, w) for w in _HIDDEN}
    LED, BEST, BESTP = h["led"], h["best"], h["bestp"]
    OK, OK2, PICK, PLAYS, TR = h["ok"], h["ok2"], h["pick"], h["plays"], h["trump"]
    g.user("LEADER_", spec.get("leader"), "players[0]")
    g.user("PLAYERS_", spec.get("players"), "seat_order(LEADER_)")
    g.subs["PLAYERS_"] = _substitute(g.subs["PLAYERS_"], {"LEADER_": g.subs["LEADER_"]})  # the default's leader
    g.user("HAND_", spec.get("hand"), f"{P}.hand")
    g.user("TABLE_", spec.get("table"), "none")
    g.user("SUIT_", spec.get("suit"), "card.suit")
    g.user("RANK_", spec.get("rank"), "card")  # cards compare in the card order: card_order(card), read at once
    g.user("TRUMP_", spec.get("trump"), "none")
    g.user("LEAD_OK_", spec.get("may_lead"), "true")
    g.user("PLAY_OK_", spec.get("may_play"), "true")
    g.user("TO_", spec.get("to"), "none")
    g.user("NEXT_", spec.get("next_leader"), h["bestp"])  # the winner
    _card_as(g, "SUITP_", "SUIT_", PICK)
    _card_as(g, "RANKP_", "RANK_", PICK)
    _card_as(g, "SUITB_", "SUIT_", BEST)
    _card_as(g, "RANKB_", "RANK_", BEST)
    prompt = g.template(spec.get("prompt")) or g.expr("'Play a card'")
    on_play_nodes, on_end_nodes = part_nodes(node)
    on_play = tuple(builder.block(on_play_nodes, f"{auto}.on_play.", loops))
    on_end = tuple(builder.block(on_end_nodes, f"{auto}.on_end.", loops))
    play_out = _plain(spec.get("play_out"), False)
    if not isinstance(play_out, bool):
        builder.err("E204", "'play_out:' is true (tricks are played until the hands are empty) or false",
                    spec.get("play_out").span)
        play_out = False
    # what each play costs is what a hand-written loop costs: who played what is kept only when something reads
    # it ('.plays'); the trump test only when there are trumps; suits and ranks are read where they are compared
    plays = "plays" in _reads(getattr(builder, "root", None) or node)
    trumps = spec.get("trump") is not None

    # who may play what: a lead restriction or a play restriction that would leave no card allows any card
    all_cards = "[card for card in HAND_]"
    lead = ([g.do(f"let {OK} = [card for card in HAND_ if LEAD_OK_]"),
             g.if_(f"empty({OK})", [g.do(f"let {OK} = {all_cards}")])]
            if spec.get("may_lead") is not None else [g.do(f"let {OK} = {all_cards}")])
    follow_steps = ([g.do(f"let {OK} = [card for card in HAND_ if SUIT_ == {LED}]"),
                     g.if_(f"empty({OK})", [g.do(f"let {OK} = {all_cards}")])]
                    if follow else [g.do(f"let {OK} = {all_cards}")])
    allowed = [g.if_(f"{LED} == none", lead, follow_steps)]
    if spec.get("may_play") is not None:
        allowed += [g.do(f"let {OK2} = [card for card in {OK} if PLAY_OK_]"),
                    g.if_(f"not empty({OK2})", [g.do(f"let {OK} = {OK2}")])]
    # no default: a card must be played (a default would be worked out at every decision); the choice is open
    # (`secret: false`): the card goes face up to the table at once, so the story tells everyone which it was
    choose = M.ChooseStep(**g.base, decision=g.decision(P, OK, prompt, PICK, default=None, secret=False))
    play = g.do(f"move {PICK} to TABLE_" + (f"; {PLAYS} += [record(player: {P}, card: {PICK})]" if plays else ""))
    led = g.if_(f"{LED} == none", [g.do(f"let {LED} = SUITP_")])
    # the card played beats the best so far when it is higher in the same suit, or a trump over a card that is not
    beats = g.if_(f"{BEST} == none or (SUITP_ == SUITB_ and RANKP_ > RANKB_)"
                  + (f" or ({TR} != none and SUITP_ == {TR} and SUITB_ != {TR})" if trumps else ""),
                  [g.do(f"let {BEST} = {PICK}; let {BESTP} = {P}")])
    bind_card = [g.do(f"let card = {PICK}")] if on_play else []
    turn = [*allowed, choose, play, led, beats, *bind_card, *on_play]
    # the table is the trick's own zone: the trick's cards are the cards lying in it when the trick ends
    start = (f"let {LED} = none; let {BEST} = none; let {BESTP} = none"
             + (f"; let {TR} = TRUMP_" if trumps else "") + (f"; let {PLAYS} = []" if plays else ""))
    # the result keeps the fields something reads (winner and cards always)
    read = _reads(getattr(builder, "root", None) or node)
    end = (f"let {R} = record(winner: {BESTP}, cards: TABLE_.cards"
           + (f", card: {BEST}" if "card" in read else "") + (f", led: {LED}" if "led" in read else "")
           + (f", plays: {PLAYS}" if plays else "") + ")")
    if _plain(spec.get("say_result")) is not False:  # who took it, said once (a log: unworked without a story)
        g.user("SAYR_", spec.get("say_result"), "'{" + R + ".winner} takes the trick'")
        end += "; log SAYR_"
    if spec.get("to") is not None:
        end += "; move TABLE_ to TO_"
    target = _settable(builder, spec)
    if target is not None and _plain(spec.get("next_leader")) is not False:
        end += f"; set {target} = NEXT_"
    holding = f"[{P} for {P} in PLAYERS_ if not empty(HAND_)]"
    steps: list = [g.do(start), g.for_each(P, holding, turn), g.do(end), *on_end]
    if play_out:  # the hand played out: trick after trick (the winner leading the next) until no hand holds a card
        L = h["loop"]
        # (a first step no jump comes back to: the construct's one visit, program.py)
        steps = [g.do(f"let {LED} = none"), g.loop(L, [g.if_(f"empty({holding})", [g.do(f"break {L}", (L,))]), *steps])]
    rule = _trick_rule(spec, follow, play_out)
    settings = tuple((k, str(_plain(spec.get(k)))) for k in TRICK_KEYS
                     if spec.get(k) is not None and k not in ("on_play", "on_end"))
    parts = tuple((k, v) for k, v in (("on_play", on_play), ("on_end", on_end)) if v)
    return M.ConstructStep(**common, construct="trick", rule=rule, settings=settings, run=tuple(steps), parts=parts)


def _settable(builder, spec: YMap) -> Optional[str]:
    """The leader's text when it names something `set` can change (a variable, a player's variable), else None."""
    node = spec.get("leader")
    if node is None or not isinstance(node.plain(), str):
        return None
    try:
        ast = parse_expression(str(node.plain()), lambda a, b: node.span)
    except DiagnosticError:
        return None
    if isinstance(ast, A.Name):
        sym = builder.scope.symbols.get(ast.id)
        if ast.id in builder.local_scope.locals or (sym is not None and sym.kind == "var"):
            return ast.id
        return None
    if isinstance(ast, A.Attr):
        return str(node.plain())
    return None


def _trick_rule(spec: YMap, follow: bool, play_out: bool = False) -> str:
    """The trick in words, as the chart's box says it: the mechanics, never the expressions (the step's label says
    the game's own restrictions)."""
    # no setting's own text appears here (the words renderer says each setting it finds in the rule in words)
    bits = (["tricks are played until the hands are empty"] if play_out else []) + [
        "the player who leads plays a card, then each other player in turn plays one"]
    if follow:
        bits.append("follow the suit led if you can")
    if spec.get("may_lead") is not None:
        bits.append("some cards may not lead (any may when a player holds nothing else)")
    if spec.get("may_play") is not None:
        bits.append("some cards may not be played while others can")
    trump = _text(spec.get("trump"))
    if trump and trump != "none":
        bits.append("the highest trump wins, else the highest card of the suit led")
    else:
        bits.append("the highest card of the suit led wins")
    to = _text(spec.get("to"))
    if to:
        bits.append("the winner takes the cards" if ".winner" in to else "then the cards are put away")
    if spec.get("next_leader") is None:
        bits.append("the winner leads next")
    elif _plain(spec.get("next_leader")) is not False:
        bits.append("then the next leader is chosen")
    return "; ".join(bits)
