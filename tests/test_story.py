"""A game without its story (`Game(..., story=False)`, as simulations play) is the same game.

- seeded random games of every bundled ruleset end the same way with and without the
  story: winners, scores, steps, decisions, tallies, the random generator and the whole
  final state;
- a `log` whose text draws a chance is still worked out without the story, so the dice
  fall the same (directly and through a ruleset function);
- without the story no narrative is written and a `log` text that cannot be worked out is
  not noticed; with it (play, `simulate --check`) it is reported at its step.
"""

from __future__ import annotations

import textwrap

import pytest

from conftest import play_seeded

from rulecraft.diagnostics import RuleError
from rulecraft.loader import load_ruleset
from rulecraft.runtime.game import Game
from rulecraft.runtime.state_io import to_json
from rulecraft.tools.simulate.runs import simulate

BUNDLED = ["dml", "dml-classic", "dml-2016", "dml-mayhem", "dml-smackdown", "dune-bidding",
           "pig", "sealed-auction", "stack-duel"]
_RULESETS: dict[str, object] = {}


def _ruleset(name: str):
    if name not in _RULESETS:
        loaded = load_ruleset(name)
        assert loaded.ok, name
        _RULESETS[name] = loaded.ruleset
    return _RULESETS[name]


def _play(rs, seed: int, story: bool) -> Game:
    return play_seeded(rs, seed, story=story)


def _outcome(g: Game) -> dict:
    state = to_json(g)
    state.pop("narrative", None)
    return {"winners": g.winners, "scores": g.scores, "steps": g.steps, "decisions": g.decisions,
            "tallies": g.tallies, "rng": g.rng.state, "state": state}


@pytest.mark.parametrize("name", BUNDLED)
def test_a_game_without_its_story_is_the_same_game(name):
    rs = _ruleset(name)
    for seed in range(1, 6):
        told, untold = _play(rs, seed, True), _play(rs, seed, False)
        assert _outcome(told) == _outcome(untold), f"{name} seed {seed}"
        assert told.narrative and not untold.narrative


TINY = """
ruleset: story-test
title: Story test
players: {min: 2, max: 2, default: 2}
functions:
  pick:
    params: [xs]
    value: "random(xs)"
variables:
  n: 0
start: main
sequences:
  main:
    kind: game
    steps:
      - do: "log 'picked {random([1, 2, 3, 4, 5, 6])}'"
      - do: "log 'picked {pick([1, 2, 3, 4, 5, 6])}'"
      - do: "log 'plain text'"
      - do: "set n = random([1, 2, 3, 4, 5, 6])"
"""


def _tiny(tmp_path, body: str = TINY):
    path = tmp_path / "story.yaml"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    loaded = load_ruleset(str(path))
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    return loaded.ruleset


def test_a_log_that_draws_a_chance_is_worked_out_without_the_story(tmp_path):
    rs = _tiny(tmp_path)
    for seed in range(20):
        told, untold = Game(rs, 2, seed), Game(rs, 2, seed, story=False)
        assert told.over and untold.over
        assert told.vars["n"] == untold.vars["n"] and told.rng.state == untold.rng.state
        assert len(told.narrative) >= 3 and untold.narrative == []


def test_an_unreadable_log_text_is_reported_only_with_the_story(tmp_path):
    rs = _tiny(tmp_path, TINY.replace("log 'plain text'", "log 'left: {n.size}'"))
    with pytest.raises(RuleError):
        Game(rs, 2, 1)
    assert Game(rs, 2, 1, story=False).over
    # simulate writes no story, except with --check
    plain = simulate(str(tmp_path / "story.yaml"), games=3, workers=1)
    checked = simulate(str(tmp_path / "story.yaml"), games=3, workers=1, check=True)
    assert not any(r.get("error") for r in plain.results)
    assert all(r.get("error") for r in checked.results)


def test_a_copy_keeps_the_story_off():
    g = Game(_ruleset("pig"), None, 3, story=False)
    assert not g.copy().story and not g.copy(story=True).story
    told = Game(_ruleset("pig"), None, 3)
    assert told.copy().story and not told.copy(story=False).story


def test_a_zone_titled_with_an_article_is_named_once_with_it_in_the_story(tmp_path):
    """A designer's title "The draw pile" read "P1 shuffles their the discard pile to make a new the draw pile"."""
    from pathlib import Path

    text = Path(__file__).parent.joinpath("cases", "constructs", "zone_refill", "ruleset.yaml").read_text()
    text = text.replace("title: Draw pile", "title: The draw pile").replace("title: Discard pile", "title: the Discard pile")
    g = Game(_tiny(tmp_path, text), 2, 5)
    assert "P1 shuffles their discard pile to make a new draw pile" in g.narrative
    assert not [line for line in g.narrative if "the the" in str(line).lower() or "their the" in str(line)]
