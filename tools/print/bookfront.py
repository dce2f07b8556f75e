"""The book's teaching part, before the sequences: what the game is and how to win, what players handle,
setup, and the round and turn at a glance — all in words, from the ruleset."""

from __future__ import annotations

from rulecraft.dsl import ast as A
from rulecraft.model import ruleset as M

from rulecraft.tools.print.aid import _said, flow_lines
from rulecraft.tools.print.aidrules import score_roots, win_lines
from rulecraft.tools.print.aidwords import function_name, VISIBILITY
from rulecraft.tools.print.setup.steps import first_player, setup_lines, setup_sequences
from rulecraft.tools.chart.dotlabels import safe_id
from rulecraft.tools.words import Words
from rulecraft.tools.words.core import capital, sequence_title



def functions_used(rs: M.Ruleset) -> list[str]:
    """The ruleset functions that scoring and the winning interrupts use, each once, callers first."""
    out: list[str] = []
    roots = score_roots(rs) + list(rs.scoring.tie_break) + [t.when for t in rs.triggers]

    def visit(node) -> None:
        for n in node.walk() if node is not None else ():
            if isinstance(n, A.Call) and n.func in rs.functions and n.func not in out:
                out.append(n.func)
                visit(rs.functions[n.func][1])

    for root in roots:
        visit(getattr(root, "ast", root))
    return out


def tracks(rs: M.Ruleset, w: Words) -> list[str]:
    """What each player keeps count of on the table (coins, points): the titled player variables everyone or
    their owner sees that start as a number, each with its start ('Coins, 4 to start')."""
    out = []
    for v in rs.player_variables.values():
        initial = v.initial  # a start from a parameter ('=start_boosts') is its value: Boosts were left out
        if isinstance(initial, M.CExpr) and w.is_constant(initial.ast):
            initial = w.constant(initial.ast)
        if v.title and v.visibility != "hidden" and isinstance(initial, (int, float)) and not isinstance(initial, bool):
            out.append(f"{v.title}, {w.value(initial)} to start" if initial else v.title)
    return out


def kept_by_the_table(rs: M.Ruleset, z: M.ZoneDef) -> bool:
    """A zone only the rules handle: hidden from everyone, shared, and not where the game's cards start."""
    return z.visibility == "hidden" and z.per != "player" and z.initial != "all"


def family_names(w: Words, z: M.ZoneDef) -> str:
    """A family of zones' keys as players name them: each key's title where a table gives one ('Iron'), else the
    key in words with capitals ('Christin P'), never the id."""
    from rulecraft.tools.words.expressions import key_titles

    titles = key_titles(w)
    names = [titles.get(k) or (" ".join(x.capitalize() for x in str(k).replace("_", " ").split())
                               if isinstance(k, str) else str(k)) for k in z.per]
    return w.value(names)


def front(rs: M.Ruleset, order: list[str], anchor) -> dict:
    from rulecraft.tools.words.labels import plain_prose

    """The data of the teaching sections (`anchor(sid)` is a sequence's id on the page)."""
    w = Words(rs, detail="players")
    readers = Words(rs, titles={"p": "a player"}, detail="players")
    win, counted = win_lines(rs, w)
    explain = []
    for f in functions_used(rs):
        doc = plain_prose(readers.label(rs.function_docs.get(f, "")))
        if doc:  # a function the ruleset does not explain is no rule a player reads
            explain.append((capital(function_name(readers, rs, f)), doc))
    if not explain:  # no function counts the score: the aid's words for the rules that add to it, if any
        explain = list(counted)
    handled, kept = [], []
    for z in rs.zones.values():
        title = z.title or z.id.replace("_", " ")
        if kept_by_the_table(rs, z):
            kept.append(title)
        else:
            per = {None: "one, shared", "player": "one per player", "dynamic": "made during play"}.get(
                z.per if not isinstance(z.per, tuple) else "", None) or "one each for " + family_names(w, z)
            handled.append({"title": title, "anchor": "zone-" + safe_id(z.id), "per": per,
                            "visibility": VISIBILITY.get(z.visibility, z.visibility), "doc": z.doc})
    flow = [(d, t, what) for d, t, what in flow_lines(rs, w, None)]  # the book has room: every step
    by_title = {sequence_title(rs.sequences[s]): "#" + anchor(s) for s in order}
    return {
        "intro": f"{rs.title} is a game for {rs.players.min} players." if rs.players.min == rs.players.max else
                 f"{rs.title} is a game for {rs.players.min} to {rs.players.max} players"
                 + (f" (usually {rs.players.default})." if rs.players.default not in (rs.players.min, rs.players.max)
                    else "."),
        "win": win,
        "explain": explain,
        "zones": handled,
        "kept": kept,
        "tracks": tracks(rs, w),
        "setup": [("#" + anchor(s), rs.sequences[s].title) for s in setup_sequences(rs, order)],
        # the aid's set-up (where the cards start too), each step with what it holds, as the aid says it
        "setup_steps": (steps := [x if x.endswith((".", "?", "!")) else x + "."
                                  for x in setup_lines(rs, w, order, say=lambda s: _said(w, s))])
        + first_player(rs, "\n".join(win + [x for _d, _t, what in flow for x in what]), steps),
        "flow": [(d, t, what, by_title.get(t, "")) for d, t, what in flow],
    }
