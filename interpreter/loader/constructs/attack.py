"""`attack`: each other player in turn, unless they reveal a card that stops it, has something done to them.

    - attack:
        by: player                      # the attacker; the others are taken in turn after them
        filter: "target.team != player.team"   # who is attacked at all (leave out: every other player)
        reveal: "card is reaction"      # a card that stops it (read as `card`), shown from `from:`
        from: "target.hand"             # where the attacked player holds it (default: their `hand`)
        do: ["draw from target.deck to target.discard"]   # for each attacked player who did not reveal

Each other player holding such a card is asked whether to reveal one; revealing it is told to everyone and
spares them. Only the players for whom `filter:` holds (the attacked player named by `each`) are attacked, and asked:
"each other player with 5 or more cards in hand", "each player of the other team". A filter that reads something some
seat cannot see asks every other player alike, and leaves out of the `do` steps those it does not hold for. A
player put out by the attack on an earlier player is neither asked nor attacked when their turn comes. The
question is secret and asked of every other player alike (with nothing to reveal the only
answer is to decline): what the others read of it is the same whether a player held the card and kept it
hidden or had none, so the story never tells who holds one. Without `reveal:` every other player is attacked.
Expanded into plain steps (a for_each, a choose, an if), as the response window is (expansion.py).
"""

from __future__ import annotations

from typing import Optional

from ...model import ruleset as M
from ..yaml_source import YMap
from .expansion import _Gen, _plain, _steps_of, construct_settings, hidden, reads_hidden, within_budget

ATTACK_KEYS = ("by", "dir", "each", "filter", "reveal", "from", "prompt", "do")


def names(node: YMap) -> set[str]:
    """The locals an attack binds: the attacked player's name, the card a reveal reads, its bookkeeping."""
    spec = node.get("attack")
    if not isinstance(spec, YMap):
        return set()
    return {str(_plain(spec.get("each"), "target")), "card", hidden("x", node, "shown")}


def attack(builder, node: YMap, common: dict, auto: str, loops: tuple) -> Optional[M.ConstructStep]:
    spec = construct_settings(builder, node, "attack", ATTACK_KEYS, "an attack", "by, reveal, do, ...")
    if spec is None:
        return None
    if spec.get("by") is None:
        builder.err("E202", "an attack needs 'by:' (the attacking player; the others are attacked in turn after "
                    "them)", spec.span)
        return None
    g = _Gen(builder, node, common, loops)
    T = str(_plain(spec.get("each"), "target"))
    shown = hidden("x", node, "shown")
    g.user("BY_", spec.get("by"), "players[0]")
    g.user("DIR_", spec.get("dir"), "'cw'")
    act = tuple(builder.block(_steps_of(spec.get("do")), f"{auto}.do.", loops))
    hit = list(act)
    asked_all = False  # a filter on something hidden: every other player is asked alike, the filter only decides the do
    if spec.get("filter") is not None:
        g.user("FILTER_", spec.get("filter"), "true")
        asked_all = spec.get("reveal") is not None and reads_hidden(builder, g.subs["FILTER_"])
        hit = [g.if_("FILTER_", act)] if asked_all else hit
    body: list = []
    if spec.get("reveal") is not None:
        g.user("REVEAL_", spec.get("reveal"), "true")
        g.user("FROM_", spec.get("from"), f"{T}.hand")
        prompt = g.template(spec.get("prompt")) or g.expr("'Reveal a card to be unaffected?'")
        dec = g.decision(T, "[none] + [card for card in FROM_ if REVEAL_]", prompt, shown, secret=True)
        body += [M.ChooseStep(**g.base, decision=dec),
                 g.if_(f"{shown} != none", [g.do(f"show {shown} to players; "  # (every seat knows it: the log tells it)
                                                 f"log '{{{T}}} reveals {{{shown}}} and is unaffected'")], hit)]
    else:
        body += hit
    # the players in turn are worked out as the attack starts; one put out by the attack on an earlier player (a
    # chain of knock-outs) is out of the game by their turn: neither asked nor attacked
    out = f"not {T}.out"
    body = [g.if_(f"{out} and FILTER_" if spec.get("filter") is not None and not asked_all else out, body)]
    steps = [g.for_each(T, "seat_order(BY_, dir: DIR_, include_start: false)", body)]
    if not within_budget(builder, spec):
        return None
    by = str(_plain(spec.get("by")))
    who = f" for whom {_plain(spec.get('filter'))}," if spec.get("filter") is not None else ""
    rule = f"Each other player{who} in turn after {by}" + (
        f", unless they reveal a card ({_plain(spec.get('reveal'))})" if spec.get("reveal") is not None else "")
    settings = tuple((k, str(_plain(spec.get(k)))) for k in ATTACK_KEYS if spec.get(k) is not None and k != "do")
    return M.ConstructStep(**common, construct="attack", rule=rule, settings=settings, run=tuple(steps),
                           parts=(("do", act),) if act else ())


def words(step: M.ConstructStep, w) -> str:
    """The attack as players say it: who is attacked, and the card that spares them, in words."""
    from ...dsl.parser import parse_expression, plain_locator

    st = dict(step.settings)
    try:
        by = w.expr(parse_expression(st["by"], plain_locator()))
        said = w.reading("card", "the card", parse_expression(st["reveal"], plain_locator())) if "reveal" in st else ""
    except Exception:  # pragma: no cover - the settings parsed when the ruleset loaded
        by, said = "the attacker", ""
    first = f"each other player in turn after {by}"
    if "filter" in st:  # who is attacked: the condition said of 'the player attacked'
        try:
            who = w.reading(st.get("each", "target"), "the player attacked",
                            parse_expression(st["filter"], plain_locator()))
        except Exception:  # pragma: no cover - the settings parsed when the ruleset loaded
            who = "the filter holds"
        first = f"each other player for whom {who}, in turn after {by}"
    if "reveal" not in st:
        return first.capitalize()
    which = said.removeprefix("the card is ").removeprefix("the card ") if said else "a card that stops it"
    where = "their hand" if "from" not in st else "where they hold it"
    return f"{first.capitalize()}, unless they reveal {which if which.startswith(('a ', 'an ')) else 'a ' + which} " \
           f"from {where}"
