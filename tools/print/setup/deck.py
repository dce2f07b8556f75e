"""What the cards are, said for the set-up: how many a game needs for each number of players, and for a small deck
or one that is every mix of a named property and a number, which cards it holds ('The cards: Spark ×8 (power 1),
...')."""

from __future__ import annotations

from rulecraft.model import ruleset as M


def cards_by_players(rs: M.Ruleset) -> list[tuple[int, int]]:
    """(player count, cards in that game) for each player count, when a card group's count reads the number of
    players (rs.card_players); [] when every game uses every card."""
    if not rs.card_players:
        return []
    return [(p, sum(1 for i in range(len(rs.cards)) if i not in rs.card_players or p in rs.card_players[i]))
            for p in range(rs.players.min, rs.players.max + 1)]


def player_ranges(by_count: list[tuple[int, int]]) -> list[tuple[str, int]]:
    """Player counts in a row that need the same number of cards, run together: ('3 or 4', 40), ('3 to 6', 52)."""
    out: list[tuple[list[int], int]] = []
    for p, k in by_count:
        if out and out[-1][1] == k:
            out[-1][0].append(p)
        else:
            out.append(([p], k))
    return [(f"{ps[0]}" if len(ps) == 1 else f"{ps[0]} or {ps[1]}" if len(ps) == 2 else f"{ps[0]} to {ps[-1]}", k)
            for ps, k in out]  # (the counts of a run are consecutive: one range of player counts)


DECK_KINDS = 8  # a deck of at most this many kinds of card is said card by card in the set-up


def deck_line(rs: M.Ruleset) -> str:
    """What the cards are, for a small deck with no card texts ('You need 22 cards' and then: which?): each kind
    with its copies and the numbers that tell it from the others ('Spark ×8 (power 1), ...'), and a text every card
    shares after it (no special card lists it); '' for a deck of more kinds, or one whose cards say what they do
    (the aid's special cards list them)."""
    kinds: dict[str, list] = {}
    for c in rs.cards:
        kinds.setdefault(c.name, []).append(c)
    texts = {c.text for c in rs.cards}
    every = f" Every card: {texts.pop().strip()}" if len(texts) == 1 and rs.cards[0].text else ""  # ('worth its number')
    if any(c.text for c in rs.cards) and not every:  # (one class of many kinds, each its own text: stall-day's)
        return _class_grids(rs) or (_grid_line(rs, rs.cards) if len(kinds) > DECK_KINDS else "")
    if len(kinds) > DECK_KINDS:
        grid = _grid_line(rs, rs.cards)
        return grid + every if grid else _class_grids(rs)
    if len(kinds) < 2:
        return ""
    numbers = [a for a in dict.fromkeys(k for c in rs.cards for k in c.attrs)
               if all(isinstance(c.attrs.get(a), int) and not isinstance(c.attrs.get(a), bool) for c in rs.cards)
               and len({c.attrs[a] for c in rs.cards}) > 1 and all(len({c.attrs[a] for c in cs}) == 1
                                                                    for cs in kinds.values())]
    said = []
    for name, cs in kinds.items():
        told = ", ".join(f"{a.replace('_', ' ')} {cs[0].attrs[a]}" for a in numbers[:2]
                         if f"({cs[0].attrs[a]})" not in name)  # 'Guard (1)' says its rank already
        said.append(counted_name(rs, name, cs) + (f" ({told})" if told else ""))
    from rulecraft.tools.words.text import join_and

    return f"The cards: {join_and(said)}.{every}"


def _class_grids(rs: M.Ruleset) -> str:
    """A deck of a few classes, each card of one, where a class is every mix of a named property and a number (the
    step cards beside the Ladders): that class said as a grid is ('The step cards: red, ... (one card of each).')."""
    by: dict[str, list] = {}
    for c in rs.cards:
        by.setdefault(next(iter(c.classes)) if len(c.classes) == 1 else "", []).append(c)
    return " ".join(line.replace("The cards:", f"The {cls.replace('_', ' ')} cards:", 1) for cls, cs in by.items()
                    if cls and len(by) > 1 and len({c.name for c in cs}) > DECK_KINDS and (line := _grid_line(rs, cs)))



def read_in_play(rs: M.Ruleset) -> set[str]:
    """The attributes (`c.NAME`) a rule of play reads: in the steps, triggers, functions, scoring, variables, tables
    and the view; not in what picks a zone's starting cards (the set-up), the metrics or the invariants (they change
    no game). A card's number none of them reads only tells copies of one card apart: it is no property."""
    from rulecraft.dsl import ast as A

    out: set[str] = set()
    seen: set[int] = set()

    def visit(x) -> None:
        if isinstance(x, (str, int, float, bool, type(None))) or id(x) in seen:
            return
        seen.add(id(x))
        if isinstance(x, A.Node):
            out.update(n.name for n in x.walk() if isinstance(n, A.Attr))
        elif isinstance(x, (M.CExpr, M.CStmt)):
            visit(x.ast)
        elif isinstance(x, dict) or hasattr(x, "items") and hasattr(x, "values"):
            for v in x.values():
                visit(v)
        elif isinstance(x, (list, tuple, set, frozenset)):
            for v in x:
                visit(v)
        elif hasattr(x, "__dataclass_fields__"):
            for name in x.__dataclass_fields__:
                visit(getattr(x, name, None))

    for part in (rs.sequences, rs.triggers, rs.functions, rs.scoring, rs.variables, rs.player_variables,
                 rs.modifiers, rs.tables, rs.view):
        visit(part)
    return out | set(rs.card_order)  # (the order cards sort in: a trick's highest card)


def _grid_line(rs: M.Ruleset, cards: list) -> str:
    """A deck of many kinds that is every mix of a named property and a number, the same count of each ('silk 1' ...
    'spice 4'):
    'The cards: silk, tea and spice, each with worth 1 to 4 (one card of each).'; '' for any other deck."""
    from rulecraft.tools.words.text import join_and

    def values(a: str) -> list:
        return list(dict.fromkeys(c.attrs.get(a) for c in cards))

    names = [a for a in dict.fromkeys(k for c in cards for k in c.attrs)
             if all(isinstance(c.attrs.get(a), (str, int)) and not isinstance(c.attrs.get(a), bool) for c in cards)
             and 1 < len(values(a)) <= DECK_KINDS * 2]
    for first in names:
        for second in names:
            one, two = values(first), values(second)
            if (first == second or isinstance(one[0], int) or not all(isinstance(v, int) for v in two)
                    or len(cards) % (len(one) * len(two))):
                continue
            copies = len(cards) // (len(one) * len(two))
            mixes: dict = {}
            for c in cards:
                mixes[c.attrs[first], c.attrs[second]] = mixes.get((c.attrs[first], c.attrs[second]), 0) + 1
            named = {(c.attrs[first], c.attrs[second], c.name) for c in cards}  # the mix is what the card is
            if (len(mixes) != len(one) * len(two) or set(mixes.values()) != {copies}
                    or len(named) != len(mixes) or len({n for *_, n in named}) != len(mixes)):
                continue
            numbers = sorted(two)
            span = (f"{numbers[0]} to {numbers[-1]}" if numbers == list(range(numbers[0], numbers[-1] + 1))
                    else join_and([str(v) for v in numbers]))
            each = "one card" if copies == 1 else f"{copies} cards"
            told = [x for key, keys in ((second, numbers), (first, one)) if (x := _by_key(rs, cards, key, keys))]
            same = [f"A card's {a.replace('_', ' ')} is its {second.replace('_', ' ')}." for a in names
                    if a not in (first, second) and all(c.attrs.get(a) == c.attrs[second] for c in cards)]
            told += same
            if not same and not _by_key(rs, cards, second, numbers) and second not in read_in_play(rs):
                # a number no rule reads and no other follows ('copy 1 to 12') is no property: how many, numbered
                return (f"The cards: {join_and([str(v) for v in one])}, {len(numbers) * copies} of each, numbered {span}"
                        + (f" ({each} of each number)." if copies > 1 else ".") + "".join(" " + x for x in told))
            return (f"The cards: {join_and([str(v) for v in one])}, each with {second.replace('_', ' ')} {span} "
                    f"({each} of each)." + "".join(" " + x for x in told))
    return ""


def _by_key(rs: M.Ruleset, cards: list, key: str, keys: list) -> str:
    """The other numbers and names a grid's cards carry that follow one of its two properties: 'Tier 1, 2 and 3:
    price 2, 3 and 4, points 1, 3 and 5.' (what a pattern costs, which no line said); a name the card's own name
    says ('Red pattern 1': its shade) or one property repeated is left out."""
    from rulecraft.tools.words.expressions import table_key_titles
    from rulecraft.tools.words.text import join_and

    titles, said = table_key_titles(rs), []
    for a in dict.fromkeys(k for c in cards for k in c.attrs):
        by: dict = {}
        if a == key or not all(
                by.setdefault(c.attrs.get(key), c.attrs.get(a)) == c.attrs.get(a) for c in cards):
            continue
        got = [by[k] for k in keys]
        if (len(set(got)) < 2 or got == keys or not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in got)
                or any(isinstance(c.attrs[a], str) and c.attrs[a].lower() in c.name.lower() for c in cards)):
            continue
        said.append(f"{a.replace('_', ' ')} " + join_and([str(titles.get(v, v)) for v in got]))
    named = join_and([str(k) for k in keys])  # 'Tier 1, 2 and 3', 'Red, blue and gold'
    named = f"{key.replace('_', ' ')} {named}" if isinstance(keys[0], int) else named
    return f"{named[:1].upper()}{named[1:]}: {', '.join(said)}." if said else ""


def counted_name(rs: M.Ruleset, name: str, cards: list) -> str:
    """A card's name and its copies ('Estate ×8 (2 players), ×12 (3–4 players)' where `count:` uses player_count)."""
    runs: list[list[int]] = []  # [first number of players, last, copies]
    cp = rs.card_players  # a card in some games only: the numbers of players it is in the game for
    for n in range(rs.players.min, rs.players.max + 1):
        k = sum(1 for c in cards if c.index not in cp or n in cp[c.index])
        if runs and runs[-1][2] == k:
            runs[-1][1] = n
        else:
            runs.append([n, n, k])
    if len(runs) == 1:
        return name if runs[0][2] == 1 else f"{name} ×{runs[0][2]}"
    return name + " " + ", ".join(f"×{k} ({a}{'' if a == b else f'–{b}'} players)" for a, b, k in runs)


def class_counts(rs: M.Ruleset) -> str:
    """How many of each kind a deck holds, when no line says its cards ('You need 18 cards' and then: which?): each
    card of exactly one class, a few classes ('12 rain, 3 storm and 3 lull cards'); '' for any other deck."""
    from rulecraft.tools.words.text import join_and

    if not rs.cards or any(len(c.classes) != 1 for c in rs.cards):
        return ""
    counts: dict[str, int] = {}
    for c in rs.cards:
        (cls,) = c.classes
        counts[cls] = counts.get(cls, 0) + 1
    if not 1 < len(counts) <= 6:
        return ""
    return join_and([f"{k} {cls.replace('_', ' ')}" for cls, k in counts.items()]) + " cards"


KIND_OF_CARD = "A kind of card: "  # how a class of card is defined (the first entries to go from a full aid)


def class_terms(rs: M.Ruleset) -> list[tuple[str, str]]:
    """Each class of card as a term ('reaction': which cards are reactions), named as the rules read it, in lower
    case: the cards that have it, by name; a class of many kinds, or one its cards' names already say, is none."""
    names: dict[str, list[str]] = {}
    for c in rs.cards:
        for cls in sorted(c.classes):  # (a set: in its own order the Words box changed from run to run)
            if c.name not in names.setdefault(cls, []):
                names[cls].append(c.name)
    from rulecraft.tools.words.text import join_and

    return [(cls.replace("_", " "), f"{KIND_OF_CARD}{join_and(n)}") for cls, n in names.items()
            if len(n) <= 6 and not all(cls.replace("_", " ") in x.lower() for x in n)]  # ('Coin 1', 'Coin 2': said)
