"""Pass 4: turn the merged YAML tree into the frozen model, parsing and compiling every DSL string once."""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

from ..diagnostics import Diagnostic, DiagnosticError, Span, did_you_mean, error
from ..checks.unused import check_unused
from ..dsl.compiler import Compiler, recording
from ..dsl.scope import RUNTIME_PLAYER_COUNT, RUNTIME_PLAYERS, FunctionDef, Scope, Symbol, kind_word
from ..model import ruleset as M
from ..values import Card, FamilyRef, Row, ZoneRef
from .cells import CellValues as _CellValues, columns_word as _columns_word
from .constructs import record_fields
from .dsl_text import DslText
from .steps import StepBuilder
from .view import build_view
from .yaml_source import Limits, YMap, YNode, YScalar, YSeq

def _s(node: YNode | None, default: Any = None) -> Any:
    return node.plain() if node is not None else default


def _doc(m: YMap, key: str = "doc") -> str:
    v = m.get(key)
    return str(v.plain()) if isinstance(v, YScalar) and v.value is not None else ""


class Builder:
    def __init__(self, root: YMap, path: str, overrides: Mapping[str, Any], limits: Limits):
        self.root = root
        self.path = path
        self.overrides = dict(overrides)
        self.limits = limits
        self.diags: list[Diagnostic] = []
        self.text = DslText(self.diags, limits)
        self.titles: dict[str, str] = {}  # function and variable ids -> their words in printed rules
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
        consts.update({k: Symbol("table", _table_value(t), "table") for k, t in tables.items()})
        cards = self._cards(consts)
        classes = {c for card in cards for c in card.classes}
        attrs = {a for card in cards for a in card.attrs}

        zones = self._zones(declare)
        player_zones = {k for k, z in zones.items() if z.per == "player"}
        variables = self._variables("variables", declare, per_player=False)
        pvars = self._variables("player_variables", None, per_player=True)
        cvars = self._variables("card_variables", None, per_player=False)
        for name, v in list(pvars.items()) + list(cvars.items()):
            if name in player_zones or name in attrs:
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
            declare(k, Symbol("sequence"), self.section("sequences").key_span(k))
        for k, d in self.section("dice").items():
            declare(k, Symbol("dice"), self.section("dice").key_span(k))
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
        symbols["players"] = RUNTIME_PLAYERS
        symbols["player_count"] = RUNTIME_PLAYER_COUNT
        symbols["cards"] = Symbol("const", list(cards), "list")

        scope = Scope(symbols, set(pvars), player_zones, attrs, classes,
                      {c for t in tables.values() for c in t.columns} | record_fields(self.root),
                      {k: (v.initial.plain() if isinstance(v.initial, YNode) else v.initial) for k, v in cvars.items()}, {})
        self._functions(scope, symbols)
        dice = self._dice(scope)
        scope.dice.update(dice)
        zones = self._zone_initials(zones, scope)
        variables = {k: self._initial(v, scope) for k, v in variables.items()}
        pvars = {k: self._initial(v, scope.with_locals({"p"})) for k, v in pvars.items()}

        metrics = self._metrics(scope)  # before the steps: a 'tally' statement checks its metric's name
        kinds = {(_s(v.get("kind"), "sequence") if isinstance(v, YMap) else "sequence")
                 for v in self.section("sequences").values()}
        steps = StepBuilder(self.text, scope, seq_params, kinds, self.diags)
        steps.root = self.root  # constructs read it: does anything read who dropped out of an auction?
        sequences = {}
        for k, v in self.section("sequences").items():
            if isinstance(v, YMap):
                sequences[k] = steps.sequence(k, v, self.section("sequences").key_span(k))
        triggers = tuple(steps.trigger(t) for t in (r.get("triggers") or YSeq(r.span)) if isinstance(t, YMap))
        scoring = self._scoring(scope)

        start_node = r.get("start")
        start = _s(start_node, "")
        if start and start not in sequences:
            self.err("E309", f"the start sequence '{start}' does not exist", start_node.span if start_node else r.span,
                     did_you_mean(start, sequences))
        players = self._players()
        for name, value in self.overrides.items():
            if name not in params and name not in options:
                self.err("E316", f"--set {name}: no parameter or option of that name", None,
                         did_you_mean(name, list(params) + list(options)))
        return M.Ruleset(
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
            titles=self.titles, function_docs=self.function_docs,
            aid=r.get("aid").plain() if isinstance(r.get("aid"), YMap) else {},
            scope=scope, view=build_view(self, scope, zones, variables, pvars),
        )

    def _functions(self, scope: Scope, symbols: dict) -> None:
        """Declare the ruleset's functions; each body compiles on first use, all are compiled here."""
        from ..dsl.builtins import REGISTRY

        sec = self.section("functions")
        for k, v in sec.items():
            span = sec.key_span(k)
            if k in REGISTRY or k in symbols:
                self.err("E314", f"function '{k}' has the name of a {'built-in function' if k in REGISTRY else symbols[k].kind}",
                         span)
                continue
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

    def _players(self) -> M.Players:
        p = self.root.get("players")
        d = p.plain() if isinstance(p, YMap) else {}
        lo, hi = int(d.get("min", 2)), int(d.get("max", d.get("min", 2)))
        default = int(d.get("default", lo))
        if not (1 <= lo <= default <= hi <= 64):
            self.err("E204", f"players: need 1 <= min ({lo}) <= default ({default}) <= max ({hi}) <= 64",
                     p.span if p else self.root.span)
        return M.Players(lo, hi, default)

    def _parameters(self, declare) -> dict[str, M.ParamDef]:
        out = {}
        sec = self.section("parameters")
        for k, v in sec.items():
            d = v.plain() if isinstance(v, YMap) else {"default": v.plain()}
            default = d.get("default")
            value = self.overrides.get(k, default)
            if k in self.overrides:
                value = _coerce(value, default)
            lo, hi = d.get("min"), d.get("max")
            span = sec.key_span(k)
            # the value differs from the default only when --set gave one: check each once
            checks = [("default", default)] + ([("value", value)] if k in self.overrides else [])
            for label, val in checks:
                if isinstance(val, (int, float)) and not isinstance(val, bool):
                    if (lo is not None and val < lo) or (hi is not None and val > hi):
                        where = v.get("default") if label == "default" and isinstance(v, YMap) else None
                        self.err("E204", f"parameter '{k}': {label} {val} is outside {lo}..{hi}",
                                 where.span if where is not None else span)
            out[k] = M.ParamDef(k, value, default, lo, hi, str(d.get("doc", "") or ""), span, str(d.get("source", "") or ""))
        return out

    def _options(self, declare) -> dict[str, M.OptionDef]:
        out = {}
        sec = self.section("options")
        for k, v in sec.items():
            if not isinstance(v, YMap):
                continue
            d = v.plain()
            choices = tuple(d.get("choices") or ())
            default = d.get("default")
            value = _coerce(self.overrides[k], default) if k in self.overrides else default
            span = sec.key_span(k)
            if choices and default not in choices:
                node = v.get("default")
                self.err("E204", f"option '{k}': default {default!r} is not one of its choices", node.span if node else span,
                         "choices: " + ", ".join(map(str, choices)))
            if choices and k in self.overrides and value not in choices:
                self.err("E316", f"--set {k}={value}: not one of the choices", None, "choices: " + ", ".join(map(str, choices)))
            out[k] = M.OptionDef(k, value, default, choices, str(d.get("doc", "") or ""), str(d.get("source", "") or ""), span)
        return out

    def _tables(self, declare, consts: dict) -> dict[str, M.TableDef]:
        out = {}
        sec = self.section("tables")
        cells = _CellValues(self, consts)
        for k, v in sec.items():
            if not isinstance(v, YMap):
                continue
            d = v.plain()
            keys = tuple(d.get("keys") or ())
            columns = tuple(d.get("columns") or ())
            rows: dict = {}
            rows_node = v.get("rows")
            for rk, rv in (rows_node.items() if isinstance(rows_node, YMap) else []):
                key = _match_key(rk, keys)
                if isinstance(rv, YSeq):
                    vals = rv.plain()
                    if len(vals) != len(columns):
                        self.err("E317", f"table '{k}': row '{rk}' has {len(vals)} values for {len(columns)} columns", rv.span,
                                 "columns: " + ", ".join(columns))
                    rows[key] = Row(zip(columns, (cells.value(n, x) for n, x in zip(rv.items, vals))))
                elif isinstance(rv, YMap):
                    for col in rv.entries:
                        if col not in columns:
                            self.err("E317", f"table '{k}': unknown column '{col}'", rv.key_span(col), did_you_mean(col, columns))
                    missing = [c for c in columns if c not in rv.entries]
                    if missing:
                        self.err("E317", f"table '{k}': row '{rk}' leaves out {_columns_word(missing)}", rv.span,
                                 f"give every column a value; write none for a cell that has none: "
                                 f"{missing[0]}: none")
                    rows[key] = Row((c, cells.value(rv.get(c), rv.plain().get(c))) for c in columns)
                else:
                    rows[key] = Row({columns[0]: rv.plain()} if columns else {})
                if keys and key not in keys:
                    self.err("E317", f"table '{k}': row '{rk}' is not one of its keys", rows_node.key_span(rk),
                             did_you_mean(str(rk), map(str, keys)))
            for key in keys:
                if key not in rows:
                    self.err("E317", f"table '{k}': no row for key '{key}'", v.span)
            out[k] = M.TableDef(k, keys or tuple(rows), columns, rows, tuple(d.get("cycle") or ()),
                                tuple(d.get("permutation") or ()), sec.key_span(k), str(d.get("doc", "") or ""),
                                str(d.get("title", "") or ""))
        return out

    def _zones(self, declare) -> dict[str, M.ZoneDef]:
        out = {}
        sec = self.section("zones")
        for k, v in sec.items():
            d = v.plain() if isinstance(v, YMap) else {}
            per = d.get("per")
            if isinstance(per, list):
                per = tuple(per)
            out[k] = M.ZoneDef(k, per, d.get("visibility", "open"), d.get("initial"), sec.key_span(k),
                               str(d.get("doc", "") or ""), str(d.get("title", "") or ""))
        return out

    def _zone_initials(self, zones, scope) -> dict[str, M.ZoneDef]:
        out = {}
        sec = self.section("zones")
        for k, z in zones.items():
            init = z.initial
            if isinstance(init, str) and init != "all":
                node = sec.get(k).get("initial")  # type: ignore[union-attr]
                init = self.text.expr(node, Compiler(scope, self.diags))
            elif init not in (None, "all"):
                self.err("E203", f"zone '{k}': 'initial' is 'all' or an expression", z.span)
                init = None
            out[k] = M.ZoneDef(z.id, z.per, z.visibility, init, z.span, z.doc, z.title)
        return out

    def _variables(self, key: str, declare, per_player: bool) -> dict[str, M.VarDef]:
        out = {}
        sec = self.section(key)
        for k, v in sec.items():
            if isinstance(v, YMap):  # the long form: {initial: ..., visibility: ..., title: ..., doc: ...}
                vis = str(_s(v.get("visibility"), "public"))
                if vis == "owner" and not per_player:
                    self.err("E204", f"a game variable has no owner: '{k}' is 'public' or 'hidden'",
                             v.get("visibility").span, "visibility 'owner' is for player variables")
                title = str(_s(v.get("title"), "") or "")
                if title:
                    self.titles[k] = title  # how the variable reads in printed rules too
                out[k] = M.VarDef(k, v.get("initial"), sec.key_span(k), per_player, vis, title,
                                  str(_s(v.get("doc"), "") or ""))
            else:
                out[k] = M.VarDef(k, v, sec.key_span(k), per_player)  # initial resolved later
            if declare is None:
                if k in ("seat", "name", "id", "classes", "zone", "owner"):
                    self.err("E314", f"'{k}' is a built-in attribute and cannot be a variable", sec.key_span(k))
        return out

    def _initial(self, v: M.VarDef, scope: Scope) -> M.VarDef:
        node = v.initial
        if isinstance(node, YScalar) and isinstance(node.value, str) and node.value.startswith("="):
            initial = self.text.expr(node, Compiler(scope, self.diags), skip=1)
        else:
            initial = node.plain() if isinstance(node, YNode) else node
        return dataclasses.replace(v, initial=initial)

    def _dice(self, scope: Scope) -> dict[str, M.DiceDef]:
        out = {}
        sec = self.section("dice")
        inner = Compiler(scope.with_locals({"faces", "total", "doubles"}), self.diags)
        for k, v in sec.items():
            if not isinstance(v, YMap):
                continue
            results = []
            for r in v.get("results") or []:
                if not isinstance(r, YMap):
                    continue
                when = self.text.expr(r.get("when"), inner)
                results.append(M.DiceResult(str(_s(r.get("name"), "")), when, _s(r.get("outcome")),
                                            _s(r.get("reroll")), r.span, str(_s(r.get("title"), "") or "")))
            out[k] = M.DiceDef(k, int(_s(v.get("count"), 1)), int(_s(v.get("sides"), 6)), tuple(results),
                               sec.key_span(k), _doc(v))
        return out

    def _cards(self, consts: dict[str, Symbol]) -> list[Card]:
        from .cards import build_cards

        return build_cards(self, consts)

    def _metrics(self, scope: Scope) -> dict[str, M.MetricDef]:
        """What a simulation measures; each metric's expressions compile once, here, with `p` bound for per_player."""
        out = {}
        sec = self.section("metrics")
        for k, v in sec.items():
            span = sec.key_span(k)
            d = v if isinstance(v, YMap) else YMap(v.span)
            kind_node = d.get("kind")
            if kind_node is None:
                self.err("E202", f"metric '{k}' needs 'kind:' (tally, per_player or per_game)", span)
                continue
            kind = str(kind_node.plain())
            if kind not in M.METRIC_KINDS:
                self.err("E204", f"metric '{k}': kind '{kind}' is not one of {', '.join(M.METRIC_KINDS)}", kind_node.span,
                         did_you_mean(kind, M.METRIC_KINDS))
                continue
            role_node = d.get("role")
            role = None if role_node is None else str(role_node.plain())
            if role is not None and role not in M.METRIC_ROLES:
                self.err("E204", f"metric '{k}': role '{role}' is not one of {', '.join(M.METRIC_ROLES)}", role_node.span,
                         did_you_mean(role, M.METRIC_ROLES))
                role = None
            scope.metrics[k] = kind
            by = value = None
            if kind == "tally":
                for key in ("by", "value"):
                    if d.get(key) is not None:
                        self.err("E204", f"metric '{k}' is a tally: each 'tally' statement gives its key and value, "
                                         f"not '{key}:'", d.get(key).span, f"write e.g. 'tally {k} by KEY value N' in a step")
            else:
                comp = Compiler(scope.with_locals({"p"} if kind == "per_player" else set()), self.diags)
                by = self.text.expr(d.get("by"), comp)
                value = self.text.expr(d.get("value"), comp)
            out[k] = M.MetricDef(k, kind, _doc(d), by, value, role, span)
        return out

    def _scoring(self, scope: Scope) -> M.Scoring:
        node = self.root.get("scoring")
        if not isinstance(node, YMap):
            return M.Scoring(None, True, (), "shared", None)
        pc = Compiler(scope.with_locals({"p"}), self.diags)
        score = self.text.expr(node.get("score"), pc) if node.get("score") is not None else None
        ties = tuple(self.text.expr(t, pc) for t in (node.get("tie_break") or []))
        return M.Scoring(score, bool(_s(node.get("highest_wins"), True)), tuple(t for t in ties if t),
                         str(_s(node.get("on_tie"), "shared")), node.span)


_RESERVED = {"players", "player_count", "cards", "true", "false", "none"}


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


def _match_key(k: str, keys: tuple) -> Any:
    for key in keys:
        if str(key) == k:
            return key
    return k


def _coerce(value: Any, like: Any) -> Any:
    """A --set value given as text, turned into the type of the default."""
    if not isinstance(value, str):
        return value
    if isinstance(like, bool):
        return value.lower() in ("1", "true", "yes", "on")
    if isinstance(like, int):
        try:
            return int(value)
        except ValueError:
            return value
    if isinstance(like, float):
        try:
            return float(value)
        except ValueError:
            return value
    if like is None and value.lower() == "none":
        return None
    return value


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
