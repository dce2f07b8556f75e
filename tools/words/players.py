"""How expressions read for players (sheets, the aid, the book, `?`): owners with 's, yes/no values as states,
'not' where English puts it, lists of players by what they are. `expressions` calls these in players' detail;
the designer's view (`--detail full`) reads each expression as it is written."""

from __future__ import annotations

import re

from rulecraft.dsl import ast as A

from rulecraft.tools.words.core import Words, humanize, join_and
from rulecraft.tools.words.statements import places_joined
from rulecraft.tools.words.text import first_price_results


def _zone_like(w: Words, e) -> bool:
    """A zone, a player's zone, or one zone of a family: something that holds cards."""
    if isinstance(e, A.Name):
        return e.id in w.rs.zones
    if isinstance(e, A.Attr):
        return e.name in w.rs.zones
    if isinstance(e, A.Index):
        return isinstance(e.obj, A.Name) and e.obj.id in w.rs.zones
    return False


def possessive(owner: str, thing: str) -> str:
    """'p's Treasury' for a one-word owner, 'the Treasury of the active player' otherwise."""
    if " " not in owner:
        return f"{owner}'s {thing}"
    return f"the {thing} of {owner}" if not thing.startswith("the ") else f"{thing} of {owner}"


def players_possessive(owner: str, thing: str) -> str:
    """For players: "the player's chips", "the Market row's top"; the of-form where an 's would not read
    ("the top card of the player's Hand", "the Hand of the player after the dealer")."""
    import re

    m = re.match(r"(?:[Aa]n? player's|[Ee]ach player's|[Tt]he player's|[Yy]our|[Tt]heir) ", thing)
    if m and owner.startswith(("the ", "a ", "an ", "their", "your")):
        thing = thing[m.end():]  # a zone titled 'A player's lost roles': the owner says whose
    if owner in ("their", "your", "his", "her", "its"):
        return f"{owner} {thing.removeprefix('the ')}"
    if thing.startswith("the ") or not owner.startswith(("the ", "a ", "an ", "every ", "any ", "no ", "not every ")) or "'" in owner + thing or len(owner.split()) > 3 \
            or any(f" {p} " in f" {owner} " for p in ("of", "after", "before", "in", "for", "from", "with", "to")):
        return possessive(owner, thing)
    return owner + ("'" if owner.endswith("s") and not owner.endswith("ss") else "'s") + " " + thing


# an auction's or a response window's result, by field, for players: one result in play at a time
_RESULT_FIELDS = {"winner": "the winner", "price": "the price", "bid": "the winning bid",
                  "tied": "the players who tied", "dropped": "the players who dropped out",
                  "pot": "the stakes"}  # a round of betting's pot: what was staked in it, not the game's own pot
# a roll's fields for players (None: the field as a noun)
_ROLL_FIELDS = {"total": "the roll's total", "faces": "the dice rolled", "success": "the roll succeeds",
                "doubles": "the roll is a double", "result": "the roll's result", "target": "the roll's target"}


def _is_roll(w: Words, e) -> bool:
    return isinstance(e, A.Name) and w.info.nouns.get(e.id, "r" == e.id and "roll") == "roll"


def players_attr(w: Words, n: A.Attr) -> str:
    """An attribute as players read it, or '' for the plain possessive."""
    if isinstance(n.obj, A.Name) and n.obj.id in w.info.results:  # (a first-price auction's price: its highest bid)
        if w._first_price is None:
            w._first_price = first_price_results(w.rs)
        first = w._first_price.get(n.obj.id) if n.name == "price" else None
        return first or _RESULT_FIELDS.get(n.name, "the " + humanize(n.name))
    if _is_roll(w, n.obj) and n.name in _ROLL_FIELDS:
        return _ROLL_FIELDS[n.name]
    row = n.obj
    if isinstance(row, A.Index) and isinstance(row.obj, A.Name) and row.obj.id in w.rs.tables:
        from rulecraft.tools.words.locals import row_noun

        key = w.expr(row.key)  # 'harbors[h].points' with h one of the harbors: the harbor's points
        if row_noun(w, row.obj.id) and key.startswith("the ") and key.endswith(" " + row_noun(w, row.obj.id)):
            return players_possessive(key, humanize(n.name))
        fixed = w.constant(row.key)
        if isinstance(fixed, str) and n.name != "title" and key != fixed and key[:1].isupper() \
                and "title" in w.rs.tables[row.obj.id].columns:
            # a titled row named outright: 'track['gust'].spaces' reads 'the Gust spaces', not 'the spaces of the
            # track for Gust'
            return f"the {key} {w.attribute(n.name)}"
    if n.name in _ZONE_FIELDS and _zone_like(w, n.obj):  # 'prizes.empty' reads as 'empty(prizes)' does
        return w.expr(A.Call(n.span, _ZONE_FIELDS[n.name], n.name_span, (n.obj,), ()))
    if n.name == "player" and isinstance(n.obj, A.Name) and "player" not in w.rs.player_variables \
            and re.fullmatch(r"the \w+(?:er|or)", owner := w.expr(n.obj)):
        return owner  # 'loser.player': a record named for a person (a dropped bid) is that person, 'the loser'
    if n.name in w.info.flags:  # a yes/no player variable is a state, not a thing
        return f"{w.expr(n.obj)} is {w.attribute(n.name)}"
    thing = w.attribute(n.name)
    if n.name in w.rs.marks and thing == humanize(n.name) and re.fullmatch(r"[a-z]+_by", n.name):
        # a card's mark naming a player ('cast_by'): 'the player who cast the spell', never 'the spell's cast by'
        return f"the player who {n.name[:-3]} {w.expr(n.obj)}"
    if w.you and isinstance(n.obj, A.Name) and n.obj.id == w.you:
        return "your " + thing
    if n.name in w.rs.player_variables and thing == humanize(n.name) and _participle(n.name):
        owner = w.expr(n.obj)  # 'banked', 'bought': a participle is no noun
        if owner.startswith(("the ", "a ", "an ")) and " " not in owner.split(" ", 1)[1]:
            return f"what {owner} has {thing}"
        return f"what {'they have' if owner == 'their' else owner + ' has'} {thing}"
    return players_possessive(w.expr(n.obj), thing)


_ZONE_FIELDS = {"empty": "empty", "size": "count", "top": "top", "bottom": "bottom"}  # a zone's own attributes


def _participle(name: str) -> bool:
    return name.endswith("ed") or name in ("bought", "sold", "won", "lost", "kept", "held", "taken", "given", "paid",
                                           "spent", "drawn", "dealt", "shown")


_PREPOSITIONS = ("in", "out", "on", "at", "still", "left", "not")


def _a_list(phrase: str) -> bool:
    """A phrase naming some players or cards ('the players in play', 'the eligible players')."""
    return phrase.startswith("the ") and " of " not in phrase and bool(re.search(r"\b(players|cards)\b", phrase)) \
        and "'s" not in phrase


def players_call(w: Words, n: A.Call, args: list[str]) -> str:
    """A call as players read it, or '' for the usual phrase."""
    if n.func in w.rs.functions and not w.titles.get(n.func):
        name = humanize(n.func)
        if n.func in w.info.predicates and len(args) == 1:  # 'alive(p)': the player is alive
            verb = name.split()[0]
            return f"{args[0]} {name}" if verb in ("is", "has", "can", "may", "must", "holds") else f"{args[0]} is {name}"
        from rulecraft.tools.words.locals import _kind

        body = getattr(w.rs.functions[n.func][1], "ast", w.rs.functions[n.func][1])
        kind = _kind(w, body) if isinstance(body, A.Comprehension) else ""
        if not args and kind and name.split()[0] in _PREPOSITIONS:
            return f"the {kind}s {name}"  # 'in_play()': the players in play
        if not args and kind and not name.endswith("s"):
            return f"the {name} {kind}s"  # 'eligible()': the eligible players
    if n.func == "count" and n.args and isinstance(n.args[0], A.Call) and n.args[0].func == "keys" and n.args[0].args \
            and isinstance(n.args[0].args[0], A.Name):
        from rulecraft.tools.words.locals import _plural, row_noun

        noun = row_noun(w, n.args[0].args[0].id)
        if noun:  # 'count(keys(boxes))': the number of boxes
            return f"the number of {_plural(noun)}"
    if n.func == "sum" and n.args and isinstance(n.args[0], A.Comprehension):
        said = _total_of(w, n.args[0])
        if said:
            return said
    if n.func == "count" and n.args and _zone_like(w, n.args[0]):
        return f"the number of cards in {args[0]}"
    if n.func == "count" and args and _a_list(args[0]):
        return "the number of " + args[0].removeprefix("the ")
    if n.func == "empty" and args and args[0].startswith("the ") and args[0].endswith(" chosen") \
            and isinstance(n.args[0], A.Name) and n.args[0].id in w.info.nouns:  # a subset pick: none chosen
        noun = args[0][4:-7]
        return "nothing is chosen" if noun == "ones" else f"no {noun} are chosen"
    if n.func == "empty" and args and _a_list(args[0]):
        return "there are no " + args[0].removeprefix("the ")
    if n.func == "keys" and n.args and isinstance(n.args[0], A.Name):
        from rulecraft.tools.words.locals import row_noun

        if row_noun(w, n.args[0].id):
            return f"each {row_noun(w, n.args[0].id)}"  # 'keys(harbors)': each harbor
    if n.func == "flatten" and args and args[0].startswith("all of "):
        return args[0]  # all the zones of a family, together
    if n.func in ("all", "any") and n.args and isinstance(n.args[0], A.Comprehension) and n.args[0].condition is None:
        every = _every(w, n.args[0], "every" if n.func == "all" else "any")
        if every:
            return every
    if n.func == "random" and n.args and _zone_like(w, n.args[0]):
        return f"a card at random from {args[0]}"
    if n.func == "next_player" and args and args[0] == "the player" and not n.kwargs:
        return "the next player"
    return ""


def _total_of(w: Words, c) -> str:
    """'sum([c.worth for c in p.sold])' as 'the total worth of the cards in the player's Bought': a field added up
    over a list, said once (with the list's test: 'of the cards in the Hand that are resources')."""
    el = c.element
    if not (isinstance(el, A.Attr) and isinstance(el.obj, A.Name) and el.obj.id == c.var):
        return ""
    noun = w.local(c.var).removeprefix("the ")
    if noun not in ("card", "player"):
        return ""
    if (places := places_joined(c.iterable)) and c.condition is None:  # the cards in a player's Hand and Discard pile
        return f"the total {w.attribute(el.name)} of the {noun}s in {join_and([w.expr(z) for z in places])}"
    listed = w.expr(A.Comprehension(c.span, A.Name(el.obj.span, c.var), c.var, c.iterable, c.condition))
    if not listed.startswith(f"each {noun}"):
        return ""
    rest = listed.removeprefix(f"each {noun}")
    rest = re.sub(r"^ (who|that) is ", r" \1 are ", rest)
    return f"the total {w.attribute(el.name)} of the {noun}s{rest}"


def _every(w: Words, c, quantifier: str) -> str:
    """'all([empty(q.hand) for q in players])' as 'every player's Hand is empty' ('any player ...'): the test said
    once with its subject quantified, where the list is everyone (or each key of a table: 'any colour') and the test
    names its subject once."""
    from rulecraft.tools.words.locals import row_noun, truthy

    noun = "player" if isinstance(c.iterable, A.Name) and c.iterable.id == "players" else ""
    if isinstance(c.iterable, A.Call) and c.iterable.func == "keys" and len(c.iterable.args) == 1 \
            and isinstance(c.iterable.args[0], A.Name):  # 'any([pool[k] >= 4 for k in keys(colours)])': any colour
        noun = row_noun(w, c.iterable.args[0].id)
    if not noun or not truthy(c.element):
        return ""
    if sum(1 for x in c.element.walk() if isinstance(x, A.Name) and x.id == c.var) != 1:
        return ""
    return w.reading(c.var, f"{quantifier} {noun}", c.element)


_FLIP = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">", "in": "not in", "not in": "in"}


def negate(w: Words, e) -> str:
    """'not X' for players, the negation put where English puts it: "the Bag is not empty", "the answer is
    no", "the player is not alive"; 'not (A or B)' as 'not A and not B'."""
    if isinstance(e, A.Compare) and e.op in _FLIP:
        return w.expr(A.Compare(e.span, _FLIP[e.op], e.left, e.right))
    if isinstance(e, A.IsClass):
        return w.expr(A.IsClass(e.span, e.obj, e.cls, e.cls_span, not e.negate))
    if isinstance(e, A.Unary) and e.op == "not":
        return w.expr(e.operand)
    if isinstance(e, A.BinOp) and e.op in ("and", "or") and not w.is_constant(e):
        return f"{negate(w, e.left)} {'or' if e.op == 'and' else 'and'} {negate(w, e.right)}"
    if isinstance(e, A.Name) and e.id in w.info.answers and e.id not in w.rs.variables:
        return answered(w, e.id, False)
    if isinstance(e, A.Call) and e.func in ("all", "any") and e.args and isinstance(e.args[0], A.Comprehension) \
            and e.args[0].condition is None:
        said = _every(w, e.args[0], "not every" if e.func == "all" else "no")
        if said:
            return said
    said = w.expr(e)
    if said.startswith("there are no "):
        return "there are " + said.removeprefix("there are no ")
    if said.count(" is ") == 1 and " is not " not in said:
        return said.replace(" is ", " is not ", 1)
    for yes, no in ((" succeeds", " fails"), (" can ", " cannot ")):
        if said.count(yes) == 1:
            return said.replace(yes, no, 1)
    return f"not {said}"


def answered(w: Words, name: str, yes: bool) -> str:
    """A yes/no pick read as who gave which answer ('the player answers no', at the table 'you answer no'), or
    'the answer is no' where nobody in particular answers (a response window's answer)."""
    d = w.info.asked.get(name)
    decider = getattr(getattr(d, "player", None), "ast", None)
    word = "yes" if yes else "no"
    if d is None:
        return f"the answer is {word}"
    if w.you and isinstance(decider, A.Name) and decider.id == w.you:
        return f"you answer {word}"
    who = w.expr(d.player)
    return f"{who} answers {word}" if who.startswith("the ") and " " not in who[4:] else f"the answer is {word}"


def chose(w: Words, n) -> str:
    """A test of what a player chose ('act == "buy"') said as who chose what: "the player chose to buy" where the
    option is a verb the prompt or the step's label offers, "the player chose Foreign Aid" where `display:` names
    it, else the option as the menu names it ('the player chose “black market”'); '' when the name is no one player's choice of one value."""
    if not (isinstance(n, A.Compare) and n.op in ("==", "!=") and isinstance(n.left, A.Name)):
        return ""
    found = w.info.choices.get(n.left.id)
    none = isinstance(n.right, A.Const) and n.right.value is None or isinstance(n.right, A.Name) and n.right.id == "none"
    none = none and not w.expr(n.left).startswith("the chosen ")  # (that reads 'no card was chosen')
    value = "" if found and found[0].optional and none else w.constant(n.right)  # 'card != none': who passed
    if not found or not isinstance(value, str) or n.left.id in w.rs.variables:
        return ""
    d, label = found
    decider = getattr(d.player, "ast", d.player)
    who = "you" if w.you and isinstance(decider, A.Name) and decider.id == w.you else w.expr(d.player)
    if not who or who in ("the one", "the value", "the count"):
        return ""
    if not value:
        return f"{who} {'passed' if n.op == '==' else 'did not pass'}"
    verb = "chose" if n.op == "==" else "did not choose"
    return f"{who} {verb} {chosen_option(w, d, label, value)}"


def chosen_option(w: Words, d, label: str, value: str) -> str:
    """One option of a choice in words: its display name, 'to VERB' when the prompt or label offers it as a verb,
    else the value in words."""
    from rulecraft.tools.words.labels import _lookup

    shown = getattr(d.display, "ast", d.display)
    if isinstance(shown, A.Attr) and isinstance(shown.obj, A.Index):
        table, col = shown.obj.obj, shown.name
    else:
        table, col = (shown.obj if isinstance(shown, A.Index) else None), None
    if isinstance(table, A.Name) and table.id in w.rs.tables:
        title = _lookup(w.rs, f"{table.id}.{value}" + (f".{col}" if col else ""))
        if isinstance(title, str) and title:
            return f"“{title}”" if len(title.split()) > 2 else title  # a phrase on the menu, quoted
    word = humanize(value)
    prompt = getattr(d.prompt, "ast", d.prompt)
    offered = " ".join(p for p in getattr(prompt, "parts", ()) if isinstance(p, str)) + " . " + (label or "")
    # offered as a verb: at the start of a clause ('Buy from one Stock, or forfeit ...'), not after an article
    if re.search(rf"(?:^|[:;,.(]\s*|\b(?:or|and|then|to) ){re.escape(word)}\b(?!')", offered.strip(), re.IGNORECASE):
        return "to " + word
    return f"“{word}”"  # an option as the menu names it


def _rows_with(w: Words, n: A.Compare) -> str:
    """A lookup compared with a value (`T[k].col == 'v'`) as the rows that have it, by the name players know
    them by (the table's `title` or `name` column): 'Marauders', 'Decadence or Tax Relief'; '' if none."""
    look, value = n.left, w.constant(n.right)
    if not (isinstance(look, A.Attr) and isinstance(look.obj, A.Index) and isinstance(look.obj.obj, A.Name)
            and look.obj.obj.id in w.rs.tables and isinstance(value, str)):
        return ""
    t = w.rs.tables[look.obj.obj.id]
    named = next((c for c in ("title", "name") if c in t.columns), None)
    if named is None or look.name not in t.columns:
        return ""
    names = [str(t.rows[k].get(named)) for k in t.keys if t.rows[k].get(look.name) == value and t.rows[k].get(named)]
    return join_or(names) if names else "none of the " + (t.title or humanize(look.obj.obj.id))


def _cards_with(w: Words, n: A.Compare) -> str:
    """A card attribute compared with a value one or two cards have (`card.power == 'thief'`), as those cards by
    name ('the Red Joker or the Black Joker'): the value is the designer's id, the card's name is the players'."""
    value = w.constant(n.right)
    if not (isinstance(n.left, A.Attr) and isinstance(value, str) and value):
        return ""
    having = [c for c in w.rs.cards if c.attrs.get(n.left.name) == value]
    if not having or len(having) > 2 or len({c.name for c in having}) != len(having):
        return ""
    return join_or(["the " + c.name for c in having])


def join_or(items: list) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def offered(w: Words, d, asked: str = "") -> str:
    """What a one-of choice offers, where the ruleset writes its options out (a list of names, some only on a
    condition, or the keys of a titled table): 'The higher die, The lower die or Both dice (spend a Boost) (if the
    player has Boosts)'. '' where they are worked out in play (the cards of a hand, the players still in), or where
    a `display:` names them otherwise than by a table's titles: a reader asking 'what may I choose?' is told only
    what is true; and '' where the question `asked` already names every option ('Place a crate, or discard a
    card')."""
    if d is None or d.kind != "one" or d.options is None:
        return ""
    display = getattr(d.display, "ast", d.display)
    if display is not None and not (isinstance(display, A.Attr) and display.name == "title"):
        return ""
    parts = _offer_parts(w, getattr(d.options, "ast", d.options))
    if not parts or len(parts) < 2 or all(t.lower() in asked.lower() for t, _c in parts):
        return ""
    from rulecraft.tools.words.text import join_and

    unsaid = sum(1 for _t, cond in parts if cond and not _sayable(cond))  # one: marked; more: all the list
    items = [text + ("" if not cond else f" (if {cond})" if _sayable(cond) else " (only at times)" * (unsaid == 1))
             for text, cond in parts]
    return join_and(items + (["pass"] if d.optional else []), "or") + " (some only at times)" * (unsaid > 1)


_OFFER_IF = 45  # a condition an option is offered on, said beside it up to this length (longer: 'only at times')


def _sayable(cond: str) -> bool:
    return len(cond) <= _OFFER_IF and " for each " not in cond


def only_among(w: Words, d) -> str:
    """Which of a list a follow-up question lets a player pick, where its options are a table's keys or a list
    filtered by a short condition: ' (a levee where Water for the levee is more than 0)', so a reader knows a dry
    levee cannot be shored up; '' otherwise."""
    e = getattr(getattr(d, "options", None), "ast", None)
    if not (isinstance(e, A.Comprehension) and e.condition is not None and isinstance(e.element, A.Name)
            and e.element.id == e.var):
        return ""
    said = w.expr(e)
    if not said.startswith("each ") or " where " not in said or not _sayable(said.split(" where ", 1)[1]):
        return ""
    noun = said[5:]
    return f" ({'an' if noun[:1] in 'aeiou' else 'a'} {noun})"


def _offer_parts(w: Words, e):
    """The options an expression writes out, each with the condition it is offered on; None where it does not."""
    if isinstance(e, A.ListLit):
        if not all(isinstance(x, A.Num) or isinstance(x, A.Str) and x.is_plain for x in e.items):
            return None
        return [(w.expr(x), "") for x in e.items]
    if isinstance(e, A.BinOp) and e.op == "+":
        left, right = _offer_parts(w, e.left), _offer_parts(w, e.right)
        return None if left is None or right is None else left + right
    if isinstance(e, A.Ternary) and isinstance(e.other, A.ListLit) and not e.other.items:
        inner = _offer_parts(w, e.then)
        cond = w.expr(e.cond)
        return None if inner is None else [(t, f"{c} and {cond}" if c else cond) for t, c in inner]
    if isinstance(e, A.Call) and e.func == "keys" and len(e.args) == 1 and isinstance(e.args[0], A.Name):
        t = w.rs.tables.get(e.args[0].id)
        if t is None or "title" not in t.columns:
            return None
        titles = [row.get("title") for row in t.rows.values()]
        return [(str(x), "") for x in titles] if all(isinstance(x, str) and x for x in titles) else None
    return None
