"""Build sequences, steps and triggers from YAML, compiling their DSL strings in the right scope."""

from __future__ import annotations

from typing import Optional

from ..diagnostics import Diagnostic, Span, did_you_mean, error, warning
from ..dsl import ast as A
from ..dsl.checking import fill_title, title_problems, truth_problems
from ..dsl.closures.compiler import Compiler
from ..dsl.scope import Scope
from ..dsl.closures.statements import StatementCompiler
from ..model import ruleset as M
from ..model.kinds import KINDS
from .choices import DecisionBuilder, _plain
from . import kinds as _core  # noqa: F401 - registers the core step kinds (do, call, if, loops, decisions, stack)
from .constructs import kinds as _kinds  # noqa: F401 - registers the engine's own constructs (auction, respond)
from .dsl_text import DslText, compile_stmts
from .schema import all_forms  # the step forms, as the schema lists them (registered kinds included)
from .yaml_source import YMap, YNode, YScalar, YSeq



def _steps_of(node: YNode | None) -> list[YNode]:
    if node is None:
        return []
    if isinstance(node, YSeq):
        return list(node.items)
    return [node]


class StepBuilder(DecisionBuilder):
    def __init__(self, text: DslText, scope: Scope, seq_params: dict[str, tuple], kinds: set[str],
                 diags: list[Diagnostic]):
        self.text = text
        self.scope = scope
        self.seq_params = seq_params
        self.kinds = kinds
        self.diags = diags
        self.seq_id = ""
        self.ids: dict[str, Span] = {}
        self.rolls_bind = True  # binders: whether `roll ... as NAME` counts (not when finding names bound otherwise)

    def condition(self, node: YNode | None, comp: Compiler) -> Optional[M.CExpr]:
        """A step's condition, compiled; a zone, table or row in it (always true) is warned of at that step."""
        cond = self.text.expr(node, comp)
        if cond is not None:
            self.diags.extend(warning(*p) for p in truth_problems(cond.ast, comp.scope))
        return cond

    def err(self, code: str, message: str, span: Span | None, hint: str | None = None) -> None:
        self.diags.append(error(code, message, span, hint))

    # ------------------------------------------------------------ binders
    def binders(self, steps: list[YNode], out: set[str]) -> None:
        """Add to `out` the locals the steps bind (their kinds say which), and those of the steps inside them."""
        for node in steps:
            if isinstance(node, YScalar):
                self.stmt_binders(node, out)
                continue
            if not isinstance(node, YMap):
                continue
            form = self._form(node, report=False)
            kind = KINDS.get(form) if form is not None else None
            if kind is not None and kind.binds is not None:
                kind.binds(self, node, out)
            elif kind is not None:  # its `names`, and those its parts' steps give (a construct's: auction, ...)
                out |= kind.names(node)
                spec = node.get(form)
                for key in kind.parts if isinstance(spec, YMap) else ():
                    self.binders(_steps_of(spec.get(key)), out)
            for body in ("then", "else", "repeat") + (("do",) if form != "do" else ()):
                self.binders(_steps_of(node.get(body)), out)

    def _bound_otherwise(self, node: YMap) -> set[str]:
        """The names a sequence's steps bind by anything but a roll (`let`, a decision's `as`, a loop's name...)."""
        out: set[str] = set()
        self.rolls_bind = False
        try:
            self.binders(_steps_of(node.get("steps")), out)
        finally:
            self.rolls_bind = True
        return out

    def stmt_binders(self, node: YScalar, out: set[str]) -> None:
        for s in self.text.parse_stmts(node) or ():
            if isinstance(s, A.Let):
                out.add(s.name)
            elif isinstance(s, (A.Draw, A.Roll, A.CreateZone, A.CallSeq)) and s.bind:
                if self.rolls_bind or not isinstance(s, A.Roll):
                    out.add(s.bind)

    # ------------------------------------------------------------ sequences
    def sequence(self, seq_id: str, node: YMap, span: Span) -> M.SequenceDef:
        self.seq_id = seq_id
        self.ids = {}
        params = self.seq_params.get(seq_id, ())
        names = set(params)
        self.binders(_steps_of(node.get("steps")), names)
        self.local_scope = self.scope.with_locals(names)
        for name in sorted(names - set(params) - self._bound_otherwise(node)):  # a roll's, and nothing else's
            self.local_scope = self.local_scope.with_typed_local(name, "roll")
        steps = self.block(_steps_of(node.get("steps")), "", ())
        if not steps:
            self.err("E403", f"sequence '{seq_id}' has no steps", span, "add 'steps:' with at least one step")
        title = node.get("title")
        shown = str(_plain(title, seq_id))
        if isinstance(title, YScalar) and isinstance(title.value, str) and "{" in title.value:
            self.diags.extend(warning(*p[:2], title.span_of(*p[2]), p[3]) for p in title_problems(title.value, params, self.scope))
            shown = fill_title(shown, self.scope)  # '{keep}', a parameter of the ruleset: its value, as in a label
        return M.SequenceDef(seq_id, str(_plain(node.get("kind"), "sequence")), shown,
                             str(_plain(node.get("source"), "") or ""), tuple(params), tuple(steps), span,
                             str(_plain(node.get("doc"), "") or _plain(node.get("note"), "") or ""))

    def block(self, nodes: list[YNode], prefix: str, loops: tuple) -> list[M.Step]:
        out = []
        for i, n in enumerate(nodes, 1):
            step = self.step(n, f"{prefix}{i}", loops)
            if step is not None:
                out.append(step)
        return out

    def _form(self, node: YMap, report: bool = True) -> Optional[str]:
        forms = all_forms()
        present = [f for f in forms if f in node.entries]
        if "do" in present and len(present) > 1:
            present.remove("do")  # 'do' is the body of while/loop/for_each
        if len(present) == 1:
            return present[0]
        if report:
            if not present:
                other = [k for k in node.entries if k not in ("id", "label", "source", "note")]
                hint = did_you_mean(other[0], forms) if other else None
                self.err("E205", "this step says nothing to do", node.span,
                         hint or "a step is text, or a mapping with one of: " + ", ".join(forms))
            else:
                self.err("E205", f"a step can have only one of {', '.join(present)}", node.span,
                         "split it into separate steps")
        return None

    def step(self, node: YNode, auto: str, loops: tuple) -> Optional[M.Step]:
        seq = self.seq_id
        if isinstance(node, YScalar):
            stmts = compile_stmts(self.text, node, self.stmt_compiler(loops))
            label = str(node.value) if node.value is not None else ""
            return M.ActionStep(auto, f"{seq}/{auto}", label, "", "", node.span, False, stmts)
        if not isinstance(node, YMap):
            self.err("E203", "a step is text or a mapping", node.span)
            return None
        form = self._form(node)
        if form is None:
            return None
        sid_node = node.get("id")
        explicit = sid_node is not None
        sid = str(sid_node.plain()) if explicit else auto
        if explicit:
            if sid in self.ids:
                self.err("E314", f"two steps of '{seq}' have the id '{sid}'", sid_node.span,
                         f"the other is at line {self.ids[sid].line}")
            self.ids[sid] = sid_node.span
        common = dict(id=sid, path=f"{seq}/{auto}", label=str(_plain(node.get("label"), "") or ""),
                      source=str(_plain(node.get("source"), "") or ""), note=str(_plain(node.get("note"), "") or ""),
                      span=node.span, explicit_id=explicit)
        return KINDS[form].build(self, node, common, auto, loops)  # its kind builds it (loader/kinds/, constructs/)

    @staticmethod
    def steps_of(node: YNode | None) -> list[YNode]:
        """The step nodes of a key holding steps: a list, or one step written alone."""
        return _steps_of(node)

    def stmt_compiler(self, loops: tuple) -> StatementCompiler:
        return StatementCompiler(self.local_scope, self.diags, loops, self.seq_params, self.kinds)

    # ------------------------------------------------------------ triggers
    def trigger(self, node: YMap) -> M.Trigger:
        key = "event" if node.get("event") is not None or node.get("on") is None else "on"
        if node.get("on") is not None:
            # YAML 1.1 readers (PyYAML among them) read the key 'on' as true: files keep working, but say so
            if key == "on":
                self.diags.append(warning("W312", "'on:' is the old name of a trigger's event; write 'event:'",
                                          node.key_span("on"), "rename 'on:' to 'event:' (YAML 1.1 readers such as PyYAML read 'on' as true)"))
            else:
                self.err("E201", "a trigger names its event once: both 'event:' and 'on:' are given",
                         node.key_span("on"), "remove 'on:'")
        on = str(_plain(node.get(key), ""))
        sym = self.scope.symbols.get(on)
        fields: tuple = ()
        if sym is None or sym.kind != "event":
            events = [k for k, s in self.scope.symbols.items() if s.kind == "event"]
            self.err("E311", f"unknown event type '{on}'", node.get(key).span if node.get(key) else node.span,
                     did_you_mean(on, events) or "built-in events: drawn, moved, rolled, shuffled, revealed")
        else:
            fields = tuple(sym.value or ())
        run = str(_plain(node.get("run"), ""))
        run_span = node.get("run").span if node.get("run") else node.span
        if run not in self.seq_params:
            self.err("E309", f"unknown sequence '{run}'", run_span, did_you_mean(run, self.seq_params))
        else:
            for p in self.seq_params[run]:
                if fields and p not in fields:
                    self.err("E310", f"sequence '{run}' expects '{p}', which a '{on}' event does not give", run_span,
                             f"'{on}' gives: {', '.join(fields)}")
        timing_raw = str(_plain(node.get("timing"), "now"))
        after_kind = None
        timing = "now"
        if timing_raw != "now":
            parts = timing_raw.split()
            if len(parts) == 2 and parts[0] == "after":
                timing, after_kind = "after", parts[1]
                if after_kind not in self.kinds:
                    self.err("E402", f"no sequence has the kind '{after_kind}'", node.get("timing").span,
                             did_you_mean(after_kind, self.kinds))
            else:
                self.err("E204", f"timing '{timing_raw}' is 'now' or 'after KIND'", node.get("timing").span)
        comp = Compiler(self.scope.with_locals(set(fields)), self.diags)
        when = self.text.expr(node.get("when"), comp)
        return M.Trigger(str(_plain(node.get("id"), f"trigger_{on}")), on, when, run, timing, after_kind, node.span,
                         str(_plain(node.get("source"), "") or ""), str(_plain(node.get("label"), "") or ""))
