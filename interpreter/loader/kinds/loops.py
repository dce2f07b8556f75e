"""The loops: `while:`, `repeat:` ... `until:`, `loop: NAME` (left by a break) and `for_each: NAME` `in:`.

The first three build one LoopStep (its mode 'while', 'until' or 'forever') and are lowered alike; a for_each
is a ForEachStep, its name typed as the items when that can be told. The compiled engine writes each as a Python
`while` (`STRETCH`).
"""

from __future__ import annotations

from functools import partial
from typing import Optional

from ...dsl import ast as A
from ...dsl.checking import element_type
from ...dsl.closures.compiler import Compiler
from ...model import ruleset as M
from ...model.kinds import StepKind, Stretch, register
from ..choices import _plain


def build_loop(form: str, builder, node, common: dict, auto: str, loops: tuple) -> M.LoopStep:
    """A while, repeat or loop step (`form`), each registered with its form given."""
    comp = Compiler(builder.local_scope, builder.diags)
    name = _plain(node.get("name"))
    if form == "loop":
        name = str(_plain(node.get("loop")))
        body_node, mode, cond_node = node.get("do"), "forever", node.get("until")
        if cond_node is not None:
            mode = "until"
    elif form == "while":
        body_node, mode, cond_node = node.get("do"), "while", node.get("while")
    else:
        body_node, mode, cond_node = node.get("repeat"), "until", node.get("until")
        if cond_node is None:
            builder.err("E202", "a 'repeat' step needs 'until:'", node.span, "or use 'loop: NAME' with a break")
    cond = builder.condition(cond_node, comp) if cond_node is not None else None
    body = builder.block(builder.steps_of(body_node), f"{auto}.do.", loops + (name,))
    if not body:
        builder.err("E403", "a loop with no steps", node.span)
    return M.LoopStep(**common, mode=mode, cond=cond, body=tuple(body), name=name)


def lower_loop(f, s: M.LoopStep) -> None:
    loop = f.new_loop(s.name)
    start = f.here
    if s.mode == "until":
        f.inside(loop, s.body)
        loop.continue_pc = f.here
        jf = f.emit("JUMP_IF_FALSE", s, s.cond)
        jf.target = start
        jf.until = s.path
        f.code[start].also += (s.path,)  # entered (or passed again) where the body starts
        loop.end_pc = f.here
    else:
        # 'while' tests at the top; a forever loop has a plain node there, to count each pass
        head = f.emit("JUMP_IF_FALSE", s, s.cond) if s.mode == "while" else f.emit("LOOP_TOP", s)
        head.cov = s.path  # +1 at each pass, -1 at the jump back: once per entry
        f.inside(loop, s.body)
        back = f.emit("JUMP", s)
        back.target = start
        back.cov, back.w = s.path, -1
        loop.continue_pc = f.here - 1  # 'continue' goes by the jump back, as the end of a pass does
        loop.end_pc = f.here
        if s.mode == "while":
            head.target = loop.end_pc
    f.close(loop)


def build_for_each(builder, node, common: dict, auto: str, loops: tuple) -> M.ForEachStep:
    comp = Compiler(builder.local_scope, builder.diags)
    name = _plain(node.get("name"))
    var = str(_plain(node.get("for_each")))
    it, it_type = builder.text.expr_typed(node.get("in"), comp)
    if node.get("in") is None:
        builder.err("E202", "a 'for_each' step needs 'in:' (what to go through)", node.span)
    body = _typed_body(builder, var, it, it_type, node.get("do"), f"{auto}.do.", loops + (name,))
    return M.ForEachStep(**common, var=var, iterable=it, body=tuple(body), name=name)


def _typed_body(builder, var: str, it: Optional[M.CExpr], it_type: str, body_node, prefix: str,
                loops: tuple) -> list[M.Step]:
    """The body of a for_each, where the loop's name has the type of the items when it can be told (the
    players, the cards of a zone) and nothing in the body gives the name another value."""
    saved = builder.local_scope
    item = element_type(it.ast, it_type, saved) if it is not None else "any"
    if item != "any" and var not in builder.seq_params.get(builder.seq_id, ()):
        rebound: set[str] = set()
        builder.binders(builder.steps_of(body_node), rebound)
        if var not in rebound:
            builder.local_scope = saved.with_typed_local(var, item)
    try:
        return builder.block(builder.steps_of(body_node), prefix, loops)
    finally:
        builder.local_scope = saved


def for_each_binds(builder, node, out: set) -> None:
    out.add(str(_plain(node.get("for_each"))))


def lower_for_each(f, s: M.ForEachStep) -> None:
    key = f.key("each")
    loop = f.new_loop(s.name, key)
    f.emit("FOREACH_INIT", s, s.iterable, extra=key)
    head = f.emit("FOREACH_NEXT", s, s.var, extra=key)
    loop.continue_pc = f.here - 1
    f.inside(loop, s.body)
    j = f.emit("JUMP", s)
    j.target = loop.continue_pc
    loop.end_pc = head.target = f.here
    f.close(loop)


def graph(b, seq, s, tails: list) -> list:
    """A loop (LoopStep or ForEachStep): its body runs from it and comes back to it; play leaves by 'done' (not
    a forever loop) or by a break of it."""
    nid = s.path
    if isinstance(s, M.LoopStep):
        text = {"while": f"while {s.cond.text if s.cond else ''}", "until": f"until {s.cond.text if s.cond else ''}",
                "forever": f"repeat until 'break {s.name}'" if s.name else "repeat"}[s.mode]
        kind = "loop"
    else:
        text = f"for each {s.var} in {s.iterable.text if s.iterable else ''}"
        kind = "foreach"
    b.entered(seq, s, kind, text, tails)
    saved = b.loop_exits
    b.loop_exits = []
    b.open_loops.append((nid, s.name))
    body_tails = b.block(seq, s.body, [(nid, "repeat", "each pass")])
    b.open_loops.pop()
    for t in body_tails:
        b.edge(t, nid, "repeat")
    exits = [(nid, "done", "done")] if (isinstance(s, M.ForEachStep) or s.mode != "forever") else []
    mine = [(src, "break", f"break {name}" if name else "break") for name, src in b.loop_exits
            if name is None or name == getattr(s, "name", None)]
    others: list[tuple[Optional[str], str]] = [(name, src) for name, src in b.loop_exits
                                               if not (name is None or name == getattr(s, "name", None))]
    b.loop_exits = saved + others
    return exits + mine


# ---------------------------------------------------------------- in a generated stretch (compiler/steps.py)
def write(w, s) -> bool:
    write_loop(w, s, start=True)
    return True


def write_loop(w, s, start: bool = False) -> None:
    """A loop step as a Python `while`; `start` also writes what runs once before the loop."""
    own = w.pcs(s)
    pcs = dict((op, pc) for pc, op in own)
    quiet = False
    if isinstance(s, M.ForEachStep):
        init, head, back, mode = pcs["FOREACH_INIT"], pcs["FOREACH_NEXT"], pcs["JUMP"], "each"
        key = w.code[init].extra
        if start:
            w.emit(f"pc = {init}")
            w.count(init)
            # the items worked out here, as handlers.h_foreach_init works them out (no call of it, nor of the
            # expression's function when its code is copied in), and kept for the loop
            ins = w.code[init]
            items = w.value(ins.arg.fn)
            if not items.isidentifier():  # (a call: its value named)
                w.exprs += 1
                w.emit(f"_x{w.exprs}_1 = {items}")
                items = f"_x{w.exprs}_1"
            # a body that only tells the story: without one, its passes are counted, not run (handlers.told_each;
            # else, or with a story, the items kept, and the loop as usual)
            quiet = not w.coverage and _told_only(s.body)
            if quiet:
                w.emit(f"if _told_each(ctx, f, {w.const(ins)}, {items}, {w.const(s.var)}, {len(s.body) + 2}, lim):")
                w.emit("    n = ctx.steps")
                w.emit("else:")
                w.indent()
            else:
                w.emit(f"_L[{w.const(key)}] = [list({items}) if type({items}) is list else "
                       f"list(_as_list(ctx, {items}, {w.const(ins.arg.span)})), 0]")
        end_pc = w.code[head].target
    else:
        mode = s.mode
        key = None
        if mode == "until":
            test = pcs["JUMP_IF_FALSE"]
            head = w.ranges[id(s)][0]  # the first step of the body (or the test, if there is none)
            end_pc = test + 1
        else:
            head = own[0][0]
            back = pcs["JUMP"]
            end_pc = back + 1
    cont_pc = test if mode == "until" else head
    it = None
    if mode == "each":  # the loop's [items, position], its items and their count read once, before the passes
        w.exprs += 1
        it = f"_x{w.exprs}_"
        w.emit(f"{it}1 = _L[{w.const(key)}]")
        w.emit(f"{it}2 = {it}1[0]")
        w.emit(f"{it}3 = len({it}2)")
    w.loops.append((end_pc, cont_pc, key, mode))
    w.looped = True
    w.emit("while _True:")
    w.indent()
    mark = len(w.lines)
    if _iteration(w, s, mode, head, key, it):
        _tail(w, s, mode, test if mode == "until" else back)
    w.dedent(mark)
    w.loops.pop()
    if quiet:
        w.depth -= 1


def _told_only(body: list) -> bool:
    """Whether a loop's body only tells the story: its steps plain `do` steps of logs each worked out only for the
    story (closures/statements.py, `told`), counted one step each (a pass counts them, its start and its end)."""
    return bool(body) and all(type(s) is M.ActionStep and s.stmts and all(getattr(st.fn, "told", False)
                                                                             for st in s.stmts) for s in body)


def _iteration(w, s, mode: str, head: int, key: Optional[str], it: Optional[str]) -> bool:
    """The top of an iteration (the budget check, the loop's own test) and the whole body."""
    w.emit("if n > lim:")
    w.depth += 1
    w.exit(head)  # near the step budget: the loop takes over at the top of this iteration
    w.depth -= 1
    if mode == "each":
        w.emit(f"pc = {head}")
        w.count(head, pure=True)
        w.emit(f"{it}4 = {it}1[1]")
        w.emit(f"if {it}4 >= {it}3:")
        w.emit(f"    del _L[{w.const(key)}]")
        w.emit("    break")
        w.emit(f"_L[{w.const(s.var)}] = {it}2[{it}4]")
        w.emit(f"{it}1[1] = {it}4 + 1")
    elif mode == "forever":
        w.count(head, pure=True)
    elif mode == "while":
        w.emit(f"pc = {head}")
        w.count(head)
        w.emit(f"if not {w.value(s.cond.fn)}:")
        w.emit("    break")
    return w.block(s.body)


def _tail(w, s, mode: str, pc: int) -> None:
    """The end of an iteration: the jump back, or the test of an 'until' loop."""
    if mode == "until":
        w.emit(f"pc = {pc}")
        w.count(pc)
        w.emit(f"if {w.value(s.cond.fn)}:")
        w.emit("    break")
        if w.coverage:  # it repeats: a pass, not a new visit of the loop (handlers.h_until_test)
            w.covered(w.code[pc].untili, -1)
    else:
        w.count(pc, pure=True)


def at(s, op: str) -> Optional[tuple]:
    """A for_each's next item: the top of its body; the jump back (or an 'until' loop's test): the end of its body."""
    if op == "FOREACH_NEXT":
        return ("head", s.body, 0)
    if op in ("JUMP", "JUMP_IF_FALSE"):
        return ("body", s.body, len(s.body))
    return None


def resume(w, s, path: list, k: int) -> None:
    """At a for_each's next item: the loop as usual, without its start. From inside the body: the rest of this pass,
    then the function leaves at the loop's jump back (or an 'until' loop's test), where the instruction loop goes on
    into the loop's own function: written here again, the whole loop would be compiled once more for each place
    inside it that a stretch starts at (a decision answered later, a trigger, a call)."""
    if path[k + 1][1] == "head":
        write_loop(w, s)
        return
    if w.continuation(path, k + 1):
        w.exit(w.pcs(s)[-1][0])  # (its last own instruction: the jump back, or the test)
    w.gone = True


STRETCH = Stretch(write, blocks=lambda s: (("body", s.body),), at=at, resume=resume)

# ---------------------------------------------------------------- what the checks and the tools say of it
def text_loop(s: M.LoopStep) -> str:
    return {"while": "while ", "until": "until "}.get(s.mode, "loop") + (s.cond.text if s.cond else "")


def text_for_each(s: M.ForEachStep) -> str:
    return f"for each {s.var} in {s.iterable.text if s.iterable else ''}"


def endless(s: M.LoopStep) -> bool:
    """A loop with no test, or one whose test always holds: only a break or an end leaves it."""
    cond = s.cond
    always = cond is not None and isinstance(cond.ast, A.Const) and cond.ast.value is True
    return s.mode == "forever" or (s.mode == "while" and always)


def book_loop(s: M.LoopStep, view, label: str, inner) -> None:
    cond = s.cond.text if s.cond else ""
    if s.mode == "forever":
        view.prose = label or (f"Repeat until 'break {s.name}':" if s.name else "Repeat:")
    elif label:
        view.code = f"{s.mode} {cond}"
    else:
        view.lead, view.inline, view.tail = ("While", cond, ", repeat:") if s.mode == "while" \
            else ("Repeat until", cond, ":")
    view.groups.append(("", inner(s.body)))


def book_for_each(s: M.ForEachStep, view, label: str, inner) -> None:
    it = s.iterable.text if s.iterable else ""
    if label:
        view.code = text_for_each(s)
    else:
        view.lead, view.inline, view.tail = f"For each {s.var} in", it, ":"
    view.groups.append(("", inner(s.body)))


def summary_loop(s: M.LoopStep) -> str:
    head = {"while": "while ", "until": "repeat until "}.get(s.mode, "loop ")
    return head + (s.cond.text if s.cond else (s.name or ""))


LOOP = dict(model=M.LoopStep, lower=lower_loop, graph=graph, stretch=STRETCH, text=text_loop, loop=True,
            endless=endless, book=book_loop, form="loop", summary=summary_loop, decides="", outcomes=False,
            fields=lambda s: (("loop", s.mode), ("condition", s.cond), ("name", s.name)))

KINDS = (
    register(StepKind("while", partial(build_loop, "while"), **LOOP,
                      doc="steps repeated while a condition holds, tested before each pass (docs/format.md)")),
    register(StepKind("repeat", partial(build_loop, "repeat"), **LOOP,
                      doc="steps repeated until a condition holds, tested after each pass (docs/format.md)")),
    register(StepKind("loop", partial(build_loop, "loop"), **LOOP,
                      doc="steps repeated until a 'break' (or 'until:') leaves the named loop (docs/format.md)")),
    register(StepKind("for_each", build_for_each, model=M.ForEachStep, binds=for_each_binds, lower=lower_for_each,
                      graph=graph, stretch=STRETCH, text=text_for_each, loop=True, book=book_for_each,
                      form="for each", summary=text_for_each, decides="", outcomes=False,
                      fields=lambda s: (("each", s.var), ("in", s.iterable), ("name", s.name)),
                      doc="steps run once for each item of a list, the item named (docs/format.md)")),
)
