"""Declarations nothing uses: a parameter, an option, a function or a zone that no rule reads (W409)."""

from __future__ import annotations

from typing import Iterable, Mapping

from ..diagnostics import Diagnostic, did_you_mean, warning
from ..model import ruleset as M


def check_unused(rs: M.Ruleset, used: set[str]) -> Iterable[Diagnostic]:
    """`used`: the game names the ruleset's expressions and statements read while it loaded (compiler.recording)."""
    found = []
    for p in rs.parameters.values():
        if p.id not in used:
            found.append((p.span, f"parameter '{p.id}' is never used: changing it changes nothing",
                          _meant(p.id, rs.parameters, used, "parameter") or "use it in a rule, or remove it"))
    for o in rs.options.values():
        if o.id not in used:
            found.append((o.span, f"option '{o.id}' is never read: whichever choice is made, the game is the same",
                          _meant(o.id, rs.options, used, "option") or
                          f"test it in a rule (e.g. if: \"{o.id} == '{o.default}'\"), or remove it"))
    for name, (_params, _body) in rs.functions.items():
        if name not in used:
            span = rs.scope.functions[name].span if name in rs.scope.functions else rs.span
            found.append((span, f"function '{name}' is never called", "call it in a rule, or remove it"))
    for z in rs.zones.values():
        if z.id not in used and z.initial is None:  # a zone given cards at the start may keep them out of play
            found.append((z.span, f"zone '{z.id}' is never used: no rule moves, draws or reads its cards",
                          "use it in a rule, or remove it"))
    for span, message, hint in found:
        yield warning("W409", message, span, hint)


def _meant(name: str, declared: Mapping[str, object], used: set[str], kind: str) -> str | None:
    """The hint for a declaration nothing reads whose name is close to one a rule reads: most often a misspelling, as
    in a variant that means to change its parent's number and names a new one (`target_scor: {default: 50}`)."""
    close = did_you_mean(name, [n for n in declared if n in used and n != name])
    return f"{close} (a {kind} of that name is used; this one is new, and nothing reads it)" if close else None
