"""The engine's own accounts, kept off what players read: which statements and steps are bookkeeping,
and the sequence graph without them (sheets and the book draw that; `--detail full` draws everything).

Bookkeeping is what no player does or decides: local names (`let`, except one that names the player or card a
ranking picks: 'the best player is ...'), `tally`, `log`, `pass`, (but never a count the steps keep in a local,
`actions -= 1`: a loop that tests it is seen to end),
and setting a value nobody at the table reads — a local, a game variable without a `title`
(unless it is added to and a step players read takes from it: a pot), a card's mark. A step that only keeps accounts is not a box; a step that also does something
shows only what it does.
"""

from __future__ import annotations

import re

from rulecraft.dsl import ast as A
from rulecraft.model import ruleset as M
from rulecraft.model.kinds import kind_of, own_statements, yes_no


def is_bookkeeping(rs: M.Ruleset, st) -> bool:
    """A statement (AST or compiled) that only keeps the engine's accounts."""
    st = getattr(st, "ast", st)
    if isinstance(st, A.Let) and _names_a_winner(st):
        return False
    if isinstance(st, (A.Let, A.Tally, A.Log, A.Pass, A.Assert)):
        return True
    if isinstance(st, A.Assign):
        target = st.target
        if isinstance(target, A.Name):  # adding to a pot players take from is play; resetting it is not news
            if st.op in ("+=", "-=") and target.id not in rs.variables and isinstance(st.value, A.Num):
                return False  # a count the steps keep ('take 1 from the actions'): a loop that tests it ends by it
            return target.id not in (getattr(rs, "titles", {}) or {}) and not (
                st.op in ("+=", "-=") and target.id in read_at_the_table(rs))
        if isinstance(target, A.Attr):
            return target.name in rs.marks  # a card's mark; a player's variable is theirs to see
    return False


def _names_a_winner(st: A.Let) -> bool:
    """'let best = highest(...)': the steps after act on the player it names ('the best player'), so players read it."""
    from rulecraft.tools.words.core import _ADJECTIVES

    ranked = isinstance(st.value, A.Call) and st.value.func in ("highest", "lowest")
    return ranked and (st.name in _ADJECTIVES or st.name.endswith("est"))


_READ: dict = {}


def read_at_the_table(rs: M.Ruleset) -> frozenset:
    """Game variables with no title that a step players read names as a value ("add the pot to the player's
    chips"): adding to them is play, not bookkeeping. A variable only tested in conditions (a counter) is not one,
    nor one players cannot read by its name ('ev': said by what it is set to)."""
    from rulecraft.tools.words.locals import abbreviation

    key = id(rs)
    if key in _READ and _READ[key][0] is rs:
        return _READ[key][1]
    titled = getattr(rs, "titles", {}) or {}
    found = set()
    for _seq, step in rs.iter_steps():
        for st in own_statements(step):
            node = st.ast
            if isinstance(node, (A.Let, A.Tally, A.Log, A.Pass, A.Assert)) or \
                    (isinstance(node, A.Assign) and isinstance(node.target, A.Name)):
                continue
            for part in (getattr(node, "value", None), getattr(node, "what", None)):
                for x in part.walk() if isinstance(part, A.Node) else ():
                    if isinstance(x, A.Name) and x.id in rs.variables and x.id not in titled and not abbreviation(x.id):
                        found.add(x.id)
    if len(_READ) >= 8:  # a language server checks ruleset after ruleset: keep only the latest few
        _READ.clear()
    _READ[key] = (rs, frozenset(found))
    return _READ[key][1]


def hidden_step(rs: M.Ruleset, step: M.Step) -> bool:
    """A step of statements only (a `do:`), every one of them bookkeeping (a step with a designer's label always
    shows; a call says which sequence is played)."""
    kind = kind_of(step)
    own = kind.statements(step) if kind is not None and not kind.call else ()
    if not own:
        return False
    if step.label and not _label_is_text(step, own):
        return False
    return all(is_bookkeeping(rs, st) for st in own)


def _label_is_text(step: M.Step, own: tuple) -> bool:
    squash = lambda t: "".join(t.split()).rstrip(";")  # noqa: E731
    return squash(step.label) == squash("; ".join(dict.fromkeys(st.text for st in own)))


def players_graph(rs: M.Ruleset, graph):
    """The sequence graph without its bookkeeping nodes: each edge into one runs on to where it led."""
    from rulecraft.graph import Edge, SequenceGraph

    hidden = {nid for nid, n in graph.nodes.items() if n.step is not None and hidden_step(rs, n.step)}
    hidden |= idle_conditions(rs, graph, hidden)
    fixed = house_rule_branches(rs, graph)
    hidden |= set(fixed)
    if not hidden:
        return graph
    outs: dict[str, list] = {}
    for e in graph.edges:
        if e.src in fixed and e.kind != fixed[e.src]:
            continue  # the branch the house rules in force never take is not drawn
        outs.setdefault(e.src, []).append(e)

    exits: dict[str, list] = {}  # a hidden node -> where it leads once hidden nodes are passed: (dst, kind, label)

    def through(h):
        """Worked out without recursion and once per node: a long run of hidden steps is a long chain."""
        stack, busy = [h], {h}
        while stack:
            node = stack[-1]
            todo = [nxt.dst for nxt in outs.get(node, []) if nxt.dst in hidden and nxt.dst not in exits
                    and nxt.dst not in busy]
            if todo:
                busy.update(todo)
                stack.extend(todo)
                continue
            stack.pop()
            found: dict = {}
            for nxt in outs.get(node, []):
                if nxt.dst not in hidden or nxt.dst not in exits:  # shown, or a loop of hidden nodes
                    found[(nxt.dst, nxt.kind, nxt.label)] = None
                    continue
                for dst, kind, label in exits[nxt.dst]:
                    found[(dst, nxt.kind if nxt.kind != "next" else kind, nxt.label or label)] = None
            exits[node] = list(found)
        return exits[h]

    def onward(e):
        """The edges `e` becomes once the hidden nodes it runs into are passed through."""
        if e.dst not in hidden:
            return [e]
        return [Edge(e.src, dst, e.kind if e.kind != "next" else kind, e.label or label)
                for dst, kind, label in (exits[e.dst] if e.dst in exits else through(e.dst))]

    g = SequenceGraph()
    for nid, node in graph.nodes.items():
        if nid not in hidden:
            g.nodes[nid] = node
    for sid, ids in graph.sequences.items():
        g.sequences[sid] = [n for n in ids if n not in hidden]
    seen = set()
    for e in graph.edges:
        if e.src in hidden:
            continue
        for ne in onward(e):
            key = (ne.src, ne.dst, ne.kind, ne.label)
            if key not in seen:
                seen.add(key)
                g.edges.append(ne)
    if not fixed:
        return g
    entered = {e.dst for e in graph.edges}
    return _reachable(g, [nid for nid, n in graph.nodes.items() if n.kind == "start" or nid not in entered])


def idle_conditions(rs: M.Ruleset, graph, hidden: set) -> set:
    """Conditions whose every branch holds only bookkeeping, so yes and no would lead to the same box: no question
    for players (a label that goes on after its question, 'Hearts are broken from now on', says a rule: kept)."""
    from rulecraft.tools.chart.sheetplan import designer_label

    out = set()
    for nid, n in graph.nodes.items():
        s = n.step
        asks = yes_no(s) if s is not None else None
        if asks is None or not (asks[1] or asks[2]):
            continue
        label = designer_label(s)
        if label and label.rstrip().rsplit("?", 1)[-1].strip():
            continue
        inside = [x for body in asks[1:] for x in M.walk_steps(body)]
        if all(x.path in hidden for x in inside):
            out.add(nid)
    return out


def house_rule_branches(rs: M.Ruleset, graph) -> dict:
    """The conditions the ruleset's parameters and house rules decide (`if: "tithe_pick == 'giver'"`), each with
    the branch they take ('yes' or 'no'): a sheet prints the rule the game plays, the other choices only as a
    house rule in its notes."""
    from rulecraft.tools.words.core import Words

    w = Words(rs, detail="players")
    out = {}
    for nid, n in graph.nodes.items():
        s = n.step
        cond = (yes_no(s) or (None,))[0]
        if cond is not None and option_names(rs, cond.ast):
            value = w.constant(cond.ast)
            if w.is_constant(cond.ast):
                out[nid] = "yes" if value else "no"
    return out


def folded_house_rules(rs: M.Ruleset) -> dict:
    """The house rules whose conditions the sheets fold (each drawn as its value plays): option id -> the
    sequences where a step's condition reads it, in the ruleset's order."""
    from rulecraft.tools.words.core import Words

    w = Words(rs, detail="players")
    out: dict = {}
    for seq, s in rs.iter_steps():
        cond = (yes_no(s) or (None,))[0]
        if cond is not None and w.is_constant(cond.ast):
            for name in option_names(rs, cond.ast):
                out.setdefault(name, [])
                sid = getattr(seq, "id", seq)
                if sid not in out[name]:
                    out[name].append(sid)
    return out


def option_names(rs: M.Ruleset, node) -> list[str]:
    """The house rules (options) an expression reads, in order."""
    return list(dict.fromkeys(x.id for x in node.walk() if isinstance(x, A.Name) and x.id in rs.options))


def _reachable(g, roots: list):
    """`g` without the nodes none of `roots` (where the graph is entered: sequences' starts, interrupts) leads to
    any more: a branch a house rule never takes."""
    starts = [nid for nid in roots if nid in g.nodes]
    outs: dict = {}
    for e in g.edges:
        outs.setdefault(e.src, []).append(e.dst)
    seen, todo = set(starts), list(starts)
    while todo:
        for dst in outs.get(todo.pop(), ()):
            if dst not in seen:
                seen.add(dst)
                todo.append(dst)
    gone = {nid for nid in g.nodes if nid not in seen}
    if not gone:
        return g
    for nid in gone:
        del g.nodes[nid]
    g.sequences = {sid: [n for n in ids if n not in gone] for sid, ids in g.sequences.items()}
    g.edges = [e for e in g.edges if e.src not in gone and e.dst not in gone]
    return g


# What a designer's label hides: 'Step onto the ice' draws a card. The aid says the step's words after such a label
# ('Step onto the ice: draw a card from the floe to the player's Hand') and the sheets under its box.
DOES_CHARS = 80  # what the step does, said after its label only when this short
_MOVES = (A.Draw, A.Move, A.Shuffle)
_SMALL = frozenset("the and for from with into onto each their your its his her all any one two who has have".split())


def _stems(text: str) -> set[str]:
    return {re.sub(r"(?:'s|s)$", "", x) for x in re.findall(r"[a-z][a-z']+", text.lower())
            if len(x) > 2 and x not in _SMALL}


def what_it_does(w, s: M.Step, label: str) -> str:
    """The step's own words, when its label moves cards, shares no word with them and they are short; else ''."""
    stmts = [st.ast for st in own_statements(s) if not is_bookkeeping(w.rs, st)]
    if not stmts or s.bodies or not all(isinstance(n, _MOVES) for n in stmts):
        return ""
    said = re.sub(r"\s*\((?:[^()]|\([^()]*\))*\)$", "", w.step(s, own_label=False).rstrip("."))  # (a note on a pile)
    if len(said) > DOES_CHARS or _stems(label) & _stems(said):
        return ""
    return said[:1].lower() + said[1:]
