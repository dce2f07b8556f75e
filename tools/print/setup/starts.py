"""Where everything is before the first step: the cards the table needs and the zone each starts in, what each
player starts with, and the game's own counters that start with a value (the set-up of the aid and the book)."""

from __future__ import annotations

import re

from rulecraft.model import ruleset as M

from rulecraft.tools.print.setup.deck import cards_by_players, class_counts, counted_name, deck_line, player_ranges
from rulecraft.tools.words import Words


def zone_name(z: M.ZoneDef) -> str:
    name = re.sub(r"\s*\([^)]*\)$", "", z.title or z.id.replace("_", " "))
    return re.sub(r"^the ", "", name, flags=re.I)


def starting_lines(rs: M.Ruleset, w: Words) -> list[str]:
    """What the table needs and where things are before the first step: the cards and dice, the cards a zone
    starts with, what each player starts with when that is more than nothing."""
    from rulecraft.tools.words.text import dice_name

    out = []
    n = len(rs.cards)
    kit = ([f"{n} cards"] if n else []) + [dice_name(d.count, d.sides) for d in rs.dice.values()]
    by_count = player_ranges(cards_by_players(rs))
    if len(by_count) > 1:  # the ruleset holds the copies of its largest game: say each game's own
        out.append("You need " + ", ".join(f"{k} cards for {p} players" if not i else f"{k} for {p}"
                                           for i, (p, k) in enumerate(by_count)) + ".")
        kit = kit[1:]
    deck = deck_line(rs) if len(by_count) <= 1 else ""
    if kit and (not deck or deck.startswith("The ") and not deck.startswith("The cards:")) and len(by_count) <= 1 \
            and (kinds := class_counts(rs)):  # (beside a line of one class's cards: 'The step cards: ...')
        kit[0] = kinds  # 'You need 12 rain, 3 storm and 3 lull cards.', not '18 cards' and no more
    if kit:
        out.append("You need " + w.value(kit) + ".")
    if deck:
        out.append(deck)
    for z in rs.zones.values():
        if z.initial == "all" and n:
            picks = any(isinstance(o.initial, M.CExpr) for o in rs.zones.values())
            out.append(f"{'The other' if picks else 'All the'} cards start in the {zone_name(z)}, shuffled.")
        elif isinstance(z.initial, M.CExpr) and z.per is None:
            out += _picked_start(rs, z)
    set_up = set_before_play(rs)
    for v in rs.player_variables.values():
        initial = v.initial
        if v.id in set_up:  # 'builds 12 walls' in the set-up steps: a start value of 0 before it only misleads,
            initial = _set_start(w, set_up[v.id])  # the one value they are all set to says what each starts with
            if initial is None:
                continue
        if isinstance(initial, M.CExpr) and w.is_constant(initial.ast):  # 'starting_coins': its value
            initial = w.constant(initial.ast)
        if v.visibility != "hidden" and _number(initial) and initial:  # (a count from 0 goes without saying, as
            # a game counter's: cinder-guild's 'Each player's turns taken starts at 0', four lines of them, was noise)
            name = re.sub(r"^the ", "", v.title or v.id.replace("_", " "), flags=re.I)
            name = name[:1].lower() + name[1:] if name[1:2].islower() else name
            from rulecraft.tools.words.text import plural

            out.append(f"Each player's {name} {'start' if plural('the ' + name) else 'starts'} at {w.value(initial)}.")
    return out + [x for v in rs.variables.values() if v.id not in set_up and (x := _game_start(w, v))]


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _game_start(w: Words, v: M.VarDef) -> str:
    """What a game's own titled counter starts at, where it starts at more than nothing ('The Sandbag pile starts at
    10.', 'The Water starts at: Mill levee 1, Bridge levee 2 and Orchard levee 0.'): the table sets it out before the
    first turn, and no rule says it (a counter from 0 goes without saying)."""
    from rulecraft.tools.words.expressions import key_titles
    from rulecraft.tools.words.text import join_and

    initial = v.initial
    if isinstance(initial, M.CExpr) and w.is_constant(initial.ast):  # '=pile_size': its value
        initial = w.constant(initial.ast)
    if not v.title or v.visibility == "hidden" or v.per_player:
        return ""
    name = re.sub(r"^the ", "", v.title, flags=re.I)
    if isinstance(initial, dict) and initial and all(map(_number, initial.values())) and any(initial.values()):
        titles = key_titles(w)
        return f"The {name} starts at: " + join_and([f"{titles.get(k, k)} {x}" for k, x in initial.items()]) + "."
    return f"The {name} starts at {w.value(initial)}." if _number(initial) and initial else ""


def set_before_play(rs: M.Ruleset) -> dict[str, list]:
    """The variables the start sequence sets (`set p.walls = ...`, `set pool[k] = ...`) before play begins, each with
    the (step path, value set) of every such setting: in its steps before the first loop that repeats (a `for_each`
    over the players deals, it does not play), or a call."""
    from rulecraft.dsl import ast as A
    from rulecraft.model.kinds import kind_of, own_statements

    out: dict[str, list] = {}

    def walk(steps) -> bool:  # False once play begins
        for s in steps:
            kind = kind_of(s)
            if kind is None or kind.call or (kind.loop and kind.key != "for_each") or kind.decides:
                return False
            for st in own_statements(s):
                for n in st.ast.walk():
                    if isinstance(n, A.Assign) and n.op == "=":  # a player's (p.walls), the game's (pool[k])
                        target = n.target.obj if isinstance(n.target, A.Index) else n.target
                        name = target.name if isinstance(target, A.Attr) else getattr(target, "id", "")
                        out.setdefault(name, []).append((s.path, n.value))
            if not all(walk(body) for _name, body in s.bodies):
                return False
        return True
    start = rs.sequences.get(rs.start)
    if start is not None:
        walk(start.steps)
    return out


def _set_start(w: Words, settings: list):
    """The one value every setting before play gives a player's variable, where it is known at load ('set p.chips =
    start_chips': 10), or None."""
    values = {w.constant(x) if w.is_constant(x) else None for _path, x in settings}
    return next(iter(values)) if len(values) == 1 else None


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
    by_count = player_ranges([(p, sum(1 for c in picked if c.index not in cp or p in cp[c.index]))
                        for p in range(rs.players.min, rs.players.max + 1)])
    many = ", ".join(f"{k} for {p} players" if not i else f"{k} for {p}" for i, (p, k) in enumerate(by_count)) \
        if len(by_count) > 1 else ""
    if len(picked) == len(rs.cards) and not many:  # (not '9 of the 9 cards')
        return [f"All the cards start in the {zone_name(z)}."]
    for cls in sorted(picked[0].classes):  # (a set: its order changes from one process to the next)
        if all(cls in c.classes for c in picked) and not any(cls in c.classes for c in rs.cards if c.id not in ids):
            return [f"The {cls.replace('_', ' ')} cards ({many or len(picked)}) start in the {zone_name(z)}."]
    names = list(dict.fromkeys(c.name for c in picked))
    if len(names) > 6:
        return [f"Some of the cards ({many}) start in the {zone_name(z)}." if many else
                f"{len(picked)} of the {len(rs.cards)} cards start in the {zone_name(z)}."]
    if many and len(names) > 1:  # how many of each for each number of players ('Ember ×26/33/40, Flame ×12')
        counts = range(rs.players.min, rs.players.max + 1)
        each = [[str(sum(1 for c in picked if c.name == n and (c.index not in cp or k in cp[c.index]))) for k in counts]
                for n in names]
        each = ["/".join(ks) if len(set(ks)) > 1 else ks[0] for ks in each]  # ('Beacon ×6/8/8', 'Flame ×12')
        return [f"These cards start in the {zone_name(z)} (for {'/'.join(map(str, counts))} players): "
                + join_and([f"{n} ×{k}" for n, k in zip(names, each)]) + "."]
    if many:
        return [f"These cards start in the {zone_name(z)}: {join_and(names)} ({many})."]
    counted = [counted_name(rs, n, [c for c in picked if c.name == n]) for n in names]  # 'Rope ×6 and Snow ×16'
    return [f"{'These ' + str(len(picked)) + ' cards start' if len(picked) > 1 else 'This card starts'} in the "
            f"{zone_name(z)}: {join_and(counted)}."]




def said_at_start(rs: M.Ruleset, w: Words, s: M.Step) -> bool:
    """A step without a designer's label that only sets players' values before play, each to the one value the
    set-up says they start with ('For each player: set the player's Coins to 20' under 'Each player's coins start at
    20'): the order of play need not say it again."""
    from rulecraft.dsl import ast as A
    from rulecraft.model.kinds import own_statements
    from rulecraft.tools.chart.sheetplan import designer_label

    set_up = set_before_play(rs)
    paths = {path for settings in set_up.values() for path, _x in settings}
    steps = list(M.walk_steps([s]))
    stmts = [(x, st.ast) for x in steps for st in own_statements(x)]
    if any(designer_label(x) for x in steps) or not stmts:
        return False
    for x, n in stmts:
        name = getattr(n.target, "name", None) if isinstance(n, A.Assign) and isinstance(n.target, A.Attr) else None
        if name not in rs.player_variables or x.path not in paths or rs.player_variables[name].visibility == "hidden":
            return False
        start = _set_start(w, set_up[name])
        if not (_number(start) and start):  # (the set-up says a start above nothing only)
            return False
    return True
