"""The `auction` step: expanded into plain steps (see expansion.py for how and why).

Forms: open (raise or pass round the table until all others pass after a bid), once around
(each bids once, in order) and sealed (all bid in secret, then reveal; bids may be amounts or
things, e.g. cards, worth an `amount`). The result is a record: winner, price, dropped (each
with the bid standing when they dropped), and for sealed auctions the winning bid and who tied.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Optional

from ...diagnostics import did_you_mean
from ...model import ruleset as M
from .expansion import (AUCTION_FORMS, AUCTION_KEYS, TIES, construct_settings, _Gen, _plain, _text, hidden, mentions,
                         part_nodes)
from ..yaml_source import YMap


def auction(builder, node: YMap, common: dict, auto: str, loops: tuple) -> Optional[M.ConstructStep]:
    spec = construct_settings(builder, node, "auction", AUCTION_KEYS, "an auction", "form, from, limit, ...")
    if spec is None:
        return None
    form = _text(spec.get("form"), "open")
    if form not in AUCTION_FORMS:
        builder.err("E204", f"unknown auction form '{form}'", spec.get("form").span,
                    did_you_mean(form, AUCTION_FORMS) or "forms: " + ", ".join(AUCTION_FORMS))
        return None
    # price and ties: a word, or an expression that gives one while playing (e.g. from an option)
    price = _text(spec.get("price"), "first")
    ties = _text(spec.get("ties"), "first_in_order")
    for key, word, words in (("price", price, ("first", "second")), ("ties", ties, TIES)):
        if word not in words and (not any(ch in word for ch in "'\" (") or spec.get(key) is None):
            builder.err("E204", f"unknown {'price' if key == 'price' else 'tie rule'} '{word}'", spec.get(key).span,
                        did_you_mean(word, words) or f"one of {', '.join(words)}, or an expression that gives one")
    if spec.get("limit") is None and spec.get("offer") is None:
        builder.err("E202", "an auction needs 'limit:' (the most a bidder may bid, e.g. what they hold)", spec.span,
                    "e.g. limit: \"bidder.coins\"")
    g = _Gen(builder, node, common, loops)
    B = str(_plain(spec.get("bidder"), "bidder"))
    R = str(_plain(spec.get("as"), "auction"))
    h = {w: hidden("a", node, w) for w in ("passes", "out", "said", "stand", "order", "bid", "bids", "top", "tied",
                                           "sec", "elig", "dropped", "amt")}
    g.user("FROM_", spec.get("from"), "players[0]")
    g.user("DIR_", spec.get("dir"), "'cw'")
    g.user("MAY_", spec.get("may_bid"), "true")
    g.user("MIN_", spec.get("min_bid"), "1")
    g.user("RAISE_", spec.get("min_raise"), "1")
    g.user("LIMIT_", spec.get("limit"), "0")
    g.user("FINAL_", spec.get("pass_is_final"), "false")
    said = {k: spec.get(k) if _plain(spec.get(k)) is not False else None for k in ("say_excluded", "say_short")}
    g.user("SAYX_", said["say_excluded"], "'{excluded} may not bid and pass'")
    g.user("SAYS_", said["say_short"], "'{" + B + "} cannot bid enough and passes'")
    say_short = [] if _plain(spec.get("say_short")) is False else [g.do("log SAYS_")]
    prompt = g.template(spec.get("prompt"))
    offer = spec.get("offer")
    offer_kind = _text(spec.get("offer_kind"), "one")
    if offer is not None and form != "sealed":
        builder.err("E204", "'offer:' (bids that are things, e.g. cards) is for a sealed auction", spec.key_span("offer"),
                    "use form: sealed, or bid amounts with limit:")
    if offer_kind not in ("one", "subset"):
        builder.err("E204", f"offer_kind is 'one' or 'subset', not '{offer_kind}'", spec.get("offer_kind").span)
    g.user("AMOUNT_", spec.get("amount"), "bid")
    parts_nodes = part_nodes("auction", node)
    on_drop = tuple(builder.block(parts_nodes[0], f"{auto}.on_drop.", loops))
    on_end = tuple(builder.block(parts_nodes[1], f"{auto}.on_end.", loops))
    P, OUT, SAID, STAND, ORD, BID = h["passes"], h["out"], h["said"], h["stand"], h["order"], h["bid"]
    low = f"({R}.price + (RAISE_) if {R}.winner != none else (MIN_))"
    start = g.do(f"let {R} = record(winner: none, price: 0, dropped: []); let {STAND} = record(); "
                 f"let excluded = [{B} for {B} in players if not (MAY_)]")
    quiet = _plain(spec.get("say_excluded")) is False
    say_excluded = g.if_("not empty(excluded)", [] if quiet else [g.do("log SAYX_")])
    # a player who drops out: on record, then the author's on_drop steps with the player and standing bid bound
    drop_now = [g.do(f"let standing = {STAND}[{B}]; {h['dropped']} += record(player: {B}, bid: standing)"), *on_drop]
    steps: list = [start, say_excluded]
    if form == "open":
        L = hidden("a", node, "loop")
        # who dropped out, with their standing bids, is tracked only when something reads it (on_drop, or
        # '.dropped' / 'standing' anywhere in the ruleset): a plain auction keeps just the top bid and the passes
        track = bool(on_drop) or mentions(getattr(builder, "root", None) or node, ("dropped", "standing"))
        T, LEAD = h["top"], h["tied"]  # the top bid and bidder, as plain locals for the checks of every turn
        low = f"({T} + (RAISE_) if {LEAD} != none else (MIN_))"
        steps[0] = g.do(f"let {R} = record(winner: none, price: 0, dropped: []); let {STAND} = record(); "
                        f"let {T} = 0; let {LEAD} = none; let {P} = 0; let {OUT} = []; let {SAID} = []; let {ORD} = []; let {h['dropped']} = []; "
                        f"let excluded = [{B} for {B} in players if not (MAY_)]; let {B} = FROM_")
        passed = [g.do(f"{P} += 1"), g.if_("FINAL_", [g.do(f"{OUT} += {B}"), *(drop_now if track else [])],
                                           [g.do(f"{ORD} -= {B}; {ORD} += {B}")] if track else [])]
        bid = (f"let {R} = record(winner: {B}, price: {BID}, dropped: []); set {T} = {BID}; set {LEAD} = {B}; "
               f"set {P} = 0"
               + (f"; set {STAND}[{B}] = {BID}; {ORD} -= {B}" if track else ""))
        asked = [
            g.if_(f"LIMIT_ < {low}",
                  [g.if_(f"{B} not in {SAID}", [*say_short, g.do(f"{SAID} += {B}")]),
                   g.do(f"{P} += 1"),
                   # a player who cannot bid enough passes: out at once when passes are final
                   g.if_("FINAL_", [g.do(f"{OUT} += {B}"), *(_again(drop_now) if track else [])],
                         [g.do(f"{ORD} -= {B}; {ORD} += {B}")] if track else [])],
                  [ChooseOf(g, B, f"[none] + ({low}..(LIMIT_))", prompt, BID),
                   g.if_(f"{BID} == none", passed, [g.do(bid)])]),
        ]
        body = [
            g.if_(f"not (MAY_) or {B} in {OUT}", [g.do(f"{P} += 1")], asked),
            g.if_(f"{P} >= player_count - 1 if {LEAD} != none else {P} >= player_count",
                  [g.do(f"break {L}", (L,))]),
            g.do(f"set {B} = next_player({B}, dir: DIR_)"),
        ]
        steps.append(g.loop(L, body))
        if track:  # passes that were not final: those who passed drop out at the end, in the order of their last pass
            steps.append(g.for_each(B, f"[q for q in {ORD} if q != {R}.winner and q not in {OUT}]",
                                    _again(drop_now)))
    elif form == "once_around":
        steps[0] = g.do(f"let {R} = record(winner: none, price: 0, dropped: []); let {STAND} = record(); "
                        f"let {h['dropped']} = []; "
                        f"let excluded = [{B} for {B} in players if not (MAY_)]")
        prev = h["top"]
        turn = [
            g.if_("not (MAY_)", [], [
                g.if_(f"LIMIT_ < {low}", [*say_short, *drop_now], [
                    ChooseOf(g, B, f"[none] + ({low}..(LIMIT_))", prompt, BID),
                    g.if_(f"{BID} == none", _again(drop_now), [
                        g.do(f"let {prev} = {R}.winner; set {R}['price'] = {BID}; set {R}['winner'] = {B}; "
                             f"set {STAND}[{B}] = {BID}"),
                        # the player outbid drops out with the bid they had standing
                        g.for_each(B, f"[{prev}] if {prev} != none else []", _again(drop_now)),
                    ])])]),
        ]
        steps.append(g.for_each(B, "seat_order(FROM_, dir: DIR_)", turn))
    else:  # sealed: few steps (a sealed sale may come every turn): the reckoning is one step
        E, BIDS, TOP, TIED, SEC, AMT = h["elig"], h["bids"], h["top"], h["tied"], h["sec"], h["amt"]
        track = bool(on_drop) or mentions(getattr(builder, "root", None) or node, ("dropped", "standing"))
        if offer is None:  # bids are amounts: pass first, then min_bid up to the limit
            SH = h["said"]
            steps[0] = g.do(f"let excluded = [{B} for {B} in players if not (MAY_)]; "
                            f"let {E} = [{B} for {B} in seat_order(FROM_, dir: DIR_) if (MAY_) and LIMIT_ >= (MIN_)]"
                            + (f"; let {SH} = [{B} for {B} in seat_order(FROM_, dir: DIR_) if (MAY_) and LIMIT_ < (MIN_)]"
                               if say_short else ""))
            if say_short:
                steps.append(g.if_(f"not empty({SH})", [g.for_each(B, SH, say_short)]))
            dec = g.decision(B, f"[none] + ((MIN_)..(LIMIT_))", prompt, BID)
        else:  # bids are things (cards): what the bidder offers, worth its 'amount'
            steps[0] = g.do(f"let excluded = [{B} for {B} in players if not (MAY_)]; "
                            f"let {E} = [{B} for {B} in seat_order(FROM_, dir: DIR_) if MAY_]")
            g.user("OFFER_", offer, "[]")
            if offer_kind == "subset":
                dec = replace(g.decision(B, "OFFER_", prompt, BID, kind="subset", default="[]"), min=g.expr("0"))
            else:
                dec = replace(g.decision(B, "OFFER_", prompt, BID), optional=True)
        steps.append(M.SealedStep(**g.base, var=B, iterable=g.expr(E), decision=dec, bind=BIDS))
        picks = {"first_in_order": f"{TIED}[0]", "random": f"random({TIED})",
                 "nobody": f"({TIED}[0] if count({TIED}) == 1 else none)"}
        pays = {"first": f"{TOP}", "second": f"({SEC} if {SEC} != none else (MIN_))"}
        if ties in picks:
            pick = picks[ties]
        else:  # chosen while playing: only the branch taken is worked out (a random pick draws only then)
            g.user("TIES_", spec.get("ties"), "'first_in_order'")
            pick = (f"{picks['first_in_order']} if TIES_ == 'first_in_order' else {picks['random']} "
                    f"if TIES_ == 'random' else {picks['nobody']}")
        if price in pays:
            pay = pays[price]
        else:
            g.user("PRICE_", spec.get("price"), "'first'")
            pay = f"{pays['first']} if PRICE_ == 'first' else {pays['second']}"
        W = h["order"]
        if offer is None and spec.get("amount") is None:  # a bid is its own worth
            worth, amounts = f"{BIDS}[q]", f"let {AMT} = [{BIDS}[q] for q in {E}]; "
        else:
            worth = f"{AMT}[index_of({E}, q)]"
            amounts = f"let {AMT} = [none if bid == none or bid == [] else (AMOUNT_) for bid in [{BIDS}[q] for q in {E}]]; "
        # what each bid is worth (none: a pass, or not a valid bid), the top, who tied, the winner and the price
        steps.append(g.do(
            amounts +
            f"let {TOP} = max([a for a in {AMT} if a != none]); "
            f"let {TIED} = [q for q in {E} if {worth} != none and {worth} == {TOP}]; "
            f"let {W} = ({pick}) if not empty({TIED}) else none; "
            f"let {SEC} = max([{worth} for q in {E} if q != {W} and {worth} != none]); "
            f"let {R} = record(winner: {W}, price: ({pay}) if {W} != none else 0, "
            f"bid: {BIDS}[{W}] if {W} != none else none, tied: {TIED}, dropped: [])"))
        if track:
            steps.append(g.do(f"let {STAND} = {BIDS}; let {h['dropped']} = []"))
            steps.append(g.for_each(B, f"[q for q in {E} if q != {W}]", drop_now))
            steps.append(g.do(f"set {R}['dropped'] = {h['dropped']}"))
        steps.extend(on_end)
        rule = _auction_rule(form, spec, price, ties, B)
        settings = tuple((k, str(_plain(spec.get(k)))) for k in AUCTION_KEYS
                         if spec.get(k) is not None and k not in ("on_drop", "on_end"))
        parts = tuple((k, v) for k, v in (("on_drop", on_drop), ("on_end", on_end)) if v)
        return M.ConstructStep(**common, construct="auction", rule=rule, settings=settings, run=tuple(steps),
                               parts=parts)
    steps.append(g.do(f"set {R}['dropped'] = {h['dropped']}"))
    steps.extend(on_end)
    rule = _auction_rule(form, spec, price, ties, B)
    settings = tuple((k, str(_plain(spec.get(k)))) for k in AUCTION_KEYS
                     if spec.get(k) is not None and k not in ("on_drop", "on_end"))
    parts = tuple((k, v) for k, v in (("on_drop", on_drop), ("on_end", on_end)) if v)
    return M.ConstructStep(**common, construct="auction", rule=rule, settings=settings, run=tuple(steps), parts=parts)


def _again(steps: list) -> list:
    """The same steps once more, as new objects: each step object has one place in the program (the generated
    stretches of runtime/blocks.py find a step by its place); the copies keep their paths, so they count as one."""
    return copy.deepcopy(steps)


def ChooseOf(g: _Gen, player: str, options: str, prompt, bind: str) -> M.ChooseStep:  # noqa: N802 - reads as a step
    return M.ChooseStep(**g.base, decision=g.decision(player, options, prompt, bind))


def _auction_rule(form: str, spec: YMap, price: str, ties: str, B: str) -> str:
    """The auction in words, as the chart's box says it (the settings as written, no bookkeeping)."""
    frm = _text(spec.get("from"), "the first player")
    d = _text(spec.get("dir"), "clockwise")
    limit = _text(spec.get("limit"))
    may = _text(spec.get("may_bid"))
    lead = {"open": f"Open auction from {frm}, going {d}: raise or pass until all others pass",
            "once_around": f"Once-around auction from {frm}, going {d}: each bids once (more than the top bid) or passes",
            "sealed": f"Sealed auction: all bid in secret, then reveal; the highest bid wins, paying "
                      f"{'their bid' if price == 'first' else 'the second highest bid' if price == 'second' else price} "
                      f"(ties: {ties.replace('_', ' ') if ties in TIES else ties})"}[form]
    if form == "sealed" and spec.get("offer") is not None:
        lead = (f"Sealed auction: each bids in secret from {_text(spec.get('offer'))}, then all reveal; the bid worth "
                f"most wins (worth: {_text(spec.get('amount'), 'the bid')}; ties: {ties.replace('_', ' ') if ties in TIES else ties})")
    bits = [lead]
    if may:
        bits.append(f"only players with {may} bid (the others pass)")
    if limit:
        bits.append(f"a bid is at most {limit}")
    if form == "open" and spec.get("pass_is_final") is not None:
        bits.append(f"a pass is final when {_text(spec.get('pass_is_final'))}")
    return "; ".join(bits)
