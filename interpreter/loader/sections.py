"""The declaration sections of a ruleset built into the model: players, parameters, options, tables, zones,
variables, dice, cards, metrics and scoring (Builder in build.py runs them in order)."""

from __future__ import annotations


import dataclasses
from typing import Any

from ..diagnostics import did_you_mean, warning
from ..dsl.closures.compiler import Compiler
from ..dsl.scope import Scope, Symbol
from ..model import ruleset as M
from ..values import Card, Row
from .cards import build_cards
from .cells import CellValues as _CellValues, coerce, columns_word as _columns_word, family_keys, finite, is_number, \
    kind_words, number_hint, same_kind, shown_value
from .yaml_source import YMap, YNode, YScalar, YSeq


def _s(node: YNode | None, default: Any = None) -> Any:
    return node.plain() if node is not None else default


def _doc(m: YMap, key: str = "doc") -> str:
    v = m.get(key)
    return str(v.plain()) if isinstance(v, YScalar) and v.value is not None else ""


class SectionBuilders:
    """One method per declaration section; the Builder supplies root, diags, text and err."""

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
                value = coerce(value, default)
            lo, hi = d.get("min"), d.get("max")
            span = sec.key_span(k)
            where = v.get("default") if isinstance(v, YMap) else None
            if is_number(default) and not finite(default):  # .inf or .nan: scores of inf, winners by nan
                self.err("E204", f"parameter '{k}': the default {default} is not a finite number",
                         where.span if where is not None else span)
            if (lo is not None or hi is not None) and not is_number(default):  # 'abc', or `1e3`, which YAML reads as text
                self.err("E204", f"parameter '{k}': the default {shown_value(default)} is not a number, and the parameter "
                         "has a min or a max", where.span if where is not None else span, number_hint(default))
            unsuited = k in self.overrides and not same_kind(value, default)  # 'nan', 5,000 digits, 'maybe'
            if unsuited:
                shown = str(self.overrides[k])
                shown = shown if len(shown) <= 40 else shown[:37] + "..."
                self.err("E316", f"--set {k}={shown}: parameter '{k}' takes {kind_words(default)}", None)
            # the value differs from the default only when --set gave one: check each once (a value E316 refused
            # is not said again: its bounds' message would quote all its digits)
            checks = [("default", default)] + ([("value", value)] if k in self.overrides and not unsuited else [])
            for label, val in checks:
                if finite(val):
                    if (lo is not None and val < lo) or (hi is not None and val > hi):
                        bounds = f"{lo}..{hi}" if lo is not None and hi is not None else \
                            f"its min {lo}" if lo is not None else f"its max {hi}"
                        side = "below" if hi is None else "above" if lo is None else "outside"
                        self.err("E204", f"parameter '{k}': {label} {val} is {side} {bounds}",
                                 where.span if label == "default" and where is not None else span)
            out[k] = M.ParamDef(k, value, default, lo, hi, str(d.get("doc", "") or ""), span, str(d.get("source", "") or ""),
                                 str(d.get("title", "") or ""))
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
            value = coerce(self.overrides[k], default) if k in self.overrides else default
            span = sec.key_span(k)
            if choices and default not in choices:
                node = v.get("default")
                self.err("E204", f"option '{k}': default {default!r} is not one of its choices", node.span if node else span,
                         "choices: " + ", ".join(map(str, choices)))
            if choices and k in self.overrides and value not in choices:
                self.err("E316", f"--set {k}={value}: not one of the choices", None, "choices: " + ", ".join(map(str, choices)))
            out[k] = M.OptionDef(k, value, default, choices, str(d.get("doc", "") or ""), str(d.get("source", "") or ""), span,
                                  str(d.get("title", "") or ""))
        return out

    def _sequence_columns(self, table: str, node: YMap, columns: tuple) -> tuple[str, ...]:
        """The columns a table lists under `sequences:`; each of their cells must name a sequence (or be none)."""
        listed = node.get("sequences")
        if not isinstance(listed, YSeq):
            return ()
        seqs = list(self.section("sequences").entries)
        out = []
        for item in listed.items:
            col = str(item.plain())
            if col not in columns:
                self.err("E317", f"table '{table}': 'sequences' lists '{col}', which is not one of its columns",
                         item.span, did_you_mean(col, columns))
                continue
            out.append(col)
        rows = node.get("rows")
        for _rk, rv in (rows.items() if isinstance(rows, YMap) else []):
            for col in out:
                cell = rv.get(col) if isinstance(rv, YMap) else (
                    rv.items[columns.index(col)] if isinstance(rv, YSeq) and columns.index(col) < len(rv.items) else None)
                if cell is None or cell.plain() is None:
                    continue
                if str(cell.plain()) not in seqs:
                    self.err("E309", f"unknown sequence '{cell.plain()}' in column '{col}' of table '{table}'",
                             cell.span, did_you_mean(str(cell.plain()), seqs))
        return tuple(out)

    def _invariants(self, scope: Scope) -> tuple:
        """The ruleset's `invariants:`: conditions that must hold after every step (while their `when:` holds),
        checked by games that check themselves."""
        node = self.root.get("invariants")
        if not isinstance(node, YSeq):
            return ()
        out = []
        comp = Compiler(scope, self.diags)
        for item in node.items:
            if not isinstance(item, YMap):
                continue
            cond = self.text.expr(item.get("assert"), comp)
            when = self.text.expr(item.get("when"), comp) if item.get("when") is not None else None
            say = item.get("say")
            text = str(say.plain()) if isinstance(say, YScalar) and say.plain() is not None else ""
            if cond is not None:
                out.append(M.Invariant(cond, when, text, item.span))
        return tuple(out)

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
                                str(d.get("title", "") or ""), self._sequence_columns(k, v, columns))
        return out

    def _zones(self, declare) -> dict[str, M.ZoneDef]:
        out = {}
        sec = self.section("zones")
        for k, v in sec.items():
            d = v.plain() if isinstance(v, YMap) else {}
            per = tuple(d["per"]) if isinstance(d.get("per"), (list, dict)) else d.get("per")
            if isinstance(d.get("per"), dict):  # each key with the title players know it by: 'Market (Moonstones)'
                self.key_titles = {**family_keys(self, v.get("per"))[1], **self.key_titles}
            out[k] = M.ZoneDef(k, per, d.get("visibility", "open"), d.get("initial"), sec.key_span(k),
                               str(d.get("doc", "") or ""), str(d.get("title", "") or ""),
                               d.get("refill") if isinstance(d.get("refill"), str) else None)
        for k, z in out.items():
            self._check_refill(z, out, sec.get(k))
        return out

    def _check_refill(self, z: M.ZoneDef, zones: dict, node) -> None:
        """A refill names another zone of the same shape (the same player's, the same key's) or a single zone."""
        if z.refill is None:
            return
        span = node.get("refill").span if isinstance(node, YMap) and node.get("refill") is not None else z.span
        src = zones.get(z.refill)
        if src is None or src.id == z.id:
            self.err("E204", f"zone '{z.id}': 'refill' names {'itself' if src is not None else f'no zone {z.refill!r}'}",
                     span, did_you_mean(z.refill, [k for k in zones if k != z.id]) or "name another zone, e.g. discard")
        elif z.per == "dynamic" or src.per == "dynamic" or (src.per is not None and src.per != z.per):
            self.err("E204", f"zone '{z.id}' cannot be refilled from '{src.id}'", span,
                     "refill from a single zone, or from a family with the same 'per' (the same player's or key's zone)")

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
            out[k] = M.ZoneDef(z.id, z.per, z.visibility, init, z.span, z.doc, z.title, z.refill)
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
                keys: tuple = ()
                if v.get("per") is not None:  # one value per key of a family (per artist, per suit): a record
                    keys, titles = family_keys(self, v.get("per"))
                    for key, key_title in titles.items():
                        self.key_titles.setdefault(key, key_title)
                out[k] = M.VarDef(k, v.get("initial"), sec.key_span(k), per_player, vis, title,
                                  str(_s(v.get("doc"), "") or ""), keys)
            else:
                out[k] = M.VarDef(k, v, sec.key_span(k), per_player)  # initial resolved later
            if declare is None:
                if k in ("seat", "name", "id", "classes", "zone", "owner"):
                    self.err("E314", f"'{k}' is a built-in attribute and cannot be a variable", sec.key_span(k))
        return out

    def _initial(self, v: M.VarDef, scope: Scope) -> M.VarDef:
        node = v.initial
        if v.keys:  # a record of one value per key: a plain start value for each, or a mapping key -> value
            given = node.plain() if isinstance(node, YNode) else node
            if isinstance(given, dict):
                missing = [k for k in v.keys if k not in given]
                extra = [k for k in given if k not in v.keys]
                if missing or extra:
                    self.err("E204", f"the start values of '{v.id}' " + (f"leave out {', '.join(map(str, missing))}"
                             if missing else f"name keys it does not have: {', '.join(map(str, extra))}"),
                             node.span, "give one start value, or one per key: " + ", ".join(map(str, v.keys)))
                return dataclasses.replace(v, initial={k: given.get(k) for k in v.keys})
            if isinstance(given, str) and given.startswith("="):
                self.err("E204", f"'{v.id}' has one value per key: its start value is a plain value or a mapping "
                         "of key to value, not an expression", node.span)
            return dataclasses.replace(v, initial={k: given for k in v.keys})
        if isinstance(node, YScalar) and isinstance(node.value, str) and node.value.startswith("="):
            initial = self.text.expr(node, Compiler(scope, self.diags), skip=1)
        else:
            initial = node.plain() if isinstance(node, YNode) else node
            named = scope.symbols.get(initial) if isinstance(initial, str) else None
            if named is not None and named.kind == "const" and named.detail in ("parameter", "option"):
                what = named.detail  # W333: the name of a parameter or option, taken as text, not its value
                self.diags.append(warning(
                    "W333", f"variable '{v.id}' starts at the text '{initial}', not the value of the {what} "
                    f"'{initial}'", node.span, f'write the expression: initial: "={initial}"'))
        return dataclasses.replace(v, initial=initial)

    def _dice(self, scope: Scope) -> dict[str, M.DiceDef]:
        out = {}
        sec = self.section("dice")
        inner = Compiler(scope.with_locals({"faces", "total", "doubles"}), self.diags)
        for k, v in sec.items():
            if not isinstance(v, YMap):
                continue
            results, seen = [], str(_s(v.get("visibility"), "open") or "open")
            for r in v.get("results") or []:
                if not isinstance(r, YMap):
                    continue
                when = self.text.expr(r.get("when"), inner)
                results.append(M.DiceResult(str(_s(r.get("name"), "")), when, _s(r.get("outcome")),
                                            _s(r.get("reroll")), r.span, str(_s(r.get("title"), "") or "")))
                if _s(r.get("reroll")) and seen != "open":  # asking the roller would tell everyone it came up
                    self.err("E201", "'reroll' is not allowed on dice whose faces are hidden: asking the roller whether to "
                             "roll again would tell the table that this result came up", r.key_span("reroll"),
                             "leave 'reroll' out, or make the dice 'visibility: open'")
            out[k] = M.DiceDef(k, int(_s(v.get("count"), 1)), int(_s(v.get("sides"), 6)), tuple(results),
                               sec.key_span(k), _doc(v), seen)
        return out

    def _cards(self, consts: dict[str, Symbol]) -> list[Card]:
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
        ties, fewest = [], []
        for t in node.get("tie_break") or []:  # an expression (the most wins), or {fewest: ...} / {most: ...}
            way = next(iter(t.entries), "most") if isinstance(t, YMap) else "most"
            e = self.text.expr(t.get(way) if isinstance(t, YMap) else t, pc)
            if e:
                ties.append(e)
                fewest.append(way == "fewest")
        return M.Scoring(score, bool(_s(node.get("highest_wins"), True)), tuple(ties),
                         str(_s(node.get("on_tie"), "shared")), node.span, tuple(fewest))


def _match_key(k: str, keys: tuple) -> Any:
    for key in keys:
        if str(key) == k:
            return key
    return k
