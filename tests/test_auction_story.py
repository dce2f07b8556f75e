"""An auction says its result in the story once, when it is final: who won and what they paid, or that nobody did,
in the engine's own words unless the ruleset gives its own (`say_result:`), nothing with `say_result: false`; with
no story (a simulation) the text is never worked out. Outcomes and narrative lines only: no timing."""

from __future__ import annotations

import pytest

from conftest import play_seeded

from rulecraft.diagnostics import RuleError
from rulecraft.loader import load_ruleset

RULESET = """ruleset: r
title: R
players: {min: 3, max: 3, default: 3}
player_variables: {coins: 3, won: 0}
start: game
sequences:
  game:
    kind: game
    steps:
      - for_each: i
        in: "1..4"
        do:
          - auction:
              form: FORM
              limit: "bidder.coins"
              SETTINGS
              as: sale
              on_end:
                - if: "sale.winner != none"
                  then: ["sale.winner.coins -= sale.price; sale.winner.won += 1"]
scoring:
  score: "p.won"
"""
FORMS = ["open", "once_around", "sealed"]


def _games(tmp_path, form: str, settings: str = "", story: bool = True, seeds: int = 6):
    p = tmp_path / f"{form}.yaml"
    p.write_text(RULESET.replace("FORM", form).replace("SETTINGS", settings or "min_bid: 1"))
    loaded = load_ruleset(str(p))
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    for seed in range(seeds):
        yield play_seeded(loaded.ruleset, seed, story=story)


def _results(g) -> list[str]:
    return [line for line in g.narrative if " wins the auction " in line or line.startswith("Nobody ")]


@pytest.mark.parametrize("form", FORMS)
def test_each_auction_says_once_who_won_and_what_they_paid(form, tmp_path):
    said = set()
    for g in _games(tmp_path, form):
        lines = _results(g)
        assert len(lines) == 4, g.narrative  # once per lot
        for line in lines:
            said.add(line.split(" ")[1])
            if " wins the auction for " in line:
                who, price = line.split(" wins the auction for ")
                assert who in ("P1", "P2", "P3") and 1 <= int(price) <= 3
            else:
                assert line == "Nobody bids" or line.startswith("Nobody wins the auction: ")
        assert sum(q.get("won", 0) for q in g.pvars) == sum(" wins the auction " in line for line in lines)
    assert "wins" in said  # somebody won some lot in these games


def test_a_sealed_tie_that_nobody_wins_says_who_tied(tmp_path):
    lines = [line for g in _games(tmp_path, "sealed", "ties: nobody", seeds=20) for line in _results(g)]
    assert any(line.startswith("Nobody wins the auction: ") and line.endswith(" tie") for line in lines), lines


@pytest.mark.parametrize("form", FORMS)
def test_the_ruleset_says_it_in_its_own_words_or_not_at_all(form, tmp_path):
    own = "say_result: \"'{sale.winner} buys the lot for {sale.price}' if sale.winner != none else 'No sale'\""
    for g in _games(tmp_path, form, own):
        assert not _results(g)
        assert sum(" buys the lot for " in line or line == "No sale" for line in g.narrative) == 4
    for g in _games(tmp_path, form, "say_result: false"):
        assert not _results(g) and not any("buys" in line for line in g.narrative)


@pytest.mark.parametrize("form", FORMS)
def test_without_a_story_the_result_is_not_worked_out(form, tmp_path):
    """A text that could not be worked out (a division by zero) stops a game with a story, not one without."""
    broken = "say_result: \"'{1 // (sale.price - sale.price)}'\""
    for g in _games(tmp_path, form, broken, story=False, seeds=2):
        assert g.over and not g.narrative
    with pytest.raises(RuleError, match="division by zero"):
        list(_games(tmp_path, form, broken, seeds=2))


def test_bids_that_are_things_say_the_bid_and_its_worth(tmp_path):
    """With `offer:` a card laid may be worth nothing (`none`): then no bid counts, which is what is said."""
    text = RULESET.replace("FORM", "sealed").replace("SETTINGS", "offer: \"[1, 2, 3]\"\n              "
                                                     "amount: \"bid if bid > 1 else none\"")
    p = tmp_path / "things.yaml"
    p.write_text(text)
    loaded = load_ruleset(str(p))
    assert loaded.ok, [d.message for d in loaded.diagnostics]
    lines = set()
    for seed in range(12):
        lines |= set(_results(play_seeded(loaded.ruleset, seed)))
    assert any(line.endswith((" with 2 (worth 2)", " with 3 (worth 3)")) for line in lines), lines
    assert "Nobody bids" not in lines and lines <= {line for line in lines if line.startswith(("P", "Nobody wins"))}
