"""Pass 4: turn the merged YAML tree into the frozen model, parsing and compiling every DSL string once."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any, Mapping

from ..diagnostics import Diagnostic, DiagnosticError, Span, did_you_mean, error, warning
from ..checks.unused import check_unused
from ..dsl import ast as A
from ..dsl.closures.compiler import Compiler, recording
from ..dsl.scope import RUNTIME_PLAYER_COUNT, RUNTIME_PLAYERS, FunctionDef, Scope, Symbol, kind_word
from ..model import ruleset as M
from ..model.reading import Secrets
from ..model.reasons import carried
from ..model.secrecy import hidden_modifiers_of
from ..values import OUT, FamilyRef, Row, ZoneRef
from .constructs.expansion import record_fields, scalars
from .constructs.trick import record_fields as trick_fields
from .dsl_text import DslText
from .steps import StepBuilder
from .sections import SectionBuilders, _doc, _s
from .view import build_view
from .yaml_source import Limits, YMap, YNode, YScalar, YSeq


_RESERVED = {"players", "player_count", "cards", "true", "false", "none"}


_MODIFIER_READ = re.compile(r"\bmodifier\s*\(")  # a rule reading a modifier's value


class Builder(SectionBuilders):
    def __init__(self, root: YMap, path: str, overrides: Mapping[str, Any], limits: Limits):
        self.root = root
        self.path = path
        self.overrides = dict(overrides)
        self.limits = limits
        self.diags: list[Diagnostic] = []
        self.text = DslText(self.diags, limits)
        self.titles: dict[str, str] = {}  # function and variable ids -> their words in printed rules
        self.key_titles: dict[str, str] = {}  # keys of the families variables are declared per -> their titles
        self.card_players: dict[int, frozenset] = {}  # a card in some games only (count: reads player_count)
        self.players_range = (2, 2)
        self.function_docs: dict[str, str] = {}

    def err(self, code: str, message: str, span: Span | None, hint: str | None = None) -> None:
        self.diags.append(error(code, message, span, hint))

    def section(self, key: str) -> YMap:
        node = self.root.get(key)
        return node if isinstance(node, YMap) else YMap(self.root.span)

    # ------------------------------------------------------------ declarations
    def build(self) -> M.Ruleset | None:
        r = self.root
        symbols: dict[str, Symbol] = {}
        origin: dict[str, Span] = {}

        def declare(name: str, sym: Symbol, span: Span) -> None:
            if name in symbols:
                first, second = origin[name], span
                kinds = [kind_word(symbols[name]), kind_word(sym)]
                if (second.file, second.line, second.col) < (first.file, first.line, first.col) and first.file == second.file:
                    first, second = second, first
                    kinds.reverse()
                self.err("E314", f"'{name}' is declared twice (as {kinds[0]} and as {kinds[1]})", second,
                         f"the first is at line {first.line} of {first.file}; ids share one namespace")
                return
            if name in _RESERVED:
                self.err("E314", f"'{name}' is a built-in name and cannot be declared", span)
                return
            symbols[name] = sym
            origin[name] = span

        params = self._parameters(declare)
        options = self._options(declare)
        consts = {k: Symbol("const", v.value, _type_of(v.value), "parameter") for k, v in params.items()}
        consts.update({k: Symbol("const", v.value, _type_of(v.value), "option", tuple(v.choices or ()))
                       for k, v in options.items()})
        tables = self._tables(declare, consts)
        consts.update({k: Symbol("table", _table_value(t), "table", t.sequences) for k, t in tables.items()})
        players = self._players()
        self.players_range = (players.min, players.max)  # a card group's count may read player_count
        cards = self._cards(consts)
        classes = {c for card in cards for c in card.classes}
        attrs = {a for card in cards for a in card.attrs}

        zones = self._zones(declare)
        player_zones = {k for k, z in zones.items() if z.per == "player"}
        variables = self._variables("variables", declare, per_player=False)
        pvars = self._variables("player_variables", None, per_player=True)
        cvars = self._variables("card_variables", None, per_player=False)
        for name, v in list(pvars.items()) + list(cvars.items()):
            # a player variable may share a card attribute's name (`p.coins`, `card.coins`: the value read says which)
            if name in player_zones or (name in attrs and name in cvars):
                self.err("E314", f"'{name}' is both a variable and a {'player zone' if name in player_zones else 'card attribute'}",
                         v.span)
        modifiers = {k: M.ModifierDef(k, _doc(v) if isinstance(v, YMap) else "", self.section("modifiers").key_span(k))
                     for k, v in self.section("modifiers").items()}
        for k, m in modifiers.items():
            declare(k, Symbol("modifier"), m.span)
        events = {}
        for k, v in self.section("events").items():
            fields = tuple(_s(v.get("fields"), [])) if isinstance(v, YMap) else ()
            events[k] = M.EventDef(k, fields, _doc(v) if isinstance(v, YMap) else "", self.section("events").key_span(k))
            declare(k, Symbol("event", fields), events[k].span)
        for k, f in M.BUILTIN_EVENTS.items():
            symbols.setdefault(k, Symbol("event", f))
        seq_params = {}
        for k, v in self.section("sequences").items():
            seq_params[k] = tuple(_s(v.get("params"), []) or []) if isinstance(v, YMap) else ()
        dice = self.section("dice")
        for k in dice.entries:
            declare(k, Symbol("dice"), dice.key_span(k))
        for k, v in params.items():
            declare(k, consts[k], v.span)
        for k, v in options.items():
            declare(k, consts[k], v.span)
        for k, t in tables.items():
            declare(k, consts[k], t.span)
        for k, v in variables.items():
            start_value = v.initial.plain() if isinstance(v.initial, YNode) else v.initial
            is_expr = isinstance(start_value, str) and start_value.startswith("=")
            declare(k, Symbol("var", None, "any" if is_expr else _type_of(start_value)), v.span)
        for k, z in zones.items():
            if z.per is None:
                declare(k, Symbol("zone", ZoneRef(k), "zone"), z.span)
            elif z.per == "player":
                declare(k, Symbol("player_zone"), z.span)
            else:
                declare(k, Symbol("family", FamilyRef(k), "family", "dynamic" if z.per == "dynamic" else z.per), z.span)
        # built in: a player who is out is skipped by every order (set before the sequences' names: a sequence called
        # 'out', which only 'call' names, left the modifier unknown)
        symbols.setdefault(OUT, Symbol("modifier"))
        for k in seq_params:  # sequences have a namespace of their own: only 'call', 'start:' and 'run:' name them
            symbols.setdefault(k, Symbol("sequence"))  # kept where nothing else has the name, for E306's hint
        symbols["players"] = RUNTIME_PLAYERS
        symbols["player_count"] = RUNTIME_PLAYER_COUNT
        symbols["cards"] = Symbol("const", list(cards), "list")

        scope = Scope(symbols, set(pvars), player_zones, attrs, classes,
                      {c for t in tables.values() for c in t.columns} | record_fields(self.root) | trick_fields(self.root),
                      {k: (v.initial.plain() if isinstance(v.initial, YNode) else v.initial) for k, v in cvars.items()}, {})
        self._functions(scope, symbols)
        for k, t in assigned_kinds(self.root, self.text, scope,
                                   [k for k, v in variables.items() if _none_start(v)]).items():
            symbols[k] = Symbol("var", None, t)  # declared none, set only to players: a player (or none)
        dice = self._dice(scope)
        scope.dice.update(dice)
        zones = self._zone_initials(zones, scope)
        variables = {k: self._initial(v, scope) for k, v in variables.items()}
        pvars = {k: self._initial(v, scope.with_locals({"p"})) for k, v in pvars.items()}

        metrics = self._metrics(scope)  # before the steps: a 'tally' statement checks its metric's name
        kinds = {(_s(v.get("kind"), "sequence") if isinstance(v, YMap) else "sequence")
                 for v in self.section("sequences").values()}
        # what the ruleset hides: a construct whose bookkeeping reads a hidden value tells the others no more
        functions = {k: (f.params, f.body) for k, f in scope.functions.items()}
        secrets = Secrets(zones, variables, pvars, functions)
        sequences, triggers, said = self._steps(r, scope, seq_params, kinds, secrets)
        # a modifier added for a hidden reason is itself hidden: where a rule reads one (`modifier(...)`), the steps are
        # built again knowing which (the walk, dear on a large ruleset, only then)
        draft = None
        if modifiers and _MODIFIER_READ.search(json.dumps(r.plain())):
            hid, draft = hidden_modifiers_of(zones=zones, variables=variables, player_variables=pvars, functions=functions,
                                      sequences=sequences, triggers=triggers, dice=dice, modifiers=modifiers)
            if hid:
                secrets.modifiers = hid
                secrets._memo.clear()
                sequences, triggers, said = self._steps(r, scope, seq_params, kinds, secrets)
        self.diags.extend(said)
        scoring = self._scoring(scope)

        start_node = r.get("start")
        start = _s(start_node, "")
        if start and start not in sequences:
            self.err("E309", f"the start sequence '{start}' does not exist", start_node.span if start_node else r.span,
                     did_you_mean(start, sequences))
        for name in self.overrides:
            if name not in params and name not in options:
                self.err("E316", f"--set {name}: no parameter or option of that name", None,
                         did_you_mean(name, list(params) + list(options)))
        rs = M.Ruleset(
            name=str(_s(r.get("ruleset"), "")), title=str(_s(r.get("title"), "")),
            version=str(_s(r.get("version"), "") or ""), source=str(_s(r.get("source"), "") or ""),
            notes=str(_s(r.get("notes"), "") or ""), file=self.path,
            lineage=tuple(_s(r.get("__lineage__"), [self.path])), players=players,
            parameters=params, options=options, cards=tuple(cards), dice=dice, zones=zones, tables=tables,
            variables=variables, player_variables=pvars, modifiers=modifiers, events=events,
            sequences=sequences, start=start, start_span=start_node.span if start_node else r.span,
            triggers=triggers, scoring=scoring, metrics=metrics, span=r.span,
            marks=frozenset(cvars),
            functions={k: (f.params, f.body) for k, f in scope.functions.items()},
            titles=self.titles, function_docs=self.function_docs, key_titles=self.key_titles,
            card_players=self.card_players,
            aid=r.get("aid").plain() if isinstance(r.get("aid"), YMap) else {},
            aid_texts=tuple((n.value, n.span) for n in texts_with_spans(r.get("aid"))),
            scope=scope, view=build_view(self, scope, zones, variables, pvars),
            invariants=self._invariants(scope),
            card_order=tuple(r.get("card_order").entries) if isinstance(r.get("card_order"), YMap) else (),
        )
        if draft is not None:  # (the walk over the draft answers for the ruleset made of the same parts)
            carried(draft, rs)
        return rs

    def _steps(self, r: YMap, scope: Scope, seq_params: dict, kinds: set, secrets: Secrets) -> tuple[dict, tuple, list]:
        """The sequences and triggers built, with what building them said."""
        said: list = []
        steps = StepBuilder(self.text, scope, seq_params, kinds, said)
        steps.root = self.root  # constructs read it: does anything read who dropped out of an auction?
        steps.secrets = secrets
        sequences = {}
        for k, v in self.section("sequences").items():
            if isinstance(v, YMap):
                sequences[k] = steps.sequence(k, v, self.section("sequences").key_span(k))
        triggers = tuple(steps.trigger(t) for t in (r.get("triggers") or YSeq(r.span)) if isinstance(t, YMap))
        return sequences, triggers, said

    def _functions(self, scope: Scope, symbols: dict) -> None:
        """Declare the ruleset's functions; each body compiles on first use, all are compiled here."""
        from ..dsl.builtins import REGISTRY

        sec = self.section("functions")
        for k, v in sec.items():
            span = sec.key_span(k)
            if k in symbols and symbols[k].kind != "sequence":
                self.err("E314", f"function '{k}' has the name of a {symbols[k].kind}", span)
                continue
            if k in REGISTRY:  # the ruleset's own name wins: a release that adds a built-in breaks no ruleset
                self.diags.append(warning(
                    "W314", f"function '{k}' has the name of the built-in function {k}(); this ruleset's own is used",
                    span, f"calls to {k}() here run this function; rename it to use the built-in"))
            d = v if isinstance(v, YMap) else YMap(v.span)
            params = tuple(str(x) for x in (_s(d.get("params"), []) or []))
            if _s(d.get("title"), ""):
                self.titles[k] = str(_s(d.get("title"), ""))
            self.function_docs[k] = str(_s(d.get("doc"), "") or "")
            body = self.text.parse_expr(d.get("value")) if d.get("value") is not None else None
            scope.functions[k] = FunctionDef(k, params, body, span)
        comp = Compiler(scope, self.diags)
        for fd in scope.functions.values():
            comp.function_body(fd, fd.span)


def _type_of(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "str"
    if isinstance(v, list):
        return "list"
    return "any"


def _table_value(t: M.TableDef) -> dict:
    return Row(t.rows)  # a read-only mapping: indexing a missing key is an error, not none


def scope_for(rs: M.Ruleset) -> Scope:
    """The game-wide scope a loaded ruleset was compiled in, for compiling more expressions later
    (scenarios, tests, a designer's console)."""
    return rs.scope.with_locals(set())


def build_ruleset(root: YMap, path: str, overrides: Mapping[str, Any], limits: Limits):
    b = Builder(root, path, overrides, limits)
    with recording() as used:
        try:
            model = b.build()
        except DiagnosticError as exc:
            b.diags.append(exc.diagnostic)
            model = None
    if model is not None and not any(d.is_error for d in b.diags):
        b.diags.extend(check_unused(model, used))
    return model, b.diags


def _none_start(v: M.VarDef) -> bool:
    start = v.initial.plain() if isinstance(v.initial, YNode) else v.initial
    return start is None and not v.keys


def _reads_unknown(node, scope: Scope) -> bool:
    """Whether an expression names something the scope does not know (a local name: its kind cannot be told here;
    compiling it would only work out a did-you-mean hint nobody reads)."""
    if isinstance(node, A.Name):
        return node.id not in scope.symbols and node.id not in scope.locals
    if isinstance(node, (list, tuple)):
        return any(_reads_unknown(x, scope) for x in node)
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return any(_reads_unknown(getattr(node, f.name), scope) for f in dataclasses.fields(node) if f.name != "span")
    return False


def assigned_kinds(root: YMap, text: DslText, scope: Scope, names: list) -> dict[str, str]:
    """The kind of each variable declared `none` that every assignment (`set NAME = VALUE`) in the ruleset sets to a
    player, where the loader can tell (a value whose kind depends on a local name cannot tell): so that ordering it
    (`leader < p`) is refused as for a player. Texts are parsed here without reporting: the steps report them."""
    wanted = set(names)
    if not wanted:
        return {}
    kinds: dict[str, set] = {}
    loose = scope.with_locals(set())
    for part in ("sequences", "triggers"):
        for node in scalars(root.get(part)):
            if "set " not in node.value or not any(n in node.value for n in wanted):
                continue
            for st in text.quiet_stmts(node) or ():  # (not statements, or a mistake: the steps report it)
                if isinstance(st, A.Assign) and st.op == "=" and isinstance(st.target, A.Name) and st.target.id in wanted:
                    v = st.value
                    t = "player" if isinstance(v, A.Index) and isinstance(v.obj, A.Name) and v.obj.id == "players" \
                        and "players" not in scope.locals else "any" if _reads_unknown(v, loose) \
                        else Compiler(loose, []).expr(v)[1]
                    kinds.setdefault(st.target.id, set()).add("none" if isinstance(st.value, A.Const)
                                                              and st.value.value is None else t)
    return {k: "player" for k, ts in kinds.items() if "player" in ts and ts <= {"player", "none"}}


def texts_with_spans(root: YNode | None):
    """The text scalars under a node (any depth), in order, each with its place (the `aid:` prose)."""
    todo = [root] if root is not None else []
    while todo:
        n = todo.pop(0)
        if isinstance(n, YMap):
            todo[:0] = list(n.entries.values())
        elif isinstance(n, YSeq):
            todo[:0] = list(n.items)
        elif isinstance(n, YScalar) and isinstance(n.value, str):
            yield n
