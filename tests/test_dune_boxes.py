"""The Dune phase said with an auction step draws at most half of the 56 step boxes it drew with
hand-made loops, no chart over 12, counted from the sequence graph (every node of a sequence but its
start and its return); the auction is one node, and every visit inside it counts for that node."""

from __future__ import annotations

from conftest import play_seeded

from rulecraft.graph import build_graph
from rulecraft.loader import load_ruleset
from rulecraft.model import ruleset as M


def boxes(name: str) -> dict[str, int]:
    """Step boxes per chart: the nodes of each sequence, without its start and its return."""
    g = build_graph(load_ruleset(name).ruleset)
    return {sid: sum(1 for n in ids if g.nodes[n].kind not in ("start", "end")) for sid, ids in g.sequences.items()
            if sid}


def test_dune_draws_at_most_half_the_boxes_and_no_chart_over_12():
    per = boxes("dune-bidding")
    assert sum(per.values()) <= 28, per  # 56 with hand-made loops (60 graph nodes)
    assert max(per.values()) <= 12, per
    assert per == {"game": 4, "setup": 4, "bidding_phase": 12, "auction": 5}


def test_an_auction_is_one_node_and_its_decisions_count_for_it():
    rs = load_ruleset("dune-bidding").ruleset
    g = build_graph(rs)
    node = g.nodes["auction/2"]
    assert node.kind == "auction" and isinstance(node.step, M.ConstructStep)
    game = play_seeded(rs, 3, coverage=True)
    assert set(game.coverage) <= set(g.nodes)  # every visit maps to a drawn box
    assert game.coverage["auction/2"] > 0


def test_the_hand_made_loops_and_the_auction_step_play_the_same_games():
    """The phase as first written (hand-made loops, kept in tests/cases/_rulesets) still validates and plays,
    and the rewrite with an auction step plays the very same games: winners, scores, decisions, story, zones."""
    from pathlib import Path

    old = load_ruleset(str(Path(__file__).parent / "cases" / "_rulesets" / "dune-bidding-loops.yaml"))
    assert old.ok and not [d for d in old.diagnostics if d.is_error]
    new = load_ruleset("dune-bidding").ruleset

    def play(rs, seed, n):
        g = play_seeded(rs, seed, n)
        return g.winners, g.scores, g.decisions, g.narrative, repr(g.zones)

    for seed in range(25):
        n = 2 + seed % 5
        assert play(old.ruleset, seed, n) == play(new, seed, n), seed
