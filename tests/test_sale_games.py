"""Issue 36's two games, written with the new constructs (tests/cases/games/) and without them, as before
(tests/cases/games/by-hand/): seed for seed they play the same games, so each construct does what the steps it
replaces did: a fixed-price sale, payment to the seller or the bank, no bid (the seller keeps it), a lot of two, a
target with an 'if nobody' branch, protection until its owner's next turn."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import play_seeded

from rulecraft.loader import load_ruleset

GAMES = Path(__file__).parent / "cases" / "games"


def _play(path: Path, seed: int, players: int) -> tuple:
    loaded = load_ruleset(str(path))
    assert loaded.ok and not loaded.diagnostics, [d.message for d in loaded.diagnostics]
    g = play_seeded(loaded.ruleset, seed, players, check_conservation=seed == 0)
    return g.narrative, g.scores, g.winners, g.decisions


def _as_asked(story: list[str]) -> list[str]:
    """The hand-built fixed-price sale says 'P1 cannot pay the price and passes', telling everyone P1's money (which
    is hidden) is short; the construct asks P1 with 'no' the only answer, which the other seats read as any 'no'
    (docs/secrecy.md). The hand-built story as the construct tells it, to compare the rest line for line."""
    out, price = [], None
    for line in story:
        m = re.fullmatch(r"(P\d+): Name a price -> (\d+)", line)
        price = m.group(2) if m else price
        m = re.fullmatch(r"(P\d+) cannot pay the price and passes", line)
        out.append(f"{m.group(1)}: Buy for {price}? -> no (the only choice)" if m else line)
    return out


@pytest.mark.parametrize("game,players", [("gallery-sale", 3), ("gallery-sale", 4), ("last-guard", 2),
                                          ("last-guard", 4)])
def test_the_constructs_play_as_the_steps_they_replace(game, players):
    for seed in range(3):
        story, *rest = _play(GAMES / f"{game}.yaml", seed, players)
        by_hand, *rest_by_hand = _play(GAMES / "by-hand" / f"{game}.yaml", seed, players)
        # the construct's sale names who is paid ('P2 buys it for 10, paid to P1'); the hand-built one does not
        story = [re.sub(r", paid to (?:P\d+|the bank)$", "", line) for line in story]
        assert (story, rest) == (_as_asked(by_hand), rest_by_hand)


def test_the_games_are_shorter_with_the_constructs():
    lines = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in (GAMES / "gallery-sale.yaml",
                                                                             GAMES / "last-guard.yaml")}
    by_hand = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in (GAMES / "by-hand").glob("*.yaml")}
    assert all(lines[name] < by_hand[name] for name in lines), (lines, by_hand)


def test_the_constructs_are_said_in_words():
    """Players read the sale settings, the lifetime and the target in words (charts, book, `?`)."""
    from rulecraft.model import ruleset as M
    from rulecraft.model.ruleset import walk_steps
    from rulecraft.tools.words import Words

    def said(case: str, construct: str = "", seq: str = "game") -> list[str]:
        rs = load_ruleset(str(GAMES.parent / "constructs" / case / "ruleset.yaml")).ruleset
        w = Words(rs, detail="players")
        return [w.step(s) for s in walk_steps(rs.sequences[seq].steps)
                if not construct or isinstance(s, M.ConstructStep) and s.construct == construct]

    assert said("auction_fixed_price", "auction") == [
        "Fixed-price sale: the player names a price; in turn, each other player may buy at it or pass; nobody buys: "
        "the player must buy it; the winner pays the player (the bank if the player wins)"]
    assert said("auction_lot", "auction")[0].endswith(
        "no bid: the player keeps it; the winner pays the player (the bank if the player wins)")
    rs = load_ruleset(str(GAMES.parent / "constructs" / "modifiers_next_turn" / "ruleset.yaml")).ruleset
    guard = next(s for s in walk_steps(rs.sequences["turn"].steps) if isinstance(s, M.ActionStep)
                 and "until next" in s.stmts[0].text)
    assert Words(rs, detail="players").stmt(guard.stmts[0]) == \
        "The player gets “guarded” (Cannot be chosen until your next turn) until their next turn"
    assert said("target", "target", "turn") == ["The player chooses a target"]
