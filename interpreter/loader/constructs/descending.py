"""The descending (Dutch) auction: `auction: {form: descending}`, expanded into plain steps as every form is.

The lot is offered at `start_price`; at each price, each player in turn (from `from`, going `dir`; never the seller)
who `may_bid` and whose `limit` reaches the price is asked whether to take it at that price; the first who says yes
wins and pays that price. When nobody takes it the price falls by `drop` (default 1) and the players are asked again,
until it would fall below `min_bid` (default 1): then nobody wins (unless `no_bid: seller_keeps`).

What Dutch-auction games otherwise write by hand: a loop, a response window at each price, the price lowered by one
and a break when someone takes the lot or the price runs out (docs/format.md, "Auctions").
"""

from __future__ import annotations

from dataclasses import replace

from ...model import ruleset as M
from ..yaml_source import YMap
from .expansion import _plain, _text

# the settings of the other forms a descending auction has no use for (the price falls; nobody raises or ties)
NOT_DESCENDING = ("on_drop", "last_takes", "pass_is_final", "min_raise", "offer", "offer_kind", "amount", "price",
                  "ties", "say_short")  # (who cannot pay the price is passed over unsaid: the price falls)
ONLY_DESCENDING = ("start_price", "drop")


def check(builder, spec: YMap, form: str) -> None:
    """The settings of a descending auction (and those that only it has, on another form), each mistake reported
    where it was written."""
    if form != "descending":
        for key in ONLY_DESCENDING:
            if spec.get(key) is not None:
                builder.err("E204", f"'{key}:' (the price a lot is offered at, falling until someone takes it) is for "
                            "a descending auction", spec.key_span(key), "use form: descending")
        return
    if spec.get("start_price") is None:
        builder.err("E202", "a descending auction needs 'start_price:' (the price the lot is first offered at)",
                    spec.span, "e.g. start_price: 10")
    for key in NOT_DESCENDING:
        if spec.get(key) is not None:
            builder.err("E204", f"'{key}:' is not a setting of a descending auction (the price falls until a player "
                        "takes the lot)", spec.key_span(key), "settings of its own: start_price, drop, min_bid")
    drop = _plain(spec.get("drop"))
    if isinstance(drop, (int, float)) and not isinstance(drop, bool) and drop <= 0:
        builder.err("E204", f"'drop:' is how much the price falls each time round, so it must be more than 0, "
                    f"not {drop}", spec.get("drop").span, "e.g. drop: 1")


def descending(x) -> list:
    """The plain steps: the price from start_price down by drop; at each price each player in turn may take the lot."""
    g, B, R, h, spec = x.g, x.B, x.R, x.h, x.spec
    T, LEAD, BID, L = h["top"], h["tied"], h["bid"], h["loop"]
    ROUND = L + "_round"  # the loop round the table at one price (a label, no local)
    g.user("START_", spec.get("start_price"), "1")
    g.user("DROP_", spec.get("drop"), "1")
    take = g.decision(B, "", x.prompt or g.expr(f"'Take it for {{{T}}}?'"), BID, kind="yesno", default="false")
    # a limit worked out from something hidden (money kept face down): one who cannot pay is asked too, 'no' the only
    # answer, told to the others as any 'no' (docs/secrecy.md); otherwise one who cannot pay is passed over unsaid
    # (the price falls: they may be asked at a lower one)
    asked = [M.ChooseStep(**g.base, decision=take), g.if_(BID, [g.do(f"set {LEAD} = {B}; break {ROUND}", (ROUND,))])]
    if x.short_hidden:
        turn = [g.if_(f"LIMIT_ < {T}", [M.ChooseStep(**g.base, decision=replace(
            take, kind="one", options=g.expr(f"[{h['x']} for {h['x']} in [false] if LIMIT_ < {T}]"), default=None))],
            asked)]
    else:
        turn = [g.if_(f"LIMIT_ >= {T}", asked)]
    if x.may and not x.may_hidden:
        turn = [g.if_("MAY_", turn)]
    order = (f"[{B} for {B} in seat_order(FROM_, dir: DIR_) if {B} != {h['seller']}]" if x.has_seller
             else "seat_order(FROM_, dir: DIR_)")
    live = [g.do(f"let {R} = record(winner: none, price: {T}, dropped: [])")] if x.live else []
    fall = g.if_(f"{LEAD} != none or {T} - (DROP_) < (MIN_) or (DROP_) <= 0", [g.do(f"break {L}", (L,))],
                 [g.do(f"set {T} = {T} - (DROP_)")])
    return [g.do(f"let {LEAD} = none; let {T} = START_" + (f"; {x.excluded().rstrip('; ')}" if x.bind_x else "")),
            *x.say_excluded(),
            g.loop(L, [*live, g.for_each(B, order, turn, name=ROUND), fall]),
            g.do(f"let {R} = record(winner: {LEAD}, price: {T} if {LEAD} != none else 0, dropped: [])" + x.and_said())]


def rule(spec: YMap) -> str:
    """The descending auction in words, as the chart's box says it (the settings as written)."""
    frm = _text(spec.get("from"), "the first player")
    start = _text(spec.get("start_price"))
    drop = _text(spec.get("drop"), "1")
    low = _text(spec.get("min_bid"), "1")
    return (f"Descending auction from {frm}: the lot is offered at {start}, each in turn may take it at the price; "
            f"when nobody takes it the price falls by {drop}, down to {low}; the first who takes it pays the price")
