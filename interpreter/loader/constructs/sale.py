"""What an auction sells and how it is settled: the fixed-price form, the seller, who is paid, what happens when
nobody bids, and a lot of several things sold together (settings of the `auction:` step, see docs/format.md).

The auction's form works out who wins and at what price (auction.py); the settlement here then runs, in plain steps,
before the result is said and before `on_end`: nobody bid and `no_bid:` gives the lot to the seller; the winner
pays (`pay:`, a player variable) the bank or the seller (`paid_to:`; the bank when the seller wins their own
auction), and with `all_pay: true` every other bidder pays their last bid too, won or not; the lot moves where `to:` says. Each setting adds its steps only when it is given.

And the auction in words: its rule as the chart's box says it (`auction_rule`), its result as the story says it
(`form_result`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from ...diagnostics import did_you_mean
from ...model import ruleset as M
from . import betting as BET
from . import descending as D
from .expansion import TIES, _plain, _text
from ..yaml_source import YMap

NO_BID = ("nobody", "seller_keeps", "seller_buys")
PAID_TO = ("bank", "seller")
SOLD = ("fixed_price", "descending")  # the forms where a player takes the lot at a price asked (no raises)


def check_sale(builder, spec: YMap, form: str, ties: str = "", price: str = "first") -> dict:
    """The sale settings, checked (each mistake reported once, where it was written); their words as a dict."""
    out = {"no_bid": _text(spec.get("no_bid"), "nobody"), "paid_to": _text(spec.get("paid_to"), "bank"),
           "pay": _text(spec.get("pay")), "receive": _text(spec.get("receive")), "form": form,
           "all_pay": spec.get("all_pay") is not None and _plain(spec.get("all_pay")) is True}
    for key, words in (("no_bid", NO_BID), ("paid_to", PAID_TO)):
        if out[key] not in words:
            builder.err("E204", f"'{key}:' is one of {', '.join(words)}, not '{out[key]}'", spec.get(key).span,
                        did_you_mean(out[key], words) or f"one of {', '.join(words)}")
            out[key] = words[0]
    seller_needed = [k for k, bad in (("form: fixed_price", form == "fixed_price"),
                                      ("paid_to: seller", out["paid_to"] == "seller"),
                                      (f"no_bid: {out['no_bid']}", out["no_bid"] != "nobody")) if bad]
    if seller_needed and spec.get("seller") is None:
        builder.err("E202", f"'{seller_needed[0]}' needs 'seller:' (the player who sells the lot)", spec.span,
                    "e.g. seller: \"player\"")
    if out["no_bid"] == "seller_buys" and form != "fixed_price":
        builder.err("E204", "'no_bid: seller_buys' (the seller pays the price they named) is for a fixed-price sale",
                    spec.key_span("no_bid"), "use form: fixed_price, or no_bid: seller_keeps")
    if out["paid_to"] == "seller" and spec.get("pay") is None:
        builder.err("E202", "'paid_to: seller' needs 'pay:' (the player variable the price is paid from)",
                    spec.key_span("paid_to"), "e.g. pay: coins")
    pvars = builder.root.get("player_variables") if isinstance(getattr(builder, "root", None), YMap) else None
    names = list(pvars.entries) if isinstance(pvars, YMap) else []
    for key, what in (("pay", "what the price is paid from"), ("receive", "what the winner is paid the price into")):
        if out[key] and out[key] not in names:
            builder.err("E301", f"'{key}:' names a player variable ({what}), and '{out[key]}' is not one",
                        spec.get(key).span, did_you_mean(out[key], names) or "declare it under 'player_variables:'")
            out[key] = ""
    if spec.get("receive") is not None and spec.get("pay") is not None:
        builder.err("E204", "'receive:' (the winner is paid the price, as in a tender) and 'pay:' (the winner pays it) "
                    "cannot both be given", spec.key_span("receive"), "keep the one the rules say")
        out["receive"] = ""
    _check_rebid(builder, spec, form, ties, price)
    if out["all_pay"] and spec.get("pay") is None:
        builder.err("E202", "'all_pay:' (every bidder pays their bid, won or not) needs 'pay:' (the player variable "
                    "the bids are paid from)", spec.key_span("all_pay"), "e.g. pay: coins")
    if out["all_pay"] and (form in SOLD or spec.get("offer") is not None):
        builder.err("E204", "'all_pay:' is for bids of amounts in an open, once-around or sealed auction (the others "
                    "have no losing bids to pay)" if form in SOLD else "'all_pay:' is for bids of amounts: a bid of "
                    "things (offer:) has no amount to pay", spec.key_span("all_pay"),
                    "use form: sealed (or open, once_around) with limit:")
        out["all_pay"] = False
    if spec.get("to") is not None and spec.get("lot") is None:
        builder.err("E202", "'to:' (where the lot goes) needs 'lot:' (what is sold)", spec.key_span("to"),
                    "e.g. lot: \"[card, second]\"")
    D.check(builder, spec, form)
    BET.check(builder, spec, form)
    if form == "fixed_price":
        for key in ("from", "on_drop", "last_takes", "pass_is_final", "min_raise", "offer", "offer_kind", "amount",
                    "price", "ties"):
            if spec.get(key) is not None:
                builder.err("E204", f"'{key}:' is not a setting of a fixed-price sale (the seller names one price; "
                            f"each in turn may buy at it or pass)", spec.key_span(key))
    return out


def _check_rebid(builder, spec: YMap, form: str, ties: str, price: str) -> None:
    """`ties: rebid` (the tied bid again) is for a sealed auction of amounts at the first price; `rebids:` needs it."""
    if ties != "rebid":
        if spec.get("rebids") is not None:
            builder.err("E202", "'rebids:' (how many times the tied bid again) needs 'ties: rebid'",
                        spec.key_span("rebids"), "add ties: rebid (a sealed auction)")
        return
    bad = ("form: " + form if form != "sealed" else "offer:" if spec.get("offer") is not None else "amount:"
           if spec.get("amount") is not None else "price: " + price if price != "first" else "all_pay:"
           if spec.get("all_pay") is not None and _plain(spec.get("all_pay")) is True else "")
    if bad:
        builder.err("E204", f"'ties: rebid' (the players tied for the top bid bid again) is for a sealed auction of "
                    f"amounts at the first price, not with {bad}", spec.key_span("ties"),
                    "use form: sealed with limit:, and leave out offer:, amount:, price: second and all_pay:")


def rebids(x, decision) -> list:
    """The re-bids of a sealed auction with `ties: rebid`: while two or more players tie for the top bid, and at most
    `rebids:` times (default 1), the tied (only they) bid again in secret, up to their limits, and their new bids stand
    in place of the old; the top bid and who tied for it are worked out again from the new bids alone (a tender: the
    lowest). `decision()` makes the bid decision (a new object for its one place)."""
    g, h = x.g, x.h
    BIDS, TOP, TIED, RB, L, Q = h["bids"], h["top"], h["tied"], h["sec"], h["loop"], h["amt"]  # (amt: no worths)
    g.user("REBIDS_", x.spec.get("rebids"), "1")
    again = ([g.do(f"log '{{{TIED}}} tie at {{{TOP}}}: they bid again'")] if x.say_r else [])
    best = (f"let {TOP} = min([{RB}[q] for q in {TIED} if {RB}[q] != none]); "
            f"let {TIED} = [q for q in {TIED} if {RB}[q] != none and {RB}[q] == {TOP}]" if x.down else
            f"let {TIED} = highest_keys({RB}); let {TOP} = {RB}[{TIED}[0]] if not empty({TIED}) else none")
    body = [g.if_(f"count({TIED}) < 2", [g.do(f"break {L}", (L,))]), *again,
            M.SealedStep(**g.base, var=x.B, iterable=g.expr(TIED), decision=decision(), bind=RB),
            g.for_each(Q, TIED, [g.do(f"set {BIDS}[{Q}] = {RB}[{Q}]")]), g.do(best)]
    return [g.for_each(h["x"], "1..(REBIDS_)", body, name=L)]


def lowest_wins(builder, spec: YMap, form: str, last_takes: bool) -> bool:
    """Whether the lowest bid wins (a tender), refused where there is no bid to undercut, and with `last_takes` (the
    one left would take the lot at their standing bid, 0: built for nothing)."""
    if spec.get("lowest_wins") is None or _plain(spec.get("lowest_wins")) is False:
        return False
    if form not in ("open", "once_around", "sealed"):
        builder.err("E204", "'lowest_wins:' (the lowest bid wins: a tender, a reverse auction) is for an open, "
                    "once-around or sealed auction", spec.key_span("lowest_wins"),
                    "use form: open (each bids lower or drops out), once_around or sealed")
        return False
    if last_takes:
        builder.err("E204", "'last_takes:' gives the lot to the one left at their standing bid (0 when nobody bid), "
                    "a price of 0 in a tender (lowest_wins)", spec.key_span("last_takes"),
                    "leave last_takes out: the one left may tender as anyone does")
    return True


def sold(x, form: str) -> list:
    """The steps of a form where the lot is taken at a price asked: fixed price (here) or descending
    (descending.py)."""
    return fixed_price(x) if form == "fixed_price" else D.descending(x)


def fixed_price(x) -> list:
    """The seller names a price (from min_bid up to the limit, worked out for the seller); then each other player in
    turn (may_bid, and the price within their limit) may buy at it or pass; the first who buys wins."""
    g, B, R, h = x.g, x.B, x.R, x.h
    S, T, LEAD, BID, L = h["seller"], h["top"], h["tied"], h["bid"], h["loop"]
    ask = x.g.decision(S, "(MIN_)..max(MIN_, LIMIT_)", g.expr("'Name a price'"), T, default="MIN_")
    live = f"; let {R} = {x.result('none', T)}" if x.live else ""
    buy = g.decision(B, "", x.prompt or g.expr(f"'Buy for {{{T}}}?'"), BID, kind="yesno", default="false")
    # a buyer's limit worked out from something hidden (their money): one who cannot pay is asked too, 'no' the only
    # answer, told to the others as any 'no' (docs/secrecy.md)
    short = [M.ChooseStep(**g.base, decision=replace(
        buy, kind="one", options=g.expr(f"[{h['x']} for {h['x']} in [false] if LIMIT_ < {T}]"), default=None))] \
        if x.short_hidden else list(x.say_short)
    turn = [g.if_(f"LIMIT_ < {T}", short, [
        M.ChooseStep(**g.base, decision=buy),
        g.if_(BID, [g.do(f"set {LEAD} = {B}; break {L}", (L,))])])]
    if x.may and not x.may_hidden:  # (hidden: one who may not buy has no limit, so is asked with 'no' the answer)
        turn = [g.if_("MAY_", turn)]
    return [g.do(f"let {LEAD} = none; let {B} = {S}" + (f"; {x.excluded().rstrip('; ')}" if x.bind_x else "")),
            *x.say_excluded(),
            M.ChooseStep(**g.base, decision=ask),
            *([g.do(live.removeprefix("; "))] if live else []),
            g.for_each(B, f"seat_order({S}, dir: DIR_, include_start: false)", turn, name=L),
            g.do(f"let {R} = {x.result(LEAD, f'{T} if {LEAD} != none else 0')}; set {R}['asked'] = {T}")]


def settle(x, sale: dict) -> list:
    """The steps after the form's result and before `on_end`: the lot to the seller when nobody bid (no_bid), the
    result said, the winner pays, the lot moves."""
    g, R, h = x.g, x.R, x.h
    S, LOT = h["seller"], h["lot"]
    steps = []
    unsold = []
    if sale["no_bid"] == "seller_keeps":
        unsold = [g.do(f"set {R}['winner'] = {S}; set {R}['price'] = 0")]
    elif sale["no_bid"] == "seller_buys":
        unsold = [g.do(f"set {R}['winner'] = {S}; set {R}['price'] = {R}.asked")]
    if x.has_seller or x.has_lot:
        steps.append(g.do("; ".join([f"set {R}['seller'] = {S}"] * x.has_seller + [f"set {R}['lot'] = {LOT}"] * x.has_lot
                                    + [f"set {R}['unsold'] = {R}.winner == none"])))
    if unsold:
        steps.append(g.if_(f"{R}.winner == none", unsold))
    steps += x.said_now()
    if sale["pay"]:
        P = sale["pay"]
        paid = [g.do(f"{R}.winner.{P} -= {R}.price")]
        if sale["paid_to"] == "seller":  # the bank when the seller wins their own auction
            paid.append(g.if_(f"{R}.winner != {S}", [g.do(f"{S}.{P} += {R}.price")]))
        steps.append(g.if_(f"{R}.winner != none and {R}.price != 0", paid))
    if sale["receive"]:  # the winner is paid the price by the bank (a tender: the builder is paid what they named)
        steps.append(g.if_(f"{R}.winner != none", [g.do(f"{R}.winner.{sale['receive']} += {R}.price")]))
    if sale["all_pay"] and sale["pay"]:  # every other bidder pays their last bid (the dropped list holds them all)
        X, P = h["x"], sale["pay"]
        said = f"'{{{X}.player}} pays their bid of {{{X}.bid}} too'"
        if sale["paid_to"] == "seller":  # who is paid: the seller, the bank for the seller's own bid
            said = (f"('{{{X}.player}} pays their bid of {{{X}.bid}} to the bank too' if {X}.player == {S} "
                    f"else '{{{X}.player}} pays their bid of {{{X}.bid}} to {{{S}}} too')")
        lost = [g.do(f"{X}.player.{P} -= {X}.bid" + (f"; log {said}" if x.say_r else ""))]
        if sale["paid_to"] == "seller":
            lost.append(g.if_(f"{X}.player != {S}", [g.do(f"{S}.{P} += {X}.bid")]))
        steps.append(g.for_each(X, f"{R}.dropped", [g.if_(f"{X}.bid != none and {X}.bid != 0", lost)]))
    if x.spec.get("to") is not None:
        g.user("TO_", x.spec.get("to"), "none")
        steps.append(g.if_(f"{R}.winner != none", [g.do(f"move {LOT} to TO_")]))
    return steps


def starts(x) -> list:
    """The seller and the lot, worked out once as the auction starts."""
    g, h = x.g, x.h
    parts = []
    if x.has_seller:
        g.user("SELLER_", x.spec.get("seller"), "none")
        parts.append(f"let {h['seller']} = SELLER_")
    if x.has_lot:
        g.user("LOT_", x.spec.get("lot"), "[]")
        parts.append(f"let {h['lot']} = LOT_")
    return [g.do("; ".join(parts))] if parts else []


def said_result(R: str, sale: dict) -> Optional[str]:
    """The engine's words for a sale that ends unsold with the seller taking the lot (None: the form's own words)."""
    if sale["no_bid"] == "seller_keeps":
        nobody = "Nobody takes it" if sale.get("form") == "descending" else "Nobody bids"
        return f"'{nobody}: {{{R}.winner}} keeps it' if {R}.unsold else "
    if sale["no_bid"] == "seller_buys":
        return f"'Nobody buys: {{{R}.winner}} buys it for {{{R}.price}}' if {R}.unsold else "
    return None


def sale_rule(spec: YMap, sale: dict) -> list[str]:
    """The sale settings in words, for the chart's box (the settings as written)."""
    bits = []
    if spec.get("lot") is not None:
        bits.append(f"sold together: {_text(spec.get('lot'))}")
    if sale["no_bid"] == "seller_keeps":
        bits.append("if nobody bids, the seller keeps it for nothing")
    elif sale["no_bid"] == "seller_buys":
        bits.append("if nobody buys, the seller must buy it at their price")
    if sale["all_pay"]:
        bits.append("every bidder pays their bid, won or not")
    if sale["receive"]:
        bits.append("the bank pays the winner the price")
    if sale["pay"]:
        bits.append("the winner pays the seller (the bank when the seller wins their own auction)"
                    if sale["paid_to"] == "seller" else "the winner pays the bank")
    return bits


def sold_rule(form: str, spec: YMap) -> str:
    if form == "descending":
        return D.rule(spec)
    frm = _text(spec.get("seller"))
    return (f"Fixed-price sale: {frm} names a price; in turn after {frm}, each may buy at that price or pass; "
            f"the first who buys wins")


def form_result(R: str, form: str, things: bool, sale: Optional[dict] = None) -> str:
    """The engine's own words for an auction's result (a ruleset says it in its own with `say_result:`). Where the
    price goes to a player (`paid_to: seller`), the words name who is paid, and the bank when the seller wins their
    own lot: a reader never works the payee out."""
    if form == "betting":
        return BET.result_words(R)
    won = (f"{{{R}.winner}} wins the auction with {{{R}.bid}} (worth {{{R}.price}})" if things
           else f"{{{R}.winner}} buys it for {{{R}.price}}" if form in SOLD
           else f"{{{R}.winner}} wins the auction for {{{R}.price}}")
    won = (f"('{won}, paid to the bank' if {R}.winner == {R}.seller else '{won}, paid to {{{R}.seller}}')"
           if sale is not None and sale["pay"] and sale["paid_to"] == "seller" else f"'{won}'")
    none = ("'Nobody wins the auction: no bid counts'" if things else "'Nobody buys'" if form in SOLD
            else "'Nobody bids'")  # (a card laid may be worth none)
    nobody = (f"('Nobody wins the auction: {{{R}.tied}} tie' if count({R}.tied) > 1 else {none})"
              if form == "sealed" else none)
    return f"{won} if {R}.winner != none else {nobody}"


def auction_rule(form: str, spec: YMap, price: str, ties: str, last_takes: bool, lowest: bool = False) -> str:
    """The auction in words, as the chart's box says it (the settings as written, no bookkeeping)."""
    frm = _text(spec.get("from"), "the first player")
    if form in SOLD:
        return sold_rule(form, spec)
    if form == "betting":
        return BET.rule(spec)
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
    if spec.get("max_raise") is not None:
        step, top = _text(spec.get("min_raise"), "1"), _text(spec.get("max_raise"))
        bits.append(f"the price rises by {top} at a time: each stays in at the next price or passes" if top == step
                    else f"a bid beats the top bid by {step} to {top}")
    if form == "open" and spec.get("must_open") is not None and _plain(spec.get("must_open")) is not False:
        bits.append(f"{frm} must open the bidding (no pass)")
    if form == "open" and spec.get("pass_is_final") is not None:
        bits.append(f"a pass is final when {_text(spec.get('pass_is_final'))}")
    if last_takes:
        bits.append("when all but one are out and nobody has bid, the one left takes it unasked at their standing bid")
    if lowest:  # a tender: said in the form's own words, the bids going down
        bits[0] = (bits[0].replace("raise or pass", "bid lower or pass").replace("more than the top bid", "less than "
                   "the lowest bid").replace("the highest bid wins", "the lowest bid wins")
                   .replace("the second highest bid", "the second lowest bid").replace("the bid worth most", "the bid "
                   "worth least"))
        bits.append("the lowest bid wins")
    return "; ".join(bits)
