"""The `stack:` step: players in turn play onto a stack (`on_play:` for each card played) until all pass, then it
resolves last in, first out (`resolve:` for each). Lowered to its own instructions (STACK_*, runtime/machine/decision_steps.py),
which the compiled engine runs from a stretch's code too (`write`)."""

from __future__ import annotations

from ...dsl.closures.compiler import Compiler
from ...model import ruleset as M
from ...model.kinds import StepKind, Stretch, register
from ..choices import _plain
from ..yaml_source import YMap
from .decide import each_and_as, notes_said


def build(builder, node, common: dict, auto: str, loops: tuple):
    comp = Compiler(builder.local_scope, builder.diags)
    spec = node.get("stack")
    if not isinstance(spec, YMap):
        return None
    var = str(_plain(spec.get("each"), "p"))
    play = spec.get("play")
    return M.StackStep(
        **common,
        zone=builder.text.expr(spec.get("zone"), comp),
        var=var,
        iterable=builder.text.expr(spec.get("in"), comp),
        play=builder.decision(play, comp, default_player=var,
                              default_kind="subset" if spec.get("zone") is not None else "one")
        if isinstance(play, YMap) else None,
        on_play=tuple(builder.block(builder.steps_of(spec.get("on_play")), f"{auto}.on_play.", loops)),
        resolve=tuple(builder.block(builder.steps_of(spec.get("resolve")), f"{auto}.resolve.", loops)),
    )


def binds(builder, node, out: set) -> None:
    """Its player and result; `card` (a stack of a zone) or `entry`; and the names its own steps give."""
    each_and_as("stack", node, out)
    inner = node.get("stack")
    if isinstance(inner, YMap):
        out.add("card" if inner.get("zone") is not None else "entry")
        builder.binders(builder.steps_of(inner.get("on_play")), out)
        builder.binders(builder.steps_of(inner.get("resolve")), out)


def lower(f, s: M.StackStep) -> None:
    key = f.key("stack")
    f.emit("STACK_BEGIN", s, s, extra=key)
    offer = f.emit("STACK_OFFER", s, s, extra=key)
    offer_pc = f.here - 1
    onplay_pc = f.here
    nxt = f.emit("STACK_ONPLAY_NEXT", s, s, extra=key)
    f.block(s.on_play)
    j = f.emit("JUMP", s)
    j.target = onplay_pc
    nxt.target = offer_pc
    resolve_pc = f.here
    offer.target = resolve_pc
    rn = f.emit("STACK_RESOLVE_NEXT", s, s, extra=key)
    f.block(s.resolve)
    f.emit("STACK_RESOLVED", s, s, extra=key)
    j2 = f.emit("JUMP", s)
    j2.target = resolve_pc
    rn.target = f.here
    offer.extra = (key, onplay_pc)


def graph(b, seq, s: M.StackStep, tails: list) -> list:
    """Each card played runs 'on_play', then play goes back to the stack for the next offer; when all pass,
    'resolve' runs for each card from the top, back to the stack after each; then play goes on."""
    nid = b.node(seq, s, "stack", "play onto the stack; resolve last in, first out")
    for block, label in ((s.on_play, "each card played"), (s.resolve, "then resolve, top card first")):
        if block:
            for t in b.block(seq, block, [(nid, "next", label)]):
                b.edge(t, nid, "repeat")
    for t in tails:
        b.edge(t, nid)
    return [nid]


def book(s: M.StackStep, view, label: str, inner) -> None:
    each = f"each {s.var} in {s.iterable.text if s.iterable else '?'}"
    view.prose = label or "Players play onto the stack; it resolves last in, first out."
    view.code = f"stack {s.zone.text if s.zone else ''}: {each} may play"
    if s.on_play:
        view.groups.append(("as each card is played", inner(s.on_play)))
    if s.resolve:
        view.groups.append(("then, top card first, each card resolves", inner(s.resolve)))


def write(w, s: M.StackStep) -> bool:
    """The stack in a stretch: each of its own instructions run by its handler as the loop runs it (running._asks: an
    offer answered at once goes on, a pending one leaves), its `on_play` and `resolve` steps written in Python loops
    around them, each loop's top checked against the budget as a loop step's is. A stretch starts at the stack, not
    inside it (the loop runs a stack it comes back to)."""
    pcs = dict((op, pc) for pc, op in w.pcs(s))
    back = [pc for pc, op in w.pcs(s) if op == "JUMP"]  # the jumps back: after on_play, after resolve
    begin, offer, nxt, rnext, resolved = (pcs[op] for op in ("STACK_BEGIN", "STACK_OFFER", "STACK_ONPLAY_NEXT",
                                                             "STACK_RESOLVE_NEXT", "STACK_RESOLVED"))
    end = w.code[rnext].target
    w.looped = True
    w.loops.append((-1, -1, None, "stack"))  # a break or continue in its steps is not one of these Python loops'
    w.run(begin)
    w.emit("while _True:")  # the offers, each played card's on_play
    w.indent()
    w.top(offer)
    w.run(offer)
    w.emit(f"if f.pc == {w.code[offer].target}:")
    w.emit("    break")
    w.emit("while _True:")
    w.indent()
    w.top(nxt)
    w.run(nxt)
    w.emit(f"if f.pc == {offer}:")
    w.emit("    break")
    if w.block(s.on_play):
        w.count(back[0], pure=True)
    w.depth -= 2
    w.emit("while _True:")  # the cards resolved from the top
    w.indent()
    w.top(rnext)
    w.run(rnext)
    w.emit(f"if f.pc == {end}:")
    w.emit("    break")
    if w.block(s.resolve):
        w.run(resolved)
        w.count(back[1], pure=True)
    w.depth -= 1
    w.loops.pop()
    return True


STRETCH = Stretch(write, blocks=lambda s: (("on_play", s.on_play), ("resolve", s.resolve)),
                  resume=lambda w, s, path, k: w.cannot("inside a stack: the loop runs it"))


KINDS = (register(StepKind("stack", build, model=M.StackStep, binds=binds, lower=lower, graph=graph, book=book,
                           notes=notes_said, stretch=STRETCH, outcomes=False, raises=("moved",),
                           decisions=lambda s: (s.play,) if s.play else (),
                           fields=lambda s: (("zone", s.zone), ("each", s.var), ("in", s.iterable), ("play", s.play)),
                           doc="plays onto a stack until all pass, then it resolves last in, first out "
                               "(docs/format.md)")),)
