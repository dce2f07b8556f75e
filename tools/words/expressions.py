"""Phrases of expressions: each AST expression class writes its own, joining its children's phrases."""

from __future__ import annotations

from rulecraft.dsl import ast as A

from rulecraft.tools.words.core import _UNKNOWN, Words, article, humanize, join_and, phrase


@phrase(A.Num)
def _num(w: Words, n: A.Num) -> str:
    return w.value(n.value)


@phrase(A.Str)
def _str(w: Words, n: A.Str) -> str:
    if n.is_plain:
        return w.value("".join(n.parts))
    return w.text(n)


@phrase(A.Const)
def _const(w: Words, n: A.Const) -> str:
    return w.value(n.value)


@phrase(A.Name)
def _name(w: Words, n: A.Name) -> str:
    if w.detail != "full" and n.id in w.info.answers and n.id not in w.rs.variables:
        return "the answer is yes"  # a yes/no pick is read as the answer given
    return w.name(n.id)


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
    if thing.startswith("the ") or not owner.startswith(("the ", "a ", "an ")) or "'" in owner + thing or len(owner.split()) > 3 \
            or any(f" {p} " in f" {owner} " for p in ("of", "after", "before", "in", "for", "from", "with", "to")):
        return possessive(owner, thing)
    return owner + ("'" if owner.endswith("s") and not owner.endswith("ss") else "'s") + " " + thing


# an auction's or a response window's result, by field, for players: one result in play at a time
_RESULT_FIELDS = {"winner": "the winner", "price": "the price", "bid": "the winning bid",
                  "tied": "the players who tied", "dropped": "the players who dropped out"}
# a roll's fields for players (None: the field as a noun)
_ROLL_FIELDS = {"total": "the roll's total", "faces": "the dice", "success": "the roll succeeds",
                "doubles": "the roll is a double", "result": "the roll's result", "target": "the roll's target"}


def _is_roll(w: Words, e) -> bool:
    return isinstance(e, A.Name) and w.info.nouns.get(e.id, "r" == e.id and "roll") == "roll"


def players_attr(w: Words, n: A.Attr) -> str:
    """An attribute as players read it, or '' for the plain possessive."""
    if isinstance(n.obj, A.Name) and n.obj.id in w.info.results:
        return _RESULT_FIELDS.get(n.name, "the " + humanize(n.name))
    if _is_roll(w, n.obj) and n.name in _ROLL_FIELDS:
        return _ROLL_FIELDS[n.name]
    if n.name in w.info.flags:  # a yes/no player variable is a state, not a thing
        return f"{w.expr(n.obj)} is {w.attribute(n.name)}"
    thing = w.attribute(n.name)
    if w.you and isinstance(n.obj, A.Name) and n.obj.id == w.you:
        return "your " + thing
    if n.name in w.rs.player_variables and thing == humanize(n.name) and n.name.endswith("ed"):
        thing += " total"  # 'banked', 'scored': a participle is no noun
    return players_possessive(w.expr(n.obj), thing)


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
    return f"{w.expr(n.obj)} for {w.expr(n.key)}"


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
    "keys": "each of {0}", "sorted": "{0} in order", "reversed": "{0} in reverse order",
    "first": "the first of {0}", "last": "the last of {0}", "any": "any of {0}", "all": "all of {0}",
    "flatten": "all of {0} together", "unique": "{0} without repeats", "index_of": "the place of {1} in {0}",
    "zone_of": "the place where {0} lies", "owner": "the owner of {0}",
    "next_player": "the player after {0}", "modifier": "the {0} of {1}", "running": "the {0} being played",
    "in_sequence": "during {0}", "winners": "the winners", "str": "{0}", "int": "{0}", "plural": "{0}",
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
            return f"the {word} of {join_and(args)}" if word != "sorted" else f"{join_and(args)} in order"
        items = w.expr(head.right)
        key = _kw(w, n, "by")
        said = w.expr(key) if key is not None else ""
        if word == "sorted":
            return f"{items} in order" + (f" of {said}" if said and len(said) <= 40 else "")
        if said and len(said) <= 40:
            return f"the one of {items} with the {word} {said.removeprefix('the ')}"
        return f"the {word}-ranked of {items}"
    return fn


_SPECIAL = {"seat_order": _seat_order, "max": _max_min("highest"), "min": _max_min("lowest"),
            "highest": _ranking("highest"), "lowest": _ranking("lowest"), "sorted": _ranking("sorted")}


_PREPOSITIONS = ("in", "out", "on", "at", "still", "left", "not")


def players_call(w: Words, n: A.Call, args: list[str]) -> str:
    """A call as players read it, or '' for the usual phrase."""
    if n.func in w.rs.functions and not w.titles.get(n.func):
        name = humanize(n.func)
        if n.func in w.info.predicates and len(args) == 1:  # 'alive(p)': the player is alive
            verb = name.split()[0]
            return f"{args[0]} {name}" if verb in ("is", "has", "can", "may", "must", "holds") else f"{args[0]} is {name}"
        from rulecraft.tools.words.locals import _kind

        if not args and name.split()[0] in _PREPOSITIONS and _kind(w, w.rs.functions[n.func][1]) == "player":
            return f"the players {name}"  # 'in_play()': the players in play
    if n.func == "count" and n.args and _zone_like(w, n.args[0]):
        return f"the number of cards in {args[0]}"
    if n.func == "count" and args and args[0].startswith("the players "):
        return "the number of " + args[0].removeprefix("the ")
    if n.func == "next_player" and args and args[0] == "the player" and not n.kwargs:
        return "the next player"
    return ""


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
    if n.func in _BUILTINS and len(args) >= _BUILTINS[n.func].count("{1}") + _BUILTINS[n.func].count("{0}"):
        text = _BUILTINS[n.func].format(*args, "")
    else:
        text = f"the {humanize(n.func)}" + (f" of {join_and(args)}" if args else "")
    extra = [w.expr(k) for k in n.kwargs if n.func not in ("next_player",)]
    return text + (f" ({', '.join(extra)})" if extra else "")


def _function(w: Words, name: str, args: list[str]) -> str:
    """A ruleset function: its title (with {param} standing for an argument), or its name in words."""
    params = w.rs.functions[name][0]
    title = w.titles.get(name)
    if title and "{" in title:
        out = title
        for p, a in zip(params, args):
            out = out.replace("{" + p + "}", a)
        return out
    noun = title or humanize(name)
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
    if isinstance(n.element, A.Name) and n.element.id == n.var:
        return f"each {var} in {src}{where}"
    return f"{w.expr(n.element)} for each {var} in {src}{where}"


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
        return "the answer is no"
    said = w.expr(e)
    if said.count(" is ") == 1 and " is not " not in said:
        return said.replace(" is ", " is not ", 1)
    for yes, no in ((" succeeds", " fails"), (" can ", " cannot ")):
        if said.count(yes) == 1:
            return said.replace(yes, no, 1)
    return f"not {said}"


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
            return f"{w.expr(n.left)} or {w.expr(n.right.right)}"
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
    if n.op in ("==", "!=") and w.detail != "full" and _is_none(n.right):
        thing = w.expr(n.left).removeprefix("the ")
        return f"there is {'no ' + thing if n.op == '==' else article(thing)}"
    if n.op in ("==", "!=") and w.detail != "full" and isinstance(n.left, A.Attr) and n.left.name == "result" \
            and _is_roll(w, n.left.obj) and isinstance(w.constant(n.right), str):
        result = humanize(w.constant(n.right))
        return f"the roll is {'not ' if n.op == '!=' else ''}{result if result.endswith('s') else article(result)}"
    left, verb = w.expr(n.left), _COMPARE.get(n.op, n.op)
    if w.detail != "full" and verb.startswith("is") and plural(left):
        verb = "are" + verb[2:]
    return f"{left} {verb} {w.expr(n.right)}"


def plural(phrase: str) -> bool:
    """A noun phrase that is a plural noun, with or without an owner ("the player's chips", "the actions"), so
    its verb is 'are'."""
    import re

    return bool(re.fullmatch(r"the (?:[\w ]+'s? )?[a-z]{3,}(?<!ss)(?<!us)(?<!is)s", phrase)) and " of " not in phrase


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
