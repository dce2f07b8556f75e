"""The end of a game: scores, the metrics it tallies, the winners."""

from __future__ import annotations

from typing import Any

from ...diagnostics import RuleError
from ...dsl.builtins import describe


def finish(g) -> None:
    """The game is over: score it and decide the winners unless a rule already did."""
    g.frames.clear()
    g.over = True
    rs = g.rs
    sc = rs.scoring
    if sc.score is not None:
        fn = _running(sc.score.fn, g)
        scores = []
        for p in g.players:
            g.locals = {"p": p}
            scores.append(fn(g))
        g.scores = scores
    if g.winners is None:
        g.winners = decide_winners(g)
    if rs.metrics:
        end_metrics(g)
    if not g.story:  # nobody reads the lines below: not worked out
        return
    names = ", ".join(g.players[s].name for s in g.winners) if g.winners else "nobody"
    if g.scores is not None:
        g.say("Scores: " + ", ".join(f"{p.name} {s}" for p, s in zip(g.players, g.scores)))
    g.say(f"Winner: {names}")

def end_metrics(g) -> None:
    """Work out the per_player metrics (for each player, `p` bound) and the per_game ones, into the tallies."""
    won = set(g.winners or ())
    for m in g.rs.metrics.values():
        if m.kind == "per_player":
            for p in g.players:
                g.locals = {"p": p}
                key = m.by.fn(g) if m.by is not None else None
                value = m.value.fn(g) if m.value is not None else (1 if p.seat in won else 0)
                g.tally(m.id, key, value, m.span)
        elif m.kind == "per_game":
            g.locals = {}
            key = m.by.fn(g) if m.by is not None else None
            g.tally(m.id, key, m.value.fn(g) if m.value is not None else 1, m.span)
    g.locals = {}

def decide_winners(g) -> list[int]:
    sc = g.rs.scoring
    if g.scores is None:
        return []
    sign = 1 if sc.highest_wins else -1
    breaks = [(_running(t.fn, g), t, few) for t, few in zip(sc.tie_break, sc.fewest or (False,) * len(sc.tie_break))]
    keys = []
    one = breaks[0] if len(breaks) == 1 else None  # (one tie-break, the usual: its key without a comprehension)
    for p, s in zip(g.players, g.scores):
        if isinstance(s, bool) or not isinstance(s, (int, float)):
            raise RuleError(f"the score of {p} is {describe(s)}, not a number, so no winner can be picked",
                            sc.score.span if sc.score is not None else sc.span)
        g.locals = {"p": p}
        if one is not None:
            keys.append((sign * s, (_fewest(one[1], g, p) if one[2] else one[0](g),)))
        else:
            keys.append((sign * s, tuple([_fewest(t, g, p) if few else fn(g) for fn, t, few in breaks])))
    try:
        best = max(keys)
    except TypeError:
        raise RuleError("the tie_break values cannot be compared: "
                        + "; ".join(f"{p}: {', '.join(describe(v) for v in k[1])}" for p, k in zip(g.players, keys)),
                        sc.tie_break[0].span if sc.tie_break else sc.span) from None
    top = [i for i, k in enumerate(keys) if k == best]
    if len(top) > 1 and sc.on_tie == "nobody":
        return []
    return top


def _fewest(t, g, p) -> Any:
    """A tie-break the fewest wins ({fewest: ...}): its value turned round, so the highest key is the fewest."""
    v = t.fn(g)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise RuleError(f"a tie-break the fewest wins needs a number, got {describe(v)} for {p}", t.span)
    return -v


def _running(fn, g):
    """The function a compiled game calls for the expression `fn`: its written one, once written (`hot`:
    closures/whole.py, `noted`); a reference game runs the closure."""
    return getattr(fn, "hot", fn) if g.compiled else fn
