"""The `view:` section: what a person at the table is shown before a decision, and in which order.

    view:
      table: [event_zone, stocks, target]        # shared zones and game variables
      players: [court, treasury, coins]           # per player: their zones and player variables
      values:                                      # values shown while `when` holds
        - {title: Target value, value: "tv_base", when: "acq_type != none"}
      score_parts:                                 # the parts of a player's score (p bound): a breakdown at the end
        - {title: Iron, value: "type_points(p, 'iron')"}

Every name must be a zone or variable of the right kind (E301 with a did-you-mean otherwise); the values are
expressions compiled like any other. Without the section, tools derive a view from zone visibility and the
declared variables."""

from __future__ import annotations

from ..diagnostics import did_you_mean
from ..dsl.closures.compiler import Compiler
from ..dsl.scope import Scope
from ..model import ruleset as M
from .yaml_source import YMap, YScalar, YSeq


def build_view(b, scope: Scope, zones: dict, variables: dict, pvars: dict) -> M.ViewDef | None:
    """The ruleset's ViewDef, or None when it declares no view; problems go to the builder's diagnostics."""
    node = b.root.get("view")
    if not isinstance(node, YMap):
        return None
    shared = {k for k, z in zones.items() if z.per != "player"} | set(variables)
    own = {k for k, z in zones.items() if z.per == "player"} | set(pvars)
    table = _names(b, node.get("table"), shared, "a shared zone or a game variable")
    players = _names(b, node.get("players"), own, "a zone per player or a player variable")
    values = []
    comp = Compiler(scope, b.diags)
    items = node.get("values")
    for item in items.items if isinstance(items, YSeq) else []:
        if not isinstance(item, YMap):
            continue
        title = item.get("title")
        value = b.text.expr(item.get("value"), comp)
        if value is None:
            continue
        when = b.text.expr(item.get("when"), comp) if item.get("when") is not None else None
        values.append(M.ViewValue(str(title.plain()) if title is not None else value.text, value, when))
    parts = []
    each = comp.sub_compiler(scope.with_locals(set(scope.locals) | {"p"}))
    items = node.get("score_parts")
    for item in items.items if isinstance(items, YSeq) else []:
        if not isinstance(item, YMap):
            continue
        title, value = item.get("title"), b.text.expr(item.get("value"), each)
        if value is not None:
            parts.append(M.ViewValue(str(title.plain()) if title is not None else value.text, value))
    heads = node.get("headers")
    headers = tuple(str(h.plain()) for h in heads.items) if isinstance(heads, YSeq) else M.ViewDef.headers
    return M.ViewDef(tuple(table), tuple(players), tuple(values), headers, tuple(parts))


def _names(b, node, allowed: set, what: str) -> list[str]:
    out = []
    for item in node.items if isinstance(node, YSeq) else []:
        name = item.value if isinstance(item, YScalar) else None
        if not isinstance(name, str) or name not in allowed:
            b.err("E301", f"the view names '{name}', which is not {what}", item.span, did_you_mean(str(name), allowed))
            continue
        out.append(name)
    return out
