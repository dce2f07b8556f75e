"""Rulesets written against earlier versions of the language keep validating and playing the same games.

Every folder under tests/cases/earlier/ holds a `ruleset.yaml` as it was written then (taken from the
repository's history with `git show COMMIT:PATH`, byte for byte; or written for this corpus in the
style of that time, which its first comment says) and an `expected.yaml`:

    # what the ruleset is and where it comes from, in one line
    from: {commit: 1d10cfc, path: rulesets/examples/pig.yaml}
    played_then: e92713b         # the engine of this commit played the games below exactly so
    warnings: [W312]             # the warning codes it may give today (no error, ever)
    games:                       # games played with the corpus's own agent, pinned once
      - {seed: 1, players: 2, decisions: 23, winners: [1], digest: 0123456789abcdef}

The games are played by `CyclingAgent`, defined here: its answer is a function of the decision alone
(its kind, its size and how many decisions came before), never of a bot library, so a change to how
the bundled bots choose cannot change these games; only a change to the language can. The digest
covers every decision asked and answered and the final state (zones, variables, marks, scores,
winners), not the story's wording, which the one English renderer may improve.

A new case is recorded once with `python tests/test_earlier_rulesets.py NAME` (it prints the
`games:` entries to paste) and never re-recorded: a changed digest is a broken promise. Each case's
pins were checked against the engine of its `played_then:` commit, taken from git history, with
`python tests/cases/earlier/played_then.py [CASE...]`: every pinned game is what the ruleset
did then (for the open auction, with the engine just before 'highest' became a built-in).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest
import yaml

from rulecraft.dsl import builtins as B
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.runtime.state_io import encode

CASES_DIR = Path(__file__).resolve().parent / "cases" / "earlier"
CASES = sorted(p.name for p in CASES_DIR.iterdir() if (p / "ruleset.yaml").is_file())


class CyclingAgent:
    """Answers by counting: the k-th decision of the game takes option (k * 7 + seat) mod the number of answers."""

    def __init__(self, seat: int):
        self.seat = seat

    def choose(self, d, k: int):
        turn = k * 7 + self.seat
        if d.kind == "yesno":
            return turn % 3 != 0  # mostly yes: loops that ask 'again?' still end by their own rules
        if d.kind == "number":
            span, optional = max(0, d.max - d.min + 1), getattr(d, "optional", False)  # (engines before it had none)
            pick = turn % (span + (1 if optional else 0)) if span or optional else 0
            return None if pick == span and optional else d.min + pick
        n = len(d.options)
        if d.kind == "one":
            return turn % n
        size = d.min + turn % (d.max - d.min + 1)
        picks = sorted({(turn + 3 * i) % n for i in range(size)})
        return picks if len(picks) == size else list(range(size))


def play(ruleset, seed: int, players: int, engine: str = "compiled") -> dict:
    """One game by CyclingAgents; what it did, as a short digest and a few plain facts."""
    g = Game(ruleset, players, seed, story=False, max_steps=300_000, engine=engine)
    agents = [CyclingAgent(p.seat) for p in g.players]
    asked = []
    while not g.over:
        d = g.pending
        answer = agents[d.player].choose(d, g.decisions)
        asked.append([d.player, d.kind, len(d.options), d.min, d.max, encode(answer)])
        g.apply(answer)
    final = {
        "asked": asked,
        "zones": sorted([r.zone, json.dumps(encode(r.key)), [c.id for c in cards]] for r, cards in g.zones.items()),
        "vars": {k: encode(v) for k, v in g.vars.items()},
        "pvars": [{k: encode(v) for k, v in pv.items()} for pv in g.pvars],
        "marks": {cid: {k: encode(v) for k, v in m.items()} for cid, m in g.marks.items()},
        "winners": g.winners, "scores": encode(g.scores),
    }
    text = json.dumps(final, sort_keys=True, separators=(",", ":"))
    return {"seed": seed, "players": players, "decisions": g.decisions, "winners": g.winners,
            "digest": hashlib.sha256(text.encode()).hexdigest()[:16]}


def _expected(name: str) -> dict:
    return yaml.safe_load((CASES_DIR / name / "expected.yaml").read_text(encoding="utf-8"))


def _load(name: str):
    result = load_ruleset(str(CASES_DIR / name / "ruleset.yaml"))
    errors = [f"{d.code} {d.span}: {d.message}" for d in result.diagnostics if d.is_error]
    assert result.ok and not errors, f"{name} no longer validates:\n" + "\n".join(errors)
    return result


@pytest.mark.parametrize("name", CASES, ids=CASES)
def test_an_earlier_ruleset_validates_and_plays_the_same_games(name: str):
    expected = _expected(name)
    result = _load(name)
    warned = {d.code for d in result.diagnostics if not d.is_error}
    assert warned <= set(expected.get("warnings") or ()), f"new warnings: {sorted(warned - set(expected['warnings'] or ()))}"
    for game in expected["games"]:
        assert play(result.ruleset, game["seed"], game["players"]) == game, f"{name}: seed {game['seed']}"


def test_the_corpus_spans_several_versions():
    commits = {_expected(n)["from"].get("commit") for n in CASES}
    assert len(CASES) >= 8 and len(commits - {None}) >= 5, commits
    for name in CASES:
        expected = _expected(name)
        first = (CASES_DIR / name / "expected.yaml").read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# ") and expected["games"], name


def test_a_new_builtin_named_like_a_rulesets_function_breaks_nothing(monkeypatch):
    """A release adds a built-in 'bidders' (and 'sale_price'): rulesets that define their own still validate,
    with a warning naming the built-in, and their calls still run their own functions."""
    own = "open-auction-own-ranking"
    before = [play(_load(own).ruleset, g["seed"], g["players"]) for g in _expected(own)["games"]]
    monkeypatch.setitem(B.REGISTRY, "bidders", B.Builtin("bidders", lambda ctx, span: [], 0, 0, (), "list",
                                                         "Everyone who may bid.", "bidders()"))
    result = _load(own)
    shadow = [d for d in result.diagnostics if d.code == "W314"]
    assert {d.message.split("'")[1] for d in shadow} == {"highest", "lowest", "bidders"}
    assert all("built-in function" in d.message for d in shadow)
    assert [play(result.ruleset, g["seed"], g["players"]) for g in _expected(own)["games"]] == before


@pytest.mark.parametrize("name", ["open-auction-own-ranking", "reference-64ab600"])
def test_both_engines_play_the_pinned_games(name, monkeypatch):
    """The reference engine, and the compiled one writing every stretch at its first visit (strict: a construct
    it cannot write fails)."""
    from rulecraft.compiler import expressions, stretches

    games = _expected(name)["games"]
    rs = _load(name).ruleset
    reference = [play(rs, g["seed"], g["players"], engine="reference") for g in games]
    monkeypatch.setattr(stretches, "HOT", 0)
    monkeypatch.setattr(stretches, "STRAIGHT_VISITS", 0)
    monkeypatch.setattr(stretches, "STRICT", True)
    monkeypatch.setattr(expressions, "STRICT", True)
    compiled = [play(rs, g["seed"], g["players"], engine="compiled") for g in games]
    assert reference == compiled == games


if __name__ == "__main__":  # record a new case once: python tests/test_earlier_rulesets.py NAME [SEEDS]
    name = sys.argv[1]
    rs = _load(name).ruleset
    for seed in range(1, 1 + (int(sys.argv[2]) if len(sys.argv) > 2 else 4)):
        n = rs.players.min + seed % (rs.players.max - rs.players.min + 1)
        print("  - " + json.dumps(play(rs, seed, n)).replace('"', ""))
