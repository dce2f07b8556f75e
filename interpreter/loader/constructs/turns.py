"""`turns`: the players take turns round the table, skipping those out, until one player is left in.

    - turns:
        from: "players[0]"              # who plays first (the default)
        dir: "'cw'"                     # 'cw' (the default) or 'ccw'
        each: player                    # the name of the player whose turn it is (the default)
        round: round                    # a variable the rounds are counted in, from 1 (leave out: none)
        until: "round > last_round"     # another end, asked before every turn (leave out: none)
        do:                             # the turn, with `player` bound
          - call: turn
            with: {player: player}

What games of elimination always write by hand: play passes to the next player still in (one put out during a
round loses the rest of it), a round is counted each time play comes back round past the first player's seat, and
the turns stop as soon as at most one player is still in (or, before a turn, `until:` holds).
The steps after it say what that means ("the last player in wins"). Expanded into plain steps (a let, a while, an
if), as the attack is (expansion.py).
"""

from __future__ import annotations

from typing import Optional

from ...model import ruleset as M
from ..yaml_source import YMap
from .expansion import _Gen, _plain, _steps_of, construct_settings, hidden, said_setting, within_budget

TURNS_KEYS = ("from", "dir", "each", "round", "until", "do")


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
    counting = [g.if_(f"{gone(N)} <= {gone(P)}", [g.do(f"{_plain(R)} += 1")])] if R is not None else []
    steps.append(g.loop(L, [g.if_("count([q for q in players if not q.out]) <= 1 or UNTIL_", [g.do(f"break {L}", (L,))]),
                            g.if_(f"not {P}.out", list(turn)),
                            g.do(f"let {N} = next_player({P}, dir: DIR_)"), *counting,
                            g.do(f"set {P} = {N}")]))
    if not within_budget(builder, spec):
        return None
    until = spec.get("until")
    rule = (f"turns in seat order from {_plain(spec.get('from'), 'players[0]')}, skipping players out, until one "
            "player is left" + (f" or {_plain(until)}" if until is not None else ""))
    settings = tuple((k, str(_plain(spec.get(k)))) for k in TURNS_KEYS if spec.get(k) is not None and k != "do")
    return M.ConstructStep(**common, construct="turns", rule=rule, settings=settings, run=tuple(steps),
                           parts=(("do", turn),) if turn else ())


def words(step: M.ConstructStep, w) -> str:
    """The turn order as players say it: who starts, which way, and when the turns stop."""
    st = dict(step.settings)
    first = said_setting(w, {"from": "players[0]", **st}, "from", "")
    until = said_setting(w, st, "until", "")
    way = "counter-clockwise" if "ccw" in st.get("dir", "") else "clockwise"
    if not _puts_out(w.rs):  # nobody is ever out (a game played together): the turns go on until a rule ends it
        return f"Turns go {way} from {first}" + (f" until {until}" if until else "")
    return f"Turns go {way} from {first}, skipping players out, until one is left" + (f" or {until}" if until else "")


def _puts_out(rs: M.Ruleset) -> bool:
    """Whether any step of the ruleset puts a player out (`add modifier out to ...`)."""
    from ...dsl import ast as A
    from ...model.kinds import own_statements

    return any(isinstance(n, A.AddModifier) and n.modifier == "out"
               for _seq, s in rs.iter_steps() for st in own_statements(s) for n in st.ast.walk())
