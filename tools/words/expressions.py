"""Phrases of expressions: each AST expression class writes its own, joining its children's phrases."""

from __future__ import annotations

import re

from rulecraft.dsl import ast as A

from rulecraft.tools.words.core import _UNKNOWN, Words, article, humanize, join_and, phrase
from rulecraft.tools.words.players import (_cards_with, _is_roll, _rows_with, answered, chose, chosen_option, negate,
                                           players_attr, players_call, players_possessive, possessive)
from rulecraft.tools.words.naming import ring_seat
from rulecraft.tools.words.text import each_in, plural, round_the_ring, table_key_titles


@phrase(A.Num)
def _num(w: Words, n: A.Num) -> str:
    return w.value(n.value)


@phrase(A.Str)
def _str(w: Words, n: A.Str) -> str:
    if n.is_plain:
        text = "".join(n.parts)
        if w.detail != "full" and text in key_titles(w):
            return key_titles(w)[text]  # 'market', a key of a table with a title: 'Market'
        return w.value(text)
    return w.text(n)


def key_titles(w: Words) -> dict:
    """`table_key_titles` of the ruleset, worked out once per renderer."""
    cached = getattr(w, "_key_titles", None)
    if cached is None:
        cached = w._key_titles = table_key_titles(w.rs)
    return cached


@phrase(A.Const)
def _const(w: Words, n: A.Const) -> str:
    return w.value(n.value)


@phrase(A.Name)
def _name(w: Words, n: A.Name) -> str:
    if w.detail != "full" and n.id in w.info.answers and n.id not in w.rs.variables:
        return answered(w, n.id, True)  # a yes/no pick is read as the answer given
    return w.name(n.id)


@phrase(A.Attr)
def _attr(w: Words, n: A.Attr) -> str:
    if w.detail != "full":
        return players_attr(w, n)
    return possessive(w.expr(n.obj), w.attribute(n.name))


@phrase(A.Index)
def _index(w: Words, n: A.Index) -> str:
    key = w.constant(n.key)
    if w.detail != "full" and isinstance(n.obj, A.Name):
        if n.obj.id == "players" and isinstance(key, int) and not isinstance(key, bool):
            return w.ordinal(key) + " player"
        if n.obj.id in w.info.picks:  # a sealed decision's record, read for one player
            return players_possessive(w.expr(n.key), "pick")
    if isinstance(key, int) and not isinstance(key, bool):
        return f"{w.ordinal(key)} of {w.expr(n.obj)}"
    return ring_seat(w, n) or round_the_ring(w, n.obj, n.key) or f"{w.expr(n.obj)} for {w.expr(n.key)}"


@phrase(A.Keyword)
def _keyword(w: Words, n: A.Keyword) -> str:
    return f"{humanize(n.name)} {w.expr(n.value)}"


_DIRECTIONS = {"cw": "clockwise", "ccw": "counter-clockwise"}


def _kw(w: Words, n: A.Call, name: str):
    for k in n.kwargs:
        if k.name == name:
            return k.value
    return None


def _seat_order(w: Words, n: A.Call, args: list[str]) -> str:
    d = _kw(w, n, "dir")
    dv = w.constant(d) if d is not None else "cw"
    text = f"each player in turn from {args[0]}" if args else "each player in turn"
    if dv in _DIRECTIONS and dv != "cw":
        text += f", {_DIRECTIONS[dv]}"
    inc = _kw(w, n, "include_start")
    if inc is not None and w.constant(inc) is False:
        text = text.replace("from ", "after ", 1)
    return text


# builtin name -> a phrase of its arguments' phrases (a function gets them all, a string formats the first two)
_BUILTINS = {
    "count": "the number of {0}", "empty": "{0} is empty", "sum": "the total of {0}", "abs": "the size of {0}",
    "ceil": "{0}, rounded up", "floor": "{0}, rounded down", "top": "the top card of {0}",
    "bottom": "the bottom card of {0}", "cards": "the cards of {0}", "random": "one of {0} at random",
    "shuffled": "{0} in a random order",
    "keys": "each of {0}", "sorted": "{0} in order", "reversed": "{0} in reverse order",
    "first": "the first of {0}", "last": "the last of {0}", "any": "any of {0}", "all": "all of {0}",
    "flatten": "all of {0} together", "unique": "{0} without repeats", "index_of": "the place of {1} in {0}",
    "zone_of": "the place where {0} lies", "owner": "the owner of {0}",
    "next_player": "the player after {0}", "modifier": "the {0} of {1}", "running": "the {0} being played",
    "in_sequence": "during {0}", "winners": "the winners", "str": "{0}", "int": "{0}", "plural": "{0}",
    "players_in": "the players still in",
    "tops": "the top cards of {0}", "count_empty": "the number of empty piles of {0}",
    "unique_keys": "those of {0} whose value no other has",
}


def _max_min(word: str):
    def fn(w: Words, n: A.Call, args: list[str]) -> str:
        return f"the {word} of {join_and(args, 'or') if len(args) > 1 else args[0]}"
    return fn


def _ranking(word: str):
    """highest(NAME in ITEMS, by: KEY) as 'the one of ITEMS with the highest KEY' (the key left out when long)."""
    def fn(w: Words, n: A.Call, args: list[str]) -> str:
        head = n.args[0] if n.args else None
        if not (isinstance(head, A.Compare) and head.op == "in" and isinstance(head.left, A.Name)):
            return f"the {word} of {join_and(args)}" if word != "sorted" else f"{join_and(args)}{_first(w, n)}"
        items = w.expr(head.right)
        key = _kw(w, n, "by")
        said = w.expr(key) if key is not None else ""
        if word == "sorted":
            if key is None or isinstance(key, A.Name) and key.id == head.left.id:  # 'by: x': the items themselves
                return items + _first(w, n)
            theirs = w.reading(head.left.id, "their", key) if w.detail != "full" else said
            said = theirs if theirs.startswith("their ") else said
            return f"{items} in order" + (f" of {said}" if said and len(said) <= 40 else "") + _first(w, n)
        if w.detail != "full" and isinstance(key, A.Attr) and isinstance(key.obj, A.Name) and key.obj.id == head.left.id:
            noun = w.local(head.left.id).removeprefix("the ")  # 'highest(q in players, by: q.points)'
            if items in ("the players", f"the {noun}s") or noun in ("player", "card"):
                return f"the {noun} with the {word} {w.attribute(key.name)}"
        if w.detail != "full" and key is not None and any(isinstance(x, A.Name) and x.id == head.left.id for x in key.walk()):
            theirs = w.reading(head.left.id, "their", key)  # 'by: strength_in(q, h)': the player with the
            noun = w.local(head.left.id).removeprefix("the ")  # highest strength in the harbor
            if theirs.startswith("their ") and (items in ("the players", f"the {noun}s") or noun in ("player", "card")):
                return f"the {noun} with the {word} {theirs.removeprefix('their ')}"
        if said and len(said) <= 40:
            return f"the one of {items} with the {word} {said.removeprefix('the ')}"
        return f"the {word}-ranked of {items}"
    return fn


def _first(w: Words, n: A.Call) -> str:
    """Which end of a sort comes first ('highest first'): `descending:` is the whole rule of a ranking."""
    d = _kw(w, n, "descending")
    if d is None or w.is_constant(d):
        return ", highest first" if d is not None and w.constant(d) else ", lowest first"
    return f", highest first if {w.expr(d)}, else lowest first"


_SPECIAL = {"seat_order": _seat_order, "max": _max_min("highest"), "min": _max_min("lowest"),
            "highest": _ranking("highest"), "lowest": _ranking("lowest"), "sorted": _ranking("sorted")}


@phrase(A.Call)
def _call(w: Words, n: A.Call) -> str:
    args = [w.expr(a) for a in n.args]
    if w.detail != "full":
        said = players_call(w, n, args)
        if said:
            return said
    if n.func in w.rs.functions:
        return _function(w, n.func, args)
    if n.func in _SPECIAL:
        return _SPECIAL[n.func](w, n, args)
    if n.func == "modifier" and len(args) == 1:
        args.append("everyone")
    if n.func == "in_sequence" and n.args and w.constant(n.args[0]) in w.rs.sequences:
        args[0] = w.name(w.constant(n.args[0]))
    if n.func == "count" and len(args) == 1 and args[0].startswith("each ") and w.detail != "full" \
            and isinstance(getattr(n.args[0], "ast", n.args[0]), A.Comprehension):
        return "the number of " + _those(args[0].removeprefix("each "))  # 'the number of players who are out'
    if n.func in _BUILTINS and len(args) >= _BUILTINS[n.func].count("{1}") + _BUILTINS[n.func].count("{0}"):
        text = _BUILTINS[n.func].format(*args, "")
    else:
        text = f"the {humanize(n.func)}" + (f" of {join_and(args)}" if args else "")
    extra = [w.expr(k) for k in n.kwargs if n.func not in ("next_player",)]
    if n.func == "next_player" and w.detail != "full" and any(w.constant(k.value) == "ccw" for k in n.kwargs):
        extra = ["counter-clockwise"]  # the End Phase's badge goes the other way round: never said as 'the next player'
    return text + (f" ({', '.join(extra)})" if extra else "")


def _those(one: str) -> str:
    """'player who is out' as 'players who are out', 'card in the Deck that has a crown' as 'cards in the Deck
    that have a crown': the things a count counts, named in the plural."""
    noun, _, rest = one.partition(" ")
    noun = noun[:-1] + "ies" if re.search(r"[^aeiou]y$", noun) else \
        noun + "es" if re.search(r"(s|x|z|ch|sh)$", noun) else noun + "s"
    rest = re.sub(r"\b(who|that) (is|has|was)\b", lambda m: f"{m[1]} {dict(is_='are', has='have', was='were')[m[2] + '_']}",
                  rest, count=1)
    return f"{noun} {rest}" if rest else noun


def _function(w: Words, name: str, args: list[str]) -> str:
    """A ruleset function: its title (with {param} standing for an argument), or its name in words."""
    params = w.rs.functions[name][0]
    title = w.titles.get(name)
    if title and "{" in title:
        out = title
        for p, a in zip(params, args):
            out = out.replace("{" + p + "}", a)
        return out.replace("their's ", "their ").replace("your's ", "your ")
    noun = title or humanize(name)
    if not title and len(args) == 1 and re.match(r"(?:is|has|can)_", name):  # a test of one: 'the player is shade'
        return f"{args[0]} {noun}"
    if not noun.startswith(("the ", "whether ", "how ")):
        noun = "the " + noun
    joiner = " " if noun.endswith((" of", " to", " for", " in", " from")) else " of "
    if w.detail != "full" and len(args) == 1 and joiner == " of " and noun.startswith("the "):
        return players_possessive(args[0], noun.removeprefix("the "))  # the player's round points
    return noun + (joiner + join_and(args) if args else "")


@phrase(A.ListLit)
def _list(w: Words, n: A.ListLit) -> str:
    return join_and([w.expr(i) for i in n.items]) if n.items else "nothing"


@phrase(A.Comprehension)
def _comprehension(w: Words, n: A.Comprehension) -> str:
    where = f" where {w.expr(n.condition)}" if n.condition is not None else ""
    src = w.expr(n.iterable)
    var = w.local(n.var).removeprefix("the ") if w.detail != "full" else humanize(n.var)
    everyone = w.detail != "full" and isinstance(n.iterable, A.Name) and n.iterable.id == "players"
    if everyone and isinstance(n.element, A.Attr) and isinstance(n.element.obj, A.Name) and n.element.obj.id == n.var \
            and n.condition is None:
        return f"every {var}'s {w.attribute(n.element.name)}"  # '[q.chips for q in players]'
    if w.detail != "full" and n.condition is not None and var in ("player", "card"):
        cond = w.expr(n.condition)  # 'each player whose score is the best', 'each card that is a resource'
        if cond.startswith(f"the {var}'s "):
            where = " whose " + cond[len(f"the {var}'s "):]
        elif cond.startswith(f"the {var} ") and cond.split(" ")[2] in ("is", "are", "has", "was", "can", "may"):
            where = (" who " if var == "player" else " that ") + cond[len(f"the {var} "):]
    if isinstance(n.element, A.Name) and n.element.id == n.var:
        if everyone or src == f"each {var}":  # 'keys(levees)' reads 'each levee' already
            return f"each {var}{where}"
        return f"each {each_in(var, src) if w.detail != 'full' else var + ' in ' + src}{where}"
    el = n.element
    if w.detail != "full" and isinstance(el, A.Index) and isinstance(el.obj, A.Name) and el.obj.id in w.rs.zones \
            and isinstance(el.key, A.Name) and el.key.id == n.var and n.condition is None:
        return f"all of {w.name(el.obj.id)}"  # '[docks[h] for h in keys(harbors)]': all of the Docks
    return f"{w.expr(n.element)} for each {each_in(var, src) if w.detail != 'full' else var + ' in ' + src}{where}"


@phrase(A.Unary)
def _unary(w: Words, n: A.Unary) -> str:
    if n.op == "-":
        return f"minus {w.expr(n.operand)}"
    if w.detail != "full":
        return negate(w, n.operand)
    return f"not ({w.expr(n.operand)})" if isinstance(n.operand, (A.BinOp, A.Compare)) else f"not {w.expr(n.operand)}"


_ARITH = {"+": "{0} plus {1}", "-": "{0} minus {1}", "*": "{0} times {1}", "/": "{0} divided by {1}",
          "//": "{0} divided by {1}, rounded down", "%": "the remainder of {0} divided by {1}"}


@phrase(A.BinOp)
def _binop(w: Words, n: A.BinOp) -> str:
    fixed = w.constant(n)
    if fixed is not _UNKNOWN:
        return "always" if fixed else "never"
    if n.op in ("and", "or"):
        a, b = w.constant(n.left), w.constant(n.right)
        # a house rule fixed for this ruleset decides the condition: say only what is left
        if n.op == "and":
            if a is not _UNKNOWN:
                return w.expr(n.right) if a else "never"
            if b is not _UNKNOWN:
                return w.expr(n.left) if b else "never"
        else:
            if a is not _UNKNOWN:
                return "always" if a else w.expr(n.right)
            if b is not _UNKNOWN:
                return "always" if b else w.expr(n.left)
        if w.detail != "full" and n.op == "or" and all(isinstance(x, A.Compare) and x.op == "==" for x in (n.left, n.right)) \
                and w.expr(n.left.left) == w.expr(n.right.left):  # 'the act is steal or coup'
            other = w.expr(n.right.right)
            if chose(w, n.right):  # 'the actor chose steal or coup'
                d, label = w.info.choices[n.right.left.id]
                other = chosen_option(w, d, label, w.constant(n.right.right)).removeprefix("to ")
            return f"{w.expr(n.left)} or {other}"
        return f"{w.expr(n.left)} {n.op} {w.expr(n.right)}"
    if w.detail != "full" and n.op in ("/", "//") and w.constant(n.right) == 2:
        return f"half {w.expr(n.left)}" + (", rounded down" if n.op == "//" else "")
    return _ARITH.get(n.op, "{0} " + n.op + " {1}").format(w.expr(n.left), w.expr(n.right))


_COMPARE = {"==": "is", "!=": "is not", "<": "is less than", "<=": "is at most", ">": "is more than",
            ">=": "is at least", "in": "is in", "not in": "is not in"}


@phrase(A.Compare)
def _compare(w: Words, n: A.Compare) -> str:
    fixed = w.constant(n)
    if fixed is not _UNKNOWN:
        return "always" if fixed else "never"
    said = chose(w, n) if w.detail != "full" else ""
    if said:  # 'act == "buy"': the player chose to buy
        return said
    if n.op in ("==", "!=") and w.detail != "full" and _is_none(n.right):
        thing = w.expr(n.left).removeprefix("the ")
        if thing == "responder":  # after a response window: whether anyone took it up
            return "nobody responded" if n.op == "==" else "someone responded"
        if thing.startswith("chosen ") and " " not in thing[7:]:  # a decision's answer: passed, or not
            return f"{'no ' + thing[7:] if n.op == '==' else article(thing[7:])} was chosen"
        return f"there is {'no ' + thing if n.op == '==' else article(thing)}"
    named = _cards_with(w, n) if n.op in ("==", "!=") and w.detail != "full" else ""
    if named:  # 'card.power == "confisfactor"': the card is the Supreme Confisfactor
        return f"{w.expr(n.left.obj)} is {'not ' if n.op == '!=' else ''}{named}"
    rows = _rows_with(w, n) if n.op in ("==", "!=") and w.detail != "full" else ""
    if rows:  # 'events[event_type].player_effect == "discard_random"': the Event type is Marauders
        return f"{w.expr(n.left.obj.key)} is {'not ' if n.op == '!=' else ''}{rows}"
    if n.op in ("==", "!=") and w.detail != "full" and isinstance(n.left, A.Attr) and n.left.name == "result" \
            and _is_roll(w, n.left.obj) and isinstance(w.constant(n.right), str):
        named = [r.shown() for d in w.rs.dice.values() for r in d.results if r.name == w.constant(n.right)]
        result = named[0] if named else humanize(w.constant(n.right))  # by the title players know it by
        return f"the roll is {'not ' if n.op == '!=' else ''}{result if result.endswith('s') else article(result)}"
    some = _ANY.get((n.op, n.right.value)) if isinstance(n.right, A.Num) else None
    if w.detail != "full" and some is not None and isinstance(n.left, A.Call) and n.left.func == "count" \
            and len(n.left.args) == 1 and _a_zone(w, n.left.args[0]):  # 'count(p.hand) == 0': the Hand is empty
        return f"{w.expr(n.left.args[0])} is {'not ' if some else ''}empty"
    if w.detail != "full" and some is not None and isinstance(n.left, A.Call) and n.left.func == "count" \
            and len(n.left.args) == 1 and isinstance(getattr(n.left.args[0], "ast", n.left.args[0]), A.Comprehension):
        those = w.expr(n.left.args[0])  # 'each card in the Deck whose rank is more than 5'
        if those.startswith("each "):
            return f"there is {article(those[5:]) if some else 'no ' + those[5:]}"
    if w.detail != "full" and some is not None and isinstance(n.left, A.Call) and n.left.func == "count" \
            and len(n.left.args) == 1 and re.match(r"the [a-z]+[^s]s\b(?! of)", said := w.expr(n.left.args[0])):
        those = said.removeprefix("the ")  # 'count(players_in()) > 0'
        return f"there are {'any' if some else 'no'} {those}"  # 'there are any players still in'
    left, verb = w.expr(n.left), _COMPARE.get(n.op, n.op)
    has = _has_any(w, n, left) if w.detail != "full" else ""
    if has:
        return has
    if w.detail != "full" and verb.startswith("is") and plural(left):
        verb = "are" + verb[2:]
    if w.detail != "full" and n.op in ("in", "not in") and isinstance(n.right, A.ListLit) and n.right.items:
        verb = verb.removesuffix(" in")  # 'box in ["fours", "fives"]': the box is Fours or Fives
        return f"{left} {verb} {join_and([w.expr(i) for i in n.right.items], 'or')}"
    return f"{left} {verb} {w.expr(n.right)}"


_ANY = {(">", 0): True, ("!=", 0): True, (">=", 1): True, ("==", 0): False, ("<=", 0): False, ("<", 1): False}


def _has_any(w: Words, n: A.Compare, left: str) -> str:
    """'p.chips > 0' as 'the player has chips', '== 0' as 'has no chips': a count of things a player holds, tested
    against none written as a number (a parameter is a rule's value and keeps its number)."""
    some = _ANY.get((n.op, n.right.value)) if isinstance(n.right, A.Num) else None
    if some is None or not (isinstance(n.left, A.Attr) and isinstance(n.left.obj, A.Name)):
        return ""
    owner, thing = w.expr(n.left.obj), w.attribute(n.left.name)
    if not (plural("the " + thing) or re.match(r"[A-Za-z][a-z]+[^s]s (?:to|in|left|still)\b", thing)):
        return ""  # ('Steps to take in a row': things the player has)
    if left != players_possessive(owner, thing) or not owner.startswith(("the ", "every ", "any ", "no ", "not every ")):
        return ""
    if owner.startswith("any ") and not some:  # 'any player has no coins'
        return f"{owner} has no {thing}"
    return f"{owner} has {'' if some else 'no '}{thing}"


def _a_zone(w: Words, e) -> bool:
    """A zone written as itself: `deck`, a player's `p.hand`, a keyed `stocks[k]`."""
    e = getattr(e, "ast", e)
    if isinstance(e, A.Index):
        e = e.obj
    name = e.id if isinstance(e, A.Name) else e.name if isinstance(e, A.Attr) else None
    return name in w.rs.zones


def _is_none(e) -> bool:
    return isinstance(e, A.Const) and e.value is None


@phrase(A.IsClass)
def _isclass(w: Words, n: A.IsClass) -> str:
    return f"{w.expr(n.obj)} is {'not ' if n.negate else ''}{article(humanize(n.cls))}"


@phrase(A.Ternary)
def _ternary(w: Words, n: A.Ternary) -> str:
    fixed = w.constant(n.cond)
    if fixed is not _UNKNOWN:
        return w.expr(n.then if fixed else n.other)
    return f"{w.expr(n.then)} if {w.expr(n.cond)}, otherwise {w.expr(n.other)}"


@phrase(A.Range)
def _range(w: Words, n: A.Range) -> str:
    return f"{w.expr(n.low)} to {w.expr(n.high)}"
