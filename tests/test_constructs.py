"""Every construct of the ruleset format, tested as data.

Each folder under tests/cases/constructs/ holds a tiny ruleset that uses one construct
(`ruleset.yaml`), optionally the choices to feed it (`script.json`, a JSON list of wire
choices in order) and what must come out (`expected.yaml`):

    # one line: what this case shows
    players: 2
    seed: 7
    agents: script          # script | first | random
    max_steps: 200          # optional: the step budget
    narrative: [...]        # the exact narrated lines (or narrative_contains: a subsequence)
    winners: [1]
    scores: [...]           # optional
    zones: {deck: [ids], "hand[0]": [...]}   # optional: final contents, bottom first
    vars: {...}             # optional: final game variables (cards as ids, players as names)
    pvars: [{...}, ...]     # optional: final player variables (only the keys given)
    marks: {card_id: {...}} # optional: final card variables that were set
    illegal_first: [...]    # optional: wire choices the first decision must refuse
    error: {code: R001, message_contains: "...", line: 12}   # a run-time failure instead
    load_error: {code: E319, message_contains: "..."}          # or: the loader must refuse it

One test per folder runs the game with card conservation checked after every step and
checks everything expected. For every case the game is also saved to JSON and loaded back
(at every decision: the first, halfway, and the others), and cloned at the first decision; each copy
must continue to the very same end (state hash, narrative tail, or error) as the
uninterrupted run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from rulecraft.agents.base import FirstAgent, RandomAgent
from rulecraft.diagnostics import RuleError, render_text
from rulecraft.loader import load_ruleset
from rulecraft.runtime.decisions import IllegalChoice
from rulecraft.runtime.game import Game
from rulecraft.runtime.state_io import clone, from_json, state_hash, to_json
from rulecraft.values import Card, Player, Roll, ZoneRef

CASES = Path(__file__).resolve().parent / "cases" / "constructs"
CASE_DIRS = sorted(p for p in CASES.iterdir() if (p / "ruleset.yaml").is_file())

# Cases that fail because of a known bug outside the runtime (loader, dsl, checks): name -> reason.
XFAIL: dict[str, str] = {}

_RULESETS: dict[Path, Any] = {}


def _ruleset(case: Path):
    if case not in _RULESETS:
        loaded = load_ruleset(str(case / "ruleset.yaml"))
        assert loaded.ok, render_text(loaded.diagnostics, loaded.sources)
        assert not loaded.diagnostics, render_text(loaded.diagnostics, loaded.sources)
        _RULESETS[case] = loaded.ruleset
    return _RULESETS[case]


def _expected(case: Path) -> dict:
    with open(case / "expected.yaml", encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def _script(case: Path) -> list:
    path = case / "script.json"
    if not path.is_file():
        return []
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def plain(v: Any) -> Any:
    """A game value as plain data: cards as ids, players as names, zones as slots."""
    if isinstance(v, Card):
        return v.id
    if isinstance(v, Player):
        return v.name
    if isinstance(v, ZoneRef):
        return v.slot
    if isinstance(v, Roll):
        return v.total
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {plain(k) if not isinstance(k, str) else k: plain(x) for k, x in v.items()}
    return v


class Run:
    """One game driven to its end (or its error), recording every choice made."""

    def __init__(self, rs, exp: dict, script: list):
        self.rs = rs
        self.exp = exp
        self.players = exp.get("players", rs.players.default)
        self.seed = exp.get("seed", 1)
        self.kwargs = {"check_conservation": True}
        if "max_steps" in exp:
            self.kwargs["max_steps"] = exp["max_steps"]
        self.script = list(script)
        self.wires: list = []
        self.error: RuleError | None = None
        self.game: Game | None = None

    def new_game(self) -> Game:
        return Game(self.rs, self.players, self.seed, **self.kwargs)

    def play(self) -> "Run":
        kind = self.exp.get("agents", "script")
        agents = None
        if kind == "first":
            agents = [FirstAgent(s, self.seed) for s in range(self.players)]
        elif kind == "random":
            agents = [RandomAgent(s, self.seed) for s in range(self.players)]
        else:
            assert kind == "script", f"unknown agents kind {kind!r}"
        try:
            g = self.game = self.new_game()
            while not g.over:
                d = g.pending
                assert d is not None
                if agents is None:
                    assert len(self.wires) < len(self.script), (
                        f"the script ran out after {len(self.wires)} choices; asked: {d.prompt}")
                    wire = self.script[len(self.wires)]
                else:
                    wire = agents[d.player].choose(d, g.view(d.player))
                self.wires.append(wire)
                g.apply(wire)
        except RuleError as exc:
            self.error = exc
        return self


def finish(g: Game, wires: list) -> RuleError | None:
    """Feed choices to a game until it ends; the RuleError it stops with, if any."""
    try:
        for w in wires:
            g.apply(w)
    except RuleError as exc:
        return exc
    return None


def _subsequence(needles: list, haystack: list) -> bool:
    it = iter(haystack)
    return all(any(n == h for h in it) for n in needles)


def _case(request):
    path: Path = request.param
    if path.name in XFAIL:
        request.applymarker(pytest.mark.xfail(reason=XFAIL[path.name], strict=True))
    return path


GAME_DIRS = [p for p in CASE_DIRS if "load_error" not in _expected(p)]
case = pytest.fixture(params=CASE_DIRS, ids=[p.name for p in CASE_DIRS])(_case)
game_case = pytest.fixture(params=GAME_DIRS, ids=[p.name for p in GAME_DIRS])(_case)


def test_construct(case: Path):
    exp = _expected(case)
    if "load_error" in exp:
        want = exp["load_error"]
        loaded = load_ruleset(str(case / "ruleset.yaml"))
        found = [d for d in loaded.diagnostics if d.code == want["code"]]
        assert not loaded.ok and found, render_text(loaded.diagnostics, loaded.sources) or "no diagnostic"
        assert any(want.get("message_contains", "") in d.message for d in found)
        return
    rs = _ruleset(case)
    run = Run(rs, exp, _script(case)).play()
    g = run.game
    if "error" in exp:
        want = exp["error"]
        assert run.error is not None, "the game ended without the expected error"
        assert run.error.code == want.get("code", "R001")
        assert want["message_contains"] in run.error.message, run.error.message
        assert run.error.span is not None, "a run-time error must point at the faulty statement"
        assert Path(run.error.span.file).resolve() == (case / "ruleset.yaml").resolve()
        if "line" in want:
            assert run.error.span.line == want["line"], run.error.span
        if "source_contains" in want:
            lines = (case / "ruleset.yaml").read_text(encoding="utf-8").splitlines()
            assert want["source_contains"] in lines[run.error.span.line - 1], run.error.span
        if "narrative_contains" in exp:
            assert _subsequence(exp["narrative_contains"], g.narrative if g else []), g.narrative if g else None
        return
    if run.error is not None:
        raise run.error
    assert g is not None and g.over
    if exp.get("agents", "script") == "script":
        assert len(run.wires) == len(run.script), f"only {len(run.wires)} of {len(run.script)} scripted choices were used"
    if "narrative" in exp:
        assert g.narrative == exp["narrative"]
    if "narrative_contains" in exp:
        assert _subsequence(exp["narrative_contains"], g.narrative), g.narrative
    if "winners" in exp:
        assert g.winners == exp["winners"]
    if "scores" in exp:
        assert plain(g.scores) == exp["scores"]
    if "zones" in exp:
        by_slot = {ref.slot: [c.id for c in cards] for ref, cards in g.zones.items()}
        for slot, ids in exp["zones"].items():
            assert slot in by_slot, f"no zone {slot}; zones: {sorted(by_slot)}"
            assert by_slot[slot] == ids, slot
    if "vars" in exp:
        for k, v in exp["vars"].items():
            assert plain(g.vars[k]) == v, k
    if "pvars" in exp:
        for seat, want in enumerate(exp["pvars"]):
            for k, v in want.items():
                assert plain(g.pvars[seat][k]) == v, (seat, k)
    if "marks" in exp:
        for cid, want in exp["marks"].items():
            for k, v in want.items():
                assert plain(g.marks.get(cid, {}).get(k)) == v, (cid, k)


ILLEGAL_DIRS = [p for p in CASE_DIRS if _expected(p).get("illegal_first")]


@pytest.mark.parametrize("case", ILLEGAL_DIRS, ids=[p.name for p in ILLEGAL_DIRS])
def test_illegal_choices_are_refused(case: Path):
    """A wire choice the decision does not allow raises IllegalChoice and changes nothing."""
    exp = _expected(case)
    run = Run(_ruleset(case), exp, _script(case))
    g = run.new_game()
    assert g.pending is not None
    before = state_hash(g)
    for wire in exp["illegal_first"]:
        with pytest.raises(IllegalChoice):
            g.apply(wire)
        assert state_hash(g) == before and g.pending is not None
    if run.script:
        g.apply(run.script[0])  # and a legal one is still taken


def _end_of(g: Game, err: RuleError | None):
    if err is not None:
        return ("error", err.code, err.message, err.span)
    assert g.over
    return ("over", state_hash(g), g.winners, plain(g.scores))


def _replay_to(run: Run, n: int) -> Game:
    """A fresh game given the first n recorded choices."""
    g = run.new_game()
    for w in run.wires[:n]:
        g.apply(w)
    return g


def test_save_load_and_clone(game_case: Path):
    """Saved to JSON and loaded (at every decision) or cloned at the first, a game ends the same."""
    case = game_case
    exp = _expected(case)
    rs = _ruleset(case)
    run = Run(rs, exp, _script(case)).play()
    if run.error is not None and not run.wires:
        return  # failed before any decision: nothing to save
    g = run.game
    reference = _end_of(g, run.error)
    if not run.wires:
        # no decision at all: the finished state still survives a round trip
        back = from_json(rs, json.loads(json.dumps(to_json(g))), **run.kwargs)
        assert state_hash(back) == state_hash(g)
        return
    for at in range(len(run.wires)):  # every decision: the first, halfway and all the others
        g1 = _replay_to(run, at)
        told = len(g1.narrative)
        data = json.loads(json.dumps(to_json(g1)))
        g2 = from_json(rs, data, **run.kwargs)
        assert state_hash(g2) == state_hash(g1), f"the state changed on a save/load round trip at choice {at}"
        assert to_json(g2) == data
        err = finish(g2, run.wires[at:])
        assert _end_of(g2, err) == reference, f"a game saved at choice {at} and loaded ended differently"
        assert g2.narrative == g.narrative[told:], f"the narrative after loading at choice {at} differs"
    # clone at the first decision; play the clone first so that shared state would show
    g1 = run.new_game()
    c = clone(g1)
    err_c = finish(c, run.wires)
    assert _end_of(c, err_c) == reference, "a clone at the first decision ended differently"
    assert c.narrative == g.narrative
    err_o = finish(g1, run.wires)
    assert _end_of(g1, err_o) == reference, "the original ended differently after its clone was played"
    assert g1.narrative == g.narrative


def test_view_hides_what_a_player_may_not_see():
    """game.view(seat): an owner zone is shown to its owner only, hidden and count zones as counts."""
    case = CASES / "zones_visibility"
    rs = _ruleset(case)
    g = Game(rs, 2, 7, check_conservation=True)
    assert g.pending is not None and g.pending.player == 0
    v0, v1 = g.view(0), g.view(1)
    hand0 = [c.id for c in g.zones[ZoneRef("hand", 0)]]
    hand1 = [c.id for c in g.zones[ZoneRef("hand", 1)]]
    assert hand0 and hand1
    assert v0["zones"]["hand[0]"] == hand0
    assert v0["zones"]["hand[1]"] == {"count": len(hand1)}
    assert v1["zones"]["hand[1]"] == hand1
    assert v1["zones"]["hand[0]"] == {"count": len(hand0)}
    deck = g.zones[ZoneRef("deck")]
    for v in (v0, v1):
        assert v["zones"]["deck"] == {"count": len(deck)}
        assert v["zones"]["table"] == [c.id for c in g.zones[ZoneRef("table")]]
        assert v["zones"]["pile"] == {"count": len(g.zones[ZoneRef("pile")])}
        assert v["zones"]["discard"] == {"count": len(g.zones[ZoneRef("discard")]),
                                         "top": g.zones[ZoneRef("discard")][-1].id}
        text = json.dumps(v)
        for cid in [c.id for c in deck] + [c.id for c in g.zones[ZoneRef("pile")]]:
            assert f'"{cid}"' not in text, f"{cid} lies in a hidden zone but shows in a view"
    assert v0["decision"] is not None and v1["decision"] is None
    for cid in hand1:
        assert f'"{cid}"' not in json.dumps(v0), "player 0 sees a card of player 1's hand"


def test_initial_cards_on_a_family_stop_with_a_game_error():
    """Even unchecked (load with check=False), the runtime refuses to start such a game, without a traceback."""
    from rulecraft.runtime.game import GameError

    loaded = load_ruleset(str(CASES / "loader_initial_all_on_family" / "ruleset.yaml"), check=False)
    assert loaded.ruleset is not None
    with pytest.raises(GameError) as info:
        Game(loaded.ruleset, 2, 1)
    err = info.value.rule_error
    assert err is not None and err.span is not None and err.span.line == 7
    assert "family of zones" in err.message
