"""The auction's expansion: linear in what is nested inside it, bounded, only what the settings read, and the
same games on both engines (tests/test_engines.py).

Counts, outcomes and diagnostics only: no timing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rulecraft.loader import load_ruleset
from rulecraft.loader.constructs import expansion as constructs
from rulecraft.model import ruleset as M

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


def test_a_sealed_auction_of_amounts_runs_as_plain_steps(tmp_path):
    """Who bids and how the sale ends are steps of the expansion, as for every other auction (no way of running
    of its own): the reckoning step follows the sealed step, with or without a trigger on the reveal."""
    quiet = _load_text(tmp_path, SEALED.replace("PRICE", "first")).ruleset.sequences["game"].steps[0].run
    sealed = [i for i, s in enumerate(quiet) if isinstance(s, M.SealedStep)]
    assert len(sealed) == 1 and sealed[0] > 0 and len(quiet) > sealed[0] + 1
    assert "_tied" in _texts(quiet[sealed[0] + 1:])
    text = SEALED.replace("PRICE", "first").replace("sequences:\n", "triggers:\n  - {id: t, event: revealed, run: note}\n"
                                                  "sequences:\n  note:\n    kind: turn\n    steps: [\"log 'seen'\"]\n")
    loaded = _load_text(tmp_path, text)
    assert loaded.ok, loaded.diagnostics
    assert len(loaded.ruleset.sequences["game"].steps[0].run) == len(quiet)


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


def test_highest_keys_gives_who_tied_for_the_highest_value():
    """The built-in the sealed reveal works out its highest bids with (docs/language.md, Ranking)."""
    from rulecraft.diagnostics import RuleError
    from rulecraft.dsl.builtins import REGISTRY

    fn = REGISTRY["highest_keys"].fn
    assert fn(None, None, {"a": 3, "b": None, "c": 5, "d": 5}) == ["c", "d"]
    assert fn(None, None, {"a": None}) == [] and fn(None, None, {}) == []
    assert fn(None, None, [2, None, 2.0, 1]) == [0, 2]
    for bad, words in (({"a": True}, "numbers or texts"), ({"a": 1, "b": "x"}, "cannot order"),
                       ({"a": [1]}, "numbers or texts"), (3, "needs a record")):
        with pytest.raises(RuleError, match=words):
            fn(None, None, bad)


OPEN = """ruleset: o
title: O
players: {min: 3, max: 3, default: 3}
player_variables: {coins: 3}
functions:
  can_bid: {params: [q], value: "MAY"}
start: game
sequences:
  game:
    kind: game
    steps:
      - auction: {form: open, limit: "bidder.coins", may_bid: "can_bid(bidder)", as: sale}
"""


@pytest.mark.parametrize("may, more, steady", [
    ("q.coins > 1", "", True),
    ("q.coins > random([0, 1])", "", False),  # drawing chance: worked out at every turn, as written
    ("q.coins > 1", "triggers:\n  - {id: t, event: revealed, run: game}\n", False),  # a trigger may change it
])
def test_who_may_bid_is_worked_out_once_only_where_it_cannot_change(may, more, steady, tmp_path):
    loaded = _load_text(tmp_path, OPEN.replace("MAY", may).replace("start: game\n", more + "start: game\n"))
    assert loaded.ok, loaded.diagnostics
    text = _texts(loaded.ruleset.sequences["game"].steps)
    # steady: those who may not bid are put among the out from the start, and each turn makes one test
    assert ("= excluded;" in text or "= excluded\n" in text) is steady and ("not (MAY_) or" in text) is not steady
    assert "in excluded" not in text
