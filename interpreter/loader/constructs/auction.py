"""The `auction` step: expanded into plain steps (see expansion.py for how and why).

Forms: open (raise or pass round the table until all others pass after a bid), once around
(each bids once, in order) and sealed (all bid in secret, then reveal; bids may be amounts or
things, e.g. cards, worth an `amount`). The result is a record: winner, price, dropped (each
with the bid standing when they dropped), and for sealed auctions the winning bid and who tied.

The expansion does only what the auction's settings and the ruleset read: who dropped out is
kept only when `on_drop` is given or something reads `dropped`/`standing`; the result record
is kept up to date while bidding only when a setting or `on_drop` reads it; a first-price
auction never works out the second-highest bid. The author's `on_drop` steps appear ONCE in
the expansion (each drop goes through one place), so auctions nested in `on_drop` grow
linearly, never exponentially.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from ...diagnostics import did_you_mean
from ...model import ruleset as M
from ...dsl import ast as A
from ...dsl.parser import parse_expression
from . import betting as BET
from . import sale as S
from .expansion import (AUCTION_FORMS, AUCTION_KEYS, TIES, construct_settings, _Gen, _plain, _substitute, _text,
                        hidden, part_nodes, reads, reads_hidden, steady, within_budget)
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
            fixed = key == "price" and word.startswith("fixed") and form != "fixed_price"
            builder.err("E204", f"unknown {'price' if key == 'price' else 'tie rule'} '{word}'", spec.get(key).span,
                        "a sale at a price the seller names is its own form: form: fixed_price" if fixed else
                        did_you_mean(word, words) or f"one of {', '.join(words)}, or an expression that gives one")
            if key == "price":  # one mistake, one message: the word is not read again as an expression
                price = "first"
            else:
                ties = "first_in_order"
    sale = S.check_sale(builder, spec, form, ties, price)
    if spec.get("limit") is None and spec.get("offer") is None:
        builder.err("E202", "an auction needs 'limit:' (the most a bidder may bid, e.g. what they hold)", spec.span,
                    "e.g. limit: \"bidder.coins\"")
    last_takes = spec.get("last_takes") is not None and _plain(spec.get("last_takes")) is not False
    if last_takes and form != "open":
        builder.err("E204", "'last_takes:' (the last bidder left takes the lot unasked) is for an open auction",
                    spec.key_span("last_takes"), "use form: open with pass_is_final: true")
    elif last_takes and (spec.get("pass_is_final") is None or _plain(spec.get("pass_is_final")) is False):
        builder.err("E202", "'last_takes:' needs 'pass_is_final:' (only players who passed for good are out)",
                    spec.key_span("last_takes"), "add pass_is_final: true")
    must_open = spec.get("must_open") is not None and _plain(spec.get("must_open")) is not False
    if must_open and form != "open":
        builder.err("E204", "'must_open:' (the opener may not pass: they open the bidding) is for an open auction",
                    spec.key_span("must_open"), "use form: open, from: the player who puts the lot up")
    lowest = S.lowest_wins(builder, spec, form, last_takes)
    if spec.get("max_raise") is not None and (form not in ("open", "once_around") or lowest):
        builder.err("E204", "'max_raise:' (a bid beats the top bid by at most this: a price that rises a step at a "
                    "time) is for an open or once-around auction where the highest bid wins", spec.key_span("max_raise"),
                    "use form: open with pass_is_final: true (a Japanese, or clock, auction), or leave max_raise out")
    offer = spec.get("offer")
    offer_kind = _text(spec.get("offer_kind"), "one")
    if offer is not None and form != "sealed":
        builder.err("E204", "'offer:' (bids that are things, e.g. cards) is for a sealed auction", spec.key_span("offer"),
                    "use form: sealed, or bid amounts with limit:")
    if offer_kind not in ("one", "subset"):
        builder.err("E204", f"offer_kind is 'one' or 'subset', not '{offer_kind}'", spec.get("offer_kind").span)
    x = _Expansion(builder, node, spec, common, loops, form, auto, sale, lowest)
    steps = S.starts(x) + (
        x.open(last_takes, must_open) if form == "open" else x.once_around() if form == "once_around" else
        BET.betting(x) if form == "betting" else
        [*S.sold(x, form), *x.close()] if form in S.SOLD else x.sealed(price, ties, offer, offer_kind))
    if not within_budget(builder, spec):
        return None
    rule = "; ".join([S.auction_rule(form, spec, price, ties, last_takes, lowest), *S.sale_rule(spec, sale)])
    settings = tuple((k, str(_plain(spec.get(k)))) for k in AUCTION_KEYS
                     if spec.get(k) is not None and k not in ("on_drop", "on_end"))
    parts = tuple((k, v) for k, v in (("on_drop", x.on_drop), ("on_end", x.on_end)) if v)
    return M.ConstructStep(**common, construct="auction", rule=rule, settings=settings, run=tuple(steps), parts=parts)


class _Expansion:
    """The plain steps of one auction; each form reads the settings and adds only what they ask for."""

    def __init__(self, builder, node: YMap, spec: YMap, common: dict, loops: tuple, form: str, auto: str,
                 sale: dict, lowest_wins: bool = False):
        self.g = g = _Gen(builder, node, common, loops)
        self.down = lowest_wins  # a tender: bids go down and the lowest wins
        self.spec = spec
        self.sale = sale
        self.has_seller = spec.get("seller") is not None
        self.has_lot = spec.get("lot") is not None
        # a sale settled after the form's result (sale.py): the result is said there, not by the form
        self.settles = (self.has_seller or self.has_lot or bool(sale["pay"]) or bool(sale["receive"])
                        or sale["no_bid"] != "nobody")
        self.B = B = str(_plain(spec.get("bidder"), "bidder"))
        self.R = R = str(_plain(spec.get("as"), "auction"))
        self.h = {w: hidden("a", node, w) for w in ("passes", "out", "said", "stand", "order", "bid", "bids", "top",
                                                    "tied", "sec", "elig", "dropped", "amt", "loop", "drop",
                                                    "seller", "lot", "x", "may")}
        self.root = root = getattr(builder, "root", None) or node
        for name, key, default in (("FROM_", "from", "players[0]"), ("DIR_", "dir", "'cw'"),
                                   ("MAY_", "may_bid", "true"), ("MIN_", "min_bid", "1"), ("RAISE_", "min_raise", "1"),
                                   ("LIMIT_", "limit", "0"), ("FINAL_", "pass_is_final", "false"),
                                   ("LAST_", "last_takes", "false"), ("AMOUNT_", "amount", "bid"),
                                   ("MAXR_", "max_raise", "none")):
            g.user(name, spec.get(key), default)
        self.may = spec.get("may_bid") is not None  # without may_bid nobody is excluded: nothing to work out
        # who may bid is worked out from something some seat cannot see (who holds a card): everyone is asked, one
        # who may not with the pass as their only answer (no amount reaches their limit, nothing is on offer), told
        # to the others as any pass, and nobody is said to be left out (docs/secrecy.md)
        self.may_hidden = self.may and reads_hidden(builder, g.subs["MAY_"])
        if self.may_hidden:
            g.user("OFFER_", spec.get("offer"), "[]")
            for name, text in (("LIMIT_", "LIMIT_ if MAY_ else MIN_ - 1"), ("OFFER_", "OFFER_ if MAY_ else []")):
                g.subs[name] = _substitute(parse_expression(text, g.locate), g.subs)
        # the limit reads what some seat cannot see (money kept face down): who cannot afford a bid is asked all the
        # same (the pass the only answer) and nobody is said to be short, so the others learn nothing of it
        self.short_hidden = reads_hidden(builder, g.subs["LIMIT_"])
        quiet_x = _plain(spec.get("say_excluded")) is False
        self.say_x = self.may and not quiet_x and not self.may_hidden
        self.bind_x = self.say_x or reads(builder, root, ("excluded",))
        g.user("SAYX_", None if quiet_x else spec.get("say_excluded"), "'Out of this auction (may not bid): {excluded}'")
        quiet_s = _plain(spec.get("say_short")) is False
        short = {"fixed_price": "pay the price and passes", "betting": "call and folds"}.get(
            form, "bid low enough and passes" if lowest_wins else "bid enough and passes")
        g.user("SAYS_", None if quiet_s else spec.get("say_short"), "'{" + B + "} cannot " + short + "'")
        self.say_short = [] if quiet_s or self.short_hidden else [g.do("log SAYS_")]
        self.say_r = _plain(spec.get("say_result")) is not False
        if self.say_r:
            g.user("SAYR_", spec.get("say_result"), (S.said_result(R, sale) or "")
                   + S.form_result(R, form, spec.get("offer") is not None, sale))
        self.prompt = g.template(spec.get("prompt"))
        parts = part_nodes("auction", node)
        self.on_drop = tuple(builder.block(parts[0], f"{auto}.on_drop.", loops))
        self.on_end = tuple(builder.block(parts[1], f"{auto}.on_end.", loops))
        # who dropped out, with their standing bids: only when something reads it
        self.track = bool(self.on_drop) or sale["all_pay"] or reads(builder, root, ("dropped", "standing"))
        # the result while bidding goes on: only when a setting or on_drop reads it (on_end sees the final one)
        during = [v for k, v in spec.entries.items() if k != "on_end"]
        self.live = any(reads(builder, v, (R,), cache=False) for v in during)
        # who may bid cannot change while bidding goes on: then each turn reads `excluded` (worked out at the start)
        # instead of working out may_bid again (see expansion.steady)
        self.steady = self.may and not self.may_hidden and not self.on_drop and steady(builder, g.subs["MAY_"], R)

    # -------------------------------------------------------------- pieces every form shares
    def ask(self, low: str, high: str = "(LIMIT_)") -> M.ChooseStep:
        """The bidder's bid: the pass, or an amount from `low` up to `high`, the limit (a new step object at each
        use)."""
        g = self.g
        return M.ChooseStep(**g.base, decision=g.decision(self.B, f"[none] + ({low}..{high})", self.prompt,
                                                          self.h["bid"], amounts=(low, high)))

    def bounds(self, T: str, LEAD: str) -> tuple[str, str]:
        """The lowest and the highest bid allowed now: a bid beats the top one by min_raise, upwards (from min_bid up
        to the limit) or, when the lowest bid wins, downwards (from the limit down to min_bid)."""
        if self.down:
            return "(MIN_)", f"(min((LIMIT_), {T} - (RAISE_)) if {LEAD} != none else (LIMIT_))"
        low = self.lowest(T, LEAD)
        if self.spec.get("max_raise") is not None:  # a raise from min_raise to max_raise (the opening: min_bid and up)
            return low, f"min((LIMIT_), {low} + (MAXR_) - (RAISE_))"
        return low, "(LIMIT_)"

    def lowest(self, T: str, LEAD: str) -> str:
        """The lowest bid allowed: T (the top bid, 0 while nobody has bid) + min_raise, or min_bid while nobody has bid;
        T + min_raise alone where both are the same whole number written in the rules (1 and 1 by default)."""
        low, step = self.g.subs["MIN_"], self.g.subs["RAISE_"]
        if isinstance(low, A.Num) and isinstance(step, A.Num) and type(low.value) is int and low.value == step.value:
            return f"({T} + (RAISE_))"
        return f"({T} + (RAISE_) if {LEAD} != none else (MIN_))"

    def excluded(self) -> str:
        if self.may:
            return f"let excluded = [{self.B} for {self.B} in players if not (MAY_)]; "
        return "let excluded = []; " if self.bind_x else ""

    def say_excluded(self) -> list:
        g = self.g
        return [g.if_("not empty(excluded)", [g.do("log SAYX_")])] if self.say_x else []

    def result(self, winner: str = "none", price: str = "0") -> str:
        return f"record(winner: {winner}, price: {price}, dropped: {self.h['dropped'] if self.track else '[]'})"

    def drop_point(self, who: str) -> list:
        """The one place where players drop out: for each player in the list `who` (a local), their record, the
        live result, then the author's on_drop steps with the bidder and `standing` bound."""
        g, B, R, D = self.g, self.B, self.R, self.h["dropped"]
        first = g.do(f"let standing = {self.h['stand']}[{B}]; {D} += record(player: {B}, bid: standing); "
                     f"set {R}['dropped'] = {D}")
        return [g.if_(f"not empty({who})", [g.for_each(B, who, [first, *self.on_drop]), g.do(f"set {who} = []")])]

    def said(self) -> list:
        """The result in words, said once when it is final and before on_end (a `log`: with no story, as in a
        simulation, its text is never worked out). A step of its own only where no step makes the result."""
        return [self.g.do("log SAYR_")] if self.say_r and not self.settles else []

    def said_now(self) -> list:
        return [self.g.do("log SAYR_")] if self.say_r else []

    def and_said(self) -> str:
        """The same, said by the step that makes the final result (no step more)."""
        return "; log SAYR_" if self.say_r and not self.settles else ""

    def close(self) -> list:
        settle = S.settle(self, self.sale) if self.settles else []
        return [*settle, *self.on_end]  # the result's dropped list was kept up to date at each drop

    # -------------------------------------------------------------- open
    def open(self, last_takes: bool, must_open: bool = False) -> list:
        g, B, R, h = self.g, self.B, self.R, self.h
        P, OUT, SAID, STAND, ORD, BID, T, LEAD, L, DQ = (h["passes"], h["out"], h["said"], h["stand"], h["order"],
                                                         h["bid"], h["top"], h["tied"], h["loop"], h["drop"])
        track = self.track
        low, high = self.bounds(T, LEAD)
        start = ((f"let {STAND} = record(); let {ORD} = []; let {h['dropped']} = []; let {DQ} = []; " if track else "")
                 + f"let {R} = {self.result()}; let {T} = 0; let {LEAD} = none; let {P} = 0; let {OUT} = []; "
                 + (f"let {SAID} = []; " if self.say_short else "")
                 # who may not bid counts as out from the start when that cannot change (steady): one test a turn
                 + self.excluded() + (f"set {OUT} = excluded; " if self.steady else "") + f"let {B} = FROM_")
        # a pass: out for good when passes are final (dropped at once); otherwise kept in the order of last passes
        def passed() -> list:  # new step objects at each use: a step object has one place in the program
            return [g.do(f"{P} += 1"),
                    g.if_("FINAL_", [g.do(f"{OUT} += {B}" + (f"; {DQ} += {B}" if track else ""))],
                          [g.do(f"{ORD} -= {B}; {ORD} += {B}")] if track else [])]
        bid = (f"set {T} = {BID}; set {LEAD} = {B}; set {P} = 0"
               + (f"; let {R} = {self.result(B, BID)}" if self.live else "")  # (a new record costs less than two sets)
               + (f"; set {STAND}[{B}] = {BID}; {ORD} -= {B}" if track else ""))
        short = [g.if_(f"{B} not in {SAID}", [*self.say_short, g.do(f"{SAID} += {B}")])] if self.say_short else []
        ask = [self.ask(low, high), g.if_(f"{BID} == none", passed(), [g.do(bid)])]
        if must_open:  # the first player asked (the opener) opens the bidding: no pass (one who cannot, passes)
            opens = M.ChooseStep(**g.base, decision=g.decision(B, f"{low}..{high}", self.prompt, BID,
                                                               default=high if self.down else low))
            ask = [g.if_(f"{LEAD} == none and {P} == 0", [opens, g.do(bid)], ask)]
        asked = ask if self.short_hidden else [g.if_(f"{high} < {low}", [*short, *passed()], ask)]
        # (all but the top bidder passed, or all passed when nobody bid: written so that a turn far from the end,
        # the usual one, tests one comparison)
        ends = f"{P} >= player_count - 1 and ({LEAD} != none or {P} >= player_count)"
        if self.may_hidden:  # one who may not bid is asked too, the pass their only answer (see __init__)
            asked = [g.if_("MAY_", asked, [self.ask(low, high), g.do(f"{P} += 1")])]
        out = f"{B} in {OUT}" if self.may_hidden or self.steady else f"not (MAY_) or {B} in {OUT}"
        body = [g.if_(out, [g.do(f"{P} += 1")],
                      asked)]
        if track:  # at the end, those who passed (not for good) drop out in the order of their last pass
            body.append(g.if_(ends, [g.do(f"{DQ} += [q for q in {ORD} if q != {LEAD} and q not in {OUT}]")]))
            body += self.drop_point(DQ)
        if last_takes:  # nobody bid and all but one are out: the one left takes the lot at their standing bid (0)
            left = f"[{B} for {B} in players if (MAY_) and {B} not in {OUT}]"
            take = (f"let {BID} = {left}; set {LEAD} = {BID}[0]; "
                    + (f"set {R}['winner'] = {LEAD}; " if self.live else "") + f"break {L}")
            body.append(g.if_(f"LAST_ and {LEAD} == none and {P} >= player_count - 1 and count({left}) == 1",
                              [g.do(take, (L,))]))
        body += [g.if_(ends, [g.do(f"break {L}", (L,))]), g.do(f"set {B} = next_player({B}, dir: DIR_)")]
        steps = [g.do(start), *self.say_excluded(), g.loop(L, body)]
        if not self.live:  # (live: the winner and price were set as they bid, or as the last one took the lot)
            return [*steps, g.do(f"let {R} = {self.result(LEAD, T)}" + self.and_said()), *self.close()]
        return [*steps, *self.said(), *self.close()]

    # -------------------------------------------------------------- once around
    def once_around(self) -> list:
        g, B, R, h = self.g, self.B, self.R, self.h
        STAND, BID, prev, DQ, T, LEAD = h["stand"], h["bid"], h["top"], h["drop"], h["amt"], h["tied"]
        track = self.track
        low, high = self.bounds(T, LEAD)
        start = ((f"let {STAND} = record(); let {h['dropped']} = []; let {DQ} = []; " if track else "")
                 + f"let {R} = {self.result()}; let {T} = 0; let {LEAD} = none; " + self.excluded()).rstrip("; ")
        def drop_me() -> list:
            return [g.do(f"{DQ} += {B}")] if track else []
        bid = (f"let {prev} = {LEAD}; set {T} = {BID}; set {LEAD} = {B}"
               + (f"; let {R} = {self.result(B, BID)}" if self.live else "")
               + (f"; set {STAND}[{B}] = {BID}; {DQ} += [{prev}] if {prev} != none else []" if track else ""))
        ask = [self.ask(low, high), g.if_(f"{BID} == none", drop_me(), [g.do(bid)])]
        turn = [g.if_("MAY_", ask if self.short_hidden else [
            g.if_(f"{high} < {low}", [*self.say_short, *drop_me()], ask)], [self.ask(low, high)] if self.may_hidden
            else []),
            *(self.drop_point(DQ) if track else [])]
        steps = [g.do(start), *self.say_excluded(), g.for_each(B, "seat_order(FROM_, dir: DIR_)", turn)]
        if not self.live:
            return [*steps, g.do(f"let {R} = {self.result(LEAD, T)}" + self.and_said()), *self.close()]
        return [*steps, *self.said(), *self.close()]

    # -------------------------------------------------------------- sealed
    def sealed(self, price: str, ties: str, offer, offer_kind: str) -> list:
        """Few steps (a sealed sale may come every turn): the reckoning is one step."""
        g, B, R, h, spec = self.g, self.B, self.R, self.h, self.spec
        E, BIDS, TOP, TIED, SEC, AMT, W = h["elig"], h["bids"], h["top"], h["tied"], h["sec"], h["amt"], h["order"]
        may = "(MAY_) and " if self.may and not self.may_hidden else ""  # (hidden: all are asked, see __init__)
        steps: list = [g.do(f"let {h['may']} = [{B} for {B} in players if MAY_]")] if self.may_hidden and self.track \
            else []
        if offer is None:  # bids are amounts: pass first, then min_bid up to the limit
            can = "true" if self.short_hidden else "LIMIT_ >= (MIN_)"
            steps += [g.do(self.excluded() + f"let {E} = [{B} for {B} in seat_order(FROM_, dir: DIR_) "
                                             f"if {may}{can}]"), *self.say_excluded()]
            if self.say_short:  # those who cannot reach min_bid are looked for only when some are missing
                some = f"count({E}) + count(excluded) < player_count" if self.may else f"count({E}) < player_count"
                steps.append(g.if_(some, [g.for_each(B, f"[{B} for {B} in seat_order(FROM_, dir: DIR_) "
                                                        f"if {may}LIMIT_ < (MIN_)]", self.say_short)]))
            dec = g.decision(B, "[none] + ((MIN_)..(LIMIT_))", self.prompt, BID_NAME(h), amounts=("MIN_", "LIMIT_"))
        else:  # bids are things (cards): what the bidder offers, worth its 'amount'
            steps += [g.do(self.excluded() + f"let {E} = " + (f"[{B} for {B} in seat_order(FROM_, dir: DIR_) if MAY_]"
                                                              if may else "seat_order(FROM_, dir: DIR_)")),
                      *self.say_excluded()]
            if "OFFER_" not in g.subs:  # (set already where who may bid is hidden)
                g.user("OFFER_", offer, "[]")
            if offer_kind == "subset":
                dec = replace(g.decision(B, "OFFER_", self.prompt, BID_NAME(h), kind="subset", default="[]"),
                              min=g.expr("0"))
            else:
                dec = replace(g.decision(B, "OFFER_", self.prompt, BID_NAME(h)), optional=True)
        steps.append(M.SealedStep(**g.base, var=B, iterable=g.expr(E), decision=dec, bind=BIDS))
        picks = {"first_in_order": f"{TIED}[0]", "random": f"random({TIED})",
                 "nobody": f"({TIED}[0] if count({TIED}) == 1 else none)"}
        if ties == "rebid":  # the tied bid again (sale.rebids); tied still after the last re-bid, nobody wins
            pick = picks["nobody"]
        elif ties in picks:
            pick = picks[ties]
        else:  # chosen while playing: only the branch taken is worked out (a random pick draws only then)
            g.user("TIES_", spec.get("ties"), "'first_in_order'")
            pick = (f"{picks['first_in_order']} if TIES_ == 'first_in_order' else {picks['random']} "
                    f"if TIES_ == 'random' else {picks['nobody']}")
        # who tied for the highest bid, worked out by one built-in (highest_keys) over the bids or their worths; the
        # highest is kept in its local as before (a saved game's state holds the hidden locals)
        best = "min" if self.down else "max"  # the best bid: the lowest in a tender
        own = offer is None and spec.get("amount") is None  # a bid is its own worth (none: a pass)
        if own and self.down:  # (no built-in gives the lowest bidders)
            worth = f"{BIDS}[q]"
            amounts = (f"let {TOP} = min([{worth} for q in {E} if {worth} != none]); "
                       f"let {TIED} = [q for q in {E} if {worth} != none and {worth} == {TOP}]; ")
            own = False  # (the winner's test and bid as for any worth)
        elif own:
            worth = f"{BIDS}[q]"
            amounts = (f"let {TIED} = highest_keys({BIDS}); "
                       f"let {TOP} = {BIDS}[{TIED}[0]] if not empty({TIED}) else none; ")
        else:
            worth = f"{AMT}[index_of({E}, q)]"
            amounts = (f"let {AMT} = [none if bid == none or bid == [] else (AMOUNT_) for bid in "
                       f"[{BIDS}[q] for q in {E}]]; let {TOP} = {best}([a for a in {AMT} if a != none]); "
                       + (f"let {TIED} = [q for q in {E} if {worth} != none and {worth} == {TOP}]; " if self.down else
                          f"let {TIED} = [{E}[i] for i in highest_keys({AMT})]; "))
        # the second price alone: the second best bid, or, with no other bid, the opening minimum (the limit, worked
        # out for the winner, in a tender: the most the winner could have asked)
        alone = "LONE_" if self.down else "(MIN_)"
        pays = {"first": TOP, "second": f"({SEC} if {SEC} != none else {alone})"}
        if price in pays:
            pay = pays[price]
        else:
            g.user("PRICE_", spec.get("price"), "'first'")
            pay = f"{pays['first']} if PRICE_ == 'first' else {pays['second']}"
        # the second-highest bid only when the price may be it
        sec = f"let {SEC} = {best}([{worth} for q in {E} if q != {W} and {worth} != none]); " if price != "first" else ""
        if self.down and price != "first":  # the limit of the winner: the bidder bound to them for it
            g.subs["LONE_"] = _substitute(parse_expression(f"first([LIMIT_ for {B} in [{W}]])", g.locate), g.subs)
        if ties == "rebid" and offer is None:  # who tied first; then the re-bids among them, each told and revealed
            steps += [g.do(amounts.rstrip("; ")), *S.rebids(self, lambda: g.decision(
                B, "[none] + ((MIN_)..(LIMIT_))", self.prompt, BID_NAME(h), amounts=("MIN_", "LIMIT_")))]
            amounts = ""
        steps.append(g.do(
            amounts +
            # (bids their own worth: somebody tied exactly when there is a top bid, a test cheaper than empty())
            f"let {W} = ({pick}) if {f'{TOP} != none' if own else f'not empty({TIED})'} else none; " + sec +
            f"let {R} = record(winner: {W}, price: ({pay}) if {W} != none else 0, "
            # (a bid that is its own worth: the winner's is the top one, whoever of the tied wins)
            f"bid: {TOP if own else f'{BIDS}[{W}]'} if {W} != none else none, tied: {TIED}, dropped: [])"
            + self.and_said()))
        return [*steps, *self.track_drops(), *self.close()]

    def track_drops(self) -> list:
        """The bidders who did not win drop out, each through the one drop point (only when something reads it)."""
        if not self.track:
            return []
        g, h = self.g, self.h
        DQ = h["drop"]
        return [g.do(f"let {h['stand']} = {h['bids']}; let {h['dropped']} = []; "
                     f"let {DQ} = [q for q in {h['elig']} if q != {h['order']}"
                     + (f" and q in {h['may']}]" if self.may_hidden else "]")), *self.drop_point(DQ)]


def BID_NAME(h: dict) -> str:  # noqa: N802 - the local a bid is bound to
    return h["bid"]
