"""The auction's expansion: linear in what is nested inside it, bounded, only what the settings read, and the
same games on both engines (tests/test_engines.py).

Counts, outcomes and diagnostics only: no timing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rulecraft.agents.base import RandomAgent
from rulecraft.loader import load_ruleset
from rulecraft.loader.constructs import expansion as constructs
from rulecraft.model import ruleset as M
from rulecraft.runtime.game import Game
from rulecraft.runtime.state_io import state_hash, to_json

CASES = Path(__file__).resolve().parent / "cases" / "constructs"


def _nested(levels: int, form: str) -> str:
    """Auctions nested in each other's on_drop, `levels` deep."""
    def one(level: int, pad: str) -> str:
        s = f"{pad}- auction:\n{pad}    form: {form}\n{pad}    limit: \"bidder.coins\"\n{pad}    as: a{level}\n"
        if level < levels:
            return s + f"{pad}    on_drop:\n" + one(level + 1, pad + "      ")
        return s + f"{pad}    on_drop: [\"log 'out'\"]\n"
    return ("ruleset: nest\ntitle: Nested auctions\nplayers: {min: 3, max: 3, default: 3}\n"
            "player_variables: {coins: 2}\nstart: game\nsequences:\n  game:\n    kind: game\n    steps:\n"
            + one(1, "      "))


def _count(steps) -> int:
    """Every step object of the program, nested bodies and expansions included."""
    n = 0
    for s in steps:
        n += 1
        if isinstance(s, M.ConstructStep):
            n += _count(s.run)
        for _name, body in getattr(s, "bodies", ()) if not isinstance(s, M.ConstructStep) else ():
            n += _count(body)
    return n


def _load_text(tmp_path, text: str):
    p = tmp_path / "r.yaml"
    p.write_text(text)
    return load_ruleset(str(p))


@pytest.mark.parametrize("form", ["open", "once_around", "sealed"])
def test_auctions_nested_in_on_drop_expand_linearly(form, tmp_path):
    """Each level adds the same number of steps (it used to multiply them by three: 10 levels took over 30 s)."""
    sizes = []
    for levels in (3, 4, 5, 12):
        loaded = _load_text(tmp_path, _nested(levels, form))
        assert loaded.ok, [d.message for d in loaded.diagnostics]
        sizes.append(_count(loaded.ruleset.sequences["game"].steps))
    per_level = sizes[1] - sizes[0]
    assert sizes[2] - sizes[1] == per_level
    assert sizes[3] == sizes[0] + 9 * per_level


def test_the_expansion_is_bounded_with_one_diagnostic(tmp_path, monkeypatch):
    monkeypatch.setattr(constructs, "MAX_EXPANDED_STEPS", 100)
    loaded = _load_text(tmp_path, _nested(12, "open"))
    codes = [d.code for d in loaded.diagnostics]
    assert not loaded.ok and codes.count("E006") == 1, codes


def _texts(steps) -> str:
    out = []
    for s in steps:
        out += [st.text for st in getattr(s, "stmts", ())]
        for attr in ("cond", "iterable"):
            if getattr(s, attr, None) is not None:
                out.append(getattr(s, attr).text)
        if getattr(s, "reckon", None) is not None:  # worked out by the engine: the locals it sets
            rk = s.reckon
            out.append(" ".join(f"{name} " for name in (rk.top, rk.tied, rk.winner, rk.second, rk.result) if name))
        if isinstance(s, M.ConstructStep):
            out.append(_texts(s.run))
        for _name, body in getattr(s, "bodies", ()) if not isinstance(s, M.ConstructStep) else ():
            out.append(_texts(body))
    return "\n".join(out)


SEALED = """ruleset: s
title: S
players: {min: 3, max: 3, default: 3}
player_variables: {coins: 3}
start: game
sequences:
  game:
    kind: game
    steps:
      - auction: {form: sealed, limit: "bidder.coins", price: PRICE, as: sale}
      - "log '{sale.winner}'"
"""


def test_a_sealed_auction_of_amounts_is_reckoned_by_the_engine_unless_a_trigger_listens(tmp_path):
    """The end of a sealed sale of amounts is worked out as the bids are revealed (no step of its own), unless a
    trigger may run on the reveal: then the step runs after it, as written."""
    quiet = _load_text(tmp_path, SEALED.replace("PRICE", "first")).ruleset.sequences["game"].steps[0].run
    sealed = [s for s in quiet if isinstance(s, M.SealedStep)]
    assert len(sealed) == 1 and sealed[0].reckon is not None and quiet[-1] is sealed[0]
    text = SEALED.replace("PRICE", "first").replace("sequences:\n", "triggers:\n  - {id: t, event: revealed, run: note}\n"
                                                  "sequences:\n  note:\n    kind: turn\n    steps: [\"log 'seen'\"]\n")
    loaded = _load_text(tmp_path, text)
    assert loaded.ok, loaded.diagnostics
    run = loaded.ruleset.sequences["game"].steps[0].run
    assert all(getattr(s, "reckon", None) is None for s in run) and len(run) == len(quiet) + 1  # (it says the result too)
    assert [st.text for st in sealed[0].reckon.said] == ["log SAYR_"]  # the result in words, said by the engine


def test_a_first_price_auction_never_works_out_the_second_bid(tmp_path):
    first = _texts(_load_text(tmp_path, SEALED.replace("PRICE", "first")).ruleset.sequences["game"].steps)
    second = _texts(_load_text(tmp_path, SEALED.replace("PRICE", "second")).ruleset.sequences["game"].steps)
    assert "_sec " not in first and "_sec " in second
    # nothing reads who dropped out, and nobody may be excluded: neither is worked out
    assert "_dropped" not in first and "excluded" not in first


@pytest.mark.parametrize("setting, code", [("form: sealed, last_takes: true", "E204"),
                                           ("form: open, last_takes: true", "E202")])
def test_last_takes_is_refused_where_it_cannot_work(setting, code, tmp_path):
    text = SEALED.replace("form: sealed, limit: \"bidder.coins\", price: PRICE", setting + ", limit: \"bidder.coins\"")
    loaded = _load_text(tmp_path, text)
    assert code in [d.code for d in loaded.diagnostics]


RECKONED = """ruleset: r
title: R
players: {min: 4, max: 4, default: 4}
player_variables: {coins: 4, won: 0}
variables: {mode: 0}
options:
  rule: {default: random, choices: [first_in_order, random, nobody]}
start: game
sequences:
  game:
    kind: game
    steps:
      - for_each: i
        in: "1..5"
        do:
          - "mode += 1"
          - auction:
              form: sealed
              limit: "bidder.coins"
              min_bid: MIN
              price: PRICE
              ties: TIES
              as: sale
              on_end:
                - if: "sale.winner != none"
                  then: ["sale.winner.coins -= sale.price; sale.winner.won += 1; log '{sale}'"]
                  else: ["log 'none: {sale.tied}'"]
scoring:
  score: "p.won"
"""
NEVER = "triggers:\n  - {id: t, event: revealed, when: \"false\", run: game}\n"


@pytest.mark.parametrize("price", ["first", "second", "\"'second' if mode % 2 == 0 else 'first'\""])
@pytest.mark.parametrize("ties", ["first_in_order", "random", "nobody", "\"rule if mode % 2 == 0 else 'nobody'\""])
def test_the_engine_reckons_a_sealed_auction_as_its_step_would(price, ties, tmp_path):
    """The same games, values, chance draws and state as the reckoning step (kept when a trigger listens to the
    reveal; this trigger never runs)."""
    text = RECKONED.replace("PRICE", price).replace("TIES", ties).replace("MIN", "\"mode % 2 + 1\"")
    quick = _load_text(tmp_path, text).ruleset
    (tmp_path / "s").mkdir()
    stepped = _load_text(tmp_path / "s", text.replace("start: game", NEVER + "start: game")).ruleset
    assert any(getattr(s, "reckon", None) for s in quick.sequences["game"].steps[0].body[1].run)
    assert not any(getattr(s, "reckon", None) for s in stepped.sequences["game"].steps[0].body[1].run)
    for seed in range(12):
        games = []
        for rs in (quick, stepped):
            g = Game(rs, None, seed)
            agents = [RandomAgent(p.seat, seed) for p in g.players]
            hashes = []
            while not g.over:
                hashes.append(state_hash(g))
                g.apply(agents[g.pending.player].choose(g.pending, None))
            games.append((g.winners, g.scores, g.decisions, g.narrative, repr(g.pvars), g.rng.state, g.work, hashes))
        assert games[0] == games[1]


@pytest.mark.parametrize("limit", ["bidder.coins", "bidder.coins - mode % 3"])
@pytest.mark.parametrize("short", ["", "say_short: false", "say_short: \"'{bidder} is short'\""])
def test_the_engine_gathers_the_bidders_as_the_steps_would(limit, short, tmp_path, monkeypatch):
    """Who bids (and who is told they cannot bid enough) worked out by the engine as the sealed step starts: the
    same games, chance, work and state at every decision as the steps that did it."""
    from rulecraft.loader.constructs import auction

    text = RECKONED.replace("PRICE", "second").replace("TIES", "random").replace("MIN", "\"mode % 2 + 1\"") \
        .replace("limit: \"bidder.coins\"", f"limit: \"{limit}\"" + (f"\n              {short}" if short else "")) \
        .replace("coins: 4", "coins: 3")
    games = {}
    for gather in (True, False):
        monkeypatch.setattr(auction, "GATHER", gather)
        (tmp_path / str(gather)).mkdir()
        rs = _load_text(tmp_path / str(gather), text).ruleset
        runs = []
        for seed in range(10):
            g = Game(rs, None, seed)
            agents = [RandomAgent(p.seat, seed) for p in g.players]
            states = []
            while not g.over:  # the state at each decision, but for where the frames are (the steps differ)
                data = to_json(g)
                data["pending"].pop("node")
                data["frames"] = [{k: v for k, v in fr["locals"].items() if not k.startswith(("__sealed", "__each"))}
                                  for fr in data.pop("frames")]
                data.pop("steps")
                states.append(data)
                g.apply(agents[g.pending.player].choose(g.pending, None))
            runs.append((g.winners, g.scores, g.decisions, g.narrative, repr(g.pvars), g.rng.state, g.work, states))
        games[gather] = runs
    assert games[True] == games[False]
    assert any("cannot bid enough" in line or "is short" in line for run in games[True] for line in run[3]) or \
        "false" in short
