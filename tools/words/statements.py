"""Phrases of statements: what a step does, as a sentence without its full stop."""

from __future__ import annotations

import re

from rulecraft.dsl import ast as A

from rulecraft.tools.words.core import Words, humanize, phrase


def _to(w: Words, dest, place: str) -> str:
    where = w.expr(dest)
    return f"to the bottom of {where}" if place == "bottom" else f"to {where}"


@phrase(A.Move)
def _move(w: Words, n: A.Move) -> str:
    if n.under is not None:  # 'put the Kitten back into the Deck with 2 cards above it'
        above = w.constant(n.under)
        cards = "no card" if above == 0 else "1 card" if above == 1 else f"{w.expr(n.under)} cards"
        return f"put {w.expr(n.what)} into {w.expr(n.dest)} with {cards} above it"
    return f"move {w.expr(n.what)} {_to(w, n.dest, n.place)}"


@phrase(A.Draw)
def _draw(w: Words, n: A.Draw) -> str:
    count = w.constant(n.count) if n.count is not None else 1
    many = w.expr(n.count) if n.count is not None else ""
    what = "a card" if count == 1 else many if re.search(r"\bcards$", many) else f"{many} cards"  # ('the card's cards')
    text = f"draw {what} from {w.expr(n.source)}"
    full = _up_to(w, n)
    if full is not None:  # 'draw 4 - row.size from supply to row': fill the row up to 4
        text = f"draw from {w.expr(n.source)} {_to(w, n.dest, n.place)} until it has {w.expr(full)} cards"
    elif n.dest is not None:
        text += " " + _to(w, n.dest, n.place)
    refill = _refill_zone(w, n.source)
    if refill is not None:
        text += f" (shuffle {w.expr(refill)} to make a new one when it runs out)"
    return text


def _up_to(w: Words, n: A.Draw):
    """The number a draw of `N - DEST.size` (or `N - count(DEST)`) fills its destination up to, or None."""
    c = n.count
    if not (isinstance(c, A.BinOp) and c.op == "-" and n.dest is not None):
        return None
    held = c.right
    zone = held.obj if isinstance(held, A.Attr) and held.name == "size" else \
        held.args[0] if isinstance(held, A.Call) and held.func == "count" and len(held.args) == 1 else None
    return c.left if zone is not None and w.expr(zone) == w.expr(n.dest) else None


def places_joined(e) -> list:
    """The places whose cards a list joins ('p.hand.cards + p.discard.cards'), each as itself; [] for anything else."""
    if isinstance(e, A.BinOp) and e.op == "+":
        left, right = places_joined(e.left), places_joined(e.right)
        return left + right if left and right else []
    if isinstance(e, A.Attr) and e.name == "cards" and isinstance(e.obj, (A.Attr, A.Name, A.Index)):
        return [e.obj]
    return []


def _refill_zone(w: Words, src):
    """The zone a draw's source is refilled from (`refill:`), written as the source is (the same player's or
    key's), or None."""
    name = src.id if isinstance(src, A.Name) else src.name if isinstance(src, A.Attr) else \
        src.obj.id if isinstance(src, A.Index) and isinstance(src.obj, A.Name) else None
    z = w.rs.zones.get(name) if name is not None else None
    if z is None or z.refill is None:
        return None
    if w.rs.zones[z.refill].per is None or isinstance(src, A.Name):
        return A.Name(src.span, z.refill)
    if isinstance(src, A.Attr):
        return A.Attr(src.span, src.obj, z.refill, src.name_span)
    return A.Index(src.span, A.Name(src.span, z.refill), src.key)


@phrase(A.Shuffle)
def _shuffle(w: Words, n: A.Shuffle) -> str:
    return f"shuffle {w.expr(n.zone)}"


@phrase(A.Reverse)
def _reverse(w: Words, n: A.Reverse) -> str:
    return f"turn {w.expr(n.zone)} over"


@phrase(A.Assign)
def _assign(w: Words, n: A.Assign) -> str:
    if w.detail != "full" and isinstance(n.target, A.Attr) and n.target.name in w.info.flags \
            and isinstance(n.value, A.Const) and isinstance(n.value.value, bool):
        return f"{w.expr(n.target.obj)} is {'now' if n.value.value else 'no longer'} {w.attribute(n.target.name)}"
    if w.detail != "full" and isinstance(n.target, A.Name) and n.target.id in w.rs.variables \
            and isinstance(n.value, A.Const) and isinstance(n.value.value, bool) and " is " in w.name(n.target.id):
        said = w.name(n.target.id)  # a yes/no variable titled as a clause: 'the act is stopped'
        # made false, it is a mark taken off: 'mark the crate as not blown away', not a claim that it is not
        return said if n.value.value else "mark " + said.replace(" is ", " as not ", 1)
    if w.detail != "full" and n.op == "=" and isinstance(n.target, A.Attr) and n.target.name in w.rs.marks \
            and re.fullmatch(r"[a-z]+_by", n.target.name) and w.attribute(n.target.name) == humanize(n.target.name):
        # 'set card.cast_by = q': a mark naming who did it, 'mark the card as cast by the player'
        return f"mark {w.expr(n.target.obj)} as {humanize(n.target.name)} {w.expr(n.value)}"
    target, value = w.expr(n.target), w.expr(n.value)
    if n.op == "=" and w.detail != "full" and ((isinstance(n.value, A.Const) and n.value.value is None)
                                               or (isinstance(n.value, A.ListLit) and not n.value.items)):
        return f"clear {target}"
    if n.op == "=" and w.detail != "full" and target == value and isinstance(n.value, A.Index) \
            and isinstance(n.value.obj, A.Name) and n.value.obj.id == "players" and isinstance(n.value.key, A.Num):
        value = f"the player in seat {n.value.key.value + 1}"  # 'set first = players[0]', first titled 'the first player'
    if n.op == "=" and w.detail != "full" and isinstance(n.value, A.Call) and n.value.func == "next_player" \
            and len(n.value.args) == 1 and w.expr(n.value.args[0]) == target \
            and all(k.name == "dir" and w.constant(k.value) in ("cw", "ccw") for k in n.value.kwargs):
        way = " counter-clockwise" if any(w.constant(k.value) == "ccw" for k in n.value.kwargs) else ""
        return f"the next player{way} becomes {target}"  # 'set opener = next_player(opener)': the role moves on
    if n.op == "=" and w.detail != "full" and isinstance(n.value, A.Comprehension) and isinstance(n.value.element, A.Ternary):
        return f"change {target}"  # a list remade item by item: say less than the code
    if n.op == "=" and w.detail != "full" and isinstance(n.value, A.Name) and value.startswith("the ") \
            and target.endswith(" " + value.removeprefix("the ")):
        value = _whose_pick(w, n.value.id, value)  # 'set the trump suit to the suit': whose suit?
    if n.op == "+=":
        return f"add {value} to {target}"
    if n.op == "-=":
        return f"take {value} from {target}"
    return f"set {target} to {value}"


def _whose_pick(w: Words, name: str, said: str) -> str:
    """A pick read by the kind it is ('the suit') where the value it is put in names that kind already: by who
    picked it ('the suit the caller chose'), else by how it came ('the chosen suit')."""
    decided = w.info.choices.get(name)
    if decided is not None and decided[0].player is not None:
        return f"{said} {w.expr(decided[0].player)} chose"
    noun = w.info.nouns.get(name, "")
    return f"the {noun}" if noun and noun != said.removeprefix("the ") else said


@phrase(A.Let)
def _let(w: Words, n: A.Let) -> str:
    if w.detail != "full":
        from rulecraft.tools.words.text import plural

        name, value = w.local(n.name), w.expr(n.value)
        verb = "are" if plural(name) or name.split(" ")[1:2] in (["cards"], ["players"]) else "is"
        if len(value) > 60:  # said in full it reads like code: name what is worked out, say less
            return f"work out {name}"
        return f"{name} {verb} {value}"  # 'the best player is ...', 'the base is ...'
    return f"note {w.expr(n.value)} as {humanize(n.name)}"


@phrase(A.Roll)
def _roll(w: Words, n: A.Roll) -> str:
    d = w.rs.dice.get(n.dice)
    dice = f"{d.count}d{d.sides}" if d is not None else n.dice
    who = w.expr(n.roller) + " rolls" if n.roller is not None else "roll"
    against = f" against {w.expr(n.against)}" if n.against is not None else ""
    return f"{who} {dice}{against}"


@phrase(A.Break)
def _break(w: Words, n: A.Break) -> str:
    if w.detail != "full":
        return f"stop {humanize(n.loop)}" if n.loop and n.loop.endswith("ing") and "_" not in n.loop else "stop repeating"
    return f"stop the {humanize(n.loop)}" if n.loop else "stop repeating"


@phrase(A.Continue)
def _continue(w: Words, n: A.Continue) -> str:
    return f"go on with the next pass of the {humanize(n.loop)}" if n.loop else "go on with the next pass"


@phrase(A.End)
def _end(w: Words, n: A.End) -> str:
    return f"the {humanize(n.kind)} ends"


def keywords(w: Words, kwargs) -> str:
    return ", ".join(w.expr(k) for k in kwargs)


@phrase(A.CallSeq)
def _callseq(w: Words, n: A.CallSeq) -> str:
    args = keywords(w, n.kwargs) if w.detail == "full" else ""
    if n.target is not None:  # call TABLE[KEY].COLUMN
        return f"play what {w.expr(n.target)} says" + (f" ({args})" if args else "")
    return f"play {w.name(n.sequence)}" + (f" ({args})" if args else "")


@phrase(A.Emit)
def _emit(w: Words, n: A.Emit) -> str:
    if w.detail != "full":  # what it carries is the engine's business: players hear that it happens
        return f"announce the {humanize(n.event)}"
    args = keywords(w, n.kwargs)
    return f"announce {humanize(n.event)}" + (f" ({args})" if args else "")


@phrase(A.Log)
def _log(w: Words, n: A.Log) -> str:
    return f"tell everyone: {w.text(n.message)}"


@phrase(A.Tell)
def _tell(w: Words, n: A.Tell) -> str:
    return f"tell {w.expr(n.player)} only: {w.text(n.message)}"


@phrase(A.Show)
def _show(w: Words, n: A.Show) -> str:
    return f"show {w.expr(n.what)} to {w.expr(n.player)}"  # (privately: a show to all is an open zone)


@phrase(A.Win)
def _win(w: Words, n: A.Win) -> str:
    if isinstance(n.who, A.ListLit) and not n.who.items:  # `win []`: a game everyone loses ('Nothing wins')
        return "nobody wins the game"
    who = w.expr(n.who)  # a list said in the plural ('the players still in') takes 'win'
    if who == "the players":  # everyone wins together (a cooperative game): not 'The players wins'
        return "every player wins the game"
    return f"{who} {'win' if who.startswith(('the players ', 'the winners')) else 'wins'} the game"


def _modifier(w: Words, ident: str) -> str:
    m = w.rs.modifiers.get(ident)
    return f"“{humanize(ident)}”"if m is None or not m.doc else f"“{humanize(ident)}” ({m.doc.rstrip('.')})"


@phrase(A.AddModifier)
def _add_modifier(w: Words, n: A.AddModifier) -> str:
    who = w.expr(n.target) if n.target is not None else "everyone"
    if w.you and isinstance(n.target, A.Name) and n.target.id == w.you:  # `?` speaks to the one asked
        who = "you"
    value = f" of {w.expr(n.value)}" if n.value is not None else ""
    if w.detail != "full" and n.value is not None:  # 'value 1' is the modifier once: players read no number
        value = "" if w.constant(n.value) == 1 else f" worth {w.expr(n.value)}"
    what = f"{'get' if who == 'you' else 'gets'} {_modifier(w, n.modifier)}{value}"
    if _out(w, n.modifier) and n.target is not None and n.value is None:  # a state, said by its plain word
        what = "are out" if who == "you" else "is out"
        if not n.next and n.until == "game":
            return f"{who} {what} for the rest of the game"
    if n.next:  # the owner's next turn (a modifier on everyone: the next turn anyone starts)
        whose = "your" if who == "you" else "the next" if n.target is None else "their"
        return f"{who} {what} until {whose} next {humanize(n.until)}"
    return f"{who} {what} until the end of the {humanize(n.until)}"


@phrase(A.RemoveModifier)
def _remove_modifier(w: Words, n: A.RemoveModifier) -> str:
    who = w.expr(n.target) if n.target is not None else "everyone"
    if _out(w, n.modifier) and n.target is not None:
        return f"{who} {'are' if who == 'you' else 'is'} back in"
    return f"{who} loses {_modifier(w, n.modifier)}"


def _out(w: Words, ident: str) -> bool:
    """The built-in modifier `out` (a player left out of every order of play), in players' words."""
    m = w.rs.modifiers.get(ident)
    return ident == "out" and w.detail != "full" and (m is None or not m.doc)


@phrase(A.CreateZone)
def _create_zone(w: Words, n: A.CreateZone) -> str:
    z = w.rs.zones.get(n.family)
    name = z.title if z is not None and z.title else humanize(n.family)
    return f"open a new place among the {name}"


@phrase(A.Tally)
def _tally(w: Words, n: A.Tally) -> str:
    key = f" under {w.expr(n.key)}" if n.key is not None else ""
    value = w.expr(n.value) if n.value is not None else "1"
    return f"count {value} for {humanize(n.metric)}{key}"


@phrase(A.Pass)
def _pass(w: Words, n: A.Pass) -> str:
    return "do nothing"


@phrase(A.Assert)
def _assert(w: Words, n: A.Assert) -> str:
    return f"check that {w.expr(n.cond)}"
