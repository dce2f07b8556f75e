"""Decisions in steps (`choose:`, a sealed step's and a stack's choices) built into the model's DecisionSpec."""

from __future__ import annotations

from dataclasses import fields, replace

from ..diagnostics import RuleError, did_you_mean
from ..dsl import ast as A
from ..dsl.closures.compiler import Compiler
from ..dsl.scope import LoadTimeContext, Scope
from ..model import ruleset as M
from .yaml_source import YMap, YNode, YScalar

DECISION_KINDS = ("one", "subset", "number", "yesno")
_STATIC_NODES = (A.Num, A.Const, A.Str, A.BinOp, A.Unary, A.Ternary, A.Compare)


def _plain(node: YNode | None, default=None):
    return node.plain() if node is not None else default


def _static(node: A.Expr, scope: Scope) -> bool:
    """The expression's value is known when the ruleset loads: numbers, parameters and options, and operators."""
    for n in node.walk():
        if isinstance(n, A.Name):
            sym = scope.symbols.get(n.id)
            if n.id in scope.locals or sym is None or sym.kind != "const" or sym.detail not in ("parameter", "option"):
                return False
        elif not isinstance(n, _STATIC_NODES):
            return False
    return True


def _amounts(options: M.CExpr | None, comp: Compiler) -> tuple[M.CExpr, M.CExpr] | None:
    """The bounds of options written `[none] + (low..high)` (a bid: the pass, then every amount from low to high),
    compiled on their own so the engine counts the options instead of building them (DecisionSpec.amounts, as an
    auction's bids are told); None for options of any other shape. The bounds carry the options' text."""
    if options is None:
        return None
    ast = options.ast
    if not (ast.__class__ is A.BinOp and ast.op == "+" and ast.left.__class__ is A.ListLit
            and len(ast.left.items) == 1 and ast.left.items[0].__class__ is A.Const
            and ast.left.items[0].value is None and ast.right.__class__ is A.Range):
        return None
    quiet = Compiler(comp.scope, [])  # the whole options compiled and said what was wrong: not said again
    return tuple(M.CExpr(options.text, e, quiet.expr(e)[0], e.span) for e in (ast.right.low, ast.right.high))


class DecisionBuilder:
    """The decision specs of StepBuilder (steps.py): kind, options, bounds, prompt, default, display."""

    def decision(self, spec: YMap, comp: Compiler, default_player: str | None = None,
                 default_kind: str = "one") -> M.DecisionSpec:
        kind = str(_plain(spec.get("kind"), default_kind))
        if kind not in DECISION_KINDS:
            self.err("E204", f"unknown decision kind '{kind}'", spec.get("kind").span,
                     did_you_mean(kind, DECISION_KINDS) or "kinds: " + ", ".join(DECISION_KINDS))
        player_node = spec.get("player")
        if player_node is None and default_player is not None:
            player_node = YScalar(spec.span, default_player, None, "")
        if player_node is None:
            self.err("E202", "a decision needs 'player:' (who decides)", spec.span)
        if kind in ("one", "subset") and spec.get("options") is None:
            self.err("E202", f"a '{kind}' decision needs 'options:'", spec.span)
        if kind == "number" and (spec.get("min") is None or spec.get("max") is None):
            self.err("E202", "a 'number' decision needs 'min:' and 'max:'", spec.span)
        if kind == "yesno":
            for key in ("options", "min", "max"):
                if spec.get(key) is not None:
                    self.err("E201", f"a yes/no decision has no '{key}': its answers are yes and no",
                             spec.key_span(key), "remove it, or make the decision 'kind: one' to choose among options")
        # every key of a decision does what it says for its kind, or is refused (none is read and ignored)
        unused = {"one": (("min", "max"), "a 'one' decision picks one option; give 'kind: subset' to pick several"),
                  "number": (("options",), "a 'number' decision is a whole number from 'min' to 'max'"),
                  "subset": (("optional",), "give 'min: 0' to let the player choose nothing"),
                  "yesno": (("optional",), "a yes/no decision is always answered")}.get(kind, ((), ""))
        for key in unused[0]:
            given = spec.get(key) is not None and (key != "optional" or bool(_plain(spec.get(key), False)))
            if given and not (kind == "yesno" and key != "optional"):
                self.err("E201", f"a '{kind}' decision has no '{key}'", spec.key_span(key), unused[1])
        prompt = spec.get("prompt")
        prompt_expr, parts = None, ()
        if isinstance(prompt, YScalar) and prompt.value is not None:
            # a prompt is text with {expressions}: parse it as a template string
            raw = str(prompt.value)
            ast = self.text.parse_template(prompt)
            if ast is not None:
                fn, _ = comp.expr(ast)
                prompt_expr = M.CExpr(raw, ast, fn, prompt.span)
                if not ast.is_plain:  # each field alone too (its mistakes were told above, once)
                    alone = Compiler(comp.scope, [])
                    parts = tuple(p if isinstance(p, str) else M.CExpr(raw, p, alone.expr(p)[0], prompt.span)
                                  for p in ast.parts)
        ex = self.text.expr
        bind = _plain(spec.get("as"))
        display_as = str(bind) if bind else "option"
        display = None
        if spec.get("display") is not None:
            if kind not in ("one", "subset"):
                self.err("E204", f"'display' names the options of a 'one' or 'subset' decision, not of a '{kind}' one",
                         spec.key_span("display"), "remove it: this decision has no options to name")
            display = ex(spec.get("display"), comp.sub_compiler(comp.scope.with_locals(comp.scope.locals | {display_as})))
        low, high = ex(spec.get("min"), comp), ex(spec.get("max"), comp)
        if low is not None and high is not None and kind in ("subset", "number"):
            self._bounds(kind, low, high, spec)
        options = ex(spec.get("options"), comp)
        return M.DecisionSpec(
            player=ex(player_node, comp) if player_node is not None else None,
            kind=kind,
            options=options,
            min=low,
            max=high,
            prompt=prompt_expr,
            prompt_parts=parts,
            bind=bind,
            default=ex(spec.get("default"), comp),
            optional=bool(_plain(spec.get("optional"), False)),
            span=spec.span,
            display=display,
            display_as=display_as,
            secret=None if spec.get("secret") is None else bool(_plain(spec.get("secret"), False)),
            amounts=_amounts(options, comp) if kind == "one" else None,
        )

    def _bounds(self, kind: str, low: M.CExpr, high: M.CExpr, spec: YMap) -> None:
        """A decision whose 'min' is above its 'max', where both are known when the ruleset loads (numbers,
        parameters, options): no answer could ever be legal. Bounds that need a game are checked as it runs."""
        values = []
        for e in (low, high):
            if not _static(e.ast, self.local_scope):
                return
            try:
                v = e.fn(LoadTimeContext())
            except (RuleError, TypeError, ValueError, KeyError, AttributeError):
                return
            if isinstance(v, bool) or not isinstance(v, int):
                return
            values.append(v)
        if values[0] > values[1] and not (kind == "number" and bool(_plain(spec.get("optional"), False))):
            what = "choose at least" if kind == "subset" else "answer at least"
            self.err("E204", f"this {kind} decision's 'min' ({values[0]}) is above its 'max' ({values[1]}): "
                             f"no answer is legal", low.span,
                     f"a player cannot {what} {values[0]} with at most {values[1]}; swap them or lower 'min'")


def asked_alike(builder, var: str, it: M.CExpr | None, dec: M.DecisionSpec | None, comp: Compiler) \
        -> tuple[M.CExpr | None, M.DecisionSpec | None]:
    """A sealed step whose `in:` keeps the players of a list for a reason some seat cannot see (`[q for q in players
    if <who holds a card>]`): everyone in the list is asked, one the condition leaves out with their decline (the
    pass, no, nothing) as the only answer, told to the others as any decline (docs/secrecy.md). The step's list and
    decision as they stay otherwise (a decision with no decline, a list not written as such a comprehension)."""
    secrets = getattr(builder, "secrets", None)
    ast = it.ast if it is not None else None
    if secrets is None or dec is None or ast.__class__ is not A.Comprehension or ast.condition is None \
            or not secrets.reads(ast.condition) or not (isinstance(ast.element, A.Name) and ast.element.id == ast.var):
        return it, dec
    cond = ast.condition
    if ast.var != var:  # the condition with the sealed step's own name for the player
        cond = _renamed(cond, {ast.var: A.Name(cond.span, var)})
    decline = A.ListLit(cond.span, (A.Const(cond.span, False),)) if dec.kind == "yesno" else A.ListLit(cond.span, ())
    if dec.kind == "yesno":
        options = A.Ternary(cond.span, A.ListLit(cond.span, (A.Const(cond.span, True), A.Const(cond.span, False))),
                            cond, decline)
        dec = replace(dec, kind="one", optional=False)
    elif dec.options is not None and (dec.kind == "subset" or (dec.kind == "one" and dec.optional)):
        options = A.Ternary(cond.span, dec.options.ast, cond, decline)
    else:
        return it, dec
    fn, _t = comp.expr(options)
    opts = M.CExpr(dec.options.text if dec.options is not None else "[true, false]", options, fn, dec.span)
    everyone, _t = comp.expr(ast.iterable)
    return M.CExpr(it.text, ast.iterable, everyone, it.span), replace(dec, options=opts, amounts=None)


def _renamed(node, names: dict):
    """`node` with each Name in `names` replaced (a comprehension's own names left alone)."""
    if isinstance(node, A.Name):
        return names.get(node.id, node)
    if isinstance(node, tuple):
        return tuple(_renamed(x, names) for x in node)
    if not isinstance(node, A.Node):
        return node
    if isinstance(node, A.Comprehension) and node.var in names:
        names = {k: v for k, v in names.items() if k != node.var}
    return replace(node, **{f.name: _renamed(getattr(node, f.name), names) for f in fields(node) if f.name != "span"})


def declined_otherwise(builder, cond: M.CExpr | None, then: list, other: list, comp: Compiler) -> list:
    """An `if` with no `else` whose condition reads something some seat cannot see, and whose `then` opens with a
    decision that may be declined ('Play Treasures' asked only of a hand holding some): otherwise the decider
    declines at once (the pass, no, nothing: their only answer), so the others read the same line whether the
    condition held and the decider declined or it did not hold (docs/secrecy.md). `other` as it is in any other
    case. The options of that decline read the condition and the decision's own options, never working them out."""
    secrets = getattr(builder, "secrets", None)
    first = then[0] if then else None
    dec = getattr(first, "decision", None) if isinstance(first, M.ChooseStep) else None
    if other or secrets is None or cond is None or dec is None or not secrets.reads(cond.ast):
        return other
    sp = cond.span
    if dec.kind == "yesno":
        decline, orig, dec = A.ListLit(sp, (A.Const(sp, False),)), A.ListLit(sp, ()), replace(dec, kind="one")
    elif dec.options is not None and (dec.kind == "subset" or (dec.kind == "one" and dec.optional)):
        decline, orig = A.ListLit(sp, ()), dec.options.ast
    else:
        return other
    # `decline if true else (orig if cond else decline)`: only the decline is worked out
    options = A.Ternary(sp, decline, A.Const(sp, True), A.Ternary(sp, orig, cond.ast, decline))
    fn, _t = comp.expr(options)
    opts = M.CExpr(dec.options.text if dec.options is not None else "[true, false]", options, fn, sp)
    spec = replace(dec, options=opts, min=None, max=None, amounts=None, optional=dec.kind == "one" and dec.optional)
    return [replace(first, decision=spec, path=first.path + ".declined", explicit_id=False)]
