"""`turns`: the players take turns round the table, skipping those out, until one player is left in; and `rounds`
(at the end), the same for a game played in rounds rather than turns.

    - turns:
        from: "players[0]"              # who plays first (the default)
        dir: "'cw'"                     # 'cw' (the default) or 'ccw'
        each: player                    # the name of the player whose turn it is (the default)
        round: round                    # a variable the rounds are counted in, from 1 (leave out: none)
        until: "round > last_round"     # another end, asked before every turn (leave out: none)
        until_round: "deck.empty"       # an end asked only as a round ends, so the round is played out (leave out: none)
        again: "player.owed > 0"        # asked after each turn of a player still in: the same player plays again
        do:                             # the turn, with `player` bound
          - call: turn
            with: {player: player}

What games of elimination always write by hand: play passes to the next player still in (one put out during a
round loses the rest of it), a round is counted each time play comes back round past the first player's seat, and
the turns stop as soon as at most one player is still in (or, before a turn, `until:` holds; or, as play comes back
round past the first player's seat, `until_round:` holds: "the game ends at the end of the round", everyone having
had as many turns). With `again:` the same player takes another turn while it holds, asked after each of their turns
("doubles: roll again", "the next player takes two turns"): the ends are asked before it as before every turn.
The steps after it say what that means ("the last player in wins"). Expanded into plain steps (a let, a while, an
if), as the attack is (expansion.py).
"""

from __future__ import annotations

from typing import Optional

from ...dsl import ast as A
from ...dsl.parser import parse_expression, plain_locator
from ...model import ruleset as M
from ..yaml_source import YMap
from .expansion import _Gen, _plain, _steps_of, construct_settings, hidden, said_setting, within_budget

TURNS_KEYS = ("from", "dir", "each", "round", "until", "until_round", "again", "do")


def names(node: YMap) -> set[str]:
    """The local a turn order binds: the name of the player whose turn it is."""
    spec = node.get("turns")
    if not isinstance(spec, YMap):
        return set()
    return {str(_plain(spec.get("each"), "player"))} | {hidden("u", node, x) for x in ("start", "next")}


def turns(builder, node: YMap, common: dict, auto: str, loops: tuple) -> Optional[M.ConstructStep]:
    spec = construct_settings(builder, node, "turns", TURNS_KEYS, "a turn order", "from, until, do, ...")
    if spec is None:
        return None
    g = _Gen(builder, node, common, loops)
    P = str(_plain(spec.get("each"), "player"))
    g.user("FROM_", spec.get("from"), "players[0]")
    g.user("DIR_", spec.get("dir"), "'cw'")
    g.user("UNTIL_", spec.get("until"), "false")
    turn = tuple(builder.block(_steps_of(spec.get("do")), f"{auto}.do.", loops))
    L, S, N = (hidden("u", node, x) for x in ("turns", "start", "next"))
    R = spec.get("round")
    steps = [g.do(f"let {P} = FROM_; let {S} = {P}" + (f"; set {_plain(R)} = 1" if R is not None else ""))]

    def gone(x: str) -> str:  # how far round the table from the first player x sits, in the direction of play
        return (f"((({x}.seat - {S}.seat) if DIR_ != 'ccw' else ({S}.seat - {x}.seat)) + player_count) "
                "% player_count")
    # a round ends as play comes back round past the first player's seat: `until_round:` is asked then (before the
    # next round is counted), and the round is counted
    at_end = []
    if spec.get("until_round") is not None:
        g.user("UNTIL_ROUND_", spec.get("until_round"), "false")
        at_end = [g.if_("UNTIL_ROUND_", [g.do(f"break {L}", (L,))])]
    ends = at_end + ([g.do(f"{_plain(R)} += 1")] if R is not None else [])
    counting = [g.if_(f"{gone(N)} <= {gone(P)}", ends)] if ends else []
    onward = [g.do(f"let {N} = next_player({P}, dir: DIR_)"), *counting, g.do(f"set {P} = {N}")]
    if spec.get("again") is not None:  # another turn for the same player while it holds (asked only of one still in)
        g.user("AGAIN_", spec.get("again"), "false")
        if _always(g.subs["AGAIN_"]):
            builder.err("E204", "'again:' always holds here, so the first player would take turns for ever",
                        spec.get("again").span, "give a condition a turn changes, e.g. again: \"player.owed > 0\" "
                        "(the turns a player still owes, one taken after each); for a fixed number of turns each, "
                        "call the turn that many times in 'do:'")
        onward = [g.if_(f"{P}.out or not (AGAIN_)", onward)]
    steps.append(g.loop(L, [g.if_("count([q for q in players if not q.out]) <= 1 or UNTIL_", [g.do(f"break {L}", (L,))]),
                            g.if_(f"not {P}.out", list(turn)), *onward]))
    if not within_budget(builder, spec):
        return None
    until, until_round = spec.get("until"), spec.get("until_round")
    rule = (f"turns in seat order from {_plain(spec.get('from'), 'players[0]')}, skipping players out, until one "
            "player is left" + (f" or {_plain(until)}" if until is not None else "")
            + (f", or at the end of a round {_plain(until_round)}" if until_round is not None else "")
            + (f"; the same player plays again while {_plain(spec.get('again'))}" if spec.get("again") is not None
               else ""))
    settings = tuple((k, str(_plain(spec.get(k)))) for k in TURNS_KEYS if spec.get(k) is not None and k != "do")
    return M.ConstructStep(**common, construct="turns", rule=rule, settings=settings, run=tuple(steps),
                           parts=(("do", turn),) if turn else ())


def _always(cond) -> bool:
    """Whether a condition is a value written as such that always counts as true (true, a number other than 0)."""
    return isinstance(cond, (A.Const, A.Num)) and bool(cond.value)


def words(step: M.ConstructStep, w) -> str:
    """The turn order as players say it: who starts, which way, and when the turns stop."""
    st = dict(step.settings)
    first = said_setting(w, {"from": "players[0]", **st}, "from", "")
    until = _until(w, st)[0]
    until_round = said_setting(w, st, "until_round", "")
    way = "counter-clockwise" if "ccw" in st.get("dir", "") else "clockwise"
    ends = [f"until {until}"] if until else []
    ends += [f"until the end of a round when {until_round}"] if until_round else []
    again = said_setting(w, st, "again", "")
    more = f"; a player takes another turn while {again}" if again else ""
    if not _puts_out(w.rs):  # nobody is ever out (a game played together): the turns go on until a rule ends it
        return f"Turns go {way} from {first}" + (" " + ", or ".join(ends) if ends else "") + more
    return (f"Turns go {way} from {first}, skipping players out, until one is left" + "".join(f", or {e}" for e in ends)
            + more)


ROUNDS_KEYS = ("round", "until", "do")


def rounds_names(node: YMap) -> set[str]:
    return set()  # (its round counter is a game variable the designer declares)


def rounds(builder, node: YMap, common: dict, auto: str, loops: tuple) -> Optional[M.ConstructStep]:
    """"Rounds are played until one player is left": the `do` steps are a round (everyone plays at once, an auction
    a round, a hand dealt), played again and again until at most one player is still in or, before a round,
    `until:` holds; `round:` counts them. What a game of elimination played in rounds otherwise writes as a
    `repeat` and an `until` of its own. Expanded into plain steps (a loop, an if), as the turns are."""
    spec = construct_settings(builder, node, "rounds", ROUNDS_KEYS, "rounds", "round, until, do")
    if spec is None:
        return None
    g = _Gen(builder, node, common, loops)
    g.user("UNTIL_", spec.get("until"), "false")
    L = hidden("u", node, "rounds")
    body = tuple(builder.block(_steps_of(spec.get("do")), f"{auto}.do.", loops))
    R = spec.get("round")
    steps = ([g.do(f"set {_plain(R)} = 1")] if R is not None else []) + [
        g.loop(L, [g.if_("count([q for q in players if not q.out]) <= 1 or UNTIL_", [g.do(f"break {L}", (L,))]),
                   *body, *([g.do(f"{_plain(R)} += 1")] if R is not None else [])])]
    if not within_budget(builder, spec):
        return None
    until = spec.get("until")
    rule = "rounds until one player is left" + (f" or {_plain(until)}" if until is not None else "")
    settings = tuple((k, str(_plain(spec.get(k)))) for k in ROUNDS_KEYS if spec.get(k) is not None and k != "do")
    return M.ConstructStep(**common, construct="rounds", rule=rule, settings=settings, run=tuple(steps),
                           parts=(("do", body),) if body else ())


def rounds_words(step: M.ConstructStep, w) -> str:
    """The rounds as players say it: played until one is left, or the designer's end."""
    until, rounds_played = _until(w, dict(step.settings))
    if not _puts_out(w.rs):  # nobody is ever out: the rounds go on until the designer's end
        return f"Play {rounds_played} rounds" if rounds_played else "Rounds are played" + (f" until {until}" if until else "")
    return "Rounds are played until one player is left" + (f" or {until}" if until else "")


def _until(w, settings: dict) -> tuple[str, str]:
    """The `until:` of turns or rounds in words, a part that bounds the round counter said as the round it ends
    after ('the 7th round is over', never 'Round is more than 7'); and, when that bound is all of it, how many
    rounds are played ('7'), else ''."""
    said = said_setting(w, settings, "until", "")
    counter = settings.get("round")
    if not said or not counter:
        return said, ""
    try:
        cond = parse_expression(settings["until"], plain_locator())
    except Exception:  # noqa: BLE001 - a setting that is no expression is said as written
        return said, ""
    parts = [cond]
    while any(isinstance(p, A.BinOp) and p.op == "or" for p in parts):
        parts = [x for p in parts for x in ((p.left, p.right) if isinstance(p, A.BinOp) and p.op == "or" else (p,))]
    out, played = [], ""
    for part in parts:
        last = _last_round(w, part, counter)
        out.append(f"the {_nth(last)} round is over" if isinstance(last, int) else
                   f"round {last} is over" if last else w.expr(part))
        played = str(last) if len(parts) == 1 and isinstance(last, int) and last > 0 else ""
    return " or ".join(out), played


def _last_round(w, part, counter: str):
    """The last round a bound on the round counter lets be played (`round > 7`: 7; `round >= n`: n - 1), or the
    bound in words (`round > count(players)`: 'the number of players'); None when the part bounds no round."""
    if not isinstance(part, A.Compare) or part.op not in (">", ">=", "<", "<="):
        return None
    op, mine, other = (part.op, part.left, part.right) if isinstance(part.left, A.Name) and part.left.id == counter \
        else ({"<": ">", "<=": ">="}.get(part.op, ""), part.right, part.left)
    if not (isinstance(mine, A.Name) and mine.id == counter) or op not in (">", ">="):
        return None
    bound = w.constant(other) if w.is_constant(other) else None
    if isinstance(bound, int) and not isinstance(bound, bool):
        return bound if op == ">" else bound - 1
    return w.expr(other) if op == ">" else None


def _nth(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _puts_out(rs: M.Ruleset) -> bool:
    """Whether any step of the ruleset puts a player out (`add modifier out to ...`)."""
    from ...model.kinds import own_statements

    return any(isinstance(n, A.AddModifier) and n.modifier == "out"
               for _seq, s in rs.iter_steps() for st in own_statements(s) for n in st.ast.walk())
