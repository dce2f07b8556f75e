"""The sequence graph: every step of every sequence as a node, with the edges that say where play goes.

It is built from the same model the interpreter runs, so a flowchart drawn from it is the
game that is simulated. Node ids are the steps' paths (`SEQUENCE/position`), which is
also what the interpreter counts for coverage.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

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
    """Builds the graph a sequence at a time. A kind's `graph` (model/kinds.py) is given it, to add its step's node
    (`node`), its edges (`edge`) and the nodes of the steps inside it (`block`); a loop keeps `open_loops` (the
    loops around the step, for a 'continue') and `loop_exits` (the breaks not yet joined to their loop)."""

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
            self.edge(t, end)

    def edge(self, src, dst, kind="next", label=""):
        if isinstance(src, tuple):  # (node, kind, label) from a branch
            src, kind, label = src
        self.g.edges.append(Edge(src, dst, kind, label))

    def block(self, seq, steps, tails: list) -> list:
        for s in steps:
            tails = self.step(seq, s, tails)
        return tails

    def node(self, seq, s: M.Step, kind: str, text: str) -> str:
        """Add the step's node: its label, else `text`."""
        return self.g.add(Node(s.path, seq.id, kind, _label(s, text), s.source, s))

    def entered(self, seq, s: M.Step, kind: str, text: str, tails: list) -> str:
        """Add the step's node (`node`) and the edges by which play comes to it from `tails`."""
        nid = self.node(seq, s, kind, text)
        for t in tails:
            self.edge(t, nid)
        return nid

    def step(self, seq, s: M.Step, tails: list) -> list:
        """The step's node and edges, as its kind draws it (model/kinds.py); the tails play leaves it by."""
        kind = of_step(s)
        if kind is not None and kind.graph is not None:
            return kind.graph(self, seq, s, tails)
        nid = s.path
        if isinstance(s, M.ConstructStep):
            # one box for the whole mechanic (an auction, a response window): its rule in words; the steps the
            # author wrote inside it hang off it (when a player drops out / acts), and 'on_end' follows it
            self.entered(seq, s, s.construct, s.rule, tails)
            parts = dict(s.parts)
            if s.construct == "target":  # a fork: the target chosen, or nobody could be
                return (self.block(seq, parts.get("do", ()), [(nid, "next", "chosen")])
                        + self.block(seq, parts.get("if_none", ()), [(nid, "next", "nobody can be chosen")]))
            side = parts.get("on_drop") or parts.get("do") or parts.get("on_play") or ()
            if s.construct == "respond" and dict(s.settings).get("until", "first") == "first":
                # the first who responds acts, and play goes on from there
                return self.block(seq, side, [(nid, "next", "someone responds")]) + [(nid, "next", "all pass")]
            leaves: list = [nid]
            if side:
                what = {"auction": "a player drops out", "trick": "a card is played",
                        "attack": "a player is attacked", "turns": "a player's turn",
                        "repeat_choice": "a choice is made",
                        "draw_until": "a card is drawn", "rounds": "a round"}.get(s.construct, "someone responds")
                saved = self.loop_exits
                if s.construct in ("repeat_choice", "draw_until"):  # a break in its steps leaves it (the loop around them)
                    self.loop_exits = []
                for t in self.block(seq, side, [(nid, "next", what)]):
                    self.edge(t, nid, "repeat")
                if s.construct in ("repeat_choice", "draw_until"):
                    leaves += [(src, "break", "break") for name, src in self.loop_exits if name is None]
                    self.loop_exits = saved + [(name, src) for name, src in self.loop_exits if name is not None]
            if s.construct == "trick" and dict(s.settings).get("play_out") == "True":  # after each trick, another
                for t in self.block(seq, parts.get("on_end", ()), [(nid, "next", "a trick is over")]):
                    self.edge(t, nid, "repeat")
                return [(nid, "next", "the hands are empty")]
            return self.block(seq, parts.get("on_end", ()), leaves)
        # a kind registered with a model class of its own and no drawing of its own: one node named by its form;
        # each list of steps inside it runs from it and comes back to it, then play goes on
        key = kind.key if kind is not None else type(s).__name__
        self.node(seq, s, key, key)
        for name, block in s.bodies:
            if block:
                for t in self.block(seq, block, [(nid, "next", name)]):
                    self.edge(t, nid, "repeat")
        for t in tails:
            self.edge(t, nid)
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
