"""The `target` step: a player chooses one of the players (or things) that pass a filter, and a stated branch runs
when nobody can be chosen ("another player still in and not protected; if there is none, the card has no effect").

Expanded into plain steps: the candidates worked out once, then either the author's `if_none` steps (with the result
bound to none) or a decision among the candidates followed by the author's `do` steps.
"""

from __future__ import annotations

from typing import Optional

from ...dsl.parser import parse_expression, plain_locator
from ...model import ruleset as M
from .expansion import _Gen, _plain, _steps_of, _text, construct_settings, hidden, said_setting, within_budget
from ..yaml_source import YMap

TARGET_KEYS = ("chooser", "among", "each", "filter", "prompt", "as", "if_none", "do")



def names(node: YMap) -> set[str]:
    spec = node.get("target")
    if not isinstance(spec, YMap):
        return set()
    return {str(_plain(spec.get("as"), "target")), str(_plain(spec.get("each"), "q")), hidden("t", node, "cands")}


def target(builder, node: YMap, common: dict, auto: str, loops: tuple) -> Optional[M.ConstructStep]:
    spec = construct_settings(builder, node, "target", TARGET_KEYS, "a target choice", "chooser, filter, if_none, ...")
    if spec is None:
        return None
    if spec.get("chooser") is None:
        builder.err("E202", "a target choice needs 'chooser:' (the player who chooses)", spec.span,
                    "e.g. chooser: \"player\"")
        return None
    g = _Gen(builder, node, common, loops)
    Q = str(_plain(spec.get("each"), "q"))
    T = str(_plain(spec.get("as"), "target"))
    C = hidden("t", node, "cands")
    g.user("WHO_", spec.get("chooser"), "none")
    g.user("AMONG_", spec.get("among"), "players")
    g.user("FILTER_", spec.get("filter"), "true")
    prompt = g.template(spec.get("prompt"))
    none_steps = tuple(builder.block(_steps_of(spec.get("if_none")), f"{auto}.if_none.", loops))
    do_steps = tuple(builder.block(_steps_of(spec.get("do")), f"{auto}.do.", loops))
    choose = M.ChooseStep(**g.base, decision=g.decision("WHO_", C, prompt, T, default=f"{C}[0]"))
    steps = [g.do(f"let {C} = [{Q} for {Q} in AMONG_ if FILTER_]"),
             g.if_(f"empty({C})", [g.do(f"let {T} = none"), *none_steps], [choose, *do_steps])]
    if not within_budget(builder, spec):
        return None
    among = _text(spec.get("among"), "players")
    rule = (f"{_text(spec.get('chooser'))} chooses {T} among {among}"
            + (f" with {_text(spec.get('filter'))}" if spec.get("filter") is not None else "")
            + ("; if nobody can be chosen, the steps for that case" if none_steps else
               "; if nobody can be chosen, nothing happens"))
    settings = tuple((k, str(_plain(spec.get(k)))) for k in TARGET_KEYS
                     if spec.get(k) is not None and k not in ("if_none", "do"))
    parts = tuple((k, v) for k, v in (("if_none", none_steps), ("do", do_steps)) if v)
    return M.ConstructStep(**common, construct="target", rule=rule, settings=settings, run=tuple(steps), parts=parts)


def words(step: M.ConstructStep, w) -> str:
    """The choice as players read it: who chooses, and what if nobody can be chosen. Who may be chosen (the filter)
    is said in full only for designers (detail 'full'): a label says it in the game's words ("another player still
    in and not protected")."""
    st = dict(step.settings)

    def said(key: str, default: str) -> str:
        return said_setting(w, st, key, default)
    who = said("chooser", "the player")
    if getattr(w, "detail", "full") == "full":
        q = st.get("each", "q")
        try:  # the candidates said as the renderer says a list made by a condition ('each player who ...')
            cands = w.expr(parse_expression(f"[{q} for {q} in {st.get('among', 'players')} if "
                                            f"{st.get('filter', 'true')}]", plain_locator()))
        except Exception:  # noqa: BLE001 - settings that do not read as one expression: the list alone
            cands = "each of " + said("among", "the players")
        out = f"{who} chooses " + (cands.replace("each ", "one ", 1) if cands.startswith("each ") else cands)
    else:
        out = f"{who} chooses a target" + (f" among {said('among', '')}" if "among" in st else "")
    if not dict(step.parts).get("if_none"):  # (the steps for nobody are drawn on their own branch)
        out += " (if nobody can be chosen, nothing happens)"
    return out[0].upper() + out[1:]
