"""The betting round: `auction: {form: betting}`, expanded into plain steps as every form is.

"Each player in turn folds, calls the top stake or raises it; the round ends when everyone still in has matched the
top stake" (a round of betting, as in poker and the bluffing games built on it). Each player from `from` (going `dir`)
who `may_bid` is asked in turn for their stake this round: the pass folds (for good: out of this round of betting), the
top stake calls (checks, while nobody has bet), more raises, up to `limit`. One whose limit is below the top stake
cannot call and folds unasked (`say_short`). A raise asks everyone still in again; the betting ends when all still in
have had their say since the last raise, or when one is left.

The result `sale` (the `as:` name): `winner` (the one left when every other folded, else none), `price` (the top
stake), `called` (those still in, who matched it, in turn order), `pot` (every stake added up) and `dropped` (who
folded, each with the stake they had put in). With `pay:` every player pays their own stake, folded or not, before
the result is said.

What betting games otherwise write by hand: a loop round the table, a list of who is in, who has spoken since the
last raise, and a break when all have matched (docs/format.md, "A round of betting").
"""

from __future__ import annotations

from ...model import ruleset as M
from ..yaml_source import YMap
from .expansion import _text

# the settings of the other forms a round of betting has no use for: a raise is any stake above the top one, a fold is
# final, and there is no lot, seller or price other than the stakes (what the pot buys is the game's own: on_end)
NOT_BETTING = ("min_bid", "min_raise", "pass_is_final", "last_takes", "must_open", "price", "ties", "offer",
               "offer_kind", "amount", "seller", "paid_to", "no_bid", "all_pay", "lot", "to", "rebids", "receive")


def check(builder, spec: YMap, form: str) -> None:
    """The settings a round of betting refuses, each reported where it was written."""
    if form != "betting":
        return
    for key in NOT_BETTING:
        if spec.get(key) is not None:
            builder.err("E204", f"'{key}:' is not a setting of a round of betting (each in turn folds, calls the top "
                        "stake or raises it; every stake is paid with pay:)", spec.key_span(key),
                        "settings of a round of betting: from, dir, may_bid, limit, pay, prompt, on_drop, on_end")


def betting(x) -> list:
    """The plain steps: round the table from `from` until all still in have spoken since the last raise."""
    g, B, R, h = x.g, x.B, x.R, x.h
    STAKE, ORDER, IN, SPOKE, T, BID, I, L, DQ = (h["stand"], h["elig"], h["tied"], h["said"], h["top"], h["bid"],
                                                 h["amt"], h["loop"], h["drop"])
    track = x.track
    may = " if MAY_" if x.may and not x.may_hidden else ""
    start = [g.do(f"let {ORDER} = [{B} for {B} in seat_order(FROM_, dir: DIR_){may}]; let {IN} = {ORDER}; "
                  f"let {SPOKE} = []; let {T} = 0; let {I} = 0; let {STAKE} = record(); let {DQ} = []; "
                  f"let {h['dropped']} = []; " + x.excluded()
                  + f"let {R} = record(winner: none, price: 0, dropped: [], called: {ORDER}, pot: 0)"),
             *x.say_excluded(),
             g.for_each(B, ORDER, [g.do(f"set {STAKE}[{B}] = 0")])]

    def fold() -> list:  # new step objects at each use: a step object has one place in the program
        return [g.do(f"{IN} -= {B}; {DQ} += {B}; set {R}['called'] = {IN}")]
    bet = [g.if_(f"{BID} > {T}", [g.do(f"set {SPOKE} = []")]),  # a raise: everyone still in speaks again
           g.do(f"set {T} = {BID}; {SPOKE} += {B}; set {STAKE}[{B}] = {BID}; set {R}['price'] = {T}; "
                f"set {R}['pot'] = sum([{STAKE}[q] for q in {ORDER}])")]
    # who may bet is worked out from something hidden: everyone is asked, one who may not with the fold the only answer
    hi = f"(LIMIT_) if (MAY_) else {T} - 1" if x.may_hidden else "LIMIT_"
    ask = M.ChooseStep(**g.base, decision=g.decision(B, f"[none] + ({T}..({hi}))", x.prompt or g.expr(
        f"'Check (0) or bet, or fold (pass)' if {T} == 0 else 'Call {{{T}}} or raise, or fold (pass)'"), BID, amounts=(T, hi)))
    asked = [ask, g.if_(f"{BID} == none", fold(), bet)]
    if not x.short_hidden:  # one who cannot call folds unasked (their money is open); hidden: asked, the pass all left
        asked = [g.if_(f"LIMIT_ < {T}", [*x.say_short, *fold()], asked)]
    turn = [g.if_(f"{B} in {IN}", asked), *x.drop_point(DQ)] if track else [g.if_(f"{B} in {IN}", asked)]
    body = [g.if_(f"count({IN}) <= 1 or all([q in {SPOKE} for q in {IN}])", [g.do(f"break {L}", (L,))]),
            g.do(f"let {B} = {ORDER}[{I} % count({ORDER})]; set {I} = {I} + 1"), *turn]
    won = f"{IN}[0] if count({IN}) == 1 else none"
    end = [g.do(f"set {R}['winner'] = {won}; set {R}['called'] = {IN}")]
    if x.sale["pay"]:
        P = x.sale["pay"]
        end.append(g.for_each(B, ORDER, [g.if_(f"{STAKE}[{B}] != 0", [g.do(f"{B}.{P} -= {STAKE}[{B}]")])]))
    return [*start, g.loop(L, body), *end, *x.said_now(), *x.on_end]


def result_words(R: str) -> str:
    """The engine's own words for the end of a round of betting (a ruleset says it in its own with `say_result:`)."""
    return (f"'{{{R}.winner}} is the last in: the others fold (pot {{{R}.pot}})' if {R}.winner != none else "
            f"'{{{R}.called}} stay in at {{{R}.price}} (pot {{{R}.pot}})' if not empty({R}.called) else 'Everyone folds'")


def rule(spec) -> str:
    """The round of betting in words, as the chart's box says it (the settings as written)."""
    frm = _text(spec.get("from"), "the first player")
    d = _text(spec.get("dir"), "clockwise")
    limit = _text(spec.get("limit"))
    return (f"Round of betting from {frm}, going {d}: each in turn folds, calls the top stake or raises it, until "
            f"everyone still in has matched it" + (f"; a stake is at most {limit}" if limit else ""))
