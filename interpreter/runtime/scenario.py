"""Scenarios: start a game from a state written as data, run one sequence, and check the outcome.

A scenario file (YAML) says which ruleset, how many players, where chosen cards lie, the
values of some variables (as expressions of the rules language), which sequence to run
with which arguments (and `inside` which kinds of running sequence, e.g. [round]), the
decisions to feed (and answers that must be refused), the dice results to give instead
of the random generator's, and what must be true afterwards (docs/testing.md). Designers
use it to pin a rule down ("with these cards, this bid gives that target"); the test
suite runs every scenario under tests/scenarios/.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ..diagnostics import RuleError, Span
from ..dsl.parser import parse_expression, plain_locator
from ..dsl.closures.compiler import Compiler
from ..values import ZoneRef
from .decisions import MISSING, Decision, IllegalChoice
from .game import Game
from .machine.interpreter import run


class ScenarioError(Exception):
    pass


@dataclass
class Outcome:
    game: Game
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _scope(rs):
    """The game-wide scope of a loaded ruleset, rebuilt for evaluating scenario expressions."""
    from ..loader import build

    return build.scope_for(rs)


def evaluate(game: Game, text: str, locals_: Optional[dict] = None) -> Any:
    """Evaluate a rules-language expression against a game (for scenarios and tests)."""
    diags: list = []
    scope = _scope(game.rs).with_locals(set(locals_ or {}))
    ast = parse_expression(str(text), plain_locator("<scenario>"))
    fn, _ = Compiler(scope, diags).expr(ast)
    if diags:
        raise ScenarioError(f"{text!r}: {diags[0].message}")
    saved = game.locals
    game.locals = dict(locals_ or {})
    try:
        return fn(game)
    finally:
        game.locals = saved


def _zone(game: Game, slot: str) -> ZoneRef:
    for ref in game.zones:
        if ref.slot == slot:
            return ref
    family, _, rest = slot.partition("[")
    zd = game.rs.zones.get(family)
    if zd is not None and zd.per == "dynamic" and rest.rstrip("]").isdigit():
        # a zone made at run time (e.g. a market opened during play): make it, and any before it
        while game.dynamic[family] < int(rest.rstrip("]")):
            game.create_zone(family, Span("<scenario>", 1, 1))
        return ZoneRef(family, int(rest.rstrip("]")))
    raise ScenarioError(f"no zone '{slot}' (zones: {', '.join(sorted(r.slot for r in game.zones))})")


def setup(rs, spec: dict) -> Game:
    """A game placed as the scenario says, with its sequence ready to run (not yet run)."""
    players = int(spec.get("players", rs.players.default))
    game = Game(rs, players, int(spec.get("seed", 1)), names=spec.get("names"), check_conservation=True, start=False)
    game._setup()
    cards = {c.id: c for c in rs.cards}
    rest_slot = spec.get("rest")
    for slot, ids in (spec.get("zones") or {}).items():
        ref = _zone(game, slot)
        for cid in ids:
            if cid not in cards:
                raise ScenarioError(f"no card '{cid}'")
        # take the listed cards out of wherever they are, keep the others where they were
        for cid in ids:
            c = cards[cid]
            game.zones[game.where[c.index]].remove(c)
            game.zones[ref].append(c)
            game.where[c.index] = ref
    if rest_slot:
        ref = _zone(game, rest_slot)
        listed = {cid for ids in (spec.get("zones") or {}).values() for cid in ids}
        for c in rs.cards:
            if c.id not in listed and game.where[c.index] != ref:
                game.zones[game.where[c.index]].remove(c)
                game.zones[ref].append(c)
                game.where[c.index] = ref
    for name, expr in (spec.get("vars") or {}).items():
        if name not in game.vars:
            raise ScenarioError(f"no variable '{name}'")
        game.vars[name] = evaluate(game, expr)
    for seat, values in enumerate(spec.get("player_vars") or []):
        for name, expr in (values or {}).items():
            game.pvars[seat][name] = evaluate(game, expr)
    seq = spec.get("run", rs.start)
    if seq not in rs.sequences:
        raise ScenarioError(f"no sequence '{seq}'")
    args = {k: evaluate(game, v) for k, v in (spec.get("with") or {}).items()}
    for kind in spec.get("inside") or []:
        # an enclosing sequence of that kind, waiting at its end: 'end KIND' and modifiers
        # 'until end of KIND' then behave as in a real game
        outer = next((s for s in rs.sequences.values() if s.kind == kind), None)
        if outer is None:
            raise ScenarioError(f"'inside: {kind}': no sequence has that kind")
        game.push(outer.id, {})
        game.frames[-1].pc = len(game.programs[outer.id].code) - 1
    # with enclosing frames, the scenario stops when its own sequence returns, so the checks
    # see what holds inside them (e.g. modifiers lasting until the end of the round)
    game.halt_depth = len(game.frames)
    game.push(seq, args)
    for spec_mod in spec.get("modifiers") or []:
        name, who, value = spec_mod["name"], spec_mod.get("player"), spec_mod.get("value", 1)
        game.modifiers.append([name, None if who is None else int(who), value, None])
    return game


def _asked(game: Game, d) -> str:
    shown = ["pass" if o is None else f"{o} ({o.id})" if hasattr(o, "id") and str(o) != o.id else str(o)
             for o in d.options]  # a card by its name and the id a scenario answers it with
    return f"{game.players[d.player]}'s '{d.prompt}' (options: {shown})"


def _wire(d: Decision, entry: Any) -> Any:
    """A scenario's answer in the decision's wire form: a card by its id (a set: a list of ids), a text option as
    written, null for a pass; an option number, a yes/no or an amount as it is."""
    if entry is None and d.kind == "one" and getattr(d, "low", None) is not None:
        return d.wire_of(None)  # a bid's pass
    options = d.options if d.kind in ("one", "subset") and getattr(d, "low", None) is None else None
    if not options:
        return entry

    def value(v):
        if v is None and None in options:
            return None
        return next((o for o in options if isinstance(v, str) and (getattr(o, "id", None) == v or o == v)), MISSING)

    if d.kind == "one" and (isinstance(entry, str) or entry is None):
        v = value(entry)
        return entry if v is MISSING else d.wire_of(v)
    if d.kind == "subset" and isinstance(entry, list) and entry and all(isinstance(x, str) for x in entry):
        vs = [value(x) for x in entry]
        return entry if any(v is MISSING for v in vs) else d.wire_of(vs)
    return entry


def _answer(game: Game, d: Decision, entry: Any) -> Optional[str]:
    """Give one entry of `choices` to the pending decision; a problem, or None.

    An entry is the answer itself, or a mapping: {choice: V, player: SEAT, prompt: TEXT}
    answers V after checking who is asked (seat from 0, as in `players[0]`) and the prompt;
    {refused: V} checks that V is refused (the game still waits for the same decision)."""
    if isinstance(entry, dict) and "refused" in entry:
        try:
            game.apply(_wire(d, entry["refused"]))
        except IllegalChoice:
            return None
        return f"choice {entry['refused']!r} should be refused for {_asked(game, d)}, but it was taken"
    if isinstance(entry, dict) and "choice" in entry:
        if "player" in entry and entry["player"] != d.player:
            return (f"expected players[{entry['player']}] to be asked, but the game asks {_asked(game, d)}")
        if "prompt" in entry and str(entry["prompt"]) not in d.prompt:
            return f"expected a prompt with {entry['prompt']!r}, but the game asks {_asked(game, d)}"
        entry = entry["choice"]
    try:
        game.apply(_wire(d, entry))
    except IllegalChoice as exc:
        return f"choice {entry!r} is illegal for {_asked(game, d)}: {exc}"
    return None


def run_scenario(rs, spec: dict) -> Outcome:
    """Run a scenario to the end of its sequence (or of the game) and check its expectations."""
    game = setup(rs, spec)
    choices = list(spec.get("choices") or [])
    game.fixed_dice = list(spec.get("dice") or [])
    problems: list[str] = []
    try:
        run(game)
        while game.pending is not None and not game.over:
            if not choices:
                problems.append(f"the game asks {_asked(game, game.pending)} but no choices are left")
                return Outcome(game, problems)
            problem = _answer(game, game.pending, choices.pop(0))
            if problem:
                return Outcome(game, [problem])
    except RuleError as exc:
        expected = (spec.get("expect") or {}).get("error")
        if expected and expected in exc.message:
            return Outcome(game, [])
        problems.append(f"run-time error: {exc.message}")
        return Outcome(game, problems)
    if choices:
        problems.append(f"{len(choices)} choices were not used")
    if game.fixed_dice:
        problems.append(f"{len(game.fixed_dice)} fixed dice results were not used")
    problems.extend(check(game, spec.get("expect") or {}))
    return Outcome(game, problems)


def run_scenario_file(path: str) -> Outcome:
    """Load a scenario file and its ruleset (with the scenario's `set:` overrides) and run it."""
    import yaml

    from ..loader import load_ruleset

    from ..files import InputError, read_regular

    try:
        spec = yaml.safe_load(read_regular(path, 5_000_000, "scenario file").decode("utf-8"))
    except InputError as exc:
        raise ScenarioError(exc.message) from None
    loaded = load_ruleset(str(spec["ruleset"]), overrides={k: v for k, v in (spec.get("set") or {}).items()})
    if not loaded.ok:
        raise ScenarioError(f"{spec['ruleset']}: " + "; ".join(d.message for d in loaded.diagnostics[:3]))
    return run_scenario(loaded.ruleset, spec)


def a_ruleset(data) -> bool:
    """A ruleset file rather than a scenario: it has the keys only a ruleset has."""
    return isinstance(data, dict) and any(k in data for k in ("sequences", "extends", "title"))


def scenario_verdict(path: str) -> tuple[str, list[str], list[str]]:
    """A scenario file's verdict for a report: PASS, FAIL, XFAIL (fails as its `xfail:` says), XPASS (marked xfail,
    yet passes) or ERROR (the file or its ruleset does not load); the problems; the story it played."""
    import yaml

    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh) or {}
        if a_ruleset(data):
            return "ERROR", ["a ruleset, not a scenario: a scenario names it under `ruleset:` (docs/testing.md)"], []
        reason = data.get("xfail")
        outcome = run_scenario_file(path)
    except yaml.YAMLError as exc:
        return "ERROR", [f"not a YAML file: {' '.join(str(exc).split())}"], []
    except (ScenarioError, OSError) as exc:
        return "ERROR", [str(exc)], []
    except KeyError as exc:
        return "ERROR", [f"not a scenario (docs/testing.md): it has no {exc!s} key"], []
    except (TypeError, AttributeError) as exc:
        return "ERROR", [f"not a scenario (docs/testing.md): {exc!s}"], []
    story = list(outcome.game.narrative)
    if reason:
        return ("XFAIL", [str(reason)], story) if not outcome.ok else \
            ("XPASS", ["marked xfail but passes: remove its 'xfail' key"], story)
    return ("PASS", [], story) if outcome.ok else ("FAIL", outcome.problems, story)


def check(game: Game, expect: dict) -> list[str]:
    problems = []
    for slot, ids in (expect.get("zones") or {}).items():
        got = [c.id for c in game.zones[_zone(game, slot)]]
        if sorted(got) != sorted(ids):
            problems.append(f"zone {slot}: expected {sorted(ids)}, got {sorted(got)}")
    for expr, want in (expect.get("values") or {}).items():
        got = evaluate(game, expr)
        if got != want:
            problems.append(f"{expr}: expected {want!r}, got {got!r}")
    lines = game.narrative
    for text in expect.get("narrative_contains") or []:
        if not any(text in line for line in lines):
            problems.append(f"no narrative line contains {text!r}")
    at = -1  # narrative_in_order: each text in a line after the line of the one before
    for text in expect.get("narrative_in_order") or []:
        nxt = next((i for i in range(at + 1, len(lines)) if text in lines[i]), None)
        if nxt is None:
            problems.append(f"no narrative line after line {at + 1} contains {text!r} (narrative_in_order)")
            break
        at = nxt
    for slot, ids in (expect.get("zones_in_order") or {}).items():
        got = [c.id for c in game.zones[_zone(game, slot)]]
        if got != list(ids):
            problems.append(f"zone {slot} from bottom to top: expected {list(ids)}, got {got}")
    for text in expect.get("narrative_lacks") or []:
        if any(text in line for line in lines):
            problems.append(f"a narrative line contains {text!r}, which should not happen")
    if "winners" in expect:
        want = expect["winners"]
        if game.winners != want:
            problems.append(f"winners: expected {want}, got {game.winners}")
    if "over" in expect and bool(game.over) != bool(expect["over"]):
        problems.append(f"game over: expected {expect['over']}, got {game.over}")
    return problems
