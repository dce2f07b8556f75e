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


def write(w, s) -> bool:
    """A decision or sealed step, run as the loop runs it (compiler/running._asks): answered at once (forced, or by
    bots in Game.play), the function goes on (`n` read back: the answers count; near the budget the loop goes on)."""
    pc = w.first(s)
    w.asked += 1
    w.emit(f"pc = {pc}")
    w.count(pc)
    for line in (f"if _asks(ctx, f, {w.const(w.code[pc])}, {pc}):", "    return _AGAIN", "n = ctx.steps",
                 "if n > lim:", "    return _True"):
        w.emit(line)
    return True


ASKED = Stretch(write)

KINDS = (
    register(StepKind("choose", build_choose, model=M.ChooseStep, binds=choose_binds, lower=lower_choose,
                      graph=graph_choose, stretch=ASKED,
                      doc="a player decides: one option, several, a number, yes or no (docs/format.md)")),
    register(StepKind("sealed", build_sealed, model=M.SealedStep,
                      binds=lambda builder, node, out: each_and_as("sealed", node, out), lower=lower_sealed,
                      graph=graph_sealed, stretch=ASKED,
                      doc="each player of a list decides in secret, then all reveal (docs/format.md)")),
)
