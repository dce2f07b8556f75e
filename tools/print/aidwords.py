"""The aid's set-up, its "Words" box and its cards: how the table is laid out before play, what each place and term
the aid uses means, from the ruleset's own titles and docs (a zone's `doc:`, a sequence's, a titled variable's), and
what the cards are called and do (also printed by the book)."""

from __future__ import annotations

import re

from rulecraft.model import ruleset as M

from rulecraft.tools.chart.sheetplan import designer_label
from rulecraft.tools.words import Words
from rulecraft.tools.words.bookkeeping import hidden_step
from rulecraft.tools.words.core import capital

VISIBILITY = {
    "hidden": "face down, seen by nobody",
    "owner": "seen by its owner only",
    "open": "face up, open to all",
    "count": "face down; anyone may count the cards",
    "top": "only the top card is seen",
    "contents": "face down; anyone may know which cards it holds, nobody their order",
    "owner_contents": "face down; its owner knows which cards it holds, nobody their order",
}
WORDS = 24  # entries of the Words box at most (the aid is two pages)
KIND_OF_CARD = "A kind of card: "  # how a class of card is defined (the first entries to go from a full aid)


def setup_sequences(rs: M.Ruleset, order: list[str]) -> list[str]:
    """The sequences that set the table up: `kind: setup`, or named so ('Setup Stage', 'our set-up')."""
    return [sid for sid in order if rs.sequences[sid].kind == "setup"
            or re.search(r"\bset-?\s?up\b", (sid.replace("_", " ") + " " + rs.sequences[sid].title).lower())]


def _said(w: Words, s: M.Step) -> str:
    text = w.label(designer_label(s)) or w.step(s, own_label=False)
    return text if text.endswith((".", "?")) else text + "."


def setup_steps(rs: M.Ruleset, w: Words, sids: list[str], say=None) -> list[str]:
    """Setting up the table as a person does it: each setup sequence's own steps in words, in order (`say`: how
    a step is said, with what it holds; by default its label or its own words)."""
    lines = [(say(s) if say else _said(w, s)) for sid in sids for s in rs.sequences[sid].steps
             if not hidden_step(rs, s)]
    return [x if x.endswith((".", "?", "!")) else x + "." for x in lines if x]


def _cards_by_players(rs: M.Ruleset) -> list[tuple[int, int]]:
    """(player count, cards in that game) for each player count, when a card group's count reads the number of
    players (rs.card_players); [] when every game uses every card."""
    if not rs.card_players:
        return []
    return [(p, sum(1 for i in range(len(rs.cards)) if i not in rs.card_players or p in rs.card_players[i]))
            for p in range(rs.players.min, rs.players.max + 1)]


def _ranges(by_count: list[tuple[int, int]]) -> list[tuple[str, int]]:
    """Player counts in a row that need the same number of cards, run together: ('3 or 4', 40), ('3 to 6', 52)."""
    out: list[tuple[list[int], int]] = []
    for p, k in by_count:
        if out and out[-1][1] == k:
            out[-1][0].append(p)
        else:
            out.append(([p], k))
    return [(f"{ps[0]}" if len(ps) == 1 else f"{ps[0]} or {ps[1]}" if len(ps) == 2 else f"{ps[0]} to {ps[-1]}", k)
            for ps, k in out]  # (the counts of a run are consecutive: one range of player counts)


def _zone_name(z: M.ZoneDef) -> str:
    name = re.sub(r"\s*\([^)]*\)$", "", z.title or z.id.replace("_", " "))
    return re.sub(r"^the ", "", name, flags=re.I)


def starting_lines(rs: M.Ruleset, w: Words) -> list[str]:
    """What the table needs and where things are before the first step: the cards and dice, the cards a zone
    starts with, what each player starts with."""
    from rulecraft.tools.words.text import dice_name

    out = []
    n = len(rs.cards)
    kit = ([f"{n} cards"] if n else []) + [dice_name(d.count, d.sides) for d in rs.dice.values()]
    by_count = _ranges(_cards_by_players(rs))
    if len(by_count) > 1:  # the ruleset holds the copies of its largest game: say each game's own
        out.append("You need " + ", ".join(f"{k} cards for {p} players" if not i else f"{k} for {p}"
                                           for i, (p, k) in enumerate(by_count)) + ".")
        kit = kit[1:]
    if kit:
        out.append("You need " + w.value(kit) + ".")
    if len(by_count) <= 1 and (deck := _deck_line(rs)):
        out.append(deck)
    for z in rs.zones.values():
        if z.initial == "all" and n:
            picks = any(isinstance(o.initial, M.CExpr) for o in rs.zones.values())
            out.append(f"{'The other' if picks else 'All the'} cards start in the {_zone_name(z)}, shuffled.")
        elif isinstance(z.initial, M.CExpr) and z.per is None:
            out += _picked_start(rs, z)
    set_up = _set_before_play(rs)
    for v in rs.player_variables.values():
        if v.id in set_up:  # 'builds 12 walls' in the set-up steps: a start value of 0 before it only misleads
            continue
        initial = v.initial
        if isinstance(initial, M.CExpr) and w.is_constant(initial.ast):  # 'starting_coins': its value
            initial = w.constant(initial.ast)
        if v.visibility != "hidden" and isinstance(initial, (int, float)) and not isinstance(initial, bool):
            name = re.sub(r"^the ", "", v.title or v.id.replace("_", " "), flags=re.I)
            name = name[:1].lower() + name[1:] if name[1:2].islower() else name
            from rulecraft.tools.words.text import plural

            out.append(f"Each player's {name} {'start' if plural('the ' + name) else 'starts'} at {w.value(initial)}.")
    return out


DECK_KINDS = 8  # a deck of at most this many kinds of card is said card by card in the set-up


def _deck_line(rs: M.Ruleset) -> str:
    """What the cards are, for a small deck with no card texts ('You need 22 cards' and then: which?): each kind
    with its copies and the numbers that tell it from the others ('Spark ×8 (power 1), ...'); '' for a deck of
    more kinds, or one whose cards say what they do (the aid's special cards list them)."""
    kinds: dict[str, list] = {}
    for c in rs.cards:
        kinds.setdefault(c.name, []).append(c)
    if any(c.text for c in rs.cards):
        return ""
    if len(kinds) > DECK_KINDS:
        return _grid_line(rs)
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

    return f"The cards: {join_and(said)}."


def _grid_line(rs: M.Ruleset) -> str:
    """A deck of many kinds that is every mix of a named property and a number, the same count of each ('silk 1' ...
    'spice 4'):
    'The cards: silk, tea and spice, each with worth 1 to 4 (one card of each).'; '' for any other deck."""
    from rulecraft.tools.words.text import join_and

    def values(a: str) -> list:
        return list(dict.fromkeys(c.attrs.get(a) for c in rs.cards))

    names = [a for a in dict.fromkeys(k for c in rs.cards for k in c.attrs)
             if all(isinstance(c.attrs.get(a), (str, int)) and not isinstance(c.attrs.get(a), bool) for c in rs.cards)
             and 1 < len(values(a)) <= DECK_KINDS * 2]
    for first in names:
        for second in names:
            one, two = values(first), values(second)
            if (first == second or isinstance(one[0], int) or not all(isinstance(v, int) for v in two)
                    or len(rs.cards) % (len(one) * len(two))):
                continue
            copies = len(rs.cards) // (len(one) * len(two))
            mixes: dict = {}
            for c in rs.cards:
                mixes[c.attrs[first], c.attrs[second]] = mixes.get((c.attrs[first], c.attrs[second]), 0) + 1
            named = {(c.attrs[first], c.attrs[second], c.name) for c in rs.cards}  # the mix is what the card is
            if (len(mixes) != len(one) * len(two) or set(mixes.values()) != {copies}
                    or len(named) != len(mixes) or len({n for *_, n in named}) != len(mixes)):
                continue
            numbers = sorted(two)
            span = (f"{numbers[0]} to {numbers[-1]}" if numbers == list(range(numbers[0], numbers[-1] + 1))
                    else join_and([str(v) for v in numbers]))
            each = "one card" if copies == 1 else f"{copies} cards"
            return (f"The cards: {join_and([str(v) for v in one])}, each with {second.replace('_', ' ')} {span} "
                    f"({each} of each).")
    return ""


def _set_before_play(rs: M.Ruleset) -> set[str]:
    """The player variables the start sequence sets (`set p.walls = ...`) before play begins: in its steps before
    the first loop that repeats (a `for_each` over the players deals, it does not play), or a call."""
    from rulecraft.dsl import ast as A
    from rulecraft.model.kinds import kind_of, own_statements

    out: set[str] = set()

    def walk(steps) -> bool:  # False once play begins
        for s in steps:
            kind = kind_of(s)
            if kind is None or kind.call or (kind.loop and kind.key != "for_each") or kind.decides:
                return False
            for st in own_statements(s):
                for n in st.ast.walk():
                    if isinstance(n, A.Assign) and n.op == "=" and isinstance(n.target, A.Attr):
                        out.add(n.target.name)
            if not all(walk(body) for _name, body in s.bodies):
                return False
        return True
    start = rs.sequences.get(rs.start)
    if start is not None:
        walk(start.steps)
    return out


def _picked_start(rs: M.Ruleset, z: M.ZoneDef) -> list[str]:
    """Where the cards a zone's `initial:` picks start: by the class they share and no other card has ("The
    coin cards (20) start in the Coin bank."), else by their names; nothing when the pick depends on the game."""
    from rulecraft.dsl.scope import LoadTimeContext
    from rulecraft.tools.words.text import join_and

    try:
        picked = z.initial.fn(LoadTimeContext())
    except Exception:  # noqa: BLE001 - worked out at the game's start (the loader said so if it is wrong)
        return []
    picked = [c for c in (picked if isinstance(picked, list) else [picked]) if isinstance(c, M.Card)]
    if not picked:
        return []
    ids = {c.id for c in picked}
    cp = rs.card_players  # copies in some games only: how many a game of each number of players lays out
    by_count = _ranges([(p, sum(1 for c in picked if c.index not in cp or p in cp[c.index]))
                        for p in range(rs.players.min, rs.players.max + 1)])
    many = ", ".join(f"{k} for {p} players" if not i else f"{k} for {p}" for i, (p, k) in enumerate(by_count)) \
        if len(by_count) > 1 else ""
    for cls in picked[0].classes:
        if all(cls in c.classes for c in picked) and not any(cls in c.classes for c in rs.cards if c.id not in ids):
            return [f"The {cls.replace('_', ' ')} cards ({many or len(picked)}) start in the {_zone_name(z)}."]
    names = list(dict.fromkeys(c.name for c in picked))
    if len(names) > 6:
        return [f"Some of the cards ({many}) start in the {_zone_name(z)}." if many else
                f"{len(picked)} of the {len(rs.cards)} cards start in the {_zone_name(z)}."]
    if many:
        return [f"These cards start in the {_zone_name(z)}: {join_and(names)} ({many})."]
    return [f"{'These ' + str(len(picked)) + ' cards start' if len(picked) > 1 else 'This card starts'} in the "
            f"{_zone_name(z)}: {join_and(names)}."]


def setup_lines(rs: M.Ruleset, w: Words, order: list[str], say=None) -> list[str]:
    """The aid's set-up: the designer's (`aid: setup:`), else what the table needs and what each player starts
    with, then the setup sequences' steps (or, with none, the zone the cards start in)."""
    chosen = rs.aid.get("setup")
    if chosen:
        return [w.label(str(x)) for x in ([chosen] if isinstance(chosen, str) else chosen)]
    sids = setup_sequences(rs, order)
    dealt = ("All the cards start", "The other cards start")  # the setup sequences deal from there
    start = [x for x in starting_lines(rs, w) if not (sids and x.startswith(dealt))]
    return start + setup_steps(rs, w, sids, say)



def first_player(rs: M.Ruleset, said: str, setup: list[str]) -> list[str]:
    """The line that tells the table to choose 'the first player', when the rules' text names them and neither the
    designer's set-up nor the worked-out one says who that is."""
    # ('for each player, play a turn' goes round the table from someone too)
    if rs.aid.get("setup") or not re.search(r"\bfirst player\b|\bthe first(?=[,.;:)]|$)|\bfor each player\b[^.\n]*"
                                            r"\bplay (?:a |their |the )?turn\b", said, re.I | re.M) \
            or any(re.search(r"\bfirst player\b", x, re.I) for x in setup):
        return []
    return ["Choose a first player; play goes clockwise from them."]

def _forms(title: str) -> list[str]:
    """The ways a text names a term: 'Dragon's Hoard' also as 'Hoard', 'Black Markets' also as 'Black Market'."""
    title = re.sub(r"^the ", "", title.strip())
    forms = [title, title[:-1] if title.endswith("s") and len(title) > 4 else ""]
    last = title.split()[-1] if " " in title else ""
    if last[:1].isupper() and len(last) >= 4 and "'" not in last:
        forms += [last, last[:-1] if last.endswith("s") else ""]
    return [f for f in dict.fromkeys(forms) if f]


def zone_doc(w: Words, z: M.ZoneDef) -> str:
    """What a place is: its `doc:`, else how many there are and who sees them; and for a pile that refills (`refill:`),
    what happens when it runs out."""
    said = _place_doc(w, z)
    source = w.rs.zones.get(z.refill) if z.refill else None
    if source is not None:
        whose = "your" if z.per == "player" and source.per == "player" else "the"
        said = said.rstrip() + ("" if said.rstrip().endswith((".", "!", "?")) else ".") \
            + f" When it runs out, shuffle {whose} {_zone_name(source)} to make a new one."
    return said


def _place_doc(w: Words, z: M.ZoneDef) -> str:
    if z.doc:
        return z.doc
    per = {None: "a shared place for cards", "player": "each player has their own",
           "dynamic": "places for cards made during play"}.get(
        z.per if not isinstance(z.per, tuple) else "", None) or f"one for each of {w.value(list(z.per))}"
    return capital(f"{per}, {VISIBILITY.get(z.visibility, z.visibility)}.")


def terms(rs: M.Ruleset, w: Words) -> list[tuple[str, str]]:
    """Every term a player meets, with what it means: the designer's (`aid: words:`) first, then the titled
    places, sequences and values that have a doc (a place always has one: how many, who sees it)."""
    out: list[tuple[str, str]] = [(w.label(str(k)), w.label(str(v))) for k, v in (rs.aid.get("words") or {}).items()]
    for z in rs.zones.values():
        if z.title and not z.title.endswith("(setup)"):
            out.append((_zone_name(z), zone_doc(w, z)))
    for seq in rs.sequences.values():
        if seq.doc and seq.title:
            out.append((seq.title, w.label(seq.doc)))
    for v in list(rs.variables.values()) + list(rs.player_variables.values()):
        if v.title and v.doc:
            out.append((capital(v.title.removeprefix("the ")), w.label(v.doc)))
    for f, doc in rs.function_docs.items():  # 'the player's receiver': a function titled "{q}'s receiver"
        title = rs.titles.get(f) or ""
        named = re.fullmatch(r"\{\w+\}'s ([\w ]+)", title)
        if doc and named and " " not in named.group(1):  # (a count or a value a title says is no term)
            out.append((named.group(1), w.label(doc)))  # ({NAME} values filled, as in a label)
    out += [t for t in variable_terms(rs, w) if t[0].lower() not in {x[0].lower() for x in out}]
    return out + ([] if rs.aid.get("key") else class_terms(rs))  # (a designer's card key says what the cards are)


def variable_terms(rs: M.Ruleset, w: Words) -> list[tuple[str, str]]:
    """A game variable with no `doc:` that names a player ('the opener'), defined by what the rules set it to, in
    order: 'First the first player, then the player after the opener.'"""
    from rulecraft.dsl import ast as A
    from rulecraft.model.kinds import own_statements

    values: dict[str, list[str]] = {}
    for _seq, step in rs.iter_steps():
        for st in own_statements(step):
            for n in st.ast.walk():
                if isinstance(n, A.Assign) and n.op == "=" and isinstance(n.target, A.Name) \
                        and n.target.id in rs.variables and not (isinstance(n.value, A.Name) and n.value.id == "none"):
                    said = w.expr(n.value)
                    if said not in values.setdefault(n.target.id, []):
                        values[n.target.id].append(said)
    out = []
    for vid, said in values.items():
        v = rs.variables[vid]
        if v.doc or not said or len(said) > 2 or not all("player" in x and len(x) <= 60 for x in said):
            continue  # (who it is, said shortly: 'the opener'; a count, a suit, a card says itself)
        name = (v.title or vid.replace("_", " ")).removeprefix("the ")
        if name in ("first", "last", "next", "current", "best"):  # a plain word of the rules, not a term
            continue
        out.append((name, capital(said[0]) if len(said) == 1 else f"First {said[0]}, then {said[1]}"))
    return out


def class_terms(rs: M.Ruleset) -> list[tuple[str, str]]:
    """Each class of card as a term ('reaction': which cards are reactions), named as the rules read it, in lower
    case: the cards that have it, by name; a class of many kinds, or one its cards' names already say, is none."""
    names: dict[str, list[str]] = {}
    for c in rs.cards:
        for cls in c.classes:
            if c.name not in names.setdefault(cls, []):
                names[cls].append(c.name)
    from rulecraft.tools.words.text import join_and

    return [(cls.replace("_", " "), f"{KIND_OF_CARD}{join_and(n)}") for cls, n in names.items()
            if len(n) <= 6 and not all(cls.replace("_", " ") in x.lower() for x in n)]  # ('Coin 1', 'Coin 2': said)


def words_box(rs: M.Ruleset, w: Words, texts: list[str]) -> list[tuple[str, str]]:
    """The terms the aid's own text uses (`texts`), each once, in the order the ruleset defines them."""
    said = "\n".join(texts)
    designer = {capital(str(k)) for k in (rs.aid.get("words") or {})}
    box, seen = [], set()
    for term, doc in terms(rs, w):
        key = term.lower()
        if key in seen or not doc:
            continue
        forms = _forms(term)  # 'the market row' names the Market row: a title of words is met in lower case too
        forms += [f[:1].lower() + f[1:] for f in forms if f[1:2].islower() and " " in f]  # ('stack': plain English)
        if capital(term) in designer or any(re.search(r"(?<![\w'])" + re.escape(f) + r"(?![\w'])", said)
                                            for f in forms):
            seen.add(key)
            box.append((capital(term), doc if doc.endswith((".", "!", "?")) else doc + "."))
    return box[:WORDS]


def card_texts(rs: M.Ruleset, shared: bool = False) -> list[tuple[str, str]]:
    """What the cards do (their `doc:`), one row per text in the order the cards come, named by the cards that
    say it. A text many cards share describes their whole group (a card of the deck), not a power: only with
    `shared` (the book), named by the first of them."""
    names: dict[str, list[str]] = {}
    for c in rs.cards:
        if c.text and c.name not in names.setdefault(c.text, []):
            names[c.text].append(c.name)
    return [(", ".join(n) if len(n) <= 3 else f"{n[0]} and {len(n) - 1} more", text) for text, n in names.items()
            if len(n) == 1 or shared]


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
