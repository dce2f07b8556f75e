"""The sequence graph: every step of every sequence as a node, with the edges that say where play goes.

It is built from the same model the interpreter runs, so a flowchart drawn from it is the
game that is simulated. Node ids are the steps' paths (`SEQUENCE/position`), which is
also what the interpreter counts for coverage.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .dsl import ast as A
from .dsl.table_calls import targets
from .model import ruleset as M
from .model.kinds import of_step


@dataclass(frozen=True)
class Node:
    id: str
    sequence: str
    kind: str  # start, end, action, call, condition, loop, foreach, decision, sealed, stack, auction, respond, exit
    label: str
    source: str = ""
    step: Optional[M.Step] = None


@dataclass(frozen=True)
class Edge:
    src: str
    dst: str
    kind: str = "next"  # next, yes, no, repeat, done, break, call, trigger, end
    label: str = ""


@dataclass
class SequenceGraph:
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    sequences: dict[str, list[str]] = field(default_factory=dict)  # sequence -> its node ids, in order

    def add(self, node: Node) -> str:
        self.nodes[node.id] = node
        self.sequences.setdefault(node.sequence, []).append(node.id)
        return node.id

    _index: Optional[tuple] = field(default=None, repr=False, compare=False)

    def _indexed(self) -> tuple:
        """(node -> its out edges, sequence -> the edges leaving its nodes, flow targets), rebuilt only when
        edges were added since: each query is then a look-up, not a scan of every edge."""
        if self._index is None or self._index[0] != len(self.edges):
            out: dict[str, list[Edge]] = {}
            by_seq: dict[str, list[Edge]] = {}
            flow: set[str] = set()
            for e in self.edges:
                out.setdefault(e.src, []).append(e)
                node = self.nodes.get(e.src)
                by_seq.setdefault(node.sequence if node is not None else "", []).append(e)
                if e.kind not in ("call", "trigger", "end"):
                    flow.add(e.dst)
            self._index = (len(self.edges), out, by_seq, flow)
        return self._index

    def out(self, node_id: str) -> list[Edge]:
        """The edges leaving a node, in the order they were added."""
        return list(self._indexed()[1].get(node_id, ()))

    def edges_of(self, sequence: str) -> list[Edge]:
        """The edges leaving the nodes of one sequence (trigger nodes: sequence ""), in the order they were added."""
        return list(self._indexed()[2].get(sequence, ()))

    def flow_targets(self) -> set[str]:
        """The nodes some step leads to in play (not only by a call, a trigger or an 'end ...')."""
        return self._indexed()[3]


def _label(step: M.Step, fallback: str) -> str:
    return step.label or fallback


class _Builder:
    def __init__(self, rs: M.Ruleset, graph: SequenceGraph):
        self.rs = rs
        self.g = graph

    def sequence(self, seq: M.SequenceDef) -> None:
        start = self.g.add(Node(f"{seq.id}/start", seq.id, "start", seq.title, seq.source))
        end = f"{seq.id}/end"
        self.loop_exits: list[tuple[Optional[str], str]] = []
        self.open_loops: list[tuple[str, Optional[str]]] = []  # the loops around the step being built: (node, name)
        tails = self.block(seq, seq.steps, [start])
        self.g.add(Node(end, seq.id, "end", "return"))
        for t in tails:
            self._edge(t, end)

    def _edge(self, src, dst, kind="next", label=""):
        if isinstance(src, tuple):  # (node, kind, label) from a branch
            src, kind, label = src
        self.g.edges.append(Edge(src, dst, kind, label))

    def block(self, seq, steps, tails: list) -> list:
        for s in steps:
            tails = self.step(seq, s, tails)
        return tails

    def step(self, seq, s: M.Step, tails: list) -> list:
        nid = s.path
        if isinstance(s, M.ActionStep):
            kind = "action"
            calls = [st.ast for st in s.stmts if isinstance(st.ast, A.CallSeq)]
            ends = [st.ast for st in s.stmts if isinstance(st.ast, (A.End, A.Return, A.Break, A.Continue))]
            said = {id(st.ast): st.text for st in s.stmts}
            if len(s.stmts) == 1 and calls:
                kind = "call"
            self.g.add(Node(nid, seq.id, kind, _label(s, "; ".join(st.text for st in s.stmts)), s.source, s))
            for t in tails:
                self._edge(t, nid)
            for c in calls:
                for t in targets(c, self.rs.tables):  # a call by table: an edge to each sequence its column names
                    self._edge(nid, f"{t}/start", "call", f"as {c.bind}" if c.bind else "")
            for e in ends:
                if isinstance(e, A.End):
                    self._edge(nid, f"{seq.id}/end", "end", f"end {e.kind}")
                    return []
                if isinstance(e, A.Return):  # the edge says the result: 'return VALUE'
                    self._edge(nid, f"{seq.id}/end", "end", said[id(e)] if e.value else "end sequence")
                    return []
                if isinstance(e, A.Break):
                    self.loop_exits.append((e.loop, nid))
                    return []
                if isinstance(e, A.Continue):  # back to its loop, for the next pass
                    loop = next((n for n, name in reversed(self.open_loops) if e.loop is None or e.loop == name), None)
                    if loop is not None:
                        self._edge(nid, loop, "repeat", f"continue {e.loop}" if e.loop else "continue")
                        return []
            return [nid]
        if isinstance(s, M.CallStep):
            self.g.add(Node(nid, seq.id, "call", _label(s, f"call {s.sequence}"), s.source, s))
            for t in tails:
                self._edge(t, nid)
            self._edge(nid, f"{s.sequence}/start", "call", f"as {s.bind}" if s.bind else "")
            return [nid]
        if isinstance(s, M.IfStep):
            self.g.add(Node(nid, seq.id, "condition", _label(s, s.cond.text if s.cond else "?"), s.source, s))
            for t in tails:
                self._edge(t, nid)
            yes = self.block(seq, s.then, [(nid, "yes", "yes")])
            no = self.block(seq, s.other, [(nid, "no", "no")]) if s.other else [(nid, "no", "no")]
            return yes + no
        if isinstance(s, (M.LoopStep, M.ForEachStep)):
            if isinstance(s, M.LoopStep):
                text = {"while": f"while {s.cond.text if s.cond else ''}", "until": f"until {s.cond.text if s.cond else ''}",
                        "forever": f"repeat until 'break {s.name}'" if s.name else "repeat"}[s.mode]
                kind = "loop"
            else:
                text = f"for each {s.var} in {s.iterable.text if s.iterable else ''}"
                kind = "foreach"
            self.g.add(Node(nid, seq.id, kind, _label(s, text), s.source, s))
            for t in tails:
                self._edge(t, nid)
            saved = self.loop_exits
            self.loop_exits = []
            self.open_loops.append((nid, s.name))
            body_tails = self.block(seq, s.body, [(nid, "repeat", "each pass")])
            self.open_loops.pop()
            for t in body_tails:
                self._edge(t, nid, "repeat")
            exits = [(nid, "done", "done")] if (isinstance(s, M.ForEachStep) or s.mode != "forever") else []
            mine = [(src, "break", f"break {name}" if name else "break") for name, src in self.loop_exits
                    if name is None or name == getattr(s, "name", None)]
            others: list[tuple[Optional[str], str]] = [(name, src) for name, src in self.loop_exits
                                                       if not (name is None or name == getattr(s, "name", None))]
            self.loop_exits = saved + others
            return exits + mine
        if isinstance(s, M.ConstructStep):
            # one box for the whole mechanic (an auction, a response window): its rule in words; the steps the
            # author wrote inside it hang off it (when a player drops out / acts), and 'on_end' follows it
            self.g.add(Node(nid, seq.id, s.construct, _label(s, s.rule), s.source, s))
            for t in tails:
                self._edge(t, nid)
            parts = dict(s.parts)
            if s.construct == "target":  # a fork: the target chosen, or nobody could be
                return (self.block(seq, parts.get("do", ()), [(nid, "next", "chosen")])
                        + self.block(seq, parts.get("if_none", ()), [(nid, "next", "nobody can be chosen")]))
            side = parts.get("on_drop") or parts.get("do") or parts.get("on_play") or ()
            if s.construct == "respond" and dict(s.settings).get("until", "first") == "first":
                # the first who responds acts, and play goes on from there
                return self.block(seq, side, [(nid, "next", "someone responds")]) + [(nid, "next", "all pass")]
            if side:
                what = {"auction": "a player drops out", "trick": "a card is played",
                        "attack": "a player is attacked"}.get(s.construct, "someone responds")
                for t in self.block(seq, side, [(nid, "next", what)]):
                    self._edge(t, nid, "repeat")
            return self.block(seq, parts.get("on_end", ()), [nid])
        # decisions: choose, sealed, stack
        if isinstance(s, M.ChooseStep):
            d = s.decision
            text = (d.prompt.text if d and d.prompt else "") or "decide"
            self.g.add(Node(nid, seq.id, "decision", _label(s, text), s.source, s))
        elif isinstance(s, M.SealedStep):
            self.g.add(Node(nid, seq.id, "sealed", _label(s, f"each {s.var} decides in secret, then all reveal"), s.source, s))
        elif isinstance(s, M.StackStep):
            self.g.add(Node(nid, seq.id, "stack", _label(s, "play onto the stack; resolve last in, first out"), s.source, s))
            # each card played runs 'on_play', then play goes back to the stack for the next offer; when all
            # pass, 'resolve' runs for each card from the top, back to the stack after each; then play goes on
            for block, label in ((s.on_play, "each card played"), (s.resolve, "then resolve, top card first")):
                if block:
                    for t in self.block(seq, block, [(nid, "next", label)]):
                        self._edge(t, nid, "repeat")
        else:  # a kind registered with a model class of its own (model/kinds.py): one node named by its form;
            # each list of steps inside it runs from it and comes back to it, then play goes on
            registered = of_step(s)
            key = registered.key if registered is not None else type(s).__name__
            self.g.add(Node(nid, seq.id, key, _label(s, key), s.source, s))
            for name, block in s.bodies:
                if block:
                    for t in self.block(seq, block, [(nid, "next", name)]):
                        self._edge(t, nid, "repeat")
        for t in tails:
            self._edge(t, nid)
        return [nid]


def build_graph(rs: M.Ruleset) -> SequenceGraph:
    """The sequence graph of a loaded ruleset (a pure function of the model)."""
    g = SequenceGraph()
    b = _Builder(rs, g)
    for seq in rs.sequences.values():
        b.sequence(seq)
    for t in rs.triggers:
        tid = f"trigger/{t.id}"
        g.nodes[tid] = Node(tid, "", "trigger", t.label or f"whenever {t.on}" + (f" and {t.when.text}" if t.when else ""),
                            t.source)
        g.edges.append(Edge(tid, f"{t.run}/start", "trigger", "now" if t.timing == "now" else f"after {t.after_kind}"))
    return g
