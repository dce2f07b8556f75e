"""How names and plain values read: identifiers as words, lists joined with 'and', data values in words."""

from __future__ import annotations

import re
from typing import Any


def humanize(ident: str) -> str:
    """An identifier as words: `declaration_limit` -> 'declaration limit'."""
    return " ".join(str(ident).replace("_", " ").split())


def join_and(items: list[str], last: str = "and") -> str:
    items = [i for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {last} " + items[-1]



def value_words(v: Any) -> str:
    """A run-time or data value in words (never a Python repr)."""
    if v is True:
        return "yes"
    if v is False:
        return "no"
    if v is None:
        return "none"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return humanize(v) if re.fullmatch(r"[a-z][a-z0-9_]*", v) else v
    if isinstance(v, (list, tuple, set, frozenset)):
        items = [value_words(x) for x in v]
        return join_and(items) if items else "nothing"
    if isinstance(v, dict):
        return "; ".join(f"{value_words(k)}: {value_words(x)}" for k, x in v.items())
    for attr in ("title", "name", "id"):
        if getattr(v, attr, None):
            return str(getattr(v, attr))
    return str(v)


def plural(phrase: str) -> bool:
    """A noun phrase that is a plural noun, with or without an owner ("the player's chips", "the actions"), so
    its verb is 'are'."""
    return bool(re.fullmatch(r"(?:the|any|every|each|no) (?:[\w ]+'s? )?(?:[A-Za-z]+ )?[A-Za-z][a-z]{2,}(?<!ss)(?<!us)(?<!is)s",
                             phrase)) \
        and " of " not in phrase


_COUNTS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def dice_name(count: int, sides: int) -> str:
    """Dice as a player names them: (2, 6) -> 'two six-sided dice', (1, 20) -> 'a twenty-sided die'."""
    def number(n: int) -> str:
        return _COUNTS[n] if 0 <= n < len(_COUNTS) else {20: "twenty", 100: "hundred"}.get(n, str(n))
    kind = f"{number(sides)}-sided"
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind} die" if count == 1 else f"{number(count)} {kind} dice"


def dice_label(count: int, sides: int, visibility: str = "open") -> str:
    """Dice as the printed rules list them: 'A six-sided die (1d6)', and who sees their faces when not everyone does."""
    seen = {"roller": ", seen by its roller alone", "hidden": ", seen by nobody until shown"}.get(visibility, "")
    name = dice_name(count, sides)
    return f"{name[:1].upper()}{name[1:]} ({count}d{sides}{seen})"


def gerund(verb: str) -> str:
    """A verb's -ing form for a heading: 'challenge' -> 'challenging', 'bid' -> 'bidding', 'snatch' -> 'snatching'."""
    v = verb.lower()
    if v.endswith("ie"):
        return v[:-2] + "ying"
    if v.endswith("e") and not v.endswith(("ee", "ye", "oe")) and len(v) > 2:
        return v[:-1] + "ing"
    # one syllable ending consonant-vowel-consonant doubles its last letter (stop, bid), never w, x or y
    if re.fullmatch(r"[^aeiou]*[aeiou][b-df-hj-np-tvz]", v):
        return v + v[-1] + "ing"
    return v + "ing"


def dice_words(text: str) -> str:
    """A dice condition as players say it: 'the doubles and the first of the dice is 6' -> 'double 6'."""
    text = re.sub(r"\bthe doubles and the first of the dice is at least (\d+) and the first of the dice is at most (\d+)",
                  r"a double from \1 to \2", text)
    text = re.sub(r"\bthe doubles and the first of the dice is (\d+)", r"double \1", text)
    text = re.sub(r"^(\d+) is in the dice\b", r"a die shows \1", text)
    text = re.sub(r"^(\d+) is not in the dice\b", r"no die shows \1", text)
    return text.replace("the doubles", "a double")


def unsaid_lead(label: str, rule: str) -> str:
    """What a designer's label for a mechanic leaves out that a first table asks: who leads ('Play a trick: follow
    suit ...', and nothing said who leads the next one: 'the winner leads next'), what a bid must beat ('more than
    the highest bid so far'), the lowest bid ('bids start at 2'), who is paid ('the winner pays the bank') and what if
    nobody bids; the clauses of its rule in words that say it, each where the label does not speak of it."""
    out = [c for c in rule.split("; ") if re.search(r"\bleads? (?:next|first|the next)\b", c)
           and not re.search(r"\blead", label, re.I) or c.startswith("bids start at ")
           and not re.search(r"\b(?:start|lowest|least|minimum)\b", label, re.I)
           or "the highest bid so far" in c and not re.search(r"\b(?:raise|higher|more than|beat|outbid|top)", label, re.I)
           or c.startswith("the winner pays ") and not re.search(r"\b(?:pay|pays|paid|costs?|price)\b", label, re.I)
           or "folds, calls or raises" in c and not re.search(r"\b(?:fold|call|rais)", label, re.I)
           or re.search(r" (?:may bid too|does not bid)$", c) and not re.search(r"\b(?:own|too|not bid|then you|is you)\b", label, re.I)
           or c.startswith("no bid: ") and not re.search(r"\b(?:no bids?|nobody|no one|keeps?)\b", label, re.I)]
    # (the kind of auction is the label's to say; 'no bid: the auctioneer keeps it' as a table says it)
    first = re.match(r"[\w-]+ auction, starting with (.+?)(?:, going [\w-]+)?: ", rule)  # 'from today's first bidder':
    out = ([f"the first bidder is {first.group(1)}"] if first and re.search(r"\bfirst bidder\b", label, re.I)
           else []) + out  # who is that? (stall-day's, a first table asked)
    out = [re.sub(r"^no bid: ", "if nobody bids, ", re.sub(r"^(?:[\w-]+ auction|round of betting)[^:]*: ", "", c,
                                                            flags=re.I)) for c in out]
    return "; ".join(out)


def table_key_titles(rs) -> dict:
    """Key -> title, for the keys of tables that give each row a `title` (a key two tables title differently is
    left out): the name players know a key by."""
    out, clash = {}, set()
    for t in rs.tables.values():
        if "title" not in t.columns:
            continue
        for key, row in t.rows.items():
            title = row.get("title")
            if isinstance(key, str) and isinstance(title, str) and title:
                if out.get(key, title) != title:
                    clash.add(key)
                out[key] = title
    for key in clash:
        out.pop(key)
    for key, title in (getattr(rs, "key_titles", None) or {}).items():  # the keys of families variables are per
        out.setdefault(key, title)
    return out


def first_price_results(rs) -> dict:
    """The names of the results of auctions won at the best bid (open, once around, sealed at the first price), each
    with what its `price` reads: 'the highest bid', or 'the lowest bid' where the lowest bid wins (a tender) ('set the
    bid to the price' named nothing a table of a bid for tricks knows)."""
    return {st.get("as", "auction"): "the lowest bid" if st.get("lowest_wins", "").lower() == "true" else
            "the highest bid" for _q, s in rs.iter_steps() if getattr(s, "construct", "") == "auction"
            and (st := dict(s.settings)).get("form", "open") in ("open", "once_around", "sealed")
            and st.get("price", "first") == "first" and not st.get("offer")}


# names clipped from a word players know ('dest'): read as the word, not as a sound
CLIPPED = {"dest": "destination", "src": "source", "tgt": "target", "opp": "opponent", "pos": "position",
           "idx": "index", "qty": "quantity", "amt": "amount", "prev": "previous", "cur": "current", "num": "number"}


def each_in(noun: str, items: str) -> str:
    """What follows 'each' for a noun taken from some of its own kind: 'player still in', not 'player in the players
    still in' ('the players in order of ...' reads 'player in order of ...')."""
    for many in (noun + "s", noun + "es"):
        if items.startswith(f"the {many} ") and not items.startswith(f"the {many} of "):
            return f"{noun} {items[len(f'the {many} '):]}"
    return f"{noun} in {items}"


def named_once(text: str, who: str = "a player") -> str:
    """A sentence about one player named once ('a player's set points plus 5 times their full sets'): after the
    first 'a player', 'a player's' reads 'their' and 'a player' 'the player'."""
    first = re.search(rf"\b{re.escape(who)}\b", text)
    if first is None:
        return text
    rest = re.sub(rf"\b{re.escape(who)}'s\b", "their", text[first.end():])
    return text[:first.end()] + re.sub(rf"\b{re.escape(who)}\b", "the player", rest)


def asks(text: str) -> bool:
    """A prompt that asks a question, maybe with what it shows after it ('Buy a card? (your Coins)')."""
    return re.search(r"\?(?: \([^()]*\))?$", text) is not None


def runs(clauses: list[str]) -> list[str]:
    """Clauses in order, one said again at once saying how many times ('go on to playing an action card twice'), not
    twice over (cinder-guild's Echo plays the chosen card twice: two calls, one clause each)."""
    out: list[list] = []
    for x in clauses:
        if out and out[-1][0] == x and not x.endswith("?"):
            out[-1][1] += 1
        else:
            out.append([x, 1])
    return [x if n == 1 else f"{x} twice" if n == 2 else f"{x} {n} times" for x, n in out]


def round_the_ring(w, obj, key) -> str:
    """An index that goes round a list ('players[(day - 1) % player_count]', 'ring[(i + 1) % player_count]') as a
    table says it: 'the first player when the day is 1, the next when it is 2, and so on round the table'; 'the one
    after the ring for the one in the ring (after the last, the first)'. '' for any other index."""
    from rulecraft.dsl import ast as A

    if not (isinstance(key, A.BinOp) and key.op == "%"):
        return ""
    inner, step = key.left, 0
    if isinstance(inner, A.BinOp) and inner.op in ("+", "-") and isinstance(inner.right, A.Num) \
            and isinstance(inner.right.value, int):
        inner, step = inner.left, inner.right.value * (1 if inner.op == "+" else -1)
    if not isinstance(inner, A.Name):
        return ""
    if isinstance(obj, A.Name) and obj.id == "players" and step <= 0:
        said = w.expr(inner)
        return f"the first player when {said} is {-step}, the next when it is {1 - step}, and so on round the table"
    if step == 1 and not (isinstance(obj, A.Name) and obj.id == "players"):
        return f"the one after {w.expr(A.Index(key.span, obj, inner))} in {w.expr(obj)} (after the last, the first)"
    return ""


def shown_once(text: str) -> str:
    """A prompt's parenthesis that names a thing and then fills in that thing's own value ('(the fire is at {heat()})'
    read '(the fire is at the fire's heat)'): on paper, where no value is filled in, the value is shown: '(the fire's
    heat is shown)'."""
    import re

    def said(m: re.Match) -> str:
        return f"({m.group('value')} {'are' if plural(m.group('value')) else 'is'} shown)"

    return re.sub(r"\((?P<own>(?:the |your |their )?[\w ]+?) (?:is|are|stands|stand) (?:at|on|by) "
                  r"(?P<value>(?P=own)'s? [\w ]+)\)", said, text)
