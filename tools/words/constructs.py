"""The constructs' rules in players' words: an auction's form and settings (who starts, the most a bid may be, ties,
whether the auctioneer bids, what is sold and who is paid) and a response window's, each in a sentence; a setting
said only where it reads as words, never a condition's text."""

from __future__ import annotations

from rulecraft.model import ruleset as M
from rulecraft.tools.words.core import Words


def _setting(w: Words, settings: dict, key: str, default: str = "", limit: int = 40) -> str:
    """A construct's setting in players' words, or `default` where it would be long or read like code."""
    from rulecraft.dsl.parser import parse_expression, plain_locator
    from rulecraft.tools.words.labels import code_like

    text = settings.get(key)
    if not text:
        return default
    try:
        said = w.expr(parse_expression(text, plain_locator()))
    except Exception:  # noqa: BLE001 - a setting that is no expression is not said
        return default
    return default if code_like(said) or len(said) > limit or said in ("always", "never") else said


def _direction(w: Words, settings: dict) -> str:
    """The way the turn goes round ('dir:'), said where it is not the default clockwise: 'going counter-clockwise',
    or the house rule that sets it."""
    from rulecraft.dsl.parser import parse_expression, plain_locator
    from rulecraft.tools.words.core import _UNKNOWN

    text = settings.get("dir")
    if not text:
        return ""
    try:
        e = parse_expression(str(text), plain_locator())
    except Exception:  # noqa: BLE001 - a setting that is no expression is not said
        return ""
    value = w.constant(e)
    if value is _UNKNOWN:
        said = _setting(w, settings, "dir")
        return f"going the way {said} says" if said else ""
    return {"ccw": "going counter-clockwise"}.get(str(value), "")


_UNTIL = {"first": "the first who responds acts", "each": "each may respond once",
          "all_pass": "responses go round until everyone passes"}


_BEAT = "more than the highest bid so far"
_UNDER = "less than the lowest bid so far"


def players_construct(w: Words, s: M.ConstructStep) -> str:
    """An auction or a response window as players say it, from its settings: the mechanic in a sentence, the
    settings that read as words (who starts, the most a bid may be, a pass is final), never a condition's text."""
    st = dict(s.settings)
    way = _direction(w, st)
    if s.construct == "respond":
        frm = _setting(w, st, "from", "the active player")
        turn = f"in turn {way.removeprefix('going ')}" if way else "in turn"
        until = _UNTIL.get(st.get("until", "first"), _UNTIL["first"])
        may = _setting(w, st, "may", limit=60)  # 'q.coins >= price': each other player whose Coins are at least ...
        for subject, rel in (("the responder's ", "whose "), ("the responder ", "who ")):
            if may.startswith(subject) and (rel == "whose " or may.split(" ")[2] in ("is", "are", "has", "can")):
                return f"each other player {rel}{may.removeprefix(subject)} may respond, {turn} after {frm}; {until}"
        return f"each other player {turn} after {frm} may respond; {until}"
    form = st.get("form", "open")
    frm = _setting(w, st, "from", limit=90)  # ('the first player when the day is 1, the next when it is 2, ...')
    frm = ("" if frm in ("the first player", "") else f", starting with {frm}") + (f", {way}" if way else "")
    upto = f", up to {limit.replace('the bidder' + chr(39) + 's ', 'their ')}" if (limit := _setting(w, st, "limit")) else ""
    seller = _setting(w, st, "seller", "the seller")
    if form == "fixed_price":
        bits = [f"fixed-price sale: {seller} names a price; in turn, each other player may buy at it or pass"]
    elif form == "sealed" and st.get("offer"):
        bits = ["sealed auction: each bidder lays a bid face down, then all reveal; the bid worth most wins"]
    elif form == "sealed":
        pays = " the second highest bid" if st.get("price") == "second" else ""
        bits = [f"sealed auction: all bid in secret{upto}; the highest bidder wins and pays{pays}"]
    elif form == "descending":
        start, drop, low = (_setting(w, st, k) for k in ("start_price", "drop", "min_bid"))
        bits = [f"descending auction{frm}: offered at {start}, the price falls by {drop or 1} each time round "
                f"{f'(down to {low}) ' if low else ''}until a player takes it at that price"]
    elif form == "betting":  # (with pay: every player pays their stake, not the winner a price: no sale words)
        return f"round of betting{frm}: each in turn folds, calls or raises the top stake until all still in match it"
    elif form == "once_around":  # (the most a bid may be goes unsaid: players know to bid what they have; what a
        bits = [f"once-around auction{frm}: each bids once, {_BEAT}, or passes; the highest bid wins"]  # bid must beat,
    else:  # the number a bidder needs, is said)
        bits = [f"open auction{frm}: raise or pass in turn until all others pass (a raise is a bid {_BEAT}); the highest bid wins"]
    if st.get("max_raise") and form in ("open", "once_around"):  # a raise bounded above: at most so much more
        step, most = _setting(w, st, "min_raise") or "1", _setting(w, st, "max_raise")
        beat = f"exactly {most} more than the highest bid so far (the price rises {most} at a time)" if most == step \
            else f"{step} to {most} more than the highest bid so far"
        bits = [b.replace(_BEAT, beat) for b in bits]
    if str(st.get("lowest_wins")).lower() == "true":  # a tender: the bids go down, the lowest wins
        bits = [b.replace("raise or pass", "bid lower or pass").replace(_BEAT, _UNDER).replace("highest bid",
                "lowest bid").replace("highest bidder", "lowest bidder").replace("second highest", "second lowest")
                .replace("the bid worth most", "the bid worth least").replace("a raise is a bid", "each bid is")
                for b in bits]
    if form == "sealed" and st.get("ties") == "rebid":  # the tied bid again, only they; tied still, nobody wins
        bits.append(f"players tied for the best bid bid again in secret, at most {_setting(w, st, 'rebids') or '1'} "
                    "times; tied still, nobody wins")
    bits += ["the first bidder must open the bidding (no pass)"] if str(st.get("must_open")).lower() == "true" else []
    bits += ["a pass is final"] if str(st.get("pass_is_final", "")).lower() == "true" else []
    if st.get("seller") and form in ("open", "once_around", "sealed"):  # 'may the auctioneer bid?', a table asked
        out = str(st.get("may_bid", "")).replace(" ", "") == f"bidder!={st['seller']}".replace(" ", "")
        bits += [f"{seller} does not bid" if out else f"{seller} may bid too"]
    low = _setting(w, st, "min_bid") if form not in ("descending", "fixed_price") else ""  # 'what may I bid?'
    floor = f"no bid below {low}" if str(st.get("lowest_wins")).lower() == "true" else f"bids start at {low}"
    return "; ".join(bits + ([floor] if low not in ("", "1", "0") else []) + sale_words(w, st, seller))


def sale_words(w: Words, st: dict, seller: str) -> list:
    """What is sold and how it is settled, from an auction's sale settings (a lot, no bid, who is paid), briefly."""
    bits = []
    lot = _setting(w, st, "lot")
    if str(st.get("lot", "")).startswith("[") and lot:  # several things written out: said; one thing or a name: not
        bits.append(f"sold together: {lot}")
    no_bid = st.get("no_bid", "nobody")
    if no_bid == "seller_keeps":
        bits.append(f"no bid: {seller} keeps it")
    elif no_bid == "seller_buys":
        bits.append(f"nobody buys: {seller} must buy it")
    bits += ["the bank pays the winner their price"] if st.get("receive") else []
    if st.get("pay"):
        bits.append(f"the winner pays {seller} (the bank if {seller} wins)" if st.get("paid_to") == "seller"
                    else "the winner pays the bank")
        bits += ["every other bidder pays their bid too"] if st.get("all_pay") == "True" else []  # (settings: text)
    return bits
