"""The decisions: `choose:` (one player decides; CHOOSE) and `sealed:` (each player of a list decides in secret,
then all reveal; SEALED). How a decision's own keys are read is loader/choices.py. The compiled engine asks both
from the stretch's code (`write`)."""

from __future__ import annotations

from ...dsl.closures.compiler import Compiler
from ...model import ruleset as M
from ...model.kinds import StepKind, Stretch, register
from ..choices import _plain, asked_alike
from ..yaml_source import YMap


def build_choose(builder, node, common: dict, auto: str, loops: tuple) -> M.ChooseStep:
    comp = Compiler(builder.local_scope, builder.diags)
    spec = node.get("choose")
    return M.ChooseStep(**common, decision=builder.decision(spec, comp) if isinstance(spec, YMap) else None)


def choose_binds(builder, node, out: set) -> None:
    if isinstance(node.get("choose"), YMap) and node.get("choose").get("as") is not None:
        out.add(str(_plain(node.get("choose").get("as"))))


def lower_choose(f, s: M.ChooseStep) -> None:
    f.emit("CHOOSE", s, s.decision)


def build_sealed(builder, node, common: dict, auto: str, loops: tuple):
    comp = Compiler(builder.local_scope, builder.diags)
    spec = node.get("sealed")
    if not isinstance(spec, YMap):
        return None
    var = str(_plain(spec.get("each"), "p"))
    inner = spec.get("choose")
    it, dec = asked_alike(builder, var, builder.text.expr(spec.get("in"), comp),  # (in: kept for a hidden reason)
                          builder.decision(inner, comp, default_player=var) if isinstance(inner, YMap) else None,
                          comp)
    return M.SealedStep(**common, var=var, iterable=it, decision=dec, bind=_plain(spec.get("as")))


def each_and_as(form: str, node, out: set) -> None:
    """The names a sealed or stack step gives: its player (`each:`) and its result (`as:`)."""
    inner = node.get(form)
    if isinstance(inner, YMap):
        for k in ("each", "as"):
            if inner.get(k) is not None:
                out.add(str(_plain(inner.get(k))))


def lower_sealed(f, s: M.SealedStep) -> None:
    f.emit("SEALED", s, s, extra=f.key("sealed"))


def graph_choose(b, seq, s: M.ChooseStep, tails: list) -> list:
    d = s.decision
    nid = b.entered(seq, s, "decision", (d.prompt.text if d and d.prompt else "") or "decide", tails)
    return [nid]


def graph_sealed(b, seq, s: M.SealedStep, tails: list) -> list:
    nid = b.entered(seq, s, "sealed", f"each {s.var} decides in secret, then all reveal", tails)
    return [nid]


def _asking(call: str):
    """A step that asks, as the loop runs it, written calling `call` (a name of the code's namespace): answered at once
    (forced, or by bots in Game.play), the function goes on (`n` read back: the answers count; near the budget the
    loop goes on)."""

    def write(w, s) -> bool:
        pc = w.first(s)
        w.asked += 1
        w.emit(f"pc = {pc}")
        w.count(pc)
        for line in (f"if {call}(ctx, f, {w.const(w.code[pc])}, {pc}):", "    return _AGAIN", "n = ctx.steps",
                     "if n > lim:", "    return _True"):
            w.emit(line)
        return True
    return write


def write_choose(w, s) -> bool:
    """A choose step written out: `decide` called from the code itself (decision_steps.chosen without its frame),
    the name bound, the position left at the step while its decision waits (`_waits`), the triggers of any events fired
    (none that a choice raises today); answered at once, the function goes on with `n` read back (the decision counted
    itself). Nothing between the call and `n = ctx.steps` writes the count (compiler/positions: `_decide` runs steps of
    its own; `_waits` and `_fired` read it as the decision left it)."""
    pc = w.first(s)
    ins = w.code[pc]
    spec = ins.arg
    w.asked += 1
    w.emit(f"pc = {pc}")
    w.count(pc)
    w.emit(f"f.pc = {pc}")  # (too_many_decisions names the step at f.pc; a pending decision waits there)
    w.emit(f"_ans = _decide(ctx, {w.const(spec)}, {w.const(ins.step)})")
    for line in ("if _ans is _MISSING:", f"    _waits(ctx, {w.const(spec)})", "    return _AGAIN"):
        w.emit(line)
    if spec.bind:
        w.emit(f"_L[{w.const(spec.bind)}] = _ans")
    for line in ("if ctx._events:", f"    f.pc = {pc + 1}", "    _fired(ctx)", "    return _AGAIN", "n = ctx.steps",
                 "if n > lim:", "    return _True"):
        w.emit(line)
    return True


write_sealed = _asking("_seal")  # and a sealed step (decision_steps.sealed)


CHOSEN = Stretch(write_choose)
SEALED = Stretch(write_sealed)


# ---------------------------------------------------------------- what the tools say of them
def decision_text(d) -> str:
    """A decision in the designers' book: who, what kind of answer, the prompt."""
    if d is None:
        return "a decision"
    what = {"one": "chooses one", "subset": "chooses some", "number": "chooses a number",
            "yesno": "answers yes or no"}.get(d.kind, "decides")
    who = d.player.text if d.player is not None else "the player"
    prompt = d.prompt.text.strip("'\"") if d.prompt is not None else ""
    return f"{who} {what}" + (f": “{prompt}”" if prompt else "")


def book_choose(s: M.ChooseStep, view, label: str, inner) -> None:
    view.prose = label or decision_text(s.decision)
    view.code = decision_text(s.decision) if label else ""
    if s.decision is not None and s.decision.options is not None:
        view.code += ("; " if view.code else "") + f"options: {s.decision.options.text}"


def book_sealed(s: M.SealedStep, view, label: str, inner) -> None:
    each = f"each {s.var} in {s.iterable.text if s.iterable else '?'}"
    view.prose = label or f"In secret, {each} decides; then all reveal at once."
    view.code = f"sealed: {each}; {decision_text(s.decision)}"


def notes_choose(s: M.ChooseStep, words, text: str, label: str, full: bool) -> list:
    """Who decides, unless the box says it already ("The player: …")."""
    if s.decision is None:
        return []
    who = words.expr(s.decision.player) if s.decision.player else "the player"
    return [] if text.lower().startswith(who.lower()) else [f"{who} decides"]


def notes_said(s, words, text: str, label: str, full: bool) -> list:
    """Under the designer's label, in the designers' chart: the step in words (a sealed step, a stack)."""
    return [words.step(s, own_label=False)] if label and full else []


def decisions_of(s) -> tuple:
    return (s.decision,) if s.decision is not None else ()


def summary_choose(s: M.ChooseStep) -> str:
    d = s.decision
    return f"choose: {d.prompt.text if d is not None and d.prompt is not None else 'a decision'}"


KINDS = (
    register(StepKind("choose", build_choose, model=M.ChooseStep, binds=choose_binds, lower=lower_choose,
                      graph=graph_choose, stretch=CHOSEN, book=book_choose, notes=notes_choose, decisions=decisions_of,
                      fields=lambda s: (("", s.decision),), decides="choice", outcomes=False,
                      summary=summary_choose,
                      doc="a player decides: one option, several, a number, yes or no (docs/format.md)")),
    register(StepKind("sealed", build_sealed, model=M.SealedStep,
                      binds=lambda builder, node, out: each_and_as("sealed", node, out), lower=lower_sealed,
                      graph=graph_sealed, stretch=SEALED, raises=("revealed",), book=book_sealed,
                      notes=notes_said, form="sealed choice", outcomes=False, decisions=decisions_of,
                      fields=lambda s: (("each", s.var), ("in", s.iterable), ("as", s.bind), ("choice", s.decision)),
                      summary=lambda s: f"each {s.var} chooses in secret",
                      doc="each player of a list decides in secret, then all reveal (docs/format.md)")),
)
