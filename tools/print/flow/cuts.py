"""Which lines of a long sequence the aid's order of play keeps: never a rule that changes the score, puts a player
out or ends the game (last-light's hand cut its lives lost); a value the steps set goes first, a decision last; and
every list of the aid cut to MAX_ITEMS lines (`bounded`)."""

from __future__ import annotations

from rulecraft.dsl import ast as A
from rulecraft.model import ruleset as M
from rulecraft.model.kinds import decides, own_statements
from rulecraft.tools.chart.sheetplan import designer_label


def _scored(rs: M.Ruleset) -> set[str]:
    """The names the scoring reads: a player's value it counts or breaks ties by."""
    sc = rs.scoring
    exprs = [sc.score, *sc.tie_break] if sc is not None else []
    return {getattr(n, "name", None) or getattr(n, "id", "") for e in exprs if e is not None
            for n in e.ast.walk() if isinstance(n, (A.Attr, A.Name))}


def vital(rs: M.Ruleset, s: M.Step, seen: frozenset = frozenset()) -> bool:
    """A step that (or a step inside which, or a sequence it calls) names a winner, ends the game, puts a player out
    or changes what the score counts."""
    scored = _scored(rs)
    for x in M.walk_steps([s]):
        for st in own_statements(x):
            for n in st.ast.walk():
                if isinstance(n, A.Win) or isinstance(n, A.End) and n.kind == "game" \
                        or isinstance(n, A.AddModifier) and n.modifier == "out":
                    return True
                if isinstance(n, A.Assign) and (getattr(n.target, "name", None) or getattr(n.target, "id", "")) in scored:
                    return True
                if isinstance(n, A.CallSeq) and n.sequence in rs.sequences and n.sequence not in seen \
                        and any(vital(rs, y, seen | {n.sequence}) for y in rs.sequences[n.sequence].steps):
                    return True
    return False


def _asks(s: M.Step) -> bool:
    """A step that (or a step inside which) puts a decision to a player, or is a key mechanic (a trick, an auction)."""
    return any(decides(x) for x in M.walk_steps([s]))


def _a_value_set(s: M.Step) -> bool:
    """A step of the designer's giving no label that only sets values ('Set Leader to the player after Dealer')."""
    stmts = [st.ast for st in own_statements(s)] if not designer_label(s) and not s.bodies else []
    return bool(stmts) and all(isinstance(n, A.Assign) for n in stmts)


def cut(rs: M.Ruleset, lines: list[tuple[str, M.Step]], items: int) -> list[str]:
    """At most `items` lines: the lines cut said in one last line where the last of them was ('…and 2 more steps:
    see the sheets'); values set go first, then steps without a label that ask nobody anything, then the other steps
    that ask nothing, then the rest, each from the last; never a vital one."""
    if len(lines) <= items:
        return [x for x, _s in lines]
    keep = {i for i, (_x, s) in enumerate(lines) if vital(rs, s)}
    last_first = [i for i in reversed(range(len(lines))) if i not in keep]
    order = [i for i in last_first if _a_value_set(lines[i][1])]  # then steps in the engine's words, asking nothing
    order += [i for i in last_first if i not in order and not designer_label(lines[i][1]) and not _asks(lines[i][1])]
    order += [i for i in last_first if i not in order and not _asks(lines[i][1])]
    order += [i for i in last_first if i not in order]
    gone = set(order[:len(lines) - items + 1])
    if not gone:
        return [x for x, _s in lines]
    last = max(gone)
    out = []
    for i, (x, _s) in enumerate(lines):
        if i == last:
            out.append(f"…and {len(gone)} more steps: see the sheets")
        elif i not in gone:
            out.append(x)
    return out


MAX_ITEMS = 40  # lines of one list the aid prints (the bundled aids' longest: 17): 15,000 parameters were ~300 pages


def bounded(view) -> None:
    """Every list of the aid (an AidView) cut to MAX_ITEMS, a last line saying how many more the rulebook gives: a stranger's
    ruleset of 15,000 parameters had Chromium print their hundreds of pages up to six times (security.md, 21)."""
    def cut(items: list, more) -> list:
        n = len(items) - MAX_ITEMS
        return items if n <= 0 else items[:MAX_ITEMS] + [more(f"... and {n:,} more: see the rulebook")]
    for name in ("numbers", "decisions", "powers", "key", "explain"):
        setattr(view, name, cut(getattr(view, name), lambda line: (line, "")))
    for name in ("notes", "turn", "scoring", "setup", "win"):
        setattr(view, name, cut(getattr(view, name), lambda line: line))
    for t in view.tables:
        blanks = [""] * (len(t["head"]) - 1)
        t["rows"] = cut(t["rows"], lambda line, blanks=blanks: [line, *blanks])
    for name in ("tables", "dice"):
        setattr(view, name, cut(getattr(view, name), lambda line: {"title": line, "name": line, "doc": "", "head": [],
                                                                   "rows": [], "results": []}))
