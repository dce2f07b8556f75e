"""Pass 5: semantic checks over the built model; each check is a function returning diagnostics."""

from __future__ import annotations

from typing import Callable, Iterable

from ..diagnostics import Diagnostic, DiagnosticError, RuleError, error, warning
from ..dsl.scope import LoadTimeContext
from ..model import ruleset as M
from ..model.secrecy import logs_told_for_hidden, loops_asking_for_hidden, sealed_face_down, triggers_asking_for_hidden
from .flow import calls_in as _calls_in, check_flow
from .results import check_results

Check = Callable[[M.Ruleset], Iterable[Diagnostic]]


def check_tables(rs: M.Ruleset) -> Iterable[Diagnostic]:
    """A column declared as a permutation or a cycle must be one over the table's keys."""
    for t in rs.tables.values():
        keys = list(t.keys)
        for col in t.permutation + t.cycle:
            if col not in t.columns:
                yield error("E318", f"table '{t.id}': no column '{col}' to check", t.span)
                continue
            if not keys:
                yield error("E318", f"table '{t.id}': column '{col}' is declared a cycle or permutation, but the "
                                    "table has no keys", t.span)
                continue
            # compare as written ('2' and 2 are the same key to a designer)
            by_text = {str(k): k for k in keys}
            mapping = {str(k): str(t.rows[k][col]) for k in keys if k in t.rows}
            if sorted(mapping.values()) != sorted(by_text):
                missing = [k for k in by_text if k not in mapping.values()]
                repeated = sorted({v for v in mapping.values() if list(mapping.values()).count(v) > 1})
                detail = (f"repeats {', '.join(repeated)}" if repeated else "") + (
                    ("; " if repeated else "") + f"never gives {', '.join(missing)}" if missing else "")
                yield error("E318", f"table '{t.id}': column '{col}' is not a permutation of the keys ({detail})", t.span,
                            "each key must appear exactly once in the column")
                continue
            if col in t.cycle:
                seen, k = [], str(keys[0])
                while k not in seen:
                    seen.append(k)
                    k = mapping[k]
                if len(seen) != len(keys):
                    loop = " -> ".join(map(str, seen + [k]))
                    yield error("E318", f"table '{t.id}': column '{col}' is not one cycle ({loop} closes early)", t.span,
                                "in a cycle, following the column from any key visits every key once")


def check_initial_zones(rs: M.Ruleset) -> Iterable[Diagnostic]:
    """Every card must start in exactly one zone."""
    all_zones = [z for z in rs.zones.values() if z.initial == "all"]
    if len(all_zones) > 1:
        yield error("E319", f"zones {', '.join(z.id for z in all_zones)} all say 'initial: all'", all_zones[1].span,
                    "only one zone can start with every card that no other zone takes")
    for z in all_zones:
        if z.per is not None:
            yield error("E319", f"zone family '{z.id}' cannot start with every card ('initial: all')", z.span,
                        "give 'initial: all' to a single zone such as the deck, and deal from it in the first steps")
    placed: dict[str, str] = {}
    ctx = _LoadCtx(rs)
    for z in rs.zones.values():
        if not isinstance(z.initial, M.CExpr):
            continue
        if z.per is not None:
            yield error("E319", f"zone family '{z.id}' cannot have 'initial' cards", z.span,
                        "deal them with steps at the start of the game")
            continue
        try:
            value = z.initial.fn(ctx)
        except RuleError as exc:
            if exc.code == "E315":
                continue  # depends on the run: the runtime checks it
            yield error(exc.code, exc.message, exc.span or z.initial.span, exc.hint)
            continue
        except (DiagnosticError, TypeError, ValueError) as exc:
            yield error("E315", f"zone '{z.id}': its initial cards cannot be computed: {exc}", z.initial.span)
            continue
        for c in value if isinstance(value, list) else [value]:
            if not isinstance(c, M.Card):
                yield error("E319", f"zone '{z.id}': 'initial' must give cards", z.initial.span)
                break
            if c.id in placed:
                yield error("E319", f"card '{c.id}' would start in both '{placed[c.id]}' and '{z.id}'", z.initial.span)
            placed[c.id] = z.id
    if rs.cards and not all_zones:
        unplaced = [c for c in rs.cards if c.id not in placed]
        missing = [c.id for c in unplaced]
        if missing:
            shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
            yield error("E319", f"{len(missing)} card(s) start in no zone: {shown}", unplaced[0].span or rs.span,
                        "give one zone 'initial: all', or list the cards in some zone's 'initial'")


class _LoadCtx(LoadTimeContext):
    def __init__(self, rs: M.Ruleset):
        super().__init__()


def check_parameters(rs: M.Ruleset) -> Iterable[Diagnostic]:
    for o in rs.options.values():
        if not o.choices:
            yield warning("W320", f"option '{o.id}' lists no choices", o.span,
                          "list the choices so a designer can see what the option can be")
        if not o.doc:
            yield warning("W321", f"option '{o.id}' has no 'doc'", o.span, "say what the choice is and why this default")


def check_sequences_used(rs: M.Ruleset) -> Iterable[Diagnostic]:
    """Sequences nothing can reach from the start sequence or a trigger."""
    calls = {sid: set(_calls_in(seq.steps, rs.tables)) for sid, seq in rs.sequences.items()}
    roots = [rs.start] + [t.run for t in rs.triggers]
    seen: set[str] = set()
    todo = [r for r in roots if r in rs.sequences]
    while todo:
        s = todo.pop()
        if s in seen:
            continue
        seen.add(s)
        called = calls.get(s, ())
        if any(c not in rs.sequences for c in called):
            return  # a call of a sequence not written (E309 says so): which ones run waits for its fix
        todo.extend(called)
    for sid, seq in rs.sequences.items():
        if sid not in seen:
            yield warning("W405", f"sequence '{sid}' is never run", seq.span,
                          "call it from another sequence, or make it the 'start' or a trigger's 'run'")


def check_hidden_loops(rs: M.Ruleset) -> Iterable[Diagnostic]:
    """A loop that asks only for what a hidden condition keeps tells the table what it hid (model/secrecy.py)."""
    for step in loops_asking_for_hidden(rs):
        what = step.iterable.text if len(step.iterable.text) <= 60 else step.iterable.text[:57] + "..."
        yield warning("W328", f"this loop asks a decision for each of '{what}', a list worked out from something "
                              "some players cannot see: whom the table asks tells everyone what it hid", step.span,
                      "loop over every player (or every card) and put the hidden test in an 'if' whose 'then' opens "
                      "with a decision that may be declined: then everyone is asked alike (docs/secrecy.md)")
    for t in triggers_asking_for_hidden(rs):
        yield warning("W330", f"trigger '{t.id}' runs '{t.run}', which asks a decision, when '{t.when.text}' holds, "
                              "and that reads something some players cannot see: whom the table asks then tells "
                              "everyone what it hid", t.span,
                      "ask it of everyone where the event happens, with an 'if' whose 'then' opens with a decision "
                      "that may be declined, or tell the player in private (docs/secrecy.md)")
    for span in logs_told_for_hidden(rs):
        yield warning("W331", "this log is told only when an 'if' whose condition reads something some players "
                              "cannot see holds (and the 'if' has no 'else'): it is told to everyone as written, so "
                              "that it is told at all tells them what the condition hid", span,
                      "say it to the players who may know it with \"tell PLAYER 'text'\" (docs/secrecy.md)")
    for step in sealed_face_down(rs):
        yield warning("W332", f"this sealed step reveals to everyone the cards each player chose from "
                              f"'{step.decision.options.text}', a zone others cannot see, and the rules then keep "
                              f"'{step.bind}' face down: the reveal tells what they hide", step.span,
                      "write 'secret: true' in its 'choose' (each reads their own, the others that it was made), or "
                      "lay the chosen cards in an open zone (docs/secrecy.md)")


CHECKS: tuple[Check, ...] = (check_tables, check_initial_zones, check_parameters, check_sequences_used, check_flow,
                             check_results, check_hidden_loops)


def run_checks(rs: M.Ruleset, checks: Iterable[Check] = CHECKS) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for check in checks:
        out.extend(check(rs))
    return out
